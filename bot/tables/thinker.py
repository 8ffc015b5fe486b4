"""Computer players' decisions, made off the event loop so no chat waits while one thinks.

Decisions run in a process pool (a separate core; pure CPU work would otherwise hold the
interpreter lock the event loop needs), or in a thread when ``workers`` is 0. Each call
gets a time budget, and the engine's players honour it.
"""

from __future__ import annotations

import asyncio
import multiprocessing
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor

from engine import Card, SeatView
from engine.coach import Decision, Finding, Hint, hint, review
from engine.players import make_player


def _choose(kind: str, level: str, seed: int, view: SeatView, budget_ms: float) -> object:
    player = make_player(level, seed)
    if kind == "pass":
        return [c.code for c in player.choose_pass(view, budget_ms)]
    if kind == "moon":
        return player.choose_moon(view, budget_ms)
    return player.choose_play(view, budget_ms).code


def _hint(seed: int, view: SeatView, budget_ms: float) -> Hint:
    return hint(view, seed, budget_ms)


def _review(seed: int, decisions: list[Decision], budget_ms: float) -> list[Finding]:
    return review(decisions, seed, budget_ms)


class Thinker:
    def __init__(self, workers: int = 1) -> None:
        self._executor: Executor
        if workers > 0:
            context = multiprocessing.get_context("spawn")
            self._executor = ProcessPoolExecutor(max_workers=workers, mp_context=context)
        else:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="thinker")

    async def _run(self, kind: str, level: str, seed: int, view: SeatView, budget: float) -> object:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, _choose, kind, level, seed, view, budget)

    async def choose_pass(self, level: str, seed: int, view: SeatView, budget: float) -> list[Card]:
        codes = await self._run("pass", level, seed, view, budget)
        assert isinstance(codes, list)
        return [Card.parse(c) for c in codes]

    async def choose_play(self, level: str, seed: int, view: SeatView, budget: float) -> Card:
        code = await self._run("play", level, seed, view, budget)
        assert isinstance(code, str)
        return Card.parse(code)

    async def choose_moon(self, level: str, seed: int, view: SeatView, budget: float) -> str:
        choice = await self._run("moon", level, seed, view, budget)
        assert isinstance(choice, str)
        return choice

    async def hint(self, seed: int, view: SeatView, budget_ms: float) -> Hint:
        """The coach's hint for this view (`engine.coach.hint`), thought out in the pool."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, _hint, seed, view, budget_ms)

    async def review(self, seed: int, decisions: list[Decision], budget_ms: float) -> list[Finding]:
        """The coach's review of one hand's decisions (`engine.coach.review`), in the pool."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, _review, seed, decisions, budget_ms)

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
