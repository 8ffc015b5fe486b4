"""Time in tournaments: reminders, the registration deadline, the start, the no-show grace.

Everything due at a moment is checked by `Timeline.tick`, which arms one timer for the
next such moment; tests move a `ManualClock` and call `tick` instead of sleeping.
A restart picks every open tournament up again (`Timeline.resume`)."""

from __future__ import annotations

import functools
import logging
from dataclasses import replace
from datetime import datetime, timedelta

from bot.i18n import Tr, mark
from bot.tournaments import plan as tour
from bot.tournaments import render as er
from bot.tournaments.board import Board
from bot.tournaments.render import said, who
from bot.tournaments.rounds import Rounds
from domain.tournaments import StoredTournament

log = logging.getLogger(__name__)

REMINDERS = {
    "day": mark(
        "📅 <b>{name}</b> starts tomorrow, {when}. {count} registered so far: tap Register "
        "on the event message to join."
    ),
    "hour": mark("⏰ <b>{name}</b> starts in an hour ({when}). {count} registered."),
}

MAX_TICK_S = 3600.0


class Timeline:
    """The tournaments' clock, and their restart."""

    def __init__(self, board: Board, rounds: Rounds) -> None:
        self.board = board
        self.rounds = rounds
        self.desk = board.desk
        self.tournaments = board.tournaments
        self.clock = board.clock
        self.scheduler = board.scheduler

    async def tick(self) -> None:
        """Do whatever is due now (reminders, deadline, start, no-shows); arm the next tick."""
        for tournament in await self.tournaments.open_tournaments():
            try:
                await self.board.send(
                    tournament.id, functools.partial(self._tick_event, tournament.id)
                )
            except Exception:
                await self.failed(tournament, "tick")
        await self._arm_next()

    async def failed(self, tournament: StoredTournament, what: str) -> None:
        """One tournament's step failed: log it, tell its organiser once (in its group), and
        go on with the other tournaments."""
        log.exception("tournament %s: %s failed", tournament.id, what)
        try:
            if await self.tournaments.claim_once(tournament.id, "trouble"):
                await self.board.announce(
                    tournament,
                    said(
                        "⚠ Something went wrong while running <b>{name}</b>; the other events "
                        "go on. The organiser can /event pause it, or /event cancel it.",
                        name=who(tournament.name),
                    ),
                )
        except Exception:
            log.exception("tournament %s: could not tell the organiser", tournament.id)

    async def _tick_event(self, tournament_id: int) -> None:
        tournament = await self.tournaments.get_tournament(tournament_id)
        if tournament is None:
            return
        now = self.clock()
        sent = await self.tournaments.claimed(tournament.id)
        if tournament.status == "registration":
            deadline = tournament.registration_deadline
            if (
                deadline is not None
                and now >= deadline
                and await self.tournaments.claim_once(tournament.id, "deadline")
            ):
                count = await self.board.refresh_message(tournament)
                await self.board.announce(
                    tournament,
                    said(
                        "🔒 Registration for <b>{name}</b> is closed: {count} registered.",
                        name=who(tournament.name),
                        count=count,
                    ),
                )
            for kind in tour.due_reminders(tournament.starts_at, tournament.created_at, now, sent):
                if await self.tournaments.claim_once(tournament.id, kind):
                    count = len(er.registered(await self.tournaments.registrations(tournament.id)))
                    starts_at, zone = tournament.starts_at, tournament.time_zone
                    assert starts_at is not None

                    def moment(tr: Tr, starts_at: datetime = starts_at, zone: str = zone) -> str:
                        return er.when(tr, starts_at, zone)

                    await self.board.announce(
                        tournament,
                        said(REMINDERS[kind], name=who(tournament.name), when=moment, count=count),
                    )
            if (
                tournament.starts_at is not None
                and now >= tournament.starts_at
                and await self.tournaments.claim_once(tournament.id, "start")
            ):
                await self.rounds.start(tournament, 1)
        elif tournament.status == "running":
            await self._no_shows(tournament, now)

    def _grace_end(self, tournament: StoredTournament) -> datetime | None:
        started = tournament.state.round_started.get(tournament.current_round)
        if started is None:
            return None
        return started + timedelta(seconds=tournament.options.grace_s)

    async def _no_shows(self, tournament: StoredTournament, now: datetime) -> None:
        end = self._grace_end(tournament)
        if end is None or now < end:
            return
        if not await self.tournaments.claim_once(
            tournament.id, f"grace:{tournament.current_round}"
        ):
            return
        missing = []
        for table in await self.tournaments.tournament_tables(
            tournament.id, tournament.current_round
        ):
            table = await self.rounds.settled(tournament, table)
            seats = list(table.seats)
            for s in table.seats:
                if s.user_id is None or s.present or s.no_show or table.status != "playing":
                    continue
                seats[s.seat] = replace(s, no_show=True)
                missing.append(s.display_name)
                if table.game_id is not None and self.desk.live(table.game_id) is not None:
                    await self.desk.replace_with_computer(table.game_id, s.seat)
            await self.tournaments.save_tournament_table(replace(table, seats=tuple(seats)))
        await self.board.refresh_round(tournament)
        if missing:
            await self.board.announce(
                tournament,
                said(
                    "⌛ {names} didn't show up in round {round}: a computer plays their "
                    "seat, and they can't go on.",
                    names=", ".join(who(n) for n in missing),
                    round=tournament.current_round,
                ),
            )

    async def _arm_next(self) -> None:
        now = self.clock()
        moments = []
        for tournament in await self.tournaments.open_tournaments():
            try:
                moment = await self._next_moment(tournament, now)
            except Exception:
                await self.failed(tournament, "planning its next step")
                continue
            if moment is not None:
                moments.append(moment)
        if not moments:
            self.scheduler.cancel("tournaments:tick")
            return
        delay = (min(moments) - now).total_seconds()
        delay = min(max(delay, 1.0), MAX_TICK_S)
        self.scheduler.arm("tournaments:tick", delay, self.tick)

    async def _next_moment(self, tournament: StoredTournament, now: datetime) -> datetime | None:
        """When the tournament next has something to do (a reminder, its start, a grace end)."""
        sent = await self.tournaments.claimed(tournament.id)
        if tournament.status == "registration":
            return tour.next_due(
                tournament.starts_at,
                tournament.registration_deadline,
                tournament.created_at,
                now,
                sent,
            )
        if tournament.status == "running" and f"grace:{tournament.current_round}" not in sent:
            return self._grace_end(tournament)
        return None

    async def _resume(self, tournament: StoredTournament) -> None:
        await self.board.refresh_message(tournament)
        if tournament.status in ("running", "paused") and tournament.current_round:
            tables = await self.tournaments.tournament_tables(
                tournament.id, tournament.current_round
            )
            if tournament.state.done_round != tournament.current_round:
                await self.rounds.deal(tournament, tables)
            elif tournament.status == "running":
                await self.rounds.next(tournament)
            await self.board.refresh_round(tournament)

    async def resume(self) -> None:
        """After a start (and `Rooms.resume`): pick every open tournament up again."""
        for tournament in await self.tournaments.open_tournaments():
            try:
                await self.board.send(tournament.id, functools.partial(self._resume, tournament))
                log.info(
                    "resumed tournament %s in chat %s (%s)",
                    tournament.id,
                    tournament.chat_id,
                    tournament.status,
                )
            except Exception:
                await self.failed(tournament, "resuming")
            if tournament.status in ("running", "paused"):
                try:
                    await self.rounds.sync(tournament.id)
                except Exception:
                    await self.failed(tournament, "catching up")
        await self.tick()
