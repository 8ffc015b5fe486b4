"""Building the Application: storage, the outbox and the rooms opened in ``post_init``, and
the handlers `bot.rooms.wire_handlers` made, each given what it calls, registered there."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from typing import Any, ClassVar

from telegram import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    Update,
)
from telegram.constants import ChatMemberStatus
from telegram.error import TelegramError
from telegram.ext import (
    AIORateLimiter,
    Application,
    ApplicationBuilder,
    CallbackContext,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    ContextTypes,
    InlineQueryHandler,
    TypeHandler,
)

from bot.computers.thinker import Thinker
from bot.config import Settings, Tuning
from bot.i18n import ENGLISH, LANGUAGES, mark, translator
from bot.languages import Languages
from bot.live.server import LiveServer
from bot.metrics import UPDATE_KINDS, MeasuredThinker, Metrics, account_of
from bot.rooms import Handlers, Rooms, open_rooms, wire_handlers
from bot.tables.config import TablesConfig
from bot.telegram.context import BotData, HeartsContext
from bot.telegram.handlers import GroupMembers, flooding
from bot.telegram.health import ROLE
from bot.telegram.once import ExactlyOnce, HeartsApplication, answer_pending
from bot.telegram.outbox import Outbox, Slot
from bot.telegram.poller import ConfirmingUpdater
from bot.telegram.request import AiohttpRequest
from bot.telegram.served import ServedGroups
from bot.timers import system_clock
from storage import Storage, open_storage
from storage.errors import StorageError

log = logging.getLogger(__name__)

GROUP_COMMANDS = [
    ("newgame", mark("Open a table of Hearts")),
    ("join", mark("Take a seat")),
    ("leave", mark("Leave the table")),
    ("start", mark("Start the game (host or admin)")),
    ("cancel", mark("Cancel the table (host or admin)")),
    ("scores", mark("This game and the leaderboard")),
    ("rating", mark("Your rating here and overall")),
    ("rules", mark("The rules of this table")),
    ("replay", mark("Replay the hands of the last games")),
    ("rejoin", mark("Take your seat back")),
    ("event", mark("Tournaments: register, rounds, standings")),
    ("daily", mark("Today's daily deal: this group's board")),
    ("language", mark("The group's language (admins)")),
    ("help", mark("All commands")),
]
PRIVATE_COMMANDS = [
    ("daily", mark("Today's daily deal: the same hands for everyone")),
    ("stats", mark("Your record")),
    ("rating", mark("Your rating")),
    ("rejoin", mark("Take your seat back")),
    ("rules", mark("The rules")),
    ("language", mark("Your language")),
    ("help", mark("All commands")),
]


class MessageRateLimiter(AIORateLimiter):
    """`AIORateLimiter` for what Telegram limits per chat: messages sent and edited.

    Left alone, it also paces a group's ``getChatMember`` by the group's 20 messages a
    minute, so a dozen people registering at once waited up to a minute for the check of
    their membership (issue 12, item 7). Reads and answers to presses go straight out.
    """

    PACED: ClassVar[frozenset[str]] = frozenset(
        {
            "sendMessage",
            "sendPhoto",
            "sendDocument",
            "sendMediaGroup",
            "editMessageText",
            "editMessageReplyMarkup",
            "editMessageCaption",
            "deleteMessage",
            "pinChatMessage",
            "unpinChatMessage",
        }
    )

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, Any]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: int | None,
    ) -> Any:
        if endpoint in self.PACED:
            return await super().process_request(
                callback, args, kwargs, endpoint, data, rate_limit_args
            )
        return await callback(*args, **kwargs)


HeartsApp = Application[Any, HeartsContext, dict[Any, Any], dict[Any, Any], BotData, Any]


class HeartsBot(HeartsApplication):
    """The bot's Application: it holds what ``post_init`` opens (storage, the worker pool,
    the rooms, the table page's server) until it stops; no handler sees them."""

    storage: Storage | None = None
    thinker: Thinker | None = None
    rooms: Rooms | None = None
    live_server: LiveServer | None = None
    """The table page's server, when ``WEBAPP_URL`` is set (`bot.live.server`)."""
    metrics: Metrics | None = None
    """This bot's metrics, in a registry of its own (``/metrics``, `bot.metrics`)."""
    shared_languages: asyncio.Task[None] | None = None
    """On PostgreSQL: other bot accounts' language choices, read now and then."""

    async def process_update(self, update: object) -> None:
        if self.metrics is not None:
            self.metrics.came(_kind(update))
        await super().process_update(update)

    def dropping(self, update: Update) -> bool:
        """A flood let go at the door (`bot.telegram.handlers.flooding`)."""
        return flooding(self.bot_data, update)

    def keep_order(self, chat_id: int) -> Slot | None:
        """A command's answer in its place from its arrival (`Outbox.reserve`), once the
        rooms are open."""
        return self.rooms.outbox.reserve(chat_id) if self.rooms is not None else None


