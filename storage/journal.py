"""The game journal: a table from its lobby to its end, every move appended durably.

A game is a row of ``games`` (its rules, origin, snapshot and status), its seats, and its
journal of moves (append-only: the database refuses to change or delete one). A move is
acknowledged only once `Journal.record_move` returns, and it returns only once the move,
the snapshot after it and (for the last move) the results and ratings are committed
together. Loading a game checks that its journal replays to its snapshot; one that does
not is quarantined, kept for inspection, out of play.
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import secrets
import sqlite3
from collections.abc import AsyncIterator, Callable, Generator, Iterable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any, Final

from sqlalchemy import ColumnElement, Connection, bindparam, select
from sqlalchemy.dialects.postgresql.asyncpg import dialect as asyncpg_dialect
from sqlalchemy.dialects.sqlite.aiosqlite import dialect as aiosqlite_dialect
from sqlalchemy.exc import IntegrityError

from domain.games import (
    OPEN_STATUSES,
    GameStanding,
    GameStatus,
    JournalEntry,
    StoredGame,
    StoredSeat,
)
from domain.handling import Handling
from domain.standings import score_kind_of
from engine import Game, Move, Rules
from engine.scoring import rank_key

from . import ledger
from .database import Database, Dialect, _Positional, now_ms, rows_changed
from .errors import GameNotFound, SeatTaken, WrongGameStatus
from .rating import rate_cancelled, rate_finished
from .replay import Origin, ReplayError, replay, same_state, split_score
from .schema import game_results, game_seats, games, hand_points, live_seats, moves

log = logging.getLogger(__name__)


def _time(ms: int | None) -> datetime | None:
    return None if ms is None else datetime.fromtimestamp(ms / 1000, tz=UTC)


def dumps(value: Any) -> str:
    """JSON as stored: compact, non-ASCII kept."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


# The move's statements, built once (their compiled form is cached by SQLAlchemy).
_HEAD = select(games.c.status, games.c.last_seq, games.c.hands_recorded, games.c.chat_id).where(
    games.c.id == bindparam("game_id")
)
_HEAD_LOCKED = _HEAD.with_for_update()
_APPEND = moves.insert().values(
    game_id=bindparam("game_id"),
    seq=bindparam("seq"),
    move=bindparam("move"),
    created_at=bindparam("now"),
)
_HAND_POINTS = hand_points.insert()
_AFTER_MOVE = (
    games.update()
    .where(games.c.id == bindparam("game_id"))
    .values(
        snapshot=bindparam("snapshot"),
        last_seq=bindparam("seq"),
        hands_recorded=bindparam("hands"),
        status=bindparam("status"),
        finished_at=bindparam("finished_at"),
        winners=bindparam("winners"),
    )
)
_AFTER_MOVE_WITH_META = _AFTER_MOVE.values(meta=bindparam("meta"))
_SET_META = games.update().where(games.c.id == bindparam("game_id")).values(meta=bindparam("meta"))
_QUARANTINE = (
    games.update()
    .where(games.c.id == bindparam("game_id"))
    .values(status=bindparam("status"), quarantine_reason=bindparam("reason"))
)

_GAME: Final = (
    games.c.id,
    games.c.chat_id,
    games.c.thread_id,
    games.c.creator_id,
    games.c.status,
    games.c.rules,
    games.c.seed,
    games.c.first_dealer,
    games.c.dealer_from_seed,
    games.c.fixed_deals,
    games.c.deal_key,
    games.c.meta,
    games.c.snapshot,
    games.c.last_seq,
    games.c.quarantine_reason,
    games.c.created_at,
    games.c.started_at,
    games.c.finished_at,
    games.c.tournament_id,
    games.c.join_token,
)
_SEAT: Final = (
    game_seats.c.game_id,
    game_seats.c.seat,
    game_seats.c.kind,
    game_seats.c.display_name,
    game_seats.c.user_id,
    game_seats.c.computer_level,
)


