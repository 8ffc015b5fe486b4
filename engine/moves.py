"""A move as data: what the journal stores and what replaying it applies.

>>> Move.play(1, "QS").to_dict()
{'kind': 'play', 'seat': 1, 'cards': ['QS']}
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .cards import Card
from .events import Event
from .game import Game
from .rules import MOON_CHOICES

MoveKind = Literal["pass", "play", "moon"]


@dataclass(frozen=True)
class Move:
    """One player's move: pass three cards, play a card, or choose the moon option."""

    kind: MoveKind
    seat: int
    cards: tuple[Card, ...] = ()
    choice: str | None = None

    @classmethod
    def pass_cards(cls, seat: int, cards: Sequence[Card | str]) -> Move:
        return cls("pass", seat, tuple(c if isinstance(c, Card) else Card.parse(c) for c in cards))

    @classmethod
    def play(cls, seat: int, card: Card | str) -> Move:
        return cls("play", seat, (card if isinstance(card, Card) else Card.parse(card),))

    @classmethod
    def moon(cls, seat: int, choice: str) -> Move:
        return cls("moon", seat, (), choice)

    def apply(self, game: Game) -> list[Event]:
        """Make this move in ``game``; raises `IllegalMove` and changes nothing if illegal."""
        if self.kind == "pass":
            return game.pass_cards(self.seat, self.cards)
        if self.kind == "play":
            return game.play(self.seat, self.cards[0])
        assert self.choice is not None
        return game.choose_moon(self.seat, self.choice)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind, "seat": self.seat}
        if self.kind == "moon":
            data["choice"] = self.choice
        else:
            data["cards"] = [c.code for c in self.cards]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Move:
        """Read `to_dict` output; raises `ValueError` if it is not a move."""
        kind = data.get("kind")
        seat = data.get("seat")
        if isinstance(seat, bool) or not isinstance(seat, int):
            raise ValueError(f"A move needs a seat number, not {seat!r}.")
        if kind == "pass":
            cards = data.get("cards")
            if not isinstance(cards, list) or len(cards) != 3:
                raise ValueError("A pass move needs three cards.")
            return cls.pass_cards(seat, [str(c) for c in cards])
        if kind == "play":
            cards = data.get("cards")
            if not isinstance(cards, list) or len(cards) != 1:
                raise ValueError("A play move needs one card.")
            return cls.play(seat, str(cards[0]))
        if kind == "moon":
            choice = data.get("choice")
            if choice not in MOON_CHOICES:
                raise ValueError(f"{choice!r} is not a moon choice.")
            return cls.moon(seat, str(choice))
        raise ValueError(f"{kind!r} is not a kind of move.")
