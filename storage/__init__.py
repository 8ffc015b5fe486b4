"""Storage: the bot's only way to its database (SQLite through aiosqlite by default).

>>> storage = await open_storage("data/hearts.db")   # doctest: +SKIP
>>> game_id = await storage.create_lobby(chat_id, None, user_id, Rules(), seats)  # doctest: +SKIP
"""

from __future__ import annotations

from pathlib import Path

from .errors import (
    DatabaseInUse,
    GameNotFound,
    SchemaTooNew,
    StorageError,
    StorageUnavailable,
    WrongGameStatus,
)
from .models import (
    ChatSettings,
    GameStatus,
    GameTable,
    HandLine,
    JournalEntry,
    PlayerGame,
    PlayerStanding,
    RatingChange,
    RatingEntry,
    RebuildReport,
    Score,
    ScoreKind,
    SeatKind,
    StoredGame,
    StoredSeat,
    User,
    score_kind_of,
)
from .replay import ReplayError
from .repository import Storage
from .tournaments import (
    Registration,
    RegistrationStatus,
    StoredTournament,
    TournamentOptions,
    TournamentSeat,
    TournamentState,
    TournamentStatus,
    TournamentTable,
)


def is_postgres(path: str | Path) -> bool:
    """Whether `path` names a PostgreSQL database (a ``postgresql://`` URL)."""
    return str(path).startswith(("postgresql://", "postgres://"))


async def open_storage(path: str | Path, *, synchronous: str = "NORMAL") -> Storage:
    """Open the database at ``path``, creating and migrating it: a file path is SQLite, a
    ``postgresql://`` URL PostgreSQL.

    For SQLite, ``synchronous`` is NORMAL (a committed move survives the process being
    killed) or FULL (it also survives a power cut, at a quarter of the write rate);
    PostgreSQL commits durably on its server.
    """
    from .sqlite import SqliteStorage

    if is_postgres(path):
        from .postgres import PostgresStorage

        return await PostgresStorage.open(str(path))
    if synchronous not in ("NORMAL", "FULL"):
        raise ValueError(f"synchronous is NORMAL or FULL, not {synchronous!r}")
    return await SqliteStorage.open(path, synchronous="FULL" if synchronous == "FULL" else "NORMAL")


__all__ = [
    "ChatSettings",
    "DatabaseInUse",
    "GameNotFound",
    "GameStatus",
    "GameTable",
    "HandLine",
    "JournalEntry",
    "PlayerGame",
    "PlayerStanding",
    "RatingChange",
    "RatingEntry",
    "RebuildReport",
    "Registration",
    "RegistrationStatus",
    "ReplayError",
    "SchemaTooNew",
    "Score",
    "ScoreKind",
    "SeatKind",
    "Storage",
    "StorageError",
    "StorageUnavailable",
    "StoredGame",
    "StoredSeat",
    "StoredTournament",
    "TournamentOptions",
    "TournamentSeat",
    "TournamentState",
    "TournamentStatus",
    "TournamentTable",
    "User",
    "WrongGameStatus",
    "is_postgres",
    "open_storage",
    "score_kind_of",
]
