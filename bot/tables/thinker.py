"""Computer players' decisions, made off the event loop so no chat waits while one thinks.

Decisions run in a process pool (a separate core; pure CPU work would otherwise hold the
interpreter lock the event loop needs), or in a thread when ``workers`` is 0. Each call
gets a time budget, and the engine's players honour it.

The pool never holds a line of its own: jobs wait in a priority line here, and one goes
to each worker as it frees up. A computer player's move goes first (`COMPUTER`), then the
coach's hints (`HINT`), then its reviews (`REVIEW`), first come first served within each.
The coach's work comes in short jobs (a play decision, or `PASS_CHUNK` deals of a pass),
so a computer's move waits at most for one short job already running, however many hints
and reviews are waiting.

Only so far, though: when computer players' moves keep the pool busy on their own (20
tables of `expert` computers on one worker do), a waiting piece of the coach's work goes
after every `COMPUTER_STREAK` computer moves, so the coach slows down but never stops.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import multiprocessing
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any

from engine import Card, SeatView, daily
from engine.cards import Mask
from engine.coach import (
    PASS_DEALS,
    REVIEW_PASS_DEALS,
    Decision,
    Finding,
    Hint,
    judge_play,
    pass_candidates,
    pass_chunks,
    pass_finding,
    pass_hint_from,
    pass_sums,
    play_hint,
    review_passes,
    worst,
)
from engine.players import ExpertPlayer, make_player

COMPUTER, HINT, REVIEW = 0, 1, 2
"""Places in the line, first first."""
COMPUTER_STREAK = 3
"""Computer moves that may start in a row while the coach's work waits."""


DAILY_LEVEL = "daily"
"""The daily deal's computer: `expert`, steady (`engine.daily.computer`)."""


def _choose(kind: str, level: str, seed: int, view: SeatView, budget_ms: float) -> object:
    player = daily.computer(seed) if level == DAILY_LEVEL else make_player(level, seed)
    if kind == "pass":
        return [c.code for c in player.choose_pass(view, budget_ms)]
    if kind == "moon":
        return player.choose_moon(view, budget_ms)
    return player.choose_play(view, budget_ms).code


def _play_hint(seed: int, view: SeatView, budget_ms: float) -> Hint:
    return play_hint(view, ExpertPlayer(seed), budget_ms)


_Job = tuple[int, int, Callable[..., Any], tuple[Any, ...], "asyncio.Future[Any]"]


