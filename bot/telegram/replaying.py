"""Replays in Telegram: `/replay` in a group, and the ▶ buttons (a game's hands, a hand).

The words and who may see what are `bot.replays.replays`'; this draws them (`draw.words`)
in the chat's language and puts them where they were asked for: a button of a replay's
own message shows its answer in that message, a ▶ Replay under a hand's result (a DM's,
the group's) in a new message of that chat. The text fits one message (`fit`).
"""

from __future__ import annotations

from urllib.parse import urlencode

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update, WebAppInfo

from bot.basics import Person
from bot.i18n import Msg, msg
from bot.languages import Languages
from bot.replays.replays import Replays
from bot.screens.parts import PLAIN, say
from bot.screens.seat_screen import Words
from bot.telegram import draw
from bot.telegram.context import HeartsContext
from bot.telegram.fit import MESSAGE_LIMIT, fit_html, utf16_len
from bot.telegram.handlers import Replies, command, thread_of
from bot.telegram.outbox import Outbox
from bot.telegram.pace import URGENT


class ReplayChat:
    """`/replay` and the replay buttons, answered in the chat they came from."""

    def __init__(
        self,
        replies: Replies,
        replays: Replays,
        languages: Languages,
        outbox: Outbox,
        bot_username: str = "",
        webapp: str | None = None,
    ) -> None:
        self.replies = replies
        self.replays = replays
        self.languages = languages
        self.outbox = outbox
        self.bot_username = bot_username
        self.webapp = webapp
        """The table page's address (``WEBAPP_URL``): a hand's replay opens there too."""

    @command
    async def replay(self, update: Update, context: HeartsContext) -> None:
        """/replay in a group: its last games, to replay their hands."""
        chat = update.effective_chat
        if chat is None:
            return
        if chat.type not in ("group", "supergroup"):
            self.replies.reply(update, msg("Send /replay in the group where the game was played."))
            return
        thread = thread_of(update)
        said = await self.replays.listing(chat.id, thread)
        text, markup = self._draw(chat.id, said)
        self.outbox.post(chat.id, text, markup, thread_id=thread, priority=URGENT)

    def scores_button(self, chat_id: int, game_id: int) -> InlineKeyboardMarkup:
        """▶ Replay under `/scores`, for the game it shows; its hands come in a message of
        their own (the scores stay)."""
        markup = self._draw(chat_id, self.replays.scores_button(game_id))[1]
        assert markup is not None
        return markup

    async def game(
        self, game_id: int, person: Person, chat_id: int | None, message_id: int | None
    ) -> Msg:
        """▶ Game n: its finished hands, in the message pressed."""
        said, topic = await self.replays.game(game_id, person, chat_id)
        thread = topic if chat_id is not None and chat_id < 0 else None
        self._show(chat_id, message_id, said, thread_id=thread)
        return msg("▶ Game {game}", game=game_id)

    async def hand(
        self,
        game_id: int,
        hand: int,
        new: bool,
        person: Person,
        chat_id: int | None,
        message_id: int | None,
    ) -> Msg:
        """▶ Hand n: the hand as text, in the message pressed or (under a result) a new one."""
        said, topic = await self.replays.text(game_id, hand, person, chat_id)
        if chat_id is not None and self._too_long(chat_id, said):
            said, topic = await self.replays.text(game_id, hand, person, chat_id, short=True)
        thread = topic if chat_id is not None and chat_id < 0 else None
        self._show(chat_id, None if new else message_id, said, (game_id, hand), thread)
        return msg("▶ Hand {hand}", hand=hand)

    def _show(
        self,
        chat_id: int | None,
        message_id: int | None,
        said: Words,
        on_page: tuple[int, int] | None = None,
        thread_id: int | None = None,
    ) -> None:
        if chat_id is None:
            return
        text, markup = self._draw(chat_id, said)
        if on_page is not None and self.webapp is not None:
            markup = self._with_page(chat_id, markup, *on_page)
        if message_id is None:
            self.outbox.post(chat_id, text, markup, thread_id, priority=URGENT)
        else:
            self.outbox.edit(chat_id, message_id, text, markup, priority=URGENT)

    def _with_page(
        self, chat_id: int, markup: InlineKeyboardMarkup | None, game_id: int, hand: int
    ) -> InlineKeyboardMarkup:
        """The hand's replay on the table page, a button away: the bot's main Mini App
        in a group (``startapp=g<game>r<hand>``), the page itself in a DM."""
        assert self.webapp is not None
        label = say(self.languages.chat(chat_id), msg("🃏 Open table"), PLAIN)
        if chat_id < 0:
            url = f"https://t.me/{self.bot_username}?startapp=g{game_id}r{hand}"
            button = InlineKeyboardButton(label, url=url)
        else:
            address = f"{self.webapp}?{urlencode({'g': game_id, 'r': hand})}"
            button = InlineKeyboardButton(label, web_app=WebAppInfo(address))
        rows = [list(row) for row in markup.inline_keyboard] if markup is not None else []
        return InlineKeyboardMarkup([*rows, [button]])

    def _too_long(self, chat_id: int, said: Words) -> bool:
        text, _ = draw.words(self.languages.chat(chat_id), said)
        return utf16_len(text) > MESSAGE_LIMIT

    def _draw(self, chat_id: int, said: Words) -> tuple[str, InlineKeyboardMarkup | None]:
        text, markup = draw.words(self.languages.chat(chat_id), said)
        return fit_html(text), markup
