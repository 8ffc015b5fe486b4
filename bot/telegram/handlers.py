"""Telegram updates in, calls to the rooms out. Each handler parses, calls one method, answers.

Handlers reach the rooms through their typed context (``context.bot_data.rooms``,
`bot.rooms.BotData`); buttons go through one table of routes (`ROUTES`)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import Awaitable, Callable, Coroutine
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from telegram import Chat, Update
from telegram.constants import ChatMemberStatus, ChatType
from telegram.error import TelegramError

from bot.basics import Person, UserError, parse_id
from bot.flood import Verdict
from bot.i18n import ENGLISH, NOTHING, Msg, msg, plain_name, translator
from bot.rooms import HeartsContext, Rooms
from bot.tables.lobby import NOT_IN_CHAT
from bot.telegram import callbacks as cb
from bot.telegram import once
from bot.telegram.outbox import Slot
from bot.telegram.pace import URGENT
from storage.errors import StorageUnavailable
from storage.handling import HANDLING

log = logging.getLogger(__name__)

UNKNOWN_BUTTON = msg("That button isn't valid any more.")
STORAGE_TROUBLE = msg("I can't save anything right now. Please try again in a minute.")
TOO_FAST = msg("You're sending commands too fast. I'll answer again in a few seconds.")
GROUP_ONLY = msg("Tables are opened in a group: add me to one and send /newgame there.")
NO_TABLE = msg("There's no table here. Start one with /newgame.")


def person_of(update: Update) -> Person | None:
    user = update.effective_user
    if user is None or user.is_bot:
        return None
    name = plain_name(user.full_name or user.username or str(user.id))
    return Person(user.id, name, user.username)


def _thread_of(update: Update) -> int | None:
    message = update.effective_message
    if message is None or not message.is_topic_message:
        return None
    return message.message_thread_id


def _is_group(chat: Chat | None) -> bool:
    return chat is not None and chat.type in (ChatType.GROUP, ChatType.SUPERGROUP)


_reply_slot: ContextVar[Slot | None] = ContextVar("reply_slot", default=None)
"""The place in its chat's order kept for the answer of the command being handled."""


def _reply(
    update: Update, context: HeartsContext, said: str | Msg, *, photo: bytes | None = None
) -> asyncio.Task[int | None] | None:
    """Answer a command in its chat (and topic) without waiting for the chat's pace.

    The answer goes out in the order the commands came (in the place `command` kept for
    it), ahead of what nobody waits for in the bot's overall pace; the handler returns at
    once, so one chat's pace never holds a handler that another chat's update needs."""
    chat = update.effective_chat
    if chat is None:
        return None
    # In the chat's language: a group's own, a DM its person's.
    text = context.bot_data.rooms.languages.chat(chat.id)(said)
    slot = _reply_slot.get()
    if slot is not None and not slot.used:
        slot.post(text, thread_id=_thread_of(update), photo=photo)
        return slot.sent
    return context.bot_data.rooms.outbox.post(
        chat.id, text, thread_id=_thread_of(update), priority=URGENT, photo=photo
    )


Handler = Callable[[Update, HeartsContext], Coroutine[Any, Any, None]]


def command(handler: Handler) -> Handler:
    """A command handler, behind its sender's command rate and with its answer's place kept.

    Someone over their rate (`CommandLimiter`) is told once and then ignored until their
    bucket refills. Otherwise the answer's place in the chat's order is taken now, in the
    order the updates came, so answers to commands in a row go out in that order."""

    @functools.wraps(handler)
    async def gated(update: Update, context: HeartsContext) -> None:
        user, chat = update.effective_user, update.effective_chat
        if user is not None:
            verdict = context.bot_data.command_limiter.check(user.id)
            if verdict is Verdict.WARN:
                _reply(update, context, TOO_FAST)
            if verdict is not Verdict.ALLOW:
                return
        if chat is not None and _is_group(chat) and context.bot_data.rooms.outbox.is_gone(chat.id):
            # A group that removed the bot (an update sent before it did): nothing changes,
            # and no answer could reach it.
            log.info("command from chat %s, which removed the bot: ignored", chat.id)
            return
        slot = context.bot_data.rooms.outbox.reserve(chat.id) if chat is not None else None
        token = _reply_slot.set(slot)
        try:
            await handler(update, context)
        except StorageUnavailable:
            log.warning("command %s: the database cannot be written", handler.__name__)
            _reply(update, context, STORAGE_TROUBLE)
        finally:
            _reply_slot.reset(token)
            if slot is not None:
                slot.release()

    return gated


