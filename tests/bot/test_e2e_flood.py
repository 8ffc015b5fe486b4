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
from bot_harness import (
    MoveTimes,
    finished_game,
    open_table,
    rooms_of,
    running_bot,
    start_with_computers,
)
from telegram import Update
from telegram.ext import TypeHandler

from bot.config import Tuning
from bot.i18n import english
from sandbox.double import BotApiDouble
from sandbox.limits import RateLimits
from sandbox.testing import running_double
from sandbox.views import CallbackRecord, MessageView

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


ATTACKED = Tuning(computer_delay=1.0, thinker_workers=1)
"""Production pacing (the rate limiter, 3 s between a group's edits), the computers' pace of
production (a second a card) and a worker process."""
QUIET_S = 3.0
"""The window of the baseline: about three computer moves."""
FLOOD_PER_S = 50.0
"""The flood's pace: 2,700 updates in about a minute."""


@pytest.mark.alone
async def test_one_person_pressing_every_button_300_times_costs_the_others_nothing(
    tmp_path: Path,
) -> None:
    """Issue 50, item 5: in a group with a finished game (▶ Replay), an open table (Join,
    Leave, Add computer, the rules menu) and the /language menu, one admin presses each of
    those buttons 300 times and sends /language 300 times (`FLOOD_PER_S`). Another group's
    table of computers never waits between moves more than 1.5× its longest wait right
    before, a /scores sent in the flooded group meanwhile is answered within 3 s, and the
    group gets a handful of posts, not hundreds (before: every ▶ Replay a post, and the
    /scores not answered within two minutes)."""
    database = tmp_path / "hearts.sqlite3"
    async with running_double() as double:  # the bot paces itself as in production
        spam = double.create_user("Spam", username="spam")
        ann = double.create_user("Ann", username="ann")
        cara = double.create_user("Cara", username="cara")
        flooded = double.create_group("Flooded", members=[spam, ann], admins=[spam])
        robots = double.create_group("Robots", members=[cara])
        # Before: a finished game in the flooded group, for its ▶ Replay.
        async with running_bot(double, database) as app:
            await finished_game(double, app, flooded, [spam])
            await ann.start_bot()
        async with running_bot(double, database, ATTACKED) as app:
            rooms = rooms_of(app)
            _, robot_table = await start_with_computers(double, app, robots, [cara])
            await cara.send(robots, "/leave")  # a computer plays her seat: computers only
            moved = MoveTimes(rooms, robot_table)
            longest_wait = moved.longest_wait

            # The buttons: ▶ Replay, the open table's, its rules menu's, /language's.
            def posted() -> list[MessageView]:
                return double.chat_view(flooded.id).bot_messages

            replay = next(m for m in reversed(posted()) if "▶ Replay" in str(m.labels))
            lobby = await open_table(double, spam, flooded)
            lobby_buttons = [  # the table's own, before the rules menu replaces them
                b["callback_data"]
                for row in (double.stored_message(flooded.id, lobby).reply_markup or {})[
                    "inline_keyboard"
                ]
                for b in row
            ]
            await spam.press(flooded, lobby, "⚙ Rules")
            await double.wait_for(
                lambda: (
                    "⚙ Table rules" in (posted()[-1].text or "")
                    or any("⚙ Table rules" in (m.text or "") for m in posted())
                ),
                10,
            )
            await spam.send(flooded, "/language")
            await double.wait_for(lambda: "🌐" in (posted()[-1].text or ""), 10)
            menu = posted()[-1].message_id
            buttons: dict[str, tuple[int, str]] = {}  # one of each kind
            for message_id in (replay.message_id, lobby, menu):
                stored = double.stored_message(flooded.id, message_id)
                assert stored is not None
                rows = (stored.reply_markup or {}).get("inline_keyboard", [])
                datas = [b["callback_data"] for row in rows for b in row if "callback_data" in b]
                for data in [*datas, *(lobby_buttons if message_id == lobby else [])]:
                    if data[:3] != "lg:" or data.endswith(":en"):  # the language stays
                        buttons.setdefault(data.split(":")[0], (message_id, data))
            del buttons["ls"], buttons["lc"]  # not Start nor Cancel: the table would go
            assert set(buttons) == {"rh", "lj", "ll", "la", "lr", "lb", "ro", "lg"}, buttons
            await double.wait_for(lambda: len(moved) >= 3, 30)
            await asyncio.sleep(4.0)  # the presses above: their limits full again

            began = time.monotonic()
            await asyncio.sleep(QUIET_S)
            baseline = longest_wait(began, time.monotonic())
            assert 0.9 < baseline < 3, baseline
            posts_before = len(posted())
            presses: list[CallbackRecord] = []

            async def flood() -> None:
                """Each button 300 times and /language 300 times: FLOOD_PER_S updates a
                second, about as fast as Telegram takes one person's presses."""
                began = time.monotonic()
                for n in range(300):
                    for message_id, data in buttons.values():
                        stored = double.stored_message(flooded.id, message_id)
                        assert stored is not None
                        presses.append(double.new_callback(spam.id, stored, data))
                    await spam.send(flooded, "/language")
                    due = began + (n + 1) * (len(buttons) + 1) / FLOOD_PER_S
                    await asyncio.sleep(max(0.0, due - time.monotonic()))

            since = time.monotonic()
            flooding = asyncio.create_task(flood())
            await double.wait_for(lambda: len(presses) >= 800, 30)
            # Meanwhile Ann asks for the scores in the flooded group.
            scores_at = len(posted())
            asked = time.monotonic()
            await ann.send(flooded, "/scores")
            await double.wait_for(
                lambda: any("The last game here" in (m.text or "") for m in posted()[scores_at:]),
                120,
            )
            answered_in = time.monotonic() - asked
            await flooding
            await double.idle()
            # Every press answered: within its presser's rate as it says, the first past it
            # told it goes too fast, the rest at the door without a word.
            await double.wait_for(lambda: all(p.answered for p in presses), 60)
            told = [p for p in presses if p.answer is not None and p.answer.text]
            await asyncio.sleep(1.5)  # the work the flood left
            wait = longest_wait(since, time.monotonic())
            flood_s = time.monotonic() - since
            posts = len(posted()) - posts_before
    print(
        f"{len(presses)} presses ({len(told)} with a toast) and 300 /language;"
        f" /scores answered in {answered_in:.2f} s;"
        f" computers' longest wait {wait:.2f} s (baseline {baseline:.2f} s);"
        f" {posts} posts in the flooded group over {flood_s:.1f} s"
    )
    assert answered_in < 3.0, answered_in
    assert wait <= 1.5 * baseline, (wait, baseline)
    assert len(told) < len(presses) / 4, len(told)
    # The presser's share of the group's posts: five, then one every ten seconds.
    assert posts <= 5 + flood_s / 10 + 2, posts