class Journal:
    """Games: lobby, start, moves, loading (and replaying) them, cancel and quarantine."""

    def __init__(self, database: Database, account: int = 0) -> None:
        self._db = database
        self.account = account
        """The bot account whose games these are (`storage.accounts`)."""

    # ------------------------------------------------------------ writing

    async def create_lobby(
        self,
        chat_id: int,
        thread_id: int | None,
        creator_id: int,
        rules: Rules,
        seats: list[StoredSeat],
        meta: dict[str, Any] | None = None,
        tournament_id: int | None = None,
        join_token: str | None = None,
    ) -> int:
        """A new table in the lobby (of a tournament, with ``tournament_id``); returns its id.

        ``join_token`` is the table's id in links (random: made here when None); read it
        back with `load_game`.
        """
        row = {
            "chat_id": chat_id,
            "thread_id": thread_id,
            "creator_id": creator_id,
            "status": "lobby",
            "rules": dumps(rules.to_dict()),
            "meta": dumps(meta or {}),
            "created_at": now_ms(),
            "tournament_id": tournament_id,
            "join_token": join_token or secrets.token_urlsafe(9),
            "account": self.account,
        }
        async with self._seats_written(seats):
            game_id: int = await self._db.transact(_create_lobby, row, seats, rules.players)
        return game_id

    async def update_lobby(
        self,
        game_id: int,
        rules: Rules | None = None,
        seats: list[StoredSeat] | None = None,
        meta: dict[str, Any] | None = None,
    ) -> None:
        """Change a lobby's rules, seats or meta (None leaves it as it is)."""
        changes: dict[str, Any] = {}
        if rules is not None:
            changes["rules"] = dumps(rules.to_dict())
        if meta is not None:
            changes["meta"] = dumps(meta)
        async with self._seats_written(seats or [], game_id):
            await self._db.transact(_update_lobby, game_id, changes, seats, rules)

    async def start_game(
        self,
        game_id: int,
        seats: list[StoredSeat],
        game: Game,
        meta: dict[str, Any] | None = None,
    ) -> None:
        """Lobby to active: the final seats, the game before its first move and (given)
        the table's ``meta``, in one transaction.

        Raises `ValueError` if ``game`` cannot be rebuilt from its rules, seed, fixed deals
        and first dealer (e.g. a move was already made), since replay would then fail.
        """
        if len(seats) != game.players:
            raise ValueError(f"The game has {game.players} seats; {len(seats)} were given.")
        origin = Origin.of(game)
        values = {
            "status": "active",
            "rules": dumps(game.rules.to_dict()),
            "seed": game.seed,
            "first_dealer": game.first_dealer,
            "dealer_from_seed": int(origin.first_dealer is None),
            "fixed_deals": dumps(game.fixed_deals),
            "deal_key": None if game.deal_key is None else game.deal_key.hex(),
            "snapshot": game.to_json(),
            "last_seq": 0,
            "hands_recorded": 0,
            "started_at": now_ms(),
        }
        if meta is not None:
            values["meta"] = dumps(meta)
        async with self._seats_written(seats, game_id):
            await self._db.transact(_start, game_id, seats, game.players, values)

    async def record_move(
        self,
        game_id: int,
        move: Move,
        game_after: Game,
        meta: dict[str, Any] | None = None,
        *,
        stand_in: bool = False,
        handled: Handling | None = None,
    ) -> int:
        """Journal ``move`` and store ``game_after`` in one durable transaction.

        Returns the move's sequence number (1, 2, ...). When ``game_after`` is over, the
        results are written, the game is rated and becomes finished in the same
        transaction. ``stand_in``: a computer player made this move for the seat's person.
        ``handled``: the Telegram update the move was made by, recorded as handled (with
        its press's answer) in the same transaction, and marked `Handling.stored`.
        One game's moves are stored in the order they were asked for.
        """
        # Serialise outside the transaction: it is held only for the database work.
        # A stand-in's move (a computer player's, for a person) is marked in the journal.
        move_json = dumps(move.to_dict() | ({"stand_in": 1} if stand_in else {}))
        snapshot = game_after.to_json()
        over = game_after.phase == "over"
        now = now_ms()
        database = self._db
        async with database.game_lock(game_id):
            if over:  # it rates the game: one at a time with the others that do
                await database.serial.acquire()
            try:
                the_move = (
                    game_id,
                    move_json,
                    snapshot,
                    game_after,
                    None if meta is None else dumps(meta),
                    handled,
                    now,
                )
                if over or (handled is not None and ledger.prunes(handled)):
                    # The last move (results, ratings) and a move that prunes the
                    # ledger: through SQLAlchemy.
                    seq = await database.transact(_record, database, *the_move)
                elif database.dialect == "postgresql":
                    seq = await database.on_driver(_record_on_asyncpg, *the_move)
                else:
                    seq = await database.on_sqlite3(_record_on_sqlite3, *the_move)
            finally:
                if over:
                    database.serial.release()
        if handled is not None:
            handled.stored = True
        return seq

    async def set_meta(self, game_id: int, meta: dict[str, Any]) -> None:
        row = {"game_id": game_id, "meta": dumps(meta)}
        if not await self._db.transact(rows_changed, _SET_META, row):
            raise GameNotFound(game_id)

    async def cancel_game(self, game_id: int) -> bool:
        """Lobby or active to cancelled; its journal is kept. A game whose first hand is
        complete is rated from its standing totals in the same transaction (returns
        True); one that never got that far is not rated (False)."""
        async with self._db.serial:
            return await self._db.transact(_cancel, self._db, game_id)

    async def _quarantine(self, game_id: int, reason: str) -> None:
        """Take a game out of play with a reason, keeping everything for inspection."""
        log.error("Game %d quarantined: %s", game_id, reason)
        quarantined = {"game_id": game_id, "status": "quarantined", "reason": reason}
        if not await self._db.transact(_quarantine, quarantined):
            raise GameNotFound(game_id)

    @contextlib.asynccontextmanager
    async def _seats_written(
        self, seats: Sequence[StoredSeat], game_id: int | None = None
    ) -> AsyncIterator[None]:
        """Around a write of a table's seats: a person the database refuses a second live
        seat (`schema.live_seats`'s key) raises `SeatTaken`, naming the table they sit at.
        The key decides, inside the write's own transaction; the table is read only after,
        to say where."""
        try:
            yield
        except IntegrityError as error:
            if "live_seats" not in str(error):
                raise
            people = [s.user_id for s in seats if s.user_id is not None]
            rows = await self._db.read(
                select(live_seats.c.user_id, live_seats.c.game_id).where(
                    live_seats.c.user_id.in_(people), live_seats.c.game_id != (game_id or 0)
                )
            )
            user_id, where = rows[0] if rows else (people[0] if people else 0, None)
            raise SeatTaken(int(user_id), None if where is None else int(where)) from None

    # ------------------------------------------------------------ reading

    async def _games(self, *where: ColumnElement[bool], newest: bool = False) -> list[Any]:
        """Games with their seats (one query: each game's row once per seat)."""
        order = games.c.id.desc() if newest else games.c.id
        found = await self._db.read(
            select(*_GAME, *_SEAT)
            .outerjoin(game_seats, game_seats.c.game_id == games.c.id)
            .where(*where)
            .order_by(order, game_seats.c.seat)
        )
        grouped: dict[int, tuple[Sequence[Any], list[StoredSeat]]] = {}
        for row in found:
            head, seat = row[: len(_GAME)], row[len(_GAME) :]
            entry = grouped.setdefault(head[0], (head, []))
            if seat[0] is not None:
                _, number, kind, name, user_id, level = seat
                entry[1].append(StoredSeat(number, kind, name, user_id, level))
        return list(grouped.values())

    async def _first(self, *where: ColumnElement[bool]) -> StoredGame | None:
        """The newest game that matches, unverified."""
        found = await self._games(*where, newest=True)
        return await self._stored(*found[0], verify=False) if found else None

    async def load_game(self, game_id: int, *, verify: bool = True) -> StoredGame:
        """The game as stored. A snapshot that does not load (or, with ``verify``, a
        journal that does not replay to it) quarantines the game: the result then has
        status ``"quarantined"``, ``game`` None and the reason."""
        found = await self._games(games.c.id == game_id)
        if not found:
            raise GameNotFound(game_id)
        return await self._stored(*found[0], verify=verify)

    async def active_games(self) -> list[StoredGame]:
        """Every lobby and active game of this account, verified, to resume after a
        restart (another account's games are its own to resume).

        Games quarantined by this call are included with status ``"quarantined"`` so the
        bot can tell their chats; the next call no longer lists them.
        """
        found = await self._games(
            games.c.status.in_(OPEN_STATUSES), games.c.account == self.account
        )
        return [await self._stored(head, seats, verify=True) for head, seats in found]

    async def game_in_chat(self, chat_id: int, thread_id: int | None) -> StoredGame | None:
        """The lobby or active game of a chat (or of one forum topic), if any."""
        return await self._first(
            games.c.chat_id == chat_id,
            games.c.thread_id.is_not_distinct_from(thread_id),
            games.c.status.in_(OPEN_STATUSES),
        )

    async def last_finished_game(self, chat_id: int, thread_id: int | None) -> StoredGame | None:
        """The chat's (or forum topic's) latest finished game of its own (not a tournament's)."""
        latest = (
            select(games.c.id)
            .where(
                games.c.chat_id == chat_id,
                games.c.thread_id.is_not_distinct_from(thread_id),
                games.c.status == "finished",
                games.c.tournament_id.is_(None),
            )
            .order_by(games.c.id.desc())
            .limit(1)
            .scalar_subquery()
        )
        return await self._first(games.c.id == latest)

    async def active_game_for_user(self, user_id: int) -> StoredGame | None:
        """The live table (a lobby or a game in play) where the user sits, if any: their
        one live seat (`schema.live_seats`), at any bot account's table."""
        return await self._first(
            games.c.id.in_(select(live_seats.c.game_id).where(live_seats.c.user_id == user_id))
        )

    async def standing(self, game_id: int) -> GameStanding | None:
        """What a game was made as and where it is, without loading it (one row by key):
        what decides which commands it accepts (`bot.core.accepts`). None: no such game."""
        rows = await self._db.read(
            select(
                games.c.status,
                games.c.tournament_id,
                self._db.json_int(games.c.meta, "daily"),
                games.c.rules,
            ).where(games.c.id == game_id)
        )
        if not rows:
            return None
        status, tournament_id, day, rules = rows[0]
        variant = json.loads(rules).get("variant", "standard")
        return GameStanding(status, tournament_id, None if day is None else int(day), str(variant))

    async def seat_of(self, game_id: int, user_id: int) -> int | None:
        """The seat the person holds at the game, None when none (or no such game): one
        row by key, for callers that must not load a game for a stranger."""
        rows = await self._db.read(
            select(game_seats.c.seat).where(
                game_seats.c.game_id == game_id, game_seats.c.user_id == user_id
            )
        )
        return int(rows[0][0]) if rows else None

    async def _stored(
        self, row: Sequence[Any], seats: list[StoredSeat], *, verify: bool
    ) -> StoredGame:
        (
            game_id,
            chat_id,
            thread_id,
            creator_id,
            status,
            rules_json,
            seed,
            first_dealer,
            dealer_from_seed,
            deals_json,
            deal_key,
            meta_json,
            snapshot,
            last_seq,
            reason,
            created_at,
            started_at,
            finished_at,
            tournament_id,
            join_token,
        ) = row
        stored = StoredGame(
            id=game_id,
            chat_id=chat_id,
            thread_id=thread_id,
            creator_id=creator_id,
            status=status,
            rules=Rules(),
            seats=tuple(seats),
            meta={},
            game=None,
            seed=seed,
            first_dealer=first_dealer,
            fixed_deals=[],
            last_seq=last_seq,
            created_at=datetime.fromtimestamp(created_at / 1000, tz=UTC),
            started_at=_time(started_at),
            finished_at=_time(finished_at),
            quarantine_reason=reason,
            tournament_id=tournament_id,
            join_token=join_token or "",
        )
        try:
            rules = Rules.from_dict(json.loads(rules_json))
            meta = json.loads(meta_json)
            deals = json.loads(deals_json)
            game = None
            if snapshot is not None and status != "quarantined":
                try:
                    game = Game.from_json(snapshot)
                except ValueError as error:
                    raise _Unloadable(f"its snapshot does not load ({error})") from None
                if verify and status == "active":
                    origin = Origin(
                        rules,
                        seed,
                        None if dealer_from_seed else first_dealer,
                        deals,
                        None if deal_key is None else bytes.fromhex(deal_key),
                    )
                    journal = await self._journal_rows(game_id, last_seq)
                    try:
                        replayed = replay(origin, journal)
                    except ReplayError as error:
                        raise _Unloadable(f"its journal does not replay ({error})") from None
                    if not same_state(replayed.to_json(), snapshot):
                        raise _Unloadable(
                            f"its journal of {last_seq} moves replays to a different game "
                            "than its snapshot"
                        )
        except (_Unloadable, ValueError, TypeError) as error:
            why = (
                str(error)
                if isinstance(error, _Unloadable)
                else f"its data is unreadable ({error!r})"
            )
            if status not in OPEN_STATUSES:
                log.error("Game %d (%s) cannot be loaded: %s", game_id, status, why)
                return replace(stored, game=None)
            reason = f"Game {game_id} cannot be resumed: {why}."
            await self._quarantine(game_id, reason)
            return replace(stored, status="quarantined", quarantine_reason=reason)
        return replace(stored, rules=rules, meta=meta, fixed_deals=deals, game=game)

    async def _journal_rows(self, game_id: int, upto: int) -> list[tuple[int, dict[str, Any]]]:
        rows = await self._db.read(
            select(moves.c.seq, moves.c.move)
            .where(moves.c.game_id == game_id, moves.c.seq <= upto)
            .order_by(moves.c.seq)
        )
        return [(seq, json.loads(move)) for seq, move in rows]

    async def journal(self, game_id: int) -> list[JournalEntry]:
        rows = await self._db.read(
            select(moves.c.seq, moves.c.move, moves.c.created_at)
            .where(moves.c.game_id == game_id)
            .order_by(moves.c.seq)
        )
        return [
            JournalEntry(seq, json.loads(move), datetime.fromtimestamp(at / 1000, tz=UTC))
            for seq, move, at in rows
        ]

    async def replay(self, game_id: int) -> Game:
        """The game rebuilt from its origin and journal; raises `ReplayError`."""
        origin, last_seq = await self._origin(game_id)
        return replay(origin, await self._journal_rows(game_id, last_seq))

    async def game_and_moves(self, game_id: int) -> tuple[Game, list[tuple[Move, bool]]]:
        """The game as it was dealt, before any move, and its journal: each move with
        whether a computer made it for the person in the seat (the coach's reviews)."""
        origin, last_seq = await self._origin(game_id)
        journal = [
            (Move.from_dict(data), bool(data.get("stand_in")))
            for _, data in await self._journal_rows(game_id, last_seq)
        ]
        return origin.new_game(), journal

    async def _origin(self, game_id: int) -> tuple[Origin, int]:
        rows = await self._db.read(
            select(
                games.c.rules,
                games.c.seed,
                games.c.first_dealer,
                games.c.dealer_from_seed,
                games.c.fixed_deals,
                games.c.deal_key,
                games.c.last_seq,
            ).where(games.c.id == game_id)
        )
        if not rows:
            raise GameNotFound(game_id)
        rules_json, seed, first_dealer, from_seed, deals_json, deal_key, last_seq = rows[0]
        if seed is None:
            raise WrongGameStatus(game_id, "lobby", "started")
        origin = Origin(
            Rules.from_dict(json.loads(rules_json)),
            seed,
            None if from_seed else first_dealer,
            json.loads(deals_json),
            None if deal_key is None else bytes.fromhex(deal_key),
        )
        return origin, last_seq


