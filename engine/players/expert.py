"""The `expert` player: `pro`'s sampling, made sharper.

- Passing: by playing the hand out (`passing`): candidate passes are weighed over deals
  of the unseen cards, the others passing by the rule of thumb, every seat playing the
  playout policy below, moon-aware in the standard variant (a seat on course for the moon
  runs and the others stop it, `passing.MOON_PASS`). The rule of thumb is the search's
  first candidate: a danger score per card instead of "the three highest": the Q♠ and the
  A♠/K♠ go when the spades are too short to guard them, high hearts go, low cards stay, a
  short suit is emptied to make a void, and a bonus card (Omnibus J♦/10♦, Complex J♦) is
  kept.
- Reading the table: besides shown voids and its own passed cards, deals are weighted by
  what the others' choices suggest: the cards passed to it were probably the passer's
  highest; a player who ducked under the winning card probably holds nothing between the
  two; a player who discarded something else while void probably has no Q♠ and nothing
  higher-valued than its discard. These are soft (weights, not certainties), so they
  cannot make a deal impossible.
- A better model of the table: every seat of a playout follows `smart_card` (no Q♠
  taken on a clean trick, no A♠/K♠ led into a live queen, spade honours and high hearts
  discarded first), not `standard_card`.
- More deals, the same deals for every card (common random numbers): as many as the
  budget affords, fixed by the view and the budget (so still deterministic); touching
  cards (nothing but played cards between them, same value) are played out once.
- Game awareness: when the game can end this hand, a playout that ends it with this seat
  the sole winner counts as a gain, and one that ends it with another winner as a loss.
- Complex Hearts: the cost of a hand is how much it grows the magnitude of the total.
- The moon: playouts score shooting the moon as the rules do, for anyone, so a card that
  lets another seat shoot is costly and one that completes its own shoot is cheap; the
  moon choice keeps the better final standing. While another seat holds every point taken
  so far (`moon_watch`, four players), the share of the deals that seat is likely to be
  running in (`shooting.RUN_CHANCE`) is played out with it running for the moon and this
  seat stopping it, so a card that lets the run go on costs what the moon costs. With
  `moon_playouts` (off by default, `MOON_PLAYOUTS`: measured, no gain yet) every deal of
  the standard variant is played out so (`shooting`): a seat that has taken every point so
  far, and enough of them, plays for the moon, and the `expert`'s own seat stops it.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from functools import partial
from random import Random

from ..cards import (
    CARDS,
    HEARTS_MASK,
    QUEEN_OF_SPADES,
    Card,
    Mask,
    cards_of,
)
from ..play_rules import winning_card
from ..rules import Rules
from ..scoring import Score, counted_cards, game_winners
from ..view import SeatView
from .defence import STOP_FROM, defence_card
from .knowledge import Knowledge, decision_rng
from .moon import best_standing_choice, runner, taken_masks
from .pass_rule import expert_pass, keep_mask, pass_danger
from .passing import PassSearch, ranked_passes
from .playout import PlayOut, hand_cost, play_out
from .sampling import evaluate_outcomes, pick
from .shooting import play_out_moon, threat
from .smart import smart_card
from .standard import card_value, standard_card

EXPERT_WORK = 200.0
"""Playout steps (one card played in one playout) per millisecond of budget: the number
of deals is this work divided by the cost of a deal, so it is fixed by the view and the
budget (decisions stay deterministic) and fills about 40% of the budget on this machine."""
MIN_DEALS = 100
MAX_DEALS = 2000
DEAL_OVERHEAD = 30
"""What sampling one deal costs, in playout steps."""
MOON_PLAYOUTS = False
"""Whether the `expert` plays its deals out moon-aware (`shooting`) by default: off, as
measured (README, "Strength"): against xinxin on 100 untouched deals the edge went from
+1.50 ± 0.90 to +1.01 ± 0.89 points a hand (paired, −0.48 ± 0.76): no gain yet."""
MOON_DEFENCE_ONLY = False
"""With `moon_playouts`: only the other seats run for the moon in the playouts, never the
`expert`'s own (it defends, it does not plan its own moon)."""
MOON_WATCH = True
"""Whether the `expert` weighs a moon against it while one may be coming (`moon_watch`):
on, as measured against xinxin (README, "Strength")."""
MOON_STOP = True
"""Whether the `expert` plays `defence`'s card while another seat holds every point taken
and enough to be running (`defence.STOP_FROM`): its costs let a naive shooter run (issue
51: in 6 of 15 such positions from real games)."""
SEARCH_PASS = True
"""Whether the `expert` chooses its pass by playing the hand out (`passing`) rather than by
the rule of thumb alone (`expert_pass`, the search's first candidate)."""
PASS_LIMIT_S = 0.8
"""The longest a searched pass may take (either round stops there, after one deal at
least): a decision stays under a second on a slow or busy machine."""
GAME_SWING = 15.0
"""What winning (or losing) the game in a playout is worth, in points of the hand."""


