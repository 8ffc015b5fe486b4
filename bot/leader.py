"""Leader and standby: two bot processes on one PostgreSQL database, one serving Telegram.

With ``DATABASE_URL``, a process first takes the leader lock (`storage.postgres.Leadership`,
a PostgreSQL advisory lock on a connection of its own) and only then starts the bot: it
polls Telegram or serves the webhook, and resumes every game, timer and tournament from
the database as after a restart. A second process waits for the lock (a standby, whose
``/healthz`` says so) and takes over the moment the leader's session ends: at once when
its process dies, within about 6 s when its machine stops answering. A leader whose
database connection stops answering stops serving (its exit code is 1, for a supervisor to
start it again, as the standby now).
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import time
from typing import Any

from bot.config import Settings
from bot.metrics import Metrics, Watched, account_of
from bot.telegram.health import ROLE, HealthServer
from storage.postgres import Leadership

log = logging.getLogger(__name__)


def process_name() -> str:
    """How this process shows in the database (``pg_stat_activity``) and in ``check``."""
    return f"hearts-bot@{socket.gethostname()}:{os.getpid()}"


def take_lead(settings: Settings, loop: asyncio.AbstractEventLoop) -> Leadership | None:
    """Block until this process leads (PostgreSQL), serving ``/healthz`` as a standby
    meanwhile; None with SQLite, where one process is all there is."""
    if settings.database_url is None:
        return None
    ROLE.name = "standby"
    # A standby's /metrics says what it is (hearts_role), and nothing moves.
    metrics = Metrics(account_of(settings.bot_token), Watched(role=lambda: ROLE.name))
    health = (
        HealthServer(settings, scrape=metrics.text) if settings.health_port is not None else None
    )
    if health is not None:
        loop.run_until_complete(health.start())

    def waiting(holder: str | None) -> None:
        log.info(
            "standby: %s leads bot account %s; waiting to take over",
            holder or "another process",
            settings.account,
        )

    began = time.monotonic()
    try:
        leadership = loop.run_until_complete(
            Leadership.wait(settings.database_url, process_name(), waiting, settings.account)
        )
    finally:
        if health is not None:
            loop.run_until_complete(health.stop())
    ROLE.name = "leader"
    log.info("leading (the lock was taken after %.1f s)", time.monotonic() - began)
    return leadership


def attach_leadership(application: Any, leadership: Leadership) -> None:
    """Watch the lock for the application's lifetime: if its connection stops answering,
    stop serving (another process may lead by now); release it at shutdown."""
    inner_init, inner_shutdown = application.post_init, application.post_shutdown
    tasks: set[asyncio.Task[None]] = set()

    def lost() -> None:
        log.error("the leader lock's database connection stopped answering; stopping")
        ROLE.name = "lost"
        application.stop_running()

    async def post_init(app: Any) -> None:
        if inner_init is not None:
            await inner_init(app)
        tasks.add(asyncio.create_task(leadership.watch(lost)))

    async def post_shutdown(app: Any) -> None:
        for task in tasks:
            task.cancel()
        if inner_shutdown is not None:
            await inner_shutdown(app)
        await leadership.release()

    application.post_init = post_init
    application.post_shutdown = post_shutdown
