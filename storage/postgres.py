"""PostgreSQL through asyncpg: the same storage as SQLite, for organisers who run the
database on its own server (``DATABASE_URL=postgresql://…``).

The queries are `SqliteStorage`'s, written in the SQL both databases speak; `translate`
turns the few SQLite spellings left (``?`` parameters, ``INSERT OR IGNORE``, ``IS ?``, its
JSON functions) into PostgreSQL's, once per query text. What differs is below: a pool of
connections and transactions. The schema is `storage.schema`'s, created and upgraded by
Alembic (`storage.upgrade`); the move journal is append-only in the database, as in
SQLite: a trigger refuses every UPDATE, DELETE and TRUNCATE of ``moves``.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import re
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from decimal import Decimal
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

import asyncpg

from engine import Game, Move

from .errors import StorageError, StorageUnavailable
from .models import RebuildReport
from .sqlite import SqliteStorage
from .upgrade import upgrade_schema

log = logging.getLogger(__name__)

POOL_SIZE: Final = 4


# ---------------------------------------------------------------- SQL spelled for PostgreSQL

_SEATS_SQLITE = re.compile(
    r"\(SELECT json_group_array\(json_array\(([^)]*)\)\)\s*"
    r"FROM \(SELECT \* FROM game_seats s WHERE s\.game_id = g\.id ORDER BY s\.seat\)\)"
)
_JSON_FIELD = re.compile(r"json_extract\((\w+), '\$\.(\w+)'\)")


@functools.lru_cache(maxsize=512)
def translate(sql: str) -> str:
    """A query as PostgreSQL spells it: ``$1`` for the n-th ``?`` (outside quotes), and
    SQLite's other spellings in this code base replaced."""
    sql = _SEATS_SQLITE.sub(
        r"(SELECT COALESCE(json_agg(json_build_array(\1) ORDER BY s.seat), '[]'::json)"
        r" FROM game_seats s WHERE s.game_id = g.id)",
        sql,
    )
    sql = _JSON_FIELD.sub(r"((\1::jsonb) ->> '\2')::bigint", sql)
    sql = sql.replace(" IS ?", " IS NOT DISTINCT FROM ?")
    if "INSERT OR IGNORE INTO" in sql:
        sql = sql.replace("INSERT OR IGNORE INTO", "INSERT INTO") + " ON CONFLICT DO NOTHING"
    out, n, quoted = [], 0, False
    for char in sql:
        if char == "'":
            quoted = not quoted
        if char == "?" and not quoted:
            n += 1
            out.append(f"${n}")
        else:
            out.append(char)
    return "".join(out)


