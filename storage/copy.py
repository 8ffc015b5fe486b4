"""Moving a database: every row of a SQLite database into an empty PostgreSQL one, then
every game replayed from the copy to prove it.

    hearts-bot copy-db SQLITE_PATH postgresql://…

The SQLite file is first brought to the current schema (as the bot would on start), then
read table by table in an order that keeps every reference valid; the PostgreSQL database
must be empty (its schema is created here) and the copy is one transaction: a failure
leaves it empty again. Ids are kept, and the id sequences continue after the largest.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from .errors import StorageError
from .postgres import PgConnection, PostgresStorage, connect_pool, describe
from .replay import ReplayError, same_state
from .sqlite import SqliteStorage
from .upgrade import upgrade_schema

TABLES = (
    "chats",
    "users",
    "person_languages",
    "chat_languages",
    "tournaments",
    "games",
    "game_seats",
    "moves",
    "hand_points",
    "game_results",
    "tournament_registrations",
    "tournament_tables",
    "tournament_seats",
    "tournament_claims",
    "ratings",
    "rated_games",
    "rating_changes",
    "handled_updates",
)
"""Every table, each after the ones it refers to."""
KEPT: tuple[str, ...] = ("games", "chats", "users", "tournaments")
"""A database with a row in one of these is not empty: copy-db refuses to write into it."""


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
    await (await SqliteStorage.open(path)).close()  # at the current schema, as the bot runs it
    where = describe(url)
    pool = await connect_pool(url)
    try:
        async with pool.acquire() as connection:
            exists = await connection.fetchval("SELECT to_regclass('games') IS NOT NULL")
            if exists:
                for table in KEPT:
                    if await connection.fetchval(f"SELECT EXISTS (SELECT 1 FROM {table})"):
                        raise StorageError(
                            f"{where} already holds {table}: copy-db writes only into an "
                            "empty database."
                        )
            await upgrade_schema(url)
            rows: dict[str, int] = {}
            with sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True) as source_db:
                async with connection.transaction():
                    target = PgConnection(connection)
                    for table in TABLES:
                        cursor = source_db.execute(f"SELECT * FROM {table}")
                        columns = [d[0] for d in cursor.description]
                        data = cursor.fetchall()
                        rows[table] = len(data)
                        if data:
                            marks = ", ".join("?" * len(columns))
                            await target.executemany(
                                f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})",
                                data,
                            )
                    for table in ("games", "tournaments"):
                        await connection.execute(
                            f"SELECT setval(pg_get_serial_sequence('{table}', 'id'),"
                            f" COALESCE((SELECT MAX(id) FROM {table}), 0) + 1, false)"
                        )
    finally:
        await pool.close()
    return await _prove(url, rows) if prove else CopyReport(rows, 0, 0)


async def _prove(url: str, rows: dict[str, int]) -> CopyReport:
    """Every game that has a journal replays, from the copy, to its stored snapshot."""
    store = await PostgresStorage.open(url)
    try:
        games = await store._read(
            "SELECT id, status, snapshot FROM games WHERE snapshot IS NOT NULL ORDER BY id"
        )
        replayed = quarantined = 0
        for game_id, status, snapshot in games:
            if status == "quarantined":
                quarantined += 1  # set aside in the source for a reason: copied as it is
                continue
            try:
                game = await store.replay(game_id)
            except ReplayError as error:
                raise StorageError(
                    f"game {game_id} does not replay from the copy: {error}"
                ) from None
            if not same_state(game.to_json(), snapshot):
                raise StorageError(f"game {game_id} replays from the copy to another game")
            replayed += 1
    finally:
        await store.close()
    return CopyReport(rows, replayed, quarantined)
