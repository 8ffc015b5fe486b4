"""Flat Monte Carlo over deals: the engine of `pro` and `expert`.

For each sampled deal of the unseen cards, every legal card is tried and the hand played
out; the same deals serve every card, so the comparison is fair. The number of deals is
fixed by the player's settings, so a decision is deterministic; the time budget is a
safety net that stops early (after at least one deal) if the machine is too slow.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence

from ..cards import Mask
from ..play_rules import breaks_hearts, trick_winner_position
from ..rules import Rules
from ..scoring import Score
from .knowledge import Knowledge
from .playout import PlayOut, Policy, final_points, play_out

Utility = Callable[[tuple[Score, ...]], float]
"""A hand's points for every seat -> the cost to the deciding seat (lower is better)."""


def evaluate_cards(
    rules: Rules,
    know: Knowledge,
    legal: Mask,
    rng: random.Random,
    deals: int,
    policies: Sequence[Policy],
    utility: Utility,
    deadline: float,
    weights: list[list[float]] | None = None,
    totals: Sequence[Score] = (),
) -> dict[int, float]:
    """The average cost of each legal card over ``deals`` sampled deals."""
    outcomes = evaluate_outcomes(
        rules, know, legal, rng, deals, policies, lambda p: (utility(p),), deadline, weights, totals
    )
    return {c: v[0] for c, v in outcomes.items()}


def evaluate_outcomes(
    rules: Rules,
    know: Knowledge,
    legal: Mask,
    rng: random.Random,
    deals: int,
    policies: Sequence[Policy],
    measure: Callable[[tuple[Score, ...]], Sequence[float]],
    deadline: float,
    weights: list[list[float]] | None = None,
    totals: Sequence[Score] = (),
    playout: PlayOut = play_out,
    alternative: tuple[PlayOut, float, random.Random] | None = None,
) -> dict[int, list[float]]:
    """The average of each figure ``measure`` gives a hand's points, for each legal card,
    over ``deals`` sampled deals (the same deals for every card), each played out by
    ``playout``. ``alternative``: another playout, its share of the deals and the generator
    that picks them: each deal is played out by it with that chance (every card of the deal
    the same way), so the figures are a mixture of the two models of the table."""
    cards = []
    m = legal
    while m:
        low = m & -m
        cards.append(low.bit_length() - 1)
        m ^= low
    sums: dict[int, list[float]] = {}
    done = 0
    n = rules.players
    seat = know.seat
    for _ in range(deals):
        hands = know.sample(rng, weights)
        dead = hands[n]
        way = playout
        if alternative is not None and alternative[2].random() < alternative[1]:
            way = alternative[0]
        for card in cards:
            hs = hands[:n]
            taken = list(know.taken)
            trick = list(know.trick)
            bit = 1 << card
            hs[seat] ^= bit
            hearts_broken = know.hearts_broken
            # The first card goes through the same playout loop: put it in by hand.
            taken = _play_first(rules, know, hs, trick, card, taken, hearts_broken, policies, way)
            figures = measure(final_points(rules, taken, dead, totals))
            total = sums.get(card)
            if total is None:
                sums[card] = list(figures)
            else:
                for i, x in enumerate(figures):
                    total[i] += x
        done += 1
        if time.perf_counter() > deadline:
            break
    return {c: [x / done for x in s] for c, s in sums.items()}


def _play_first(
    rules: Rules,
    know: Knowledge,
    hands: list[Mask],
    trick: list[int],
    card: int,
    taken: list[Mask],
    hearts_broken: bool,
    policies: Sequence[Policy],
    playout: PlayOut,
) -> list[Mask]:
    n = rules.players
    if not hearts_broken and breaks_hearts(rules, card, trick[0] // 13 if trick else None):
        hearts_broken = True
    trick.append(card)
    played = know.played | 1 << card
    leader = know.leader
    first_trick = know.first_trick
    if len(trick) == n:
        mask = 0
        for c in trick:
            mask |= 1 << c
        winner = (leader + trick_winner_position(rules, trick, mask)) % n
        taken[winner] |= mask
        trick.clear()
        leader = winner
        first_trick = False
    return playout(
        rules,
        hands,
        trick,
        leader,
        first_trick,
        hearts_broken,
        know.first_lead,
        taken,
        played,
        policies,
    )


def pick(costs: dict[int, float], preferred: int) -> int:
    """The card of lowest cost; on a tie, ``preferred`` if it is among the best, else the
    lowest card index (so a decision never depends on dict order)."""
    best = min(costs.values())
    tied = [c for c, v in costs.items() if v <= best + 1e-9]
    return preferred if preferred in tied else min(tied)
