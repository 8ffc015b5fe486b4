"""Ending a table that will not finish: cancelled by its host, a lobby that expired, a
group that removed the bot. A game that ends so after its first hand is rated from its
standing totals (in the storage's `cancel_game`), and its message says how."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from bot.basics import Person, UserError
from bot.core.commands import Cancel
from bot.core.effects import StoreCancel, Urgency
from bot.core.runner import Runner
from bot.i18n import Msg, msg
from bot.tables import render
from bot.tables.clock import TurnClock
from bot.tables.config import AdminCheck, require_host
from bot.tables.model import Table
from bot.tables.parts import Part
from bot.tables.rating import Ratings
from bot.tables.registry import TableRegistry
from bot.tables.screens import Screens
from bot.tables.seat_screen import Words
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

    async def cancel(self, chat_id: int, thread_id: int | None, person: Person) -> Msg:
        table = self.registry.in_chat(chat_id, thread_id)
        if table is None:
            raise UserError(msg("There's nothing to cancel here."))
        return await self.cancel_game(table.id, person)

    async def cancel_game(self, game_id: int, person: Person) -> Msg:
        async with self.registry.lock(game_id):
            table = self.registry.require(game_id)
            if not table.phase.live:
                raise UserError(msg("There's nothing to cancel here."))
            await require_host(table, person, self.is_admin)
            said = msg("✖ The game was cancelled by {name}.", name=render.who(person.name))
            # The table's message stops showing whose turn it is, and its button.
            await self.close(table, render.cancelled_lines(table), said)
            # A started game's /cancel is answered with one line in the group (the toast of a
            # lobby's button is enough for a lobby).
            return said if table.game is not None else msg("Table cancelled.")

    async def group_gone(self, chat_id: int) -> None:
        """A group removed the bot: its tables end, and their players still reachable are
        told in their DMs (the group cannot be written to)."""
        for table in self.registry.of_chat(chat_id):
            async with self.registry.lock(table.id):
                if self.registry.get(table.id) is not table or not table.phase.live:
                    continue
                log.info("game %s ends: chat %s removed the bot", table.id, chat_id)
                said = msg(
                    "✖ I was removed from {chat}, so its game has ended.",
                    chat=render.who(table.chat_title),
                )
                await self.close(table, None, said, post_to_lobby=True)

    async def close(
        self,
        table: Table,
        table_lines: Sequence[Part] | None,
        dm_said: Msg | None,
        *,
        post_to_lobby: bool = False,
    ) -> None:
        """End a lobby or game that will not finish (cancelled, expired, its group gone):
        stored as cancelled, its message edited to `table_lines` (and the rating changes of
        a rated game), its players' screens to
        `dm_said` (people in a lobby have none: `post_to_lobby` sends it to them), and
        everything kept for it dropped. Under the table's lock."""
        rated = await self._store_cancelled(table)
        changes = await self.ratings.changes(table) if rated else None
        if table_lines is not None and table.ui.table_message_id is not None:
            lines = (*table_lines, changes) if changes is not None else tuple(table_lines)
            self.screens.edit_table_message(table, Words(lines), Urgency.MOVED)
        for seat, s in table.humans():
            await self.screens.clear_nudges(table, seat)
            self.screens.pages.changed(table, seat)  # open pages say so at once
            message_id = table.ui.dm_message_ids.get(seat)
            if dm_said is None or s.user_id is None:
                continue
            if message_id is not None:
                self.screens.edit_words(s.user_id, message_id, dm_said)
            elif table.game is None and post_to_lobby:
                self.screens.tell(s.user_id, dm_said)
        self.registry.forget(table)
        self.clock.stop(table)

    async def _store_cancelled(self, table: Table) -> bool:
        """Cancel through the core, stored first; whether storage rated the game."""
        rated = False

        async def store(table: Table, _: StoreCancel) -> None:
            nonlocal rated
            rated = await self.games.cancel_game(table.id)

        await self.runner.run(table, Cancel(), {StoreCancel: store})
        return rated
