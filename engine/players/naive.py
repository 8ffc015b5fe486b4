"""The naive shooter of issue 51: a trivial player that still shot the moon against the
`standard` computers twice in a row. It is no level of the bot: the arena seats it
(``--seats naive,standard,standard,standard``, or ``--moons``) to count how often it
shoots against each level.

It reads its cards in the order the DM showed them then (♠ ♥ ♣ ♦, each low to high),
passes the three right-most, and plays the first legal card.
"""

from __future__ import annotations

from ..cards import Card
from ..view import SeatView
from .moon import best_standing_choice

SHOWN_ORDER = "SHCD"
"""The suits left to right as the DM showed them (issue 51), each low to high."""


def shown(cards: list[Card]) -> list[Card]:
    """``cards`` in the DM's order of issue 51."""
    return sorted(cards, key=lambda c: (SHOWN_ORDER.index(c.suit), c.index))


class NaiveShooter:
    level = "naive"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def choose_pass(self, view: SeatView, budget_ms: float = 300) -> list[Card]:
        return shown(list(view.hand))[-3:]

    def choose_play(self, view: SeatView, budget_ms: float = 300) -> Card:
        return shown(list(view.legal))[0]

    def choose_moon(self, view: SeatView, budget_ms: float = 300) -> str:
        return best_standing_choice(view)
