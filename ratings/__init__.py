"""Ratings: OpenSkill's Plackett–Luce model, applied to one finished game.

Each seat is a one-player team ranked by its final total (`rank`, lower is better, equal
ranks a tie). `storage` ranks a person who left (away at the game's end) last, whole.
A seat may be given a `share` of its moves (a person back with /rejoin made only some of
them; a computer stood in for the rest): a GAIN then moves `share` × what it would have
moved for the whole game, while a loss counts whole (so leaving a losing game for a while
dodges nothing). OpenSkill multiplies a gain by a player's weight, so the weight passed is
`share` for a seat that gains and 1 for one that loses; the direction comes from the same
game rated without weights (a weight changes only its own player's update).

Computer players are fixed anchors: each level has the rating `ANCHORS` gives it (measured
once by `./dev bench ratings`, the levels playing each other), people are rated against
it, and no game moves it, so nobody can farm a level or lift it with throwaway accounts.
A person whose opponents were all computers, or computers and people who count like them
(fewer than `PROVISIONAL_GAMES` rated games, rated below a newcomer, or fewer than
`REAL_OPPONENTS` different people met in rated games: what sock puppets look like), can
rise by such a game only up to `SOLO_MARGIN` above the strongest level at the table, or
above `START` with no computer there (`solo_ceiling`); losses count whole. A farmer and
fewer than `REAL_OPPONENTS` puppets meet too few people to count for one another, so
whatever they do together (lift the puppets against computers first, lose on purpose,
one-hand games) no one of them rises above the strongest level they sat with by more than
`SOLO_MARGIN`.

A ring of more puppets than that can make each other count, so a second rule bounds every
person by what they have shown against computers, the only strengths a farmer cannot fake:
each person's `record` is a rating of its own, kept from the games they played to their
end against computers only (`rate_record`: capped like any such game, except at a table
whose strongest level is `TOP_LEVEL`, the strongest there is), and no game with another
person lifts anyone above the highest of their record, a newcomer's + `SOLO_MARGIN`, and
the rating of each person they finished above (`proven_ceiling`). Beating a person lifts
you at most to their rating, so nobody in a ring of any size rises above the highest of
its records, a newcomer's + `SOLO_MARGIN` and `solo_ceiling` at the tables they sat at
alone: one whose members never played `TOP_LEVEL` to the end stays at or below its
table's ceiling, whatever puppets or one-hand games do (a game stopped early is rated,
but never counts in a record).
(`rate_game(..., anchored=False)` rates the levels like people: that is the calibration.)

Pure: no I/O. Nothing here stores anything: `storage` calls `rate_game` inside the
transaction that records a game's last move (or cancels it after its first hand), and
again, in the same order, to rebuild every rating.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
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
SOLO_MARGIN: Final = 100
"""How far above the strongest computer level at the table (in shown points) a game
against computers only can lift a person's shown rating."""
REAL_OPPONENTS: Final = 4
"""Different people a person must have met in rated games (of the pool, overall) before
they count as a real opponent for another's gain: a farmer with fewer sock puppets than
this (each one more Telegram account, with a phone number of its own) cannot make any of
them count, however many games they play together."""


def pool_of(players: int) -> Pool:
    return "two" if players == 2 else "main"


def computer_player(level: str) -> int:
    return COMPUTER_PLAYERS[level]


def level_of(player: int) -> str | None:
    """The computer level a player id stands for, None for a person."""
    return next((level for level, pid in COMPUTER_PLAYERS.items() if pid == player), None)


def is_computer(player: int) -> bool:
    return player < 0


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


ANCHORS: Final[dict[str, Skill]] = {
    "easy": Skill(3.99, 2.33),
    "standard": Skill(29.27, 1.68),
    "pro": Skill(32.18, 1.67),
    "expert": Skill(35.68, 1.69),
}
"""Each computer level's fixed rating, as `./dev bench ratings --games 1000` measured it
(one of each level at every table, games to 50, 10 ms a decision, rated in order from
newcomers': avg places 3.84, 2.17, 2.06, 1.88). Never moved by a game."""


