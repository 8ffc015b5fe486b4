"""Events in storage: from version 2, round trips of events, entries, draws and reminders."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from storage_testkit import back_before_revision_13, legacy_sqlite, play_stored

from domain.tournaments import (
    Registration,
    TournamentOptions,
    TournamentSeat,
    TournamentState,
    TournamentTable,
)
from engine import Rules
from storage import Storage
from storage.upgrade import latest_version

START = datetime(2026, 12, 1, 12, 30, tzinfo=UTC)


async def test_version_2_gains_the_event_tables_and_keeps_its_games(db_path: Path) -> None:
    legacy_sqlite(db_path, 2)
    store = await Storage.open(db_path)
    game_id, _ = await play_stored(store, Rules(players=3, target=30), seed=5, user_ids=[7])
    await store.close()
    with sqlite3.connect(db_path) as db:
        back_before_revision_13(db)
        for table in (
            "tournament_claims",
            "tournament_seats",
            "tournament_tables",
            "tournament_registrations",
        ):
            db.execute(f"DROP TABLE {table}")
        db.execute("DROP TABLE tournaments")
        # What later versions added goes too: the file is as version 2 left it.
        db.execute("ALTER TABLE chats DROP COLUMN hints")
        db.execute("DROP TABLE handled_updates")
        for table in ("rating_changes", "rated_games", "ratings"):
            db.execute(f"DROP TABLE {table}")
        db.execute("DROP TABLE person_languages")
        db.execute("DROP TABLE chat_languages")
        db.execute("ALTER TABLE chats ADD COLUMN language TEXT NOT NULL DEFAULT 'en'")
        db.execute("DROP INDEX games_by_tournament")
        db.execute("ALTER TABLE games RENAME COLUMN tournament_id TO event_id")
        db.execute("CREATE INDEX games_by_event ON games (event_id) WHERE event_id IS NOT NULL")
        db.execute("DROP INDEX games_by_join_token")
        db.execute("ALTER TABLE games DROP COLUMN join_token")
        db.execute("ALTER TABLE games DROP COLUMN deal_key")
        db.execute("DROP TABLE table_screens")  # revision 16's
        db.execute("DROP TABLE live_seats")  # revision 15's
        db.execute("DROP TABLE daily_posts")  # revision 14's
        db.execute("DROP TABLE daily_games")
        db.execute("DROP TABLE daily_secret")
        db.execute("PRAGMA user_version = 2")
        db.execute("DROP TABLE alembic_version")
    store = await Storage.open(db_path)
    try:
        with sqlite3.connect(db_path) as db:
            assert db.execute("PRAGMA user_version").fetchone()[0] == 0
            [(revision,)] = db.execute("SELECT version_num FROM alembic_version").fetchall()
            assert revision == str(latest_version())
        assert (await store.games.load_game(game_id)).status == "finished"
        event = await store.tournaments.create_tournament(
            chat_id=-5,
            thread_id=None,
            organiser_id=1,
            organiser_name="Kumar",
            name="Chematoodlon",
            rules=Rules(),
            options=TournamentOptions(),
            time_zone="Asia/Kolkata",
            starts_at=START,
            registration_deadline=None,
        )
        assert event.id == 1 and event.status == "registration"
    finally:
        await store.close()


async def test_an_event_its_entries_draw_and_reminders_round_trip(store: Storage) -> None:
    options = TournamentOptions(
        table_size=4, advance_per_table=1, duplicate_deals=True, allowed_usernames=("amy",)
    )
    event = await store.tournaments.create_tournament(
        chat_id=-5,
        thread_id=9,
        organiser_id=1,
        organiser_name="Kumar",
        name="Spring Cup",
        rules=Rules(players=4, target=50),
        options=options,
        time_zone="Asia/Kolkata",
        starts_at=START,
        registration_deadline=START - timedelta(hours=1),
        state=TournamentState(seed=5, message_id=12),
    )
    assert event.options == options and event.rules == Rules(players=4, target=50)
    assert event.starts_at == START and event.state == TournamentState(seed=5, message_id=12)
    assert [e.id for e in await store.tournaments.open_tournaments()] == [event.id]

    running = replace(event, status="running", current_round=1)
    await store.tournaments.save_tournament(running)
    assert await store.tournaments.get_tournament(event.id) == running

    for uid in (3, 2):
        await store.tournaments.save_registration(
            Registration(event.id, uid, f"P{uid}", None, "registered", START + timedelta(uid))
        )
    entries = await store.tournaments.registrations(event.id)
    assert [r.user_id for r in entries] == [2, 3]
    await store.tournaments.save_registrations(
        [replace(entries[0], status="eliminated", final_place=2)]
    )
    assert (await store.tournaments.registrations(event.id))[0].final_place == 2

    seats = (
        TournamentSeat(0, "P2", 2),
        TournamentSeat(1, "P3", 3),
        TournamentSeat(2, "Ada (easy)"),
    )
    table = TournamentTable(event.id, 1, 1, seed=77, seats=seats)
    await store.tournaments.save_tournament_table(table)
    done = replace(
        table,
        status="finished",
        seats=(replace(seats[0], present=True, place=1, total=3, advanced=True), *seats[1:]),
    )
    await store.tournaments.save_tournament_table(done)
    assert await store.tournaments.tournament_tables(event.id, 1) == [done]
    assert await store.tournaments.tournament_tables(event.id, 2) == []

    assert await store.tournaments.claim_once(event.id, "hour")
    assert not await store.tournaments.claim_once(event.id, "hour")
    assert await store.tournaments.claimed(event.id) == {"hour"}

    await store.tournaments.save_tournament(replace(running, status="finished"))
    finished = await store.tournaments.get_tournament(event.id)
    assert finished is not None and finished.finished_at is not None
    assert await store.tournaments.open_tournaments() == []
    assert [e.id for e in await store.tournaments.tournaments_in_chat(-5)] == [event.id]