def _value(value: Any) -> Any:
    """SQLite's kind of value: PostgreSQL's SUM of integers is a numeric."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value


def _rows(records: Iterable[asyncpg.Record]) -> list[tuple[Any, ...]]:
    return [tuple(_value(v) for v in record) for record in records]


class _Cursor:
    """What `SqliteStorage` reads of a cursor: rows changed, and a RETURNING row."""

    def __init__(self, rowcount: int, rows: list[tuple[Any, ...]]) -> None:
        self.rowcount = rowcount
        self._rows = rows

    async def fetchone(self) -> tuple[Any, ...] | None:
        return self._rows[0] if self._rows else None


class PgConnection:
    """An asyncpg connection inside a transaction, with the calls `SqliteStorage` makes of
    an aiosqlite one."""

    in_transaction = True

    def __init__(self, connection: asyncpg.Connection) -> None:
        self.connection = connection

    async def execute(self, sql: str, parameters: Sequence[Any] = ()) -> _Cursor:
        query = translate(sql)
        if "RETURNING" in query:
            rows = _rows(await self.connection.fetch(query, *parameters))
            return _Cursor(len(rows), rows)
        status = await self.connection.execute(query, *parameters)
        count = status.rsplit(" ", 1)[-1]
        return _Cursor(int(count) if count.isdigit() else 0, [])

    async def execute_fetchall(
        self, sql: str, parameters: Sequence[Any] = ()
    ) -> list[tuple[Any, ...]]:
        return _rows(await self.connection.fetch(translate(sql), *parameters))

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        await self.connection.executemany(translate(sql), list(rows))


def describe(url: str) -> str:
    """The address without its password, for messages and logs."""
    parts = urlsplit(url)
    host = parts.hostname or "localhost"
    port = f":{parts.port}" if parts.port else ""
    return f"postgresql://{parts.username + '@' if parts.username else ''}{host}{port}{parts.path}"


def unreachable(url: str, error: BaseException) -> StorageError:
    """Why a connection to `url` failed, as one sentence (never the password)."""
    where = describe(url)
    if isinstance(error, asyncpg.InvalidPasswordError):
        return StorageError(f"PostgreSQL at {where} refused the user name or password.")
    if isinstance(error, asyncpg.InvalidCatalogNameError):
        return StorageError(f"PostgreSQL at {where}: that database does not exist.")
    if isinstance(error, asyncpg.PostgresError):
        return StorageError(f"PostgreSQL at {where} refused the connection ({error}).")
    return StorageError(
        f"PostgreSQL at {where} cannot be reached ({type(error).__name__}: {error})."
    )


CONNECT_ERRORS: Final = (OSError, asyncio.TimeoutError, asyncpg.PostgresError)


async def connect_pool(url: str) -> asyncpg.Pool:
    """A pool to `url`, or a `StorageError` saying why not in one sentence."""
    try:
        return await asyncpg.create_pool(url, min_size=1, max_size=POOL_SIZE, timeout=10)
    except CONNECT_ERRORS as error:
        raise unreachable(url, error) from None


class _GameLock:
    """One game's moves in order; dropped when nobody holds or waits for it."""

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.users = 0


class PostgresStorage(SqliteStorage):
    """The PostgreSQL implementation of `storage.repository.Storage`. Open with `open`.

    Write transactions run side by side (their commits share the disk's flushes): a move
    locks its game's row, so one game's moves still go one at a time in order, and the
    moves that finish a game go one at a time in this process (ratings number the games in
    the order they were rated)."""

    LOCK_ROW = " FOR UPDATE"

    def __init__(self, url: str, pool: asyncpg.Pool) -> None:
        self.path = describe(url)
        self.pool = pool
        self._write_lock = asyncio.Lock()
        """Held by a move that finishes a game, and by a rebuild of the ratings."""
        self._game_locks: dict[int, _GameLock] = {}
        self.write_failure: str | None = None

    @classmethod
    async def open(cls, path: str | Path, *, synchronous: str = "NORMAL") -> PostgresStorage:
        """Connect to the database at the URL `path` and create or upgrade its schema
        (`storage.upgrade.upgrade_schema`)."""
        url = str(path)
        pool = await connect_pool(url)
        try:
            await upgrade_schema(url)
        except BaseException:
            await pool.close()
            raise
        return cls(url, pool)

    async def close(self) -> None:
        async with self._write_lock:
            await self.pool.close()

    async def record_move(
        self,
        game_id: int,
        move: Move,
        game_after: Game,
        meta: dict[str, Any] | None = None,
        *,
        stand_in: bool = False,
    ) -> int:
        """As SQLite's, one game's moves in the order they were asked for (a lock per
        game; the row lock keeps other processes out), games side by side."""
        entry = self._game_locks.setdefault(game_id, _GameLock())
        entry.users += 1
        try:
            async with entry.lock:
                if game_after.phase != "over":
                    return await super().record_move(
                        game_id, move, game_after, meta, stand_in=stand_in
                    )
                async with self._write_lock:
                    return await super().record_move(
                        game_id, move, game_after, meta, stand_in=stand_in
                    )
        finally:
            entry.users -= 1
            if not entry.users:
                del self._game_locks[game_id]

    async def cancel_game(self, game_id: int) -> bool:
        """As SQLite's; one at a time with the moves that finish a game (it may rate)."""
        async with self._write_lock:
            return await super().cancel_game(game_id)

    async def rebuild_ratings(self) -> RebuildReport:
        async with self._write_lock:
            return await super().rebuild_ratings()

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[PgConnection]:  # type: ignore[override]
        """One write transaction: commits when the block ends (durable before this
        returns: ``synchronous_commit`` stays on), rolls back on error."""
        try:
            async with self.pool.acquire() as connection, connection.transaction():
                yield PgConnection(connection)
        except (OSError, asyncpg.PostgresConnectionError, asyncpg.InterfaceError) as error:
            self.write_failure = str(error)
            raise StorageUnavailable(f"the database cannot be written: {error}") from error
        except asyncpg.DiskFullError as error:
            self.write_failure = str(error)
            raise StorageUnavailable(f"the database cannot be written: {error}") from error
        self.write_failure = None

    async def _read(self, sql: str, parameters: Sequence[Any] = ()) -> list[Any]:
        async with self.pool.acquire() as connection:
            return _rows(await connection.fetch(translate(sql), *parameters))

    async def backup(self, dest_path: str | Path) -> None:
        raise StorageError(
            "A PostgreSQL database is backed up with pg_dump (see deploy/GUIDE.md), not with "
            "hearts-bot backup."
        )


