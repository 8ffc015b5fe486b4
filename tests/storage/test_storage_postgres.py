"""What is PostgreSQL's own: its errors said in one sentence, the schema created once under
a lock, a newer schema refused, and the SQL spelled for it."""

from __future__ import annotations

import asyncio
import os
from typing import Any

import asyncpg
import pytest
from sqlalchemy import bindparam
from sqlalchemy.dialects import postgresql, sqlite
from storage_testkit import play_stored

from engine import Rules
from sandbox.postgres_server import PASSWORD, PostgresServer
from storage import (
    SchemaTooNew,
    Storage,
    StorageError,
    StorageUnavailable,
    open_storage,
    schema,
)
from storage import database as database_module
from storage.checks import check_postgres
from storage.database import Database
from storage.upgrade import latest_version

LATEST_VERSION = latest_version()


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
        # Alembic's record only: none where code before Alembic read it.
        assert await connection.fetchval("SELECT to_regclass('schema_version')") is None
        assert await connection.fetch("SELECT version_num FROM alembic_version") == [
            (str(LATEST_VERSION),)
        ]
    finally:
        await connection.close()
    checks = await check_postgres(url)
    assert [(c.name, c.ok) for c in checks] == [
        ("database", True),
        ("schema", True),
        ("integrity", True),
    ]


async def test_a_database_of_a_newer_schema_is_refused(postgres: PostgresServer) -> None:
    url = await postgres.database()
    await (await Storage.open(url)).close()
    connection = await asyncpg.connect(url)
    try:
        # A later bot's revision.
        await connection.execute(
            "UPDATE alembic_version SET version_num = $1", str(LATEST_VERSION + 1)
        )
    finally:
        await connection.close()
    with pytest.raises(SchemaTooNew, match="Upgrade the bot"):
        await open_storage(url)
    [_, schema] = await check_postgres(url)
    assert not schema.ok and "newer" in schema.detail


async def test_a_newer_database_from_before_alembic_is_refused(postgres: PostgresServer) -> None:
    url = await postgres.database()
    connection = await asyncpg.connect(url)
    try:
        await connection.execute("CREATE TABLE schema_version (version BIGINT NOT NULL)")
        await connection.execute("INSERT INTO schema_version VALUES (11)")
    finally:
        await connection.close()
    with pytest.raises(SchemaTooNew, match="at schema version 11"):
        await open_storage(url)
    connection = await asyncpg.connect(url)
    try:  # untouched
        assert await connection.fetchval("SELECT to_regclass('alembic_version')") is None
        assert await connection.fetchval("SELECT to_regclass('games')") is None
    finally:
        await connection.close()


async def undo_revision_13(connection: asyncpg.Connection) -> None:
    """Bot accounts' tables, columns and the handled updates' key, undone by hand."""
    for table in ("accounts", "open_dms", "served_chats", "served_chats_told"):
        await connection.execute(f"DROP TABLE {table}")
    await connection.execute("DROP INDEX games_open_by_account")
    for table in ("games", "tournaments"):
        await connection.execute(f"ALTER TABLE {table} DROP COLUMN account")
    await connection.execute("ALTER TABLE handled_updates DROP CONSTRAINT handled_updates_pkey")
    await connection.execute("ALTER TABLE handled_updates DROP COLUMN account")
    await connection.execute("ALTER TABLE handled_updates ADD PRIMARY KEY (update_id)")


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
        await undo_revision_13(connection)
        await connection.execute("ALTER TABLE games DROP COLUMN deal_key")  # revision 11's
        await connection.execute("DROP TABLE table_screens")  # revision 16's
        await connection.execute("DROP TABLE live_seats")  # revision 15's
        await connection.execute("DROP TABLE daily_posts")  # revision 14's
        await connection.execute("DROP TABLE daily_games")  # revision 12's
        await connection.execute("DROP TABLE daily_secret")
        await connection.execute("CREATE TABLE schema_version (version BIGINT NOT NULL)")
        await connection.execute("INSERT INTO schema_version VALUES (9)")
        await connection.execute("DROP TABLE alembic_version")  # as before Alembic
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
        assert await connection.fetchval("SELECT to_regclass('schema_version')") is None
        columns = await connection.fetch(
            "SELECT column_name FROM information_schema.columns"
            " WHERE table_name = 'handled_updates'"
        )
        assert {"callback_id", "answer", "answered_at"} <= {c[0] for c in columns}
    finally:
        await connection.close()


