"""Computer players against each other, with figures: ``python -m engine.arena``.

    python -m engine.arena --seats pro,standard,standard,standard --hands 2000 --jobs 2

Plays whole games (to the target) with the seats rotated game by game, until at least
``--hands`` hands are played, and prints for each player kind: average points per hand
with a 95% confidence interval, the share of games won, the hands it shot the moon in,
and decision times (median and 99th percentile). In Complex Hearts "points" are the
magnitude |z| of each hand's score.

A seat may be the `naive` shooter of issue 51 (`players.naive`), no level of the bot.
``--moons`` seats it against three computers of each level in turn and prints how often
it shoots the moon:

    python -m engine.arena --moons standard,pro,expert --hands 400
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import statistics
import time
from collections import defaultdict
from dataclasses import dataclass, field

from .game import Game
from .players import LEVELS, Player, make_player
from .players.naive import NaiveShooter
from .rules import Rules, Variant
from .scoring import Score

NAIVE = "naive"
"""The naive shooter's name as a seat (`players.naive.NaiveShooter`)."""
KINDS = (*LEVELS, NAIVE)


def seat_player(kind: str, seed: int) -> Player:
    """A computer of a level, or the naive shooter."""
    return NaiveShooter(seed) if kind == NAIVE else make_player(kind, seed)


@dataclass
class Tally:
    """What one worker measured, per player kind."""

    points: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    wins: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    games: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    times: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    moons: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    """Hands each kind shot the moon in (took every point card in play)."""
    hands: int = 0
    played_games: int = 0

    def merge(self, other: Tally) -> None:
        for k, v in other.points.items():
            self.points[k].extend(v)
        for k, w in other.wins.items():
            self.wins[k] += w
        for k, g in other.games.items():
            self.games[k] += g
        for k, t in other.times.items():
            self.times[k].extend(t)
        for k, m in other.moons.items():
            self.moons[k] += m
        self.hands += other.hands
        self.played_games += other.played_games


def _points_value(score: Score) -> float:
    return abs(score) if isinstance(score, complex) else float(score)


def play_game(rules: Rules, kinds: list[str], seed: int, budget_ms: float, tally: Tally) -> None:
    """One game to the end, its figures added to ``tally``."""
    n = rules.players
    players = [seat_player(kinds[s], seed * 7919 + s) for s in range(n)]
    game = Game(rules, seed=seed)
    while game.phase != "over":
        if game.phase == "pass":
            for passer in game.waiting_for():
                start = time.perf_counter()
                cards = players[passer].choose_pass(game.view(passer), budget_ms)
                tally.times[kinds[passer]].append(time.perf_counter() - start)
                game.pass_cards(passer, cards)
            continue
        seat = game.current_player
        assert seat is not None
        view = game.view(seat)
        start = time.perf_counter()
        if game.phase == "moon":
            game.choose_moon(seat, players[seat].choose_moon(view, budget_ms))
        else:
            card = players[seat].choose_play(view, budget_ms)
            tally.times[kinds[seat]].append(time.perf_counter() - start)
            game.play(seat, card)
    for hand in game.hand_history:
        for s, p in enumerate(hand.points):
            tally.points[kinds[s]].append(_points_value(p))
        if hand.shooter is not None:
            tally.moons[kinds[hand.shooter]] += 1
    tally.hands += len(game.hand_history)
    tally.played_games += 1
    for s in range(n):
        tally.games[kinds[s]] += 1
        if s in game.winners:
            tally.wins[kinds[s]] += 1 / len(game.winners)


def _worker(args: tuple[Rules, list[str], int, int, int, int, float]) -> Tally:
    rules, seats, hands, job, jobs, seed, budget_ms = args
    tally = Tally()
    n = rules.players
    g = job
    while tally.hands < hands:
        rotation = g % n
        kinds = [seats[(s + rotation) % n] for s in range(n)]
        play_game(rules, kinds, seed * 1_000_003 + g, budget_ms, tally)
        g += jobs
    return tally


