"""Edits of messages, coalesced: while an edit is in flight or its chat cools down, newer
states replace older ones and only the latest is sent.

A group sees at most one table edit every few seconds, a DM about one a second; the screen
of whoever just pressed goes ahead of its chat's pace (`URGENT_BURST`). "Message is not
modified" is success; a message its reader deleted is sent again and the owner told its new
id. What each recent message shows is kept as a short digest, to skip an edit that changes
nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, Protocol

from telegram import Bot, InlineKeyboardMarkup
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden, TelegramError

from bot.telegram.fit import fit_html
from bot.telegram.pace import DELETE, EDIT, GROUP_EDIT, MOVED, URGENT_BURST, ChatPace, Pacer

log = logging.getLogger(__name__)

Screen = tuple[str, InlineKeyboardMarkup | None]
Replaced = Callable[[int, int, int], Awaitable[None]]
"""Called as ``(chat_id, old_message_id, new_message_id)`` when a message was re-sent."""

SHOWN_LIMIT = 20_000
"""How many messages' last shown state is remembered (to skip an edit that would change
nothing); an older one forgotten costs at most one edit Telegram calls "not modified"."""


class Sender(Protocol):
    """What edits need of the outbox that owns them."""

    bot: Bot
    pace: ChatPace
    pacer: Pacer | None
    on_replaced: Replaced | None

    @property
    def closed(self) -> bool: ...

    def is_gone(self, chat_id: int) -> bool: ...

    async def overall_turn(self, priority: int, key: Hashable | None = None) -> None: ...

    async def retrying(self, call: Callable[[], Awaitable[Any]], tries: int = 4) -> Any: ...

    def refused(self, chat_id: int, error: Forbidden) -> None: ...

    async def send(
        self,
        chat_id: int,
        text: str,
        markup: InlineKeyboardMarkup | None = None,
        thread_id: int | None = None,
        *,
        notify: bool = True,
    ) -> int | None: ...


@dataclass
class Edit:
    text: str
    markup: InlineKeyboardMarkup | None
    thread_id: int | None
    priority: int = EDIT
    render: Callable[[], Screen] | None = None
    """Makes text and markup when the edit is sent: a state replaced before then is never
    rendered at all."""
    since: float = field(default_factory=time.monotonic)
    """When the message first waited for a state as urgent as this one (kept by the states
    that replace it; a more urgent one starts its own wait: a turn's screen is waited for
    from the turn, not from an idle change before it)."""

    def screen(self) -> Screen:
        if self.render is not None:
            self.text, self.markup = self.render()
            self.render = None
        return self.text, self.markup


class Edits:
    """The latest state waiting for each message, and one worker per message sending it."""

    def __init__(
        self, sender: Sender, on_shown: Callable[[int, int, float], None] | None = None
    ) -> None:
        """`on_shown`: told each message's chat, the priority its new state was asked with,
        and the seconds from its first waiting state to the edit that showed it (the
        metrics)."""
        self.sender = sender
        self._pending: dict[tuple[int, int], Edit] = {}
        self._shown: OrderedDict[tuple[int, int], bytes] = OrderedDict()
        """A digest of what each recent message shows, oldest first (`SHOWN_LIMIT`)."""
        self._workers: dict[tuple[int, int], asyncio.Task[None]] = {}
        self._wake: dict[tuple[int, int], asyncio.Event] = {}
        """Wakes a message's worker waiting out the pace (see `_ahead`)."""
        self.on_shown = on_shown

    def edit(self, key: tuple[int, int], edit: Edit) -> None:
        """Show `edit` in the message `key` soon, unless it shows that already."""
        if self._shown.get(key) == digest(edit.text, edit.markup) and key not in self._pending:
            return
        self.replace_pending(key, edit)

    def replace_pending(self, key: tuple[int, int], edit: Edit) -> None:
        """Make `edit` the state to show next, keeping the most urgent priority asked for
        since the last one was sent (the person who had to act still has to see it), and
        when it was first asked for."""
        if self.sender.closed or self.sender.is_gone(key[0]):
            return
        older = self._pending.get(key)
        if older is not None and older.priority <= edit.priority:
            edit.priority, edit.since = older.priority, older.since
        self._pending[key] = edit
        self._start_worker(key, edit.priority)

    def remember_shown(self, key: tuple[int, int], shown: bytes) -> None:
        self._shown[key] = shown
        self._shown.move_to_end(key)
        while len(self._shown) > SHOWN_LIMIT:
            self._shown.popitem(last=False)

    def forget(self, key: tuple[int, int]) -> None:
        """The message is deleted: nothing more is shown in it."""
        self._pending.pop(key, None)
        self._shown.pop(key, None)

    def drop_chat(self, chat_id: int) -> None:
        """The chat refused the bot: its waiting states and digests go."""
        for key in [k for k in self._pending if k[0] == chat_id]:
            del self._pending[key]
        for key in [k for k in self._shown if k[0] == chat_id]:
            del self._shown[key]

    async def sent(self, key: tuple[int, int]) -> None:
        """Wait until no state waits for the message `key` (the last one shown, or
        dropped)."""
        while (worker := self._workers.get(key)) is not None and not worker.done():
            await asyncio.wait([worker])

    def running(self) -> list[asyncio.Task[None]]:
        return [w for w in self._workers.values() if not w.done()]

    def sizes(self) -> dict[str, int]:
        return {
            "pending": len(self._pending),
            "shown": len(self._shown),
            "workers": len(self._workers),
            "wake": len(self._wake),
        }

    def _start_worker(self, key: tuple[int, int], priority: int) -> None:
        worker = self._workers.get(key)
        if worker is None or worker.done():
            self._workers[key] = asyncio.create_task(self._worker(key))
            return
        wake = self._wake.get(key)
        if wake is not None and key[0] > 0 and priority <= MOVED:
            wake.set()  # if the worker waits out its chat's pace, it goes now
        if self.sender.pacer is not None:
            # If it already waits its turn in the overall pace at a lower priority (a
            # screen that became the acting person's), the wait moves up. (Both: a worker
            # that once waited out the chat's pace keeps its wake, and waits in the pacer.)
            self.sender.pacer.promote(key, edit_priority(key[0], priority))

    async def _worker(self, key: tuple[int, int]) -> None:
        try:
            await self._send(key)
        finally:
            if self._workers.get(key) is asyncio.current_task():
                del self._workers[key]
                self._wake.pop(key, None)

    async def _send(self, key: tuple[int, int]) -> None:
        chat_id, message_id = key
        sender, pace = self.sender, self.sender.pace
        while key in self._pending:
            ahead = self._ahead(key)
            wait = pace.wait(chat_id, ahead)
            if wait > 0 or (pace.sends_waiting(chat_id) and not ahead):
                # Woken early when the pending state becomes the presser's own screen.
                wake = self._wake.setdefault(key, asyncio.Event())
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(wake.wait(), max(wait, 0.05))
                wake.clear()
                continue  # a new message may have pushed the chat's turn further
            pending = self._pending.get(key)
            if pending is not None:
                await sender.overall_turn(edit_priority(chat_id, pending.priority), key)
            edit = self._pending.pop(key, None)
            if edit is None or sender.closed or sender.is_gone(chat_id):
                return
            text, markup = edit.screen()
            shown = digest(text, markup)
            if self._shown.get(key) == shown:
                continue
            pace.count(chat_id)
            try:
                await sender.retrying(functools.partial(self._edit_now, chat_id, message_id, edit))
                self.remember_shown(key, shown)
                self._shown_after(chat_id, edit)
            except BadRequest as error:
                text = str(error).lower()
                if "not modified" in text:
                    self.remember_shown(key, shown)
                    self._shown_after(chat_id, edit)
                elif "not found" in text or "can't be edited" in text:
                    await self._replace(chat_id, message_id, edit)
                    return
                else:
                    log.warning("edit of message %s in %s failed: %s", message_id, chat_id, error)
            except Forbidden as error:
                log.info("chat %s refused the bot; edit dropped", chat_id)
                sender.refused(chat_id, error)
                return
            except TelegramError as error:
                log.warning("edit of message %s in %s failed: %s", message_id, chat_id, error)

    def _shown_after(self, chat_id: int, edit: Edit) -> None:
        if self.on_shown is not None:
            self.on_shown(chat_id, edit.priority, time.monotonic() - edit.since)

    def _ahead(self, key: tuple[int, int]) -> float:
        """How far ahead of a chat's pace an edit may go: in a DM, the screen of the person
        who just pressed (their card's highlight, their played card) goes out at once, up
        to `URGENT_BURST` intervals early (three quick taps); the chat's pace then catches
        up."""
        pending = self._pending.get(key)
        if key[0] > 0 and pending is not None and pending.priority <= MOVED:
            return URGENT_BURST * self.sender.pace.interval(key[0])
        return 0.0

    async def _edit_now(self, chat_id: int, message_id: int, edit: Edit) -> object:
        return await self.sender.bot.edit_message_text(
            fit_html(edit.text),
            chat_id=chat_id,
            message_id=message_id,
            parse_mode=ParseMode.HTML,
            reply_markup=edit.markup,
            disable_web_page_preview=True,
        )

    async def _replace(self, chat_id: int, old_id: int, edit: Edit) -> None:
        # The reader deleted the message: show the state in a new one.
        sender = self.sender
        new_id = await sender.send(chat_id, edit.text, edit.markup, edit.thread_id, notify=False)
        if new_id is not None and sender.on_replaced is not None:
            await sender.on_replaced(chat_id, old_id, new_id)


def edit_priority(chat_id: int, priority: int) -> int:
    """Where an edit waits: a group's message (a negative chat id) at GROUP_EDIT at best,
    unless someone waits for it."""
    return priority if chat_id > 0 or priority < DELETE else max(priority, GROUP_EDIT)


def digest(text: str, markup: InlineKeyboardMarkup | None) -> bytes:
    """A short fingerprint of what a message shows (text and buttons)."""
    shown = hashlib.blake2b(text.encode(), digest_size=16)
    if markup is not None:
        shown.update(b"\0" + str(markup.to_dict()).encode())
    return shown.digest()