@dataclass(frozen=True)
class Outlook:
    """What one card leads to, on average over the deals: the parts of its cost."""

    points: float
    """The hand's expected points for this seat (in Complex Hearts how much they grow
    |z| of its total): what the coach shows as points."""
    lose: float = 0.0
    """The chance the hand ends the game with another seat among the winners and not this
    one."""
    win: float = 0.0
    """The chance the hand ends the game with this seat the sole winner."""

    @property
    def cost(self) -> float:
        """What the `expert` minimises: the points, a game lost or won as `GAME_SWING`."""
        return self.points + GAME_SWING * (self.lose - self.win)


@dataclass(frozen=True)
class PlayEvaluation:
    """One play decision of the `expert`: the card, and what it weighed."""

    card: Card
    costs: dict[Card, float]
    """The expected cost of each legal card (its points for the hand, in Complex Hearts
    how much they grow |z|, and a game won or lost counted as `GAME_SWING`): empty when
    no card differs from another (one legal card, or cards that play alike)."""
    deals: int
    """How many deals the costs were averaged over."""
    forced: bool = False
    """Nothing to choose: every legal card plays alike."""
    outlooks: dict[Card, Outlook] = field(default_factory=dict)
    """Each cost in its parts: the hand's points, and the game's end."""


class ExpertPlayer:
    level = "expert"

    def __init__(
        self,
        seed: int = 0,
        deals: int | None = None,
        steady: bool = False,
        moon_playouts: bool = MOON_PLAYOUTS,
        search_pass: bool = SEARCH_PASS,
        moon_watch: bool = MOON_WATCH,
        moon_stop: bool = MOON_STOP,
    ) -> None:
        self.seed = seed
        self.deals = deals
        """A fixed number of deals per decision; None: as many as the budget affords."""
        self.steady = steady
        """Every deal is played out whatever the clock says (a fixed number, or as many as
        the budget affords by count): the same decision on any machine at any load (the
        daily deal's computers, the coach's hints and reviews)."""
        self.moon_playouts = moon_playouts
        """Play the deals out with `shooting.play_out_moon` (standard variant only)."""
        self.search_pass = search_pass
        """Choose the pass by playing the hand out (`passing.ranked_passes`)."""
        self.moon_watch = moon_watch
        """While another seat holds every point taken (`shooting.threat`), play the share of
        the deals it is likely to be running in out with it running for the moon and this
        seat stopping it (`shooting.play_out_moon`): four players, standard Hearts, no bonus
        card, where it was measured."""
        self.moon_stop = moon_stop
        """Stop another seat's obvious run for the moon whatever the costs say (`_stop`)."""

    def choose_pass(self, view: SeatView, budget_ms: float = 300) -> list[Card]:
        return cards_of(self.pass_mask(view, budget_ms))

    def pass_mask(self, view: SeatView, budget_ms: float = 300) -> Mask:
        """The three cards to pass, as a mask: searched (the cheapest of `weigh_passes`),
        or by the rule of thumb."""
        if not self.search_pass:
            return expert_pass(view.rules, view.hand_mask)
        return self.weigh_passes(view, budget_ms)[0][0]

    def weigh_passes(self, view: SeatView, budget_ms: float = 300) -> list[tuple[Mask, float]]:
        """The passes its search weighed longest, cheapest (its choice) first, each with
        its expected points for the hand (the coach reads these). Steady, the search plays
        its full deals whatever the budget and the clock."""
        start = time.perf_counter()
        search, rng = self.pass_search(view, budget_ms)
        return ranked_passes(
            view.rules,
            view.seat,
            view.hand_mask,
            view.pass_to,
            view.scores,
            rng,
            search,
            expert_pass,
            math.inf if self.steady else start + PASS_LIMIT_S,
        )

    def pass_search(self, view: SeatView, budget_ms: float = 300) -> tuple[PassSearch, Random]:
        """The search `weigh_passes` makes (`passing.PassSearch`), which can also be played in
        pieces: its candidates and rounds, and the generator its deals come from."""
        rules = view.rules
        hand = view.hand_mask
        search = PassSearch.start(
            rules,
            hand,
            expert_pass(rules, hand),
            partial(_danger_in, hand, keep_mask(rules)),
            math.inf if self.steady else budget_ms,
        )
        return search, decision_rng(self.seed, view, "expert-pass")

    def choose_play(self, view: SeatView, budget_ms: float = 300) -> Card:
        return self.evaluate_play(view, budget_ms).card

    def evaluate_play(self, view: SeatView, budget_ms: float = 300) -> PlayEvaluation:
        """The card this player plays, with the expected cost of every legal card when it
        sampled deals to choose (the coach reads these numbers)."""
        start = time.perf_counter()
        legal = view.legal_mask
        rules = view.rules
        trick = [c.index for _, c in view.trick]
        preferred = standard_card(rules, legal, trick)
        if legal & (legal - 1) == 0:
            return PlayEvaluation(CARDS[preferred], {}, 0, forced=True)
        know = Knowledge.from_view(view)
        seat = view.seat
        totals = view.scores
        mine = totals[seat]
        can_end = game_can_end(rules, totals)

        def measure(points: tuple[Score, ...]) -> tuple[float, float, float, float]:
            """The cost, and its parts: the hand's points, a game lost, a game won."""
            hand = hand_cost(rules, mine, points[seat])
            if can_end:
                winners = game_winners(rules, [t + p for t, p in zip(totals, points, strict=True)])
                if winners is not None:
                    if winners == (seat,):
                        return hand - GAME_SWING, hand, 0.0, 1.0
                    if seat not in winners:
                        return hand + GAME_SWING, hand, 1.0, 0.0
            return hand, hand, 0.0, 0.0

        groups = equivalent_groups(rules, legal, view.played_mask)
        reps = 0
        for g in groups:
            reps |= g & -g
        if reps & (reps - 1) == 0:
            return PlayEvaluation(CARDS[preferred], {}, 0, forced=True)
        deals = self.deals
        if deals is None:
            steps = reps.bit_count() * sum(view.hand_sizes) + DEAL_OVERHEAD
            deals = min(MAX_DEALS, max(MIN_DEALS, int(budget_ms * EXPERT_WORK / steps)))
        rep_outcomes = evaluate_outcomes(
            rules,
            know,
            reps,
            decision_rng(self.seed, view, "expert"),
            deals,
            [smart_card] * rules.players,
            measure,
            math.inf if self.steady else start + budget_ms / 1000 * 0.8,
            weights=inferred_weights(view),
            totals=totals,
            playout=partial(play_out_moon, stopper=seat, defend_only=MOON_DEFENCE_ONLY)
            if self.moon_playouts and rules.variant == "standard"
            else play_out,
            alternative=self._watch(view, know),
        )
        costs: dict[int, float] = {}
        outlooks: dict[Card, Outlook] = {}
        for g in groups:
            cost, points, lose, win = rep_outcomes[(g & -g).bit_length() - 1]
            m = g
            while m:
                low = m & -m
                costs[low.bit_length() - 1] = cost
                outlooks[CARDS[low.bit_length() - 1]] = Outlook(points, lose, win)
                m ^= low
        chosen = CARDS[pick(costs, preferred)]
        stop = self._stop(view)
        if stop is not None and stop.index in costs:
            chosen = stop
        return PlayEvaluation(
            chosen, {CARDS[c]: v for c, v in costs.items()}, deals, outlooks=outlooks
        )

    def _stop(self, view: SeatView) -> Card | None:
        """The card that stops another seat's obvious run for the moon (`defence`), once it
        holds enough to be running (`defence.STOP_FROM`): its playouts' opponents rarely
        run, so its costs leave a naive shooter to it (issue 51)."""
        if not self.moon_stop or runner(taken_masks(view), STOP_FROM) in (None, view.seat):
            return None
        return defence_card(view)

    def _watch(self, view: SeatView, know: Knowledge) -> tuple[PlayOut, float, Random] | None:
        """The moon-aware playout and its share of the deals, while a moon may be coming."""
        rules = view.rules
        measured = rules.variant == "standard" and rules.players == 4 and not rules.bonus_card
        if not (self.moon_watch and measured):
            return None
        seen = threat(know.taken, len(view.tricks), view.seat)
        if seen is None:
            return None
        return (
            partial(play_out_moon, stopper=view.seat, defend_only=True, run_from=1),
            seen[1],
            decision_rng(self.seed, view, "expert-moon"),
        )

    def choose_moon(self, view: SeatView, budget_ms: float = 300) -> str:
        return best_standing_choice(view)


