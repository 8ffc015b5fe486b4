"""The `standard` player of RULES.md §7, and its rules of thumb as fast mask functions.

The playouts of `pro` and `expert` call `standard_card` thousands of times a decision, so
it works on masks and card indices only.

Interpretations (RULES.md §7 leaves these open):
- A card's value is its rank, ties broken by suit ♠ > ♥ > ♦ > ♣; "lowest" and "highest"
  card mean lowest and highest value, always among the cards legal to play.
- "2nd or 3rd" means neither leading nor last, so it also covers seats 2..n-1 with five or
  six players; two players have only "leading" and "last".
- "Void" (cannot follow the suit led) is checked before the seat's position.
- "Points in the trick" means a heart or the Q♠ in it (the cards that cost points).
- A card "takes the trick" if it would be the winning card were the trick to end now
  (`play_rules.winning_card`), so a heart trumps in two-player Hearts.
"""

from __future__ import annotations

from typing import Final

from ..cards import CARDS, POINT_CARDS, QS_BIT, QUEEN_OF_SPADES, SUIT_MASKS, Card, Mask, cards_of
from ..play_rules import winning_card
from ..rules import Rules
from ..view import SeatView
from .moon import best_standing_choice

# Suit preference for equal ranks, highest first: ♠ ♥ ♦ ♣ (suit indices 2, 3, 1, 0).
SUITS_HIGH_FIRST: Final = (2, 3, 1, 0)
SUITS_LOW_FIRST: Final = (0, 1, 3, 2)
_RANK_BITS: Final = 0x1FFF


def card_value(card: int) -> int:
    """A card's value for passing and discarding: rank first, then ♠ > ♥ > ♦ > ♣."""
    return _VALUE[card]


_SUIT_RANKING: Final = {0: 0, 1: 1, 3: 2, 2: 3}  # ♣ ♦ ♥ ♠
_VALUE: Final = tuple((c % 13) * 4 + _SUIT_RANKING[c // 13] for c in range(52))


def highest_valued(mask: Mask) -> int:
    """The highest-valued card of a non-empty mask."""
    ranks = (mask | mask >> 13 | mask >> 26 | mask >> 39) & _RANK_BITS
    if not ranks:
        raise ValueError("empty mask")
    r = ranks.bit_length() - 1
    # The suits of that rank by `SUITS_HIGH_FIRST`: ♠ ♥ ♦ ♣.
    if mask >> (26 + r) & 1:
        return 26 + r
    if mask >> (39 + r) & 1:
        return 39 + r
    if mask >> (13 + r) & 1:
        return 13 + r
    return r


def lowest_valued(mask: Mask) -> int:
    """The lowest-valued card of a non-empty mask."""
    ranks = (mask | mask >> 13 | mask >> 26 | mask >> 39) & _RANK_BITS
    if not ranks:
        raise ValueError("empty mask")
    r = (ranks & -ranks).bit_length() - 1
    # The suits of that rank by `SUITS_LOW_FIRST`: ♣ ♦ ♥ ♠.
    if mask >> r & 1:
        return r
    if mask >> (13 + r) & 1:
        return 13 + r
    if mask >> (39 + r) & 1:
        return 39 + r
    return 26 + r


def standard_pass(hand: Mask) -> Mask:
    """The three highest-valued cards of ``hand``."""
    chosen = 0
    for _ in range(3):
        chosen |= 1 << highest_valued(hand & ~chosen)
    return chosen


def standard_card(rules: Rules, legal: Mask, trick: list[int]) -> int:
    """The `standard` player's card from the ``legal`` ones, ``trick`` the cards so far."""
    if not trick:
        return lowest_valued(legal)
    led = SUIT_MASKS[trick[0] // 13]
    if not legal & led:
        # Void in the suit led: the Q♠ first, then the highest-valued card.
        if legal & QS_BIT:
            return QUEEN_OF_SPADES
        return highest_valued(legal)
    trick_mask = 0
    for c in trick:
        trick_mask |= 1 << c
    winner = winning_card(rules, trick, trick_mask)
    # Following a trick trumped by a heart (two-player), nothing we play takes it.
    under = legal & ((1 << winner) - 1) if legal & SUIT_MASKS[winner // 13] else legal
    if len(trick) < rules.players - 1:
        if under:
            return under.bit_length() - 1
        return (legal & -legal).bit_length() - 1
    if trick_mask & POINT_CARDS:
        if under:
            return under.bit_length() - 1
        others = legal & ~QS_BIT
        return (others or legal).bit_length() - 1
    return legal.bit_length() - 1


class StandardPlayer:
    """Passes its three highest-valued cards; plays by the rules of thumb of RULES.md §7."""

    level = "standard"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def choose_pass(self, view: SeatView, budget_ms: float = 300) -> list[Card]:
        return cards_of(standard_pass(view.hand_mask))

    def choose_play(self, view: SeatView, budget_ms: float = 300) -> Card:
        trick = [c.index for _, c in view.trick]
        return CARDS[standard_card(view.rules, view.legal_mask, trick)]

    def choose_moon(self, view: SeatView, budget_ms: float = 300) -> str:
        return best_standing_choice(view)
