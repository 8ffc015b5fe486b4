"""Telegram updates in, calls to the tables out. Each handler parses, calls one method, answers.

Handlers are methods of a small class per subject (`TableCommands`, `PeopleCommands`,
`EventCommand`, `Buttons`, `Errors`), each given at wiring time (`bot.rooms.wire_handlers`)
the entry points it calls and the collaborators it answers with, and nothing else; every
command answers through `Replies`; every button is decoded to its typed press
(`bot.core.decode.from_button`) and carried out in one ``match`` (`Buttons`)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, assert_never

from telegram import Chat, InlineKeyboardMarkup, Update
from telegram.constants import ChatMemberStatus, ChatType
from telegram.error import TelegramError

from bot.basics import Person, UserError
from bot.computers.coach import Coach
from bot.core import accepts
from bot.core import decode as cb
from bot.daily.daily import DailyDesk
from bot.flood import Verdict
from bot.i18n import NOTHING, Msg, Tr, msg, plain_name
from bot.language_menu import LanguageMenu
from bot.languages import Languages
from bot.lobby.links import DirectChats
from bot.lobby.lobby import NOT_IN_CHAT, Lobby
from bot.lobby.rules_menu import RulesMenu
from bot.screens.parts import HTML, PLAIN, say
from bot.standings.rating import Ratings
from bot.standings.standings import Standings
from bot.tables.closing import Closer
from bot.tables.play import Moves
from bot.tables.presence import Presence
from bot.tables.registry import TableRegistry
from bot.telegram import draw, once
from bot.telegram.context import BotData, HeartsContext
from bot.telegram.outbox import ARRIVED, Outbox, Slot
from bot.telegram.pace import URGENT
from bot.tournaments.commands import TournamentCommands
from bot.tournaments.entries import Entries
from domain.handling import Handling
from storage import Journal, Ledger
from storage.errors import StorageUnavailable

log = logging.getLogger(__name__)

UNKNOWN_BUTTON = msg("That button isn't valid any more.")
STORAGE_TROUBLE = msg("I can't save anything right now. Please try again in a minute.")
TOO_FAST = msg("You're sending commands too fast. I'll answer again in a few seconds.")
PRESSING_TOO_FAST = msg("Slow down a little.")
GROUP_ONLY = msg("Tables are opened in a group: add me to one and send /newgame there.")
NO_TABLE = msg("There's no table here. Start one with /newgame.")


def person_of(update: Update) -> Person | None:
    user = update.effective_user
    if user is None or user.is_bot:
        return None
    name = plain_name(user.full_name or user.username or str(user.id))
    return Person(user.id, name, user.username)


def thread_of(update: Update) -> int | None:
    message = update.effective_message
    if message is None or not message.is_topic_message:
        return None
    return message.message_thread_id


def _is_group(chat: Chat | None) -> bool:
    return chat is not None and chat.type in (ChatType.GROUP, ChatType.SUPERGROUP)


_reply_slot: ContextVar[Slot | None] = ContextVar("reply_slot", default=None)
"""The place in its chat's order kept for the answer of the command being handled."""


