"""What the screens keep of each table (`Table.ui`: message ids, selections, the tracker
open, the hint shown), stored by the screens themselves in their own row
(`storage.screens`), apart from the game's journal: a restart reads it back and edits the
same messages."""

from __future__ import annotations

import asyncio
import logging

from bot.tables.model import Table
from bot.tables.registry import TableRegistry
from bot.timers import Background
from storage import ScreenStates

log = logging.getLogger(__name__)


class KeptScreens:
    """Stores a table's screens' state now (`save`) or within a second (`save_soon`)."""

    def __init__(
        self, states: ScreenStates, registry: TableRegistry, background: Background
    ) -> None:
        self.states = states
        self.registry = registry
        self.background = background
        self._unsaved: set[int] = set()
        """The tables whose screens' state `save_soon` is to store."""

    async def save(self, table: Table) -> None:
        """Store what the table's screens keep now."""
        await self.states.put(table.id, table.ui.to_dict())

    def save_soon(self, table: Table) -> None:
        """Store what the table's screens keep within a second.

        Such state is not worth a transaction per tap: under load those writes would
        queue up behind the moves. A restart edits the messages whose ids are stored."""
        if table.id in self._unsaved or not table.id:
            return
        self._unsaved.add(table.id)

        async def save() -> None:
            await asyncio.sleep(1.0)
            self._unsaved.discard(table.id)
            if table.phase.live:
                try:
                    await self.save(table)
                except Exception:
                    log.exception("could not store the screen state of game %s", table.id)

        self.background.spawn(save())

    async def flush(self) -> None:
        """Store what `save_soon` has not stored yet (at shutdown)."""
        for game_id in list(self._unsaved):
            table = self.registry.get(game_id)
            if table is not None and table.phase.live:
                await self.save(table)
        self._unsaved.clear()

    def kept_sizes(self) -> dict[str, int]:
        """How much is held per table (memory tests)."""
        return {"screens_unsaved": len(self._unsaved)}
