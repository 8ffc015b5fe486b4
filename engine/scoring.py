"""What a hand scores, for each variant (RULES.md §5 and §6)."""

from __future__ import annotations

from collections.abc import Sequence

from .cards import (
    HEARTS_MASK,
    JACK_OF_DIAMONDS,
    POINT_CARDS,
    QS_BIT,
    TEN_OF_CLUBS,
    TEN_OF_DIAMONDS,
    Mask,
    deck_mask,
)
from .rules import MoonChoice, Rules

Score = int | complex

MOON_COMPLEX = complex(13, 13)
TWO_PLAYER_MOON = 20


def bonus_bit(rules: Rules) -> Mask:
    """The Omnibus card's bit, or 0 when the table plays without one."""
    if rules.bonus_card == "JD":
        return 1 << JACK_OF_DIAMONDS
    if rules.bonus_card == "TD":
        return 1 << TEN_OF_DIAMONDS
    return 0


def counted_cards(rules: Rules) -> Mask:
    """Every card that can change a hand's score under ``rules``: a pile with none of them
    is worth zero."""
    special = (1 << JACK_OF_DIAMONDS | 1 << TEN_OF_CLUBS) if rules.variant == "complex" else 0
    return POINT_CARDS | bonus_bit(rules) | special


def zero(rules: Rules) -> Score:
    return 0j if rules.variant == "complex" else 0


def cards_points(rules: Rules, taken: Mask) -> Score:
    """The raw value of some taken cards, before any moon: what a trick or a pile is worth."""
    hearts = (taken & HEARTS_MASK).bit_count()
    queen = 1 if taken & QS_BIT else 0
    if rules.variant == "complex":
        value = complex(hearts, 13 * queen)
        if taken & (1 << JACK_OF_DIAMONDS):
            value -= 10
        if taken & (1 << TEN_OF_CLUBS):
            value *= 2j
        return value
    points = hearts + 13 * queen
    if rules.bonus_card is not None and taken & bonus_bit(rules):
        points -= 10
    return points


def moon_shooter(rules: Rules, taken: Sequence[Mask], dead: Mask) -> int | None:
    """The seat that took every point card in play, if any did.

    In two-player Hearts the deck has only seven hearts, and dead ones are out of play.
    """
    in_play = POINT_CARDS & deck_mask(rules.players) & ~dead
    for seat, pile in enumerate(taken):
        if pile & in_play == in_play:
            return seat
    return None


def hand_points(
    rules: Rules,
    taken: Sequence[Mask],
    shooter: int | None,
    choice: MoonChoice | None,
) -> tuple[Score, ...]:
    """Each seat's points for a hand, given who shot the moon and (if asked) their choice."""
    if shooter is None:
        return tuple([cards_points(rules, pile) for pile in taken])
    if rules.variant == "two_player":
        return tuple(0 if seat == shooter else TWO_PLAYER_MOON for seat in range(len(taken)))
    if rules.variant == "complex":
        return _complex_moon(taken, shooter, choice)
    points: list[Score] = []
    bonus = bonus_bit(rules)
    for seat, pile in enumerate(taken):
        p = 0
        if choice == "subtract_from_shooter":
            p = -26 if seat == shooter else 0
        else:
            p = 0 if seat == shooter else 26
        if pile & bonus:
            p -= 10
        points.append(p)
    return tuple(points)


def _complex_moon(
    taken: Sequence[Mask], shooter: int, choice: MoonChoice | None
) -> tuple[Score, ...]:
    # The hearts-and-queen part of the shooter's hand is replaced; the J♦ and the 10♣
    # multiplier then apply to the shooter as usual. The others' +(13+13i) is added as it
    # is, never multiplied by a 10♣ they took (RULES.md §5, ruling).
    points: list[Score] = []
    for seat, pile in enumerate(taken):
        own = complex(0, 0)
        if seat == shooter and choice == "subtract_from_shooter":
            own = -MOON_COMPLEX
        if pile & (1 << JACK_OF_DIAMONDS):
            own -= 10
        if pile & (1 << TEN_OF_CLUBS):
            own *= 2j
        if seat != shooter and choice != "subtract_from_shooter":
            own += MOON_COMPLEX
        points.append(own)
    return tuple(points)


def magnitude_squared(score: Score) -> int:
    """|z|² as an exact integer (scores are Gaussian integers)."""
    if isinstance(score, complex):
        re, im = round(score.real), round(score.imag)
        return re * re + im * im
    return score * score


def rank_key(rules: Rules, score: Score) -> int:
    """What 'lowest' compares: the total itself, or |z|² in Complex Hearts."""
    if rules.variant == "complex":
        return magnitude_squared(score)
    assert isinstance(score, int)
    return score


def _goal(rules: Rules) -> int:
    """The `rank_key` at which a total has reached the target."""
    return rules.target * rules.target if rules.variant == "complex" else rules.target


def game_winners(rules: Rules, totals: Sequence[Score]) -> tuple[int, ...] | None:
    """The winners if the game ends with these totals, else None (play another hand)."""
    keys = [rank_key(rules, total) for total in totals]
    goal = _goal(rules)
    if max(keys) < goal:
        return None
    if rules.variant == "two_player":
        # The first to reach the target loses; if both do, the lower wins; equal plays on.
        a, b = keys
        if a >= goal and b >= goal:
            return None if a == b else ((0,) if a < b else (1,))
        return (1,) if a >= goal else (0,)
    low = min(keys)
    lowest = tuple(seat for seat, key in enumerate(keys) if key == low)
    if len(lowest) == 1 or rules.ties == "share":
        return lowest
    return None


def lowest(rules: Rules, totals: Sequence[Score]) -> tuple[int, ...]:
    """The seats with the lowest total (all of them on a tie): a game of fixed hands'
    winners."""
    keys = [rank_key(rules, total) for total in totals]
    low = min(keys)
    return tuple(seat for seat, key in enumerate(keys) if key == low)


def best_moon_choice(
    rules: Rules, totals: Sequence[Score], taken: Sequence[Mask], shooter: int
) -> MoonChoice:
    """The choice made for a shooter who does not choose in time (RULES.md §5, ruling).

    +26 for the others, unless that would end the game with the shooter not the sole
    lowest while -26 would not.
    """

    def hurts(choice: MoonChoice) -> bool:
        # "End the game" as the game itself decides it: a tie for lowest under play_on
        # does not end it.
        points = hand_points(rules, taken, shooter, choice)
        after = [t + p for t, p in zip(totals, points, strict=True)]
        winners = game_winners(rules, after)
        return winners is not None and winners != (shooter,)

    if hurts("add_to_others") and not hurts("subtract_from_shooter"):
        return "subtract_from_shooter"
    return "add_to_others"
