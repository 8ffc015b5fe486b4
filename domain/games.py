"""A table as stored: its seats, its status, its journal; what storage hands out for a
game, never rows."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final, Literal

from engine import Game, Rules

GameStatus = Literal["lobby", "active", "finished", "cancelled", "quarantined"]
GAME_STATUSES: Final = ("lobby", "active", "finished", "cancelled", "quarantined")
OPEN_STATUSES: Final = ("lobby", "active")
SeatKind = Literal["human", "computer"]


@dataclass(frozen=True)
class StoredSeat:
    """One seat at a table, numbered from 0 in play order."""

    seat: int
    kind: SeatKind
    display_name: str
    user_id: int | None = None
    computer_level: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in ("human", "computer"):
            raise ValueError(f"A seat is human or computer, not {self.kind!r}.")
        if (self.kind == "human") != (self.user_id is not None):
            raise ValueError(f"Seat {self.seat}: a human seat has a user id, a computer none.")

    @classmethod
    def human(cls, seat: int, user_id: int, display_name: str) -> StoredSeat:
        return cls(seat, "human", display_name, user_id=user_id)

    @classmethod
    def computer(cls, seat: int, display_name: str, level: str = "standard") -> StoredSeat:
        return cls(seat, "computer", display_name, computer_level=level)


@dataclass(frozen=True)
class GameStanding:
    """What a stored game was made as (a tournament's, a day's daily deal, its variant)
    and its ``games.status``: a game's row by key, nothing loaded."""

    status: str
    tournament_id: int | None
    daily: int | None
    variant: str


@dataclass(frozen=True)
class StoredGame:
    """A table as stored: its lobby data and, once started, the game itself.

    ``game`` is None in the lobby, and for a game that is quarantined (then
    ``quarantine_reason`` says why). ``last_seq`` is the number of journaled moves.
    """

    id: int
    chat_id: int
    thread_id: int | None
    creator_id: int
    status: GameStatus
    rules: Rules
    seats: tuple[StoredSeat, ...]
    meta: dict[str, Any]
    game: Game | None
    seed: int | None
    first_dealer: int | None
    fixed_deals: list[list[list[str]]]
    last_seq: int
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    quarantine_reason: str | None = None
    tournament_id: int | None = None
    join_token: str = ""
    """The table's id in ``/start`` links: random, so a link cannot be guessed."""

    def seat_of(self, user_id: int) -> int | None:
        """The seat ``user_id`` sits in at this table, if any."""
        return next((s.seat for s in self.seats if s.user_id == user_id), None)


@dataclass(frozen=True)
class JournalEntry:
    """One move as journaled."""

    seq: int
    move: dict[str, Any]
    created_at: datetime
