"""The tournament (tournament) half of `SqliteStorage`: registrations, round draws, reminders.

A mixin: it relies on the host class's ``_transaction()`` (one write transaction, alone)
and ``_read()`` (the reader connection), so tournaments share the games' connections, locking
and durability.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from datetime import UTC, datetime
from typing import Any

import aiosqlite

from engine import Rules

from .replay import join_score, split_score
from .tournaments import (
    OPEN_TOURNAMENT_STATUSES,
    Registration,
    StoredTournament,
    TournamentOptions,
    TournamentSeat,
    TournamentState,
    TournamentTable,
)

_TOURNAMENT_COLUMNS = (
    "id, chat_id, thread_id, organiser_id, organiser_name, name, rules, options, time_zone,"
    " starts_at, registration_deadline, status, current_round, state, created_at, finished_at"
)


async def returned_id(cursor: Any) -> int:
    """The id an ``INSERT … RETURNING id`` made (in SQLite and PostgreSQL alike)."""
    row = await cursor.fetchone()
    assert row is not None
    return int(row[0])


def _ms(moment: datetime | None) -> int | None:
    return None if moment is None else int(moment.timestamp() * 1000)


def _time(ms: int | None) -> datetime | None:
    return None if ms is None else datetime.fromtimestamp(ms / 1000, tz=UTC)


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _tournament(row: Sequence[Any]) -> StoredTournament:
    (eid, chat, thread, organiser, organiser_name, name, rules, options, tz) = row[:9]
    starts, deadline, status, current_round, state, created, finished = row[9:]
    created_at = _time(created)
    assert created_at is not None
    return StoredTournament(
        id=eid,
        chat_id=chat,
        thread_id=thread,
        organiser_id=organiser,
        organiser_name=organiser_name,
        name=name,
        rules=Rules.from_dict(json.loads(rules)),
        options=TournamentOptions.from_dict(json.loads(options)),
        time_zone=tz,
        starts_at=_time(starts),
        registration_deadline=_time(deadline),
        status=status,
        current_round=current_round,
        state=TournamentState.from_json(state),
        created_at=created_at,
        finished_at=_time(finished),
    )


class SqliteTournaments:
    """Tournaments on SQLite; mixed into `storage.sqlite.SqliteStorage`."""

    def _transaction(self) -> AbstractAsyncContextManager[aiosqlite.Connection]:
        raise NotImplementedError  # provided by SqliteStorage

    async def _read(self, sql: str, parameters: Sequence[Any] = ()) -> list[Any]:
        raise NotImplementedError  # provided by SqliteStorage

    # ------------------------------------------------------------ tournaments

    async def create_tournament(
        self,
        *,
        chat_id: int,
        thread_id: int | None,
        organiser_id: int,
        organiser_name: str,
        name: str,
        rules: Rules,
        options: TournamentOptions,
        time_zone: str,
        starts_at: datetime | None,
        registration_deadline: datetime | None,
        state: TournamentState | None = None,
    ) -> StoredTournament:
        async with self._transaction() as db:
            cursor = await db.execute(
                f"INSERT INTO tournaments ({_TOURNAMENT_COLUMNS.removeprefix('id, ')}) VALUES"
                " (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'registration', 0, ?, ?, NULL) RETURNING id",
                (
                    chat_id,
                    thread_id,
                    organiser_id,
                    organiser_name,
                    name,
                    _dumps(rules.to_dict()),
                    _dumps(options.to_dict()),
                    time_zone,
                    _ms(starts_at),
                    _ms(registration_deadline),
                    (state or TournamentState()).to_json(),
                    _now_ms(),
                ),
            )
            tournament_id = await returned_id(cursor)
        tournament = await self.get_tournament(tournament_id)
        assert tournament is not None
        return tournament

    async def save_tournament(self, tournament: StoredTournament) -> None:
        """Write a tournament's changeable fields (name, rules, options, times, status, round,
        state); `StoredTournament` is frozen: callers pass ``dataclasses.replace(...)``."""
        finished = _ms(tournament.finished_at)
        if finished is None and tournament.status in ("finished", "cancelled"):
            finished = _now_ms()
        async with self._transaction() as db:
            await db.execute(
                "UPDATE tournaments SET name = ?, rules = ?, options = ?, time_zone = ?,"
                " starts_at = ?, registration_deadline = ?, status = ?, current_round = ?,"
                " state = ?, finished_at = ? WHERE id = ?",
                (
                    tournament.name,
                    _dumps(tournament.rules.to_dict()),
                    _dumps(tournament.options.to_dict()),
                    tournament.time_zone,
                    _ms(tournament.starts_at),
                    _ms(tournament.registration_deadline),
                    tournament.status,
                    tournament.current_round,
                    tournament.state.to_json(),
                    finished,
                    tournament.id,
                ),
            )

    async def get_tournament(self, tournament_id: int) -> StoredTournament | None:
        rows = await self._read(
            f"SELECT {_TOURNAMENT_COLUMNS} FROM tournaments WHERE id = ?", (tournament_id,)
        )
        return _tournament(rows[0]) if rows else None

    async def open_tournaments(self) -> list[StoredTournament]:
        """Tournaments in registration, running or paused: what a restart must pick up again."""
        marks = ", ".join("?" * len(OPEN_TOURNAMENT_STATUSES))
        rows = await self._read(
            f"SELECT {_TOURNAMENT_COLUMNS} FROM tournaments WHERE status IN ({marks}) ORDER BY id",
            OPEN_TOURNAMENT_STATUSES,
        )
        return [_tournament(r) for r in rows]

    async def tournaments_in_chat(self, chat_id: int, *, limit: int = 10) -> list[StoredTournament]:
        """The chat's tournaments, newest first."""
        rows = await self._read(
            f"SELECT {_TOURNAMENT_COLUMNS} FROM tournaments"
            " WHERE chat_id = ? ORDER BY id DESC LIMIT ?",
            (chat_id, limit),
        )
        return [_tournament(r) for r in rows]

    # ------------------------------------------------------------ registrations

    async def save_registration(self, registration: Registration) -> None:
        r = registration
        async with self._transaction() as db:
            await db.execute(
                "INSERT INTO tournament_registrations (tournament_id, user_id, display_name,"
                " username, status, registered_at, final_place) VALUES (?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (tournament_id, user_id) DO UPDATE SET"
                " display_name = excluded.display_name, username = excluded.username,"
                " status = excluded.status, registered_at = excluded.registered_at,"
                " final_place = excluded.final_place",
                (
                    r.tournament_id,
                    r.user_id,
                    r.display_name,
                    r.username,
                    r.status,
                    _ms(r.registered_at),
                    r.final_place,
                ),
            )

    async def save_registrations(self, registrations: Sequence[Registration]) -> None:
        """Several at once, in one transaction (eliminations, the final ranking)."""
        async with self._transaction() as db:
            await db.executemany(
                "UPDATE tournament_registrations SET status = ?, final_place = ?"
                " WHERE tournament_id = ? AND user_id = ?",
                [(r.status, r.final_place, r.tournament_id, r.user_id) for r in registrations],
            )

    async def registrations(self, tournament_id: int) -> list[Registration]:
        """Everyone who ever pressed Register, in the order they did."""
        rows = await self._read(
            "SELECT user_id, display_name, username, status, registered_at, final_place"
            " FROM tournament_registrations WHERE tournament_id = ?"
            " ORDER BY registered_at, user_id",
            (tournament_id,),
        )
        out = []
        for user_id, name, username, status, at, place in rows:
            registered_at = _time(at)
            assert registered_at is not None
            out.append(
                Registration(tournament_id, user_id, name, username, status, registered_at, place)
            )
        return out

    # ------------------------------------------------------------ rounds and tables

    async def save_tournament_table(self, table: TournamentTable) -> None:
        """Insert or replace a round's table with its seats, in one transaction."""
        async with self._transaction() as db:
            await db.execute(
                "INSERT INTO tournament_tables"
                " (tournament_id, round, table_no, seed, game_id, status)"
                " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (tournament_id, round, table_no)"
                " DO UPDATE SET seed = excluded.seed, game_id = excluded.game_id,"
                " status = excluded.status",
                (
                    table.tournament_id,
                    table.round,
                    table.table_no,
                    table.seed,
                    table.game_id,
                    table.status,
                ),
            )
            await self._write_tournament_seats(db, table)

    async def _write_tournament_seats(
        self, db: aiosqlite.Connection, table: TournamentTable
    ) -> None:
        key = (table.tournament_id, table.round, table.table_no)
        await db.execute(
            "DELETE FROM tournament_seats WHERE tournament_id = ? AND round = ? AND table_no = ?",
            key,
        )
        rows = []
        for s in table.seats:
            re, im = split_score(s.total) if s.total is not None else (None, None)
            rows.append(
                (
                    *key,
                    s.seat,
                    s.user_id,
                    s.display_name,
                    int(s.present),
                    int(s.no_show),
                    s.place,
                    re,
                    im,
                    int(s.advanced),
                )
            )
        await db.executemany(
            "INSERT INTO tournament_seats (tournament_id, round, table_no, seat, user_id,"
            " display_name, present, no_show, place, total_re, total_im, advanced)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )

    async def tournament_tables(
        self, tournament_id: int, round: int | None = None
    ) -> list[TournamentTable]:
        """The tournament's tables (of one round, or all), by round and table number."""
        where, params = "tournament_id = ?", [tournament_id]
        if round is not None:
            where, params = "tournament_id = ? AND round = ?", [tournament_id, round]
        tables = await self._read(
            f"SELECT round, table_no, seed, game_id, status FROM tournament_tables WHERE {where}"
            " ORDER BY round, table_no",
            params,
        )
        seats = await self._read(
            "SELECT round, table_no, seat, user_id, display_name, present, no_show, place,"
            f" total_re, total_im, advanced FROM tournament_seats WHERE {where}"
            " ORDER BY round, table_no, seat",
            params,
        )
        is_complex = await self._tournament_is_complex(tournament_id)
        by_table: dict[tuple[int, int], list[TournamentSeat]] = {}
        for rnd, no, seat, user, name, present, no_show, place, re, im, advanced in seats:
            total = None if re is None else join_score(re, im, is_complex)
            by_table.setdefault((rnd, no), []).append(
                TournamentSeat(
                    seat, name, user, bool(present), bool(no_show), place, total, bool(advanced)
                )
            )
        return [
            TournamentTable(
                tournament_id, rnd, no, seed, tuple(by_table.get((rnd, no), [])), game, status
            )
            for rnd, no, seed, game, status in tables
        ]

    async def _tournament_is_complex(self, tournament_id: int) -> bool:
        rows = await self._read("SELECT rules FROM tournaments WHERE id = ?", (tournament_id,))
        return bool(rows) and json.loads(rows[0][0]).get("variant") == "complex"

    # ------------------------------------------------------------ one-time actions

    async def claim_once(
        self, tournament_id: int, kind: str, message_id: int | None = None
    ) -> bool:
        """Claim one-time action ``kind`` (a reminder, "start", "final", "results:N", ...)
        before doing it; False if it was already claimed.

        Claiming first means a crash between the claim and the action loses that one
        action rather than ever doing it twice. (The table keeps its first name,
        ``tournament_claims``.)
        """
        async with self._transaction() as db:
            cursor = await db.execute(
                "INSERT OR IGNORE INTO tournament_claims"
                " (tournament_id, kind, message_id, claimed_at) VALUES (?, ?, ?, ?)",
                (tournament_id, kind, message_id, _now_ms()),
            )
            return cursor.rowcount == 1

    async def claimed(self, tournament_id: int) -> set[str]:
        rows = await self._read(
            "SELECT kind FROM tournament_claims WHERE tournament_id = ?", (tournament_id,)
        )
        return {r[0] for r in rows}