def _create_lobby(
    db: Connection, row: dict[str, Any], seats: list[StoredSeat], players: int
) -> int:
    game_id: int = db.execute(games.insert().values(row).returning(games.c.id)).scalar_one()
    _write_seats(db, game_id, seats, players)
    return game_id


def _update_lobby(
    db: Connection,
    game_id: int,
    changes: dict[str, Any],
    seats: list[StoredSeat] | None,
    rules: Rules | None,
) -> None:
    _status(db, game_id, ("lobby",))
    if changes:
        db.execute(games.update().where(games.c.id == game_id).values(changes))
    if seats is not None:
        if rules is None:
            stored = db.execute(select(games.c.rules).where(games.c.id == game_id)).scalar_one()
            rules = Rules.from_dict(json.loads(stored))
        _write_seats(db, game_id, seats, rules.players)


def _start(
    db: Connection, game_id: int, seats: list[StoredSeat], players: int, values: dict[str, Any]
) -> None:
    _status(db, game_id, ("lobby",))
    _write_seats(db, game_id, seats, players, every_seat=True)
    db.execute(games.update().where(games.c.id == game_id).values(values))


def _record(
    db: Connection,
    database: Database,
    game_id: int,
    move_json: str,
    snapshot: str,
    game_after: Game,
    meta_json: str | None,
    handled: Handling | None,
    now: int,
) -> int:
    """`Journal.record_move`'s transaction through SQLAlchemy: the move's steps
    (`_move_steps`), the handled update's ledger pruned now and then, and the results and
    ratings when the game is over; returns the move's sequence number."""
    statements: dict[str, Any] = {
        "head": _HEAD_LOCKED if database.dialect == "postgresql" else _HEAD,
        "append": _APPEND,
        "hands": _HAND_POINTS,
        "after": _AFTER_MOVE,
        "after_meta": _AFTER_MOVE_WITH_META,
    }

    def run(name: str, values: Any) -> Any:
        if name == "handled":  # through the ledger, which prunes it now and then
            assert handled is not None
            ledger.handled(db, database, handled, now)
            return None
        result = db.execute(statements[name], values)
        return result.first() if name == "head" else None

    seq, chat_id = _run_steps(
        _move_steps(game_id, move_json, snapshot, game_after, meta_json, handled, now), run
    )
    if game_after.phase == "over":
        _write_results(db, database, game_id, chat_id, game_after, now)
        _free_seats(db, game_id)
    return seq


