"""The numbered states of the table page (`bot.live.hub`): each change of what a page shows
is one more `change`; a page that keeps up sees them one by one, a page that fell behind
sees a jump (and the page then asks for the full state, which comes marked `full`), and
numbers are kept only while a page shows the table."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from test_live_view import table_for

from bot.i18n import translator
from bot.live.hub import LiveHub, Page
from bot.tables.model import Table
from engine import Game, Rules


class Socket:
    """A page's connection that keeps what it is sent; `hold` keeps a send waiting (a
    phone's slow network) until released."""

    def __init__(self) -> None:
        self.closed = False
        self.sent: list[dict[str, Any]] = []
        self.hold: asyncio.Event | None = None

    async def send_str(self, data: str) -> None:
        if self.hold is not None:
            await self.hold.wait()
        self.sent.append(json.loads(data))

    async def close(self, *, code: int = 1000, message: bytes = b"") -> bool:
        self.closed = True
        return True

    def changes(self) -> list[tuple[int, bool]]:
        return [(s["change"], s.get("full", False)) for s in self.sent]


def follows(last: dict[str, Any] | None, said: dict[str, Any]) -> bool:
    """The page's rule (`table.js`, `received`): draw a state that is full or comes next."""
    if said.get("full"):
        return True
    return last is not None and said["change"] == last["change"] + 1


async def settle() -> None:
    for _ in range(10):
        await asyncio.sleep(0)


def setup() -> tuple[LiveHub, Table]:
    rules = Rules()
    return LiveHub(lambda game_id: 1), table_for(rules, Game(rules, seed=3))


def open_page(hub: LiveHub, table: Table, seat: int, user_id: int) -> tuple[Page, Socket]:
    socket = Socket()
    page = Page(socket, user_id, table, seat, translator("en"), watching=seat < 0)
    hub.add(page)
    hub.push(page, full=True)  # as the server does after its hello
    return page, socket


async def test_a_page_that_keeps_up_sees_each_change_one_after_the_other() -> None:
    hub, table = setup()
    _, socket = open_page(hub, table, 0, 100)
    await settle()
    for _ in range(3):
        hub.changed(table, 0)
        await settle()
    hub.changed(table, 1)  # another seat's screen: not what this page shows
    await settle()
    # Changes made together (one move changes every seat) are one change.
    await hub.on_move(table, [])
    await settle()
    assert socket.changes() == [(0, True), (1, False), (2, False), (3, False), (4, False)]
    assert all(follows(a, b) for a, b in zip(socket.sent, socket.sent[1:], strict=False))


async def test_a_page_that_fell_behind_sees_a_jump_and_its_ask_is_answered_in_full() -> None:
    hub, table = setup()
    fast, fast_socket = open_page(hub, table, 0, 100)
    slow, slow_socket = open_page(hub, table, 0, 100)  # the same person's second page
    await settle()
    slow_socket.hold = asyncio.Event()
    hub.changed(table, 0)
    await settle()  # the slow page's state 1 is on its way, held
    for _ in range(2):
        hub.changed(table, 0)
        await settle()
    slow_socket.hold.set()
    await settle()
    assert fast_socket.changes() == [(0, True), (1, False), (2, False), (3, False)]
    assert slow_socket.changes() == [(0, True), (1, False), (3, False)]
    last, jumped = slow_socket.sent[-2:]
    assert not follows(last, jumped)
    hub.push(slow, full=True)  # the page asks: {"t": "state"}
    await settle()
    assert slow_socket.changes()[-1] == (3, True)
    assert follows(jumped, slow_socket.sent[-1])
    assert fast.dirty is False and fast_socket.changes()[-1] == (3, False)


async def test_watchers_share_one_numbering_and_a_slow_one_sees_the_jump() -> None:
    hub, table = setup()
    _, keeps_up = open_page(hub, table, -1, 200)
    _, behind = open_page(hub, table, -1, 201)
    _, player = open_page(hub, table, 0, 100)
    await settle()
    # Two watchers came: each count is a change of what the watchers see (they show it).
    assert keeps_up.changes() == behind.changes() == [(2, True)]
    behind.hold = asyncio.Event()
    for _ in range(3):
        await hub.on_move(table, [])
        await settle()
    behind.hold.set()
    await settle()
    # The slow one's 3 was on its way while 4 and 5 were made: it is sent 5, the newest.
    assert keeps_up.changes()[1:] == [(3, False), (4, False), (5, False)]
    assert behind.changes()[1:] == [(3, False), (5, False)]
    assert not follows(behind.sent[-2], behind.sent[-1])
    assert player.changes() == [(0, True), (1, False), (2, False), (3, False)]


async def test_numbers_are_dropped_with_the_last_page_of_a_view() -> None:
    hub, table = setup()
    page, _ = open_page(hub, table, 0, 100)
    watcher, _ = open_page(hub, table, -1, 200)
    await settle()
    hub.changed(table, 0)
    await settle()
    assert hub._changes
    hub.remove(page)
    hub.remove(watcher)
    assert hub._changes == {}
    hub.changed(table, 0)  # nobody shows it: nothing kept
    assert hub._changes == {}
