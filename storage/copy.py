"""Moving a database: every row of a SQLite database into an empty PostgreSQL one, then
every game replayed from the copy to prove it.

    hearts-bot copy-db SQLITE_PATH postgresql://…

The SQLite file is first brought to the current schema (as the bot would on start), then
read table by table in an order that keeps every reference valid; the PostgreSQL database
must be empty (its schema is created here) and the copy is one transaction: a failure
leaves it empty again. Ids are kept, and the id sequences continue after the largest.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Table, exists, false, func, inspect, select
from sqlalchemy.dialects.postgresql.asyncpg import dialect as asyncpg_dialect
from sqlalchemy.exc import DBAPIError

from . import schema
from .database import Database, Query, _Positional
from .errors import StorageError
from .postgres import describe
from .store import Storage

TABLES: tuple[Table, ...] = (
    schema.chats,
    schema.users,
    schema.person_languages,
    schema.chat_languages,
    schema.tournaments,
    schema.games,
    schema.game_seats,
    schema.live_seats,
    schema.table_screens,
    schema.moves,
    schema.hand_points,
    schema.game_results,
    schema.tournament_registrations,
    schema.tournament_tables,
    schema.tournament_seats,
    schema.tournament_claims,
    schema.ratings,
    schema.rated_games,
    schema.rating_changes,
    schema.handled_updates,
    schema.daily_secret,
    schema.daily_games,
    schema.daily_posts,
    schema.accounts,
    schema.served_chats,
    schema.served_chats_told,
    schema.open_dms,
)
"""Every table, each after the ones it refers to."""
KEPT: tuple[Table, ...] = (schema.games, schema.chats, schema.users, schema.tournaments)
"""A database with a row in one of these is not empty: copy-db refuses to write into it."""
BATCH = 5000
"""Rows sent to PostgreSQL in one go."""


@functools.cache
def _statements() -> dict[Table, tuple[Query, _Positional]]:
    """Each table's rows read (a `Query`: SQLite's own tuples) and inserted (compiled
    once for asyncpg, run on its connection): the same Core expressions, without
    SQLAlchemy's work around each of a hundred thousand rows, which doubled the copy."""
    dialect = asyncpg_dialect()  # type: ignore[no-untyped-call]
    return {
        table: (Query(select(table)), _Positional(table.insert().compile(dialect=dialect)))
        for table in TABLES
    }


@dataclass(frozen=True)
class CopyReport:
    rows: dict[str, int]
    games_replayed: int
    games_quarantined_before: int


async def copy_database(source: str | Path, url: str, *, prove: bool = True) -> CopyReport:
    """Copy the SQLite database `source` into the empty PostgreSQL database `url`; then,
    unless `prove` is False (benchmarks of hand-made rows), replay every game from it."""
    path = Path(source)
    if not path.is_file():
        raise StorageError(f"There is no SQLite database at {path}.")
    # At the current schema, as the bot runs it.
    source_db = await Database.open(path)
    try:
        where = describe(url)
        held = await _holds_rows(url)
        if held is not None:
            raise StorageError(
                f"{where} already holds {held}: copy-db writes only into an empty database."
            )
        target = await Database.open(url)
        try:
            # One transaction on asyncpg's own connection.
            rows = await target.on_driver(_copy_rows, source_db)
        finally:
            await target.close()
    finally:
        await source_db.close()
    return await _prove(url, rows) if prove else CopyReport(rows, 0, 0)


async def _copy_rows(driver: Any, source_db: Database) -> dict[str, int]:
    """Every kept table's rows from `source_db` into asyncpg's connection `driver`, in
    batches; then the ids go on after the largest copied. How many rows, by table."""
    rows: dict[str, int] = {}
    for table in TABLES:
        read, insert = _statements()[table]
        data = await source_db.read(read)
        rows[table.name] = len(data)
        for start in range(0, len(data), BATCH):
            batch = data[start : start + BATCH]
            await driver.executemany(insert.sql, _in_order(insert, table, batch))
    for set_sequence in _sequences():
        await driver.execute(set_sequence.sql, *set_sequence.values({}))
    return rows


@functools.cache
def _sequences() -> list[_Positional]:
    """The games' and tournaments' id sequences set after their largest id, compiled once
    for asyncpg."""
    dialect = asyncpg_dialect()  # type: ignore[no-untyped-call]
    statements = []
    for table in (schema.games, schema.tournaments):
        largest = select(func.coalesce(func.max(table.c.id), 0) + 1).scalar_subquery()
        statement = select(
            func.setval(func.pg_get_serial_sequence(table.name, "id"), largest, false())
        )
        statements.append(_Positional(statement.compile(dialect=dialect)))
    return statements


def _in_order(insert: _Positional, table: Table, rows: Sequence[Sequence[Any]]) -> Sequence[Any]:
    """`rows` (each a row of `table`, its columns in order) as `insert`'s values."""
    if insert.takes_as_they_are(column.key for column in table.columns):
        return rows
    keys = [column.key for column in table.columns]
    return [insert.values(dict(zip(keys, row, strict=True))) for row in rows]


async def _holds_rows(url: str) -> str | None:
    """The first kept table of `url` that holds a row (None: the database is empty)."""
    from .database import connect_error, postgres_engine
    from .postgres import CONNECT_ERRORS, unreachable

    engine = postgres_engine(url)
    try:
        async with engine.connect() as connection:
            names = await connection.run_sync(lambda sync: set(inspect(sync).get_table_names()))
            for table in KEPT:
                if table.name in names and await connection.scalar(
                    select(exists().select_from(table))
                ):
                    return table.name
    except (DBAPIError, *CONNECT_ERRORS) as error:
        raise unreachable(url, connect_error(error)) from None
    finally:
        await engine.dispose()
    return None


async def _prove(url: str, rows: dict[str, int]) -> CopyReport:
    """Every game that has a journal replays, from the copy, to its stored snapshot."""
    store = await Storage.open(url)
    try:
        proved = await store.maintenance.prove_replays()
    finally:
        await store.close()
    return CopyReport(rows, proved.games, proved.quarantined)
