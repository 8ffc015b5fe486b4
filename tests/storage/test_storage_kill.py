"""A writer killed with SIGKILL loses no acknowledged move and leaves a database that opens;
on PostgreSQL, neither does the server stopping as in a power cut."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from patience import patient
from storage_testkit import pragma

from sandbox.postgres_server import PostgresServer
from storage import Storage, open_storage

HERE = Path(__file__).parent
ROOT = HERE.parent.parent


@pytest.mark.parametrize("acks_before_kill", [1, 150, 700])
async def test_sigkill_mid_stream_loses_no_acknowledged_move(
    db_path: Path, acks_before_kill: int
) -> None:
    game_id, acked = killed_mid_stream(str(db_path), acks_before_kill)
    await check_kept(str(db_path), game_id, acked)
    store = await Storage.open(db_path)
    try:
        assert await pragma(store, "integrity_check") == [("ok",)]
    finally:
        await store.close()


@pytest.mark.parametrize("acks_before_kill", [1, 300])
async def test_on_postgresql_neither_a_killed_writer_nor_a_crashed_server_loses_a_move(
    postgres: PostgresServer, acks_before_kill: int
) -> None:
    """The writer is killed mid-stream and the server stops at once after it, as in a
    power cut (no checkpoint, no clean shutdown): every acknowledged move is there when
    the server comes back."""
    url = await postgres.database()
    game_id, acked = killed_mid_stream(url, acks_before_kill, crash=postgres.crash)
    postgres.start()
    await check_kept(url, game_id, acked)


def killed_mid_stream(
    where: str, acks_before_kill: int, crash: Callable[[], None] | None = None
) -> tuple[int, int]:
    """Run `kill_writer` on the database `where` and SIGKILL it after `acks_before_kill`
    acknowledged moves (then `crash` the server, if given); returns the game and the last
    move acknowledged."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(HERE)])}
    writer = subprocess.Popen(
        [sys.executable, str(HERE / "kill_writer.py"), where],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert writer.stdout is not None
    first = writer.stdout.readline().split()
    assert first[0] == "game", first
    game_id = int(first[1])
    acked = 0
    deadline = time.monotonic() + patient(20)
    while acked < acks_before_kill and time.monotonic() < deadline:
        line = writer.stdout.readline()
        assert line.startswith("ack "), line
        acked = int(line.split()[1])
    # Killed while it is writing the next moves: no chance to commit, close or clean up.
    writer.send_signal(signal.SIGKILL)
    if crash is not None:
        crash()
    # Anything it printed before dying was acknowledged too.
    for line in writer.stdout:
        acked = max(acked, int(line.split()[1]))
    writer.wait()
    assert writer.returncode == -signal.SIGKILL
    assert acked >= acks_before_kill
    return game_id, acked


async def check_kept(where: str, game_id: int, acked: int) -> None:
    store = await open_storage(where)
    try:
        [stored] = await store.games.active_games()  # verified: the journal replays to the snapshot
        assert stored.id == game_id and stored.status == "active"
        assert stored.last_seq >= acked
        journal = await store.games.journal(game_id)
        assert [e.seq for e in journal] == list(range(1, stored.last_seq + 1))
    finally:
        await store.close()
