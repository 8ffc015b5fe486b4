"""Tournaments as stored: the events, their registrations, each round's tables and seats,
and the one-time actions claimed (see `domain.tournaments` for the domain objects)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Final

from sqlalchemy import ColumnElement, Connection, Executable, select

from domain.tournaments import (
    OPEN_TOURNAMENT_STATUSES,
    Registration,
    StateTooNew,
    StoredTournament,
    TournamentOptions,
    TournamentSeat,
    TournamentState,
    TournamentTable,
)
from engine import Rules

from .database import Database, now_ms, rows_changed
from .errors import SchemaTooNew
from .journal import dumps
from .replay import join_score, split_score
from .schema import (
    tournament_claims,
    tournament_registrations,
    tournament_seats,
    tournament_tables,
    tournaments,
)

_T = tournaments.c
_TOURNAMENT: Final = (
    _T.id,
    _T.chat_id,
    _T.thread_id,
    _T.organiser_id,
    _T.organiser_name,
    _T.name,
    _T.rules,
    _T.options,
    _T.time_zone,
    _T.starts_at,
    _T.registration_deadline,
    _T.status,
    _T.current_round,
    _T.state,
    _T.created_at,
    _T.finished_at,
)


def _ms(moment: datetime | None) -> int | None:
    return None if moment is None else int(moment.timestamp() * 1000)


def _time(ms: int | None) -> datetime | None:
    return None if ms is None else datetime.fromtimestamp(ms / 1000, tz=UTC)


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
        state=_state(state),
        created_at=created_at,
        finished_at=_time(finished),
    )


def _state(text: str) -> TournamentState:
    """A tournament's stored state; one a newer bot wrote raises `SchemaTooNew`."""
    try:
        return TournamentState.from_json(text)
    except StateTooNew as newer:
        raise SchemaTooNew("a tournament's state", newer.found, newer.known) from None


