"""Computer players' decisions, made off the event loop so no chat waits while one thinks.

Decisions run in a process pool (a separate core; pure CPU work would otherwise hold the
interpreter lock the event loop needs), or in a thread when ``workers`` is 0. Each call
gets a time budget, and the engine's players honour it.

The pool never holds a line of its own: jobs wait in a priority line here, and one goes
to each worker as it frees up. A computer player's move goes first (`COMPUTER`), then the
coach's hints (`HINT`), then its reviews (`REVIEW`), first come first served within each.
The coach's work comes in short jobs (a hint's play decision, a review's play decision,
and the `expert`'s pass search, which a pass hint and a pass's review make, as pieces of
about `PIECE_PLAYOUTS` play-outs),
so a computer's move waits at most for one short job already running, however many hints
and reviews are waiting.

Only so far, though: when computer players' moves keep the pool busy on their own (20
tables of `expert` computers on one worker do), a waiting piece of the coach's work goes
after every `COMPUTER_STREAK` computer moves, so the coach slows down but never stops.

Under load the line bounds what a person waits (README, "Computers under load"):

- A computer's move settles its budget as it goes to a worker, not when it was asked:
  its usual budget, less the time it already waited and the time the computers' moves
  behind it in the line can expect to wait for the workers (their number spread over the
  workers, at the moves' recent average time), but never below its level's floor
  (`engine.players.FLOOR_MS`). So the longer the line, the shorter each move, and the
  person whose three computers are in it waits less. A player with a fixed number of
  deals (the daily deal's steady computers) decides the same whatever the budget.
- A hint's first job must start within `HINT_WAIT_S` of the press: still waiting then, it
  leaves the line and the hint fails with `TooBusy` ("too busy to think now") rather than
  arriving late. A pass hint's further jobs come by the coach's turn, and it answers
  `HINT_PASS_S` after its first from the deals it weighed.
- Reviews have no time limit: they go last, and only by the coach's turn.
"""

from __future__ import annotations

import asyncio
import functools
import heapq
import itertools
import math
import multiprocessing
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field
from random import Random
from typing import Any

from engine import Card, SeatView, daily
from engine.cards import Mask
from engine.coach import (
    DealStream,
    Decision,
    Finding,
    Hint,
    PassPlan,
    PassWeighing,
    Piece,
    check_pass_hint,
    hint,
    judge_play,
    mask_of_cards,
    pass_finding,
    pass_hint_of,
    pass_piece,
    piece_deals,
    worst,
)
from engine.players import FLOOR_MS, expert, make_player

COMPUTER, HINT, REVIEW = 0, 1, 2
"""Places in the line, first first."""
COMPUTER_STREAK = 3
"""Computer moves that may start in a row while the coach's work waits."""
HINT_WAIT_S = 2.0
"""The longest a hint's (first) job waits for a worker before the hint says it cannot be
thought out now."""
HINT_PASS_S = 0.3
"""How long, in all, a pass hint's later jobs may wait in the line for a worker: on an idle
pool they do not wait, and the hint is the whole search (about 0.45 s); when computers keep
the pool busy, the hint answers once its jobs have waited this long, from the deals it
weighed."""
HINTED_KEPT = 10_000
"""How many pass hints' deal counts are kept for their reviews (the oldest go first)."""
MOVE_WEIGHT = 0.2
"""How much each computer move's time moves the average the budgets count on."""


Decided = tuple[int, int, int, str]
"""A decision a hint was given for (`_decided`)."""


def _decided(seed: int, view: SeatView) -> Decided:
    """Which decision a hint was for: the seed (the game's and seat's), the hand, the cards
    it was chosen from and the phase, as the review of that decision finds it again."""
    return seed, view.hand_number, view.hand_mask, view.phase


class TooBusy(Exception):
    """A hint's job could not start within its time: the pool is busy with computers."""


@dataclass(frozen=True)
class Budget:
    """A computer move's budget, settled as the move starts (`shrunk_budget`)."""

    usual_ms: float
    floor_ms: float


def shrunk_budget(
    budget: Budget, waited_s: float, behind: int, workers: int, move_s: float
) -> float:
    """The budget (ms) of a computer's move going to a worker now: its usual budget, less
    what it waited and what the `behind` computer moves still in the line can expect to
    wait for the `workers` (each about `move_s`), never more than usual nor below the
    level's floor."""
    left = budget.usual_ms - 1000 * (waited_s + behind / max(1, workers) * move_s)
    return max(budget.floor_ms, min(budget.usual_ms, left))