@command
async def new_game(update: Update, context: HeartsContext) -> None:
    """/newgame or /hearts: open a lobby in this group (or forum topic)."""
    person, chat = person_of(update), update.effective_chat
    if person is None or chat is None:
        return
    if not _is_group(chat):
        _reply(update, context, GROUP_ONLY)
        return
    try:
        await context.bot_data.rooms.lobby.new_table(
            chat.id, _thread_of(update), chat.title or "", person
        )
    except UserError as error:
        _reply(update, context, error.said)


@command
async def start(update: Update, context: HeartsContext) -> None:
    """/start: in a DM, open the DM (and follow a deep link); in a group, start the game."""
    person, chat = person_of(update), update.effective_chat
    if person is None or chat is None:
        return
    rooms = context.bot_data.rooms
    try:
        if chat.type == ChatType.PRIVATE:
            payload = context.args[0] if context.args else ""
            _reply(update, context, await rooms.links.open_dm(person, payload))
            return
        table = rooms.registry.in_chat(chat.id, _thread_of(update))
        if table is None:
            _reply(update, context, NO_TABLE)
            return
        said = await rooms.lobby.start(table.id, person)
        sent = _reply(update, context, said)
        if sent is not None and table.ui.table_message_id is not None and table.game is not None:
            # "Dealing the cards…" is no longer true once the table's message shows the deal.
            rooms.outbox.delete_once_shown(chat.id, sent, table.ui.table_message_id)
    except UserError as error:
        _reply(update, context, error.said)


async def _group_table_command(update: Update, context: HeartsContext, action: str) -> None:
    person, chat = person_of(update), update.effective_chat
    if person is None or chat is None:
        return
    rooms = context.bot_data.rooms
    if not _is_group(chat):
        if action == "leave":  # in a DM: whichever table the person is at
            try:
                _reply(update, context, await rooms.presence.leave_any(person))
            except UserError as error:
                _reply(update, context, error.said)
            return
        _reply(update, context, GROUP_ONLY)
        return
    try:
        table = rooms.registry.in_chat(chat.id, _thread_of(update))
        if table is None:
            _reply(update, context, NO_TABLE)
            return
        if action == "join":
            text = await rooms.lobby.join(table.id, person, in_group=True)
        elif action == "leave":
            text = await rooms.presence.leave(table.id, person)
        else:
            text = await rooms.closer.cancel_game(table.id, person)
        _reply(update, context, text)
    except UserError as error:
        _reply(update, context, error.said)


@command
async def join(update: Update, context: HeartsContext) -> None:
    """/join: take a seat at this chat's table."""
    await _group_table_command(update, context, "join")


@command
async def leave(update: Update, context: HeartsContext) -> None:
    """/leave: leave the table (a computer player takes the seat mid-game)."""
    await _group_table_command(update, context, "leave")


@command
async def cancel(update: Update, context: HeartsContext) -> None:
    """/cancel: cancel this chat's table (host or admin)."""
    await _group_table_command(update, context, "cancel")


@command
async def rejoin(update: Update, context: HeartsContext) -> None:
    """/rejoin: take your seat back from the computer player."""
    person = person_of(update)
    if person is None:
        return
    try:
        _reply(update, context, await context.bot_data.rooms.presence.rejoin(person))
    except UserError as error:
        _reply(update, context, error.said)


