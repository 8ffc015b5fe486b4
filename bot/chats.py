"""The port to people's chats: what the tables and the tournaments ask of whoever carries
their messages, with buttons as typed data. The Telegram adapter carries it out
(`bot.telegram.chats.TelegramChats`, over the outbox); neither side imports the other.

A message's text is a `Sentence` (its parts and its reader's `Tr`: the adapter writes it),
or, as the tournaments still write theirs, Telegram's HTML made by `Tr`; how soon it must
go is the core's `Urgency`, or, for a message nobody waits for, `notify` and `post`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from bot.core.effects import Urgency

if TYPE_CHECKING:
    from bot.i18n import Tr
    from bot.screens.parts import Part


@dataclass(frozen=True)
class OpenLink:
    """Opens a link (a deep link into the bot's DM)."""

    url: str


@dataclass(frozen=True)
class Register:
    """Registers the presser for the tournament."""

    tournament_id: int


@dataclass(frozen=True)
class Withdraw:
    """Withdraws the presser from the tournament."""

    tournament_id: int


Action = OpenLink | Register | Withdraw


@dataclass(frozen=True)
class Button:
    """A button under a message: its label (in its reader's language) and what it does."""

    label: str
    action: Action


@dataclass(frozen=True)
class Sentence:
    """A message's words as data: its parts (a `Msg` with its `Name`s), in the language of
    `tr`, written by the adapter that sends it."""

    tr: Tr
    said: Part


Text = str | Sentence
"""What a message says: a `Sentence`, or text already written (Telegram's HTML)."""

Buttons = Sequence[Sequence[Button]]
"""Rows of buttons under a message; empty for none."""
NONE: Buttons = ()


class Chats(Protocol):
    """Messages to a chat (a group, its topic, or a person's DM)."""

    def post(
        self,
        chat_id: int,
        text: Text,
        buttons: Buttons = NONE,
        thread_id: int | None = None,
        *,
        wanted: Callable[[], bool] | None = None,
    ) -> Awaitable[int | None]:
        """A new message in its chat's order that nobody waits for; the awaitable gives its
        id (None if it could not be sent, or `wanted` said it was no longer wanted)."""
        ...

    async def send(
        self,
        chat_id: int,
        text: Text,
        buttons: Buttons = NONE,
        thread_id: int | None = None,
    ) -> int | None:
        """A new message someone waits for, sent now; its id, or None."""
        ...

    async def notify(
        self, chat_id: int, text: Text, *, wanted: Callable[[], bool] | None = None
    ) -> int | None:
        """A message nobody waits for, sent now rather than in its chat's order (a "your
        turn" nudge); not sent once `wanted` says no. Its id, or None."""
        ...

    def edit(
        self,
        chat_id: int,
        message_id: int,
        text: Text,
        buttons: Buttons = NONE,
        thread_id: int | None = None,
        *,
        urgency: Urgency = Urgency.EDIT,
    ) -> None:
        """Change a message (edits of one message coalesce)."""
        ...

    async def delete(self, chat_id: int, message_id: int) -> None:
        """Delete a message, if it still can be."""
        ...

    def resume(self, chat_id: int) -> None:
        """The chat wrote to the bot, so it has not blocked it: write to it again."""
        ...
