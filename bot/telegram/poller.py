"""Long polling that confirms an update to Telegram only once it has been handled.

python-telegram-bot's Updater confirms what it fetched on its next ``getUpdates``, before
the handlers ran: a press or a command in flight when the process is killed was lost for
good, silently. `ConfirmingUpdater` takes its place for polling. It hands each update to
the application itself and asks Telegram for updates from the lowest one still being
handled, so Telegram keeps everything unhandled and delivers it again to the next
process. Updates seen again while they are still being handled (or were handled above one
that is) are skipped.

Telegram's guarantee is at least once: an update handled but not yet confirmed when the
process is killed is delivered again, to the restarted process or to the standby that
takes over. `process` (the application's, through `bot.telegram.once`) makes it once, as
for a webhook: an update already handled is confirmed without being handled again. A stop
by signal confirms everything handled before it ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from telegram import Update
from telegram.error import Forbidden, InvalidToken, TelegramError
from telegram.ext import Updater

log = logging.getLogger(__name__)

Process = Callable[[Update], Awaitable[None]]

MAX_IN_FLIGHT = 512
"""No more updates are asked for while this many are being handled."""
REPOLL_WAIT_S = 0.05
STOP_GRACE_S = 10.0
"""How long a stop waits for updates still being handled before it confirms the rest."""


class ConfirmingUpdater(Updater):
    """An `Updater` whose polling confirms an update only after `process` handled it."""

    def __init__(
        self,
        bot: Any,
        update_queue: asyncio.Queue[object],
        process: Process,
    ) -> None:
        super().__init__(bot=bot, update_queue=update_queue)
        self._process = process
        self._poll_task: asyncio.Task[None] | None = None
        self._in_flight: dict[int, asyncio.Task[None]] = {}
        self._done: set[int] = set()
        """Handled ids above one still in flight (not confirmable yet)."""
        self._next = 0
        """One past the highest id seen (0: none yet)."""

    def confirmable(self) -> int:
        """The offset to send: every update below it has been handled."""
        if self._in_flight:
            return min(self._in_flight)
        return self._next

    async def start_polling(  # type: ignore[override]
        self,
        poll_interval: float = 0.0,
        timeout: int = 10,
        bootstrap_retries: int = 0,
        allowed_updates: Sequence[str] | None = None,
        drop_pending_updates: bool | None = None,
        error_callback: Any = None,
        **_: Any,
    ) -> asyncio.Queue[object]:
        if self.running:
            raise RuntimeError("This Updater is already running!")
        await self._bootstrap(
            max_retries=bootstrap_retries,
            webhook_url="",
            allowed_updates=None,
            drop_pending_updates=drop_pending_updates,
        )
        self._running = True
        self._poll_task = asyncio.create_task(
            self._poll(poll_interval, timeout, allowed_updates), name="poller"
        )
        return self.update_queue

    async def _poll(
        self, poll_interval: float, timeout: int, allowed_updates: Sequence[str] | None
    ) -> None:
        failures = 0
        while self._running:
            if self._in_flight:
                # The lowest update still handled holds the offset: asking before it is done
                # brings back (and parses again) what is already being handled, so give it
                # a moment (a slow one only delays what comes after it by this much).
                lowest = self._in_flight[min(self._in_flight)]
                await asyncio.wait([lowest], timeout=REPOLL_WAIT_S)
            if len(self._in_flight) >= MAX_IN_FLIGHT:
                await asyncio.wait(
                    list(self._in_flight.values()), return_when=asyncio.FIRST_COMPLETED
                )
                continue
            try:
                updates = await self.bot.get_updates(
                    offset=self.confirmable(),
                    timeout=timeout,
                    allowed_updates=allowed_updates,
                )
                failures = 0
            except (InvalidToken, Forbidden):
                log.error("polling stopped: Telegram refused the token")
                self._running = False
                return
            except TelegramError as error:
                failures += 1
                wait = min(2.0**failures / 4, 30.0)
                log.warning("getUpdates failed (%s); trying again in %.1f s", error, wait)
                await asyncio.sleep(wait)
                continue
            fresh = []
            for update in updates:
                # Checked one by one: an id twice in one batch is started once.
                if self._is_new(update.update_id):
                    self._start(update)
                    fresh.append(update)
            if updates and not fresh and self._in_flight:
                # All of them are still being handled: asking again brings the same ones
                # until the lowest is done (it holds the offset), so wait for that.
                await asyncio.wait([self._in_flight[min(self._in_flight)]], timeout=1.0)
            if poll_interval:
                await asyncio.sleep(poll_interval)

    def _is_new(self, update_id: int) -> bool:
        return (
            update_id >= self.confirmable()
            and update_id not in self._in_flight
            and update_id not in self._done
        )

    def _start(self, update: Update) -> None:
        update_id = update.update_id
        self._next = max(self._next, update_id + 1)

        async def handle() -> None:
            try:
                await self._process(update)
            except Exception:
                log.exception("update %s could not be handled", update_id)

        task = asyncio.create_task(handle(), name=f"update:{update_id}")
        self._in_flight[update_id] = task

        def done(_: asyncio.Task[None]) -> None:
            del self._in_flight[update_id]
            floor = self.confirmable()
            if update_id >= floor:
                self._done.add(update_id)
            self._done = {i for i in self._done if i >= floor}

        task.add_done_callback(done)

    def in_flight(self) -> int:
        """How many updates are being handled now."""
        return len(self._in_flight)

    async def stop(self) -> None:
        """Stop asking for updates, let those being handled finish (for a while), and
        confirm to Telegram everything handled."""
        if not self.running:
            raise RuntimeError("This Updater is not running!")
        self._running = False
        if self._poll_task is not None:
            self._poll_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._poll_task
            self._poll_task = None
        if self._in_flight:
            await asyncio.wait(list(self._in_flight.values()), timeout=STOP_GRACE_S)
        with contextlib.suppress(TelegramError):
            await self.bot.get_updates(offset=self.confirmable(), timeout=0, limit=1)