@command
async def scores(update: Update, context: HeartsContext) -> None:
    """/scores: this game's standings and the chat's all-time leaderboard."""
    chat = update.effective_chat
    if chat is None:
        return
    if not _is_group(chat):
        person = person_of(update)
        if person is not None:
            await _stats(update, context, person)
        return
    rooms = context.bot_data.rooms
    tr = rooms.languages.chat(chat.id)
    text = await rooms.standings.scores_text(tr, chat.id, _thread_of(update))
    parts = [
        text,
        await rooms.ratings.board_text(tr, chat.id),
        await rooms.tournaments.scores_text(tr, chat.id),
    ]
    _reply(update, context, "\n\n".join(p for p in parts if p))


@command
async def rating(update: Update, context: HeartsContext) -> None:
    """/rating: your rating here and overall, and a chart of it (in a DM: overall)."""
    chat, person = update.effective_chat, person_of(update)
    if chat is None or person is None:
        return
    rooms = context.bot_data.rooms
    tr = rooms.languages.chat(chat.id)
    text, png = await rooms.ratings.rating(tr, person, chat.id if _is_group(chat) else None)
    _reply(update, context, text, photo=png)


@command
async def stats(update: Update, context: HeartsContext) -> None:
    """/stats: your own record."""
    person = person_of(update)
    if person is None:
        return
    await _stats(update, context, person)


async def _stats(update: Update, context: HeartsContext, person: Person) -> None:
    """A person's record: in their DM's language, wherever they asked."""
    rooms = context.bot_data.rooms
    chat = update.effective_chat
    in_group = chat is not None and chat.id < 0
    tr = rooms.languages.person(person.id)
    _reply(update, context, await rooms.standings.stats_text(tr, person, in_group))


@command
async def rules(update: Update, context: HeartsContext) -> None:
    """/rules: the rules of this chat's table, in short."""
    chat = update.effective_chat
    if chat is None:
        return
    rooms = context.bot_data.rooms
    tr = rooms.languages.chat(chat.id)
    _reply(update, context, await rooms.standings.rules_text(tr, chat.id, _thread_of(update)))


@command
async def tournament(update: Update, context: HeartsContext) -> None:
    """/event [new|start|pause|resume|cancel|remove|only|invite|withdraw|help]: tournaments."""
    person, chat, message = person_of(update), update.effective_chat, update.effective_message
    if person is None or chat is None or message is None:
        return
    if not _is_group(chat):
        _reply(update, context, msg("Events are run in a group: send /event there."))
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
        answer = await context.bot_data.rooms.tournaments.command(
            chat.id, _thread_of(update), chat.title or "", person, text.strip(), target
        )
    except UserError as error:
        answer = error.said
    if answer:
        _reply(update, context, answer)


@command
async def help_command(update: Update, context: HeartsContext) -> None:
    """/help: the commands."""
    _reply(
        update,
        context,
        msg(
            "♥ <b>Hearts</b>\n"
            "/newgame — open a table in this group\n"
            "/join, /leave — take or leave a seat\n"
            "/start — start the game (host or admin)\n"
            "/cancel — cancel the table (host or admin)\n"
            "/scores — this game and the all-time leaderboard\n"
            "/stats — your own record (in a DM)\n"
            "/rating — your rating, here and overall\n"
            "/rules — the rules of this table\n"
            "/rejoin — take your seat back from the computer\n"
            "/event — tournaments over several tables (<code>/event help</code>)\n"
            "/language — the language of my messages\n"
            "/help — this list"
        ),
    )


@command
async def language(update: Update, context: HeartsContext) -> None:
    """/language: the menu of languages (a DM's for its person, a group's for its admins)."""
    person, chat = person_of(update), update.effective_chat
    if person is None or chat is None:
        return
    try:
        text, markup = await context.bot_data.rooms.language_menu.menu(chat.id, person)
    except UserError as error:
        _reply(update, context, error.said)
        return
    context.bot_data.rooms.outbox.post(
        chat.id, text, markup, thread_id=_thread_of(update), priority=URGENT
    )


