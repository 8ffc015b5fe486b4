"""A Telegram Bot API test double: an HTTP server on 127.0.0.1 that answers like Telegram.

Point python-telegram-bot at it with `ApplicationBuilder().token(double.token)
.base_url(double.base_url).base_file_url(double.base_file_url)`. The double keeps every
chat's messages, the updates waiting for the bot, the toasts, flood control and call counts;
simulated people (`sandbox.people`) act on it in process.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import struct
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from aiohttp import web

from sandbox.limits import FloodControl, RateLimits
from sandbox.markup import MarkupError, utf16_len
from sandbox.markup import parse as parse_markup
from sandbox.records import ChatRecord, Json, StoredMessage, UserRecord
from sandbox.views import (
    ApiErrorRecord,
    CallbackRecord,
    ChatView,
    Event,
    EventKind,
    InlineRecord,
    Toast,
)

if TYPE_CHECKING:
    from sandbox.people import Group, SandboxUser

T = TypeVar("T")

DEFAULT_TOKEN = "7000000001:AAsandbox-test-token-not-a-real-one"
NOT_MODIFIED = (
    "Bad Request: message is not modified: specified new message content and reply markup "
    "are exactly the same as a current content and reply markup of the message"
)
QUERY_TOO_OLD = "Bad Request: query is too old and response timeout expired or query ID is invalid"
GET_UPDATES_CONFLICT = (
    "Conflict: terminated by other getUpdates request; "
    "make sure that only one bot instance is running"
)
DEFAULT_UPDATE_TYPES = frozenset(
    {
        "message",
        "edited_message",
        "channel_post",
        "edited_channel_post",
        "callback_query",
        "inline_query",
        "chosen_inline_result",
        "my_chat_member",
    }
)
SENDING_METHODS = frozenset(
    {"sendMessage", "sendPhoto", "editMessageText", "editMessageReplyMarkup", "editMessageCaption"}
)


class ApiError(Exception):
    """An error answer: HTTP status `code` and Telegram's `description`."""

    def __init__(self, code: int, description: str, parameters: Json | None = None) -> None:
        super().__init__(description)
        self.code = code
        self.description = description
        self.parameters = parameters


def bad_request(text: str) -> ApiError:
    return ApiError(400, f"Bad Request: {text}")


@dataclass
class _PendingUpdate:
    update_id: int
    kind: str
    payload: Json


def _png_size(data: bytes) -> tuple[int, int]:
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        width, height = struct.unpack(">II", data[16:24])
        return int(width), int(height)
    return (320, 320)


