"""Ratings: OpenSkill's Plackett–Luce model, applied to one finished game.

Each seat is a one-player team ranked by its final total (`rank`, lower is better, equal
ranks a tie). A person who played only part of their seat's moves (a computer player stood
in for the rest) is rated with weight: their rating moves `share` × what it would have
moved for the whole game. OpenSkill multiplies a gain by a player's weight and divides a
loss by it, so the weight passed is `share` for a seat that gains and ``1 / share`` for
one that loses; the direction comes from the same game rated without weights (a weight
changes only its own player's update).

Computer players are rated as one identity per level. When one identity holds several
seats of a game (three `standard` players beside one person), each seat is rated from the
identity's rating before the game and the identity takes the mean of the seats' results.

Pure: no I/O. Nothing here stores anything: `storage` calls `rate_game` inside the transaction that
records a game's last move, and again, in the same order, to rebuild every rating.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from openskill.models import PlackettLuce, PlackettLuceRating

Pool = Literal["main", "two"]
"""Ratings are kept apart for two-player Hearts (a different game) and everything else."""

COMPUTER_PLAYERS: Final[dict[str, int]] = {"easy": -1, "standard": -2, "pro": -3, "expert": -4}
"""A computer level's player id in the ratings (people have their positive Telegram ids)."""
STAND_IN_LEVEL: Final = "standard"
"""The level of the computer player that moves for a person who is away or out of time."""

SCALE: Final = 20.0
BASE: Final = 1000.0
PROVISIONAL_GAMES: Final = 5
"""Fewer rated games than this and a rating is shown as provisional."""


def pool_of(players: int) -> Pool:
    return "two" if players == 2 else "main"


def computer_player(level: str) -> int:
    return COMPUTER_PLAYERS[level]


def level_of(player: int) -> str | None:
    """The computer level a player id stands for, None for a person."""
    return next((level for level, pid in COMPUTER_PLAYERS.items() if pid == player), None)


@dataclass(frozen=True)
class Skill:
    """A rating: the model's mean `mu` and its uncertainty `sigma`."""

    mu: float
    sigma: float

    @property
    def conservative(self) -> float:
        """μ − 3σ: a skill the player is almost surely above."""
        return self.mu - 3 * self.sigma

    @property
    def shown(self) -> int:
        """The number people see: 1000 + 20 × (μ − 3σ); a newcomer starts at 1000."""
        return round(BASE + SCALE * self.conservative)

    @property
    def spread(self) -> int:
        """The uncertainty people see, σ in the shown scale (± 20 × σ)."""
        return round(SCALE * self.sigma)


_MODEL: Final = PlackettLuce()
_MODEL.weight_bounds = None  # weights as given: the default rescales a one-player team's to 2
START: Final = Skill(_MODEL.mu, _MODEL.sigma)


@dataclass(frozen=True)
class SeatResult:
    """One seat of a finished game, as the ratings see it."""

    seat: int
    player: int
    """A person's user id, or `COMPUTER_PLAYERS`' id of the level that played the seat."""
    rank: int
    """Lower is better; equal ranks are a tie."""
    share: float = 1.0
    """The share of the seat's moves its player made themselves (0 < share ≤ 1)."""


@dataclass(frozen=True)
class Change:
    player: int
    seat: int
    weight: float
    before: Skill
    after: Skill


def model() -> PlackettLuce:
    """The model every rating goes through (for tests that check against it)."""
    return _MODEL


def weights_for(seats: Sequence[SeatResult], before: Mapping[int, Skill]) -> list[float] | None:
    """The weight OpenSkill is given for each seat, None when every seat was played whole."""
    if all(s.share >= 1.0 for s in seats):
        return None
    full = _rate(seats, before, None)
    weights = []
    for s, after in zip(seats, full, strict=True):
        start = before.get(s.player, START)
        gains = after.mu >= start.mu
        weights.append(1.0 if s.share >= 1.0 else s.share if gains else 1.0 / s.share)
    return weights


def rate_game(seats: Sequence[SeatResult], before: Mapping[int, Skill]) -> list[Change]:
    """Each player's rating after the game, from `before` (a missing player starts at
    `START`). One `Change` per player, in seat order of their first seat."""
    if len(seats) < 2:
        raise ValueError("A rated game needs at least two seats.")
    if any(not 0.0 < s.share <= 1.0 for s in seats):
        raise ValueError("Every rated seat's share is in (0, 1].")
    results = _rate(seats, before, weights_for(seats, before))
    by_player: dict[int, list[tuple[SeatResult, Skill]]] = {}
    for s, after in zip(seats, results, strict=True):
        by_player.setdefault(s.player, []).append((s, after))
    changes = []
    for player, rated in by_player.items():
        start = before.get(player, START)
        mu = sum(after.mu - start.mu for _, after in rated) / len(rated)
        sigma = sum(after.sigma for _, after in rated) / len(rated)
        first = rated[0][0]
        after = rated[0][1] if len(rated) == 1 else Skill(start.mu + mu, sigma)
        changes.append(Change(player, first.seat, first.share, start, after))
    return changes


def _rate(
    seats: Sequence[SeatResult], before: Mapping[int, Skill], weights: Sequence[float] | None
) -> list[Skill]:
    teams: list[list[PlackettLuceRating]] = []
    for s in seats:
        start = before.get(s.player, START)
        teams.append([_MODEL.rating(mu=start.mu, sigma=start.sigma)])
    rated = _MODEL.rate(
        teams,
        ranks=[float(s.rank) for s in seats],
        weights=None if weights is None else [[w] for w in weights],
    )
    return [Skill(team[0].mu, team[0].sigma) for team in rated]
