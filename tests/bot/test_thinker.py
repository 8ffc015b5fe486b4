"""The worker pool's line (`bot.tables.thinker`): computer players' moves before hints,
hints before reviews, first come first served within each, but the coach's turn after a
streak of computers; a caller that gives up leaves no job behind."""

from __future__ import annotations

import asyncio
import threading

from bot.tables.thinker import COMPUTER, COMPUTER_STREAK, HINT, REVIEW, Thinker


def _hold(gate: threading.Event) -> str:
    gate.wait(10)
    return "held"


def _say(what: str, heard: list[str]) -> str:
    heard.append(what)
    return what


async def test_computers_go_first_then_hints_then_reviews_whatever_came_first() -> None:
    thinker = Thinker(workers=0)  # one thread: one job at a time, as one worker process
    try:
        gate = threading.Event()
        heard: list[str] = []
        running = asyncio.ensure_future(thinker.run(REVIEW, _hold, gate))
        await asyncio.sleep(0.05)
        jobs = [
            asyncio.ensure_future(thinker.run(priority, _say, name, heard))
            for priority, name in [
                (REVIEW, "review 1"),
                (HINT, "hint 1"),
                (REVIEW, "review 2"),
                (COMPUTER, "computer 1"),
                (HINT, "hint 2"),
                (COMPUTER, "computer 2"),
            ]
        ]
        await asyncio.sleep(0.05)
        assert thinker.waiting() == 6  # the pool itself holds only the running job
        gate.set()
        assert await running == "held"
        await asyncio.gather(*jobs)
        assert heard == ["computer 1", "computer 2", "hint 1", "hint 2", "review 1", "review 2"]
    finally:
        thinker.close()


async def test_a_job_whose_caller_gave_up_is_never_run() -> None:
    thinker = Thinker(workers=0)
    try:
        gate = threading.Event()
        heard: list[str] = []
        running = asyncio.ensure_future(thinker.run(COMPUTER, _hold, gate))
        await asyncio.sleep(0.05)
        given_up = asyncio.ensure_future(thinker.run(HINT, _say, "given up", heard))
        kept = asyncio.ensure_future(thinker.run(REVIEW, _say, "kept", heard))
        await asyncio.sleep(0.05)
        given_up.cancel()
        gate.set()
        await running
        assert await kept == "kept"
        assert heard == ["kept"]
        assert thinker.waiting() == 0
    finally:
        thinker.close()


async def test_computers_that_keep_the_pool_busy_let_the_coach_through_now_and_then() -> None:
    # Computers that keep the pool busy on their own cannot starve the coach.
    thinker = Thinker(workers=0)
    try:
        gate = threading.Event()
        heard: list[str] = []
        running = asyncio.ensure_future(thinker.run(COMPUTER, _hold, gate))
        await asyncio.sleep(0.05)
        jobs = [asyncio.ensure_future(thinker.run(REVIEW, _say, "review", heard))]
        jobs += [asyncio.ensure_future(thinker.run(HINT, _say, "hint", heard))]
        jobs += [
            asyncio.ensure_future(thinker.run(COMPUTER, _say, f"computer {n}", heard))
            for n in range(1, 9)
        ]
        await asyncio.sleep(0.05)
        gate.set()
        await asyncio.gather(running, *jobs)
        streak = [f"computer {n}" for n in range(1, COMPUTER_STREAK + 1)]
        assert heard[: COMPUTER_STREAK + 1] == [*streak, "hint"]
        assert heard.index("review") == 2 * COMPUTER_STREAK + 1
        assert len(heard) == 10
    finally:
        thinker.close()
