"""The `expert`'s rule of thumb for passing (how dangerous each card is to keep), and one
deal of the pass search.

The rule's pass is the search's first candidate (`passing`), and in the search's every
deal each other seat is taken to pass by it, so it runs thousands of times a pass; the
search then plays every candidate on the deal (`deal_costs`). Both are among the hot
modules the compiled build compiles (`engine.native`); the rest of the search stays in
`passing`.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..cards import (
    HEARTS,
    JACK_OF_DIAMONDS,
    QS_BIT,
    QUEEN_OF_SPADES,
    SPADES,
    SUIT_MASKS,
    Mask,
)
from ..rules import Rules
from ..scoring import Score, bonus_bit
from .playout import PlayOut, Policy, final_points, hand_cost


def keep_mask(rules: Rules) -> Mask:
    """Cards the rule of thumb never passes: the bonus card (Omnibus, Complex)."""
    return bonus_bit(rules) | (1 << JACK_OF_DIAMONDS if rules.variant == "complex" else 0)


def expert_pass(rules: Rules, hand: Mask) -> Mask:
    """Three cards to pass, the most dangerous to keep first."""
    keep = keep_mask(rules)
    chosen = 0
    for _ in range(3):
        best, best_score = -1, -1e9
        rest = hand & ~chosen
        m = rest
        while m:
            low = m & -m
            c = low.bit_length() - 1
            m ^= low
            score = pass_danger(c, rest, chosen, keep)
            if score > best_score:
                best, best_score = c, score
        chosen |= 1 << best
    return chosen


def pass_danger(card: int, hand: Mask, chosen: Mask, keep: Mask) -> float:
    """How dangerous ``card`` is to keep in ``hand`` once ``chosen`` are to be passed:
    the higher, the sooner it goes (a card of ``keep`` never does)."""
    suit, rank = card // 13, card % 13 + 2
    if keep >> card & 1:
        return -100.0
    spades = hand & SUIT_MASKS[SPADES]
    low_spades = spades & ~(QS_BIT | 1 << (QUEEN_OF_SPADES + 1) | 1 << (QUEEN_OF_SPADES + 2))
    guards = low_spades.bit_count()
    if card == QUEEN_OF_SPADES:
        return 100.0 if guards < 4 else -20.0
    if suit == SPADES and rank > 12:
        if hand & QS_BIT:
            return -10.0 + rank if guards >= 4 else 60.0 + rank
        return 80.0 + rank if guards < 4 else 5.0 + rank
    if suit == SPADES:
        return rank - 20.0  # low spades guard the queen
    length = (hand & SUIT_MASKS[suit]).bit_count()
    score = float(rank)
    if suit == HEARTS:
        score += 10.0 if rank >= 10 else -5.0
    elif length <= 3 - chosen.bit_count() + 1:
        score += 12.0  # empties the suit: a void to discard on
    if rank <= 5:
        score -= 10.0
    return score


def deal_costs(
    rules: Rules,
    seat: int,
    hands: Sequence[Mask],
    passes: list[Mask],
    candidates: Sequence[Mask],
    offset: int,
    first: int,
    dead: Mask,
    scores: Sequence[Score],
    playout: PlayOut,
    policies: Sequence[Policy],
    costs: list[float],
) -> None:
    """Each candidate pass's cost for ``seat`` on one deal (``hands`` before the pass,
    ``passes`` the other seats' passes, passed ``offset`` seats on; ``first`` the card that
    leads), played out by ``playout``, into ``costs`` (one place a candidate)."""
    n = rules.players
    mine = scores[seat]
    for i, candidate in enumerate(candidates):
        passes[seat] = candidate
        after = [h & ~passes[s] for s, h in enumerate(hands)]
        for s in range(n):
            after[(s + offset) % n] |= passes[s]
        leader = next(s for s in range(n) if after[s] >> first & 1)
        taken = playout(rules, after, [], leader, True, False, first, [0] * n, 0, policies)
        points = final_points(rules, taken, dead, scores)
        costs[i] = hand_cost(rules, mine, points[seat])
