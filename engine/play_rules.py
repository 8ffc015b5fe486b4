"""The rules of one card to a trick, as pure functions on masks.

`Game` and the computer players' fast playouts both use these, so there is one copy of
what is legal and who takes a trick.
"""

from __future__ import annotations

from .cards import HEARTS, HEARTS_MASK, POINT_CARDS, QS_BIT, QUEEN_OF_SPADES, SUIT_MASKS, Mask
from .rules import Rules


def legal_mask(
    rules: Rules,
    hand: Mask,
    trick: list[int],
    first_trick: bool,
    hearts_broken: bool,
    first_lead: int,
) -> Mask:
    """The cards of ``hand`` that may be played to ``trick`` (card indices in play order).

    ``first_lead`` is the lowest club in play, which must lead the hand's first trick.
    """
    if trick:
        allowed = hand & SUIT_MASKS[trick[0] // 13] or hand
        if first_trick and rules.no_points_on_first_trick and rules.variant != "two_player":
            # A hand with nothing else legal may play any point card (RULES.md §4.3, ruling).
            allowed = allowed & ~POINT_CARDS or allowed
        return allowed
    if first_trick:
        return hand & (1 << first_lead)
    if hearts_broken:
        return hand
    others = hand & ~HEARTS_MASK
    if rules.variant == "two_player":
        return others or hand
    # Hearts may be led unbroken only from a hand of hearts, or hearts and Q♠.
    return others if others & ~QS_BIT else hand


def breaking_cards(rules: Rules) -> Mask:
    """The cards that break hearts whenever they are played (RULES.md §4.5, §6)."""
    if rules.queen_breaks_hearts and rules.variant != "two_player":
        return HEARTS_MASK | QS_BIT
    return HEARTS_MASK


def breaks_hearts(rules: Rules, card: int, led_suit: int | None) -> bool:
    """Whether playing ``card`` (to a trick led in ``led_suit``, None when leading) breaks
    hearts. Two-player Hearts also breaks them when someone holds only hearts."""
    suit = card // 13
    if rules.variant == "two_player":
        return suit == HEARTS or (led_suit is not None and suit != led_suit)
    return suit == HEARTS or (card == QUEEN_OF_SPADES and rules.queen_breaks_hearts)


def winning_card(rules: Rules, trick: list[int], mask: Mask) -> int:
    """The card taking ``trick`` so far (complete or not; ``mask`` holds its cards): the
    highest card of the suit led, or in two-player Hearts the highest heart (RULES.md §4.4,
    §8)."""
    hearts = mask & HEARTS_MASK
    if rules.variant == "two_player" and hearts:
        return hearts.bit_length() - 1
    return (mask & SUIT_MASKS[trick[0] // 13]).bit_length() - 1


def trick_winner_position(rules: Rules, trick: list[int], mask: Mask) -> int:
    """The position in ``trick`` (0 = the lead) of the card that takes it."""
    # `winning_card` inlined: the playouts call this once a trick.
    hearts = mask & HEARTS_MASK
    if hearts and rules.variant == "two_player":
        return trick.index(hearts.bit_length() - 1)
    return trick.index((mask & SUIT_MASKS[trick[0] // 13]).bit_length() - 1)