def equivalent_groups(rules: Rules, legal: Mask, played: Mask) -> list[Mask]:
    """The legal cards in groups that play alike: cards of a suit with no card between
    them but played ones, and of the same value (the Q♠ and a bonus card stand alone)."""
    special = counted_cards(rules) & ~HEARTS_MASK
    groups: list[Mask] = []
    for suit in range(4):
        current = 0
        for c in range(13 * suit, 13 * suit + 13):
            bit = 1 << c
            if played & bit:
                continue
            if legal & bit and not special & bit:
                current |= bit
                continue
            if current:
                groups.append(current)
                current = 0
            if legal & bit:
                groups.append(bit)
        if current:
            groups.append(current)
    return groups


def game_can_end(rules: Rules, totals: tuple[Score, ...]) -> bool:
    worst = max(abs(t) for t in totals)
    return worst + 26 * (1.5 if rules.variant == "complex" else 1) >= rules.target


def _danger_in(hand: Mask, keep: Mask, card: int) -> float:
    """How dangerous ``card`` is to keep in ``hand``, before anything is chosen."""
    return pass_danger(card, hand, 0, keep)


def inferred_weights(view: SeatView) -> list[list[float]]:
    """How much likelier than even each seat is to hold each card, read from the passes
    and plays (see the module docstring). A weight of 1 means nothing is known."""
    n = view.players
    weights = [[1.0] * 52 for _ in range(n)]
    if view.received and view.pass_from != view.seat:
        floor = min(card_value(c.index) for c in view.received)
        row = weights[view.pass_from]
        for c in range(52):
            if card_value(c) > floor:
                row[c] *= 0.4
    plays_by_trick = [(t.plays, True) for t in view.tricks]
    if view.trick:
        plays_by_trick.append((view.trick, False))
    for number, (plays, _) in enumerate(plays_by_trick):
        trick = [card.index for _, card in plays]
        led = trick[0] // 13
        mask = 1 << trick[0]
        for i in range(1, len(trick)):
            seat, c = plays[i][0], trick[i]
            winner = winning_card(view.rules, trick[:i], mask)
            row = weights[seat]
            if c // 13 == led:
                if c < winner and winner // 13 == led:
                    for x in range(c + 1, winner):
                        row[x] *= 0.5  # ducked with the highest card under the winner
            elif number > 0 and c != QUEEN_OF_SPADES:
                row[QUEEN_OF_SPADES] *= 0.15
                value = card_value(c)
                for x in range(52):
                    if card_value(x) > value:
                        row[x] *= 0.7
            mask |= 1 << c
    return weights
