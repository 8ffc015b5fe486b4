"""Building the Application: the one place where handlers, storage and timers are wired."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
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
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
)

from bot.config import Settings
from bot.tables.service import HeartsService, ServiceConfig
from bot.tables.thinker import Thinker
from bot.telegram import handlers
from bot.telegram.flood import CommandLimiter
from bot.telegram.outbox import Outbox
from bot.telegram.poller import ConfirmingUpdater
from bot.tournaments.service import EventService, system_clock
from storage import open_storage

log = logging.getLogger(__name__)

GROUP_COMMANDS = [
    ("newgame", "Open a table of Hearts"),
    ("join", "Take a seat"),
    ("leave", "Leave the table"),
    ("start", "Start the game (host or admin)"),
    ("cancel", "Cancel the table (host or admin)"),
    ("scores", "This game and the leaderboard"),
    ("rules", "The rules of this table"),
    ("rejoin", "Take your seat back"),
    ("event", "Tournaments: register, rounds, standings"),
    ("help", "All commands"),
]
PRIVATE_COMMANDS = [
    ("stats", "Your record"),
    ("rejoin", "Take your seat back"),
    ("rules", "The rules"),
    ("help", "All commands"),
]


@dataclass(frozen=True)
class Tuning:
    """Pacing that tests and the sandbox turn down; production keeps the defaults."""

    computer_delay: float = 1.0
    group_edit_interval: float = 3.0
    dm_edit_interval: float = 1.0
    thinker_workers: int = 1
    rate_limiter: bool = True
    nudge_delay: float = 5.0
    """Seconds into a person's turn before their "your turn" message."""
    clock: Callable[[], datetime] | None = None
    """What time it is for events' reminders and rounds (tests pass a manual clock)."""
    lobby_ttl_s: float = 6 * 3600
    """A lobby nobody starts closes after this long."""


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


def build_application(settings: Settings, tuning: Tuning | None = None) -> Application:  # type: ignore[type-arg]
    """The bot, ready to run: its ``post_init`` opens storage and resumes every game."""
    tuning = tuning or Tuning()
    if not settings.bot_token:
        raise ValueError("A bot token is needed to build the application.")
    builder = (
        ApplicationBuilder()
        .token(settings.bot_token)
        .base_url(settings.telegram_api_base_url)
        .concurrent_updates(True)
        .post_init(_post_init)
        .post_stop(_post_stop)
        .post_shutdown(_post_shutdown)
    )
    if settings.telegram_api_file_url:
        builder = builder.base_file_url(settings.telegram_api_file_url)
    if tuning.rate_limiter:
        # No retries of its own: the outbox retries (one owner, at most 4 tries a request).
        builder = builder.rate_limiter(MessageRateLimiter(max_retries=0))  # type: ignore[arg-type]
    app = builder.build()
    # Polling confirms an update only once it was handled (bot/telegram/poller.py).
    app.updater = ConfirmingUpdater(app.bot, app.update_queue, app.process_update)
    app.bot_data["settings"] = settings
    app.bot_data["tuning"] = tuning
    app.bot_data["command_limiter"] = CommandLimiter()
    app.add_handler(CommandHandler(["newgame", "hearts"], handlers.new_game))
    app.add_handler(CommandHandler("start", handlers.start))
    app.add_handler(CommandHandler("join", handlers.join))
    app.add_handler(CommandHandler("leave", handlers.leave))
    app.add_handler(CommandHandler("cancel", handlers.cancel))
    app.add_handler(CommandHandler("rejoin", handlers.rejoin))
    app.add_handler(CommandHandler("scores", handlers.scores))
    app.add_handler(CommandHandler("stats", handlers.stats))
    app.add_handler(CommandHandler("rules", handlers.rules))
    app.add_handler(CommandHandler("event", handlers.event))
    app.add_handler(CommandHandler("help", handlers.help_command))
    app.add_handler(CallbackQueryHandler(handlers.button))
    app.add_handler(ChatMemberHandler(handlers.membership, ChatMemberHandler.MY_CHAT_MEMBER))
    app.add_error_handler(handlers.error_handler)
    return app


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


async def _post_init(app: Application) -> None:  # type: ignore[type-arg]
    settings: Settings = app.bot_data["settings"]
    tuning: Tuning = app.bot_data["tuning"]
    storage = await open_storage(settings.database_path, synchronous=settings.database_synchronous)
    me = await app.bot.get_me()
    outbox = Outbox(
        app.bot,
        group_interval=tuning.group_edit_interval,
        dm_interval=tuning.dm_edit_interval,
    )
    thinker = Thinker(tuning.thinker_workers)

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

    service = HeartsService(
        storage,
        outbox,
        thinker,
        ServiceConfig(
            bot_username=me.username or "",
            computer_delay=tuning.computer_delay,
            computer_budget_ms=settings.computer_think_ms,
            nudge_delay=tuning.nudge_delay,
            default_turn_timer=settings.default_turn_timer,
            lobby_ttl_s=tuning.lobby_ttl_s,
        ),
        is_admin,
        is_member,
    )

    async def member_status(chat_id: int, user_id: int) -> str | None:
        try:
            member = await app.bot.get_chat_member(chat_id, user_id)
        except TelegramError:
            return None
        return str(member.status)

    events = EventService(service, member_status, tuning.clock or system_clock)
    app.bot_data.update(
        storage=storage, outbox=outbox, thinker=thinker, service=service, events=events
    )
    try:
        await app.bot.set_my_commands(
            [BotCommand(c, d) for c, d in GROUP_COMMANDS], scope=BotCommandScopeAllGroupChats()
        )
        await app.bot.set_my_commands(
            [BotCommand(c, d) for c, d in PRIVATE_COMMANDS], scope=BotCommandScopeAllPrivateChats()
        )
    except TelegramError as error:
        log.warning("could not register commands: %s", error)
    await service.resume()
    await events.resume()
    log.info("bot @%s ready", me.username)


async def _post_stop(app: Application) -> None:  # type: ignore[type-arg]
    """Updates have stopped: send what is still pending while the bot can still send.

    What is not sent within the outbox's grace is dropped here, before the bot's connection
    closes (the next start shows every table and DM again).
    """
    service = app.bot_data.get("service")
    if service is not None:
        await service.close()
    outbox = app.bot_data.get("outbox")
    if outbox is not None:
        await outbox.close()


async def _post_shutdown(app: Application) -> None:  # type: ignore[type-arg]
    service = app.bot_data.get("service")
    if service is not None:
        await service.close()
    outbox = app.bot_data.get("outbox")
    if outbox is not None:
        await outbox.close()
    thinker = app.bot_data.get("thinker")
    if thinker is not None:
        thinker.close()
    storage = app.bot_data.get("storage")
    if storage is not None:
        await storage.close()
