"""A write whose task is cancelled mid-statement, and a database used after it is closed.

SQLAlchemy closes a connection whose statement was interrupted by a cancellation (it
cannot know what the connection was doing). On SQLite that was the one writer connection
and its aiosqlite thread: every later write failed with aiosqlite's "Connection closed",
and the bot's shutdown then failed (or hung) closing it. A handler cancelled while it
writes (the application stopping, a timeout) is an ordinary event, not a broken database.
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

    async def write_slowly() -> None:
        async with database.write() as connection:
            started.set()
            await connection.execute(slow)

    task = asyncio.create_task(write_slowly())
    await started.wait()
    await asyncio.sleep(0.2)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    # Nothing of the cancelled transaction was committed; both ways of writing still work.
    await database.transact(_add, 1)
    async with database.write() as connection:
        await connection.execute(text("INSERT INTO t VALUES (2)"))
    await database.transact(_add, 3)
    assert await _count(database) == 3
    rows = await database.read(text("SELECT x FROM t ORDER BY x"))
    assert [row[0] for row in rows] == [1, 2, 3]


async def test_a_closed_database_says_so_and_closes_once(database: Database) -> None:
    await database.transact(_add, 1)
    await database.close()
    with pytest.raises(StorageUnavailable, match="closed"):
        await database.transact(_add, 2)
    if database.dialect == "sqlite":
        with pytest.raises(StorageUnavailable, match="closed"):
            await database.read(text("SELECT count(*) FROM t"))
    await database.close()  # a second close (the fixture's) does nothing more
