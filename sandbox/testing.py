"""Pytest helpers for tests that run a real python-telegram-bot stack against the double.

In a conftest.py: `from sandbox.testing import bot_api_double  # noqa: F401` (the fixture
starts a double without flood limits), then build the bot with `application_builder(double)`
and run it with `async with polling(app): ...`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest_asyncio
from telegram import Bot
from telegram.ext import Application, ApplicationBuilder

from sandbox.double import BotApiDouble
from sandbox.limits import RateLimits


@asynccontextmanager
async def running_double(
    rate_limits: RateLimits | None = None, **kwargs: Any
) -> AsyncIterator[BotApiDouble]:
    """A started double on 127.0.0.1 (flood limits off unless `rate_limits` is given)."""
    double = BotApiDouble(
        rate_limits=rate_limits if rate_limits is not None else RateLimits.off(), **kwargs
    )
    async with double:
        yield double


@pytest_asyncio.fixture
async def bot_api_double() -> AsyncIterator[BotApiDouble]:
    """A running double with flood limits off."""
    async with running_double() as double:
        yield double


def application_builder(double: BotApiDouble) -> ApplicationBuilder:  # type: ignore[type-arg]
    """An ApplicationBuilder wired to the double (token, base URLs); add handlers and build."""
    return (
        ApplicationBuilder()
        .token(double.token)
        .base_url(double.base_url)
        .base_file_url(double.base_file_url)
    )


def make_bot(double: BotApiDouble, **kwargs: Any) -> Bot:
    """A bare PTB Bot talking to the double (use as `async with make_bot(double) as bot:`)."""
    return Bot(double.token, base_url=double.base_url, base_file_url=double.base_file_url, **kwargs)


@asynccontextmanager
async def polling(
    app: Application,  # type: ignore[type-arg]
    *,
    poll_timeout: int = 1,
) -> AsyncIterator[Application]:  # type: ignore[type-arg]
    """Initialize, start and poll `app` (as run_polling would), then stop it cleanly."""
    async with app:
        await app.start()
        assert app.updater is not None
        await app.updater.start_polling(poll_interval=0.0, timeout=poll_timeout)
        try:
            yield app
        finally:
            await app.updater.stop()
            await app.stop()
