"""The live tables: looked up by id, chat, person and link; their mailboxes and move
counters; their state kept in step with storage."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterator, Mapping
from typing import TypeVar

from bot.basics import UserError
from bot.core.phases import Phase
from bot.i18n import msg
from bot.mailbox import Job, Mailbox, Mailboxes
from bot.tables.model import Table
from bot.timers import Background
from storage import Journal

log = logging.getLogger(__name__)

T = TypeVar("T")


class SavedSoon:
    """A part of each live table's state stored within a second of a change, at most once
    a second per table: not worth a transaction per tap (under load those writes would
    queue up behind the moves). The registry's ``meta`` and the screens' own state
    (`bot.screens.kept`) each have one."""

    def __init__(
        self,
        save: Callable[[Table], Awaitable[None]],
        current: Callable[[int], Table | None],
        background: Background,
        what: str,
    ) -> None:
        """`save`: stores the part now; `current`: the live table of a game id (None once
        it is forgotten); `what`: the part, as logged when storing it fails."""
        self._save = save
        self._current = current
        self._background = background
        self._what = what
        self._unsaved: set[int] = set()
        """The tables with a store on its way."""

    def ask(self, table: Table) -> None:
        """Store the part of `table` within a second (once, however often asked meanwhile);
        a table not stored yet (no id) or ended by then is not."""
        if table.id in self._unsaved or not table.id:
            return
        self._unsaved.add(table.id)

        async def save() -> None:
            await asyncio.sleep(1.0)
            self._unsaved.discard(table.id)
            if table.phase.live:
                try:
                    await self._save(table)
                except Exception:
                    log.exception("could not store the %s of game %s", self._what, table.id)

        self._background.spawn(save())

    async def flush(self) -> None:
        """Store what `ask` has not stored yet (at shutdown)."""
        for game_id in list(self._unsaved):
            table = self._current(game_id)
            if table is not None and table.phase.live:
                await self._save(table)
        self._unsaved.clear()

    def __len__(self) -> int:
        return len(self._unsaved)


class TableRegistry:
    """Every lobby and game in play, indexed; a table is here from its lobby (or, for a
    tournament, its deal) until it ends."""

    def __init__(self, games: Journal, background: Background) -> None:
        self.games = games
        self._tables: dict[int, Table] = {}
        self._by_token: dict[str, int] = {}
        """Lobbies by their link token."""
        self._by_chat: dict[tuple[int, int | None], int] = {}
        """The group's own table (not a tournament's) by chat and topic."""
        self._in_chat: dict[int, set[int]] = {}
        """Every live table of a chat (its own and a tournament's)."""
        self._by_user: dict[int, int] = {}
        """The table each person sits at (kept by `reseat`)."""
        self._users_at: dict[int, set[int]] = {}
        self._versions: dict[int, int] = {}
        self._mailboxes = Mailboxes()
        self.seating = Mailbox()
        """Decides one at a time whether a chat may open a table or a person may sit down,
        so two at once keep the rules one at a time keeps (one table a chat, one seat a
        person). Asked from inside a table's job, never the other way round."""
        self._soon = SavedSoon(self.save, self._tables.get, background, "state")
        """The tables' ``meta`` stored soon (`save_soon`)."""

    @property
    def tables(self) -> Mapping[int, Table]:
        return self._tables

    def __iter__(self) -> Iterator[Table]:
        return iter(list(self._tables.values()))

    def __len__(self) -> int:
        return len(self._tables)

    async def send(self, game_id: int, job: Job[T]) -> T:
        """Run `job` in table `game_id`'s mailbox, after the jobs sent to it before, and
        return its result. The job looks the table up itself: it may have ended meanwhile."""
        return await self._mailboxes.send(game_id, job)

    # ------------------------------------------------------------------ looking up

    def get(self, game_id: int) -> Table | None:
        return self._tables.get(game_id)

    def require(self, game_id: int) -> Table:
        """The live table a button names; a stale or forged id is turned down."""
        table = self._tables.get(game_id)
        if table is None:
            raise UserError(msg("That button isn't valid any more."))
        return table

    def lobby(self, game_id: int) -> Table:
        """The lobby a button names; a game already started is turned down."""
        table = self.require(game_id)
        if table.phase is not Phase.LOBBY:
            raise UserError(msg("A game is already in progress here."))
        return table

    def in_chat(self, chat_id: int, thread_id: int | None) -> Table | None:
        """The group's (or topic's) own table while it is open or playing."""
        table = self._tables.get(self._by_chat.get((chat_id, thread_id), 0))
        return table if table is not None and table.phase.live else None

    def of_user(self, user_id: int) -> Table | None:
        """The table a person sits at while it is open or playing."""
        table = self._tables.get(self._by_user.get(user_id, 0))
        if table is None or not table.phase.live:
            return None
        return table if table.seat_of(user_id) is not None else None

    def waited_by(self, user_id: int) -> Table | None:
        """The lobby a person waits to sit at (they pressed Join before opening their DM)."""
        return next(
            (t for t in self._tables.values() if t.phase is Phase.LOBBY and user_id in t.pending),
            None,
        )

    def by_token(self, token: str) -> Table | None:
        return self._tables.get(self._by_token.get(token, 0))

    def of_chat(self, chat_id: int) -> list[Table]:
        """Every live table of a group (its own and a tournament's), oldest first."""
        return [
            self._tables[i] for i in sorted(self._in_chat.get(chat_id, ())) if i in self._tables
        ]

    def showing_in(self, chat_id: int) -> list[Table]:
        """The tables whose messages may be in a chat: a group's, or a person's own."""
        ids = set(self._in_chat.get(chat_id, ()))
        if chat_id in self._by_user:
            ids.add(self._by_user[chat_id])
        return [self._tables[i] for i in ids if i in self._tables]

    # ------------------------------------------------------------------ keeping

    def add(self, table: Table, version: int) -> None:
        """Keep a live table, stored at move `version`, and index it."""
        self._tables[table.id] = table
        self._versions[table.id] = version
        if table.join_token:
            self._by_token[table.join_token] = table.id
        if table.in_group:
            self._by_chat[(table.chat_id, table.thread_id)] = table.id
        self._in_chat.setdefault(table.chat_id, set()).add(table.id)
        self.reseat(table)

    def forget(self, table: Table) -> None:
        """Drop a table that ended (finished, cancelled, expired), and all kept for it."""
        self._tables.pop(table.id, None)
        self._by_token.pop(table.join_token, None)
        if self._by_chat.get((table.chat_id, table.thread_id)) == table.id:
            del self._by_chat[(table.chat_id, table.thread_id)]
        in_chat = self._in_chat.get(table.chat_id)
        if in_chat is not None:
            in_chat.discard(table.id)
            if not in_chat:
                del self._in_chat[table.chat_id]
        for user_id in self._users_at.pop(table.id, set()):
            if self._by_user.get(user_id) == table.id:
                del self._by_user[user_id]
        self._versions.pop(table.id, None)

    def reseat(self, table: Table) -> None:
        """Index who sits at ``table`` now (after its seats changed)."""
        now = {s.user_id for s in table.seats if s is not None and s.user_id is not None}
        if table.daily is not None:
            now = set()  # a daily game keeps nobody from a group's table, nor /leave finds it
        for user_id in self._users_at.get(table.id, set()) - now:
            if self._by_user.get(user_id) == table.id:
                del self._by_user[user_id]
        for user_id in now:
            self._by_user[user_id] = table.id
        self._users_at[table.id] = now

    def version(self, game_id: int) -> int:
        """The sequence number of a table's last stored move (timers armed before it are
        stale)."""
        return self._versions.get(game_id, 0)

    def moved(self, game_id: int, version: int) -> None:
        self._versions[game_id] = version

    # ------------------------------------------------------------------ storing

    async def save(self, table: Table) -> None:
        """Store a table's own state now (its ``meta``: seats' state, who waits to sit, the
        turn's deadline, the hints counted); its screens store theirs (`bot.screens.kept`)."""
        await self.games.set_meta(table.id, table.stored_meta())

    def save_soon(self, table: Table) -> None:
        """Store a table's own state within a second (the turn's deadline once a reminder
        went, a hint's count storage refused): the next move stores it anyway."""
        self._soon.ask(table)

    async def flush(self) -> None:
        """Store what `save_soon` has not stored yet (at shutdown)."""
        await self._soon.flush()

    def kept_sizes(self) -> dict[str, int]:
        """How much is held per table, chat or person (memory tests)."""
        return {
            "tables": len(self._tables),
            "mailboxes": len(self._mailboxes),
            "seq": len(self._versions),
            "by_token": len(self._by_token),
            "by_chat": len(self._by_chat),
            "in_chat": len(self._in_chat),
            "by_user": len(self._by_user),
            "users_at": len(self._users_at),
            "meta_dirty": len(self._soon),
        }
