"""The one effect runner: a command's effects carried out in the order declared once
(`bot.core.effects.ORDER`), whatever order they were listed or their handlers given in.

Who carries out each kind of effect is given once, when the runner is built (`bot.rooms`
wires the map), and never changes: a reader finds every effect's handler in one place.
What must be durable is committed first; if storing fails, the command is undone in memory
(the table is as if it never came) and nothing else runs. Only then does the table enter
the phases the command led to. The rest follows in order; the
reactions to a move (the turn clock, the tournaments, the pages) each fail alone, logged.
A handler may answer something (the hint being thought out, a review's first words): the
command's caller reads it from `Outcome.answers`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping
from types import MappingProxyType
from typing import Any, get_args

from bot.core.commands import Command, Outcome
from bot.core.effects import DURABLE, ORDER, REACTIONS, Effect
from bot.core.phases import Phase
from bot.tables.model import Table

log = logging.getLogger(__name__)

Handler = Callable[[Table, Any], Awaitable[object]]
"""Carries out one kind of effect on a table; what it returns (None: nothing) is the
command's `Outcome.answers` for that kind."""
Entered = Callable[[Table, Phase], None]
"""Told of each phase a table enters from another, once entered (the log, the metrics)."""

EFFECTS: frozenset[type] = frozenset(get_args(Effect))
"""Every kind of effect the core returns: each must have a handler."""


class MissingHandler(ValueError):
    """A runner was built without a handler for some kind of effect."""


class Runner:
    def __init__(self, handlers: Mapping[type, Handler], entered: Iterable[Entered] = ()) -> None:
        """`handlers`: who carries out each kind of effect, every kind (`EFFECTS`) given;
        `entered`: told of each phase a table enters."""
        missing = sorted(kind.__name__ for kind in EFFECTS - handlers.keys())
        if missing:
            raise MissingHandler(f"no handler for {', '.join(missing)}")
        self.handlers: Mapping[type, Handler] = MappingProxyType(dict(handlers))
        self.entered: tuple[Entered, ...] = tuple(entered)

    async def run(self, table: Table, command: Command) -> Outcome:
        """Decide `command` on `table` and carry out its effects. Under the table's lock."""
        outcome = command.decide(table)
        effects = sorted(outcome.effects, key=lambda e: ORDER.index(type(e)))
        try:
            for effect in effects:
                if isinstance(effect, DURABLE):
                    await self._carry(table, effect, outcome)
        except BaseException:
            outcome.undo()
            raise
        outcome.commit()
        for phase in outcome.path:
            was = table.phase
            table.enter(phase)
            if phase is not was:
                for listener in self.entered:
                    listener(table, phase)
        for effect in effects:
            if not isinstance(effect, DURABLE):
                await self._carry(table, effect, outcome)
        return outcome

    async def _carry(self, table: Table, effect: Effect, outcome: Outcome) -> None:
        handler = self.handlers[type(effect)]
        if not isinstance(effect, REACTIONS):
            answer = await handler(table, effect)
        else:
            try:
                answer = await handler(table, effect)
            except Exception:
                log.exception("%s failed for game %s", type(effect).__name__, table.id)
                return
        if answer is not None:
            outcome.answers[type(effect)] = answer


async def nothing(table: Table, effect: object) -> None:
    """A handler for an effect that needs none where the runner is used (a test's)."""
    return None
