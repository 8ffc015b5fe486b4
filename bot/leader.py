"""Leader and standby: two bot processes on one PostgreSQL database, one serving Telegram.

With ``DATABASE_URL``, a process first takes the leader lock (`storage.postgres.Leadership`,
a PostgreSQL advisory lock on a connection of its own) and only then starts the bot: it
polls Telegram or serves the webhook, and resumes every game, timer and tournament from
the database as after a restart. A second process waits for the lock (a standby, whose
``/healthz`` says so) and takes over the moment the leader's session ends: at once when
its process dies, within about 6 s when its machine stops answering. A leader whose
database connection stops answering stops serving (its exit code is 1, for a supervisor to
start it again, as the standby now). The lock is held and watched from a thread of its own
from the moment it is taken, so however long the start takes (a schema upgrade waited for,
Telegram answering late, hundreds of games resumed) the lock's session stays alive.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import time
from typing import Any

from bot.config import Settings
from bot.metrics import Metrics, account_of
from bot.telegram.health import ROLE, HealthServer
from storage.postgres import LockThread

log = logging.getLogger(__name__)


def process_name() -> str:
    """How this process shows in the database (``pg_stat_activity``) and in ``check``."""
    return f"hearts-bot@{socket.gethostname()}:{os.getpid()}"


HUNG_S = 10.0
"""Once it serves, a leader whose own event loop has not run for this long is taken to
hang: its lock is let go for the standby and it stops (exit code 1). Never while it
starts, however long that takes."""


class Lead:
    """This process's lead: the lock, held and watched from a thread of its own
    (`storage.postgres.LockThread`) from the moment it is taken, before anything else
    starts; the application it stops if the lock is lost."""

    def __init__(self, lock: LockThread, loop: asyncio.AbstractEventLoop) -> None:
        self.lock = lock
        self.loop = loop
        self.application: Any = None
        self.serving = False  # the start is over: the hang check applies
        self.beat = time.monotonic()  # the last time this process's loop ran, once serving

    def alive(self) -> bool:
        """Whether the process answers (asked on the lock's thread)."""
        return not self.serving or time.monotonic() - self.beat < HUNG_S

    def lost(self) -> None:
        """The lock is lost (said on the lock's thread): stop serving, in the bot's loop."""
        log.error("the leader lock's database connection stopped answering; stopping")
        ROLE.name = "lost"
        with contextlib.suppress(RuntimeError):  # a closed loop: the process is ending
            self.loop.call_soon_threadsafe(self.stop)

    def stop(self) -> None:
        if self.application is not None:
            self.application.stop_running()  # during its start too: it stops after post_init

    async def keep_beating(self) -> None:
        while True:
            self.beat = time.monotonic()
            await asyncio.sleep(1.0)


def take_lead(settings: Settings, loop: asyncio.AbstractEventLoop) -> Lead | None:
    """Block until this process leads (PostgreSQL), serving ``/healthz`` as a standby
    meanwhile; None with SQLite, where one process is all there is. The lock is watched
    from then on, whatever the start does next."""
    if settings.database_url is None:
        return None
    ROLE.name = "standby"
    # A standby's /metrics says what it is (hearts_role), and nothing moves.
    metrics = Metrics(account_of(settings.bot_token), role=lambda: ROLE.name)
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
    lock = LockThread()
    try:
        loop.run_until_complete(
            lock.take(settings.database_url, process_name(), waiting, settings.account)
        )
    finally:
        if health is not None:
            loop.run_until_complete(health.stop())
    lead = Lead(lock, loop)
    lock.watch(lead.lost, lead.alive)
    ROLE.name = "leader"
    log.info("leading (the lock was taken after %.1f s)", time.monotonic() - began)
    return lead


def attach_leadership(application: Any, lead: Lead) -> None:
    """Stop serving if the lock is lost (its connection stops answering: another process
    may lead by now), from the start on; once started, check that this process's loop
    runs (`HUNG_S`); release the lock at shutdown."""
    inner_init, inner_shutdown = application.post_init, application.post_shutdown
    tasks: set[asyncio.Task[None]] = set()
    lead.application = application

    async def post_init(app: Any) -> None:
        if inner_init is not None:
            await inner_init(app)
        if ROLE.name == "lost":  # lost while starting
            app.stop_running()
            return
        lead.beat = time.monotonic()
        lead.serving = True
        tasks.add(asyncio.create_task(lead.keep_beating()))

    async def post_shutdown(app: Any) -> None:
        for task in tasks:
            task.cancel()
        if inner_shutdown is not None:
            await inner_shutdown(app)
        await lead.lock.release()

    application.post_init = post_init
    application.post_shutdown = post_shutdown
