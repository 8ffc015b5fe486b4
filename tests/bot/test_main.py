"""The command line: modes, exit codes, and backup/restore round trips."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import subprocess
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from telegram import Update
from telegram.error import InvalidToken

from bot.__main__ import default_backup_name, main
from bot.telegram.webhook import GuardedUpdater
from storage import open_storage

TOKEN = "123456789:AAE-abcdefghijklmnopqrstuvwxyz_0123456789"
KEY = TOKEN.split(":")[1]
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def clean_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """No .env, no inherited settings; the database in tmp_path; logging restored."""
    monkeypatch.chdir(tmp_path)
    for name in (
        "BOT_TOKEN",
        "TELEGRAM_API_BASE_URL",
        "TELEGRAM_API_FILE_URL",
        "LOG_LEVEL",
        "LOG_FORMAT",
        "WEBHOOK_URL",
        "WEBHOOK_SECRET",
        "WEBHOOK_PORT",
        "WEBHOOK_LISTEN",
        "HEALTH_PORT",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DATABASE_PATH", str(tmp_path / "data" / "hearts.sqlite3"))
    monkeypatch.setenv("BACKUP_DIR", str(tmp_path / "backups"))
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield tmp_path
    for handler in list(root.handlers):
        if handler not in handlers:
            root.removeHandler(handler)
    root.setLevel(level)


class FakeApplication:
    """Stands in for `bot.app.build_application`'s result; records how it was run."""

    def __init__(self, fail_with: BaseException | None = None) -> None:
        self.fail_with = fail_with
        self.runs: list[tuple[str, dict[str, Any]]] = []
        self.post_init = None
        self.post_shutdown = None
        self.bot = types.SimpleNamespace(get_me=None)
        self.update_queue: Any = None
        self.updater: Any = None

    def run_polling(self, **kwargs: Any) -> None:
        self.runs.append(("polling", kwargs))
        if self.fail_with:
            raise self.fail_with

    def run_webhook(self, **kwargs: Any) -> None:
        self.runs.append(("webhook", kwargs))


@pytest.fixture
def fake_app(monkeypatch: pytest.MonkeyPatch) -> FakeApplication:
    app = FakeApplication()
    module = types.ModuleType("bot.app")
    module.build_application = lambda settings: app  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "bot.app", module)
    return app


@pytest.fixture
def fake_sandbox(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    module = types.ModuleType("bot.sandbox_runner")

    def sandbox_main(argv: list[str] | None = None) -> int:
        calls.append(" ".join(["sandbox", *(argv or [])]))
        return 0

    module.main = sandbox_main  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "bot.sandbox_runner", module)
    return calls


# ------------------------------------------------------------------ configuration errors


