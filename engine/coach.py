"""The coach: the `expert`'s choice with its reasons, and a review of a hand's choices.

Everything here reads a `SeatView` and nothing else, so the coach knows exactly what the
person it helps knows: it never sees a hidden hand, before or after the hand. A review
judges each past decision from the view the person had at that moment.

- `hint` gives the card (or the three cards to pass) the `expert` chooses, the hand's
  expected points of the best two or three choices from the same evaluation (none listed
  with fewer points than the choice; one the game's end rules out is said apart, with its
  chances of losing or winning the game), and the facts of the position that drive it (a
  void shown, the Q♠ still out, hearts left, who can still shoot the moon).
- Passes are weighed by playing the hand out, as the `expert` chooses its own
  (`players.passing`): deals of the unseen cards, the others pass by the `expert`'s rule of
  thumb, then everyone plays the `expert`'s playout policy to the end. A pass hint is the
  `expert`'s search itself: its choice and the next best passes it weighed, those within
  its margin of error of the choice said to be as good (`Option.even`).
- `review` finds the one to three decisions of a hand where the person's choice cost the
  most expected points against the `expert`'s choice, or none when every choice was
  within `REVIEW_THRESHOLD` of it. A pass is judged by the same search its hint showed
  (`PassWeighing.deals`: the same deals, from the generator of the game, seat and view),
  the person's pass weighed beside it on those deals, so the pass a hint named is never
  called a mistake, nor is one within the search's margin of error of it.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from .cards import (
    CARDS,
    HEARTS,
    HEARTS_MASK,
    QS_BIT,
    QUEEN_OF_SPADES,
    SPADES,
    SUIT_MASKS,
    SUITS,
    Card,
    Mask,
    cards_of,
    deck_mask,
    mask_of,
)
from .game import Game
from .moves import Move
from .players.expert import GAME_SWING, ExpertPlayer, PlayEvaluation, game_can_end
from .players.moon import taken_masks
from .players.pass_rule import expert_pass
from .players.passing import PassSearch, paired_margin, pass_costs, unseen_cards
from .scoring import cards_points, counted_cards
from .view import SeatView

HINT_BUDGET_MS = 400.0
"""The `expert`'s time for a hint's decision (the bot answers within a second); a pass
hint's search plays its full deals at it (`passing.PASS_BUDGET_MS`)."""
PIECE_PLAYOUTS = 300
"""Play-outs one job of the `expert`'s pass search plays (about 0.05 s): a hint's pass, and
the pass a review compares with, are lines of short jobs too (`PassPlan`)."""
REVIEW_BUDGET_MS = 250.0
"""Per play decision of a review where no hint was given (a hand of 13 decisions stays
within 5 s); one where a hint was given is judged by the hint's own evaluation
(`judge_play`'s ``hinted``)."""
PLAY_EVEN = 0.05
"""A card whose points are this close to the `expert`'s choice's is said to be as good: the
figures shown (to a tenth) would be the same."""
REVIEW_THRESHOLD = 0.75
"""Expected points a choice must lose to the `expert`'s to be worth a word."""
REVIEW_MOST = 3

FactKind = Literal[
    "queen_out",
    "queen_mine",
    "void",
    "hearts_left",
    "moon_threat",
    "trick_points",
    "game_can_end",
    "queen_unguarded",
    "spade_unguarded",
    "makes_void",
    "high_hearts",
]


@dataclass(frozen=True)
class Fact:
    """One fact of the position behind a hint, for the bot to put in words.

    - ``queen_out``: the Q♠ is neither played nor in this hand.
    - ``queen_mine``: this hand holds the Q♠ with ``n`` other spades.
    - ``void``: ``seat`` has shown it holds no ``suit``.
    - ``hearts_left``: ``n`` hearts are still out in the others' hands.
    - ``moon_threat``: ``seat`` has taken every point so far (``n``) and can still shoot.
    - ``trick_points``: the trick holds ``n`` points so far.
    - ``game_can_end``: this hand can end the game (winning it counts).
    - ``queen_unguarded``: (a pass) the Q♠ with only ``n`` low spades to guard it.
    - ``spade_unguarded``: (a pass) ``card`` (A♠ or K♠) with only ``n`` low spades.
    - ``makes_void``: (a pass) passing empties ``suit``, to discard on it later.
    - ``high_hearts``: (a pass) high hearts go, ``n`` of them.
    """

    kind: FactKind
    seat: int | None = None
    suit: str | None = None
    n: int = 0
    card: Card | None = None


