from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from sandbox.postgres_server import PostgresServer
from storage import Storage

_templates: dict[Path, str] = {}


async def migrated_database(server: PostgresServer) -> str:
    """A new PostgreSQL database with the bot's schema already in it: a copy (``createdb
    --template``) of one this test process brought up to date once. Migrating every test's
    database from nothing (Alembic, a second or more each on a busy two-core machine) was
    the larger part of the PostgreSQL storage tests' time. Opening the copy still runs the
    upgrade's check of an up-to-date database; the upgrade from nothing stays tested where
    a test asks `PostgresServer.database` for an empty one (test_storage_schema,
    test_storage_upgrade, test_storage_postgres, the bot's PostgreSQL tests)."""
    template = _templates.get(server.root)
    if template is None:
        template = await server.database()
        storage = await Storage.open(template)
        await storage.close()
        _templates[server.root] = template
    return await server.database(template)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "hearts.db"


@pytest.fixture(params=["sqlite", "postgresql"])
async def store(request: pytest.FixtureRequest, db_path: Path) -> AsyncIterator[Storage]:
    """The storage on each database: SQLite, and a real PostgreSQL server's."""
    if request.param == "postgresql":
        server: PostgresServer = request.getfixturevalue("postgres")
        storage: Storage = await Storage.open(await migrated_database(server))
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


@pytest.fixture
async def postgres_url(postgres: PostgresServer) -> str:
    """A new PostgreSQL database with the bot's schema, for a test that opens it twice (two
    processes, two bot accounts)."""
    return await migrated_database(postgres)
