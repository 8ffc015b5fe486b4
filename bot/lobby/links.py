"""``/start`` in a private chat: the person can get DMs now, and a deep link seats them
at a table (``j<token>``) or goes to whoever registered its letter (tournaments: ``e``)."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable

from bot.basics import Person, parse_id
from bot.chats import Chats
from bot.core.phases import Phase
from bot.i18n import Msg, msg
from bot.lobby.lobby import Lobby
from bot.screens.parts import Name
from bot.screens.screens import Screens
from bot.tables.model import Table
from bot.tables.registry import TableRegistry
from storage import People

JOIN_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,32}")
"""What a table's link token looks like (`secrets.token_urlsafe`, or the migration's hex)."""
LinkHandler = Callable[[Person, int], Awaitable[Msg]]
"""Handles a ``/start <letter><id>`` deep link for another room (``e<id>``: tournaments)."""


class DirectChats:
    def __init__(
        self,
        registry: TableRegistry,
        screens: Screens,
        lobby: Lobby,
        people: People,
        chats: Chats,
    ) -> None:
        self.registry = registry
        self.chats = chats
        self.people = people
        self.screens = screens
        self.lobby = lobby
        self._links: dict[str, LinkHandler] = {}

    def on_link(self, letter: str, handler: LinkHandler) -> None:
        """Send ``/start <letter><id>`` links to `handler`."""
        self._links[letter] = handler

    async def open_dm(self, person: Person, payload: str) -> Msg:
        """``/start`` in private: the person can now get DMs; a deep link seats them."""
        await self.people.upsert_user(person.id, person.name, person.username)
        await self.people.set_dm_open(person.id, True)
        self.chats.resume(person.id)  # a person who writes has not blocked us
        handler = self._links.get(payload[:1])
        if handler is not None:
            target = parse_id(payload[1:])
            if target is None:
                return msg("That link isn't one of mine: ask for a new one in the group.")
            return await handler(person, target)
        if payload.startswith("j"):
            if not JOIN_TOKEN.fullmatch(payload[1:]):
                return msg("That link isn't one of mine: ask for a new one in the group.")
            table = self.registry.by_token(payload[1:])
            if table is not None and table.phase is Phase.LOBBY:
                return await self.lobby.join_from_link(table, person)
            playing = self.registry.of_user(person.id)
            if playing is not None and playing.phase is Phase.DEALT:
                return await self._send_again(playing, person)
            return msg("That table isn't open any more.")
        playing = self.registry.of_user(person.id)
        if playing is not None and playing.phase is Phase.DEALT:
            return await self._send_again(playing, person)
        return msg(
            "Hi {name}! I run games of ♥ Hearts in groups. Add me to a group and "
            "send /newgame there. Your cards will come to this chat.",
            name=Name(person.name),
        )

    async def _send_again(self, table: Table, person: Person) -> Msg:
        """Someone at a game who came to the DM again: their screen, at the bottom."""

        async def send_again() -> None:
            seat = table.seat_of(person.id)
            if seat is not None:
                await self.screens.send_dm_again(table, seat)
                await self.screens.kept.save(table)

        await self.registry.send(table.id, send_again)
        return msg(
            "You're seated at the table in {chat}. Your cards will come here when the game starts.",
            chat=Name(table.chat_title),
        )
