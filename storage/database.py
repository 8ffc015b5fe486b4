"""The database under every repository: one SQLAlchemy `AsyncEngine`, SQLite (aiosqlite)
or PostgreSQL (asyncpg), with its transactions and the few spellings that differ.

SQLite. One writer connection, used only under an `asyncio.Lock`, so no two coroutines
ever share a transaction; every write is ``BEGIN IMMEDIATE`` ... ``COMMIT`` (``ROLLBACK``
on any error). One reader connection, separate and ``query_only``, so that in WAL mode
reads never wait for a write in progress. Both: WAL, ``foreign_keys=ON``, a busy timeout,
set as each connection opens.

One way to write, one way to read. A write is `Database.transact`: a function given a
synchronous SQLAlchemy connection, run as one transaction; a read is `Database.read`: one
query's rows. On SQLite each goes to its connection's aiosqlite thread once, so a write
costs one wake-up of the thread and of the event loop, not one a statement; and the
writes asked for while one is in the thread go there together, each still its own
transaction (`_write_turns`), so under load a write does not wait for others' wake-ups.

Two fast paths, kept because ``./dev bench storage`` shows they pay. A move's
statements (`on_sqlite3`, `on_driver`, used by `storage.journal`) are compiled once from
their Core expressions and run on the driver's own connection, without SQLAlchemy's work
around each (measured on SQLite: a move's commit p50 0.5 ms against 0.8-2 ms through
`transact`, 8 tables 550-900 moves/s against 420-530); copy-db's bulk load uses the
same. A read of several queries (`read_together`: a game's score table, the rating board)
is one trip. The standings' and ratings' reads (`Query`) are compiled once the same way,
inside `read`.

Durability. WAL with ``synchronous=NORMAL`` by default: a commit is in the WAL file (in
the operating system's hands) before `Journal.record_move` returns, so an acknowledged
move survives the bot being killed, crashing or redeployed at any instant; the test kills a
writer with SIGKILL mid-stream to check it. What NORMAL does not promise is a power cut or
kernel crash in the second or so before the OS writes the WAL out: that can lose the last
moves (never corrupt the database). ``synchronous="FULL"`` closes that gap by fsyncing
every commit, at about a quarter of the write rate, so it is an option for hosts that need
it, not the default.

PostgreSQL. A pool of connections; write transactions run side by side (their commits
share the disk's flushes): a move locks its game's row, so one game's moves still go one
at a time in order, and the writes that rate a game go one at a time in this process
(`serial`: ratings number the games in the order they were rated). Commits are durable on
the server before they return (``synchronous_commit`` stays on).

Where the dialects spell a thing differently (an upsert, a JSON field), both spellings
stand side by side below and `Database.dialect` chooses; no SQL text is ever rewritten.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import sqlite3
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Concatenate, Final, Literal, NoReturn, ParamSpec, TypeVar, overload

from sqlalchemy import (
    BigInteger,
    ColumnElement,
    Connection,
    Executable,
    Row,
    StaticPool,
    Table,
    bindparam,
    cast,
    create_engine,
    event,
    func,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.engine import URL
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.pool import PoolProxiedConnection
from sqlalchemy.util import greenlet_spawn

from .errors import StorageError, StorageUnavailable
from .sqlite_driver import OneTripDBAPI

log = logging.getLogger(__name__)

BUSY_TIMEOUT_MS: Final = 5000
POOL_SIZE: Final = 4
POOL_TIMEOUT_S = 30.0
"""PostgreSQL: how long a write or a read waits for one of the pool's connections."""
CONNECT_TIMEOUT_S = 10.0
"""PostgreSQL: how long a new connection may take (the server unreachable, or silent)."""
Synchronous = Literal["FULL", "NORMAL"]
Dialect = Literal["sqlite", "postgresql"]
P = ParamSpec("P")
T = TypeVar("T")


def now_ms() -> int:
    """Now, in the epoch milliseconds every stored time is kept in."""
    return time.time_ns() // 1_000_000


def is_postgres(path: str | Path) -> bool:
    """Whether `path` names a PostgreSQL database (a ``postgresql://`` URL)."""
    return str(path).startswith(("postgresql://", "postgres://"))


