"""How far the `expert`'s pass search is from the best of its own candidates.

    python -m bench passes [--views 40] [--settings 60,120,100:4:400] [--reference 3000]
                           [--players 4] [--variant standard] [--bonus JD]

For each of ``--views`` pass positions (a random deal, a random direction, a seat), every
candidate of the search (`engine.players.passing.pass_options`) is played out on
``--reference`` deals of its own (its own generator, the search's model: the others
passing by the rule of thumb, `smart_card` play-outs). Then the search itself chooses,
steady (every deal played whatever the clock), with each of ``--settings``: the deals of
its first round (`passing.FIRST_DEALS`), or ``FIRST:SHORTLIST:MORE`` (with
`passing.SHORTLIST` and `passing.MORE_DEALS`). A choice's **regret** is what its pass
costs on the reference deals above the cheapest candidate there: what the search's own
sampling noise costs, in points a hand, under its own model of the table. The reference
has noise of its own, so a regret near zero is as good as it gets.

Prints each setting's mean regret (± a 95% interval over the positions), how often it
chose the reference's best, and its time a pass (median and longest, one core).
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import statistics
import time

from engine import Game, Rules
from engine.players import passing
from engine.players.expert import ExpertPlayer
from engine.players.pass_rule import expert_pass
from engine.rules import PassDirection

DIRECTIONS: tuple[PassDirection, ...] = ("left", "right", "across")


@dataclasses.dataclass(frozen=True)
class Setting:
    first: int
    shortlist: int = passing.SHORTLIST
    more: int = passing.MORE_DEALS

    @staticmethod
    def parse(text: str) -> Setting:
        parts = [int(x) for x in text.split(":")]
        if len(parts) not in (1, 3) or min(parts) < 1:
            raise ValueError(f"a setting is FIRST or FIRST:SHORTLIST:MORE, not {text!r}")
        return Setting(*parts)

    def __str__(self) -> str:
        return f"{self.first} deals, the best {self.shortlist} on {self.more}"


def regrets(rules: Rules, views: int, settings: list[Setting], reference: int, seed: int) -> None:
    found: dict[Setting, list[float]] = {s: [] for s in settings}
    took: dict[Setting, list[float]] = {s: [] for s in settings}
    usual = Setting(passing.FIRST_DEALS)
    for i in range(views):
        rng = random.Random(seed + i)
        direction = rng.choice(DIRECTIONS if rules.players % 2 == 0 else DIRECTIONS[:2])
        game = Game(dataclasses.replace(rules, pass_cycle=(direction,)), seed=seed + i)
        view = game.view(i % rules.players)
        search, _ = ExpertPlayer(seed).pass_search(view)
        sums, done = passing.pass_costs(
            view.rules, view.seat, view.hand_mask, view.pass_to, view.scores,
            list(search.candidates), random.Random(10_000 + seed + i), reference, expert_pass,
        )  # fmt: skip
        costs = [s / done for s in sums]
        best = min(costs)
        for setting in settings:
            saved = passing.FIRST_DEALS, passing.SHORTLIST, passing.MORE_DEALS
            passing.FIRST_DEALS, passing.SHORTLIST, passing.MORE_DEALS = (
                setting.first, setting.shortlist, setting.more
            )  # fmt: skip
            try:
                start = time.perf_counter()
                chosen = ExpertPlayer(seed, steady=True).weigh_passes(view)[0][0]
                took[setting].append(time.perf_counter() - start)
            finally:
                passing.FIRST_DEALS, passing.SHORTLIST, passing.MORE_DEALS = saved
            found[setting].append(costs[search.candidates.index(chosen)] - best)
    print(f"{views} positions, each candidate's reference cost over {reference} deals")
    for setting in settings:
        xs, ts = found[setting], took[setting]
        ci = 1.96 * statistics.stdev(xs) / len(xs) ** 0.5 if len(xs) > 1 else 0.0
        best_share = sum(1 for x in xs if x == 0) / len(xs)
        mark = " (as set)" if setting == usual else ""
        print(
            f"first round {setting}{mark}: regret {statistics.fmean(xs):.3f} ± {ci:.3f}"
            f" pts/hand, the best {best_share:.0%}, ms a pass: median"
            f" {1000 * statistics.median(ts):.0f}, longest {1000 * max(ts):.0f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--views", type=int, default=40)
    parser.add_argument("--settings", default="60,120")
    parser.add_argument("--reference", type=int, default=3000)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--variant", default="standard")
    parser.add_argument("--bonus", default=None)
    parser.add_argument("--seed", type=int, default=900)
    args = parser.parse_args()
    if args.variant == "two_player" or args.players < 3:
        parser.error("two-player Hearts has no pass")
    rules = Rules(players=args.players, variant=args.variant, bonus_card=args.bonus)
    settings = [Setting.parse(x) for x in args.settings.split(",")]
    print(f"{args.players} players, {args.variant}" + (f", {args.bonus}" if args.bonus else ""))
    regrets(rules, args.views, settings, args.reference, args.seed)


if __name__ == "__main__":
    main()
