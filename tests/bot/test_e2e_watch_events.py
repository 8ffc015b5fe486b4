"""An event's organiser turns watching its tables off and on (issue 33.1): ``watch=off``
when it is created, ``/event watch on|off`` later; kept with the event's options, said on
its message, given to each table the event starts, and asked by the table page on each
watcher's hello (so a change holds at once for whoever opens the page next)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from bot_harness import rooms_of, running_bot
from test_e2e_tournaments import create_tournament, message_text, said
from test_live_server import open_page, signed, table_with_two_people, until

from bot.live.server import REFUSED
from bot.tournaments.parsing import BadRequest, parse_new
from domain.tournaments import TournamentOptions
from sandbox.people import Group
from sandbox.testing import running_double


def test_event_new_reads_watch() -> None:
    now = datetime(2030, 1, 1, tzinfo=UTC)
    assert parse_new(["watch=off"], "UTC", now).options.watching is False
    assert parse_new([], "UTC", now).options.watching is True
    with pytest.raises(BadRequest):
        parse_new(["watch=maybe"], "UTC", now)
    # An event stored before the option existed lets the group watch.
    stored = TournamentOptions().to_dict()
    del stored["watching"]
    assert TournamentOptions.from_dict(stored).watching is True


async def test_the_organiser_turns_watching_off_and_on(tmp_path: Path) -> None:
    async with running_double() as double:
        ann = double.create_user("Ann", username="ann")
        kumar = double.create_user("Kumar")
        group = double.create_group("Chem Eng", members=[ann], admins=[kumar])
        async with running_bot(double, tmp_path / "db.sqlite3") as app:
            message = await create_tournament(double, kumar, group, "Cup watch=off")
            await double.wait_for(
                lambda: "nobody watches the tables" in message_text(double, group.id, message), 5
            )
            store = rooms_of(app).storage.tournaments
            (event,) = await store.tournaments_in_chat(group.id)
            assert event.options.watching is False
            await ann.send(group, "/event watch on")
            await said(double, group.id, "Only the organiser (\u2068Kumar\u2069) or a group admin")
            await kumar.send(group, "/event watch on")
            await said(double, group.id, "👀 Watching this event's tables is on.")
            await double.wait_for(
                lambda: "nobody watches" not in message_text(double, group.id, message), 5
            )
            (event,) = await store.tournaments_in_chat(group.id)
            assert event.options.watching is True
            await kumar.send(group, "/event watch sometimes")
            await said(double, group.id, "unknown option or value")
            await kumar.send(group, "/event watch off")
            await said(double, group.id, "👀 Watching this event's tables is off.")
            (event,) = await store.tournaments_in_chat(group.id)
            assert event.options.watching is False


async def test_the_page_asks_the_event_whether_its_tables_may_be_watched(tmp_path: Path) -> None:
    async with table_with_two_people(tmp_path) as (double, app, table, ana, _, eve):
        group = Group(double, table.chat_id)
        double.chats[table.chat_id].admins.add(ana.id)
        await create_tournament(double, ana, group, "Cup watch=off")
        (event,) = await rooms_of(app).storage.tournaments.tournaments_in_chat(group.id)
        table.tournament_id = event.id  # as if the event had dealt this table
        assert table.options.watching  # dealt before the organiser said no
        async with open_page(app, signed(double, eve), table.id) as page:
            await until(lambda: page.closed_code is not None)
        refused = page.last("refused")
        assert refused is not None and page.closed_code == REFUSED
        assert refused["text"] == "Watching is turned off for this event's tables."
        await ana.send(group, "/event watch on")
        await said(double, group.id, "👀 Watching this event's tables is on.")
        async with open_page(app, signed(double, eve), table.id) as page:
            await until(lambda: page.states())
            assert page.states()[-1]["watching"] is True
