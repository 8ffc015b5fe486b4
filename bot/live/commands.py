"""What a table page may do, as typed commands: the page sends them as JSON, and they go
to the table's own entry points (the `Moves` and `Coach` a DM's buttons reach too), with
the same checks, journal and words.

``{"type": "card", "game": 7, "hand": 3, "card": "QS"}``: tap a card (play it, or choose
it to pass); ``{"type": "pass", ...}``: pass the three chosen; ``{"type": "moon", ...,
"choice": "subtract" | "add"}``; ``{"type": "hint", ...}``. ``game`` and ``hand`` say
which table and hand the page showed: a page acts on its own table only, and a tap on an
earlier hand's cards is refused as a stale DM button is.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Literal, Protocol, assert_never

from bot.basics import Person, UserError
from bot.core.accepts import Ask
from bot.i18n import Msg, msg
from storage.errors import StorageUnavailable

NOT_VALID = msg("That button isn't valid any more.")
log = logging.getLogger(__name__)

STORAGE_TROUBLE = msg("I can't save anything right now. Please try again in a minute.")

MoonChoice = Literal["subtract", "add"]


@dataclass(frozen=True)
class TapCard:
    """A card tapped: played, or (while passing) chosen or unchosen."""

    game: int
    hand: int
    card: str


@dataclass(frozen=True)
class PassChosen:
    """The three chosen cards passed."""

    game: int
    hand: int


@dataclass(frozen=True)
class ChooseMoon:
    """The moon shooter's choice: −26 for them, or +26 for everyone else."""

    game: int
    hand: int
    choice: MoonChoice


@dataclass(frozen=True)
class AskHint:
    """💡 Hint for the choice this seat has to make."""

    game: int
    hand: int


Command = TapCard | PassChosen | ChooseMoon | AskHint

ASKS: dict[type[Command], Ask] = {
    TapCard: Ask.CARD,
    PassChosen: Ask.PASS,
    ChooseMoon: Ask.MOON,
    AskHint: Ask.HINT,
}
"""What each command asks of its table (`bot.core.accepts`)."""


def decode(said: Any) -> Command | None:
    """The command a page sent, or None for anything that is not one of them."""
    if not isinstance(said, dict):
        return None
    kind, game, hand = said.get("type"), _number(said.get("game")), _number(said.get("hand"))
    if game is None or hand is None:
        return None
    if kind == "card":
        card = said.get("card")
        return TapCard(game, hand, card) if isinstance(card, str) and len(card) <= 3 else None
    if kind == "pass":
        return PassChosen(game, hand)
    if kind == "moon":
        choice = said.get("choice")
        return ChooseMoon(game, hand, choice) if choice in ("subtract", "add") else None
    if kind == "hint":
        return AskHint(game, hand)
    return None


def _number(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**63:
        return value
    return None


class SeatMoves(Protocol):
    """The moves a seat makes (`bot.tables.play.Moves`)."""

    async def press_card(self, game_id: int, stamp: int, code: str, person: Person) -> Msg: ...

    async def press_pass(self, game_id: int, stamp: int, person: Person) -> Msg: ...

    async def press_moon(self, game_id: int, stamp: int, arg: str, person: Person) -> Msg: ...


class SeatHints(Protocol):
    """The coach's hint (`bot.tables.coach.Coach`)."""

    async def hint(self, game_id: int, stamp: int, person: Person) -> Msg: ...


async def carry_out(command: Command, person: Person, moves: SeatMoves, coach: SeatHints) -> Msg:
    """Do what the page asked, as `person`; what the press is answered (a refusal's words
    too, never an exception)."""
    try:
        match command:
            case TapCard(game, hand, card):
                return await moves.press_card(game, hand, card, person)
            case PassChosen(game, hand):
                return await moves.press_pass(game, hand, person)
            case ChooseMoon(game, hand, choice):
                arg = "s" if choice == "subtract" else "a"
                return await moves.press_moon(game, hand, arg, person)
            case AskHint(game, hand):
                return await coach.hint(game, hand, person)
            case _:
                assert_never(command)
    except UserError as error:
        return error.said
    except StorageUnavailable:
        log.warning("page command %s: the database cannot be written", type(command).__name__)
        return STORAGE_TROUBLE