def _kind(update: object) -> str:
    """Which kind of update it is: the name of its one field that is set."""
    if not isinstance(update, Update):
        return "other"
    for kind in UPDATE_KINDS:
        if getattr(update, kind) is not None:
            return kind
    return "other"


def rooms_of(app: Application) -> Rooms | None:  # type: ignore[type-arg]
    """The rooms `app` opened, if ``post_init`` got as far as opening them."""
    return app.rooms if isinstance(app, HeartsBot) else None


def build_application(settings: Settings, tuning: Tuning | None = None) -> HeartsApp:
    """The bot, ready to run: its ``post_init`` opens storage and resumes every game."""
    tuning = tuning or Tuning()
    if not settings.bot_token:
        raise ValueError("A bot token is needed to build the application.")
    builder = (
        ApplicationBuilder()
        .token(settings.bot_token)
        .base_url(settings.telegram_api_base_url)
        .context_types(ContextTypes(context=CallbackContext, bot_data=BotData))
        .concurrent_updates(True)
        .post_init(_post_init)
        .post_stop(_post_stop)
        .post_shutdown(_post_shutdown)
        .application_class(HeartsBot)
    )
    if settings.telegram_api_file_url:
        builder = builder.base_file_url(settings.telegram_api_file_url)
    # PTB's two clients (getUpdates, and everything else), with its default pool sizes and
    # timeouts, on aiohttp (bot/telegram/request.py), sharing the process's one TLS context.
    # Every request counted by method and outcome (bot/metrics.py).
    metrics = Metrics(account_of(settings.bot_token), role=lambda: ROLE.name)
    builder = builder.request(AiohttpRequest(256, observe=metrics.requested))
    builder = builder.get_updates_request(AiohttpRequest(1, observe=metrics.requested))
    if tuning.rate_limiter:
        # No retries of its own: the outbox retries (one owner, at most 4 tries a request).
        builder = builder.rate_limiter(MessageRateLimiter(max_retries=0))  # type: ignore[arg-type]
    app = builder.build()
    # Every update, polled or posted to the webhook, is handled once (bot/telegram/once.py).
    assert isinstance(app, HeartsBot)
    app.metrics = metrics
    app.once = ExactlyOnce(lambda: app.storage.ledger if app.storage is not None else None)
    # Polling confirms an update only once it was handled (bot/telegram/poller.py).
    app.updater = ConfirmingUpdater(app.bot, app.update_queue, app.process_update)
    app.bot_data.settings = settings
    app.bot_data.tune(tuning)
    return app


