"""Health checks: the database is readable, writable and at the current schema, and the
Bot API answers ``getMe``.

The same checks serve ``hearts-bot check`` (the Docker HEALTHCHECK, exit 0 or 1) and the
HTTP endpoint ``GET /healthz`` on ``HEALTH_PORT`` (200 or 503 with the checks as JSON).
The same server answers ``GET /metrics`` in Prometheus's text format (`bot.metrics`).
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
from storage.checks import Check, check_database, check_postgres

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


def account_of(settings: Settings, checks: list[Check]) -> dict[str, Any]:
    """The bot account, by id (the token's prefix) and @username (getMe's, when it
    answered): which of several bots on one database this process serves."""
    username = None
    for check in checks:
        if check.name == "bot_api" and check.ok and " as @" in check.detail:
            username = check.detail.split(" as @", 1)[1].split(" ", 1)[0]
    return {"id": settings.account, "username": username}


class HealthServer:
    """``GET /healthz`` on `settings.health_port`: 200 when every check passes, else 503;
    and, given `scrape`, ``GET /metrics``."""

    def __init__(
        self,
        settings: Settings,
        get_me: GetMe | None = None,
        write_failure: Callable[[], str | None] | None = None,
        scrape: Scrape | None = None,
    ) -> None:
        """`write_failure`: why the running bot's last write failed (None: it went
        through); a test write of the check's own cannot see a full disk."""
        self._settings = settings
        self._get_me = get_me
        self._write_failure = write_failure
        self._scrape = scrape
        self._runner: web.AppRunner | None = None

    async def metrics(self, request: web.Request) -> web.Response:
        """The bot's metrics now, in Prometheus's text format."""
        if self._scrape is None:
            raise web.HTTPNotFound()
        return web.Response(body=self._scrape(), headers={"Content-Type": METRICS_TYPE})

    async def healthz(self, request: web.Request) -> web.Response:
        """Run the checks now and answer with their outcome."""
        checks = await run_checks(self._settings, self._get_me)
        if self._write_failure is not None:
            failure = self._write_failure()
            checks.append(
                Check("writes", True, "the bot's writes go through")
                if failure is None
                else Check("writes", False, f"the bot's last write failed ({failure})")
            )
        body = report(checks, account_of(self._settings, checks))
        body["role"] = ROLE.name
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

    def write_failure() -> str | None:
        storage = getattr(application, "storage", None)  # `bot.app.HeartsBot` once opened
        failure = getattr(storage, "write_failure", None)
        return failure if isinstance(failure, str) else None

    metrics = getattr(application, "metrics", None)  # `bot.app.HeartsBot`'s
    scrape = getattr(metrics, "text", None)
    server = HealthServer(
        settings, get_me=application.bot.get_me, write_failure=write_failure, scrape=scrape
    )
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
