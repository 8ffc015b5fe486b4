"""What a person sees: read-only snapshots of chats, messages, buttons and toasts.

These are the values tests and the web sandbox read; the double keeps its own mutable
records and hands out these frozen copies.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple


class Button(NamedTuple):
    """An inline keyboard button as shown: its label and what pressing it does."""

    label: str
    callback_data: str | None
    url: str | None = None
    copy_text: str | None = None
    """What the button copies to the clipboard (``copy_text``), if that is what it does."""
    switch_inline_query: str | None = None
    """The inline query the button starts in a chat the presser picks, if it does that."""


ButtonMatcher = str | Callable[[Button], bool]


def button_matches(button: Button, matcher: ButtonMatcher) -> bool:
    """True if `button` has the label `matcher`, or `matcher(button)` is true."""
    if isinstance(matcher, str):
        return button.label == matcher
    return matcher(button)


@dataclass(frozen=True)
class MessageView:
    """One message in its latest state (or its state at one moment of the history)."""

    chat_id: int
    message_id: int
    sender_id: int
    from_bot: bool
    text: str | None
    """Plain text as shown (markup removed); the caption for a photo."""
    entities: tuple[tuple[str, int, int], ...]
    """(type, offset, length) of each formatting entity, offsets in UTF-16 units."""
    buttons: tuple[tuple[Button, ...], ...]
    thread_id: int | None
    photo: bytes | None
    has_photo: bool
    deleted: bool
    edits: int
    reply_to: int | None
    date: int

    @property
    def labels(self) -> list[list[str]]:
        """The button labels, row by row."""
        return [[button.label for button in row] for row in self.buttons]

    def all_buttons(self) -> Iterator[Button]:
        for row in self.buttons:
            yield from row

    def button(self, matcher: ButtonMatcher) -> Button | None:
        """The first button matching `matcher` (a label or a predicate), if any."""
        return next((b for b in self.all_buttons() if button_matches(b, matcher)), None)


@dataclass(frozen=True)
class ChatView:
    """A chat as it looks now: every message it ever had, deleted ones flagged."""

    chat_id: int
    type: str
    title: str
    messages: tuple[MessageView, ...]

    @property
    def visible(self) -> list[MessageView]:
        """The messages still shown (not deleted), oldest first."""
        return [m for m in self.messages if not m.deleted]

    @property
    def bot_messages(self) -> list[MessageView]:
        """The bot's messages still shown, oldest first."""
        return [m for m in self.visible if m.from_bot]

    def in_thread(self, thread_id: int | None) -> list[MessageView]:
        """Visible messages of one forum topic (None: the general topic)."""
        return [m for m in self.visible if m.thread_id == thread_id]

    def last(self, *, from_bot: bool = True) -> MessageView | None:
        """The newest visible message from the bot (or from people)."""
        found = [m for m in self.visible if m.from_bot == from_bot]
        return found[-1] if found else None

    def find(self, contains: str) -> MessageView | None:
        """The newest visible message whose text contains `contains`."""
        for message in reversed(self.visible):
            if message.text is not None and contains in message.text:
                return message
        return None

    def message(self, message_id: int) -> MessageView | None:
        return next((m for m in self.messages if m.message_id == message_id), None)

    @property
    def texts(self) -> list[str]:
        """Texts of the visible messages, oldest first."""
        return [m.text or "" for m in self.visible]


EventKind = Literal["sent", "edited", "deleted", "user_message", "callback", "toast"]


@dataclass(frozen=True)
class Event:
    """One thing that happened in a chat, in order; `message` is the state right after."""

    seq: int
    at: float
    kind: EventKind
    chat_id: int
    message_id: int | None
    method: str | None
    message: MessageView | None
    user_id: int | None = None


@dataclass(frozen=True)
class Toast:
    """The bot's answer to a button press, as the person sees it."""

    callback_query_id: str
    user_id: int
    chat_id: int
    message_id: int
    text: str | None
    show_alert: bool
    url: str | None


@dataclass
class InlineRecord:
    """An inline query sent to the bot (``@bot text`` typed in any chat), and its answer:
    the results as the bot sent them (None until it answers)."""

    id: str
    user_id: int
    query: str
    results: list[dict[str, Any]] | None = None


@dataclass
class CallbackRecord:
    """A button press sent to the bot, and whether (and how) it was answered."""

    id: str
    user_id: int
    chat_id: int
    message_id: int
    data: str
    created: float
    answer: Toast | None = None

    @property
    def answered(self) -> bool:
        return self.answer is not None


@dataclass(frozen=True)
class ApiErrorRecord:
    """An error the double gave the bot."""

    method: str
    chat_id: int | None
    error_code: int
    description: str