class Thinker:
    def __init__(self, workers: int = 1) -> None:
        self._executor: Executor
        if workers > 0:
            context = multiprocessing.get_context("spawn")
            self._executor = ProcessPoolExecutor(max_workers=workers, mp_context=context)
        else:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="thinker")
        self._workers = max(1, workers)
        self._line: list[_Job] = []
        self._order = itertools.count()
        self._running = 0
        self._closed = False
        self._streak = 0
        """Computer moves started in a row while the coach's work waited."""
        self._queued: dict[asyncio.Future[Any], float] = {}
        """When each waiting job came into the line."""
        self.on_start: Callable[[int, float], None] | None = None
        """Told each job's place in the line and its wait (seconds) as it goes to a worker
        (`bot.metrics`)."""

    # ------------------------------------------------------------------ the line

    async def run(self, priority: int, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` in the pool, once every job of a lower ``priority`` number (and
        of the same one that came earlier) has gone to a worker, but for the coach's turn
        after `COMPUTER_STREAK` computer moves."""
        if self._closed:
            raise RuntimeError("the worker pool is closed (the bot is stopping)")
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._line, (priority, next(self._order), fn, args, future))
        self._queued[future] = time.monotonic()
        self._start_next()
        try:
            return await future
        finally:
            self._queued.pop(future, None)

    def waiting(self) -> int:
        """How many jobs wait for a worker."""
        return sum(1 for *_, future in self._line if not future.done())

    def waiting_by_line(self) -> dict[int, int]:
        """How many jobs wait for a worker, by place in the line (`COMPUTER`…)."""
        counts: dict[int, int] = {}
        for priority, *_, future in self._line:
            if not future.done():
                counts[priority] = counts.get(priority, 0) + 1
        return counts

    def _start_next(self) -> None:
        loop = asyncio.get_running_loop()
        while self._running < self._workers and self._line and not self._closed:
            priority, _, fn, args, future = self._next()
            if future.done():  # its caller gave up waiting
                continue
            queued = self._queued.pop(future, None)
            if self.on_start is not None and queued is not None:
                self.on_start(priority, time.monotonic() - queued)
            self._running += 1
            done = loop.run_in_executor(self._executor, fn, *args)
            done.add_done_callback(lambda d, f=future: self._finished(d, f))  # type: ignore[misc]

    def _next(self) -> _Job:
        """The next job: the first in the line, or the coach's first once computer moves
        have started `COMPUTER_STREAK` times in a row while it waited."""
        coach = [j for j in self._line if j[0] != COMPUTER and not j[4].done()]
        if not coach:
            self._streak = 0
        elif self._line[0][0] != COMPUTER or self._streak >= COMPUTER_STREAK:
            job = min(coach)
            self._line.remove(job)
            heapq.heapify(self._line)
            self._streak = 0
            return job
        else:
            self._streak += 1
        return heapq.heappop(self._line)

    def _finished(self, done: asyncio.Future[Any], future: asyncio.Future[Any]) -> None:
        self._running -= 1
        if not future.done():
            if done.cancelled():
                future.cancel()
            elif (error := done.exception()) is not None:
                future.set_exception(error)
            else:
                future.set_result(done.result())
        self._start_next()

    # ------------------------------------------------------------------ computers

    async def choose_pass(self, level: str, seed: int, view: SeatView, budget: float) -> list[Card]:
        codes = await self.run(COMPUTER, _choose, "pass", level, seed, view, budget)
        assert isinstance(codes, list)
        return [Card.parse(c) for c in codes]

    async def choose_play(self, level: str, seed: int, view: SeatView, budget: float) -> Card:
        code = await self.run(COMPUTER, _choose, "play", level, seed, view, budget)
        assert isinstance(code, str)
        return Card.parse(code)

    async def choose_moon(self, level: str, seed: int, view: SeatView, budget: float) -> str:
        choice = await self.run(COMPUTER, _choose, "moon", level, seed, view, budget)
        assert isinstance(choice, str)
        return choice

    # ------------------------------------------------------------------ the coach

    async def hint(self, seed: int, view: SeatView, budget_ms: float) -> Hint:
        """The coach's hint for this view (`engine.coach.hint`), thought out in the pool:
        a play in one job, a pass in jobs of `PASS_CHUNK` deals."""
        if view.phase != "pass":
            found = await self.run(HINT, _play_hint, seed, view, budget_ms)
            assert isinstance(found, Hint)
            return found
        candidates = pass_candidates(view)
        costs = await self._weigh(HINT, view, candidates, seed, "coach-pass", PASS_DEALS)
        return pass_hint_from(view, candidates, costs)

    async def review(self, seed: int, decisions: list[Decision], budget_ms: float) -> list[Finding]:
        """The coach's review of one hand's decisions (`engine.coach.review`), in the pool,
        one decision (or `PASS_CHUNK` deals of the pass) a job."""
        findings: list[Finding | None] = []
        for decision in decisions:
            if decision.trick == 0:
                candidates = review_passes(decision)
                if candidates is None:
                    continue
                costs = await self._weigh(
                    REVIEW, decision.view, candidates, seed, "coach-review", REVIEW_PASS_DEALS
                )
                findings.append(pass_finding(decision, candidates, costs))
            else:
                found = await self.run(REVIEW, judge_play, decision, seed, budget_ms)
                assert found is None or isinstance(found, Finding)
                findings.append(found)
        return worst(findings)

    async def _weigh(
        self,
        priority: int,
        view: SeatView,
        candidates: list[Mask],
        seed: int,
        tag: str,
        deals: int,
    ) -> list[float]:
        """`engine.coach.weigh_passes`, one chunk of deals a job."""
        sums = [0.0] * len(candidates)
        for chunk, size in enumerate(pass_chunks(deals)):
            part = await self.run(priority, pass_sums, view, candidates, seed, tag, chunk, size)
            for i, s in enumerate(part):
                sums[i] += s
        return [s / deals for s in sums]

    def close(self) -> None:
        self._closed = True
        for *_, future in self._line:
            future.cancel()
        self._line.clear()
        self._executor.shutdown(wait=False, cancel_futures=True)
