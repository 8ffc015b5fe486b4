"""Choosing the three cards to pass by playing the hand out (the `expert`'s and the coach's).

The rule of thumb (`expert_pass`: the Q♠ without four low spades to guard it, the A♠/K♠
beside it, high hearts, a short suit emptied) is a good first guess, but a hand is more
than its cards one by one. The search weighs whole passes:

- **Candidates** (`pass_options`): the rule's pass, every three of the seven cards the rule
  finds most dangerous to keep, and each pass that empties a short suit (clubs, diamonds or
  hearts of at most three cards, filled up with the most dangerous cards).
- **Deals**: the cards this seat does not hold are dealt at random to the others (nothing
  is known of them at the pass). The others pass as the rule would; this seat passes the
  candidate; the hand is then played to its end with the `expert`'s playout policy
  (`smart_card`) for every seat, moon shots scored as the rules do. In the standard
  variant the play-out is moon-aware (`MOON_PASS`, `shooting.play_out_moon`): a seat that
  has taken every point so far, and enough of them, runs for the moon and the others stop
  it, so a pass that hands a neighbour the cards to shoot with costs what its moons cost.
  Every candidate is played on the same deals (common random numbers), so their costs
  compare fairly.
- **Two rounds** (`ranked_passes`): every candidate over a few deals, then the best few over
  many more; the pass of lowest expected cost over all its deals wins, the rule's pass on
  a tie. The deals come from the decision's own generator, so the same view and seed give
  the same pass.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations

from ..cards import SPADES, SUIT_MASKS, Mask, deck_mask, lowest, mask_of
from ..rules import Rules
from ..scoring import Score
from .pass_rule import deal_costs, keep_mask
from .playout import play_out
from .shooting import play_out_moon
from .smart import smart_card

PassModel = Callable[[Rules, Mask], Mask]
"""How the other seats are taken to pass: (rules, their hand) -> the three cards."""

DANGEROUS = 7
"""How many of the rule's most dangerous cards the candidates are made from (35 passes)."""
SHORTLIST = 5
"""How many candidates go on to the second round."""
FIRST_DEALS = 120
"""Deals every candidate is played on, at a budget of `PASS_BUDGET_MS`. Against its own
costs on 3,000 reference deals (`bench passes`), the pass chosen with 60 deals here cost
0.12 to 0.19 points more than the best candidate on average, with 120 deals 0.09 (README,
"Strength")."""
MORE_DEALS = 300
"""Further deals for the shortlist, at a budget of `PASS_BUDGET_MS`."""
MOON_PASS = True
"""Whether the passes' deals are played out moon-aware (`shooting.play_out_moon`, every
seat stopping a runner) in the standard variant: a pass that hands another seat the
cards to shoot with, or keeps this seat's own shot, shows in its cost."""
PASS_BUDGET_MS = 300.0
"""The budget the deal counts above are set for; a smaller budget plays fewer deals
(never under a fifth), a larger one no more."""


def pass_options(
    rules: Rules,
    hand: Mask,
    rule_pass: Mask,
    danger: Callable[[int], float],
) -> list[Mask]:
    """The passes the search weighs: ``rule_pass`` first, then every three of the
    `DANGEROUS` cards of highest ``danger``, then each pass that empties a short side
    suit (no duplicates). A card the rule keeps (`keep_mask`) is in none but the first."""
    keep = keep_mask(rules)
    cards = [c for c in range(52) if hand >> c & 1 and not keep >> c & 1]
    ranked = sorted(cards, key=lambda c: (-danger(c), c))
    out = [rule_pass]
    seen = {rule_pass}
    for combo in combinations(ranked[:DANGEROUS], 3):
        m = mask_of(combo)
        if m not in seen:
            seen.add(m)
            out.append(m)
    for suit in range(4):
        if suit == SPADES:
            continue
        short = hand & SUIT_MASKS[suit]
        if 1 <= short.bit_count() <= 3 and not short & keep:
            m = short
            for c in ranked:
                if m.bit_count() == 3:
                    break
                m |= 1 << c
            if m not in seen:
                seen.add(m)
                out.append(m)
    return out


def unseen_cards(rules: Rules, hand: Mask) -> list[int]:
    """The cards of the deck not in ``hand``, in order: a round's deals start from them."""
    deck = deck_mask(rules.players)
    return [c for c in range(52) if deck >> c & 1 and not hand >> c & 1]


