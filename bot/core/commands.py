"""What can be asked of a table, as data: the adapters (a DM button, the table page, the
turn clock, the lobby) build these, and `bot.core.table.decide` says what each does."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from bot.i18n import Msg
from bot.tables.model import Seat, TableOptions
from engine import Card, Game, Move, Rules


class Mover(Enum):
    """Who made a move."""

    PERSON = "person"
    """The seat's person, from a DM button."""
    PAGE = "page"
    """The seat's person, on the table page (which shows it; the DM catches up later)."""
    COMPUTER = "computer"
    """A computer player in its own seat."""
    STAND_IN = "stand_in"
    """A computer player for a person who is away (journaled as a stand-in's move)."""


@dataclass(frozen=True)
class Deal:
    """Start the lobby's game (its seats are filled): `game` is the dealt game."""

    game: Game


@dataclass(frozen=True)
class OpenLobby:
    """Open a new lobby (the table given, not stored yet, has its rules and options): its
    host sits first if `host_free` (no other table), or waits to sit until they open their
    DM (`host_dm_open`). A rematch (🔁 New game) opens it `like` a finished game's seats:
    its computers keep a seat, and so do its people in `free` (no other table, their DM
    open), in the order they sat."""

    host: int
    host_name: str
    host_free: bool
    host_dm_open: bool
    like: tuple[Seat | None, ...] = ()
    free: frozenset[int] = frozenset()


@dataclass(frozen=True)
class Start:
    """The host starts the lobby: every empty seat gets a computer player, whoever still
    waits to sit stops waiting, and `game` is dealt (refused without a person seated)."""

    game: Game


@dataclass(frozen=True)
class MakeMove:
    """Pass three cards, play a card or choose the moon's scoring."""

    move: Move
    mover: Mover


@dataclass(frozen=True)
class TimeOut:
    """A person's turn timer ran out: a computer player makes `move` for them, the seat
    counts the timeout, and at `limit` timeouts in a row the computer keeps the seat."""

    move: Move
    limit: int


@dataclass(frozen=True)
class TakeOver:
    """A computer player holds `seat` until its person sends /rejoin (they left, blocked
    the bot, never showed up); `said`: what the group is told, if anything."""

    seat: int
    said: Msg | None = None


@dataclass(frozen=True)
class Cancel:
    """End a lobby or a game that will not finish (its host cancelled it, nobody started
    it, its group removed the bot), and what its screens then say: the table's message
    `table`, or how it stopped (`standings`: a lobby cancelled, a game's totals), with a
    rated game's rating changes; its players' screens `told` (people in a lobby have none:
    `tell_lobby` says it in their DMs). Nothing said: its message is left as it is."""

    table: Msg | None = None
    standings: bool = False
    told: Msg | None = None
    tell_lobby: bool = False


@dataclass(frozen=True)
class Rejoin:
    """A person away from `seat` takes it back from the computer player."""

    seat: int
    said: Msg


@dataclass(frozen=True)
class ToggleTracker:
    """Open or close the 📋 cards-played list on a seat's screen."""

    seat: int


@dataclass(frozen=True)
class AskHint:
    """💡 Hint: the coach is asked for the expert's choice at `seat`'s decision now (its
    pass or its turn), unless that hint is on their screen already."""

    seat: int


@dataclass(frozen=True)
class GiveHint:
    """The coach's answer to `AskHint` for the decision `key`, in its stored form: shown
    on `seat`'s screen and counted for the hand's result, while that decision is open."""

    seat: int
    key: str
    hint: dict[str, Any]


@dataclass(frozen=True)
class AskReview:
    """🔍 Review: the coach is asked to review `seat`'s choices in `hand`, once it is over
    (at a tournament's table, once its game is)."""

    seat: int
    hand: int


@dataclass(frozen=True)
class ChooseCard:
    """Select (or unselect) a card to pass."""

    seat: int
    card: Card
    on_page: bool = False


@dataclass(frozen=True)
class Sit:
    """A person takes the lobby's first empty seat (and stops waiting, if they did)."""

    user_id: int
    name: str


@dataclass(frozen=True)
class Wait:
    """A person who pressed Join waits to sit until they open their DM with the bot."""

    user_id: int
    name: str


@dataclass(frozen=True)
class StopWaiting:
    """A person no longer waits to sit (seated elsewhere, or the table is full)."""

    user_id: int


@dataclass(frozen=True)
class Stand:
    """A person leaves the lobby: their seat is emptied, or they stop waiting."""

    user_id: int


@dataclass(frozen=True)
class AddComputer:
    """A computer player takes the first empty seat."""


@dataclass(frozen=True)
class EmptySeat:
    """The host empties a seat (✖)."""

    seat: int


@dataclass(frozen=True)
class SetRules:
    """The host changed the lobby's rules or options (the number of seats too)."""

    rules: Rules
    options: TableOptions


LobbyCommand = Sit | Wait | StopWaiting | Stand | AddComputer | EmptySeat | SetRules

Command = (
    OpenLobby
    | Deal
    | Start
    | MakeMove
    | TimeOut
    | TakeOver
    | Rejoin
    | ToggleTracker
    | AskHint
    | GiveHint
    | AskReview
    | ChooseCard
    | Cancel
    | LobbyCommand
)
