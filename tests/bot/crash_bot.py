"""The real bot in a process of its own, for the crash test: ``python tests/bot/crash_bot.py``.

Settings come from the environment exactly as for ``python -m bot`` (``BOT_TOKEN``,
``TELEGRAM_API_BASE_URL``, ``DATABASE_PATH``, ``LOG_LEVEL``; no ``.env`` is read), and the
pacing is the test harness's fast one: no delay for computers, no edit coalescing interval,
no rate limiter (the double's limits are off in the crash test). ``CRASH_BOT_DM_INTERVAL``
and ``CRASH_BOT_GROUP_INTERVAL`` (seconds) turn the edit intervals up if a test wants them.

The process polls until it is killed; the crash test kills it with SIGKILL, so nothing here
may rely on a clean shutdown. With ``DATABASE_URL`` it first takes the leader lock as
``hearts-bot`` does (`bot.leader`): a second one waits as the standby (the failover test).
With ``HEALTH_PORT``, it serves ``/healthz`` and ``/metrics`` as ``hearts-bot`` does.
"""

from __future__ import annotations

import asyncio
import os
import sys

from telegram import Update

from bot.app import build_application
from bot.config import ConfigError, Tuning, load_settings
from bot.leader import attach_leadership, take_lead
from bot.logs import setup_logging
from bot.telegram.health import attach_health_server


def tuning_from_env() -> Tuning:
    """The harness's FAST pacing, with the edit intervals read from the environment."""
    return Tuning(
        computer_delay=0.0,
        group_edit_interval=float(os.environ.get("CRASH_BOT_GROUP_INTERVAL", "0")),
        dm_edit_interval=float(os.environ.get("CRASH_BOT_DM_INTERVAL", "0")),
        thinker_workers=0,
        rate_limiter=False,
        pace_presses=False,  # the referee presses at the machine's speed
    )


def main() -> int:
    try:
        settings = load_settings(env_file=None)
    except ConfigError as error:
        print(f"crash_bot: {error}", file=sys.stderr)
        return 2
    setup_logging(settings)
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    leadership = take_lead(settings, loop)  # with DATABASE_URL, a standby waits here
    app = build_application(settings, tuning_from_env())
    if leadership is not None:
        attach_leadership(app, leadership)
    attach_health_server(app, settings)  # with HEALTH_PORT: /healthz and /metrics
    app.run_polling(poll_interval=0.0, timeout=1, allowed_updates=Update.ALL_TYPES)
    return 0


if __name__ == "__main__":
    sys.exit(main())