def postgres_engine(url: str, **options: Any) -> AsyncEngine:
    """An engine on asyncpg for the ``postgresql://`` address `url`: asyncpg reads the
    address itself (``sslmode`` and the other parameters of a libpq URL included). No
    bound value (a name, a move) is ever written into an error message or a log."""
    import asyncpg

    return create_async_engine(
        "postgresql+asyncpg://",
        async_creator=lambda: asyncpg.connect(url, timeout=CONNECT_TIMEOUT_S),
        hide_parameters=True,
        **options,
    )


class Database:
    """One database, either dialect: transactions to write in, and reads. Open with `open`."""

    def __init__(
        self,
        dialect: Dialect,
        path: str,
        engines: Sequence[AsyncEngine],
        writer: AsyncConnection | None = None,
        reader: AsyncConnection | None = None,
    ) -> None:
        self.dialect: Dialect = dialect
        self.path = path
        """The SQLite file, or the PostgreSQL address without its password."""
        self._engines = engines
        self._writer = writer
        self._reader = reader
        self._thread: Any = None
        """SQLite: the writer's aiosqlite connection, whose thread runs `transact`'s work."""
        self._reader_thread: Any = None
        """SQLite: the reader's aiosqlite connection, whose thread runs each read."""
        self._in_thread: Connection | None = None
        """SQLite: a synchronous SQLAlchemy connection on the writer's own sqlite3
        connection, used only in aiosqlite's thread (made there on first use)."""
        self._reading_in_thread: Connection | None = None
        """SQLite: the same on the reader's sqlite3 connection, in the reader's thread."""
        self._write_lock = asyncio.Lock()
        self._waiting_writes: list[tuple[Callable[[], Any], asyncio.Future[tuple[bool, Any]]]] = []
        """SQLite: writes asked for and not yet sent to the writer's thread (`_write_turns`)."""
        self._turns: asyncio.Task[None] | None = None
        self._read_lock = asyncio.Lock()
        self.serial = asyncio.Lock()
        """Held by the writes that rate a game (a move that finishes it, a cancel, a
        rebuild) on PostgreSQL, where other writes run side by side; on SQLite every
        write is alone anyway."""
        self._game_locks: dict[int, _GameLock] = {}
        self._closed = False
        self.write_failure: str | None = None
        """Why the last write failed (None once a write succeeds again): `/healthz`."""

    # ------------------------------------------------------------ opening

    @classmethod
    async def open(cls, where: str | Path, *, synchronous: Synchronous = "NORMAL") -> Database:
        """Connect (creating a SQLite file and its folders) and bring the schema up to date.

        Raises `SchemaTooNew` for a database written by a newer version, and a
        `StorageError` saying in one sentence why a PostgreSQL server cannot be reached."""
        if is_postgres(where):
            return await cls._open_postgres(str(where))
        if synchronous not in ("NORMAL", "FULL"):
            raise ValueError(f"synchronous is NORMAL or FULL, not {synchronous!r}")
        return await cls._open_sqlite(Path(where), synchronous)

    @classmethod
    async def _open_sqlite(cls, file: Path, synchronous: Synchronous) -> Database:
        from .upgrade import upgrade_schema

        file.parent.mkdir(parents=True, exist_ok=True)
        name = str(file)
        await upgrade_schema(name)
        deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
        while True:
            writer_engine = _sqlite_engine(name, synchronous, reader=False)
            reader_engine = _sqlite_engine(name, synchronous, reader=True)
            engines = (writer_engine, reader_engine)
            opened: list[AsyncConnection] = []
            try:
                writer = await writer_engine.connect()
                opened.append(writer)
                reader = await reader_engine.connect()
                break
            except BaseException as error:
                for connection in opened:
                    with contextlib.suppress(Exception):
                        await connection.close()
                await _dispose(engines)
                if not isinstance(error, OperationalError):
                    raise
                if "locked" in str(error.orig) and time.monotonic() < deadline:
                    # A new database turns to WAL only while no other connection holds
                    # it, and SQLite does not wait for that (the busy timeout does not
                    # apply): another process opening it at the same moment may.
                    await asyncio.sleep(0.05)
                    continue
                raise StorageError(
                    f"{name}: the database cannot be opened ({error.orig})."
                ) from None
        database = cls("sqlite", name, engines, writer, reader)
        raw = await writer.get_raw_connection()
        database._thread = raw.dbapi_connection._connection  # type: ignore[union-attr]
        raw = await reader.get_raw_connection()
        database._reader_thread = raw.dbapi_connection._connection  # type: ignore[union-attr]
        return database

    @classmethod
    async def _open_postgres(cls, url: str) -> Database:
        from .postgres import CONNECT_ERRORS, describe, unreachable
        from .upgrade import upgrade_schema

        engine = postgres_engine(
            url, pool_size=POOL_SIZE, max_overflow=0, pool_timeout=POOL_TIMEOUT_S
        )
        try:
            async with engine.connect():  # reachable, or one sentence saying why not
                pass
        except (DBAPIError, *CONNECT_ERRORS) as error:
            await engine.dispose()
            raise unreachable(url, connect_error(error)) from None
        except BaseException:
            await engine.dispose()
            raise
        try:
            await upgrade_schema(url)
        except BaseException:
            await engine.dispose()
            raise
        # Reads on connections of their own in autocommit: one round trip a query, no
        # BEGIN before it nor ROLLBACK after it.
        reads = postgres_engine(
            url,
            pool_size=POOL_SIZE,
            max_overflow=0,
            pool_timeout=POOL_TIMEOUT_S,
            isolation_level="AUTOCOMMIT",
            pool_reset_on_return=None,
        )
        database = cls("postgresql", describe(url), (engine, reads))
        return database

    async def close(self) -> None:
        """Close every connection. Writes and reads asked for afterwards raise
        `StorageUnavailable`; closing twice does nothing more."""
        async with self._write_lock, self._read_lock:
            self._closed = True
            if self._in_thread is not None:
                # Its pool lends it the writer's sqlite3 connection, which the writer closes.
                if _running(self._thread):
                    await self._thread._execute(self._in_thread.close)
                self._in_thread = None
            if self._reading_in_thread is not None:
                if _running(self._reader_thread):
                    await self._reader_thread._execute(self._reading_in_thread.close)
                self._reading_in_thread = None
            if self._reader is not None:
                await self._reader.close()
            if self._writer is not None:
                await self._writer.close()
            await _dispose(self._engines)

    # ------------------------------------------------------------ transactions

    @asynccontextmanager
    async def _writer_alone(self) -> AsyncIterator[None]:
        """SQLite: the writer's thread, alone on it (reopened if a cancelled write closed
        it); `StorageUnavailable` once the database is closed."""
        assert self._writer is not None
        async with self._write_lock:
            self._open_for("written")  # closed while this write waited
            if self._writer.invalidated or not _running(self._thread):
                await self._reconnect_writer()
            yield

    async def _reconnect_writer(self) -> None:
        """SQLite: a new writer connection in place of one SQLAlchemy gave up. A write
        on the writer's `AsyncConnection` whose task is cancelled mid-statement leaves
        SQLAlchemy not knowing what the connection was doing, so it closes it, and
        aiosqlite's thread with it: every later write would find that thread gone."""
        assert self._writer is not None
        log.warning("The SQLite writer connection was closed by a cancelled write; reopening it.")
        with contextlib.suppress(Exception):
            await self._writer.close()
        self._in_thread = None  # it lent the closed sqlite3 connection
        self._writer = await self._engines[0].connect()
        raw = await self._writer.get_raw_connection()
        self._thread = raw.dbapi_connection._connection  # type: ignore[union-attr]

    @asynccontextmanager
    async def _write_errors(self) -> AsyncIterator[None]:
        try:
            yield
        except (OperationalError, OSError) as error:
            self._failed(error)
        except DBAPIError as error:
            if not _unavailable(error):
                raise
            self._failed(error)
        self.write_failure = None

    async def transact(
        self, work: Callable[Concatenate[Connection, P], T], *args: P.args, **kwargs: P.kwargs
    ) -> T:
        """``work(connection, *args)`` as one write transaction, run in one go with
        SQLAlchemy's synchronous API: it commits when ``work`` returns (durable before this
        returns) and rolls back if it raises. A database that cannot be written (disk full,
        I/O error, busy, the server gone) raises `StorageUnavailable`: nothing was written.

        On SQLite the whole transaction, from BEGIN IMMEDIATE to COMMIT, is one trip to
        aiosqlite's thread: ``work`` runs there, on a synchronous SQLAlchemy connection
        over the writer's own sqlite3 connection (under the write lock, as every write).
        A move was five trips (BEGIN, three statements, COMMIT), each a wake-up of that
        thread and of the event loop and a handover of the GIL; rating a stored game
        twelve. On PostgreSQL each statement is the driver's own round trip anyway."""
        if self._thread is None:
            # PostgreSQL: the connection taken from the pool, the transaction and its
            # return, in one greenlet (not one each).
            self._open_for("written")
            async with self._write_errors():
                result: T = await greenlet_spawn(self._transact_in_greenlet, work, args, kwargs)
                return result
        return await self._write_in_turn(functools.partial(self._run_in_thread, work, args, kwargs))

    async def on_sqlite3(self, work: Callable[..., T], *args: Any) -> T:
        """SQLite: ``work(connection, *args)`` as one write transaction on the writer's own
        sqlite3 connection, in its aiosqlite thread (one trip, as `transact`), for
        statements compiled once from Core (`storage.journal`'s moves). ``BEGIN
        IMMEDIATE`` to ``COMMIT`` (``ROLLBACK`` on any error) under the write lock, as
        every write; the driver's errors are raised as SQLAlchemy raises them
        (`OperationalError`, `IntegrityError`, ...), so they read and map as `transact`'s."""
        return await self._write_in_turn(
            lambda: _on_sqlite3(self._thread._conn, work, args)  # the connection of its turn
        )

    async def _write_in_turn(self, job: Callable[[], T]) -> T:
        """SQLite: ``job`` (one whole transaction) run in the writer's thread in its turn,
        with every write asked for while the one before was running (`_write_turns`); its
        error raised here, as if it had run alone."""
        async with self._write_errors():
            self._open_for("written")
            done: asyncio.Future[tuple[bool, Any]] = asyncio.get_running_loop().create_future()
            self._waiting_writes.append((job, done))
            if self._turns is None or self._turns.done():
                self._turns = asyncio.create_task(self._write_turns(), name="sqlite writes")
            ok, value = await done  # cancelled while it waits: it is not written
            if not ok:
                raise value
            result: T = value
            return result

    async def _write_turns(self) -> None:
        """SQLite: the writes waiting, in the order asked, each its own transaction, all in
        one trip to the writer's thread; then the writes that came meanwhile, until none
        waits. Under load a trip and its return each wait for a turn of the event loop
        and of the GIL (tens of ms with a few hundred tables), so one trip a write
        capped the writes a second below what those tables ask: one trip for every write
        waiting keeps the cost a write to its own SQLite work (`bench load`)."""
        while self._waiting_writes:
            batch = [(job, done) for job, done in self._waiting_writes if not done.done()]
            self._waiting_writes = []
            if not batch:  # every one was cancelled while it waited
                continue
            outcomes: list[tuple[bool, Any]]
            try:
                async with self._writer_alone():
                    outcomes = await self._thread._execute(_each, [job for job, _ in batch])
            except Exception as error:  # the writer could not be had: none of them ran
                outcomes = [(False, error)] * len(batch)
            except BaseException:  # cancelled (the loop is stopping): so are they
                for _, done in batch + self._waiting_writes:
                    done.cancel()
                raise
            for (_, done), outcome in zip(batch, outcomes, strict=True):
                if not done.done():
                    done.set_result(outcome)

    async def on_driver(self, work: Callable[..., Awaitable[T]], *args: Any) -> T:
        """PostgreSQL: ``await work(connection, *args)`` as one write transaction on the
        pool connection's own asyncpg connection, for statements compiled once from Core
        (`storage.journal`'s moves). Errors as `transact`'s."""
        import asyncpg

        self._open_for("written")
        async with self._write_errors():
            # The pool's connection as it is (one trip into SQLAlchemy's greenlet to take
            # it, one to give it back): with 8 tables at once, an AsyncConnection around it
            # cost a tenth of a move's time.
            pooled = await greenlet_spawn(self._raw_pooled, self._engines[0], "written")
            try:
                driver = pooled.driver_connection
                async with driver.transaction():  # type: ignore[union-attr]
                    return await work(driver, *args)
            except (
                OSError,
                asyncpg.PostgresConnectionError,
                asyncpg.InterfaceError,
                asyncpg.DiskFullError,
                asyncpg.CannotConnectNowError,
            ) as error:
                await greenlet_spawn(pooled.invalidate)
                self._failed(error)
            finally:
                await greenlet_spawn(pooled.close)

    def _transact_in_greenlet(
        self, work: Callable[..., T], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> T:
        with self._pooled(self._engines[0], "written") as connection:
            return _in_transaction(connection, work, *args, **kwargs)

    def _pooled(self, engine: AsyncEngine, doing: str) -> Connection:
        """`_connected`'s synchronous twin, inside a greenlet: one of the pool's
        connections, or `StorageUnavailable` saying why in one sentence."""
        return self._from_pool(engine, doing, engine.sync_engine.connect)

    def _raw_pooled(self, engine: AsyncEngine, doing: str) -> PoolProxiedConnection:
        """`_pooled`, the pool's own connection without a SQLAlchemy `Connection` around it."""
        return self._from_pool(engine, doing, engine.sync_engine.raw_connection)

    def _from_pool(self, engine: AsyncEngine, doing: str, take: Callable[[], T]) -> T:
        from .postgres import CONNECT_ERRORS, unreachable

        try:
            return take()
        except PoolTimeout as error:
            why = f"all {POOL_SIZE} of its connections stayed busy for {POOL_TIMEOUT_S:g} s"
            self._unavailable(doing, why, error)
        except (DBAPIError, *CONNECT_ERRORS) as error:
            if isinstance(error, DBAPIError) and not _unavailable(error):
                raise
            self._unavailable(doing, str(unreachable(self.path, connect_error(error))), error)

    def _read_in_greenlet(
        self, query: Executable | Query, parameters: Mapping[str, Any] | None
    ) -> Sequence[Any]:
        return self._read_all_in_greenlet(((query, parameters),))[0]

    def _read_all_in_greenlet(
        self, queries: tuple[tuple[Executable | Query, Mapping[str, Any] | None], ...]
    ) -> list[Sequence[Any]]:
        with self._pooled(self._engines[-1], "read") as connection:
            try:
                return [
                    connection.execute(q.statement if isinstance(q, Query) else q, p).all()
                    for q, p in queries
                ]
            except DBAPIError as error:
                if not _unavailable(error):
                    raise
                self._unavailable("read", str(error.orig), error)

    async def read_together(
        self, *queries: tuple[Executable | Query, Mapping[str, Any]]
    ) -> list[Sequence[Any]]:
        """The rows of several queries, read together, each as `read` reads it: `read`'s
        one fast path. On SQLite they go to the reader's thread in one trip (a game's
        score table, three queries, in 0.17 ms rather than 0.43 ms read one by one,
        ``./dev bench storage``'s "table of a 20-hand game"); on PostgreSQL, on one
        connection."""
        if self._reader is not None:
            async with self._read_lock:
                self._open_for("read")
                return list(await self._reader_thread._execute(self._read_all_in_thread, queries))
        self._open_for("read")
        return await greenlet_spawn(self._read_all_in_greenlet, queries)

    def _read_all_in_thread(
        self, queries: tuple[tuple[Executable | Query, Mapping[str, Any]], ...]
    ) -> list[Sequence[Any]]:
        return [self._read_in_thread(q, p) for q, p in queries]

    def _read_in_thread(
        self, statement: Executable | Query, parameters: Mapping[str, Any] | None
    ) -> Sequence[Any]:
        if self._reading_in_thread is None:
            engine = _sqlite_in_thread(self._reader_thread._conn, writer=False)
            self._reading_in_thread = engine.connect().execution_options(
                isolation_level="AUTOCOMMIT"
            )
        if isinstance(statement, Query):
            return statement.rows(self._reading_in_thread, parameters)
        return self._reading_in_thread.execute(statement, parameters).all()

    def _run_in_thread(
        self, work: Callable[..., T], args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> T:
        if self._in_thread is None:
            self._in_thread = _sqlite_in_thread(self._thread._conn).connect()
        return _in_transaction(self._in_thread, work, *args, **kwargs)

    def _failed(self, error: BaseException) -> NoReturn:
        why = str(error.orig) if isinstance(error, DBAPIError) else str(error)
        self.write_failure = why
        raise StorageUnavailable(f"the database cannot be written: {why}") from error

    def _open_for(self, doing: str) -> None:
        if self._closed:
            self._unavailable(doing, "it is closed", None)

    def _unavailable(self, doing: str, why: str, error: BaseException | None) -> NoReturn:
        if doing == "written":
            self.write_failure = why
        raise StorageUnavailable(f"the database cannot be {doing}: {why}") from error

    @overload
    async def read(
        self, statement: Query, parameters: Mapping[str, Any] | None = None
    ) -> Sequence[Sequence[Any]]: ...

    @overload
    async def read(
        self, statement: Executable, parameters: Mapping[str, Any] | None = None
    ) -> Sequence[Row[Any]]: ...

    async def read(
        self, statement: Executable | Query, parameters: Mapping[str, Any] | None = None
    ) -> Sequence[Any]:
        """The rows of one query, outside any write (on SQLite, the reader connection):
        SQLAlchemy's `Row`s, or for a `Query` on SQLite the driver's tuples.
        On PostgreSQL, a server that cannot be reached (or no connection free within
        the pool's timeout) raises `StorageUnavailable`, saying why in one sentence."""
        if self._reader is not None:
            async with self._read_lock:
                self._open_for("read")
                # The reader runs in autocommit (no BEGIN is sent): each query sees the
                # latest commit, and nothing is left open between queries. As a write,
                # the query runs in one go in aiosqlite's thread (the reader's own).
                rows: Sequence[Any] = await self._reader_thread._execute(
                    self._read_in_thread, statement, parameters
                )
                return rows
        # One greenlet for the connection, the query and its return (not one each).
        self._open_for("read")
        found: Sequence[Any] = await greenlet_spawn(self._read_in_greenlet, statement, parameters)
        return found

    @asynccontextmanager
    async def game_lock(self, game_id: int) -> AsyncIterator[None]:
        """One game's moves in the order they were asked for (PostgreSQL; a lock per game,
        dropped when nobody holds or waits for it); SQLite's writes are alone already."""
        if self.dialect == "sqlite":
            yield
            return
        entry = self._game_locks.setdefault(game_id, _GameLock())
        entry.users += 1
        try:
            async with entry.lock:
                yield
        finally:
            entry.users -= 1
            if not entry.users:
                del self._game_locks[game_id]

    # ------------------------------------------------------------ what the dialects spell apart

    def insert(self, table: Table) -> sqlite.Insert | postgresql.Insert:
        """An INSERT that can say ``ON CONFLICT``: both dialects have the same words."""
        if self.dialect == "postgresql":
            return postgresql.insert(table)
        return sqlite.insert(table)

    def json_int(self, column: ColumnElement[Any], key: str) -> ColumnElement[Any]:
        """The integer at ``key`` of a JSON object stored as text."""
        if self.dialect == "postgresql":
            return cast(cast(column, JSONB)[key].astext, BigInteger)
        return func.json_extract(column, f"$.{key}")


class Upsert:
    """An ``INSERT … ON CONFLICT``, written once as a Core expression (`build`, given the
    dialect's name) and compiled once per driver.

    SQLAlchemy 2.0 gives the ON CONFLICT clauses of both dialects no cache key, so such a
    statement executed as an expression is compiled again at every call (a rating's
    upsert was compiled for every game rated). Here its compiled form, the same SQL, runs
    through the driver (`Connection.exec_driver_sql`), its values processed as
    SQLAlchemy would: still written once in Core, never as SQL text."""

    def __init__(self, build: Callable[[Dialect], Any]) -> None:
        self._build = build
        self._compiled: dict[tuple[str, str], _Positional] = {}

    def execute(
        self, db: Connection, rows: Mapping[str, Any] | Sequence[Mapping[str, Any]]
    ) -> None:
        """Insert one row (a mapping of the statement's bound names), or many at once."""
        dialect = db.dialect
        key = (dialect.name, dialect.paramstyle)
        positional = self._compiled.get(key)
        if positional is None:
            name: Dialect = "postgresql" if dialect.name == "postgresql" else "sqlite"
            positional = _Positional(self._build(name).compile(dialect=dialect))
            self._compiled[key] = positional
        if isinstance(rows, Mapping):
            db.exec_driver_sql(positional.sql, positional.values(rows))
        elif rows:
            db.exec_driver_sql(positional.sql, [positional.values(row) for row in rows])


class Query:
    """A read written once as a Core expression (at module level, or once per shape) and
    compiled once per dialect.

    On SQLite its compiled form runs on the reader's own sqlite3 connection (`Database.read`,
    `read_together`), and its rows come back as tuples, each value processed as SQLAlchemy
    would: SQLAlchemy's work around a statement (its cache key, walked at every call, the
    execution context, the result) cost about as much as a small query, the rating board's
    or a player's. On PostgreSQL it goes through SQLAlchemy as any statement."""

    def __init__(self, statement: Executable) -> None:
        self.statement = statement
        self._compiled: dict[tuple[str, str], _Positional] = {}

    def rows(self, connection: Connection, parameters: Mapping[str, Any] | None) -> list[Any]:
        """The rows read on `connection` (a synchronous SQLAlchemy connection over a
        sqlite3 one, in its thread) through its driver."""
        dialect = connection.dialect
        key = (dialect.name, dialect.paramstyle)
        compiled = self._compiled.get(key)
        if compiled is None:
            statement: Any = self.statement
            compiled = self._compiled[key] = _Positional(statement.compile(dialect=dialect))
        driver: sqlite3.Connection = connection.connection.driver_connection  # type: ignore[assignment]
        try:
            found = driver.execute(compiled.sql, compiled.values(parameters or {})).fetchall()
        except sqlite3.Error as error:
            raise DBAPIError.instance(
                compiled.sql, None, error, sqlite3.Error, hide_parameters=True
            ) from error
        processors = compiled.result_processors
        if processors is None:
            return found
        return [
            tuple(
                value if p is None else p(value) for p, value in zip(processors, row, strict=True)
            )
            for row in found
        ]


def width_of(count: int) -> int:
    """How many places an IN list of `count` values is given (`in_places`): the next power
    of two, so that a handful of statements, each built and compiled once, serve any count
    (an expanding list is finished anew at every call, and a `Query` cannot run one)."""
    return 1 << max(count - 1, 0).bit_length()


def in_places(column: ColumnElement[Any], name: str, width: int) -> ColumnElement[bool]:
    """``column IN (:name_0, …)``, `width` places bound one by one (`placed`)."""
    return column.in_([bindparam(f"{name}_{i}", type_=column.type) for i in range(width)])


def placed(name: str, values: Sequence[Any], width: int) -> dict[str, Any]:
    """`in_places`' values: `values`, then NULL in the places beyond them (which no row
    matches)."""
    return {f"{name}_{i}": values[i] if i < len(values) else None for i in range(width)}


class _Positional:
    """A compiled statement, and its values in the order of its positional parameters."""

    def __init__(self, compiled: Any) -> None:
        if compiled.positiontup is None:
            raise TypeError(f"{compiled}: its driver's parameters are not positional")
        if compiled.post_compile_params or compiled.literal_execute_params:
            # (an expanding IN list, a value written into the SQL as it runs)
            raise TypeError(f"{compiled}: its SQL is finished only as it runs")
        self.sql: str = compiled.string
        self._names: tuple[str, ...] = tuple(compiled.positiontup)
        self._constants = {name: bind.value for name, bind in compiled.binds.items()}
        self._processors: dict[str, Callable[[Any], Any]] = dict(compiled._bind_processors)
        processors = [
            column.type._cached_result_processor(compiled.dialect, None)
            for column in compiled._result_columns
        ]
        self.result_processors: list[Callable[[Any], Any] | None] | None = (
            processors if any(processors) else None
        )
        """What SQLAlchemy does to each column of a row read (None: nothing to any)."""

    def takes_as_they_are(self, names: Iterable[str]) -> bool:
        """Whether its values are those of `names`, in that order, each as it is."""
        return self._names == tuple(names) and not self._processors

    def values(self, row: Mapping[str, Any]) -> tuple[Any, ...]:
        given = self._constants | dict(row)
        processors = self._processors
        return tuple(
            processors[name](given[name]) if name in processors else given[name]
            for name in self._names
        )


def _running(connection: Any) -> bool:
    """Whether an aiosqlite connection's thread still takes work (not closed, nor being
    closed: work queued behind its closing would never be done)."""
    return bool(connection._running and connection._connection is not None)


def _on_sqlite3(connection: sqlite3.Connection, work: Callable[..., T], args: tuple[Any, ...]) -> T:
    """`Database.on_sqlite3`'s transaction, in the writer's aiosqlite thread."""
    try:
        connection.execute("BEGIN IMMEDIATE")
        try:
            result = work(connection, *args)
            connection.commit()
        except BaseException:
            if connection.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    connection.rollback()
            raise
    except sqlite3.Error as error:
        raise DBAPIError.instance(None, None, error, sqlite3.Error, hide_parameters=True) from error
    return result


def rows_changed(
    db: Connection, statement: Executable, parameters: Mapping[str, Any] | None = None
) -> int:
    """How many rows `statement` changed: a `Database.transact` work of one statement."""
    changed: int = db.execute(statement, parameters).rowcount
    return changed


def _each(jobs: list[Callable[[], Any]]) -> list[tuple[bool, Any]]:
    """In the writer's thread: each job (a whole transaction, rolled back on its own
    error), one after the other, as ``(True, result)`` or ``(False, error)``."""
    outcomes: list[tuple[bool, Any]] = []
    for job in jobs:
        try:
            outcomes.append((True, job()))
        except Exception as error:
            outcomes.append((False, error))
    return outcomes


def _in_transaction(
    connection: Connection, work: Callable[..., T], /, *args: Any, **kwargs: Any
) -> T:
    with connection.begin():
        return work(connection, *args, **kwargs)


class _GameLock:
    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.users = 0


def connect_error(error: BaseException) -> BaseException:
    """The driver's own error inside SQLAlchemy's (what `storage.postgres.unreachable`
    names), or `error` itself."""
    if isinstance(error, DBAPIError) and error.orig is not None:
        return error.orig.__cause__ or error.orig
    return error


def _unavailable(error: DBAPIError) -> bool:
    """A PostgreSQL error that means the database cannot be written now (the connection
    is gone, the disk is full), not that the write itself was wrong."""
    import asyncpg

    cause = getattr(error.orig, "__cause__", None) or error.orig
    return error.connection_invalidated or isinstance(
        cause,
        OSError
        | asyncpg.PostgresConnectionError
        | asyncpg.InterfaceError
        | asyncpg.DiskFullError
        | asyncpg.CannotConnectNowError,
    )


def _sqlite_engine(path: str, synchronous: Synchronous, *, reader: bool) -> AsyncEngine:
    engine = create_async_engine(
        URL.create("sqlite+aiosqlite", database=path),
        connect_args={"timeout": BUSY_TIMEOUT_MS / 1000},
        module=OneTripDBAPI(),
        hide_parameters=True,
    )

    @event.listens_for(engine.sync_engine, "connect")
    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        # No transaction opened behind our back: BEGIN IMMEDIATE below, or (the reader)
        # none at all.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            cursor.execute("PRAGMA journal_mode = WAL")
            mode = cursor.fetchone()
            if str(mode[0]).lower() != "wal":
                raise StorageError(f"{path}: SQLite refused WAL mode ({mode[0]}).")
            cursor.execute("PRAGMA foreign_keys = ON")
            cursor.execute(f"PRAGMA synchronous = {synchronous}")
            if reader:
                cursor.execute("PRAGMA query_only = ON")
        finally:
            cursor.close()

    if not reader:

        @event.listens_for(engine.sync_engine, "begin")
        def on_begin(connection: Any) -> None:
            connection.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


def _sqlite_in_thread(connection: Any, *, writer: bool = True) -> Any:
    """A synchronous engine whose one connection is `connection`, the writer's (or the
    reader's) sqlite3 connection, already set up by `_sqlite_engine`'s ``connect``: for
    its aiosqlite thread only. The writer's transactions begin with ``BEGIN IMMEDIATE``;
    the reader opens none."""
    engine = create_engine(
        "sqlite://",
        creator=lambda: connection,
        poolclass=StaticPool,
        pool_reset_on_return=None,
        hide_parameters=True,
    )

    if writer:

        @event.listens_for(engine, "begin")
        def on_begin(conn: Any) -> None:
            conn.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


async def _dispose(engines: Sequence[AsyncEngine]) -> None:
    for engine in engines:
        with contextlib.suppress(Exception):
            await engine.dispose()
