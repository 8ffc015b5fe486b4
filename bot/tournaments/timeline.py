"""Time in tournaments: reminders, the registration deadline, the start, the no-show grace.

Everything due at a moment is checked by `Timeline.tick`, which arms one timer for the
next such moment; tests move a `ManualClock` and call `tick` instead of sleeping.
A restart picks every open tournament up again (`Timeline.resume`)."""

from __future__ import annotations

import logging
from dataclasses import replace
from datetime import datetime, timedelta

from bot.tables.render import esc
from bot.texts import t
from bot.tournaments import plan as tour
from bot.tournaments import render as er
from bot.tournaments.board import Board
from bot.tournaments.rounds import Rounds
from storage.events import (
    StoredEvent,
)

log = logging.getLogger(__name__)

MAX_TICK_S = 3600.0


class Timeline:
    """The tournaments' clock, and their restart."""

    def __init__(self, board: Board, rounds: Rounds) -> None:
        self.board = board
        self.rounds = rounds
        self.desk = board.desk
        self.storage = board.storage
        self.clock = board.clock
        self.scheduler = board.scheduler
        board.ticker = self.tick

    async def tick(self) -> None:
        """Do whatever is due now (reminders, deadline, start, no-shows); arm the next tick."""
        for event in await self.storage.open_events():
            try:
                async with self.board.lock(event.id):
                    await self._tick_event(event.id)
            except Exception:
                await self.failed(event, "tick")
        await self._arm_next()

    async def failed(self, event: StoredEvent, what: str) -> None:
        """One event's step failed: log it, tell its organiser once (in the event's group),
        and go on with the other events."""
        log.exception("event %s: %s failed", event.id, what)
        try:
            if await self.storage.claim_once(event.id, "trouble"):
                await self.board.announce(event, t("event.announce.trouble", name=esc(event.name)))
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
                count = await self.board.refresh_message(event)
                await self.board.announce(
                    event,
                    t("event.announce.deadline", name=esc(event.name), count=count),
                )
            for kind in tour.due_reminders(event.starts_at, event.created_at, now, sent):
                if await self.storage.claim_once(event.id, kind):
                    count = len(er.registered(await self.storage.registrations(event.id)))
                    assert event.starts_at is not None
                    await self.board.announce(
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
                await self.rounds.start(event, 1)
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
            table = await self.rounds.settled(event, table)
            seats = list(table.seats)
            for s in table.seats:
                if s.user_id is None or s.present or s.no_show or table.status != "playing":
                    continue
                seats[s.seat] = replace(s, no_show=True)
                missing.append(s.display_name)
                if table.game_id is not None and self.desk.live(table.game_id) is not None:
                    await self.desk.replace_with_computer(table.game_id, s.seat)
            await self.storage.save_event_table(replace(table, seats=tuple(seats)))
        await self.board.refresh_round(event)
        if missing:
            await self.board.announce(
                event,
                t(
                    "event.announce.no_show",
                    names=", ".join(esc(n) for n in missing),
                    round=event.current_round,
                ),
            )

    async def _arm_next(self) -> None:
        now = self.clock()
        moments = []
        for event in await self.storage.open_events():
            try:
                moment = await self._next_moment(event, now)
            except Exception:
                await self.failed(event, "planning its next step")
                continue
            if moment is not None:
                moments.append(moment)
        if not moments:
            self.scheduler.cancel("events:tick")
            return
        delay = (min(moments) - now).total_seconds()
        delay = min(max(delay, 1.0), MAX_TICK_S)
        self.scheduler.arm("events:tick", delay, self.tick)

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

    async def resume(self) -> None:
        """After a start (and `HeartsService.resume`): pick every open event up again."""
        for event in await self.storage.open_events():
            try:
                async with self.board.lock(event.id):
                    await self.board.refresh_message(event)
                    if event.status in ("running", "paused") and event.current_round:
                        tables = await self.storage.event_tables(event.id, event.current_round)
                        if event.meta.get("done_round") != event.current_round:
                            await self.rounds.deal(event, tables)
                        elif event.status == "running":
                            await self.rounds.next(event)
                        await self.board.refresh_round(event)
                log.info("resumed event %s in chat %s (%s)", event.id, event.chat_id, event.status)
            except Exception:
                await self.failed(event, "resuming")
            if event.status in ("running", "paused"):
                try:
                    await self.rounds.sync(event.id)
                except Exception:
                    await self.failed(event, "catching up")
        await self.tick()
