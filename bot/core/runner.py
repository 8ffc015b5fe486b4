"""The one effect runner: a command's effects carried out in the order declared once
(`bot.core.effects.ORDER`), whatever order they were listed or their handlers given in.

What a person asks of a table is first held against what that kind of table accepts at
its stage (`bot.core.accepts`), whichever way it came. A command's `decide` then makes
the table's new state as a new value; what must be durable is stored from that new state
first, and only then is it swapped into the table everyone holds (`swap`): if storing
fails, nothing was changed (the table is as if the command never came) and nothing else
runs. The rest follows in order, on the table as it now is; the reactions to a move (the
turn clock, the tournaments, the pages) each fail alone, logged.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import fields
from typing import Any, TypeVar

from bot.core import accepts
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
        accepts.admit_command(table, command)  # what no screen offers there, refused first
        was = _state(table)
        outcome = command.decide(table)
        effects = sorted(outcome.effects, key=lambda e: ORDER.index(type(e)))
        for effect in effects:
            if isinstance(effect, DURABLE):
                await self._carry(outcome.table, effect, here)
        before = table.phase
        swap(table, outcome.table, was)
        for phase in outcome.path:
            if phase is not before:
                for listener in self._entered:
                    listener(table, phase)
            before = phase
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


State = tuple[dict[str, Any], dict[str, Any]]
"""What a table held when a command was decided: its fields, and its screens' (`ui`)."""


def _state(table: Table) -> State:
    return vars(table).copy(), vars(table.ui).copy()


def swap(held: Table, new: Table, was: State) -> None:
    """Move what a command changed (`new`, decided on `held` when it held `was`) into the
    table everyone holds.

    The table is not replaced by `new`: the registry, the screens, the turn clock, the
    pages, a press's handler (and a test) each keep a reference to it, and to its game, so
    the new state is moved into that one object, here and nowhere else. Only what the
    command changed moves (a field, or a field of the screens' state, that `new` does not
    share with `was`): what the screens wrote meanwhile (a message id landing while the
    move was stored) stays. The game keeps its identity too (`Game.take`), for whoever
    holds it across a move."""
    fields_was, ui_was = was
    for f in fields(held):
        name = f.name
        value = getattr(new, name)
        if value is fields_was[name]:
            continue
        if name == "ui":
            for g in fields(value):
                part = getattr(value, g.name)
                if part is not ui_was[g.name]:
                    setattr(held.ui, g.name, part)
        elif name == "game" and held.game is not None and value is not None:
            held.game.take(value)
        else:
            setattr(held, name, value)
