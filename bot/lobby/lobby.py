"""Lobbies: a group opens a table, people take seats, the host fills and starts it.

A lobby is stored when it opens and after every change; one nobody starts closes after
`TablesConfig.lobby_ttl_s`. People must have opened a DM with the bot before they sit
(their cards go there): until then they wait in the lobby as "pending".
"""

from __future__ import annotations

import functools
import logging
import secrets

from bot.basics import Person, UserError
from bot.core.commands import (
    AddComputer,
    Cancel,
    EmptySeat,
    LobbyCommand,
    OpenLobby,
    Sit,
    Stand,
    Start,
    StopWaiting,
    Wait,
)
from bot.core.effects import CreateLobby, Urgency
from bot.core.phases import Phase
from bot.i18n import Msg, isolated_name, msg, msg_plural
from bot.screens.parts import Name
from bot.screens.screens import NotShown, Screens
from bot.tables.closing import Closer
from bot.tables.config import AdminCheck, DealSource, MemberCheck, TablesConfig, require_host
from bot.tables.model import LEVELS, Seat, Table, TableOptions
from bot.tables.play import Moves
from bot.tables.registry import TableRegistry
from bot.tables.seating import join_refused, seated
from bot.timers import Scheduler
from domain.people import ChatSettings
from engine import Game, Rules
from storage import Journal, People, SeatTaken
from storage.errors import GameNotFound

log = logging.getLogger(__name__)

TABLE_BELOW = msg("There's already a table in this chat: it's the newer message below.")
"""A 🔁 New game pressed under a finished game: the chat's open table came after it."""
NOT_IN_CHAT = msg("I'm not in that group any more: add me back to it to play there.")


