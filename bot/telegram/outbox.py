"""Sending to Telegram within its limits, without losing the latest state.

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
a message that was deleted by its reader is sent again and the owner told its new id.

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
import functools
import hashlib
import heapq
import itertools
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass
from typing import Any, TypeVar

from telegram import Bot, InlineKeyboardMarkup, InputFile
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden, RetryAfter, TelegramError

log = logging.getLogger(__name__)
T = TypeVar("T")

Replaced = Callable[[int, int, int], Awaitable[None]]
"""Called as ``(chat_id, old_message_id, new_message_id)`` when a message was re-sent."""
Gone = Callable[[int], Awaitable[None]]
"""Called as ``(chat_id)`` when a chat stopped accepting the bot (removed or blocked)."""

GONE_REASONS = ("bot was kicked", "bot is not a member", "bot was blocked by the user")
"""403 descriptions that mean the bot may not write to the chat until it is let back in
(unlike "can't initiate conversation": a person who never opened the DM)."""

SHOWN_LIMIT = 20_000
"""How many messages' last shown state the outbox remembers (to skip an edit that would
change nothing); an older one forgotten costs at most one edit Telegram calls "not
modified"."""

URGENT_BURST = 2
"""How many intervals ahead of its pace a chat may take a reply someone waits for: three
answers to three commands go out at once, then the chat's pace holds."""


Screen = tuple[str, InlineKeyboardMarkup | None]


URGENT, POST, MOVED, DELETE, EDIT, GROUP_EDIT = range(6)
"""Priorities in the overall pace, most urgent first.

URGENT: what a person is waiting for now: the screen of whoever must act, and a reply to
what someone just did (`send`). POST: messages nobody waits for: announcements, results, a
"your turn" message (`post`). MOVED: the screen of whoever just moved (their toast already
said what happened). DELETE. EDIT: everyone else's screens. GROUP_EDIT last: the groups'
table messages, whose readers watch rather than play.
"""


@dataclass
class _Edit:
    text: str
    markup: InlineKeyboardMarkup | None
    thread_id: int | None
    priority: int = EDIT
    render: Callable[[], Screen] | None = None
    """Makes text and markup when the edit is sent: a state replaced before then is never
    rendered at all."""

    def screen(self) -> Screen:
        if self.render is not None:
            self.text, self.markup = self.render()
            self.render = None
        return self.text, self.markup


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


@dataclass(frozen=True)
class _Post:
    text: str
    markup: InlineKeyboardMarkup | None
    thread_id: int | None
    priority: int


