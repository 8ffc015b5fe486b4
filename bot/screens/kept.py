"""What the screens keep of each table (`Table.ui`: message ids, selections, the tracker
open, the hint shown), stored by the screens themselves in their own row
(`storage.screens`), apart from the game's journal: a restart reads it back and edits the
same messages."""

from __future__ import annotations

from bot.tables.model import Table
from bot.tables.registry import SavedSoon, TableRegistry
from bot.timers import Background
from storage import ScreenStates


class KeptScreens:
    """Stores a table's screens' state now (`save`) or within a second (`save_soon`)."""

    def __init__(
        self, states: ScreenStates, registry: TableRegistry, background: Background
    ) -> None:
        self.states = states
        self._soon = SavedSoon(self.save, registry.get, background, "screen state")
        """The tables' screens' state stored soon (`save_soon`)."""

    async def save(self, table: Table) -> None:
        """Store what the table's screens keep now."""
        await self.states.put(table.id, table.ui.to_dict())

    def save_soon(self, table: Table) -> None:
        """Store what the table's screens keep within a second (a selection, a message's id
        landing): a restart edits the messages whose ids are stored."""
        self._soon.ask(table)

    async def flush(self) -> None:
        """Store what `save_soon` has not stored yet (at shutdown)."""
        await self._soon.flush()

    def kept_sizes(self) -> dict[str, int]:
        """How much is held per table (memory tests)."""
        return {"screens_unsaved": len(self._soon)}