class Lobby:
    def __init__(
        self,
        registry: TableRegistry,
        screens: Screens,
        moves: Moves,
        closer: Closer,
        scheduler: Scheduler,
        config: TablesConfig,
        is_admin: AdminCheck,
        is_member: MemberCheck,
        deal_source: DealSource,
        games: Journal,
        people: People,
    ) -> None:
        self.registry = registry
        self.games = games
        self.people = people
        self.screens = screens
        self.moves = moves
        self.closer = closer
        self.scheduler = scheduler
        self.config = config
        self.is_admin = is_admin
        self.is_member = is_member
        self.deal_source = deal_source

    # ------------------------------------------------------------------ opening

    async def new_table(
        self, chat_id: int, thread_id: int | None, chat_title: str, person: Person
    ) -> None:
        await self.people.upsert_user(person.id, person.name, person.username)

        async def open_here() -> Table:
            if self.registry.in_chat(chat_id, thread_id) is not None:
                raise UserError(msg("There's already a table in this chat: see the message above."))
            return await self._open(chat_id, thread_id, chat_title, person)

        table = await self.registry.seating.ask(open_here)
        # The group's first table gives the group its opener's language (until an admin
        # chooses one with /language).
        await self.screens.languages.table_opened(chat_id, person.id)
        await self._show_new(table, person)

    async def rematch(self, game_id: int, person: Person, chat_id: int | None) -> Msg:
        """« New game » under a finished game: a lobby in the same chat with the same rules
        and options, its host the presser; the people who played (and are free, with their
        DM open) keep their seats, computers theirs."""
        try:
            stored = await self.games.load_game(game_id, verify=False)
        except GameNotFound:
            raise UserError(msg("That button isn't valid any more.")) from None
        if (
            stored.status != "finished"
            or stored.tournament_id is not None
            or chat_id != stored.chat_id
        ):
            raise UserError(msg("That button isn't valid any more."))
        old = Table.from_stored(stored)
        if self.registry.in_chat(old.chat_id, old.thread_id) is not None:
            raise UserError(TABLE_BELOW)
        await self.people.upsert_user(person.id, person.name, person.username)

        async def open_again() -> Table:
            if self.registry.in_chat(old.chat_id, old.thread_id) is not None:
                raise UserError(TABLE_BELOW)
            return await self._open(old.chat_id, old.thread_id, old.chat_title, person, like=old)

        table = await self.registry.seating.ask(open_again)
        await self._show_new(table, person)
        return msg("A new table is open: same rules, same seats.")

    async def _open(
        self,
        chat_id: int,
        thread_id: int | None,
        chat_title: str,
        person: Person,
        like: Table | None = None,
    ) -> Table:
        """A new lobby, stored and indexed, its host seated if they sit nowhere else.

        With the rules and options of the chat's settings; or of `like` (a rematch), whose
        computers and free people (DM open) keep a seat too.
        """
        if like is not None:
            rules, options = like.rules, like.options
        else:
            settings = await self.people.get_chat_settings(chat_id)
            rules = Rules.from_stored(settings.rules)
            level = settings.computer_level if settings.computer_level in LEVELS else "standard"
            options = TableOptions(
                turn_timer=self.turn_timer_of(settings),
                computer_level=level,
                track_cards=settings.track_cards,
                hints=settings.hints,
            )
        if self.screens.is_gone(chat_id):
            raise UserError(NOT_IN_CHAT)
        table = Table(
            id=0,
            chat_id=chat_id,
            thread_id=thread_id,
            chat_title=chat_title,
            creator_id=person.id,
            creator_name=person.name,
            rules=rules,
            options=options,
            seats=[None] * rules.players,
            join_token=secrets.token_urlsafe(9),
        )
        host_free = await self._free(person.id)
        seats = tuple(like.seats) if like is not None else ()
        free = frozenset(
            [
                s.user_id
                for s in seats
                if s is not None and s.user_id is not None and await self._free_to_sit(s, person)
            ]
        )
        command = OpenLobby(
            person.id,
            person.name,
            host_free,
            host_free and await self.people.dm_open(person.id),
            seats,
            free,
        )
        try:
            await self.moves.runner.run(table, command)
        except SeatTaken as taken:  # sat down elsewhere since we looked: storage said no
            if taken.user_id == person.id:
                raise UserError(join_refused(await seated(self.games, taken))) from None
            raise UserError(
                msg("A player of that table just sat down at another one. Please try again.")
            ) from None
        self.registry.add(table, 0)
        self.arm_expiry(table, self.config.lobby_ttl_s)
        return table

    async def store_new(self, table: Table, _: CreateLobby) -> None:
        """`CreateLobby`: the new lobby stored, and given its id."""
        table.id = await self.games.create_lobby(
            table.chat_id,
            table.thread_id,
            table.creator_id,
            table.rules,
            table.stored_seats(),
            table.stored_meta(),
            join_token=table.join_token,
        )

    async def _free_to_sit(self, seat: Seat, host: Person) -> bool:
        """Whether a person of the last game can be seated at its rematch now."""
        user_id = seat.user_id
        if seat.kind == "computer" or user_id is None or user_id == host.id:
            return False
        return await self._free(user_id) and await self.people.dm_open(user_id)

    async def _free(self, user_id: int) -> bool:
        """Whether the person sits at no live table (of any bot account, a daily deal too):
        then a new lobby seats them. Storage's key decides if that changes meanwhile."""
        if self.registry.of_user(user_id) is not None:
            return False
        return await self.games.active_game_for_user(user_id) is None

    async def _show_new(self, table: Table, host: Person) -> None:
        """Post a new lobby's message; ask its host to open the DM if they have not.

        A lobby whose message Telegram did not take (the bot is no longer in the group) is
        closed at once: nobody could see it, and it would hold its people for hours."""
        try:
            message_id = await self.screens.send_lobby(table)
        except NotShown as error:
            log.warning("lobby %s: its message was refused: %s", table.id, error)
            message_id = None
        if message_id is None:
            await self.registry.send(table.id, functools.partial(self._not_shown, table))
            if self.screens.is_gone(table.chat_id):
                raise UserError(NOT_IN_CHAT)
            raise UserError(
                msg("I couldn't post the table here, so it isn't open. Please try again.")
            )
        shown = message_id

        async def keep_message() -> bool:
            """Whether the lobby ended while its message was on its way."""
            table.ui.table_message_id = shown
            ended = self.registry.get(table.id) is not table or table.phase is not Phase.LOBBY
            if not ended:
                await self.screens.kept.save(table)
            elif table.end_words is not None:
                # It ended (cancelled, expired) while its message was on its way: the
                # message says so, and offers no button of a table that is gone.
                self.screens.edit_table_message(table, table.end_words, Urgency.MOVED)
            return ended

        if await self.registry.send(table.id, keep_message):
            log.info("lobby %s ended before its message was posted", table.id)
            if table.end_words is None:
                await self.screens.display.delete(table.chat_id, message_id)
            return
        if host.id in table.pending:
            await self.screens.ask_to_open_dm(table, host)

    async def _not_shown(self, table: Table) -> None:
        """A new lobby nobody could see closes at once (if it is still open)."""
        if self.registry.get(table.id) is table and table.phase is Phase.LOBBY:
            log.info("lobby %s closed: chat %s took no message", table.id, table.chat_id)
            await self.closer.close(table, Cancel())

    def turn_timer_of(self, settings: ChatSettings) -> int:
        """The turn timer a chat's new tables get: its own choice, else the bot's default."""
        if settings.turn_timer_s is None:
            return self.config.default_turn_timer
        return settings.turn_timer_s

    def arm_expiry(self, table: Table, delay: float) -> None:
        """A lobby nobody starts closes after `TablesConfig.lobby_ttl_s`."""
        gid = table.id
        self.scheduler.arm(f"lobby:{gid}", max(delay, 0.0), lambda: self._expire(gid))

    async def _expire(self, game_id: int) -> None:
        async def job() -> None:
            table = self.registry.get(game_id)
            if table is None or table.phase is not Phase.LOBBY:
                return
            hours = round(self.config.lobby_ttl_s / 3600)
            log.info("lobby %s in chat %s expired", table.id, table.chat_id)

            expired = msg_plural(
                "⌛ This table closed: nobody started it within {n} hour. Send /newgame "
                "to open a new one.",
                "⌛ This table closed: nobody started it within {n} hours. Send /newgame "
                "to open a new one.",
                hours,
            )
            await self.closer.close(table, Cancel(table=expired))

        await self.registry.send(game_id, job)

    # ------------------------------------------------------------------ seats

    async def change(self, table: Table, command: LobbyCommand) -> None:
        """A change of a lobby's seats, through the core: stored, then shown; refused or
        not stored, the lobby stays as it was. In a job of the table's mailbox. Seating someone who
        sits at another live table (any bot account's, their daily deal) is refused by
        storage, with a sentence naming that table."""
        try:
            await self.moves.runner.run(table, command)
        except SeatTaken as taken:
            raise UserError(join_refused(await seated(self.games, taken))) from None

    async def join(
        self, game_id: int, person: Person, *, in_group: bool = False, named: bool = False
    ) -> Msg:
        """Seat ``person``; `in_group`: they pressed Join in the table's own group;
        `named`: the answer is said in the group (``/join``), so it names them.

        Anywhere else (a button forged in a DM) they must first prove, through Telegram,
        that they are a member of the table's group.
        """
        if not in_group:
            table = self.registry.lobby(game_id)
            if not await self.is_member(table.chat_id, person.id):
                raise UserError(msg("Only members of the table's group can sit at it."))

        async def job() -> Msg:
            table = self.registry.lobby(game_id)
            await self.people.upsert_user(person.id, person.name, person.username)
            if table.seat_of(person.id) is not None:
                raise UserError(msg("You're already at this table."))
            if self.registry.of_user(person.id) is not None:
                raise UserError(
                    msg("You're already playing at another table. Finish or /leave it first.")
                )
            if None not in table.seats:
                raise UserError(msg("The table is full."))
            if not await self.people.dm_open(person.id):
                await self.change(table, Wait(person.id, person.name))
                await self.screens.ask_to_open_dm(table, person)
                return msg(
                    "{name}, I can't message you yet. Tap below, press Start in our chat, "
                    "and your seat is yours.",
                    name=isolated_name(person.name),
                )
            await self.change(table, Sit(person.id, person.name))
            if named:
                return msg(
                    "{name}, you're in! Your cards will come in a DM.",
                    name=isolated_name(person.name),
                )
            return msg("You're in! Your cards will come in a DM.")

        return await self.registry.send(game_id, lambda: self.registry.seating.ask(job))

    async def join_from_link(self, table: Table, person: Person) -> Msg:
        """``/start j<token>``: seat a member of the table's group who opened their DM.

        Nothing about the table (not even that it exists) is told to someone who is not a
        member of its group.
        """
        # Someone who pressed Join in the group (pending) has shown they are in it.
        proven = table.seat_of(person.id) is not None or person.id in table.pending
        if not proven and not await self.is_member(table.chat_id, person.id):
            return msg("Only members of the table's group can sit at it.")

        async def job() -> Msg:
            if self.registry.get(table.id) is not table or table.phase is not Phase.LOBBY:
                return msg("That table isn't open any more.")
            if table.seat_of(person.id) is not None:
                await self.change(table, StopWaiting(person.id))
            elif self.registry.of_user(person.id) is not None:
                await self.change(table, StopWaiting(person.id))
                return msg("You're already playing at another table. Finish or /leave it first.")
            elif None not in table.seats:
                await self.change(table, StopWaiting(person.id))
                return msg("The table is full.")
            else:
                try:
                    await self.change(table, Sit(person.id, person.name))
                except UserError as refused:
                    await self.change(table, StopWaiting(person.id))
                    return refused.said
            return msg(
                "You're seated at the table in {chat}. Your cards will come here when "
                "the game starts.",
                chat=Name(table.chat_title),
            )

        return await self.registry.send(table.id, lambda: self.registry.seating.ask(job))

    async def leave(self, table: Table, person: Person) -> Msg:
        """A person leaves a lobby (or stops waiting to sit). In a job of the table's mailbox."""
        await self.change(table, Stand(person.id))
        return msg("You left the table.")

    async def add_computer(self, game_id: int, person: Person) -> Msg:
        async def job() -> Msg:
            table = self.registry.lobby(game_id)
            await require_host(table, person, self.is_admin)
            await self.change(table, AddComputer())
            return msg("Computer player added.")

        return await self.registry.send(game_id, job)

    async def remove_seat(self, game_id: int, seat: int, person: Person) -> Msg:
        async def job() -> Msg:
            table = self.registry.lobby(game_id)
            await require_host(table, person, self.is_admin)
            await self.change(table, EmptySeat(seat))
            return msg("Seat emptied.")

        return await self.registry.send(game_id, job)

    async def start(self, game_id: int, person: Person) -> Msg:
        async def job() -> Msg:
            table = self.registry.lobby(game_id)
            await require_host(table, person, self.is_admin)
            seed, deals, key = self.deal_source(table)
            game = Game(table.rules, seed=seed, deals=deals, deal_key=key)
            await self.moves.runner.run(table, Start(game))  # refused: still the lobby
            return msg("Dealing the cards…")

        return await self.registry.send(game_id, job)
