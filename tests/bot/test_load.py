"""Load: 100 tables of four people at once against one bot, with Telegram's limits on.

Slow (a few minutes): run with ``./dev test --run-slow tests/bot/test_load.py -s`` to see the
figures, or ``./dev bench load`` for the figures alone. The driver is `bench.load`. Its two
small runs (three computers a table; two bot accounts on one PostgreSQL) are slow-marked
too: 40 s of the default suite on a 2-core machine, for what `test_e2e_accounts*.py` and
`test_thinker.py` test directly; they check the benchmark's own working.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import asyncpg
import pytest

from bench.load import BOT_TOKENS, LoadConfig, run_load
from sandbox.postgres_server import PostgresServer


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


@pytest.mark.slow
async def test_tables_of_one_person_and_three_computers_measure_the_persons_wait(
    tmp_path: Path,
) -> None:
    # `./dev bench load --computers 3`, small: two tables, quick people, no natural pace.
    config = LoadConfig(
        tables=2,
        hands=1,
        think=(0.05, 0.1),
        ramp=0.5,
        deadline=120.0,
        computers=3,
        workers=1,
        computer_delay=0.0,
    )
    result = await run_load(config, tmp_path / "load.sqlite3")
    print()
    print(result.report())
    assert result.tables_done == 2 and result.errors == 0
    # The person's plays before their last card, but those after which they lead at once
    # (they won the trick), are measured: between one and six computers' moves came.
    assert 2 * 6 <= len(result.computer_waits) <= 2 * 12
    assert all(0 < wait < 30 and 1 <= moves <= 6 for wait, moves in result.computer_waits)
    assert sum(moves for _, moves in result.computer_waits) >= 3 * len(result.computer_waits) - 6
    assert result.beyond_pace == result.waits  # no pace to take off
    assert len(result.storing) >= 2 * 52  # every move stored, each timed
    # Every computer move went through the line: 13 plays and a pass each, at every table.
    line = result.line
    assert line.moves >= 2 * 3 * 14
    assert 0 < line.budget_ms / line.moves <= 300
    assert "a person's wait for the computers' moves" in result.report()
    # The writes a hand costs are told apart from the tables' setting up and ending (the
    # /start answers and first DMs, the lobby, the /cancel): those are not in them.
    setup = result.writes["dm sent: other"] + result.writes["group sent"]
    assert setup >= 2 * 3  # a /start answer and a first DM a person, a lobby a table
    assert 0 < result.writes_in_hands <= sum(result.writes.values()) - setup
    assert result.error_samples == []


@pytest.mark.slow
async def test_two_bot_accounts_carry_their_tables_on_one_postgresql(
    postgres: PostgresServer,
) -> None:
    """`./dev bench load --bots 2`, small: the tables dealt to two accounts (each its own
    double: its own updates and flood limits) on one PostgreSQL database, all played
    without errors; each account served its own groups and no other."""
    config = LoadConfig(tables=4, hands=1, think=(0.05, 0.15), ramp=1.0, deadline=240.0, bots=2)
    url = await postgres.database()
    result = await run_load(config, url)
    assert result.tables_done == config.tables, result.unexpected_toasts
    assert result.unanswered == 0 and result.unexpected_toasts == []
    assert result.bot_errors == 0 and not result.double_errors and result.errors == 0
    assert result.edit_latencies and result.turn_latencies
    connection = await asyncpg.connect(url)
    try:
        rows = await connection.fetch(
            "SELECT g.account, count(*) AS games, bool_and(s.account = g.account) AS own"
            " FROM games g JOIN served_chats s ON s.chat_id = g.chat_id GROUP BY g.account"
        )
    finally:
        await connection.close()
    assert {r["account"]: (r["games"], r["own"]) for r in rows} == {
        int(BOT_TOKENS[0].split(":")[0]): (2, True),
        int(BOT_TOKENS[1].split(":")[0]): (2, True),
    }


def test_several_accounts_need_postgresql(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="PostgreSQL"):
        asyncio.run(run_load(LoadConfig(tables=2, bots=2), tmp_path / "load.sqlite3"))
