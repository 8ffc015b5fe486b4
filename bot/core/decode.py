"""Every press, decoded in one place: a button's callback data (a DM's or a group's) and a
table page's command become typed values, and anything forged is `Refused` with one
sentence before any table is looked at.

A button's data is compact (Telegram allows 64 bytes): ``<action>:<game>:<stamp>:<arg>``
(`Callback`), where the stamp is the hand number for DM buttons (so a button from an
earlier hand is recognised as stale) and 0 for lobby buttons. Each kind of button is one
frozen type below (`SitDown`, `TapCard`, `ChooseLanguage`…) that writes its own data
(``encode``) and reads it back (``decode``), side by side. The screens make these very
values for their buttons (`bot.screens.buttons.Action`) and the adapter writes them with
``encode``; `from_button` is the way in for a press, `bot.core.accepts.ASKS` says what
each asks of its table, and `bot.telegram.handlers.Buttons` carries each kind out in one
``match``.

A page sends JSON: ``{"type": "card", "game": 7, "hand": 3, "card": "QS"}`` taps a card
(plays it, or chooses it to pass); ``{"type": "pass", ...}`` passes the three chosen;
``{"type": "moon", ..., "choice": "subtract" | "add"}``; ``{"type": "hint", ...}``. A seat's
presses from either (`TapCard`, `PassCards`, `ChooseMoon`, `AskHint`) go to the seat's
entry points through `carry_out`. Nothing in them is trusted: who pressed, that the game
is the one the message or page belongs to, and that the move is legal are checked after.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Final, Literal, Protocol, Self, assert_never

from bot.basics import Person, parse_id
from bot.i18n import Msg, msg
from domain.handling import Handling
from engine.cards import FULL_DECK, codes

FORGED = msg("That button isn't valid any more.")
"""What a press this bot did not make (forged, stale, from another version) is told."""

MAX_BYTES: Final = 64
MAX_STAMP: Final = 999_999
MAX_SEAT: Final = 99

# Lobby (group) actions.
JOIN, LEAVE, ADD_COMPUTER, RULES, START, CANCEL, BACK, SET_RULE, KICK = (
    "lj",
    "ll",
    "la",
    "lr",
    "ls",
    "lc",
    "lb",
    "ro",
    "lk",
)
# DM actions.
CARD, PASS, MOON, TRACKER = "c", "p", "m", "t"
# The coach in a DM: a hint (stamp: the hand) and a review (stamp: the hand to review).
HINT, REVIEW = "h", "v"
# Group actions under a finished game.
REMATCH: Final = "rm"
# Replays (`bot.telegram.replaying`): a game's finished hands; a hand (stamp: its number;
# arg "n": in a new message, under a hand's result).
REPLAY_GAME, REPLAY_HAND = "rg", "rh"
# The daily deal: post the presser's card of the day (the id field holds the day).
DAILY_POST: Final = "dp"
DAILY_ACTIONS: Final = frozenset({DAILY_POST})
# Tournament actions: the id field holds the tournament's id, not a game's.
TOURNAMENT_REGISTER, TOURNAMENT_WITHDRAW = "er", "ew"
TOURNAMENT_ACTIONS: Final = frozenset({TOURNAMENT_REGISTER, TOURNAMENT_WITHDRAW})
# A chat's language (/language): no game; the argument is the language ("" for automatic).
LANGUAGE: Final = "lg"
CHAT_ACTIONS: Final = frozenset({LANGUAGE})

SEAT_ACTIONS: Final = frozenset({CARD, PASS, MOON, TRACKER})
"""A seat's moves: paced faster than other presses (a hand played as fast as fingers go)."""
COACH_ACTIONS: Final = frozenset({HINT, REVIEW})
"""Paced by the coach itself (`bot.computers.coach`: one answer for many presses)."""

ACTIONS: Final = frozenset(
    {JOIN, LEAVE, ADD_COMPUTER, RULES, START, CANCEL, BACK, SET_RULE, KICK}
    | {CARD, PASS, MOON, TRACKER, REMATCH, HINT, REVIEW}
    | {REPLAY_GAME, REPLAY_HAND}
    | TOURNAMENT_ACTIONS
    | CHAT_ACTIONS
    | DAILY_ACTIONS
)


class BadCallback(ValueError):
    """Callback data this bot did not make (forged, or from another version)."""


