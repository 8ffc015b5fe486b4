"""``initData`` validation, against Telegram's documented algorithm ("Validating data
received via the Mini App"): a known vector, then each way it can be wrong."""

from __future__ import annotations

import hashlib
import hmac
from urllib.parse import parse_qsl, urlencode

import pytest

from bot.live.initdata import InitDataError, validate
from sandbox.webapp import init_data

TOKEN = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1"
SIGNED_AT = 1_790_000_000
KNOWN = (
    "query_id=AAHdF6IQAAAAAN0XohDhrOrc&user=%7B%22id%22%3A279058397%2C%22first_name%22%3A"
    "%22Vladislav%22%2C%22last_name%22%3A%22Kibenko%22%2C%22username%22%3A%22vdkfrost%22"
    "%2C%22language_code%22%3A%22ru%22%2C%22is_premium%22%3Atrue%7D&auth_date=1790000000"
    "&hash=20d1f5561bf0ebc102cfa956c0181595d971bb34e8db2273ad7fafd6eccb2cf6"
)
"""Signed once with the documented steps for `TOKEN` (HMAC-SHA-256 of the sorted
``key=value`` lines, keyed by HMAC-SHA-256("WebAppData", token)) and pinned here."""
DAY = 86_400


def reference_hash(data: str, token: str) -> str:
    """The documentation's steps, spelled out once more."""
    fields = dict(parse_qsl(data))
    fields.pop("hash")
    check = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()))
    key = hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()
    return hmac.new(key, check.encode(), hashlib.sha256).hexdigest()


def with_field(data: str, key: str, value: str | None) -> str:
    fields = dict(parse_qsl(data))
    if value is None:
        fields.pop(key)
    else:
        fields[key] = value
    return urlencode(fields)


def test_a_correct_known_vector_names_its_person() -> None:
    assert reference_hash(KNOWN, TOKEN) == dict(parse_qsl(KNOWN))["hash"]
    user = validate(KNOWN, TOKEN, max_age=DAY, now=SIGNED_AT + 60)
    assert (user.id, user.first_name, user.language_code) == (279058397, "Vladislav", "ru")
    assert user.auth_date == SIGNED_AT and user.start_param is None


def test_a_tampered_field_is_refused() -> None:
    forged = KNOWN.replace("279058397", "279058398")
    with pytest.raises(InitDataError, match="wrong hash"):
        validate(forged, TOKEN, max_age=DAY, now=SIGNED_AT + 60)
    later = with_field(KNOWN, "auth_date", str(SIGNED_AT + 3600))  # made to look fresh
    with pytest.raises(InitDataError, match="wrong hash"):
        validate(later, TOKEN, max_age=DAY, now=SIGNED_AT + 3600)


def test_a_wrong_hash_or_another_bots_token_is_refused() -> None:
    wrong = with_field(KNOWN, "hash", "0" * 64)
    with pytest.raises(InitDataError, match="wrong hash"):
        validate(wrong, TOKEN, max_age=DAY, now=SIGNED_AT)
    with pytest.raises(InitDataError, match="wrong hash"):
        validate(KNOWN, "987654321:" + "B" * 35, max_age=DAY, now=SIGNED_AT)
    with pytest.raises(InitDataError, match="no hash"):
        validate(with_field(KNOWN, "hash", None), TOKEN, max_age=DAY, now=SIGNED_AT)


def test_a_stale_auth_date_is_refused() -> None:
    validate(KNOWN, TOKEN, max_age=DAY, now=SIGNED_AT + DAY - 1)
    with pytest.raises(InitDataError, match="stale"):
        validate(KNOWN, TOKEN, max_age=DAY, now=SIGNED_AT + DAY + 1)
    with pytest.raises(InitDataError, match="future"):
        validate(KNOWN, TOKEN, max_age=DAY, now=SIGNED_AT - 3600)


def test_a_missing_user_is_refused() -> None:
    signed = init_data(TOKEN, {"id": 1}, auth_date=SIGNED_AT)
    no_user = with_field(signed, "user", None)
    resigned = with_field(no_user, "hash", reference_hash(no_user, TOKEN))
    with pytest.raises(InitDataError, match="no user"):
        validate(resigned, TOKEN, max_age=DAY, now=SIGNED_AT)
    for user in ({"first_name": "x"}, {"id": "7"}, {"id": True}, {"id": -5}):
        data = init_data(TOKEN, user, auth_date=SIGNED_AT)
        with pytest.raises(InitDataError, match="no user"):
            validate(data, TOKEN, max_age=DAY, now=SIGNED_AT)


def test_garbage_is_refused_with_a_reason_that_holds_no_data() -> None:
    for junk in ("", "a" * 5000, "hash", "user=1&user=2&hash=00", "%zz=&&"):
        with pytest.raises(InitDataError) as refused:
            validate(junk, TOKEN, max_age=DAY, now=SIGNED_AT)
        assert "279058397" not in str(refused.value) and TOKEN not in str(refused.value)


def test_the_sandbox_signs_as_telegram_does_with_a_start_param() -> None:
    data = init_data(TOKEN, {"id": 42, "first_name": "Ana"}, start_param="g17")
    assert reference_hash(data, TOKEN) == dict(parse_qsl(data))["hash"]
    user = validate(data, TOKEN, max_age=60)
    assert (user.id, user.start_param) == (42, "g17")
