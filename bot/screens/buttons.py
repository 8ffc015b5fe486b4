"""What a screen's buttons do, as data, and a message of sentences with its buttons
(`Words`): the vocabulary the tables, the screens and the adapters share, apart from the
screens themselves, so that the table model can name a message it keeps."""

from __future__ import annotations

from dataclasses import dataclass

from bot.screens.parts import Part
from engine import Card

# ---------------------------------------------------------------- actions


@dataclass(frozen=True)
class TapCard:
    """Tap a card: play it, or (while passing) choose it."""

    card: Card


@dataclass(frozen=True)
class PassCards:
    """Pass the three cards chosen."""


@dataclass(frozen=True)
class ChooseMoon:
    """The moon shooter's choice."""

    choice: str
    """``"subtract"`` (−26 for the shooter) or ``"add"`` (+26 for everyone else)."""


@dataclass(frozen=True)
class ToggleTracker:
    """Show or hide the cards played."""


@dataclass(frozen=True)
class AskHint:
    """💡 Hint for the choice to make now."""


@dataclass(frozen=True)
class Review:
    """🔍 Review of a hand played."""

    hand: int


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
class NewGame:
    """🔁 New game: the same seats and rules (the group's button under a finished game)."""


@dataclass(frozen=True)
class SitDown:
    """✋ Join: take a seat in the lobby."""


@dataclass(frozen=True)
class StandUp:
    """🚪 Leave the lobby."""


@dataclass(frozen=True)
class AddComputerSeat:
    """🤖 Add computer (the host)."""


@dataclass(frozen=True)
class OpenRules:
    """⚙ Rules: the host's rules menu, in the lobby's message."""


@dataclass(frozen=True)
class CloseRules:
    """« Back from the rules menu to the lobby."""


@dataclass(frozen=True)
class ChooseRule:
    """One value of one option in the rules menu."""

    option: str
    value: str


@dataclass(frozen=True)
class StartGame:
    """▶ Start (the host)."""


@dataclass(frozen=True)
class CancelTable:
    """✖ Cancel the lobby (the host)."""


@dataclass(frozen=True)
class ClearSeat:
    """✖ 2: the host empties a seat (counted from 0)."""

    seat: int


@dataclass(frozen=True)
class CopyText:
    """A button that copies its text (the deal's commitment) to the presser's clipboard."""

    text: str


@dataclass(frozen=True)
class OpenDmToSit:
    """Open my cards in a DM, and be seated by it (the table's join token)."""

    token: str


@dataclass(frozen=True)
class ReplayGame:
    """▶ A game's finished hands, to choose one to replay (`bot.replays.replays`)."""

    game: int
    new: bool = False
    """Said in a new message (under ``/scores``, which it must not replace); else the
    message pressed shows it."""


@dataclass(frozen=True)
class ReplayHand:
    """▶ Replay a finished hand, as text in the chat (`bot.replays.replays`)."""

    game: int
    hand: int
    new: bool = False
    """Said in a new message (under a hand's result); else the message pressed shows it."""


@dataclass(frozen=True)
class ShareInline:
    """A button that shares through Telegram's inline mode: the presser picks a chat and
    the bot's answer to the inline ``query`` is what they send there (the daily card)."""

    query: str


@dataclass(frozen=True)
class PostDaily:
    """📣 Post the presser's card of ``day`` to the groups they play in (`bot.daily.daily`)."""

    day: int


Action = (
    TapCard
    | PassCards
    | ChooseMoon
    | ToggleTracker
    | AskHint
    | Review
    | OpenTable
    | WatchTable
    | OpenDm
    | NewGame
    | SitDown
    | StandUp
    | AddComputerSeat
    | OpenRules
    | CloseRules
    | ChooseRule
    | StartGame
    | CancelTable
    | ClearSeat
    | OpenDmToSit
    | CopyText
    | ReplayGame
    | ReplayHand
    | ShareInline
    | PostDaily
)


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
    """The table the buttons act on."""