@dataclass
class LineFigures:
    """What the line did since the bot started: for the bench, the logs and the metrics."""

    moves: int = 0
    """Computer moves that went to a worker."""
    at_floor: int = 0
    """Of those, moves that were given only their level's floor (and the floor is less
    than the usual budget)."""
    budget_ms: float = 0.0
    """The budgets given, added up (over `moves`: the average)."""
    waited_s: float = 0.0
    """The computer moves' time in the line, added up."""
    longest_wait_s: float = 0.0
    thought_s: float = 0.0
    """The computer moves' time in a worker, added up."""
    longest_line: int = 0
    """The most jobs seen waiting at once."""
    too_busy: int = 0
    """Hints that said they could not be thought out in time."""


@dataclass(order=True)
class _Job:
    priority: int
    order: int
    fn: Callable[..., Any] = field(compare=False)
    args: tuple[Any, ...] = field(compare=False)
    future: asyncio.Future[Any] = field(compare=False)
    queued: float = field(compare=False)
    budget: Budget | None = field(compare=False, default=None)
    """A computer's move: its budget, settled as it starts, is its last argument."""
    start_by: float | None = field(compare=False, default=None)
    """A hint's job: not started by then, it fails with `TooBusy`."""
    counted: bool = field(compare=False, default=True)
    """Whether its `TooBusy` is a hint that failed (`LineFigures.too_busy`); a pass hint's
    later job that comes too late is not: the hint answers without it."""


DAILY_LEVEL = "daily"
"""The daily deal's computer: `expert`, steady (`engine.daily.computer`)."""


def _choose(kind: str, level: str, seed: int, view: SeatView, budget_ms: float) -> object:
    player = daily.computer(seed) if level == DAILY_LEVEL else make_player(level, seed)
    if kind == "pass":
        return [c.code for c in player.choose_pass(view, budget_ms)]
    if kind == "moon":
        return player.choose_moon(view, budget_ms)
    return player.choose_play(view, budget_ms).code


