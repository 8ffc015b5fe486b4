"""Events: multi-table Hearts tournaments run inside a group, from registration to the final.

`EventService` is the Telegram side; the rules of draws, places and advancing are pure
functions in `bot.tournament`. State lives in storage (events, registrations, each round's
tables, reminders sent), so a restart resumes every event: messages, timers, tables.

Time comes from an injected ``clock`` (aware datetimes). Everything that happens at a
moment (reminders, the start, the registration deadline, the no-show grace period) is
checked by `tick`, which arms one scheduler timer for the next such moment; tests move a
`ManualClock` and call `tick` instead of sleeping.

Locks. Each event has a lock. A table's listener runs under that table's lock, so it never
takes an event lock (it arms ``event:<id>:sync`` instead); event code may take a table's
lock (through `HeartsService`) while holding the event's.
"""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
import shlex
import weakref
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any, Final
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.tables.model import LEVELS, Seat, Table, TableOptions
from bot.tables.render import esc
from bot.tables.service import COMPUTER_NAMES, HeartsService, Person, UserError
from bot.telegram.outbox import MOVED
from bot.texts import t
from bot.tournaments import plan as tour
from bot.tournaments import render as er
from engine import Event, Game, Rules
from storage.events import (
    EventOptions,
    EventSeat,
    EventTable,
    Registration,
    RegistrationStatus,
    StoredEvent,
)

log = logging.getLogger(__name__)

Clock = Callable[[], datetime]
MemberStatus = Callable[[int, int], Awaitable[str | None]]
"""``(chat_id, user_id)`` → the Bot API's chat member status, or None if it cannot tell."""
MEMBER_STATUSES = ("creator", "administrator", "member", "restricted")
MAX_TICK_S = 3600.0


def system_clock() -> datetime:
    return datetime.now(UTC)


class ManualClock:
    """A clock that moves only when told to (tests, the sandbox)."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, delta: timedelta) -> datetime:
        self.now += delta
        return self.now


# ====================================================================== parsing


@dataclass(frozen=True)
class EventRequest:
    """What ``/event new ...`` asked for, before it meets the group's rules."""

    name: str
    starts_at: datetime | None
    time_zone: str
    deadline: datetime | None
    options: EventOptions
    target: int | None


_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_TIME = re.compile(r"^\d{1,2}:\d{2}$")
_SWITCH = {"on": True, "yes": True, "true": True, "off": False, "no": False, "false": False}


_USERNAME = re.compile(r"^[a-z0-9_]{1,32}$")
MAX_TARGET: Final = 1000
MAX_AHEAD: Final = timedelta(days=366)
"""How far ahead an event may start (or close registration): a year and a day."""


def _usernames(key: str, value: str) -> tuple[str, ...]:
    parts = re.split(r"[,\s]+", value)
    names = sorted({p.lstrip("@").lower() for p in parts if p.lstrip("@")})
    bad = next((n for n in names if not _USERNAME.match(n)), None)
    if bad is not None:
        raise ValueError(f"{key}= takes Telegram usernames; {bad[:40]!r} is not one")
    if len(names) > EventOptions.MAX_USERNAMES:
        raise ValueError(f"{key}= takes at most {EventOptions.MAX_USERNAMES} usernames")
    return tuple(names)


def _whole(key: str, value: str, low: int, high: int) -> int:
    """``value`` as a whole number from `low` to `high` (ASCII digits only), or a sentence
    naming the option and its range."""
    if not (value.isascii() and value.isdigit()) or len(value) > 7 or not low <= int(value) <= high:
        raise ValueError(f"{key}= takes a whole number from {low} to {high}")
    return int(value)


def parse_new(words: Sequence[str], default_tz: str, now: datetime) -> EventRequest:
    """Parse the words after ``/event new``; `ValueError` with a sentence for people.

    Every number has a range (`EventOptions.RANGES`, `MAX_TARGET`) and every date lies
    within `MAX_AHEAD`, checked here before anything is computed with it."""
    ranges = EventOptions.RANGES
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
            elif key in ("computers", "duplicate") and value.lower() in _SWITCH:
                field = "computer_fill" if key == "computers" else "duplicate_deals"
                values[field] = _SWITCH[value.lower()]
            elif key == "only":
                values["allowed_usernames"] = _usernames(key, value)
            elif key == "invite":
                values["invited_usernames"] = _usernames(key, value)
            elif key == "level" and value in LEVELS:
                values["computer_level"] = value
            elif key == "deadline":
                deadline_text = value
            else:
                raise ValueError(f"unknown option or value {word[:60]!r}")
        elif "/" in word or word.upper() == "UTC":
            tz = word
        else:
            name_parts.append(word)
    try:
        zone = ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(
            f"unknown time zone {tz[:60]!r} (try Europe/Berlin or Asia/Kolkata)"
        ) from None
    starts_at = None
    if date is not None or clock is not None:
        if date is None:
            date = now.astimezone(zone).date().isoformat()
        starts_at = _local(f"{date}T{clock or '00:00'}", zone, now)
        if starts_at <= now:
            raise ValueError(t("event.reply.past"))
    deadline = None
    if deadline_text is not None:
        if _TIME.match(deadline_text) and starts_at is not None:
            day = starts_at.astimezone(zone).date().isoformat()
            deadline_text = f"{day}T{deadline_text}"
        deadline = _local(deadline_text, zone, now)
    options = EventOptions(**values)
    if not 1 <= options.advance_per_table < options.table_size:
        raise ValueError(f"advance must be from 1 to {options.table_size - 1}")
    name = " ".join(name_parts).strip() or "Hearts Cup"
    return EventRequest(name[:80], starts_at, tz, deadline, options, target)


