"""A leader keeps its lock however long its start takes (issue 50, item 1).

The leader lock's session is ended by PostgreSQL after 6 s without a question
(``idle_session_timeout``, `storage.postgres.KEEPALIVE`). The lock is now asked from a
thread of its own from the moment it is taken (`storage.postgres.LockThread`), so a start
of any length keeps it: Telegram answering ``setMyCommands`` 8 s late, two accounts started
at once on an empty database (the second waits for the first one's schema), a standby
resuming 200 games. Each test checks, once the bot polls, that the database still says
this very process holds the lock, and that the bot still runs.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

from test_e2e_crash import BotProcess

from engine import Rules
from sandbox.double import BotApiDouble
from sandbox.postgres_server import PostgresServer
from sandbox.testing import running_double
from storage import open_storage
from storage.postgres import leader

TOKEN_B = "7000000002:BBsandbox-test-token-not-a-real-one"


def account(double: BotApiDouble) -> int:
    return int(double.token.partition(":")[0])


async def leads(bot: BotProcess, database: str) -> bool:
    """Whether the database says `bot`'s process holds its account's lock, and it runs."""
    assert bot.process is not None
    holder = await leader(database, account(bot.double))
    running = bot.process.returncode is None
    return running and holder is not None and holder.endswith(f":{bot.process.pid}")


async def test_a_bot_whose_commands_are_answered_8_s_late_keeps_leading(
    tmp_path: Path, postgres: PostgresServer
) -> None:
    """The one test here that waits for real time: Telegram answering 8 s late is the
    point (longer than the session's 6 s without a question)."""
    database = await postgres.database()
    async with running_double() as double:
        double.answer_late("setMyCommands", 8.0)
        bot = BotProcess(double, database, tmp_path)
        began = time.monotonic()
        await bot.start()
        try:
            took = time.monotonic() - began
            print(f"the start took {took:.1f} s with setMyCommands answered 8 s late")
            assert took > 6.0  # the start outlasted the session's idle timeout
            assert await leads(bot, database), bot.log_text()[-2000:]
            # Still leading after its watch's next questions (every 2 s): wait for them.
            polls = double.call_count("getUpdates")
            await double.wait_for(lambda: double.call_count("getUpdates") > polls + 3, 15)
            assert await leads(bot, database), bot.log_text()[-2000:]
        finally:
            await bot.stop()
        assert "stopped answering" not in bot.log_text()


async def test_two_accounts_started_at_once_on_an_empty_database_both_lead(
    tmp_path: Path, postgres: PostgresServer
) -> None:
    database = await postgres.database()
    async with (
        running_double() as da,
        running_double(token=TOKEN_B, bot_username="hearts_b_bot", ids_from=1_000_000) as db,
    ):
        (tmp_path / "a").mkdir()
        (tmp_path / "b").mkdir()
        bot_a = BotProcess(da, database, tmp_path / "a")
        bot_b = BotProcess(db, database, tmp_path / "b")
        try:
            await asyncio.gather(bot_a.start(), bot_b.start())
            assert await leads(bot_a, database), bot_a.log_text()[-2000:]
            assert await leads(bot_b, database), bot_b.log_text()[-2000:]
            polls_a, polls_b = da.call_count("getUpdates"), db.call_count("getUpdates")
            await da.wait_for(
                lambda: (
                    da.call_count("getUpdates") > polls_a + 3
                    and db.call_count("getUpdates") > polls_b + 3
                ),
                15,
            )
            assert await leads(bot_a, database) and await leads(bot_b, database)
        finally:
            await bot_a.stop()
            await bot_b.stop()
        for bot in (bot_a, bot_b):
            assert "stopped answering" not in bot.log_text()


GAMES = 200


async def test_a_standby_taking_over_200_games_keeps_its_lock(
    tmp_path: Path, postgres: PostgresServer
) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "storage"))
    from storage_testkit import play_stored

    database = await postgres.database()
    async with running_double() as double:
        (tmp_path / "a").mkdir()
        (tmp_path / "b").mkdir()
        first = BotProcess(double, database, tmp_path / "a")
        standby = BotProcess(double, database, tmp_path / "b")
        await first.start()
        await standby.start(standby=True)
        try:
            # 200 games in progress, one person and three computers each, each in a group
            # of its own, stored as the leader would have stored them.
            store = await open_storage(database, account=account(double))
            try:
                for i in range(GAMES):
                    person = double.create_user(f"P{i}")
                    group = double.create_group(f"G{i}", members=[person], admins=[person])
                    await play_stored(
                        store,
                        Rules(players=4, target=100),
                        seed=i,
                        chat_id=group.id,
                        user_ids=[person.id],
                        max_moves=3,
                    )
            finally:
                await store.close()
            polls = double.call_count("getUpdates")
            began = time.monotonic()
            await first.kill()
            await double.wait_for(
                lambda: (
                    double.call_count("getUpdates") > polls + 3
                    and standby.log_text().count("resumed game ") == GAMES
                ),
                60,
            )
            print(f"the standby took over {GAMES} games in {time.monotonic() - began:.1f} s")
            assert await leads(standby, database), standby.log_text()[-2000:]
        finally:
            await first.stop()
            await standby.stop()
        assert "stopped answering" not in standby.log_text()
