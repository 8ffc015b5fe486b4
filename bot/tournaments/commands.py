"""``/tournament …`` in a group: create a tournament, its status, and the organiser's commands
(start, pause, resume, cancel, remove, only, invite); ``/scores``' tournament lines.

The rules of draws, places and advancing are pure functions in `bot.tournaments.plan`;
state lives in storage (tournaments, registrations, each round's tables, one-time actions
claimed), so a restart resumes every tournament."""

from __future__ import annotations

import logging
import secrets
import shlex
from collections.abc import Sequence
from dataclasses import replace

from bot.basics import Person, UserError
from bot.core.tournament import Cancel, Pause, Resume
from bot.core.tournament import decide as step
from bot.i18n import Msg, Tr
from bot.tournaments import plan as tour
from bot.tournaments import render as er
from bot.tournaments.board import Board
from bot.tournaments.entries import Entries
from bot.tournaments.parsing import SWITCH, BadRequest, parse_new
from bot.tournaments.render import said, who
from bot.tournaments.rounds import Rounds
from bot.tournaments.timeline import Timeline
from domain.tournaments import TournamentState
from engine import Rules

log = logging.getLogger(__name__)


class TournamentCommands:
    """What people ask of tournaments with ``/tournament``."""

    def __init__(self, board: Board, entries: Entries, rounds: Rounds, timeline: Timeline) -> None:
        self.board = board
        self.entries = entries
        self.rounds = rounds
        self.timeline = timeline
        self.desk = board.desk
        self.tournaments = board.tournaments
        self.people = board.people
        self.chats = board.chats
        self.clock = board.clock
        self.is_admin = board.is_admin

    async def command(
        self,
        chat_id: int,
        thread_id: int | None,
        chat_title: str,
        person: Person,
        text: str,
        reply_to: Person | None = None,
    ) -> str | Msg | None:
        """``/tournament ...`` in a group; returns the reply (None: the bot posted its own)."""
        try:
            words = shlex.split(text)
        except ValueError:
            words = text.split()
        sub = words[0].lower() if words else ""
        rest = words[1:]
        if sub == "help":
            return said(
                "🏆 <b>Events</b> (tournaments over several tables)\n\n<b>Create</b> "
                '(group admins):\n<code>/event new "Name" [YYYY-MM-DD HH:MM '
                "[Area/City]] [options]</code>\nWithout a time, the organiser starts "
                "it. Table rules are this group's (⚙ Rules).\n\n<b>Options</b>:\n• "
                "<code>size=4</code> — players per table (3–6)\n• "
                "<code>advance=2</code> — the best of each table go on\n• "
                "<code>top=8</code> — or the best of the whole round\n• "
                "<code>computers=on</code> — computers fill short tables\n• "
                "<code>duplicate=on</code> — the same deals at every table\n• "
                "<code>seeding=rating</code> — the strongest start at different tables\n• "
                "<code>watch=off</code> — nobody watches the tables\n• "
                "<code>grace=5</code> — minutes before a no-show is replaced\n• "
                "<code>deadline=17:00</code>, <code>deadline={day}T17:00</code> — "
                "registration closes\n• "
                "<code>target=100</code>, <code>timer=60</code>, "
                "<code>level=easy</code> — game rules\n• <code>only=@ann,@bob</code>, "
                "<code>invite=@cat</code> — who may register\n\n<b>Everyone</b>:\n• "
                "<code>/event</code> — registered, round, tables, standings\n• "
                "<code>/event withdraw</code> — take your name off (or tap "
                "Withdraw)\n\n<b>Organiser or admins</b>:\n• <code>/event start</code> — "
                "the next round now\n• <code>/event pause</code>, <code>/event "
                "resume</code>, <code>/event cancel</code>\n• <code>/event watch on</code>, "
                "<code>/event watch off</code>\n• <code>/event remove "
                "@name</code> (or as a reply)\n• <code>/event only @a @b</code>, "
                "<code>/event invite @c</code>",
                day=er.example_day(self.clock()),
            )
        if sub == "new":
            return await self.create(chat_id, thread_id, chat_title, person, rest)
        tournament = await self.board.open_in(chat_id)
        if sub == "":
            return await self.status(chat_id)
        if tournament is None:
            return said(
                "There's no event here. A group admin can create one:\n<code>/event new "
                '"Spring Cup" {day} 18:00 Asia/Kolkata</code>',
                day=er.example_day(self.clock()),
            )
        if sub == "withdraw":
            return await self.entries.withdraw(tournament.id, person)
        await self.board.require_organiser(tournament, person)
        if sub == "start":
            return await self.start_now(tournament.id)
        if sub == "pause":
            return await self.pause(tournament.id, person)
        if sub == "resume":
            return await self.resume_tournament(tournament.id, person)
        if sub == "cancel":
            return await self.cancel(tournament.id, person)
        if sub == "remove":
            return await self.entries.remove(tournament.id, person, rest, reply_to)
        if sub in ("only", "invite"):
            return await self.entries.set_list(tournament.id, sub, rest)
        if sub == "watch":
            return await self.watching(tournament.id, rest)
        return _not_understood(said("unknown command {command}", command=repr(sub)))

    async def create(
        self,
        chat_id: int,
        thread_id: int | None,
        chat_title: str,
        person: Person,
        words: Sequence[str],
    ) -> Msg | None:
        if not await self.is_admin(chat_id, person.id):
            return said("Only a group admin can create an event.")
        existing = await self.board.open_in(chat_id)
        if existing is not None:
            return said(
                "There's already an event open here: {name}. Finish or <code>/event "
                "cancel</code> it first.",
                name=who(existing.name),
            )
        earlier = await self.tournaments.tournaments_in_chat(chat_id, limit=1)
        default_tz = earlier[0].time_zone if earlier else "UTC"
        try:
            request = parse_new(words, default_tz, self.clock())
        except BadRequest as error:
            return _not_understood(error.said)
        settings = await self.people.get_chat_settings(chat_id)
        base = Rules.from_stored(settings.rules)
        if request.target is not None:
            base = Rules.from_dict({**base.to_dict(), "target": request.target})
        if base.players == 2:
            base = Rules()
        rules = tour.rules_for(base, request.options.table_size)
        if rules is None:
            return _not_understood(said("these table rules don't allow that table size"))
        options = request.options
        if not options.computer_fill and tour.rules_for(rules, options.table_size - 1) is None:
            # Rules for one table size only (Complex Hearts): short tables need computers.
            options = replace(options, computer_fill=True)
        if not any(w.lower().startswith("timer=") for w in words):
            options = replace(options, turn_timer=self.desk.turn_timer_of(settings))
        tournament = await self.tournaments.create_tournament(
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
            state=TournamentState(seed=secrets.randbits(62), chat_title=chat_title),
        )
        await self.people.upsert_user(person.id, person.name, person.username)
        tr = self.board.group(tournament)
        text, buttons = er.tournament_message(tr, tournament, [], registration_open=True)
        message_id = await self.chats.send(chat_id, text, buttons, thread_id)
        await self.tournaments.claim_once(tournament.id, "open", message_id)
        tournament = replace(tournament, state=replace(tournament.state, message_id=message_id))
        await self.tournaments.save_tournament(tournament)
        self.board.arm_tick()
        return None

    async def status(self, chat_id: int) -> str | Msg:
        tournaments = await self.tournaments.tournaments_in_chat(chat_id, limit=1)
        if not tournaments:
            return said(
                "There's no event here. A group admin can create one:\n<code>/event new "
                '"Spring Cup" {day} 18:00 Asia/Kolkata</code>',
                day=er.example_day(self.clock()),
            )
        tournament = tournaments[0]
        registrations = await self.tournaments.registrations(tournament.id)
        tables = (
            await self.tournaments.tournament_tables(tournament.id, tournament.current_round)
            if tournament.current_round
            else []
        )
        return er.status_text(
            self.board.group(tournament),
            tournament,
            registrations,
            tables,
            self.board.games(tables),
            registration_open=self.board.registration_open(tournament),
        )

    async def scores_text(self, tr: Tr, chat_id: int) -> str:
        """For ``/scores``: the final ranking of the chat's latest tournament, if it has one."""
        tournaments = await self.tournaments.tournaments_in_chat(chat_id, limit=1)
        if not tournaments:
            return ""
        tournament = tournaments[0]
        ranking = er.ranking_lines(tr, await self.tournaments.registrations(tournament.id))
        if not ranking:
            return ""
        status = tr(er.STATUS_NAMES[tournament.status])
        title = tr(
            said("<b>Event: {name}</b> ({status})", name=who(tournament.name), status=status)
        )
        return "\n".join([title, *ranking])

    async def watching(self, tournament_id: int, words: Sequence[str]) -> Msg:
        """``/event watch on|off``: whether the group may watch the event's tables: the
        table page asks the event on each watcher's hello, and the tables dealt from now
        on show 👀 Watch or not (a watcher already watching goes on until they close it)."""
        switch = words[0].lower() if words else ""
        if switch not in SWITCH:
            word = repr(" ".join(words)[:60])
            return _not_understood(said("unknown option or value {word}", word=word))

        async def switch_watching() -> bool:
            tournament = await self.board.get(tournament_id)
            options = replace(tournament.options, watching=SWITCH[switch])
            tournament = replace(tournament, options=options)
            await self.tournaments.save_tournament(tournament)
            await self.board.refresh_message(tournament)
            return options.watching

        if await self.board.send(tournament_id, switch_watching):
            return said("👀 Watching this event's tables is on.")
        return said("👀 Watching this event's tables is off.")

    async def pause(self, tournament_id: int, person: Person) -> Msg:
        async def job() -> Msg:
            tournament = await self.board.get(tournament_id)
            if tournament.status not in ("registration", "running"):
                raise UserError(said("That event is over."))
            tournament = step(tournament, Pause())
            await self.tournaments.save_tournament(tournament)
            await self.board.refresh_message(tournament)
            await self.board.announce(
                tournament,
                said(
                    "⏸ <b>{name}</b> is paused by {by}. Games in progress go on; no new "
                    "round starts until it resumes.",
                    name=who(tournament.name),
                    by=who(person.name),
                ),
            )
            return said("Paused. <code>/event resume</code> carries on.")

        return await self.board.send(tournament_id, job)

    async def resume_tournament(self, tournament_id: int, person: Person) -> Msg:

        async def resume() -> None:
            tournament = await self.board.get(tournament_id)
            if tournament.status != "paused":
                raise UserError(said("The event isn't paused."))
            tournament = step(tournament, Resume())
            status = tournament.status
            await self.tournaments.save_tournament(tournament)
            await self.board.refresh_message(tournament)
            await self.board.announce(
                tournament,
                said(
                    "▶ <b>{name}</b> carries on ({by}).",
                    name=who(tournament.name),
                    by=who(person.name),
                ),
            )
            if status == "running" and tournament.state.done_round == tournament.current_round:
                await self.rounds.next(tournament)

        await self.board.send(tournament_id, resume)
        await self.rounds.sync(tournament_id)
        await self.timeline.tick()
        return said("Resumed.")

    async def start_now(self, tournament_id: int) -> Msg | None:
        """``/tournament start``: the first round (or a round held back by a pause) now."""

        async def job() -> Msg | None:
            tournament = await self.board.get(tournament_id)
            if tournament.status == "paused":
                tournament = step(tournament, Resume())
                await self.tournaments.save_tournament(tournament)
            if tournament.status == "registration":
                entries = await self.tournaments.registrations(tournament.id)
                if len(er.registered(entries)) < 2:
                    return said("At least 2 people must be registered to start.")
                await self.tournaments.claim_once(tournament.id, "start")
                await self.rounds.start(tournament, 1)
                return None
            if tournament.state.done_round != tournament.current_round:
                return said("Round {round} is still being played.", round=tournament.current_round)
            await self.rounds.next(tournament)
            return None

        return await self.board.send(tournament_id, job)

    async def cancel(self, tournament_id: int, person: Person) -> Msg:
        async def job() -> Msg:
            tournament = await self.board.get(tournament_id)
            if not tournament.is_open:  # it ended while the command waited its turn
                raise UserError(said("That event is over."))
            tournament = step(tournament, Cancel())
            await self.tournaments.save_tournament(tournament)
            organiser = Person(tournament.organiser_id, tournament.organiser_name)
            for table in await self.tournaments.tournament_tables(
                tournament.id, tournament.current_round
            ):
                if table.status == "playing":
                    await self.tournaments.save_tournament_table(replace(table, status="cancelled"))
                    if table.game_id is not None and self.desk.live(table.game_id) is not None:
                        await self.desk.cancel(table.game_id, organiser)
            await self.board.refresh_message(tournament)
            await self.board.refresh_round(tournament)
            await self.board.announce(
                tournament,
                said(
                    "✖ <b>{name}</b> was cancelled by {by}.",
                    name=who(tournament.name),
                    by=who(person.name),
                ),
            )
            return said("Cancelled.")

        return await self.board.send(tournament_id, job)


def _not_understood(reason: Msg) -> Msg:
    return said("I didn't understand that: {reason}\nSee <code>/event help</code>.", reason=reason)