@dataclass(frozen=True)
class Callback:
    """Callback data as it travels: an action and three fields, each kind reading its own."""

    action: str
    game_id: int
    stamp: int = 0
    arg: str = ""

    def encode(self) -> str:
        data = f"{self.action}:{self.game_id}:{self.stamp}:{self.arg}"
        if len(data.encode()) > MAX_BYTES:
            raise ValueError(f"callback data too long: {data!r}")
        return data

    @classmethod
    def decode(cls, data: str | None) -> Callback:
        if not data or len(data.encode()) > MAX_BYTES:
            raise BadCallback("empty or oversized callback data")
        parts = data.split(":", 3)
        if len(parts) != 4 or parts[0] not in ACTIONS:
            raise BadCallback(f"unknown callback data {data!r}")
        action, game, stamp, arg = parts
        game_id = parse_id(game)
        hand = parse_id(stamp, MAX_STAMP)
        if game_id is None or hand is None:
            raise BadCallback(f"malformed callback data {data!r}")
        return cls(action, game_id, hand, arg)


def _button(action: str, game_id: int, stamp: int = 0, arg: str = "") -> str:
    """A kind's callback data (each kind's ``encode``)."""
    return Callback(action, game_id, stamp, arg).encode()


def posts_anew(data: Callback) -> bool:
    """Whether the press posts a new message where it was pressed (a hand's ▶ Replay under
    its result, 🔁 New game), rather than changing its own: in a group, it takes a share of
    the group's posts (`bot.flood.GroupPosts`)."""
    return data.action == REMATCH or (data.action == REPLAY_HAND and data.arg == "n")


@dataclass(frozen=True)
class Refused:
    """Data that is no command: the press is told `said`, and nothing else happens."""

    said: Msg = FORGED


# ---------------------------------------------------------------- every button, typed
# Each kind names what its button acts on (a table, a tournament, a day, a chat) and what
# it carries, writes its callback data and reads it back. `from_button` accepts data only as
# a kind writes it (a field it does not use left empty), so nothing reaches a table that no
# screen drew; the format is the one earlier versions wrote, so their buttons still work.


@dataclass(frozen=True)
class OnTable:
    """A button that names a table and nothing else (the lobby's, the rules menu's)."""

    game: int
    action: ClassVar[str]

    def encode(self) -> str:
        return _button(self.action, self.game)

    @classmethod
    def decode(cls, data: Callback) -> Self:
        return cls(data.game_id)


class SitDown(OnTable):
    """✋ Join: a seat in the lobby (pressed outside its group, membership is proved)."""

    action = JOIN


class StandUp(OnTable):
    """🚪 Leave the lobby."""

    action = LEAVE


class AddComputerSeat(OnTable):
    """🤖 Add computer (the host)."""

    action = ADD_COMPUTER


class OpenRules(OnTable):
    """⚙ Rules: the host's rules menu, in the lobby's message."""

    action = RULES


class CloseRules(OnTable):
    """« Back from the rules menu to the lobby."""

    action = BACK


class StartGame(OnTable):
    """▶ Start (the host)."""

    action = START


class CancelTable(OnTable):
    """✖ Cancel the lobby (the host)."""

    action = CANCEL


class NewGame(OnTable):
    """🔁 New game under a finished one: the same seats and rules, in a new message."""

    action = REMATCH


@dataclass(frozen=True)
class ChooseRule:
    """One value of one option in the rules menu (checked by the menu, not here)."""

    game: int
    option: str
    value: str
    action: ClassVar[str] = SET_RULE

    def encode(self) -> str:
        return _button(SET_RULE, self.game, 0, f"{self.option}={self.value}")

    @classmethod
    def decode(cls, data: Callback) -> Self:
        option, _, value = data.arg.partition("=")
        return cls(data.game_id, option, value)


@dataclass(frozen=True)
class ClearSeat:
    """✖ 2: the host empties a seat (counted from 0)."""

    game: int
    seat: int
    action: ClassVar[str] = KICK

    def encode(self) -> str:
        return _button(KICK, self.game, 0, str(self.seat))

    @classmethod
    def decode(cls, data: Callback) -> Self | Refused:
        seat = parse_id(data.arg, MAX_SEAT)
        return Refused() if seat is None else cls(data.game_id, seat)


