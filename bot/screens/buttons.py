"""What a screen's buttons do, as data, and a message of sentences with its buttons
(`Words`): the vocabulary the tables, the screens and the adapters share, apart from the
screens themselves, so that the table model can name a message it keeps.

A button that sends a press back is the press itself (`bot.core.decode.Pressed`: it
writes its own callback data), made with the table and hand it acts on; the kinds
declared here are the rest, what a button opens, copies or shares without a press."""

from __future__ import annotations

from dataclasses import dataclass

from bot.core.decode import Pressed
from bot.screens.parts import Part

# ---------------------------------------------------------------- actions without a press


@dataclass(frozen=True)
class OpenTable:
    """🃏 Open table: the table page at this game."""


@dataclass(frozen=True)
class WatchTable:
    """👀 Watch: the table page at this game, as a watcher (the group's button; a player
    who opens it gets their own seat)."""


@dataclass(frozen=True)
class OpenDm:
    """Open my cards in a DM (the group's button)."""


@dataclass(frozen=True)
class CopyText:
    """A button that copies its text (the deal's commitment) to the presser's clipboard."""

    text: str


@dataclass(frozen=True)
class OpenDmToSit:
    """Open my cards in a DM, and be seated by it (the table's join token)."""

    token: str


@dataclass(frozen=True)
class ShareInline:
    """A button that shares through Telegram's inline mode: the presser picks a chat and
    the bot's answer to the inline ``query`` is what they send there (the daily card)."""

    query: str


Action = Pressed | OpenTable | WatchTable | OpenDm | OpenDmToSit | CopyText | ShareInline
"""What a screen's button does: a press the bot decodes, or a link, a copy, a share."""


@dataclass(frozen=True)
class Button:
    label: Part
    action: Action


@dataclass(frozen=True)
class Words:
    """A message of sentences, and its buttons in rows (none: a message that only says):
    the lobby, the rules menu, a hand's result, the game's end, a cancelled table, a
    review, a line in a DM."""

    lines: tuple[Part, ...]
    rows: tuple[tuple[Button, ...], ...] = ()
    game: int = 0
    """The table a link opens (🃏 Open table, 👀 Watch); a press names its own."""
