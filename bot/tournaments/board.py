"""What every part of a tournament shares: its lock, looking it up, its group message and
announcements, and the games of its tables (live, or finished and not yet stored)."""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Awaitable, Callable, Sequence

from bot.basics import Person, UserError
from bot.tables.config import AdminCheck
from bot.tables.desk import TableDesk
from bot.tables.render import esc
from bot.telegram.outbox import MOVED, Outbox
from bot.texts import t
from bot.timers import Clock, Scheduler
from bot.tournaments import plan as tour
from bot.tournaments import render as er
from engine import Game, Rules
from storage.events import (
    EventTable,
    Registration,
    StoredEvent,
)
from storage.repository import Storage

log = logging.getLogger(__name__)


class Board:
    """A tournament's lock, message and announcements, for its registration, rounds and clock."""

    def __init__(
        self,
        desk: TableDesk,
        storage: Storage,
        outbox: Outbox,
        is_admin: AdminCheck,
        clock: Clock,
    ) -> None:
        self.desk = desk
        self.storage = storage
        self.outbox = outbox
        self.is_admin = is_admin
        self.clock = clock
        self.scheduler = Scheduler()
        """The tournaments' own timers: ``events:tick`` and each one's ``sync``."""
        self.ticker: Callable[[], Awaitable[None]] | None = None
        """What `arm_tick` runs (`Timeline.tick`, which sets it)."""
        self._locks = weakref.WeakValueDictionary[int, asyncio.Lock]()
        """A tournament's lock while someone holds or waits for it (then it is dropped)."""
        self.present: set[tuple[int, int]] = set()
        """(game id, seat) of people who made a move of their own, not yet stored."""
        self.finished: dict[int, Game] = {}
        """Games over whose result a sync has not stored yet (the tables forget them)."""

    def kept_sizes(self) -> dict[str, int]:
        """How much is held per tournament, game or seat (memory tests)."""
        return {
            "locks": len(self._locks),
            "present": len(self.present),
            "finished": len(self.finished),
        }

    def lock(self, event_id: int) -> asyncio.Lock:
        lock = self._locks.get(event_id)
        if lock is None:
            lock = self._locks[event_id] = asyncio.Lock()
        return lock

    async def get(self, event_id: int) -> StoredEvent:
        event = await self.storage.get_event(event_id)
        if event is None:
            raise UserError(t("toast.unknown_button"))
        return event

    async def open_in(self, chat_id: int) -> StoredEvent | None:
        return next((e for e in await self.storage.events_in_chat(chat_id) if e.is_open), None)

    async def require_organiser(self, event: StoredEvent, person: Person) -> None:
        if person.id == event.organiser_id:
            return
        if await self.is_admin(event.chat_id, person.id):
            return
        raise UserError(t("event.reply.organiser_only", name=esc(event.organiser_name)))

    def registration_open(self, event: StoredEvent) -> bool:
        deadline = event.registration_deadline
        return event.status == "registration" and (deadline is None or self.clock() < deadline)

    def games(self, tables: Sequence[EventTable]) -> dict[int, Game]:
        games: dict[int, Game] = {}
        for table in tables:
            if table.game_id is None:
                continue
            live = self.desk.live(table.game_id)
            if live is not None and live.game is not None:
                games[table.game_id] = live.game
            elif table.game_id in self.finished:
                games[table.game_id] = self.finished[table.game_id]
        return games

    async def refresh_message(self, event: StoredEvent) -> int:
        """Re-show the event message; returns the number registered."""
        entries = await self.storage.registrations(event.id)
        message_id = event.meta.get("message_id")
        if message_id is not None:
            text, markup = er.event_message(
                event, entries, registration_open=self.registration_open(event)
            )
            # After a registration or a withdrawal: that person is looking at the count.
            self.outbox.edit(
                event.chat_id, message_id, text, markup, event.thread_id, priority=MOVED
            )
        return len(er.registered(entries))

    async def announce(self, event: StoredEvent, text: str) -> None:
        """Post to the event's group, in order, without holding the event's lock for the
        group's pace."""
        self.outbox.post(event.chat_id, text, thread_id=event.thread_id)

    async def entry(self, event: StoredEvent, user_id: int) -> Registration | None:
        entries = await self.storage.registrations(event.id)
        return next((r for r in entries if r.user_id == user_id), None)

    async def refresh_round(self, event: StoredEvent) -> None:
        round_no = event.current_round
        message_id = event.meta.get("round_messages", {}).get(str(round_no))
        if message_id is None:
            return
        tables = await self.storage.event_tables(event.id, round_no)
        text = er.round_message(event, round_no, tables, self.games(tables))
        self.outbox.edit(event.chat_id, message_id, text, None, event.thread_id)

    def arm_tick(self) -> None:
        """Check what is due at once (a tournament was created or a round began)."""
        if self.ticker is not None:
            self.scheduler.arm("events:tick", 0.0, self.ticker)

    def table_rules(self, event: StoredEvent, players: int) -> Rules | None:
        return tour.rules_for(event.rules, players)
