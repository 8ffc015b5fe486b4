"""People and chats: who a Telegram user is as last seen, a chat's choices for new
tables, and the languages chosen."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine import Rules


@dataclass(frozen=True)
class ChatSettings:
    """A chat's choices for new tables; what a chat gets before it chooses anything."""

    chat_id: int
    rules: dict[str, Any] = field(default_factory=lambda: Rules().to_dict())
    turn_timer_s: int | None = None
    """None until the chat chooses: the bot's own default (``DEFAULT_TURN_TIMER``) applies."""
    computer_level: str = "standard"
    track_cards: bool = True
    hints: bool = True
    """Whether the chat's tables offer the coach's hints (tournaments never do)."""


@dataclass
class LanguageChoices:
    """Every stored language choice, by id ('' or absent: none)."""

    chosen_by_person: dict[int, str] = field(default_factory=dict)
    """What a person chose with /language in their DM."""
    person_app: dict[int, str] = field(default_factory=dict)
    """The language of a person's Telegram app, as their latest update said."""
    chosen_by_chat: dict[int, str] = field(default_factory=dict)
    """What a group's admin chose with /language."""
    chat_first: dict[int, str] = field(default_factory=dict)
    """The language of whoever opened the group's first table."""


@dataclass(frozen=True)
class User:
    """A Telegram user as last seen."""

    user_id: int
    display_name: str
    username: str | None
    dm_open: bool
