"""Watching a table (issue 33.1) over real WebSockets against the running bot and the Bot
API double: a member of the group watches from the group's links, a stranger is refused,
a player who opens the watch link gets their own seat, the watchers are counted (people,
not pages) on the pages and on the group's table message when it is next drawn, and
watching costs one ``getChatMember`` a person, remembered, and nothing per push."""

from __future__ import annotations

import asyncio
import logging
import re
from pathlib import Path

import pytest
from bot_harness import rooms_of
from test_live_server import (
    open_page,
    pass_chosen,
    signed,
    table_with_two_people,
    tap,
    until,
)

import bot.live.server
from bot.live.server import FLOOD, REFUSED
from bot.tables.model import Table
from sandbox.double import BotApiDouble
from sandbox.people import Group

CODE = re.compile(r'"((?:10|[2-9TJQKA])[SHDC])"')


def held(table: Table) -> set[str]:
    game = table.game
    assert game is not None
    return {c.code for s in range(game.players) for c in game.hand(s)}


def group_message(double: BotApiDouble, table: Table) -> tuple[str, list[str]]:
    """The group's table message as the double holds it: its text and button addresses."""
    assert table.ui.table_message_id is not None
    stored = double.stored_message(table.chat_id, table.ui.table_message_id)
    assert stored is not None and stored.text is not None
    rows = (stored.reply_markup or {}).get("inline_keyboard", [])
    return stored.text, [b.get("url", "") for row in rows for b in row]


async def settled(double: BotApiDouble, chat_id: int) -> int:
    """The group's edits once the start's have all gone (none for half a second)."""
    edits = -1
    while edits != (edits := double.call_count("editMessageText", chat_id)):
        await asyncio.sleep(0.5)
    return edits


async def test_a_member_watches_without_a_seat_and_never_sees_a_hand(tmp_path: Path) -> None:
    async with table_with_two_people(tmp_path) as (double, app, table, ana, _, eve):
        calls = double.call_count("getChatMember")
        watch = signed(double, eve, start_param=f"w{table.id}")
        async with open_page(app, watch) as page, open_page(app, signed(double, ana)) as mine:
            await until(lambda: page.states() and mine.states())
            await until(lambda: mine.states()[-1]["watchers"] == 1)
            state = page.states()[-1]
            assert state["watching"] is True and state["you"] is None and state["cards"] == []
            assert state["watchers"] == 1 and len(state["seats"]) == 4
            assert state["game"] == table.id and state["status"].startswith("Passing")
            assert not set(CODE.findall("\n".join(page.raw))) & held(table)
            assert table.seat_of(eve.id) is None  # the link seats nobody
            # A watcher presses nothing.
            game = table.game
            assert game is not None
            said = await page.press(tap(table.id, game.hand_number, game.hand(0)[0].code))
            assert said == "You're not sitting at this table."
            # The same person again: still one watcher, and Telegram is not asked again.
            async with open_page(app, signed(double, eve), table.id) as again:
                await until(lambda: again.states())
                assert again.states()[-1]["watchers"] == 1
            assert double.call_count("getChatMember") == calls + 1
            server = app.live_server
            assert server is not None and server.membership is not None
            assert server.membership.asked == 1
            # Ana passes on her page: her move redraws the group's message, with 👀 1.
            for card in game.hand(table.seat_of(ana.id) or 0)[:3]:
                await mine.press_paced(tap(table.id, 1, card.code), 1)
            await mine.press_paced(pass_chosen(table.id, 1), 2)
            await double.wait_for(lambda: "👀 1" in group_message(double, table)[0], 5)
            assert not set(CODE.findall("\n".join(page.raw))) & held(table)
        live = rooms_of(app).live
        assert live is not None
        await until(lambda: live.watchers(table.id) == 0)


