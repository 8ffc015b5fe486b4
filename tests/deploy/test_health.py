"""The health check: ``hearts-bot check`` and ``GET /healthz``."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.__main__ import main
from bot.config import Settings
from bot.sandbox_runner import free_port
from bot.telegram.health import HealthServer, Known
from storage import open_storage
from storage.checks import Check, check_database
from storage.upgrade import latest_version

LATEST_VERSION = latest_version()


def make_database(path: Path) -> Path:
    async def create() -> None:
        storage = await open_storage(path)
        await storage.close()

    asyncio.run(create())
    return path


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_bot_api: Any) -> Path:
    """Environment for the CLI: the pretend Bot API and a database path; no .env file."""
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith(("WEBHOOK_", "HEALTH_", "TELEGRAM_", "LOG_")):
            monkeypatch.delenv(name)
    database = tmp_path / "data" / "hearts.sqlite3"
    monkeypatch.setenv("BOT_TOKEN", fake_bot_api.token)
    monkeypatch.setenv("TELEGRAM_API_BASE_URL", fake_bot_api.base_url)
    monkeypatch.setenv("DATABASE_PATH", str(database))
    return database


def test_check_passes(env: Path, capsys: pytest.CaptureFixture[str], fake_bot_api: Any) -> None:
    make_database(env)
    assert main(["check"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in out] == [
        "ok   database",
        "ok   schema",
        "ok   integrity",
        "ok   bot_api",
    ]
    assert "@hearts_test_bot" in out[3]
    assert "getMe" in fake_bot_api.methods()


def test_check_fails_without_a_database(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check"]) == 1
    out = capsys.readouterr().out
    assert "FAIL database:" in out and "does not exist yet" in out


def test_check_fails_on_a_rejected_token(
    env: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    make_database(env)
    other = "987654321:ZZZ-abcdefghijklmnopqrstuvwxyz_0123456789"
    monkeypatch.setenv("BOT_TOKEN", other)
    assert main(["check"]) == 1
    captured = capsys.readouterr()
    assert "FAIL bot_api:" in captured.out and "rejected BOT_TOKEN" in captured.out
    assert "(bot account 987654321)" in captured.out  # which bot, never its secret
    assert other.split(":")[1] not in captured.out + captured.err


def test_check_fails_when_the_api_is_unreachable(
    env: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    unused_port: int,
    fake_bot_api: Any,
) -> None:
    make_database(env)
    monkeypatch.setenv("TELEGRAM_API_BASE_URL", f"http://127.0.0.1:{unused_port}/bot")
    assert main(["check"]) == 1
    captured = capsys.readouterr()
    assert "FAIL bot_api:" in captured.out and "cannot be reached" in captured.out
    assert fake_bot_api.token.split(":")[1] not in captured.out + captured.err


def _set_revision(path: Path, revision: str) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE alembic_version SET version_num = ?", (revision,))


def test_schema_behind_or_ahead(tmp_path: Path) -> None:
    path = make_database(tmp_path / "h.sqlite3")
    _set_revision(path, str(LATEST_VERSION - 1))
    database, schema, integrity = check_database(path)
    assert database.ok and not schema.ok and "older" in schema.detail
    assert integrity.ok  # the tables are compared once the bot has upgraded it
    _set_revision(path, "99")
    assert "upgrade the bot" in check_database(path)[1].detail


def test_check_reads_the_version_record_the_bot_reads(tmp_path: Path) -> None:
    """Alembic's revision, the one record (``user_version``, code before Alembic's, is
    0), says newer: the bot refuses it, and so does ``check``."""
    from storage.errors import SchemaTooNew

    path = make_database(tmp_path / "h.sqlite3")
    _set_revision(path, str(LATEST_VERSION + 1))
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 0
    database, schema = check_database(path)
    assert database.ok and not schema.ok and "newer" in schema.detail
    with pytest.raises(SchemaTooNew):
        make_database(path)
    # A version from before Alembic the bot never wrote (above 10, without a revision):
    # refused by both, too.
    with sqlite3.connect(path) as conn:
        conn.execute("DROP TABLE alembic_version")
        conn.execute(f"PRAGMA user_version = {LATEST_VERSION}")
    assert not check_database(path)[1].ok
    with pytest.raises(SchemaTooNew):
        make_database(path)


def test_check_finds_a_dropped_table(tmp_path: Path) -> None:
    path = make_database(tmp_path / "h.sqlite3")
    assert all(c.ok for c in check_database(path))
    with sqlite3.connect(path) as conn:
        conn.execute("DROP TABLE moves")
    [*_, integrity] = check_database(path)
    assert not integrity.ok and "table moves missing" in integrity.detail


def test_check_finds_a_corrupted_page(tmp_path: Path) -> None:
    path = make_database(tmp_path / "h.sqlite3")

    async def fill() -> None:
        storage = await open_storage(path)
        try:
            for i in range(300):
                await storage.people.upsert_user(i + 1, f"Person {i} " + "x" * 200, None)
        finally:
            await storage.close()

    asyncio.run(fill())
    with sqlite3.connect(path) as conn:
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        # A page of the users table's own b-tree (not the first: the header and schema).
        (page,) = conn.execute(
            "SELECT max(pageno) FROM dbstat WHERE name = 'users' AND pagetype = 'leaf'"
        ).fetchone()
    assert page > 1
    with path.open("r+b") as file:
        file.seek((page - 1) * page_size + 8)
        file.write(b"\xff" * 64)
    database, schema, integrity = check_database(path)
    assert database.ok and schema.ok  # the header and the schema's page are fine
    assert not integrity.ok and "damaged" in integrity.detail


def test_fails_while_another_writer_holds_the_lock(tmp_path: Path) -> None:
    path = make_database(tmp_path / "h.sqlite3")
    holder = sqlite3.connect(path, isolation_level=None)
    try:
        holder.execute("BEGIN EXCLUSIVE")
        (database,) = check_database(path, busy_timeout_s=0.1)
    finally:
        holder.close()
    assert not database.ok and "cannot be written" in database.detail
    assert all(c.ok for c in check_database(path))


def check_as_nobody(path: Path) -> list[Check]:
    """`check_database` in a forked child that dropped root for the "nobody" user."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: no exec, so the interpreter's files need not be readable
        status = 1
        try:
            os.close(read_end)
            os.setgid(65534)
            os.setuid(65534)
            result = json.dumps([asdict(c) for c in check_database(path)]).encode()
            os.write(write_end, result)
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        data = pipe.read()
    _, status = os.waitpid(pid, 0)
    assert status == 0 and data, "the child check ran"
    return [Check(**c) for c in json.loads(data)]


