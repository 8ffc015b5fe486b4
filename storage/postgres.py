"""PostgreSQL through asyncpg: the same storage as SQLite, for organisers who run the
database on its own server (``DATABASE_URL=postgresql://…``).

The queries are `SqliteStorage`'s, written in the SQL both databases speak; `translate`
turns the few SQLite spellings left (``?`` parameters, ``INSERT OR IGNORE``, ``IS ?``, its
JSON functions) into PostgreSQL's, once per query text. What differs is below: a pool of
connections, transactions, and the schema, created at its latest version by `migrate`
under an advisory lock (two processes never migrate at once) and tracked in
``schema_version``. The move journal is append-only in the database, as in SQLite: a
trigger refuses every UPDATE and DELETE of ``moves``.
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

from .errors import SchemaTooNew, StorageError, StorageUnavailable
from .migrations import LATEST_VERSION
from .models import RebuildReport
from .sqlite import SqliteStorage

log = logging.getLogger(__name__)

MIGRATION_LOCK: Final = 0x4865_6172_7473  # "Hearts": the advisory lock key of migrations
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


# ---------------------------------------------------------------- the schema

UPGRADES: Final[dict[int, tuple[str, ...]]] = {
    10: (
        "ALTER TABLE handled_updates ADD COLUMN callback_id TEXT",
        "ALTER TABLE handled_updates ADD COLUMN answer TEXT",
        "ALTER TABLE handled_updates ADD COLUMN answered_at BIGINT",
        "CREATE INDEX handled_unanswered ON handled_updates (handled_at)"
        " WHERE callback_id IS NOT NULL AND answered_at IS NULL",
    ),
}
"""What each version after 9 changes, for a database created at an older one (a new
database gets them as part of `SCHEMA`)."""

SCHEMA: Final = (
    """
    CREATE TABLE schema_version (version BIGINT NOT NULL)
    """,
    """
    CREATE TABLE chats (
        chat_id        BIGINT PRIMARY KEY,
        rules          TEXT   NOT NULL,
        turn_timer_s   BIGINT NOT NULL,
        computer_level TEXT   NOT NULL,
        track_cards    BIGINT NOT NULL,
        updated_at     BIGINT NOT NULL,
        hints          BIGINT NOT NULL DEFAULT 1
    )
    """,
    """
    CREATE TABLE users (
        user_id      BIGINT PRIMARY KEY,
        display_name TEXT   NOT NULL,
        username     TEXT,
        dm_open      BIGINT NOT NULL DEFAULT 0,
        updated_at   BIGINT NOT NULL
    )
    """,
    """
    CREATE TABLE games (
        id                BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        chat_id           BIGINT NOT NULL,
        thread_id         BIGINT,
        creator_id        BIGINT NOT NULL,
        status            TEXT   NOT NULL CHECK (status IN
                              ('lobby', 'active', 'finished', 'cancelled', 'quarantined')),
        rules             TEXT   NOT NULL,
        seed              BIGINT,
        first_dealer      BIGINT,
        dealer_from_seed  BIGINT NOT NULL DEFAULT 0,
        fixed_deals       TEXT   NOT NULL DEFAULT '[]',
        meta              TEXT   NOT NULL DEFAULT '{}',
        snapshot          TEXT,
        last_seq          BIGINT NOT NULL DEFAULT 0,
        hands_recorded    BIGINT NOT NULL DEFAULT 0,
        winners           TEXT,
        quarantine_reason TEXT,
        created_at        BIGINT NOT NULL,
        started_at        BIGINT,
        finished_at       BIGINT,
        tournament_id     BIGINT,
        join_token        TEXT
    )
    """,
    "CREATE INDEX games_open_by_chat ON games (chat_id, thread_id)"
    " WHERE status IN ('lobby', 'active')",
    "CREATE INDEX games_by_status ON games (status)",
    "CREATE UNIQUE INDEX games_by_join_token ON games (join_token)",
    "CREATE INDEX games_by_tournament ON games (tournament_id) WHERE tournament_id IS NOT NULL",
    """
    CREATE TABLE game_seats (
        game_id        BIGINT NOT NULL REFERENCES games (id),
        seat           BIGINT NOT NULL,
        kind           TEXT   NOT NULL CHECK (kind IN ('human', 'computer')),
        user_id        BIGINT,
        display_name   TEXT   NOT NULL,
        computer_level TEXT,
        PRIMARY KEY (game_id, seat),
        CHECK ((kind = 'human') = (user_id IS NOT NULL))
    )
    """,
    "CREATE INDEX game_seats_by_user ON game_seats (user_id, game_id) WHERE user_id IS NOT NULL",
    """
    CREATE TABLE moves (
        game_id    BIGINT NOT NULL REFERENCES games (id),
        seq        BIGINT NOT NULL CHECK (seq >= 1),
        move       TEXT   NOT NULL,
        created_at BIGINT NOT NULL,
        PRIMARY KEY (game_id, seq)
    )
    """,
    """
    CREATE FUNCTION moves_are_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION 'the move journal is append-only';
    END $$
    """,
    """
    CREATE TRIGGER moves_are_never_changed BEFORE UPDATE OR DELETE ON moves
        FOR EACH ROW EXECUTE FUNCTION moves_are_append_only()
    """,
    """
    CREATE TRIGGER moves_are_never_truncated BEFORE TRUNCATE ON moves
        FOR EACH STATEMENT EXECUTE FUNCTION moves_are_append_only()
    """,
    """
    CREATE TABLE hand_points (
        game_id     BIGINT NOT NULL REFERENCES games (id),
        hand_number BIGINT NOT NULL,
        seat        BIGINT NOT NULL,
        points_re   BIGINT NOT NULL,
        points_im   BIGINT NOT NULL,
        total_re    BIGINT NOT NULL,
        total_im    BIGINT NOT NULL,
        shot_moon   BIGINT NOT NULL,
        PRIMARY KEY (game_id, hand_number, seat)
    )
    """,
    """
    CREATE TABLE game_results (
        game_id     BIGINT NOT NULL REFERENCES games (id),
        seat        BIGINT NOT NULL,
        chat_id     BIGINT NOT NULL,
        user_id     BIGINT,
        score_kind  TEXT   NOT NULL CHECK (score_kind IN ('points', 'complex')),
        players     BIGINT NOT NULL,
        total_re    BIGINT NOT NULL,
        total_im    BIGINT NOT NULL,
        rank_key    BIGINT NOT NULL,
        place       BIGINT NOT NULL,
        won         BIGINT NOT NULL,
        hands       BIGINT NOT NULL,
        moons       BIGINT NOT NULL,
        finished_at BIGINT NOT NULL,
        PRIMARY KEY (game_id, seat)
    )
    """,
    "CREATE INDEX game_results_overall ON game_results"
    " (score_kind, user_id, won, hands, total_re, total_im, moons, rank_key)"
    " WHERE user_id IS NOT NULL",
    "CREATE INDEX game_results_by_chat ON game_results"
    " (score_kind, chat_id, user_id, won, hands, total_re, total_im, moons, rank_key)"
    " WHERE user_id IS NOT NULL",
    "CREATE INDEX game_results_history ON game_results (user_id, finished_at)"
    " WHERE user_id IS NOT NULL",
    """
    CREATE TABLE tournaments (
        id                    BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        chat_id               BIGINT NOT NULL,
        thread_id             BIGINT,
        organiser_id          BIGINT NOT NULL,
        organiser_name        TEXT   NOT NULL,
        name                  TEXT   NOT NULL,
        rules                 TEXT   NOT NULL,
        options               TEXT   NOT NULL,
        time_zone             TEXT   NOT NULL,
        starts_at             BIGINT,
        registration_deadline BIGINT,
        status                TEXT   NOT NULL CHECK (status IN
                                  ('registration', 'running', 'paused', 'finished',
                                   'cancelled')),
        current_round         BIGINT NOT NULL DEFAULT 0,
        state                 TEXT   NOT NULL DEFAULT '{}',
        created_at            BIGINT NOT NULL,
        finished_at           BIGINT
    )
    """,
    "CREATE INDEX tournaments_open ON tournaments (status)"
    " WHERE status IN ('registration', 'running', 'paused')",
    "CREATE INDEX tournaments_by_chat ON tournaments (chat_id, thread_id, id)",
    """
    CREATE TABLE tournament_registrations (
        tournament_id BIGINT NOT NULL REFERENCES tournaments (id),
        user_id       BIGINT NOT NULL,
        display_name  TEXT   NOT NULL,
        username      TEXT,
        status        TEXT   NOT NULL CHECK (status IN
                          ('pending', 'registered', 'withdrawn', 'removed', 'eliminated')),
        registered_at BIGINT NOT NULL,
        final_place   BIGINT,
        PRIMARY KEY (tournament_id, user_id)
    )
    """,
    """
    CREATE TABLE tournament_tables (
        tournament_id BIGINT NOT NULL REFERENCES tournaments (id),
        round         BIGINT NOT NULL CHECK (round >= 1),
        table_no      BIGINT NOT NULL CHECK (table_no >= 1),
        seed          BIGINT NOT NULL,
        game_id       BIGINT REFERENCES games (id),
        status        TEXT   NOT NULL CHECK (status IN ('playing', 'finished', 'cancelled')),
        PRIMARY KEY (tournament_id, round, table_no)
    )
    """,
    """
    CREATE TABLE tournament_seats (
        tournament_id BIGINT NOT NULL,
        round         BIGINT NOT NULL,
        table_no      BIGINT NOT NULL,
        seat          BIGINT NOT NULL,
        user_id       BIGINT,
        display_name  TEXT   NOT NULL,
        present       BIGINT NOT NULL DEFAULT 0,
        no_show       BIGINT NOT NULL DEFAULT 0,
        place         BIGINT,
        total_re      BIGINT,
        total_im      BIGINT,
        advanced      BIGINT NOT NULL DEFAULT 0,
        PRIMARY KEY (tournament_id, round, table_no, seat),
        FOREIGN KEY (tournament_id, round, table_no)
            REFERENCES tournament_tables (tournament_id, round, table_no)
    )
    """,
    """
    CREATE TABLE tournament_claims (
        tournament_id BIGINT NOT NULL REFERENCES tournaments (id),
        kind          TEXT   NOT NULL,
        message_id    BIGINT,
        claimed_at    BIGINT NOT NULL,
        PRIMARY KEY (tournament_id, kind)
    )
    """,
    """
    CREATE TABLE person_languages (
        user_id    BIGINT PRIMARY KEY,
        chosen     TEXT   NOT NULL DEFAULT '',
        app        TEXT   NOT NULL DEFAULT '',
        updated_at BIGINT NOT NULL
    )
    """,
    """
    CREATE TABLE chat_languages (
        chat_id    BIGINT PRIMARY KEY,
        chosen     TEXT   NOT NULL DEFAULT '',
        first      TEXT   NOT NULL DEFAULT '',
        updated_at BIGINT NOT NULL
    )
    """,
    """
    CREATE TABLE ratings (
        pool       TEXT   NOT NULL CHECK (pool IN ('main', 'two')),
        chat_id    BIGINT NOT NULL,
        player     BIGINT NOT NULL,
        mu         DOUBLE PRECISION NOT NULL,
        sigma      DOUBLE PRECISION NOT NULL,
        games      BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        PRIMARY KEY (pool, chat_id, player)
    )
    """,
    "CREATE INDEX ratings_board ON ratings (pool, chat_id, (mu - 3 * sigma) DESC)",
    """
    CREATE TABLE rated_games (
        game_id  BIGINT PRIMARY KEY REFERENCES games (id),
        seq      BIGINT NOT NULL UNIQUE,
        pool     TEXT   NOT NULL,
        rated_at BIGINT NOT NULL
    )
    """,
    """
    CREATE TABLE rating_changes (
        game_id      BIGINT NOT NULL REFERENCES games (id),
        chat_id      BIGINT NOT NULL,
        player       BIGINT NOT NULL,
        pool         TEXT   NOT NULL,
        seat         BIGINT NOT NULL,
        weight       DOUBLE PRECISION NOT NULL,
        mu_before    DOUBLE PRECISION NOT NULL,
        sigma_before DOUBLE PRECISION NOT NULL,
        mu_after     DOUBLE PRECISION NOT NULL,
        sigma_after  DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (game_id, chat_id, player)
    )
    """,
    "CREATE INDEX rating_changes_history ON rating_changes (player, pool, chat_id, game_id)",
    """
    CREATE TABLE handled_updates (
        update_id  BIGINT PRIMARY KEY,
        handled_at BIGINT NOT NULL
    )
    """,
    *UPGRADES[10],
)
"""The schema at version `LATEST_VERSION` (the same tables, columns and rules as SQLite's
after its migrations); a later version appends its own statements here and there."""
SCHEMA_VERSION: Final = 10


async def migrate(connection: asyncpg.Connection, where: str) -> int:
    """Create the schema in an empty database, or bring an older one up to date, under an
    advisory lock held for the transaction (a second process waits, then finds it done);
    returns the version.

    Raises `SchemaTooNew` for a database written by a newer version of the bot."""
    async with connection.transaction():
        await connection.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
        exists = await connection.fetchval("SELECT to_regclass('schema_version') IS NOT NULL")
        if exists:
            version = int(await connection.fetchval("SELECT version FROM schema_version"))
        else:
            for statement in SCHEMA:
                await connection.execute(statement)
            await connection.execute("INSERT INTO schema_version VALUES ($1)", SCHEMA_VERSION)
            log.info("%s: schema created at version %d", where, SCHEMA_VERSION)
            version = SCHEMA_VERSION
        if version > LATEST_VERSION:
            raise SchemaTooNew(where, version, LATEST_VERSION)
        for upgrade in sorted(v for v in UPGRADES if version < v <= SCHEMA_VERSION):
            for statement in UPGRADES[upgrade]:
                await connection.execute(statement)
            await connection.execute("UPDATE schema_version SET version = $1", upgrade)
            log.info("%s: schema upgraded to version %d", where, upgrade)
            version = upgrade
    return version


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
        """Connect to the database at the URL `path` and create or check its schema."""
        url = str(path)
        pool = await connect_pool(url)
        try:
            async with pool.acquire() as connection:
                await migrate(connection, describe(url))
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
