"""One live seat per person, through the bot (issue 50.3; docs/seats.md):

- an event's round takes a registered person out of the lobby they sit in (and tells
  them), and gives the seat of one playing a game elsewhere to a computer player, as a
  no-show's;
- ``/daily`` while seated at a group's game is refused, naming the group;
- Join while playing the daily deal is refused, naming it.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

from bot_harness import FAST, open_table, rooms_of, running_bot, start_with_computers, table_in
from test_e2e_daily import DAY, NOW, daily_table
from test_e2e_daily import quick_computers as quick_computers  # an autouse fixture
from test_e2e_tournaments import create_tournament, said

from bot.timers import ManualClock
from domain.tournaments import TournamentTable
from sandbox.double import BotApiDouble
from sandbox.people import SandboxUser
from sandbox.testing import running_double


def dm_texts(double: BotApiDouble, person: SandboxUser) -> list[str]:
    return [
        (m.text or "").replace("\u2068", "").replace("\u2069", "")
        for m in double.chat_view(person.dm).bot_messages
    ]


async def test_an_event_takes_people_out_of_lobbies_and_seats_a_computer_for_the_busy(
    tmp_path: Path,
) -> None:
    async with running_double() as double:
        ann, bob, cy = (double.create_user(n) for n in ("Ann", "Bob", "Cy"))
        kumar = double.create_user("Kumar")
        club = double.create_group("Club", members=[ann, bob, cy], admins=[kumar])
        den = double.create_group("Den", members=[bob], admins=[bob])
        elm = double.create_group("Elm", members=[cy], admins=[cy])
        async with running_bot(double, tmp_path / "db.sqlite3") as app:
            rooms = rooms_of(app)
            for person in (ann, bob, cy):
                await person.start_bot()
            message = await create_tournament(double, kumar, club, "Cup size=4")
            for person in (ann, bob, cy):
                said_to = await person.press(club, message, "✋ Register")
                assert "registered" in (said_to or ""), said_to
            # Bob sits in a lobby in Den; Cy plays a game in Elm.
            await open_table(double, bob, den)
            lobby = table_in(app, den)
            assert lobby.seat_of(bob.id) is not None
            _, game = await start_with_computers(double, app, elm, [cy])

            await kumar.send(club, "/event start")
            await double.wait_for(
                lambda: any("you left the table in Den" in t for t in dm_texts(double, bob)), 10
            )
            await double.wait_for(
                lambda: any(
                    "still playing at another table (Elm)" in t for t in dm_texts(double, cy)
                ),
                10,
            )
            (event,) = await rooms.storage.tournaments.tournaments_in_chat(club.id)

            async def dealt_table() -> TournamentTable | None:
                tables = await rooms.storage.tournaments.tournament_tables(event.id, 1)
                return tables[0] if tables and tables[0].game_id is not None else None

            while (dealt := await dealt_table()) is None:  # the round's table is stored
                await asyncio.sleep(0.02)
            assert dealt.game_id is not None
            table = rooms.registry.get(dealt.game_id)
            assert table is not None
            # Bob left Den's lobby for the event; Cy plays on in Elm, a computer in his seat.
            assert lobby.seat_of(bob.id) is None and lobby.phase.live
            assert table.seat_of(bob.id) is not None and table.seat_of(ann.id) is not None
            assert table.seat_of(cy.id) is None
            cy_seat = dealt.seat_of(cy.id)
            assert cy_seat is not None and dealt.seats[cy_seat].no_show
            for person, where in ((bob, table.id), (ann, table.id), (cy, game.id)):
                seat = await rooms.storage.games.active_game_for_user(person.id)
                assert seat is not None and seat.id == where, person.name
            assert "you left the table in Den to play your round" in "".join(dm_texts(double, bob))
            assert not any("Your cards follow" in t for t in dm_texts(double, cy))


async def test_daily_while_seated_and_join_while_playing_the_daily_are_refused(
    tmp_path: Path,
) -> None:
    clock = ManualClock(NOW)
    async with running_double() as double:
        ann, bob = double.create_user("Ann"), double.create_user("Bob")
        club = double.create_group("Club", members=[ann, bob], admins=[ann])
        async with running_bot(double, tmp_path / "db.sqlite3", replace(FAST, clock=clock)) as app:
            rooms = rooms_of(app)
            # Ann plays at Club's table: /daily is refused, naming it; no daily game.
            _, game = await start_with_computers(double, app, club, [ann])
            await ann.send(ann.dm, "/daily")
            await said(double, ann.dm, "You're at a table in \u2068Club\u2069")
            assert await rooms.storage.daily.game_of(DAY, ann.id) is None
            seat = await rooms.storage.games.active_game_for_user(ann.id)
            assert seat is not None and seat.id == game.id
            # Bob plays his daily deal: Join at Club's next table is refused, naming it.
            await ann.send(club, "/cancel")
            await double.wait_for(lambda: not game.phase.live, 5)
            await bob.start_bot()
            await bob.send(bob.dm, "/daily")
            await double.wait_for(lambda: bob.dm_view().find("Daily deal") is not None, 10)
            mine = await daily_table(app, bob)
            lobby = await open_table(double, ann, club)
            refused = await bob.press(club, lobby, "✋ Join")
            assert refused == (
                "☀ You're playing your daily deal: finish it first (send /daily for your "
                "cards), then join."
            )
            assert table_in(app, club).seat_of(bob.id) is None
            seat = await rooms.storage.games.active_game_for_user(bob.id)
            assert seat is not None and seat.id == mine.id
