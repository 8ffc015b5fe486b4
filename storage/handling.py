"""Which Telegram update the current task is handling: stored with the moves it produces.

The bot's poller sets `HANDLING` around each update. `record_move` then writes the update's
id into ``handled_updates`` in the move's own transaction, so the move and the fact that
its update was handled are durable together: a process that takes over (a restart, or a
standby after the leader died) skips that update instead of handling it twice, and an
update whose move was never stored is handled again rather than lost.
"""

from __future__ import annotations

from contextvars import ContextVar

HANDLING: ContextVar[int | None] = ContextVar("handling", default=None)
"""The id of the Telegram update being handled in this task, or None."""

KEEP: int = 100_000
"""How many of the newest handled ids are kept (older ones can no longer come back)."""
