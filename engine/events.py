"""What a move caused, as data. Each move returns a list of these, in order."""

from __future__ import annotations

from dataclasses import dataclass

from .cards import Card
from .rules import MoonChoice, PassDirection

Score = int | complex


@dataclass(frozen=True)
class HandStarted:
    hand_number: int
    dealer: int
    pass_direction: PassDirection
    kind: str = "hand_started"


@dataclass(frozen=True)
class CardsPassed:
    """``seat`` has chosen its cards (what they are is told only to that seat)."""

    seat: int
    kind: str = "cards_passed"


@dataclass(frozen=True)
class CardsReceived:
    """After everyone has chosen: ``seat`` received ``cards`` from ``from_seat``."""

    seat: int
    from_seat: int
    cards: tuple[Card, ...]
    kind: str = "cards_received"


@dataclass(frozen=True)
class CardPlayed:
    seat: int
    card: Card
    kind: str = "card_played"


@dataclass(frozen=True)
class HeartsBroken:
    seat: int
    kind: str = "hearts_broken"


@dataclass(frozen=True)
class TrickWon:
    seat: int
    cards: tuple[tuple[int, Card], ...]
    points: Score
    kind: str = "trick_won"


@dataclass(frozen=True)
class MoonShot:
    """``seat`` took every point card; ``choice`` is None while the shooter must choose."""

    seat: int
    choice: MoonChoice | None
    kind: str = "moon_shot"


@dataclass(frozen=True)
class HandScored:
    hand_number: int
    points: tuple[Score, ...]
    totals: tuple[Score, ...]
    shooter: int | None
    kind: str = "hand_scored"


@dataclass(frozen=True)
class GameOver:
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