async def test_a_database_of_version_8_is_brought_up_to_date(postgres: PostgresServer) -> None:
    """PostgreSQL's first schema (version 8, before the ledger of handled updates) gets the
    ledger and its answers' columns when the bot opens it; its games stay."""
    url = await postgres.database()
    store = await Storage.open(url)
    game_id, game = await play_stored(store, Rules(players=3, target=30), seed=3, user_ids=[7])
    await store.close()
    connection = await asyncpg.connect(url)
    try:
        await undo_revision_13(connection)
        await connection.execute("DROP TABLE handled_updates")
        await connection.execute("ALTER TABLE games DROP COLUMN deal_key")  # revision 11's
        await connection.execute("DROP TABLE table_screens")  # revision 16's
        await connection.execute("DROP TABLE live_seats")  # revision 15's
        await connection.execute("DROP TABLE daily_posts")  # revision 14's
        await connection.execute("DROP TABLE daily_games")  # revision 12's
        await connection.execute("DROP TABLE daily_secret")
        await connection.execute("CREATE TABLE schema_version (version BIGINT NOT NULL)")
        await connection.execute("INSERT INTO schema_version VALUES (8)")
        await connection.execute("DROP TABLE alembic_version")  # as before Alembic
    finally:
        await connection.close()
    store = await Storage.open(url)
    try:
        assert not await store.ledger.was_handled(41)
        loaded = await store.games.load_game(game_id)
        assert loaded.game is not None and loaded.game.to_json() == game.to_json()
    finally:
        await store.close()
    checks = await check_postgres(url)
    assert [(c.name, c.ok) for c in checks] == [
        ("database", True),
        ("schema", True),
        ("integrity", True),
    ]


async def test_a_url_with_libpq_parameters_opens(postgres: PostgresServer) -> None:
    """The schema's upgrade reads the address as asyncpg does, like the storage's pool."""
    url = await postgres.database()
    store = await open_storage(url + "?sslmode=disable&application_name=hearts")
    await store.close()
    checks = await check_postgres(url)
    assert [(c.name, c.ok) for c in checks] == [
        ("database", True),
        ("schema", True),
        ("integrity", True),
    ]


async def test_a_version_the_bot_never_wrote_is_refused(postgres: PostgresServer) -> None:
    """PostgreSQL's schema began at version 8: a lower one is not the bot's database."""
    url = await postgres.database()
    connection = await asyncpg.connect(url)
    try:
        await connection.execute("CREATE TABLE schema_version (version BIGINT NOT NULL)")
        await connection.execute("INSERT INTO schema_version VALUES (5)")
    finally:
        await connection.close()
    with pytest.raises(StorageError, match="schema_version 5 was never written"):
        await open_storage(url)
    connection = await asyncpg.connect(url)
    try:
        assert await connection.fetchval("SELECT to_regclass('alembic_version')") is None
    finally:
        await connection.close()