def _next_seq(game_id: int, row: Sequence[Any] | None, game_after: Game) -> tuple[int, int, int]:
    """The move's sequence number, the hands stored and the chat, from the game's head
    (its status, last sequence number, hands recorded and chat); raises if the move
    cannot be stored."""
    if row is None:
        raise GameNotFound(game_id)
    status, last_seq, hands_recorded, chat_id = row
    if status != "active":
        raise WrongGameStatus(game_id, status, "active")
    history = game_after.hand_history
    if len(history) < hands_recorded:
        raise ValueError(
            f"Game {game_id}: the game after the move has {len(history)} scored hands, "
            f"but {hands_recorded} are already stored; it is not this game."
        )
    return last_seq + 1, hands_recorded, chat_id


def _hands_scored(game_id: int, game_after: Game, hands_recorded: int) -> list[dict[str, Any]]:
    """The `hand_points` rows of the hands scored since the last stored move."""
    return [
        {
            "game_id": game_id,
            "hand_number": hand.hand_number,
            "seat": seat,
            "points_re": split_score(hand.points[seat])[0],
            "points_im": split_score(hand.points[seat])[1],
            "total_re": split_score(hand.totals[seat])[0],
            "total_im": split_score(hand.totals[seat])[1],
            "shot_moon": int(hand.shooter == seat),
        }
        for hand in game_after.hand_history[hands_recorded:]
        for seat in range(game_after.players)
    ]


