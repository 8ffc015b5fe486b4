"""Fixtures for the double's own tests."""

from collections.abc import AsyncIterator

import pytest_asyncio
from telegram import Bot

from sandbox.double import BotApiDouble
from sandbox.testing import bot_api_double, make_bot

__all__ = ["bot", "bot_api_double"]


@pytest_asyncio.fixture
async def bot(bot_api_double: BotApiDouble) -> AsyncIterator[Bot]:
    """A real PTB Bot talking HTTP to the double."""
    async with make_bot(bot_api_double) as ptb_bot:
        yield ptb_bot
