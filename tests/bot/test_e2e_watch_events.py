"""An event's organiser turns watching its tables off and on (issue 33.1): ``watch=off``
when it is created, ``/event watch on|off`` later; kept with the event's options, said on
its message, and given to each table the event starts."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from bot_harness import rooms_of, running_bot
from test_e2e_tournaments import create_tournament, message_text, said

from bot.tournaments.parsing import BadRequest, parse_new
from sandbox.testing import running_double
from storage.tournaments import TournamentOptions


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
            await said(double, group.id, "👀 The group can watch this event's tables")
            await double.wait_for(
                lambda: "nobody watches" not in message_text(double, group.id, message), 5
            )
            (event,) = await store.tournaments_in_chat(group.id)
            assert event.options.watching is True
            await kumar.send(group, "/event watch sometimes")
            await said(double, group.id, "unknown option or value")
            await kumar.send(group, "/event watch off")
            await said(double, group.id, "👀 Nobody watches this event's tables")
            (event,) = await store.tournaments_in_chat(group.id)
            assert event.options.watching is False
