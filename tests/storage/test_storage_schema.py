"""`storage.schema` and the Alembic revisions agree: a database upgraded from nothing to the
newest revision is, object for object, the one `storage.schema` makes, on SQLite and on
PostgreSQL, and Alembic's own check finds nothing to change; so a column cannot be added
in one place only. A database written before Alembic (the fixtures in ``v10/``, and every
schema of `pre_alembic_schemas`) is the same after its upgrade."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from pre_alembic_schemas import LEGACY_VERSION
from schema_describe import describe_postgres, describe_sqlite, differences
from sqlalchemy import Connection, UniqueConstraint, text
from sqlalchemy.ext.asyncio import create_async_engine
from storage_testkit import legacy_sqlite
from test_storage_upgrade import FIXTURES, load_postgres_fixture

from sandbox.postgres_server import PostgresServer
from storage import schema
from storage.upgrade import (
    alembic_config,
    async_url,
    latest_version,
    upgrade_schema,
)
from storage.upgrade import (
    differences as alembic_differences,
)

# SQLAlchemy cannot reflect SQLite's expression index (ratings_board); describe_sqlite
# compares it instead.
pytestmark = pytest.mark.filterwarnings("ignore:.*expression-based index:Warning")


def _create_from_models(connection: Connection) -> None:
    schema.metadata.create_all(connection)
    for statement in schema.JOURNAL_TRIGGERS[connection.dialect.name]:
        connection.execute(text(statement))


async def _run(address: str | Path, work: Any) -> Any:
    engine = create_async_engine(async_url(address))
    try:
        async with engine.begin() as connection:
            return await connection.run_sync(work)
    finally:
        await engine.dispose()


def _alembic_check(connection: Connection) -> None:
    """``alembic check``, on this connection: raises if autogenerate would write anything."""
    config = alembic_config()
    config.attributes["connection"] = connection
    command.check(config)


def _legacy_spelling(diff: Any) -> bool:
    """Two spellings of the same thing in a SQLite database made by the code before
    Alembic, which describe_sqlite compares exactly: a rowid table's INTEGER PRIMARY KEY
    is never NULL whether or not it says NOT NULL, and a UNIQUE written inline is not
    reflected."""
    change = diff[0] if isinstance(diff, list) else diff
    if change[0] == "modify_nullable" and change[-1] is False:
        return change[3] in {c.name for c in schema.metadata.tables[change[2]].primary_key}
    return change[0] == "add_constraint" and isinstance(change[1], UniqueConstraint)


ADDED_COLUMNS = {
    "games": ("deal_key", "account"),
    "tournaments": ("account",),
    "handled_updates": ("account",),
}
"""The columns the revisions after 10 add at the end of a table: 11 the games'
``deal_key`` (verifiable deals), 13 the bot ``account`` of games, tournaments and handled
updates (which 13 keys by account and update)."""
ADDED_TABLES = ("accounts", "open_dms", "served_chats", "served_chats_told")
ADDED_INDEX = "games_open_by_account"


def _added_by_later_revisions(changed: dict[str, Any]) -> bool:
    """Whether a version 10 database, stamped, was changed only by the revisions after it
    (`ADDED_COLUMNS`, `ADDED_TABLES`, `ADDED_INDEX`, the daily deal's tables of 12 and
    later; and handled updates' new key)."""
    for key, (old, new) in changed.items():
        kind, _, name = key.partition(" ")
        if kind == "table" and name in ADDED_COLUMNS:
            if isinstance(old, dict):  # SQLite's description: columns and the rest
                keyed = {"primary key"} if name == "handled_updates" else set()
                assert {k: v for k, v in old.items() if k not in {"columns", *keyed}} == {
                    k: v for k, v in new.items() if k not in {"columns", *keyed}
                }, key
                if keyed:
                    assert new["primary key"] == ["account", "update_id"], new
                old, new = old["columns"], new["columns"]
            added = ADDED_COLUMNS[name]
            assert new[: -len(added)] == old, key
            assert all(c in repr(n) for c, n in zip(added, new[-len(added) :], strict=True)), key
        elif (
            (kind == "table" and (name in ADDED_TABLES or name.startswith("daily_")))
            or (kind == "index" and name.startswith(ADDED_INDEX))
            or (kind in ("constraint", "index") and name.split("_pkey")[0] in ADDED_TABLES)
            or (kind in ("constraint", "index") and name.startswith("daily_"))
            or name.startswith("live_seats")  # revision 15's table, its key and index
            or name.startswith("table_screens")  # revision 16's table, its key
        ):
            assert old is None, key
        elif "handled_updates" in key:  # PostgreSQL describes the new key apart
            assert "update_id" in repr(old) and "account" in repr(new), (key, old, new)
        else:
            raise AssertionError(f"{key} changed: {old!r} -> {new!r}")
    return True


async def test_sqlite_upgraded_from_nothing_is_the_models(tmp_path: Path) -> None:
    migrated, modelled = tmp_path / "migrated.db", tmp_path / "modelled.db"
    assert await upgrade_schema(migrated) == latest_version()
    await _run(modelled, _create_from_models)
    assert differences(describe_sqlite(migrated), describe_sqlite(modelled)) == {}
    assert await _run(migrated, alembic_differences) == []
    await _run(migrated, _alembic_check)


async def test_postgresql_upgraded_from_nothing_is_the_models(postgres: PostgresServer) -> None:
    migrated, modelled = await postgres.database(), await postgres.database()
    assert await upgrade_schema(migrated) == latest_version()
    await _run(modelled, _create_from_models)
    assert differences(await describe_postgres(migrated), await describe_postgres(modelled)) == {}
    assert await _run(migrated, alembic_differences) == []
    await _run(migrated, _alembic_check)


async def test_a_version_10_sqlite_database_upgraded_is_the_models(tmp_path: Path) -> None:
    upgraded, modelled = tmp_path / "upgraded.db", tmp_path / "modelled.db"
    shutil.copyfile(FIXTURES / "hearts-v10.db", upgraded)
    before = describe_sqlite(upgraded)
    await upgrade_schema(upgraded)
    await _run(modelled, _create_from_models)
    assert differences(describe_sqlite(upgraded), describe_sqlite(modelled)) == {}
    # Stamped, not changed; then only what the later revisions add.
    assert _added_by_later_revisions(differences(before, describe_sqlite(upgraded)))
    found = await _run(upgraded, alembic_differences)
    assert [d for d in found if not _legacy_spelling(d)] == []


@pytest.mark.parametrize("version", range(1, LEGACY_VERSION + 1))
async def test_every_schema_from_before_alembic_upgraded_is_the_models(
    tmp_path: Path, version: int
) -> None:
    """Each schema a release before Alembic created (a fixture), opened by this code,
    reaches the head: the same objects as `storage.schema` makes, and one record."""
    upgraded, modelled = tmp_path / "upgraded.db", tmp_path / "modelled.db"
    legacy_sqlite(upgraded, version)
    assert await upgrade_schema(upgraded) == latest_version()
    await _run(modelled, _create_from_models)
    assert differences(describe_sqlite(upgraded), describe_sqlite(modelled)) == {}
    found = await _run(upgraded, alembic_differences)
    assert [d for d in found if not _legacy_spelling(d)] == []
    with sqlite3.connect(upgraded) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 0
        assert db.execute("SELECT version_num FROM alembic_version").fetchall() == [
            (str(latest_version()),)
        ]


async def test_a_version_10_postgresql_database_upgraded_is_the_models(
    postgres: PostgresServer,
) -> None:
    upgraded, modelled = await load_postgres_fixture(postgres), await postgres.database()
    before = await describe_postgres(upgraded)
    await upgrade_schema(upgraded)
    await _run(modelled, _create_from_models)
    after = await describe_postgres(upgraded)
    assert differences(after, await describe_postgres(modelled)) == {}
    assert _added_by_later_revisions(differences(before, after))
    assert await _run(upgraded, alembic_differences) == []


async def test_a_column_added_in_one_place_only_is_found(tmp_path: Path) -> None:
    """What the agreement tests rely on: a column the database has and `storage.schema`
    does not (or the other way round) is a difference, for Alembic's check and for
    describe_sqlite."""
    path, modelled = tmp_path / "h.db", tmp_path / "modelled.db"
    await upgrade_schema(path)
    await _run(modelled, _create_from_models)
    with sqlite3.connect(path) as db:
        db.execute("ALTER TABLE chats ADD COLUMN sound INTEGER")
    found = await _run(path, alembic_differences)
    assert [(d[0], d[2], d[3].name) for d in found] == [("remove_column", "chats", "sound")]
    with pytest.raises(Exception, match="New upgrade operations detected"):
        await _run(path, _alembic_check)
    assert set(differences(describe_sqlite(path), describe_sqlite(modelled))) == {"table chats"}


def test_the_describer_sees_what_differs(tmp_path: Path) -> None:
    """The comparison is not blind: a default, a CHECK, an index's WHERE and a trigger
    changed each show."""
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
