"""Online backup while moves are written; restore refuses a database in use."""

from __future__ import annotations

import asyncio
import random
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from storage_testkit import VARIANTS, play_stored, random_move

from storage import DatabaseInUse, SchemaTooNew, Storage
from storage.backup import restore_database
from storage.upgrade import latest_version

LATEST_VERSION = latest_version()

ROOT = Path(__file__).parent.parent.parent


async def test_backup_while_writing_is_consistent(sqlite_store: Storage, tmp_path: Path) -> None:
    store = sqlite_store
    game_id, game = await play_stored(store, VARIANTS["four"], seed=1, max_moves=20)
    done = asyncio.Event()

    async def keep_writing() -> int:
        rng = random.Random(1)
        count = 0
        while not done.is_set() and game.phase != "over":
            move = random_move(game, rng)
            move.apply(game)
            await store.games.record_move(game_id, move, game)
            count += 1
        return count

    writing = asyncio.create_task(keep_writing())
    await asyncio.sleep(0.02)
    backups = [tmp_path / "backups" / f"b{i}.db" for i in range(3)]
    for path in backups:
        await store.maintenance.backup(path)
    done.set()
    assert await writing > 0
    for path in backups:
        assert not Path(f"{path}-wal").exists()
        copy = await Storage.open(path)
        try:
            stored = await copy.games.load_game(game_id, verify=True)  # journal and snapshot agree
            assert stored.status in ("active", "finished")
            assert stored.game is not None
        finally:
            await copy.close()


async def test_restore_refuses_a_database_in_use(db_path: Path, tmp_path: Path) -> None:
    store = await Storage.open(db_path)
    game_id, game = await play_stored(store, VARIANTS["three"], seed=2, max_moves=10)
    backup = tmp_path / "backup.db"
    await store.maintenance.backup(backup)
    await play_stored(store, VARIANTS["three"], seed=3, max_moves=10)
    with pytest.raises(DatabaseInUse):
        restore_database(str(backup), str(db_path))
    assert len(await store.games.active_games()) == 2  # untouched
    await store.close()

    restore_database(str(backup), str(db_path))
    store = await Storage.open(db_path)
    try:
        [stored] = await store.games.active_games()
        assert stored.id == game_id and stored.game is not None
        assert stored.game.to_json() == game.to_json()
    finally:
        await store.close()


def test_restore_refuses_a_newer_backup(tmp_path: Path) -> None:
    newer = tmp_path / "newer.db"
    with sqlite3.connect(newer) as db:
        db.execute(f"PRAGMA user_version = {LATEST_VERSION + 1}")
    with pytest.raises(SchemaTooNew):
        restore_database(str(newer), str(tmp_path / "live.db"))
    assert not (tmp_path / "live.db").exists()


async def test_command_line(db_path: Path, tmp_path: Path) -> None:
    store = await Storage.open(db_path)
    await play_stored(store, VARIANTS["four"], seed=4, max_moves=5)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "storage", *args],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=30,
        )

    backup = tmp_path / "cli" / "backup.db"
    done = run("backup", str(db_path), str(backup))  # while the store is open
    assert done.returncode == 0, done.stderr
    refused = run("restore", str(backup), str(db_path))
    assert refused.returncode == 1 and "in use" in refused.stderr
    await store.close()
    restored = run("restore", str(backup), str(db_path))
    assert restored.returncode == 0, restored.stderr
