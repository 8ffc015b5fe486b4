"""The coach's times: hints and reviews, thought out in the computer players' pool as the
bot does it (a worker process, the view sent over and the answer back).

    python -m bench coach [--hints 200] [--reviews 20] [--busy 20]

- Hints: positions from random 4-player games (passes and turns, early and late in a
  hand), each asked of `Thinker.hint` with the bot's budget.
- Reviews: whole 4-player hands played by `standard` players, each reviewed for one seat
  with `Thinker.review` (the pass and 13 plays).
- ``--busy N``: meanwhile N tables' computer players think in the same pool, one decision
  of each table a second (`Tuning.computer_delay`; a pass one time in 14), as 20 tables of
  one person and three `expert` computers would ask of it. The hint waits its turn among
  them.

Prints the median, 95th percentile and worst of each; with ``--busy``, also how long the
computers' moves waited in the line (the coach's jobs running ahead of them).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time

from bot.computers.thinker import Thinker
from bot.config import Settings, Tuning
from engine import Game, Rules, SeatView
from engine.coach import HINT_BUDGET_MS, REVIEW_BUDGET_MS, hand_decisions
from engine.moves import Move
from engine.players import make_player


def positions(count: int, seed: int) -> list[SeatView]:
    """Views of seats with a decision to make: a third at the pass, the rest on a turn."""
    rng = random.Random(seed)
    views: list[SeatView] = []
    while len(views) < count:
        game = Game(Rules(), seed=rng.randrange(10**9))
        players = [make_player("standard", s) for s in range(4)]
        if rng.random() < 1 / 3:
            views.append(game.view(rng.randrange(4)))
            continue
        for passer in game.waiting_for():
            game.pass_cards(passer, players[passer].choose_pass(game.view(passer)))
        for _ in range(rng.randrange(48)):
            seat = game.current_player
            assert seat is not None
            game.play(seat, players[seat].choose_play(game.view(seat)))
        seat = game.current_player
        assert seat is not None
        views.append(game.view(seat))
    return views


def hands(count: int, seed: int) -> list[tuple[Game, list[tuple[Move, bool]]]]:
    """Whole first hands of 4-player games, as the journal keeps them."""
    out = []
    for g in range(count):
        game = Game(Rules(), seed=seed + g)
        start = Game(Rules(), seed=seed + g)
        players = [make_player("standard", s) for s in range(4)]
        moves: list[tuple[Move, bool]] = []
        for passer in game.waiting_for():
            move = Move.pass_cards(passer, players[passer].choose_pass(game.view(passer)))
            move.apply(game)
            moves.append((move, False))
        while game.hand_number == 1 and game.phase == "play":
            seat = game.current_player
            assert seat is not None
            move = Move.play(seat, players[seat].choose_play(game.view(seat)))
            move.apply(game)
            moves.append((move, False))
        out.append((start, moves))
    return out


async def busy_tables(thinker: Thinker, tables: int, stop: asyncio.Event) -> int:
    """Each table's computers think one `expert` decision a second until `stop`: a pass
    one time in 14 (a passing hand's 13 plays and one pass), a play otherwise."""
    think_ms: int = Settings.__dataclass_fields__["computer_think_ms"].default  # type: ignore[assignment]
    delay = Tuning().computer_delay
    views = positions(50, 99)
    plays = [v for v in views if v.phase == "play"]
    passes = [v for v in views if v.phase == "pass"]
    done = 0

    async def table(n: int) -> None:
        nonlocal done
        rng = random.Random(n)
        await asyncio.sleep(rng.uniform(0, delay))
        while not stop.is_set():
            if rng.randrange(14) == 0:
                await thinker.choose_pass("expert", n, rng.choice(passes), think_ms)
            else:
                await thinker.choose_play("expert", n, rng.choice(plays), think_ms)
            done += 1
            await asyncio.sleep(delay)

    await asyncio.gather(*(table(n) for n in range(tables)))
    return done


def line(name: str, seconds: list[float]) -> str:
    ordered = sorted(seconds)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return (
        f"{name:<28} n={len(ordered):<4} median {statistics.median(ordered) * 1000:7.0f} ms"
        f"   p95 {p95 * 1000:7.0f} ms   worst {ordered[-1] * 1000:7.0f} ms"
    )


async def run(args: argparse.Namespace) -> None:
    thinker = Thinker(workers=Tuning().thinker_workers)
    try:
        await thinker.hint(0, positions(1, 0)[0], HINT_BUDGET_MS)  # the worker starts
        stop = asyncio.Event()
        busy = asyncio.create_task(busy_tables(thinker, args.busy, stop)) if args.busy else None
        await asyncio.sleep(2 if args.busy else 0)
        timed: dict[str, list[float]] = {"pass": [], "play": []}
        for n, view in enumerate(positions(args.hints, 1)):
            began = time.perf_counter()
            await thinker.hint(n, view, HINT_BUDGET_MS)
            timed["pass" if view.phase == "pass" else "play"].append(time.perf_counter() - began)
            await asyncio.sleep(0.2)
        reviews: list[float] = []
        for n, (start, moves) in enumerate(hands(args.reviews, 1000)):
            seat = n % 4
            began = time.perf_counter()
            decisions = hand_decisions(start, moves, seat, 1)
            await thinker.review(n, decisions, REVIEW_BUDGET_MS)
            reviews.append(time.perf_counter() - began)
        stop.set()
        decided = await busy if busy is not None else 0
    finally:
        thinker.close()
    busy_note = f", {args.busy} busy tables ({decided} computer decisions)" if args.busy else ""
    print(f"coach on {Tuning().thinker_workers} worker process{busy_note}")
    print(line("hint (all)", timed["pass"] + timed["play"]))
    print(line("hint at the pass", timed["pass"]))
    print(line("hint on a turn", timed["play"]))
    print(line("review of a 4-player hand", reviews))
    if args.busy:
        figures = thinker.figures
        waited = figures.waited_s / max(1, figures.moves) * 1000
        print(
            f"{'computer move in the line':<28} n={figures.moves:<4} mean {waited:7.0f} ms"
            f"   longest {figures.longest_wait_s * 1000:7.0f} ms"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hints", type=int, default=200)
    parser.add_argument("--reviews", type=int, default=20)
    parser.add_argument("--busy", type=int, default=20)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
