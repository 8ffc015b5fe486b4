"""What tournaments may do with tables, and nothing more: deal a table with given seats,
rules and deals; let a computer player take a seat; cancel; look a live table up; hear of
every move; answer their own ``/start`` links."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from bot.basics import Person
from bot.core.commands import Stand
from bot.core.effects import TellTournament
from bot.core.phases import Phase
from bot.lobby.links import DirectChats, LinkHandler
from bot.lobby.lobby import Lobby
from bot.tables.closing import Closer
from bot.tables.model import Seat, Table, TableOptions
from bot.tables.play import Moves
from bot.tables.presence import Presence
from bot.tables.registry import TableRegistry
from bot.tables.seating import Seated, seated
from domain.people import ChatSettings
from engine import Event, Game, Rules
from storage import Journal, SeatTaken

Listener = Callable[[Table, list[Event]], Awaitable[None]]
"""Told of every move of a tournament's table (after it is stored and shown), and of its
deal."""


class TableDesk:
    def __init__(
        self,
        registry: TableRegistry,
        moves: Moves,
        lobby: Lobby,
        presence: Presence,
        closer: Closer,
        links: DirectChats,
        games: Journal,
    ) -> None:
        self._registry = registry
        self._games = games
        self._moves = moves
        self._lobby = lobby
        self._presence = presence
        self._closer = closer
        self._links = links
        self._listeners: list[Listener] = []

    async def start_table(
        self,
        *,
        tournament_id: int,
        chat_id: int,
        thread_id: int | None,
        chat_title: str,
        organiser: Person,
        rules: Rules,
        options: TableOptions,
        seats: list[Seat],
        seed: int,
        deals: list[list[list[str]]] | None = None,
    ) -> Table:
        """Seat a tournament's table and deal: its players get their DMs at once."""
        table = Table(
            id=0,
            chat_id=chat_id,
            thread_id=thread_id,
            chat_title=chat_title,
            creator_id=organiser.id,
            creator_name=organiser.name,
            rules=rules,
            options=options,
            seats=list(seats),
            tournament_id=tournament_id,
        )
        table.id = await self._games.create_lobby(
            chat_id,
            thread_id,
            organiser.id,
            rules,
            table.stored_seats(),
            table.stored_meta(),
            tournament_id=tournament_id,
        )
        self._registry.add(table, 0)
        game = Game(rules, seed=seed, deals=deals)
        await self._registry.send(table.id, lambda: self._moves.begin(table, game))
        return table

    async def free_for_event(self, user_id: int) -> tuple[str | None, Seated | None]:
        """Make a person free to sit at an event's table (one live seat each): out of this
        account's open lobby (its chat's title is returned first, to tell them); a table
        in play, another account's or their daily deal keeps them (returned second: the
        event seats a computer player for them)."""
        stored = await self._games.active_game_for_user(user_id)
        if stored is None:
            return None, None
        table = self._registry.get(stored.id)
        if table is not None and table.phase is Phase.LOBBY:
            lobby = table

            async def stand() -> bool:
                if lobby.phase is Phase.LOBBY and lobby.seat_of(user_id) is not None:
                    await self._lobby.change(lobby, Stand(user_id))
                    return True
                return False

            if await self._registry.send(table.id, stand):
                return table.chat_title, None
        return None, await seated(self._games, SeatTaken(user_id, stored.id))

    def live(self, game_id: int) -> Table | None:
        """A table still in play (None once it finished or was cancelled)."""
        return self._registry.get(game_id)

    async def replace_with_computer(self, game_id: int, seat: int) -> None:
        await self._presence.replace_with_computer(game_id, seat)

    async def cancel(self, game_id: int, organiser: Person) -> None:
        await self._closer.cancel_game(game_id, organiser)

    def subscribe(self, listener: Listener) -> None:
        """Hear of every move of every tournament's table (after it is stored and shown)."""
        self._listeners.append(listener)

    async def told(self, table: Table, effect: TellTournament) -> None:
        """`TellTournament`: a tournament's table moved; its listeners hear of it."""
        for listener in self._listeners:
            await listener(table, list(effect.events))

    def on_link(self, letter: str, handler: LinkHandler) -> None:
        self._links.on_link(letter, handler)

    def turn_timer_of(self, settings: ChatSettings) -> int:
        return self._lobby.turn_timer_of(settings)