class Replies:
    """How a command is answered: in its chat's language, in the order the commands came."""

    def __init__(self, outbox: Outbox, languages: Languages) -> None:
        self.outbox = outbox
        self.languages = languages

    def reply(
        self,
        update: Update,
        said: str | Msg,
        *,
        photo: bytes | None = None,
        markup: InlineKeyboardMarkup | None = None,
    ) -> asyncio.Task[int | None] | None:
        """Answer a command in its chat (and topic) without waiting for the chat's pace.

        The answer goes out in the order the commands came (in the place `command` kept for
        it), ahead of what nobody waits for in the bot's overall pace; the handler returns at
        once, so one chat's pace never holds a handler that another chat's update needs."""
        chat = update.effective_chat
        if chat is None:
            return None
        # In the chat's language: a group's own, a DM its person's.
        tr = self.languages.chat(chat.id)
        text = say(tr, said, HTML) if isinstance(said, Msg) else tr(said)
        slot = _reply_slot.get()
        if slot is not None and not slot.used:
            slot.post(text, markup, thread_id=thread_of(update), photo=photo)
            return slot.sent
        return self.outbox.post(
            chat.id, text, markup, thread_id=thread_of(update), priority=URGENT, photo=photo
        )

    async def gated(
        self,
        update: Update,
        context: HeartsContext,
        handle: Callable[[], Awaitable[None]],
        name: str,
    ) -> None:
        """`handle` the command behind its sender's rate, with its answer's place kept
        (`command`)."""
        user, chat = update.effective_user, update.effective_chat
        if user is not None:
            verdict = context.bot_data.command_limiter.check(user.id)
            posts = context.bot_data.group_posts
            # Whatever the bot says in a group (an answer, or that they go too fast) is a
            # post there: it takes the person's share of the group's posts, and past that
            # they are not answered there at all.
            if (
                verdict is not Verdict.DROP
                and chat is not None
                and _is_group(chat)
                and posts.check(chat.id, user.id) is not Verdict.ALLOW
            ):
                verdict = Verdict.DROP
            if verdict is Verdict.WARN:
                self.reply(update, TOO_FAST)
            if verdict is not Verdict.ALLOW:
                return
        if chat is not None and _is_group(chat) and self.outbox.is_gone(chat.id):
            # A group that removed the bot (an update sent before it did): nothing changes,
            # and no answer could reach it.
            log.info("command from chat %s, which removed the bot: ignored", chat.id)
            return
        arrived = ARRIVED.get()
        if arrived is not None and chat is not None and arrived[0] == chat.id:
            slot: Slot | None = arrived[1]  # its place, kept as it arrived
        else:
            slot = self.outbox.reserve(chat.id) if chat is not None else None
        token = _reply_slot.set(slot)
        try:
            await handle()
        except StorageUnavailable:
            log.warning("command %s: the database cannot be written", name)
            self.reply(update, STORAGE_TROUBLE)
        finally:
            _reply_slot.reset(token)
            if slot is not None:
                slot.release()


ReplayMarkup = Callable[[int, int], InlineKeyboardMarkup]
"""▶ Replay under ``/scores`` (a chat's, a game's): for the very game it shows."""


class Answering(Protocol):
    """A class of command handlers: they answer through `replies`."""

    @property
    def replies(self) -> Replies: ...


A = TypeVar("A", bound=Answering)
Method = Callable[[A, Update, HeartsContext], Coroutine[Any, Any, None]]


def command(handler: Method[A]) -> Method[A]:
    """A command handler, behind its sender's command rate and with its answer's place kept.

    Someone over their rate (`CommandLimiter`) is told once and then ignored until their
    bucket refills. Otherwise the answer's place in the chat's order is taken now, in the
    order the updates came, so answers to commands in a row go out in that order."""

    @functools.wraps(handler)
    async def gated(self: A, update: Update, context: HeartsContext) -> None:
        await self.replies.gated(
            update, context, lambda: handler(self, update, context), handler.__name__
        )

    return gated


