"""Who reads which language.

- A private chat (the hand, toasts, notices, ``/stats``) is in its person's language: their
  own choice (``/language`` in the DM), else their Telegram app's language (the
  ``language_code`` of their latest update), else English.
- A group (the table, results, tournaments, ``/scores``) is in the group's language: an
  admin's choice (``/language`` in the group), else the language of whoever opened the
  group's first table, else English.

Choices are kept in memory (read once at start) and stored as they change, so screens,
which are made when their edit is sent, never wait on the database. Several bot accounts
share them through the database: each reads the others' changes now and then (`refresh`).
"""

from __future__ import annotations

import logging
import time

from bot.i18n import ENGLISH, LANGUAGES, Tr, language_of, translator
from domain.people import LanguageChoices
from storage import People

log = logging.getLogger(__name__)


OVERLAP_MS = 5_000
"""How far back of its last read `Languages.refresh` reads again (writes commit late)."""


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


def _put(choices: dict[int, str], key: int, value: str) -> None:
    if value:
        choices[key] = value
    else:
        choices.pop(key, None)


class Languages:
    def __init__(
        self,
        people: People,
        choices: LanguageChoices | None = None,
        read_at: int | None = None,
    ) -> None:
        """`read_at`: when `choices` were read (milliseconds since 1970; now if None)."""
        self.people = people
        self.choices = choices or LanguageChoices()
        self._read_at = _now_ms() if read_at is None else read_at

    @classmethod
    async def load(cls, people: People) -> Languages:
        read_at = _now_ms()
        return cls(people, await people.language_choices(), read_at)

    async def refresh(self) -> int:
        """Take in the choices stored since the last read (by another bot account on the
        same database: a person's /language in another bot's DM, a group's admin's);
        returns how many rows changed. Rows are read from a little before the last read,
        so a change committed meanwhile is never missed."""
        read_at = _now_ms()
        people, groups = await self.people.language_changes(self._read_at - OVERLAP_MS)
        self._read_at = read_at
        c = self.choices
        for user_id, chosen, app in people:
            _put(c.chosen_by_person, user_id, chosen)
            _put(c.person_app, user_id, "" if app == ENGLISH else app)
        for chat_id, chosen, first in groups:
            _put(c.chosen_by_chat, chat_id, chosen)
            _put(c.chat_first, chat_id, first)
        return len(people) + len(groups)

    # ------------------------------------------------------------ who reads what

    def of_person(self, user_id: int) -> str:
        c = self.choices
        return c.chosen_by_person.get(user_id) or c.person_app.get(user_id) or ENGLISH

    def of_chat(self, chat_id: int) -> str:
        """A group's language; a private chat's (a positive id) is its person's."""
        if chat_id > 0:
            return self.of_person(chat_id)
        c = self.choices
        return c.chosen_by_chat.get(chat_id) or c.chat_first.get(chat_id) or ENGLISH

    def person(self, user_id: int) -> Tr:
        return translator(self.of_person(user_id))

    def chat(self, chat_id: int) -> Tr:
        return translator(self.of_chat(chat_id))

    def chosen_in(self, chat_id: int) -> str | None:
        """The language chosen with /language in this chat, if any."""
        c = self.choices
        return (c.chosen_by_person if chat_id > 0 else c.chosen_by_chat).get(chat_id)

    # ------------------------------------------------------------ what changes them

    async def seen(self, user_id: int, language_code: str | None) -> None:
        """A person's update said their app's language: remember it if it changed."""
        app = language_of(language_code) or ENGLISH
        if self.choices.person_app.get(user_id, ENGLISH) == app:
            return  # the same (English is kept as no entry: most people cost nothing)
        if app == ENGLISH:
            del self.choices.person_app[user_id]
        else:
            self.choices.person_app[user_id] = app
        await self._save_person(user_id)

    async def choose_for_person(self, user_id: int, language: str | None) -> None:
        """``/language`` in a DM (None: follow the Telegram app again)."""
        self._check(language)
        if language:
            self.choices.chosen_by_person[user_id] = language
        else:
            self.choices.chosen_by_person.pop(user_id, None)
        await self._save_person(user_id)

    async def choose_for_chat(self, chat_id: int, language: str | None) -> None:
        """``/language`` in a group, by an admin (None: back to the first table's)."""
        self._check(language)
        if language:
            self.choices.chosen_by_chat[chat_id] = language
        else:
            self.choices.chosen_by_chat.pop(chat_id, None)
        await self._save_chat(chat_id)

    async def table_opened(self, chat_id: int, opener_id: int) -> None:
        """A table opened in a group: the group's first gives it its opener's language."""
        if chat_id > 0 or chat_id in self.choices.chat_first:
            return
        self.choices.chat_first[chat_id] = self.of_person(opener_id)
        await self._save_chat(chat_id)

    def sizes(self) -> dict[str, int]:
        c = self.choices
        return {
            "chosen_by_person": len(c.chosen_by_person),
            "person_app": len(c.person_app),
            "chosen_by_chat": len(c.chosen_by_chat),
            "chat_first": len(c.chat_first),
        }

    @staticmethod
    def _check(language: str | None) -> None:
        if language is not None and language not in LANGUAGES:
            raise ValueError(f"not a shipped language: {language!r}")

    async def _save_person(self, user_id: int) -> None:
        c = self.choices
        await self.people.save_person_language(
            user_id,
            chosen=c.chosen_by_person.get(user_id, ""),
            app=c.person_app.get(user_id, ""),
        )

    async def _save_chat(self, chat_id: int) -> None:
        c = self.choices
        await self.people.save_chat_language(
            chat_id,
            chosen=c.chosen_by_chat.get(chat_id, ""),
            first=c.chat_first.get(chat_id, ""),
        )