class Slot:
    """A place in a chat's order of posts (see `Outbox.reserve`): fill it once, or release
    it so the posts after it go on."""

    def __init__(self, fill: asyncio.Future[_Post | None]) -> None:
        self._fill = fill

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
    ) -> None:
        if not self._fill.done():
            self._fill.set_result(_Post(text, markup, thread_id, priority))

    def release(self) -> None:
        if not self._fill.done():
            self._fill.set_result(None)


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
    ) -> None:
        """`per_second`: the overall pace of messages, edits and deletions; by default 25 a
        second when the bot has a rate limiter (Telegram allows 30), unpaced without one
        (tests)."""
        self.bot = bot
        self.group_interval = group_interval
        self.dm_interval = dm_interval
        self.on_replaced = on_replaced
        self.on_gone = on_gone
        if per_second is None and getattr(bot, "rate_limiter", None) is not None:
            per_second = 25.0
        self._pacer = Pacer(per_second) if per_second else None
        self._pending: dict[tuple[int, int], _Edit] = {}
        self._shown: OrderedDict[tuple[int, int], bytes] = OrderedDict()
        """A digest of what each recent message shows, oldest first (`SHOWN_LIMIT`)."""
        self._workers: dict[tuple[int, int], asyncio.Task[None]] = {}
        self._wake: dict[tuple[int, int], asyncio.Event] = {}
        """Wakes a message's edit worker waiting out the pace (see `_ahead`)."""
        self._next_time: dict[int, float] = {}
        """When each chat may next get a message or an edit; dropped once it has passed."""
        self._paced_since_sweep = 0
        self._deletions: set[asyncio.Task[None]] = set()
        self._posts: set[asyncio.Task[int | None]] = set()
        self._last_post: dict[int, asyncio.Task[int | None]] = {}
        """Each chat's newest post still on its way: the next one goes after it."""
        self._sends_waiting: dict[int, int] = {}
        self._gone: set[int] = set()
        """Chats that answered 403 because the bot was removed or blocked."""
        self._tasks: set[asyncio.Task[None]] = set()
        self._closed = False
        """Set by `close`: nothing more is sent, even by a caller already waiting its turn."""

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
        gives None.
        """
        if self._closed or chat_id in self._gone or (wanted is not None and not wanted()):
            return None
        await self._chat_turn(chat_id, priority)
        await self._overall_turn(priority)
        if self._closed or chat_id in self._gone or (wanted is not None and not wanted()):
            return None
        try:
            message = await self._retrying(
                lambda: self.bot.send_message(
                    chat_id,
                    text,
                    parse_mode=ParseMode.HTML,
                    reply_markup=markup,
                    message_thread_id=thread_id,
                    disable_notification=not notify,
                    disable_web_page_preview=True,
                )
            )
        except Forbidden as error:
            log.info("chat %s does not accept messages from the bot", chat_id)
            self._refused(chat_id, error)
            return None
        if markup is not None:
            # A message with buttons is edited later; a plain answer seldom is (and then
            # at the cost of one edit Telegram calls "not modified").
            self._remember_shown((chat_id, message.message_id), _digest(text, markup))
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
    ) -> asyncio.Task[int | None]:
        """Send soon, in order with the chat's other posts; nobody has to wait for it.

        The task gives the new message's id (None if the chat refused it). Moves post their
        announcements this way, so a person's press is answered without waiting on
        Telegram's limits. A post someone does wait for (their screen at a game's start)
        says so with ``priority=URGENT``.
        """

        async def run() -> int | None:
            if photo is not None:
                return await self.send_photo(chat_id, photo, text, thread_id)
            return await self.send(
                chat_id, text, markup, thread_id, notify=notify, priority=priority
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
            return await self.send(
                chat_id, message.text, message.markup, message.thread_id, priority=message.priority
            )

        self._in_order(chat_id, run)
        return Slot(fill)

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
        if self._closed or chat_id in self._gone:
            return None
        await self._chat_turn(chat_id, POST)
        await self._overall_turn(POST)
        if self._closed or chat_id in self._gone:
            return None
        try:
            message = await self._retrying(
                lambda: self.bot.send_photo(
                    chat_id,
                    InputFile(png, filename="scores.png"),
                    caption=caption,
                    parse_mode=ParseMode.HTML,
                    message_thread_id=thread_id,
                )
            )
        except Forbidden as error:
            self._refused(chat_id, error)
            return None
        return message.message_id

    async def delete(self, chat_id: int, message_id: int) -> None:
        """Delete a message soon; returns at once (nothing waits for a deletion).

        Under load the rate limiter may hold the call for seconds, and callers delete
        from inside a move, before the press is answered.
        """
        self._pending.pop((chat_id, message_id), None)
        self._shown.pop((chat_id, message_id), None)
        if self._closed or chat_id in self._gone:
            return
        task = asyncio.create_task(self._delete_now(chat_id, message_id))
        self._deletions.add(task)
        task.add_done_callback(self._deletions.discard)

    async def _delete_now(self, chat_id: int, message_id: int) -> None:
        await self._overall_turn(DELETE)
        if self._closed or chat_id in self._gone:
            return
        try:
            await self._retrying(lambda: self.bot.delete_message(chat_id, message_id))
        except Forbidden as error:
            log.debug("could not delete message %s in %s: %s", message_id, chat_id, error)
            self._refused(chat_id, error)
        except BadRequest as error:
            log.debug("could not delete message %s in %s: %s", message_id, chat_id, error)
        except TelegramError as error:
            log.warning("could not delete message %s in %s: %s", message_id, chat_id, error)

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
        key = (chat_id, message_id)
        if self._shown.get(key) == _digest(text, markup) and key not in self._pending:
            return
        self._replace_pending(key, _Edit(text, markup, thread_id, priority))

    def _replace_pending(self, key: tuple[int, int], edit: _Edit) -> None:
        """Make `edit` the state to show next, keeping the most urgent priority asked for
        since the last one was sent (the person who had to act still has to see it)."""
        if self._closed or key[0] in self._gone:
            return
        older = self._pending.get(key)
        if older is not None:
            edit.priority = min(edit.priority, older.priority)
        self._pending[key] = edit
        self._start_worker(key, edit.priority)

    def _start_worker(self, key: tuple[int, int], priority: int) -> None:
        worker = self._workers.get(key)
        if worker is None or worker.done():
            self._workers[key] = asyncio.create_task(self._edit_worker(key))
            return
        wake = self._wake.get(key)
        if wake is not None and key[0] > 0 and priority <= MOVED:
            wake.set()
        elif self._pacer is not None:
            # An older state of this message may be waiting its turn at a lower priority
            # (a screen that became the acting person's): the wait moves up.
            self._pacer.promote(key, _edit_priority(key[0], priority))

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
        self._replace_pending((chat_id, message_id), _Edit("", None, thread_id, priority, render))

    async def flush(self, timeout: float = 30.0) -> None:
        """Wait until every pending edit has been sent (tests, and shutdown)."""
        deadline = time.monotonic() + timeout
        while True:
            # Waits on the work itself (what is under way may start more: loop until none).
            running = [
                *self._deletions,
                *self._posts,
                *(w for w in self._workers.values() if not w.done()),
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
            for t in [*self._workers.values(), *self._deletions, *self._posts, *self._tasks]
            if not t.done()
        ]
        if unsent:
            log.info("stopping with %d sends, edits or deletions unsent", len(unsent))
        for task in unsent:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    # ------------------------------------------------------------ internals

    async def _edit_worker(self, key: tuple[int, int]) -> None:
        try:
            await self._send_edits(key)
        finally:
            if self._workers.get(key) is asyncio.current_task():
                del self._workers[key]
                self._wake.pop(key, None)

    async def _send_edits(self, key: tuple[int, int]) -> None:
        chat_id, message_id = key
        while key in self._pending:
            ahead = self._ahead(key)
            wait = self._next_time.get(chat_id, 0.0) - ahead - time.monotonic()
            if wait > 0 or (self._sends_waiting.get(chat_id) and not ahead):
                # Woken early when the pending state becomes the presser's own screen.
                wake = self._wake.setdefault(key, asyncio.Event())
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(wake.wait(), max(wait, 0.05))
                wake.clear()
                continue  # a new message may have pushed the chat's turn further
            pending = self._pending.get(key)
            if pending is not None:
                await self._overall_turn(_edit_priority(chat_id, pending.priority), key)
            edit = self._pending.pop(key, None)
            if edit is None or self._closed or chat_id in self._gone:
                return
            text, markup = edit.screen()
            shown = _digest(text, markup)
            if self._shown.get(key) == shown:
                continue
            self._count_message(chat_id)
            try:
                await self._retrying(functools.partial(self._edit_now, chat_id, message_id, edit))
                self._remember_shown(key, shown)
            except BadRequest as error:
                text = str(error).lower()
                if "not modified" in text:
                    self._remember_shown(key, shown)
                elif "not found" in text or "can't be edited" in text:
                    await self._replace(chat_id, message_id, edit)
                    return
                else:
                    log.warning("edit of message %s in %s failed: %s", message_id, chat_id, error)
            except Forbidden as error:
                log.info("chat %s refused the bot; edit dropped", chat_id)
                self._refused(chat_id, error)
                return
            except TelegramError as error:
                log.warning("edit of message %s in %s failed: %s", message_id, chat_id, error)

    def _ahead(self, key: tuple[int, int]) -> float:
        """How far ahead of a chat's pace an edit may go: in a DM, the screen of the person
        who just pressed (their card's highlight, their played card) goes out at once, up
        to `URGENT_BURST` intervals early (three quick taps); the chat's pace then catches
        up."""
        pending = self._pending.get(key)
        if key[0] > 0 and pending is not None and pending.priority <= MOVED:
            return URGENT_BURST * self._interval(key[0])
        return 0.0

    def _interval(self, chat_id: int) -> float:
        return self.group_interval if chat_id < 0 else self.dm_interval

    async def _chat_turn(self, chat_id: int, priority: int = POST) -> None:
        """Wait until the chat may get another message, and take that turn.

        While a message waits, the chat's edits hold back: in a group, hand results and
        announcements must not queue behind table edits that the next edit replaces. A
        reply someone waits for (URGENT) may run up to `URGENT_BURST` intervals ahead of
        the chat's pace, so a few commands in a row are answered at once; what follows
        (edits included) waits until the pace has caught up.
        """
        ahead = URGENT_BURST * self._interval(chat_id) if priority == URGENT else 0.0
        self._sends_waiting[chat_id] = self._sends_waiting.get(chat_id, 0) + 1
        try:
            while (wait := self._next_time.get(chat_id, 0.0) - ahead - time.monotonic()) > 0:
                await asyncio.sleep(wait)
            self._count_message(chat_id)
        finally:
            self._sends_waiting[chat_id] -= 1
            if not self._sends_waiting[chat_id]:
                del self._sends_waiting[chat_id]

    def _count_message(self, chat_id: int) -> None:
        """A message or an edit goes to the chat now: its next edit waits an interval."""
        now = time.monotonic()
        self._next_time[chat_id] = max(now, self._next_time.get(chat_id, 0.0)) + self._interval(
            chat_id
        )
        self._paced_since_sweep += 1
        if self._paced_since_sweep > len(self._next_time):
            self._forget_cooled()

    def _forget_cooled(self) -> None:
        """Drop the pace of every chat that has cooled down (a missing pace means "now").

        Swept after as many paced requests as there are chats, so the dictionary holds
        at most the chats paced recently, at a constant cost per request."""
        now = time.monotonic()
        self._paced_since_sweep = 0
        for chat_id in [c for c, when in self._next_time.items() if when <= now]:
            del self._next_time[chat_id]

    def _remember_shown(self, key: tuple[int, int], shown: bytes) -> None:
        self._shown[key] = shown
        self._shown.move_to_end(key)
        while len(self._shown) > SHOWN_LIMIT:
            self._shown.popitem(last=False)

    # ------------------------------------------------------------ chats that refuse the bot

    def _refused(self, chat_id: int, error: Forbidden) -> None:
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
        for key in [k for k in self._pending if k[0] == chat_id]:
            del self._pending[key]
        for key in [k for k in self._shown if k[0] == chat_id]:
            del self._shown[key]
        self._next_time.pop(chat_id, None)
        if self.on_gone is not None and not self._closed:
            # Not awaited here: the write that met the 403 may hold the table's lock.
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
        self._forget_cooled()
        return {
            "pending": len(self._pending),
            "shown": len(self._shown),
            "workers": len(self._workers),
            "wake": len(self._wake),
            "next_time": len(self._next_time),
            "sends_waiting": len(self._sends_waiting),
            "last_post": len(self._last_post),
            "posts": len(self._posts),
            "deletions": len(self._deletions),
            "gone": len(self._gone),
            "pacer_keys": self._pacer.waiting_keys() if self._pacer is not None else 0,
        }

    async def _overall_turn(self, priority: int, key: Hashable | None = None) -> None:
        """Wait for this request's turn in the bot's overall pace."""
        if self._pacer is not None:
            await self._pacer.turn(priority, key)

    async def _edit_now(self, chat_id: int, message_id: int, edit: _Edit) -> object:
        return await self.bot.edit_message_text(
            edit.text,
            chat_id=chat_id,
            message_id=message_id,
            parse_mode=ParseMode.HTML,
            reply_markup=edit.markup,
            disable_web_page_preview=True,
        )

    async def _replace(self, chat_id: int, old_id: int, edit: _Edit) -> None:
        # The reader deleted the message: show the state in a new one.
        new_id = await self.send(chat_id, edit.text, edit.markup, edit.thread_id, notify=False)
        if new_id is not None and self.on_replaced is not None:
            await self.on_replaced(chat_id, old_id, new_id)

    async def _retrying(self, call: Callable[[], Awaitable[T]], tries: int = 4) -> T:
        """One call, waiting out a RetryAfter: the outbox is the one place that retries a
        message (the rate limiter passes RetryAfter on at once, see `bot.app`), so a request
        is tried at most `tries` times."""
        for attempt in range(tries):
            try:
                return await call()
            except RetryAfter as error:
                if attempt == tries - 1:
                    raise
                delay = error.retry_after
                seconds = delay.total_seconds() if hasattr(delay, "total_seconds") else delay
                await asyncio.sleep(float(seconds))
        raise AssertionError("unreachable")


def _edit_priority(chat_id: int, priority: int) -> int:
    """Where an edit waits: a group's message (a negative chat id) at GROUP_EDIT at best,
    unless someone waits for it."""
    return priority if chat_id > 0 or priority < DELETE else max(priority, GROUP_EDIT)


def _digest(text: str, markup: InlineKeyboardMarkup | None) -> bytes:
    """A short fingerprint of what a message shows (text and buttons)."""
    shown = hashlib.blake2b(text.encode(), digest_size=16)
    if markup is not None:
        shown.update(b"\0" + str(markup.to_dict()).encode())
    return shown.digest()
