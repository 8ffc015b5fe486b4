"""Alembic's environment for the bot's database, SQLite or PostgreSQL.

The bot runs it through `storage.upgrade.upgrade_schema` on its own connection (passed in
``config.attributes["connection"]``, inside the transaction that already holds the
database's write lock). A developer runs it with the ``alembic`` command from the
repository's top folder (``alembic.ini``), on the database named by ``DATABASE_URL`` (a
``postgresql://`` URL or a SQLite path; default ``data/hearts.db``):

    alembic upgrade head
    alembic revision --autogenerate -m "what changes"
    alembic check

A new revision is numbered after the newest (``11``, ``12``…): its number is the schema's
version, and Alembic's ``alembic_version`` is its only record.
"""

from __future__ import annotations

import asyncio
import os
from logging.config import fileConfig
from typing import Any

from alembic import context
from alembic.operations.ops import MigrationScript
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection

from storage.schema import metadata
from storage.upgrade import comparison_options, upgrade_engine

config = context.config


def number_revisions(
    migration: MigrationContext, revision: Any, directives: list[MigrationScript]
) -> None:
    """A new revision's id is the next version number, so revisions sort and compare."""
    head = ScriptDirectory.from_config(config).get_current_head()
    directives[0].rev_id = str(int(head) + 1) if head else "10"


def run(connection: Connection) -> None:
    dialect = connection.dialect.name
    context.configure(
        connection=connection,
        target_metadata=metadata,
        render_as_batch=dialect == "sqlite",
        # SQLite's DDL runs inside the transaction too (storage.upgrade begins it).
        transactional_ddl=True,
        process_revision_directives=number_revisions,
        **comparison_options(dialect),  # type: ignore[arg-type]
    )
    with context.begin_transaction():
        context.run_migrations()


async def run_from_command_line() -> None:
    address = os.environ.get("DATABASE_URL") or config.get_main_option("database") or ""
    engine = upgrade_engine(address.removeprefix("sqlite:///"))
    try:
        async with engine.begin() as connection:
            await connection.run_sync(run)
    finally:
        await engine.dispose()


if context.is_offline_mode():
    raise SystemExit("The bot's migrations run on a database, not as SQL printed offline.")
given = config.attributes.get("connection")
if given is not None:
    run(given)
else:
    if config.config_file_name is not None:
        fileConfig(config.config_file_name)
    asyncio.run(run_from_command_line())