def test_fails_when_the_database_is_not_writable() -> None:
    # A real permission failure. Root ignores file modes, so as root the check runs in a
    # child that became "nobody"; otherwise the file and folder are made read-only.
    folder = Path(tempfile.mkdtemp(prefix="hearts-ro-"))
    try:
        folder.chmod(0o755)
        path = make_database(folder / "h.sqlite3")
        path.chmod(0o644)
        if os.geteuid() == 0:
            checks = check_as_nobody(path)
        else:
            path.chmod(0o444)
            folder.chmod(0o555)
            checks = check_database(path)
        assert not checks[0].ok, checks
        assert "cannot be" in checks[0].detail
    finally:
        folder.chmod(0o755)
        for child in folder.iterdir():
            child.unlink()
        folder.rmdir()


async def test_healthz_answers_from_what_it_is_told(tmp_path: Path, unused_port: int) -> None:
    """`Known`: the bot's own state, read at each request (nothing asked of the database
    or Telegram; `tests/bot/test_health_state.py` runs it in the bot)."""
    failure: list[str | None] = [None]
    settings = Settings(
        bot_token="1:x", database_path=tmp_path / "h.sqlite3", health_port=unused_port
    )
    known = Known(
        settings,
        write_failure=lambda: failure[0],
        username=lambda: "hearts_test_bot",
        last_request=lambda: "ok",
    )
    server = HealthServer(settings, known)
    await server.start(host="127.0.0.1")
    try:
        async with aiohttp.ClientSession() as session:
            async with session.get(f"http://127.0.0.1:{unused_port}/healthz") as response:
                assert response.status == 200
                body = await response.json()
            failure[0] = f"disk I/O error at {tmp_path / 'h.sqlite3'}"
            async with session.get(f"http://127.0.0.1:{unused_port}/healthz") as response:
                assert response.status == 503
                failed = await response.text()
    finally:
        await server.stop()
        await server.stop()
    assert body["ok"] is True
    assert [c["name"] for c in body["checks"]] == ["database", "schema", "bot_api", "writes"]
    # It names the bot account it serves: its id (the token's prefix) and @username.
    assert body["account"] == {"id": 1, "username": "hearts_test_bot"}
    assert body["checks"][2]["detail"].endswith("as @hearts_test_bot (bot account 1)")
    assert "disk I/O error at the database" in failed and str(tmp_path) not in failed