async def test_the_group_message_offers_watch_and_counts_people_not_pages(
    tmp_path: Path,
) -> None:
    async with table_with_two_people(tmp_path) as (double, app, table, *_, eve):
        link = f"startapp=w{table.id}"
        await double.wait_for(lambda: link in " ".join(group_message(double, table)[1]), 5)
        assert "👀" not in group_message(double, table)[0]
        stored = double.stored_message(table.chat_id, table.ui.table_message_id or 0)
        assert stored is not None and stored.reply_markup is not None
        rows = stored.reply_markup["inline_keyboard"]
        assert [[b["text"] for b in row] for row in rows if link in str(row)] == [["👀 Watch"]]
        fay = double.create_user("Fay", username="fay")
        double.chats[table.chat_id].members.add(fay.id)
        await rooms_of(app).languages.choose_for_person(fay.id, "es")
        live = rooms_of(app).live
        assert live is not None
        edits = await settled(double, table.chat_id)
        async with (
            open_page(app, signed(double, eve), table.id) as one,
            open_page(app, signed(double, eve), table.id) as two,
            open_page(app, signed(double, fay), table.id) as three,
        ):
            await until(lambda: one.states() and two.states() and three.states())
            await until(lambda: live.watchers(table.id) == 2)
            await until(lambda: three.states()[-1]["watchers"] == 2)
            await asyncio.sleep(0.3)
            # Eve's two pages were sent one frame, made once (its "now" is the same); Fay's
            # is her own, in Spanish.
            await until(lambda: one.raw[-1] == two.raw[-1])
            assert three.states()[-1]["status"].startswith(("Pase", "Sin pase"))
            assert one.states()[-1]["status"].startswith(("Passing", "No passing"))
            # Watching costs no Bot API request besides each person's one membership check.
            assert double.call_count("editMessageText", table.chat_id) == edits
        await until(lambda: live.watchers(table.id) == 0)


async def test_a_player_who_opens_the_watch_link_gets_their_own_seat(tmp_path: Path) -> None:
    async with table_with_two_people(tmp_path) as (double, app, table, ana, *_):
        async with open_page(app, signed(double, ana, start_param=f"w{table.id}")) as page:
            await until(lambda: page.states())
            state = page.states()[-1]
            assert state["you"] == table.seat_of(ana.id) and "watching" not in state
            assert len(state["cards"]) == 13
        assert double.call_count("getChatMember") == 0  # a player is not asked about


async def test_a_stranger_is_refused_and_watching_can_be_off(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="bot.live.server")
    async with table_with_two_people(tmp_path) as (double, app, table, _, __, eve):
        zed = double.create_user("Zed", username="zed")
        async with open_page(app, signed(double, zed, start_param=f"w{table.id}")) as page:
            await until(lambda: page.closed_code is not None)
        refused = page.last("refused")
        assert refused is not None and page.closed_code == REFUSED and not page.states()
        assert refused["text"] == "Only members of this table's group can watch it."
        table.options.watching = False  # an event's table whose organiser said no
        async with open_page(app, signed(double, eve), table.id) as page:
            await until(lambda: page.closed_code is not None)
        refused = page.last("refused")
        assert refused is not None and page.closed_code == REFUSED
        assert refused["text"] == "Watching is turned off for this event's tables."
        logged = "\n".join(r.getMessage() for r in caplog.records)
        assert "not a member of the group" in logged and "watching is off" in logged
        assert double.token not in logged


async def test_watchers_pages_from_one_address_are_limited(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bot.live.server, "MAX_WATCHING_PER_ADDRESS", 2)
    async with (
        table_with_two_people(tmp_path) as (double, app, table, *_, eve),
        open_page(app, signed(double, eve), table.id) as one,
        open_page(app, signed(double, eve), table.id) as two,
    ):
        await until(lambda: one.states() and two.states())
        async with open_page(app, signed(double, eve), table.id) as three:
            await until(lambda: three.closed_code is not None)
        refused = three.last("refused")
        assert refused is not None and three.closed_code == FLOOD
        assert refused["text"].startswith("Too many pages are watching from here.")
        assert one.closed_code is None and two.closed_code is None


async def test_a_restricted_member_may_watch_and_one_who_left_may_not(tmp_path: Path) -> None:
    """Telegram's ``restricted`` status is a member only while ``is_member`` says so."""
    async with table_with_two_people(tmp_path) as (double, app, table, *_, eve):
        group = Group(double, table.chat_id)
        group.restrict(eve)
        async with open_page(app, signed(double, eve), table.id) as page:
            await until(lambda: page.states())
            assert page.states()[-1]["watching"] is True
        gus = double.create_user("Gus", username="gus")
        group.restrict(gus, member=False)
        async with open_page(app, signed(double, gus), table.id) as page:
            await until(lambda: page.closed_code is not None)
        refused = page.last("refused")
        assert refused is not None and page.closed_code == REFUSED
        assert refused["text"] == "Only members of this table's group can watch it."
