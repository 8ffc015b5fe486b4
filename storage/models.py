"""What storage hands out: domain objects, never rows.

Scores follow the engine: an ``int`` in every variant but Complex Hearts, where a score
is a Gaussian integer held as a ``complex``. Standings never mix the two: every query
takes a ``score_kind`` (``"points"`` for all real-valued games, 2 to 6 players, Omnibus
included; ``"complex"`` for Complex Hearts), because an average of 7 and 3+4i means
nothing. Within Complex Hearts, "best" and "worst" compare magnitudes |z|, as the game does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final, Literal

from engine import Game, Rules
from ratings import PROVISIONAL_GAMES, Pool, Skill

GameStatus = Literal["lobby", "active", "finished", "cancelled", "quarantined"]
GAME_STATUSES: Final = ("lobby", "active", "finished", "cancelled", "quarantined")
OPEN_STATUSES: Final = ("lobby", "active")
SeatKind = Literal["human", "computer"]
ScoreKind = Literal["points", "complex"]
Score = int | complex


def score_kind_of(rules: Rules) -> ScoreKind:
    """Which standings a game with these rules counts towards."""
    return "complex" if rules.variant == "complex" else "points"


@dataclass(frozen=True)
class ChatSettings:
    """A chat's choices for new tables; what a chat gets before it chooses anything."""

    chat_id: int
    rules: dict[str, Any] = field(default_factory=lambda: Rules().to_dict())
    turn_timer_s: int | None = None
    """None until the chat chooses: the bot's own default (``DEFAULT_TURN_TIMER``) applies."""
    computer_level: str = "standard"
    track_cards: bool = True
    hints: bool = True
    """Whether the chat's tables offer the coach's hints (tournaments never do)."""


@dataclass
class LanguageChoices:
    """Every stored language choice, by id ('' or absent: none)."""

    chosen_by_person: dict[int, str] = field(default_factory=dict)
    """What a person chose with /language in their DM."""
    person_app: dict[int, str] = field(default_factory=dict)
    """The language of a person's Telegram app, as their latest update said."""
    chosen_by_chat: dict[int, str] = field(default_factory=dict)
    """What a group's admin chose with /language."""
    chat_first: dict[int, str] = field(default_factory=dict)
    """The language of whoever opened the group's first table."""


@dataclass(frozen=True)
class User:
    """A Telegram user as last seen."""

    user_id: int
    display_name: str
    username: str | None
    dm_open: bool


@dataclass(frozen=True)
class StoredSeat:
    """One seat at a table, numbered from 0 in play order."""

    seat: int
    kind: SeatKind
    display_name: str
    user_id: int | None = None
    computer_level: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in ("human", "computer"):
            raise ValueError(f"A seat is human or computer, not {self.kind!r}.")
        if (self.kind == "human") != (self.user_id is not None):
            raise ValueError(f"Seat {self.seat}: a human seat has a user id, a computer none.")

    @classmethod
    def human(cls, seat: int, user_id: int, display_name: str) -> StoredSeat:
        return cls(seat, "human", display_name, user_id=user_id)

    @classmethod
    def computer(cls, seat: int, display_name: str, level: str = "standard") -> StoredSeat:
        return cls(seat, "computer", display_name, computer_level=level)


@dataclass(frozen=True)
class GameStanding:
    """What a stored game was made as (a tournament's, a day's daily deal, its variant)
    and its ``games.status``: a game's row by key, nothing loaded."""

    status: str
    tournament_id: int | None
    daily: int | None
    variant: str


@dataclass(frozen=True)
class StoredGame:
    """A table as stored: its lobby data and, once started, the game itself.

    ``game`` is None in the lobby, and for a game that is quarantined (then
    ``quarantine_reason`` says why). ``last_seq`` is the number of journaled moves.
    """

    id: int
    chat_id: int
    thread_id: int | None
    creator_id: int
    status: GameStatus
    rules: Rules
    seats: tuple[StoredSeat, ...]
    meta: dict[str, Any]
    game: Game | None
    seed: int | None
    first_dealer: int | None
    fixed_deals: list[list[list[str]]]
    last_seq: int
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    quarantine_reason: str | None = None
    tournament_id: int | None = None
    join_token: str = ""
    """The table's id in ``/start`` links: random, so a link cannot be guessed."""

    def seat_of(self, user_id: int) -> int | None:
        """The seat ``user_id`` sits in at this table, if any."""
        return next((s.seat for s in self.seats if s.user_id == user_id), None)


@dataclass(frozen=True)
class JournalEntry:
    """One move as journaled."""

    seq: int
    move: dict[str, Any]
    created_at: datetime


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