@pytest.mark.parametrize(
    ("env", "args", "expected"),
    [
        ({}, [], "BOT_TOKEN is not set"),
        ({"BOT_TOKEN": "nonsense"}, [], "BOT_TOKEN is not a bot token"),
        ({"BOT_TOKEN": TOKEN, "WEBHOOK_URL": "https://x.org/h"}, [], "WEBHOOK_SECRET is required"),
        ({"BOT_TOKEN": TOKEN, "WEBHOOK_PORT": "99999"}, [], "WEBHOOK_PORT must be"),
        ({"BOT_TOKEN": TOKEN, "DATABASE_PATH": "/proc/self/x.sqlite3"}, [], "cannot write"),
        ({"BOT_TOKEN": TOKEN + "!"}, ["--try"], "BOT_TOKEN is not a bot token"),
        ({}, ["check"], "BOT_TOKEN is not set"),
        ({"LOG_FORMAT": "xml"}, ["backup"], "LOG_FORMAT must be"),
    ],
)
def test_config_errors_exit_2_with_one_sentence(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    env: dict[str, str],
    args: list[str],
    expected: str,
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert main(args) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("hearts-bot: ") and expected in captured.err
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert KEY not in captured.err


def test_python_m_bot_prints_no_traceback(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("BOT_TOKEN", "WEBHOOK_URL")}
    env["BOT_TOKEN"] = KEY  # a secret without the bot id: malformed, and must not be echoed
    result = subprocess.run(
        [sys.executable, "-m", "bot"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr.startswith("hearts-bot: BOT_TOKEN is not a bot token")
    assert "Traceback" not in result.stderr and KEY not in result.stderr


def test_usage(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    assert "backup" in capsys.readouterr().out
    assert main(["frobnicate"]) == 2
    assert main(["check", "--try"]) == 2
    assert main(["--try", "--sandbox"]) == 2
    assert main(["restore"]) == 2


# ------------------------------------------------------------------ --try and --sandbox


def test_try_without_token_starts_the_sandbox_and_says_so(
    fake_sandbox: list[str], fake_app: FakeApplication, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--try"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and "starts the local sandbox" in out
    assert fake_sandbox == ["sandbox"] and fake_app.runs == []


def test_try_with_token_runs_the_bot(
    monkeypatch: pytest.MonkeyPatch, fake_sandbox: list[str], fake_app: FakeApplication
) -> None:
    monkeypatch.setenv("BOT_TOKEN", TOKEN)
    assert main(["--try"]) == 0
    assert fake_sandbox == [] and [mode for mode, _ in fake_app.runs] == ["polling"]


def test_sandbox_always_starts_the_sandbox(
    monkeypatch: pytest.MonkeyPatch, fake_sandbox: list[str]
) -> None:
    monkeypatch.setenv("BOT_TOKEN", TOKEN)
    assert main(["--sandbox"]) == 0
    assert fake_sandbox == ["sandbox"]


def test_the_sandbox_options_pass_through_try_and_sandbox(
    monkeypatch: pytest.MonkeyPatch,
    fake_sandbox: list[str],
    fake_app: FakeApplication,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # ./dev run --port 8090 is `python -m bot --try --port 8090`.
    assert main(["--try", "--port", "8090", "--no-browser"]) == 0
    assert main(["--sandbox", "--port", "8091"]) == 0
    assert fake_sandbox == ["sandbox --port 8090 --no-browser", "sandbox --port 8091"]
    monkeypatch.setenv("BOT_TOKEN", TOKEN)
    assert main(["--try", "--port", "8090"]) == 2
    assert "--port 8090" in capsys.readouterr().err and fake_app.runs == []


def test_missing_sandbox_is_reported(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "bot.sandbox_runner", None)
    assert main(["--try"]) == 1
    err = capsys.readouterr().err
    assert "the local sandbox is not available" in err and "Traceback" not in err


# ------------------------------------------------------------------ running for real


def test_polling_by_default(monkeypatch: pytest.MonkeyPatch, fake_app: FakeApplication) -> None:
    monkeypatch.setenv("BOT_TOKEN", TOKEN)
    assert main([]) == 0
    ((mode, kwargs),) = fake_app.runs
    assert mode == "polling"
    assert kwargs["allowed_updates"] == Update.ALL_TYPES
    assert tuple(kwargs["stop_signals"]) == (signal.SIGINT, signal.SIGTERM)


def test_webhook_when_url_is_set(
    monkeypatch: pytest.MonkeyPatch, fake_app: FakeApplication
) -> None:
    monkeypatch.setenv("BOT_TOKEN", TOKEN)
    monkeypatch.setenv("WEBHOOK_URL", "https://hearts.example.org/tg")
    monkeypatch.setenv("WEBHOOK_SECRET", "abc_DEF-1" * 4)
    monkeypatch.setenv("WEBHOOK_LISTEN", "127.0.0.1")
    monkeypatch.setenv("WEBHOOK_PORT", "8081")
    assert main([]) == 0
    ((mode, kwargs),) = fake_app.runs
    assert mode == "webhook"
    assert kwargs["listen"] == "127.0.0.1" and kwargs["port"] == 8081
    assert kwargs["url_path"] == "tg"
    assert kwargs["webhook_url"] == "https://hearts.example.org/tg"
    assert kwargs["secret_token"] == "abc_DEF-1" * 4
    assert tuple(kwargs["stop_signals"]) == (signal.SIGINT, signal.SIGTERM)
    assert isinstance(fake_app.updater, GuardedUpdater)  # the secret before the body


def test_rejected_token_is_one_sentence(
    monkeypatch: pytest.MonkeyPatch, fake_app: FakeApplication, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("BOT_TOKEN", TOKEN)
    fake_app.fail_with = InvalidToken()
    assert main([]) == 1
    err = capsys.readouterr().err
    assert "rejected BOT_TOKEN" in err and KEY not in err and "Traceback" not in err


def test_crash_is_logged_redacted_and_exits_1(
    monkeypatch: pytest.MonkeyPatch, fake_app: FakeApplication, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("BOT_TOKEN", TOKEN)
    fake_app.fail_with = RuntimeError(f"boom at https://api.telegram.org/bot{TOKEN}/getMe")
    assert main([]) == 1
    err = capsys.readouterr().err
    assert "the bot stopped after an unexpected error" in err
    assert "boom at" in err and KEY not in err


# ------------------------------------------------------------------ backup and restore


async def _users(path: Path) -> set[int]:
    storage = await open_storage(path)
    try:
        return {u for u in (1, 2) if await storage.people.get_user(u) is not None}
    finally:
        await storage.close()


async def _add_user(path: Path, user_id: int) -> None:
    storage = await open_storage(path)
    try:
        await storage.people.upsert_user(user_id, f"player {user_id}", None)
    finally:
        await storage.close()


def test_backup_and_restore_round_trip(clean_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    database = clean_env / "data" / "hearts.sqlite3"
    asyncio.run(_add_user(database, 1))
    assert main(["backup"]) == 0
    (backup,) = (clean_env / "backups").iterdir()
    assert backup.name.startswith("hearts-") and backup.suffix == ".sqlite3"
    assert main(["backup", str(backup)]) == 1, "an existing backup is never overwritten"

    asyncio.run(_add_user(database, 2))
    assert asyncio.run(_users(database)) == {1, 2}
    assert main(["restore", str(backup)]) == 0
    assert asyncio.run(_users(database)) == {1}
    out = capsys.readouterr().out
    assert "backed up" in out and "restored" in out


def test_backup_into_a_folder(clean_env: Path) -> None:
    asyncio.run(_add_user(clean_env / "data" / "hearts.sqlite3", 1))
    (clean_env / "elsewhere").mkdir()
    assert main(["backup", str(clean_env / "elsewhere")]) == 0
    (backup,) = (clean_env / "elsewhere").iterdir()
    assert asyncio.run(_users(backup)) == {1}


def test_restore_refuses_a_database_in_use(
    clean_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    database = clean_env / "data" / "hearts.sqlite3"
    asyncio.run(_add_user(database, 1))
    assert main(["backup", str(clean_env / "b.sqlite3")]) == 0

    async def restore_while_open() -> int:
        storage = await open_storage(database)
        try:
            return await asyncio.to_thread(main, ["restore", str(clean_env / "b.sqlite3")])
        finally:
            await storage.close()

    assert asyncio.run(restore_while_open()) == 1
    assert "in use" in capsys.readouterr().err


def test_backup_and_restore_errors(clean_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["backup"]) == 1
    assert "no database" in capsys.readouterr().err
    assert main(["restore", str(clean_env / "nope.sqlite3")]) == 1
    assert "no backup file" in capsys.readouterr().err


def test_default_backup_name_sorts_by_time() -> None:
    from datetime import UTC, datetime

    assert default_backup_name(datetime(2026, 1, 31, 12, 0, 5, tzinfo=UTC)) == (
        "hearts-20260131-120005.sqlite3"
    )


def test_ratings_rebuild_gives_the_stored_values(
    clean_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "storage"))
    from storage_testkit import VARIANTS, play_stored

    from storage import Storage

    database = clean_env / "data" / "hearts.sqlite3"

    async def play() -> None:
        store = await Storage.open(database)
        try:
            for seed in range(3):
                await play_stored(store, VARIANTS["four"], seed=seed, chat_id=-5, user_ids=[1, 2])
        finally:
            await store.close()

    asyncio.run(play())
    assert main(["ratings", "--rebuild"]) == 0
    out = capsys.readouterr().out
    # 3 games × 2 scopes × 2 people (the computer levels are fixed: never stored).
    assert "rebuilt the ratings of 3 games (12 values); every stored value came out the same" in out
    assert main(["ratings"]) == 2  # --rebuild is what it does; said, not assumed