@dataclass(frozen=True)
class OnHand:
    """A seat's button in its DM that names a table and a hand (the stamp)."""

    game: int
    hand: int
    action: ClassVar[str]

    def encode(self) -> str:
        return _button(self.action, self.game, self.hand)

    @classmethod
    def decode(cls, data: Callback) -> Self:
        return cls(data.game_id, data.stamp)


CARD_CODES: Final = frozenset(codes(FULL_DECK))
"""The cards a card button or a page may name; anything else is not a card the bot drew."""


@dataclass(frozen=True)
class TapCard:
    """A card tapped: played, or (while passing) chosen or unchosen."""

    game: int
    hand: int
    card: str
    action: ClassVar[str] = CARD

    def encode(self) -> str:
        return _button(CARD, self.game, self.hand, self.card)

    @classmethod
    def decode(cls, data: Callback) -> Self | Refused:
        card = data.arg
        return cls(data.game_id, data.stamp, card) if card in CARD_CODES else Refused()


class PassCards(OnHand):
    """The three chosen cards passed."""

    action = PASS


MoonChoice = Literal["subtract", "add"]


@dataclass(frozen=True)
class ChooseMoon:
    """The moon shooter's choice: −26 for them, or +26 for everyone else."""

    game: int
    hand: int
    choice: MoonChoice
    action: ClassVar[str] = MOON

    def encode(self) -> str:
        return _button(MOON, self.game, self.hand, "s" if self.choice == "subtract" else "a")

    @classmethod
    def decode(cls, data: Callback) -> Self | Refused:
        if data.arg == "s":
            return cls(data.game_id, data.stamp, "subtract")
        if data.arg == "a":
            return cls(data.game_id, data.stamp, "add")
        return Refused()


class AskHint(OnHand):
    """💡 Hint for the choice this seat has to make."""

    action = HINT


class ToggleTracker(OnHand):
    """Show or hide the cards played, under the seat's cards."""

    action = TRACKER


class Review(OnHand):
    """🔍 The coach's review of a hand played (`hand`: the hand reviewed)."""

    action = REVIEW


@dataclass(frozen=True)
class ReplayGame:
    """▶ A finished game's hands, to choose one to replay (`new`: in a new message)."""

    game: int
    new: bool = False
    action: ClassVar[str] = REPLAY_GAME

    def encode(self) -> str:
        return _button(REPLAY_GAME, self.game, 0, "n" if self.new else "")

    @classmethod
    def decode(cls, data: Callback) -> Self:
        return cls(data.game_id, data.arg == "n")


@dataclass(frozen=True)
class ReplayHand:
    """▶ Replay a finished hand (`new`: in a new message, under the hand's result)."""

    game: int
    hand: int
    new: bool = False
    action: ClassVar[str] = REPLAY_HAND

    def encode(self) -> str:
        return _button(REPLAY_HAND, self.game, self.hand, "n" if self.new else "")

    @classmethod
    def decode(cls, data: Callback) -> Self:
        return cls(data.game_id, data.stamp, data.arg == "n")


@dataclass(frozen=True)
class PostDaily:
    """📣 Post the presser's card of `day` to the groups they play in."""

    day: int
    action: ClassVar[str] = DAILY_POST

    def encode(self) -> str:
        return _button(DAILY_POST, self.day)

    @classmethod
    def decode(cls, data: Callback) -> Self:
        return cls(data.game_id)


@dataclass(frozen=True)
class OnTournament:
    """A tournament's button, while its message shows it."""

    tournament: int
    action: ClassVar[str]

    def encode(self) -> str:
        return _button(self.action, self.tournament)

    @classmethod
    def decode(cls, data: Callback) -> Self:
        return cls(data.game_id)


class Register(OnTournament):
    """Registers the presser for the tournament."""

    action = TOURNAMENT_REGISTER


class Withdraw(OnTournament):
    """Withdraws the presser from the tournament (only while registration is open)."""

    action = TOURNAMENT_WITHDRAW


@dataclass(frozen=True)
class ChooseLanguage:
    """A language in the /language menu of the chat it is pressed in ("" for automatic;
    the menu checks it)."""

    code: str
    action: ClassVar[str] = LANGUAGE

    def encode(self) -> str:
        return _button(LANGUAGE, 0, 0, self.code)

    @classmethod
    def decode(cls, data: Callback) -> Self:
        return cls(data.arg)


