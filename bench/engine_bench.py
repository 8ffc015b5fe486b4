"""Random full hands per second for every variant, and OpenSpiel's C++ hearts beside ours;
with the compiled build (`engine.native`, `./dev build`), the `expert`'s decisions per
second pure and compiled side by side, and the factor.

OpenSpiel and ours do the same work: deal, pass three random cards each (where the hand
passes), and play random legal cards to the end of the hand, driven from Python.

Pure against compiled: two processes of this benchmark, one with ``HEARTS_ENGINE=pure``
(the sources, though the build is present), take turns (``--rounds`` each, the best of
each side counted, so a change in the machine's load hits both alike). Each times the
same `expert` decisions, steady at ``--deals`` deals a play (so both do the same work and
decide the same), over the positions `bench profile` profiles, and random hands.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable

from engine import Game, Rules, native
from engine.players import ExpertPlayer

from .profile_bench import positions

VARIANTS: dict[str, Rules] = {
    "4 players": Rules(players=4),
    "3 players": Rules(players=3),
    "5 players": Rules(players=5),
    "6 players": Rules(players=6),
    "omnibus (J♦)": Rules(bonus_card="JD"),
    "complex": Rules(variant="complex"),
    "two-player": Rules(players=2, variant="two_player"),
}


def our_hands(rules: Rules, hands: int, seed: int = 1) -> int:
    """Play ``hands`` random full hands; returns the hands played.

    The loop is as plain as OpenSpiel's below: look at the phase, list the legal moves,
    pick one at random, apply it.
    """
    rng = random.Random(seed)
    choice, sample = rng.choice, rng.sample
    game = Game(rules, seed=seed, first_dealer=0)
    finished = 0  # hands of the games already over
    while True:
        phase = game.phase
        if phase == "play":
            game.play(game.current_player, choice(game.legal_plays()))  # type: ignore[arg-type]
            continue
        done = finished + len(game.hand_history)
        if done >= hands:
            return done
        if phase == "over":
            finished = done
            game = Game(rules, seed=rng.randrange(1 << 30), first_dealer=0)
        elif phase == "pass":
            for seat in game.waiting_for():
                game.pass_cards(seat, sample(game.hand(seat), 3))
        else:
            shooter = game.current_player
            assert shooter is not None
            game.choose_moon(shooter, "add_to_others")


def open_spiel_hands(hands: int, seed: int = 1) -> int:
    import pyspiel

    game = pyspiel.load_game("hearts")
    rng = random.Random(seed)
    for _ in range(hands):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
    return hands


def rate(run: Callable[[], int], seconds: float) -> float:
    """Hands per CPU second: repeat ``run`` for about ``seconds``, best of the rounds.

    CPU time of this process, not wall time: both sides run single-threaded here, and
    other work on the machine then disturbs the figures much less.
    """
    best = 0.0
    deadline = time.perf_counter() + seconds
    while True:
        t0 = time.process_time()
        n = run()
        dt = time.process_time() - t0
        best = max(best, n / dt)
        if time.perf_counter() > deadline:
            return best


FIGURES = {
    "hands": "random 4-player hands per CPU second",
    "play": "expert plays per CPU second",
    "pass": "expert passes per CPU second",
}


def one_side(decisions: int, deals: int, batch: int) -> dict[str, float]:
    """This process's figures (`FIGURES`), one round each: the `expert`'s decisions per
    CPU second over the first ``decisions`` positions of `bench profile`, and random hands."""
    player = ExpertPlayer(seed=1, deals=deals, steady=True)
    spent = {"play": 0.0, "pass": 0.0}
    count = {"play": 0, "pass": 0}
    for game, seat in positions(decisions, 1):
        view = game.view(seat)
        start = time.process_time()
        if game.phase == "pass":
            player.choose_pass(view)
        else:
            player.choose_play(view)
        spent[game.phase] += time.process_time() - start
        count[game.phase] += 1
    figures = {phase: count[phase] / spent[phase] for phase in spent if spent[phase]}
    start = time.process_time()
    figures["hands"] = our_hands(VARIANTS["4 players"], batch) / (time.process_time() - start)
    return figures


def pure_and_compiled(rounds: int, decisions: int, deals: int, batch: int) -> None:
    """Both builds side by side, in turns, and the factor (see the module docstring)."""
    best: dict[str, dict[str, float]] = {"pure": {}, "compiled": {}}
    command = [sys.executable, "-m", "bench.engine_bench", "--side"]
    command += ["--decisions", str(decisions), "--deals", str(deals), "--batch", str(batch)]
    for _ in range(rounds):
        for side in best:
            env = dict(os.environ)
            env.pop(native.ENVIRONMENT, None)
            if side == "pure":
                env[native.ENVIRONMENT] = "pure"
            done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
            answer = json.loads(done.stdout.splitlines()[-1])
            if answer.pop("build") != side:
                sys.exit(f"the {side} side ran another build: {done.stdout}")
            for name, value in answer.items():
                best[side][name] = max(best[side].get(name, 0.0), value)
    print()
    print(
        f"pure against compiled, side by side (best of {rounds} alternating rounds, "
        f"{decisions} positions, {deals} deals a play):"
    )
    print(f"  {'':<40}{'pure':>10}{'compiled':>10}{'factor':>8}")
    for name, label in FIGURES.items():
        pure, compiled = best["pure"].get(name), best["compiled"].get(name)
        if pure and compiled:
            print(f"  {label:<40}{pure:>10.2f}{compiled:>10.2f}{compiled / pure:>7.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--batch", type=int, default=200, help="hands per timed round")
    parser.add_argument("--rounds", type=int, default=8, help="alternating rounds per side")
    parser.add_argument("--decisions", type=int, default=24, help="expert positions timed")
    parser.add_argument("--deals", type=int, default=200, help="deals an expert play")
    parser.add_argument("--build-rounds", type=int, default=3, help="pure/compiled rounds")
    parser.add_argument("--side", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.side:  # one round of `pure_and_compiled`, in a process of its own
        figures: dict[str, object] = {"build": native.build()}
        figures.update(one_side(args.decisions, args.deals, args.batch))
        print(json.dumps(figures))
        return

    print(native.describe())
    if native.build() == "compiled":
        pure_and_compiled(args.build_rounds, args.decisions, args.deals, args.batch)
    else:
        print("no compiled build in this process: pure Python only (./dev build compiles it)")
    print()

    print(f"{'variant':<16}{'hands/s':>10}   (per CPU second)")
    for name, rules in VARIANTS.items():
        r = rate(lambda rules=rules: our_hands(rules, args.batch), args.seconds)  # type: ignore[misc]
        print(f"{name:<16}{r:>10.0f}")
    try:
        open_spiel_hands(1)
    except ImportError:
        print("OpenSpiel is not installed (./dev bench installs it): no comparison")
        return
    # Rounds of the two alternate, so a change in the machine's load hits both alike.
    ours = theirs = 0.0
    for _ in range(args.rounds):
        ours = max(ours, rate(lambda: our_hands(VARIANTS["4 players"], args.batch), 0.5))
        theirs = max(theirs, rate(lambda: open_spiel_hands(args.batch), 0.5))
    print()
    print(
        f"4-player random full hands per second, side by side (best of {args.rounds} "
        "alternating rounds):"
    )
    print(f"  ours (engine.Game)         {ours:10.0f}")
    print(f"  OpenSpiel C++ hearts       {theirs:10.0f}")
    print(f"  ratio ours / OpenSpiel     {ours / theirs:10.2f}")


if __name__ == "__main__":
    main()
