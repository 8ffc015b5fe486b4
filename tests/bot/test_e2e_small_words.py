"""The small wrong things of issue 51, item 6, through the real stack: /help in a DM lists
the DM's own commands, /join in the group names who sat down, and /event's examples are
dates to come, with deadline= spelt as docs/tournaments.md spells it."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from pathlib import Path

from bot_harness import open_table, running_bot

from sandbox.double import BotApiDouble
from sandbox.testing import running_double

TOURNAMENTS = Path(__file__).resolve().parents[2] / "docs" / "tournaments.md"


async def _reply(double: BotApiDouble, chat_id: int, text: str) -> str:
    found = await double.wait_for(
        lambda: next(
            (m for m in double.chat_view(chat_id).bot_messages if text in (m.text or "")), None
        ),
        5,
    )
    return found.text or ""


async def test_help_join_and_event_examples_read_right(tmp_path: Path) -> None:
    async with running_double() as double:
        alice, bob = double.create_user("Alice"), double.create_user("Bob")
        group = double.create_group("Words", members=[alice, bob], admins=[alice])
        async with running_bot(double, tmp_path / "db.sqlite3"):
            for p in (alice, bob):
                await p.start_bot()
            await double.idle()
            # /help in a DM: what works there, not the group's table commands.
            await alice.send(alice.dm, "/help")
            mine = await _reply(double, alice.dm, "here in our chat")
            assert "/daily" in mine and "/stats" in mine and "/rejoin" in mine
            assert "/newgame —" not in mine and "/join, /leave" not in mine
            await alice.send(group, "/help")
            assert "/join, /leave" in await _reply(double, group.id, "/newgame —")

            # /join in the group: the answer, seen by everyone, names who sat down.
            await open_table(double, alice, group)
            await bob.send(group, "/join")
            assert "\u2068Bob\u2069, you're in!" in await _reply(double, group.id, "you're in")

            # /event's examples: a date to come, and deadline= as the docs write it.
            await alice.send(group, "/event")
            none = await _reply(double, group.id, "There's no event here")
            await bob.send(group, "/event help")  # alice has sent four commands: her rate
            helped = await _reply(double, group.id, "registration closes")
            today = datetime.now(UTC).date()
            for text in (none, helped):
                days = [date.fromisoformat(d) for d in re.findall(r"\d{4}-\d\d-\d\d", text)]
                assert days and all(d > today for d in days), text
            assert "deadline=17:00" in helped and re.search(
                r"deadline=\d{4}-\d\d-\d\dT17:00", helped
            )
            readme = TOURNAMENTS.read_text()
            assert "`deadline=17:00`" in readme and "`deadline=YYYY-MM-DDT17:00`" in readme
