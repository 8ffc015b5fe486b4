"""The leader lock's session (`storage.postgres.Leadership`) while its process starts."""

from __future__ import annotations

from sandbox.postgres_server import PostgresServer
from storage.postgres import Leadership, leader


async def test_a_leader_still_starting_keeps_its_lock_until_its_watch_arms_the_idle_limit(
    postgres: PostgresServer,
) -> None:
    """Issue 51.14: the lock's session came with a 6 s idle limit, and a leader that took
    longer than that to start (schema upgrades, resuming games, a busy machine) lost its
    lock before serving, to its standby. The limit is armed by `watch`, which keeps the
    session busy from then on."""
    url = await postgres.database()
    lead = await Leadership.wait(url, "starting")
    try:
        assert await lead.connection.fetchval("SHOW idle_session_timeout") == "0"
        assert await leader(url) == "starting"
        await lead.arm()
        assert await lead.connection.fetchval("SHOW idle_session_timeout") == "6s"
    finally:
        await lead.release()
