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
  `expert`'s search itself: its choice and the next best passes it weighed.
- `review` finds the one to three decisions of a hand where the person's choice cost the
  most expected points against the `expert`'s choice, or none when every choice was
  within `REVIEW_THRESHOLD` of it.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
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
from .players.expert import GAME_SWING, ExpertPlayer, PlayEvaluation, expert_pass, game_can_end
from .players.knowledge import decision_rng
from .players.moon import taken_masks
from .players.passing import PassSearch, pass_costs, unseen_cards
from .scoring import cards_points, counted_cards
from .view import SeatView

HINT_BUDGET_MS = 400.0
"""The `expert`'s time for a hint's decision (the bot answers within a second); a pass
hint's search plays its full deals at it (`passing.PASS_BUDGET_MS`)."""
PASS_CHUNK = 50
"""Deals one job of the worker pool weighs (about 0.05 s): a review's pass is a line of
short jobs, so a computer player's move never waits behind a long one."""
PIECE_PLAYOUTS = 300
"""Play-outs one job of the `expert`'s pass search plays (about 0.05 s): a hint's pass, and
the pass a review compares with, are lines of short jobs too (`expert_pass_search`)."""
REVIEW_PASS_DEALS = 1500
REVIEW_BUDGET_MS = 250.0
"""Per play decision of a review: a hand of 13 decisions stays within 5 s."""
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
    budget), with its numbers and the facts behind it."""
    if view.phase == "pass":
        return pass_hint(view, seed)
    if view.phase != "play" or view.current_player != view.seat:
        raise ValueError("a hint is for a seat choosing its pass or its card")
    return play_hint(view, ExpertPlayer(seed), budget_ms)


def play_hint(view: SeatView, player: ExpertPlayer, budget_ms: float) -> Hint:
    evaluation = player.evaluate_play(view, budget_ms)
    card = evaluation.card
    if evaluation.forced:
        return Hint("play", Option((card,), 0.0), (), _play_facts(view, card, ()), forced=True)
    best = _option(evaluation, card)
    ranked = [_option(evaluation, c) for c, _ in _ranked(evaluation.costs, card)]
    others = [o for o in ranked if o.points >= best.points - 1e-9][:2]
    lighter = [o for o in ranked if o.points < best.points - 1e-9]
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
    """The `expert`'s three cards (`ExpertPlayer(seed)`'s own, with a hint's budget), with
    the two next best passes its search weighed, from the same deals."""
    check_pass_hint(view)
    weighed = ExpertPlayer(seed).weigh_passes(view, budget_ms)[:3]
    return pass_hint_from(view, [m for m, _ in weighed], [v for _, v in weighed])


def check_pass_hint(view: SeatView) -> None:
    """Refuses (`ValueError`) a pass hint for a seat that is not choosing its pass."""
    if view.phase != "pass" or view.passed is not None or view.seat not in view.waiting_for:
        raise ValueError("a pass hint is for a seat still choosing its pass")


def expert_pass_of(view: SeatView, seed: int, budget_ms: float = HINT_BUDGET_MS) -> Mask:
    """The pass `ExpertPlayer(seed)` chooses at this view, given a hint's budget."""
    if view.phase != "pass":
        raise ValueError("a pass is chosen in the pass phase")
    return ExpertPlayer(seed).pass_mask(view, budget_ms)


def pass_hint_from(view: SeatView, candidates: Sequence[Mask], costs: Sequence[float]) -> Hint:
    """The pass hint once ``candidates`` are weighed at ``costs``: the one that came out
    cheapest (the first on a tie), the others after it."""
    options = [Option(tuple(cards_of(m)), v) for m, v in zip(candidates, costs, strict=True)]
    best = min(range(len(options)), key=lambda i: (options[i].points, i))
    others = sorted((o for i, o in enumerate(options) if i != best), key=lambda o: o.points)
    return Hint("pass", options[best], tuple(others), _pass_facts(view, candidates[best]))


def expert_pass_search(view: SeatView, seed: int) -> tuple[PassSearch, random.Random]:
    """The search `pass_hint` and `expert_pass_of` make (`ExpertPlayer(seed)`'s, at a
    hint's budget), to be played in pieces: `pass_piece` after `pass_piece`, round one's
    deals then round two's, from the one generator, give what the search gives in one go
    (but for where its clock, `PASS_LIMIT_S` of work, cuts a round)."""
    if view.phase != "pass":
        raise ValueError("a pass is chosen in the pass phase")
    return ExpertPlayer(seed).pass_search(view, HINT_BUDGET_MS)


