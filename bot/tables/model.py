"""A table as the bot keeps it: seats, options, the engine's game, and its messages.

Everything here serialises to plain JSON (the storage's ``meta`` column), so a table is
restored exactly after a restart: messages re-edited, selections kept, timers re-armed.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from engine import Game, Rules

SeatKind = Literal["human", "computer"]
LEVELS = ("easy", "standard", "pro", "expert")
TIMERS = (0, 30, 60, 120)
TARGETS = (50, 75, 100, 150)


@dataclass
class Seat:
    kind: SeatKind
    name: str
    user_id: int | None = None
    level: str = "standard"
    away: bool = False
    """A person whose seat a computer player holds until they /rejoin."""
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

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TableOptions:
        return cls(**data)


@dataclass
class TableUI:
    """The messages that show a table, and per-seat screen state."""

    table_message_id: int | None = None
    dm_message_ids: dict[int, int] = field(default_factory=dict)
    nudge_message_ids: dict[int, int] = field(default_factory=dict)
    reminder_message_ids: dict[int, int] = field(default_factory=dict)
    """The "⏰ 30 s left" DM of each seat, deleted once the person has moved."""
    idle_message_ids: dict[int, int] = field(default_factory=dict)
    """The group's one message about a seat that keeps timing out, edited as it goes on
    (0 while it is on its way)."""
    selections: dict[int, list[str]] = field(default_factory=dict)
    tracker_open: dict[int, bool] = field(default_factory=dict)
    pending: dict[int, str] = field(default_factory=dict)
    """People who pressed Join but must open a DM with the bot first: user id → name."""
    deadline: float | None = None
    """When the turn timer runs out (epoch seconds), for re-arming after a restart."""
    reminded: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TableUI:
        ui = cls(**data)
        # JSON turns int keys into strings.
        ui.dm_message_ids = {int(k): v for k, v in ui.dm_message_ids.items()}
        ui.nudge_message_ids = {int(k): v for k, v in ui.nudge_message_ids.items()}
        ui.reminder_message_ids = {int(k): v for k, v in ui.reminder_message_ids.items()}
        ui.idle_message_ids = {int(k): v for k, v in ui.idle_message_ids.items()}
        ui.selections = {int(k): v for k, v in ui.selections.items()}
        ui.tracker_open = {int(k): v for k, v in ui.tracker_open.items()}
        ui.pending = {int(k): v for k, v in ui.pending.items()}
        return ui


@dataclass
class Table:
    """One table in one chat (and forum topic), from the lobby to the last hand."""

    id: int
    chat_id: int
    thread_id: int | None
    chat_title: str
    creator_id: int
    creator_name: str
    rules: Rules
    options: TableOptions
    seats: list[Seat | None]
    status: str = "lobby"
    game: Game | None = None
    ui: TableUI = field(default_factory=TableUI)
    event_id: int | None = None
    """The tournament this table plays in: its group sees the event's status, not a table
    message and hand results of its own."""
    join_token: str = ""
    """The table's id in ``/start j<token>`` links: random, so no one can guess a link."""

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

    def resize(self, players: int) -> None:
        """Change the number of seats, keeping who sits first."""
        sitting = [s for s in self.seats if s is not None]
        sitting = sitting[:players]
        self.seats = [*sitting, *([None] * (players - len(sitting)))]

    def meta(self) -> dict[str, Any]:
        return {
            "chat_title": self.chat_title,
            "creator_name": self.creator_name,
            "options": self.options.to_dict(),
            "ui": self.ui.to_dict(),
        }