TOP_LEVEL: Final = max(ANCHORS, key=lambda level: ANCHORS[level].mu)
"""The strongest computer level. At a table with it a record (`rate_record`) is not
capped; its table's ceiling (`SOLO_MARGIN` above it: 1,712) is what nobody passes
without beating it."""


def anchor(player: int) -> Skill:
    """The fixed rating of a computer level's player id."""
    level = level_of(player)
    if level is None:
        raise ValueError(f"{player} is not a computer level.")
    return ANCHORS[level]


def solo_ceiling(opponents: Sequence[int], like_computers: Collection[int] = ()) -> float | None:
    """The highest μ − 3σ a game against these opponents may lift a person to, when none
    of them is an established person: each a computer, or one of the people who count
    `like_computers` (`rate_game` says who: sock puppets look like that). It is the
    strongest computer level's plus `SOLO_MARGIN` shown points, or `START`'s plus it when
    no computer was there. None when another person is among them (a game counts whole)."""
    if not opponents or any(not is_computer(p) and p not in like_computers for p in opponents):
        return None
    levels = [anchor(p).conservative for p in opponents if is_computer(p)]
    return (max(levels) if levels else START.conservative) + SOLO_MARGIN / SCALE


def proven_ceiling(
    player: int,
    seats: Sequence[SeatResult],
    before: Mapping[int, Skill],
    records: Mapping[int, Skill],
) -> float:
    """The highest μ − 3σ a game with other people may lift `player` to: the highest of
    their `records` (a missing one: `START`), a newcomer's + `SOLO_MARGIN`, and the rating
    before the game of each person they finished above (`before`; missing: `START`).

    It bounds a ring, however large: what any of them reaches is at most what one of
    them had before or had shown against computers."""
    mine = min(s.rank for s in seats if s.player == player)
    beaten = [
        before.get(s.player, START).conservative
        for s in seats
        if s.player != player and not is_computer(s.player) and s.rank > mine
    ]
    return max(
        records.get(player, START).conservative,
        START.conservative + SOLO_MARGIN / SCALE,
        *beaten,
    )


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
    """The share of the seat's moves its player made themselves (0 ≤ share ≤ 1; 0: back
    with /rejoin after the seat's last move, every move a computer's)."""


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
    """The weight OpenSkill is given for each seat, None when every seat was played whole:
    a seat that gains, its share; one that loses, 1 (a loss counts whole)."""
    if all(s.share >= 1.0 for s in seats):
        return None
    full = _rate(seats, before, None)
    weights = []
    for s, after in zip(seats, full, strict=True):
        start = before.get(s.player, START)
        gains = after.mu >= start.mu
        weights.append(s.share if gains else 1.0)
    return weights


def rate_game(
    seats: Sequence[SeatResult],
    before: Mapping[int, Skill],
    *,
    anchored: bool = True,
    games: Mapping[int, int] | None = None,
    met: Mapping[int, int] | None = None,
    records: Mapping[int, Skill] | None = None,
) -> list[Change]:
    """Each player's rating after the game, from `before` (a missing player starts at
    `START`). One `Change` per player, in seat order of their first seat.

    ``anchored`` (the bot's ratings): computer levels play at their `ANCHORS` rating
    whatever `before` says and get no `Change`; a person whose opponents were all
    computers and people who count like them (fewer than `PROVISIONAL_GAMES` rated games,
    or rated below `START`) rises no higher than `solo_ceiling` (above it already: no
    higher than before). ``games``: each person's rated games before this one (a missing
    person: none); None: every person counts as an established one, as in the old rules.
    ``met``: how many different people each person has met in rated games before this one
    (a missing person: none); fewer than `REAL_OPPONENTS` count like computers too. None:
    not counted (the rules before). ``records``: each person's record against computers
    (`rate_record`; a missing person: `START`): in a game with another person nobody rises
    above `proven_ceiling`; None: not applied (the rules before). A seat played by its
    person not at all (share 0) gains nothing; its loss counts whole.
    Unanchored, every player id is rated alike (the calibration of the levels)."""
    before = _starting(seats, before, anchored)
    # People who count like computers for the ceiling: provisional ones (a throwaway
    # account has no games), those rated below a newcomer (a puppet that lost its first
    # games is established, and would let its farmer climb without end), and those who met
    # fewer than `REAL_OPPONENTS` people (puppets lifted against computers first, then
    # beaten: they meet only their farmer and each other).
    like_computers = (
        set()
        if games is None
        else {
            s.player
            for s in seats
            if not is_computer(s.player)
            and (
                games.get(s.player, 0) < PROVISIONAL_GAMES
                or before.get(s.player, START).conservative < START.conservative
                or (met is not None and met.get(s.player, 0) < REAL_OPPONENTS)
            )
        }
    )

    def ceilings(player: int) -> list[float]:
        opponents = [s.player for s in seats if s.player != player]
        solo = solo_ceiling(opponents, like_computers)
        found = [] if solo is None else [solo]
        if records is not None and any(not is_computer(p) for p in opponents):
            found.append(proven_ceiling(player, seats, before, records))
        return found

    return _changes(seats, before, ceilings if anchored else None)