async def remember_language(update: Update, context: HeartsContext) -> None:
    """Every update says its sender's Telegram app language: their DM follows it (unless
    they chose one with /language)."""
    user = update.effective_user
    rooms = context.bot_data.opened
    if user is None or user.is_bot or rooms is None:
        return
    try:
        await rooms.languages.seen(user.id, user.language_code)
    except StorageUnavailable:
        log.warning("the language of user %s could not be stored", user.id)


async def membership(update: Update, context: HeartsContext) -> None:
    """The bot's own status in a chat changed: removed or blocked, or let back in."""
    change = update.my_chat_member
    if change is None:
        return
    chat_id, status = change.chat.id, change.new_chat_member.status
    rooms = context.bot_data.rooms
    if status in (ChatMemberStatus.BANNED, ChatMemberStatus.LEFT):
        rooms.outbox.mark_gone(chat_id)  # tells the tables (`Presence.chat_gone`)
    elif status in (
        ChatMemberStatus.MEMBER,
        ChatMemberStatus.ADMINISTRATOR,
        ChatMemberStatus.OWNER,
        ChatMemberStatus.RESTRICTED,
    ):
        rooms.presence.chat_back(chat_id)


async def button(update: Update, context: HeartsContext) -> None:
    """Every inline button: decode, check, act, and always answer with a toast."""
    query = update.callback_query
    person = person_of(update)
    if query is None or person is None:
        return
    rooms = context.bot_data.rooms
    message = query.message
    chat_id = message.chat.id if message is not None else None
    message_id = message.message_id if message is not None else None
    tr = rooms.languages.person(person.id)  # the toast is in the presser's language
    handling = HANDLING.get()
    if handling is not None:  # a move stores its toast with it (`storage.handling`)
        handling.render = lambda said: tr(said)[:200]
    said = await press(rooms, query.data, person, chat_id, message_id)
    try:
        await query.answer(tr(said)[:200] or None)
    except TelegramError as error:
        log.info("could not answer callback: %s", error)
        return
    storage = context.bot_data.storage
    await once.answered(storage.ledger if storage is not None else None)


async def press(
    rooms: Rooms,
    data: str | None,
    person: Person,
    chat_id: int | None,
    message_id: int | None = None,
    *,
    only: frozenset[str] | None = None,
) -> Msg:
    """One press of a button, from a DM, a group or the table page (`bot.live`): the same
    decoding, checks, journal and words for all. `only`: the actions allowed here."""
    try:
        decoded = cb.Callback.decode(data)
        if only is not None and decoded.action not in only:
            raise cb.BadCallback(data)
        return await _dispatch(rooms, decoded, person, chat_id, message_id)
    except cb.BadCallback:
        return UNKNOWN_BUTTON
    except UserError as error:
        return error.said
    except StorageUnavailable:
        log.warning("button %s: the database cannot be written", data)
        return STORAGE_TROUBLE


@dataclass(frozen=True)
class Press:
    """One checked button press: who pressed what, and whether in the table's own group."""

    rooms: Rooms
    data: cb.Callback
    person: Person
    chat_id: int | None
    in_group: bool
    message_id: int | None = None

    @property
    def id(self) -> int:
        """The game's id (a tournament's, for the tournament buttons)."""
        return self.data.game_id


def _set_rule(p: Press) -> Awaitable[Msg]:
    option, _, value = p.data.arg.partition("=")
    return p.rooms.rules_menu.set_rule(p.id, p.person, option, value)


def _kick(p: Press) -> Awaitable[Msg]:
    seat = parse_id(p.data.arg, 99)
    if seat is None:
        raise UserError(UNKNOWN_BUTTON)
    return p.rooms.lobby.remove_seat(p.id, seat, p.person)


