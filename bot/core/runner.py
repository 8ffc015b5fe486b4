"""The one effect runner: a command's effects carried out in the order declared once
(`bot.core.effects.ORDER`), whatever order they were listed or their handlers given in.

What must be durable is committed first; if storing fails, the command is undone in memory
(the table is as if it never came) and nothing else runs. Only then does the table enter
the phases the command led to. The rest follows in order; the
reactions to a move (the turn clock, the tournaments, the pages) each fail alone, logged.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

from bot.core.commands import Command, Outcome
from bot.core.effects import DURABLE, ORDER, REACTIONS, Effect
from bot.core.phases import Phase
from bot.tables.model import Table

log = logging.getLogger(__name__)

E = TypeVar("E", bound=Effect)
Handler = Callable[[Table, Any], Awaitable[None]]


class Runner:
    def __init__(self) -> None:
        self._handlers: dict[type, list[Handler]] = {}
        self._entered: list[Callable[[Table, Phase], None]] = []

    def on(self, kind: type[E], handler: Callable[[Table, E], Awaitable[None]]) -> None:
        """Carry out effects of `kind` with `handler` (several handlers of one kind run in
        the order given)."""
        self._handlers.setdefault(kind, []).append(handler)

    def on_enter(self, listener: Callable[[Table, Phase], None]) -> None:
        """Tell `listener` of each phase a table enters from another, once entered (the
        metrics)."""
        self._entered.append(listener)

    async def run(
        self, table: Table, command: Command, here: Mapping[type, Handler] | None = None
    ) -> Outcome:
        """Decide `command` on `table` and carry out its effects. Under the table's lock.

        `here`: handlers for this one run, in place of those given with `on` (a caller that
        needs what storing answered: whether a cancelled game was rated)."""
        outcome = command.decide(table)
        effects = sorted(outcome.effects, key=lambda e: ORDER.index(type(e)))
        try:
            for effect in effects:
                if isinstance(effect, DURABLE):
                    await self._carry(table, effect, here)
        except BaseException:
            outcome.undo()
            raise
        outcome.commit()
        for phase in outcome.path:
            was = table.phase
            table.enter(phase)
            if phase is not was:
                for listener in self._entered:
                    listener(table, phase)
        for effect in effects:
            if not isinstance(effect, DURABLE):
                await self._carry(table, effect, here)
        return outcome

    async def _carry(
        self, table: Table, effect: Effect, here: Mapping[type, Handler] | None
    ) -> None:
        handlers = self._handlers.get(type(effect), [])
        if here is not None and type(effect) in here:
            handlers = [here[type(effect)]]
        for handler in handlers:
            if not isinstance(effect, REACTIONS):
                await handler(table, effect)
                continue
            try:
                await handler(table, effect)
            except Exception:
                log.exception("%s failed for game %s", type(effect).__name__, table.id)
