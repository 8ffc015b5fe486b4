"""What one seat may know. Computer players and the DM renderer read only this.

`Game.view` is the one place that decides what a seat sees, so a hidden card cannot leak
by accident: other hands, other players' pass choices and the dead cards of the hand in
play are never copied in. This module holds only the view's type and imports no `Game`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .cards import SUIT_MASKS, Card, Mask, cards_of, deck_mask
from .records import HandResult, TrickRecord
from .rules import PassDirection, Rules
from .scoring import Score


@dataclass(frozen=True)
class SeatView:
    """One seat's knowledge of the game at one moment."""

    seat: int
    rules: Rules
    hand_number: int
    dealer: int
    phase: str
    current_player: int | None
    pass_direction: PassDirection
    pass_to: int
    pass_from: int
    hand: tuple[Card, ...]
    hand_mask: Mask
    passed: tuple[Card, ...] | None
    """The cards this seat chose to pass this hand (None before choosing, or on a hold)."""
    received: tuple[Card, ...] | None
    """The cards passed to this seat, once everyone has chosen."""
    waiting_for: tuple[int, ...]
    trick: tuple[tuple[int, Card], ...]
    leader: int | None
    tricks: tuple[TrickRecord, ...]
    hearts_broken: bool
    points_taken: tuple[Score, ...]
    hand_sizes: tuple[int, ...]
    scores: tuple[Score, ...]
    hand_history: tuple[HandResult, ...]
    legal: tuple[Card, ...]
    legal_mask: Mask
    moon_shooter: int | None
    winners: tuple[int, ...]
    first_lead: Card | None
    """The hand's first lead, once this seat holds it or it has been played."""

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def played_mask(self) -> Mask:
        """Every card played this hand, the trick in progress included."""
        m = 0
        for t in self.tricks:
            for _, c in t.plays:
                m |= 1 << c.index
        for _, c in self.trick:
            m |= 1 << c.index
        return m

    @property
    def unseen_mask(self) -> Mask:
        """Cards in play this hand whose place this seat does not know.

        Cards this seat passed are known to be with the receiver until played, so they are
        not counted as unseen. In two-player Hearts the dead cards are among the unseen.
        """
        known = self.hand_mask | self.played_mask
        if self.passed is not None and self.received is not None:
            for c in self.passed:
                known |= 1 << c.index
        return deck_mask(self.players) & ~known

    def voids(self) -> list[set[str]]:
        """For each seat, the suits it has shown it no longer holds (by not following)."""
        return shown_voids(self.players, self.tricks, self.trick)

    def cards_played_by_suit(self) -> dict[str, list[Card]]:
        """The cards played so far this hand, suit by suit (the card-keeping aid)."""
        played = self.played_mask
        return {s: cards_of(played & SUIT_MASKS[i]) for i, s in enumerate("CDSH")}


@dataclass(frozen=True)
class PublicView:
    """What anyone at the table sees, a watcher as much as a player: the seats' scores and
    how many cards each holds, the trick as it is played, the tricks taken, whose move the
    game waits for, the hands scored. It has no field for a card in anyone's hand, for a
    card chosen to pass, or for the dead cards: it cannot carry one (`Game.public_view`)."""

    rules: Rules
    hand_number: int
    dealer: int
    phase: str
    current_player: int | None
    pass_direction: PassDirection
    waiting_for: tuple[int, ...]
    trick: tuple[tuple[int, Card], ...]
    tricks: tuple[TrickRecord, ...]
    hearts_broken: bool
    points_taken: tuple[Score, ...]
    hand_sizes: tuple[int, ...]
    scores: tuple[Score, ...]
    hand_history: tuple[HandResult, ...]
    moon_shooter: int | None
    winners: tuple[int, ...]

    @property
    def players(self) -> int:
        return self.rules.players

    def voids(self) -> list[set[str]]:
        """For each seat, the suits it has shown it no longer holds (by not following)."""
        return shown_voids(self.players, self.tricks, self.trick)

    def cards_played_by_suit(self) -> dict[str, list[Card]]:
        """The cards played so far this hand, suit by suit."""
        played = 0
        for t in self.tricks:
            for _, c in t.plays:
                played |= 1 << c.index
        for _, c in self.trick:
            played |= 1 << c.index
        return {s: cards_of(played & SUIT_MASKS[i]) for i, s in enumerate("CDSH")}


def shown_voids(
    players: int, tricks: Sequence[TrickRecord], trick: Sequence[tuple[int, Card]]
) -> list[set[str]]:
    """For each seat, the suits it has shown it no longer holds: led a suit, it played
    another (in the tricks taken and the trick being played)."""
    result: list[set[str]] = [set() for _ in range(players)]
    for plays in [*(t.plays for t in tricks), *([trick] if trick else [])]:
        led = plays[0][1].suit
        for seat, card in plays[1:]:
            if card.suit != led:
                result[seat].add(led)
    return result
