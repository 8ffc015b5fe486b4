"""Opening a Mini App as Telegram does: ``initData`` signed with the bot's token, put in
the page's address after ``#tgWebAppData=`` (Telegram's documentation, "Initializing Mini
Apps" and "Validating data received via the Mini App").

Written from the documentation apart from the bot's own check (`bot.live.initdata`), so
each tests the other.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from typing import Any
from urllib.parse import quote, urlencode


def init_data(
    token: str,
    user: dict[str, Any],
    *,
    start_param: str | None = None,
    auth_date: int | None = None,
    extra: dict[str, str] | None = None,
) -> str:
    """The ``initData`` query string Telegram gives a Mini App opened by `user`."""
    fields = {
        "auth_date": str(int(time.time()) if auth_date is None else auth_date),
        "user": json.dumps(user, separators=(",", ":"), ensure_ascii=False),
        **(extra or {}),
    }
    if start_param is not None:
        fields["start_param"] = start_param
    check = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()))
    key = hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()
    fields["hash"] = hmac.new(key, check.encode(), hashlib.sha256).hexdigest()
    return urlencode(fields)


def page_address(url: str, data: str, theme: dict[str, str] | None = None) -> str:
    """`url` as a Telegram client opens it: the launch parameters after ``#``."""
    launch = {"tgWebAppData": data, "tgWebAppVersion": "8.0", "tgWebAppPlatform": "sandbox"}
    if theme:
        launch["tgWebAppThemeParams"] = json.dumps(theme, separators=(",", ":"))
    return url + "#" + urlencode(launch, quote_via=quote)


LIGHT = {
    "bg_color": "#ffffff",
    "text_color": "#000000",
    "hint_color": "#707579",
    "button_color": "#3390ec",
    "button_text_color": "#ffffff",
    "secondary_bg_color": "#f4f4f5",
}
DARK = {
    "bg_color": "#212121",
    "text_color": "#ffffff",
    "hint_color": "#aaaaaa",
    "button_color": "#8774e1",
    "button_text_color": "#ffffff",
    "secondary_bg_color": "#0f0f0f",
}
"""Theme parameters like Telegram's own light and dark themes."""