class TableCommands:
    """A table's commands in its group (/newgame, /start, /join, /leave, /cancel, /rejoin),
    /start in a DM, and the bot's own membership of a chat."""

    def __init__(
        self,
        replies: Replies,
        registry: TableRegistry,
        lobby: Lobby,
        presence: Presence,
        closer: Closer,
        links: DirectChats,
        outbox: Outbox,
    ) -> None:
        self.replies = replies
        self.registry = registry
        self.lobby = lobby
        self.presence = presence
        self.closer = closer
        self.links = links
        self.outbox = outbox

    @command
    async def new_game(self, update: Update, context: HeartsContext) -> None:
        """/newgame or /hearts: open a lobby in this group (or forum topic)."""
        person, chat = person_of(update), update.effective_chat
        if person is None or chat is None:
            return
        if not _is_group(chat):
            self.replies.reply(update, GROUP_ONLY)
            return
        try:
            await self.lobby.new_table(chat.id, thread_of(update), chat.title or "", person)
        except UserError as error:
            self.replies.reply(update, error.said)

    @command
    async def start(self, update: Update, context: HeartsContext) -> None:
        """/start: in a DM, open the DM (and follow a deep link); in a group, start the game."""
        person, chat = person_of(update), update.effective_chat
        if person is None or chat is None:
            return
        try:
            if chat.type == ChatType.PRIVATE:
                payload = context.args[0] if context.args else ""
                self.replies.reply(update, await self.links.open_dm(person, payload))
                return
            table = self.registry.in_chat(chat.id, thread_of(update))
            if table is None:
                self.replies.reply(update, NO_TABLE)
                return
            said = await self.lobby.start(table.id, person)
            sent = self.replies.reply(update, said)
            if (
                sent is not None
                and table.ui.table_message_id is not None
                and table.game is not None
            ):
                # "Dealing the cards…" is no longer true once the table's message shows the
                # deal.
                self.outbox.delete_once_shown(chat.id, sent, table.ui.table_message_id)
        except UserError as error:
            self.replies.reply(update, error.said)

    async def _in_group(self, update: Update, action: str) -> None:
        person, chat = person_of(update), update.effective_chat
        if person is None or chat is None:
            return
        if not _is_group(chat):
            if action == "leave":  # in a DM: whichever table the person is at
                try:
                    self.replies.reply(update, await self.presence.leave_any(person))
                except UserError as error:
                    self.replies.reply(update, error.said)
                return
            self.replies.reply(update, GROUP_ONLY)
            return
        try:
            table = self.registry.in_chat(chat.id, thread_of(update))
            if table is None:
                self.replies.reply(update, NO_TABLE)
                return
            if action == "join":  # said in the group: by name
                text = await self.lobby.join(table.id, person, in_group=True, named=True)
            elif action == "leave":
                text = await self.presence.leave(table.id, person)
            else:
                text = await self.closer.cancel_game(table.id, person)
            self.replies.reply(update, text)
        except UserError as error:
            self.replies.reply(update, error.said)

    @command
    async def join(self, update: Update, context: HeartsContext) -> None:
        """/join: take a seat at this chat's table."""
        await self._in_group(update, "join")

    @command
    async def leave(self, update: Update, context: HeartsContext) -> None:
        """/leave: leave the table (a computer player takes the seat mid-game)."""
        await self._in_group(update, "leave")

    @command
    async def cancel(self, update: Update, context: HeartsContext) -> None:
        """/cancel: cancel this chat's table (host or admin)."""
        await self._in_group(update, "cancel")

    @command
    async def rejoin(self, update: Update, context: HeartsContext) -> None:
        """/rejoin: take your seat back from the computer player."""
        person = person_of(update)
        if person is None:
            return
        try:
            self.replies.reply(update, await self.presence.rejoin(person))
        except UserError as error:
            self.replies.reply(update, error.said)

    async def membership(self, update: Update, context: HeartsContext) -> None:
        """The bot's own status in a chat changed: removed or blocked, or let back in."""
        change = update.my_chat_member
        if change is None:
            return
        chat_id, status = change.chat.id, change.new_chat_member.status
        if status in (ChatMemberStatus.BANNED, ChatMemberStatus.LEFT):
            self.outbox.mark_gone(chat_id)  # tells the tables (`Presence.chat_gone`)
        elif status in (
            ChatMemberStatus.MEMBER,
            ChatMemberStatus.ADMINISTRATOR,
            ChatMemberStatus.OWNER,
            ChatMemberStatus.RESTRICTED,
        ):
            self.presence.chat_back(chat_id)


class GroupMembers:
    """Who leaves and joins a group, as Telegram tells a bot that is one of its admins
    (``chat_member`` updates): the table page's watchers follow it at once."""

    def __init__(
        self, left: Callable[[int, int], Awaitable[None]], joined: Callable[[int, int], None]
    ) -> None:
        self.left = left
        self.joined = joined

    async def changed(self, update: Update, context: HeartsContext) -> None:
        """Someone's status in a group changed: left or removed, or a member (again)."""
        change = update.chat_member
        if change is None:
            return
        member = change.new_chat_member
        chat_id, user_id = change.chat.id, member.user.id
        if member.status in (
            ChatMemberStatus.MEMBER,
            ChatMemberStatus.ADMINISTRATOR,
            ChatMemberStatus.OWNER,
        ) or (member.status == ChatMemberStatus.RESTRICTED and getattr(member, "is_member", False)):
            self.joined(chat_id, user_id)
        else:
            await self.left(chat_id, user_id)


