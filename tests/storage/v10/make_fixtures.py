"""Makes this folder's fixtures: a SQLite database and a PostgreSQL database at schema
version 10 (the last before Alembic), written by that version's own code, and what that
code read back from each.

Run once, at commit 6173a9e (storage still on its hand-numbered migrations), from the
repository's top folder:

    .venv/bin/python tests/storage/v10/make_fixtures.py

It is kept to show how the fixtures were made, not to be run again: later code writes
later schemas. Each database holds, in the same order (so the same ids): a lobby; games in
progress mid-pass, mid-trick and with a moon choice pending; finished games of 4 players,
Complex Hearts and two-player Hearts (ratings in both pools); a game a person left (their
moves stood in for); games cancelled before and after their first hand; a quarantined
game; tournaments in registration, running (a table playing), paused, finished and
cancelled, with entries, tables, seats and claims; chat settings, people, language
choices, and handled updates answered and not.
"""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parents[2]), str(HERE.parent)]

from storage_testkit import play_stored, random_move, seats_for  # noqa: E402
from upgrade_reads import plain, reads  # noqa: E402

from engine import Game, Move, Rules  # noqa: E402
from sandbox.postgres_server import PostgresServer, pg_bin  # noqa: E402
from storage import (  # noqa: E402
    ChatSettings,
    Registration,
    StoredSeat,
    TournamentOptions,
    TournamentSeat,
    TournamentState,
    TournamentTable,
    open_storage,
)
from storage.handling import HANDLING, Handling  # noqa: E402
from storage.sqlite import SqliteStorage  # noqa: E402

START = datetime(2026, 12, 1, 18, 0, tzinfo=UTC)
SUITED_DEAL = [[f"{r}{s}" for r in "23456789TJQKA"] for s in "CDSH"]
"""Seat 0 all clubs, 1 diamonds, 2 spades, 3 hearts: with no pass, seat 0 shoots the moon."""


