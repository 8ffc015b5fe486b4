"""The one effect runner: a command's effects carried out in the order declared once
(`bot.core.effects.ORDER`), whatever order they were listed or their handlers given in.

Who carries out each kind of effect is given once, when the runner is built (`bot.rooms`
wires the map), and never changes: a reader finds every effect's handler in one place.
What a person asks of a table is first held against what that kind of table accepts at
its stage (`bot.core.accepts`), whichever way it came. A command's `decide` then makes
the table's new state as a new value; what must be durable is stored from that new state
first, and only then is it swapped into the table everyone holds (`swap`): if storing
fails, nothing was changed (the table is as if the command never came) and nothing else
runs. The rest follows in order, on the table as it now is; the reactions to a move (the
turn clock, the tournaments, the pages) each fail alone, logged. A handler may answer
something (the hint being thought out, a review's first words): the command's caller
reads it from `Outcome.answers`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import fields
from types import MappingProxyType
from typing import Any, get_args

from bot.core import accepts
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
        """Decide `command` on `table` and carry out its effects. In the table's mailbox."""
        accepts.admit_command(table, command)  # what no screen offers there, refused first
        was = _state(table)
        outcome = command.decide(table)
        effects = sorted(outcome.effects, key=lambda e: ORDER.index(type(e)))
        for effect in effects:
            if isinstance(effect, DURABLE):
                await self._carry(outcome.table, effect, outcome)
        before = table.phase
        swap(table, outcome.table, was)
        for phase in outcome.path:
            if phase is not before:
                for listener in self.entered:
                    listener(table, phase)
            before = phase
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
