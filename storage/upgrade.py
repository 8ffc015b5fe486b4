"""Bringing a database to the schema this code knows: Alembic's revisions (one history for
SQLite and PostgreSQL, in ``storage/alembic``), run when the storage opens.

    version = await upgrade_schema("data/hearts.db")          # or a postgresql:// URL

A database is one of:

- empty: every revision runs, the first creating the whole schema;
- written before Alembic (SQLite's ``user_version`` 1-10, PostgreSQL's ``schema_version``
  8-10): the first revision brings it to version 10 by the steps those releases ran
  (``storage/alembic/versions/v10_schema_before_alembic.py``), then the later revisions
  run, all in one transaction: nothing is left half done;
- Alembic's, at a revision this code knows: the revisions after it run;
- newer than this code (a revision it does not know, or a pre-Alembic version above 10):
  refused with `SchemaTooNew`, and nothing is changed.

One transaction takes the database's write lock first (SQLite's ``BEGIN IMMEDIATE``,
PostgreSQL's advisory lock), so two processes starting at once upgrade it once.

Every revision is numbered (its id is the schema's version: ``10``, ``11``…), and
Alembic's ``alembic_version`` is the one record of it: the bot's open, ``hearts-bot
check`` and ``restore`` read it (`recorded`). The record of code before Alembic (SQLite's
``user_version``, PostgreSQL's ``schema_version`` table) is read only to upgrade such a
database, and cleared once Alembic's is written (as it is in a database an earlier
release kept both in).
"""

from __future__ import annotations

import functools
import logging
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util import CommandError
from sqlalchemy import Connection, Identity, event, inspect, text
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.pool import ConnectionPoolEntry, NullPool

from .errors import SchemaTooNew, StorageError
from .schema import metadata

log = logging.getLogger(__name__)

SCRIPTS: Final = Path(__file__).parent / "alembic"
"""Alembic's environment and revisions, shipped inside the package."""
MIGRATION_LOCK: Final = 0x4865_6172_7473  # "Hearts": PostgreSQL's advisory lock of upgrades
BUSY_TIMEOUT_MS: Final = 5000
LAST_BEFORE_ALEMBIC: Final = 10
"""The last version before Alembic, the schema of its first revision: a database that
says a later one without Alembic's record was not written by this bot."""


def alembic_config() -> Config:
    """Alembic's configuration for this package (what ``alembic.ini`` says too)."""
    config = Config()
    config.set_main_option("script_location", str(SCRIPTS))
    config.set_main_option("file_template", "v%%(rev)s_%%(slug)s")
    return config


@functools.cache
def _scripts() -> ScriptDirectory:
    return ScriptDirectory.from_config(alembic_config())


def latest_version() -> int:
    """The schema's version at the newest revision this code knows."""
    head = _scripts().get_current_head()
    assert head is not None, "storage/alembic/versions holds no revision"
    return int(head)


def known(revision: str) -> bool:
    """Whether `revision` is one of this code's revisions."""
    if not revision:
        return False
    try:
        return _scripts().get_revision(revision) is not None
    except CommandError:  # "Can't locate revision identified by …"
        return False


def async_url(address: str | Path) -> str:
    """SQLAlchemy's URL of a database address: a SQLite file path, or a ``postgresql://``
    URL (on the project's drivers, aiosqlite and asyncpg)."""
    name = str(address)
    for scheme in ("postgresql://", "postgres://"):
        if name.startswith(scheme):
            return "postgresql+asyncpg://" + name[len(scheme) :]
    return f"sqlite+aiosqlite:///{name}"


def where(address: str | Path) -> str:
    """The address for messages: a path, or a URL without its password."""
    name = str(address)
    if name.startswith(("postgresql://", "postgres://")):
        from .postgres import describe

        return describe(name)
    return name


def upgrade_engine(address: str | Path) -> AsyncEngine:
    """An engine for upgrading: on SQLite every transaction is ``BEGIN IMMEDIATE`` (the
    write lock first, and DDL inside the transaction: the sqlite3 module would run it
    outside one), with the bot's busy timeout."""
    url = async_url(address)
    if url.startswith("postgresql+asyncpg://"):
        # asyncpg reads the address itself, as the storage's pool does (sslmode and the
        # other parameters of a libpq URL included).
        import asyncpg

        dsn = str(address)
        return create_async_engine(
            "postgresql+asyncpg://",
            poolclass=NullPool,
            async_creator=lambda: asyncpg.connect(dsn, timeout=10),
            hide_parameters=True,
        )
    engine = create_async_engine(url, poolclass=NullPool, hide_parameters=True)
    if engine.dialect.name == "sqlite":

        @event.listens_for(engine.sync_engine, "connect")
        def _connect(dbapi_connection: DBAPIConnection, _: ConnectionPoolEntry) -> None:
            dbapi_connection.isolation_level = None
            cursor = dbapi_connection.cursor()
            cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            cursor.close()

        @event.listens_for(engine.sync_engine, "begin")
        def _begin(connection: Connection) -> None:
            connection.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


