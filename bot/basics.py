"""What every room of the bot shares: who acts, and a request that is turned down."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from bot.i18n import Msg

MAX_ID: Final = 2**63 - 1
"""The largest id SQLite stores (a signed 64-bit integer); anything above is not ours."""


class UserError(Exception):
    """A request the bot turns down; `said` is told to the person in their language (a
    toast for a button, a reply for a command)."""

    def __init__(self, said: Msg) -> None:
        super().__init__(str(said))
        self.said = said


NAME_LIMIT = 32
"""The longest name the bot shows: longer ones are cut with "…" (Telegram's own allow 129
characters, and a name in every seat line, result and chart must not crowd out the rest)."""


def display_name(name: str) -> str:
    """A name as the bot shows it: at most `NAME_LIMIT` characters."""
    if len(name) <= NAME_LIMIT:
        return name
    return name[: NAME_LIMIT - 1].rstrip() + "…"


@dataclass(frozen=True)
class Person:
    """Someone who sent an update: their Telegram id, the name the bot shows (cut to
    `NAME_LIMIT`), @username."""

    id: int
    name: str
    username: str | None = None
    on_page: bool = False
    """Pressed on the table page (`bot.live`) rather than in a chat: the page shows the
    move at once, so their DM need not be edited for it."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", display_name(self.name))


def parse_id(text: str, limit: int = MAX_ID) -> int | None:
    """``text`` as a number from 0 to ``limit`` if it is only ASCII digits, else None.

    ``str.isdigit`` alone also accepts digits such as ``'²'`` that ``int`` refuses, and
    an id above SQLite's 64-bit integers overflows in a query: both are refused here.
    """
    if not text or len(text) > len(str(limit)) or not (text.isascii() and text.isdigit()):
        return None
    value = int(text)
    return value if value <= limit else None