class BotApiDouble:
    """The Bot API test double: state, an aiohttp server and the simulated world.

    Use as `async with BotApiDouble() as double:`; `double.base_url` is then ready for
    python-telegram-bot. Everything runs on the event loop that started it.
    """

    patience: float = 1.0
    """How many times longer than asked `wait_for` and `idle` wait before giving up. The
    tests raise it (tests/conftest.py): on a machine busy with other work the bot is slow,
    not wrong, and a time-out there only reports a bot that never gets there."""

    def __init__(
        self,
        token: str = DEFAULT_TOKEN,
        *,
        bot_username: str = "hearts_test_bot",
        bot_name: str = "Hearts",
        rate_limits: RateLimits | None = None,
        callback_timeout: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        host: str = "127.0.0.1",
        port: int = 0,
        ids_from: int = 0,
    ) -> None:
        """`ids_from`: where this double's new people's and groups' ids start after the
        usual ones. Several bot accounts are several doubles (each its own updates, flood
        limits and token); give each its own `ids_from` for people and groups of its own,
        or the same ids (`create_user(user_id=…)`) for one person seen by both bots."""
        self.token = token
        bot_id = int(token.split(":", 1)[0])
        self.bot = UserRecord(id=bot_id, first_name=bot_name, username=bot_username, is_bot=True)
        self.rate_limits = rate_limits if rate_limits is not None else RateLimits()
        # Telegram's answer window: 15 s, `patience` times that in the tests (a bot slowed
        # by a busy machine answers late, not never), unless a test asks for its own.
        self.callback_timeout = (
            callback_timeout if callback_timeout is not None else 15.0 * self.patience
        )
        self._clock = clock
        self._flood = FloodControl(self.rate_limits, clock)
        self._host = host
        self._port = port
        self._runner: web.AppRunner | None = None
        self.url = ""
        self._held: dict[tuple[str, int | None], asyncio.Event] = {}
        """Methods kept waiting (`hold`), everywhere (None) or in one chat."""
        self._flooded: dict[str, tuple[float, int, int | None]] = {}
        """Methods answered 429 until a time (`flood`), with their retry_after."""
        self.holding: dict[str, int] = {}
        """Requests waiting in `hold`, by method."""
        self._late: dict[str, float] = {}
        """Methods answered that many seconds late (`answer_late`)."""
        self._faults: dict[str, tuple[str, int]] = {}
        """Methods failing (`fail`): how, and for how many more calls."""

        self.users: dict[int, UserRecord] = {}
        self.chats: dict[int, ChatRecord] = {}
        self._messages: dict[int, dict[int, StoredMessage]] = {}
        self._files: dict[str, bytes] = {}
        self._user_ids = itertools.count(100_000_001 + ids_from)
        self._group_ids = itertools.count(1 + ids_from)
        self._file_ids = itertools.count(1)
        self._callback_ids = itertools.count(1)

        self._updates: list[_PendingUpdate] = []
        self._next_update_id = 1
        self._allowed_updates: frozenset[str] = DEFAULT_UPDATE_TYPES
        self._poll_generation = 0
        self._closing = False

        self.webhook_url = ""
        self.commands: dict[tuple[str, str], list[Json]] = {}
        self.callbacks: dict[str, CallbackRecord] = {}
        self.inline_queries: dict[str, InlineRecord] = {}
        self.toasts: list[Toast] = []
        self.events: list[Event] = []
        self.watchers: list[Callable[[Event], None]] = []
        """Called with each event as it happens (a benchmark's tally of what was written)."""
        self.errors: list[ApiErrorRecord] = []
        self.calls: Counter[tuple[str, int | None]] = Counter()
        self._seq = itertools.count(1)

        self._in_flight = 0
        self._last_activity = clock()
        self._changed = asyncio.Event()

        self._methods: dict[str, Callable[[Json], Awaitable[Any]]] = {}
        for name in _METHOD_NAMES:
            self._methods[name.lower()] = getattr(self, "_m_" + name)
        self._method_names = {name.lower(): name for name in _METHOD_NAMES}

    # ----------------------------------------------------------------- server lifecycle

    async def start(self) -> None:
        """Listen on host:port (port 0: a free one) and set `url`."""
        app = web.Application(client_max_size=60 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        self._runner = web.AppRunner(app, handler_cancellation=True, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self._host, self._port)
        await site.start()
        host, port = self._runner.addresses[0][:2]
        self.url = f"http://{host}:{port}"

    async def stop(self) -> None:
        """Stop the server; long polls in progress return at once."""
        self._closing = True
        self._notify()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> BotApiDouble:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @property
    def base_url(self) -> str:
        """For `ApplicationBuilder.base_url`: requests go to `<base_url><token>/<method>`."""
        return f"{self.url}/bot"

    @property
    def base_file_url(self) -> str:
        return f"{self.url}/file/bot"

    @property
    def bot_username(self) -> str:
        return self.bot.username or ""

    # ----------------------------------------------------------------- the simulated world

    def create_user(
        self,
        first_name: str,
        *,
        username: str | None = None,
        last_name: str | None = None,
        language_code: str = "en",
        user_id: int | None = None,
    ) -> SandboxUser:
        """A new person; they have not opened the bot in private yet."""
        from sandbox.people import SandboxUser

        uid = user_id if user_id is not None else next(self._user_ids)
        record = UserRecord(
            id=uid,
            first_name=first_name,
            last_name=last_name,
            username=username,
            language_code=language_code,
        )
        self.users[uid] = record
        self.chats[uid] = ChatRecord(
            id=uid, type="private", first_name=first_name, username=username, members={uid}
        )
        return SandboxUser(self, uid)

    def create_group(
        self,
        title: str,
        *,
        members: Iterable[SandboxUser] = (),
        admins: Iterable[SandboxUser] = (),
        creator: SandboxUser | None = None,
        forum: bool = False,
        bot_admin: bool = False,
        username: str | None = None,
    ) -> Group:
        """A supergroup with the bot in it; `admins` and `creator` are members too."""
        from sandbox.people import Group

        chat_id = -1_000_000_000_000 - next(self._group_ids)
        chat = ChatRecord(
            id=chat_id,
            type="supergroup",
            title=title,
            username=username,
            is_forum=forum,
            bot_admin=bot_admin,
        )
        self.chats[chat_id] = chat
        group = Group(self, chat_id)
        for person in members:
            group.add(person)
        for person in admins:
            group.add(person, admin=True)
        if creator is not None:
            group.add(person=creator, admin=True)
            chat.creator = creator.id
        return group

    def user(self, user_id: int) -> UserRecord:
        return self.users[user_id]

    def chat(self, chat_id: int) -> ChatRecord:
        return self.chats[chat_id]

    def new_message(
        self,
        chat_id: int,
        sender_id: int,
        *,
        text: str | None = None,
        entities: list[Json] | None = None,
        thread_id: int | None = None,
        reply_to: int | None = None,
        service: Json | None = None,
    ) -> StoredMessage:
        """Store a message from a person (or a service message) in `chat_id`."""
        chat = self.chats[chat_id]
        message = StoredMessage(
            chat_id=chat_id,
            message_id=chat.next_message_id,
            sender_id=sender_id,
            from_bot=sender_id == self.bot.id,
            date=int(time.time()),
            text=text,
            entities=entities or [],
            thread_id=thread_id,
            reply_to=reply_to,
            service=service,
        )
        chat.next_message_id += 1
        self._messages.setdefault(chat_id, {})[message.message_id] = message
        return message

    def message_to_api(self, message: StoredMessage, *, nested: bool = True) -> Json:
        """The Message object Telegram would send for `message`."""
        chat = self.chats[message.chat_id]
        sender = self.bot if message.from_bot else self.users[message.sender_id]
        data: Json = {
            "message_id": message.message_id,
            "from": sender.to_api(),
            "chat": chat.to_api(),
            "date": message.date,
        }
        if message.thread_id is not None:
            data["message_thread_id"] = message.thread_id
            if chat.is_forum:
                data["is_topic_message"] = True
        if message.edit_date is not None:
            data["edit_date"] = message.edit_date
        if message.photo_file_id is not None:
            width, height = message.photo_size
            data["photo"] = [
                {
                    "file_id": message.photo_file_id,
                    "file_unique_id": "u" + message.photo_file_id,
                    "width": width,
                    "height": height,
                    "file_size": len(message.photo or b""),
                }
            ]
            if message.caption:
                data["caption"] = message.caption
            if message.caption_entities:
                data["caption_entities"] = message.caption_entities
        elif message.text is not None:
            data["text"] = message.text
            if message.entities:
                data["entities"] = message.entities
        if message.service:
            data.update(message.service)
        if message.reply_markup and "inline_keyboard" in message.reply_markup:
            data["reply_markup"] = message.reply_markup
        if nested and message.reply_to is not None:
            replied = self._messages.get(message.chat_id, {}).get(message.reply_to)
            if replied is not None and not replied.deleted:
                data["reply_to_message"] = self.message_to_api(replied, nested=False)
        return data

    def push_update(self, kind: str, payload: Json) -> int:
        """Queue an update of `kind` ("message", "callback_query", ...) for the bot."""
        update_id = self._next_update_id
        self._next_update_id += 1
        self._updates.append(_PendingUpdate(update_id, kind, payload))
        self._touch()
        return update_id

    def delete_topic(self, chat_id: int, thread_id: int) -> None:
        """A forum topic deleted with its messages: sends to it get 400 "message thread not
        found" from now on."""
        self.chats[chat_id].topics.pop(thread_id, None)
        messages = self._messages.get(chat_id, {})
        for message_id in [
            m.message_id
            for m in messages.values()
            if m.thread_id == thread_id or m.message_id == thread_id
        ]:
            del messages[message_id]

    def take_updates(self) -> list[Json]:
        """The updates waiting for the bot, as Telegram posts them to a webhook; taken, so
        that they are no longer waiting (a test forwards them to the bot's webhook)."""
        taken = [u for u in self._updates if u.kind in self._allowed_updates]
        self._updates = []
        return [{"update_id": u.update_id, u.kind: u.payload} for u in taken]

    def repeat_update(self, update_id: int) -> None:
        """Queue a waiting update once more, with the same id (Telegram's at-least-once:
        the next getUpdates batch carries it twice)."""
        update = next(u for u in self._updates if u.update_id == update_id)
        self._updates.append(_PendingUpdate(update.update_id, update.kind, update.payload))
        self._touch()

    @property
    def last_update_id(self) -> int:
        """The id of the newest update queued for the bot (0: none yet)."""
        return self._next_update_id - 1

    def flood(
        self, method: str, seconds: float, retry_after: int = 1, chat_id: int | None = None
    ) -> None:
        """Answer every call of `method` (about `chat_id`, or any chat) with 429
        (``retry_after``) for `seconds` from now, as Telegram does under flood control."""
        self._flooded[method] = (self._clock() + seconds, retry_after, chat_id)

    def bot_membership_changed(self, chat_id: int, by: int, old: str, new: str) -> int:
        """Tell the bot its status in a chat changed (``my_chat_member``): removed from a
        group or blocked ("kicked" / "left"), added back or unblocked ("member")."""
        bot = self.bot.to_api()

        def member(status: str) -> Json:
            data: Json = {"user": bot, "status": status}
            if status == "kicked":
                data["until_date"] = 0
            return data

        return self.push_update(
            "my_chat_member",
            {
                "chat": self.chat(chat_id).to_api(),
                "from": self.user(by).to_api(),
                "date": int(time.time()),
                "old_chat_member": member(old),
                "new_chat_member": member(new),
            },
        )

    def member_changed(self, chat_id: int, user_id: int, old: Json, by: int | None = None) -> int:
        """Tell the bot a person's status in a group changed (``chat_member``), as Telegram
        does only to a bot that is an admin of the group, and only when it asked for them
        (``allowed_updates``); `old` is their member object before the change. Returns the
        update's id, or 0 when Telegram would not tell this bot."""
        chat = self.chat(chat_id)
        if not chat.bot_admin or not chat.bot_member:
            return 0
        return self.push_update(
            "chat_member",
            {
                "chat": chat.to_api(),
                "from": self.user(by if by is not None else user_id).to_api(),
                "date": int(time.time()),
                "old_chat_member": old,
                "new_chat_member": self._member(chat, user_id),
            },
        )

    def member_of(self, chat_id: int, user_id: int) -> Json:
        """A person's member object in a chat as ``getChatMember`` gives it."""
        return self._member(self.chat(chat_id), user_id)

    def record_event(
        self,
        kind: EventKind,
        chat_id: int,
        message: StoredMessage | None,
        *,
        method: str | None = None,
        user_id: int | None = None,
    ) -> None:
        self.events.append(
            Event(
                seq=next(self._seq),
                at=self._clock(),
                kind=kind,
                chat_id=chat_id,
                message_id=message.message_id if message else None,
                method=method,
                message=message.view() if message else None,
                user_id=user_id,
            )
        )
        for watch in self.watchers:
            watch(self.events[-1])
        self._touch()

    def new_callback(self, user_id: int, message: StoredMessage, data: str) -> CallbackRecord:
        """Queue a callback_query update as if `user_id` pressed a button on `message`."""
        record = CallbackRecord(
            id=str(4_000_000_000_000_000 + next(self._callback_ids) * 7919),
            user_id=user_id,
            chat_id=message.chat_id,
            message_id=message.message_id,
            data=data,
            created=self._clock(),
        )
        self.callbacks[record.id] = record
        payload: Json = {
            "id": record.id,
            "from": self.users[user_id].to_api(),
            "message": self.message_to_api(message),
            "chat_instance": str(abs(message.chat_id) * 31 + self.bot.id),
            "data": data,
        }
        self.record_event("callback", message.chat_id, message, user_id=user_id)
        self.push_update("callback_query", payload)
        return record

    def new_inline_query(self, user_id: int, query: str) -> InlineRecord:
        """Queue an inline_query update as if `user_id` typed ``@bot query`` in a chat."""
        record = InlineRecord(
            id=str(5_000_000_000_000_000 + next(self._callback_ids) * 7919),
            user_id=user_id,
            query=query,
        )
        self.inline_queries[record.id] = record
        payload: Json = {
            "id": record.id,
            "from": self.users[user_id].to_api(),
            "query": query,
            "offset": "",
        }
        self.push_update("inline_query", payload)
        return record

    # ----------------------------------------------------------------- reading state

    def chat_view(self, chat_id: int) -> ChatView:
        """Every message of a chat in its latest state, oldest first."""
        chat = self.chats[chat_id]
        messages = sorted(self._messages.get(chat_id, {}).values(), key=lambda m: m.message_id)
        title = chat.title or chat.first_name or str(chat_id)
        return ChatView(chat_id, chat.type, title, tuple(m.view() for m in messages))

    def stored_message(self, chat_id: int, message_id: int) -> StoredMessage | None:
        return self._messages.get(chat_id, {}).get(message_id)

    def history(self, chat_id: int | None = None) -> list[Event]:
        """What happened over time (in one chat, or everywhere), oldest first."""
        return [e for e in self.events if chat_id is None or e.chat_id == chat_id]

    def toasts_for(self, user_id: int | None = None, chat_id: int | None = None) -> list[Toast]:
        return [
            t
            for t in self.toasts
            if (user_id is None or t.user_id == user_id)
            and (chat_id is None or t.chat_id == chat_id)
        ]

    def unanswered_callbacks(self) -> list[CallbackRecord]:
        return [c for c in self.callbacks.values() if c.answer is None]

    def call_count(self, method: str | None = None, chat_id: int | None = None) -> int:
        """Bot API calls made, optionally of one method and/or about one chat."""
        return sum(
            n
            for (m, c), n in self.calls.items()
            if (method is None or m == method) and (chat_id is None or c == chat_id)
        )

    def calls_in_chat(self, chat_id: int) -> dict[str, int]:
        """Calls per method about one chat (answerCallbackQuery counts in the pressed chat)."""
        return {m: n for (m, c), n in self.calls.items() if c == chat_id}

    def reset_counters(self) -> None:
        """Forget call counts and errors (to measure one stretch of a game)."""
        self.calls.clear()
        self.errors.clear()

    def error_count(self, code: int | None = None) -> int:
        return sum(1 for e in self.errors if code is None or e.error_code == code)

    @property
    def pending_updates(self) -> int:
        """Updates the bot has not confirmed yet."""
        return len(self._updates)

    # ----------------------------------------------------------------- waiting

    def _touch(self) -> None:
        self._last_activity = self._clock()
        self._notify()

    def _notify(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    async def wait_for(
        self, predicate: Callable[[], T | None], timeout: float = 5.0, *, exact: bool = False
    ) -> T:
        """Wait until `predicate()` is truthy (checked after every change); return its value.

        Raises TimeoutError naming the last few events when it stays falsy for `timeout`
        seconds times `patience` (`exact`: for `timeout` seconds, as a long poll waits).
        """
        loop = asyncio.get_running_loop()
        timeout = timeout if exact else timeout * self.patience
        deadline = loop.time() + timeout
        while True:
            value = predicate()
            if value:
                return value
            remaining = deadline - loop.time()
            if remaining <= 0:
                recent = "; ".join(
                    f"{e.kind} {e.chat_id}/{e.message_id} {(e.message.text or '')[:40]!r}"
                    if e.message
                    else f"{e.kind} {e.chat_id}"
                    for e in self.events[-5:]
                )
                raise TimeoutError(f"condition not met within {timeout}s; last events: {recent}")
            changed = self._changed
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), min(remaining, 0.05))

    async def idle(self, quiet: float = 0.05, timeout: float = 10.0) -> None:
        """Wait until every update is confirmed, no request is in flight, for `quiet` seconds.

        A handler that computes for longer than `quiet` without calling the API can fool
        this; `wait_for` on the expected output is the sharper tool. Gives up after
        `timeout` seconds times `patience`.
        """
        loop = asyncio.get_running_loop()
        timeout *= self.patience
        deadline = loop.time() + timeout
        while True:
            quiet_for = self._clock() - self._last_activity
            if not self._updates and self._in_flight == 0 and quiet_for >= quiet:
                return
            if loop.time() > deadline:
                raise TimeoutError(
                    f"not idle after {timeout}s: {len(self._updates)} updates pending, "
                    f"{self._in_flight} requests in flight"
                )
            await asyncio.sleep(max(quiet - quiet_for, quiet / 5) if quiet_for < quiet else 0.005)

    # ----------------------------------------------------------------- HTTP

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        path = request.match_info["tail"]
        if path.startswith("file/bot"):
            return self._serve_file(path.removeprefix("file/bot"))
        if not path.startswith("bot") or "/" not in path:
            return _error_response(ApiError(404, "Not Found"))
        token, method = path[3:].split("/", 1)
        if token != self.token:
            return _error_response(ApiError(401, "Unauthorized"))
        handler = self._methods.get(method.lower())
        if handler is None:
            return _error_response(ApiError(404, "Not Found"))
        name = self._method_names[method.lower()]
        try:
            params = await _read_params(request)
        except ValueError as exc:
            return _error_response(bad_request(str(exc)))
        polling = name == "getUpdates"
        chat_id = self._chat_of_call(name, params)
        self.calls[(name, chat_id)] += 1
        if not polling:
            self._in_flight += 1
            self._touch()
        try:
            fault = "redirect" if "redirected" in request.query else self._fault(name)
            if fault is not None:
                return await _failed(request, fault)
            gate = self._held.get((name, None)) or self._held.get((name, chat_id))
            if gate is not None:
                self.holding[name] = self.holding.get(name, 0) + 1
                try:
                    await gate.wait()
                finally:
                    self.holding[name] -= 1
            late = self._late.get(name)
            if late is not None:
                await asyncio.sleep(late)
            flooded = self._flooded.get(name)
            if flooded is not None and self._clock() < flooded[0] and flooded[2] in (None, chat_id):
                wait = flooded[1]
                raise ApiError(429, f"Too Many Requests: retry after {wait}", {"retry_after": wait})
            result = await handler(params)
        except ApiError as exc:
            self.errors.append(ApiErrorRecord(name, chat_id, exc.code, exc.description))
            return _error_response(exc)
        finally:
            if not polling:
                self._in_flight -= 1
                self._touch()
        return web.json_response({"ok": True, "result": result})

    def hold(self, method: str, chat_id: int | None = None) -> None:
        """Keep every call of `method` (in `chat_id` only, if given) waiting, as a slow
        Telegram would, until `release`."""
        self._held.setdefault((method, chat_id), asyncio.Event())

    def fail(self, method: str, how: str | None, times: int = 1) -> None:
        """Make the next `times` calls of `method` fail, as a broken Telegram or network
        would (None: no more). `how`: an HTTP status (``"500"``, ``"502"``, ``"401"``…,
        with Telegram's JSON error), ``"html"`` (a proxy's 502 page, not JSON),
        ``"bad_json"`` (200 and a body that is not JSON), ``"redirect"`` (to itself,
        for ever: one of the `times` however often it comes back), ``"reset"`` (the connection
        closed without an answer) or ``"timeout"`` (no answer for 30 s: the caller gives
        up first)."""
        if how is None:
            self._faults.pop(method, None)
        else:
            self._faults[method] = (how, times)

    def failing(self) -> set[str]:
        """The methods `fail` still makes fail."""
        return set(self._faults)

    def _fault(self, method: str) -> str | None:
        fault = self._faults.get(method)
        if fault is None:
            return None
        how, left = fault
        if left <= 1:
            del self._faults[method]
        else:
            self._faults[method] = (how, left - 1)
        return how

    def answer_late(self, method: str, seconds: float | None) -> None:
        """Answer every call of `method` `seconds` late, as a slow Telegram would (None:
        on time again)."""
        if seconds is None:
            self._late.pop(method, None)
        else:
            self._late[method] = seconds

    def release(self, method: str, chat_id: int | None = None) -> None:
        gate = self._held.pop((method, chat_id), None)
        if gate is not None:
            gate.set()

    def _chat_of_call(self, method: str, params: Json) -> int | None:
        if method == "answerCallbackQuery":
            record = self.callbacks.get(str(params.get("callback_query_id", "")))
            return record.chat_id if record else None
        raw = params.get("chat_id")
        if raw is None:
            return None
        try:
            return int(raw)
        except (TypeError, ValueError):
            chat = self._chat_by_username(str(raw))
            return chat.id if chat else None

    def _serve_file(self, rest: str) -> web.StreamResponse:
        token, _, file_path = rest.partition("/")
        if token != self.token:
            return _error_response(ApiError(401, "Unauthorized"))
        data = self._files.get(file_path.rsplit("/", 1)[-1].split(".")[0])
        if data is None:
            return _error_response(ApiError(404, "Not Found"))
        return web.Response(body=data, content_type="application/octet-stream")

    # ----------------------------------------------------------------- parameter helpers

    def _chat_by_username(self, name: str) -> ChatRecord | None:
        name = name.removeprefix("@").lower()
        return next((c for c in self.chats.values() if (c.username or "").lower() == name), None)

    def _resolve_chat(self, params: Json, *, for_sending: bool = True) -> ChatRecord:
        raw = params.get("chat_id")
        if raw is None or raw == "":
            raise bad_request("chat_id is empty")
        chat: ChatRecord | None
        try:
            chat = self.chats.get(int(raw))
        except (TypeError, ValueError):
            chat = self._chat_by_username(str(raw))
        if chat is None:
            raise bad_request("chat not found")
        if chat.type == "private":
            user = self.users[chat.id]
            if for_sending and user.blocked_bot:
                raise ApiError(403, "Forbidden: bot was blocked by the user")
            if for_sending and not user.dm_open:
                raise ApiError(403, "Forbidden: bot can't initiate conversation with a user")
        elif not chat.bot_member:
            raise ApiError(403, f"Forbidden: bot was kicked from the {chat.type} chat")
        return chat

    def _message_for(self, chat: ChatRecord, params: Json, missing: str) -> StoredMessage:
        if params.get("inline_message_id"):
            raise bad_request("inline messages are not supported by the test double")
        message_id = _int(params, "message_id")
        if message_id is None:
            raise bad_request("message identifier is not specified")
        message = self._messages.get(chat.id, {}).get(message_id)
        if message is None or message.deleted or message.service:
            raise bad_request(missing)
        return message

    def _check_flood(self, chat: ChatRecord) -> None:
        wait = self._flood.check(chat.id, chat.is_group)
        if wait:
            raise ApiError(429, f"Too Many Requests: retry after {wait}", {"retry_after": wait})

    def _parse_text(self, params: Json, key: str, entities_key: str) -> tuple[str, list[Json]]:
        text = params.get(key)
        text = "" if text is None else str(text)
        explicit = _json(params, entities_key)
        if explicit:
            return text, list(explicit)
        try:
            return parse_markup(text, _str(params, "parse_mode"))
        except MarkupError as exc:
            raise bad_request(f"can't parse entities: {exc}") from exc
        except ValueError as exc:
            raise bad_request("unsupported parse_mode") from exc

    def _check_thread(self, chat: ChatRecord, params: Json) -> int | None:
        thread_id = _int(params, "message_thread_id")
        if thread_id is None:
            return None
        if chat.type == "private":
            return None
        if thread_id not in chat.topics and thread_id not in self._messages.get(chat.id, {}):
            raise bad_request("message thread not found")
        return thread_id

    def _check_reply(self, chat: ChatRecord, params: Json) -> int | None:
        reply = _json(params, "reply_parameters")
        message_id: int | None = None
        allow_missing = False
        if isinstance(reply, dict):
            message_id = int(reply["message_id"])
            allow_missing = bool(reply.get("allow_sending_without_reply"))
        elif _int(params, "reply_to_message_id") is not None:
            message_id = _int(params, "reply_to_message_id")
        if message_id is None:
            return None
        target = self._messages.get(chat.id, {}).get(message_id)
        if target is None or target.deleted:
            if allow_missing:
                return None
            raise bad_request("message to be replied not found")
        return message_id

    # ----------------------------------------------------------------- Bot API methods

    async def _m_getMe(self, params: Json) -> Json:
        data = self.bot.to_api()
        data.update(
            can_join_groups=True,
            can_read_all_group_messages=False,
            supports_inline_queries=False,
            can_connect_to_business=False,
            has_main_web_app=False,
        )
        return data

    async def _m_logOut(self, params: Json) -> bool:
        return True

    async def _m_close(self, params: Json) -> bool:
        return True

    async def _m_getUpdates(self, params: Json) -> list[Json]:
        if self.webhook_url:
            raise ApiError(
                409,
                "Conflict: can't use getUpdates method while webhook is active; "
                "use deleteWebhook to delete the webhook first",
            )
        offset = _int(params, "offset")
        limit = min(max(_int(params, "limit") or 100, 1), 100)
        timeout = max(0.0, float(params.get("timeout") or 0))
        allowed = _json(params, "allowed_updates")
        if isinstance(allowed, list):
            self._allowed_updates = frozenset(allowed) if allowed else DEFAULT_UPDATE_TYPES
        if offset is not None:
            if offset < 0:
                self._updates = self._updates[offset:]
            else:
                self._updates = [u for u in self._updates if u.update_id >= offset]
            self._touch()
        self._poll_generation += 1
        generation = self._poll_generation
        self._notify()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            self._updates = [u for u in self._updates if u.kind in self._allowed_updates]
            if self._updates or self._closing or loop.time() >= deadline:
                batch = self._updates[:limit]
                return [{"update_id": u.update_id, u.kind: u.payload} for u in batch]
            changed = self._changed
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), deadline - loop.time())
            if generation != self._poll_generation:
                raise ApiError(409, GET_UPDATES_CONFLICT)

    async def _m_setWebhook(self, params: Json) -> bool:
        self.webhook_url = _str(params, "url") or ""
        if params.get("drop_pending_updates") in (True, "true"):
            self._updates.clear()
        return True

    async def _m_deleteWebhook(self, params: Json) -> bool:
        self.webhook_url = ""
        if params.get("drop_pending_updates") in (True, "true"):
            self._updates.clear()
            self._touch()
        return True

    async def _m_getWebhookInfo(self, params: Json) -> Json:
        return {
            "url": self.webhook_url,
            "has_custom_certificate": False,
            "pending_update_count": len(self._updates),
        }

    def _commands_key(self, params: Json) -> tuple[str, str]:
        scope = _json(params, "scope") or {"type": "default"}
        return json.dumps(scope, sort_keys=True), _str(params, "language_code") or ""

    async def _m_setMyCommands(self, params: Json) -> bool:
        commands = _json(params, "commands")
        if not isinstance(commands, list):
            raise bad_request("commands must be an array")
        for command in commands:
            name = str(command.get("command", ""))
            if not (1 <= len(name) <= 32) or not all(
                c.islower() or c.isdigit() or c == "_" for c in name
            ):
                raise bad_request("BOT_COMMAND_INVALID")
            if not (1 <= len(str(command.get("description", ""))) <= 256):
                raise bad_request("BOT_COMMAND_DESCRIPTION_INVALID")
        self.commands[self._commands_key(params)] = [
            {"command": c["command"], "description": c["description"]} for c in commands
        ]
        return True

    async def _m_getMyCommands(self, params: Json) -> list[Json]:
        return self.commands.get(self._commands_key(params), [])

    async def _m_deleteMyCommands(self, params: Json) -> bool:
        self.commands.pop(self._commands_key(params), None)
        return True

    async def _m_sendMessage(self, params: Json) -> Json:
        chat = self._resolve_chat(params)
        text, entities = self._parse_text(params, "text", "entities")
        if not text.strip():
            raise bad_request("message text is empty")
        if utf16_len(text) > 4096:
            raise bad_request("message is too long")
        markup = _check_markup(_json(params, "reply_markup"), chat.is_group)
        thread_id = self._check_thread(chat, params)
        reply_to = self._check_reply(chat, params)
        self._check_flood(chat)
        message = self.new_message(
            chat.id, self.bot.id, text=text, entities=entities, thread_id=thread_id
        )
        message.reply_markup = markup
        message.reply_to = reply_to
        self.record_event("sent", chat.id, message, method="sendMessage")
        return self.message_to_api(message)

    async def _m_sendPhoto(self, params: Json) -> Json:
        chat = self._resolve_chat(params)
        photo = params.get("photo")
        data: bytes | None
        if isinstance(photo, bytes):
            data = photo
        elif isinstance(photo, str) and photo.startswith("attach://"):
            attached = params.get(photo.removeprefix("attach://"))
            data = attached if isinstance(attached, bytes) else None
        elif isinstance(photo, str) and photo in self._files:
            data = self._files[photo]
        elif isinstance(photo, str) and photo.startswith(("http://", "https://")):
            data = b""
        else:
            data = None
        if data is None:
            raise bad_request("there is no photo in the request")
        caption, caption_entities = self._parse_text(params, "caption", "caption_entities")
        if utf16_len(caption) > 1024:
            raise bad_request("message caption is too long")
        markup = _check_markup(_json(params, "reply_markup"), chat.is_group)
        thread_id = self._check_thread(chat, params)
        reply_to = self._check_reply(chat, params)
        self._check_flood(chat)
        message = self.new_message(chat.id, self.bot.id, thread_id=thread_id, reply_to=reply_to)
        file_id = f"photo{next(self._file_ids)}"
        self._files[file_id] = data
        message.photo = data
        message.photo_file_id = file_id
        message.photo_size = _png_size(data)
        message.caption = caption or None
        message.caption_entities = caption_entities
        message.reply_markup = markup
        self.record_event("sent", chat.id, message, method="sendPhoto")
        return self.message_to_api(message)

    async def _m_getFile(self, params: Json) -> Json:
        file_id = _str(params, "file_id") or ""
        if file_id not in self._files:
            raise bad_request("invalid file_id")
        return {
            "file_id": file_id,
            "file_unique_id": "u" + file_id,
            "file_size": len(self._files[file_id]),
            "file_path": f"photos/{file_id}.png",
        }

    async def _m_editMessageText(self, params: Json) -> Json:
        chat = self._resolve_chat(params, for_sending=True)
        message = self._message_for(chat, params, "message to edit not found")
        if not message.from_bot:
            raise bad_request("message can't be edited")
        if message.photo_file_id is not None:
            raise bad_request("there is no text in the message to edit")
        text, entities = self._parse_text(params, "text", "entities")
        if not text.strip():
            raise bad_request("message text is empty")
        if utf16_len(text) > 4096:
            raise bad_request("message is too long")
        markup = _check_markup(_json(params, "reply_markup"), chat.is_group)
        if text == message.text and entities == message.entities and markup == message.reply_markup:
            raise bad_request(NOT_MODIFIED.removeprefix("Bad Request: "))
        self._check_flood(chat)
        message.text, message.entities, message.reply_markup = text, entities, markup
        return self._edited(message, "editMessageText")

    async def _m_editMessageCaption(self, params: Json) -> Json:
        chat = self._resolve_chat(params, for_sending=True)
        message = self._message_for(chat, params, "message to edit not found")
        if not message.from_bot:
            raise bad_request("message can't be edited")
        if message.photo_file_id is None:
            raise bad_request("there is no caption in the message to edit")
        caption, entities = self._parse_text(params, "caption", "caption_entities")
        markup = _check_markup(_json(params, "reply_markup"), chat.is_group)
        old = (message.caption or "", message.caption_entities, message.reply_markup)
        if (caption, entities, markup) == old:
            raise bad_request(NOT_MODIFIED.removeprefix("Bad Request: "))
        self._check_flood(chat)
        message.caption, message.caption_entities = caption or None, entities
        message.reply_markup = markup
        return self._edited(message, "editMessageCaption")

    async def _m_editMessageReplyMarkup(self, params: Json) -> Json:
        chat = self._resolve_chat(params, for_sending=True)
        message = self._message_for(chat, params, "message to edit not found")
        if not message.from_bot:
            raise bad_request("message can't be edited")
        markup = _check_markup(_json(params, "reply_markup"), chat.is_group)
        if markup == message.reply_markup:
            raise bad_request(NOT_MODIFIED.removeprefix("Bad Request: "))
        self._check_flood(chat)
        message.reply_markup = markup
        return self._edited(message, "editMessageReplyMarkup")

    def _edited(self, message: StoredMessage, method: str) -> Json:
        message.edits += 1
        message.edit_date = int(time.time())
        self.record_event("edited", message.chat_id, message, method=method)
        return self.message_to_api(message)

    async def _m_deleteMessage(self, params: Json) -> bool:
        chat = self._resolve_chat(params, for_sending=False)
        message = self._message_for(chat, params, "message to delete not found")
        if not message.from_bot and chat.is_group and not chat.bot_admin:
            raise bad_request("message can't be deleted")
        message.deleted = True
        if chat.pinned == message.message_id:
            chat.pinned = None
        self.record_event("deleted", chat.id, message, method="deleteMessage")
        return True

    async def _m_answerInlineQuery(self, params: Json) -> bool:
        record = self.inline_queries.get(str(params.get("inline_query_id", "")))
        if record is None or record.results is not None:
            raise bad_request(QUERY_TOO_OLD.removeprefix("Bad Request: "))
        results = params.get("results")
        if isinstance(results, str):
            results = json.loads(results)
        if not isinstance(results, list) or len(results) > 50:
            raise bad_request("RESULTS_INVALID")
        record.results = results
        self._touch()
        return True

    async def _m_answerCallbackQuery(self, params: Json) -> bool:
        record = self.callbacks.get(str(params.get("callback_query_id", "")))
        expired = record is not None and self._clock() - record.created > self.callback_timeout
        if record is None or record.answer is not None or expired:
            raise bad_request(QUERY_TOO_OLD.removeprefix("Bad Request: "))
        text = _str(params, "text")
        if text is not None and len(text) > 200:
            raise bad_request("MESSAGE_TOO_LONG")
        toast = Toast(
            callback_query_id=record.id,
            user_id=record.user_id,
            chat_id=record.chat_id,
            message_id=record.message_id,
            text=text or None,
            show_alert=params.get("show_alert") in (True, "true"),
            url=_str(params, "url"),
        )
        record.answer = toast
        self.toasts.append(toast)
        self.events.append(
            Event(
                seq=next(self._seq),
                at=self._clock(),
                kind="toast",
                chat_id=record.chat_id,
                message_id=record.message_id,
                method="answerCallbackQuery",
                message=None,
                user_id=record.user_id,
            )
        )
        self._touch()
        return True

    async def _m_sendChatAction(self, params: Json) -> bool:
        self._resolve_chat(params)
        if not _str(params, "action"):
            raise bad_request("action is empty")
        self._check_thread(self._resolve_chat(params), params)
        return True

    async def _m_pinChatMessage(self, params: Json) -> bool:
        chat = self._resolve_chat(params, for_sending=False)
        message = self._message_for(chat, params, "message to pin not found")
        if chat.is_group and not chat.bot_admin:
            raise bad_request("not enough rights to manage pinned messages in the chat")
        chat.pinned = message.message_id
        return True

    async def _m_unpinChatMessage(self, params: Json) -> bool:
        chat = self._resolve_chat(params, for_sending=False)
        chat.pinned = None
        return True

    async def _m_getChat(self, params: Json) -> Json:
        chat = self._resolve_chat(params, for_sending=False)
        data = chat.to_api()
        data.update(
            accent_color_id=0,
            max_reaction_count=11,
            accepted_gift_types={
                "unlimited_gifts": False,
                "limited_gifts": False,
                "unique_gifts": False,
                "premium_subscription": False,
                "gifts_from_channels": False,
            },
        )
        if chat.type == "private":
            user = self.users[chat.id]
            if user.last_name:
                data["last_name"] = user.last_name
        if chat.pinned is not None:
            pinned = self._messages[chat.id][chat.pinned]
            data["pinned_message"] = self.message_to_api(pinned, nested=False)
        return data

    def _member(self, chat: ChatRecord, user_id: int) -> Json:
        if user_id == self.bot.id:
            user = self.bot.to_api()
            status = "administrator" if chat.bot_admin else "member"
        elif user_id in self.users:
            user = self.users[user_id].to_api()
            if chat.type == "private":
                if user_id != chat.id:  # a DM has its person and the bot, nobody else
                    raise bad_request("user not found")
                status = "member"
            elif user_id == chat.creator:
                status = "creator"
            elif user_id in chat.admins:
                status = "administrator"
            elif user_id in chat.restricted:
                status = "restricted"
            elif user_id in chat.members:
                status = "member"
            elif user_id in chat.banned:
                status = "kicked"
            else:
                status = "left"
        else:
            raise bad_request("user not found")
        data: Json = {"status": status, "user": user}
        if status == "kicked":
            data["until_date"] = 0
        if status == "restricted":
            # Telegram's ChatMemberRestricted: a member who may read but not post.
            data.update({"is_member": chat.restricted[user_id], "until_date": 0})
            data.update({f"can_{can}": False for can in _RESTRICTED_CANS})
        if status == "creator":
            data["is_anonymous"] = False
        elif status == "administrator":
            data.update(
                {
                    "can_be_edited": False,
                    "is_anonymous": False,
                    "can_manage_chat": True,
                    "can_delete_messages": True,
                    "can_manage_video_chats": True,
                    "can_restrict_members": True,
                    "can_promote_members": False,
                    "can_change_info": True,
                    "can_invite_users": True,
                    "can_post_stories": False,
                    "can_edit_stories": False,
                    "can_delete_stories": False,
                    "can_pin_messages": True,
                    "can_manage_topics": chat.is_forum,
                }
            )
        return data

    async def _m_getChatMember(self, params: Json) -> Json:
        chat = self._resolve_chat(params, for_sending=False)
        user_id = _int(params, "user_id")
        if user_id is None:
            raise bad_request("user_id is empty")
        return self._member(chat, user_id)

    async def _m_getChatAdministrators(self, params: Json) -> list[Json]:
        chat = self._resolve_chat(params, for_sending=False)
        if chat.type == "private":
            raise bad_request("there are no administrators in the private chat")
        ids = sorted(chat.admins | ({chat.creator} if chat.creator is not None else set()))
        admins = [self._member(chat, uid) for uid in ids]
        if chat.bot_admin:
            admins.append(self._member(chat, self.bot.id))
        return admins

    async def _m_getChatMemberCount(self, params: Json) -> int:
        chat = self._resolve_chat(params, for_sending=False)
        return len(chat.members) + (1 if chat.is_group and chat.bot_member else 0)


