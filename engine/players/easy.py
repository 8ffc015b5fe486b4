"""The `easy` player: three random cards to pass, a random legal card to play."""

from __future__ import annotations

from ..cards import CARDS, Card, cards_of
from ..view import SeatView
from .knowledge import decision_rng
from .moon import best_standing_choice


class EasyPlayer:
    level = "easy"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def choose_pass(self, view: SeatView, budget_ms: float = 300) -> list[Card]:
        rng = decision_rng(self.seed, view, "pass")
        return sorted(rng.sample(cards_of(view.hand_mask), 3))

    def choose_play(self, view: SeatView, budget_ms: float = 300) -> Card:
        rng = decision_rng(self.seed, view, "play")
        return rng.choice([CARDS[c.index] for c in cards_of(view.legal_mask)])

    def choose_moon(self, view: SeatView, budget_ms: float = 300) -> str:
        return best_standing_choice(view)
