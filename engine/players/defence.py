"""Stopping an obvious run for the moon: the `standard` and `pro` players' guard.

Issue 51: a trivial player (it passed its three right-most cards and played its first legal
card) shot the moon twice in a row against the `standard` computers, who threw the A♥ and
K♥ onto its winning spades. Their rules of thumb (RULES.md §7) know nothing of the moon,
and `pro`'s playouts play every seat by the same rules, so they never see one coming.

While another seat holds every point card taken this hand (the *runner*), a seat gives it
no more and keeps its hearts to stop it with:

- Void in the suit led, the runner already beaten in this trick: a point card (the Q♠,
  else the highest heart) for the seat winning it. Void otherwise (the runner winning, or
  still to play): no point card, while it has another (the highest-ranked); with only
  point cards, its lowest heart (its high hearts may take a heart trick from it later).

Once the runner holds enough to be running (`STOP_FROM`, in `moon.runner`'s weight: hearts
one each, the Q♠ two), it also spends cards to stop it:

- Leading: its highest heart when no heart still out is higher (it takes a heart).
- Following, the runner winning the trick: the lowest card that takes it (not the Q♠ while
  another does), unless it plays last to a trick with no points in it.
- Following hearts before the runner has played: its highest heart, to take the trick.

Everything else is left to the seat's own rules. It reads only the seat's view.
"""

from __future__ import annotations

from ..cards import (
    CARDS,
    HEARTS,
    HEARTS_MASK,
    POINT_CARDS,
    QS_BIT,
    QUEEN_OF_SPADES,
    SUIT_MASKS,
    Card,
)
from ..play_rules import trick_winner_position
from ..view import SeatView
from .moon import runner, taken_masks

STOP_FROM = 2
"""How much the runner must hold (`moon.runner`'s weight: hearts one each, the Q♠ two) for
the others to spend cards stopping it."""


def defence_card(view: SeatView) -> Card | None:
    """The card that stops another seat's run for the moon, or None to play as usual (no
    run, or nothing here to stop it with)."""
    rules = view.rules
    legal = view.legal_mask
    if rules.variant == "two_player" or not legal & (legal - 1):
        return None
    taken = taken_masks(view)
    run = runner(taken, 1)
    if run is None or run == view.seat:
        return None
    obvious = runner(taken, STOP_FROM) == run
    seats = [s for s, _ in view.trick]
    trick = [c.index for _, c in view.trick]
    if not trick:
        hearts = legal & HEARTS_MASK
        if not obvious or not hearts:
            return None
        top = hearts.bit_length() - 1
        out = HEARTS_MASK & ~view.played_mask & ~view.hand_mask
        return CARDS[top] if not out >> top else None
    mask = 0
    for c in trick:
        mask |= 1 << c
    at = trick_winner_position(rules, trick, mask)
    winning = trick[at]
    follow = legal & SUIT_MASKS[trick[0] // 13]
    if follow:
        if not obvious:
            return None
        if seats[at] == run:
            if len(trick) == view.players - 1 and not mask & POINT_CARDS:
                return None  # last to a trick with no points: it costs the run nothing
            over = follow & ~((1 << (winning + 1)) - 1)
            cheap = over & ~QS_BIT or over
            return CARDS[(cheap & -cheap).bit_length() - 1] if cheap else None
        if run not in seats and trick[0] // 13 == HEARTS:
            return CARDS[follow.bit_length() - 1]
        return None
    if run in seats and seats[at] != run:
        if legal & QS_BIT:
            return CARDS[QUEEN_OF_SPADES]
        hearts = legal & HEARTS_MASK
        return CARDS[hearts.bit_length() - 1] if hearts else None
    safe = legal & ~POINT_CARDS
    if safe == legal:
        return None
    if not safe:  # hearts only (and perhaps the Q♠): the lowest, the high ones stop it later
        hearts = legal & HEARTS_MASK
        return CARDS[(hearts & -hearts).bit_length() - 1] if hearts else None
    return max((c for c in CARDS if safe >> c.index & 1), key=lambda c: (c.index % 13, c.index))
