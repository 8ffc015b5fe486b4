"""Fixtures for the deploy tests: a free port, and a pretend Bot API on 127.0.0.1.

It answers getMe, setWebhook, deleteWebhook and getUpdates (empty), and anything else with
``true``; a wrong token gets 401 like Telegram. Calls are recorded as (method, params).
"""

from __future__ import annotations

import contextlib
import json
import logging
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl

import pytest

TOKEN = "123456789:AAE-abcdefghijklmnopqrstuvwxyz_0123456789"
KEY = TOKEN.split(":")[1]


def free_ports(count: int) -> list[int]:
    """`count` different TCP ports of 127.0.0.1 that nothing listens on, each chosen by the
    system (all held open until every one is chosen, so none is given twice)."""
    with contextlib.ExitStack() as held:
        ports = []
        for _ in range(count):
            sock = held.enter_context(socket.socket())
            sock.bind(("127.0.0.1", 0))
            ports.append(int(sock.getsockname()[1]))
        return ports


@pytest.fixture
def unused_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on (at the time of asking)."""
    return free_ports(1)[0]


@pytest.fixture
def another_unused_port(unused_port: int) -> int:
    """A second free port, never `unused_port` (for a test that serves on two)."""
    while (port := free_ports(1)[0]) == unused_port:
        pass
    return port


@dataclass
class FakeBotApi:
    port: int
    token: str = TOKEN
    calls: list[tuple[str, dict[str, str]]] = field(default_factory=list)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/bot"

    def methods(self) -> list[str]:
        return [method for method, _ in self.calls]


def _result(method: str) -> Any:
    if method == "getme":
        return {
            "id": 123456789,
            "is_bot": True,
            "first_name": "Hearts",
            "username": "hearts_test_bot",
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": False,
        }
    if method == "getupdates":
        return []
    return True


@pytest.fixture
def fake_bot_api() -> Iterator[FakeBotApi]:
    """The pretend Bot API, serving in a thread; ``api.base_url`` is PTB's base_url."""
    api = FakeBotApi(port=0)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length).decode()
            prefix, _, method = self.path.rpartition("/")
            if prefix != f"/bot{api.token}":
                self._answer(401, {"ok": False, "error_code": 401, "description": "Unauthorized"})
                return
            if self.headers.get("Content-Type", "").startswith("application/json"):
                params = {k: str(v) for k, v in json.loads(body or "{}").items()}
            else:
                params = dict(parse_qsl(body))
            api.calls.append((method, params))
            if method.lower() == "getupdates":
                time.sleep(0.1)  # a long poll that ends empty, without spinning the client
            self._answer(200, {"ok": True, "result": _result(method.lower())})

        do_GET = do_POST

        def _answer(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    class Server(ThreadingHTTPServer):
        def handle_error(self, request: Any, client_address: Any) -> None:
            pass  # a client that hung up mid long-poll, as PTB does when it stops

    server = Server(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    api.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield api
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(autouse=True)
def restore_logging() -> Iterator[None]:
    """Undo `setup_logging` (which the CLI calls) so tests do not leak handlers."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    for handler in list(root.handlers):
        if handler not in handlers:
            root.removeHandler(handler)
    root.setLevel(level)
