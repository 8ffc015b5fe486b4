"""The schema: migrations from empty and from each older version; newer refused."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import aiosqlite
import pytest
from storage_testkit import play_stored

from engine import Rules
from storage import SchemaTooNew
from storage.migrations import LATEST_VERSION, MIGRATIONS
from storage.sqlite import SqliteStorage, migrate, user_version


def tables(path: Path) -> set[str]:
    with sqlite3.connect(path) as db:
        return {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}


async def test_from_empty_creates_the_folders_and_the_latest_schema(db_path: Path) -> None:
    assert not db_path.parent.exists()
    store = await SqliteStorage.open(db_path)
    await store.close()
    assert {"chats", "users", "games", "game_seats", "moves", "hand_points", "game_results"} <= (
        tables(db_path)
    )
    with sqlite3.connect(db_path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == LATEST_VERSION
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        columns = {r[1] for r in db.execute("PRAGMA table_info(games)")}
    assert "event_id" in columns


async def test_connections_use_wal_foreign_keys_and_a_busy_timeout(
    store: SqliteStorage,
) -> None:
    for db in (store._writer, store._reader):
        assert list(await db.execute_fetchall("PRAGMA foreign_keys")) == [(1,)]
        assert list(await db.execute_fetchall("PRAGMA busy_timeout")) == [(5000,)]
        assert list(await db.execute_fetchall("PRAGMA journal_mode")) == [("wal",)]
        assert list(await db.execute_fetchall("PRAGMA synchronous")) == [(1,)]  # NORMAL


@pytest.mark.parametrize("old_version", range(1, LATEST_VERSION))
async def test_from_each_older_version_keeps_the_data(db_path: Path, old_version: int) -> None:
    db_path.parent.mkdir(parents=True)
    async with aiosqlite.connect(db_path, isolation_level=None) as db:
        assert await migrate(db, str(db_path), target=old_version) == old_version
        assert await user_version(db) == old_version
    # Fill it with a finished game, then take the database back to exactly the old
    # version's schema (what an older release would have left behind) and reopen it.
    store = await SqliteStorage.open(db_path)
    game_id, game = await play_stored(store, Rules(players=3, target=30), seed=3, user_ids=[7])
    await store.close()
    with sqlite3.connect(db_path) as db:
        db.execute(f"PRAGMA user_version = {old_version}")
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
    store = await SqliteStorage.open(db_path)
    try:
        assert list(await store._writer.execute_fetchall("PRAGMA user_version")) == [
            (LATEST_VERSION,)
        ]
        loaded = await store.load_game(game_id)
        assert loaded.status == "finished"
        assert len(loaded.join_token) >= 12  # older rows get an unguessable token too
        assert loaded.game is not None and loaded.game.to_json() == game.to_json()
        assert (await store.player_history(7))[0].game_id == game_id
    finally:
        await store.close()


async def test_every_migration_applies_in_one_transaction(db_path: Path) -> None:
    # A migration that fails half-way leaves the previous version, not half a schema.
    db_path.parent.mkdir(parents=True)
    async with aiosqlite.connect(db_path, isolation_level=None) as db:
        await migrate(db, str(db_path), target=1)
        await db.execute("CREATE TABLE clash (x)")
        await db.execute("CREATE INDEX games_by_event ON clash (x)")  # v2 makes this name
        with pytest.raises(sqlite3.OperationalError):
            await migrate(db, str(db_path))
        assert await user_version(db) == 1
        columns = {r[1] for r in await db.execute_fetchall("PRAGMA table_info(games)")}
        assert "event_id" not in columns


async def test_a_newer_database_is_refused(db_path: Path) -> None:
    store = await SqliteStorage.open(db_path)
    await store.close()
    with sqlite3.connect(db_path) as db:
        db.execute(f"PRAGMA user_version = {LATEST_VERSION + 1}")
    with pytest.raises(SchemaTooNew, match="only knows versions up to"):
        await SqliteStorage.open(db_path)


def test_migrations_are_numbered_in_order() -> None:
    assert [m.version for m in MIGRATIONS] == list(range(1, LATEST_VERSION + 1))
    assert LATEST_VERSION >= 2
