"""A finished hand, rebuilt face up from a game's start and its moves, to be replayed.

The builder plays the moves again on a copy of the game as it was dealt (what the journal
stores) and keeps, for each hand that was scored: the deal (every seat's cards), the
passes (who gave what to whom; none on a hold hand), each trick (who led, the cards in the
order played, who took it, its points), the hand's points and totals, and the moon. A hand
that is not over is never built: `hand_replay` refuses it with `HandNotOver`, so nobody
sees a hand's cards before it ends.

`frames` turns a hand into the steps a viewer walks through, forward and back: the deal,
the passes, each card played (the trick as it stands, and who took it once complete), and
the score. Each frame says every seat's cards at that point, face up.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .cards import Card, cards_of, shown_order
from .events import CardsReceived, HandScored, TrickWon
from .game import Game
from .moves import Move
from .rules import MoonChoice, PassDirection
from .scoring import Score


class HandNotOver(ValueError):
    """The hand asked for has not been scored (it is being played, or never was)."""

    def __init__(self, hand_number: int) -> None:
        super().__init__(f"hand {hand_number} is not over")
        self.hand_number = hand_number


@dataclass(frozen=True)
class ReplayPass:
    """``giver`` passed ``cards`` to ``receiver``."""

    giver: int
    receiver: int
    cards: tuple[Card, ...]


@dataclass(frozen=True)
class ReplayTrick:
    """One trick: who led, the cards in the order played, who took it, what it was worth."""

    number: int
    leader: int
    plays: tuple[tuple[int, Card], ...]
    winner: int
    points: Score


@dataclass(frozen=True)
class HandReplay:
    """One finished hand, face up."""

    hand_number: int
    dealer: int
    pass_direction: PassDirection
    deal: tuple[tuple[Card, ...], ...]
    """Each seat's cards as dealt, before the passes."""
    dead: tuple[Card, ...]
    """The dead cards (two-player Hearts), else none."""
    passes: tuple[ReplayPass, ...]
    tricks: tuple[ReplayTrick, ...]
    points: tuple[Score, ...]
    totals: tuple[Score, ...]
    shooter: int | None
    moon_choice: MoonChoice | None
    moves: int
    """How many moves of the journal the game had made when this hand was scored."""

    @property
    def players(self) -> int:
        return len(self.deal)

    def taken(self) -> tuple[Score, ...]:
        """What each seat's tricks were worth, before any moon (summed trick by trick: in
        Complex Hearts a pile scores as a whole, so the hand's `points` are what counts)."""
        taken: list[Score] = [0] * self.players
        for trick in self.tricks:
            taken[trick.winner] = taken[trick.winner] + trick.points
        return tuple(taken)


@dataclass
class _Building:
    hand_number: int
    dealer: int
    pass_direction: PassDirection
    deal: tuple[tuple[Card, ...], ...]
    dead: tuple[Card, ...]
    passes: list[ReplayPass]
    tricks: list[ReplayTrick]


def _begin(game: Game) -> _Building:
    return _Building(
        game.hand_number,
        game.dealer,
        game.pass_direction,
        tuple(tuple(game.hand(s)) for s in range(game.rules.players)),
        tuple(cards_of(game.dead)),
        [],
        [],
    )


def replays(start: Game, moves: Iterable[Move]) -> list[HandReplay]:
    """Every hand scored in the game ``start`` (as dealt, before any move) after ``moves``.

    ``start`` is not changed. A move the game refuses raises the engine's `IllegalMove`.
    """
    game = start.copy()
    done: list[HandReplay] = []
    building = _begin(game)
    for count, move in enumerate(moves, 1):
        for event in move.apply(game):
            if isinstance(event, CardsReceived):
                building.passes.append(ReplayPass(event.from_seat, event.seat, event.cards))
            elif isinstance(event, TrickWon):
                number = len(building.tricks) + 1
                leader = event.cards[0][0]
                trick = ReplayTrick(number, leader, event.cards, event.seat, event.points)
                building.tricks.append(trick)
            elif isinstance(event, HandScored):
                result = game.hand_history[event.hand_number - 1]
                done.append(
                    HandReplay(
                        building.hand_number,
                        building.dealer,
                        building.pass_direction,
                        building.deal,
                        building.dead,
                        tuple(sorted(building.passes, key=lambda p: p.giver)),
                        tuple(building.tricks),
                        result.points,
                        result.totals,
                        result.shooter,
                        result.moon_choice,
                        count,
                    )
                )
                if game.phase != "over":
                    building = _begin(game)
    return done


