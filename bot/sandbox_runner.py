"""The local sandbox: the real bot, a pretend Telegram (the Bot API double) and a web page.

    python -m bot --sandbox            (or ./dev sandbox; ./dev run without a BOT_TOKEN)
    python -m bot.sandbox_runner --port 8081 --no-browser

The double runs on 127.0.0.1 with Telegram's flood limits; a group "Hearts sandbox" and
four people (Ana, Bob, Carol, Dave) who have opened the bot's DM live in it. The bot is
built by `build_application` exactly as in production and polls the double; the page at
http://127.0.0.1:8080/ shows the group and each person's DM, and acts as those people.
The options can also come from the environment (SANDBOX_PORT, SANDBOX_NO_BROWSER=1,
SANDBOX_DATABASE), for `python -m bot --sandbox`, which takes no options of its own.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import logging
import os
import signal
import socket
import sys
import tempfile
import webbrowser
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from telegram.ext import Application

from bot.app import build_application, polling
from bot.config import Settings, Tuning
from bot.logs import setup_logging
from sandbox.double import BotApiDouble
from sandbox.limits import RateLimits
from sandbox.people import Group, SandboxUser
from sandbox.web import SandboxWeb

log = logging.getLogger(__name__)

PROG = "hearts-bot --sandbox"
DEFAULT_PORT = 8080
GROUP_TITLE = "Hearts sandbox"
PEOPLE = ("Ana", "Bob", "Carol", "Dave")
BOT_USERNAME = "hearts_sandbox_bot"

SANDBOX_TUNING = Tuning(
    computer_delay=0.6,
    group_edit_interval=3.0,
    dm_edit_interval=1.0,
    thinker_workers=1,
    rate_limiter=True,
)
"""Production pacing, with computers a little quicker: the bot meets Telegram's limits."""


@dataclass(frozen=True)
class SandboxWorld:
    """Everything the sandbox runs: the double, its people, the bot and the page."""

    double: BotApiDouble
    group: Group
    people: tuple[SandboxUser, ...]
    app: Application  # type: ignore[type-arg]
    page: SandboxWeb

    @property
    def url(self) -> str:
        return self.page.url


def sandbox_settings(
    double: BotApiDouble, database: Path, log_level: str = "WARNING", webapp_port: int = 0
) -> Settings:
    """The bot's settings for talking to `double` with its data in `database`, serving the
    table page on `webapp_port` of 127.0.0.1 (0: any free port)."""
    port = webapp_port or free_port()
    return Settings(
        bot_token=double.token,
        telegram_api_base_url=double.base_url,
        telegram_api_file_url=double.base_file_url,
        database_path=database,
        log_level=log_level,
        webapp_url=f"http://127.0.0.1:{port}/app/",
        webapp_port=port,
    )


def free_port() -> int:
    """A port nothing listens on now, on 127.0.0.1."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@asynccontextmanager
async def sandbox_world(
    database: Path,
    *,
    host: str = "127.0.0.1",
    web_port: int = DEFAULT_PORT,
    rate_limits: RateLimits | None = None,
    tuning: Tuning = SANDBOX_TUNING,
    settings_log_level: str = "WARNING",
    computer_think_ms: int | None = None,
) -> AsyncIterator[SandboxWorld]:
    """Start the double, the world in it, the bot polling it and the page; stop all after.

    `rate_limits` defaults to Telegram's (`RateLimits()`); tests may pass faster `tuning`
    and `RateLimits.off()`. Raises OSError if `web_port` is taken.
    """
    double = BotApiDouble(
        rate_limits=rate_limits if rate_limits is not None else RateLimits(),
        bot_username=BOT_USERNAME,
        bot_name="Hearts",
        host=host,
    )
    async with double:
        people = tuple(double.create_user(name, username=name.lower()) for name in PEOPLE)
        group = double.create_group(GROUP_TITLE, members=people, creator=people[0])
        settings = sandbox_settings(double, database, settings_log_level)
        if computer_think_ms is not None:
            settings = dataclasses.replace(settings, computer_think_ms=computer_think_ms)
        app = build_application(settings, tuning)
        async with polling(app):
            for person in people:
                await person.start_bot()
            # Open the page only once the bot has greeted everyone: a press that overtakes
            # a person's /start would be told the bot cannot write to them yet.
            await double.wait_for(
                lambda: all(any(m.from_bot for m in p.dm_view().visible) for p in people), 15
            )
            page = SandboxWeb(
                double, group, people, host=host, port=web_port, webapp_url=settings.webapp_url
            )
            await page.start()
            try:
                yield SandboxWorld(double, group, people, app, page)
            finally:
                await page.stop()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Run the real bot against a pretend Telegram, with a web page to play in.",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=int(os.environ.get("SANDBOX_PORT") or DEFAULT_PORT),
        help=f"port of the web page on 127.0.0.1 (default {DEFAULT_PORT}; env SANDBOX_PORT)",
    )
    parser.add_argument(
        "--no-browser",
        action="store_true",
        default=os.environ.get("SANDBOX_NO_BROWSER", "") not in ("", "0"),
        help="do not open a browser tab (env SANDBOX_NO_BROWSER=1)",
    )
    parser.add_argument(
        "--database",
        type=Path,
        default=Path(os.environ["SANDBOX_DATABASE"])
        if os.environ.get("SANDBOX_DATABASE")
        else None,
        help="keep the sandbox's games in this SQLite file (default: a temporary one, "
        "so every run starts afresh; env SANDBOX_DATABASE)",
    )
    parser.add_argument("--verbose", action="store_true", help="log what the bot does")
    return parser


async def serve(database: Path, port: int, *, open_browser: bool, verbose: bool) -> int:
    """Run the sandbox until SIGINT or SIGTERM; 0 after a clean stop."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    level = "INFO" if verbose else "WARNING"
    try:
        async with sandbox_world(database, web_port=port, settings_log_level=level) as world:
            assert world.app.bot_data.settings is not None
            setup_logging(world.app.bot_data.settings)
            print(
                f"Hearts sandbox: open {world.url} in your browser (Ctrl-C stops it).", flush=True
            )
            if open_browser:
                with contextlib.suppress(Exception):
                    webbrowser.open(world.url)
            await stop.wait()
            print("Stopping the sandbox…", flush=True)
    except OSError as exc:
        print(
            f"{PROG}: cannot serve the page on 127.0.0.1:{port} ({exc.strerror or exc}); "
            "choose another port with --port (e.g. ./dev run --port 8090) or SANDBOX_PORT.",
            file=sys.stderr,
        )
        return 1
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(sig)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the sandbox with the options in `argv`; returns the exit code.

    `argv` None means no options (the environment still applies): `python -m bot --sandbox`
    calls it so, and its own command line is not the sandbox's.
    """
    try:
        args = build_parser().parse_args(list(argv) if argv is not None else [])
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 2
    if not 0 <= args.port <= 65535:
        print(f"{PROG}: --port must be between 0 and 65535.", file=sys.stderr)
        return 2
    setup_logging(Settings(bot_token=None, log_level="INFO" if args.verbose else "WARNING"))
    try:
        if args.database is not None:
            args.database.parent.mkdir(parents=True, exist_ok=True)
            return asyncio.run(
                serve(
                    args.database, args.port, open_browser=not args.no_browser, verbose=args.verbose
                )
            )
        with tempfile.TemporaryDirectory(prefix="hearts-sandbox-") as folder:
            return asyncio.run(
                serve(
                    Path(folder) / "sandbox.sqlite3",
                    args.port,
                    open_browser=not args.no_browser,
                    verbose=args.verbose,
                )
            )
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