class PeopleCommands:
    """What people ask about themselves and the chat: /scores, /stats, /rating, /rules,
    /language, /help, and the language each update says its sender reads."""

    def __init__(
        self,
        replies: Replies,
        languages: Languages,
        standings: Standings,
        ratings: Ratings,
        event_scores: Callable[[Tr, int], Awaitable[str]],
        language_menu: LanguageMenu,
        outbox: Outbox,
        replay_button: ReplayMarkup | None = None,
    ) -> None:
        self.replies = replies
        self.languages = languages
        self.standings = standings
        self.ratings = ratings
        self.event_scores = event_scores
        self.language_menu = language_menu
        self.outbox = outbox
        self.replay_button = replay_button
        """▶ Replay under /scores, for the game it shows (`bot.telegram.replaying`)."""

    @command
    async def scores(self, update: Update, context: HeartsContext) -> None:
        """/scores: this game's standings and the chat's all-time leaderboard."""
        chat = update.effective_chat
        if chat is None:
            return
        if not _is_group(chat):
            person = person_of(update)
            if person is not None:
                await self._stats(update, person)
            return
        tr = self.languages.chat(chat.id)
        said, shown = await self.standings.scores_lines(chat.id, thread_of(update))
        text = draw.lines(tr, said)
        parts = [
            text,
            draw.lines(tr, await self.ratings.board_lines(chat.id)),
            await self.event_scores(tr, chat.id),
        ]
        markup = None
        if self.replay_button is not None and shown is not None:
            markup = self.replay_button(chat.id, shown)
        self.replies.reply(update, "\n\n".join(p for p in parts if p), markup=markup)

    @command
    async def rating(self, update: Update, context: HeartsContext) -> None:
        """/rating: your rating here and overall, and a chart of it (in a DM: overall)."""
        chat, person = update.effective_chat, person_of(update)
        if chat is None or person is None:
            return
        tr = self.languages.chat(chat.id)
        said, png = await self.ratings.rating(tr, person, chat.id if _is_group(chat) else None)
        self.replies.reply(update, draw.lines(tr, said), photo=png)

    @command
    async def stats(self, update: Update, context: HeartsContext) -> None:
        """/stats: your own record."""
        person = person_of(update)
        if person is None:
            return
        await self._stats(update, person)

    async def _stats(self, update: Update, person: Person) -> None:
        """A person's record: in their DM's language, wherever they asked."""
        chat = update.effective_chat
        in_group = chat is not None and chat.id < 0
        tr = self.languages.person(person.id)
        said = await self.standings.stats_lines(person, in_group)
        self.replies.reply(update, draw.lines(tr, said))

    @command
    async def rules(self, update: Update, context: HeartsContext) -> None:
        """/rules: the rules of this chat's table, in short."""
        chat = update.effective_chat
        if chat is None:
            return
        tr = self.languages.chat(chat.id)
        said = await self.standings.rules_lines(chat.id, thread_of(update))
        self.replies.reply(update, draw.lines(tr, said))

    @command
    async def help_command(self, update: Update, context: HeartsContext) -> None:
        """/help: the commands of where it was sent (a group's, or a DM's own)."""
        chat = update.effective_chat
        self.replies.reply(update, HELP if chat is None or _is_group(chat) else DM_HELP)

    @command
    async def language(self, update: Update, context: HeartsContext) -> None:
        """/language: the menu of languages (a DM's for its person, a group's for its admins)."""
        person, chat = person_of(update), update.effective_chat
        if person is None or chat is None:
            return
        try:
            text, markup = await self.language_menu.menu(chat.id, person)
        except UserError as error:
            self.replies.reply(update, error.said)
            return
        self.outbox.post(chat.id, text, markup, thread_id=thread_of(update), priority=URGENT)

    async def remember_language(self, update: Update, context: HeartsContext) -> None:
        """Every update says its sender's Telegram app language: their DM follows it (unless
        they chose one with /language)."""
        user = update.effective_user
        if user is None or user.is_bot:
            return
        try:
            await self.languages.seen(user.id, user.language_code)
        except StorageUnavailable:
            log.warning("the language of user %s could not be stored", user.id)


