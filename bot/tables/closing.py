"""Ending a table that will not finish: cancelled by its host, a lobby that expired, a
group that removed the bot. A game that ends so after its first hand is rated from its
standing totals (in the storage's `cancel_game`), and its message says how."""

from __future__ import annotations

import functools
import logging

from bot.basics import Person, UserError
from bot.core.commands import Cancel
from bot.core.effects import Forget, ShowEnd, StoreCancel, Urgency
from bot.core.runner import Runner
from bot.i18n import Msg, msg
from bot.screens import render
from bot.screens.parts import Name, Part
from bot.screens.screens import Screens
from bot.screens.seat_screen import Words
from bot.standings.rating import Ratings
from bot.tables.clock import TurnClock
from bot.tables.config import AdminCheck, require_host
from bot.tables.model import Table
from bot.tables.registry import TableRegistry
from storage import Journal

log = logging.getLogger(__name__)


class Closer:
    def __init__(
        self,
        registry: TableRegistry,
        screens: Screens,
        clock: TurnClock,
        is_admin: AdminCheck,
        ratings: Ratings,
        games: Journal,
        runner: Runner,
    ) -> None:
        self.registry = registry
        self.games = games
        self.screens = screens
        self.clock = clock
        self.is_admin = is_admin
        self.ratings = ratings
        self.runner = runner
        self._rated: set[int] = set()
        """The tables whose cancel just rated them, until their end is shown."""

    async def cancel(self, chat_id: int, thread_id: int | None, person: Person) -> Msg:
        table = self.registry.in_chat(chat_id, thread_id)
        if table is None:
            raise UserError(msg("There's nothing to cancel here."))
        return await self.cancel_game(table.id, person)

    async def cancel_game(self, game_id: int, person: Person) -> Msg:
        async def job() -> Msg:
            table = self.registry.require(game_id)
            if not table.phase.live:
                raise UserError(msg("There's nothing to cancel here."))
            await require_host(table, person, self.is_admin)
            said = msg("✖ The game was cancelled by {name}.", name=Name(person.name))
            # The table's message stops showing whose turn it is, and its button.
            await self.close(table, Cancel(standings=True, told=said))
            # A started game's /cancel is answered with one line in the group (the toast of a
            # lobby's button is enough for a lobby).
            return said if table.game is not None else msg("Table cancelled.")

        return await self.registry.send(game_id, job)

    async def group_gone(self, chat_id: int) -> None:
        """A group removed the bot: its tables end, and their players still reachable are
        told in their DMs (the group cannot be written to)."""
        for table in self.registry.of_chat(chat_id):
            await self.registry.send(table.id, functools.partial(self._group_gone, table))

    async def _group_gone(self, table: Table) -> None:
        if self.registry.get(table.id) is not table or not table.phase.live:
            return
        log.info("game %s ends: chat %s removed the bot", table.id, table.chat_id)
        said = msg(
            "✖ I was removed from {chat}, so its game has ended.",
            chat=Name(table.chat_title),
        )
        await self.close(table, Cancel(told=said, tell_lobby=True))

    async def close(self, table: Table, command: Cancel) -> None:
        """End a lobby or game that will not finish (cancelled, expired, its group gone)
        through the core: stored as cancelled, then its people's reminders gone, its
        screens saying what `command` says (a rated game's message with the rating
        changes), and everything kept for it dropped. In a job of the table's mailbox."""
        await self.runner.run(table, command)

    async def store_cancel(self, table: Table, _: StoreCancel) -> None:
        """`StoreCancel`: the table stored as cancelled (rated, after its first hand)."""
        if await self.games.cancel_game(table.id):
            self._rated.add(table.id)

    async def show_end(self, table: Table, end: ShowEnd) -> None:
        """`ShowEnd`: its message and its players' screens say how the table ended."""
        rated = table.id in self._rated
        self._rated.discard(table.id)
        changes = await self.ratings.changes(table) if rated else None
        lines: list[Part] | None = (
            render.cancelled_lines(table)
            if end.standings
            else [end.table]
            if end.table is not None
            else None
        )
        if lines is not None:
            shown = Words(tuple(lines if changes is None else [*lines, changes]))
            if table.ui.table_message_id is not None:
                self.screens.edit_table_message(table, shown, Urgency.MOVED)
            else:
                table.end_words = shown  # its message is still on its way
        for seat, s in table.humans():
            self.screens.pages.changed(table, seat)  # open pages say so at once
            message_id = table.ui.dm_message_ids.get(seat)
            if end.told is None or s.user_id is None:
                continue
            if message_id is not None:
                self.screens.close_dm(table, seat, end.told)
            elif table.game is None and end.tell_lobby:
                self.screens.tell(s.user_id, end.told)

    async def forget(self, table: Table, _: Forget) -> None:
        """`Forget`: the table's timers stop and memory lets it go."""
        self.registry.forget(table)
        self.clock.stop(table)
