"""The schema's upgrades (`storage.upgrade`): from empty, and from each version written
before Alembic (its frozen steps, then the stamp), keeping the data; a newer database
refused and left as it was; two processes opening at once upgrade once."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pre_alembic_schemas import LEGACY_VERSION, MIGRATIONS
from storage_testkit import back_before_revision_13, legacy_sqlite, play_stored, pragma

from engine import Rules
from storage import SchemaTooNew, Storage, StorageError
from storage.upgrade import SCRIPTS, _scripts, latest_version

LATEST_VERSION = latest_version()
ROOT = Path(__file__).resolve().parents[2]


def versions(path: Path) -> tuple[int, list[tuple[str, ...]]]:
    """The database's ``user_version`` (code before Alembic's record: 0 once Alembic's is
    the one record) and its Alembic revision (none: [])."""
    with sqlite3.connect(path) as db:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        has = db.execute(
            "SELECT count(*) FROM sqlite_master WHERE name = 'alembic_version'"
        ).fetchone()[0]
        revision = db.execute("SELECT * FROM alembic_version").fetchall() if has else []
    return int(version), revision


def tables(path: Path) -> set[str]:
    with sqlite3.connect(path) as db:
        return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}


async def test_from_empty_creates_the_folders_and_the_latest_schema(db_path: Path) -> None:
    assert not db_path.parent.exists()
    store = await Storage.open(db_path)
    await store.close()
    assert {"chats", "users", "games", "game_seats", "moves", "hand_points", "game_results"} <= (
        tables(db_path)
    )
    assert versions(db_path) == (0, [(str(LATEST_VERSION),)])
    with sqlite3.connect(db_path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        columns = {r[1] for r in db.execute("PRAGMA table_info(games)")}
    assert "tournament_id" in columns


async def test_connections_use_wal_foreign_keys_and_a_busy_timeout(
    sqlite_store: Storage,
) -> None:
    store = sqlite_store
    for writer in (True, False):
        assert await pragma(store, "foreign_keys", writer=writer) == [(1,)]
        assert await pragma(store, "busy_timeout", writer=writer) == [(5000,)]
        assert await pragma(store, "journal_mode", writer=writer) == [("wal",)]
        assert await pragma(store, "synchronous", writer=writer) == [(1,)]  # NORMAL
    assert await pragma(store, "query_only") == [(1,)]
    assert await pragma(store, "query_only", writer=True) == [(0,)]


@pytest.mark.parametrize("old_version", range(1, LEGACY_VERSION + 1))
async def test_from_each_older_version_keeps_the_data(db_path: Path, old_version: int) -> None:
    legacy_sqlite(db_path, old_version)
    assert versions(db_path) == (old_version, [])
    # Fill it with a finished game, then take the database back to exactly the old
    # version's schema (what an older release would have left behind) and reopen it.
    store = await Storage.open(db_path)
    game_id, game = await play_stored(store, Rules(players=3, target=30), seed=3, user_ids=[7])
    await store.close()
    with sqlite3.connect(db_path) as db:
        db.execute(f"PRAGMA user_version = {old_version}")
        db.execute("DROP TABLE alembic_version")
        back_before_revision_13(db)
        db.execute("ALTER TABLE games DROP COLUMN deal_key")  # revision 11's
        db.execute("DROP TABLE table_screens")  # revision 16's
        db.execute("DROP TABLE live_seats")  # revision 15's
        db.execute("DROP TABLE daily_posts")  # revision 14's
        db.execute("DROP TABLE daily_games")  # revision 12's
        db.execute("DROP TABLE daily_secret")
        if old_version < 10:
            db.execute("DROP INDEX handled_unanswered")
            for column in ("callback_id", "answer", "answered_at"):
                db.execute(f"ALTER TABLE handled_updates DROP COLUMN {column}")
        if old_version < 9:
            db.execute("DROP TABLE handled_updates")
        if old_version < 8:
            db.execute("ALTER TABLE chats DROP COLUMN hints")
        if old_version < 7:
            back_to_version_6(db)
        if old_version < 6:
            back_to_version_5(db)
        if old_version < 5:
            _back_to_version_4(db)
        if old_version < 4:
            db.execute("DROP INDEX games_by_join_token")
            db.execute("ALTER TABLE games DROP COLUMN join_token")
        if old_version < 3:
            for table in ("event_reminders", "event_seats", "event_tables"):
                db.execute(f"DROP TABLE {table}")
            db.execute("DROP TABLE event_registrations")
            db.execute("DROP TABLE events")
        if old_version < 2:
            db.execute("DROP INDEX games_by_event")
            db.execute("ALTER TABLE games DROP COLUMN event_id")
    store = await Storage.open(db_path)
    try:
        assert versions(db_path) == (0, [(str(LATEST_VERSION),)])
        loaded = await store.games.load_game(game_id)
        assert loaded.status == "finished"
        assert len(loaded.join_token) >= 12  # older rows get an unguessable token too
        assert loaded.game is not None and loaded.game.to_json() == game.to_json()
        assert (await store.standings.player_history(7))[0].game_id == game_id
        # Rated by the start-up's backlog, since ratings did not exist when it finished.
        assert await store.standings.rate_backlog() == (1 if old_version < 7 else 0)
        rated = await store.standings.player_rating(7)
        assert rated is not None and rated.games == 1
    finally:
        await store.close()


def back_to_version_6(db: sqlite3.Connection) -> None:
    """Undo migration 7: no ratings."""
    for table in ("rating_changes", "rated_games", "ratings"):
        db.execute(f"DROP TABLE {table}")


def back_to_version_5(db: sqlite3.Connection) -> None:
    """Undo migration 6: no language tables; chats had a language column (always "en")."""
    db.execute("DROP TABLE person_languages")
    db.execute("DROP TABLE chat_languages")
    db.execute("ALTER TABLE chats ADD COLUMN language TEXT NOT NULL DEFAULT 'en'")


def _back_to_version_4(db: sqlite3.Connection) -> None:
    """Undo migration 5: tournaments were "events" then, their state free-form ``meta``."""
    for new, old in (
        ("tournaments", "events"),
        ("tournament_registrations", "event_registrations"),
        ("tournament_tables", "event_tables"),
        ("tournament_seats", "event_seats"),
        ("tournament_claims", "event_reminders"),
    ):
        db.execute(f"ALTER TABLE {new} RENAME TO {old}")
    for table in ("event_registrations", "event_tables", "event_seats", "event_reminders"):
        db.execute(f"ALTER TABLE {table} RENAME COLUMN tournament_id TO event_id")
    db.execute("ALTER TABLE event_reminders RENAME COLUMN claimed_at TO sent_at")
    db.execute("ALTER TABLE events RENAME COLUMN state TO meta")
    db.execute("ALTER TABLE games RENAME COLUMN tournament_id TO event_id")
    db.execute("DROP INDEX games_by_tournament")
    db.execute("CREATE INDEX games_by_event ON games (event_id) WHERE event_id IS NOT NULL")
    db.execute("DROP INDEX tournaments_open")
    db.execute(
        "CREATE INDEX events_open ON events (status)"
        " WHERE status IN ('registration', 'running', 'paused')"
    )
    db.execute("DROP INDEX tournaments_by_chat")
    db.execute("CREATE INDEX events_by_chat ON events (chat_id, thread_id, id)")


async def test_a_version_4_tournament_keeps_its_rows_and_its_state_is_typed(
    db_path: Path,
) -> None:
    """Migration 5: the event tables become tournament tables, row for row, and the free-form
    meta becomes `TournamentState` (``next`` is ``advancing``)."""
    legacy_sqlite(db_path, 4)
    meta = (
        '{"seed": 42, "chat_title": "Chess club", "message_id": 9,'
        ' "round_messages": {"1": 11, "2": 15},'
        ' "round_started": {"1": "2031-06-01T12:30:00+00:00"},'
        ' "done_round": 1, "next": [7, 8], "paused_from": "running"}'
    )
    with sqlite3.connect(db_path) as db:
        db.execute(
            "INSERT INTO events VALUES (3, -100, NULL, 7, 'Ann', 'Cup', '{}', '{}', 'UTC',"
            " NULL, NULL, 'paused', 2, ?, 0, NULL)",
            (meta,),
        )
        db.execute(
            "INSERT INTO event_registrations VALUES (3, 7, 'Ann', NULL, 'registered', 0, NULL)"
        )
        db.execute("INSERT INTO event_reminders VALUES (3, 'start', NULL, 5)")
        db.execute("INSERT INTO event_tables VALUES (3, 1, 1, 99, NULL, 'finished')")
    store = await Storage.open(db_path)
    try:
        tournament = await store.tournaments.get_tournament(3)
        assert tournament is not None and tournament.status == "paused"
        state = tournament.state
        assert (state.seed, state.chat_title, state.message_id) == (42, "Chess club", 9)
        assert state.round_messages == {1: 11, 2: 15}
        assert state.round_started == {1: datetime(2031, 6, 1, 12, 30, tzinfo=UTC)}
        assert (state.done_round, state.advancing, state.paused_from) == (1, (7, 8), "running")
        assert [r.user_id for r in await store.tournaments.registrations(3)] == [7]
        assert await store.tournaments.claimed(3) == {"start"}
        assert [t.seed for t in await store.tournaments.tournament_tables(3)] == [99]
        # Stored again, the state keeps its version and every field.
        await store.tournaments.save_tournament(tournament)
        assert (await store.tournaments.get_tournament(3)) == tournament
    finally:
        await store.close()
    with sqlite3.connect(db_path) as db:
        stored = db.execute("SELECT state FROM tournaments WHERE id = 3").fetchone()[0]
    assert '"v":1' in stored and '"next"' not in stored


async def test_the_old_steps_and_the_stamp_are_one_transaction(db_path: Path) -> None:
    # An upgrade that fails half-way leaves the previous version, not half a schema.
    legacy_sqlite(db_path, 1)
    with sqlite3.connect(db_path) as db:
        db.execute("CREATE TABLE clash (x)")
        db.execute("CREATE INDEX games_by_event ON clash (x)")  # v2 makes this name
    with pytest.raises(StorageError, match="the schema could not be upgraded"):
        await Storage.open(db_path)
    assert versions(db_path) == (1, [])
    with sqlite3.connect(db_path) as db:
        columns = {r[1] for r in db.execute("PRAGMA table_info(games)")}
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert "event_id" not in columns and "events" not in tables


async def test_a_newer_database_is_refused(db_path: Path) -> None:
    store = await Storage.open(db_path)
    await store.close()
    # Written by a later bot: a revision this code does not know.
    newer = LATEST_VERSION + 1
    with sqlite3.connect(db_path) as db:
        db.execute("UPDATE alembic_version SET version_num = ?", (str(newer),))
        db.execute("ALTER TABLE chats ADD COLUMN sound INTEGER")
    with pytest.raises(SchemaTooNew, match="only knows versions up to") as refused:
        await Storage.open(db_path)
    assert (refused.value.found, refused.value.known) == (newer, LATEST_VERSION)
    assert versions(db_path) == (0, [(str(newer),)])


async def test_a_record_from_before_alembic_beside_alembics_is_cleared(db_path: Path) -> None:
    """Releases before this one wrote the version twice (Alembic's revision, and the
    number where code before Alembic read it): opening leaves Alembic's the only one."""
    store = await Storage.open(db_path)
    await store.close()
    with sqlite3.connect(db_path) as db:
        db.execute(f"PRAGMA user_version = {LATEST_VERSION}")
    store = await Storage.open(db_path)
    await store.close()
    assert versions(db_path) == (0, [(str(LATEST_VERSION),)])


