"""The open table pages: who has one open at which seat, and each change pushed to them.

A change is rendered once per page when the event loop next turns (several changes made
by one move become one message), and a page whose connection is slow gets only the newest
state when its last one has gone: no queue grows behind a sleeping phone.

Each state carries `change`, a number that grows by one with each change of what the
page shows (Lichess's event versions): a page that sees it jump (a slow page of a seat
whose other page kept up, a slow watcher) asks for the full state (`"t": "state"`) rather
than draw a table from a state it never saw; that answer, and the first after the hello,
say `full`.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from bot.i18n import Tr
from bot.live import view
from bot.live.watchers import watcher_state, watcher_view
from bot.tables.model import Table
from engine import Event

log = logging.getLogger(__name__)

MAX_PAGES_PER_PERSON = 3
"""Pages one person may have open at once (a phone, a desktop, one more); a further one
closes their oldest."""
MAX_WATCHING_PER_ADDRESS = 16
"""Watchers' pages open at once from one address (a family behind one router, a school);
a further one is refused."""


class Socket(Protocol):
    """What the hub needs of a page's connection (aiohttp's `WebSocketResponse`)."""

    @property
    def closed(self) -> bool: ...

    async def send_str(self, data: str) -> None: ...

    async def close(self, *, code: int = ..., message: bytes = ...) -> bool: ...


@dataclass(eq=False)
class Page:
    """One open table page: a person's connection, showing their seat at a table, or
    (`watching`) the table as a watcher sees it (`bot.live.watchers`; `seat` is -1)."""

    socket: Socket
    user_id: int
    table: Table
    seat: int
    tr: Tr
    dirty: bool = False
    sending: bool = False
    watching: bool = False
    address: str = ""
    full: bool = False
    """The next state sent is the full state the page asked for (or its first)."""

    @property
    def view(self) -> tuple[int, int]:
        """What the page shows: a seat of a table, or (-1) the watchers' view of it."""
        return (self.table.id, self.seat)