async def play(store: SqliteStorage, game_id: int, game: Game, moves: int, seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(moves):
        move = random_move(game, rng)
        move.apply(game)
        await store.record_move(game_id, move, game)


async def fill(store: SqliteStorage) -> tuple[range, range]:
    """The fixtures' data; returns the game ids and tournament ids it made."""
    await store.save_chat_settings(
        ChatSettings(-100, Rules(target=50).to_dict(), 45, "pro", True, True)
    )
    await store.save_chat_settings(
        ChatSettings(-200, Rules(players=3).to_dict(), None, "easy", False, False)
    )
    names = {1: "Ann", 2: "Bob", 3: "آرش", 4: "Dev 🃏", 5: "Eve", 6: "Fay", 7: "Gus", 8: "Hal"}
    for person, name in names.items():
        await store.upsert_user(person, name, name.lower() if person % 2 else None)
        if person != 8:
            await store.set_dm_open(person, True)
    await store.save_person_language(3, chosen="fa", app="en")
    await store.save_person_language(2, chosen="", app="ru")
    await store.save_person_language(4, chosen="hi", app="")
    await store.save_chat_language(-100, chosen="es", first="pt_BR")
    await store.save_chat_language(-200, chosen="", first="ru")

    # 1: a lobby, never started.
    await store.create_lobby(-300, 7, 5, Rules(), seats_for(4, [5]), {"lobby": True})
    # 2: mid-pass (two of four passes chosen), the move of update 9000 (a press, answered).
    game_id = await store.create_lobby(-100, None, 1, Rules(), seats_for(4, [1, 2]))
    game = Game(Rules(), seed=11)
    await store.start_game(game_id, seats_for(4, [1, 2]), game)
    token = HANDLING.set(Handling(9000, callback_id="cb-9000", answer="Passed."))
    try:
        await play(store, game_id, game, 1, seed=11)
    finally:
        HANDLING.reset(token)
    await store.mark_answered(9000)
    await play(store, game_id, game, 1, seed=12)
    # 3: mid-trick (passes done, the second trick half played); update 9001 not answered.
    game_id = await store.create_lobby(-200, None, 3, Rules(players=3), seats_for(3, [3, 4]))
    game = Game(Rules(players=3), seed=21)
    await store.start_game(game_id, seats_for(3, [3, 4]), game)
    await play(store, game_id, game, 3 + 3 + 2, seed=21)
    token = HANDLING.set(Handling(9001, callback_id="cb-9001", answer="♠Q played."))
    try:
        await play(store, game_id, game, 1, seed=22)
    finally:
        HANDLING.reset(token)
    # 4: a moon choice pending (seat 0 took every point, no pass).
    rules = Rules(pass_cycle=("hold",), moon="choose", target=100)
    seats = seats_for(4, [5, 6])
    game_id = await store.create_lobby(-100, 3, 5, rules, seats)
    game = Game(rules, deals=[SUITED_DEAL], first_dealer=3)
    await store.start_game(game_id, seats, game)
    while game.phase == "play":
        seat = game.current_player
        assert seat is not None
        move = Move.play(seat, game.legal_plays()[0])
        move.apply(game)
        # A typed command (update 9002, not a press) made the last move.
        token = HANDLING.set(Handling(9002) if game.phase == "moon" else None)
        try:
            await store.record_move(game_id, move, game)
        finally:
            HANDLING.reset(token)
    assert game.phase == "moon"
    # 5-7: finished games: four players, Complex Hearts, two-player Hearts.
    await play_stored(store, Rules(target=30), seed=5, chat_id=-100, user_ids=[1, 2, 3])
    complex_rules = Rules(variant="complex", target=20)
    await play_stored(store, complex_rules, seed=6, chat_id=-100, user_ids=[2, 4])
    two = Rules(players=2, variant="two_player", target=30)
    await play_stored(store, two, seed=7, chat_id=-200, user_ids=[1, 3])
    # 8: finished, Bob left after 20 moves (stood in for), back after 40 (/rejoin).
    await play_stored(
        store,
        Rules(players=4, target=30),
        seed=8,
        chat_id=-100,
        user_ids=[1, 2, 5],
        own_moves={1: 20},
        back_after={1: 40},
    )
    # 9: cancelled in its lobby; 10: cancelled after its first hand (rated as it stood).
    cancelled = await store.create_lobby(-200, None, 6, Rules(), seats_for(4, [6]))
    await store.cancel_game(cancelled)
    game_id, _ = await play_stored(
        store, Rules(players=5, target=100), seed=10, chat_id=-200, user_ids=[6, 7], hands=1
    )
    await store.cancel_game(game_id)
    # 11: quarantined (its journal would not replay).
    game_id, _ = await play_stored(store, Rules(), seed=12, chat_id=-300, max_moves=6)
    await store.quarantine_game(game_id, "replay diverged at move 6 (made for the fixture)")

    # Tournaments: 1 registration, 2 running, 3 paused, 4 finished, 5 cancelled.
    made = []
    for number, status in enumerate(
        ("registration", "running", "paused", "finished", "cancelled"), start=1
    ):
        options = TournamentOptions(
            table_size=4,
            advance_per_table=1,
            duplicate_deals=number % 2 == 0,
            allowed_usernames=("ann",) if number == 1 else (),
        )
        tournament = await store.create_tournament(
            chat_id=-100 if number < 4 else -200,
            thread_id=None,
            organiser_id=1,
            organiser_name="Ann",
            name=f"Cup {number}",
            rules=Rules(target=30),
            options=options,
            time_zone="Asia/Kolkata",
            starts_at=START + timedelta(days=number),
            registration_deadline=START + timedelta(days=number, hours=-1),
            state=TournamentState(seed=100 + number, chat_title="Club", message_id=number),
        )
        for person in (1, 2, 3, 4, 5):
            await store.save_registration(
                Registration(
                    tournament.id,
                    person,
                    names[person],
                    None,
                    "pending" if person == 5 else "registered",
                    START + timedelta(minutes=person),
                )
            )
        await store.claim_once(tournament.id, "day_before", 40 + number)
        made.append(tournament)
        if status == "registration":
            continue
        seats = tuple(TournamentSeat(i, names[i + 1], i + 1) for i in range(4))
        game_id = await store.create_lobby(
            tournament.chat_id,
            None,
            1,
            Rules(target=30),
            [StoredSeat.human(s.seat, s.user_id or 0, s.display_name) for s in seats],
            tournament_id=tournament.id,
        )
        game = Game(Rules(target=30), seed=200 + number)
        await store.start_game(
            game_id,
            [StoredSeat.human(s.seat, s.user_id or 0, s.display_name) for s in seats],
            game,
        )
        state = replace(
            tournament.state,
            round_messages={1: 60 + number},
            round_started={1: START + timedelta(days=number, minutes=1)},
        )
        table = TournamentTable(tournament.id, 1, 1, 200 + number, seats, game_id)
        if status in ("running", "paused", "cancelled"):
            await play(store, game_id, game, 10, seed=number)
            table = replace(table, seats=(replace(seats[0], present=True), *seats[1:]))
        if status == "paused":
            state = replace(state, paused_from="running")
        if status == "finished":
            while game.phase != "over":
                await play(store, game_id, game, 1, seed=len(game.hand_history))
            totals = game.scores
            order = sorted(range(4), key=lambda s: (abs(totals[s]), s))
            table = replace(
                table,
                status="finished",
                seats=tuple(
                    replace(
                        seat,
                        present=True,
                        place=order.index(seat.seat) + 1,
                        total=totals[seat.seat],
                        advanced=order.index(seat.seat) == 0,
                    )
                    for seat in seats
                ),
            )
            state = replace(state, done_round=1, advancing=(seats[order[0]].user_id or 0,))
            await store.save_registrations(
                [
                    Registration(
                        tournament.id,
                        seat.user_id or 0,
                        seat.display_name,
                        None,
                        "registered" if order.index(seat.seat) == 0 else "eliminated",
                        START + timedelta(minutes=seat.seat + 1),
                        order.index(seat.seat) + 1,
                    )
                    for seat in seats
                ]
            )
            await store.claim_once(tournament.id, "final", 99)
        if status == "cancelled":
            await store.cancel_game(game_id)
            table = replace(table, status="cancelled")
        await store.save_tournament_table(table)
        await store.claim_once(tournament.id, "start")
        await store.save_tournament(
            replace(tournament, status=status, current_round=1, state=state)  # type: ignore[arg-type]
        )
    return range(1, game_id + 2), range(1, made[-1].id + 2)


async def record(store: SqliteStorage, games: range, tournaments: range, out: Path) -> None:
    read = await reads(store, games, tournaments)
    out.write_text(json.dumps(plain(read), indent=1, ensure_ascii=False, sort_keys=True) + "\n")


async def main() -> None:
    sqlite_path = HERE / "hearts-v10.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{sqlite_path}{suffix}").unlink(missing_ok=True)
    store = await open_storage(sqlite_path)
    assert isinstance(store, SqliteStorage)
    try:
        games, tournaments = await fill(store)
        await record(store, games, tournaments, HERE / "expected-sqlite.json")
    finally:
        await store.close()
    assert not Path(f"{sqlite_path}-wal").exists()

    server = PostgresServer()
    try:
        url = await server.database()
        store = await open_storage(url)
        assert isinstance(store, SqliteStorage)
        try:
            assert (games, tournaments) == await fill(store)
            await record(store, games, tournaments, HERE / "expected-postgres.json")
        finally:
            await store.close()
        pg_dump = pg_bin("pg_dump")
        assert pg_dump is not None
        dump = subprocess.run(
            [
                pg_dump,
                "--inserts",
                "--no-owner",
                "--no-privileges",
                "--no-comments",
                url,
            ],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        # Plain SQL, without psql's own commands (\restrict): any client can run it.
        lines = [line for line in dump.splitlines() if not line.startswith("\\")]
        (HERE / "postgres-v10.sql").write_text("\n".join(lines) + "\n")
    finally:
        server.stop()
    print("written:", ", ".join(sorted(p.name for p in HERE.iterdir())))


if __name__ == "__main__":
    asyncio.run(main())
