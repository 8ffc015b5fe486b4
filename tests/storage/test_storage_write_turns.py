"""SQLite's writes asked for together go to the writer's thread together, and each is still
its own transaction: in the order asked, one's error its own, a cancelled one unwritten."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import Connection, text
from sqlalchemy.exc import IntegrityError

from storage.database import Database
from storage.errors import StorageUnavailable


def _create(db: Connection) -> None:
    db.execute(text("CREATE TABLE said (n INTEGER PRIMARY KEY, asked INTEGER)"))


def _say(db: Connection, n: int) -> int:
    db.execute(
        text("INSERT INTO said (n, asked) VALUES (:n, (SELECT count(*) FROM said))"), {"n": n}
    )
    return n


def _said(db: Connection) -> list[tuple[int, int]]:
    return [(n, asked) for n, asked in db.execute(text("SELECT n, asked FROM said ORDER BY asked"))]


@pytest.fixture
async def database(tmp_path: Path) -> AsyncIterator[Database]:
    db = await Database.open(tmp_path / "data" / "hearts.db")
    await db.transact(_create)
    yield db
    await db.close()


async def test_writes_asked_together_are_each_written_in_the_order_asked(
    database: Database,
) -> None:
    results = await asyncio.gather(*(database.transact(_say, n) for n in range(60)))
    assert results == list(range(60))
    assert await database.transact(_said) == [(n, n) for n in range(60)]


async def test_a_failing_write_raises_its_own_error_and_the_others_are_written(
    database: Database,
) -> None:
    asked = [database.transact(_say, n) for n in (1, 2, 1, 3)]  # the second 1 is refused
    outcomes = await asyncio.gather(*asked, return_exceptions=True)
    assert outcomes[:2] == [1, 2] and outcomes[3] == 3
    assert isinstance(outcomes[2], IntegrityError)
    assert [n for n, _ in await database.transact(_said)] == [1, 2, 3]


async def test_a_write_cancelled_before_its_turn_is_not_written(database: Database) -> None:
    first = asyncio.create_task(database.transact(_say, 1))
    await asyncio.sleep(0)  # the first is on its way to the writer's thread
    second = asyncio.create_task(database.transact(_say, 2))
    third = asyncio.create_task(database.transact(_say, 3))
    await asyncio.sleep(0)  # both wait for the first's trip to end
    second.cancel()
    assert await first == 1 and await third == 3
    with pytest.raises(asyncio.CancelledError):
        await second
    assert [n for n, _ in await database.transact(_said)] == [1, 3]


async def test_writes_waiting_as_the_database_closes_say_it_is_closed(
    database: Database,
) -> None:
    first = asyncio.create_task(database.transact(_say, 1))
    await asyncio.sleep(0)
    later = [asyncio.create_task(database.transact(_say, n)) for n in (2, 3)]
    await asyncio.sleep(0)
    await database.close()
    assert await first == 1
    for task in later:
        with pytest.raises(StorageUnavailable, match="closed"):
            await task