async def test_a_newer_database_before_alembic_is_refused(db_path: Path) -> None:
    legacy_sqlite(db_path, LEGACY_VERSION)
    with sqlite3.connect(db_path) as db:
        db.execute(f"PRAGMA user_version = {LEGACY_VERSION + 1}")
    with pytest.raises(SchemaTooNew, match="only knows versions up to"):
        await Storage.open(db_path)
    assert versions(db_path) == (LEGACY_VERSION + 1, [])


async def test_four_processes_opening_a_new_database_at_once_create_it_once(
    db_path: Path,
) -> None:
    db_path.parent.mkdir(parents=True)
    stores = await asyncio.gather(*(Storage.open(db_path) for _ in range(4)))
    for store in stores:
        await store.close()
    assert versions(db_path) == (0, [(str(LATEST_VERSION),)])


def test_versions_are_numbered_in_order() -> None:
    """The old steps 1-10, then Alembic's revisions, each numbered after the one before
    (the first is version 10's schema)."""
    assert [m.version for m in MIGRATIONS] == list(range(1, LEGACY_VERSION + 1))
    revisions = list(reversed(list(_scripts().walk_revisions())))
    assert [r.revision for r in revisions] == [
        str(v) for v in range(LEGACY_VERSION, LATEST_VERSION + 1)
    ]
    assert [r.down_revision for r in revisions] == [None] + [r.revision for r in revisions[:-1]]
    assert all(path.name.startswith("v") for path in (SCRIPTS / "versions").glob("*.py"))


async def test_alembic_on_the_command_line_checks_a_database(tmp_path: Path) -> None:
    """What a developer runs from the top folder (alembic.ini) on the database in
    DATABASE_URL: here ``alembic check``, on a database at the newest revision."""
    path = tmp_path / "dev.db"
    await (await Storage.open(path)).close()
    done = subprocess.run(
        [sys.executable, "-m", "alembic", "check"],
        cwd=ROOT,
        env={"DATABASE_URL": str(path), "PATH": ""},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "No new upgrade operations detected" in done.stdout + done.stderr