HELP = msg(
    "♥ <b>Hearts</b>\n"
    "/newgame — open a table in this group\n"
    "/join, /leave — take or leave a seat\n"
    "/start — start the game (host or admin)\n"
    "/cancel — cancel the table (host or admin)\n"
    "/scores — this game and the all-time leaderboard\n"
    "/replay — replay the hands of the last games\n"
    "/daily — the daily deal: the same hands for everyone (play it in a DM)\n"
    "/stats — your own record (in a DM)\n"
    "/rating — your rating, here and overall\n"
    "/rules — the rules of this table\n"
    "/rejoin — take your seat back from the computer\n"
    "/event — tournaments over several tables (<code>/event help</code>)\n"
    "/language — the language of my messages\n"
    "/help — this list"
)

DM_HELP = msg(
    "♥ <b>Hearts</b>, here in our chat:\n"
    "/daily — the daily deal: the same hands for everyone\n"
    "/stats — your own record\n"
    "/rating — your rating overall\n"
    "/leave — leave the table you sit at\n"
    "/rejoin — take your seat back from the computer\n"
    "/language — the language of my messages\n"
    "/help — this list\n"
    "\n"
    "To play with friends, add me to a group and send /newgame there: /help in the group "
    "lists its commands."
)


class EventCommand:
    """/event: the tournaments' commands, in a group."""

    def __init__(self, replies: Replies, tournaments: TournamentCommands) -> None:
        self.replies = replies
        self.tournaments = tournaments

    @command
    async def tournament(self, update: Update, context: HeartsContext) -> None:
        """/event [new|start|pause|resume|cancel|remove|only|invite|withdraw|help]: tournaments."""
        person, chat, message = person_of(update), update.effective_chat, update.effective_message
        if person is None or chat is None or message is None:
            return
        if not _is_group(chat):
            self.replies.reply(update, msg("Events are run in a group: send /event there."))
            return
        _, _, text = (message.text or "").partition(" ")
        replied = message.reply_to_message
        target = None
        if replied is not None and replied.from_user is not None and not replied.from_user.is_bot:
            user = replied.from_user
            target = Person(
                user.id, plain_name(user.full_name or user.username or str(user.id)), user.username
            )
        try:
            answer = await self.tournaments.command(
                chat.id, thread_of(update), chat.title or "", person, text.strip(), target
            )
        except UserError as error:
            answer = error.said
        if answer:
            self.replies.reply(update, answer)


class ReplayButtons(Protocol):
    """The replay buttons' side (`bot.telegram.replaying.ReplayChat`)."""

    async def game(
        self, game_id: int, person: Person, chat_id: int | None, message_id: int | None
    ) -> Msg: ...

    async def hand(
        self,
        game_id: int,
        hand: int,
        new: bool,
        person: Person,
        chat_id: int | None,
        message_id: int | None,
    ) -> Msg: ...


@dataclass(frozen=True)
class Targets:
    """What the buttons act on: the tables' entry points (each runs the core's commands
    in the table's mailbox), the coach, the tournaments' entries and the language menu."""

    lobby: Lobby
    presence: Presence
    rules_menu: RulesMenu
    closer: Closer
    moves: Moves
    coach: Coach
    entries: Entries
    language_menu: LanguageMenu
    outbox: Outbox
    replays: ReplayButtons
    daily: DailyDesk


