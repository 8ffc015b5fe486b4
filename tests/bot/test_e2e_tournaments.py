"""Events (tournaments) through the real stack against the double, on a manual clock."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bot_harness import FAST, play_turn, rooms_of, running_bot
from telegram.ext import Application

from bot.timers import ManualClock
from bot.tournaments.timeline import Timeline
from domain.people import ChatSettings
from engine import Rules
from sandbox.double import BotApiDouble
from sandbox.people import Group, SandboxUser
from sandbox.testing import running_double

# Far from the machine's own clock, so that nothing real-time ever fires for these events.
START = datetime(2031, 6, 1, 12, 30, tzinfo=UTC)  # 18:00 in Asia/Kolkata


def events_of(app: Application) -> Timeline:  # type: ignore[type-arg]
    """The tournaments' clock: `tick` does what is due (tests move a `ManualClock`)."""
    timeline = rooms_of(app).timeline
    assert isinstance(timeline, Timeline)
    return timeline


def texts(double: BotApiDouble, chat_id: int) -> list[str]:
    return [m.text or "" for m in double.chat_view(chat_id).visible]


def message_text(double: BotApiDouble, chat_id: int, message_id: int) -> str:
    message = double.chat_view(chat_id).message(message_id)
    return (message.text or "") if message is not None else ""


def count(double: BotApiDouble, chat_id: int, fragment: str) -> int:
    return sum(fragment in text for text in texts(double, chat_id))


async def said(double: BotApiDouble, chat_id: int, fragment: str, times: int = 1) -> None:
    await double.wait_for(lambda: count(double, chat_id, fragment) >= times, 5)


async def create_tournament(
    double: BotApiDouble, organiser: SandboxUser, group: Group, text: str
) -> int:
    """The organiser sends ``/event new ...``; returns the event message's id."""
    await organiser.send(group, f"/event new {text}")
    message = await double.wait_for(
        lambda: next(
            (m for m in double.chat_view(group.id).bot_messages if "✋ Register" in str(m.labels)),
            None,
        ),
        5,
    )
    return message.message_id


async def tick(app: Application, clock: ManualClock, to: datetime) -> None:  # type: ignore[type-arg]
    clock.now = to
    await events_of(app).tick()
    await rooms_of(app).outbox.flush()


async def play_round(
    double: BotApiDouble,
    app: Application,  # type: ignore[type-arg]
    people: list[SandboxUser],
    tournament_id: int,
    *,
    absent: frozenset[int] = frozenset(),
    stop_after_moves: int | None = None,
) -> None:
    """Everyone present plays their turns by pressing buttons until the round ends (or
    ``stop_after_moves`` presses were made)."""
    rooms = rooms_of(app)
    event = await rooms_of(app).storage.tournaments.get_tournament(tournament_id)
    assert event is not None
    round_no, moves = event.current_round, 0
    while True:
        event = await rooms_of(app).storage.tournaments.get_tournament(tournament_id)
        assert event is not None
        if event.current_round != round_no or event.status != "running":
            return
        acted = False
        for table in list(rooms.registry.tables.values()):
            if (
                table.tournament_id != tournament_id
                or table.game is None
                or table.game.phase == "over"
            ):
                continue
            for person in people:
                seat = table.seat_of(person.id)
                if person.id in absent or seat is None:
                    continue
                s = table.seats[seat]
                if s is None or s.away:
                    continue
                if await play_turn(double, person, table) is not None:
                    acted, moves = True, moves + 1
                    if stop_after_moves is not None and moves >= stop_after_moves:
                        return
        if not acted:
            await asyncio.sleep(0.02)