_RESTRICTED_CANS = (
    "send_messages",
    "send_audios",
    "send_documents",
    "send_photos",
    "send_videos",
    "send_video_notes",
    "send_voice_notes",
    "send_polls",
    "send_other_messages",
    "add_web_page_previews",
    "change_info",
    "invite_users",
    "pin_messages",
    "manage_topics",
    "edit_tag",
    "react_to_messages",
)
"""The permissions a ``ChatMemberRestricted`` lists (all denied in the double)."""

_METHOD_NAMES = (
    "getMe",
    "logOut",
    "close",
    "getUpdates",
    "setWebhook",
    "deleteWebhook",
    "getWebhookInfo",
    "setMyCommands",
    "getMyCommands",
    "deleteMyCommands",
    "sendMessage",
    "sendPhoto",
    "getFile",
    "editMessageText",
    "editMessageCaption",
    "editMessageReplyMarkup",
    "deleteMessage",
    "answerCallbackQuery",
    "answerInlineQuery",
    "sendChatAction",
    "pinChatMessage",
    "unpinChatMessage",
    "getChat",
    "getChatMember",
    "getChatAdministrators",
    "getChatMemberCount",
)


async def _failed(request: web.Request, how: str) -> web.Response:
    """The answer of a call made to fail (`BotApiDouble.fail`)."""
    if how == "html":
        return web.Response(
            status=502, text="<html><body>502 Bad Gateway</body></html>", content_type="text/html"
        )
    if how == "bad_json":
        return web.Response(
            status=200, text='{"ok": true, "result": ', content_type="application/json"
        )
    if how == "redirect":  # to itself, for ever: the client gives up after its tenth
        again = request.url.update_query({"redirected": "1"})
        return web.Response(status=307, headers={"Location": str(again)})
    if how == "reset":
        if request.transport is not None:
            request.transport.abort()
        return web.Response(status=500)  # never sent: the connection is gone
    if how == "timeout":
        await asyncio.sleep(30)
        return web.Response(status=504)
    code = int(how)
    return _error_response(ApiError(code, f"Error {code}: made to fail by the test"))


