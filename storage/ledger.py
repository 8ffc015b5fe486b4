"""The handled-updates ledger: which Telegram updates have had their effects stored, and
which presses were answered (see `domain.handling` for why)."""

from __future__ import annotations

import asyncio
import functools
from typing import Any, Final

from sqlalchemy import Connection, bindparam, select

from domain import handling

from .database import (
    Database,
    Dialect,
    Query,
    Upsert,
    in_places,
    now_ms,
    placed,
    rows_changed,
    width_of,
)
from .schema import handled_updates

_PRUNE = handled_updates.delete().where(
    handled_updates.c.account == bindparam("account"),
    handled_updates.c.update_id < bindparam("below"),
)
ASKED_AT_ONCE = 500
"""At most this many updates in one query (well under both databases' limits on a
statement's parameters)."""
_ANSWERED = (
    handled_updates.update()
    .where(
        handled_updates.c.account == bindparam("of_account"),
        handled_updates.c.update_id == bindparam("update"),
    )
    .values(answered_at=bindparam("answered_at"))
)


@functools.cache
def _handled_among(width: int) -> Query:
    """Which of `width` updates (`in_places`) were handled."""
    update_id = handled_updates.c.update_id
    return Query(
        select(update_id).where(
            handled_updates.c.account == bindparam("account"),
            in_places(update_id, "update", width),
        )
    )


def handled_statement(dialect: Dialect) -> Any:
    """The handled update's row, inserted unless it is there already."""
    return (
        Database(dialect, "", ())
        .insert(handled_updates)
        .values(
            account=bindparam("account"),
            update_id=bindparam("update_id"),
            handled_at=bindparam("handled_at"),
            callback_id=bindparam("callback_id"),
            answer=bindparam("answer"),
        )
        .on_conflict_do_nothing()
    )


_HANDLED: Final = Upsert(handled_statement)


def handled_row(update: handling.Handling, now: int) -> dict[str, Any]:
    return {
        "account": update.account,
        "update_id": update.update_id,
        "handled_at": now,
        "callback_id": update.callback_id,
        "answer": update.answer,
    }


def prunes(update: handling.Handling) -> bool:
    """Whether recording `update` also drops the ids that can no longer come back."""
    return update.update_id % 1000 == 0


def handled(db: Connection, database: Database, update: handling.Handling, now: int) -> None:
    """Record `update` as handled, in the caller's transaction (the one storing its move)."""
    _HANDLED.execute(db, handled_row(update, now))
    if prunes(update):  # now and then, the ids that can no longer come back go
        db.execute(_PRUNE, {"account": update.account, "below": update.update_id - handling.KEEP})


class Ledger:
    """The updates handled, here or by a process before, and the presses answered: this
    bot account's (another account's update 17 is another update)."""

    def __init__(self, database: Database, account: int = 0) -> None:
        self._db = database
        self.account = account
        self._asked: list[tuple[int, asyncio.Future[bool]]] = []
        self._asking: asyncio.Task[None] | None = None

    async def was_handled(self, update_id: int) -> bool:
        """Whether the update was handled already, by this process or another.

        Every update asks before its handler runs, so a flood of them asks at once: the
        questions asked while one query is on its way go together in the next one, and
        are answered in the order they were asked (one query a question, each waiting
        for the one before to come back through the event loop, held up a press behind
        300 commands by two seconds)."""
        answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._asked.append((update_id, answer))
        if self._asking is None or self._asking.done():
            self._asking = asyncio.create_task(self._ask())
        return await answer

    async def _ask(self) -> None:
        while self._asked:
            asked, self._asked = self._asked[:ASKED_AT_ONCE], self._asked[ASKED_AT_ONCE:]
            try:
                width = width_of(len(asked))
                rows = await self._db.read(
                    _handled_among(width),
                    {"account": self.account, **placed("update", [u for u, _ in asked], width)},
                )
            except Exception as error:  # each asker hears it (a StorageError, usually)
                for _, answer in asked:
                    if not answer.done():
                        answer.set_exception(error)
                continue
            except BaseException:  # cancelled: nobody is left waiting for an answer
                for _, answer in asked + self._asked:
                    answer.cancel()
                self._asked = []
                raise
            handled = {int(row[0]) for row in rows}
            for update_id, answer in asked:
                if not answer.done():  # its asker may have stopped waiting
                    answer.set_result(update_id in handled)

    async def mark_answered(self, update_id: int) -> None:
        """The press of a handled update was answered (no process answers it again)."""
        row = {"of_account": self.account, "update": update_id, "answered_at": now_ms()}
        await self._db.transact(rows_changed, _ANSWERED, row)

    async def unanswered(self, since_ms: int) -> list[handling.Unanswered]:
        """Presses whose moves are stored, handled at or after `since_ms` (milliseconds
        since the epoch), whose answers are not known to have gone out; oldest first."""
        h = handled_updates.c
        rows = await self._db.read(
            select(h.update_id, h.callback_id, h.answer, h.handled_at)
            .where(
                h.account == self.account,
                h.callback_id.is_not(None),
                h.answered_at.is_(None),
                h.handled_at >= since_ms,
            )
            .order_by(h.handled_at, h.update_id)
        )
        return [handling.Unanswered(int(u), str(c), a, int(t)) for u, c, a, t in rows]
