"""The database's own health check: readable, writable and at the current schema.

Used by ``hearts-bot check`` and ``GET /healthz`` (`bot.telegram.health`); it opens the file
with the standard library, without the bot's connection, so it can run beside the bot.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from storage.migrations import LATEST_VERSION


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
    checks = [Check("database", True, f"{path} is readable and writable")]
    if version == LATEST_VERSION:
        checks.append(Check("schema", True, f"schema version {version} is current"))
    elif version < LATEST_VERSION:
        checks.append(
            Check(
                "schema",
                False,
                f"schema version {version} is older than {LATEST_VERSION}; "
                "the bot upgrades it when it starts",
            )
        )
    else:
        checks.append(
            Check(
                "schema",
                False,
                f"schema version {version} is newer than {LATEST_VERSION}; upgrade the bot",
            )
        )
    return checks
