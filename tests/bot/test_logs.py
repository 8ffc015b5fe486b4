"""Logging: one line per event, JSON on request, and the token never written."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from bot.config import Settings
from bot.logs import REDACTED, SecretRedactor, setup_logging

TOKEN = "123456789:AAE-abcdefghijklmnopqrstuvwxyz_0123456789"
KEY = TOKEN.split(":")[1]
WEBHOOK_SECRET = "hook-secret_value" * 2


def settings(tmp_path: Path, log_format: str = "text", level: str = "DEBUG") -> Settings:
    return Settings(
        bot_token=TOKEN,
        database_path=tmp_path / "h.sqlite3",
        log_format=log_format,
        log_level=level,
        webhook_url="https://bot.example.org/hook",
        webhook_secret=WEBHOOK_SECRET,
    )


@pytest.fixture
def restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    for handler in list(root.handlers):
        if handler not in handlers:
            root.removeHandler(handler)
    root.setLevel(level)


def capture(tmp_path: Path, log_format: str = "text") -> io.StringIO:
    stream = io.StringIO()
    setup_logging(settings(tmp_path, log_format), stream=stream)
    return stream


def assert_no_secret(text: str) -> None:
    assert TOKEN not in text
    assert KEY not in text
    assert KEY[:20] not in text
    assert WEBHOOK_SECRET not in text


def test_text_is_one_line_per_event_with_ids(tmp_path: Path, restore_logging: None) -> None:
    stream = capture(tmp_path)
    log = logging.getLogger("bot.tables.play")
    log.info("card played", extra={"chat_id": -100123, "game_id": 42})
    try:
        raise ValueError("bad\nthing")
    except ValueError:
        log.exception("handler failed", extra={"chat_id": 7})
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2
    assert " INFO bot.tables.play: card played chat_id=-100123 game_id=42" in lines[0]
    assert "ERROR bot.tables.play: handler failed chat_id=7 | Traceback" in lines[1]
    assert "ValueError: bad\\nthing" in lines[1]


def test_json_lines(tmp_path: Path, restore_logging: None) -> None:
    stream = capture(tmp_path, "json")
    log = logging.getLogger("bot.telegram.handlers")
    log.warning("timeout for seat %d", 2, extra={"chat_id": -5, "game_id": 9})
    try:
        1 / 0  # noqa: B018
    except ZeroDivisionError:
        log.exception("boom")
    first, second = (json.loads(line) for line in stream.getvalue().splitlines())
    assert first["level"] == "WARNING" and first["logger"] == "bot.telegram.handlers"
    assert first["msg"] == "timeout for seat 2"
    assert (first["chat_id"], first["game_id"]) == (-5, 9)
    assert first["ts"].endswith("Z")
    assert "exc" not in first
    assert "ZeroDivisionError" in second["exc"]


@pytest.mark.parametrize("log_format", ["text", "json"])
def test_token_never_appears(tmp_path: Path, restore_logging: None, log_format: str) -> None:
    stream = capture(tmp_path, log_format)
    url = f"https://api.telegram.org/bot{TOKEN}/sendMessage"
    # httpx's own request log line (it is quietened to WARNING, so log as WARNING here).
    logging.getLogger("httpx").warning('HTTP Request: POST %s "HTTP/1.1 200 OK"', url)
    # PTB's debug line when the Bot is built.
    logging.getLogger("telegram.Bot").debug("Set Bot API URL: %s", url)
    # The token as an argument, in the message, quoted, and in an extra field.
    logging.getLogger("bot").error("token is " + TOKEN)
    logging.getLogger("bot").error("quoted %s", url.replace(":", "%3A"))
    logging.getLogger("bot").error("extra", extra={"url": url})
    logging.getLogger("bot").error("secret %s", WEBHOOK_SECRET)
    # An exception whose message and traceback locals carry the URL.
    try:
        httpx.Client().get(f"http://127.0.0.1:1/bot{TOKEN}/getMe", timeout=0.5)
    except httpx.HTTPError as exc:
        try:
            raise RuntimeError(f"request to {url} failed") from exc
        except RuntimeError:
            logging.getLogger("telegram.ext.Application").exception("error in %s", url)
    logging.getLogger("bot").error("stack", stack_info=True)
    output = stream.getvalue()
    assert_no_secret(output)
    assert output.count(REDACTED) >= 8
    assert "RuntimeError" in output and "Traceback" in output
    assert "123456789" in output, "the bot's public id may stay"


def test_quiet_libraries(tmp_path: Path, restore_logging: None) -> None:
    stream = capture(tmp_path)
    logging.getLogger("httpx").info("HTTP Request: GET https://api.telegram.org/bot%s", TOKEN)
    logging.getLogger("httpcore.connection").info("connect_tcp.started host='api.telegram.org'")
    logging.getLogger("aiohttp.access").info("127.0.0.1 GET /healthz 200")
    assert stream.getvalue() == ""
    assert logging.getLogger("httpx").getEffectiveLevel() == logging.WARNING


def test_setup_twice_keeps_one_handler(tmp_path: Path, restore_logging: None) -> None:
    capture(tmp_path)
    stream = capture(tmp_path)
    logging.getLogger("bot").warning("once")
    assert stream.getvalue().count("once") == 1
    ours = [h for h in logging.getLogger().handlers if h.get_name() == "hearts-bot"]
    assert len(ours) == 1


def test_redactor_without_secrets_passes_records_unchanged() -> None:
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "a %s", ("b",), None)
    assert SecretRedactor([]).filter(record)
    assert record.getMessage() == "a b"
