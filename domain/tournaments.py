"""Tournaments (multi-table competitions) as storage hands them out: domain objects, never
rows.

A tournament belongs to one group (and forum topic). People register; each round seats
them at tables (``TournamentTable``), each table plays one game (``games.tournament_id``
links it back), and the best of each table go on until a final table decides the winner.
One-time actions (a reminder, the start, a round's results) are claimed once, so that a
restart neither loses nor repeats them.
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass, field, fields
from datetime import datetime
from typing import Any, ClassVar, Final, Literal

from engine import Rules

from .standings import Score

log = logging.getLogger(__name__)


class StateTooNew(ValueError):
    """A tournament's state written by a newer version of the bot (`found`) than this
    code reads (`known`); storage says so as `storage.SchemaTooNew`."""

    def __init__(self, found: int, known: int) -> None:
        super().__init__(f"a tournament's state at version {found}, newer than {known}")
        self.found = found
        self.known = known


TournamentStatus = Literal["registration", "running", "paused", "finished", "cancelled"]
TOURNAMENT_STATUSES: Final = ("registration", "running", "paused", "finished", "cancelled")
OPEN_TOURNAMENT_STATUSES: Final = ("registration", "running", "paused")
RegistrationStatus = Literal["pending", "registered", "withdrawn", "removed", "eliminated"]
REGISTRATION_STATUSES: Final = ("pending", "registered", "withdrawn", "removed", "eliminated")
"""``pending``: pressed Register but has not opened the bot's DM yet, so does not count."""
TournamentTableStatus = Literal["playing", "finished", "cancelled"]


SEEDINGS: Final = ("random", "rating")


@dataclass(frozen=True)
class TournamentOptions:
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
    seeding: str = "random"
    """``random``: the first round's draw is a seeded shuffle; ``rating``: the strongest
    by overall rating start at different tables."""
    watching: bool = True
    """Whether the group may watch the event's tables on the table page (``watch=off``,
    ``/event watch off``); kept with the other options (rows from before: on)."""

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
    def from_dict(cls, data: dict[str, Any]) -> TournamentOptions:
        """The stored options, each number brought within its range and each list within
        `MAX_USERNAMES` (rows written before the ranges existed may hold anything)."""
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        if values.get("seeding") not in SEEDINGS:
            values.pop("seeding", None)
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
class TournamentState:
    """What the bot keeps of a tournament besides its columns, typed.

    Stored as JSON with a version (``"v"``); `from_json` reads this version and the untyped
    ``meta`` that rows held before it (version 0, which migration 5 converts)."""

    VERSION: ClassVar[int] = 1

    seed: int = 0
    """Every draw and deal of the tournament follows from it (with the round and table)."""
    chat_title: str = ""
    message_id: int | None = None
    """The tournament's own message in its group: registration, then how it goes."""
    round_messages: dict[int, int] = field(default_factory=dict)
    """Each round's message (its tables and results), by round number."""
    round_started: dict[int, datetime] = field(default_factory=dict)
    """When each round was dealt: its no-show grace counts from then."""
    done_round: int | None = None
    """The last round whose results are in (the next one may be held back by a pause)."""
    advancing: tuple[int, ...] = ()
    """Who plays the next round (user ids), once a round's results are in."""
    paused_from: TournamentStatus | None = None
    """What a paused tournament goes back to: registration or running."""

    def to_json(self) -> str:
        data = {
            "v": self.VERSION,
            "seed": self.seed,
            "chat_title": self.chat_title,
            "message_id": self.message_id,
            "round_messages": {str(k): v for k, v in self.round_messages.items()},
            "round_started": {str(k): v.isoformat() for k, v in self.round_started.items()},
            "done_round": self.done_round,
            "advancing": list(self.advancing),
            "paused_from": self.paused_from,
        }
        return json.dumps(data, separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> TournamentState:
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("a tournament's state is a JSON object")
        version = data.get("v", 0)
        if version > cls.VERSION:
            raise StateTooNew(version, cls.VERSION)
        advancing = data.get("advancing" if version else "next") or []
        paused_from = data.get("paused_from")
        return cls(
            seed=int(data.get("seed", 0)),
            chat_title=str(data.get("chat_title", "")),
            message_id=_optional_int(data.get("message_id")),
            round_messages={int(k): int(v) for k, v in (data.get("round_messages") or {}).items()},
            round_started={
                int(k): datetime.fromisoformat(v)
                for k, v in (data.get("round_started") or {}).items()
            },
            done_round=_optional_int(data.get("done_round")),
            advancing=tuple(int(u) for u in advancing),
            paused_from=paused_from if paused_from in TOURNAMENT_STATUSES else None,
        )


def _optional_int(value: Any) -> int | None:
    return None if value is None else int(value)


@dataclass(frozen=True)
class StoredTournament:
    """One event as stored. Times are aware datetimes (UTC); ``time_zone`` is the group's,
    for showing them."""

    id: int
    chat_id: int
    thread_id: int | None
    organiser_id: int
    organiser_name: str
    name: str
    rules: Rules
    options: TournamentOptions
    time_zone: str
    starts_at: datetime | None
    registration_deadline: datetime | None
    status: TournamentStatus
    current_round: int
    state: TournamentState
    created_at: datetime
    finished_at: datetime | None = None

    @property
    def is_open(self) -> bool:
        return self.status in OPEN_TOURNAMENT_STATUSES


@dataclass(frozen=True)
class Registration:
    """One person's entry in an event; ``final_place`` is set when the event finishes."""

    tournament_id: int
    user_id: int
    display_name: str
    username: str | None
    status: RegistrationStatus
    registered_at: datetime
    final_place: int | None = None


@dataclass(frozen=True)
class TournamentSeat:
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
class TournamentTable:
    """Table ``table_no`` (from 1) of round ``round`` (from 1), and the game it plays."""

    tournament_id: int
    round: int
    table_no: int
    seed: int
    seats: tuple[TournamentSeat, ...]
    game_id: int | None = None
    status: TournamentTableStatus = "playing"

    def seat_of(self, user_id: int) -> int | None:
        return next((s.seat for s in self.seats if s.user_id == user_id), None)
