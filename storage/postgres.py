"""What is PostgreSQL's alone, for organisers who run the database on its own server
(``DATABASE_URL=postgresql://…``): the leader lock of a standby pair (`Leadership`), and
saying why a server cannot be reached, never with its password. The queries are the
repositories' own (`storage.database`), and the schema `storage.schema`'s, created and
upgraded by Alembic (`storage.upgrade`), the same for both databases; the move journal is
append-only in the database, as in SQLite: a trigger refuses every UPDATE, DELETE and
TRUNCATE of ``moves``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Final
from urllib.parse import urlsplit

import asyncpg

from .errors import StorageError

log = logging.getLogger(__name__)


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
    why = str(error) or "no answer in time"  # (a timeout says nothing itself)
    return StorageError(f"PostgreSQL at {where} cannot be reached ({type(error).__name__}: {why}).")


CONNECT_ERRORS: Final = (OSError, asyncio.TimeoutError, asyncpg.PostgresError)


# ---------------------------------------------------------------- leader and standby

LEADER_LOCK: Final = 0x4845_4152  # "HEAR": the advisory locks' first key


def lock_key(account: int) -> int:
    """The second key of `account`'s leader lock (``pg_advisory_lock(LEADER_LOCK, key)``):
    its Telegram id folded into 32 bits (the high half into the low), so each bot account
    has a lock of its own and two accounts' leaders serve at once, each with its standby."""
    folded = (account ^ (account >> 32)) & 0xFFFF_FFFF
    return folded - (1 << 32) if folded >= 1 << 31 else folded


KEEPALIVE: Final = {
    # The server notices a leader whose machine stopped answering within about 6 s
    # (3 s idle, then 3 probes a second apart), and frees its lock for the standby.
    "tcp_keepalives_idle": "3",
    "tcp_keepalives_interval": "1",
    "tcp_keepalives_count": "3",
}

IDLE_SESSION_MS: Final = 6000
"""A leader that hangs (its machine still answers TCP, the process does not) stops asking
`Leadership.watch`'s every-2-s question: the server ends its idle session after this long,
and so frees the lock too. Armed only once `watch` asks: a leader still starting (schema
upgrades, resuming its games, all the slower on a busy machine) asks nothing yet, and with
the limit set at connection the server ended its session and freed its lock before it
served (issue 51.14: two leaders, one after the other, in the failover tests)."""


class Leadership:
    """This process's hold on its bot account's leader lock: a session advisory lock on a
    connection of its own, held until the process (or its connection) dies. Two bot
    processes of one account pointed at one database: exactly one holds it and serves
    Telegram; the other waits in `wait`. Another account's processes take another lock."""

    def __init__(self, connection: asyncpg.Connection, name: str, account: int = 0) -> None:
        self.connection = connection
        self.name = name
        self.account = account

    @classmethod
    async def wait(
        cls,
        url: str,
        name: str,
        waiting: Callable[[str | None], None] | None = None,
        account: int = 0,
    ) -> Leadership:
        """Take `account`'s lock, waiting as long as another process holds it (`waiting`
        is told who, once). `name` shows in ``pg_stat_activity`` (and in `holder`)."""
        settings = {"application_name": name[:63], **KEEPALIVE}
        try:
            connection = await asyncpg.connect(url, server_settings=settings, timeout=10)
        except CONNECT_ERRORS as error:
            raise unreachable(url, error) from None
        try:
            # The lock of the versions before accounts (one key for every process), held
            # shared: an older process, which takes it alone, waits while a newer one
            # serves, and a newer one waits while an older one still leads.
            if not await connection.fetchval("SELECT pg_try_advisory_lock_shared($1)", LEADER_LOCK):
                if waiting is not None:
                    waiting(await older_holder_on(connection))
                await connection.execute("SELECT pg_advisory_lock_shared($1)", LEADER_LOCK)
            key = lock_key(account)
            if not await connection.fetchval(
                "SELECT pg_try_advisory_lock($1, $2)", LEADER_LOCK, key
            ):
                if waiting is not None:
                    waiting(await holder_on(connection, account))
                await connection.execute("SELECT pg_advisory_lock($1, $2)", LEADER_LOCK, key)
        except BaseException:
            await connection.close()
            raise
        return cls(connection, name, account)

    async def arm(self) -> None:
        """From now on the server ends the lock's session (and frees the lock) if it stays
        idle for `IDLE_SESSION_MS`: `watch` keeps it busy."""
        await self.connection.execute(f"SET idle_session_timeout = {IDLE_SESSION_MS}")

    async def watch(self, lost: Callable[[], None], every: float = 2.0) -> None:
        """Arm the idle limit, then check the lock's connection every `every` seconds;
        `lost` is called once when it no longer answers (the database went away: another
        process may lead now)."""
        try:
            await asyncio.wait_for(self.arm(), timeout=5)
        except Exception as error:  # as below: the lock can no longer be trusted
            log.error("the leader lock's connection failed: %s", error)
            lost()
            return
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


async def holder_on(connection: asyncpg.Connection, account: int = 0) -> str | None:
    """The name of the process that holds `account`'s leader lock, if one does."""
    name = await connection.fetchval(
        "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
        " WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2"
        " AND l.classid::text::bigint = $1 AND l.objid::text::bigint = $2",
        LEADER_LOCK,
        lock_key(account) & 0xFFFF_FFFF,
    )
    return str(name) if name is not None else None


async def older_holder_on(connection: asyncpg.Connection) -> str | None:
    """The name of a process of a version before accounts that leads, if one does."""
    name = await connection.fetchval(
        "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
        " WHERE l.locktype = 'advisory' AND l.granted AND l.mode = 'ExclusiveLock'"
        " AND l.objsubid = 1 AND l.classid::text::bigint = 0 AND l.objid::text::bigint = $1",
        LEADER_LOCK,
    )
    return f"{name} (an older version)" if name is not None else None


async def leader(url: str, account: int = 0) -> str | None:
    """Who leads `account` on the database at `url` (for ``hearts-bot check``)."""
    try:
        connection = await asyncpg.connect(url, timeout=5)
    except CONNECT_ERRORS as error:
        raise unreachable(url, error) from None
    try:
        return await holder_on(connection, account)
    finally:
        await connection.close()
