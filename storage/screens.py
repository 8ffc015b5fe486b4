"""What the screens of each table keep (`schema.table_screens`): written by the screens
when they change it, read back when the bot starts again, apart from the game's journal.

A move, a deal and a lobby's change are stored without it (`storage.journal`): the ids of
a table's messages or a seat's selections are not the game's record, and a press that
changes only them is not worth a write of the game."""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any, Final

from sqlalchemy import bindparam, select

from .database import Database, Dialect, Upsert, now_ms
from .journal import dumps
from .schema import table_screens


def _build_put(dialect: Dialect) -> Any:
    insert = (
        Database(dialect, "", ())
        .insert(table_screens)
        .values(
            game_id=bindparam("game_id"),
            state=bindparam("state"),
            updated_at=bindparam("updated_at"),
        )
    )
    return insert.on_conflict_do_update(
        index_elements=[table_screens.c.game_id],
        set_={"state": insert.excluded.state, "updated_at": insert.excluded.updated_at},
    )


_PUT: Final = Upsert(_build_put)
_AT_ONCE: Final = 500
"""Game ids asked for in one query (well under SQLite's limit of bound parameters)."""


class ScreenStates:
    """Each table's screens' state, a JSON object by game id (shared by every bot account:
    a game's id is its own)."""

    def __init__(self, database: Database) -> None:
        self._db = database

    async def put(self, game_id: int, state: dict[str, Any]) -> None:
        """Store the screens' state of game `game_id` (its row must exist), replacing what
        was stored."""
        row = {"game_id": game_id, "state": dumps(state), "updated_at": now_ms()}
        await self._db.transact(_PUT.execute, row)

    async def get(self, game_id: int) -> dict[str, Any] | None:
        """The screens' state stored for game `game_id` (None: none yet)."""
        return (await self.of_games([game_id])).get(game_id)

    async def of_games(self, game_ids: Collection[int]) -> dict[int, dict[str, Any]]:
        """The screens' state of each of `game_ids` that has one (a restart's tables)."""
        ids = sorted(set(game_ids))
        found: dict[int, dict[str, Any]] = {}
        t = table_screens.c
        for start in range(0, len(ids), _AT_ONCE):
            chunk = ids[start : start + _AT_ONCE]
            rows = await self._db.read(select(t.game_id, t.state).where(t.game_id.in_(chunk)))
            found.update((game_id, json.loads(state)) for game_id, state in rows)
        return found
