"""Webhook mode against python-telegram-bot's real webhook server on 127.0.0.1.

The application runs through `bot.telegram.webhook.run_webhook` (what ``hearts-bot`` runs) in a
thread with its own event loop; the Bot API it registers the webhook with is the pretend
one from conftest. Requests are then posted the way Telegram (or an attacker) would.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import logging
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from patience import patient, wait_for
from telegram import Update
from telegram.ext import Application, ApplicationBuilder, ContextTypes, TypeHandler

from bot.app import HeartsApp, build_application, rooms_of
from bot.config import Settings, Tuning
from bot.logs import setup_logging
from bot.telegram.health import attach_health_server
from bot.telegram.webhook import SECRET_HEADER, GuardedUpdater, run_webhook, webhook_options
from sandbox.double import BotApiDouble
from sandbox.testing import running_double

SECRET = "right_secret-123" + "x" * 20
WRONG = "wrong_secret-456" + "x" * 20
BODY_MARKER = "BODY-MARKER-do-not-log"


@dataclass
class Running:
    settings: Settings
    app: Application[Any, Any, Any, Any, Any, Any]
    log: io.StringIO
    received: list[int] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.settings.webhook_port}/{self.settings.webhook_path}"


def listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


def post(url: str, body: dict[str, Any], secret: str | None) -> int:
    headers = {"Content-Type": "application/json"}
    if secret is not None:
        headers["X-Telegram-Bot-Api-Secret-Token"] = secret
    request = urllib.request.Request(url, json.dumps(body).encode(), headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            status: int = response.status
            return status
    except urllib.error.HTTPError as error:
        return error.code


def update(update_id: int) -> dict[str, Any]:
    return {
        "update_id": update_id,
        "message": {
            "message_id": 1,
            "date": 0,
            "chat": {"id": -100, "type": "group", "title": "t"},
            "from": {"id": 5, "is_bot": False, "first_name": "Ann"},
            "text": BODY_MARKER,
        },
    }


@pytest.fixture
def running(
    tmp_path: Path, fake_bot_api: Any, unused_port: int, another_unused_port: int
) -> Iterator[Running]:
    health_port = another_unused_port  # asked of the system: a neighbour may be taken
    settings = Settings(
        bot_token=fake_bot_api.token,
        telegram_api_base_url=fake_bot_api.base_url,
        database_path=tmp_path / "missing.sqlite3",
        webhook_url="https://hearts.example.org/tg/hook",
        webhook_listen="127.0.0.1",
        webhook_port=unused_port,
        webhook_secret=SECRET,
        health_port=health_port,
    )
    log = io.StringIO()
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    setup_logging(settings, stream=log)

    app = (
        ApplicationBuilder()
        .token(settings.bot_token or "")
        .base_url(settings.telegram_api_base_url)
        .build()
    )
    state = Running(settings, app, log)

    async def record(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Remember which updates reached a handler."""
        state.received.append(update.update_id)

    app.add_handler(TypeHandler(Update, record))
    attach_health_server(app, settings)
    loops: list[asyncio.AbstractEventLoop] = []
    errors: list[BaseException] = []

    def serve() -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        loops.append(loop)
        try:
            run_webhook(app, settings, stop_signals=None)
        except BaseException as exc:  # surfaced by the assertion below
            errors.append(exc)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        wait_for(lambda: app.running or bool(errors), "the application to start")
        assert not errors, errors
        assert listening(unused_port)
        yield state
    finally:
        deadline = time.monotonic() + patient(10)
        while thread.is_alive() and time.monotonic() < deadline:
            if app.running and not loops[0].is_closed():
                loops[0].call_soon_threadsafe(app.stop_running)
            thread.join(timeout=0.1)
        for handler in list(root.handlers):
            if handler not in handlers:
                root.removeHandler(handler)
        root.setLevel(level)
    assert not thread.is_alive(), "the application stopped"