async def test_thirteen_players_two_rounds_and_a_final_with_a_no_show_and_a_restart(
    tmp_path: Path,
) -> None:
    database = tmp_path / "db.sqlite3"
    clock = ManualClock(START - timedelta(days=3))
    tuning = replace(FAST, clock=clock)
    async with running_double() as double:
        names = [f"P{n:02d}" for n in range(13)]
        people = [double.create_user(n, username=n.lower()) for n in names]
        kumar = double.create_user("Kumar", username="kumar")
        group = double.create_group("Chem Eng", members=people, admins=[kumar])
        no_show = people[5]
        async with running_bot(double, database, tuning) as app:
            # One-hand games: the group's rules are the event's.
            await rooms_of(app).storage.people.save_chat_settings(
                ChatSettings(group.id, rules=Rules(target=1, ties="share").to_dict())
            )
            for p in people[:12]:
                await p.start_bot()
            await double.wait_for(lambda: people[11].dm_view().last() is not None, 5)
            tournament_message = await create_tournament(
                double,
                kumar,
                group,
                '"Spring Cup" 2031-06-01 18:00 Asia/Kolkata size=4 advance=2 duplicate=on grace=5',
            )
            shown = double.chat_view(group.id).message(tournament_message)
            assert shown is not None and "Tables of 4" in (shown.text or "")
            assert "Sun 1 Jun 2031, 18:00 (Asia/Kolkata)" in (shown.text or "")
            for p in people[:12]:
                assert (await p.press(group, tournament_message, "✋ Register") or "").startswith(
                    "You're registered!"
                )
            # P12 never opened the bot: a deep link leads them there, then they count.
            late = people[12]
            assert "Open a DM" in (await late.press(group, tournament_message, "✋ Register") or "")
            await double.wait_for(lambda: late.button_deep_link(group, "Open my DM to register"), 5)
            payload = late.button_deep_link(group, "Open my DM to register")
            assert payload is not None and payload.startswith("e")
            await late.start_bot(payload)
            await said(double, late.dm, "You're registered for \u2068Spring Cup\u2069")
            await double.wait_for(
                lambda: "Registered: 13" in message_text(double, group.id, tournament_message), 5
            )
            event = (await rooms_of(app).storage.tournaments.tournaments_in_chat(group.id))[0]

            # The start time: round 1 is drawn, 13 players at tables of 5, 4 and 4.
            await tick(app, clock, START)
            await said(double, group.id, "round 1: 13 players at 3 tables")
            tables = await rooms_of(app).storage.tournaments.tournament_tables(event.id, 1)
            assert sorted(len(t.seats) for t in tables) == [4, 4, 5]
            assert all(s.user_id is not None for t in tables for s in t.seats)
            # Duplicate deals: both tables of four hold exactly the same cards, seat by seat.
            rooms = rooms_of(app)
            fours = [rooms.registry.tables[t.game_id or 0] for t in tables if len(t.seats) == 4]
            deals = [
                [[c.code for c in tb.game.hand(s)] for s in range(4)]
                for tb in fours
                if tb.game is not None
            ]
            assert len(deals) == 2 and deals[0] == deals[1]
            stored = [await rooms_of(app).storage.games.load_game(tb.id) for tb in fours]
            assert stored[0].fixed_deals == stored[1].fixed_deals != []
            # The group follows one status line per table; /event shows the same state.
            await said(double, group.id, "\u2068Spring Cup\u2069 · round 1\nTable 1 · hand 1: ")
            status = next(t for t in texts(double, group.id) if "· round 1\nTable" in t)
            assert [line[:7] for line in status.splitlines()[1:]] == [
                "Table 1",
                "Table 2",
                "Table 3",
            ]
            await kumar.send(group, "/event")
            await said(double, group.id, "Round 1 is being played.")

            # Everyone but the no-show plays; after the grace period a computer takes over.
            absent = frozenset({no_show.id})
            await play_round(double, app, people, event.id, absent=absent, stop_after_moves=30)
            await tick(app, clock, START + timedelta(minutes=6))
            await said(double, group.id, "\u2068P05\u2069 didn't show up in round 1")
            await play_round(double, app, people, event.id, absent=absent)
            await said(double, group.id, "round 1 is over")
            r1 = await rooms_of(app).storage.tournaments.tournament_tables(event.id, 1)
            going = {s.user_id for t in r1 for s in t.seats if s.advanced}
            assert len(going) == 6 and no_show.id not in going
            assert all(sum(s.advanced for s in t.seats) == 2 for t in r1)
            # Round 2: six players at two tables of three.
            await said(double, group.id, "round 2: 6 players at 2 tables")
            r2 = await rooms_of(app).storage.tournaments.tournament_tables(event.id, 2)
            assert [len(t.seats) for t in r2] == [3, 3]
            await play_round(double, app, people, event.id, stop_after_moves=5)
            r2 = await rooms_of(app).storage.tournaments.tournament_tables(event.id, 2)
            games_before = {
                t.game_id: rooms.registry.tables[t.game_id or 0].game.to_json()  # type: ignore[union-attr]
                for t in r2
            }
        # A restart in the middle of round 2: both tables resume where they were.
        async with running_bot(double, database, tuning) as app:
            rooms = rooms_of(app)
            for game_id, before in games_before.items():
                assert game_id in rooms.registry.tables
                game = rooms.registry.tables[game_id].game
                assert game is not None and game.to_json() == before
            await play_round(double, app, people, event.id)
            await said(double, group.id, "round 2 is over")
            # The final: four players at one table decide the winner (drawn just after the
            # round's end is announced: the announcement does not wait for the draw).
            for _ in range(100):
                final = await rooms_of(app).storage.tournaments.tournament_tables(event.id, 3)
                if final:
                    break
                await asyncio.sleep(0.05)
            assert len(final) == 1 and len(final[0].seats) == 4
            await play_round(double, app, people, event.id)
            await said(double, group.id, "\u2068Spring Cup\u2069 is over! The winner is")
            done = await rooms_of(app).storage.tournaments.get_tournament(event.id)
            assert done is not None and done.status == "finished"
            entries = await rooms_of(app).storage.tournaments.registrations(event.id)
            ranked = sorted((r for r in entries if r.final_place), key=lambda r: r.final_place or 0)
            assert len(ranked) == 13 and ranked[-1].user_id == no_show.id
            winner = next(
                s
                for s in (await rooms_of(app).storage.tournaments.tournament_tables(event.id, 3))[
                    0
                ].seats
                if s.place == 1
            )
            assert ranked[0].user_id == winner.user_id
            # The ranking stays: /event and /scores show it.
            await kumar.send(group, "/scores")
            await said(double, group.id, "Event: \u2068Spring Cup\u2069")
            assert not double.unanswered_callbacks()


