"""Computer players (RULES.md §7): `easy`, `standard`, `pro` and `expert`.

Every player decides from a `SeatView` alone and answers within a time budget:

>>> from engine import Game, Rules
>>> from engine.players import make_player
>>> game = Game(Rules(), seed=1)
>>> player = make_player("standard", seed=1)
>>> len(player.choose_pass(game.view(0), budget_ms=300))
3

The same view and seed always give the same decision.
"""

from __future__ import annotations

from typing import Final, Protocol

from ..cards import Card
from ..view import SeatView
from .easy import EasyPlayer
from .expert import ExpertPlayer
from .pro import ProPlayer
from .standard import StandardPlayer

LEVELS: Final = ("easy", "standard", "pro", "expert")

FLOOR_MS: Final = {"easy": 0.0, "standard": 0.0, "pro": 100.0, "expert": 100.0}
"""Each level's floor: the least budget (ms) it still plays at its level with, which the bot
gives when its worker pool is busy rather than make a person wait. `easy` and `standard`
do not sample (instant whatever the budget). `pro` samples a fixed `PRO_DEALS`, and
`expert` never fewer than `MIN_DEALS`: at 100 ms the `expert` takes MIN_DEALS deals in
most decisions (more late in a hand, where deals cost little) and its time limit (80% of
the budget) lets them finish. Measured on the 2-core build machine under load, over 485
play decisions: at 100 ms 21 ms on average (p90 38 ms), at the usual 300 ms 58 ms (p90
101 ms); MIN_DEALS alone 14 ms (p90 29 ms, the longest 84 ms)."""


class Player(Protocol):
    """What the bot asks a computer player. ``budget_ms`` is the time it may take."""

    level: str

    def choose_pass(self, view: SeatView, budget_ms: float = 300) -> list[Card]:
        """Three cards of ``view.hand`` to pass."""
        ...

    def choose_play(self, view: SeatView, budget_ms: float = 300) -> Card:
        """One card of ``view.legal``."""
        ...

    def choose_moon(self, view: SeatView, budget_ms: float = 300) -> str:
        """``"add_to_others"`` or ``"subtract_from_shooter"``, after shooting the moon."""
        ...


def make_player(level: str, seed: int = 0) -> Player:
    """A computer player of ``level`` (one of `LEVELS`); raises `ValueError` otherwise."""
    if level == "easy":
        return EasyPlayer(seed)
    if level == "standard":
        return StandardPlayer(seed)
    if level == "pro":
        return ProPlayer(seed)
    if level == "expert":
        return ExpertPlayer(seed)
    raise ValueError(f"Unknown player level {level!r}: choose one of {', '.join(LEVELS)}.")


__all__ = [
    "FLOOR_MS",
    "LEVELS",
    "EasyPlayer",
    "ExpertPlayer",
    "Player",
    "ProPlayer",
    "StandardPlayer",
    "make_player",
]
