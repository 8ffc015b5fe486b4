"""Load: 100 tables of four people at once against one bot, with Telegram's limits on.

Slow (a few minutes): run with ``./dev test --run-slow tests/bot/test_load.py -s`` to see the
figures, or ``./dev bench load`` for the figures alone. The driver is `bench.load`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.load import LoadConfig, run_load


@pytest.mark.slow
async def test_a_hundred_tables_play_a_hand_at_once_without_errors(tmp_path: Path) -> None:
    config = LoadConfig(tables=100, hands=1, deadline=600.0)
    result = await run_load(config, tmp_path / "load.sqlite3")
    print()
    print(result.report())
    assert result.tables_done == config.tables
    assert not result.hit_deadline
    assert result.unanswered == 0
    assert result.unexpected_toasts == []
    assert result.bot_errors == 0
    assert not result.double_errors
    assert result.errors == 0
    # Every 429 was waited out by the rate limiter (none reached the bot as an error); they
    # stay rare: no storm.
    assert result.rate_limit_retries == result.count_429
    assert result.count_429 <= len(result.presses) // 100
