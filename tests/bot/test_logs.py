"""Logging: one line per event, JSON on request, and the token never written."""

from __future__ import annotations

import dataclasses
import io
import json
import logging
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from bot_harness import open_table, rooms_of, running_bot, table_in

from bot.config import Settings
from bot.logs import REDACTED, SecretRedactor, log_fields, setup_logging
from domain.people import ChatSettings
from engine import Rules
from sandbox.testing import running_double

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


def test_json_names_the_account_and_the_ids_in_context(
    tmp_path: Path, restore_logging: None
) -> None:
    stream = capture(tmp_path, "json")
    log = logging.getLogger("bot.tables.play")
    log.info("outside")
    with log_fields(chat_id=-100123):
        with log_fields(game_id=42, chat_id=None):  # None: the chat stays as it was
            log.info("inside %s", TOKEN)
        log.info("after", extra={"chat_id": 5})  # a field given wins
    outside, inside, after = (json.loads(line) for line in stream.getvalue().splitlines())
    assert outside["account"] == "123456789"
    assert "chat_id" not in outside and "game_id" not in outside
    assert (inside["chat_id"], inside["game_id"]) == (-100123, 42)
    assert inside["msg"] == f"inside 123456789:{REDACTED}"
    assert after["chat_id"] == 5 and "game_id" not in after
    assert_no_secret(stream.getvalue())


def test_text_names_the_ids_in_context_but_not_the_account(
    tmp_path: Path, restore_logging: None
) -> None:
    stream = capture(tmp_path)
    with log_fields(game_id=7, chat_id=-1):
        logging.getLogger("bot").info("moved")
    line = stream.getvalue().strip()
    assert line.endswith("INFO bot: moved game_id=7 chat_id=-1"), line
    assert "account" not in line


async def test_a_games_events_name_its_game_chat_and_account(
    tmp_path: Path, restore_logging: None
) -> None:
    """The bot, logging JSON, plays a one-hand game: its end is one event that names the
    game, the group and the account; every line is one JSON object, the token nowhere."""
    async with running_double() as double:
        alice = double.create_user("Alice", username="alice")
        group = double.create_group("Logged Hearts", members=[alice])
        stream = io.StringIO()
        async with running_bot(double, tmp_path / "hearts.sqlite3") as app:
            settings = app.bot_data.settings
            assert settings is not None
            setup_logging(
                dataclasses.replace(settings, log_format="json", log_level="INFO"), stream=stream
            )
            await alice.start_bot()
            await double.wait_for(lambda: alice.dm_view().last() is not None, 5)
            await rooms_of(app).storage.people.save_chat_settings(
                ChatSettings(group.id, rules=Rules(target=1, ties="share").to_dict())
            )
            lobby = await open_table(double, alice, group, computers=3)
            await alice.press(group, lobby, "▶ Start")
            table = table_in(app, group)
            await alice.send(group, "/leave")  # a computer plays the seat to the end
            await double.wait_for(lambda: table.status == "finished", 30)
        events = [json.loads(line) for line in stream.getvalue().splitlines()]
        ended = [e for e in events if e["msg"] == f"game {table.id} finished"]
        assert len(ended) == 1, events
        assert ended[0]["game_id"] == table.id and ended[0]["chat_id"] == group.id
        assert ended[0]["account"] == double.token.partition(":")[0]
        assert all("account" in e for e in events)
        assert double.token.partition(":")[2] not in stream.getvalue()
