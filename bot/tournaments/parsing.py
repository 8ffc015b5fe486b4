"""``/tournament new …`` read into a request: a name, a start, a time zone and options, each
number within its range and every date within a year."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Final
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.i18n import Msg
from bot.tables.model import LEVELS
from bot.tournaments.render import said
from domain.tournaments import SEEDINGS, TournamentOptions


class BadRequest(ValueError):
    """What was wrong with ``/event new …``, said to the organiser in their language."""

    def __init__(self, said: Msg) -> None:
        super().__init__(str(said))
        self.said = said


@dataclass(frozen=True)
class TournamentRequest:
    """What ``/tournament new ...`` asked for, before it meets the group's rules."""

    name: str
    starts_at: datetime | None
    time_zone: str
    deadline: datetime | None
    options: TournamentOptions
    target: int | None


_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_TIME = re.compile(r"^\d{1,2}:\d{2}$")
SWITCH = {"on": True, "yes": True, "true": True, "off": False, "no": False, "false": False}


_USERNAME = re.compile(r"^[a-z0-9_]{1,32}$")
MAX_TARGET: Final = 1000
MAX_AHEAD: Final = timedelta(days=366)
"""How far ahead a tournament may start (or close registration): a year and a day."""


def usernames(key: str, value: str) -> tuple[str, ...]:
    parts = re.split(r"[,\s]+", value)
    names = sorted({p.lstrip("@").lower() for p in parts if p.lstrip("@")})
    bad = next((n for n in names if not _USERNAME.match(n)), None)
    if bad is not None:
        raise BadRequest(
            said("{key}= takes Telegram usernames; {bad} is not one", key=key, bad=repr(bad[:40]))
        )
    if len(names) > TournamentOptions.MAX_USERNAMES:
        most = TournamentOptions.MAX_USERNAMES
        raise BadRequest(said("{key}= takes at most {most} usernames", key=key, most=most))
    return tuple(names)


def _whole(key: str, value: str, low: int, high: int) -> int:
    """``value`` as a whole number from `low` to `high` (ASCII digits only), or a sentence
    naming the option and its range."""
    if not (value.isascii() and value.isdigit()) or len(value) > 7 or not low <= int(value) <= high:
        raise BadRequest(
            said("{key}= takes a whole number from {low} to {high}", key=key, low=low, high=high)
        )
    return int(value)


def parse_new(words: Sequence[str], default_tz: str, now: datetime) -> TournamentRequest:
    """Parse the words after ``/tournament new``; `ValueError` with a sentence for people.

    Every number has a range (`TournamentOptions.RANGES`, `MAX_TARGET`) and every date lies
    within `MAX_AHEAD`, checked here before anything is computed with it."""
    ranges = TournamentOptions.RANGES
    name_parts: list[str] = []
    date = clock = None
    tz = default_tz
    values: dict[str, Any] = {}
    deadline_text = None
    target = None
    for word in words:
        if _DATE.match(word):
            date = word
        elif _TIME.match(word):
            clock = word
        elif "=" in word:
            key, _, value = word.partition("=")
            key = key.lower()
            if key == "size":
                values["table_size"] = _whole(key, value, *ranges["table_size"])
            elif key == "advance":
                values["advance_per_table"] = _whole(key, value, *ranges["advance_per_table"])
            elif key == "top":
                values["advance_overall"] = _whole(key, value, *ranges["advance_overall"])
            elif key == "grace":
                low, high = ranges["grace_s"]
                values["grace_s"] = _whole(key, value, low // 60, high // 60) * 60
            elif key == "timer":
                values["turn_timer"] = _whole(key, value, *ranges["turn_timer"])
            elif key == "target":
                target = _whole(key, value, 1, MAX_TARGET)
            elif key in ("computers", "duplicate", "watch") and value.lower() in SWITCH:
                field = {
                    "computers": "computer_fill",
                    "duplicate": "duplicate_deals",
                    "watch": "watching",
                }[key]
                values[field] = SWITCH[value.lower()]
            elif key == "only":
                values["allowed_usernames"] = usernames(key, value)
            elif key == "invite":
                values["invited_usernames"] = usernames(key, value)
            elif key == "seeding" and value.lower() in SEEDINGS:
                values["seeding"] = value.lower()
            elif key == "level" and value in LEVELS:
                values["computer_level"] = value
            elif key == "deadline":
                deadline_text = value
            else:
                raise BadRequest(said("unknown option or value {word}", word=repr(word[:60])))
        elif "/" in word or word.upper() == "UTC":
            tz = word
        else:
            name_parts.append(word)
    try:
        zone = ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError):
        raise BadRequest(
            said("unknown time zone {zone} (try Europe/Berlin or Asia/Kolkata)", zone=repr(tz[:60]))
        ) from None
    starts_at = None
    if date is not None or clock is not None:
        if date is None:
            date = now.astimezone(zone).date().isoformat()
        starts_at = _local(f"{date}T{clock or '00:00'}", zone, now)
        if starts_at <= now:
            raise BadRequest(said("That start time has already passed."))
    deadline = None
    if deadline_text is not None:
        if _TIME.match(deadline_text) and starts_at is not None:
            day = starts_at.astimezone(zone).date().isoformat()
            deadline_text = f"{day}T{deadline_text}"
        deadline = _local(deadline_text, zone, now)
    options = TournamentOptions(**values)
    if not 1 <= options.advance_per_table < options.table_size:
        raise BadRequest(said("advance must be from 1 to {most}", most=options.table_size - 1))
    name = " ".join(name_parts).strip() or "Hearts Cup"
    return TournamentRequest(name[:80], starts_at, tz, deadline, options, target)


def _local(text: str, zone: ZoneInfo, now: datetime) -> datetime:
    """A date and time in the group's zone, as UTC; within `MAX_AHEAD` of `now`."""
    shown = repr(text[:40])
    try:
        moment = datetime.fromisoformat(text).replace(tzinfo=zone).astimezone(UTC)
    except (ValueError, OverflowError):
        raise BadRequest(
            said(
                "{text} is not a date and time like {day} 18:00",
                text=shown,
                day=(now + timedelta(days=7)).date().isoformat(),  # render.example_day
            )
        ) from None
    if moment - now > MAX_AHEAD:
        raise BadRequest(said("{text} is more than a year away", text=shown))
    return moment
