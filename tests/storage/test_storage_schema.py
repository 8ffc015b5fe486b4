"""`storage.schema` declares exactly the schema the databases hold: a database made from its
tables is the same, object for object, as one made by the migrations, on SQLite and on
PostgreSQL; and Alembic's own comparison finds nothing to change."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from schema_describe import describe_postgres, describe_sqlite, differences
from sqlalchemy import Connection, Identity, UniqueConstraint, text
from sqlalchemy.ext.asyncio import create_async_engine

from sandbox.postgres_server import PostgresServer
from storage import schema
from storage.postgres import PostgresStorage
from storage.sqlite import SqliteStorage

# SQLAlchemy cannot reflect SQLite's expression index (ratings_board); describe_sqlite
# compares it instead.
pytestmark = pytest.mark.filterwarnings("ignore:.*expression-based index:Warning")


def _create_from_models(connection: Connection) -> None:
    schema.metadata.create_all(connection)
    for statement in schema.JOURNAL_TRIGGERS[connection.dialect.name]:
        connection.execute(text(statement))


def _same_default(context: MigrationContext, *args: Any) -> bool | None:
    """SQLite has no identity columns (its INTEGER PRIMARY KEY is the row id): not a
    difference there."""
    metadata_default = args[3]
    if context.dialect.name == "sqlite" and isinstance(metadata_default, Identity):
        return False
    return None


def _alembic_differences(connection: Connection) -> list[Any]:
    # (Alembic's comparison given a function fails on PostgreSQL's identity columns.)
    same = _same_default if connection.dialect.name == "sqlite" else True
    context = MigrationContext.configure(
        connection, opts={"compare_type": True, "compare_server_default": same}
    )
    found = []
    for diff in compare_metadata(context, schema.metadata):
        change = diff[0] if isinstance(diff, list) else diff
        if change[0] == "remove_table" and change[1].name == "schema_version":
            continue  # the old code's count of versions, not part of the schema
        if connection.dialect.name == "sqlite":
            # Two spellings of the same thing in a database made by the old migrations:
            # a rowid table's INTEGER PRIMARY KEY is never NULL whether or not it says
            # NOT NULL, and a UNIQUE written inline is not reflected (describe_sqlite
            # compares both exactly).
            if (
                change[0] == "modify_nullable"
                and change[-1] is False
                and change[3] in (c.name for c in schema.metadata.tables[change[2]].primary_key)
            ):
                continue
            if change[0] == "add_constraint" and isinstance(change[1], UniqueConstraint):
                continue
        found.append(diff)
    return found


def _async_url(url: str) -> str:
    return url.replace("postgresql://", "postgresql+asyncpg://", 1)


async def test_sqlite_made_from_the_models_is_the_migrated_schema(tmp_path: Path) -> None:
    migrated, modelled = tmp_path / "migrated.db", tmp_path / "modelled.db"
    await (await SqliteStorage.open(migrated)).close()
    engine = create_async_engine(f"sqlite+aiosqlite:///{modelled}")
    try:
        async with engine.begin() as connection:
            await connection.run_sync(_create_from_models)
    finally:
        await engine.dispose()
    assert differences(describe_sqlite(migrated), describe_sqlite(modelled)) == {}
    engine = create_async_engine(f"sqlite+aiosqlite:///{migrated}")
    try:
        async with engine.connect() as connection:
            assert await connection.run_sync(_alembic_differences) == []
    finally:
        await engine.dispose()


async def test_postgresql_made_from_the_models_is_the_migrated_schema(
    postgres: PostgresServer,
) -> None:
    migrated, modelled = await postgres.database(), await postgres.database()
    await (await PostgresStorage.open(migrated)).close()
    engine = create_async_engine(_async_url(modelled))
    try:
        async with engine.begin() as connection:
            await connection.run_sync(_create_from_models)
    finally:
        await engine.dispose()
    assert differences(await describe_postgres(migrated), await describe_postgres(modelled)) == {}
    engine = create_async_engine(_async_url(migrated))
    try:
        async with engine.connect() as connection:
            assert await connection.run_sync(_alembic_differences) == []
    finally:
        await engine.dispose()


def test_the_describer_sees_what_differs(tmp_path: Path) -> None:
    """The comparison is not blind: a default, a CHECK, an index's WHERE and a trigger
    changed each show."""
    import sqlite3

    made = {}
    for name, statements in (
        (
            "a",
            (
                "CREATE TABLE t (id INTEGER PRIMARY KEY, x INTEGER NOT NULL DEFAULT 0"
                " CHECK (x >= 0))",
                "CREATE INDEX t_x ON t (x) WHERE x > 1",
                "CREATE TRIGGER t_guard BEFORE DELETE ON t BEGIN SELECT RAISE(ABORT, 'no'); END",
            ),
        ),
        (
            "b",
            (
                "CREATE TABLE t (id INTEGER PRIMARY KEY, x INTEGER NOT NULL DEFAULT 1"
                " CHECK (x >= 1))",
                "CREATE INDEX t_x ON t (x) WHERE x > 2",
                "CREATE TRIGGER t_guard BEFORE UPDATE ON t BEGIN SELECT RAISE(ABORT, 'no'); END",
            ),
        ),
    ):
        path = tmp_path / f"{name}.db"
        with sqlite3.connect(path) as db:
            for statement in statements:
                db.execute(statement)
        made[name] = describe_sqlite(path)
    assert set(differences(made["a"], made["b"])) == {"table t", "index t_x", "trigger t_guard"}
    table_a, table_b = made["a"]["table t"], made["b"]["table t"]
    assert table_a["columns"] != table_b["columns"] and table_a["checks"] != table_b["checks"]
