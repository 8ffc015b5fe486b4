"""SQLAlchemy's aiosqlite adapter, one trip to aiosqlite's thread per statement.

SQLAlchemy's own adapter goes to aiosqlite's thread three or four times a statement (make
a cursor, execute, fetch, close), and each trip is a wake-up of the event loop: a move,
four statements, made fourteen trips where the bot's hand-written aiosqlite code made
five. Here a statement is executed, its rows read and its cursor closed in one function
run in that thread (as SQLAlchemy's adapter itself reaches aiosqlite's queue to set the
isolation level), so a move costs the trips it did before. Everything else is SQLAlchemy's.
"""

from __future__ import annotations

import sqlite3
from collections import deque
from typing import Any

import aiosqlite
from sqlalchemy.dialects.sqlite.aiosqlite import (
    AsyncAdapt_aiosqlite_connection,
    AsyncAdapt_aiosqlite_cursor,
    AsyncAdapt_aiosqlite_dbapi,
)
from sqlalchemy.util.concurrency import await_only


def _run(
    connection: sqlite3.Connection, operation: str, parameters: Any, many: bool
) -> tuple[Any, list[Any], int | None, int]:
    cursor = connection.cursor()
    try:
        if many:
            cursor.executemany(operation, parameters)
        else:
            cursor.execute(operation, () if parameters is None else parameters)
        description = cursor.description
        rows = cursor.fetchall() if description else []
        return description, rows, cursor.lastrowid, cursor.rowcount
    finally:
        cursor.close()


class _Cursor(AsyncAdapt_aiosqlite_cursor):
    __slots__ = ()

    def _go(self, operation: Any, parameters: Any, many: bool) -> None:
        connection = self._connection
        try:
            description, rows, lastrowid, rowcount = self.await_(
                connection._execute(_run, connection._conn, operation, parameters, many)
            )
        except Exception as error:
            self._adapt_connection._handle_exception(error)
        if description:
            self.description = description
            self.lastrowid = self.rowcount = -1
            self._rows = deque(rows)
        else:
            self.description = None
            self.lastrowid = lastrowid
            self.rowcount = rowcount

    def execute(self, operation: Any, parameters: Any = None) -> Any:
        self._go(operation, parameters, False)

    def executemany(self, operation: Any, seq_of_parameters: Any) -> Any:
        self._go(operation, seq_of_parameters, True)


class _Connection(AsyncAdapt_aiosqlite_connection):
    __slots__ = ()

    def cursor(self, server_side: bool = False) -> AsyncAdapt_aiosqlite_cursor:
        return super().cursor(server_side) if server_side else _Cursor(self)


class OneTripDBAPI(AsyncAdapt_aiosqlite_dbapi):
    """What ``create_async_engine("sqlite+aiosqlite://…", module=OneTripDBAPI())`` uses."""

    def __init__(self) -> None:
        super().__init__(aiosqlite, sqlite3)

    def connect(self, *arg: Any, **kw: Any) -> AsyncAdapt_aiosqlite_connection:
        connection = self.aiosqlite.connect(*arg, **kw)
        connection._thread.daemon = True  # as SQLAlchemy's: never hold the process open
        return _Connection(self, await_only(connection))
