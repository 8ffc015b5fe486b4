"""Mailboxes (Lichess's `RoundAsyncActor`): the jobs sent to one table (from the chat, the
page, the timers and the computers), or to one tournament, run one at a time in the order
they came.

A job runs in its sender's task, once its turn comes: what the sender carries (the update
it answers, a timer's own name, its log fields) stays with the job, a job's exception
reaches its sender, and a sender cancelled while its job runs cancels the job there, as
an `await` does. A sender cancelled before its turn drops its job; the mailbox goes on.
"""

from __future__ import annotations

import asyncio
import functools
from collections import deque
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")

Job = Callable[[], Awaitable[T]]
"""What a sender asks of a table: run when its turn comes, its result the answer."""


class Mailbox:
    """The queue of one table's jobs; `ask` runs a job in its turn and returns its result."""

    def __init__(self, on_empty: Callable[[], object] | None = None) -> None:
        self._on_empty = on_empty
        """Called each time the last job ends (the registry then drops the mailbox)."""
        self._holder: asyncio.Task[object] | None = None
        """The task whose job runs now (None when the mailbox is idle)."""
        self._waiting: deque[tuple[asyncio.Task[object], asyncio.Future[None]]] = deque()

    def __len__(self) -> int:
        """The jobs queued or running (0 when idle)."""
        return len(self._waiting) + (self._holder is not None)

    @property
    def busy(self) -> bool:
        return self._holder is not None

    async def ask(self, job: Job[T]) -> T:
        """Run `job` when every job sent before it has ended, and return what it returns
        (or raise what it raises).

        A job that sends to its own table again runs that at once, inside itself: waiting
        for its own end would never end."""
        task = asyncio.current_task()
        assert task is not None, "a mailbox is asked from a task"
        if task is self._holder:
            return await job()
        await self._turn(task)
        try:
            return await job()
        finally:
            self._pass()

    async def _turn(self, task: asyncio.Task[object]) -> None:
        """Wait until the mailbox is this task's."""
        if self._holder is None and not self._waiting:
            self._holder = task
            return
        turn = asyncio.get_running_loop().create_future()
        self._waiting.append((task, turn))
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self._pass()  # handed the turn as it was cancelled: hand it on
            elif (task, turn) in self._waiting:
                self._waiting.remove((task, turn))
            raise

    def _pass(self) -> None:
        """The job that ran has ended: the next one's turn, or the mailbox is idle."""
        while self._waiting:
            task, turn = self._waiting.popleft()
            if not turn.done():
                self._holder = task
                turn.set_result(None)
                return
        self._holder = None
        if self._on_empty is not None:
            self._on_empty()


class Mailboxes:
    """A mailbox for each table (or tournament) while a job runs or waits in it: nothing
    is kept once its last job ends (a forged id costs nothing after its press is answered,
    a forgotten table's mailbox ends with its last job)."""

    def __init__(self) -> None:
        self._by_id: dict[int, Mailbox] = {}

    def __len__(self) -> int:
        return len(self._by_id)

    async def send(self, key: int, job: Job[T]) -> T:
        """Run `job` in `key`'s mailbox, after the jobs sent to it before, and return what
        it returns (or raise what it raises)."""
        mailbox = self._by_id.get(key)
        if mailbox is None:
            # Dropped when idle. A dropped mailbox is never asked again (`ask` is reached
            # from here without a pause), so the one dropped is always this one.
            drop = functools.partial(self._by_id.pop, key, None)
            mailbox = self._by_id[key] = Mailbox(drop)
        return await mailbox.ask(job)
