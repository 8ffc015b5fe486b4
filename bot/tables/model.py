"""A table as the bot keeps it: seats, options, the engine's game, and its messages.

Everything here serialises to plain JSON, the game's side to the storage's ``meta``
column and the screens' (`TableUI`) to their own row (`storage.screens`), so a table is
restored exactly after a restart: messages re-edited, selections kept, timers re-armed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import TYPE_CHECKING, Any, Literal

from bot.basics import display_name
from bot.core import phases
from bot.core.phases import Phase, StoredStatus
from domain.games import StoredGame, StoredSeat
from engine import Game, Rules

if TYPE_CHECKING:
    from bot.screens.buttons import Words

SeatKind = Literal["human", "computer"]
LEVELS = ("easy", "standard", "pro", "expert")
TIMERS = (0, 30, 60, 120)
TARGETS = (50, 75, 100, 150)
COMPUTER_NAMES = ("Ada", "Alan", "Grace", "Edsger", "Barbara", "Donald")


@dataclass(frozen=True)
class Seat:
    """Who sits in one seat: a value, changed by making a new one (`dataclasses.replace`)
    in a command's `decide`, so a table's old state is never touched by its new one."""

    kind: SeatKind
    name: str
    user_id: int | None = None
    level: str = "standard"
    away: bool = False
    """A person whose seat a computer player holds until they /rejoin."""
    away_why: str = ""
    """Why it holds it (`bot.core.commands.AWAY_WHY`): ``left``, ``timeouts``, ``blocked``,
    or ``""`` (replaced: a no-show, a player an event removed)."""
    timeouts: int = 0
    """Turns in a row the timer ran out on."""

    @property
    def is_computer_now(self) -> bool:
        return self.kind == "computer" or self.away


@dataclass
class TableOptions:
    turn_timer: int = 60
    computer_level: str = "standard"
    track_cards: bool = True
    hints: bool = True
    """The coach's 💡 Hint button (never at a tournament's tables)."""
    watching: bool = True
    """Whether the group may watch the table on its page (an event's organiser may say no)."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TableOptions:
        return cls(**data)


@dataclass
class TableUI:
    """What a table's screens keep: the ids of its messages, and each seat's screen state
    (selections, the tracker open, the hint shown, when they last pressed, whether the
    turn's reminder went).

    The split: what only says how the table is shown is here, stored by the screens
    (`bot.screens.kept`, `storage.screens`); what the table's game, lobby or clock needs
    (who waits to sit, the turn's deadline, the hints counted in results) is the table's
    own (`Table`), stored with the game in its ``meta``."""

    table_message_id: int | None = None
    dm_message_ids: dict[int, int] = field(default_factory=dict)
    nudge_message_ids: dict[int, int] = field(default_factory=dict)
    reminder_message_ids: dict[int, int] = field(default_factory=dict)
    """The "⏰ 30 s left" DM of each seat, deleted once the person has moved."""
    idle_message_ids: dict[int, int] = field(default_factory=dict)
    """The group's one message about a seat that keeps timing out, edited as it goes on
    (0 while it is on its way)."""
    selections: dict[int, list[str]] = field(default_factory=dict)
    active_at: dict[int, float] = field(default_factory=dict)
    """When each seat last pressed at this table (in its DM or on the page) or was sent its
    DM's screen as a new message, which buzzed their phone already (epoch seconds): whether
    its "your turn" message comes early or late (`TablesConfig.engaged_nudge_delay`)."""
    tracker_open: dict[int, bool] = field(default_factory=dict)
    reminded: bool = False
    """Whether this turn's "⏰ s left" reminder went."""
    hints: dict[int, dict[str, Any]] = field(default_factory=dict)
    """The coach's hint each seat asked for, shown in its DM until it moves: the decision
    it answers (``key``) and the hint itself (`bot.computers.coach`)."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TableUI:
        known = {f.name for f in fields(cls)}
        ui = cls(**{k: v for k, v in data.items() if k in known})
        # JSON turns int keys into strings.
        ui.dm_message_ids = {int(k): v for k, v in ui.dm_message_ids.items()}
        ui.nudge_message_ids = {int(k): v for k, v in ui.nudge_message_ids.items()}
        ui.reminder_message_ids = {int(k): v for k, v in ui.reminder_message_ids.items()}
        ui.idle_message_ids = {int(k): v for k, v in ui.idle_message_ids.items()}
        ui.selections = {int(k): v for k, v in ui.selections.items()}
        ui.active_at = {int(k): v for k, v in ui.active_at.items()}
        ui.tracker_open = {int(k): v for k, v in ui.tracker_open.items()}
        ui.hints = {int(k): v for k, v in ui.hints.items()}
        return ui


def computer(seats: Sequence[Seat | None], level: str) -> Seat:
    """A computer player of `level` with a name not yet among `seats`."""
    taken = {s.name for s in seats if s is not None}
    name = next(
        (n for n in COMPUTER_NAMES if n not in taken),
        f"{COMPUTER_NAMES[0]} {len(taken) + 1}",  # a name: the same in every language
    )
    return Seat("computer", name, level=level)


def resized(seats: Sequence[Seat | None], players: int) -> list[Seat | None]:
    """`seats` made `players` long, keeping who sits first."""
    sitting = [s for s in seats if s is not None][:players]
    return [*sitting, *([None] * (players - len(sitting)))]


@dataclass
class Table:
    """One table in one chat (and forum topic), from the lobby to the last hand.

    A command never changes a table: its `decide` makes a new one (`dataclasses.replace`,
    sharing what did not change), and the runner (`bot.core.runner`) moves what changed
    into the table everyone holds once it is stored. The screens still write their message
    ids into `ui` as the messages land.

    Two owners store it: the game's side (seats, options, the game, who waits to sit, the
    deadline, the hints counted) goes with the game (`stored_meta`, the journal); `ui`,
    what its screens keep, only through the screens (`storage.screens`)."""

    id: int
    chat_id: int
    thread_id: int | None
    chat_title: str
    creator_id: int
    creator_name: str
    rules: Rules
    options: TableOptions
    seats: list[Seat | None]
    phase: Phase = Phase.LOBBY
    """Where the table is in its life (`bot.core.phases`): set by the runner, with the
    rest of a command's new state, once that is stored."""
    game: Game | None = None
    ui: TableUI = field(default_factory=TableUI)
    """What its screens keep (message ids, selections…): stored by the screens, apart from
    the game (`storage.screens`); a command changes it as it changes the rest."""
    pending: dict[int, str] = field(default_factory=dict)
    """People who pressed Join but must open a DM with the bot first: user id → name."""
    deadline: float | None = None
    """When the turn timer runs out (epoch seconds), for re-arming after a restart."""
    hints_used: dict[int, dict[int, int]] = field(default_factory=dict)
    """Hints asked for, hand number → seat → count, for every hand of the game (the hand's
    results and ``/scores`` show them; stored with the table, so a restart keeps them)."""
    tournament_id: int | None = None
    """The tournament this table plays in: its group sees the tournament's status, not a table
    message and hand results of its own."""
    daily: int | None = None
    """The day whose daily deal this table plays (`engine.daily`): one person and three
    computers in the person's DM, no group message, nothing revealed before the day ends."""
    join_token: str = ""
    """The table's id in ``/start j<token>`` links: random, so no one can guess a link."""
    end_words: Words | None = field(default=None, compare=False, repr=False)
    """What the table's message says of its end, kept when the table ended before that
    message was even posted (a lobby cancelled or expired while its message was on its
    way): the message then shows it as it lands (`Lobby`), never a live lobby. In memory
    only: the table is gone once it has ended."""

    @property
    def status(self) -> StoredStatus:
        """What storage's ``games.status`` says of the table."""
        return phases.stored_status(self.phase)

    def seat_of(self, user_id: int) -> int | None:
        for number, seat in enumerate(self.seats):
            if seat is not None and seat.user_id == user_id:
                return number
        return None

    def humans(self) -> list[tuple[int, Seat]]:
        return [(n, s) for n, s in enumerate(self.seats) if s is not None and s.kind == "human"]

    def name(self, seat: int) -> str:
        s = self.seats[seat]
        return s.name if s is not None else "?"

    def names(self) -> tuple[str, ...]:
        """Every seat's name, in seat order: what a screen shows of who sits where, read
        once (`bot.screens.seat_screen`)."""
        return tuple(self.name(s) for s in range(len(self.seats)))

    def meta(self) -> dict[str, Any]:
        meta: dict[str, Any] = {
            "chat_title": self.chat_title,
            "creator_name": self.creator_name,
            "options": self.options.to_dict(),
            "pending": self.pending,
            "deadline": self.deadline,
            "hints_used": self.hints_used,
        }
        if self.daily is not None:
            meta["daily"] = self.daily
        return meta

    @property
    def in_group(self) -> bool:
        """Whether the table has a group of its own to post in: not a tournament's (its
        group follows the tournament's message) nor a daily deal's (a DM)."""
        return self.tournament_id is None and self.daily is None

    def offers_hints(self) -> bool:
        """The 💡 Hint button: its rule is on, and it is no tournament's nor daily deal's
        table."""
        return self.options.hints and self.in_group

    def offers_review(self) -> bool:
        """🔍 Review: anywhere but at a tournament's table while its game runs, and never at
        a daily deal's (it would show the day's hands before the day is over)."""
        if self.daily is not None:
            return False
        return self.tournament_id is None or self.phase is not Phase.DEALT

    def computer(self) -> Seat:
        """A computer player with a name not yet at the table (its level is the table's)."""
        return computer(self.seats, self.options.computer_level)

    def stored_meta(self) -> dict[str, Any]:
        """What the storage's ``meta`` column keeps: `meta` and the people's seat state."""
        meta = self.meta()
        meta["seat_state"] = {
            str(n): {"away": s.away, "timeouts": s.timeouts, "why": s.away_why}
            for n, s in enumerate(self.seats)
            if s is not None and s.kind == "human"
        }
        return meta

    def stored_seats(self) -> list[StoredSeat]:
        out = []
        for n, s in enumerate(self.seats):
            if s is None:
                continue
            if s.kind == "human":
                assert s.user_id is not None
                out.append(StoredSeat.human(n, s.user_id, s.name))
            else:
                out.append(StoredSeat.computer(n, s.name, s.level))
        return out

    @classmethod
    def from_stored(cls, stored: StoredGame, screens: dict[str, Any] | None = None) -> Table:
        """The table as it was stored (also a finished one, for /scores and a rematch);
        `screens`: what its screens stored (`storage.screens`), for a live table resumed."""
        meta = stored.meta
        seats: list[Seat | None] = [None] * stored.rules.players
        seat_state = meta.get("seat_state", {})
        for s in stored.seats:
            extra = seat_state.get(str(s.seat), {})
            seats[s.seat] = Seat(
                kind=s.kind,
                name=display_name(s.display_name),  # stored before names were cut too
                user_id=s.user_id,
                level=s.computer_level or "standard",
                away=bool(extra.get("away", False)),
                away_why=str(extra.get("why", "")),
                timeouts=int(extra.get("timeouts", 0)),
            )
        return cls(
            id=stored.id,
            chat_id=stored.chat_id,
            thread_id=stored.thread_id,
            chat_title=meta.get("chat_title", ""),
            creator_id=stored.creator_id,
            creator_name=display_name(meta.get("creator_name", "")),
            rules=stored.rules,
            options=TableOptions.from_dict(meta.get("options", {})),
            seats=seats,
            phase=phases.of_stored(stored.status),
            game=stored.game,
            ui=TableUI.from_dict(screens or {}),
            pending={int(k): v for k, v in meta.get("pending", {}).items()},
            deadline=meta.get("deadline"),
            hints_used={
                int(hand): {int(seat): n for seat, n in counts.items()}
                for hand, counts in meta.get("hints_used", {}).items()
            },
            tournament_id=stored.tournament_id,
            daily=meta.get("daily"),
            join_token=stored.join_token,
        )
