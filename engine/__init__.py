"""The rules of Hearts and its computer players: pure Python, no I/O.

>>> from engine import Card, Rules, Game
>>> game = Game(Rules(players=4), seed=7)
>>> game.phase
'pass'
"""

# First: `native` chooses which build of the hot modules the imports below load.
from . import native
from .cards import Card
from .errors import IllegalMove
from .events import (
    CardPlayed,
    CardsPassed,
    CardsReceived,
    Event,
    GameOver,
    HandScored,
    HandStarted,
    HeartsBroken,
    MoonShot,
    TrickWon,
)
from .game import Game, pass_target
from .moves import Move
from .records import HandResult, TrickRecord
from .rules import Rules
from .scoring import magnitude_squared
from .view import PublicView, SeatView

__all__ = [
    "Card",
    "CardPlayed",
    "CardsPassed",
    "CardsReceived",
    "Event",
    "Game",
    "GameOver",
    "HandResult",
    "HandScored",
    "HandStarted",
    "HeartsBroken",
    "IllegalMove",
    "MoonShot",
    "Move",
    "PublicView",
    "Rules",
    "SeatView",
    "TrickRecord",
    "TrickWon",
    "magnitude_squared",
    "native",
    "pass_target",
]