@dataclass(frozen=True)
class Option:
    """One choice with what it leads to: the hand's expected points (lower is better; in
    Complex Hearts how much they grow the size |z| of the seat's total), and when the hand
    can end the game, the chances that it ends it lost or won."""

    cards: tuple[Card, ...]
    points: float
    lose: float = 0.0
    """The chance the hand ends the game with another seat among the winners and not this
    one (a play's; a pass is weighed by its points alone)."""
    win: float = 0.0
    """The chance the hand ends the game with this seat the sole winner."""
    even: bool = False
    """As good as the best choice, as far as the search can tell: its points are within
    the search's margin of error of the best's (a pass: `passing.paired_margin`; a play:
    the same to a tenth of a point)."""

    @property
    def cost(self) -> float:
        """What the `expert` weighs: the points, a game lost or won counted as `GAME_SWING`
        points."""
        return self.points + GAME_SWING * (self.lose - self.win)


@dataclass(frozen=True)
class Hint:
    kind: Literal["pass", "play"]
    best: Option
    others: tuple[Option, ...]
    """The next best choices, best first (at most two), none with fewer points than
    ``best``: a choice the game's end rules out goes in ``rival``."""
    facts: tuple[Fact, ...]
    forced: bool = False
    """Nothing to weigh: every legal card plays alike."""
    rival: Option | None = None
    """A choice that would take fewer points than ``best`` but does worse at the game's
    end (more often lost, or less often won): said apart, never listed as better."""


# ------------------------------------------------------------------------------ hints


def hint(view: SeatView, seed: int = 0, budget_ms: float = HINT_BUDGET_MS) -> Hint:
    """The `expert`'s choice for this view (`ExpertPlayer(seed)`'s own, with the same
    budget, every deal it affords played whatever the clock), with its numbers and the
    facts behind it."""
    if view.phase == "pass":
        return pass_hint(view, seed)
    if view.phase != "play" or view.current_player != view.seat:
        raise ValueError("a hint is for a seat choosing its pass or its card")
    return play_hint(view, ExpertPlayer(seed, steady=True), budget_ms)


def play_hint(view: SeatView, player: ExpertPlayer, budget_ms: float) -> Hint:
    evaluation = player.evaluate_play(view, budget_ms)
    card = evaluation.card
    if evaluation.forced:
        return Hint("play", Option((card,), 0.0), (), _play_facts(view, card, ()), forced=True)
    best = _option(evaluation, card)
    ranked = [_option(evaluation, c) for c, _ in _ranked(evaluation.costs, card)]
    others = [
        replace(o, even=o.points - best.points < PLAY_EVEN)
        for o in ranked
        if o.points >= best.points - 1e-9
    ][:2]
    # Lighter but worse at the game's end (not a card the expert played to stop a moon).
    lighter = [o for o in ranked if o.points < best.points - 1e-9 and o.cost > best.cost - 1e-9]
    rival = min(lighter, key=lambda o: o.points) if lighter else None
    facts = _play_facts(view, card, [o.cards[0] for o in others])
    return Hint("play", best, tuple(others), facts, rival=rival)


def _option(evaluation: PlayEvaluation, card: Card) -> Option:
    outlook = evaluation.outlooks[card]
    return Option((card,), outlook.points, outlook.lose, outlook.win)


def _ranked(costs: dict[Card, float], chosen: Card) -> list[tuple[Card, float]]:
    """The other cards, cheapest first, one per cost (cards that play alike share one)."""
    seen: set[float] = {costs[chosen]}
    ranked: list[tuple[Card, float]] = []
    for c, v in sorted(costs.items(), key=lambda cv: (cv[1], cv[0].index)):
        if c == chosen or any(abs(v - s) < 1e-9 for s in seen):
            continue
        seen.add(v)
        ranked.append((c, v))
    return ranked


