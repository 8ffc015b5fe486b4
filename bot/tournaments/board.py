"""What every part of a tournament shares: its mailbox, looking it up, its group message and
announcements, and the games of its tables (live, or finished and not yet stored)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

from bot.basics import Person, UserError
from bot.chats import NONE, Chats
from bot.core.effects import Urgency
from bot.i18n import Msg, Say, Tr
from bot.languages import Languages
from bot.mailbox import Job, Mailboxes
from bot.tables.config import AdminCheck
from bot.tables.desk import TableDesk
from bot.timers import Clock, Scheduler
from bot.tournaments import plan as tour
from bot.tournaments import render as er
from bot.tournaments.render import said, who
from domain.tournaments import Registration, StoredTournament, TournamentTable
from engine import Game, Rules
from storage import Journal, People, Standings, Tournaments

log = logging.getLogger(__name__)

T = TypeVar("T")


class Board:
    """A tournament's mailbox, message and announcements, for its registration, rounds and clock."""

    def __init__(
        self,
        desk: TableDesk,
        tournaments: Tournaments,
        people: People,
        journal: Journal,
        standings: Standings,
        chats: Chats,
        is_admin: AdminCheck,
        clock: Clock,
        languages: Languages,
        ticker: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        """`ticker`: what `arm_tick` runs (`Timeline.tick`)."""
        self.desk = desk
        self.languages = languages
        self.tournaments = tournaments
        self.people = people
        self.journal = journal
        self.standings = standings
        self.chats = chats
        self.is_admin = is_admin
        self.clock = clock
        self.scheduler = Scheduler()
        """The tournaments' own timers: ``tournaments:tick`` and each one's ``sync``."""
        self.ticker = ticker
        self._mailboxes = Mailboxes()
        """A tournament's commands (buttons, its timers, its tables' syncs), one at a time."""
        self.present: set[tuple[int, int]] = set()
        """(game id, seat) of people who made a move of their own, not yet stored."""
        self.finished: dict[int, Game] = {}
        """Games over whose result a sync has not stored yet (the tables forget them)."""

    def kept_sizes(self) -> dict[str, int]:
        """How much is held per tournament, game or seat (memory tests)."""
        return {
            "mailboxes": len(self._mailboxes),
            "present": len(self.present),
            "finished": len(self.finished),
        }

    async def send(self, tournament_id: int, job: Job[T]) -> T:
        """Run `job` in the tournament's mailbox, after the jobs sent to it before, and
        return its result."""
        return await self._mailboxes.send(tournament_id, job)

    async def get(self, tournament_id: int) -> StoredTournament:
        tournament = await self.tournaments.get_tournament(tournament_id)
        if tournament is None:
            raise UserError(said("That button isn't valid any more."))
        return tournament

    async def open_in(self, chat_id: int) -> StoredTournament | None:
        return next(
            (e for e in await self.tournaments.tournaments_in_chat(chat_id) if e.is_open),
            None,
        )

    async def require_organiser(self, tournament: StoredTournament, person: Person) -> None:
        if person.id == tournament.organiser_id:
            return
        if await self.is_admin(tournament.chat_id, person.id):
            return
        raise UserError(
            said(
                "Only the organiser ({name}) or a group admin can do that.",
                name=who(tournament.organiser_name),
            )
        )

    def registration_open(self, tournament: StoredTournament) -> bool:
        deadline = tournament.registration_deadline
        return tournament.status == "registration" and (deadline is None or self.clock() < deadline)

    def games(self, tables: Sequence[TournamentTable]) -> dict[int, Game]:
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

    async def refresh_message(self, tournament: StoredTournament) -> int:
        """Re-show the tournament message; returns the number registered."""
        entries = await self.tournaments.registrations(tournament.id)
        message_id = tournament.state.message_id
        if message_id is not None:
            text, buttons = er.tournament_message(
                self.group(tournament),
                tournament,
                entries,
                registration_open=self.registration_open(tournament),
            )
            # After a registration or a withdrawal: that person is looking at the count.
            self.chats.edit(
                tournament.chat_id,
                message_id,
                text,
                buttons,
                tournament.thread_id,
                urgency=Urgency.MOVED,
            )
        return len(er.registered(entries))

    def group(self, tournament: StoredTournament) -> Tr:
        """The language of the tournament's group."""
        return self.languages.chat(tournament.chat_id)

    async def announce(self, tournament: StoredTournament, said: Msg | Say) -> None:
        """Post to the tournament's group in its language, in order, without holding the
        tournament's mailbox for the group's pace."""
        tr = self.group(tournament)
        text = tr(said) if isinstance(said, Msg) else said(tr)
        self.chats.post(tournament.chat_id, text, thread_id=tournament.thread_id)

    def tell(self, user_id: int, said: Msg) -> None:
        """Post a line to a person's DM, in their language."""
        self.chats.post(user_id, self.languages.person(user_id)(said))

    async def entry(self, tournament: StoredTournament, user_id: int) -> Registration | None:
        entries = await self.tournaments.registrations(tournament.id)
        return next((r for r in entries if r.user_id == user_id), None)

    async def refresh_round(self, tournament: StoredTournament) -> None:
        round_no = tournament.current_round
        message_id = tournament.state.round_messages.get(round_no)
        if message_id is None:
            return
        tables = await self.tournaments.tournament_tables(tournament.id, round_no)
        tr = self.group(tournament)
        text = er.round_message(tr, tournament, round_no, tables, self.games(tables))
        self.chats.edit(tournament.chat_id, message_id, text, NONE, tournament.thread_id)

    def arm_tick(self) -> None:
        """Check what is due at once (a tournament was created or a round began)."""
        if self.ticker is not None:
            self.scheduler.arm("tournaments:tick", 0.0, self.ticker)

    def table_rules(self, tournament: StoredTournament, players: int) -> Rules | None:
        return tour.rules_for(tournament.rules, players)
