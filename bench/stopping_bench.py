"""Does stopping the daily deal while ahead pay? A simulation with the bot's own scoring.

    python -m bench stopping [--days 300] [--field 40] [--seed 1]

Each day ``--field`` honest people play the day's four hands (each hand's points drawn as
people take them, `bench.daily_bench`'s draw), then the stopper plays hand by hand with
points drawn alike. After each hand but the last the stopper reads their line of the day as
``/daily`` shows it (`storage.daily.ScoredDay.mine`, against the board of everyone's
results) and stops if the hands played so far average above 50 % (the game left open to
the day's close, or cancelled: the same hands stored). The day is then settled as the bot settles it
(`engine.daily.scores`, what `storage.daily.Daily.settle` stores).

Printed, each with its 95 % confidence interval (1.96 standard errors over the days): the
honest people's mean day score, the stopper's, and the stopper's gain over their own
twin who played the same points to the end (paired, day by day); and, for comparison,
the stopper's score under the rule before (the mean over the hands played).
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bench.daily_bench import draw_points
from engine import daily
from storage.daily import ScoredDay

STOPPER = 0
"""The stopper's id among the day's people (the honest ones are 1 to the field)."""


@dataclass(frozen=True)
class Mean:
    """A mean over the days and the half-width of its 95 % confidence interval."""

    mean: float
    half: float

    @staticmethod
    def of(values: Sequence[float]) -> Mean:
        spread = statistics.stdev(values) if len(values) > 1 else 0.0
        return Mean(statistics.fmean(values), 1.96 * spread / math.sqrt(len(values)))

    def __str__(self) -> str:
        return f"{self.mean:6.2f} % ± {self.half:.2f}"


@dataclass(frozen=True)
class Figures:
    """The simulation's results: honest people's day scores, the stopper's, the stopper's
    gain over playing to the end (paired), and the stopper's scores by the old rule."""

    honest: Mean
    stopper: Mean
    gain: Mean
    stopper_before: Mean
    stopped_days: int


def _mean_over_played(marks: Sequence[float]) -> float:
    """The rule before: the mean over the hands played only."""
    return sum(marks) / len(marks)


def simulate(
    days: int,
    field: int,
    seed: int,
    score: Callable[[dict[int, list[int]]], dict[int, float]] = daily.scores,
) -> Figures:
    """``days`` days of ``field`` honest people and one stopper, scored by ``score`` (the
    bot's: `engine.daily.scores`)."""
    rng = random.Random(seed)
    honest: list[float] = []
    stopper: list[float] = []
    gain: list[float] = []
    before: list[float] = []
    stopped_days = 0
    for _ in range(days):
        results = {person: draw_points(rng) for person in range(1, field + 1)}
        board = ScoredDay.of(results)
        mine = draw_points(rng)
        played = daily.HANDS
        for hand in range(1, daily.HANDS):
            line = board.mine(STOPPER, mine[:hand])
            assert line is not None
            if statistics.fmean(line.marks) > 50.0:  # ahead on the hands played
                played = hand
                break
        stopped_days += played < daily.HANDS
        settled = score({**results, STOPPER: mine[:played]})
        twin = score({**results, STOPPER: mine})
        honest.extend(v for person, v in settled.items() if person != STOPPER)
        stopper.append(settled[STOPPER])
        gain.append(settled[STOPPER] - twin[STOPPER])
        old = {**results, STOPPER: mine[:played]}
        before.append(_mean_over_played(daily.hand_marks(old, STOPPER)))
    return Figures(Mean.of(honest), Mean.of(stopper), Mean.of(gain), Mean.of(before), stopped_days)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--days", type=int, default=300)
    parser.add_argument("--field", type=int, default=40, help="honest people a day")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    figures = simulate(args.days, args.field, args.seed)
    print(
        f"daily deal, {args.days} days, {args.field} honest people and one who stops when "
        f"ahead (stopped on {figures.stopped_days} days); 95 % confidence intervals"
    )
    print(f"honest people's day score        {figures.honest}")
    print(f"the stopper's day score          {figures.stopper}")
    print(f"the stopper's gain by stopping   {figures.gain} (paired: the same points played out)")
    print(f"the stopper by the rule before   {figures.stopper_before} (the mean over hands played)")


if __name__ == "__main__":
    main()