class LiveHub:
    """Every open page, by person and by seat; pushes each change to the pages it shows."""

    def __init__(
        self,
        version: Callable[[int], int],
        on_last_closed: Callable[[Table, int], None] | None = None,
    ) -> None:
        """`version`: a game's stored version (`TableRegistry.version`), sent with each
        state so a page can tell a newer one from an older; `on_last_closed`: called when a
        seat's last page closes (its DM is brought up to date)."""
        self._version = version
        self._by_seat: dict[tuple[int, int], list[Page]] = {}
        self._by_person: dict[int, list[Page]] = {}
        self._watching: dict[int, list[Page]] = {}
        """The watchers' pages, by game."""
        self._frames: dict[tuple[int, str, int, int], str] = {}
        """The watchers' frames made in this turn of the loop, by game, language, change and
        count: every watcher of a table in one language is sent the same text, made once."""
        self._changes: dict[tuple[int, int], int] = {}
        """The `change` number of each view of a table (`Page.view`) while a page shows it."""
        self._tasks: set[asyncio.Task[None]] = set()
        self.on_last_closed = on_last_closed

    # ------------------------------------------------------------------ pages

    def add(self, page: Page) -> Page | None:
        """Keep `page`; returns the person's oldest page if they now have too many (the
        caller closes it)."""
        if page.watching:
            before = self.watchers(page.table.id)
            self._watching.setdefault(page.table.id, []).append(page)
            if self.watchers(page.table.id) != before:
                self._count_changed(page.table)
        else:
            self._by_seat.setdefault((page.table.id, page.seat), []).append(page)
        mine = self._by_person.setdefault(page.user_id, [])
        mine.append(page)
        return mine[0] if len(mine) > MAX_PAGES_PER_PERSON else None

    def remove(self, page: Page) -> None:
        if page.watching:
            self._stop_watching(page)
            return
        key = (page.table.id, page.seat)
        pages = self._by_seat.get(key, [])
        if page in pages:
            pages.remove(page)
        if not pages:
            self._by_seat.pop(key, None)
            self._changes.pop(key, None)
        mine = self._by_person.get(page.user_id, [])
        if page in mine:
            mine.remove(page)
        if not mine:
            self._by_person.pop(page.user_id, None)
        if not pages and self.on_last_closed is not None:
            self.on_last_closed(page.table, page.seat)

    def _stop_watching(self, page: Page) -> None:
        game_id = page.table.id
        before = self.watchers(game_id)
        pages = self._watching.get(game_id, [])
        if page in pages:
            pages.remove(page)
        if not pages:
            self._watching.pop(game_id, None)
            self._changes.pop(page.view, None)
        mine = self._by_person.get(page.user_id, [])
        if page in mine:
            mine.remove(page)
        if not mine:
            self._by_person.pop(page.user_id, None)
        if self.watchers(game_id) != before:
            self._count_changed(page.table)

    def watchers(self, game_id: int) -> int:
        """How many people (not pages) watch the game now."""
        return len({page.user_id for page in self._watching.get(game_id, ())})

    def watching_from(self, address: str) -> int:
        """Watchers' pages open from one address."""
        return sum(page.address == address for pages in self._watching.values() for page in pages)

    def _count_changed(self, table: Table) -> None:
        """The number of watchers changed: every page of the table shows it (over the
        WebSockets only: the group's message shows it when it is next drawn)."""
        for key, pages in list(self._by_seat.items()):
            if key[0] == table.id:
                self._show(key, pages)
        self._show((table.id, -1), self._watching.get(table.id, []))

    def is_open(self, game_id: int, seat: int) -> bool:
        return bool(self._by_seat.get((game_id, seat)))

    def count(self) -> int:
        return sum(len(p) for p in self._by_person.values())

    def pages_of(self, user_id: int) -> list[Page]:
        return list(self._by_person.get(user_id, []))

    def watching_pages(self) -> list[Page]:
        """Every watcher's page open now (their membership is asked again in a while)."""
        return [page for pages in self._watching.values() for page in pages]

    # ------------------------------------------------------------------ changes

    def changed(self, table: Table, seat: int) -> None:
        """The seat's screen changed: its pages get the new state soon."""
        pages = self._by_seat.get((table.id, seat), [])
        for page in pages:
            page.table = table
        self._show((table.id, seat), pages)
        watchers = self._watching.get(table.id, [])
        if watchers:
            self._frames.clear()  # a frame made before the change is not sent after it
        for page in watchers:
            page.table = table
        self._show((table.id, -1), watchers)  # once for all the seats changed together

    def _show(self, view: tuple[int, int], pages: list[Page]) -> None:
        """A change of `view` for its pages: its number grows by one unless every page is
        still to be sent the one before (then that state, when rendered, has this change)."""
        if any(not page.dirty for page in pages):
            self._changes[view] = self._changes.get(view, 0) + 1
        for page in pages:
            self.push(page)

    async def on_move(self, table: Table, events: list[Event]) -> None:
        """A `Moves` listener, last: the turn clock has set the deadline by now."""
        for seat in range(len(table.seats)):
            self.changed(table, seat)

    def push(self, page: Page, *, full: bool = False) -> None:
        """Send `page` the newest state soon (`full`: as the full state it asked for)."""
        page.full = page.full or full
        if page.dirty:
            return  # already on its way: it is rendered when sent
        page.dirty = True
        if not page.sending:
            task = asyncio.get_running_loop().create_task(self._send(page))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    def state(self, page: Page) -> dict[str, Any]:
        version, watchers = self._version(page.table.id), self.watchers(page.table.id)
        if page.watching:
            state = watcher_state(page.tr, watcher_view(page.table), version, watchers)
        else:
            state = view.seat_state(page.tr, page.table, page.seat, version)
            state["watchers"] = watchers
        state["change"] = self._changes.get(page.view, 0)
        if page.full:
            state["full"] = True
        return state

    async def _send(self, page: Page) -> None:
        page.sending = True
        try:
            await asyncio.sleep(0)  # the rest of this move's changes first
            while page.dirty and not page.socket.closed:
                page.dirty = False
                if page.table.game is None:
                    return
                text = self._frame(page) if page.watching and not page.full else self._text(page)
                page.full = False
                await page.socket.send_str(text)
        except (ConnectionError, RuntimeError) as error:
            log.info("a table page of user %s went away: %s", page.user_id, error)
        finally:
            page.sending = False

    def _text(self, page: Page) -> str:
        return json.dumps(self.state(page), ensure_ascii=False)

    def _frame(self, page: Page) -> str:
        """A watcher's frame, shared with the table's other watchers until the loop turns."""
        game_id = page.table.id
        key = (game_id, page.tr.language, self._changes.get(page.view, 0), self.watchers(game_id))
        text = self._frames.get(key)
        if text is None:
            if not self._frames:
                asyncio.get_running_loop().call_soon(self._frames.clear)
            text = self._frames[key] = self._text(page)
        return text

    async def close(self) -> None:
        """Close every page (the bot stops); they reconnect to whoever serves next."""
        for pages in list(self._by_person.values()):
            for page in list(pages):
                await page.socket.close(code=1012, message=b"restarting")
        for task in list(self._tasks):
            task.cancel()
