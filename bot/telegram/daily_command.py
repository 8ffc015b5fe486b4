"""``/daily``: the daily deal (`bot.daily.daily`). In a DM: start, resume or report the
day's game (``/daily seeds``: the last closed day's seeds); in a group: its board. And the
inline query that 📣 Share starts: the person's card of the day, to send to any chat."""

from __future__ import annotations

from telegram import InlineQueryResultArticle, InputTextMessageContent, Update
from telegram.constants import ChatType, ParseMode

from bot.basics import UserError
from bot.core.decode import ReplayGame
from bot.daily.daily import DailyDesk
from bot.i18n import msg
from bot.screens.parts import PLAIN, say
from bot.screens.seat_screen import Button, Words
from bot.telegram import draw
from bot.telegram.context import HeartsContext
from bot.telegram.handlers import Replies, command, person_of

SEEDS_USAGE = msg(
    "Send /daily seeds for the last closed day's seeds, or /daily seeds N for daily deal N."
)


class DailyCommand:
    """/daily, given the daily desk and how to answer."""

    def __init__(self, replies: Replies, desk: DailyDesk) -> None:
        self.replies = replies
        self.desk = desk

    @command
    async def daily(self, update: Update, context: HeartsContext) -> None:
        """/daily: your daily deal (in a DM), or the group's board (in a group)."""
        person, chat, message = person_of(update), update.effective_chat, update.effective_message
        if person is None or chat is None:
            return
        tr = self.replies.languages.chat(chat.id)
        if chat.type in (ChatType.GROUP, ChatType.SUPERGROUP):
            board = await self.desk.board_lines(chat.id, asking=person.id)
            self.replies.reply(update, draw.lines(tr, board))
            return
        _, _, text = ((message.text if message is not None else None) or "").partition(" ")
        words = text.lower().split()
        try:
            if words[:1] == ["seeds"]:
                day = None
                if len(words) > 2:
                    raise UserError(SEEDS_USAGE)
                if len(words) == 2:
                    if not words[1].isdecimal() or len(words[1]) > 6:
                        raise UserError(SEEDS_USAGE)
                    day = int(words[1])  # any script's digits (۳۴ too)
                said = await self.desk.seeds_lines(day)
                closed = await self.desk.closed_game(person.id, day)
                if closed is not None:
                    # The closed day's own game, face up (`/replay`'s ▶ buttons).
                    day, game = closed
                    replay = Button(msg("▶ Replay day {day}", day=day), ReplayGame(game))
                    shown, markup = draw.words(tr, Words(tuple(said), ((replay,),)))
                    self.replies.reply(update, shown, markup=markup)
                    return
            else:
                said = await self.desk.play(person)
        except UserError as error:
            self.replies.reply(update, error.said)
            return
        self.replies.reply(update, draw.lines(tr, said))

    async def inline(self, update: Update, context: HeartsContext) -> None:
        """An inline query (``@bot daily``, from 📣 Share): the asker's card of the day."""
        query = update.inline_query
        if query is None or query.from_user is None:
            return
        tr = self.replies.languages.chat(query.from_user.id)
        card = await self.desk.share_card(query.from_user.id)
        if card is None:
            await query.answer([], cache_time=0, is_personal=True)
            return
        results = [
            InlineQueryResultArticle(
                id=f"daily-{self.desk.today()}",
                title=say(tr, card[0], PLAIN),
                description=say(tr, card[1], PLAIN),
                input_message_content=InputTextMessageContent(
                    draw.lines(tr, card), parse_mode=ParseMode.HTML
                ),
            )
        ]
        await query.answer(results, cache_time=0, is_personal=True)
