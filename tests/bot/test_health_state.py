"""``/healthz`` answers from what the running bot already knows (issue 50, item 9): no
Bot API call, no database lock, no database path in its body, however often it is asked.
"""

from __future__ import annotations

import dataclasses
import sqlite3
import time
from pathlib import Path

import aiohttp
from bot_harness import FAST, _new_database, settings_for

from bot.app import build_application, polling
from bot.sandbox_runner import free_port
from bot.telegram.health import attach_health_server
from engine import native
from sandbox.testing import running_double
from storage.upgrade import latest_version

REQUESTS = 200


async def test_healthz_asks_neither_telegram_nor_the_database(tmp_path: Path) -> None:
    database = tmp_path / "private-folder" / "hearts.sqlite3"
    async with running_double() as double:
        await _new_database(database)
        port = free_port()
        settings = dataclasses.replace(
            settings_for(double, database), health_port=port, webhook_listen="127.0.0.1"
        )
        app = build_application(settings, FAST)
        attach_health_server(app, settings)
        async with polling(app, poll_timeout=1), aiohttp.ClientSession() as session:
            url = f"http://127.0.0.1:{port}/healthz"
            get_me = double.call_count("getMe")
            # Another process holds the database's write lock the whole time.
            holder = sqlite3.connect(database, isolation_level=None)
            holder.execute("BEGIN EXCLUSIVE")
            try:
                began = time.monotonic()
                bodies = []
                for _ in range(REQUESTS):
                    async with session.get(url) as response:
                        assert response.status == 200, await response.text()
                        bodies.append(await response.text())
                took = time.monotonic() - began
            finally:
                holder.execute("ROLLBACK")
                holder.close()
            print(f"{REQUESTS} /healthz answered in {took:.2f} s")
            assert double.call_count("getMe") == get_me  # no Bot API call at all
            body = bodies[-1]
            for secret in ("private-folder", str(database), double.token):
                assert secret not in body
            async with session.get(url) as response:
                answer = await response.json()
        assert took < REQUESTS * 0.1  # never the database's 5 s busy timeout
    checks = {c["name"]: c for c in answer["checks"]}
    assert list(checks) == ["database", "schema", "bot_api", "writes"]
    assert all(c["ok"] for c in checks.values()), checks
    assert checks["schema"]["detail"] == f"schema version {latest_version()} is current"
    assert checks["bot_api"]["detail"].startswith("the Bot API answered getMe as @hearts_test_bot")
    assert answer["account"] == {"id": settings.account, "username": "hearts_test_bot"}
    assert answer["role"] == "single"
    assert answer["engine"] == native.build()  # compiled or pure: which build runs


async def test_healthz_says_when_the_bot_api_stopped_answering(tmp_path: Path) -> None:
    """From the bot's own last request: Telegram failing is seen without asking it."""
    database = tmp_path / "hearts.sqlite3"
    async with running_double() as double:
        await _new_database(database)
        port = free_port()
        settings = dataclasses.replace(
            settings_for(double, database), health_port=port, webhook_listen="127.0.0.1"
        )
        app = build_application(settings, FAST)
        attach_health_server(app, settings)
        async with polling(app, poll_timeout=1), aiohttp.ClientSession() as session:
            url = f"http://127.0.0.1:{port}/healthz"
            double.fail("getUpdates", "500", times=1_000)
            polls = double.call_count("getUpdates")
            await double.wait_for(lambda: double.call_count("getUpdates") > polls + 1, 10)
            async with session.get(url) as response:
                assert response.status == 503
                failing = {c["name"]: c for c in (await response.json())["checks"]}
            double.fail("getUpdates", None)
            polls = double.call_count("getUpdates")
            await double.wait_for(lambda: double.call_count("getUpdates") > polls + 1, 10)
            async with session.get(url) as response:
                assert response.status == 200
    assert failing["bot_api"]["ok"] is False
    assert "server error" in failing["bot_api"]["detail"]
