"""The double's records of users, chats and messages: what `sandbox.double` stores and
`sandbox.people` acts on (a module of their own, so neither imports the other's)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sandbox.views import Button, MessageView

Json = dict[str, Any]


@dataclass
class UserRecord:
    id: int
    first_name: str
    last_name: str | None = None
    username: str | None = None
    is_bot: bool = False
    language_code: str | None = "en"
    dm_open: bool = False
    """The user has started the bot in private, so the bot may write to them."""
    blocked_bot: bool = False

    def to_api(self) -> Json:
        data: Json = {"id": self.id, "is_bot": self.is_bot, "first_name": self.first_name}
        if self.last_name:
            data["last_name"] = self.last_name
        if self.username:
            data["username"] = self.username
        if self.language_code and not self.is_bot:
            data["language_code"] = self.language_code
        return data


@dataclass
class ChatRecord:
    id: int
    type: str
    title: str | None = None
    username: str | None = None
    first_name: str | None = None
    is_forum: bool = False
    members: set[int] = field(default_factory=set)
    admins: set[int] = field(default_factory=set)
    restricted: dict[int, bool] = field(default_factory=dict)
    """People an admin restricted, and whether each is still a member (Telegram's
    ``ChatMemberRestricted.is_member``: a restricted person who left is not)."""
    banned: set[int] = field(default_factory=set)
    """People an admin removed (Telegram's ``kicked``) and has not let back in."""
    creator: int | None = None
    topics: dict[int, str] = field(default_factory=dict)
    bot_member: bool = True
    bot_admin: bool = False
    next_message_id: int = 1
    pinned: int | None = None

    @property
    def is_group(self) -> bool:
        return self.type in ("group", "supergroup")

    def to_api(self) -> Json:
        data: Json = {"id": self.id, "type": self.type}
        if self.title is not None:
            data["title"] = self.title
        if self.username:
            data["username"] = self.username
        if self.first_name is not None:
            data["first_name"] = self.first_name
        if self.is_forum:
            data["is_forum"] = True
        return data


@dataclass
class StoredMessage:
    chat_id: int
    message_id: int
    sender_id: int
    from_bot: bool
    date: int
    text: str | None = None
    entities: list[Json] = field(default_factory=list)
    reply_markup: Json | None = None
    thread_id: int | None = None
    photo: bytes | None = None
    photo_file_id: str | None = None
    photo_size: tuple[int, int] = (0, 0)
    caption: str | None = None
    caption_entities: list[Json] = field(default_factory=list)
    deleted: bool = False
    edit_date: int | None = None
    edits: int = 0
    reply_to: int | None = None
    service: Json | None = None

    def view(self) -> MessageView:
        buttons: list[tuple[Button, ...]] = []
        keyboard = (self.reply_markup or {}).get("inline_keyboard") or []
        for row in keyboard:
            buttons.append(
                tuple(
                    Button(
                        b.get("text", ""),
                        b.get("callback_data"),
                        b.get("url"),
                        (b.get("copy_text") or {}).get("text"),
                        b.get("switch_inline_query"),
                    )
                    for b in row
                )
            )
        is_photo = self.photo_file_id is not None
        entities = self.caption_entities if is_photo else self.entities
        return MessageView(
            chat_id=self.chat_id,
            message_id=self.message_id,
            sender_id=self.sender_id,
            from_bot=self.from_bot,
            text=self.caption if is_photo else self.text,
            entities=tuple((e["type"], e["offset"], e["length"]) for e in entities),
            buttons=tuple(buttons),
            thread_id=self.thread_id,
            photo=self.photo,
            has_photo=is_photo,
            deleted=self.deleted,
            edits=self.edits,
            reply_to=self.reply_to,
            date=self.date,
        )
