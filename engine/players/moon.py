"""Choosing between "−26 for me" and "+26 for everyone else" after shooting the moon, and
who is on course to shoot it (`runner`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from ..cards import HEARTS_MASK, POINT_CARDS, QS_BIT, Mask
from ..rules import MoonChoice
from ..scoring import Score, best_moon_choice, game_winners, hand_points, rank_key
from ..view import SeatView

RUN_FROM: Final = 4
"""How much a seat must have taken, all the points taken so far, to be the runner: hearts
count one each, the Q♠ `QUEEN_WEIGHT`."""
QUEEN_WEIGHT: Final = 2


def runner(taken: Sequence[Mask], run_from: int = RUN_FROM) -> int | None:
    """The seat on course for the moon: it took every point card taken so far, and enough
    of them (``run_from``)."""
    points = 0
    for pile in taken:
        points |= pile & POINT_CARDS
    if not points:
        return None
    weight = (points & HEARTS_MASK).bit_count() + (QUEEN_WEIGHT if points & QS_BIT else 0)
    if weight < run_from:
        return None
    for seat, pile in enumerate(taken):
        if pile & POINT_CARDS == points:
            return seat
    return None


def taken_masks(view: SeatView) -> list[int]:
    """What each seat has taken this hand, rebuilt from the finished tricks."""
    taken = [0] * view.players
    for t in view.tricks:
        for _, c in t.plays:
            taken[t.winner] |= 1 << c.index
    return taken


def default_moon_choice(view: SeatView) -> MoonChoice:
    """The rule book's choice for a shooter who does not choose (RULES.md §5, ruling)."""
    return best_moon_choice(view.rules, view.scores, taken_masks(view), view.seat)


def best_standing_choice(view: SeatView) -> MoonChoice:
    """The option that leaves this seat best placed: a won game first, then the gap to the
    lowest of the others (by |z| in Complex Hearts), then the rule book's default."""
    rules = view.rules
    taken = taken_masks(view)
    me = view.seat

    def standing(choice: MoonChoice) -> tuple[int, float]:
        points = hand_points(rules, taken, me, choice)
        after: list[Score] = [t + p for t, p in zip(view.scores, points, strict=True)]
        winners = game_winners(rules, after)
        keys = [float(rank_key(rules, t)) for t in after]
        if rules.variant == "complex":
            keys = [k**0.5 for k in keys]
        gap = keys[me] - min(k for s, k in enumerate(keys) if s != me)
        if winners is None:
            return (1, gap)
        return (0 if winners == (me,) else 2 if me not in winners else 1, gap)

    default = default_moon_choice(view)
    other: MoonChoice = "subtract_from_shooter" if default == "add_to_others" else "add_to_others"
    return other if standing(other) < standing(default) else default
