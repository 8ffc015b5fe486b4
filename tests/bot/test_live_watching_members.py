"""Issue 50, item 7: watching follows membership.

A member removed from the group stops watching as soon as Telegram says so (a
``chat_member`` update, sent to a bot that is the group's admin), and within the short
membership cache where it does not say; a daily deal's table is never watched, whatever
Telegram answers for its chat (a DM), and the double no longer lets a stranger into a DM.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from bot_harness import FAST, rooms_of, running_bot
from test_e2e_daily import quick_computers  # noqa: F401 (the day's computers, quick)
from test_live_server import open_page, signed, table_with_two_people, until

import bot.live.membership
from bot.live.membership import Membership
from bot.live.server import REFUSED
from bot.tables.model import Table
from sandbox.double import ApiError
from sandbox.people import Group
from sandbox.testing import running_double

GONE = "Only members of this table's group can watch it."


async def test_a_removed_member_stops_watching_as_soon_as_telegram_says_so(
    tmp_path: Path,
) -> None:
    async with table_with_two_people(tmp_path) as (double, app, table, ana, _, eve):
        double.chat(table.chat_id).bot_admin = True  # so Telegram tells it who leaves
        group = Group(double, table.chat_id)
        async with open_page(app, signed(double, eve, start_param=f"w{table.id}")) as page:
            await until(lambda: page.states())
            assert page.states()[-1]["watching"] is True
            group.remove(eve, by=ana)
            await until(lambda: page.closed_code is not None)
        refused = page.last("refused")
        assert refused is not None and refused["text"] == GONE and page.closed_code == REFUSED
        frames = len(page.states())
        live = rooms_of(app).live
        assert live is not None and live.watchers(table.id) == 0
        asked = double.call_count("getChatMember")
        # A new page is refused at once, from what Telegram said (not asked again)...
        async with open_page(app, signed(double, eve), table.id) as again:
            await until(lambda: again.closed_code is not None)
        assert again.closed_code == REFUSED and not again.states()
        assert double.call_count("getChatMember") == asked
        assert len(page.states()) == frames
        # ...and let in again as soon as Telegram says she is back.
        group.add(eve)
        await double.idle()  # the bot has been told
        async with open_page(app, signed(double, eve), table.id) as back:
            await until(lambda: back.states())
            assert back.states()[-1]["watching"] is True


async def test_where_telegram_does_not_say_a_removed_member_stops_within_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bot that is no admin is not told who leaves: the open watchers' pages are asked
    about again once their answer is older than `MEMBER_TTL` (here at once)."""
    assert bot.live.membership.MEMBER_TTL <= 60
    monkeypatch.setattr(bot.live.membership, "MEMBER_TTL", 0.0)
    async with table_with_two_people(tmp_path) as (double, app, table, *_, eve):
        assert not double.chat(table.chat_id).bot_admin
        async with open_page(app, signed(double, eve), table.id) as page:
            await until(lambda: page.states())
            server = app.live_server
            assert server is not None
            asked = double.call_count("getChatMember")
            await server.recheck()  # still a member: nothing closes
            assert page.closed_code is None
            assert double.call_count("getChatMember") == asked + 1
            Group(double, table.chat_id).remove(eve)
            await server.recheck()
            await until(lambda: page.closed_code is not None)
        refused = page.last("refused")
        assert refused is not None and refused["text"] == GONE


async def test_a_daily_table_is_never_watched_whatever_telegram_answers(tmp_path: Path) -> None:
    async with running_double() as double:
        ann = double.create_user("Ann", username="ann")
        zed = double.create_user("Zed", username="zed")
        async with running_bot(double, tmp_path / "db.sqlite3", FAST, pages=True) as app:
            await ann.send(ann.dm, "/daily")
            registry = rooms_of(app).registry

            def daily_table() -> Table | None:
                tables = registry.tables.values()
                return next((t for t in tables if t.daily is not None and t.game), None)

            table = await double.wait_for(daily_table, 10)
            assert table.game is not None and table.seat_of(ann.id) is not None
            # The double answers for a DM as Telegram does: its person, nobody else.
            with pytest.raises(ApiError):
                double.member_of(ann.dm, zed.id)
            server = app.live_server
            assert server is not None

            async def anyone(chat_id: int, user_id: int) -> bool:
                return True  # a Telegram that would let a stranger in

            server.membership = Membership(anyone)
            for start in (f"w{table.id}", f"g{table.id}"):
                async with open_page(app, signed(double, zed, start_param=start)) as page:
                    await until(lambda: page.closed_code is not None)
                assert page.closed_code == REFUSED and not page.states()
            async with open_page(app, signed(double, zed), table.id) as page:
                await until(lambda: page.closed_code is not None)
            assert page.closed_code == REFUSED and not page.states()
            refused = page.last("refused")
            assert refused is not None and refused["text"] == "You're not sitting at this table."