def _after_move(
    game_id: int, game_after: Game, snapshot: str, seq: int, now: int
) -> dict[str, Any]:
    over = game_after.phase == "over"
    return {
        "game_id": game_id,
        "snapshot": snapshot,
        "seq": seq,
        "hands": len(game_after.hand_history),
        "status": "finished" if over else "active",
        "finished_at": now if over else None,
        "winners": dumps(list(game_after.winners)) if over else None,
    }


Steps = Generator[tuple[str, Any], Any, tuple[int, int]]
"""A move's statements, in order, as `_move_steps` gives them to a driver."""


def _move_steps(
    game_id: int,
    move_json: str,
    snapshot: str,
    game_after: Game,
    meta_json: str | None,
    handled: Handling | None,
    now: int,
) -> Steps:
    """A move's statements, written once for every driver that runs them (`_record`
    through SQLAlchemy, `_record_on_asyncpg`, `_record_on_sqlite3`): the game's head
    (locked on PostgreSQL), the move appended, the update that made it handled, the hands
    scored since, the game after it. Each step is a statement's name (in `_compiled`) and
    its values (a list: many rows at once); the head's row is sent back. Returns the move's
    sequence number and the game's chat."""
    row = yield "head", {"game_id": game_id}
    seq, hands_recorded, chat_id = _next_seq(game_id, row, game_after)
    yield "append", {"game_id": game_id, "seq": seq, "move": move_json, "now": now}
    if handled is not None:  # the update that made it: handled, with the move
        yield "handled", ledger.handled_row(handled, now)
    scored = _hands_scored(game_id, game_after, hands_recorded)
    if scored:
        yield "hands", scored
    after = _after_move(game_id, game_after, snapshot, seq, now)
    if meta_json is None:
        yield "after", after
    else:
        yield "after_meta", after | {"meta": meta_json}
    return int(seq), int(chat_id)