class Thinker:
    def __init__(
        self,
        workers: int = 1,
        clock: Callable[[], float] = time.monotonic,
        on_start: Callable[[int, float], None] | None = None,
    ) -> None:
        """`on_start`: told each job's place in the line and its wait (seconds) as it goes
        to a worker (the metrics)."""
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
        self.on_start = on_start
        self.clock = clock
        """Seconds, for waits and budgets (tests give a manual one)."""
        self.move_s = 0.0
        """A computer move's recent average time in a worker (`MOVE_WEIGHT`)."""
        self.figures = LineFigures()
        self._hinted: dict[Decided, tuple[int, int] | None] = {}
        """The decisions hints were given for (`_decided`), a pass with the deals its
        search played: their review judges them by the same search."""

    # ------------------------------------------------------------------ the line

    async def run(
        self,
        priority: int,
        fn: Callable[..., Any],
        *args: Any,
        budget: Budget | None = None,
        start_by: float | None = None,
        counted: bool = True,
    ) -> Any:
        """``fn(*args)`` in the pool, once every job of a lower ``priority`` number (and
        of the same one that came earlier) has gone to a worker, but for the coach's turn
        after `COMPUTER_STREAK` computer moves. With a ``budget``, ``fn`` is given one more
        argument: the budget in ms, settled as it starts (`shrunk_budget`). With
        ``start_by`` (a time of `clock`), a job not started by then raises `TooBusy`,
        counted in `LineFigures.too_busy` unless ``counted`` is false."""
        if self._closed:
            raise RuntimeError("the worker pool is closed (the bot is stopping)")
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        job = _Job(
            priority, next(self._order), fn, args, future, self.clock(), budget, start_by, counted
        )
        heapq.heappush(self._line, job)
        if start_by is not None:  # leave the line at its time, whatever the workers do
            loop = asyncio.get_running_loop()
            loop.call_later(max(0.0, start_by - self.clock()), self._expire)
        self.figures.longest_line = max(self.figures.longest_line, self.waiting())
        self._start_next()
        return await future

    def waiting(self) -> int:
        """How many jobs wait for a worker."""
        return sum(1 for job in self._line if not job.future.done())

    def waiting_by_line(self) -> dict[int, int]:
        """How many jobs wait for a worker, by place in the line (`COMPUTER`…)."""
        counts: dict[int, int] = {}
        for job in self._line:
            if not job.future.done():
                counts[job.priority] = counts.get(job.priority, 0) + 1
        return counts

    def _start_next(self) -> None:
        loop = asyncio.get_running_loop()
        self._expire()
        while self._running < self._workers and self._line and not self._closed:
            job = self._next()
            if job.future.done():  # its caller gave up waiting
                continue
            if self.on_start is not None:
                self.on_start(job.priority, self.clock() - job.queued)
            args = job.args
            if job.budget is not None:
                args = (*args, self._settle(job))
            self._running += 1
            done = loop.run_in_executor(self._executor, job.fn, *args)
            done.add_done_callback(functools.partial(self._finished, job, self.clock()))

    def _expire(self) -> None:
        """Hints' jobs whose time to start has passed leave the line, saying so."""
        now = self.clock()
        late = [j for j in self._line if j.start_by is not None and j.start_by < now]
        if not late:
            return
        for job in late:
            self._line.remove(job)
            if not job.future.done():
                self.figures.too_busy += job.counted
                job.future.set_exception(TooBusy())
        heapq.heapify(self._line)

    def _settle(self, job: _Job) -> float:
        """The budget of a computer's move going to a worker now (`shrunk_budget`)."""
        assert job.budget is not None
        waited = self.clock() - job.queued
        behind = sum(1 for j in self._line if j.priority == COMPUTER and not j.future.done())
        ms = shrunk_budget(job.budget, waited, behind, self._workers, self.move_s)
        figures = self.figures
        figures.moves += 1
        figures.budget_ms += ms
        figures.waited_s += waited
        figures.longest_wait_s = max(figures.longest_wait_s, waited)
        if ms <= job.budget.floor_ms < job.budget.usual_ms:
            figures.at_floor += 1
        return ms

    def _next(self) -> _Job:
        """The next job: the first in the line, or the coach's first once computer moves
        have started `COMPUTER_STREAK` times in a row while it waited."""
        coach = [j for j in self._line if j.priority != COMPUTER and not j.future.done()]
        if not coach:
            self._streak = 0
        elif self._line[0].priority != COMPUTER or self._streak >= COMPUTER_STREAK:
            job = min(coach)
            self._line.remove(job)
            heapq.heapify(self._line)
            self._streak = 0
            return job
        else:
            self._streak += 1
        return heapq.heappop(self._line)

    def _finished(self, job: _Job, started: float, done: asyncio.Future[Any]) -> None:
        self._running -= 1
        if job.budget is not None:
            took = self.clock() - started
            self.move_s += MOVE_WEIGHT * (took - self.move_s) if self.move_s else took
            self.figures.thought_s += took
        future = job.future
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
        codes = await self._move("pass", level, seed, view, budget)
        assert isinstance(codes, list)
        return [Card.parse(c) for c in codes]

    async def choose_play(self, level: str, seed: int, view: SeatView, budget: float) -> Card:
        code = await self._move("play", level, seed, view, budget)
        assert isinstance(code, str)
        return Card.parse(code)

    async def choose_moon(self, level: str, seed: int, view: SeatView, budget: float) -> str:
        choice = await self._move("moon", level, seed, view, budget)
        assert isinstance(choice, str)
        return choice

    async def _move(self, kind: str, level: str, seed: int, view: SeatView, usual: float) -> Any:
        """A computer's decision, its budget `usual` ms shrunk as the line asks."""
        budget = Budget(usual, min(usual, FLOOR_MS.get(level, 0.0)))
        return await self.run(COMPUTER, _choose, kind, level, seed, view, budget=budget)

    # ------------------------------------------------------------------ the coach

    async def hint(self, seed: int, view: SeatView, budget_ms: float) -> Hint:
        """The coach's hint for this view (`engine.coach.hint`), thought out in the pool:
        one job for a play, the `expert`'s pass search in pieces for a pass (answering by
        `HINT_PASS_S` after its first piece; the deals it played are kept for the review
        of that pass). Raises `TooBusy` when the first job cannot start within
        `HINT_WAIT_S` of the call."""
        start_by = self.clock() + HINT_WAIT_S
        if view.phase == "pass":
            check_pass_hint(view)
            plan, rng = PassPlan.of(view, seed)
            weighing = await self._pass_search(HINT, view, plan, rng, start_by)
            self._remember(_decided(seed, view), weighing.deals)
            return pass_hint_of(view, weighing)
        found = await self.run(HINT, hint, view, seed, budget_ms, start_by=start_by)
        assert isinstance(found, Hint)
        self._remember(_decided(seed, view), None)
        return found

    def _remember(self, key: Decided, deals: tuple[int, int] | None) -> None:
        self._hinted[key] = deals
        if len(self._hinted) > HINTED_KEPT:
            del self._hinted[next(iter(self._hinted))]

    async def review(self, seed: int, decisions: list[Decision], budget_ms: float) -> list[Finding]:
        """The coach's review of one hand's decisions (`engine.coach.review`), in the pool,
        one play decision a job (one a hint was given for judged by the hint's own
        evaluation); the pass as the `expert`'s pass search in pieces, the person's pass
        weighed beside it, with the deals its hint's search played when one was given (the
        same search: what a hint named is never called a mistake)."""
        findings: list[Finding | None] = []
        for decision in decisions:
            if decision.trick == 0:
                view = decision.view
                deals = self._hinted.get(_decided(seed, view))
                chosen = mask_of_cards(decision.chosen)
                plan, rng = PassPlan.of(view, seed, deals, chosen)
                weighing = await self._pass_search(REVIEW, view, plan, rng)
                findings.append(pass_finding(decision, weighing))
            else:
                hinted = _decided(seed, decision.view) in self._hinted
                found = await self.run(REVIEW, judge_play, decision, seed, budget_ms, None, hinted)
                assert found is None or isinstance(found, Finding)
                findings.append(found)
        return worst(findings)

    async def _pass_search(
        self,
        priority: int,
        view: SeatView,
        plan: PassPlan,
        rng: Random,
        start_by: float | None = None,
    ) -> PassWeighing:
        """The `expert`'s pass search of ``plan`` (`engine.coach.weigh_pass_search`) in
        short jobs (`pass_piece`), each round's deals going on from the last job's.

        A review's plays every deal of its plan. A hint's (``start_by``, the time of
        `clock` its first job must start by, or `TooBusy`) stops where its clock says: at
        `PASS_LIMIT_S` of the jobs' own time, and once its later jobs have waited
        `HINT_PASS_S` in all (when computers keep the pool busy its jobs come only by the
        coach's turn); it then ranks the passes on the deals it weighed, and says how many
        (`PassWeighing.deals`). A job still waiting in the line then leaves it unstarted
        (`TooBusy`, not counted), at that moment, so the hint waits for nothing more."""
        clocked = start_by is not None
        limit = expert.PASS_LIMIT_S
        until: float | None = None
        spent, jobs = 0.0, 0

        async def play(candidates: list[Mask], deals: int) -> Piece:
            """One round: its deals in pieces, each going on from the last (in a worker
            process, the generator and the cards come back as it left them)."""
            nonlocal spent, jobs, rng, until
            stream = DealStream(rng)
            sums, done = [0.0] * len(candidates), 0
            squares = [0.0] * len(candidates) ** 2
            step = piece_deals(len(candidates))
            while done < deals and (until is None or not jobs or self.clock() < until):
                seconds = max(0.0, limit - spent) if clocked else math.inf
                size = min(step, deals - done)
                first = not jobs
                jobs += 1
                try:
                    piece = await self.run(
                        priority, pass_piece, view, candidates, size, stream, seconds, squares,
                        start_by=start_by if first else until, counted=first,
                    )  # fmt: skip
                except TooBusy:
                    if first:
                        raise
                    break  # the hint's time came before this job could start
                assert isinstance(piece, Piece)
                spent += piece.seconds
                if start_by is not None:  # the time it ran does not count, only waits
                    until = self.clock() + HINT_PASS_S if until is None else until + piece.seconds
                sums = [a + b for a, b in zip(sums, piece.sums, strict=True)]
                done += piece.done
                stream = piece.stream
                squares = piece.products
                if clocked and spent >= limit:
                    break
            rng = stream.rng
            return Piece(sums, done, stream, 0.0, squares)

        first = await play(plan.first_round(), plan.deals[0])
        second = await play(plan.second_round(first.sums), plan.deals[1])
        return plan.weighing(first, second)

    def close(self) -> None:
        self._closed = True
        for job in self._line:
            job.future.cancel()
        self._line.clear()
        self._executor.shutdown(wait=False, cancel_futures=True)