async def upgrade_schema(address: str | Path) -> int:
    """Bring the database at `address` to the newest revision; returns its version.

    Raises `SchemaTooNew` for a database written by a newer version of the bot."""
    place = where(address)
    engine = upgrade_engine(address)
    try:
        async with engine.begin() as connection:
            return await connection.run_sync(_upgrade, place)
    except DBAPIError as error:
        raise StorageError(f"{place}: the schema could not be upgraded ({error.orig}).") from error
    finally:
        await engine.dispose()


@dataclass(frozen=True)
class Recorded:
    """What a database's version records say, read as `upgrade_schema` reads them (and
    ``hearts-bot check`` with it, `storage.checks`): `version` (0: an empty database), and
    whether this code refuses it as newer than it knows (`too_new`)."""

    version: int
    too_new: bool
    alembic: bool
    """Whether Alembic's revision is recorded (else the version code before Alembic wrote)."""


def recorded(revision: str | None, legacy: int) -> Recorded:
    """Alembic's revision when there is one (one this code does not know is newer than any
    it knows), else the version where code before Alembic wrote it (above 10 without
    Alembic's revision: not one this code wrote, refused as newer)."""
    if revision is not None:
        if not known(revision):
            return Recorded(_number(revision, legacy), too_new=True, alembic=True)
        return Recorded(int(revision), too_new=False, alembic=True)
    return Recorded(legacy, too_new=legacy > LAST_BEFORE_ALEMBIC, alembic=False)


def sqlite_recorded(conn: sqlite3.Connection) -> Recorded:
    """`recorded` read on a plain sqlite3 connection (``hearts-bot check``, ``restore``):
    Alembic's revision, else the version of code before Alembic."""
    legacy = int(conn.execute("PRAGMA user_version").fetchone()[0])
    revision = None
    if conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'alembic_version'"
    ).fetchone():
        row = conn.execute("SELECT version_num FROM alembic_version").fetchone()
        revision = str(row[0]) if row else None
    return recorded(revision, legacy)


def _upgrade(connection: Connection, place: str) -> int:
    """In one transaction: lock, read what the database is, upgrade it, say so."""
    dialect = connection.dialect.name
    if dialect == "postgresql":
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
    latest = latest_version()
    found = recorded(_revision(connection), legacy_version(connection))
    if found.too_new:
        raise SchemaTooNew(place, found.version, latest)
    if found.alembic and found.version == latest:
        _forget_legacy_version(connection)
        return latest
    _alembic(connection, "upgrade", "heads")
    _forget_legacy_version(connection)
    log.info("%s: schema at version %d", place, latest)
    return latest


def _alembic(connection: Connection, what: str, revision: str) -> None:
    """Alembic's command on this connection, in its transaction (``env.py`` uses it)."""
    config = alembic_config()
    config.attributes["connection"] = connection
    getattr(command, what)(config, revision)


def _revision(connection: Connection) -> str | None:
    """The database's Alembic revision, or None if Alembic never upgraded it."""
    if not inspect(connection).has_table("alembic_version"):
        return None
    rows = connection.execute(text("SELECT version_num FROM alembic_version")).all()
    return str(rows[0][0]) if rows else None


def legacy_version(connection: Connection) -> int:
    """The version the database says where code before Alembic read it (0: none)."""
    if connection.dialect.name == "sqlite":
        return int(connection.exec_driver_sql("PRAGMA user_version").scalar_one())
    if not inspect(connection).has_table("schema_version"):
        return 0
    found = connection.execute(text("SELECT version FROM schema_version")).scalar()
    return int(found or 0)


def _forget_legacy_version(connection: Connection) -> None:
    """Clear the record of code before Alembic, so that Alembic's is the only one
    (releases before this one wrote both)."""
    if connection.dialect.name == "sqlite":
        if legacy_version(connection):
            connection.exec_driver_sql("PRAGMA user_version = 0")
    elif inspect(connection).has_table("schema_version"):
        connection.execute(text("DROP TABLE schema_version"))


def _number(revision: str, fallback: int) -> int:
    """A revision's version number (another code's revision may not be one)."""
    return int(revision) if revision.isdigit() else fallback


# ---------------------------------------------------------------- comparing with the models


def compare_server_default(migration: MigrationContext, *args: object) -> bool | None:
    """SQLite has no identity columns (an INTEGER PRIMARY KEY is the row id): `Identity`
    is no difference there. None: Alembic's own comparison decides."""
    if migration.dialect.name == "sqlite" and isinstance(args[3], Identity):
        return False
    return None


def comparison_options(dialect: str) -> dict[str, object]:
    """How Alembic compares a database with `storage.schema` (``env.py`` and the tests)."""
    return {
        "compare_type": True,
        # (Given a function, Alembic's comparison fails on PostgreSQL's identity columns.)
        "compare_server_default": compare_server_default if dialect == "sqlite" else True,
    }


def differences(connection: Connection) -> list[object]:
    """What Alembic would change to make the database `storage.schema`'s: empty when they
    agree."""
    context = MigrationContext.configure(
        connection, opts=comparison_options(connection.dialect.name)
    )
    return list(compare_metadata(context, metadata))
