"""Logging: one line per event, as text or JSON, with every secret redacted.

Handlers add context with ``logger.info("...", extra={"chat_id": ..., "game_id": ...})``;
those fields appear as ``chat_id=...`` in text and as keys in JSON. Every event logged while
an update is handled or a table's command runs carries that chat's and game's ids without
being given them (`log_fields`, set by `bot.telegram.once` and `bot.rooms.LoggedRunner`), and in
JSON the bot's account (its public numeric id) too, so that a log collector can tell
several bots' events apart. The token travels in
every Bot API URL (``https://api.telegram.org/bot<token>/sendMessage``), and libraries log
those URLs and put them in exception messages, so a filter rewrites every record (message,
arguments, traceback, extra fields) before any formatter sees it.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any, TextIO
from urllib.parse import quote

from bot.config import Settings, log_level_number

REDACTED = "[REDACTED]"

# Loggers that are too chatty at INFO for a long-running bot, or that log request URLs;
# aiosqlite logs every statement with its values at DEBUG: each game's snapshot, so every
# hidden hand, and its secret deal key (README, "Fair deals").
_QUIET_LOGGERS = ("httpx", "httpcore", "aiohttp.access", "aiosqlite")

# Attributes every LogRecord has; anything else came from ``extra=``.
_STANDARD_ATTRS = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {
    "message",
    "asctime",
    "taskName",
}
_exception_formatter = logging.Formatter()


_FIELDS: ContextVar[tuple[tuple[str, object], ...]] = ContextVar("hearts_log_fields", default=())


@contextmanager
def log_fields(**fields: object) -> Iterator[None]:
    """Every event logged inside (in this task, and the tasks it starts) carries `fields`
    (those that are not None), unless it gives its own."""
    given = {k: v for k, v in fields.items() if v is not None}
    token = _FIELDS.set((*((k, v) for k, v in _FIELDS.get() if k not in given), *given.items()))
    try:
        yield
    finally:
        _FIELDS.reset(token)


class ContextFields(logging.Filter):
    """Adds the fields of `log_fields` to each record, and the bot's `account` if given."""

    def __init__(self, account: str | None = None) -> None:
        super().__init__()
        self._account = account

    def filter(self, record: logging.LogRecord) -> bool:
        if self._account is not None and not hasattr(record, "account"):
            record.account = self._account
        for name, value in _FIELDS.get():
            if not hasattr(record, name):
                setattr(record, name, value)
        return True


class SecretRedactor(logging.Filter):
    """Replaces every secret in a record with ``[REDACTED]``; never drops a record.

    For the bot token the part after the colon is the secret (the number before it is the
    bot's public id), so that part is redacted wherever it appears, also URL-quoted.
    """

    def __init__(self, secrets: Iterable[str]) -> None:
        super().__init__()
        needles: set[str] = set()
        for secret in secrets:
            if not secret:
                continue
            _, colon, key = secret.partition(":")
            if colon and key:
                needles.add(key)  # covers the whole token, raw or URL-quoted
            else:
                needles.add(secret)
                needles.add(quote(secret, safe=""))
        # Longest first, so a secret containing another is replaced whole.
        self._needles = sorted(needles, key=len, reverse=True)

    def redact(self, text: str) -> str:
        """`text` with every secret replaced."""
        for needle in self._needles:
            if needle in text:
                text = text.replace(needle, REDACTED)
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        if not self._needles:
            return True
        try:
            message = record.getMessage()
        except Exception:  # a bad format string must not hide the event
            message = f"{record.msg!s} {record.args!r}"
        record.msg = self.redact(message)
        record.args = None
        if record.exc_info:
            if not record.exc_text:
                record.exc_text = _exception_formatter.formatException(record.exc_info)
            # Formatters print exc_text when set; dropping exc_info stops any of them from
            # rendering the original exception (whose message may hold a URL) again.
            record.exc_info = None
        if record.exc_text:
            record.exc_text = self.redact(record.exc_text)
        if record.stack_info:
            record.stack_info = self.redact(record.stack_info)
        for name, value in list(vars(record).items()):
            if name not in _STANDARD_ATTRS and isinstance(value, str):
                setattr(record, name, self.redact(value))
        return True


def _extras(record: logging.LogRecord) -> dict[str, Any]:
    return {k: v for k, v in vars(record).items() if k not in _STANDARD_ATTRS}


def _timestamp(record: logging.LogRecord) -> str:
    moment = datetime.fromtimestamp(record.created, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _exception_text(record: logging.LogRecord) -> str | None:
    if record.exc_info and not record.exc_text:
        record.exc_text = _exception_formatter.formatException(record.exc_info)
    parts = [p for p in (record.exc_text, record.stack_info) if p]
    return "\n".join(parts) if parts else None


class TextFormatter(logging.Formatter):
    """``2026-01-31T12:00:00.000Z INFO bot.tables.play: message chat_id=1 game_id=2``.

    Newlines (a traceback, a multi-line message) are written as ``\\n`` so that every
    event stays on one line for journald, docker logs and grep.
    """

    def format(self, record: logging.LogRecord) -> str:
        line = f"{_timestamp(record)} {record.levelname} {record.name}: {record.getMessage()}"
        extras = _extras(record)
        if extras:
            line += " " + " ".join(f"{k}={v}" for k, v in extras.items())
        exc = _exception_text(record)
        if exc:
            line += " | " + exc
        return line.replace("\r", "").replace("\n", "\\n")


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ts, level, logger, msg, the extra fields, and exc."""

    def format(self, record: logging.LogRecord) -> str:
        event: dict[str, Any] = {
            "ts": _timestamp(record),
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key, value in _extras(record).items():
            event.setdefault(key, value)
        exc = _exception_text(record)
        if exc:
            event["exc"] = exc
        return json.dumps(event, ensure_ascii=False, default=str)


_OUR_HANDLER = "hearts-bot"


def setup_logging(settings: Settings, stream: TextIO | None = None) -> logging.Handler:
    """Send every log record to `stream` (stderr) in the configured format, redacted.

    Replaces a handler installed by an earlier call, so it may be called again (tests do).
    Returns the handler.
    """
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler.set_name(_OUR_HANDLER)
    json_lines = settings.log_format == "json"
    # The account: the token's public half (never its secret), in JSON for log collectors.
    account = (settings.bot_token or "").partition(":")[0] or None
    handler.addFilter(ContextFields(account if json_lines else None))
    handler.addFilter(SecretRedactor(settings.secrets))
    handler.setFormatter(JsonFormatter() if json_lines else TextFormatter())
    root = logging.getLogger()
    for old in list(root.handlers):
        if old.get_name() == _OUR_HANDLER:
            root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(log_level_number(settings))
    for name in _QUIET_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)
    logging.captureWarnings(True)
    return handler
