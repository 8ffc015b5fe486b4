"""The Telegram adapter's side of the screens: what `bot.screens.screens.Screens` decides to
show, drawn (`bot.telegram.draw`) and handed to the `Outbox`.

It implements the `Display` port `Screens` declares: the tables make screens as data and
keep their message ids; this draws them in HTML with their keyboards, maps an `Urgency` to
the outbox's pacing (`draw.PRIORITY`) and says Telegram's refusal in the port's words.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from telegram import InlineKeyboardMarkup
from telegram.error import TelegramError

from bot.core.effects import Urgency
from bot.i18n import Tr
from bot.screens.screens import NotShown
from bot.screens.seat_screen import GroupScreen, Screen, SeatScreen
from bot.telegram import draw
from bot.telegram.outbox import Outbox


class TelegramDisplay:
    """Screens drawn for Telegram and sent through the outbox."""

    def __init__(self, outbox: Outbox, bot_username: str, webapp_url: str | None = None) -> None:
        """`webapp_url`: the table page's address (``WEBAPP_URL``); without it no button
        opens the page."""
        self.outbox = outbox
        self.bot_username = bot_username
        self.webapp_url = webapp_url
        self.page = webapp_url is not None

    def draw(self, tr: Tr, screen: Screen) -> tuple[str, InlineKeyboardMarkup | None]:
        """A screen as a message's HTML text and its keyboard."""
        if isinstance(screen, SeatScreen):
            return draw.seat_dm(tr, screen, self.webapp_url)
        if isinstance(screen, GroupScreen):
            return draw.group(tr, screen, self.bot_username)
        return draw.words(tr, screen, self.bot_username)

    def post(
        self,
        chat_id: int,
        tr: Tr,
        screen: Screen,
        thread_id: int | None = None,
        *,
        notify: bool = True,
        photo: bytes | None = None,
        urgency: Urgency | None = None,
    ) -> asyncio.Task[int | None]:
        text, markup = self.draw(tr, screen)
        if isinstance(screen, SeatScreen):
            self.outbox.bottom.follow(chat_id)  # whatever lands below it is known
        if urgency is None:
            return self.outbox.post(chat_id, text, markup, thread_id, notify=notify, photo=photo)
        return self.outbox.post(
            chat_id,
            text,
            markup,
            thread_id,
            notify=notify,
            photo=photo,
            priority=draw.PRIORITY[urgency],
        )

    async def send(
        self, chat_id: int, tr: Tr, screen: Screen, thread_id: int | None = None
    ) -> int | None:
        text, markup = self.draw(tr, screen)
        if isinstance(screen, SeatScreen):
            self.outbox.bottom.follow(chat_id)
        try:
            return await self.outbox.send(chat_id, text, markup, thread_id)
        except TelegramError as error:
            raise NotShown(str(error)) from error

    def edit(
        self,
        chat_id: int,
        message_id: int,
        tr: Tr,
        screen: Screen,
        thread_id: int | None = None,
        *,
        urgency: Urgency | None = None,
    ) -> None:
        text, markup = self.draw(tr, screen)
        if urgency is None:
            self.outbox.edit(chat_id, message_id, text, markup, thread_id)
        else:
            priority = draw.PRIORITY[urgency]
            self.outbox.edit(chat_id, message_id, text, markup, thread_id, priority=priority)

    def edit_later(
        self,
        chat_id: int,
        message_id: int,
        screen: Callable[[], tuple[Tr, Screen]],
        thread_id: int | None = None,
        *,
        urgency: Urgency | None = None,
    ) -> None:
        def drawn() -> tuple[str, InlineKeyboardMarkup | None]:
            return self.draw(*screen())

        if urgency is None:
            self.outbox.edit_later(chat_id, message_id, drawn, thread_id)
        else:
            priority = draw.PRIORITY[urgency]
            self.outbox.edit_later(chat_id, message_id, drawn, thread_id, priority=priority)

    async def delete(self, chat_id: int, message_id: int) -> None:
        await self.outbox.delete(chat_id, message_id)

    def is_gone(self, chat_id: int) -> bool:
        return self.outbox.is_gone(chat_id)

    def is_newest(self, chat_id: int, message_id: int) -> bool:
        return self.outbox.bottom.is_newest(chat_id, message_id)
