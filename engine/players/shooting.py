"""Moon-aware playouts for the `expert`: a seat on course for the moon plays for it, and
the others stop it.

`smart_card` plays every seat as if it only ever avoided points, so in plain playouts a
moon almost never happens: the `expert` neither saw one coming against it (it fed the
shooter its hearts and let it run) nor planned its own. Here, at the start of every trick,
a seat that has taken every point card taken so far, and at least `RUN_FROM` of them
(hearts, the Q♠ counting `moon.QUEEN_WEIGHT`), is the *runner* (`moon.runner`):

- the runner leads its highest card; following, it takes the trick when it can (last to
  play with the lowest card that takes it, else with its highest card of the suit), and
  ducks with its lowest card when it cannot; void, it throws its lowest card that is not
  a point card (so no point goes to another seat);
- the stopper (the `expert`'s own seat; every other seat when none is named), once the
  runner's card is winning a trick with points in it, takes the trick if it can (with the
  lowest card that does, the Q♠ last), and, void while the runner wins a trick without
  points yet, throws a card that is not a point card. The `expert` names itself: the
  others are modelled as not defending (measured against xinxin on 20 deals of seed 1,
  the `expert` suffered 12 moons in 80 games so, 14 when every seat stopped, 17 before
  the moon-aware playouts: small numbers, but the same direction).

The `expert` plays a share of its deals out this way while another seat holds every point
taken so far (`threat`): the share is how likely that seat is to be running (`RUN_CHANCE`),
and the seat runs from its first point.

The run ends as soon as another seat takes a point card (nobody then holds them all).
The runner's cost of a failed run and the others' cost of stopping it are then in the
playouts' points like any others. Two-player and Complex Hearts keep the plain playout.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from ..cards import HEARTS_MASK, POINT_CARDS, QS_BIT, SUIT_MASKS, Mask
from ..play_rules import breaking_cards, breaks_hearts, legal_mask, trick_winner_position
from ..rules import Rules
from .moon import RUN_FROM, runner
from .playout import Policy
from .smart import smart_card
from .standard import highest_valued, lowest_valued

RUN_CHANCE: Final = (
    # points held:  1-3   4-7   8-12 13-16  17+
    (0.05, 0.15, 0.25, 0.20, 0.40),  # 1-3 tricks played
    (0.05, 0.15, 0.30, 0.25, 0.50),  # 4-6
    (0.05, 0.20, 0.40, 0.35, 0.60),  # 7-9
    (0.10, 0.30, 0.50, 0.50, 0.80),  # 10-12
)
"""How likely a seat that holds every point taken so far is to be running for the moon,
by the tricks played and the points it holds (hearts one each, the Q♠ 13). Set by hand as
a first guess (in xinxin's own play about one hand in five is a moon, but too few hands
were counted to fill the table from them), and measured as set, not tuned (README,
"Strength")."""


def threat(taken: Sequence[Mask], tricks: int, seat: int) -> tuple[int, float] | None:
    """Another seat than ``seat`` holding every point taken so far, after ``tricks``
    finished tricks, and how likely it is to be running for the moon (`RUN_CHANCE`); None
    when no other seat holds them all."""
    run = runner(taken, 1)
    if run is None or run == seat or not 0 < tricks < 13:
        return None
    points = taken[run] & POINT_CARDS
    held = (points & HEARTS_MASK).bit_count() + (13 if points & QS_BIT else 0)
    band = 0 if held < 4 else 1 if held < 8 else 2 if held < 13 else 3 if held < 17 else 4
    return run, RUN_CHANCE[min(3, (tricks - 1) // 3)][band]


def runner_card(rules: Rules, legal: Mask, trick: list[int]) -> int:
    """The runner's card: take every trick it can, give no point away."""
    if not trick:
        return highest_valued(legal)
    follow = legal & SUIT_MASKS[trick[0] // 13]
    if not follow:
        safe = legal & ~POINT_CARDS
        return lowest_valued(safe or legal)
    mask = 0
    for c in trick:
        mask |= 1 << c
    winner = trick[trick_winner_position(rules, trick, mask)]
    over = follow & ~((1 << (winner + 1)) - 1)
    if not over:
        return (follow & -follow).bit_length() - 1
    if len(trick) == rules.players - 1:
        return (over & -over).bit_length() - 1
    return follow.bit_length() - 1


def stopper_card(rules: Rules, legal: Mask, trick: list[int], leader: int, run: int) -> int | None:
    """Another seat's card while ``run`` runs, or None to play as usual: take a trick with
    points the runner is winning, and give it no point while it wins one without."""
    position = (run - leader) % rules.players
    if position >= len(trick):
        return None
    mask = 0
    for c in trick:
        mask |= 1 << c
    at = trick_winner_position(rules, trick, mask)
    if at != position:
        return None
    follow = legal & SUIT_MASKS[trick[0] // 13]
    if mask & POINT_CARDS:
        if not follow:
            return None
        over = follow & ~((1 << (trick[at] + 1)) - 1)
        if not over:
            return None
        cheap = over & ~QS_BIT or over
        return (cheap & -cheap).bit_length() - 1
    if follow:
        return None
    safe = legal & ~POINT_CARDS
    return highest_valued(safe) if safe else None


def play_out_moon(
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
    stopper: int | None = None,
    defend_only: bool = False,
    run_from: int = RUN_FROM,
) -> list[Mask]:
    """`playout.play_out` with a runner (see the module docstring): the same arguments,
    the same result. ``stopper``: the one seat that stops a runner (None: every seat);
    ``defend_only``: the stopper itself never runs (it plays as usual instead);
    ``run_from``: how much a seat must hold, all the points taken, to run."""
    n = rules.players
    two_player = rules.variant == "two_player"
    breaking = breaking_cards(rules)
    seat = (leader + len(trick)) % n
    mask = 0  # the trick's cards, kept as they are played
    for c in trick:
        mask |= 1 << c
    run = runner(taken, run_from)
    if defend_only and run == stopper:
        run = None
    while True:
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
            card: int | None = None
            if run is not None:
                if seat == run:
                    card = runner_card(rules, legal, trick)
                elif stopper is None or seat == stopper:
                    card = stopper_card(rules, legal, trick, leader, run)
            if card is None:
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
            or (
                rules.variant == "two_player"
                and breaks_hearts(rules, card, trick[0] // 13 if trick else None)
            )
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
        leader = seat = winner
        first_trick = False
        if mask & POINT_CARDS:
            run = runner(taken, run_from)
            if defend_only and run == stopper:
                run = None
        mask = 0