def rate_record(seats: Sequence[SeatResult], before: Mapping[int, Skill]) -> Change:
    """A person's record against computers (`before`: theirs; missing, `START`) after a
    game they played to its end against computers only, no other person at the table:
    rated as `rate_game` rates it, but a win at a table with `TOP_LEVEL` is not capped
    (the model says by how much a person is stronger than the strongest level; beating
    only weaker ones says no more than that they are stronger than those). A game stopped
    early never counts: whoever stops it could stop it while ahead (nor, `storage` says,
    a deal someone could know beforehand or a game played with the coach's hints).

    Raises ValueError unless exactly one person sits at the table."""
    before = _starting(seats, before, anchored=True)
    if len({s.player for s in seats if not is_computer(s.player)}) != 1:
        raise ValueError("A record is kept from games of one person against computers.")
    levels = sorted({s.player for s in seats if is_computer(s.player)})
    ceiling = None if computer_player(TOP_LEVEL) in levels else solo_ceiling(levels)
    [change] = _changes(seats, before, lambda player: [] if ceiling is None else [ceiling])
    return change


def _starting(
    seats: Sequence[SeatResult], before: Mapping[int, Skill], anchored: bool
) -> Mapping[int, Skill]:
    """The ratings a game starts from (anchored: each computer level at its anchor);
    raises ValueError for fewer than two seats or a share outside [0, 1]."""
    if len(seats) < 2:
        raise ValueError("A rated game needs at least two seats.")
    if any(not 0.0 <= s.share <= 1.0 for s in seats):
        raise ValueError("Every rated seat's share is in [0, 1].")
    if anchored:
        before = {
            s.player: anchor(s.player) if is_computer(s.player) else before.get(s.player, START)
            for s in seats
        }
    return before


def _changes(
    seats: Sequence[SeatResult],
    before: Mapping[int, Skill],
    ceilings: Callable[[int], Sequence[float]] | None,
) -> list[Change]:
    """The model's update of each player, capped at `ceilings(person)` (None: unanchored,
    every player id rated alike and nobody capped; else the computer levels get none)."""
    weights = weights_for(seats, before)
    results = _rate(seats, before, weights)
    weight_of = dict(zip((s.seat for s in seats), weights or [1.0] * len(seats), strict=True))
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
        if weight_of[first.seat] == 0.0 and len(rated) == 1:
            after = start  # a gain made wholly by a computer for them: nothing
        if ceilings is not None:
            if is_computer(player):
                continue
            for ceiling in ceilings(player):
                after = _capped(start, after, ceiling)
        changes.append(Change(player, first.seat, weight_of[first.seat], start, after))
    return changes


def _capped(start: Skill, after: Skill, ceiling: float) -> Skill:
    """`after`, its μ − 3σ lowered to the higher of `ceiling` and where it was before (σ
    still shrinks: the game was played and taught the model something)."""
    limit = max(ceiling, start.conservative)
    if after.conservative <= limit:
        return after
    return Skill(limit + 3 * after.sigma, after.sigma)


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
