"""Events (multi-table tournaments) as storage hands them out: domain objects, never rows.

An event belongs to one group (and forum topic). People register; each round seats them
at tables (``EventTable``), each table plays one game (``games.event_id`` links it back),
and the best of each table go on until a final table decides the winner. Reminders that
were sent are recorded so that a restart neither loses nor repeats them.
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass, fields
from datetime import datetime
from typing import Any, ClassVar, Final, Literal

from engine import Rules

from .models import Score

log = logging.getLogger(__name__)

EventStatus = Literal["registration", "running", "paused", "finished", "cancelled"]
EVENT_STATUSES: Final = ("registration", "running", "paused", "finished", "cancelled")
OPEN_EVENT_STATUSES: Final = ("registration", "running", "paused")
RegistrationStatus = Literal["pending", "registered", "withdrawn", "removed", "eliminated"]
REGISTRATION_STATUSES: Final = ("pending", "registered", "withdrawn", "removed", "eliminated")
"""``pending``: pressed Register but has not opened the bot's DM yet, so does not count."""
EventTableStatus = Literal["playing", "finished", "cancelled"]


@dataclass(frozen=True)
class EventOptions:
    """How an event is run; everything the organiser can choose besides the table rules."""

    table_size: int = 4
    advance_per_table: int = 2
    """The best this many of each table go on (unless ``advance_overall`` is set)."""
    advance_overall: int | None = None
    """The best this many of the whole round go on, whatever their table."""
    computer_fill: bool = False
    """Leftover seats are filled by computer players instead of resizing tables."""
    duplicate_deals: bool = False
    """Every table of a round (of one size) plays the same deals."""
    grace_s: int = 300
    """A player who makes no move this long after their round starts is a no-show."""
    allowed_usernames: tuple[str, ...] = ()
    """Empty: every member of the group may register; else only these (lower case, no @)."""
    invited_usernames: tuple[str, ...] = ()
    """People who may register although they are not members of the group."""
    turn_timer: int = 60
    computer_level: str = "standard"

    RANGES: ClassVar[dict[str, tuple[int, int]]] = {
        "table_size": (3, 6),
        "advance_per_table": (1, 5),
        "advance_overall": (1, 1000),
        "grace_s": (60, 24 * 3600),
        "turn_timer": (0, 3600),
    }
    """The whole numbers each option may hold (an organiser's are checked against these)."""
    MAX_USERNAMES: ClassVar[int] = 100
    """At most this many usernames in ``only=`` or ``invite=``: the event's message lists
    them and must stay within Telegram's 4,096 characters."""

    def __post_init__(self) -> None:
        for name in ("allowed_usernames", "invited_usernames"):
            value = getattr(self, name)
            if not isinstance(value, tuple):
                object.__setattr__(self, name, tuple(value))

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["allowed_usernames"] = list(self.allowed_usernames)
        data["invited_usernames"] = list(self.invited_usernames)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> EventOptions:
        """The stored options, each number brought within its range and each list within
        `MAX_USERNAMES` (rows written before the ranges existed may hold anything)."""
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        defaults = cls()
        for name, (low, high) in cls.RANGES.items():
            value = values.get(name, getattr(defaults, name))
            if value is None and name == "advance_overall":
                continue
            if isinstance(value, bool) or not isinstance(value, int):
                values[name] = getattr(defaults, name)
            elif not low <= value <= high:
                log.warning(
                    "stored event option %s=%s is out of range: %s used",
                    name,
                    value,
                    min(max(value, low), high),
                )
                values[name] = min(max(value, low), high)
        for name in ("allowed_usernames", "invited_usernames"):
            names = values.get(name, ())
            values[name] = (
                tuple(names)[: cls.MAX_USERNAMES] if isinstance(names, list | tuple) else ()
            )
        return cls(**values)


@dataclass(frozen=True)
class StoredEvent:
    """One event as stored. Times are aware datetimes (UTC); ``time_zone`` is the group's,
    for showing them."""

    id: int
    chat_id: int
    thread_id: int | None
    organiser_id: int
    organiser_name: str
    name: str
    rules: Rules
    options: EventOptions
    time_zone: str
    starts_at: datetime | None
    registration_deadline: datetime | None
    status: EventStatus
    current_round: int
    meta: dict[str, Any]
    created_at: datetime
    finished_at: datetime | None = None

    @property
    def is_open(self) -> bool:
        return self.status in OPEN_EVENT_STATUSES


@dataclass(frozen=True)
class Registration:
    """One person's entry in an event; ``final_place`` is set when the event finishes."""

    event_id: int
    user_id: int
    display_name: str
    username: str | None
    status: RegistrationStatus
    registered_at: datetime
    final_place: int | None = None


@dataclass(frozen=True)
class EventSeat:
    """Who sits in one seat of a round's table, and how it went for them.

    ``user_id`` None is a computer player (filling a short table). ``present`` becomes True
    at the person's first own move; ``no_show`` marks a person a computer replaced after
    the grace period (they cannot advance).
    """

    seat: int
    display_name: str
    user_id: int | None = None
    present: bool = False
    no_show: bool = False
    place: int | None = None
    total: Score | None = None
    advanced: bool = False


@dataclass(frozen=True)
class EventTable:
    """Table ``table_no`` (from 1) of round ``round`` (from 1), and the game it plays."""

    event_id: int
    round: int
    table_no: int
    seed: int
    seats: tuple[EventSeat, ...]
    game_id: int | None = None
    status: EventTableStatus = "playing"

    def seat_of(self, user_id: int) -> int | None:
        return next((s.seat for s in self.seats if s.user_id == user_id), None)