class _Relay:
    """A TCP relay to the server, which a test can cut: every connection through it
    dropped and then ``refuse`` (nothing listens: connection refused) or ``silent`` (it
    accepts and never answers: the connection times out)."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.mode = "forward"
        self.port = 0
        self._server: asyncio.Server | None = None
        self._open: list[asyncio.StreamWriter] = []

    async def start(self) -> _Relay:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._open.append(writer)
        if self.mode != "forward":
            return  # held open, never answered
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target)
        self._open.append(up_writer)

        async def pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            try:
                while data := await source.read(65536):
                    sink.write(data)
                    await sink.drain()
            except OSError:
                pass
            finally:
                sink.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    async def cut(self, mode: str) -> None:
        self.mode = mode
        if mode == "refuse" and self._server is not None:
            self._server.close()
        for writer in self._open:
            writer.close()
        self._open.clear()


async def _said_when_cut(store: Storage) -> tuple[list[str], list[str]]:
    """What three writes and three reads say once the server is out of reach (the first
    of each may find its pooled connection dead; the next must connect anew)."""
    written, read = [], []
    for _ in range(3):
        with pytest.raises(StorageUnavailable) as refused:
            await store.people.upsert_user(7, "Ann", None)
        written.append(str(refused.value))
        with pytest.raises(StorageUnavailable) as refused:
            await store.people.get_user(7)
        read.append(str(refused.value))
    return written, read


@pytest.mark.parametrize("cut", ["refuse", "silent"])
async def test_a_server_out_of_reach_after_opening_is_unavailable_in_one_sentence(
    postgres: PostgresServer, monkeypatch: pytest.MonkeyPatch, cut: str
) -> None:
    """A server that stops answering after the bot opened it (refused, or silent until the
    connection times out): every write and read raises `StorageUnavailable` saying why in
    one sentence, never the password, and `write_failure` says it too."""
    url = await postgres.database()
    relay = await _Relay(postgres.port).start()
    store = await open_storage(url.replace(f":{postgres.port}/", f":{relay.port}/"))
    try:
        await store.people.upsert_user(7, "Ann", None)
        assert await store.people.get_user(7) is not None
        monkeypatch.setattr(database_module, "CONNECT_TIMEOUT_S", 0.5)
        await relay.cut(cut)
        written, read = await _said_when_cut(store)
        why = "ConnectionRefusedError" if cut == "refuse" else "TimeoutError"
        for said, doing in ((written, "written"), (read, "read")):
            assert said[-1] == (
                f"the database cannot be {doing}: PostgreSQL at "
                f"postgresql://hearts@127.0.0.1:{relay.port}{url[url.rindex('/') :]} "
                f"cannot be reached ({why}: {said[-1].split(why + ': ', 1)[1]}"
            )
            assert all(PASSWORD not in s for s in said)
        assert store.write_failure is not None and "cannot be reached" in store.write_failure
    finally:
        await store.close()


async def test_a_password_changed_after_opening_is_unavailable_in_one_sentence(
    postgres: PostgresServer,
) -> None:
    url = await postgres.database()
    role = f"ann_{os.getpid()}"
    admin = await asyncpg.connect(url)
    try:
        await admin.execute(f"CREATE ROLE {role} LOGIN PASSWORD 'first-secret'")
        database = f"{role}_db"
        await admin.execute(f"CREATE DATABASE {database} OWNER {role}")
        store = await open_storage(
            f"postgresql://{role}:first-secret@127.0.0.1:{postgres.port}/{database}"
        )
        try:
            await store.people.upsert_user(7, "Ann", None)
            await admin.execute(f"ALTER ROLE {role} PASSWORD 'second-secret'")
            await admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1",
                role,
            )
            written, read = await _said_when_cut(store)
            where = f"PostgreSQL at postgresql://{role}@127.0.0.1:{postgres.port}/{database}"
            assert written[-1] == (
                f"the database cannot be written: {where} refused the user name or password."
            )
            assert read[-1] == (
                f"the database cannot be read: {where} refused the user name or password."
            )
            assert all("secret" not in s for s in written + read)
        finally:
            await store.close()
            await admin.execute(f"DROP DATABASE {database} WITH (FORCE)")
    finally:
        await admin.execute(f"DROP ROLE IF EXISTS {role}")
        await admin.close()


async def test_no_connection_free_within_the_pools_timeout_is_unavailable(
    postgres: PostgresServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every connection of the pool held by a write: the next write waits the pool's
    timeout, then raises `StorageUnavailable` saying so (not SQLAlchemy's own error)."""
    monkeypatch.setattr(database_module, "POOL_TIMEOUT_S", 0.5)
    store = await open_storage(await postgres.database())
    held = 0
    release = asyncio.Event()

    async def held_until_released(driver: Any) -> None:
        nonlocal held
        await driver.execute("SELECT 1")
        held += 1
        await release.wait()

    async def hold() -> None:
        await store.database.on_driver(held_until_released)

    holders = [asyncio.create_task(hold()) for _ in range(database_module.POOL_SIZE)]
    try:
        while held < database_module.POOL_SIZE:
            await asyncio.sleep(0.01)
        with pytest.raises(StorageUnavailable) as refused:
            await store.people.upsert_user(7, "Ann", None)
        assert str(refused.value) == (
            "the database cannot be written: all 4 of its connections stayed busy for 0.5 s"
        )
    finally:
        release.set()
        await asyncio.gather(*holders)
    await store.people.upsert_user(7, "Ann", None)  # and once one is free, it goes through
    await store.close()


async def test_a_move_runs_its_compiled_statements_on_asyncpg_and_stores_the_same(
    postgres: PostgresServer,
) -> None:
    """A move that does not end its game runs the journal's Core statements, compiled
    once, on asyncpg's own connection (SQLAlchemy's work around each statement cost more
    than the statement on the hottest path); the game, its hands and the handled update
    are stored as before, and the last move (results, ratings) still goes through
    SQLAlchemy."""
    from sqlalchemy import Engine, event

    from domain.handling import Handling

    store = await open_storage(await postgres.database())
    sent: list[str] = []

    def count(*args: object) -> None:
        sent.append(str(args[2]))

    event.listen(Engine, "before_cursor_execute", count)
    try:
        game_id, game = await play_stored(
            store, Rules(players=4, target=1), seed=5, user_ids=[1, 2], handled=Handling(5005)
        )
    finally:
        event.remove(Engine, "before_cursor_execute", count)
    try:
        moves = [s for s in sent if s.startswith("INSERT INTO moves")]
        # (one: the last move's, with its results and ratings)
        assert len(moves) == 1 and any(s.startswith("INSERT INTO game_results") for s in sent)
        stored = await store.games.load_game(game_id)
        journal = await store.games.journal(game_id)
        assert stored.status == "finished" and stored.last_seq == len(journal) > 52
        table = await store.standings.game_table(game_id)
        assert table.totals == tuple(game.scores) and len(table.hands) == 1
        assert await store.ledger.was_handled(5005)
    finally:
        await store.close()
