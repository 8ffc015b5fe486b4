"""Rebuilding a game from its origin and its journal; shared by every backend."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from engine import Game, Move, Rules


@dataclass(frozen=True)
class Origin:
    """What `Game(...)` was called with, so that replay deals the same cards.

    ``first_dealer`` is None when the game drew its first dealer from the seed: the engine
    then consumes one random number before the first shuffle, so passing the drawn dealer
    explicitly would deal different cards.
    """

    rules: Rules
    seed: int
    first_dealer: int | None
    deals: list[list[list[str]]]
    deal_key: bytes | None = None
    """The secret the hands are dealt from (`engine.fair`); None for a game dealt from its
    seed, as every game before verifiable deals was."""

    def new_game(self) -> Game:
        return Game(
            self.rules,
            seed=self.seed,
            deals=self.deals,
            first_dealer=self.first_dealer,
            deal_key=self.deal_key,
        )

    @classmethod
    def of(cls, game: Game) -> Origin:
        """The origin of a game that has had no move yet; raises `ValueError` if none fits."""
        wanted = json.loads(game.to_json())
        for first_dealer in (game.first_dealer, None):
            origin = cls(game.rules, game.seed, first_dealer, game.fixed_deals, game.deal_key)
            if json.loads(origin.new_game().to_json()) == wanted:
                return origin
        raise ValueError(
            "This game cannot be rebuilt from its rules, seed, deals and first dealer: "
            "start storing it before any move is made."
        )


class ReplayError(ValueError):
    """The journal does not replay: which move, and why."""

    def __init__(self, seq: int, why: str) -> None:
        super().__init__(f"move {seq} does not replay: {why}")
        self.seq = seq
        self.why = why


def replay(origin: Origin, moves: Iterable[tuple[int, dict[str, Any]]]) -> Game:
    """Play the journal ``(seq, move dict)`` from the start; raises `ReplayError`."""
    game = origin.new_game()
    expected = 1
    for seq, data in moves:
        if seq != expected:
            raise ReplayError(seq, f"the journal skips from move {expected - 1} to {seq}")
        try:
            Move.from_dict(data).apply(game)
        except ValueError as error:  # IllegalMove is a ValueError too
            raise ReplayError(seq, str(error)) from None
        expected += 1
    return game


def same_state(a: str, b: str) -> bool:
    """Whether two snapshots hold the same game (whitespace and key order aside)."""
    if a == b:
        return True
    loaded_a: Any = json.loads(a)
    loaded_b: Any = json.loads(b)
    return bool(loaded_a == loaded_b)


def split_score(score: int | complex) -> tuple[int, int]:
    """A score as (real, imaginary) integers."""
    if isinstance(score, complex):
        return round(score.real), round(score.imag)
    return int(score), 0


def join_score(re: int, im: int, is_complex: bool) -> int | complex:
    return complex(re, im) if is_complex else re
