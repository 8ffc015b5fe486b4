"""Calibration of the ratings: the four computer levels play each other, one of each at
every table (seats rotated game by game), and every game is rated in order as the bot
rates one. Prints each level's rating with its uncertainty and its average place.

    python -m bench ratings [--games 2000] [--target 50] [--budget 10] [--jobs 2]

The order of the ratings should match the levels' measured strength:
expert > pro > standard > easy. The levels are rated here like people
(``rate_game(..., anchored=False)``). A rating rated game after game never settles: its
uncertainty stops shrinking (about 1.7) and its mean wanders with the last games' luck,
so the final means of close levels can come out in either order. The fixed ratings the bot
gives the levels (`ratings.ANCHORS`, which no game moves) are therefore each level's mean
averaged over the second half of the games (``settled``), with its final uncertainty.
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import time

from engine import Game, Rules
from engine.players import make_player
from engine.scoring import rank_key
from ratings import SeatResult, Skill, computer_player, rate_game

LEVELS = ("easy", "standard", "pro", "expert")


def play(args: tuple[int, int, float]) -> tuple[list[str], list[int]]:
    """Game ``g`` (its seats rotated by ``g``): the level of each seat and its rank key."""
    g, target, budget_ms = args
    kinds = [LEVELS[(s + g) % 4] for s in range(4)]
    rules = Rules(players=4, target=target)
    players = [make_player(kinds[s], g * 7919 + s) for s in range(4)]
    game = Game(rules, seed=g)
    while game.phase != "over":
        if game.phase == "pass":
            for passer in game.waiting_for():
                game.pass_cards(passer, players[passer].choose_pass(game.view(passer), budget_ms))
            continue
        seat = game.current_player
        assert seat is not None
        view = game.view(seat)
        if game.phase == "moon":
            game.choose_moon(seat, players[seat].choose_moon(view, budget_ms))
        else:
            game.play(seat, players[seat].choose_play(view, budget_ms))
    return kinds, [rank_key(rules, total) for total in game.scores]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--target", type=int, default=50)
    parser.add_argument("--budget", type=float, default=10.0, help="ms a decision")
    parser.add_argument("--jobs", type=int, default=multiprocessing.cpu_count())
    args = parser.parse_args()
    started = time.perf_counter()
    tasks = [(g, args.target, args.budget) for g in range(args.games)]
    with multiprocessing.Pool(args.jobs) as pool:
        results = pool.map(play, tasks, chunksize=8)
    played = time.perf_counter() - started
    skills: dict[int, Skill] = {}
    places: dict[str, list[int]] = {level: [] for level in LEVELS}
    means: dict[str, list[float]] = {level: [] for level in LEVELS}
    for g, (kinds, ranks) in enumerate(results):  # in game order, as the bot rates them
        seats = [SeatResult(s, computer_player(kinds[s]), ranks[s]) for s in range(4)]
        for change in rate_game(seats, skills, anchored=False):
            skills[change.player] = change.after
        for s in range(4):
            places[kinds[s]].append(1 + sum(r < ranks[s] for r in ranks))
        if g >= len(results) // 2:
            for level in LEVELS:
                means[level].append(skills[computer_player(level)].mu)
    settled = {
        level: Skill(statistics.fmean(means[level]), skills[computer_player(level)].sigma)
        for level in LEVELS
    }
    print(
        f"{args.games} games of 4 (one of each level) to {args.target}, "
        f"{args.budget:g} ms a decision, in {played:.0f} s"
    )
    print(
        f"{'level':10s} {'mu':>7s} {'sigma':>6s} {'shown':>6s} {'±':>4s} {'avg place':>9s}"
        f" {'settled mu':>10s} {'shown':>6s}"
    )
    order = sorted(LEVELS, key=lambda lv: -settled[lv].conservative)
    for level in order:
        skill = skills[computer_player(level)]
        print(
            f"{level:10s} {skill.mu:7.2f} {skill.sigma:6.3f} {skill.shown:6d} {skill.spread:4d}"
            f" {statistics.mean(places[level]):9.3f} {settled[level].mu:10.2f}"
            f" {settled[level].shown:6d}"
        )
    want = ["expert", "pro", "standard", "easy"]
    print(
        "order by settled rating:", " > ".join(order), "(as measured)" if order == want else "(!)"
    )
    print(
        "ANCHORS: "
        + ", ".join(
            f'"{lv}": Skill({settled[lv].mu:.2f}, {settled[lv].sigma:.2f})' for lv in LEVELS
        )
    )


if __name__ == "__main__":
    main()
