from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from sandbox.postgres_server import PostgresServer
from storage import Storage


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "hearts.db"


@pytest.fixture(params=["sqlite", "postgresql"])
async def store(request: pytest.FixtureRequest, db_path: Path) -> AsyncIterator[Storage]:
    """The storage on each database: SQLite, and a real PostgreSQL server's."""
    if request.param == "postgresql":
        server: PostgresServer = request.getfixturevalue("postgres")
        storage: Storage = await Storage.open(await server.database())
    else:
        storage = await Storage.open(db_path)
    try:
        yield storage
    finally:
        await storage.close()


@pytest.fixture
async def sqlite_store(db_path: Path) -> AsyncIterator[Storage]:
    """The storage on SQLite only (its connections' own settings)."""
    storage = await Storage.open(db_path)
    try:
        yield storage
    finally:
        await storage.close()