def _run_steps(steps: Steps, run: Callable[[str, Any], Any]) -> tuple[int, int]:
    """Each step run by `run` (which returns the head's row, and None after any other)."""
    sent = None
    while True:
        try:
            name, values = steps.send(sent)
        except StopIteration as done:
            result: tuple[int, int] = done.value
            return result
        sent = run(name, values)


@functools.cache
def _compiled(dialect: Dialect) -> dict[str, _Positional]:
    """The move's statements compiled once for a driver (asyncpg, or the sqlite3 module
    under aiosqlite), to run through it: still the Core expressions above, never SQL
    text. PostgreSQL locks the game's row as it reads its head."""
    compiler: Any
    if dialect == "postgresql":
        compiler, head = asyncpg_dialect(), _HEAD_LOCKED  # type: ignore[no-untyped-call]
    else:
        compiler, head = aiosqlite_dialect(), _HEAD
    return {
        name: _Positional(statement.compile(dialect=compiler))
        for name, statement in (
            ("head", head),
            ("append", _APPEND),
            ("hands", _HAND_POINTS),
            ("after", _AFTER_MOVE),
            ("after_meta", _AFTER_MOVE_WITH_META),
            ("handled", ledger.handled_statement(dialect)),
        )
    }


async def _record_on_asyncpg(connection: Any, *move: Any) -> int:
    """`_record` for a move that does not end the game, on PostgreSQL: the same steps
    (`_move_steps`), their statements compiled once, run on asyncpg's own connection. On
    the hottest path SQLAlchemy's work around each statement cost more than the statement:
    with 8 tables at once, twice the main thread's time a move."""
    on = _compiled("postgresql")
    steps = _move_steps(*move)
    sent = None
    while True:
        try:
            name, values = steps.send(sent)
        except StopIteration as done:
            return int(done.value[0])
        statement = on[name]
        sent = None
        if name == "head":
            sent = await connection.fetchrow(statement.sql, *statement.values(values))
        elif isinstance(values, list):
            await connection.executemany(statement.sql, [statement.values(v) for v in values])
        else:
            await connection.execute(statement.sql, *statement.values(values))