def _error_response(error: ApiError) -> web.Response:
    body: Json = {"ok": False, "error_code": error.code, "description": error.description}
    if error.parameters:
        body["parameters"] = error.parameters
    return web.json_response(body, status=error.code)


async def _read_params(request: web.Request) -> Json:
    """The call's parameters from the query string and a JSON, form or multipart body."""
    params: Json = dict(request.query)
    if request.method != "POST" or not request.can_read_body:
        return params
    if request.content_type == "application/json":
        try:
            body = await request.json()
        except json.JSONDecodeError as exc:
            raise ValueError("can't parse JSON body") from exc
        if isinstance(body, dict):
            params.update(body)
        return params
    form = await request.post()
    for key, value in form.items():
        if isinstance(value, web.FileField):
            params[key] = value.file.read()
        elif isinstance(value, bytes | bytearray):
            params[key] = bytes(value)
        else:
            params[key] = value
    return params


def _json(params: Json, key: str) -> Any:
    """A parameter that is a JSON value: form fields hold it serialized, JSON bodies as is."""
    value = params.get(key)
    if isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError as exc:
            raise bad_request(f"can't parse {key} JSON object") from exc
    return value


def _int(params: Json, key: str) -> int | None:
    value = params.get(key)
    if value is None or value == "":
        return None
    try:
        return int(value)
    except (TypeError, ValueError) as exc:
        raise bad_request(f"invalid {key} specified") from exc


