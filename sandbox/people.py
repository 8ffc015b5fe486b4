"""Simulated people: they type in groups and DMs and press inline buttons.

Made by the double: `alice = double.create_user("Alice")`,
`group = double.create_group("Friday", members=[alice, bob], admins=[alice])`. Every action
becomes an update the bot receives through getUpdates, exactly as from Telegram.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from sandbox.markup import parse
from sandbox.records import ChatRecord, Json, StoredMessage, UserRecord
from sandbox.views import (
    ButtonMatcher,
    CallbackRecord,
    ChatView,
    EventKind,
    InlineRecord,
    MessageView,
)

T = TypeVar("T")


class World(Protocol):
    """What people need of the double (`sandbox.double.BotApiDouble`): its records, and a
    way to send the bot updates. Typed here so that this module does not import the double,
    which makes people."""

    bot: UserRecord
    chats: dict[int, ChatRecord]

    @property
    def bot_username(self) -> str: ...

    def user(self, user_id: int) -> UserRecord: ...

    def chat(self, chat_id: int) -> ChatRecord: ...

    def member_of(self, chat_id: int, user_id: int) -> Json: ...

    def member_changed(
        self, chat_id: int, user_id: int, old: Json, by: int | None = None
    ) -> int: ...

    def chat_view(self, chat_id: int) -> ChatView: ...

    def stored_message(self, chat_id: int, message_id: int) -> StoredMessage | None: ...

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
    ) -> StoredMessage: ...

    def new_callback(self, user_id: int, message: StoredMessage, data: str) -> CallbackRecord: ...

    def new_inline_query(self, user_id: int, query: str) -> InlineRecord: ...

    def message_to_api(self, message: StoredMessage, *, nested: bool = True) -> Json: ...

    def push_update(self, kind: str, payload: Json) -> int: ...

    def record_event(
        self,
        kind: EventKind,
        chat_id: int,
        message: StoredMessage | None,
        *,
        method: str | None = None,
        user_id: int | None = None,
    ) -> None: ...

    def bot_membership_changed(self, chat_id: int, by: int, old: str, new: str) -> int: ...

    async def wait_for(self, predicate: Callable[[], T | None], timeout: float = 5.0) -> T: ...


class NotAnswered(AssertionError):
    """The bot did not answer a button press in time (Telegram shows a spinner forever)."""


@dataclass(frozen=True)
class Group:
    """A supergroup in the double (optionally a forum), seen from the test."""

    double: World
    id: int

    @property
    def title(self) -> str:
        return self.double.chat(self.id).title or ""

    def add(self, person: SandboxUser, *, admin: bool = False) -> None:
        """Make `person` a member (and an admin if `admin`); a bot that is an admin here
        is told (``chat_member``)."""
        chat = self.double.chat(self.id)
        before = self.double.member_of(self.id, person.id)
        chat.members.add(person.id)
        chat.banned.discard(person.id)
        if admin:
            chat.admins.add(person.id)
        self.double.member_changed(self.id, person.id, before)

    def remove(self, person: SandboxUser, *, by: SandboxUser | None = None) -> None:
        """`person` leaves the group, or is removed `by` an admin; a bot that is an admin
        here is told (``chat_member``: "left", or "kicked" when removed)."""
        chat = self.double.chat(self.id)
        before = self.double.member_of(self.id, person.id)
        chat.members.discard(person.id)
        chat.admins.discard(person.id)
        chat.restricted.pop(person.id, None)
        if by is not None:
            chat.banned.add(person.id)
        self.double.member_changed(self.id, person.id, before, by.id if by else None)

    def restrict(self, person: SandboxUser, *, member: bool = True) -> None:
        """An admin restricts `person` (they may not post); `member`: whether they are
        still in the group (Telegram keeps a restricted person who left as restricted)."""
        chat = self.double.chat(self.id)
        before = self.double.member_of(self.id, person.id)
        chat.restricted[person.id] = member
        chat.admins.discard(person.id)
        if member:
            chat.members.add(person.id)
        else:
            chat.members.discard(person.id)
        self.double.member_changed(self.id, person.id, before)

    def create_topic(self, name: str, *, by: SandboxUser | None = None) -> int:
        """Open a forum topic; returns its message_thread_id (the id of its first message)."""
        chat = self.double.chat(self.id)
        if not chat.is_forum:
            raise ValueError(f"{chat.title!r} is not a forum")
        sender = by.id if by is not None else next(iter(sorted(chat.members)), self.double.bot.id)
        message = self.double.new_message(
            self.id,
            sender,
            service={"forum_topic_created": {"name": name, "icon_color": 7322096}},
        )
        message.thread_id = message.message_id
        chat.topics[message.message_id] = name
        return message.message_id

    def remove_bot(self, by: SandboxUser | None = None) -> None:
        """Kick the bot: its calls about this group get 403 from now on (and it is told,
        as Telegram tells it, with a ``my_chat_member`` update)."""
        chat = self.double.chat(self.id)
        chat.bot_member = False
        sender = by.id if by is not None else min(chat.members, default=None)
        if sender is not None:  # Telegram tells the bot who removed it
            self.double.bot_membership_changed(self.id, sender, "member", "kicked")

    def add_bot(self, by: SandboxUser | None = None) -> None:
        """Add the bot back to the group."""
        chat = self.double.chat(self.id)
        chat.bot_member = True
        sender = by.id if by is not None else min(chat.members, default=None)
        if sender is not None:
            self.double.bot_membership_changed(self.id, sender, "left", "member")

    def view(self) -> ChatView:
        return self.double.chat_view(self.id)


Chat = Group | int


@dataclass(frozen=True)
class SandboxUser:
    """A simulated Telegram user."""

    double: World
    id: int

    @property
    def name(self) -> str:
        return self.double.user(self.id).first_name

    @property
    def username(self) -> str | None:
        return self.double.user(self.id).username

    @property
    def dm(self) -> int:
        """The id of this person's private chat with the bot (equal to their user id)."""
        return self.id

    @property
    def has_started_bot(self) -> bool:
        return self.double.user(self.id).dm_open

    def dm_view(self) -> ChatView:
        return self.double.chat_view(self.id)

    def _chat_id(self, chat: Chat) -> int:
        chat_id = chat.id if isinstance(chat, Group) else int(chat)
        record = self.double.chats.get(chat_id)
        if record is None:
            raise LookupError(f"no chat {chat_id}")
        if record.type == "private" and chat_id != self.id:
            raise ValueError(f"{self.name} cannot write in another person's DM")
        if record.type != "private" and self.id not in record.members:
            raise ValueError(f"{self.name} is not a member of {record.title!r}")
        return chat_id

    async def send(
        self,
        chat: Chat,
        text: str,
        *,
        thread_id: int | None = None,
        reply_to: int | None = None,
    ) -> int:
        """Type `text` in `chat` (a Group, or `person.dm`); returns the new message id.

        A leading /command gets its bot_command entity as Telegram adds it, so
        CommandHandler sees it. Writing to the bot in private opens the DM.
        """
        chat_id = self._chat_id(chat)
        record = self.double.chat(chat_id)
        if record.type == "private":
            self.double.user(self.id).dm_open = True
        elif thread_id is not None and record.is_forum and thread_id not in record.topics:
            raise ValueError(f"no topic {thread_id} in {record.title!r}")
        entities: list[dict[str, Any]] = []
        if text.startswith("/"):
            command = text.split(maxsplit=1)[0]
            entities.append({"type": "bot_command", "offset": 0, "length": len(command)})
        message = self.double.new_message(
            chat_id,
            self.id,
            text=text,
            entities=entities,
            thread_id=thread_id,
            reply_to=reply_to,
        )
        self.double.record_event("user_message", chat_id, message, user_id=self.id)
        self.double.push_update("message", self.double.message_to_api(message))
        return message.message_id

    async def start_bot(self, payload: str | None = None) -> int:
        """Press Start in the bot's DM (from a t.me/<bot>?start=<payload> link if given)."""
        return await self.send(self.dm, "/start" if payload is None else f"/start {payload}")

    def block_bot(self) -> None:
        """Block the bot: its messages to this person get 403 from now on."""
        self.double.user(self.id).blocked_bot = True
        self.double.bot_membership_changed(self.id, self.id, "member", "kicked")

    def unblock_bot(self) -> None:
        self.double.user(self.id).blocked_bot = False
        self.double.bot_membership_changed(self.id, self.id, "kicked", "member")

    def _find_message(
        self, chat_id: int, message_id: int | None, matcher: ButtonMatcher
    ) -> StoredMessage:
        view = self.double.chat_view(chat_id)
        candidates: list[MessageView]
        if message_id is not None:
            found = view.message(message_id)
            if found is None or found.deleted:
                raise LookupError(f"message {message_id} is not shown in chat {chat_id}")
            candidates = [found]
        else:
            candidates = list(reversed(view.bot_messages))
        for message in candidates:
            if message.button(matcher) is not None:
                stored = self.double.stored_message(chat_id, message.message_id)
                assert stored is not None
                return stored
        shown = [m.labels for m in candidates[:3]]
        raise LookupError(f"no button {matcher!r} in chat {chat_id}; buttons shown: {shown}")

    async def press(
        self,
        chat: Chat,
        message_id: int | None,
        label: ButtonMatcher | None = None,
        *,
        data: str | None = None,
        timeout: float = 5.0,
        wait: bool = True,
    ) -> str | None:
        """Press a callback button and return the toast text the bot answered with.

        The button is found in the latest state of message `message_id` (None: the newest
        bot message that has it) by its label, by a predicate on the Button, or by its
        callback `data`. Returns None for an answer without text; raises NotAnswered if the
        bot does not answer within `timeout` (unless `wait` is false: then returns at once).
        """
        chat_id = self._chat_id(chat)
        if label is None and data is None:
            raise ValueError("give a label, a predicate or data")
        matcher: ButtonMatcher = label if label is not None else (lambda b: b.callback_data == data)
        message = self._find_message(chat_id, message_id, matcher)
        button = message.view().button(matcher)
        assert button is not None
        if button.callback_data is None:
            raise ValueError(f"button {button.label!r} opens {button.url!r}, it has no callback")
        record = self.double.new_callback(self.id, message, button.callback_data)
        if not wait:
            return None
        return await self._await_answer(record, timeout)

    async def inline_query(self, query: str, *, timeout: float = 5.0) -> list[dict[str, Any]]:
        """Type ``@bot query`` in a chat: the results the bot answered with."""
        record = self.double.new_inline_query(self.id, query)
        await self.double.wait_for(lambda: record.results is not None, timeout)
        assert record.results is not None
        return record.results

    async def send_inline_result(
        self, chat: Chat, query: str, result_id: str, *, timeout: float = 5.0
    ) -> int:
        """Pick result `result_id` of ``@bot query`` for `chat`, as Telegram's inline mode
        lets a person do after a ``switch_inline_query`` button: the result's message is
        sent by this person, "via" the bot, with the result's buttons. Returns its id."""
        chat_id = self._chat_id(chat)
        results = await self.inline_query(query, timeout=timeout)
        result = next((r for r in results if str(r.get("id")) == result_id), None)
        if result is None:
            raise LookupError(f"no inline result {result_id!r} for {query!r}")
        content = result.get("input_message_content") or {}
        source = str(content.get("message_text") or result.get("title") or "")
        text, entities = parse(source, content.get("parse_mode"))
        message = self.double.new_message(chat_id, self.id, text=text, entities=entities)
        markup = result.get("reply_markup")
        message.reply_markup = markup if isinstance(markup, dict) else None
        self.double.record_event("user_message", chat_id, message, user_id=self.id)
        return message.message_id

    async def press_forged(
        self, chat: Chat, message_id: int, data: str, *, timeout: float = 5.0
    ) -> str | None:
        """Send callback `data` for a message as a modified client could, button or not."""
        chat_id = self._chat_id(chat)
        message = self.double.stored_message(chat_id, message_id)
        if message is None:
            raise LookupError(f"no message {message_id} in chat {chat_id}")
        record = self.double.new_callback(self.id, message, data)
        return await self._await_answer(record, timeout)

    async def _await_answer(self, record: CallbackRecord, timeout: float) -> str | None:
        try:
            await self.double.wait_for(lambda: record.answer is not None, timeout)
        except TimeoutError as exc:
            raise NotAnswered(
                f"bot did not answer {self.name}'s press {record.data!r} within {timeout}s"
            ) from exc
        assert record.answer is not None
        return record.answer.text

    def button_deep_link(self, chat: Chat, label: ButtonMatcher) -> str | None:
        """The start payload of a t.me/<bot>?start=<payload> URL button, if there is one."""
        chat_id = self._chat_id(chat)
        for message in reversed(self.double.chat_view(chat_id).bot_messages):
            button = message.button(label)
            if button is not None and button.url:
                prefix = f"https://t.me/{self.double.bot_username}?start="
                if button.url.startswith(prefix):
                    return button.url.removeprefix(prefix)
        return None