async def test_on_postgresql_healthz_says_the_role_and_check_names_the_leader(
    unused_port: int, postgres: Any
) -> None:
    from bot.leader import process_name
    from bot.telegram.health import ROLE, run_checks
    from storage.postgres import Leadership

    url = await postgres.database()
    await (await open_storage(url)).close()

    class Me:
        username = "hearts_test_bot"

    async def get_me() -> Me:
        return Me()

    settings = Settings(bot_token="1:x", database_url=url, health_port=unused_port)
    checks = await run_checks(settings, get_me)
    assert [(c.name, c.ok) for c in checks][:4] == [
        ("database", True),
        ("schema", True),
        ("integrity", True),
        ("leader", False),  # nobody leads yet
    ]
    leading = await Leadership.wait(url, process_name())
    server = HealthServer(settings, Known(settings))
    await server.start(host="127.0.0.1")
    try:
        checks = await run_checks(settings, get_me)
        [leader] = [c for c in checks if c.name == "leader"]
        assert not leader.ok  # the lock taken is account 0's, not this bot's (account 1)
        leading_1 = await Leadership.wait(url, process_name(), account=1)
        checks = await run_checks(settings, get_me)
        [leader] = [c for c in checks if c.name == "leader"]
        await leading_1.release()
        assert leader.ok and leader.detail == f"{process_name()} leads bot account 1"
        for role in ("standby", "leader"):
            ROLE.name = role
            async with (
                aiohttp.ClientSession() as session,
                session.get(f"http://127.0.0.1:{unused_port}/healthz") as response,
            ):
                assert (await response.json())["role"] == role
    finally:
        ROLE.name = "single"
        await server.stop()
        await leading.release()


async def test_metrics_beside_healthz_say_leader_or_standby(
    tmp_path: Path, unused_port: int
) -> None:
    """``/metrics`` on the health port, as a standby serves it while it waits for the lock
    (`bot.leader.take_lead`): whatever the process is now, read at each scrape; a server
    given no metrics answers 404 there."""
    from prometheus_client.parser import text_string_to_metric_families

    from bot.metrics import Metrics, account_of
    from bot.telegram.health import ROLE

    settings = Settings(bot_token="42:secret", database_path=tmp_path / "h.sqlite3")
    metrics = Metrics(account_of(settings.bot_token), role=lambda: ROLE.name)
    server = HealthServer(settings, scrape=metrics.text)
    bare = HealthServer(settings)
    await server.start(host="127.0.0.1", port=unused_port)
    try:
        async with aiohttp.ClientSession() as session:
            for role in ("standby", "leader"):
                ROLE.name = role
                async with session.get(f"http://127.0.0.1:{unused_port}/metrics") as response:
                    assert response.status == 200
                    text = await response.text()
                roles = {
                    s.labels["role"]: s.value
                    for f in text_string_to_metric_families(text)
                    for s in f.samples
                    if s.name == "hearts_role"
                }
                assert roles == {
                    "single": 0,
                    "standby": int(role == "standby"),
                    "leader": int(role == "leader"),
                    "lost": 0,
                }
                assert 'account="42"' in text and "secret" not in text
            # A port the system says is free now (the one after `unused_port` was a guess,
            # and another test often held it: the check was skipped).
            other = free_port()
            await bare.start(host="127.0.0.1", port=other)
            async with session.get(f"http://127.0.0.1:{other}/metrics") as response:
                assert response.status == 404
    finally:
        ROLE.name = "single"
        await server.stop()
        await bare.stop()


async def test_on_postgresql_check_finds_a_dropped_table_and_a_newer_revision(
    postgres: Any,
) -> None:
    import asyncpg

    from storage.checks import check_postgres
    from storage.errors import SchemaTooNew

    url = await postgres.database()
    await (await open_storage(url)).close()
    assert all(c.ok for c in await check_postgres(url))
    connection = await asyncpg.connect(url)
    try:
        await connection.execute("DROP TABLE moves CASCADE")
        [*_, integrity] = await check_postgres(url)
        assert not integrity.ok and "table moves missing" in integrity.detail
        # Alembic's revision, the one record, newer: the bot refuses it, and so does check.
        await connection.execute(
            "UPDATE alembic_version SET version_num = $1", str(LATEST_VERSION + 1)
        )
        assert await connection.fetchval("SELECT to_regclass('schema_version')") is None
    finally:
        await connection.close()
    [database, schema] = await check_postgres(url)
    assert database.ok and not schema.ok and "newer" in schema.detail
    with pytest.raises(SchemaTooNew):
        await open_storage(url)