def pass_hint(view: SeatView, seed: int = 0, budget_ms: float = HINT_BUDGET_MS) -> Hint:
    """The `expert`'s three cards (`ExpertPlayer(seed)`'s own search at a hint's budget, all
    its deals played), with the two next best passes it weighed, from the same deals."""
    check_pass_hint(view)
    return pass_hint_of(view, weigh_pass_search(view, seed, budget_ms=budget_ms))


def check_pass_hint(view: SeatView) -> None:
    """Refuses (`ValueError`) a pass hint for a seat that is not choosing its pass."""
    if view.phase != "pass" or view.passed is not None or view.seat not in view.waiting_for:
        raise ValueError("a pass hint is for a seat still choosing its pass")


def pass_hint_of(view: SeatView, weighing: PassWeighing) -> Hint:
    """The pass hint of a search: its cheapest pass, and the two next after it (each said
    as good when within the search's margin of error of the first)."""
    best, *others = weighing.passes
    return Hint("pass", best, tuple(others[:2]), _pass_facts(view, mask_of_cards(best.cards)))


def mask_of_cards(cards: Iterable[Card]) -> Mask:
    return mask_of(c.index for c in cards)


@dataclass(frozen=True)
class PassWeighing:
    """The `expert`'s pass search at one view, as the coach reads it: a hint shows it, and
    the review of that pass reads the same search again (the same deals, from the same
    generator, `deals` of each round), so a pass the hint named is never called a mistake."""

    passes: tuple[Option, ...]
    """The passes of the search's second round, cheapest first (its choice first), each
    marked `even` when within its margin of error of the first."""
    deals: tuple[int, int]
    """The deals each round played: the search again with these is this search."""
    extra: Option | None = None
    """The pass asked for beside the search (a review's: the person's), on the same deals."""


@dataclass(frozen=True)
class PassPlan:
    """A pass search to be played (`weigh_pass_search`, or the worker pool in pieces): the
    `expert`'s `PassSearch`, the most deals each round plays, and a pass to weigh beside
    it on the same deals (``extra``), which changes nothing of the search's own figures
    (each pass of a deal is played out on its own, and the deals come from the generator
    alone)."""

    search: PassSearch
    deals: tuple[int, int]
    extra: Mask | None = None

    @staticmethod
    def of(
        view: SeatView,
        seed: int,
        deals: tuple[int, int] | None = None,
        extra: Mask | None = None,
        budget_ms: float = HINT_BUDGET_MS,
    ) -> tuple[PassPlan, random.Random]:
        """The plan of `ExpertPlayer(seed)`'s search at a hint's budget, and its generator;
        ``deals``: each round's deals (None: all of them, as the `expert` plays them)."""
        if view.phase != "pass":
            raise ValueError("a pass is chosen in the pass phase")
        search, rng = ExpertPlayer(seed).pass_search(view, budget_ms)
        return PassPlan(search, deals or (search.first, search.more), extra), rng

    def first_round(self) -> list[Mask]:
        """The passes round one plays: the search's candidates, then ``extra``."""
        candidates = list(self.search.candidates)
        if self.extra is not None and self.extra not in candidates:
            candidates.append(self.extra)
        return candidates

    def second_round(self, sums: Sequence[float]) -> list[Mask]:
        """The passes round two plays, given round one's ``sums``: the search's shortlist
        (chosen from its own candidates only), then ``extra``."""
        own = self.search.candidates
        candidates = [own[i] for i in self.search.shortlist(sums[: len(own)])]
        if self.extra is not None and self.extra not in candidates:
            candidates.append(self.extra)
        return candidates

    def weighing(self, first: Piece, second: Piece) -> PassWeighing:
        """The search's result from both rounds, each played with its `pass_costs`
        products: round one's (over `first_round`) and round two's (over `second_round`)."""
        sums, done, extra, more_done = first.sums, first.done, second.sums, second.done
        own = self.search.candidates
        order = self.search.shortlist(sums[: len(own)])
        ranked = self.search.ranked(sums[: len(own)], done, order, extra, more_done)
        round_one = self.first_round()
        round_two = self.second_round(sums)
        # Each pass of round two over both rounds' deals: its sums and products.
        at_one = [round_one.index(m) for m in round_two]
        k1, k2 = len(round_one), len(round_two)
        over = done + more_done
        total = [sums[a] + extra[i] for i, a in enumerate(at_one)]
        products = [
            first.products[at_one[i] * k1 + at_one[j]] + second.products[i * k2 + j]
            for i in range(k2)
            for j in range(k2)
        ]
        best = round_two.index(ranked[0][0])

        def option(mask: Mask) -> Option:
            at = round_two.index(mask)
            cost = total[at] / over
            margin = paired_margin(total, products, over, at, best, over)
            even = at != best and cost - total[best] / over <= margin
            return Option(tuple(cards_of(mask)), cost, even=even)

        passes = tuple(option(m) for m, _ in ranked)
        mine = option(self.extra) if self.extra is not None else None
        return PassWeighing(passes, (done, more_done), mine)


