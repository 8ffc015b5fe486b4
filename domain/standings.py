"""Scores, standings and ratings as storage hands them out.

Scores follow the engine: an ``int`` in every variant but Complex Hearts, where a score
is a Gaussian integer held as a ``complex``. Standings never mix the two: every query
takes a ``score_kind`` (``"points"`` for all real-valued games, 2 to 6 players, Omnibus
included; ``"complex"`` for Complex Hearts), because an average of 7 and 3+4i means
nothing. Within Complex Hearts, "best" and "worst" compare magnitudes |z|, as the game does.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from engine import Rules
from ratings import PROVISIONAL_GAMES, Pool, Skill

from .games import GameStatus, StoredSeat

ScoreKind = Literal["points", "complex"]
Score = int | complex


def score_kind_of(rules: Rules) -> ScoreKind:
    """Which standings a game with these rules counts towards."""
    return "complex" if rules.variant == "complex" else "points"


@dataclass(frozen=True)
class HandLine:
    """One scored hand of a table: each seat's points and running totals."""

    hand_number: int
    points: tuple[Score, ...]
    totals: tuple[Score, ...]
    shooter: int | None


@dataclass(frozen=True)
class GameTable:
    """The score table of one game: who sits where, hand by hand, and the totals."""

    game_id: int
    status: GameStatus
    score_kind: ScoreKind
    seats: tuple[StoredSeat, ...]
    hands: tuple[HandLine, ...]
    totals: tuple[Score, ...]
    winners: tuple[int, ...]


@dataclass(frozen=True)
class PlayerStanding:
    """One player's record over finished games (in one chat, or everywhere).

    ``average_per_hand`` is a float for ``"points"`` and a complex for ``"complex"``;
    ``best_game``/``worst_game`` are final totals (lowest and highest; by magnitude in
    Complex Hearts).
    """

    user_id: int
    display_name: str
    score_kind: ScoreKind
    games_played: int
    games_won: int
    hands_played: int
    average_per_hand: float | complex
    moons_shot: int
    best_game: Score
    worst_game: Score

    @property
    def win_rate(self) -> float:
        return self.games_won / self.games_played if self.games_played else 0.0


@dataclass(frozen=True)
class PlayerGame:
    """One finished game in a player's history."""

    game_id: int
    chat_id: int
    finished_at: datetime
    score_kind: ScoreKind
    players: int
    seat: int
    total: Score
    place: int
    won: bool
    hands: int
    moons: int


@dataclass(frozen=True)
class RatingEntry:
    """A player's rating in one scope (a chat, or overall) and pool.

    ``player`` is a person's user id, or a computer level's negative id
    (`ratings.COMPUTER_PLAYERS`). ``place`` counts people only: 1 + the people
    rated above; ``rated`` is how many people the scope has.
    """

    player: int
    display_name: str
    skill: Skill
    games: int
    place: int
    rated: int

    @property
    def provisional(self) -> bool:
        return self.games < PROVISIONAL_GAMES


@dataclass(frozen=True)
class RatingChange:
    """What one game did to one player's rating in one scope (``chat_id`` 0: overall)."""

    game_id: int
    chat_id: int
    pool: Pool
    player: int
    seat: int
    weight: float
    before: Skill
    after: Skill
    finished_at: datetime

    @property
    def shown_change(self) -> int:
        return self.after.shown - self.before.shown


@dataclass(frozen=True)
class RebuildReport:
    """`Storage.rebuild_ratings`: games rated again, and stored values that came out
    different (0 unless the model or its constants changed)."""

    games: int
    values: int
    differing: int
