"""SQLite's schema versions, as the bot has always applied them: `migrate` runs
`storage.migrations` on an aiosqlite connection (`storage.database.Database` calls it with
its writer's own connection as it opens the database) and ``PRAGMA user_version`` says
where a database stands.
"""

from __future__ import annotations

import logging

import aiosqlite

from .errors import SchemaTooNew
from .migrations import LATEST_VERSION, MIGRATIONS

log = logging.getLogger(__name__)


async def user_version(db: aiosqlite.Connection) -> int:
    rows = list(await db.execute_fetchall("PRAGMA user_version"))
    return int(rows[0][0])


async def migrate(db: aiosqlite.Connection, path: str, target: int = LATEST_VERSION) -> int:
    """Bring the database to ``target``, one transaction per migration; returns the version.

    Raises `SchemaTooNew` if the database is newer than this code knows.
    """
    while True:
        await db.execute("BEGIN IMMEDIATE")
        try:
            # Read under the write lock: another process may have migrated meanwhile.
            version = await user_version(db)
            if version > LATEST_VERSION:
                raise SchemaTooNew(path, version, LATEST_VERSION)
            if version >= target:
                await db.execute("COMMIT")
                return version
            migration = MIGRATIONS[version]
            for statement in migration.statements:
                await db.execute(statement)
            await db.execute(f"PRAGMA user_version = {migration.version}")
            await db.execute("COMMIT")
            log.info(
                "%s: schema now at version %d (%s)", path, migration.version, migration.description
            )
        except BaseException:
            if db.in_transaction:
                await db.execute("ROLLBACK")
            raise