def add_handlers(app: HeartsApp, handlers: Handlers) -> None:
    """Every update's handler, once the rooms they call are open (``post_init``, before
    the first update is handled)."""
    tables, people = handlers.tables, handlers.people
    # Before any other handler: each update says its sender's app language.
    app.add_handler(TypeHandler(Update, people.remember_language), group=-1)
    app.add_handler(CommandHandler(["newgame", "hearts"], tables.new_game))
    app.add_handler(CommandHandler("start", tables.start))
    app.add_handler(CommandHandler("join", tables.join))
    app.add_handler(CommandHandler("leave", tables.leave))
    app.add_handler(CommandHandler("cancel", tables.cancel))
    app.add_handler(CommandHandler("rejoin", tables.rejoin))
    app.add_handler(CommandHandler("scores", people.scores))
    app.add_handler(CommandHandler("stats", people.stats))
    app.add_handler(CommandHandler("rating", people.rating))
    app.add_handler(CommandHandler("rules", people.rules))
    app.add_handler(CommandHandler("event", handlers.events.tournament))
    app.add_handler(CommandHandler("daily", handlers.daily.daily))
    app.add_handler(InlineQueryHandler(handlers.daily.inline))
    app.add_handler(CommandHandler("help", people.help_command))
    app.add_handler(CommandHandler("language", people.language))
    app.add_handler(CommandHandler("replay", handlers.replays.replay))
    app.add_handler(CallbackQueryHandler(handlers.buttons.button))
    app.add_handler(ChatMemberHandler(tables.membership, ChatMemberHandler.MY_CHAT_MEMBER))
    app.add_error_handler(handlers.errors.error_handler)


@asynccontextmanager
async def polling(
    app: Application,  # type: ignore[type-arg]
    poll_timeout: int = 10,
) -> AsyncIterator[Application]:  # type: ignore[type-arg]
    """Run ``app`` inside ``async with``, in the order ``run_polling`` uses.

    initialize, post_init, poll, start; then stop polling, stop, post_stop (which sends
    what is pending), shutdown, post_shutdown (which closes storage). For the sandbox, the
    test harness and the load test, which need the bot running beside other work.
    """
    await app.initialize()
    try:
        if app.post_init is not None:
            await app.post_init(app)
        assert app.updater is not None
        await app.updater.start_polling(
            poll_interval=0.0, timeout=poll_timeout, allowed_updates=Update.ALL_TYPES
        )
        await app.start()
        yield app
    finally:
        if app.updater is not None and app.updater.running:
            await app.updater.stop()
        if app.running:
            await app.stop()
            if app.post_stop is not None:
                await app.post_stop(app)
        await app.shutdown()
        if app.post_shutdown is not None:
            await app.post_shutdown(app)


async def _post_init(app: HeartsApp) -> None:
    settings, tuning = app.bot_data.settings, app.bot_data.tuning
    assert settings is not None
    storage = await open_storage(
        settings.database, synchronous=settings.database_synchronous, account=settings.account
    )
    assert isinstance(app, HeartsBot)
    app.storage = storage
    rated = await storage.standings.rate_backlog()
    if rated:
        log.info("Rated %d games finished before ratings existed.", rated)
    me = await app.bot.get_me()
    # Other accounts on the same database name this one by its @username.
    await storage.accounts.introduce(me.username or "")
    metrics = app.metrics or Metrics(account_of(settings.bot_token))
    metrics.named(me.username or "")
    # The outbox tells the rooms, built on it below, of a message it had to send anew and
    # of a chat that blocked or removed the bot; the metrics, of its waits.
    outbox = Outbox(
        app.bot,
        group_interval=tuning.group_edit_interval,
        dm_interval=tuning.dm_edit_interval,
        on_replaced=lambda chat_id, old, new: rooms.screens.message_replaced(chat_id, old, new),
        on_gone=lambda chat_id: rooms.presence.chat_gone(chat_id),
        on_turn=metrics.waited_turn,
        on_shown=metrics.shown,
    )
    thinker = app.thinker = MeasuredThinker(
        metrics, settings.computer_workers or tuning.thinker_workers
    )

    async def is_admin(chat_id: int, user_id: int) -> bool:
        try:
            member = await app.bot.get_chat_member(chat_id, user_id)
        except TelegramError:
            return False
        return member.status in (ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)

    async def is_member(chat_id: int, user_id: int) -> bool:
        try:
            member = await app.bot.get_chat_member(chat_id, user_id)
        except TelegramError:
            return False
        if member.status == ChatMemberStatus.RESTRICTED:
            return bool(getattr(member, "is_member", False))
        return member.status in (
            ChatMemberStatus.MEMBER,
            ChatMemberStatus.ADMINISTRATOR,
            ChatMemberStatus.OWNER,
        )

    async def member_status(chat_id: int, user_id: int) -> str | None:
        try:
            member = await app.bot.get_chat_member(chat_id, user_id)
        except TelegramError:
            return None
        return str(member.status)

    config = TablesConfig(
        bot_username=me.username or "",
        computer_delay=tuning.computer_delay,
        computer_budget_ms=settings.computer_think_ms,
        nudge_delay=tuning.nudge_delay,
        engaged_nudge_delay=tuning.engaged_nudge_delay,
        default_turn_timer=settings.default_turn_timer,
        lobby_ttl_s=tuning.lobby_ttl_s,
        webapp_url=settings.webapp_url,
        lean_edits=tuning.lean_edits,
    )
    languages = await Languages.load(storage.people)
    rooms = open_rooms(
        storage,
        outbox,
        thinker,
        config,
        is_admin,
        is_member,
        member_status,
        tuning.clock or system_clock,
        languages,
        metrics,
    )
    app.rooms = rooms
    if settings.database_url is not None:  # other accounts may share the database
        app.shared_languages = asyncio.create_task(_read_languages(languages))
    # First of all: a group another bot account serves gets one sentence, then silence.
    served = ServedGroups(storage.accounts, languages, outbox)
    app.add_handler(TypeHandler(Update, served.gate), group=-2)
    add_handlers(app, wire_handlers(rooms))
    if settings.webapp_url is not None:
        server = rooms.page_server(settings, is_member)
        await server.start(settings.webapp_listen, settings.webapp_port)
        app.live_server = server
        # Telegram says who leaves a group (to a bot that is its admin): watching follows.
        members = GroupMembers(server.member_left, server.member_joined)
        app.add_handler(ChatMemberHandler(members.changed, ChatMemberHandler.CHAT_MEMBER))
    try:
        await set_commands(app)
    except TelegramError as error:
        log.warning("could not register commands: %s", error)
    await rooms.resume()
    # Presses whose moves the process before this one stored but never answered.
    await answer_pending(app.bot, storage.ledger)
    log.info("bot @%s (bot account %s) ready", me.username, settings.account)


