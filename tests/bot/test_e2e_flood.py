"""One person's flood of commands, with production pacing: nobody else waits for it.

The bot runs with its rate limiter on and the real edit intervals, against the double with
Telegram's flood limits on, so a reply that waited for a chat's pace would show here.
"""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path

import pytest
from bot_harness import open_table, running_bot
from telegram import Update
from telegram.ext import TypeHandler

from bot.config import Tuning
from bot.i18n import english
from sandbox.double import BotApiDouble
from sandbox.limits import RateLimits
from sandbox.testing import running_double

t = english()

PRODUCTION = Tuning(computer_delay=0.0, thinker_workers=0)
"""Production pacing (rate limiter on, 3 s group and 1 s DM edit intervals)."""

HELP_START = re.sub(
    "<[^>]+>",
    "",
    t(
        "♥ <b>Hearts</b>\n"
        "/newgame — open a table in this group\n"
        "/join, /leave — take or leave a seat\n"
        "/start — start the game (host or admin)\n"
        "/cancel — cancel the table (host or admin)\n"
        "/scores — this game and the all-time leaderboard\n"
        "/stats — your own record (in a DM)\n"
        "/rules — the rules of this table\n"
        "/rejoin — take your seat back from the computer\n"
        "/event — tournaments over several tables (<code>/event help</code>)\n"
        "/language — the language of my messages\n"
        "/help — this list"
    ),
)[:30]
"""How the help begins as a reader sees it (the double keeps text without its HTML)."""
DM_HELP_START = "♥ Hearts, here in our chat:"
"""How a DM's own help begins (issue 51: a DM's /help lists the DM's commands)."""


def _bot_texts(double: BotApiDouble, chat_id: int) -> list[str]:
    return [m.text or "" for m in double.chat_view(chat_id).bot_messages]


@pytest.mark.alone
async def test_300_commands_in_one_dm_do_not_hold_up_a_press_in_another_group(
    tmp_path: Path,
) -> None:
    async with running_double(RateLimits()) as double:
        spammer = double.create_user("Spam", username="spam")
        host, guest = double.create_user("Hana"), double.create_user("Gus")
        group = double.create_group("Elsewhere", members=[host, guest], admins=[host])
        async with running_bot(double, tmp_path / "db.sqlite3", PRODUCTION):
            for person in (host, guest):
                await person.start_bot()
            await double.wait_for(lambda: guest.dm_view().last() is not None, 10)
            lobby = await open_table(double, host, group)
            spammer.double.user(spammer.id).dm_open = True
            for _ in range(300):
                await spammer.send(spammer.dm, "/help")
            began = time.monotonic()
            toast = await guest.press(group, lobby, "✋ Join", timeout=10)
            answered_in = time.monotonic() - began
            assert toast is not None and answered_in < 2.0, (toast, answered_in)
            await double.wait_for(
                lambda: (
                    t("You're sending commands too fast. I'll answer again in a few seconds.")
                    in _bot_texts(double, spammer.dm)
                ),
                30,
            )
            await asyncio.sleep(4.0)  # whatever else the flood allowed has gone out
            texts = _bot_texts(double, spammer.dm)
    helps = sum(text.startswith(DM_HELP_START) for text in texts)
    assert 5 <= helps <= 8, helps  # a burst of five, and one per 2 s while the flood lasts
    assert (
        texts.count(t("You're sending commands too fast. I'll answer again in a few seconds.")) == 1
    )
    assert len(texts) == helps + 1


@pytest.mark.alone
async def test_commands_in_a_row_are_answered_promptly_in_the_order_they_came(
    tmp_path: Path,
) -> None:
    async with running_double(RateLimits()) as double:
        ann = double.create_user("Ann", username="ann")
        group = double.create_group("Order", members=[ann], admins=[ann])
        async with running_bot(double, tmp_path / "db.sqlite3", PRODUCTION):
            await ann.start_bot()
            await double.wait_for(lambda: ann.dm_view().last() is not None, 10)
            # /scores reads the database before it answers, /help does not: answered in the
            # order the handlers finish, /help would come first.
            before = len(_bot_texts(double, group.id))
            began = time.monotonic()
            for command in ("/scores", "/help", "/rules"):
                await ann.send(group, command)
            await double.wait_for(lambda: len(_bot_texts(double, group.id)) >= before + 3, 10)
            answered_in = time.monotonic() - began
            texts = _bot_texts(double, group.id)[before:]
    assert len(texts) == 3
    assert texts[1].startswith(HELP_START)
    assert "Follow suit" in texts[2]
    assert not texts[0].startswith(HELP_START) and "Follow suit" not in texts[0]
    # The group's pace is one message every 3 s; a few answers go out at once.
    assert answered_in < 2.5, answered_in


async def test_a_command_held_up_before_its_handler_keeps_its_answers_place(
    tmp_path: Path,
) -> None:
    """The gates before a command's handler may wait on the database (a new group's claim by
    its serving account, the record of handled updates): a command held up there still has
    its answer go out in the order the commands came. Here a gate that takes 0.5 s for
    /scores alone stands for the database; /help and /rules, right behind it, wait."""

    async def slow_scores(update: object, _: object) -> None:
        message = update.message if isinstance(update, Update) else None
        if message is not None and (message.text or "").startswith("/scores"):
            await asyncio.sleep(0.5)

    async with running_double() as double:
        ann = double.create_user("Ann", username="ann")
        group = double.create_group("Held", members=[ann], admins=[ann])
        async with running_bot(double, tmp_path / "db.sqlite3", PRODUCTION) as app:
            app.add_handler(TypeHandler(Update, slow_scores), group=-3)
            await ann.start_bot()
            await double.wait_for(lambda: ann.dm_view().last() is not None, 10)
            before = len(_bot_texts(double, group.id))
            for command in ("/scores", "/help", "/rules"):
                await ann.send(group, command)
            await double.wait_for(lambda: len(_bot_texts(double, group.id)) >= before + 3, 10)
            texts = _bot_texts(double, group.id)[before:]
    assert len(texts) == 3
    assert not texts[0].startswith(HELP_START) and "Follow suit" not in texts[0]
    assert texts[1].startswith(HELP_START)
    assert "Follow suit" in texts[2]
