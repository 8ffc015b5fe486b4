"""Playing a hand out fast, on masks, for the sampling players.

No `Game`, no `Card` objects: hands are int masks and a trick is a list of card indices.
What is legal, what breaks hearts and who takes a trick come from `play_rules`, so the
playouts follow the same rules as the game.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..cards import HEARTS_MASK, SUIT_MASKS, Mask
from ..play_rules import breaking_cards, breaks_hearts, legal_mask, trick_winner_position
from ..rules import Rules
from ..scoring import Score, best_moon_choice, hand_points, moon_shooter
from .smart import smart_card
from .standard import standard_card

Policy = Callable[[Rules, Mask, list[int], Mask, Mask], int]
"""(rules, legal, trick, hand, played this hand) -> the card to play, one of ``legal``.
The playouts do not ask a policy when only one card is legal."""
PlayOut = Callable[
    [Rules, list[Mask], list[int], int, bool, bool, int, list[Mask], Mask, Sequence[Policy]],
    list[Mask],
]
"""A way to play a hand to its end: `play_out`'s arguments and result."""


def standard_policy(rules: Rules, legal: Mask, trick: list[int], hand: Mask, played: Mask) -> int:
    return standard_card(rules, legal, trick)


def play_out(
    rules: Rules,
    hands: list[Mask],
    trick: list[int],
    leader: int,
    first_trick: bool,
    hearts_broken: bool,
    first_lead: int,
    taken: list[Mask],
    played: Mask,
    policies: Sequence[Policy],
) -> list[Mask]:
    """Play the hand to its end from this position; ``hands``, ``trick`` and ``taken`` are
    changed in place. Returns ``taken``. ``policies`` gives each seat's policy."""
    n = rules.players
    two_player = rules.variant == "two_player"
    breaking = breaking_cards(rules)
    seat = (leader + len(trick)) % n
    mask = 0  # the trick's cards, kept as they are played
    for c in trick:
        mask |= 1 << c
    while True:
        if two_player and not hearts_broken:
            for h in hands[:n]:
                if h and not h & ~HEARTS_MASK:
                    hearts_broken = True
        hand = hands[seat]
        if not hand:
            return taken
        if first_trick:
            legal = legal_mask(rules, hand, trick, first_trick, hearts_broken, first_lead)
        elif trick:
            legal = hand & SUIT_MASKS[trick[0] // 13] or hand  # `legal_mask`'s common cases
        elif hearts_broken:
            legal = hand
        else:
            legal = legal_mask(rules, hand, trick, first_trick, hearts_broken, first_lead)
        if legal & (legal - 1):
            policy = policies[seat]
            if policy is smart_card:  # the `expert`'s: a direct call, compiled
                card = smart_card(rules, legal, trick, hand, played)
            else:
                card = policy(rules, legal, trick, hand, played)
            bit = 1 << card
        else:  # one legal card: every policy plays it
            bit = legal
            card = bit.bit_length() - 1
        hands[seat] = hand ^ bit
        played |= bit
        if not hearts_broken and (
            bit & breaking
            or (two_player and breaks_hearts(rules, card, trick[0] // 13 if trick else None))
        ):
            hearts_broken = True
        trick.append(card)
        mask |= bit
        if len(trick) < n:
            seat = (seat + 1) % n
            continue
        if two_player:
            winner = (leader + trick_winner_position(rules, trick, mask)) % n
        else:  # `trick_winner_position` without trumps: the highest card of the suit led
            winner = (
                leader + trick.index((mask & SUIT_MASKS[trick[0] // 13]).bit_length() - 1)
            ) % n
        taken[winner] |= mask
        trick.clear()
        mask = 0
        leader = seat = winner
        first_trick = False


def final_points(
    rules: Rules, taken: Sequence[Mask], dead: Mask, totals: Sequence[Score]
) -> tuple[Score, ...]:
    """Each seat's points for the hand; a shooter takes the rule book's default choice."""
    shooter = moon_shooter(rules, taken, dead)
    if shooter is None or rules.variant == "two_player":
        return hand_points(rules, taken, shooter, None)
    choice = rules.moon
    if choice == "choose":
        choice = best_moon_choice(rules, totals, taken, shooter)
    return hand_points(rules, taken, shooter, choice)


def magnitude(score: Score) -> float:
    return abs(score)


def hand_cost(rules: Rules, total: Score, points: Score) -> float:
    """How much a hand's points hurt a seat: the points themselves, or in Complex Hearts
    how much they grow the magnitude of its total."""
    if rules.variant == "complex":
        return abs(total + points) - abs(total)
    return float(points)  # type: ignore[arg-type]