def _record_on_sqlite3(connection: sqlite3.Connection, *move: Any) -> int:
    """`_record` for a move that does not end the game, on SQLite: the same steps
    (`_move_steps`), their statements compiled once, run on the writer's own sqlite3
    connection in its thread (`Database.on_sqlite3`). SQLAlchemy's work around each
    statement (and around BEGIN and COMMIT) was twice SQLite's own there, and it holds the
    GIL."""
    on = _compiled("sqlite")

    def run(name: str, values: Any) -> Any:
        statement = on[name]
        if isinstance(values, list):
            connection.executemany(statement.sql, [statement.values(v) for v in values])
            return None
        cursor = connection.execute(statement.sql, statement.values(values))
        return cursor.fetchone() if name == "head" else None

    return _run_steps(_move_steps(*move), run)[0]


def _cancel(db: Connection, database: Database, game_id: int) -> bool:
    status = _status(db, game_id, OPEN_STATUSES)
    db.execute(
        games.update().where(games.c.id == game_id).values(status="cancelled", finished_at=now_ms())
    )
    _free_seats(db, game_id)
    # In the same transaction: a game cancelled after its first hand is rated exactly
    # once, whatever crashes when.
    return status == "active" and rate_cancelled(db, database, game_id)


def _write_seats(
    db: Connection,
    game_id: int,
    seats: list[StoredSeat],
    players: int,
    *,
    every_seat: bool = False,
) -> None:
    """A table's seats: a lobby's may have holes (a seat emptied before a later one is,
    seats filled in advance for a rematch), each numbered 0 to ``players - 1`` once;
    a started game's (`every_seat`) fill every number."""
    numbers = [s.seat for s in seats]
    if every_seat and sorted(numbers) != list(range(players)):
        raise ValueError(f"Seats must be numbered 0 to {players - 1}, not {numbers}.")
    if len(set(numbers)) != len(numbers) or not all(0 <= n < players for n in numbers):
        raise ValueError(
            f"Seats must be numbered 0 to {players - 1}, each at most once, not {numbers}."
        )
    db.execute(game_seats.delete().where(game_seats.c.game_id == game_id))
    _free_seats(db, game_id)
    people = [{"user_id": s.user_id, "game_id": game_id} for s in seats if s.user_id is not None]
    if people:  # refused by the key if one of them sits at another live table
        db.execute(live_seats.insert(), people)
    if seats:
        db.execute(
            game_seats.insert(),
            [
                {
                    "game_id": game_id,
                    "seat": s.seat,
                    "kind": s.kind,
                    "user_id": s.user_id,
                    "display_name": s.display_name,
                    "computer_level": s.computer_level,
                }
                for s in seats
            ],
        )


