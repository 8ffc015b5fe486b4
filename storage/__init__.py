"""Storage: the bot's only way to its database (SQLite through aiosqlite by default, or
PostgreSQL through asyncpg), one repository per subject.

>>> storage = await open_storage("data/hearts.db")   # doctest: +SKIP
>>> game_id = await storage.games.create_lobby(chat, None, user, Rules(), seats)  # doctest: +SKIP
"""

from __future__ import annotations

from pathlib import Path

from .database import is_postgres
from .errors import (
    DatabaseInUse,
    GameNotFound,
    SchemaTooNew,
    SeatTaken,
    StorageError,
    StorageUnavailable,
    WrongGameStatus,
)
from .journal import Journal
from .ledger import Ledger
from .maintenance import Maintenance
from .people import People
from .replay import ReplayError
from .screens import ScreenStates
from .standings import Standings
from .store import Storage
from .tournament_store import Tournaments


async def open_storage(
    path: str | Path, *, synchronous: str = "NORMAL", account: int = 0
) -> Storage:
    """Open the database at ``path``, creating and migrating it: a file path is SQLite, a
    ``postgresql://`` URL PostgreSQL.

    For SQLite, ``synchronous`` is NORMAL (a committed move survives the process being
    killed) or FULL (it also survives a power cut, at a quarter of the write rate);
    PostgreSQL commits durably on its server.

    ``account`` is the bot account served (its Telegram id, `storage.accounts`): rows from
    before accounts become its own the first time one opens the database.
    """
    if not is_postgres(path) and synchronous not in ("NORMAL", "FULL"):
        raise ValueError(f"synchronous is NORMAL or FULL, not {synchronous!r}")
    return await Storage.open(
        path, synchronous="FULL" if synchronous == "FULL" else "NORMAL", account=account
    )


__all__ = [
    "DatabaseInUse",
    "GameNotFound",
    "Journal",
    "Ledger",
    "Maintenance",
    "People",
    "ReplayError",
    "SchemaTooNew",
    "ScreenStates",
    "SeatTaken",
    "Standings",
    "Storage",
    "StorageError",
    "StorageUnavailable",
    "Tournaments",
    "WrongGameStatus",
    "is_postgres",
    "open_storage",
]