async def set_commands(app: HeartsApp) -> None:
    """The command menu in every shipped language (English for every other), the twelve
    requests at once."""
    requests = []
    for language in LANGUAGES:
        tr = translator(language)
        # Telegram's scope is a two-letter code: Brazilian Portuguese serves "pt".
        code = None if language == ENGLISH else language[:2]
        for commands, scope in (
            (GROUP_COMMANDS, BotCommandScopeAllGroupChats()),
            (PRIVATE_COMMANDS, BotCommandScopeAllPrivateChats()),
        ):
            requests.append(
                app.bot.set_my_commands(
                    [BotCommand(c, tr(d)) for c, d in commands], scope=scope, language_code=code
                )
            )
    await asyncio.gather(*requests)


LANGUAGES_READ_EVERY_S = 10.0
"""How often a bot on PostgreSQL reads the language choices other accounts stored."""


async def _read_languages(languages: Languages) -> None:
    while True:
        await asyncio.sleep(LANGUAGES_READ_EVERY_S)
        try:
            await languages.refresh()
        except StorageError as error:
            log.warning("other accounts' language choices cannot be read: %s", error)


async def _post_stop(app: HeartsApp) -> None:
    """Updates have stopped: send what is still pending while the bot can still send.

    What is not sent within the outbox's grace is dropped here, before the bot's connection
    closes (the next start shows every table and DM again).
    """
    rooms = rooms_of(app)
    await _stop_pages(app)
    if rooms is not None:
        await rooms.close()
        await rooms.outbox.close()


async def _stop_pages(app: HeartsApp) -> None:
    """The table pages close first: they reconnect to whichever process serves next."""
    if not isinstance(app, HeartsBot):
        return
    server, app.live_server = app.live_server, None
    if server is not None:
        await server.stop()


async def _post_shutdown(app: HeartsApp) -> None:
    await _stop_pages(app)
    if isinstance(app, HeartsBot) and app.shared_languages is not None:
        app.shared_languages.cancel()
    rooms = rooms_of(app)
    if rooms is not None:
        await rooms.close()
        await rooms.outbox.close()
    if not isinstance(app, HeartsBot):
        return
    if app.thinker is not None:
        app.thinker.close()
    if app.storage is not None:
        await app.storage.close()
