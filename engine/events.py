"""What a move caused, as data. Each move returns a list of these, in order.

Events are named tuples: cheap to make on the hot path of a playout, immutable, and
printed the way they are written.
"""

from __future__ import annotations

from typing import NamedTuple

from .cards import Card
from .rules import MoonChoice, PassDirection

Score = int | complex


class HandStarted(NamedTuple):
    hand_number: int
    dealer: int
    pass_direction: PassDirection
    kind: str = "hand_started"


class CardsPassed(NamedTuple):
    """``seat`` has chosen its cards (what they are is told only to that seat)."""

    seat: int
    kind: str = "cards_passed"


class CardsReceived(NamedTuple):
    """After everyone has chosen: ``seat`` received ``cards`` from ``from_seat``."""

    seat: int
    from_seat: int
    cards: tuple[Card, ...]
    kind: str = "cards_received"


class CardPlayed(NamedTuple):
    seat: int
    card: Card
    kind: str = "card_played"


class HeartsBroken(NamedTuple):
    seat: int
    kind: str = "hearts_broken"


class TrickWon(NamedTuple):
    seat: int
    cards: tuple[tuple[int, Card], ...]
    points: Score
    kind: str = "trick_won"


class MoonShot(NamedTuple):
    """``seat`` took every point card; ``choice`` is None while the shooter must choose."""

    seat: int
    choice: MoonChoice | None
    kind: str = "moon_shot"


class HandScored(NamedTuple):
    hand_number: int
    points: tuple[Score, ...]
    totals: tuple[Score, ...]
    shooter: int | None
    kind: str = "hand_scored"


class GameOver(NamedTuple):
    winners: tuple[int, ...]
    totals: tuple[Score, ...]
    kind: str = "game_over"


Event = (
    HandStarted
    | CardsPassed
    | CardsReceived
    | CardPlayed
    | HeartsBroken
    | TrickWon
    | MoonShot
    | HandScored
    | GameOver
)
