"""Two bot accounts on one PostgreSQL database, as real processes (`crash_bot.py`, which
takes the leader lock as ``hearts-bot`` does): account A with a leader and a standby,
account B with a leader, each its own Bot API double (its own updates and limits; people
and groups of its own).

B's leader takes B's lock while A's leader holds A's: each account has its own lock. A's
leader is killed with SIGKILL in the middle of a trick: A's standby takes over A's game,
while B's game goes on untouched, its moves made and answered as A fails over.
"""

from __future__ import annotations

from pathlib import Path

from test_e2e_crash import BotProcess, mid_trick, read_journal, read_state, seat_four

from sandbox.postgres_server import PostgresServer
from sandbox.testing import running_double
from storage.replay import replay, same_state

TOKEN_B = "7000000002:BBsandbox-test-token-not-a-real-one"


async def test_a_failover_of_one_account_touches_no_other_accounts_game(
    tmp_path: Path, postgres: PostgresServer
) -> None:
    database = await postgres.database()
    async with (
        running_double() as da,
        running_double(token=TOKEN_B, bot_username="hearts_b_bot", ids_from=1_000_000) as db,
    ):
        people_a = [da.create_user(n) for n in ("Ann", "Bob", "Cy", "Di")]
        people_b = [db.create_user(n) for n in ("Eve", "Fay", "Gus", "Hal")]
        group_a = da.create_group("A's", members=people_a, admins=people_a[:1])
        group_b = db.create_group("B's", members=people_b, admins=people_b[:1])
        assert group_a.id != group_b.id
        for name in ("a1", "a2", "b1"):
            (tmp_path / name).mkdir()
        leader_a = BotProcess(da, database, tmp_path / "a1")
        standby_a = BotProcess(da, database, tmp_path / "a2")
        leader_b = BotProcess(db, database, tmp_path / "b1")
        await leader_a.start()
        await standby_a.start(standby=True)
        await leader_b.start()  # it leads at once: A's lock is not B's
        try:
            referee_a = await seat_four(da, database, group_a, people_a)
            referee_b = await seat_four(db, database, group_b, people_b)
            assert "waiting to take over" in standby_a.log_text()
            assert "standby" not in leader_b.log_text()
            await referee_a.play_until(mid_trick(1, 1, 2))
            await referee_b.play_until(mid_trick(1, 1, 1))
            b_polls = db.call_count("getUpdates")
            polls = da.call_count("getUpdates")
            await leader_a.kill()
            # While A fails over, B's people play on and B answers every press.
            b_before = len(referee_b.plays)
            for _ in range(6):
                assert await referee_b.move()
            assert len(referee_b.plays) == b_before + 6
            await da.wait_for(lambda: da.call_count("getUpdates") > polls, 15)
            await referee_a.play_until(mid_trick(1, 3, 0))
            await referee_b.play_until(mid_trick(1, 4, 0))
            assert db.call_count("getUpdates") > b_polls
            assert leader_b.process is not None and leader_b.process.returncode is None
        finally:
            await leader_a.stop()
            await standby_a.stop()
            await leader_b.stop()

        for referee in (referee_a, referee_b):
            state = read_state(database, referee.group.id)
            origin, journal, snapshot = read_journal(database, state.game_id)
            assert same_state(replay(origin, journal).to_json(), snapshot)
            plays = [
                (state.user_of_seat[m["seat"]], m["cards"][0])
                for _, m in journal
                if m["kind"] == "play"
            ]
            assert plays == referee.plays  # every card pressed played once, in order
        logs_b = leader_b.log_text()
        assert "Traceback" not in logs_b and " ERROR " not in logs_b, logs_b[-3000:]
        assert logs_b.count(") ready") == 1  # B started once, and resumed nothing after
        assert "(bot account 7000000002) ready" in logs_b
        assert "leading (the lock was taken" in standby_a.log_text()
        assert da.unanswered_callbacks() == [] and db.unanswered_callbacks() == []
