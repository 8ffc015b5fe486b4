"""Named one-shot timers and background tasks, for the tables' clock and the tournaments'."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from datetime import UTC, datetime, timedelta
from typing import Any

from storage.errors import StorageUnavailable

log = logging.getLogger(__name__)

RETRY_FIRST_S = 0.5
RETRY_MAX_S = 30.0


class Scheduler:
    """Named one-shot timers, each replaced when armed again (`turn:<game>` and so on)."""

    def __init__(self, on_trouble: Callable[[str, bool], Awaitable[None]] | None = None) -> None:
        """`on_trouble`: told ``(name, True)`` when a timer's step met a storage error (it
        is tried again), and ``(name, False)`` when a retried step went through."""
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self.closed = False
        self.on_trouble = on_trouble

    def arm(
        self, name: str, delay: float, action: Callable[[], Awaitable[None]], *, retry: int = 0
    ) -> None:
        """Run `action` after `delay` seconds under `name` (replacing what was armed).

        A step that fails because the database cannot be written is tried again, after
        `RETRY_FIRST_S`, then twice as long each time up to `RETRY_MAX_S`, until it goes
        through; unless something armed the same name meanwhile (the game moved on)."""
        self.cancel(name)
        if self.closed:
            return  # shutting down: what is stored resumes on the next start

        async def run() -> None:
            await asyncio.sleep(max(0.0, delay))
            self._tasks.pop(name, None)
            try:
                await action()
            except StorageUnavailable as error:
                wait = min(RETRY_FIRST_S * 2**retry, RETRY_MAX_S)
                log.warning("timer %s: %s; trying again in %.0f s", name, error, wait)
                await self._tell(name, True)
                if name not in self._tasks:
                    self.arm(name, wait, action, retry=retry + 1)
                return
            except Exception:
                log.exception("timer %s failed", name)
                return
            if retry:
                log.info("timer %s went through after %d retries", name, retry)
                await self._tell(name, False)

        self._tasks[name] = asyncio.create_task(run(), name=name)

    async def _tell(self, name: str, failing: bool) -> None:
        if self.on_trouble is None:
            return
        try:
            await self.on_trouble(name, failing)
        except Exception:
            log.exception("telling about timer %s failed", name)

    def cancel(self, name: str) -> None:
        task = self._tasks.pop(name, None)
        if task is not None and task is not asyncio.current_task():
            task.cancel()

    def cancel_game(self, game_id: int) -> None:
        for name in [n for n in self._tasks if n.endswith(f":{game_id}")]:
            self.cancel(name)

    def __contains__(self, name: object) -> bool:
        return name in self._tasks

    def __len__(self) -> int:
        return len(self._tasks)

    async def close(self) -> None:
        self.closed = True
        for name in list(self._tasks):
            self.cancel(name)


class Background:
    """Tasks nobody awaits (keeping a message's id once it is sent, a delayed save), kept
    referenced until done and cancelled at shutdown."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[None]] = set()

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def cancel_all(self) -> None:
        for task in list(self._tasks):
            task.cancel()


Clock = Callable[[], datetime]
"""What time it is (aware datetimes), for tournaments' reminders and rounds."""


def system_clock() -> datetime:
    return datetime.now(UTC)


class ManualClock:
    """A clock that moves only when told to (tests, the sandbox)."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, delta: timedelta) -> datetime:
        self.now += delta
        return self.now
