"""Which Telegram update the current task is handling: stored with the moves it produces.

Every update passes `bot.telegram.once` before any handler, by polling or by webhook, and
that sets `HANDLING` around it. `record_move` then writes the update's id into
``handled_updates`` in the move's own transaction, so the move and the fact that its
update was handled are durable together: a process that takes over (a restart, or a
standby after the leader died) skips that update instead of handling it twice, and an
update whose move was never stored is handled again rather than lost.

A button press (a callback query) is stored with what it is answered: the query's id and
the toast the press gets once its move is stored, both written with the move, and the time
the answer went out written after it. If the process dies in between, the one that takes
over answers it (`Unanswered`), while Telegram still accepts the answer.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any


@dataclass
class Handling:
    """The update being handled in this task, and what its press is to be answered."""

    update_id: int
    callback_id: str | None = None
    account: int = 0
    """The bot account the update came to (update ids are each bot's own)."""
    """The callback query's id when the update is a button press."""
    render: Callable[[Any], str] | None = None
    """Turns a sentence into the presser's words (set by the button handler)."""
    answer: str | None = None
    """The toast the press gets if its move is stored (`promise`)."""
    stored: bool = False
    """Set once a move of this update is stored with it."""


HANDLING: ContextVar[Handling | None] = ContextVar("handling", default=None)
"""The Telegram update being handled in this task, or None."""

KEEP: int = 100_000
"""How many of the newest handled ids are kept (older ones can no longer come back)."""


def promise(said: object) -> None:
    """Say what the press being handled is answered if its move is stored, so that the
    answer is stored with the move (a process that takes over gives the same one)."""
    handling = HANDLING.get()
    if handling is not None and handling.callback_id is not None and handling.render is not None:
        handling.answer = handling.render(said)


@dataclass(frozen=True)
class Unanswered:
    """A press whose move was stored but whose answer may not have gone out."""

    update_id: int
    callback_id: str
    answer: str | None
    handled_at_ms: int