def hand_replay(start: Game, moves: Iterable[Move], hand_number: int) -> HandReplay:
    """Hand ``hand_number`` of the game, face up; raises `HandNotOver` unless it was scored."""
    for hand in replays(start, moves):
        if hand.hand_number == hand_number:
            return hand
    raise HandNotOver(hand_number)


# ---------------------------------------------------------------------- frames

Step = Literal["deal", "pass", "card", "score"]


@dataclass(frozen=True)
class Frame:
    """One step of a replay, and the table as it then is, face up."""

    step: Step
    hands: tuple[tuple[Card, ...], ...]
    """Each seat's cards at this step."""
    trick: int
    """The trick being played (1…), 0 before the first card."""
    table: tuple[tuple[int, Card], ...]
    """The cards of that trick played so far, in order."""
    winner: int | None
    """Who took the trick, once its last card is down."""
    taken: tuple[Score, ...]
    """What each seat's tricks are worth so far."""


def frames(hand: HandReplay) -> list[Frame]:
    """The steps of a hand: the deal, the passes (not on a hold hand), each card, the score."""
    n = hand.players
    held = [set(cards) for cards in hand.deal]
    taken: list[Score] = [0] * n

    def now() -> tuple[tuple[Card, ...], ...]:
        return tuple(tuple(shown_order(h)) for h in held)

    out = [Frame("deal", now(), 0, (), None, tuple(taken))]
    if hand.passes:
        for p in hand.passes:
            held[p.giver].difference_update(p.cards)
        for p in hand.passes:
            held[p.receiver].update(p.cards)
        out.append(Frame("pass", now(), 0, (), None, tuple(taken)))
    for trick in hand.tricks:
        for k, (seat, card) in enumerate(trick.plays):
            held[seat].discard(card)
            last = k == len(trick.plays) - 1
            if last:
                taken[trick.winner] = taken[trick.winner] + trick.points
            winner = trick.winner if last else None
            out.append(
                Frame("card", now(), trick.number, trick.plays[: k + 1], winner, tuple(taken))
            )
    out.append(Frame("score", now(), len(hand.tricks), (), None, tuple(taken)))
    return out


# ---------------------------------------------------------------------- as data


def score_data(score: Score) -> int | list[int]:
    """A score as JSON: a whole number, or [real, imaginary] for Complex Hearts."""
    if isinstance(score, complex):
        return [round(score.real), round(score.imag)]
    return score


def _codes(cards: Sequence[Card]) -> list[str]:
    """A set of cards (a hand, a pass) as codes, in the order every screen shows."""
    return [c.code for c in shown_order(cards)]


def hand_data(hand: HandReplay) -> dict[str, Any]:
    """The hand and its frames as JSON (card codes), for the table page."""
    return {
        "hand": hand.hand_number,
        "dealer": hand.dealer,
        "pass_direction": hand.pass_direction,
        "deal": [_codes(cards) for cards in hand.deal],
        "dead": _codes(hand.dead),
        "passes": [
            {"from": p.giver, "to": p.receiver, "cards": _codes(p.cards)} for p in hand.passes
        ],
        "tricks": [
            {
                "number": t.number,
                "leader": t.leader,
                "plays": [[s, c.code] for s, c in t.plays],
                "winner": t.winner,
                "points": score_data(t.points),
            }
            for t in hand.tricks
        ],
        "points": [score_data(p) for p in hand.points],
        "totals": [score_data(t) for t in hand.totals],
        "shooter": hand.shooter,
        "moon_choice": hand.moon_choice,
        "frames": [
            {
                "step": f.step,
                "hands": [_codes(cards) for cards in f.hands],
                "trick": f.trick,
                "table": [[s, c.code] for s, c in f.table],
                "winner": f.winner,
                "taken": [score_data(t) for t in f.taken],
            }
            for f in frames(hand)
        ],
    }
