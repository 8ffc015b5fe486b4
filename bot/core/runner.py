"""The one effect runner: a command's effects carried out in the order declared once
(`bot.core.effects.ORDER`), whatever order they were listed or their handlers given in.

What must be durable is committed first; if storing fails, the command is undone in memory
(the table is as if it never came) and nothing else runs. The rest follows in order; the
reactions to a move (the turn clock, the tournaments, the pages) each fail alone, logged.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from bot.core.commands import Command
from bot.core.effects import DURABLE, ORDER, REACTIONS, Effect
from bot.core.table import Outcome, decide
from bot.tables.model import Table

log = logging.getLogger(__name__)

E = TypeVar("E", bound=Effect)
Handler = Callable[[Table, Any], Awaitable[None]]


class Runner:
    def __init__(self) -> None:
        self._handlers: dict[type, list[Handler]] = {}

    def on(self, kind: type[E], handler: Callable[[Table, E], Awaitable[None]]) -> None:
        """Carry out effects of `kind` with `handler` (several handlers of one kind run in
        the order given)."""
        self._handlers.setdefault(kind, []).append(handler)

    async def run(self, table: Table, command: Command) -> Outcome:
        """Decide `command` on `table` and carry out its effects. Under the table's lock."""
        outcome = decide(table, command)
        effects = sorted(outcome.effects, key=lambda e: ORDER.index(type(e)))
        try:
            for effect in effects:
                if isinstance(effect, DURABLE):
                    await self._carry(table, effect)
        except BaseException:
            outcome.undo()
            raise
        for effect in effects:
            if not isinstance(effect, DURABLE):
                await self._carry(table, effect)
        return outcome

    async def _carry(self, table: Table, effect: Effect) -> None:
        for handler in self._handlers.get(type(effect), ()):
            if not isinstance(effect, REACTIONS):
                await handler(table, effect)
                continue
            try:
                await handler(table, effect)
            except Exception:
                log.exception("%s failed for game %s", type(effect).__name__, table.id)
