"""Where an `expert` decision's time goes: its plays and passes over random positions,
profiled, with the time split into the parts a faster engine would attack.

    ./dev bench profile [--positions 40] [--seed 1] [--budget 300] [--top 12]
                        [--deals N [--rounds 3]]

Each decision is made twice: timed without the profiler (the milliseconds in the table),
then under it (the split). The table gives each part's share of a play's and of a pass's
time and the milliseconds that share is of an unprofiled decision; the lines after it, the
shares over every decision profiled, then the functions of most own time.

With ``--deals``, the `expert` plays that many deals a play decision whatever the clock
(`steady`, its pass search its full rounds), so the work is fixed, and the decisions are
then timed again without the profiler: decisions and deals per CPU second (best of
``--rounds``), the figure to compare two versions of the code by, one after the other.

Parts, by the function the time is spent in (its own time, not its callees'; a builtin's,
such as ``int.bit_length``, goes to the part of the function that called it):
- sampling worlds: dealing the unseen cards (`Knowledge.sample`, the pass search's
  shuffles), the inferred weights;
- play-outs, the policy: the card each seat plays in a playout (`smart_card` and what it
  calls, the moon runner's and stopper's cards);
- play-outs, the loop: `play_out`, `play_out_moon` and the first card put in by hand; the
  loop inlines the common cases of what is legal and who takes a trick;
- legal moves and tricks: the engine's rules of a card to a trick (`engine/play_rules.py`)
  where the loop calls them;
- scoring: a played-out hand's points and their cost;
- the others' passes: the rule of thumb each other seat passes by in the pass search;
- the rest: the search's own loops and bookkeeping, the interpreter's calls.

cProfile costs each Python call alike, so small functions called millions of times weigh
more under it than they do: read the split as where to look. What the interpreter itself
costs shows best as the compiled build's factor (`bench engine`). With the compiled build
(`engine.native`) the profiler sees no call between compiled functions: the split is the
pure build's (``HEARTS_ENGINE=pure``), which the bench then says.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import statistics
import time

from engine import Game, Rules, native
from engine.players import ExpertPlayer

PARTS = {
    "sampling worlds": (
        "knowledge.py",
        "random.py",
        "expert.py:inferred_weights",
        "cards.py:mask_of",
        "cards.py:lowest",
    ),
    "play-outs, the policy": (
        "smart.py",
        "standard.py",
        "shooting.py:runner_card",
        "shooting.py:stopper_card",
        "moon.py:runner",
    ),
    "play-outs, the loop": (
        "playout.py:play_out",
        "shooting.py:play_out_moon",
        "sampling.py:_play_first",
    ),
    "legal moves and tricks": ("play_rules.py",),
    "scoring": (
        "scoring.py",
        "playout.py:final_points",
        "playout.py:hand_cost",
        "expert.py:measure",
    ),
    "the others' passes": (
        "pass_rule.py:expert_pass",
        "pass_rule.py:pass_danger",
        "pass_rule.py:keep_mask",
    ),
}
REST = "the rest"

Where = tuple[str, int, str]
"""A profiled function as `pstats` names it: its file, first line and name."""


def part_of(where: Where) -> str:
    """The part of `PARTS` a function's own time counts in (`REST` when none)."""
    path, _, name = where
    file = path.rsplit("/", 1)[-1]
    for part, marks in PARTS.items():
        if file in marks or f"{file}:{name}" in marks:
            return part
    return REST


def split(stats: pstats.Stats) -> dict[str, float]:
    """Own time (s) by part; a builtin's goes to its callers' parts, by what each call
    cost."""
    own: dict[str, float] = {}
    entries = stats.stats  # type: ignore[attr-defined]
    for where, (_, _, tottime, _, callers) in entries.items():
        if where[0] == "~" and callers:
            for caller, (_, _, spent, _) in callers.items():
                part = part_of(caller)
                own[part] = own.get(part, 0.0) + spent
            attributed = sum(c[2] for c in callers.values())
            own[REST] = own.get(REST, 0.0) + max(0.0, tottime - attributed)
            continue
        part = part_of(where)
        own[part] = own.get(part, 0.0) + tottime
    return own


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


def decide(player: ExpertPlayer, game: Game, seat: int, budget: float) -> None:
    view = game.view(seat)
    if game.phase == "pass":
        player.choose_pass(view, budget)
    else:
        player.choose_play(view, budget)


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
    print(native.describe())
    if native.build() != "pure":
        print(
            "(the profiler sees no call between compiled functions: HEARTS_ENGINE=pure for a split)"
        )
    chosen = positions(args.positions, args.seed)
    times: dict[str, list[float]] = {"play": [], "pass": []}
    profiles = {phase: cProfile.Profile() for phase in times}
    for game, seat in chosen:
        start = time.perf_counter()
        decide(player, game, seat, args.budget)
        times[game.phase].append((time.perf_counter() - start) * 1000)
        profile = profiles[game.phase]
        profile.enable()
        decide(player, game, seat, args.budget)
        profile.disable()

    own: dict[str, dict[str, float]] = {}
    for phase, ms in times.items():
        if ms:
            ms.sort()
            print(
                f"{phase}: {len(ms)} decisions, median {statistics.median(ms):.0f} ms, "
                f"mean {statistics.fmean(ms):.0f} ms, longest {ms[-1]:.0f} ms"
            )
            own[phase] = split(pstats.Stats(profiles[phase]))
    print()
    print(f"{'part':<24} {'play %':>7} {'ms':>6} {'pass %':>8} {'ms':>6}")
    for part in [*PARTS, REST]:
        row = f"{part:<24}"
        for phase in times:
            if phase in own:
                share = own[phase].get(part, 0.0) / (sum(own[phase].values()) or 1.0)
                row += f" {100 * share:6.1f}% {share * statistics.fmean(times[phase]):6.1f}"
            else:
                row += f" {'-':>7} {'-':>6}"
        print(row)
    print("(ms: that share of a mean decision timed without the profiler)")

    stats = pstats.Stats(*[profiles[phase] for phase in own])
    overall = split(stats)
    total = sum(overall.values()) or 1.0
    print(f"\nevery decision:\n{'part':<24} {'share':>6}")
    for part in [*PARTS, REST]:
        print(f"{part:<24} {100 * overall.get(part, 0.0) / total:5.1f}%")
    rows = [
        (tottime, calls, f"{path.rsplit('/', 1)[-1]}:{line}({name})")
        for (path, line, name), (_, calls, tottime, _, _) in stats.stats.items()  # type: ignore[attr-defined]
    ]
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