async def test_reminders_fire_once_at_their_times_and_survive_a_restart(tmp_path: Path) -> None:
    database = tmp_path / "db.sqlite3"
    clock = ManualClock(START - timedelta(days=3))
    tuning = replace(FAST, clock=clock)
    async with running_double() as double:
        ann, bob = double.create_user("Ann", username="ann"), double.create_user("Bob")
        kumar = double.create_user("Kumar")
        group = double.create_group("Chem Eng", members=[ann, bob], admins=[kumar])
        async with running_bot(double, database, tuning) as app:
            for p in (ann, bob):
                await p.start_bot()
            await double.wait_for(lambda: bob.dm_view().last() is not None, 5)
            message = await create_tournament(
                double, kumar, group, "Cup 2031-06-01 18:00 Asia/Kolkata deadline=17:30"
            )
            for p in (ann, bob):
                await p.press(group, message, "✋ Register")
            await tick(app, clock, START - timedelta(hours=25))
            assert count(double, group.id, "starts tomorrow") == 0
            await tick(app, clock, START - timedelta(hours=24))
            await said(double, group.id, "starts tomorrow")
            await tick(app, clock, START - timedelta(hours=23))
            assert count(double, group.id, "starts tomorrow") == 1
            # The timer armed for the next moment is the hour-before reminder.
            assert "tournaments:tick" in rooms_of(app).board.scheduler
        async with running_bot(double, database, tuning) as app:
            await tick(app, clock, START - timedelta(minutes=59))
            await said(double, group.id, "starts in an hour")
            await tick(app, clock, START - timedelta(minutes=30))
            await said(double, group.id, "Registration for \u2068Cup\u2069 is closed: 2 registered")
            late = double.create_user("Cat")
            group.add(late)
            # The button is gone; an old client's press is refused with the reason.
            assert "✋ Register" not in str(double.chat_view(group.id).message(message))
            tournament_id = (await rooms_of(app).storage.tournaments.tournaments_in_chat(group.id))[
                0
            ].id
            answer = await late.press_forged(group, message, f"er:{tournament_id}:0:")
            assert answer == "Registration for this event is closed."
        async with running_bot(double, database, tuning) as app:
            await tick(app, clock, START + timedelta(seconds=1))
            await said(double, group.id, "round 1: 2 players at 1 table.")
            assert count(double, group.id, "starts tomorrow") == 1
            assert count(double, group.id, "starts in an hour") == 1
            assert count(double, group.id, "is closed") == 1
            # A table of two people and two computers, dealt in their DMs.
            await double.wait_for(
                lambda: any("Pass 0/3" in str(m.labels) for m in ann.dm_view().bot_messages), 5
            )
            (table,) = [
                t for t in rooms_of(app).registry.tables.values() if t.tournament_id is not None
            ]
            # Computers have names, the same in every language (their level is in the rules).
            computers = [s.name for s in table.seats if s is not None and s.kind == "computer"]
            assert computers == ["Ada", "Alan"]
            # A tournament is played unaided: no 💡 Hint, and a forged press says why.
            screen = next(
                m for m in reversed(ann.dm_view().bot_messages) if "Pass 0/3" in str(m.labels)
            )
            assert "💡 Hint" not in str(screen.labels)
            refused = await ann.press_forged(ann.dm, screen.message_id, f"h:{table.id}:1:")
            assert refused == "No hints in a tournament: everyone plays unaided."
            assert table.ui.hints == {}
            refused = await ann.press_forged(ann.dm, screen.message_id, f"v:{table.id}:1:")
            assert refused == "Reviews open when the tournament's game is over."
            await kumar.send(group, "/event cancel")
            await said(double, group.id, "was cancelled by \u2068Kumar\u2069")
            assert not [
                t for t in rooms_of(app).registry.tables.values() if t.tournament_id is not None
            ]