def _raw_post(port: int, path: str, headers: dict[str, str], length: int, send: int) -> int:
    """POST with a Content-Length of `length`, sending `send` bytes of it; the status (0
    when the server closed the connection without answering)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        sock.sendall(
            f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Content-Length: {length}\r\n{head}\r\n".encode()
        )
        chunk = b"x" * 65536
        try:
            for _ in range(send // len(chunk)):
                sock.sendall(chunk)
        except OSError:
            pass  # the server answered and closed: the rest is not read
        try:
            status_line = sock.recv(200).split(b"\r\n", 1)[0]
        except OSError:
            return 0
    parts = status_line.split()
    return int(parts[1]) if len(parts) > 1 else 0


def _rss_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def test_a_big_body_is_refused_unread_with_or_without_the_secret(running: Running) -> None:
    port, path = running.settings.webhook_port, "/tg/hook"
    before = _rss_kb()
    # 95 MB announced, without the secret, three times: 403 from the headers alone.
    for _ in range(3):
        status = _raw_post(port, path, {}, 95_000_000, send=4_000_000)
        assert status == 403
    # With the secret: 413, unread.
    secret = {"X-Telegram-Bot-Api-Secret-Token": SECRET}
    assert _raw_post(port, path, secret, 95_000_000, send=4_000_000) == 413
    grown_mb = (_rss_kb() - before) / 1024
    assert grown_mb < 10, f"memory grew by {grown_mb:.1f} MB"
    # A normal update with the secret still goes through.
    assert post(running.url, update(9), secret=SECRET) == 200
    wait_for(lambda: 9 in running.received, "update 9 to reach the handler")
    lines = [x for x in running.log.getvalue().splitlines() if "refused with 413" in x]
    assert len(lines) == 1 and "95000000" in lines[0]


def test_webhook_is_registered_with_the_secret(running: Running, fake_bot_api: Any) -> None:
    calls = dict(fake_bot_api.calls)
    assert calls["setWebhook"]["url"] == "https://hearts.example.org/tg/hook"
    assert calls["setWebhook"]["secret_token"] == SECRET
    assert "callback_query" in calls["setWebhook"]["allowed_updates"]


def test_secret_is_checked_on_every_request(running: Running) -> None:
    assert post(running.url, update(1), secret=None) == 403
    assert post(running.url, update(2), secret=WRONG) == 403
    assert post(running.url, update(3), secret=SECRET) == 200
    wait_for(lambda: 3 in running.received, "update 3 to reach the handler")
    time.sleep(0.1)
    assert running.received == [3], "refused updates never reach a handler"

    lines = [line for line in running.log.getvalue().splitlines() if "refused" in line]
    assert len(lines) == 2, running.log.getvalue()
    assert all(
        " WARNING bot.telegram.webhook: webhook request refused with 403" in x for x in lines
    )
    assert "did not include the secret token" in lines[0]
    assert "wrong secret token" in lines[1]
    output = running.log.getvalue()
    assert BODY_MARKER not in output, "the body is never logged"
    assert WRONG not in output and SECRET not in output
    assert running.settings.bot_token is not None
    assert running.settings.bot_token.split(":")[1] not in output


def test_other_paths_are_not_served(running: Running) -> None:
    other = running.url.replace("/tg/hook", "/elsewhere")
    assert post(other, update(4), secret=SECRET) == 404
    assert running.received == []


def test_health_endpoint_in_webhook_mode(running: Running) -> None:
    url = f"http://127.0.0.1:{running.settings.health_port}/healthz"
    wait_for(lambda: listening(running.settings.health_port or 0), "the health endpoint")
    try:
        urllib.request.urlopen(url, timeout=5)
        raise AssertionError("expected 503: the database does not exist")
    except urllib.error.HTTPError as error:
        assert error.code == 503
        body = json.loads(error.read())
    assert body["ok"] is False
    checks = {c["name"]: c for c in body["checks"]}
    assert checks["database"]["ok"] is False and "not open" in checks["database"]["detail"]
    assert checks["bot_api"]["ok"] is True and "@hearts_test_bot" in checks["bot_api"]["detail"]


# ------------------------------------------------- the whole bot, each update posted twice

QUICK = Tuning(
    computer_delay=0.0,
    group_edit_interval=0.0,
    dm_edit_interval=0.0,
    thinker_workers=0,
    rate_limiter=False,
    nudge_delay=0.0,
    engaged_nudge_delay=0.0,
)


@asynccontextmanager
async def webhook_bot(
    double: BotApiDouble, database: Path, port: int, *, times: int
) -> AsyncIterator[HeartsApp]:
    """The bot in webhook mode (`GuardedUpdater`'s server, the order `run_webhook` uses), with
    every update the double has for it posted `times` times at once, as Telegram redelivers
    a webhook request it thinks failed."""
    settings = Settings(
        bot_token=double.token,
        telegram_api_base_url=double.base_url,
        telegram_api_file_url=double.base_file_url,
        database_path=database,
        computer_think_ms=50,
        webhook_url="https://hearts.example.org/tg/hook",
        webhook_listen="127.0.0.1",
        webhook_port=port,
        webhook_secret=SECRET,
    )
    app = build_application(settings, QUICK)
    app.updater = GuardedUpdater(app.bot, app.update_queue)
    url = f"http://127.0.0.1:{port}/tg/hook"

    async def forward(session: aiohttp.ClientSession) -> None:
        while True:
            for body in double.take_updates():
                posted = [
                    session.post(url, json=body, headers={SECRET_HEADER: SECRET})
                    for _ in range(times)
                ]
                for response in await asyncio.gather(*posted):
                    assert response.status == 200
                    response.release()
            await asyncio.sleep(0.005)

    await app.initialize()
    forwarder: asyncio.Task[None] | None = None
    try:
        assert app.post_init is not None
        await app.post_init(app)
        await app.updater.start_webhook(**webhook_options(settings))
        await app.start()
        async with aiohttp.ClientSession() as session:
            forwarder = asyncio.create_task(forward(session))
            yield app
            forwarder.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await forwarder
    finally:
        if app.updater.running:
            await app.updater.stop()
        if app.running:
            await app.stop()
            assert app.post_stop is not None
            await app.post_stop(app)
        await app.shutdown()
        assert app.post_shutdown is not None
        await app.post_shutdown(app)


async def test_an_update_posted_twice_changes_the_game_once(
    tmp_path: Path, unused_port: int
) -> None:
    """Issue 29.5: every update reaches the webhook twice, at once; "🤖 Add computer" adds
    one computer, a card chosen for the pass stays chosen, and each press gets one answer."""
    async with running_double() as double:
        ana, bob = double.create_user("Ana"), double.create_user("Bob")
        group = double.create_group("Twice", members=[ana, bob], admins=[ana])
        async with webhook_bot(double, tmp_path / "db.sqlite3", unused_port, times=2) as app:
            for person in (ana, bob):
                await person.start_bot()
            await double.wait_for(lambda: bob.dm_view().last() is not None, 5)
            await ana.send(group, "/newgame")
            lobby = await double.wait_for(
                lambda: next(
                    (m for m in group.view().bot_messages if "🤖 Add computer" in str(m.labels)),
                    None,
                ),
                5,
            )
            await bob.press(group, lobby.message_id, "✋ Join")
            await ana.press(group, lobby.message_id, "🤖 Add computer")
            await double.idle(quiet=0.3)
            tables = list(rooms_of(app).registry.tables.values())  # type: ignore[union-attr]
            assert len(tables) == 1
            table = tables[0]
            seated = [s for s in table.seats if s is not None]
            assert len(seated) == 3, "one Join and one computer, each once"
            assert sum(s.user_id is None for s in seated) == 1
            await ana.press(group, lobby.message_id, "▶ Start")
            await double.wait_for(lambda: table.game is not None, 5)
            game = table.game
            assert game is not None and game.phase == "pass"
            seat = table.seat_of(ana.id)
            assert seat is not None
            card = game.hand(seat)[0]

            def card_data() -> str | None:
                for message in reversed(ana.dm_view().bot_messages):
                    for button in message.all_buttons():
                        data = button.callback_data or ""
                        if data.startswith("c:") and data.endswith(f":{card.code}"):
                            return data
                return None

            data = await double.wait_for(card_data, 5)
            said = await ana.press(ana.dm, None, data=data)
            assert said == "1/3 selected"
            await double.idle(quiet=0.3)
            assert table.ui.selections.get(seat) == [card.code], "chosen, not chosen and unchosen"
            # Every press was answered once: a second answer would be Telegram's error.
            assert not [e for e in double.errors if e.method == "answerCallbackQuery"]
            welcomes = [
                m
                for m in bob.dm_view().bot_messages
                if (m.text or "").startswith("Hi \u2068Bob\u2069")
            ]
            assert len(welcomes) == 1, "Bob's /start answered once"