def _local(text: str, zone: ZoneInfo, now: datetime) -> datetime:
    """A date and time in the group's zone, as UTC; within `MAX_AHEAD` of `now`."""
    problem = f"{text[:40]!r} is not a date and time like 2026-12-01 18:00"
    try:
        moment = datetime.fromisoformat(text).replace(tzinfo=zone).astimezone(UTC)
    except (ValueError, OverflowError):
        raise ValueError(problem) from None
    if moment - now > MAX_AHEAD:
        raise ValueError(f"{text[:40]!r} is more than a year away")
    return moment


# ====================================================================== the service


class EventService:
    """Events in groups: commands, registration, rounds, reminders, results."""

    def __init__(
        self, service: HeartsService, member_status: MemberStatus, clock: Clock = system_clock
    ) -> None:
        self.service = service
        self.storage = service.storage
        self.outbox = service.outbox
        self.member_status = member_status
        self.clock = clock
        self._locks = weakref.WeakValueDictionary[int, asyncio.Lock]()
        """An event's lock while someone holds or waits for it (then it is dropped)."""
        self._present: set[tuple[int, int]] = set()
        """(game id, seat) of people who made a move of their own, not yet stored."""
        self._finished: dict[int, Game] = {}
        """Games over whose result a sync has not stored yet (the service forgets them)."""
        service.listeners.append(self._on_table_move)
        service.start_hooks["e"] = self._deep_link

    def lock(self, event_id: int) -> asyncio.Lock:
        lock = self._locks.get(event_id)
        if lock is None:
            lock = self._locks[event_id] = asyncio.Lock()
        return lock

    # ------------------------------------------------------------------ looking up

    async def _event(self, event_id: int) -> StoredEvent:
        event = await self.storage.get_event(event_id)
        if event is None:
            raise UserError(t("toast.unknown_button"))
        return event

    async def _open_event_in(self, chat_id: int) -> StoredEvent | None:
        return next((e for e in await self.storage.events_in_chat(chat_id) if e.is_open), None)

    async def _require_organiser(self, event: StoredEvent, person: Person) -> None:
        if person.id == event.organiser_id:
            return
        if await self.service.is_admin(event.chat_id, person.id):
            return
        raise UserError(t("event.reply.organiser_only", name=esc(event.organiser_name)))

    def _registration_open(self, event: StoredEvent) -> bool:
        deadline = event.registration_deadline
        return event.status == "registration" and (deadline is None or self.clock() < deadline)

    def _games(self, tables: Sequence[EventTable]) -> dict[int, Game]:
        games: dict[int, Game] = {}
        for table in tables:
            if table.game_id is None:
                continue
            live = self.service.tables.get(table.game_id)
            if live is not None and live.game is not None:
                games[table.game_id] = live.game
            elif table.game_id in self._finished:
                games[table.game_id] = self._finished[table.game_id]
        return games

    # ------------------------------------------------------------------ commands

    async def command(
        self,
        chat_id: int,
        thread_id: int | None,
        chat_title: str,
        person: Person,
        text: str,
        reply_to: Person | None = None,
    ) -> str | None:
        """``/event ...`` in a group; returns the reply (None: the bot posted its own)."""
        try:
            words = shlex.split(text)
        except ValueError:
            words = text.split()
        sub = words[0].lower() if words else ""
        rest = words[1:]
        if sub == "help":
            return t("event.help")
        if sub == "new":
            return await self.create(chat_id, thread_id, chat_title, person, rest)
        event = await self._open_event_in(chat_id)
        if sub == "":
            return await self.status(chat_id)
        if event is None:
            return t("event.reply.none")
        if sub == "withdraw":
            return await self.withdraw(event.id, person)
        await self._require_organiser(event, person)
        if sub == "start":
            return await self.start_now(event.id)
        if sub == "pause":
            return await self.pause(event.id, person)
        if sub == "resume":
            return await self.resume_event(event.id, person)
        if sub == "cancel":
            return await self.cancel(event.id, person)
        if sub == "remove":
            return await self.remove(event.id, person, rest, reply_to)
        if sub in ("only", "invite"):
            return await self.set_list(event.id, sub, rest)
        return t("event.reply.bad", reason=esc(f"unknown command {sub!r}"))

    async def create(
        self,
        chat_id: int,
        thread_id: int | None,
        chat_title: str,
        person: Person,
        words: Sequence[str],
    ) -> str | None:
        if not await self.service.is_admin(chat_id, person.id):
            return t("event.reply.admin_only")
        existing = await self._open_event_in(chat_id)
        if existing is not None:
            return t("event.reply.exists", name=esc(existing.name))
        earlier = await self.storage.events_in_chat(chat_id, limit=1)
        default_tz = earlier[0].time_zone if earlier else "UTC"
        try:
            request = parse_new(words, default_tz, self.clock())
        except ValueError as error:
            return t("event.reply.bad", reason=esc(str(error)))
        settings = await self.storage.get_chat_settings(chat_id)
        base = Rules.from_stored(settings.rules)
        if request.target is not None:
            base = Rules.from_dict({**base.to_dict(), "target": request.target})
        if base.players == 2:
            base = Rules()
        rules = tour.rules_for(base, request.options.table_size)
        if rules is None:
            return t("event.reply.bad", reason="these table rules don't allow that table size")
        options = request.options
        if not options.computer_fill and tour.rules_for(rules, options.table_size - 1) is None:
            # Rules for one table size only (Complex Hearts): short tables need computers.
            options = replace(options, computer_fill=True)
        if not any(w.lower().startswith("timer=") for w in words):
            options = replace(options, turn_timer=self.service.turn_timer_of(settings))
        event = await self.storage.create_event(
            chat_id=chat_id,
            thread_id=thread_id,
            organiser_id=person.id,
            organiser_name=person.name,
            name=request.name,
            rules=rules,
            options=options,
            time_zone=request.time_zone,
            starts_at=request.starts_at,
            registration_deadline=request.deadline,
            meta={"seed": secrets.randbits(62), "chat_title": chat_title},
        )
        await self.storage.upsert_user(person.id, person.name, person.username)
        text, markup = er.event_message(event, [], registration_open=True)
        message_id = await self.outbox.send(chat_id, text, markup, thread_id)
        await self.storage.claim_once(event.id, "open", message_id)
        event = replace(event, meta={**event.meta, "message_id": message_id})
        await self.storage.save_event(event)
        self._arm_tick()
        return None

    async def status(self, chat_id: int) -> str:
        events = await self.storage.events_in_chat(chat_id, limit=1)
        if not events:
            return t("event.reply.none")
        event = events[0]
        registrations = await self.storage.registrations(event.id)
        tables = (
            await self.storage.event_tables(event.id, event.current_round)
            if event.current_round
            else []
        )
        return er.status_text(
            event,
            registrations,
            tables,
            self._games(tables),
            registration_open=self._registration_open(event),
        )

    async def scores_text(self, chat_id: int) -> str:
        """For ``/scores``: the final ranking of the chat's latest event, if it has one."""
        events = await self.storage.events_in_chat(chat_id, limit=1)
        if not events:
            return ""
        event = events[0]
        ranking = er.ranking_lines(await self.storage.registrations(event.id))
        if not ranking:
            return ""
        title = t("event.scores_title", name=esc(event.name), status=event.status)
        return "\n".join([title, *ranking])

    # ------------------------------------------------------------------ registration

    async def register(self, event_id: int, person: Person) -> str:
        """The Register button."""
        async with self.lock(event_id):
            event = await self._event(event_id)
            if not self._registration_open(event):
                raise UserError(t("event.toast.closed"))
            entry = await self._entry(event, person.id)
            if entry is not None and entry.status == "registered":
                raise UserError(t("event.toast.already"))
            await self._check_eligible(event, person, entry)
            await self.storage.upsert_user(person.id, person.name, person.username)
            if not await self.storage.dm_open(person.id):
                await self._save_entry(event, person, "pending")
                url = f"https://t.me/{self.service.config.bot_username}?start=e{event.id}"
                markup = InlineKeyboardMarkup(
                    [[InlineKeyboardButton(t("event.button.open_dm"), url=url)]]
                )
                # Posted, not awaited: the press is answered now, not after the group's
                # pace lets this message out (twelve at once would wait 36 s).
                self.outbox.post(
                    event.chat_id,
                    t("event.open_dm", name=esc(person.name), event=esc(event.name)),
                    markup,
                    event.thread_id,
                )
                return t("event.toast.open_dm")
            await self._save_entry(event, person, "registered")
            count = await self._refresh_event_message(event)
            return t("event.toast.registered", count=count)

    async def _deep_link(self, person: Person, event_id: int) -> str:
        """``/start e<id>`` in private: the DM is open now, so the registration counts."""
        async with self.lock(event_id):
            event = await self.storage.get_event(event_id)
            if event is None or not self._registration_open(event):
                return t("event.toast.closed")
            entry = await self._entry(event, person.id)
            if entry is None or entry.status != "registered":
                try:
                    await self._check_eligible(event, person, entry)
                except UserError as refusal:
                    return str(refusal)
                await self._save_entry(event, person, "registered")
                await self._refresh_event_message(event)
            chat = esc(str(event.meta.get("chat_title", "")))
            start = (
                t("event.starts", when=er.when(event.starts_at, event.time_zone))
                if event.starts_at is not None
                else t("event.starts_manual")
            )
            return t("event.dm_registered", event=esc(event.name), chat=chat, when=start)

    async def _entry(self, event: StoredEvent, user_id: int) -> Registration | None:
        entries = await self.storage.registrations(event.id)
        return next((r for r in entries if r.user_id == user_id), None)

    async def _save_entry(
        self, event: StoredEvent, person: Person, status: RegistrationStatus
    ) -> None:
        await self.storage.save_registration(
            Registration(
                event.id,
                person.id,
                person.name,
                person.username,
                status,
                self.clock(),
            )
        )

    async def _check_eligible(
        self, event: StoredEvent, person: Person, entry: Registration | None
    ) -> None:
        """Raise `UserError` with the reason if ``person`` may not register."""
        if entry is not None and entry.status == "removed":
            raise UserError(t("event.refused.removed"))
        username = (person.username or "").lower()
        options = event.options
        if username and username in options.invited_usernames:
            return
        status = await self.member_status(event.chat_id, person.id)
        if status not in MEMBER_STATUSES:
            chat = esc(str(event.meta.get("chat_title", "")) or "this group")
            raise UserError(t("event.refused.not_member", chat=chat))
        if options.allowed_usernames:
            if not username:
                raise UserError(t("event.refused.no_username"))
            if username not in options.allowed_usernames:
                raise UserError(t("event.refused.not_listed"))

    async def withdraw(self, event_id: int, person: Person) -> str:
        """The Withdraw button or ``/event withdraw``: in a running event, a forfeit."""
        async with self.lock(event_id):
            event = await self._event(event_id)
            entry = await self._entry(event, person.id)
            if entry is None or entry.status not in ("registered", "pending"):
                raise UserError(t("event.toast.not_registered"))
            await self.storage.save_registration(replace(entry, status="withdrawn"))
            if event.status in ("running", "paused"):
                await self._forfeit(event, person.id)
                await self._announce(
                    event,
                    t(
                        "event.announce.withdrew",
                        player=esc(entry.display_name),
                        name=esc(event.name),
                    ),
                )
            await self._refresh_event_message(event)
            return t("event.toast.withdrawn")

    async def _forfeit(self, event: StoredEvent, user_id: int) -> None:
        """A person leaves a running event: a computer plays their seat; they cannot go on."""
        for table in await self.storage.event_tables(event.id, event.current_round):
            seat = table.seat_of(user_id)
            if seat is None or table.status != "playing":
                continue
            seats = list(table.seats)
            seats[seat] = replace(seats[seat], no_show=True)
            await self.storage.save_event_table(replace(table, seats=tuple(seats)))
            if table.game_id is not None and table.game_id in self.service.tables:
                await self.service.replace_with_computer(table.game_id, seat)

    async def _refresh_event_message(self, event: StoredEvent) -> int:
        """Re-show the event message; returns the number registered."""
        entries = await self.storage.registrations(event.id)
        message_id = event.meta.get("message_id")
        if message_id is not None:
            text, markup = er.event_message(
                event, entries, registration_open=self._registration_open(event)
            )
            # After a registration or a withdrawal: that person is looking at the count.
            self.outbox.edit(
                event.chat_id, message_id, text, markup, event.thread_id, priority=MOVED
            )
        return len(er.registered(entries))

    async def _announce(self, event: StoredEvent, text: str) -> None:
        """Post to the event's group, in order, without holding the event's lock for the
        group's pace."""
        self.outbox.post(event.chat_id, text, thread_id=event.thread_id)

    # ------------------------------------------------------------------ organiser

    async def set_list(self, event_id: int, which: str, words: Sequence[str]) -> str:
        async with self.lock(event_id):
            event = await self._event(event_id)
            try:
                names = _usernames(which, " ".join(words))
            except ValueError as error:
                raise UserError(str(error)) from None
            if which == "only":
                options = replace(event.options, allowed_usernames=names)
            else:
                options = replace(event.options, invited_usernames=names)
            event = replace(event, options=options)
            await self.storage.save_event(event)
            await self._refresh_event_message(event)
            shown = ", ".join("@" + n for n in names) or "—"
            return t("event.reply.list_set", names=esc(shown))

    async def pause(self, event_id: int, person: Person) -> str:
        async with self.lock(event_id):
            event = await self._event(event_id)
            if event.status not in ("registration", "running"):
                raise UserError(t("event.reply.over"))
            event = replace(
                event, status="paused", meta={**event.meta, "paused_from": event.status}
            )
            await self.storage.save_event(event)
            await self._refresh_event_message(event)
            await self._announce(
                event, t("event.announce.paused", name=esc(event.name), by=esc(person.name))
            )
            return t("event.reply.paused")

    async def resume_event(self, event_id: int, person: Person) -> str:
        async with self.lock(event_id):
            event = await self._event(event_id)
            if event.status != "paused":
                raise UserError(t("event.reply.not_paused"))
            status = event.meta.get("paused_from", "registration")
            event = replace(event, status=status)
            await self.storage.save_event(event)
            await self._refresh_event_message(event)
            await self._announce(
                event, t("event.announce.resumed", name=esc(event.name), by=esc(person.name))
            )
            if status == "running" and event.meta.get("done_round") == event.current_round:
                await self._next_round(event)
        await self._sync(event_id)
        await self.tick()
        return t("event.reply.resumed")

    async def start_now(self, event_id: int) -> str | None:
        """``/event start``: the first round (or a round held back by a pause) now."""
        async with self.lock(event_id):
            event = await self._event(event_id)
            if event.status == "paused":
                event = replace(event, status=event.meta.get("paused_from", "registration"))
                await self.storage.save_event(event)
            if event.status == "registration":
                entries = await self.storage.registrations(event.id)
                if len(er.registered(entries)) < 2:
                    return t("event.reply.not_enough")
                await self.storage.claim_once(event.id, "start")
                await self._start_round(event, 1)
                return None
            if event.meta.get("done_round") != event.current_round:
                return t("event.reply.round_running", round=event.current_round)
            await self._next_round(event)
            return None

    async def cancel(self, event_id: int, person: Person) -> str:
        async with self.lock(event_id):
            event = await self._event(event_id)
            event = replace(event, status="cancelled")
            await self.storage.save_event(event)
            organiser = Person(event.organiser_id, event.organiser_name)
            for table in await self.storage.event_tables(event.id, event.current_round):
                if table.status == "playing":
                    await self.storage.save_event_table(replace(table, status="cancelled"))
                    if table.game_id is not None and table.game_id in self.service.tables:
                        await self.service.cancel_game(table.game_id, organiser)
            await self._refresh_event_message(event)
            await self._refresh_round(event)
            await self._announce(
                event, t("event.announce.cancelled", name=esc(event.name), by=esc(person.name))
            )
            return t("event.reply.cancelled")

    async def remove(
        self,
        event_id: int,
        person: Person,
        words: Sequence[str],
        reply_to: Person | None,
    ) -> str:
        async with self.lock(event_id):
            event = await self._event(event_id)
            entries = await self.storage.registrations(event.id)
            target: Registration | None = None
            if reply_to is not None:
                target = next((r for r in entries if r.user_id == reply_to.id), None)
                wanted = reply_to.name
            elif words:
                wanted = words[0].lstrip("@").lower()
                target = next(
                    (
                        r
                        for r in entries
                        if (r.username or "").lower() == wanted
                        or str(r.user_id) == wanted
                        or r.display_name.lower() == wanted
                    ),
                    None,
                )
            else:
                return t("event.reply.who")
            if target is None:
                return t("event.reply.unknown_player", name=esc(wanted))
            await self.storage.save_registration(replace(target, status="removed"))
            if event.status in ("running", "paused"):
                await self._forfeit(event, target.user_id)
            await self._refresh_event_message(event)
            await self._announce(
                event,
                t(
                    "event.announce.removed",
                    player=esc(target.display_name),
                    name=esc(event.name),
                    by=esc(person.name),
                ),
            )
            return t("event.reply.removed", name=esc(target.display_name))

    # ------------------------------------------------------------------ rounds

    def _table_rules(self, event: StoredEvent, players: int) -> Rules | None:
        return tour.rules_for(event.rules, players)

    async def _start_round(self, event: StoredEvent, round_no: int) -> bool:
        """Draw and deal round ``round_no`` (under the event's lock); False if too few."""
        entries = await self.storage.registrations(event.id)
        if round_no == 1:
            players = [r for r in entries if r.status == "registered"]
        else:
            going = set(event.meta.get("next", []))
            players = [r for r in entries if r.user_id in going and r.status == "registered"]
        if round_no == 1 and len(players) < 2:
            event = replace(event, status="cancelled")
            await self.storage.save_event(event)
            await self._refresh_event_message(event)
            await self._announce(event, t("event.announce.too_few", name=esc(event.name)))
            return False
        o = event.options
        plans = tour.plan_tables(
            len(players),
            o.table_size,
            lambda n: self._table_rules(event, n) is not None,
            o.computer_fill,
        )
        seed = event.meta["seed"]
        seating = tour.draw([p.user_id for p in players], plans, f"{seed}:{round_no}")
        names = {p.user_id: p.display_name for p in players}
        now = self.clock()
        started = dict(event.meta.get("round_started", {}))
        started[str(round_no)] = now.isoformat()
        event = replace(
            event,
            status="running",
            current_round=round_no,
            meta={**event.meta, "round_started": started},
        )
        await self.storage.save_event(event)
        tables = []
        for table_no, seats in enumerate(seating, start=1):
            computers = iter(COMPUTER_NAMES)
            event_seats = tuple(
                EventSeat(n, names[uid], uid)
                if uid is not None
                else EventSeat(n, f"{next(computers)} ({o.computer_level})")
                for n, uid in enumerate(seats)
            )
            table_seed = tour.table_seed(seed, round_no, table_no, o.duplicate_deals)
            table = EventTable(event.id, round_no, table_no, table_seed, event_seats)
            await self.storage.save_event_table(table)
            tables.append(table)
        await self._refresh_event_message(event)
        await self._announce(
            event,
            t(
                "event.announce.start",
                name=esc(event.name),
                round=round_no,
                players=len(players),
                tables=len(tables),
            ),
        )
        message_id = await self.outbox.send(
            event.chat_id, er.round_message(event, round_no, tables, {}), None, event.thread_id
        )
        messages = {**event.meta.get("round_messages", {}), str(round_no): message_id}
        event = replace(event, meta={**event.meta, "round_messages": messages})
        await self.storage.save_event(event)
        await self._deal_tables(event, tables)
        self._arm_tick()
        return True

    async def _deal_tables(self, event: StoredEvent, tables: Sequence[EventTable]) -> None:
        """Start the games of the round's tables that have none yet (also after a crash)."""
        o = event.options
        organiser = Person(event.organiser_id, event.organiser_name)
        for table in tables:
            if table.game_id is not None or table.status != "playing":
                continue
            rules = self._table_rules(event, len(table.seats))
            assert rules is not None
            deals = tour.duplicate_deals(rules, table.seed) if o.duplicate_deals else None
            seats = [
                Seat("human", s.display_name, s.user_id)
                if s.user_id is not None
                else Seat("computer", s.display_name, level=o.computer_level)
                for s in table.seats
            ]
            for s in table.seats:
                if s.user_id is not None:
                    self.outbox.post(
                        s.user_id,
                        t(
                            "event.dm_round",
                            event=esc(event.name),
                            round=table.round,
                            table=table.table_no,
                        ),
                    )
            live = await self.service.start_event_table(
                event_id=event.id,
                chat_id=event.chat_id,
                thread_id=event.thread_id,
                chat_title=f"{event.name} · table {table.table_no}",
                organiser=organiser,
                rules=rules,
                options=TableOptions(
                    turn_timer=o.turn_timer, computer_level=o.computer_level, track_cards=True
                ),
                seats=seats,
                seed=table.seed,
                deals=deals,
            )
            await self.storage.save_event_table(replace(table, game_id=live.id))
        await self._refresh_round(event)

    async def _refresh_round(self, event: StoredEvent) -> None:
        round_no = event.current_round
        message_id = event.meta.get("round_messages", {}).get(str(round_no))
        if message_id is None:
            return
        tables = await self.storage.event_tables(event.id, round_no)
        text = er.round_message(event, round_no, tables, self._games(tables))
        self.outbox.edit(event.chat_id, message_id, text, None, event.thread_id)

    async def _on_table_move(self, table: Table, events: list[Event]) -> None:
        """Every move of every table: note who showed up; sync when something changed."""
        if table.event_id is None or table.game is None:
            return
        for e in events:
            seat = getattr(e, "seat", None)
            if e.kind not in ("card_played", "cards_passed") or seat is None:
                continue
            s = table.seats[seat]
            if s is not None and s.kind == "human" and not s.away and s.timeouts == 0:
                self._present.add((table.id, seat))
        if table.game.phase == "over":
            self._finished[table.id] = table.game
        event_id = table.event_id
        self.service.scheduler.arm(f"event:{event_id}:sync", 0.0, lambda: self._sync(event_id))

    async def _sync(self, event_id: int) -> None:
        """Store presence and finished tables; when the round is complete, go on."""
        async with self.lock(event_id):
            event = await self.storage.get_event(event_id)
            if event is None or event.status not in ("running", "paused"):
                return
            tables = await self.storage.event_tables(event.id, event.current_round)
            updated = []
            for table in tables:
                new = await self._settled(event, table)
                if new != table:
                    await self.storage.save_event_table(new)
                for seat in new.seats:
                    if seat.present:  # stored: no need to remember it any more
                        self._present.discard((new.game_id or 0, seat.seat))
                updated.append(new)
            await self._refresh_round(event)
            if updated and all(tb.status != "playing" for tb in updated):
                await self._round_over(event, updated)

    async def _settled(self, event: StoredEvent, table: EventTable) -> EventTable:
        """The table with presence noted and, if its game is over, places and totals."""
        seats = [
            replace(s, present=True)
            if (table.game_id, s.seat) in self._present and not s.present
            else s
            for s in table.seats
        ]
        if table.status != "playing" or table.game_id is None:
            return replace(table, seats=tuple(seats))
        game = self._finished.get(table.game_id)
        if game is None and table.game_id not in self.service.tables:
            stored = await self.storage.load_game(table.game_id)
            if stored.status == "finished":
                game = stored.game
            elif stored.status in ("cancelled", "quarantined"):
                return replace(table, seats=tuple(seats), status="cancelled")
        if game is None or game.phase != "over":
            return replace(table, seats=tuple(seats))
        points = [list(h.points) for h in game.hand_history]
        seat_places = tour.places(
            game.rules, game.scores, points, f"{event.meta['seed']}:{table.round}:{table.table_no}"
        )
        seats = [replace(s, place=seat_places[s.seat], total=game.scores[s.seat]) for s in seats]
        return replace(table, seats=tuple(seats), status="finished")

    def _results(
        self, tables: Sequence[EventTable], entries: Sequence[Registration]
    ) -> list[tour.SeatResult]:
        """Seat results; ``eligible`` excludes no-shows and anyone no longer registered
        (for the final ranking, pass every entry: only no-shows are then ranked last)."""
        active = {r.user_id for r in entries if r.status in ("registered", "eliminated")}
        return [
            tour.SeatResult(
                table.table_no,
                s.seat,
                s.user_id,
                s.total if s.total is not None else 0,
                s.place or len(table.seats),
                s.user_id is not None and not s.no_show and s.user_id in active,
            )
            for table in tables
            if table.status == "finished"
            for s in table.seats
        ]

    async def _round_over(self, event: StoredEvent, tables: list[EventTable]) -> None:
        """Every table of the round is done: rank, announce, and start the next or finish."""
        if event.meta.get("done_round") == event.current_round:
            return
        for table in tables:
            self._finished.pop(table.game_id or 0, None)
        entries = await self.storage.registrations(event.id)
        results = self._results(tables, [r for r in entries if r.status == "registered"])
        seed = event.meta["seed"]
        if len(tables) == 1:
            await self._finish(event, entries, winner_decided=True)
            return
        o = event.options
        going = tour.advancing(
            event.rules,
            results,
            per_table=o.advance_per_table,
            overall=o.advance_overall,
            table_size=o.table_size,
            seed=f"{seed}:{event.current_round}",
        )
        for table in tables:
            seats = tuple(replace(s, advanced=s.user_id in going) for s in table.seats)
            await self.storage.save_event_table(replace(table, seats=seats))
        out = [
            replace(r, status="eliminated")
            for r in entries
            if r.status == "registered" and r.user_id not in going
        ]
        await self.storage.save_registrations(out)
        event = replace(
            event, meta={**event.meta, "next": going, "done_round": event.current_round}
        )
        await self.storage.save_event(event)
        await self._refresh_round(event)
        names = {r.user_id: r.display_name for r in entries}
        if await self.storage.claim_once(event.id, f"results:{event.current_round}"):
            await self._announce(
                event,
                t(
                    "event.announce.results",
                    name=esc(event.name),
                    round=event.current_round,
                    names=", ".join(esc(names[u]) for u in going) or "—",
                ),
            )
        if len(going) <= 1:
            await self._finish(event, await self.storage.registrations(event.id), False)
            return
        if event.status == "paused":
            await self._announce(event, t("event.announce.waiting", round=event.current_round))
            return
        await self._next_round(event)

    async def _next_round(self, event: StoredEvent) -> None:
        await self._start_round(event, event.current_round + 1)

    async def _finish(
        self, event: StoredEvent, entries: Sequence[Registration], winner_decided: bool
    ) -> None:
        rounds = []
        for round_no in range(1, event.current_round + 1):
            tables = await self.storage.event_tables(event.id, round_no)
            rounds.append(self._results(tables, entries))
        played = {r.user_id for rnd in rounds for r in rnd if r.user_id is not None}
        ranking = tour.final_ranking(event.rules, rounds, event.meta["seed"])
        if not winner_decided:
            going = event.meta.get("next", [])
            ranking = [*going, *[u for u in ranking if u not in going]]
            if not going:
                ranking = []
        by_id = {r.user_id: r for r in entries}
        ranked_ids = [u for u in ranking if u in by_id and u in played]
        final = [
            replace(by_id[u], final_place=place) for place, u in enumerate(ranked_ids, start=1)
        ]
        await self.storage.save_registrations(final)
        event = replace(event, status="finished")
        await self.storage.save_event(event)
        await self._refresh_event_message(event)
        await self._refresh_round(event)
        if not await self.storage.claim_once(event.id, "final"):
            return
        if not final:
            await self._announce(event, t("event.announce.no_winner", name=esc(event.name)))
            return
        ranked = er.ranking_lines(final)
        await self._announce(
            event,
            t(
                "event.announce.final",
                name=esc(event.name),
                winner=esc(final[0].display_name),
                ranking="\n".join(ranked[:20]),
            ),
        )

    # ------------------------------------------------------------------ time

    async def tick(self) -> None:
        """Do whatever is due now (reminders, deadline, start, no-shows); arm the next tick."""
        for event in await self.storage.open_events():
            try:
                async with self.lock(event.id):
                    await self._tick_event(event.id)
            except Exception:
                await self._failed(event, "tick")
        await self._arm_tick_async()

    async def _failed(self, event: StoredEvent, what: str) -> None:
        """One event's step failed: log it, tell its organiser once (in the event's group),
        and go on with the other events."""
        log.exception("event %s: %s failed", event.id, what)
        try:
            if await self.storage.claim_once(event.id, "trouble"):
                await self._announce(event, t("event.announce.trouble", name=esc(event.name)))
        except Exception:
            log.exception("event %s: could not tell the organiser", event.id)

    async def _tick_event(self, event_id: int) -> None:
        event = await self.storage.get_event(event_id)
        if event is None:
            return
        now = self.clock()
        sent = await self.storage.claimed(event.id)
        if event.status == "registration":
            deadline = event.registration_deadline
            if (
                deadline is not None
                and now >= deadline
                and await self.storage.claim_once(event.id, "deadline")
            ):
                count = await self._refresh_event_message(event)
                await self._announce(
                    event,
                    t("event.announce.deadline", name=esc(event.name), count=count),
                )
            for kind in tour.due_reminders(event.starts_at, event.created_at, now, sent):
                if await self.storage.claim_once(event.id, kind):
                    count = len(er.registered(await self.storage.registrations(event.id)))
                    assert event.starts_at is not None
                    await self._announce(
                        event,
                        t(
                            f"event.announce.{kind}",
                            name=esc(event.name),
                            when=er.when(event.starts_at, event.time_zone),
                            count=count,
                        ),
                    )
            if (
                event.starts_at is not None
                and now >= event.starts_at
                and await self.storage.claim_once(event.id, "start")
            ):
                await self._start_round(event, 1)
        elif event.status == "running":
            await self._no_shows(event, now)

    def _grace_end(self, event: StoredEvent) -> datetime | None:
        started = event.meta.get("round_started", {}).get(str(event.current_round))
        if started is None:
            return None
        return datetime.fromisoformat(started) + timedelta(seconds=event.options.grace_s)

    async def _no_shows(self, event: StoredEvent, now: datetime) -> None:
        end = self._grace_end(event)
        if end is None or now < end:
            return
        if not await self.storage.claim_once(event.id, f"grace:{event.current_round}"):
            return
        missing = []
        for table in await self.storage.event_tables(event.id, event.current_round):
            table = await self._settled(event, table)
            seats = list(table.seats)
            for s in table.seats:
                if s.user_id is None or s.present or s.no_show or table.status != "playing":
                    continue
                seats[s.seat] = replace(s, no_show=True)
                missing.append(s.display_name)
                if table.game_id is not None and table.game_id in self.service.tables:
                    await self.service.replace_with_computer(table.game_id, s.seat)
            await self.storage.save_event_table(replace(table, seats=tuple(seats)))
        await self._refresh_round(event)
        if missing:
            await self._announce(
                event,
                t(
                    "event.announce.no_show",
                    names=", ".join(esc(n) for n in missing),
                    round=event.current_round,
                ),
            )

    def _arm_tick(self) -> None:
        self.service.scheduler.arm("events:tick", 0.0, self.tick)

    async def _arm_tick_async(self) -> None:
        now = self.clock()
        moments = []
        for event in await self.storage.open_events():
            try:
                moment = await self._next_moment(event, now)
            except Exception:
                await self._failed(event, "planning its next step")
                continue
            if moment is not None:
                moments.append(moment)
        if not moments:
            self.service.scheduler.cancel("events:tick")
            return
        delay = (min(moments) - now).total_seconds()
        delay = min(max(delay, 1.0), MAX_TICK_S)
        self.service.scheduler.arm("events:tick", delay, self.tick)

    async def _next_moment(self, event: StoredEvent, now: datetime) -> datetime | None:
        """When the event next has something to do (a reminder, its start, a grace end)."""
        sent = await self.storage.claimed(event.id)
        if event.status == "registration":
            return tour.next_due(
                event.starts_at, event.registration_deadline, event.created_at, now, sent
            )
        if event.status == "running" and f"grace:{event.current_round}" not in sent:
            return self._grace_end(event)
        return None

    # ------------------------------------------------------------------ restarts

    async def resume(self) -> None:
        """After a start (and `HeartsService.resume`): pick every open event up again."""
        for event in await self.storage.open_events():
            try:
                async with self.lock(event.id):
                    await self._refresh_event_message(event)
                    if event.status in ("running", "paused") and event.current_round:
                        tables = await self.storage.event_tables(event.id, event.current_round)
                        if event.meta.get("done_round") != event.current_round:
                            await self._deal_tables(event, tables)
                        elif event.status == "running":
                            await self._next_round(event)
                        await self._refresh_round(event)
                log.info("resumed event %s in chat %s (%s)", event.id, event.chat_id, event.status)
            except Exception:
                await self._failed(event, "resuming")
            if event.status in ("running", "paused"):
                try:
                    await self._sync(event.id)
                except Exception:
                    await self._failed(event, "catching up")
        await self.tick()
