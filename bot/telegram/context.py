"""What a handler's typed context holds (`ContextTypes`): the settings and the commands'
rate. Never the rooms nor storage: each handler is given what it calls when it is wired
(`bot.rooms.wire_handlers`), and the Application holds what it opens (`bot.app.HeartsBot`)."""

from __future__ import annotations

from typing import Any

from telegram.ext import CallbackContext, ExtBot

from bot.config import Settings, Tuning
from bot.flood import CommandLimiter, GroupPosts, moves, presses


class BotData:
    """The Application's ``bot_data``, typed: the settings, and each person's rate of
    commands (`bot.telegram.handlers.command`), of presses and of a seat's moves
    (`Buttons.button`), and of what they have the bot post in a group."""

    def __init__(self) -> None:
        self.settings: Settings | None = None
        self.tuning = Tuning()
        self.command_limiter = CommandLimiter()
        self.press_limiter = presses()
        self.move_limiter = moves()
        self.group_posts = GroupPosts()

    def tune(self, tuning: Tuning) -> None:
        """Pace as `tuning` says: without `pace_presses`, a person's presses, moves and
        posts in a group are never held."""
        self.tuning = tuning
        if not tuning.pace_presses:
            self.press_limiter = CommandLimiter(burst=1_000_000, every=1e-6)
            self.move_limiter = CommandLimiter(burst=1_000_000, every=1e-6)
            self.group_posts.people = CommandLimiter(burst=1_000_000, every=1e-6)


HeartsContext = CallbackContext[ExtBot[None], dict[Any, Any], dict[Any, Any], BotData]
"""What every handler gets: ``context.bot_data`` is typed."""
