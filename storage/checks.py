"""The database's own health check: readable, writable and at the current schema.

Used by ``hearts-bot check`` and ``GET /healthz`` (`bot.telegram.health`); it opens the file
with the standard library, without the bot's connection, so it can run beside the bot.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from storage.upgrade import latest_version


@dataclass(frozen=True)
class Check:
    """One check's outcome; `detail` says what was found, in one short sentence."""

    name: str
    ok: bool
    detail: str


def check_database(path: Path, busy_timeout_s: float = 5.0) -> list[Check]:
    """Whether the database file can be read and written, and its schema is current.

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
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.Error as exc:
            return [Check("database", False, f"{path} cannot be read ({exc})")]
        try:
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("ROLLBACK")
        except sqlite3.Error as exc:
            return [Check("database", False, f"{path} cannot be written ({exc})")]
    finally:
        conn.close()
    return [Check("database", True, f"{path} is readable and writable"), schema_check(version)]


async def check_postgres(url: str, timeout_s: float = 5.0) -> list[Check]:
    """Whether the PostgreSQL database answers, takes writes (it is not a standby in
    recovery, and the bot's user may insert moves) and has the current schema."""
    import asyncpg

    from storage.postgres import CONNECT_ERRORS, describe, unreachable

    where = describe(url)
    try:
        conn = await asyncpg.connect(url, timeout=timeout_s)
    except CONNECT_ERRORS as error:
        return [Check("database", False, str(unreachable(url, error)))]
    try:
        if not await conn.fetchval("SELECT to_regclass('schema_version') IS NOT NULL"):
            return [Check("database", False, f"{where} has no schema yet (the bot creates it)")]
        version = int(await conn.fetchval("SELECT version FROM schema_version"))
        if await conn.fetchval("SELECT pg_is_in_recovery()"):
            return [Check("database", False, f"{where} is a read-only standby")]
        if not await conn.fetchval("SELECT has_table_privilege('moves', 'INSERT')"):
            return [Check("database", False, f"{where} does not let this user write moves")]
    except asyncpg.PostgresError as error:
        return [Check("database", False, f"{where} cannot be read ({error})")]
    finally:
        await conn.close()
    return [Check("database", True, f"{where} is readable and writable"), schema_check(version)]


def schema_check(version: int) -> Check:
    """The schema's version (as the database says where code before Alembic read it too)
    against the newest this code knows."""
    latest = latest_version()
    if version == latest:
        return Check("schema", True, f"schema version {version} is current")
    if version < latest:
        return Check(
            "schema",
            False,
            f"schema version {version} is older than {latest}; the bot upgrades it when it starts",
        )
    return Check(
        "schema",
        False,
        f"schema version {version} is newer than {latest}; upgrade the bot",
    )
