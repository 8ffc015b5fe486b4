"""What a command asks the world to do, as data: the core returns these, the runner
(`bot.core.runner`) carries them out in `ORDER`.

Nothing here does anything: storing, drawing a screen, arming a timer and telling the
tournaments are done by whoever the runner was given for each kind of effect.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from bot.i18n import Msg
from domain.handling import Handling
from engine import Event, Game, Move


class Urgency(Enum):
    """How soon a changed screen must reach its reader: the core asks for one with a seat's
    screen (`ShowSeat`), `Screens` picks one for every screen it sends, and the Telegram
    adapter maps it to the outbox's pacing priorities (`bot.telegram.draw.PRIORITY`)."""

    NOW = "now"
    """The reader must act now (their turn, the moon choice, a new deal, a hint asked for,
    the rules menu they opened)."""
    PLAYED = "played"
    """The reader just moved: their own screen first."""
    MOVED = "moved"
    """The reader pressed something there (chose a card, opened the tracker, changed the
    lobby), whose toast already said what happened."""
    EDIT = "edit"
    """Everyone else's screens, brought up to date (with lean edits, `Screens.show_all`
    sends one that only another player's card mid-trick changed as IDLE instead, until the
    trick is complete)."""
    IDLE = "idle"
    """Only another player's card in the middle of a trick: nobody waits on it, so it is
    not written (a table page still shows it); the reader's next screen shows it, when the
    trick is complete or they must act."""


@dataclass(frozen=True)
class StoreDeal:
    """Durable: `game` is stored as dealt, with the table's seats and state."""

    game: Game


@dataclass(frozen=True)
class StoreMove:
    """Durable: the move is journaled with the game and the table's state, before anyone
    sees it. ``stand_in``: a computer player moved for the seat's person; ``handled``: the
    Telegram update it was pressed in, recorded as handled in the move's transaction."""

    move: Move
    stand_in: bool = False
    handled: Handling | None = field(default=None, compare=False)


@dataclass(frozen=True)
class CreateLobby:
    """Durable: a new lobby is stored, and given its id (`Table.id`)."""


@dataclass(frozen=True)
class StoreLobby:
    """Durable: the lobby's seats, rules and who waits to sit."""


@dataclass(frozen=True)
class StoreCancel:
    """Durable: the table is stored as cancelled (a game after its first hand is rated
    from its standing totals in the same transaction)."""


@dataclass(frozen=True)
class StoreTable:
    """Durable: the table's seat state (a seat taken over or given back)."""


@dataclass(frozen=True)
class SaveNow:
    """A hint's count stored with the table now (and the hint shown, by its screens), or
    soon if storage refuses: what it keeps stands either way."""


@dataclass(frozen=True)
class AskCoach:
    """The coach thinks out the hint for `seat`'s decision `key` in the worker pool (or
    joins the thinking already under way); its answer comes back as `GiveHint`."""

    seat: int
    key: str


@dataclass(frozen=True)
class AskForReview:
    """The coach reviews `seat`'s choices in `hand` from the journal, in the worker pool;
    the review follows in the person's DM."""

    seat: int
    hand: int


@dataclass(frozen=True)
class AnnounceHand:
    """Tell the group how hand ``hand_number`` went."""

    hand_number: int


@dataclass(frozen=True)
class FinishGame:
    """The game is over: rate it, tell the group who won, and let the table go."""


@dataclass(frozen=True)
class TellGroup:
    """Say one sentence in the table's group."""

    said: Msg


@dataclass(frozen=True)
class ClearNudges:
    """Delete the "your turn" and "⏰ s left" messages of a seat that moved."""

    seat: int


@dataclass(frozen=True)
class ShowLobby:
    """The lobby's message shows its seats and rules as they are now."""


@dataclass(frozen=True)
class ShowDeal:
    """A new game: every person gets their screen, and the group its table message."""


@dataclass(frozen=True)
class ShowAll:
    """Every screen of the table changed. ``moved``: the seats whose own press it was
    (their screens go first); empty when the move was made on the table page."""

    moved: frozenset[int] = frozenset()


@dataclass(frozen=True)
class ShowSeat:
    """One seat's screen changed (a card selected, the tracker opened)."""

    seat: int
    urgency: Urgency


@dataclass(frozen=True)
class ShowEnd:
    """A table that will not finish: its message and its players' screens say how it
    ended (the `Cancel` command's words), its open pages too."""

    table: Msg | None
    standings: bool
    told: Msg | None
    tell_lobby: bool


@dataclass(frozen=True)
class Forget:
    """The table is no longer live: its timers stop and memory lets it go."""


@dataclass(frozen=True)
class ResendScreen:
    """A new living DM for the seat at the bottom of its chat (its old one is far up), its
    id stored at once."""

    seat: int


@dataclass(frozen=True)
class SaveSoon:
    """The table's screens' state changed (a selection, the tracker, a press's idle
    message gone): its screens store it within a second, apart from the game (not worth a
    transaction per tap)."""


@dataclass(frozen=True)
class ArmNext:
    """Arm what comes next: a computer's move, a person's turn timer; or stop the clock of
    a table that ended."""

    events: tuple[Event, ...] = ()


@dataclass(frozen=True)
class TellTournament:
    """A tournament's table moved (or was dealt): its tournament notes it."""

    events: tuple[Event, ...] = ()


@dataclass(frozen=True)
class PushPages:
    """The table's open pages get the new state."""

    events: tuple[Event, ...] = ()


Effect = (
    CreateLobby
    | StoreDeal
    | StoreLobby
    | StoreMove
    | StoreCancel
    | StoreTable
    | SaveNow
    | AnnounceHand
    | FinishGame
    | TellGroup
    | ClearNudges
    | ShowLobby
    | ShowDeal
    | ShowAll
    | ShowSeat
    | ShowEnd
    | ResendScreen
    | SaveSoon
    | AskCoach
    | AskForReview
    | ArmNext
    | TellTournament
    | PushPages
    | Forget
)

DURABLE: tuple[type[Effect], ...] = (
    CreateLobby,
    StoreLobby,
    StoreDeal,
    StoreMove,
    StoreCancel,
    StoreTable,
)
"""Committed first; if one fails, the command is undone in memory and nothing else runs."""

ORDER: tuple[type[Effect], ...] = (
    *DURABLE,
    SaveNow,
    AnnounceHand,
    FinishGame,
    TellGroup,
    ClearNudges,
    ShowLobby,
    ShowDeal,
    ShowAll,
    ShowSeat,
    ShowEnd,
    ResendScreen,
    SaveSoon,
    AskCoach,
    AskForReview,
    Forget,
    ArmNext,
    TellTournament,
    PushPages,
)
"""The order effects run in, whatever order a command lists them: what must be durable,
then a hint's count kept, what the group is told (a hand's result before the screens that
follow it), the screens, the coach asked, a table that ended unfinished let go, and last
those who react to a move: the turn clock (what comes next is armed before anyone else
hears), the tournaments, the open pages."""

REACTIONS: tuple[type[Effect], ...] = (ArmNext, TellTournament, PushPages)
"""Effects whose failure is logged and does not fail the command: the move stands."""