def _free_seats(db: Connection, game_id: int) -> None:
    """The game's people sit nowhere live any more (it ended, or its seats are rewritten)."""
    db.execute(live_seats.delete().where(live_seats.c.game_id == game_id))


def _quarantine(db: Connection, values: dict[str, Any]) -> int:
    """A game out of play, its people free: returns the rows changed (0: no such game)."""
    changed = db.execute(_QUARANTINE, values).rowcount
    _free_seats(db, values["game_id"])
    return int(changed)


def _status(db: Connection, game_id: int, wanted: Iterable[GameStatus]) -> GameStatus:
    status: GameStatus | None = db.execute(
        select(games.c.status).where(games.c.id == game_id)
    ).scalar_one_or_none()
    if status is None:
        raise GameNotFound(game_id)
    allowed = tuple(wanted)
    if status not in allowed:
        raise WrongGameStatus(game_id, status, " or ".join(allowed))
    return status


def _write_results(
    db: Connection,
    database: Database,
    game_id: int,
    chat_id: int,
    game: Game,
    now: int,
) -> None:
    seat_rows = db.execute(
        select(game_seats.c.seat, game_seats.c.user_id)
        .where(game_seats.c.game_id == game_id)
        .order_by(game_seats.c.seat)
    )
    users = {seat: user_id for seat, user_id in seat_rows}
    rules = game.rules
    keys = [rank_key(rules, total) for total in game.scores]
    hands = len(game.hand_history)
    kind = score_kind_of(rules)
    results = []
    for seat, total in enumerate(game.scores):
        won = seat in game.winners
        re, im = split_score(total)
        results.append(
            {
                "game_id": game_id,
                "seat": seat,
                "chat_id": chat_id,
                "user_id": users.get(seat),
                "score_kind": kind,
                "players": game.players,
                "total_re": re,
                "total_im": im,
                "rank_key": keys[seat],
                "place": 1 if won else 1 + sum(1 for k in keys if k < keys[seat]),
                "won": int(won),
                "hands": hands,
                "moons": sum(1 for h in game.hand_history if h.shooter == seat),
                "finished_at": now,
            }
        )
    db.execute(game_results.insert(), results)
    rate_finished(db, database, game_id)


class _Unloadable(Exception):
    """Why a stored game cannot be resumed."""
