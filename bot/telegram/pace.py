"""Telegram's limits, kept: the bot's overall pace (`Pacer`) and each chat's (`ChatPace`).

Telegram allows about 30 requests a second overall and, per chat, about one message a
second (20 a minute in a group). The outbox asks both for a turn before each request.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections.abc import Hashable
from typing import Any

ACTING, PLAYED, URGENT, POST, MOVED, DELETE, EDIT, GROUP_EDIT, IDLE = range(9)
"""Priorities in the overall pace, most urgent first.

ACTING: the screen of whoever must act now (their turn, a new deal): the person the game
waits for, who must see it at once (issue 35, item 4: when the bot has more to write than
Telegram takes, the next player's screen goes first; at 100 tables on one account the
movers' screens and the next players' are more than 25 writes a second).
PLAYED: the screen of whoever just played a card (or passed, or chose the moon option):
the one person certainly looking at it, who must see their move taken, or they tap again;
their toast has already said "Played Q♠", so it goes second, and while it waits a newer
state of the same screen (their next turn) replaces it.
URGENT: what a person is waiting for now: a reply to what someone just did (`send`).
POST: messages nobody waits for: announcements, results, a "your turn" message (`post`).
MOVED: the screen of whoever pressed there (their toast already said what happened).
DELETE. EDIT: everyone else's screens. GROUP_EDIT: the groups' table messages, whose
readers watch rather than play. IDLE: what goes only when nothing else waits (the tables
no longer write a DM that only another player's card mid-trick changed:
`bot.screens.screens.Screens.show_all`).
"""

URGENT_BURST = 2
"""How many intervals ahead of its pace a chat may take a reply someone waits for: three
answers to three commands go out at once, then the chat's pace holds."""


class Pacer:
    """Hands out turns at a steady rate, the most urgent waiting request first.

    Telegram allows about 30 requests a second overall; a 429 makes python-telegram-bot's
    rate limiter hold back every request of the bot (answers to presses too), so the bot
    paces itself below that, and decides what goes first when there is more to say than
    time to say it: the lowest priority number (see `URGENT` and the others above), and
    among equals the first to ask. Waiting edits coalesce, so those at the back show the
    latest state when their turn comes.
    """

    def __init__(self, per_second: float) -> None:
        self.gap = 1.0 / per_second
        self._next = 0.0
        self._waiting: list[list[Any]] = []
        """A heap of ``[priority, arrival, future]``; a promoted entry's future is None."""
        self._by_key: dict[Hashable, list[Any]] = {}
        self._count = itertools.count()
        self._runner: asyncio.Task[None] | None = None

    async def turn(self, priority: int, key: Hashable | None = None) -> None:
        """Wait for a turn. With a `key`, `promote` can move the wait up while it lasts."""
        now = time.monotonic()
        if not self._waiting and self._next <= now:
            self._next = now + self.gap
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        entry: list[Any] = [priority, next(self._count), future]
        heapq.heappush(self._waiting, entry)
        if key is not None:
            self._by_key[key] = entry
        if self._runner is None or self._runner.done():
            self._runner = asyncio.create_task(self._run())
        try:
            await future
        finally:
            latest = self._by_key.get(key) if key is not None else None
            if latest is not None and latest[2] is future:
                del self._by_key[key]

    def waiting_by_priority(self) -> dict[int, int]:
        """How many turns are waited for, by priority (`bot.metrics`)."""
        counts: dict[int, int] = {}
        for priority, _, future in self._waiting:
            if future is not None and not future.done():
                counts[priority] = counts.get(priority, 0) + 1
        return counts

    def waiting_keys(self) -> int:
        """How many keyed waits are held (memory tests)."""
        return len(self._by_key)

    def promote(self, key: Hashable, priority: int) -> None:
        """Move the turn waited for under `key` up to `priority` (if it waits lower)."""
        entry = self._by_key.get(key)
        if entry is None or entry[0] <= priority or entry[2].done():
            return
        moved = [priority, next(self._count), entry[2]]
        entry[2] = None  # the old place in the heap is skipped when it comes up
        heapq.heappush(self._waiting, moved)
        self._by_key[key] = moved

    async def _run(self) -> None:
        while self._waiting:
            wait = self._next - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            future = heapq.heappop(self._waiting)[2]
            if future is None or future.done():
                continue  # promoted, or its waiter gave up: the turn goes to the next
            self._next = max(time.monotonic(), self._next) + self.gap
            future.set_result(None)


class ChatPace:
    """When each chat may next get a message or an edit (a group every `group_interval`
    seconds, a DM every `dm_interval`), and how many new messages wait for their turn.

    A chat's pace is dropped once it has cooled down (a missing pace means "now")."""

    def __init__(self, group_interval: float, dm_interval: float) -> None:
        self.group_interval = group_interval
        self.dm_interval = dm_interval
        self._next_time: dict[int, float] = {}
        """When each chat may next get a message or an edit; dropped once it has passed."""
        self._counted_since_sweep = 0
        self._sends_waiting: dict[int, int] = {}

    def interval(self, chat_id: int) -> float:
        return self.group_interval if chat_id < 0 else self.dm_interval

    def wait(self, chat_id: int, ahead: float = 0.0) -> float:
        """Seconds until the chat's next turn (taken `ahead` seconds early); <= 0: now."""
        return self._next_time.get(chat_id, 0.0) - ahead - time.monotonic()

    def sends_waiting(self, chat_id: int) -> bool:
        """Whether a new message waits for this chat's turn (its edits hold back)."""
        return bool(self._sends_waiting.get(chat_id))

    async def turn(self, chat_id: int, priority: int = POST) -> None:
        """Wait until the chat may get another message, and take that turn.

        While a message waits, the chat's edits hold back: in a group, hand results and
        announcements must not queue behind table edits that the next edit replaces. A
        reply someone waits for (URGENT) may run up to `URGENT_BURST` intervals ahead of
        the chat's pace, so a few commands in a row are answered at once; what follows
        (edits included) waits until the pace has caught up.
        """
        ahead = URGENT_BURST * self.interval(chat_id) if priority == URGENT else 0.0
        self._sends_waiting[chat_id] = self._sends_waiting.get(chat_id, 0) + 1
        try:
            while (wait := self.wait(chat_id, ahead)) > 0:
                await asyncio.sleep(wait)
            self.count(chat_id)
        finally:
            self._sends_waiting[chat_id] -= 1
            if not self._sends_waiting[chat_id]:
                del self._sends_waiting[chat_id]

    def count(self, chat_id: int) -> None:
        """A message or an edit goes to the chat now: its next one waits an interval."""
        now = time.monotonic()
        since = max(now, self._next_time.get(chat_id, 0.0))
        self._next_time[chat_id] = since + self.interval(chat_id)
        self._counted_since_sweep += 1
        if self._counted_since_sweep > len(self._next_time):
            self.forget_cooled()

    def forget_cooled(self) -> None:
        """Drop the pace of every chat that has cooled down.

        Swept after as many paced requests as there are chats, so the dictionary holds
        at most the chats paced recently, at a constant cost per request."""
        now = time.monotonic()
        self._counted_since_sweep = 0
        for chat_id in [c for c, when in self._next_time.items() if when <= now]:
            del self._next_time[chat_id]

    def drop(self, chat_id: int) -> None:
        self._next_time.pop(chat_id, None)

    def sizes(self) -> dict[str, int]:
        self.forget_cooled()
        return {"next_time": len(self._next_time), "sends_waiting": len(self._sends_waiting)}