class Tournaments:
    """Events, registrations, rounds' tables, one-time actions."""

    def __init__(self, database: Database, account: int = 0) -> None:
        self._db = database
        self.account = account
        """The bot account whose tournaments these are (`storage.accounts`)."""

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
        """A new tournament, open for registration."""
        statement = (
            tournaments.insert()
            .values(
                chat_id=chat_id,
                thread_id=thread_id,
                organiser_id=organiser_id,
                organiser_name=organiser_name,
                name=name,
                rules=dumps(rules.to_dict()),
                options=dumps(options.to_dict()),
                time_zone=time_zone,
                starts_at=_ms(starts_at),
                registration_deadline=_ms(registration_deadline),
                status="registration",
                current_round=0,
                state=(state or TournamentState()).to_json(),
                created_at=now_ms(),
                finished_at=None,
                account=self.account,
            )
            .returning(_T.id)
        )
        tournament_id: int = await self._db.transact(_scalar, statement)
        tournament = await self.get_tournament(tournament_id)
        assert tournament is not None
        return tournament

    async def save_tournament(self, tournament: StoredTournament) -> None:
        """Write a tournament's changeable fields (name, rules, options, times, status, round,
        state); finishing or cancelling stamps the time. `StoredTournament` is frozen:
        callers pass ``dataclasses.replace(...)``."""
        finished = _ms(tournament.finished_at)
        if finished is None and tournament.status in ("finished", "cancelled"):
            finished = now_ms()
        statement = (
            tournaments.update()
            .where(_T.id == tournament.id)
            .values(
                name=tournament.name,
                rules=dumps(tournament.rules.to_dict()),
                options=dumps(tournament.options.to_dict()),
                time_zone=tournament.time_zone,
                starts_at=_ms(tournament.starts_at),
                registration_deadline=_ms(tournament.registration_deadline),
                status=tournament.status,
                current_round=tournament.current_round,
                state=tournament.state.to_json(),
                finished_at=finished,
            )
        )
        await self._db.transact(rows_changed, statement)

    async def get_tournament(self, tournament_id: int) -> StoredTournament | None:
        """This account's tournament (None for another account's: a link or a button
        forged to this bot never registers anyone in it, nor changes it)."""
        rows = await self._db.read(
            select(*_TOURNAMENT).where(_T.id == tournament_id, _T.account == self.account)
        )
        return _tournament(rows[0]) if rows else None

    async def open_tournaments(self) -> list[StoredTournament]:
        """This account's tournaments in registration, running or paused (to resume after
        a restart)."""
        rows = await self._db.read(
            select(*_TOURNAMENT)
            .where(_T.status.in_(OPEN_TOURNAMENT_STATUSES), _T.account == self.account)
            .order_by(_T.id)
        )
        return [_tournament(r) for r in rows]

    async def tournaments_in_chat(self, chat_id: int, *, limit: int = 10) -> list[StoredTournament]:
        """This account's tournaments in the chat, newest first."""
        rows = await self._db.read(
            select(*_TOURNAMENT)
            .where(_T.chat_id == chat_id, _T.account == self.account)
            .order_by(_T.id.desc())
            .limit(limit)
        )
        return [_tournament(r) for r in rows]

    # ------------------------------------------------------------ registrations

    async def save_registration(self, registration: Registration) -> None:
        """Insert or update one person's entry."""
        r = registration
        insert = self._db.insert(tournament_registrations)
        statement = insert.on_conflict_do_update(
            index_elements=[
                tournament_registrations.c.tournament_id,
                tournament_registrations.c.user_id,
            ],
            set_={
                name: insert.excluded[name]
                for name in ("display_name", "username", "status", "registered_at", "final_place")
            },
        )
        row = {
            "tournament_id": r.tournament_id,
            "user_id": r.user_id,
            "display_name": r.display_name,
            "username": r.username,
            "status": r.status,
            "registered_at": _ms(r.registered_at),
            "final_place": r.final_place,
        }
        await self._db.transact(rows_changed, statement, row)

    async def save_registrations(self, registrations: Sequence[Registration]) -> None:
        """Update the status and final place of several entries in one transaction
        (eliminations, the final ranking)."""
        if not registrations:
            return

        def save(db: Connection) -> None:
            for r in registrations:
                db.execute(
                    tournament_registrations.update()
                    .where(
                        tournament_registrations.c.tournament_id == r.tournament_id,
                        tournament_registrations.c.user_id == r.user_id,
                    )
                    .values(status=r.status, final_place=r.final_place)
                )

        await self._db.transact(save)

    async def registrations(self, tournament_id: int) -> list[Registration]:
        """Every entry of the tournament (any status), in registration order."""
        g = tournament_registrations.c
        rows = await self._db.read(
            select(g.user_id, g.display_name, g.username, g.status, g.registered_at)
            .add_columns(g.final_place)
            .where(g.tournament_id == tournament_id)
            .order_by(g.registered_at, g.user_id)
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
        """Insert or replace a round's table and its seats, in one transaction."""
        t = tournament_tables.c
        insert = self._db.insert(tournament_tables)
        statement = insert.on_conflict_do_update(
            index_elements=[t.tournament_id, t.round, t.table_no],
            set_={
                "seed": insert.excluded.seed,
                "game_id": insert.excluded.game_id,
                "status": insert.excluded.status,
            },
        )
        row = {
            "tournament_id": table.tournament_id,
            "round": table.round,
            "table_no": table.table_no,
            "seed": table.seed,
            "game_id": table.game_id,
            "status": table.status,
        }

        def save(db: Connection) -> None:
            db.execute(statement, row)
            _write_seats(db, table)

        await self._db.transact(save)

    async def tournament_tables(
        self, tournament_id: int, round: int | None = None
    ) -> list[TournamentTable]:
        """The tournament's tables (of one round, or all), by round and table number."""
        t, s = tournament_tables.c, tournament_seats.c

        def where(c: Any) -> list[ColumnElement[bool]]:
            found = [c.tournament_id == tournament_id]
            if round is not None:
                found.append(c.round == round)
            return found

        tables = await self._db.read(
            select(t.round, t.table_no, t.seed, t.game_id, t.status)
            .where(*where(t))
            .order_by(t.round, t.table_no)
        )
        seats = await self._db.read(
            select(s.round, s.table_no, s.seat, s.user_id, s.display_name, s.present)
            .add_columns(s.no_show, s.place, s.total_re, s.total_im, s.advanced)
            .where(*where(s))
            .order_by(s.round, s.table_no, s.seat)
        )
        is_complex = await self._is_complex(tournament_id)
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

    async def _is_complex(self, tournament_id: int) -> bool:
        rows = await self._db.read(select(_T.rules).where(_T.id == tournament_id))
        return bool(rows) and json.loads(rows[0][0]).get("variant") == "complex"

    # ------------------------------------------------------------ one-time actions

    async def claim_once(
        self, tournament_id: int, kind: str, message_id: int | None = None
    ) -> bool:
        """Claim one-time action ``kind`` (a reminder, "start", "final", "results:N", ...)
        before doing it; False if it was claimed already, also before a restart.

        Claiming first means a crash between the claim and the action loses that one
        action rather than ever doing it twice.
        """
        statement = self._db.insert(tournament_claims).on_conflict_do_nothing()
        row = {
            "tournament_id": tournament_id,
            "kind": kind,
            "message_id": message_id,
            "claimed_at": now_ms(),
        }
        return await self._db.transact(rows_changed, statement, row) == 1

    async def claimed(self, tournament_id: int) -> set[str]:
        """The one-time actions of a tournament claimed so far."""
        c = tournament_claims.c
        rows = await self._db.read(select(c.kind).where(c.tournament_id == tournament_id))
        return {r[0] for r in rows}


def _scalar(db: Connection, statement: Executable) -> Any:
    """The one value `statement` returns (an id it inserted): a `Database.transact` work."""
    return db.execute(statement).scalar_one()


def _write_seats(db: Connection, table: TournamentTable) -> None:
    s = tournament_seats.c
    db.execute(
        tournament_seats.delete().where(
            s.tournament_id == table.tournament_id,
            s.round == table.round,
            s.table_no == table.table_no,
        )
    )
    if not table.seats:
        return
    rows = []
    for seat in table.seats:
        re, im = split_score(seat.total) if seat.total is not None else (None, None)
        rows.append(
            {
                "tournament_id": table.tournament_id,
                "round": table.round,
                "table_no": table.table_no,
                "seat": seat.seat,
                "user_id": seat.user_id,
                "display_name": seat.display_name,
                "present": int(seat.present),
                "no_show": int(seat.no_show),
                "place": seat.place,
                "total_re": re,
                "total_im": im,
                "advanced": int(seat.advanced),
            }
        )
    db.execute(tournament_seats.insert(), rows)
