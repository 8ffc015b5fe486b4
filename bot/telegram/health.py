"""Health: ``hearts-bot check`` and ``GET /healthz``.

``hearts-bot check`` (the Docker HEALTHCHECK, exit 0 or 1) checks from outside the bot:
the database is readable, writable, at the current schema and whole
(`storage.checks`), and the Bot API answers ``getMe``.

``GET /healthz`` on ``HEALTH_PORT`` (200 or 503, the checks as JSON) answers from what the
running bot already knows (`Known`): its database open and its last write's outcome, the
schema it opened, whether it leads, getMe's answer at its start and its last Bot API
request's outcome. A request costs no Bot API call, no database query or lock, and its
body names no database file or address: anyone who reaches the port may ask it any number
of times. The same server answers ``GET /metrics`` in Prometheus's text format
(`bot.metrics`).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import asdict
from typing import Any

from aiohttp import web
from telegram import Bot
from telegram.error import InvalidToken, TelegramError
from telegram.ext import Application

from bot.config import Settings
from bot.logs import SecretRedactor
from bot.telegram.request import AiohttpRequest
from engine import native
from storage.checks import Check, check_database, check_postgres
from storage.postgres import describe
from storage.upgrade import latest_version

logger = logging.getLogger(__name__)

GetMe = Callable[[], Awaitable[Any]]
Scrape = Callable[[], bytes]
"""The bot's metrics in Prometheus's text format (`bot.metrics.Metrics.text`)."""
METRICS_TYPE = "text/plain; version=0.0.4"


class Role:
    """What this process is: ``single`` (SQLite), ``standby`` or ``leader`` (PostgreSQL,
    `bot.leader`), ``lost`` (it led, and lost its database connection)."""

    name = "single"


ROLE = Role()


def make_bot(settings: Settings, timeout_s: float = 10.0) -> Bot:
    """A plain `Bot` for one-off calls (``check``), with short timeouts."""
    assert settings.bot_token is not None
    request = AiohttpRequest(connect_timeout=timeout_s, read_timeout=timeout_s)
    return Bot(
        settings.bot_token,
        base_url=settings.telegram_api_base_url,
        base_file_url=settings.telegram_api_file_url or "https://api.telegram.org/file/bot",
        request=request,
        get_updates_request=request,
    )


async def check_bot_api(settings: Settings, get_me: GetMe | None = None) -> Check:
    """Whether the Bot API at `settings.telegram_api_base_url` answers ``getMe``.

    `get_me` is the running bot's method when there is one; otherwise a short-lived `Bot`
    is built. The detail never contains the token.
    """
    redactor = SecretRedactor(settings.secrets)
    if settings.bot_token is None:
        return Check("bot_api", False, "BOT_TOKEN is not set")
    where = settings.telegram_api_base_url
    account = f"bot account {settings.account}"  # the token's prefix: never the secret
    try:
        if get_me is not None:
            me = await get_me()
        else:
            async with make_bot(settings) as bot:
                me = await bot.get_me()
    except InvalidToken:
        return Check(
            "bot_api", False, f"{where} rejected BOT_TOKEN ({account}); check it with @BotFather"
        )
    except (TelegramError, OSError) as exc:
        detail = redactor.redact(f"{where} cannot be reached by {account} ({exc})")
        return Check("bot_api", False, detail)
    return Check("bot_api", True, f"{where} answers getMe as @{me.username} ({account})")


async def run_checks(settings: Settings, get_me: GetMe | None = None) -> list[Check]:
    """Every check, the database ones off the event loop."""
    if settings.database_url is not None:
        database = await check_postgres(settings.database_url)
        database.append(await _leader_check(settings.database_url, settings.account))
    else:
        database = await asyncio.to_thread(check_database, settings.database_path)
    return [*database, await check_bot_api(settings, get_me)]


async def _leader_check(url: str, account: int) -> Check:
    from storage.errors import StorageError
    from storage.postgres import leader

    try:
        holder = await leader(url, account)
    except StorageError as error:
        return Check("leader", False, str(error))
    if holder is None:
        return Check(
            "leader",
            False,
            f"no bot process leads bot account {account}: none is running, or all wait",
        )
    return Check("leader", True, f"{holder} leads bot account {account}")


def report(checks: list[Check], account: dict[str, Any] | None = None) -> dict[str, Any]:
    """The JSON body of ``/healthz``: the checks, and the bot account they are about."""
    body: dict[str, Any] = {"ok": all(c.ok for c in checks), "checks": [asdict(c) for c in checks]}
    if account is not None:
        body["account"] = account
    return body


def _nothing() -> None:
    return None


class Known:
    """What the running bot already knows, for ``/healthz``: each a function read at the
    request, none of which asks Telegram or the database anything.

    `opened`: its storage is open; `write_failure`: why its last database write failed
    (None: it went through); `username`: getMe's answer at its start; `last_request`: its
    last Bot API request's outcome (`bot.metrics.Metrics.last_request`)."""

    def __init__(
        self,
        settings: Settings,
        *,
        opened: Callable[[], bool] = lambda: True,
        write_failure: Callable[[], str | None] = _nothing,
        username: Callable[[], str | None] = _nothing,
        last_request: Callable[[], str | None] = _nothing,
    ) -> None:
        self.settings = settings
        self.opened = opened
        self.write_failure = write_failure
        self.username = username
        self.last_request = last_request

    def checks(self) -> list[Check]:
        account = f"bot account {self.settings.account}"
        if ROLE.name == "standby":
            return [Check("leader", True, f"this process waits as {account}'s standby")]
        checks = (
            [
                Check("database", True, "the bot's database is open"),
                Check("schema", True, f"schema version {latest_version()} is current"),
            ]
            if self.opened()
            else [Check("database", False, "the bot's database is not open")]
        )
        if self.settings.database_url is not None:
            leads = ROLE.name == "leader"
            checks.append(
                Check("leader", True, f"this process leads {account}")
                if leads
                else Check("leader", False, f"this process lost {account}'s leader lock")
            )
        checks.append(self._bot_api(account))
        failure = self.write_failure()
        checks.append(
            Check("writes", True, "the bot's writes go through")
            if failure is None
            else Check("writes", False, f"the bot's last write failed ({self._said(failure)})")
        )
        return checks

    def _bot_api(self, account: str) -> Check:
        username, last = self.username(), self.last_request()
        if last in ("timeout", "network", "5xx"):
            why = {"timeout": "no answer in time", "network": "a network error"}.get(
                last, "a server error"
            )
            return Check("bot_api", False, f"the Bot API's last answer failed: {why} ({account})")
        if username is None:
            return Check("bot_api", False, f"the Bot API has not answered getMe ({account})")
        return Check("bot_api", True, f"the Bot API answered getMe as @{username} ({account})")

    def _said(self, failure: str) -> str:
        """A write's failure, without the database's file or address."""
        redactor = SecretRedactor(self.settings.secrets)
        said = redactor.redact(failure)
        for place in (str(self.settings.database_path), self.settings.database_url):
            if place:
                said = said.replace(place, "the database")
        if self.settings.database_url is not None:
            said = said.replace(describe(self.settings.database_url), "the database")
        return said


