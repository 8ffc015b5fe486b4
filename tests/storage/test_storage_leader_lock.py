"""The leader lock held from a thread of its own (`storage.postgres.LockThread`, issue 50
item 1): its connection is asked its question whatever the caller's own loop does, and it
lets the lock go when the process it leads for stops answering."""

from __future__ import annotations

import asyncio
import threading

from sandbox.postgres_server import PostgresServer
from storage.postgres import LockThread, leader


async def test_the_lock_is_watched_from_its_own_thread_and_released(
    postgres: PostgresServer,
) -> None:
    url = await postgres.database()
    lock = LockThread()
    await lock.take(url, "bot-1", account=5)
    asked: list[str] = []

    def alive() -> bool:
        asked.append(threading.current_thread().name)
        return True

    lock.watch(lambda: asked.append("lost"), alive, every=0.05)
    try:
        while len(asked) < 2:
            await asyncio.sleep(0.01)
        assert set(asked) == {"leader-lock"}  # asked on the lock's thread, not this loop's
        assert await leader(url, 5) == "bot-1"
    finally:
        await lock.release()
    assert await leader(url, 5) is None


async def test_a_process_that_stops_answering_lets_the_lock_go(
    postgres: PostgresServer,
) -> None:
    url = await postgres.database()
    lock = LockThread()
    await lock.take(url, "hung", account=6)
    lost = asyncio.Event()
    loop = asyncio.get_running_loop()
    try:
        lock.watch(lambda: loop.call_soon_threadsafe(lost.set), lambda: False, every=0.05)
        await asyncio.wait_for(lost.wait(), 10)
        assert await leader(url, 6) is None  # the standby may lead at once
    finally:
        await lock.release()
