"""The Telegram side of the rooms' `bot.chats.Chats` port: each message through the outbox,
its typed buttons as an inline keyboard, its `Urgency` as the outbox's pacing priority."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from telegram import InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import TelegramError

from bot.chats import NONE, Button, Buttons, OpenLink, Register, Sentence, Text, Withdraw
from bot.core import decode as cb
from bot.core.effects import Urgency
from bot.screens.parts import HTML, say
from bot.telegram.draw import PRIORITY
from bot.telegram.outbox import Outbox
from bot.telegram.pace import POST

log = logging.getLogger(__name__)


def written(text: Text) -> str:
    """A message's words as Telegram's HTML (a `Sentence` written in its reader's language)."""
    return say(text.tr, text.said, HTML) if isinstance(text, Sentence) else text


def keyboard(buttons: Buttons) -> InlineKeyboardMarkup | None:
    """Rows of typed buttons as Telegram's inline keyboard; None for none."""
    if not buttons:
        return None
    return InlineKeyboardMarkup([[_button(b) for b in row] for row in buttons])


def _button(button: Button) -> InlineKeyboardButton:
    match button.action:
        case OpenLink(url):
            return InlineKeyboardButton(button.label, url=url)
        case Register(tournament_id):
            pressed: cb.Pressed = cb.Register(tournament_id)
        case Withdraw(tournament_id):
            pressed = cb.Withdraw(tournament_id)
    return InlineKeyboardButton(button.label, callback_data=pressed.encode())


class TelegramChats:
    """`bot.chats.Chats` over the outbox."""

    def __init__(self, outbox: Outbox) -> None:
        self.outbox = outbox

    def post(
        self,
        chat_id: int,
        text: Text,
        buttons: Buttons = NONE,
        thread_id: int | None = None,
        *,
        wanted: Callable[[], bool] | None = None,
    ) -> asyncio.Task[int | None]:
        return self.outbox.post(chat_id, written(text), keyboard(buttons), thread_id, wanted=wanted)

    async def send(
        self,
        chat_id: int,
        text: Text,
        buttons: Buttons = NONE,
        thread_id: int | None = None,
    ) -> int | None:
        return await self.outbox.send(chat_id, written(text), keyboard(buttons), thread_id)

    async def notify(
        self, chat_id: int, text: Text, *, wanted: Callable[[], bool] | None = None
    ) -> int | None:
        """A buzz on the person's phone (their turn), None if it could not be sent: the
        screen it points to says as much, so a failure is only logged."""
        try:
            return await self.outbox.send(chat_id, written(text), wanted=wanted, priority=POST)
        except TelegramError as error:
            log.warning("notice to %s failed: %s", chat_id, error)
            return None

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
        self.outbox.edit(
            chat_id,
            message_id,
            written(text),
            keyboard(buttons),
            thread_id,
            priority=PRIORITY[urgency],
        )

    async def delete(self, chat_id: int, message_id: int) -> None:
        await self.outbox.delete(chat_id, message_id)

    def resume(self, chat_id: int) -> None:
        self.outbox.resume_chat(chat_id)
