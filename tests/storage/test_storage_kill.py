"""A writer killed with SIGKILL loses no acknowledged move and leaves a database that opens."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from storage.sqlite import SqliteStorage

HERE = Path(__file__).parent
ROOT = HERE.parent.parent


@pytest.mark.parametrize("acks_before_kill", [1, 150, 700])
async def test_sigkill_mid_stream_loses_no_acknowledged_move(
    db_path: Path, acks_before_kill: int
) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(HERE)])}
    writer = subprocess.Popen(
        [sys.executable, str(HERE / "kill_writer.py"), str(db_path)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert writer.stdout is not None
    first = writer.stdout.readline().split()
    assert first[0] == "game", first
    game_id = int(first[1])
    acked = 0
    deadline = time.monotonic() + 20
    while acked < acks_before_kill and time.monotonic() < deadline:
        line = writer.stdout.readline()
        assert line.startswith("ack "), line
        acked = int(line.split()[1])
    # Killed while it is writing the next moves: no chance to commit, close or clean up.
    writer.send_signal(signal.SIGKILL)
    # Anything it printed before dying was acknowledged too.
    for line in writer.stdout:
        acked = max(acked, int(line.split()[1]))
    writer.wait()
    assert writer.returncode == -signal.SIGKILL
    assert acked >= acks_before_kill

    store = await SqliteStorage.open(db_path)
    try:
        [stored] = await store.active_games()  # verified: the journal replays to the snapshot
        assert stored.id == game_id and stored.status == "active"
        assert stored.last_seq >= acked
        journal = await store.journal(game_id)
        assert [e.seq for e in journal] == list(range(1, stored.last_seq + 1))
        check = list(await store._reader.execute_fetchall("PRAGMA integrity_check"))
        assert check == [("ok",)]
    finally:
        await store.close()
