"""A sharper rule-of-thumb policy for the `expert`'s playouts, on masks.

`standard_card` (RULES.md §7) is the model every seat follows in `pro`'s playouts; its
blunders make the playouts misjudge cards: it takes a pointless spade trick with the Q♠
when last, leads the A♠ or K♠ into a live queen, and throws an A♣ away before a K♥.
`smart_card` keeps its speed and fixes those:

- Leading: the lowest card, never the Q♠, A♠ or K♠ while the queen is out, if anything
  else can be led.
- Following, not last: the highest card under the winner (which drops the Q♠ under the
  A♠ or K♠); forced to win, the lowest card that wins, but not the Q♠ while another spade
  can go.
- Following, last: with points in the trick, duck with the highest card under the
  winner, else win with the highest card but the Q♠; with no points, the highest card,
  but not a Q♠ that would take the trick.
- Void in the suit led: the Q♠; then the A♠ and K♠ while the queen is still out; then the
  highest heart unless another card is clearly higher; then the highest card.

Two-player Hearts (hearts are trumps) keeps `standard_card`.
"""

from __future__ import annotations

from typing import Final

from ..cards import HEARTS_MASK, POINT_CARDS, QS_BIT, QUEEN_OF_SPADES, SUIT_MASKS, Mask
from ..rules import Rules
from .standard import highest_valued, lowest_valued, standard_card

HIGH_SPADES: Final = 1 << (QUEEN_OF_SPADES + 1) | 1 << (QUEEN_OF_SPADES + 2)
"""The K♠ and A♠: they take the Q♠ when it is dropped under them."""
DANGER_SPADES: Final = HIGH_SPADES | QS_BIT
NON_HEARTS: Final = ((1 << 52) - 1) & ~HEARTS_MASK
_RANK_BITS: Final = 0x1FFF


def _top_rank(mask: Mask) -> int:
    """The highest rank (0 = two) of a non-empty mask, any suit."""
    return ((mask | mask >> 13 | mask >> 26 | mask >> 39) & _RANK_BITS).bit_length() - 1


def smart_card(rules: Rules, legal: Mask, trick: list[int], hand: Mask, played: Mask) -> int:
    """The card to play from ``legal``; ``played`` is every card played this hand (the
    trick included), ``hand`` this seat's cards."""
    if rules.variant == "two_player":
        return standard_card(rules, legal, trick)
    queen_live = not played & QS_BIT
    if not trick:
        if queen_live:
            safe = legal & ~DANGER_SPADES
            if safe:
                return lowest_valued(safe)
        return lowest_valued(legal)
    led = SUIT_MASKS[trick[0] // 13]
    follow = legal & led
    if not follow:
        if legal & QS_BIT:
            return QUEEN_OF_SPADES
        if queen_live and legal & HIGH_SPADES:
            return (legal & HIGH_SPADES).bit_length() - 1
        hearts = legal & HEARTS_MASK
        if hearts:
            others = legal & NON_HEARTS
            top = hearts.bit_length() - 1
            if not others or top - 39 >= _top_rank(others) - 2:
                return top
            return highest_valued(others)
        return highest_valued(legal)
    trick_mask = 0
    for c in trick:
        trick_mask |= 1 << c
    # The highest card of the suit led takes the trick (no trumps outside two-player).
    winner = (trick_mask & led).bit_length() - 1
    under = follow & ((1 << winner) - 1)
    if len(trick) < rules.players - 1:
        if under:
            return under.bit_length() - 1
        over = follow & ~QS_BIT or follow
        return (over & -over).bit_length() - 1
    if trick_mask & POINT_CARDS:
        if under:
            return under.bit_length() - 1
        others = follow & ~QS_BIT
        return (others or follow).bit_length() - 1
    top = follow.bit_length() - 1
    if top == QUEEN_OF_SPADES and winner < QUEEN_OF_SPADES:
        others = follow & ~QS_BIT
        if others:
            return others.bit_length() - 1
    return top
