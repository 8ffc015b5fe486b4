"""What is PostgreSQL's own: its errors said in one sentence, the schema created once under
a lock, a newer schema refused, and the SQL spelled for it (by SQLAlchemy)."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest
from sqlalchemy import bindparam
from sqlalchemy.dialects import postgresql, sqlite

from sandbox.postgres_server import PASSWORD, PostgresServer
from storage import SchemaTooNew, Storage, StorageError, open_storage, schema
from storage.checks import check_postgres
from storage.database import Database
from storage.migrations import LATEST_VERSION
from storage.postgres import SCHEMA_VERSION


def test_each_dialect_has_its_own_spelling_written_out() -> None:
    """Where the databases differ (an insert that ignores a conflict, a JSON field, a NULL
    compared), each is spelled by SQLAlchemy for its dialect: no SQL text is rewritten."""
    claims = schema.tournament_claims
    for name, dialect, ignore, field, same in (
        (
            "sqlite",
            sqlite.dialect(),
            "ON CONFLICT DO NOTHING",
            "json_extract(moves.move, ?)",
            "games.thread_id IS ?",  # SQLite's IS compares NULLs too
        ),
        (
            "postgresql",
            postgresql.dialect(),
            "ON CONFLICT DO NOTHING",
            "CAST(CAST(moves.move AS JSONB) ->> %(param_1)s AS BIGINT)",
            "games.thread_id IS NOT DISTINCT FROM %(thread_id_1)s",
        ),
    ):
        database = Database(name, "", ())  # type: ignore[arg-type]
        insert = database.insert(claims).on_conflict_do_nothing()
        assert str(insert.compile(dialect=dialect)).endswith(ignore)
        json_int = database.json_int(schema.moves.c.move, "seat")
        assert str(json_int.compile(dialect=dialect)) == field
        compared = schema.games.c.thread_id.is_not_distinct_from(bindparam("thread_id_1"))
        assert str(compared.compile(dialect=dialect)) == same


async def test_bad_addresses_get_one_sentence_without_the_password(
    postgres: PostgresServer,
) -> None:
    url = await postgres.database()
    wrong_password = url.replace(PASSWORD, "not-the-password")
    missing = url.rsplit("/", 1)[0] + "/no_such_database"
    closed = url.replace(f":{postgres.port}/", ":1/")
    for address, said in (
        (wrong_password, "refused the user name or password"),
        (missing, "that database does not exist"),
        (closed, "cannot be reached"),
    ):
        with pytest.raises(StorageError) as refused:
            await open_storage(address)
        message = str(refused.value)
        assert said in message and "PostgreSQL at postgresql://hearts@127.0.0.1" in message
        assert PASSWORD not in message and "not-the-password" not in message
        [check] = await check_postgres(address)
        assert not check.ok and said in check.detail and PASSWORD not in check.detail


async def test_two_processes_starting_at_once_create_the_schema_once(
    postgres: PostgresServer,
) -> None:
    url = await postgres.database()
    stores = await asyncio.gather(*(Storage.open(url) for _ in range(4)))
    for store in stores:
        await store.close()
    connection = await asyncpg.connect(url)
    try:
        assert await connection.fetch("SELECT version FROM schema_version") == [(SCHEMA_VERSION,)]
    finally:
        await connection.close()
    checks = await check_postgres(url)
    assert [(c.name, c.ok) for c in checks] == [("database", True), ("schema", True)]


async def test_a_database_of_a_newer_schema_is_refused(postgres: PostgresServer) -> None:
    url = await postgres.database()
    await (await Storage.open(url)).close()
    connection = await asyncpg.connect(url)
    try:
        await connection.execute("UPDATE schema_version SET version = $1", LATEST_VERSION + 1)
    finally:
        await connection.close()
    with pytest.raises(SchemaTooNew, match="Upgrade the bot"):
        await open_storage(url)
    [_, schema] = await check_postgres(url)
    assert not schema.ok and "newer" in schema.detail


async def test_a_database_of_version_9_is_brought_up_to_date(postgres: PostgresServer) -> None:
    """A database created before the ledger kept answers (version 9) gets the columns the
    presses' answers need, once, when the bot opens it."""
    url = await postgres.database()
    await (await Storage.open(url)).close()
    connection = await asyncpg.connect(url)
    try:
        await connection.execute("DROP INDEX handled_unanswered")
        for column in ("callback_id", "answer", "answered_at"):
            await connection.execute(f"ALTER TABLE handled_updates DROP COLUMN {column}")
        await connection.execute("UPDATE schema_version SET version = 9")
        await connection.execute(
            "INSERT INTO handled_updates (update_id, handled_at) VALUES (41, 1)"
        )
    finally:
        await connection.close()
    store = await Storage.open(url)
    try:
        assert await store.ledger.was_handled(41)
        assert await store.ledger.unanswered(0) == []
    finally:
        await store.close()
    connection = await asyncpg.connect(url)
    try:
        assert await connection.fetchval("SELECT version FROM schema_version") == SCHEMA_VERSION
        columns = await connection.fetch(
            "SELECT column_name FROM information_schema.columns"
            " WHERE table_name = 'handled_updates'"
        )
        assert {"callback_id", "answer", "answered_at"} <= {c[0] for c in columns}
    finally:
        await connection.close()
