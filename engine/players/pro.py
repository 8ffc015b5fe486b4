"""The `pro` player of RULES.md §7: passes as `standard`; plays by sampling deals of the
unseen cards (keeping shown voids and the cards it passed), playing each out with the
`standard` policy for every seat, and choosing the card of lowest average hand score.

"Hand score" is the seat's points for the hand (a moon counted with the rule book's
default choice); in Complex Hearts, how much the hand grows the magnitude of its total.
"""

from __future__ import annotations

import time

from ..cards import CARDS, Card
from ..scoring import Score
from ..view import SeatView
from .knowledge import Knowledge, decision_rng
from .moon import best_standing_choice
from .playout import hand_cost, standard_policy
from .sampling import evaluate_cards, pick
from .standard import StandardPlayer, standard_card

PRO_DEALS = 64
"""Deals sampled per decision: fits the bot's 300 ms budget with room on this machine."""


class ProPlayer:
    level = "pro"

    def __init__(self, seed: int = 0, deals: int = PRO_DEALS) -> None:
        self.seed = seed
        self.deals = deals
        self._standard = StandardPlayer(seed)

    def choose_pass(self, view: SeatView, budget_ms: float = 300) -> list[Card]:
        return self._standard.choose_pass(view, budget_ms)

    def choose_play(self, view: SeatView, budget_ms: float = 300) -> Card:
        start = time.perf_counter()
        legal = view.legal_mask
        rules = view.rules
        trick = [c.index for _, c in view.trick]
        preferred = standard_card(rules, legal, trick)
        if legal & (legal - 1) == 0:
            return CARDS[preferred]
        know = Knowledge.from_view(view)
        seat = view.seat
        total = view.scores[seat]

        def utility(points: tuple[Score, ...]) -> float:
            return hand_cost(rules, total, points[seat])

        costs = evaluate_cards(
            rules,
            know,
            legal,
            decision_rng(self.seed, view, "pro"),
            self.deals,
            [standard_policy] * rules.players,
            utility,
            start + budget_ms / 1000 * 0.8,
            totals=view.scores,
        )
        return CARDS[pick(costs, preferred)]

    def choose_moon(self, view: SeatView, budget_ms: float = 300) -> str:
        return best_standing_choice(view)
