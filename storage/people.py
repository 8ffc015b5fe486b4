"""People and chats: who the bot knows (names, whether their DM is open), the languages
people and groups chose, and each chat's settings for new tables."""

from __future__ import annotations

import functools
import json
from typing import Any

from sqlalchemy import Connection, Table, bindparam, select

from domain.people import ChatSettings, LanguageChoices, User

from .database import Database, Dialect, Upsert, now_ms
from .journal import dumps
from .schema import chat_languages, chats, open_dms, person_languages, users


@functools.cache
def _upsert(table: Table, key: str, columns: tuple[str, ...], *changed: str) -> Upsert:
    """A row of `columns` inserted into `table`, or the row with its `key` changed to its
    other values (or only to those `changed`): built and compiled once (`Upsert`)."""

    def build(dialect: Dialect) -> Any:
        insert = (
            Database(dialect, "", ())
            .insert(table)
            .values({name: bindparam(name) for name in columns})
        )
        return insert.on_conflict_do_update(
            index_elements=[table.c[key]],
            set_={name: insert.excluded[name] for name in changed or columns if name != key},
        )

    return Upsert(build)


class People:
    """Users, their DMs and languages; chats' settings and languages. Shared by every
    bot account, but whether a person opened a DM is each account's (``account``)."""

    def __init__(self, database: Database, account: int = 0) -> None:
        self._db = database
        self.account = account

    async def _upsert(self, table: Table, key: str, row: dict[str, Any]) -> None:
        """Insert `row`, or update the row with its `key` to its other values."""
        await self._db.transact(_upsert(table, key, tuple(row)).execute, row)

    # ------------------------------------------------------------ chats

    async def get_chat_settings(self, chat_id: int) -> ChatSettings:
        """The chat's settings, or the defaults if it never chose any."""
        c = chats.c
        rows = await self._db.read(
            select(c.rules, c.turn_timer_s, c.computer_level, c.track_cards, c.hints).where(
                c.chat_id == chat_id
            )
        )
        if not rows:
            return ChatSettings(chat_id)
        rules, timer, level, track, hints = rows[0]
        return ChatSettings(chat_id, json.loads(rules), timer, level, bool(track), bool(hints))

    async def save_chat_settings(self, settings: ChatSettings) -> None:
        await self._upsert(
            chats,
            "chat_id",
            {
                "chat_id": settings.chat_id,
                "rules": dumps(settings.rules),
                "turn_timer_s": 60 if settings.turn_timer_s is None else settings.turn_timer_s,
                "computer_level": settings.computer_level,
                "track_cards": int(settings.track_cards),
                "hints": int(settings.hints),
                "updated_at": now_ms(),
            },
        )

    # ------------------------------------------------------------ languages

    async def language_choices(self) -> LanguageChoices:
        """Every person's and chat's stored language choice (loaded once at start)."""
        choices = LanguageChoices()
        p = person_languages.c
        for user_id, chosen, app in await self._db.read(select(p.user_id, p.chosen, p.app)):
            if chosen:
                choices.chosen_by_person[user_id] = chosen
            if app:
                choices.person_app[user_id] = app
        c = chat_languages.c
        for chat_id, chosen, first in await self._db.read(select(c.chat_id, c.chosen, c.first)):
            if chosen:
                choices.chosen_by_chat[chat_id] = chosen
            if first:
                choices.chat_first[chat_id] = first
        return choices

    async def language_changes(
        self, since_ms: int
    ) -> tuple[list[tuple[int, str, str]], list[tuple[int, str, str]]]:
        """The language rows stored at or after `since_ms` (by any bot account): each
        person's (id, chosen, app) and each chat's (id, chosen, first); '' for none."""
        p, c = person_languages.c, chat_languages.c
        people = await self._db.read(
            select(p.user_id, p.chosen, p.app).where(p.updated_at >= since_ms)
        )
        groups = await self._db.read(
            select(c.chat_id, c.chosen, c.first).where(c.updated_at >= since_ms)
        )
        return (
            [(int(i), str(a), str(b)) for i, a, b in people],
            [(int(i), str(a), str(b)) for i, a, b in groups],
        )

    async def save_person_language(self, user_id: int, *, chosen: str, app: str) -> None:
        """A person's own choice ('' for none) and their Telegram app's language."""
        await self._upsert(
            person_languages,
            "user_id",
            {"user_id": user_id, "chosen": chosen, "app": app, "updated_at": now_ms()},
        )

    async def save_chat_language(self, chat_id: int, *, chosen: str, first: str) -> None:
        """A group's admin's choice ('' for none) and its first table's opener's language."""
        await self._upsert(
            chat_languages,
            "chat_id",
            {"chat_id": chat_id, "chosen": chosen, "first": first, "updated_at": now_ms()},
        )

    # ------------------------------------------------------------ users

    async def upsert_user(self, user_id: int, display_name: str, username: str | None) -> None:
        """Remember a user's current name (keeps their ``dm_open`` flag)."""
        await self._upsert(
            users,
            "user_id",
            {
                "user_id": user_id,
                "display_name": display_name,
                "username": username,
                "updated_at": now_ms(),
            },
        )

    async def get_user(self, user_id: int) -> User | None:
        u = users.c
        rows = await self._db.read(select(u.display_name, u.username).where(u.user_id == user_id))
        if not rows:
            return None
        name, username = rows[0]
        return User(user_id, name, username, await self.dm_open(user_id))

    async def set_dm_open(self, user_id: int, dm_open: bool) -> None:
        """Whether this account may write to the user privately (``open_dms``; the user's
        row says it too, as the last any account learned)."""
        # A user we never saw gets a placeholder name until upsert_user names them.
        now = now_ms()
        row = {
            "user_id": user_id,
            "display_name": str(user_id),
            "dm_open": int(dm_open),
            "updated_at": now,
        }
        user = _upsert(users, "user_id", tuple(row), "dm_open", "updated_at")
        opened = {"account": self.account, "user_id": user_id, "opened_at": now}
        opening = self._db.insert(open_dms).on_conflict_do_nothing() if dm_open else None
        closing = open_dms.delete().where(
            (open_dms.c.account == self.account) & (open_dms.c.user_id == user_id)
        )

        def work(db: Connection) -> None:
            user.execute(db, row)
            if opening is not None:
                db.execute(opening, opened)
            else:
                db.execute(closing)

        await self._db.transact(work)

    async def dm_open(self, user_id: int) -> bool:
        """Whether this bot account may write to the user privately (False if unknown)."""
        rows = await self._db.read(
            select(open_dms.c.user_id).where(
                open_dms.c.account == self.account, open_dms.c.user_id == user_id
            )
        )
        return bool(rows)
