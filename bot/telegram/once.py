"""Each Telegram update handled once, whether it came by polling or by webhook.

Telegram delivers at least once: a webhook request it thinks failed is posted again, a
polling batch can carry an update that is still being handled, and after a crash or a
failover the next process is sent what its predecessor had not confirmed. Every update
passes `ExactlyOnce.handle` before any handler (`HeartsApplication.process_update`, which
both the poller and the webhook's queue go through):

- an id this process has already started is skipped (a repeat while the first is still
  being handled, a webhook posted twice, one id twice in a batch);
- an id the database knows as handled (its move is stored, `domain.handling`) is
  skipped too: a restarted process or the standby that took over never makes a move twice;
- otherwise it is handled; a press hands its update down with the move it makes
  (`domain.handling.Handling`, on the command and its `StoreMove`), so that the move
  stores its id (and what the press is answered) in its own transaction.

An update that made no move leaves nothing in the database, so after a crash it may be
handled again (a command answered twice; a Join told "You're already at this table").
`answer_pending` answers, after a takeover, the presses whose moves were stored but whose
answers never went out.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import Any

from telegram import Bot, Update
from telegram.error import TelegramError
from telegram.ext import Application

from bot.logs import log_fields
from bot.telegram.outbox import ARRIVED, Slot
from domain.handling import Handling
from storage import Ledger
from storage.errors import StorageError

log = logging.getLogger(__name__)

REMEMBERED = 20_000
"""How many of the newest update ids this process remembers having started."""
ANSWER_WINDOW_S = 15.0
"""How long after a press Telegram still takes its answer (the client stops waiting after
about that long; Telegram does not document it: "query is too old" comes after it)."""

LedgerSource = Callable[[], Ledger | None]
"""The handled-updates ledger once storage is open (None before)."""


class ExactlyOnce:
    """The gate every update passes before any handler (see the module's docstring)."""

    def __init__(self, ledger: LedgerSource) -> None:
        self._ledger = ledger
        self._started: OrderedDict[int, None] = OrderedDict()

    async def handle(self, update: object, process: Callable[[], Awaitable[None]]) -> None:
        """Run `process` for `update` unless it was handled (here, or by a process before)."""
        if not isinstance(update, Update):
            await process()
            return
        update_id = update.update_id
        if update_id in self._started:
            log.info("update %s came again while handled here; skipped", update_id)
            return
        self._started[update_id] = None
        while len(self._started) > REMEMBERED:
            self._started.popitem(last=False)
        ledger = self._ledger()
        if ledger is not None and await _asks(ledger.was_handled(update_id), False):
            log.info("update %s was handled already; not again", update_id)
            return
        await process()


async def _asks(question: Awaitable[Any], otherwise: Any) -> Any:
    """The storage's answer, or `otherwise` when it cannot give one (handling goes on: at
    least once, as without the ledger)."""
    try:
        return await question
    except StorageError as error:
        log.warning("the handled updates cannot be read or written: %s", error)
        return otherwise


RECEIVED: ContextVar[float | None] = ContextVar("received", default=None)
"""When the update being handled reached the Application (`time.monotonic`), before the
record of handled updates was asked."""


class HeartsApplication(Application):  # type: ignore[type-arg]
    """python-telegram-bot's Application, with every update through `ExactlyOnce` first."""

    once: ExactlyOnce | None = None

    def dropping(self, update: Update) -> bool:
        """Whether an update is its sender's flood, to be let go before anything is done for
        it: no lookup, no handler; a press is answered without a word (none here; the
        bot's, `bot.app.HeartsBot`, says)."""
        return False

    def keep_order(self, chat_id: int) -> Slot | None:
        """A place in a chat's order of posts for a command's answer, as it arrives (none
        here; the bot's takes one from its outbox once it is open)."""
        return None

    async def process_update(self, update: object) -> None:
        """What is logged meanwhile names the update's chat (`bot.logs.log_fields`); when
        its handling began is `RECEIVED` (press → toast is timed from there). A command's
        answer takes its place in its chat's order now, as it arrives (`ARRIVED`)."""
        if isinstance(update, Update) and self.dropping(update):
            if update.callback_query is not None:  # the spinner stops, without a word
                try:
                    await update.callback_query.answer()
                except TelegramError as error:
                    log.info("could not answer a press over its rate: %s", error)
            return
        chat = update.effective_chat if isinstance(update, Update) else None
        received = RECEIVED.set(time.monotonic())
        place = None
        if chat is not None and _is_command(update):
            place = self.keep_order(chat.id)
        arrived = ARRIVED.set((chat.id, place) if chat is not None and place is not None else None)
        try:
            with log_fields(chat_id=chat.id if chat is not None else None):
                once = self.once
                if once is None:
                    await super().process_update(update)
                    return
                await once.handle(
                    update, lambda: super(HeartsApplication, self).process_update(update)
                )
        finally:
            RECEIVED.reset(received)
            ARRIVED.reset(arrived)
            if place is not None:
                place.release()  # its handler never answered (or did: then nothing happens)


def _is_command(update: object) -> bool:
    message = update.message if isinstance(update, Update) else None
    return message is not None and (message.text or "").startswith("/")


async def answered(ledger: Ledger | None, handled: Handling) -> None:
    """After a press's answer went out: the ledger says so, if its move stored the press."""
    if not handled.stored or ledger is None:
        return
    await _asks(ledger.mark_answered(handled.update_id), None)


async def answer_pending(bot: Bot, ledger: Ledger, now: float | None = None) -> int:
    """Answer the presses whose moves were stored but whose answers never went out (the
    process before this one died in between), as they would have been; those older than
    Telegram accepts are left. Returns how many were answered."""
    now = time.time() if now is None else now
    pending = await _asks(ledger.unanswered(int((now - ANSWER_WINDOW_S) * 1000)), [])
    count = 0
    for press in pending:
        try:
            await bot.answer_callback_query(press.callback_id, press.answer)
            count += 1
        except TelegramError as error:
            log.info("a press stored before the takeover could not be answered: %s", error)
        await _asks(ledger.mark_answered(press.update_id), None)
    if pending:
        log.info("answered %d of %d presses stored but not answered", count, len(pending))
    return count
