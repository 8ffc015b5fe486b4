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
    import re

    from engine.players.passing import FIRST_DEALS

    done = subprocess.run(
        [sys.executable, "-m", "bench", "passes", "--views", "3", "--reference", "40",
         "--settings", f"20:2:30,{FIRST_DEALS}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )  # fmt: skip
    rows = [line for line in done.stdout.splitlines() if line.startswith("first round")]
    assert len(rows) == 2
    assert rows[0].startswith("first round 20 deals, the best 2 on 30:")
    assert rows[1].startswith(f"first round {FIRST_DEALS} deals") and "(as set)" in rows[1]
    for row in rows:
        found = re.search(
            r"regret (\d+\.\d+) ± (\d+\.\d+) pts/hand, the best (\d+)%, "
            r"ms a pass: median (\d+), longest (\d+)$",
            row,
        )
        assert found, row
        regret, ci, best, median, longest = (float(x) for x in found.groups())
        assert 0 <= best <= 100 and 0 < median <= longest
        if best == 100:  # it always chose the best: no regret at all
            assert regret == 0 and ci == 0
    refused = subprocess.run(
        [sys.executable, "-m", "bench", "passes", "--players", "2", "--variant", "two_player"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert refused.returncode == 2 and "no pass" in refused.stderr


def test_the_profile_benchmark_prints_every_part_of_a_decisions_time() -> None:
    from bench.profile_bench import PARTS

    done = subprocess.run(
        [sys.executable, "-m", "bench", "profile", "--positions", "3", "--budget", "20"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    shares = {}
    for line in done.stdout.splitlines():
        name, _, share = line.rpartition(" ")
        if share.endswith("%") and name.strip() in [*PARTS, "the rest"]:
            shares[name.strip()] = float(share.rstrip("%"))
    assert set(shares) == {*PARTS, "the rest"}
    assert abs(sum(shares.values()) - 100) <= 0.5


def test_the_stopping_benchmark_prints_each_figure_with_its_interval() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bench", "stopping", "--days", "30", "--field", "10"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    rows = done.stdout.splitlines()
    assert rows[0].startswith("daily deal, 30 days, 10 honest people")
    for label in ("honest people's day score", "the stopper's day score",
                  "the stopper's gain by stopping", "the stopper by the rule before"):  # fmt: skip
        [row] = [r for r in rows if r.startswith(label)]
        assert " % ± " in row
