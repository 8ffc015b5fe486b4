"""Webhook mode: python-telegram-bot's own webhook server, behind an https proxy.

Telegram posts updates to ``WEBHOOK_URL``; a reverse proxy (Caddy, nginx) terminates TLS
and forwards to ``http://WEBHOOK_LISTEN:WEBHOOK_PORT/<path of WEBHOOK_URL>``. Every request
must carry ``X-Telegram-Bot-Api-Secret-Token: WEBHOOK_SECRET``; PTB's server answers 403
otherwise. PTB reports that only at DEBUG level (and with the wrong secret in it), so
`RejectionLog` turns it into one WARNING line without the body or the secret.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from signal import Signals
from typing import Any

from telegram import Update
from telegram.ext import Application

from bot.config import Settings, log_level_number

# PTB's webhook handler logs as "telegram.ext.Updater" (webhookhandler.py, pinned 22.8).
UPDATER_LOGGER = "telegram.ext.Updater"
_SECRET_MESSAGES = (
    "Request did not include the secret token",
    "Request had the wrong secret token: %s",
)


class RejectionLog(logging.Filter):
    """On PTB's updater logger: a refused webhook request becomes one WARNING line.

    The logger itself must let DEBUG through for PTB's messages to reach this filter, so
    the filter also applies the configured threshold to everything else it sees.
    """

    def __init__(self, threshold: int) -> None:
        super().__init__()
        self.threshold = threshold

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg in _SECRET_MESSAGES:
            return False  # the "Exception in TelegramHandler" record that follows says it
        if record.msg == "%s - %s" and isinstance(record.args, tuple) and len(record.args) == 2:
            remote_ip, what = record.args
            status, reason = _http_error(record.exc_info)
            if what == "Exception in TelegramHandler" and status is not None:
                record.levelno = logging.WARNING if status == 403 else logging.INFO
                record.levelname = logging.getLevelName(record.levelno)
                record.msg = "webhook request refused with %s (%s) from %s; body not logged"
                record.args = (status, reason, remote_ip)
                record.exc_info = None
                record.exc_text = None
        return record.levelno >= self.threshold


def _http_error(exc_info: Any) -> tuple[int | None, str]:
    value = exc_info[1] if isinstance(exc_info, tuple) else exc_info
    status = getattr(value, "status_code", None)
    if not isinstance(status, int):
        return None, ""
    return status, str(getattr(value, "reason", None) or "refused")


def install_rejection_log(settings: Settings) -> None:
    """Make refused webhook requests visible at WARNING (idempotent)."""
    updater_logger = logging.getLogger(UPDATER_LOGGER)
    for old in list(updater_logger.filters):
        if isinstance(old, RejectionLog):
            updater_logger.removeFilter(old)
    updater_logger.addFilter(RejectionLog(log_level_number(settings)))
    updater_logger.setLevel(logging.DEBUG)


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
    install_rejection_log(settings)
    application.run_webhook(**webhook_options(settings), stop_signals=stop_signals)