async def _choose_language(p: Press) -> Msg:
    """A press in the /language menu: the chat's language, and the menu shown in it."""
    if p.chat_id is None:
        raise UserError(UNKNOWN_BUTTON)
    menu = p.rooms.language_menu
    said = await menu.choose(p.chat_id, p.person, p.data.arg)
    if p.message_id is not None:
        text, markup = await menu.menu(p.chat_id, p.person)
        p.rooms.outbox.edit(p.chat_id, p.message_id, text, markup, priority=URGENT)
    return said


ROUTES: dict[str, Callable[[Press], Awaitable[Msg]]] = {
    # Pressed anywhere but in the table's group, Join must prove membership first.
    cb.JOIN: lambda p: p.rooms.lobby.join(p.id, p.person, in_group=p.in_group),
    cb.LEAVE: lambda p: p.rooms.presence.leave(p.id, p.person),
    cb.ADD_COMPUTER: lambda p: p.rooms.lobby.add_computer(p.id, p.person),
    cb.RULES: lambda p: p.rooms.rules_menu.show(p.id, p.person, True),
    cb.BACK: lambda p: p.rooms.rules_menu.show(p.id, p.person, False),
    cb.SET_RULE: _set_rule,
    cb.START: lambda p: p.rooms.lobby.start(p.id, p.person),
    cb.REMATCH: lambda p: p.rooms.lobby.rematch(p.id, p.person, p.chat_id),
    cb.CANCEL: lambda p: p.rooms.closer.cancel_game(p.id, p.person),
    cb.KICK: _kick,
    cb.CARD: lambda p: p.rooms.moves.press_card(p.id, p.data.stamp, p.data.arg, p.person),
    cb.PASS: lambda p: p.rooms.moves.press_pass(p.id, p.data.stamp, p.person),
    cb.MOON: lambda p: p.rooms.moves.press_moon(p.id, p.data.stamp, p.data.arg, p.person),
    cb.TRACKER: lambda p: p.rooms.moves.toggle_tracker(p.id, p.data.stamp, p.person),
    cb.HINT: lambda p: p.rooms.coach.hint(p.id, p.data.stamp, p.person),
    cb.REVIEW: lambda p: p.rooms.coach.review(p.id, p.data.stamp, p.person),
    cb.TOURNAMENT_REGISTER: lambda p: p.rooms.entries.register(p.id, p.person),
    cb.TOURNAMENT_WITHDRAW: lambda p: p.rooms.entries.withdraw(p.id, p.person),
    cb.LANGUAGE: _choose_language,
}
"""What each button does, by its callback action (`bot.telegram.callbacks`)."""


async def _dispatch(
    rooms: Rooms, data: cb.Callback, person: Person, chat_id: int | None, message_id: int | None
) -> Msg:
    if chat_id is not None and chat_id != person.id and rooms.outbox.is_gone(chat_id):
        # Telegram delivers presses on the old messages of a group that removed the bot.
        raise UserError(NOT_IN_CHAT)
    no_table = data.action in cb.TOURNAMENT_ACTIONS or data.action in cb.CHAT_ACTIONS
    table = None if no_table else rooms.registry.get(data.game_id)
    # A button only acts on the table its message shows: a forged game id from another
    # chat's message is refused.
    in_group = table is not None and chat_id == table.chat_id
    if table is not None and chat_id is not None and not (in_group or chat_id == person.id):
        raise UserError(UNKNOWN_BUTTON)
    route = ROUTES.get(data.action)
    if route is None:
        return NOTHING
    return await route(Press(rooms, data, person, chat_id, in_group, message_id))


async def error_handler(update: object, context: HeartsContext) -> None:
    """Log any exception a handler raised, with the update it came from."""
    log.error("error while handling an update", exc_info=context.error)
    if isinstance(update, Update) and update.callback_query is not None:
        with contextlib.suppress(TelegramError):
            user = update.callback_query.from_user
            rooms = context.bot_data.opened
            tr = rooms.languages.person(user.id) if rooms is not None else translator(ENGLISH)
            await update.callback_query.answer(tr("Something went wrong; please try again."))
