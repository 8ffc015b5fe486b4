"""Maintenance: a backup of the live database, and the proof that every stored game
replays (after `storage.copy.copy_database`)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import select

from . import backup as backup_module
from .database import Database
from .errors import StorageError
from .journal import Journal
from .replay import ReplayError, same_state
from .schema import games


@dataclass(frozen=True)
class Replayed:
    """What `Maintenance.prove_replays` found: games replayed, games set aside before."""

    games: int
    quarantined: int


class Maintenance:
    """Backups and proofs, beside the running bot."""

    def __init__(self, database: Database, journal: Journal) -> None:
        self._db = database
        self._journal = journal

    async def backup(self, dest_path: str | Path) -> None:
        """Copy the live database to ``dest_path`` consistently, while it is in use
        (SQLite; a PostgreSQL database is backed up with pg_dump)."""
        if self._db.dialect == "postgresql":
            raise StorageError(
                "A PostgreSQL database is backed up with pg_dump (see deploy/GUIDE.md), not "
                "with hearts-bot backup."
            )
        # A connection of its own, in a thread: neither reads nor writes wait for it.
        await asyncio.to_thread(backup_module.backup_database, self._db.path, str(dest_path))

    async def prove_replays(self) -> Replayed:
        """Every game that has a journal replays to its stored snapshot; raises
        `StorageError` naming the first that does not."""
        started = await self._db.read(
            select(games.c.id, games.c.status, games.c.snapshot)
            .where(games.c.snapshot.is_not(None))
            .order_by(games.c.id)
        )
        replayed = quarantined = 0
        for game_id, status, snapshot in started:
            if status == "quarantined":
                quarantined += 1  # set aside in the source for a reason: copied as it is
                continue
            try:
                game = await self._journal.replay(game_id)
            except ReplayError as error:
                raise StorageError(
                    f"game {game_id} does not replay from the copy: {error}"
                ) from None
            if not same_state(game.to_json(), snapshot):
                raise StorageError(f"game {game_id} replays from the copy to another game")
            replayed += 1
        return Replayed(replayed, quarantined)
