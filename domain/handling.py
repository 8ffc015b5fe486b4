"""The Telegram update a move was made by: stored with the move, in its transaction.

The button handler (`bot.telegram.handlers.Buttons`) makes one `Handling` per press and
hands it down with the press: the command (`MakeMove`), its `StoreMove` effect, and
`Journal.record_move`, which writes the update's id into ``handled_updates`` in the move's
own transaction. The move and the fact that its update was handled are durable together:
a process that takes over (a restart, or a standby after the leader died) skips that update
instead of handling it twice (`bot.telegram.once`), and an update whose move was never
stored is handled again rather than lost.

A button press (a callback query) is stored with what it is answered: the query's id and
the toast the press gets once its move is stored, both written with the move, and the time
the answer went out written after it. If the process dies in between, the one that takes
over answers it (`Unanswered`), while Telegram still accepts the answer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass
class Handling:
    """The update a press came in, and what the press is to be answered."""

    update_id: int
    callback_id: str | None = None
    """The callback query's id when the update is a button press."""
    account: int = 0
    """The bot account the update came to (update ids are each bot's own)."""
    render: Callable[[Any], str] | None = None
    """Turns a sentence into the presser's words (given by the button handler)."""
    answer: str | None = None
    """The toast the press gets if its move is stored (`promise`)."""
    stored: bool = False
    """Set once a move of this update is stored with it."""

    def promise(self, said: object) -> None:
        """Say what the press is answered if its move is stored, so that the answer is
        stored with the move (a process that takes over gives the same one)."""
        if self.callback_id is not None and self.render is not None:
            self.answer = self.render(said)


KEEP: int = 100_000
"""How many of the newest handled ids are kept (older ones can no longer come back)."""


@dataclass(frozen=True)
class Unanswered:
    """A press whose move was stored but whose answer may not have gone out."""

    update_id: int
    callback_id: str
    answer: str | None
    handled_at_ms: int
