"""Webhook mode: our own small aiohttp server behind an https proxy.

Telegram posts updates to ``WEBHOOK_URL``; a reverse proxy (Caddy, nginx) terminates TLS
and forwards to ``http://WEBHOOK_LISTEN:WEBHOOK_PORT/<path of WEBHOOK_URL>``. Every request
must carry ``X-Telegram-Bot-Api-Secret-Token: WEBHOOK_SECRET``, and the secret is checked
from the headers *before any of the body is read*: a stranger's 95 MB POST is answered 403
at once and costs no memory. A body above `MAX_BODY` (Telegram's updates are a few KB) is
answered 413 without being read either. Refusals are logged as one WARNING line, without
the body or the secret.

`GuardedUpdater` takes the place of python-telegram-bot's Updater (whose tornado server
reads the whole body, up to 100 MB, before it looks at the secret) for ``run_webhook``:
the application's start, stop signals and shutdown stay python-telegram-bot's.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
from collections.abc import Sequence
from signal import Signals
from typing import Any

from aiohttp import web
from telegram import Update
from telegram.ext import Application, Updater

from bot.config import Settings

log = logging.getLogger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
MAX_BODY = 512 * 1024
"""The largest request body read: an update is a few KB (a long message, a photo's ids)."""


class WebhookServer:
    """Serves ``POST /<path>`` with the secret, and nothing else."""

    def __init__(self, bot: Any, queue: asyncio.Queue[object], path: str, secret: str) -> None:
        self.bot = bot
        self.queue = queue
        self.path = "/" + path.strip("/")
        self._secret = secret.encode()
        self._runner: web.AppRunner | None = None

    async def start(self, listen: str, port: int) -> None:
        app = web.Application(client_max_size=MAX_BODY)
        app.router.add_route("*", "/{tail:.*}", self.handle)
        # No lingering: a refused request's unread body is not drained, the connection
        # closes.
        self._runner = web.AppRunner(app, access_log=None, lingering_time=0)
        await self._runner.setup()
        await web.TCPSite(self._runner, listen, port).start()

    async def shutdown(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def handle(self, request: web.Request) -> web.StreamResponse:
        remote = request.remote or "?"
        if request.path != self.path:
            return web.Response(status=404)
        if request.method != "POST":
            return web.Response(status=405)
        supplied = request.headers.get(SECRET_HEADER)
        if supplied is None or not hmac.compare_digest(supplied.encode(), self._secret):
            reason = (
                "request did not include the secret token"
                if supplied is None
                else "request had the wrong secret token"
            )
            return self._refuse(403, reason, remote)
        size = request.content_length
        if size is not None and size > MAX_BODY:
            return self._refuse(413, f"body of {size} bytes", remote)
        body = await request.content.read(MAX_BODY + 1)
        if len(body) > MAX_BODY:
            return self._refuse(413, "body too large", remote)
        try:
            update = Update.de_json(json.loads(body), self.bot)
        except (ValueError, TypeError, KeyError) as error:
            return self._refuse(400, f"not an update ({type(error).__name__})", remote)
        await self.queue.put(update)
        return web.Response(status=200)

    @staticmethod
    def _refuse(status: int, reason: str, remote: str) -> web.Response:
        level = logging.WARNING if status in (403, 413) else logging.INFO
        log.log(
            level,
            "webhook request refused with %s (%s) from %s; body not logged",
            status,
            reason,
            remote,
        )
        response = web.Response(status=status)
        response.force_close()
        return response


class GuardedUpdater(Updater):
    """python-telegram-bot's Updater, with `WebhookServer` for its webhook."""

    async def start_webhook(  # type: ignore[override]
        self,
        listen: str = "127.0.0.1",
        port: int = 80,
        url_path: str = "",
        bootstrap_retries: int = 0,
        webhook_url: str | None = None,
        allowed_updates: Sequence[str] | None = None,
        drop_pending_updates: bool | None = None,
        secret_token: str | None = None,
        **_: Any,
    ) -> asyncio.Queue[object]:
        if not secret_token:
            raise ValueError("the webhook needs a secret")
        if self.running:
            raise RuntimeError("This Updater is already running!")
        server = WebhookServer(self.bot, self.update_queue, url_path, secret_token)
        await server.start(listen, port)
        try:
            await self._bootstrap(
                max_retries=bootstrap_retries,
                webhook_url=webhook_url,
                allowed_updates=allowed_updates,
                drop_pending_updates=drop_pending_updates,
                secret_token=secret_token,
            )
        except BaseException:
            await server.shutdown()
            raise
        self._httpd = server  # type: ignore[assignment]  # Updater.stop shuts it down
        self._running = True
        return self.update_queue


def webhook_options(settings: Settings) -> dict[str, Any]:
    """The arguments shared by `Application.run_webhook` and `Updater.start_webhook`."""
    assert settings.webhook_url is not None and settings.webhook_secret is not None
    return {
        "listen": settings.webhook_listen,
        "port": settings.webhook_port,
        "url_path": settings.webhook_path,
        "webhook_url": settings.webhook_url,
        "secret_token": settings.webhook_secret,
        "allowed_updates": Update.ALL_TYPES,
        "bootstrap_retries": 3,
    }


def run_webhook(
    application: Application[Any, Any, Any, Any, Any, Any],
    settings: Settings,
    stop_signals: Sequence[Signals] | None,
) -> None:
    """Register the webhook with Telegram and serve it until a stop signal arrives."""
    application.updater = GuardedUpdater(application.bot, application.update_queue)
    application.run_webhook(**webhook_options(settings), stop_signals=stop_signals)
