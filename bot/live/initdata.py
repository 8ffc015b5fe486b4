"""Telegram's ``initData``: the signed proof of who opened a Mini App.

Telegram's documentation ("Validating data received via the Mini App"): the data-check
string is every field but ``hash``, as ``key=value``, sorted by key and joined by line
feeds; the secret key is HMAC-SHA-256 of the bot token with the key ``WebAppData``; the
``hash`` is the hex HMAC-SHA-256 of the data-check string with that secret key. A valid
hash proves Telegram made the data for this bot; ``auth_date`` says when, and data older
than `max_age` is refused (it may have been copied and replayed).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from dataclasses import dataclass
from urllib.parse import parse_qsl

MAX_LENGTH = 4096
"""The longest ``initData`` read (Telegram's are a few hundred characters)."""


class InitDataError(ValueError):
    """Why ``initData`` was refused: a short reason, safe to log (never the data)."""


@dataclass(frozen=True)
class WebAppUser:
    id: int
    first_name: str
    language_code: str | None
    auth_date: int
    start_param: str | None


def secret_key(token: str) -> bytes:
    return hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()


def data_check_string(fields: dict[str, str]) -> str:
    return "\n".join(f"{key}={fields[key]}" for key in sorted(fields) if key != "hash")


def signature(fields: dict[str, str], token: str) -> str:
    """The ``hash`` Telegram would put on these fields for this bot."""
    return hmac.new(
        secret_key(token), data_check_string(fields).encode(), hashlib.sha256
    ).hexdigest()


def validate(init_data: str, token: str, max_age: float, now: float | None = None) -> WebAppUser:
    """The person this ``initData`` was signed for; `InitDataError` if it is not genuine,
    is older than `max_age` seconds, or names nobody."""
    if not init_data or len(init_data) > MAX_LENGTH:
        raise InitDataError("missing or too long")
    try:
        pairs = parse_qsl(init_data, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise InitDataError("not a query string") from None
    fields = dict(pairs)
    if len(fields) != len(pairs):
        raise InitDataError("a field appears twice")
    supplied = fields.get("hash")
    if not supplied:
        raise InitDataError("no hash")
    if not hmac.compare_digest(signature(fields, token), supplied.lower()):
        raise InitDataError("wrong hash")
    try:
        auth_date = int(fields.get("auth_date", ""))
    except ValueError:
        raise InitDataError("no auth_date") from None
    age = (time.time() if now is None else now) - auth_date
    if age > max_age:
        raise InitDataError(f"stale: signed {age:.0f} s ago")
    if age < -60:
        raise InitDataError("auth_date in the future")
    try:
        user = json.loads(fields["user"])
        user_id = user["id"]
    except (KeyError, TypeError, ValueError):
        raise InitDataError("no user") from None
    if not isinstance(user_id, int) or isinstance(user_id, bool) or user_id <= 0:
        raise InitDataError("no user")
    language = user.get("language_code")
    return WebAppUser(
        id=user_id,
        first_name=str(user.get("first_name") or ""),
        language_code=language if isinstance(language, str) else None,
        auth_date=auth_date,
        start_param=fields.get("start_param"),
    )