async def test_only_eligible_people_register_and_refusals_say_why(tmp_path: Path) -> None:
    async with running_double() as double:
        ann = double.create_user("Ann", username="ann")
        zed = double.create_user("Zed", username="zed")
        out = double.create_user("Out", username="out")
        kumar = double.create_user("Kumar")
        group = double.create_group("Chem Eng", members=[ann, zed], admins=[kumar])
        async with running_bot(double, tmp_path / "db.sqlite3") as app:
            for p in (ann, zed, out):
                await p.start_bot()
            await double.wait_for(lambda: out.dm_view().last() is not None, 5)
            # Only an admin creates events.
            await ann.send(group, "/event new Cup")
            await said(double, group.id, "Only a group admin can create an event")
            message = await create_tournament(double, kumar, group, "Cup only=@ann")
            assert "registered" in (await ann.press(group, message, "✋ Register") or "")
            refusal = await zed.press(group, message, "✋ Register")
            assert refusal is not None and "you're not on it" in refusal
            # Someone outside the group who got the link is refused: members only.
            tournament_id = (await rooms_of(app).storage.tournaments.tournaments_in_chat(group.id))[
                0
            ].id
            await out.start_bot(f"e{tournament_id}")
            await said(double, out.dm, "for members of \u2068Chem Eng\u2069 only")
            # An invitation widens it.
            await kumar.send(group, "/event invite @out")
            await said(double, group.id, "Done: @out")
            await out.start_bot(f"e{tournament_id}")
            await said(double, out.dm, "You're registered for \u2068Cup\u2069")
            await kumar.send(group, "/event pause")
            await said(double, group.id, "\u2068Cup\u2069 is paused by \u2068Kumar\u2069")
            # The button is gone while paused; an old client's press is refused.
            paused = await zed.press_forged(group, message, f"er:{tournament_id}:0:")
            assert "closed" in (paused or "")
            await ann.send(group, "/event resume")
            await said(double, group.id, "Only the organiser (\u2068Kumar\u2069) or a group admin")
            await kumar.send(group, "/event resume")
            await said(double, group.id, "\u2068Cup\u2069 carries on (\u2068Kumar\u2069)")
            await kumar.send(group, "/event remove @ann")
            await said(double, group.id, "\u2068Ann\u2069 was removed from")
            assert "removed you" in (await ann.press(group, message, "✋ Register") or "")
            await double.wait_for(
                lambda: "Registered: 1\n" in message_text(double, group.id, message), 5
            )