# ---------------------------------------------------------------- leader and standby

LEADER_LOCK: Final = 0x4845_4152  # "HEAR": the advisory lock the leading process holds
KEEPALIVE: Final = {
    # The server notices a leader whose machine stopped answering within about 6 s
    # (3 s idle, then 3 probes a second apart), and frees its lock for the standby.
    "tcp_keepalives_idle": "3",
    "tcp_keepalives_interval": "1",
    "tcp_keepalives_count": "3",
    # A leader that hangs (its machine still answers TCP, the process does not) stops
    # asking `Leadership.watch`'s every-2-s question: the server ends its idle session
    # after 6 s, and so frees the lock too.
    "idle_session_timeout": "6000",
}


class Leadership:
    """This process's hold on the leader lock: a session advisory lock on a connection of
    its own, held until the process (or its connection) dies. Two bot processes pointed at
    one database: exactly one holds it and serves Telegram; the other waits in `wait`."""

    def __init__(self, connection: asyncpg.Connection, name: str) -> None:
        self.connection = connection
        self.name = name

    @classmethod
    async def wait(
        cls, url: str, name: str, waiting: Callable[[str | None], None] | None = None
    ) -> Leadership:
        """Take the lock, waiting as long as another process holds it (`waiting` is told
        who, once). `name` shows in ``pg_stat_activity`` (and in `holder`)."""
        settings = {"application_name": name[:63], **KEEPALIVE}
        try:
            connection = await asyncpg.connect(url, server_settings=settings, timeout=10)
        except CONNECT_ERRORS as error:
            raise unreachable(url, error) from None
        try:
            if not await connection.fetchval("SELECT pg_try_advisory_lock($1)", LEADER_LOCK):
                if waiting is not None:
                    waiting(await holder_on(connection))
                await connection.execute("SELECT pg_advisory_lock($1)", LEADER_LOCK)
        except BaseException:
            await connection.close()
            raise
        return cls(connection, name)

    async def watch(self, lost: Callable[[], None], every: float = 2.0) -> None:
        """Check the lock's connection every `every` seconds; `lost` is called once when it
        no longer answers (the database went away: another process may lead now)."""
        while True:
            await asyncio.sleep(every)
            try:
                await asyncio.wait_for(self.connection.fetchval("SELECT 1"), timeout=5)
            except Exception as error:  # whatever it is, the lock can no longer be trusted
                log.error("the leader lock's connection failed: %s", error)
                lost()
                return

    async def release(self) -> None:
        if not self.connection.is_closed():
            await self.connection.close()


async def holder_on(connection: asyncpg.Connection) -> str | None:
    """The name of the process that holds the leader lock, if one does."""
    name = await connection.fetchval(
        "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
        " WHERE l.locktype = 'advisory' AND l.granted AND l.classid = 0 AND l.objid = $1",
        LEADER_LOCK,
    )
    return str(name) if name is not None else None


async def leader(url: str) -> str | None:
    """Who leads on the database at `url` (for ``hearts-bot check``)."""
    try:
        connection = await asyncpg.connect(url, timeout=5)
    except CONNECT_ERRORS as error:
        raise unreachable(url, error) from None
    try:
        return await holder_on(connection)
    finally:
        await connection.close()