class Buttons:
    """Every inline button: decode (`bot.core.decode`), check, carry out, and answer with
    a toast."""

    def __init__(
        self,
        to: Targets,
        registry: TableRegistry,
        languages: Languages,
        outbox: Outbox,
        ledger: Ledger,
        games: Journal,
        toasted: Callable[[float], None] | None = None,
    ) -> None:
        """`games`: where an ended table's kind and stage are read (`bot.core.accepts`);
        `toasted`: told each press's time until its toast was answered (the metrics)."""
        self.to = to
        self.registry = registry
        self.games = games
        self.languages = languages
        self.outbox = outbox
        self.ledger = ledger
        self.toasted = toasted

    async def button(self, update: Update, context: HeartsContext) -> None:
        """Every inline button: decode, check, act, and always answer with a toast."""
        began = once.RECEIVED.get() or time.monotonic()
        query = update.callback_query
        person = person_of(update)
        if query is None or person is None:
            return
        message = query.message
        chat_id = message.chat.id if message is not None else None
        message_id = message.message_id if message is not None else None
        tr = self.languages.person(person.id)  # the toast is in the presser's language
        # A move the press makes is stored with its update and its toast (`domain.handling`).
        handled = Handling(
            update.update_id,
            query.id,
            self.ledger.account,
            render=lambda said: say(tr, said, PLAIN)[:200],
        )
        said = _over_rate(context, query.data, person.id, chat_id)
        if said is None:
            said = await self.press(query.data, person, chat_id, message_id, handled)
        try:
            await query.answer(say(tr, said, PLAIN)[:200] or None)
        except TelegramError as error:
            log.info("could not answer callback: %s", error)
            return
        if self.toasted is not None:
            self.toasted(time.monotonic() - began)
        await once.answered(self.ledger, handled)

    async def press(
        self,
        data: str | None,
        person: Person,
        chat_id: int | None,
        message_id: int | None = None,
        handled: Handling | None = None,
    ) -> Msg:
        """One press of a button, from a DM or a group: the same decoding, checks, journal
        and words for all. `handled`: the update it came in, stored with a move it makes."""
        pressed = cb.from_button(data)
        if isinstance(pressed, cb.Refused):
            return pressed.said
        try:
            in_group = await self._admit(pressed, person, chat_id)
            return await self._carry_out(pressed, person, chat_id, message_id, in_group, handled)
        except UserError as error:
            return error.said
        except StorageUnavailable:
            log.warning("button %s: the database cannot be written", data)
            return STORAGE_TROUBLE

    async def _admit(self, pressed: cb.Pressed, person: Person, chat_id: int | None) -> bool:
        """Refuse (`UserError`) a press that what it names (a table, a tournament) does not
        take now, or not from this chat; say whether it came from its table's own group."""
        if chat_id is not None and chat_id != person.id and self.outbox.is_gone(chat_id):
            # Telegram delivers presses on the old messages of a group that removed the bot.
            raise UserError(NOT_IN_CHAT)
        match pressed:
            case cb.Register(tournament) | cb.Withdraw(tournament):
                # A tournament's buttons, while its message shows them.
                registration_open = await self.to.entries.registration_open(tournament)
                accepts.admit_event(registration_open, accepts.EVENT_ASKS[pressed.action])
                return False
            case cb.PostDaily() | cb.ChooseLanguage():
                return False  # a day's, a chat's: their own entry points check them
            case _:
                return await self._admit_at_table(pressed, person, chat_id)

    async def _admit_at_table(
        self, pressed: cb.TablePress, person: Person, chat_id: int | None
    ) -> bool:
        table = self.registry.get(pressed.game)
        # A button only acts on the table its message shows: a forged game id from another
        # chat's message is refused.
        in_group = table is not None and chat_id == table.chat_id
        if table is not None and chat_id is not None and not (in_group or chat_id == person.id):
            raise UserError(UNKNOWN_BUTTON)
        # Only what that kind of table offers at its stage (issue 50.2).
        standing = await accepts.standing_of(pressed.game, self.registry.tables, self.games)
        accepts.admit(standing, accepts.ASKS[pressed.action])
        return in_group

    async def _carry_out(
        self,
        pressed: cb.Pressed,
        person: Person,
        chat_id: int | None,
        message_id: int | None,
        in_group: bool,
        handled: Handling | None,
    ) -> Msg:
        """What each button does, once admitted: one case per kind of press."""
        to = self.to
        match pressed:
            case cb.SitDown(game):
                # Pressed anywhere but in the table's group, Join must prove membership first.
                return await to.lobby.join(game, person, in_group=in_group)
            case cb.StandUp(game):
                return await to.presence.leave(game, person)
            case cb.AddComputerSeat(game):
                return await to.lobby.add_computer(game, person)
            case cb.OpenRules(game):
                return await to.rules_menu.show(game, person, True)
            case cb.CloseRules(game):
                return await to.rules_menu.show(game, person, False)
            case cb.ChooseRule(game, option, value):
                return await to.rules_menu.set_rule(game, person, option, value)
            case cb.ClearSeat(game, seat):
                return await to.lobby.remove_seat(game, seat, person)
            case cb.StartGame(game):
                return await to.lobby.start(game, person)
            case cb.CancelTable(game):
                return await to.closer.cancel_game(game, person)
            case cb.NewGame(game):
                return await to.lobby.rematch(game, person, chat_id)
            case cb.TapCard() | cb.PassCards() | cb.ChooseMoon() | cb.AskHint():
                # The same typed command a table page sends, carried out the same way, with
                # the update it came in.
                return await cb.carry_out(pressed, person, to.moves, to.coach, handled)
            case cb.ToggleTracker(game, hand):
                return await to.moves.toggle_tracker(game, hand, person)
            case cb.Review(game, hand):
                return await to.coach.review(game, hand, person)
            case cb.ReplayGame(game, new):
                shown_in = None if new else message_id
                return await to.replays.game(game, person, chat_id, shown_in)
            case cb.ReplayHand(game, hand, new):
                return await to.replays.hand(game, hand, new, person, chat_id, message_id)
            case cb.PostDaily(day):
                return await to.daily.post(day, person)
            case cb.Register(tournament):
                return await to.entries.register(tournament, person)
            case cb.Withdraw(tournament):
                return await to.entries.withdraw(tournament, person)
            case cb.ChooseLanguage(code):
                return await self._choose_language(code, person, chat_id, message_id)
            case _:
                assert_never(pressed)

    async def _choose_language(
        self, code: str, person: Person, chat_id: int | None, message_id: int | None
    ) -> Msg:
        """A press in the /language menu: the chat's language, and the menu shown in it."""
        if chat_id is None:
            raise UserError(UNKNOWN_BUTTON)
        menu = self.to.language_menu
        said = await menu.choose(chat_id, person, code)
        if message_id is not None:
            text, markup = await menu.menu(chat_id, person)
            self.to.outbox.edit(chat_id, message_id, text, markup, priority=URGENT)
        return said


