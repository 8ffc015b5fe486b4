"""The command line: ``hearts-bot`` (also ``python -m bot``).

    hearts-bot                 run the bot: long polling, or a webhook if WEBHOOK_URL is set
    hearts-bot --try           the same, but with no BOT_TOKEN the local sandbox instead
    hearts-bot --sandbox       the local sandbox (a pretend Telegram in the browser)
    hearts-bot check           health check: database and Bot API; exit 0 if all pass, else 1
    hearts-bot backup [DEST]   online backup of the live database (default: into BACKUP_DIR)
    hearts-bot restore SRC     put a backup in place; refused while the database is in use
    hearts-bot verify SEED COMMITMENT
                               check a hand's revealed seed against the commitment shown
                               before it (README, "Fair deals"); exit 0 if they match, else 1

Exit codes: 0 success, 1 a failed check or a runtime failure, 2 bad configuration or usage.
Configuration errors are printed as one sentence, never as a traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bot.config import ConfigError, Settings, load_settings

logger = logging.getLogger("bot")

PROG = "hearts-bot"


def build_parser() -> argparse.ArgumentParser:
    """The argument parser; its help is the command reference."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="A Telegram bot that runs Hearts in group chats. Settings come from the "
        "environment and .env (see .env.example).",
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--try",
        dest="try_it",
        action="store_true",
        help="run the bot, or the local sandbox if BOT_TOKEN is not set",
    )
    mode.add_argument(
        "--sandbox", action="store_true", help="run the local sandbox (no Telegram needed)"
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.add_parser("check", help="check the database and the Bot API; exit 1 on failure")
    backup = commands.add_parser("backup", help="back up the live database")
    backup.add_argument(
        "dest", nargs="?", type=Path, help="backup file or folder (default: BACKUP_DIR)"
    )
    restore = commands.add_parser("restore", help="restore the database from a backup")
    restore.add_argument("src", type=Path, help="the backup file")
    copy = commands.add_parser(
        "copy-db", help="copy a SQLite database into an empty PostgreSQL one, and prove it"
    )
    copy.add_argument("source", type=Path, help="the SQLite database file")
    copy.add_argument("target", help="postgresql://user:password@host:port/database")
    ratings = commands.add_parser("ratings", help="the ratings: rebuild them from the games")
    ratings.add_argument(
        "--rebuild",
        action="store_true",
        required=True,
        help="recompute every rating from the stored games, in order (after a change of "
        "model or constants); says how many stored values came out different",
    )
    verify = commands.add_parser(
        "verify",
        help="check a hand's seed (shown when the hand ended) against the commitment shown "
        "before anyone passed, and print the deal; exit 1 if they do not match",
    )
    verify.add_argument(
        "seed", help="the whole seed (📋 Copy seed), e.g. 4p-d3-9f3c… (64 hex digits)"
    )
    verify.add_argument(
        "commitment",
        help="the commitment: its 64 hex digits, or the first 12 the screens show",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code.

    After ``--sandbox`` (or ``--try`` without a token) the sandbox's own options follow,
    e.g. ``--try --port 8090``; they are handed to `bot.sandbox_runner.main`.
    """
    parser = build_parser()
    words = list(sys.argv[1:] if argv is None else argv)
    sandbox_args: list[str] = []
    if (
        words
        and words[0] in ("--try", "--sandbox")
        and words[1:2] != []
        and (words[1].startswith("-") and words[1] not in ("-h", "--help", "--try", "--sandbox"))
    ):
        words, sandbox_args = words[:1], words[1:]
    try:
        args = parser.parse_args(words)
        if args.command and (args.try_it or args.sandbox):
            parser.error(f"{args.command} cannot be combined with --try or --sandbox")
    except SystemExit as exc:  # argparse exits on --help and on usage errors
        return exc.code if isinstance(exc.code, int) else 2

    try:
        if args.sandbox:
            return run_sandbox(sandbox_args)
        if args.try_it:
            settings = load_settings(require_token=False)
            if settings.bot_token is None:
                print(
                    "BOT_TOKEN is not set, so this starts the local sandbox (a pretend Telegram "
                    "in your browser); set BOT_TOKEN to run the real bot.",
                    flush=True,
                )
                return run_sandbox(sandbox_args)
            if sandbox_args:
                print(
                    f"{PROG}: {' '.join(sandbox_args)}: these options are the sandbox's, and "
                    "BOT_TOKEN is set, so the real bot runs; unset it or use ./dev sandbox.",
                    file=sys.stderr,
                )
                return 2
            return run_bot(settings)
        if args.command == "check":
            return run_check(load_settings())
        if args.command == "backup":
            return run_backup(load_settings(require_token=False), args.dest)
        if args.command == "restore":
            return run_restore(load_settings(require_token=False), args.src)
        if args.command == "copy-db":
            return run_copy(args.source, args.target)
        if args.command == "ratings":
            return run_rebuild_ratings(load_settings(require_token=False))
        if args.command == "verify":
            return run_verify(args.seed, args.commitment)
        return run_bot(load_settings())
    except ConfigError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def run_verify(seed: str, commitment: str) -> int:
    """Recompute a hand's deal from its seed and say whether the commitment is its own:
    0 if it is, 1 if not, 2 for a seed that does not read. Needs no settings."""
    from engine import fair
    from engine.cards import codes

    def legible(text: str) -> str:
        # What a chat's copy may carry around a value: spaces, direction marks, an ellipsis.
        return "".join(c for c in text if c.isascii() and (c.isalnum() or c == "-"))

    claimed = legible(commitment).lower()
    if len(claimed) < SHOWN_DIGITS:
        print(
            f"{PROG} verify: {claimed!r}: give the commitment's first {SHOWN_DIGITS} hex "
            "digits at least (as the screens show it before the pass), or all 64 "
            "(📋 Copy commitment).",
            file=sys.stderr,
        )
        return 2
    try:
        verdict = fair.verify(legible(seed), claimed)
        players, dealer, _ = fair.parse_seed(legible(seed))
    except ValueError as error:
        print(
            f"{PROG} verify: {error} The whole seed is what 📋 Copy seed, under the "
            "hand's result in the group, copies.",
            file=sys.stderr,
        )
        return 2
    # The screens show a commitment's first 12 digits: a seed whose commitment begins so
    # is one in 2^48 by chance, and the whole is printed to compare with the copied one.
    matches = verdict.matches or (len(claimed) < 64 and verdict.commitment.startswith(claimed))
    if matches and len(claimed) < 64:
        print(
            f"The commitment matches its {len(claimed)} digits given: this seed gives exactly "
            f"the deal below, whose whole commitment is {verdict.commitment}; compare it "
            "with the one copied before the pass."
        )
    elif matches:
        print(
            "The commitment matches: this seed gives exactly the deal below, so the deal "
            "was fixed when the commitment was shown."
        )
    else:
        print(
            "The commitment does NOT match: this seed gives the deal below, whose "
            f"commitment is {verdict.commitment}, not {claimed}."
        )
    for seat, hand in enumerate(verdict.hands):
        role = " (dealer)" if seat == dealer else ""
        print(f"seat {seat + 1}{role}: {' '.join(codes(hand))}")
    if players == 2:
        print(f"dead cards: {' '.join(codes(verdict.dead))}")
    return 0 if matches else 1


SHOWN_DIGITS = 12
"""The commitment's digits the screens show (`bot.screens.seat_screen.COMMITMENT_SHOWN`,
not imported: ``verify`` runs without the bot's packages)."""


def run_sandbox(argv: Sequence[str] = ()) -> int:
    """Hand over to the local sandbox (``bot.sandbox_runner.main``) with its options."""
    try:
        from bot.sandbox_runner import main as sandbox_main
    except ImportError as exc:
        print(
            f"{PROG}: the local sandbox is not available in this installation "
            f"(bot.sandbox_runner cannot be imported: {exc}); set BOT_TOKEN to run the real bot.",
            file=sys.stderr,
        )
        return 1
    result: Any = sandbox_main(list(argv))
    return result if isinstance(result, int) else 0


def run_bot(settings: Settings) -> int:
    """Run the bot until SIGINT or SIGTERM; returns 0 after a clean stop."""
    from telegram import Update
    from telegram.error import InvalidToken, NetworkError

    from bot.leader import attach_leadership, take_lead
    from bot.logs import setup_logging
    from bot.telegram.health import ROLE, attach_health_server
    from bot.telegram.webhook import run_webhook
    from engine import native
    from storage.errors import StorageError

    setup_logging(settings)
    try:
        from bot.app import build_application
    except ImportError as exc:
        print(f"{PROG}: the bot application cannot be loaded ({exc}).", file=sys.stderr)
        return 1

    stop_signals = (signal.SIGINT, signal.SIGTERM)
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)  # the bot runs on it (run_polling and run_webhook use it)
    try:
        leadership = take_lead(settings, loop)  # a standby waits here
        application = build_application(settings)
        if leadership is not None:
            attach_leadership(application, leadership)
        attach_health_server(application, settings)
        logger.info("%s", native.describe())  # compiled or pure Python: the computers' speed
        if settings.webhook_mode:
            logger.info("starting: webhook at %s", settings.webhook_url)
            run_webhook(application, settings, stop_signals)
        else:
            logger.info("starting: polling %s", settings.telegram_api_base_url)
            application.run_polling(allowed_updates=Update.ALL_TYPES, stop_signals=stop_signals)
    except StorageError as exc:
        logger.error("the database cannot be used: %s", exc)
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 1
    except InvalidToken:
        print(
            f"{PROG}: the Bot API at {settings.telegram_api_base_url} rejected BOT_TOKEN; "
            "check it with @BotFather.",
            file=sys.stderr,
        )
        return 1
    except NetworkError:
        logger.exception("the Bot API cannot be reached")
        print(
            f"{PROG}: the Bot API at {settings.telegram_api_base_url} cannot be reached; "
            "check the network and TELEGRAM_API_BASE_URL.",
            file=sys.stderr,
        )
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception:
        logger.exception("the bot stopped after an unexpected error")
        return 1
    if ROLE.name == "lost":
        return 1  # the database went away: a supervisor starts it again, as the standby
    logger.info("stopped")
    return 0


def run_check(settings: Settings) -> int:
    """Print every health check; 0 if all pass, 1 otherwise."""
    from bot.logs import setup_logging
    from bot.telegram.health import run_checks

    setup_logging(settings)
    checks = asyncio.run(run_checks(settings))
    for check in checks:
        print(f"{'ok  ' if check.ok else 'FAIL'} {check.name}: {check.detail}", flush=True)
    return 0 if all(check.ok for check in checks) else 1


def default_backup_name(now: datetime | None = None) -> str:
    """``hearts-20260131-120000.sqlite3``: sorts by time, one per second."""
    moment = now or datetime.now(UTC)
    return f"hearts-{moment:%Y%m%d-%H%M%S}.sqlite3"


POSTGRES_BACKUP = (
    "the database is PostgreSQL (DATABASE_URL): back it up with pg_dump and restore it with "
    "pg_restore, as deploy/GUIDE.md shows."
)


def run_backup(settings: Settings, dest: Path | None) -> int:
    """Copy the live database to `dest` (a file, or a folder to put a dated file in)."""
    from storage.backup import backup_database
    from storage.errors import StorageError

    if settings.database_url is not None:
        print(f"{PROG}: {POSTGRES_BACKUP}", file=sys.stderr)
        return 1
    if dest is None:
        dest = settings.backup_dir / default_backup_name()
    elif dest.is_dir():
        dest = dest / default_backup_name()
    if not settings.database_path.exists():
        print(
            f"{PROG}: there is no database at {settings.database_path} to back up.",
            file=sys.stderr,
        )
        return 1
    if dest.exists():
        print(f"{PROG}: {dest} already exists; choose another name.", file=sys.stderr)
        return 1
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        backup_database(str(settings.database_path), str(dest))
    except (StorageError, OSError) as exc:
        print(f"{PROG}: backup failed: {exc}", file=sys.stderr)
        return 1
    print(f"backed up {settings.database_path} to {dest}")
    return 0


def run_restore(settings: Settings, src: Path) -> int:
    """Replace the database with the backup `src`; refused while the database is in use."""
    from storage.backup import restore_database
    from storage.errors import StorageError

    if settings.database_url is not None:
        print(f"{PROG}: {POSTGRES_BACKUP}", file=sys.stderr)
        return 1
    if not src.is_file():
        print(f"{PROG}: there is no backup file {src}.", file=sys.stderr)
        return 1
    try:
        restore_database(str(src), str(settings.database_path))
    except (StorageError, OSError) as exc:
        print(f"{PROG}: restore refused: {exc}", file=sys.stderr)
        return 1
    print(f"restored {settings.database_path} from {src}")
    return 0


def run_copy(source: Path, target: str) -> int:
    """``hearts-bot copy-db``: every row into an empty PostgreSQL database, then replayed."""
    from storage import is_postgres
    from storage.copy import copy_database
    from storage.errors import StorageError
    from storage.postgres import describe

    if not is_postgres(target):
        print(f"{PROG}: the target must be a postgresql:// address.", file=sys.stderr)
        return 2
    try:
        report = asyncio.run(copy_database(source, target))
    except (StorageError, OSError) as exc:
        print(f"{PROG}: copy-db refused: {exc}", file=sys.stderr)
        return 1
    counted = ", ".join(f"{n} {table}" for table, n in report.rows.items() if n)
    print(f"copied {source} to {describe(target)}: {counted or 'no rows'}")
    print(
        f"every game replays from the copy to its stored state ({report.games_replayed} "
        f"games; {report.games_quarantined_before} set aside in the source, copied as they were)"
    )
    return 0


def run_rebuild_ratings(settings: Settings) -> int:
    """``hearts-bot ratings --rebuild``: every rating again, from the stored games."""
    import asyncio

    from storage import open_storage
    from storage.errors import StorageError

    async def rebuild() -> str:
        storage = await open_storage(settings.database)
        try:
            report = await storage.standings.rebuild_ratings()
        finally:
            await storage.close()
        return f"rebuilt the ratings of {report.games} games ({report.values} values); " + (
            "every stored value came out the same"
            if report.differing == 0
            else f"{report.differing} stored values changed"
        )

    try:
        print(asyncio.run(rebuild()))
    except (StorageError, OSError) as exc:
        print(f"{PROG}: rebuilding the ratings failed: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