class HealthServer:
    """``GET /healthz`` on `settings.health_port`: 200 when every check passes, else 503,
    from `known` (without it, a process that only waits: the standby); and, given
    `scrape`, ``GET /metrics``."""

    def __init__(
        self,
        settings: Settings,
        known: Known | None = None,
        scrape: Scrape | None = None,
    ) -> None:
        self._settings = settings
        self._known = known or Known(settings, opened=lambda: False)
        self._scrape = scrape
        self._runner: web.AppRunner | None = None

    async def metrics(self, request: web.Request) -> web.Response:
        """The bot's metrics now, in Prometheus's text format."""
        if self._scrape is None:
            raise web.HTTPNotFound()
        return web.Response(body=self._scrape(), headers={"Content-Type": METRICS_TYPE})

    async def healthz(self, request: web.Request) -> web.Response:
        """What the bot knows now, as the checks' outcome."""
        checks = self._known.checks()
        username = self._known.username()
        body = report(checks, {"id": self._settings.account, "username": username})
        body["role"] = ROLE.name
        body["engine"] = native.build()  # compiled or pure Python (engine/native.py)
        status = 200 if body["ok"] else 503
        if not body["ok"]:
            logger.warning("health check failed: %s", json.dumps(body["checks"]))
        return web.json_response(body, status=status)

    async def start(self, host: str | None = None, port: int | None = None) -> None:
        """Start listening; `host` and `port` default to the settings."""
        app = web.Application()
        app.router.add_get("/healthz", self.healthz)
        app.router.add_get("/metrics", self.metrics)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(
            self._runner,
            host or self._settings.webhook_listen,
            port if port is not None else self._settings.health_port,
        )
        await site.start()
        logger.info(
            "health endpoint listening on port %s",
            port if port is not None else self._settings.health_port,
        )

    async def stop(self) -> None:
        """Stop listening; safe to call twice."""
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None


def attach_health_server(
    application: Application[Any, Any, Any, Any, Any, Any], settings: Settings
) -> None:
    """Serve ``/healthz`` (and the application's ``metrics``, `bot.metrics.Metrics`, on
    ``/metrics``) for the application's lifetime, when ``HEALTH_PORT`` is set.

    Chains onto the application's own ``post_init`` (which opens storage) and
    ``post_shutdown`` (which closes it), so the endpoint starts after the bot is ready and
    stops before storage closes.
    """
    if settings.health_port is None:
        return

    def storage() -> Any:
        return getattr(application, "storage", None)  # `bot.app.HeartsBot`'s, once opened

    def write_failure() -> str | None:
        failure = getattr(storage(), "write_failure", None)
        return failure if isinstance(failure, str) else None

    def username() -> str | None:
        try:
            return str(application.bot.username)  # getMe's answer, kept since the start
        except RuntimeError:  # not initialized yet
            return None

    metrics = getattr(application, "metrics", None)  # `bot.app.HeartsBot`'s
    scrape = getattr(metrics, "text", None)
    known = Known(
        settings,
        opened=lambda: storage() is not None,
        write_failure=write_failure,
        username=username,
        last_request=lambda: getattr(metrics, "last_request", None),
    )
    server = HealthServer(settings, known, scrape=scrape)
    inner_init = application.post_init
    inner_shutdown = application.post_shutdown

    async def post_init(app: Any) -> None:
        if inner_init is not None:
            await inner_init(app)
        await server.start()

    async def post_shutdown(app: Any) -> None:
        await server.stop()
        if inner_shutdown is not None:
            await inner_shutdown(app)

    application.post_init = post_init
    application.post_shutdown = post_shutdown
