"""The sandbox command: it prints its address, serves the world, and stops cleanly."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from patience import patient

from bot.sandbox_runner import main, serve

ROOT = Path(__file__).resolve().parents[2]


def test_sandbox_command_serves_the_world_and_stops_on_sigterm(tmp_path: Path) -> None:
    env = {**os.environ, "SANDBOX_NO_BROWSER": "1"}
    env.pop("BOT_TOKEN", None)
    env.pop("SANDBOX_PORT", None)
    # What `./dev sandbox --port 0` runs: the sandbox's options after --sandbox.
    process = subprocess.Popen(
        [sys.executable, "-m", "bot", "--sandbox", "--port", "0"],
        cwd=tmp_path,
        env={**env, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        found = re.search(r"open (http://127\.0\.0\.1:\d+/) in your browser", line)
        assert found, line + (process.stderr.read() if process.stderr else "")
        url = found.group(1)
        deadline = time.monotonic() + patient(10)
        while True:
            with urllib.request.urlopen(url + "api/state", timeout=5) as response:
                state = json.load(response)
            greeted = [c for c in state["chats"] if c["kind"] == "dm" and c["messages"][1:]]
            if len(greeted) == 4 or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert [c["title"] for c in state["chats"]] == [
            "Hearts sandbox",
            "Ana",
            "Bob",
            "Carol",
            "Dave",
        ]
        assert len(greeted) == 4, "every person's DM has the bot's greeting"
        with urllib.request.urlopen(url, timeout=5) as response:
            assert b"Hearts sandbox" in response.read()
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=patient(15)) == 0
        assert not (tmp_path / "data").exists(), "the default database is temporary"
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


async def test_a_taken_port_is_one_clear_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = await serve(tmp_path / "s.sqlite3", port, open_browser=False, verbose=False)
    assert code == 1
    err = capsys.readouterr().err
    assert f"127.0.0.1:{port}" in err and "--port" in err and "Traceback" not in err


def test_bad_options_are_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--port", "70000"]) == 2
    assert main(["--colour"]) == 2
    assert "--port" in capsys.readouterr().err
