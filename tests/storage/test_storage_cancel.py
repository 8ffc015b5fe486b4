"""A write whose task is cancelled mid-statement, and a database used after it is closed.

A handler cancelled while it writes (the application stopping, a timeout) is an ordinary
event, not a broken database: the cancelled transaction is whole or absent, and every
later write and read works. (SQLAlchemy closes a connection whose statement was
interrupted by a cancellation; on SQLite that once was the one writer connection and its
aiosqlite thread, and every later write failed with "Connection closed".)
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import Connection, text

from sandbox.postgres_server import PostgresServer
from storage.database import Database
from storage.errors import StorageUnavailable

# A statement that keeps SQLite busy for a good part of a second on any machine; long
# enough that the cancellation lands while it runs.
SLOW_SQLITE = text(
    "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 2000000) "
    "INSERT INTO t SELECT i FROM r"
)
SLOW_POSTGRES = text("INSERT INTO t SELECT 1 FROM pg_sleep(30)")


@pytest.fixture(params=["sqlite", "postgresql"])
async def database(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Database]:
    if request.param == "postgresql":
        server: PostgresServer = request.getfixturevalue("postgres")
        db = await Database.open(await server.database())
    else:
        db = await Database.open(tmp_path / "hearts.db")
    await db.transact(_make_table)
    try:
        yield db
    finally:
        await db.close()


def _make_table(connection: Connection) -> None:
    connection.exec_driver_sql("CREATE TABLE t (x INTEGER)")


def _add(connection: Connection, value: int) -> None:
    connection.execute(text("INSERT INTO t VALUES (:x)"), {"x": value})


async def _count(db: Database) -> int:
    rows = await db.read(text("SELECT count(*) FROM t"))
    return int(rows[0][0])


async def test_a_write_cancelled_mid_statement_leaves_the_database_writable(
    database: Database,
) -> None:
    slow = SLOW_SQLITE if database.dialect == "sqlite" else SLOW_POSTGRES
    started = asyncio.Event()

    def write_slowly(connection: Connection) -> None:
        started.set()
        connection.execute(slow)

    task = asyncio.create_task(database.transact(write_slowly))
    while not started.is_set():  # (set in the writer's thread, or a greenlet)
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.2)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    # The cancelled transaction is whole or absent; writing and reading still work.
    # (On SQLite the writer's thread finishes what it was given: these wait behind it.)
    await database.transact(_add, -1)
    await database.transact(_add, -2)
    rows = await database.read(text("SELECT x FROM t WHERE x < 0 ORDER BY x"))
    assert [row[0] for row in rows] == [-2, -1]
    whole_or_absent = (2, 2_000_002) if database.dialect == "sqlite" else (2,)
    assert await _count(database) in whole_or_absent


async def test_a_closed_database_says_so_and_closes_once(database: Database) -> None:
    await database.transact(_add, 1)
    await database.close()
    with pytest.raises(StorageUnavailable, match="closed"):
        await database.transact(_add, 2)
    if database.dialect == "sqlite":
        with pytest.raises(StorageUnavailable, match="closed"):
            await database.read(text("SELECT count(*) FROM t"))
    await database.close()  # a second close (the fixture's) does nothing more