def piece_deals(candidates: int) -> int:
    """How many deals one piece of a pass search plays: about `PIECE_PLAYOUTS` play-outs."""
    return max(1, PIECE_PLAYOUTS // max(1, candidates))


def pass_piece(
    view: SeatView,
    candidates: Sequence[Mask],
    deals: int,
    stream: DealStream,
    seconds: float = math.inf,
) -> tuple[list[float], int, DealStream, float]:
    """One job of the `expert`'s pass search: each candidate's summed cost over the next
    ``deals`` deals of ``stream`` (fewer once ``seconds`` have passed, never none); the
    deals played, the stream as it is left (for the next job), and the seconds it took."""
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
    )
    return sums, done, DealStream(stream.rng, unseen), time.perf_counter() - start


@dataclass(frozen=True)
class DealStream:
    """Where one round of a pass search, played in pieces, takes its next deals from: its
    generator, and the unseen cards as the deals before left them (None: none yet)."""

    rng: random.Random
    unseen: list[int] | None = None


def pass_chunks(deals: int) -> list[int]:
    """How many deals each job of a pass weighing takes: at most `PASS_CHUNK` each."""
    return [min(PASS_CHUNK, deals - at) for at in range(0, deals, PASS_CHUNK)]


def pass_sums(
    view: SeatView, candidates: Sequence[Mask], seed: int, tag: str, chunk: int, deals: int
) -> list[float]:
    """One job of a pass weighing: each candidate's summed cost over ``deals`` deals of
    chunk number ``chunk`` (its own deals, fixed by the view, the seed and the tag)."""
    rng = decision_rng(seed, view, f"{tag}:{chunk}")
    return [c * deals for c in evaluate_passes(view, candidates, rng, deals)]


def weigh_passes(
    view: SeatView, candidates: Sequence[Mask], seed: int, tag: str, deals: int
) -> list[float]:
    """Each candidate's expected cost over ``deals`` deals, in the chunks the worker pool
    runs one by one (`pass_sums`), so the result is the same either way."""
    sums = [0.0] * len(candidates)
    for chunk, size in enumerate(pass_chunks(deals)):
        for i, s in enumerate(pass_sums(view, candidates, seed, tag, chunk, size)):
            sums[i] += s
    return [s / deals for s in sums]


def evaluate_passes(
    view: SeatView, candidates: Sequence[Mask], rng: random.Random, deals: int
) -> list[float]:
    """The expected cost of each candidate pass for this seat, over the same deals.

    Each deal places the unseen cards at random (nothing is known of them at the pass);
    the others pass by the `expert`'s rule of thumb, then the hand is played out with the
    `expert`'s playout policy for every seat, moon shots scored as the rules do
    (`passing.pass_costs`, the `expert`'s own pass search, as one `pass_piece`).
    """
    sums, _, _, _ = pass_piece(view, candidates, deals, DealStream(rng))
    return [s / deals for s in sums]


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
    pass_deals: int = REVIEW_PASS_DEALS,
    pass_budget_ms: float = HINT_BUDGET_MS,
) -> list[Finding]:
    """The one to three decisions that cost the most against the `expert`, worst first;
    empty when each was within `REVIEW_THRESHOLD` of it (a hand played well).

    ``deals`` fixes the play decisions' deals (None: as many as ``budget_ms`` affords);
    the `expert`'s pass is searched at ``pass_budget_ms`` (`passing.PASS_BUDGET_MS` and
    up: its full deals; less, fewer). The worker pool runs the same steps as separate jobs
    (`judge_play`, `pass_piece`, `pass_sums`).
    """
    findings: list[Finding | None] = []
    for decision in decisions:
        if decision.trick == 0:
            best = expert_pass_of(decision.view, seed, pass_budget_ms)
            candidates = review_passes(decision, best)
            if candidates is None:
                continue
            costs = weigh_passes(decision.view, candidates, seed, "coach-review", pass_deals)
            findings.append(pass_finding(decision, candidates, costs))
        else:
            findings.append(judge_play(decision, seed, budget_ms, deals))
    return worst(findings)


def review_passes(decision: Decision, best: Mask) -> list[Mask] | None:
    """The passes a review of the pass weighs (the person's, then the `expert`'s: ``best``,
    `expert_pass_of` its view), or None when they are the same."""
    chosen = mask_of(c.index for c in decision.chosen)
    return None if chosen == best else [chosen, best]


def pass_finding(decision: Decision, candidates: Sequence[Mask], costs: Sequence[float]) -> Finding:
    """The finding of a reviewed pass, once `review_passes` are weighed at ``costs``."""
    best = candidates[1]
    return Finding(
        0,
        Option(decision.chosen, costs[0]),
        Option(tuple(cards_of(best)), costs[1]),
        _pass_facts(decision.view, best),
    )


def judge_play(
    decision: Decision, seed: int, budget_ms: float = REVIEW_BUDGET_MS, deals: int | None = None
) -> Finding | None:
    """One play decision against the `expert`'s choice (None: it chose the same, or
    nothing could be chosen). One job of the worker pool."""
    view = decision.view
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