def run(
    rules: Rules, seats: list[str], hands: int, seed: int, jobs: int, budget_ms: float
) -> Tally:
    share = math.ceil(hands / jobs)
    tasks = [(rules, seats, share, j, jobs, seed, budget_ms) for j in range(jobs)]
    total = Tally()
    if jobs == 1:
        total.merge(_worker(tasks[0]))
        return total
    with multiprocessing.Pool(jobs) as pool:
        for tally in pool.map(_worker, tasks):
            total.merge(tally)
    return total


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def report(tally: Tally, seats: list[str]) -> str:
    lines = [
        f"{tally.hands} hands, {tally.played_games} games",
        f"{'player':<10} {'seats':>5} {'points/hand':>12} {'95% CI':>17} {'win rate':>9}"
        f" {'moons':>6} {'median ms':>10} {'p99 ms':>8}",
    ]
    for kind in dict.fromkeys(seats):
        pts = tally.points[kind]
        mean = statistics.fmean(pts)
        half = 1.96 * statistics.stdev(pts) / math.sqrt(len(pts)) if len(pts) > 1 else 0.0
        times = tally.times[kind]
        win = tally.wins[kind] / tally.games[kind] if tally.games[kind] else 0.0
        lines.append(
            f"{kind:<10} {seats.count(kind):>5} {mean:>12.2f} "
            f"{f'[{mean - half:.2f}, {mean + half:.2f}]':>17} {win:>9.1%}"
            f" {tally.moons[kind]:>6}"
            f" {statistics.median(times) * 1000:>10.1f} {_percentile(times, 0.99) * 1000:>8.1f}"
        )
    return "\n".join(lines)


def moon_report(
    rules: Rules, levels: list[str], hands: int, seed: int, jobs: int, budget_ms: float
) -> str:
    """How often the naive shooter shoots the moon against three computers of each level
    (the seats rotated game by game, the same games for every level): per level, the hands
    played, the moons it shot, their share with a 95% interval (Wilson's)."""
    lines = [f"{'against':<10} {'hands':>6} {'moons':>6} {'share':>7} {'95% CI':>16}"]
    for level in levels:
        seats = [NAIVE] + [level] * (rules.players - 1)
        tally = run(rules, seats, hands, seed, jobs, budget_ms)
        moons, n = tally.moons[NAIVE], tally.hands
        low, high = _wilson(moons, n)
        lines.append(
            f"{level:<10} {n:>6} {moons:>6} {moons / n:>7.1%} {f'[{low:.1%}, {high:.1%}]':>16}"
        )
    return "\n".join(lines)


def _wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """A 95% interval for a share of ``k`` in ``n`` (Wilson's score interval)."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m engine.arena", description=__doc__)
    parser.add_argument("--seats", default="pro,standard,standard,standard")
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument(
        "--variant", default="standard", choices=("standard", "complex", "two_player")
    )
    parser.add_argument("--players", type=int, default=None)
    parser.add_argument("--bonus", default=None, choices=("JD", "TD"))
    parser.add_argument("--target", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--budget-ms", type=float, default=300)
    parser.add_argument(
        "--moons",
        default=None,
        help="levels to seat the naive shooter against, e.g. standard,pro,expert",
    )
    args = parser.parse_args(argv)
    seats = [s.strip() for s in args.seats.split(",")]
    levels = [s.strip() for s in args.moons.split(",")] if args.moons else []
    for s in [*seats, *levels]:
        if s not in KINDS:
            parser.error(f"unknown player kind {s!r}: choose from {', '.join(KINDS)}")
    players = args.players if args.players is not None else len(seats)
    if len(seats) == 1:
        seats = seats * players
    if len(seats) != players:
        parser.error(f"{len(seats)} seats given for {players} players")
    variant: Variant = args.variant
    rules = Rules(players=players, variant=variant, bonus_card=args.bonus, target=args.target)
    start = time.perf_counter()
    if levels:
        print(moon_report(rules, levels, args.hands, args.seed, args.jobs, args.budget_ms))
        print(f"({time.perf_counter() - start:.0f} s, {args.jobs} jobs)")
        return
    tally = run(rules, seats, args.hands, args.seed, args.jobs, args.budget_ms)
    print(report(tally, seats))
    print(f"({time.perf_counter() - start:.0f} s, {args.jobs} jobs)")


if __name__ == "__main__":
    main()
