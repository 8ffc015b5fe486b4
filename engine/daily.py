"""The daily deal: the same four hands for everyone, scored against everyone who played them.

- **The day** runs from 00:00 to 24:00 UTC; day 1 is `FIRST_DAY` (1 January 2026), and a
  game started on a day belongs to that day however late it ends.
- **The day's key** is ``HMAC-SHA256(secret, "hearts daily <day>")``: 32 bytes from the
  bot's secret (made once with ``secrets.token_bytes(32)`` and kept in storage, never shown),
  so nobody without it can know a day's deals before the day, and every game of the day
  deals the same. It is the daily game's deal key (`engine.fair`): hand ``h``'s seed is
  ``HMAC-SHA256(day key, "hearts hand h")``, published only once the day is over, and then
  anyone checks it against the commitment shown before they passed (``hearts-bot verify``).
- **The game**: `RULES`, four players, four hands passing left, right, across and hold;
  the person sits at `PERSON_SEAT`, three `expert` computers at the others.
- **The computers' randomness** is fixed per deal: seat ``s`` in hand ``h`` draws from
  `computer_seed` (the day's key, the hand and the seat) and plays out a fixed number of
  deals (`COMPUTER_DEALS` a card, all of its pass search's) whatever the clock says, so two
  people who make the same moves get the same game.
- **Matchpoints**: a hand's result at the person's seat earns 1 for each other result it
  beats (fewer points is better) and ½ for each tie, as a percentage of the others
  (50 % when nobody else has played it); the day's score is the mean over all `HANDS`
  hands of the deal, a hand not played scoring `UNPLAYED` (0 %). A duplicate bridge club
  gives a pair at fault for a board not played an artificial "average minus" (40 %, Law
  12C); 40 % would still pay a player who expects less than that on the hands left, so
  here a hand not played scores what the worst played result can: each hand played scores
  0 % or more, and stopping (leaving the game open, or cancelling it) never raises a
  day's score.

Pure: no clock is read here (the caller says what time it is), no I/O.
"""

from __future__ import annotations

import bisect
import hashlib
import hmac
from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime
from typing import Final, NamedTuple

from . import fair
from .players.expert import ExpertPlayer
from .rules import Rules

FIRST_DAY: Final = date(2026, 1, 1)
"""Day 1 of the daily deal (its days begin at 00:00 UTC)."""
SECONDS_PER_DAY: Final = 86_400
_EPOCH: Final = int(
    datetime(FIRST_DAY.year, FIRST_DAY.month, FIRST_DAY.day, tzinfo=UTC).timestamp()
)
HANDS: Final = 4
RULES: Final = Rules(hands=HANDS)
"""Four players, standard Hearts, four hands (left, right, across, hold), then it ends."""
PERSON_SEAT: Final = 0
LEVEL: Final = "expert"
UNPLAYED: Final = 0.0
"""The matchpoints of a hand of the day's deal the person did not play (the game left open
at the day's close, or cancelled): no played result scores less."""
COMPUTER_DEALS: Final = 120
"""Deals an `expert` computer plays out per card at the daily table (a fixed number, so
the same position gives the same card on any machine)."""


def day_number(now: float) -> int:
    """The day (from 1 at `FIRST_DAY`) that the epoch second ``now`` is in (UTC)."""
    return (int(now) - _EPOCH) // SECONDS_PER_DAY + 1


def day_start(day: int) -> int:
    """The epoch second at which ``day`` begins (00:00 UTC)."""
    return _EPOCH + (day - 1) * SECONDS_PER_DAY


def day_date(day: int) -> date:
    """The calendar date (UTC) of ``day``."""
    return datetime.fromtimestamp(day_start(day), UTC).date()


def day_key(secret: bytes, day: int) -> bytes:
    """The day's deal key: 32 bytes nobody can know without the bot's secret."""
    if len(secret) != fair.KEY_BYTES:
        raise ValueError(f"The daily secret has {fair.KEY_BYTES} bytes, not {len(secret)}.")
    return hmac.new(secret, f"hearts daily {day}".encode(), hashlib.sha256).digest()


def dealer(key: bytes, hand: int) -> int:
    """Who deals hand ``hand`` (from 1) of the day: the first dealer drawn from the key,
    then the next seat each hand, as every game deals."""
    return (fair.first_dealer(key, RULES.players) + hand - 1) % RULES.players


def proofs(key: bytes) -> list[fair.DealProof]:
    """Each of the day's hands' seed and commitment (the seeds published after the day)."""
    return [fair.proof(key, h, RULES.players, dealer(key, h)) for h in range(1, HANDS + 1)]


def computer_seed(key: bytes, hand: int, seat: int) -> int:
    """The randomness of the computer at ``seat`` in hand ``hand`` of the day's deals."""
    digest = hmac.new(key, f"hearts daily computer {hand} {seat}".encode(), hashlib.sha256)
    return int.from_bytes(digest.digest()[:4], "big") & 0x7FFFFFFF


def computer(seed: int) -> ExpertPlayer:
    """The daily table's computer player: `expert`, a fixed number of deals, steady."""
    return ExpertPlayer(seed, deals=COMPUTER_DEALS, steady=True)


# ---------------------------------------------------------------------- matchpoints


class Field(NamedTuple):
    """Everyone's points on one hand, sorted, to score any result against it quickly."""

    points: tuple[int, ...]

    def matchpoints(self, mine: int) -> float:
        """``mine``'s matchpoints against the others (``mine`` is one of the points), as a
        percentage of the others: 1 for each result it beats, ½ for each tie."""
        others = len(self.points) - 1
        if others <= 0:
            return 50.0
        better = len(self.points) - bisect.bisect_right(self.points, mine)
        ties = bisect.bisect_right(self.points, mine) - bisect.bisect_left(self.points, mine) - 1
        return 100.0 * (better + 0.5 * ties) / others


def fields(results: Mapping[int, Sequence[int]]) -> list[Field]:
    """Per hand, the points of everyone who played it (``results``: a person's points
    per hand played, in order)."""
    columns: list[list[int]] = [[] for _ in range(HANDS)]
    for points in results.values():
        for hand, p in enumerate(points[:HANDS]):
            columns[hand].append(p)
    return [Field(tuple(sorted(c))) for c in columns]


def scores(results: Mapping[int, Sequence[int]]) -> dict[int, float]:
    """Each person's day score: the mean of their matchpoints over all `HANDS` hands, a
    hand they did not play scoring `UNPLAYED` (a person who played no hand is left out).

    A hand has few different results (0 to 26 points): each is scored once, and each
    person's hands are looked up, so 10,000 results score in milliseconds."""
    marks = [_marks_by_points(f) for f in fields(results)]
    out: dict[int, float] = {}
    for who, points in results.items():
        played = points[:HANDS]
        if played:
            out[who] = day_score([marks[h][p] for h, p in enumerate(played)])
    return out


def day_score(marks: Sequence[float]) -> float:
    """A day's score from the matchpoints of the hands played, in order: their mean over
    all `HANDS` hands, the hands not played scoring `UNPLAYED`."""
    played = list(marks[:HANDS])
    return (sum(played) + UNPLAYED * (HANDS - len(played))) / HANDS


def _marks_by_points(field: Field) -> dict[int, float]:
    """Each different result of a hand and its matchpoints."""
    return {p: field.matchpoints(p) for p in set(field.points)}


def hand_marks(results: Mapping[int, Sequence[int]], who: int) -> list[float]:
    """``who``'s matchpoints hand by hand."""
    per_hand = fields(results)
    return [per_hand[h].matchpoints(p) for h, p in enumerate(results[who][:HANDS])]
