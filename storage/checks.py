"""The database's own health check: readable, writable, at the current schema, whole.

Used by ``hearts-bot check`` (`bot.telegram.health.run_checks`); it opens the database with
the standard library (SQLite) or asyncpg directly, without the bot's connection, so it can
run beside the bot. It reads the schema's version from the same records as the bot's open
(`storage.upgrade.recorded`: Alembic's revision first), so a database the bot would refuse
never passes; and it checks the database is whole: SQLite's ``PRAGMA quick_check`` (every
page readable and well formed) and, on both databases, every table and column of
`storage.schema` present.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from storage.schema import metadata
from storage.upgrade import Recorded, latest_version, recorded, sqlite_recorded

if TYPE_CHECKING:
    import asyncpg


@dataclass(frozen=True)
class Check:
    """One check's outcome; `detail` says what was found, in one short sentence."""

    name: str
    ok: bool
    detail: str


def check_database(path: Path, busy_timeout_s: float = 5.0) -> list[Check]:
    """Whether the database file can be read and written, its schema is current and it is
    whole (its pages and its tables).

    Never creates the file. A write is tried with ``BEGIN IMMEDIATE`` (which takes the
    write lock) followed by a rollback, so nothing changes.
    """
    if not path.exists():
        return [
            Check("database", False, f"{path} does not exist yet (the bot creates it on start)")
        ]
    try:
        conn = sqlite3.connect(
            f"{path.resolve().as_uri()}?mode=rw", uri=True, timeout=busy_timeout_s
        )
    except sqlite3.Error as exc:
        return [Check("database", False, f"{path} cannot be opened ({exc})")]
    try:
        conn.isolation_level = None  # we issue BEGIN ourselves
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            found = sqlite_recorded(conn)
        except sqlite3.Error as exc:
            return [Check("database", False, f"{path} cannot be read ({exc})")]
        try:
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("ROLLBACK")
        except sqlite3.Error as exc:
            return [Check("database", False, f"{path} cannot be written ({exc})")]
        checks = [Check("database", True, f"{path} is readable and writable"), schema_check(found)]
        if not found.too_new:
            checks.append(_sqlite_integrity(conn, path, found))
    finally:
        conn.close()
    return checks


def _sqlite_integrity(conn: sqlite3.Connection, path: Path, found: Recorded) -> Check:
    """SQLite's quick check (every page of every table and index read and well formed),
    then the tables against the schema."""
    try:
        problems = [str(row[0]) for row in conn.execute("PRAGMA quick_check").fetchall()]
    except sqlite3.Error as exc:
        return Check("integrity", False, f"{path} is damaged ({exc})")
    if problems != ["ok"]:
        shown = "; ".join(problems[:3]) + ("; …" if len(problems) > 3 else "")
        return Check("integrity", False, f"{path} is damaged ({shown})")
    try:
        columns: dict[str, set[str]] = {}
        for (table,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'"):
            rows = conn.execute(f'PRAGMA table_info("{table}")').fetchall()
            columns[str(table)] = {str(row[1]) for row in rows}
    except sqlite3.Error as exc:
        return Check("integrity", False, f"{path} is damaged ({exc})")
    return tables_check(columns, found)


def tables_check(columns: dict[str, set[str]], found: Recorded) -> Check:
    """The database's tables and their columns (`columns`) against `storage.schema`'s: a
    table or a column missing fails. Only at the current version (an older schema is the
    bot's to upgrade, `schema_check` says so)."""
    if found.version != latest_version():
        return Check("integrity", True, "the pages are whole; the tables are checked once current")
    missing: list[str] = []
    for table in metadata.sorted_tables:
        have = columns.get(table.name)
        if have is None:
            missing.append(f"table {table.name}")
            continue
        missing.extend(f"column {table.name}.{c.name}" for c in table.columns if c.name not in have)
    if missing:
        return Check(
            "integrity",
            False,
            f"the schema is incomplete: {_listed(missing)} missing; restore a backup",
        )
    return Check("integrity", True, f"every one of the schema's {_count()} tables is whole")


def _listed(items: Iterable[str]) -> str:
    shown = list(items)
    return ", ".join(shown[:5]) + (f" and {len(shown) - 5} more" if len(shown) > 5 else "")


def _count() -> int:
    return len(metadata.sorted_tables)


async def check_postgres(url: str, timeout_s: float = 5.0) -> list[Check]:
    """Whether the PostgreSQL database answers, takes writes (it is not a standby in
    recovery, and the bot's user may insert moves), has the current schema (read as the
    bot's open reads it) and every table and column of it."""
    import asyncpg

    from storage.postgres import CONNECT_ERRORS, describe, unreachable

    where = describe(url)
    try:
        conn = await asyncpg.connect(url, timeout=timeout_s)
    except CONNECT_ERRORS as error:
        return [Check("database", False, str(unreachable(url, error)))]
    try:
        revision = None
        if await conn.fetchval("SELECT to_regclass('alembic_version') IS NOT NULL"):
            found_revision = await conn.fetchval("SELECT version_num FROM alembic_version")
            revision = str(found_revision) if found_revision is not None else None
        legacy = 0
        if await conn.fetchval("SELECT to_regclass('schema_version') IS NOT NULL"):
            legacy = int(await conn.fetchval("SELECT version FROM schema_version") or 0)
        if revision is None and legacy == 0:
            return [Check("database", False, f"{where} has no schema yet (the bot creates it)")]
        if await conn.fetchval("SELECT pg_is_in_recovery()"):
            return [Check("database", False, f"{where} is a read-only standby")]
        # (A missing `moves` is the tables check's to say.)
        if not await conn.fetchval(
            "SELECT CASE WHEN to_regclass('moves') IS NULL THEN true"
            " ELSE has_table_privilege('moves', 'INSERT') END"
        ):
            return [Check("database", False, f"{where} does not let this user write moves")]
        found = recorded(revision, legacy)
        tables = await _postgres_tables(conn, found) if not found.too_new else []
    except asyncpg.PostgresError as error:
        return [Check("database", False, f"{where} cannot be read ({error})")]
    finally:
        await conn.close()
    return [
        Check("database", True, f"{where} is readable and writable"),
        schema_check(found),
        *tables,
    ]


async def _postgres_tables(conn: asyncpg.Connection, found: Recorded) -> list[Check]:
    rows = await conn.fetch(
        "SELECT table_name, column_name FROM information_schema.columns"
        " WHERE table_schema = current_schema()"
    )
    columns: dict[str, set[str]] = {}
    for row in rows:
        columns.setdefault(str(row["table_name"]), set()).add(str(row["column_name"]))
    return [tables_check(columns, found)]


def schema_check(found: Recorded) -> Check:
    """The schema's version, as the bot's open reads it, against the newest this code
    knows."""
    latest = latest_version()
    version = found.version
    if found.too_new:
        return Check(
            "schema",
            False,
            f"schema version {version} is newer than {latest}, or not this bot's; upgrade the bot",
        )
    if version == latest:
        return Check("schema", True, f"schema version {version} is current")
    return Check(
        "schema",
        False,
        f"schema version {version} is older than {latest}; the bot upgrades it when it starts",
    )
