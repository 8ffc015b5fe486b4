"""Leader and standby: two real bot processes (`crash_bot.py`, which takes the leader lock as
``hearts-bot`` does) on one PostgreSQL database, with the Bot API double in this process.

The leader is killed with SIGKILL in the middle of a trick, and a person presses their
card while no bot serves. The standby takes the lock, resumes the game and answers that
press; the game is then played to its end. Every card is in the journal once, in the order
pressed, and every press was answered exactly once: no update handled twice or skipped.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from pathlib import Path

import aiohttp
from patience import patient
from prometheus_client.parser import text_string_to_metric_families
from test_e2e_crash import BotProcess, mid_trick, read_journal, read_state, seat_four

from bot.sandbox_runner import free_port
from engine import Card
from sandbox.postgres_server import PostgresServer
from sandbox.testing import running_double
from storage.replay import replay, same_state

TAKEOVER_LIMIT_S = 10.0
"""The standby waits on the lock itself (PostgreSQL frees it the moment the killed
leader's connection drops), so it polls within a few seconds even beside the rest of the
suite: this test runs with the others, not alone (it is mostly waiting, 16 s of it)."""


async def test_the_standby_takes_over_a_game_in_progress(
    tmp_path: Path, postgres: PostgresServer
) -> None:
    database = await postgres.database()
    async with running_double() as double:
        names = ("Alice", "Bob", "Carol", "Dave")
        people = [double.create_user(n, username=n.lower()) for n in names]
        group = double.create_group("Failover", members=people, admins=people[:1])
        (tmp_path / "a").mkdir()
        (tmp_path / "b").mkdir()
        leader = BotProcess(double, database, tmp_path / "a")
        standby = BotProcess(double, database, tmp_path / "b")
        await leader.start()
        await standby.start(standby=True)
        try:
            referee = await seat_four(double, database, group, people)
            assert "standby: hearts-bot@" in standby.log_text()

            state = await referee.play_until(mid_trick(1, 2, 2))
            polls = double.call_count("getUpdates")
            killed = time.monotonic()
            await leader.kill()
            record, card = await referee.press_while_dead()
            await double.wait_for(lambda: double.call_count("getUpdates") > polls, 15)
            took = time.monotonic() - killed
            print(f"takeover: the standby polled {took:.2f} s after the leader was killed")
            assert took < TAKEOVER_LIMIT_S
            await double.wait_for(lambda: record.answer is not None, 10)
            assert record.answer is not None and record.answer.text == f"Played {card.symbol}"
            after = read_state(database, group.id).game
            assert len(after.trick) == 3 and after.trick[-1][1] == card
            assert state.game.hand_number == after.hand_number

            while await referee.move():
                pass
        finally:
            await leader.stop()
            await standby.stop()

        final = read_state(database, group.id)
        assert final.status == "finished"
        origin, journal, snapshot = read_journal(database, final.game_id)
        assert same_state(replay(origin, journal).to_json(), snapshot)
        journal_plays = []
        for _, move in journal:
            if move["kind"] == "play":
                seat = move["seat"]
                journal_plays.append((final.user_of_seat[seat], move["cards"][0]))
        # Every card pressed was played once, in order, and nothing else was.
        assert journal_plays == referee.plays
        # Every press was answered once: no update handled twice, none skipped.
        toasts = Counter(
            (t.user_id, t.text) for t in double.toasts if (t.text or "").startswith("Played ")
        )
        expected = Counter(
            (user, f"Played {Card.parse(code).symbol}") for user, code in referee.plays
        )
        assert toasts == expected
        assert double.unanswered_callbacks() == []
        for logs in (leader.log_text(), standby.log_text()):
            assert "Traceback" not in logs and " ERROR " not in logs, logs[-3000:]
        assert "leading (the lock was taken after" in standby.log_text()


async def roles(port: int) -> dict[str, float] | None:
    """``hearts_role`` on a process's ``/metrics`` (None while nothing answers there)."""
    try:
        async with (
            aiohttp.ClientSession() as session,
            session.get(f"http://127.0.0.1:{port}/metrics") as response,
        ):
            text = await response.text()
    except aiohttp.ClientError:
        return None
    return {
        s.labels["role"]: s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
        if s.name == "hearts_role"
    }


async def test_metrics_say_which_process_leads_and_follow_the_takeover(
    tmp_path: Path, postgres: PostgresServer
) -> None:
    """Each process's ``/metrics`` says what it is: the leader, the standby waiting for the
    lock; once the leader is killed, the standby's says it leads."""
    database = await postgres.database()
    async with running_double() as double:
        (tmp_path / "a").mkdir()
        (tmp_path / "b").mkdir()
        first, second = free_port(), free_port()
        leader = BotProcess(double, database, tmp_path / "a", {"HEALTH_PORT": str(first)})
        standby = BotProcess(double, database, tmp_path / "b", {"HEALTH_PORT": str(second)})
        await leader.start()
        await standby.start(standby=True)
        try:
            leading = {"single": 0.0, "standby": 0.0, "leader": 1.0, "lost": 0.0}
            waiting = {**leading, "leader": 0.0, "standby": 1.0}
            assert await roles(first) == leading
            assert await roles(second) == waiting
            await leader.kill()
            deadline = time.monotonic() + patient(15)
            while (now := await roles(second)) != leading and time.monotonic() < deadline:
                await asyncio.sleep(0.1)
            assert now == leading, standby.log_text()[-2000:]
        finally:
            await leader.stop()
            await standby.stop()
