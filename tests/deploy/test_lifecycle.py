"""The real entry point in a child process: start, serve /healthz and /metrics, stop on
SIGTERM.

``python -m bot`` runs the lead's application (bot.app) against the pretend Bot API in
polling mode. SIGTERM must end it cleanly: exit 0, "stopped" logged, the database closed
(its WAL checkpointed away) and still healthy.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from patience import patient, wait_for
from prometheus_client.parser import text_string_to_metric_families

from storage.checks import check_database

ROOT = Path(__file__).resolve().parents[2]


def wait_for_health(port: int, process: subprocess.Popen[str], timeout: float = 20) -> Any:
    deadline = time.monotonic() + patient(timeout)
    while time.monotonic() < deadline:
        assert process.poll() is None, process.communicate()[1]
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as r:
                return json.loads(r.read())
        except (urllib.error.URLError, ConnectionError):
            time.sleep(0.05)
    raise AssertionError("the health endpoint never answered")


def test_sigterm_stops_the_bot_cleanly(tmp_path: Path, fake_bot_api: Any, unused_port: int) -> None:
    database = tmp_path / "data" / "hearts.sqlite3"
    env = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": str(ROOT),
        "BOT_TOKEN": fake_bot_api.token,
        "TELEGRAM_API_BASE_URL": fake_bot_api.base_url,
        "DATABASE_PATH": str(database),
        "HEALTH_PORT": str(unused_port),
        "WEBHOOK_LISTEN": "127.0.0.1",
        "LOG_FORMAT": "json",
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "bot"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        health = wait_for_health(unused_port, process)
        assert health["ok"] is True, health
        # /healthz answers while the bot still sets its commands; polling comes after.
        wait_for(
            lambda: bool({"getUpdates", "deleteWebhook"} & set(fake_bot_api.methods())),
            "the bot to start polling",
            timeout=20,
        )
        # /metrics beside /healthz, in Prometheus's text format, labelled with the account.
        with urllib.request.urlopen(f"http://127.0.0.1:{unused_port}/metrics", timeout=5) as r:
            metrics = r.read().decode()
        account = fake_bot_api.token.split(":")[0]
        roles = {
            s.labels["role"]: s.value
            for f in text_string_to_metric_families(metrics)
            for s in f.samples
            if s.name == "hearts_role" and s.labels["account"] == account
        }
        assert roles == {"single": 1, "standby": 0, "leader": 0, "lost": 0}, metrics
        assert (
            f'hearts_bot_api_requests_total{{account="{account}",method="getMe",outcome="ok"}}'
            in metrics
        )
        assert fake_bot_api.token.split(":")[1] not in metrics
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=patient(20))
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, err
    events = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
    messages = [e["msg"] for e in events]
    assert messages[-1] == "stopped", messages
    assert not any(e["level"] in ("ERROR", "CRITICAL") for e in events), err
    assert fake_bot_api.token.split(":")[1] not in err
    assert not Path(f"{database}-wal").exists() or Path(f"{database}-wal").stat().st_size == 0
    assert all(check.ok for check in check_database(database))
