"""``/language``: a person chooses their DM's language, a group's admin the group's."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.basics import Person, UserError
from bot.core import decode as cb
from bot.i18n import LANGUAGES, Msg, Tr, msg
from bot.languages import Languages
from bot.tables.config import AdminCheck

AUTOMATIC = ""
"""The button that drops a choice: a DM follows the Telegram app again, a group the
language of whoever opened its first table."""


class LanguageMenu:
    def __init__(
        self,
        languages: Languages,
        is_admin: AdminCheck,
        redraw: Callable[[int], Awaitable[None]] | None = None,
    ) -> None:
        """`redraw`: brings a chat's open screens into its new language (a group's table
        messages, a person's DM)."""
        self.languages = languages
        self.is_admin = is_admin
        self.redraw = redraw

    async def menu(self, chat_id: int, person: Person) -> tuple[str, InlineKeyboardMarkup]:
        """The menu for this chat, in its current language (a group's: for admins only)."""
        await self._require_admin(chat_id, person)
        tr = self.languages.chat(chat_id)
        chosen = self.languages.chosen_in(chat_id)
        if chat_id > 0:
            text = tr("🌐 <b>Language</b> of my messages to you: {language}", language=_name(tr))
            automatic = tr("🔄 As my Telegram app")
        else:
            text = tr("🌐 <b>Language</b> of this group's tables: {language}", language=_name(tr))
            automatic = tr("🔄 As the first host")
        rows = []
        codes = list(LANGUAGES)
        for i in range(0, len(codes), 2):
            rows.append(
                [
                    InlineKeyboardButton(
                        ("• " if code == chosen else "") + LANGUAGES[code],
                        callback_data=cb.ChooseLanguage(code).encode(),
                    )
                    for code in codes[i : i + 2]
                ]
            )
        mark = "• " if chosen is None else ""
        rows.append(
            [
                InlineKeyboardButton(
                    mark + automatic, callback_data=cb.ChooseLanguage(AUTOMATIC).encode()
                )
            ]
        )
        return text, InlineKeyboardMarkup(rows)

    async def choose(self, chat_id: int, person: Person, code: str) -> Msg:
        """A press in the menu: the chat's language is `code` (or automatic) from now on."""
        if code != AUTOMATIC and code not in LANGUAGES:
            raise UserError(msg("That button isn't valid any more."))
        await self._require_admin(chat_id, person)
        if chat_id > 0:
            if chat_id != person.id:
                raise UserError(msg("That button isn't valid any more."))
            await self.languages.choose_for_person(person.id, code or None)
        else:
            await self.languages.choose_for_chat(chat_id, code or None)
        if self.redraw is not None:
            await self.redraw(chat_id)
        return msg("✅ {language}", language=_name(self.languages.chat(chat_id)))

    async def _require_admin(self, chat_id: int, person: Person) -> None:
        if chat_id < 0 and not await self.is_admin(chat_id, person.id):
            raise UserError(msg("Only a group admin can choose the group's language."))


def _name(tr: Tr) -> str:
    return LANGUAGES[tr.language]
