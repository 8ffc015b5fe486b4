"""Sending to Telegram within its limits, without losing the latest state.

The outbox sends new messages, photos and deletions itself; edits go through `Edits`
(`bot.telegram.edits`), and every request waits for its turn in `ChatPace` and `Pacer`
(`bot.telegram.pace`).

Edits of one message are coalesced: while an edit is in flight or the message's chat is
cooling down, newer states replace older ones and only the latest is sent (a group sees at
most one table edit every few seconds, a DM about one a second). A new message counts
against its chat's pace too, so that messages and edits together stay within Telegram's
per-chat limit (one 429 makes `AIORateLimiter` hold back every request of the bot, answers
to button presses included). When the bot has a rate limiter, edits also wait for a share
of Telegram's overall 30 a second *before* they are handed to it: the limiter's queue is
first come, first served, so edits must not fill it ahead of new messages and deletions,
and an edit that waits here can still be replaced by a newer state. New messages and photos
go out in order through the bot, whose `AIORateLimiter` waits out Telegram's limits and
`RetryAfter`; deletions are sent in the background. "Message is not modified" is success;
a message that was deleted by its reader is sent again and the owner told its new id. A
text longer than Telegram takes is cut to fit (`bot.telegram.fit`), never refused.

A chat that answers 403 because the bot was removed from it or blocked is *gone*: its
pending edits and posts are dropped, nothing more is written to it until `resume_chat`,
and `on_gone` tells the owner once. Per-chat state is dropped when it is no longer needed:
a chat's pace once it has cooled down, its post order once its posts are out; what was
last shown in each message (to skip an edit that changes nothing) is a short digest,
kept for a bounded number of recent messages.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Hashable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TypeVar

from telegram import Bot, InlineKeyboardMarkup, InputFile
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden, RetryAfter, TelegramError

from bot.telegram.bottom import Bottoms
from bot.telegram.edits import Edit, Edits, Replaced, Screen, digest
from bot.telegram.fit import CAPTION_LIMIT, fit_html, utf16_len
from bot.telegram.pace import DELETE, EDIT, POST, URGENT, ChatPace, Pacer

log = logging.getLogger(__name__)
T = TypeVar("T")

Gone = Callable[[int], Awaitable[None]]
"""Called as ``(chat_id)`` when a chat stopped accepting the bot (removed or blocked)."""

GONE_REASONS = ("bot was kicked", "bot is not a member", "bot was blocked by the user")
"""403 descriptions that mean the bot may not write to the chat until it is let back in
(unlike "can't initiate conversation": a person who never opened the DM)."""


@dataclass(frozen=True)
class _Post:
    text: str
    markup: InlineKeyboardMarkup | None
    thread_id: int | None
    priority: int
    photo: bytes | None = None


class Slot:
    """A place in a chat's order of posts (see `Outbox.reserve`): fill it once, or release
    it so the posts after it go on."""

    def __init__(self, fill: asyncio.Future[_Post | None], sent: asyncio.Task[int | None]) -> None:
        self._fill = fill
        self.sent = sent
        """Gives the id of the message once it is sent (None if none was)."""

    @property
    def used(self) -> bool:
        return self._fill.done()

    def post(
        self,
        text: str,
        markup: InlineKeyboardMarkup | None = None,
        thread_id: int | None = None,
        *,
        priority: int = URGENT,
        photo: bytes | None = None,
    ) -> None:
        """Fill the place: a message, or a picture with ``text`` as its caption."""
        if not self._fill.done():
            self._fill.set_result(_Post(text, markup, thread_id, priority, photo))

    def release(self) -> None:
        if not self._fill.done():
            self._fill.set_result(None)


ARRIVED: ContextVar[tuple[int, Slot] | None] = ContextVar("arrived", default=None)
"""The place its answer takes in its chat's order, kept for a command as its update
arrived (``HeartsApplication.process_update``), before anything awaited: the gates before
its handler (the serving account's claim on a new group, the record of handled updates)
wait on the database, and a command behind them could otherwise take its place first."""


class Outbox:
    def __init__(
        self,
        bot: Bot,
        *,
        group_interval: float = 3.0,
        dm_interval: float = 1.0,
        on_replaced: Replaced | None = None,
        per_second: float | None = None,
        on_gone: Gone | None = None,
        on_turn: Callable[[int, float], None] | None = None,
        on_shown: Callable[[int, int, float], None] | None = None,
    ) -> None:
        """`per_second`: the overall pace of messages, edits and deletions; by default 25 a
        second when the bot has a rate limiter (Telegram allows 30), unpaced without one
        (tests). `on_turn`: told each request's priority and its wait (seconds) for its
        turn in the overall pace; `on_shown`: told when an edit showed a message's new
        state (`Edits`); both the metrics'."""
        self.bot = bot
        self.on_replaced = on_replaced
        self.on_gone = on_gone
        if per_second is None and getattr(bot, "rate_limiter", None) is not None:
            per_second = 25.0
        self.pacer = Pacer(per_second) if per_second else None
        """The bot's overall pace (None: unpaced)."""
        self.pace = ChatPace(group_interval, dm_interval)
        self.edits = Edits(self, on_shown)
        self.bottom = Bottoms()
        """What is at the bottom of each person's DM (the messages sent there, deleted)."""
        self._deletions: set[asyncio.Task[None]] = set()
        self._posts: set[asyncio.Task[int | None]] = set()
        self._last_post: dict[int, asyncio.Task[int | None]] = {}
        """Each chat's newest post still on its way: the next one goes after it."""
        self._gone: set[int] = set()
        """Chats that answered 403 because the bot was removed or blocked."""
        self._tasks: set[asyncio.Task[None]] = set()
        self._closed = False
        """Set by `close`: nothing more is sent, even by a caller already waiting its turn."""
        self.on_turn = on_turn

    @property
    def closed(self) -> bool:
        """Whether `close` has run: nothing more is sent."""
        return self._closed

    # ------------------------------------------------------------ messages

    async def send(
        self,
        chat_id: int,
        text: str,
        markup: InlineKeyboardMarkup | None = None,
        thread_id: int | None = None,
        *,
        notify: bool = True,
        wanted: Callable[[], bool] | None = None,
        priority: int = URGENT,
    ) -> int | None:
        """Send a new message; its id, or None if the chat does not accept the bot.

        It waits for the chat's turn (messages and edits share each chat's pace), and for
        its turn in the overall pace: at once for a reply someone waits for (URGENT), later
        for a POST. `wanted`, when given, is asked again when the message's turn comes: one
        no longer wanted by then (a "your turn" for a move already made) is not sent, and
        gives None. A wanted message also waits out Telegram's flood control for as long as
        it lasts (a timer's "your turn"), where others give up after a few tries.
        """
        if self._closed or chat_id in self._gone or (wanted is not None and not wanted()):
            return None
        await self.pace.turn(chat_id, priority)
        await self.overall_turn(priority)
        if self._closed or chat_id in self._gone or (wanted is not None and not wanted()):
            return None
        text = fit_html(text)  # too long, Telegram would refuse it outright
        try:
            message = await self.retrying(
                lambda: self.bot.send_message(
                    chat_id,
                    text,
                    parse_mode=ParseMode.HTML,
                    reply_markup=markup,
                    message_thread_id=thread_id,
                    disable_notification=not notify,
                    disable_web_page_preview=True,
                ),
                wanted=wanted,
            )
        except Forbidden as error:
            log.info("chat %s does not accept messages from the bot", chat_id)
            self.refused(chat_id, error)
            return None
        except NotWanted:
            return None
        self.bottom.sent(chat_id, message.message_id)
        if markup is not None:
            # A message with buttons is edited later; a plain answer seldom is (and then
            # at the cost of one edit Telegram calls "not modified").
            self.edits.remember_shown((chat_id, message.message_id), digest(text, markup))
        return message.message_id

    def post(
        self,
        chat_id: int,
        text: str,
        markup: InlineKeyboardMarkup | None = None,
        thread_id: int | None = None,
        *,
        notify: bool = True,
        photo: bytes | None = None,
        priority: int = POST,
        wanted: Callable[[], bool] | None = None,
    ) -> asyncio.Task[int | None]:
        """Send soon, in order with the chat's other posts; nobody has to wait for it.

        The task gives the new message's id (None if the chat refused it, or it was no
        longer `wanted`: see `send`). Moves post their announcements this way, so a
        person's press is answered without waiting on Telegram's limits. A post someone
        does wait for (their screen at a game's start) says so with ``priority=URGENT``.
        """

        async def run() -> int | None:
            if photo is not None:
                return await self.send_photo(chat_id, photo, text, thread_id)
            return await self.send(
                chat_id, text, markup, thread_id, notify=notify, priority=priority, wanted=wanted
            )

        return self._in_order(chat_id, run)

    def reserve(self, chat_id: int) -> Slot:
        """Take the chat's next place in the order of posts before the message is known.

        A command's answer keeps the place its command came in, however long working it
        out takes; the posts after it wait until the slot is filled or released."""
        fill: asyncio.Future[_Post | None] = asyncio.get_running_loop().create_future()

        async def run() -> int | None:
            message = await fill
            if message is None:
                return None
            if message.photo is not None:
                return await self.send_photo(
                    chat_id, message.photo, message.text, message.thread_id
                )
            return await self.send(
                chat_id, message.text, message.markup, message.thread_id, priority=message.priority
            )

        return Slot(fill, self._in_order(chat_id, run))

    def _in_order(
        self, chat_id: int, make: Callable[[], Awaitable[int | None]]
    ) -> asyncio.Task[int | None]:
        """Run `make` after the chat's posts before it, without waiting for it here."""
        before = self._last_post.get(chat_id)

        async def run() -> int | None:
            if before is not None and not before.done():
                await asyncio.wait([before])
            try:
                return await make()
            except TelegramError as error:
                log.warning("message to %s failed: %s", chat_id, error)
                return None

        task = asyncio.create_task(run())
        self._last_post[chat_id] = task
        self._posts.add(task)

        def done(finished: asyncio.Task[int | None]) -> None:
            self._posts.discard(finished)
            if self._last_post.get(chat_id) is finished:
                del self._last_post[chat_id]

        task.add_done_callback(done)
        return task

    async def send_photo(
        self, chat_id: int, png: bytes, caption: str, thread_id: int | None = None
    ) -> int | None:
        """The picture with `caption` under it; a caption longer than Telegram allows (long
        names, a wordy language) follows the picture as a message of its own instead."""
        if self._closed or chat_id in self._gone:
            return None
        if utf16_len(caption) > CAPTION_LIMIT:
            sent = await self._send_photo(chat_id, png, "", thread_id)
            if sent is None:
                return None
            await self.send(chat_id, caption, None, thread_id, notify=False, priority=POST)
            return sent
        return await self._send_photo(chat_id, png, caption, thread_id)

    async def _send_photo(
        self, chat_id: int, png: bytes, caption: str, thread_id: int | None
    ) -> int | None:
        await self.pace.turn(chat_id, POST)
        await self.overall_turn(POST)
        if self._closed or chat_id in self._gone:
            return None
        try:
            message = await self.retrying(
                lambda: self.bot.send_photo(
                    chat_id,
                    InputFile(png, filename="scores.png"),
                    caption=caption or None,
                    parse_mode=ParseMode.HTML if caption else None,
                    message_thread_id=thread_id,
                )
            )
        except Forbidden as error:
            self.refused(chat_id, error)
            return None
        self.bottom.sent(chat_id, message.message_id)
        return message.message_id

    async def delete(self, chat_id: int, message_id: int) -> None:
        """Delete a message soon; returns at once (nothing waits for a deletion).

        Under load the rate limiter may hold the call for seconds, and callers delete
        from inside a move, before the press is answered.
        """
        self.edits.forget((chat_id, message_id))
        self.bottom.deleted(chat_id, message_id)
        if self._closed or chat_id in self._gone:
            return
        task = asyncio.create_task(self._delete_now(chat_id, message_id))
        self._deletions.add(task)
        task.add_done_callback(self._deletions.discard)

    async def _delete_now(self, chat_id: int, message_id: int) -> None:
        await self.overall_turn(DELETE)
        if self._closed or chat_id in self._gone:
            return
        try:
            await self.retrying(lambda: self.bot.delete_message(chat_id, message_id))
        except Forbidden as error:
            log.debug("could not delete message %s in %s: %s", message_id, chat_id, error)
            self.refused(chat_id, error)
        except BadRequest as error:
            log.debug("could not delete message %s in %s: %s", message_id, chat_id, error)
        except TelegramError as error:
            log.warning("could not delete message %s in %s: %s", message_id, chat_id, error)

    def delete_once_shown(
        self, chat_id: int, sent: asyncio.Task[int | None], shown_message_id: int
    ) -> None:
        """Delete the message `sent` gives once message `shown_message_id` of the same chat
        shows its newest state: a "Dealing the cards…" that is no longer true once the
        table's message shows the deal."""

        async def run() -> None:
            message_id = await sent
            await self.edits.sent((chat_id, shown_message_id))
            if message_id is not None:
                await self.delete(chat_id, message_id)

        task = asyncio.create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def edit(
        self,
        chat_id: int,
        message_id: int,
        text: str,
        markup: InlineKeyboardMarkup | None = None,
        thread_id: int | None = None,
        *,
        priority: int = EDIT,
    ) -> None:
        """Show this state in a message soon; a later state replaces an unsent one.

        Every edit keeps its chat's pace; its `priority` places it in the overall pace (an
        edit of a group's message never goes before GROUP_EDIT unless it is URGENT or MOVED).
        """
        self.edits.edit((chat_id, message_id), Edit(text, markup, thread_id, priority))

    def edit_later(
        self,
        chat_id: int,
        message_id: int,
        render: Callable[[], Screen],
        thread_id: int | None = None,
        *,
        priority: int = EDIT,
    ) -> None:
        """Like `edit`, but the text and markup are made only when the edit is sent."""
        self.edits.replace_pending(
            (chat_id, message_id), Edit("", None, thread_id, priority, render)
        )

    async def flush(self, timeout: float = 30.0) -> None:
        """Wait until every pending edit has been sent (tests, and shutdown)."""
        deadline = time.monotonic() + timeout
        while True:
            # Waits on the work itself (what is under way may start more: loop until none).
            running = [
                *self._deletions,
                *self._posts,
                *self.edits.running(),
            ]
            remaining = deadline - time.monotonic()
            if not running or remaining <= 0:
                return
            await asyncio.wait(running, timeout=remaining)

    async def close(self, grace: float = 10.0) -> None:
        """Send what is pending for up to `grace` seconds, then drop the rest.

        Called when updates stop, while the bot can still send; calling it again is harmless.
        """
        await self.flush(timeout=grace)
        self._closed = True
        unsent = [
            t
            for t in [*self.edits.running(), *self._deletions, *self._posts, *self._tasks]
            if not t.done()
        ]
        if unsent:
            log.info("stopping with %d sends, edits or deletions unsent", len(unsent))
        for task in unsent:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    # ------------------------------------------------------------ chats that refuse the bot

    def refused(self, chat_id: int, error: Forbidden) -> None:
        """A 403: if it says the bot was removed or blocked, stop writing to the chat."""
        reason = str(error).lower()
        if any(r in reason for r in GONE_REASONS):
            self.mark_gone(chat_id)

    def mark_gone(self, chat_id: int) -> None:
        """The chat removed or blocked the bot (a 403 said so, or Telegram's
        ``my_chat_member``): drop what waits for it, write nothing more to it until
        `resume_chat`, and tell `on_gone` once."""
        if chat_id in self._gone:
            return
        log.info("chat %s removed or blocked the bot: its writes stop", chat_id)
        self._gone.add(chat_id)
        self.edits.drop_chat(chat_id)
        self.pace.drop(chat_id)
        if self.on_gone is not None and not self._closed:
            # Not awaited here: the write that met the 403 may be a job in the table's mailbox.
            task = asyncio.create_task(self._tell_gone(chat_id))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _tell_gone(self, chat_id: int) -> None:
        assert self.on_gone is not None
        try:
            await self.on_gone(chat_id)
        except Exception:
            log.exception("handling chat %s that removed or blocked the bot failed", chat_id)

    def is_gone(self, chat_id: int) -> bool:
        """Whether the chat removed or blocked the bot (nothing is written to it)."""
        return chat_id in self._gone

    def resume_chat(self, chat_id: int) -> bool:
        """The bot is back in the chat (added again, or unblocked): writes resume.

        Returns whether the chat had been gone."""
        if chat_id not in self._gone:
            return False
        self._gone.discard(chat_id)
        log.info("chat %s accepts the bot again", chat_id)
        return True

    def state_sizes(self) -> dict[str, int]:
        """How many entries each per-chat or per-message structure holds (memory tests);
        chats whose pace has cooled down are dropped first."""
        return {
            **self.edits.sizes(),
            **self.pace.sizes(),
            "last_post": len(self._last_post),
            "posts": len(self._posts),
            "deletions": len(self._deletions),
            "gone": len(self._gone),
            "bottoms": len(self.bottom),
            "pacer_keys": self.pacer.waiting_keys() if self.pacer is not None else 0,
        }

    async def overall_turn(self, priority: int, key: Hashable | None = None) -> None:
        """Wait for this request's turn in the bot's overall pace."""
        began = time.monotonic()
        if self.pacer is not None:
            await self.pacer.turn(priority, key)
        if self.on_turn is not None:
            self.on_turn(priority, time.monotonic() - began)

    async def retrying(
        self,
        call: Callable[[], Awaitable[T]],
        tries: int = 4,
        *,
        wanted: Callable[[], bool] | None = None,
    ) -> T:
        """One call, waiting out a RetryAfter: the outbox is the one place that retries a
        message (the rate limiter passes RetryAfter on at once, see `bot.app`), so a request
        is tried at most `tries` times; or, given `wanted`, for as long as it is still
        wanted after each wait (`NotWanted` once it is not)."""
        attempt = 0
        while True:
            try:
                return await call()
            except RetryAfter as error:
                attempt += 1
                if wanted is None and attempt >= tries:
                    raise
                delay = error.retry_after
                seconds = delay.total_seconds() if hasattr(delay, "total_seconds") else delay
                await asyncio.sleep(float(seconds))
                if wanted is not None and not wanted():
                    raise NotWanted from error


class NotWanted(Exception):
    """A message no longer wanted while it waited out Telegram's flood control."""