def _str(params: Json, key: str) -> str | None:
    value = params.get(key)
    return None if value is None else str(value)


def _check_markup(markup: Any, in_group: bool = False) -> Json | None:
    """Validate an inline keyboard like Telegram does; other keyboards are kept as they are.

    A ``web_app`` button opens only an https page, and only in a private chat. (Like
    Telegram's test environment, the double allows http on this machine: the sandbox.)"""
    if markup is None:
        return None
    if not isinstance(markup, dict):
        raise bad_request("can't parse reply keyboard markup JSON object")
    if "inline_keyboard" not in markup:
        return markup
    rows = markup["inline_keyboard"]
    if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
        raise bad_request(
            "can't parse inline keyboard button: "
            'field "inline_keyboard" must be an Array of Arrays'
        )
    clean_rows: list[list[Json]] = []
    for row in rows:
        clean_row: list[Json] = []
        for button in row:
            if not isinstance(button, dict) or not isinstance(button.get("text"), str):
                raise bad_request(
                    'can\'t parse inline keyboard button: Field "text" must be of type String'
                )
            if not button["text"]:
                raise bad_request("BUTTON_TEXT_INVALID")
            if "callback_data" in button:
                data = str(button["callback_data"])
                if not 1 <= len(data.encode("utf-8")) <= 64:
                    raise bad_request("BUTTON_DATA_INVALID")
            elif "url" in button:
                if not str(button["url"]).startswith(("http://", "https://", "tg://")):
                    raise bad_request("BUTTON_URL_INVALID")
            elif "web_app" in button:
                if in_group:
                    raise bad_request("BUTTON_TYPE_INVALID")
                page = button["web_app"].get("url") if isinstance(button["web_app"], dict) else ""
                local = str(page).startswith(("http://127.0.0.1", "http://localhost"))
                if not (str(page).startswith("https://") or local):
                    raise bad_request("BUTTON_URL_INVALID")
            elif not any(
                k in button
                for k in (
                    "switch_inline_query",
                    "switch_inline_query_current_chat",
                    "switch_inline_query_chosen_chat",
                    "login_url",
                    "copy_text",
                    "callback_game",
                    "pay",
                )
            ):
                raise bad_request(
                    "can't parse inline keyboard button: "
                    "Text buttons are unallowed in the inline keyboard"
                )
            clean_row.append(button)
        clean_rows.append(clean_row)
    if not any(clean_rows):
        return None
    return {"inline_keyboard": clean_rows}