SeatCommand = TapCard | PassCards | ChooseMoon | AskHint
"""A seat's presses that a table page sends too (`from_page`)."""

TablePress = (
    SitDown
    | StandUp
    | AddComputerSeat
    | OpenRules
    | CloseRules
    | ChooseRule
    | StartGame
    | CancelTable
    | ClearSeat
    | NewGame
    | SeatCommand
    | ToggleTracker
    | Review
    | ReplayGame
    | ReplayHand
)
"""A press that names a table: checked against the table's chat and what it accepts now."""

Pressed = TablePress | Register | Withdraw | PostDaily | ChooseLanguage
"""Every button the bot draws, as the typed value it was drawn from."""

KINDS: Final[dict[str, type[Pressed]]] = {
    kind.action: kind
    for kind in (
        SitDown,
        StandUp,
        AddComputerSeat,
        OpenRules,
        CloseRules,
        ChooseRule,
        StartGame,
        CancelTable,
        ClearSeat,
        NewGame,
        TapCard,
        PassCards,
        ChooseMoon,
        AskHint,
        ToggleTracker,
        Review,
        ReplayGame,
        ReplayHand,
        PostDaily,
        Register,
        Withdraw,
        ChooseLanguage,
    )
}
"""Each action's kind of press, by the action its data starts with."""


def from_button(data: str | None) -> Pressed | Refused:
    """A button's callback data as the typed press it was drawn from: the way in for every
    press; what this bot did not draw (or an argument it never writes) is refused with one
    sentence."""
    try:
        wire = Callback.decode(data)
    except BadCallback:
        return Refused()
    pressed = KINDS[wire.action].decode(wire)
    # Only what the bot draws: data that a value's own encoding does not give back (an
    # argument added, a number spelled another way) was never on a screen.
    if isinstance(pressed, Refused) or pressed.encode() == data:
        return pressed
    return Refused()


# ---------------------------------------------------------------- a table page's commands


def from_page(said: Any) -> SeatCommand | Refused:
    """The command a table page sent; anything that is not one of them is refused."""
    if not isinstance(said, dict):
        return Refused()
    kind, game, hand = said.get("type"), _number(said.get("game")), _number(said.get("hand"))
    if game is None or hand is None:
        return Refused()
    if kind == "card":
        card = said.get("card")
        return (
            TapCard(game, hand, card) if isinstance(card, str) and card in CARD_CODES else Refused()
        )
    if kind == "pass":
        return PassCards(game, hand)
    if kind == "moon":
        choice = said.get("choice")
        return ChooseMoon(game, hand, choice) if choice in ("subtract", "add") else Refused()
    if kind == "hint":
        return AskHint(game, hand)
    return Refused()


def _number(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**63:
        return value
    return None


class SeatMoves(Protocol):
    """The moves a seat makes (`bot.tables.play.Moves`)."""

    async def press_card(
        self, game_id: int, stamp: int, code: str, person: Person, handled: Handling | None = None
    ) -> Msg: ...

    async def press_pass(
        self, game_id: int, stamp: int, person: Person, handled: Handling | None = None
    ) -> Msg: ...

    async def press_moon(
        self, game_id: int, stamp: int, arg: str, person: Person, handled: Handling | None = None
    ) -> Msg: ...


class SeatHints(Protocol):
    """The coach's hint (`bot.computers.coach.Coach`)."""

    async def hint(self, game_id: int, stamp: int, person: Person) -> Msg: ...


async def carry_out(
    command: SeatCommand,
    person: Person,
    moves: SeatMoves,
    coach: SeatHints,
    handled: Handling | None = None,
) -> Msg:
    """Do what a seat's press asked, as `person` (from a DM button or the page), and say
    what it is answered; refusals raise `UserError`. `handled`: the Telegram update it
    came in (None on the page), stored with a move it makes."""
    match command:
        case TapCard(game, hand, card):
            return await moves.press_card(game, hand, card, person, handled)
        case PassCards(game, hand):
            return await moves.press_pass(game, hand, person, handled)
        case ChooseMoon(game, hand, choice):
            arg = "s" if choice == "subtract" else "a"
            return await moves.press_moon(game, hand, arg, person, handled)
        case AskHint(game, hand):
            return await coach.hint(game, hand, person)
        case _:
            assert_never(command)