def pass_costs(
    rules: Rules,
    seat: int,
    hand: Mask,
    pass_to: int,
    scores: Sequence[Score],
    candidates: Sequence[Mask],
    rng: random.Random,
    deals: int,
    others_pass: PassModel,
    deadline: float = float("inf"),
    unseen: list[int] | None = None,
    products: list[float] | None = None,
) -> tuple[list[float], int]:
    """Each candidate pass's summed cost for ``seat`` over up to ``deals`` deals (the same
    deals for every candidate), and how many deals were played (fewer only when
    ``deadline``, a `time.perf_counter` value, passed; never fewer than one). With
    ``products`` (k·k numbers for k candidates), each deal adds the products of its costs,
    candidate by candidate (``products[i * k + j]``): what `paired_margin` reads.

    Each deal shuffles the cards ``seat`` does not see further: ``unseen``, the list left
    by the deals before (`unseen_cards`, in order, when None), goes on from where they
    left it, so the round's deals played in pieces are the deals played in one go."""
    n = rules.players
    size = hand.bit_count()
    offset = (pass_to - seat) % n
    deck = deck_mask(n)
    if unseen is None:
        unseen = unseen_cards(rules, hand)
    policies = [smart_card] * n
    playout = play_out_moon if MOON_PASS and rules.variant == "standard" else play_out
    k = len(candidates)
    sums = [0.0] * k
    costs = [0.0] * k
    done = 0
    for _ in range(deals):
        rng.shuffle(unseen)
        hands = [0] * n
        at = 0
        for s in range(n):
            if s == seat:
                hands[s] = hand
                continue
            hands[s] = mask_of(unseen[at : at + size])
            at += size
        dead = mask_of(unseen[at:])
        first = lowest(deck & ~dead & SUIT_MASKS[0])
        passes = [others_pass(rules, h) if s != seat else 0 for s, h in enumerate(hands)]
        deal_costs(rules, seat, hands, passes, candidates, offset, first, dead, scores, playout,
                   policies, costs)  # fmt: skip
        for i, cost in enumerate(costs):
            sums[i] += cost
        if products is not None:
            for i, a in enumerate(costs):
                for j, b in enumerate(costs):
                    products[i * k + j] += a * b
        done += 1
        if time.perf_counter() > deadline:
            break
    return sums, done


MARGIN_SE = 2.0
"""How many standard errors apart two passes' costs must be to be told apart: closer, the
search cannot say which is better (the coach calls them as good as each other)."""


def paired_margin(
    sums: Sequence[float], products: Sequence[float], deals: int, i: int, j: int, over: int
) -> float:
    """How far apart the costs of candidates ``i`` and ``j`` may be by chance alone
    (`MARGIN_SE` standard errors of their difference): the spread of their difference deal
    by deal, read from ``deals`` deals (their `pass_costs` sums and products), over a mean
    of ``over`` deals. Infinite with fewer than two deals to read it from."""
    if deals < 2:
        return math.inf
    k = len(sums)
    mean = (sums[i] - sums[j]) / deals
    square = (products[i * k + i] + products[j * k + j] - 2 * products[i * k + j]) / deals
    variance = max(0.0, square - mean * mean) * deals / (deals - 1)
    return MARGIN_SE * math.sqrt(variance / max(1, over))


def ranked_passes(
    rules: Rules,
    seat: int,
    hand: Mask,
    pass_to: int,
    scores: Sequence[Score],
    rng: random.Random,
    search: PassSearch,
    others_pass: PassModel,
    deadline: float = float("inf"),
) -> list[tuple[Mask, float]]:
    """The passes of the second round, cheapest first (the earlier candidate on a tie),
    each with its expected cost over all its deals: every candidate of the ``search``
    (`PassSearch.start`) is played on the first deals, the `SHORTLIST` best on more, in
    one go. Past ``deadline`` (a `time.perf_counter` value) a round plays no more deals
    (at least one each)."""
    sums, done = pass_costs(
        rules, seat, hand, pass_to, scores, search.candidates, rng, search.first, others_pass,
        deadline,
    )  # fmt: skip
    order = search.shortlist(sums)
    extra, more_done = pass_costs(
        rules, seat, hand, pass_to, scores, [search.candidates[i] for i in order], rng,
        search.more, others_pass, deadline,
    )  # fmt: skip
    return search.ranked(sums, done, order, extra, more_done)


@dataclass(frozen=True)
class PassSearch:
    """The two rounds of `ranked_passes`, as steps: the candidates and how many deals each
    round plays (`start`), the round-one candidates that go on (`shortlist`), and the
    ranking once both rounds are played (`ranked`). The rounds' deals can be played in
    pieces by whoever holds the generator (the bot's worker pool plays a hint's pass search
    in short jobs); played in order from the same generator, they give what one go gives."""

    candidates: tuple[Mask, ...]
    first: int
    """Deals of round one, every candidate on each."""
    more: int
    """Deals of round two, the shortlist on each."""

    @staticmethod
    def start(
        rules: Rules,
        hand: Mask,
        rule_pass: Mask,
        danger: Callable[[int], float],
        budget_ms: float = PASS_BUDGET_MS,
    ) -> PassSearch:
        candidates = pass_options(rules, hand, rule_pass, danger)
        scale = min(1.0, max(0.2, budget_ms / PASS_BUDGET_MS))
        first, more = max(1, round(FIRST_DEALS * scale)), max(1, round(MORE_DEALS * scale))
        return PassSearch(tuple(candidates), first, more)

    @staticmethod
    def shortlist(sums: Sequence[float]) -> list[int]:
        """The candidates (their places) that go on to round two, best first."""
        return sorted(range(len(sums)), key=lambda i: (sums[i], i))[:SHORTLIST]

    def ranked(
        self,
        sums: Sequence[float],
        done: int,
        order: Sequence[int],
        extra: Sequence[float],
        more_done: int,
    ) -> list[tuple[Mask, float]]:
        """The shortlist ``order``, cheapest first (the earlier candidate on a tie), each
        with its expected cost over both rounds' deals (``done`` and ``more_done``)."""
        total = [sums[i] + extra[j] for j, i in enumerate(order)]
        ranking = sorted(range(len(order)), key=lambda j: (total[j], order[j]))
        return [(self.candidates[order[j]], total[j] / (done + more_done)) for j in ranking]
