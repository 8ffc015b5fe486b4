"""What a handler's typed context holds (`ContextTypes`): the settings and the commands'
rate. Never the rooms nor storage: each handler is given what it calls when it is wired
(`bot.rooms.wire_handlers`), and the Application holds what it opens (`bot.app.HeartsBot`)."""

from __future__ import annotations

from typing import Any

from telegram.ext import CallbackContext, ExtBot

from bot.config import Settings, Tuning
from bot.flood import CommandLimiter


class BotData:
    """The Application's ``bot_data``, typed: the settings, and each person's command rate
    (`bot.telegram.handlers.command`)."""

    def __init__(self) -> None:
        self.settings: Settings | None = None
        self.tuning = Tuning()
        self.command_limiter = CommandLimiter()


HeartsContext = CallbackContext[ExtBot[None], dict[Any, Any], dict[Any, Any], BotData]
"""What every handler gets: ``context.bot_data`` is typed."""
