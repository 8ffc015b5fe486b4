"""The one way the bot reaches its database: the `Storage` protocol.

`storage.sqlite.SqliteStorage` implements it on SQLite; a PostgreSQL backend would
implement the same protocol and `storage.open_storage` would pick it from the address.
Everything returned is a domain object from `storage.models`.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Protocol

from engine import Game, Move, Rules
from ratings import Pool

from .handling import Unanswered
from .models import (
    ChatSettings,
    GameTable,
    JournalEntry,
    LanguageChoices,
    PlayerGame,
    PlayerStanding,
    RatingChange,
    RatingEntry,
    RebuildReport,
    ScoreKind,
    StoredGame,
    StoredSeat,
    User,
)
from .tournaments import (
    Registration,
    StoredTournament,
    TournamentOptions,
    TournamentState,
    TournamentTable,
)


class Storage(Protocol):
    """Chats, users, games with their move journal, and standings.

    Every write is committed (durable) before its coroutine returns. Methods raise
    `GameNotFound` for an unknown game id and `WrongGameStatus` for an operation the
    game's status does not allow.
    """

    async def close(self) -> None: ...

    # ------------------------------------------------------------ chats and users

    async def get_chat_settings(self, chat_id: int) -> ChatSettings:
        """The chat's settings, or the defaults if it never chose any."""
        ...

    async def save_chat_settings(self, settings: ChatSettings) -> None: ...

    async def language_choices(self) -> LanguageChoices:
        """Every person's and chat's stored language choice (loaded once at start)."""
        ...

    async def save_person_language(self, user_id: int, *, chosen: str, app: str) -> None:
        """A person's own choice ('' for none) and their Telegram app's language."""
        ...

    async def save_chat_language(self, chat_id: int, *, chosen: str, first: str) -> None:
        """A group's admin's choice ('' for none) and its first table's opener's language."""
        ...

    async def upsert_user(self, user_id: int, display_name: str, username: str | None) -> None:
        """Remember a user's current name (keeps their ``dm_open`` flag)."""
        ...

    async def get_user(self, user_id: int) -> User | None: ...

    async def set_dm_open(self, user_id: int, dm_open: bool) -> None: ...

    async def dm_open(self, user_id: int) -> bool:
        """Whether the bot may write to the user privately (False if unknown)."""
        ...

    # ------------------------------------------------------------ games

    async def create_lobby(
        self,
        chat_id: int,
        thread_id: int | None,
        creator_id: int,
        rules: Rules,
        seats: list[StoredSeat],
        meta: dict[str, Any] | None = None,
        tournament_id: int | None = None,
        join_token: str | None = None,
    ) -> int:
        """A new table in the lobby (of a tournament, with ``tournament_id``); returns its id.

        ``join_token`` is the table's id in links (random: made here when None); read it
        back with `load_game`.
        """
        ...

    async def update_lobby(
        self,
        game_id: int,
        rules: Rules | None = None,
        seats: list[StoredSeat] | None = None,
        meta: dict[str, Any] | None = None,
    ) -> None:
        """Change a lobby's rules, seats or meta (None leaves it as it is)."""
        ...

    async def start_game(
        self,
        game_id: int,
        seats: list[StoredSeat],
        game: Game,
        meta: dict[str, Any] | None = None,
    ) -> None:
        """Lobby to active: the final seats, the game before its first move and (given)
        the table's ``meta``, in one transaction.

        Raises `ValueError` if ``game`` cannot be rebuilt from its rules, seed, fixed deals
        and first dealer (e.g. a move was already made), since replay would then fail.
        """
        ...

    async def record_move(
        self,
        game_id: int,
        move: Move,
        game_after: Game,
        meta: dict[str, Any] | None = None,
        *,
        stand_in: bool = False,
    ) -> int:
        """Journal ``move`` and store ``game_after`` in one durable transaction.

        Returns the move's sequence number (1, 2, ...). When ``game_after`` is over, the
        results are written, the game is rated and becomes finished in the same
        transaction. ``stand_in``: a computer player made this move for the seat's person.
        """
        ...

    async def was_handled(self, update_id: int) -> bool:
        """Whether the update was handled already, by this process or another."""
        ...

    async def mark_answered(self, update_id: int) -> None:
        """The press of a handled update was answered (no process answers it again)."""
        ...

    async def unanswered(self, since_ms: int) -> list[Unanswered]:
        """Presses whose moves are stored, handled at or after `since_ms` (milliseconds
        since the epoch), whose answers are not known to have gone out; oldest first."""
        ...

    async def set_meta(self, game_id: int, meta: dict[str, Any]) -> None: ...

    async def load_game(self, game_id: int, *, verify: bool = True) -> StoredGame:
        """The game as stored. A snapshot that does not load (or, with ``verify``, a
        journal that does not replay to it) quarantines the game: the result then has
        status ``"quarantined"``, ``game`` None and the reason."""
        ...

    async def active_games(self) -> list[StoredGame]:
        """Every lobby and active game, verified, to resume after a restart.

        Games quarantined by this call are included with status ``"quarantined"`` so the
        bot can tell their chats; the next call no longer lists them.
        """
        ...

    async def game_in_chat(self, chat_id: int, thread_id: int | None) -> StoredGame | None:
        """The lobby or active game of a chat (or of one forum topic), if any."""
        ...

    async def last_finished_game(self, chat_id: int, thread_id: int | None) -> StoredGame | None:
        """The chat's (or forum topic's) latest finished game of its own (not a tournament's)."""
        ...

    async def active_game_for_user(self, user_id: int) -> StoredGame | None:
        """The lobby or active game where the user sits, if any."""
        ...

    async def seat_of(self, game_id: int, user_id: int) -> int | None:
        """The seat the person holds at the game, None when none (or no such game): one
        row by key, for callers that must not load a game for a stranger."""
        ...

    async def cancel_game(self, game_id: int) -> bool:
        """Lobby or active to cancelled; its journal is kept. A game whose first hand is
        complete is rated from its standing totals in the same transaction (returns
        True); one that never got that far is not rated (False)."""
        ...

    async def quarantine_game(self, game_id: int, reason: str) -> None:
        """Take a game out of play with a reason, keeping everything for inspection."""
        ...

    async def journal(self, game_id: int) -> list[JournalEntry]: ...

    async def replay(self, game_id: int) -> Game:
        """The game rebuilt from its origin and journal; raises `ReplayError`."""
        ...

    async def game_and_moves(self, game_id: int) -> tuple[Game, list[tuple[Move, bool]]]:
        """The game as it was dealt, before any move, and its journal: each move with
        whether a computer made it for the person in the seat (the coach's reviews)."""
        ...

    # ------------------------------------------------------------ standings

    async def game_table(self, game_id: int) -> GameTable:
        """The score table of a game, hand by hand, in play or finished."""
        ...

    async def standings(
        self,
        chat_id: int | None = None,
        score_kind: ScoreKind = "points",
        *,
        limit: int = 20,
        min_games: int = 1,
    ) -> list[PlayerStanding]:
        """Players by games won, then win rate, then fewest points per hand.

        ``chat_id`` None means every chat.
        """
        ...

    async def player_standing(
        self, user_id: int, chat_id: int | None = None, score_kind: ScoreKind = "points"
    ) -> PlayerStanding | None:
        """One player's record, or None if they finished no such game."""
        ...

    # ------------------------------------------------------------ ratings

    async def rating_changes(self, game_id: int, chat_id: int | None = None) -> list[RatingChange]:
        """What a game did to each player's rating in its chat (``chat_id``) or overall."""
        ...

    async def rating_history(
        self, player: int, chat_id: int | None = None, pool: Pool = "main", *, limit: int = 200
    ) -> list[RatingChange]:
        """A player's rating changes in a chat (or overall), oldest first."""
        ...

    async def rating_board(
        self, chat_id: int | None = None, pool: Pool = "main", *, limit: int = 10
    ) -> list[RatingEntry]:
        """The best-rated people of a chat (or overall), then the computer levels there."""
        ...

    async def player_rating(
        self, player: int, chat_id: int | None = None, pool: Pool = "main"
    ) -> RatingEntry | None: ...

    async def rebuild_ratings(self) -> RebuildReport:
        """Recompute every rating from the stored games, in the order they were rated."""
        ...

    async def player_history(
        self, user_id: int, *, limit: int = 10, chat_id: int | None = None
    ) -> list[PlayerGame]:
        """The player's most recent finished games, newest first."""
        ...

    # ------------------------------------------------------------ tournaments

    async def create_tournament(
        self,
        *,
        chat_id: int,
        thread_id: int | None,
        organiser_id: int,
        organiser_name: str,
        name: str,
        rules: Rules,
        options: TournamentOptions,
        time_zone: str,
        starts_at: datetime | None,
        registration_deadline: datetime | None,
        state: TournamentState | None = None,
    ) -> StoredTournament:
        """A new tournament, open for registration."""
        ...

    async def save_tournament(self, tournament: StoredTournament) -> None:
        """Write the tournament's changeable fields; finishing or cancelling stamps the time."""
        ...

    async def get_tournament(self, tournament_id: int) -> StoredTournament | None: ...

    async def open_tournaments(self) -> list[StoredTournament]:
        """Tournaments in registration, running or paused (to resume after a restart)."""
        ...

    async def tournaments_in_chat(self, chat_id: int, *, limit: int = 10) -> list[StoredTournament]:
        """The chat's tournaments, newest first."""
        ...

    async def save_registration(self, registration: Registration) -> None:
        """Insert or update one person's entry."""
        ...

    async def save_registrations(self, registrations: Sequence[Registration]) -> None:
        """Update the status and final place of several entries in one transaction."""
        ...

    async def registrations(self, tournament_id: int) -> list[Registration]:
        """Every entry of the tournament (any status), in registration order."""
        ...

    async def save_tournament_table(self, table: TournamentTable) -> None:
        """Insert or replace a round's table and its seats."""
        ...

    async def tournament_tables(
        self, tournament_id: int, round: int | None = None
    ) -> list[TournamentTable]:
        """The tournament's tables (of one round, or all), by round and table number."""
        ...

    async def claim_once(
        self, tournament_id: int, kind: str, message_id: int | None = None
    ) -> bool:
        """Claim a one-time action of a tournament (a reminder, its start, a round's results,
        the final) before doing it; False if it was claimed already, also before a restart."""
        ...

    async def claimed(self, tournament_id: int) -> set[str]:
        """The one-time actions of a tournament claimed so far."""
        ...

    # ------------------------------------------------------------ operations

    async def backup(self, dest_path: str) -> None:
        """Copy the live database to ``dest_path`` consistently, while it is in use."""
        ...
