"""A database's schema as plain data, to compare two databases exactly: every table's
columns (in order, with type, nullability and default), keys, foreign keys, unique and
CHECK constraints, indexes (with their WHERE and expressions), and the triggers and
functions that guard the journal. Reads the catalogs, never the code that made them."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any

import asyncpg

IGNORED = ("alembic_version", "schema_version")
"""Bookkeeping of a schema's version, not part of the schema."""


def _spaces(sql: str) -> str:
    return re.sub(r"\s+", " ", sql).strip()


def _expression(sql: str) -> str:
    """An index's or CHECK's text without the spelling that does not change it (case,
    spaces, grouping parentheses, quotes around names)."""
    return re.sub(r"[\s()\"`]", "", sql).lower()


def describe_sqlite(path: Path) -> dict[str, Any]:
    with sqlite3.connect(path) as db:
        objects = db.execute(
            "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"
        ).fetchall()
        described: dict[str, Any] = {}
        for kind, name, table, sql in sorted(objects):
            if table in IGNORED:
                continue
            if kind == "table":
                described[f"table {name}"] = _sqlite_table(db, name, sql)
            elif kind == "index" and sql is not None:
                # The CREATE INDEX statement itself: columns, expressions, DESC, WHERE.
                described[f"index {name}"] = (table, _expression(sql.split(" ON ", 1)[1]))
                described[f"index {name} unique"] = sql.upper().startswith("CREATE UNIQUE")
            elif kind == "trigger":
                described[f"trigger {name}"] = (table, _spaces(sql))
        return described


def _sqlite_table(db: sqlite3.Connection, name: str, sql: str) -> dict[str, Any]:
    columns = db.execute(f"PRAGMA table_xinfo({name})").fetchall()
    key = [c[1] for c in sorted(columns, key=lambda c: c[5]) if c[5]]
    without_rowid = bool(re.search(r"WITHOUT\s+ROWID\s*$", sql, re.IGNORECASE))
    # A rowid table's INTEGER PRIMARY KEY is its row id: never NULL, declared or not.
    row_id = None if without_rowid or len(key) != 1 else key[0]
    return {
        "columns": [(c[1], c[2].upper(), bool(c[3]) or c[1] == row_id, c[4]) for c in columns],
        "primary key": key,
        "without rowid": without_rowid,
        "foreign keys": sorted(
            (f[2], f[3], f[4], f[1]) for f in db.execute(f"PRAGMA foreign_key_list({name})")
        ),
        "unique": sorted(
            tuple(c[2] for c in db.execute(f"PRAGMA index_info({i[1]})"))
            for i in db.execute(f"PRAGMA index_list({name})")
            if i[3] == "u"
        ),
        "checks": sorted(_expression(check) for check in _sqlite_checks(sql)),
    }


def _sqlite_checks(sql: str) -> list[str]:
    """The CHECK expressions in a CREATE TABLE statement, in any spelling of it."""
    found = []
    for match in re.finditer(r"\bCHECK\s*\(", sql, re.IGNORECASE):
        depth, start = 1, match.end()
        for at in range(start, len(sql)):
            depth += {"(": 1, ")": -1}.get(sql[at], 0)
            if depth == 0:
                found.append(sql[start:at])
                break
    return found


async def describe_postgres(url: str) -> dict[str, Any]:
    connection = await asyncpg.connect(url)
    try:
        described: dict[str, Any] = {}
        for row in await connection.fetch(
            "SELECT table_name, column_name, ordinal_position, data_type, is_nullable,"
            " column_default, is_identity, identity_generation"
            " FROM information_schema.columns WHERE table_schema = 'public'"
            " ORDER BY table_name, ordinal_position"
        ):
            if row["table_name"] not in IGNORED:
                described.setdefault(f"table {row['table_name']}", []).append(tuple(row))
        for row in await connection.fetch(
            "SELECT c.conrelid::regclass::text AS on_table, c.conname, c.contype,"
            " pg_get_constraintdef(c.oid) AS definition"
            " FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace"
            " WHERE n.nspname = 'public'"
        ):
            if row["on_table"] not in IGNORED:
                described[f"constraint {row['conname']}"] = (
                    row["on_table"],
                    row["contype"],
                    row["definition"],
                )
        for row in await connection.fetch(
            "SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'"
        ):
            if row["tablename"] not in IGNORED:
                described[f"index {row['indexname']}"] = row["indexdef"]
        for row in await connection.fetch(
            "SELECT tgname, pg_get_triggerdef(t.oid) AS definition FROM pg_trigger t"
            " WHERE NOT tgisinternal"
        ):
            described[f"trigger {row['tgname']}"] = row["definition"]
        for row in await connection.fetch(
            "SELECT p.proname, p.prosrc FROM pg_proc p"
            " JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public'"
        ):
            described[f"function {row['proname']}"] = _spaces(row["prosrc"])
        return described
    finally:
        await connection.close()


def differences(left: dict[str, Any], right: dict[str, Any]) -> dict[str, Any]:
    """What differs, by object: (left's, right's); empty when the schemas are the same."""
    return {
        name: (left.get(name), right.get(name))
        for name in sorted(left.keys() | right.keys())
        if left.get(name) != right.get(name)
    }
