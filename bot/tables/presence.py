"""Who is at a running game: a person who leaves, blocks the bot or never shows up has a
computer player hold their seat until they ``/rejoin``."""

from __future__ import annotations

from bot.basics import Person, UserError
from bot.chats import Chats
from bot.core.commands import Rejoin, Stand, TakeOver
from bot.core.phases import Phase
from bot.core.runner import Runner
from bot.i18n import Msg, msg
from bot.lobby.lobby import Lobby
from bot.screens.parts import Name
from bot.screens.screens import Screens
from bot.tables.closing import Closer
from bot.tables.model import Table
from bot.tables.registry import TableRegistry
from storage import People


class Presence:
    def __init__(
        self,
        registry: TableRegistry,
        screens: Screens,
        lobby: Lobby,
        closer: Closer,
        people: People,
        runner: Runner,
        chats: Chats,
    ) -> None:
        self.registry = registry
        self.chats = chats
        self.people = people
        self.screens = screens
        self.lobby = lobby
        self.closer = closer
        self.runner = runner

    async def leave(self, game_id: int, person: Person) -> Msg:
        """``/leave`` or Leave: out of a lobby, or a computer player takes over mid-game."""

        async def job() -> Msg:
            table = self.registry.require(game_id)
            if table.phase is Phase.LOBBY:
                return await self.lobby.leave(table, person)
            seat = table.seat_of(person.id)
            if not table.phase.dealt or seat is None:
                raise UserError(msg("You're not sitting at this table."))
            name = await self._hand_over(table, seat, "left")
            # One line in the group says it, for everyone (the /leave is answered by it), and
            # what leaving costs (README, Ratings: a leaver is rated last).
            return msg(
                "🚪 {name} left; a computer player takes the seat. Unless they /rejoin, "
                "their rating counts them last in this game.",
                name=Name(name),
            )

        return await self.registry.send(game_id, job)

    async def leave_any(self, person: Person) -> Msg:
        """``/leave`` in a DM: out of the table the person sits at, or waits to sit at,
        wherever it is (a lobby in a group they cannot reach any more too)."""
        table = self.registry.of_user(person.id) or self.registry.waited_by(person.id)
        if table is None:
            raise UserError(msg("You're not sitting at any table."))
        said = await self.leave(table.id, person)
        if not table.phase.dealt:
            return said
        self.screens.announce(table, said)  # the group hears it, as from a /leave there
        # The DM is told in the second person (it was the group's third-person line).
        return msg(
            "🚪 You left {chat}; a computer player takes your seat. Unless you /rejoin, "
            "your rating counts you last in this game.",
            chat=Name(table.chat_title),
        )

    async def replace_with_computer(self, game_id: int, seat: int) -> None:
        """A seat's person is gone for good (a no-show, a removed player): a computer plays."""

        async def job() -> None:
            table = self.registry.require(game_id)
            await self._hand_over(table, seat)

        await self.registry.send(game_id, job)

    async def _hand_over(self, table: Table, seat: int, why: str = "") -> str:
        """A computer player holds the seat now (if no one did), for the reason `why`
        (`bot.core.commands.AWAY_WHY`); the person's name is returned."""
        await self.runner.run(table, TakeOver(seat, why=why))
        return table.name(seat)

    async def rejoin(self, person: Person) -> Msg:
        table = self.registry.of_user(person.id)
        if table is None or not table.phase.dealt:
            raise UserError(msg("You're not away from any game."))

        async def job() -> Msg:
            seat = table.seat_of(person.id)
            assert seat is not None
            s = table.seats[seat]
            assert s is not None
            back = msg("👋 {name} is back.", name=Name(s.name))
            await self.runner.run(table, Rejoin(seat, back))
            return msg("Welcome back! Your seat is yours again.")

        return await self.registry.send(table.id, job)

    async def chat_gone(self, chat_id: int) -> None:
        """The chat removed or blocked the bot (the outbox already writes nothing to it).

        A person who blocked the bot leaves their lobby, or a computer player holds their
        seat in a game (``/rejoin`` after unblocking takes it back). A group that removed
        the bot ends its tables.
        """
        if chat_id < 0:
            await self.closer.group_gone(chat_id)
            return
        await self.people.set_dm_open(chat_id, False)
        table = self.registry.of_user(chat_id)
        if table is None:
            return

        async def job() -> None:
            seat = table.seat_of(chat_id)
            if seat is None or not table.phase.live:
                return
            s = table.seats[seat]
            assert s is not None
            if table.phase is Phase.LOBBY:
                await self.lobby.change(table, Stand(chat_id))
                return
            said = msg(
                "🚫 {name} blocked me; a computer player takes the seat until they "
                "unblock me and send /rejoin.",
                name=Name(s.name),
            )
            await self.runner.run(table, TakeOver(seat, said, "blocked"))

        await self.registry.send(table.id, job)

    def chat_back(self, chat_id: int) -> None:
        """The bot was added back to a group, or unblocked: it may write there again."""
        self.chats.resume(chat_id)
