"""The benchmarks the README lists still run (a renamed function broke `bench i18n` once,
unseen: mypy now checks bench/ too). The load benchmark has its own tests
(tests/bot/test_load.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bot.i18n import LANGUAGES

ROOT = Path(__file__).resolve().parent.parent


def test_the_languages_benchmark_prints_a_row_for_every_language() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bench", "i18n", "--repeat", "1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    rows = [line.split() for line in done.stdout.splitlines()]
    shown = {row[0] for row in rows if row and row[0] in LANGUAGES}
    assert shown == set(LANGUAGES)
    for row in rows:
        if row and row[0] in LANGUAGES:
            assert len(row) == 8 and all(float(v) > 0 for v in row[1:])


def test_the_pass_search_benchmark_prints_each_settings_regret() -> None:
    from engine.players.passing import FIRST_DEALS

    done = subprocess.run(
        [sys.executable, "-m", "bench", "passes", "--views", "2", "--reference", "40",
         "--first", f"30,{FIRST_DEALS}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )  # fmt: skip
    rows = [line for line in done.stdout.splitlines() if line.startswith("first round")]
    assert [int(row.split()[2]) for row in rows] == [30, FIRST_DEALS]
    assert "(as set)" in rows[1] and "(as set)" not in rows[0]
    for row in rows:
        regret = float(row.split("regret")[1].split()[0])
        assert regret >= 0.0  # nothing beats the cheapest candidate on its own reference