def flooding(limits: BotData, update: Update) -> bool:
    """Whether `update` is a press or a command of someone who was told they go too fast
    and has no token yet: it is let go before anything is done for it (not even the record
    of handled updates is read; a press is answered without a word), so a flood costs the
    others little more than its arrival."""
    user = update.effective_user
    if user is None:
        return False
    query = update.callback_query
    if query is not None:
        try:
            action = cb.Callback.decode(query.data).action
        except cb.BadCallback:
            action = ""
        if action in cb.COACH_ACTIONS:
            return False
        limiter = limits.move_limiter if action in cb.SEAT_ACTIONS else limits.press_limiter
        return limiter.dropping(user.id)
    if update.message is not None and (update.message.text or "").startswith("/"):
        return limits.command_limiter.dropping(user.id)
    return False


def _over_rate(
    context: HeartsContext, data: str | None, user_id: int, chat_id: int | None
) -> Msg | None:
    """What a press over its presser's rate is answered instead of being carried out (None:
    within it). A seat's moves have a rate of their own, faster than other presses; the
    coach's buttons are paced by the coach (`Coach.limiter`, one answer for many presses);
    a press that posts in a group takes the presser's share of the group's posts too."""
    limits = context.bot_data
    try:
        pressed: cb.Callback | None = cb.Callback.decode(data)
    except cb.BadCallback:
        pressed = None
    action = pressed.action if pressed is not None else ""
    if action in cb.COACH_ACTIONS:
        return None
    limiter = limits.move_limiter if action in cb.SEAT_ACTIONS else limits.press_limiter
    verdict = limiter.check(user_id)
    in_group = chat_id is not None and chat_id != user_id
    if verdict is Verdict.ALLOW and pressed is not None and in_group and cb.posts_anew(pressed):
        assert chat_id is not None
        verdict = limits.group_posts.check(chat_id, user_id)
    if verdict is Verdict.ALLOW:
        return None
    return PRESSING_TOO_FAST if verdict is Verdict.WARN else NOTHING


class Errors:
    """The Application's error handler."""

    def __init__(self, languages: Languages, failed: Callable[[], None] | None = None) -> None:
        """`failed`: told of each exception (the metrics)."""
        self.languages = languages
        self.failed = failed

    async def error_handler(self, update: object, context: HeartsContext) -> None:
        """Log any exception a handler raised, with the update it came from."""
        log.error("error while handling an update", exc_info=context.error)
        if self.failed is not None:
            self.failed()
        if isinstance(update, Update) and update.callback_query is not None:
            with contextlib.suppress(TelegramError):
                tr = self.languages.person(update.callback_query.from_user.id)
                await update.callback_query.answer(tr("Something went wrong; please try again."))
