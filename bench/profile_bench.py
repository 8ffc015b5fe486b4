"""Where an `expert` decision's time goes: its plays and passes over random positions,
profiled, with the time split into the parts a faster engine would attack.

    ./dev bench profile [--positions 40] [--seed 1] [--budget 300] [--top 12]
                        [--deals N [--rounds 3]]

With ``--deals``, the `expert` plays that many deals a play decision whatever the clock
(`steady`, its pass search its full rounds), so the work is fixed, and the decisions are
then timed again without the profiler: decisions and deals per CPU second (best of
``--rounds``), the figure to compare two versions of the code by, one after the other.

Parts, by the function the time is spent in (its own time, not its callees'):
- sampling worlds: dealing the unseen cards (`Knowledge.sample`), the inferred weights;
- the playout's policy: the card each seat plays in a playout (`smart_card` and what it
  calls);
- legal moves and tricks: what is legal, what breaks hearts, who takes a trick
  (`engine/play_rules.py`);
- the playout loop: `play_out` and the first card put in by hand;
- scoring: a played-out hand's points and their cost;
- the rest: the search's own loop, the pass search's bookkeeping, Python's builtins.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import time

from engine import Game, Rules
from engine.players import ExpertPlayer

PARTS = {
    "sampling worlds": ("knowledge.py", "inferred_weights", "sample"),
    "the playout's policy": ("smart.py", "standard.py"),
    "legal moves and tricks": ("play_rules.py",),
    "the playout loop": ("playout.py:", "_play_first"),
    "scoring": ("scoring.py", "measure", "hand_cost"),
}


def part_of(where: str) -> str:
    for part, marks in PARTS.items():
        if part == "the playout loop":
            if "play_out" in where or "_play_first" in where:
                return part
            continue
        if any(mark in where for mark in marks):
            return part
    return "the rest"


def positions(count: int, seed: int) -> list[tuple[Game, int]]:
    """Positions where a seat must decide: passes and plays of random four-player games,
    played to there by random legal moves."""
    rng = random.Random(seed)
    found: list[tuple[Game, int]] = []
    while len(found) < count:
        game = Game(Rules(), seed=rng.randrange(1 << 30))
        stop = rng.randrange(0, 52)
        moves = 0
        while game.phase in ("pass", "play"):
            if game.phase == "pass":
                if stop == 0 or rng.random() < 0.15:
                    found.append((game, game.waiting_for()[0]))
                    break
                for passer in game.waiting_for():
                    game.pass_cards(passer, rng.sample(game.hand(passer), 3))
                continue
            seat = game.current_player
            assert seat is not None
            if moves >= stop and len(game.legal_plays()) > 1:
                found.append((game, seat))
                break
            game.play(seat, rng.choice(game.legal_plays()))
            moves += 1
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--budget", type=float, default=300.0, help="ms a decision")
    parser.add_argument("--top", type=int, default=12, help="functions listed")

    parser.add_argument("--deals", type=int, default=None, help="fixed deals a play")
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds (with --deals)")
    args = parser.parse_args()

    if args.deals is None:
        player = ExpertPlayer(seed=args.seed)
    else:
        player = ExpertPlayer(seed=args.seed, deals=args.deals, steady=True)
    chosen = positions(args.positions, args.seed)
    profile = cProfile.Profile()
    times = {"pass": [], "play": []}  # type: dict[str, list[float]]
    for game, seat in chosen:
        view = game.view(seat)
        start = time.perf_counter()
        profile.enable()
        if game.phase == "pass":
            player.choose_pass(view, args.budget)
        else:
            player.choose_play(view, args.budget)
        profile.disable()
        times[game.phase].append((time.perf_counter() - start) * 1000)

    stats = pstats.Stats(profile)
    own: dict[str, float] = {}
    rows = []
    for (path, line, name), (_, calls, tottime, _, _) in stats.stats.items():  # type: ignore[attr-defined]
        where = f"{path.rsplit('/', 1)[-1]}:{line}({name})"
        part = part_of(f"{path}:{name}")
        own[part] = own.get(part, 0.0) + tottime
        rows.append((tottime, calls, where))
    total = sum(own.values()) or 1.0
    for phase, ms in times.items():
        if ms:
            ms.sort()
            print(
                f"{phase}: {len(ms)} decisions, median {ms[len(ms) // 2]:.0f} ms, "
                f"longest {ms[-1]:.0f} ms (under the profiler)"
            )
    print(f"{'part':<24} {'share':>6}")
    for part in [*PARTS, "the rest"]:
        print(f"{part:<24} {100 * own.get(part, 0.0) / total:5.1f}%")
    print(f"\n{'own time':>9} {'calls':>10}  function")
    for tottime, calls, where in sorted(rows, reverse=True)[: args.top]:
        print(f"{100 * tottime / total:8.1f}% {calls:>10}  {where}")
    if args.deals is not None:
        print()
        rates(player, chosen, args.budget, args.rounds)


def rates(player: ExpertPlayer, chosen: list[tuple[Game, int]], budget: float, rounds: int) -> None:
    """Each kind of decision per CPU second, and the play decisions' deals per second, with
    no profiler: the best of ``rounds`` rounds over every position."""
    best: dict[str, tuple[float, int, int]] = {}
    for _ in range(rounds):
        for phase in ("play", "pass"):
            spent, count, deals = 0.0, 0, 0
            for game, seat in chosen:
                if game.phase != phase:
                    continue
                view = game.view(seat)
                start = time.process_time()
                if phase == "pass":
                    player.choose_pass(view, budget)
                else:
                    deals += player.evaluate_play(view, budget).deals
                spent += time.process_time() - start
                count += 1
            if count and (phase not in best or spent < best[phase][0]):
                best[phase] = (spent, count, deals)
    for phase, (spent, count, deals) in best.items():
        line = f"{phase}: {count / spent:7.2f} decisions per CPU second"
        if phase == "play":
            line += f", {deals / spent:8.0f} deals per CPU second"
        print(f"{line} (best of {rounds} rounds, {spent:.2f} s)")


if __name__ == "__main__":
    main()
