"""Finished tricks and scored hands, as kept in a game's history."""

from __future__ import annotations

from typing import NamedTuple

from .cards import Card
from .rules import MoonChoice, PassDirection
from .scoring import Score


class TrickRecord(NamedTuple):
    """A finished trick: who led, the cards in play order, who took it."""

    leader: int
    plays: tuple[tuple[int, Card], ...]
    winner: int


class HandResult(NamedTuple):
    """One scored hand."""

    hand_number: int
    dealer: int
    pass_direction: PassDirection
    points: tuple[Score, ...]
    totals: tuple[Score, ...]
    shooter: int | None = None
    moon_choice: MoonChoice | None = None
    dead: tuple[Card, ...] = ()