def weigh_pass_search(
    view: SeatView,
    seed: int,
    deals: tuple[int, int] | None = None,
    extra: Mask | None = None,
    budget_ms: float = HINT_BUDGET_MS,
) -> PassWeighing:
    """The `expert`'s pass search (`ExpertPlayer(seed)`'s, at a hint's budget) in one go,
    with no clock: ``deals`` of each round (None: all of them), ``extra`` weighed beside."""
    plan, rng = PassPlan.of(view, seed, deals, extra, budget_ms)
    pieces: list[Piece] = []
    candidates = plan.first_round()
    for round_deals in plan.deals:
        products = [0.0] * len(candidates) ** 2
        pieces.append(pass_piece(view, candidates, round_deals, DealStream(rng), products=products))
        candidates = plan.second_round(pieces[0].sums)
    return plan.weighing(*pieces)


def piece_deals(candidates: int) -> int:
    """How many deals one piece of a pass search plays: about `PIECE_PLAYOUTS` play-outs."""
    return max(1, PIECE_PLAYOUTS // max(1, candidates))


@dataclass(frozen=True)
class Piece:
    """What one piece of a pass search played: each pass's summed cost, over how many
    deals, the stream as the deals left it (for the next piece), the seconds it took, and
    (when asked) the products of its costs (`passing.pass_costs`)."""

    sums: list[float]
    done: int
    stream: DealStream
    seconds: float
    products: list[float]


def pass_piece(
    view: SeatView,
    candidates: Sequence[Mask],
    deals: int,
    stream: DealStream,
    seconds: float = math.inf,
    products: list[float] | None = None,
) -> Piece:
    """One job of the `expert`'s pass search: each candidate's summed cost over the next
    ``deals`` deals of ``stream`` (fewer once ``seconds`` have passed, never none), and
    with ``products`` (zeros, or the pieces' before), the products added to them."""
    start = time.perf_counter()
    unseen = (
        stream.unseen if stream.unseen is not None else unseen_cards(view.rules, view.hand_mask)
    )
    sums, done = pass_costs(
        view.rules,
        view.seat,
        view.hand_mask,
        view.pass_to,
        view.scores,
        candidates,
        stream.rng,
        deals,
        expert_pass,
        start + seconds,
        unseen,
        products,
    )
    left = DealStream(stream.rng, unseen)
    return Piece(sums, done, left, time.perf_counter() - start, products or [])


@dataclass(frozen=True)
class DealStream:
    """Where one round of a pass search, played in pieces, takes its next deals from: its
    generator, and the unseen cards as the deals before left them (None: none yet)."""

    rng: random.Random
    unseen: list[int] | None = None


# ------------------------------------------------------------------------------ facts


def _play_facts(view: SeatView, card: Card, others: Sequence[Card]) -> tuple[Fact, ...]:
    """The facts that bear on this choice, the most telling first (at most three)."""
    rules = view.rules
    me = view.seat
    facts: list[Fact] = []
    played = view.played_mask
    counted = counted_cards(rules)
    taken = taken_masks(view)
    points = [(t & counted).bit_count() for t in taken]
    takers = [s for s in range(view.players) if taken[s] & counted]
    if len(takers) == 1 and takers[0] != me and view.rules.variant != "two_player":
        shooter = takers[0]
        if taken[shooter] & HEARTS_MASK and points[shooter] >= 4:
            facts.append(Fact("moon_threat", seat=shooter, n=_hand_points(view, shooter)))
    suits = {c.suit for c in (card, *others)}
    if view.trick:
        suits.add(view.trick[0][1].suit)
    queen_played = bool(played & QS_BIT)
    if not queen_played and rules.variant != "two_player":
        if view.hand_mask & QS_BIT:
            if "S" in suits or card.index == QUEEN_OF_SPADES:
                spades = (view.hand_mask & SUIT_MASKS[SPADES]).bit_count() - 1
                facts.append(Fact("queen_mine", n=spades))
        elif "S" in suits:
            facts.append(Fact("queen_out"))
    voids = view.voids()
    for suit in sorted(suits, key=SUITS.index):
        for seat in range(view.players):
            if seat != me and suit in voids[seat]:
                facts.append(Fact("void", seat=seat, suit=suit))
    if view.trick:
        on_trick = cards_points(rules, mask_of(c.index for _, c in view.trick))
        if isinstance(on_trick, int) and on_trick:
            facts.append(Fact("trick_points", n=on_trick))
    hearts_out = (HEARTS_MASK & deck_mask(view.players) & ~played & ~view.hand_mask).bit_count()
    if "H" in suits and hearts_out:
        facts.append(Fact("hearts_left", n=hearts_out))
    if game_can_end(rules, view.scores):
        facts.append(Fact("game_can_end"))
    return tuple(facts[:3])


def _hand_points(view: SeatView, seat: int) -> int:
    """The plain points ``seat`` has taken this hand (hearts 1, the Q♠ 13)."""
    taken = taken_masks(view)[seat]
    return (taken & HEARTS_MASK).bit_count() + (13 if taken & QS_BIT else 0)


def _pass_facts(view: SeatView, chosen: Mask) -> tuple[Fact, ...]:
    """Why these three: the danger each card carries in this hand."""
    hand = view.hand_mask
    spades = hand & SUIT_MASKS[SPADES]
    high_spades = QS_BIT | 1 << (QUEEN_OF_SPADES + 1) | 1 << (QUEEN_OF_SPADES + 2)
    guards = (spades & ~high_spades).bit_count()
    facts: list[Fact] = []
    if chosen & QS_BIT:
        facts.append(Fact("queen_unguarded", n=guards))
    for c in (QUEEN_OF_SPADES + 2, QUEEN_OF_SPADES + 1):
        if chosen >> c & 1:
            facts.append(Fact("spade_unguarded", card=CARDS[c], n=guards))
    for suit in range(4):
        if suit in (SPADES, HEARTS):
            continue
        own = hand & SUIT_MASKS[suit]
        if own and not own & ~chosen:
            facts.append(Fact("makes_void", suit=SUITS[suit]))
    high_hearts = (chosen & HEARTS_MASK).bit_count()
    if high_hearts:
        facts.append(Fact("high_hearts", n=high_hearts))
    return tuple(facts[:3])


# ------------------------------------------------------------------------------ review


@dataclass(frozen=True)
class Decision:
    """One choice a person made: the view they had, and what they chose."""

    view: SeatView
    chosen: tuple[Card, ...]
    trick: int
    """The trick it was made in, counted from 1 (0: the pass)."""


@dataclass(frozen=True)
class Finding:
    """A decision that cost expected points against the `expert`'s choice, or made the
    game's end likelier lost (or less likely won)."""

    trick: int
    chosen: Option
    expert: Option
    facts: tuple[Fact, ...]

    @property
    def loss(self) -> float:
        """What the choice cost, the game's end counted in points (`GAME_SWING`)."""
        return self.chosen.cost - self.expert.cost

    @property
    def points_loss(self) -> float:
        """The hand's points the choice cost (negative: it took fewer than the expert's)."""
        return self.chosen.points - self.expert.points

    @property
    def game_loss(self) -> float:
        """The part of `loss` that is the game's end, in points."""
        return self.loss - self.points_loss


def hand_decisions(
    game: Game,
    moves: Iterable[tuple[Move, bool]],
    seat: int,
    hand_number: int,
) -> list[Decision]:
    """The decisions ``seat`` made itself in hand ``hand_number``, each with the view it had
    then: ``moves`` (each with whether a computer made it for the person) are replayed on
    ``game``, a game at its start. Stand-in moves are no one's choice and are left out."""
    decisions: list[Decision] = []
    for move, stand_in in moves:
        if game.hand_number > hand_number or game.phase == "over":
            break
        mine = move.seat == seat and game.hand_number == hand_number and move.kind != "moon"
        if mine and not stand_in:
            view = game.view(seat)
            trick = 0 if move.kind == "pass" else len(view.tricks) + 1
            decisions.append(Decision(view, move.cards, trick))
        move.apply(game)
    return decisions


def review(
    decisions: Sequence[Decision],
    seed: int = 0,
    budget_ms: float = REVIEW_BUDGET_MS,
    deals: int | None = None,
    pass_deals: tuple[int, int] | None = None,
    hinted: Collection[int] = (),
) -> list[Finding]:
    """The one to three decisions that cost the most against the `expert`, worst first;
    empty when each was within `REVIEW_THRESHOLD` of it (a hand played well).

    ``deals`` fixes the play decisions' deals (None: as many as ``budget_ms`` affords);
    the tricks in ``hinted`` were decided with a hint, and are judged by its evaluation.
    The pass is judged by the `expert`'s pass search with ``pass_deals`` in each round
    (the deals its hint's search played, when one was given: the same search; None: all
    of them). The worker pool runs the same steps as separate jobs (`judge_play`,
    `pass_piece`).
    """
    findings: list[Finding | None] = []
    for decision in decisions:
        if decision.trick == 0:
            chosen = mask_of_cards(decision.chosen)
            weighing = weigh_pass_search(decision.view, seed, pass_deals, chosen)
            findings.append(pass_finding(decision, weighing))
        else:
            hint_given = decision.trick in hinted
            findings.append(judge_play(decision, seed, budget_ms, deals, hint_given))
    return worst(findings)


def pass_finding(decision: Decision, weighing: PassWeighing) -> Finding | None:
    """The finding of a reviewed pass, from the search that weighed it beside its own
    (`PassPlan` with the person's pass as ``extra``): None when the person passed the
    search's choice, or a pass within its margin of error of it."""
    best, mine = weighing.passes[0], weighing.extra
    if mine is None or mine.cards == best.cards or mine.even:
        return None
    return Finding(
        0,
        Option(decision.chosen, mine.points),
        best,
        _pass_facts(decision.view, mask_of_cards(best.cards)),
    )


def judge_play(
    decision: Decision,
    seed: int,
    budget_ms: float = REVIEW_BUDGET_MS,
    deals: int | None = None,
    hinted: bool = False,
) -> Finding | None:
    """One play decision against the `expert`'s choice (None: it chose the same, or
    nothing could be chosen). One job of the worker pool. ``hinted``: a hint was given
    for it, and its evaluation (`hint`'s: the deals a hint's budget affords, every one of
    them) is the judge, so the card the hint named is never called a mistake."""
    view = decision.view
    if hinted:
        evaluation = ExpertPlayer(seed, steady=True).evaluate_play(view, HINT_BUDGET_MS)
    else:
        evaluation = ExpertPlayer(seed, deals=deals).evaluate_play(view, budget_ms)
    (card,) = decision.chosen
    if evaluation.forced or card == evaluation.card:
        return None
    return Finding(
        decision.trick,
        _option(evaluation, card),
        _option(evaluation, evaluation.card),
        _play_facts(view, evaluation.card, (card,)),
    )


def worst(findings: Iterable[Finding | None]) -> list[Finding]:
    """The findings worth a word (`REVIEW_THRESHOLD`), worst first, at most `REVIEW_MOST`."""
    kept = [f for f in findings if f is not None and f.loss >= REVIEW_THRESHOLD]
    kept.sort(key=lambda f: (-f.loss, f.trick))
    return kept[:REVIEW_MOST]
