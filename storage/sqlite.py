"""`Storage` on SQLite through aiosqlite: the embedded default.

Connections. One writer connection, used only under an `asyncio.Lock`, so no two
coroutines ever share a transaction; every write is ``BEGIN IMMEDIATE`` ... ``COMMIT``
(``ROLLBACK`` on any error). One reader connection, separate, so that in WAL mode reads
never wait for a write in progress. Both: WAL, ``foreign_keys=ON``, a busy timeout.

Durability. WAL with ``synchronous=NORMAL`` by default: a commit is in the WAL file (in
the operating system's hands) before `record_move` returns, so an acknowledged move
survives the bot being killed, crashing or redeployed at any instant; the test kills a
writer with SIGKILL mid-stream to check it. What NORMAL does not promise is a power cut or
kernel crash in the second or so before the OS writes the WAL out: that can lose the last
moves (never corrupt the database). ``synchronous="FULL"`` closes that gap by fsyncing
every commit, at about 2.5 ms a move on this machine (~400 moves/s, under the 1,000 bar),
so it is an option of `SqliteStorage.open` for hosts that need it, not the default.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import sqlite3
import time
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, Literal

import aiosqlite

from engine import Game, Move, Rules
from engine.scoring import rank_key

from . import backup as backup_module
from . import handling
from .errors import GameNotFound, StorageError, StorageUnavailable, WrongGameStatus
from .handling import HANDLING
from .models import (
    OPEN_STATUSES,
    ChatSettings,
    GameStatus,
    GameTable,
    HandLine,
    JournalEntry,
    LanguageChoices,
    PlayerGame,
    PlayerStanding,
    Score,
    ScoreKind,
    StoredGame,
    StoredSeat,
    User,
    score_kind_of,
)
from .ratings_sqlite import SqliteRatings, rate_backlog, rate_cancelled, rate_finished
from .replay import Origin, ReplayError, join_score, replay, same_state, split_score
from .tournaments_sqlite import SqliteTournaments, returned_id
from .upgrade import upgrade_schema

log = logging.getLogger(__name__)

BUSY_TIMEOUT_MS: Final = 5000
Synchronous = Literal["FULL", "NORMAL"]

_GAME_COLUMNS: Final = """
    g.id, g.chat_id, g.thread_id, g.creator_id, g.status, g.rules, g.seed, g.first_dealer,
    g.dealer_from_seed, g.fixed_deals, g.meta, g.snapshot, g.last_seq, g.quarantine_reason,
    g.created_at, g.started_at, g.finished_at, g.tournament_id, g.join_token,
    (SELECT json_group_array(json_array(seat, kind, display_name, user_id, computer_level))
       FROM (SELECT * FROM game_seats s WHERE s.game_id = g.id ORDER BY s.seat))
"""


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


def _time(ms: int | None) -> datetime | None:
    return None if ms is None else datetime.fromtimestamp(ms / 1000, tz=UTC)


async def _handled(db: Any, handled: handling.Handling, now: int) -> None:
    update_id = handled.update_id
    await db.execute(
        "INSERT OR IGNORE INTO handled_updates (update_id, handled_at, callback_id, answer)"
        " VALUES (?, ?, ?, ?)",
        (update_id, now, handled.callback_id, handled.answer),
    )
    if update_id % 1000 == 0:  # now and then, the ids that can no longer come back go
        await db.execute(
            "DELETE FROM handled_updates WHERE update_id < ?", (update_id - handling.KEEP,)
        )


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


async def _connect(path: str, synchronous: Synchronous, *, reader: bool) -> aiosqlite.Connection:
    # isolation_level=None: the sqlite3 module opens no transaction behind our back; we
    # issue BEGIN IMMEDIATE / COMMIT / ROLLBACK ourselves.
    db = await aiosqlite.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000)
    try:
        await db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        rows = await _wal(db)
        if str(rows[0][0]).lower() != "wal":
            raise StorageError(f"{path}: SQLite refused WAL mode ({rows[0][0]}).")
        await db.execute("PRAGMA foreign_keys = ON")
        await db.execute(f"PRAGMA synchronous = {synchronous}")
        if reader:
            await db.execute("PRAGMA query_only = ON")
    except BaseException:
        await db.close()
        raise
    return db


async def _wal(db: aiosqlite.Connection) -> list[Any]:
    """Switch to WAL, waiting up to the busy timeout for a process that holds the file for
    a moment (another bot opening the same new database): SQLite answers "database is
    locked" at once there, without the busy timeout."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            return list(await db.execute_fetchall("PRAGMA journal_mode = WAL"))
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.02)


async def _rate_backlog(db: aiosqlite.Connection) -> None:
    """Games finished before ratings existed are rated once, in the order they finished."""
    await db.execute("BEGIN IMMEDIATE")
    try:
        rated = await rate_backlog(db)
    except BaseException:
        await db.execute("ROLLBACK")
        raise
    await db.execute("COMMIT")
    if rated:
        log.info("Rated %d games finished before ratings existed.", rated)


class SqliteStorage(SqliteTournaments, SqliteRatings):
    """The SQLite implementation of `storage.repository.Storage`. Open with `open`."""

    LOCK_ROW = ""
    """What locks the row a write transaction reads before it changes it (SQLite's
    transactions take the whole database: nothing)."""

    def __init__(
        self, path: str, writer: aiosqlite.Connection, reader: aiosqlite.Connection
    ) -> None:
        self.path = path
        self._writer = writer
        self._reader = reader
        self._write_lock = asyncio.Lock()
        self.write_failure: str | None = None
        """Why the last write failed (None once a write succeeds again): `/healthz`."""

    @classmethod
    async def open(cls, path: str | Path, *, synchronous: Synchronous = "NORMAL") -> SqliteStorage:
        """Open (creating the file and its folders) and upgrade it to the newest schema
        (`storage.upgrade.upgrade_schema`).

        Raises `SchemaTooNew` for a database written by a newer version.
        """
        file = Path(path)
        file.parent.mkdir(parents=True, exist_ok=True)
        name = str(file)
        writer = await _connect(name, synchronous, reader=False)
        try:
            await upgrade_schema(name)
            await _rate_backlog(writer)
            reader = await _connect(name, synchronous, reader=True)
        except BaseException:
            await writer.close()
            raise
        return cls(name, writer, reader)

    async def close(self) -> None:
        async with self._write_lock:
            await self._reader.close()
            await self._writer.close()

    async def __aenter__(self) -> SqliteStorage:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """One write transaction, alone: commits when the block ends, rolls back on error."""
        async with self._write_lock:
            db = self._writer
            try:
                await db.execute("BEGIN IMMEDIATE")
                try:
                    yield db
                except BaseException:
                    if db.in_transaction:
                        with contextlib.suppress(sqlite3.Error):
                            await db.execute("ROLLBACK")
                    raise
                await db.execute("COMMIT")
            except sqlite3.OperationalError as error:
                # Disk full, I/O error, busy: nothing was written; the caller may retry.
                if db.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        await db.execute("ROLLBACK")
                self.write_failure = str(error)
                raise StorageUnavailable(f"the database cannot be written: {error}") from error
            self.write_failure = None

    async def _read(self, sql: str, parameters: Sequence[Any] = ()) -> list[Any]:
        return list(await self._reader.execute_fetchall(sql, parameters))

    # ------------------------------------------------------------ chats and users

    async def get_chat_settings(self, chat_id: int) -> ChatSettings:
        rows = await self._read(
            "SELECT rules, turn_timer_s, computer_level, track_cards, hints FROM chats"
            " WHERE chat_id = ?",
            (chat_id,),
        )
        if not rows:
            return ChatSettings(chat_id)
        rules, timer, level, track, hints = rows[0]
        return ChatSettings(chat_id, json.loads(rules), timer, level, bool(track), bool(hints))

    async def save_chat_settings(self, settings: ChatSettings) -> None:
        async with self._transaction() as db:
            await db.execute(
                "INSERT INTO chats (chat_id, rules, turn_timer_s, computer_level,"
                " track_cards, hints, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (chat_id) DO UPDATE SET rules = excluded.rules,"
                " turn_timer_s = excluded.turn_timer_s,"
                " computer_level = excluded.computer_level,"
                " track_cards = excluded.track_cards, hints = excluded.hints,"
                " updated_at = excluded.updated_at",
                (
                    settings.chat_id,
                    _dumps(settings.rules),
                    60 if settings.turn_timer_s is None else settings.turn_timer_s,
                    settings.computer_level,
                    int(settings.track_cards),
                    int(settings.hints),
                    _now_ms(),
                ),
            )

    # ------------------------------------------------------------ languages

    async def language_choices(self) -> LanguageChoices:
        choices = LanguageChoices()
        for user_id, chosen, app in await self._read(
            "SELECT user_id, chosen, app FROM person_languages", ()
        ):
            if chosen:
                choices.chosen_by_person[user_id] = chosen
            if app:
                choices.person_app[user_id] = app
        for chat_id, chosen, first in await self._read(
            "SELECT chat_id, chosen, first FROM chat_languages", ()
        ):
            if chosen:
                choices.chosen_by_chat[chat_id] = chosen
            if first:
                choices.chat_first[chat_id] = first
        return choices

    async def save_person_language(self, user_id: int, *, chosen: str, app: str) -> None:
        async with self._transaction() as db:
            await db.execute(
                "INSERT INTO person_languages (user_id, chosen, app, updated_at)"
                " VALUES (?, ?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET"
                " chosen = excluded.chosen, app = excluded.app,"
                " updated_at = excluded.updated_at",
                (user_id, chosen, app, _now_ms()),
            )

    async def save_chat_language(self, chat_id: int, *, chosen: str, first: str) -> None:
        async with self._transaction() as db:
            await db.execute(
                "INSERT INTO chat_languages (chat_id, chosen, first, updated_at)"
                " VALUES (?, ?, ?, ?) ON CONFLICT (chat_id) DO UPDATE SET"
                " chosen = excluded.chosen, first = excluded.first,"
                " updated_at = excluded.updated_at",
                (chat_id, chosen, first, _now_ms()),
            )

    async def upsert_user(self, user_id: int, display_name: str, username: str | None) -> None:
        async with self._transaction() as db:
            await db.execute(
                "INSERT INTO users (user_id, display_name, username, updated_at)"
                " VALUES (?, ?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET"
                " display_name = excluded.display_name, username = excluded.username,"
                " updated_at = excluded.updated_at",
                (user_id, display_name, username, _now_ms()),
            )

    async def get_user(self, user_id: int) -> User | None:
        rows = await self._read(
            "SELECT display_name, username, dm_open FROM users WHERE user_id = ?", (user_id,)
        )
        if not rows:
            return None
        name, username, dm = rows[0]
        return User(user_id, name, username, bool(dm))

    async def set_dm_open(self, user_id: int, dm_open: bool) -> None:
        async with self._transaction() as db:
            # A user we never saw gets a placeholder name until upsert_user names them.
            await db.execute(
                "INSERT INTO users (user_id, display_name, dm_open, updated_at)"
                " VALUES (?, ?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET"
                " dm_open = excluded.dm_open, updated_at = excluded.updated_at",
                (user_id, str(user_id), int(dm_open), _now_ms()),
            )

    async def dm_open(self, user_id: int) -> bool:
        rows = await self._read("SELECT dm_open FROM users WHERE user_id = ?", (user_id,))
        return bool(rows and rows[0][0])

    # ------------------------------------------------------------ games: writing

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
        async with self._transaction() as db:
            cursor = await db.execute(
                "INSERT INTO games (chat_id, thread_id, creator_id, status, rules, meta,"
                " created_at, tournament_id, join_token) VALUES (?, ?, ?, 'lobby', ?, ?, ?, ?, ?)"
                " RETURNING id",
                (
                    chat_id,
                    thread_id,
                    creator_id,
                    _dumps(rules.to_dict()),
                    _dumps(meta or {}),
                    _now_ms(),
                    tournament_id,
                    join_token or secrets.token_urlsafe(9),
                ),
            )
            game_id = await returned_id(cursor)
            await self._write_seats(db, game_id, seats, rules.players)
        return game_id

    async def _write_seats(
        self,
        db: aiosqlite.Connection,
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
        await db.execute("DELETE FROM game_seats WHERE game_id = ?", (game_id,))
        await db.executemany(
            "INSERT INTO game_seats (game_id, seat, kind, user_id, display_name, computer_level)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            [(game_id, s.seat, s.kind, s.user_id, s.display_name, s.computer_level) for s in seats],
        )

    async def _status(
        self, db: aiosqlite.Connection, game_id: int, wanted: Iterable[GameStatus]
    ) -> GameStatus:
        rows = list(await db.execute_fetchall("SELECT status FROM games WHERE id = ?", (game_id,)))
        if not rows:
            raise GameNotFound(game_id)
        status: GameStatus = rows[0][0]
        allowed = tuple(wanted)
        if status not in allowed:
            raise WrongGameStatus(game_id, status, " or ".join(allowed))
        return status

    async def update_lobby(
        self,
        game_id: int,
        rules: Rules | None = None,
        seats: list[StoredSeat] | None = None,
        meta: dict[str, Any] | None = None,
    ) -> None:
        async with self._transaction() as db:
            await self._status(db, game_id, ("lobby",))
            await db.execute(
                "UPDATE games SET rules = COALESCE(?, rules), meta = COALESCE(?, meta)"
                " WHERE id = ?",
                (
                    None if rules is None else _dumps(rules.to_dict()),
                    None if meta is None else _dumps(meta),
                    game_id,
                ),
            )
            if seats is not None:
                if rules is None:
                    rows = list(
                        await db.execute_fetchall(
                            "SELECT rules FROM games WHERE id = ?", (game_id,)
                        )
                    )
                    rules = Rules.from_dict(json.loads(rows[0][0]))
                await self._write_seats(db, game_id, seats, rules.players)

    async def start_game(
        self,
        game_id: int,
        seats: list[StoredSeat],
        game: Game,
        meta: dict[str, Any] | None = None,
    ) -> None:
        if len(seats) != game.players:
            raise ValueError(f"The game has {game.players} seats; {len(seats)} were given.")
        origin = Origin.of(game)
        async with self._transaction() as db:
            await self._status(db, game_id, ("lobby",))
            await self._write_seats(db, game_id, seats, game.players, every_seat=True)
            await db.execute(
                "UPDATE games SET status = 'active', rules = ?, seed = ?, first_dealer = ?,"
                " dealer_from_seed = ?, fixed_deals = ?, snapshot = ?, last_seq = 0,"
                " hands_recorded = 0, started_at = ?, meta = COALESCE(?, meta) WHERE id = ?",
                (
                    _dumps(game.rules.to_dict()),
                    game.seed,
                    game.first_dealer,
                    int(origin.first_dealer is None),
                    _dumps(game.fixed_deals),
                    game.to_json(),
                    _now_ms(),
                    None if meta is None else _dumps(meta),
                    game_id,
                ),
            )

    async def record_move(
        self,
        game_id: int,
        move: Move,
        game_after: Game,
        meta: dict[str, Any] | None = None,
        *,
        stand_in: bool = False,
    ) -> int:
        # Serialise outside the lock: the lock is held only for the database work.
        # A stand-in's move (a computer player's, for a person) is marked in the journal.
        # (Ratings no longer weigh by it: a person away at the end is ranked last.)
        move_json = _dumps(move.to_dict() | ({"stand_in": 1} if stand_in else {}))
        snapshot = game_after.to_json()
        meta_json = None if meta is None else _dumps(meta)
        over = game_after.phase == "over"
        now = _now_ms()
        handled = HANDLING.get()
        async with self._transaction() as db:
            rows = list(
                await db.execute_fetchall(
                    "SELECT status, last_seq, hands_recorded, chat_id FROM games WHERE id = ?"
                    + self.LOCK_ROW,
                    (game_id,),
                )
            )
            if not rows:
                raise GameNotFound(game_id)
            status, last_seq, hands_recorded, chat_id = rows[0]
            if status != "active":
                raise WrongGameStatus(game_id, status, "active")
            history = game_after.hand_history
            if len(history) < hands_recorded:
                raise ValueError(
                    f"Game {game_id}: the game after the move has {len(history)} scored hands, "
                    f"but {hands_recorded} are already stored; it is not this game."
                )
            seq: int = last_seq + 1
            await db.execute(
                "INSERT INTO moves (game_id, seq, move, created_at) VALUES (?, ?, ?, ?)",
                (game_id, seq, move_json, now),
            )
            if handled is not None:  # the update that made it: handled, with the move
                await _handled(db, handled, now)
            if len(history) > hands_recorded:
                await db.executemany(
                    "INSERT INTO hand_points (game_id, hand_number, seat, points_re, points_im,"
                    " total_re, total_im, shot_moon) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        (
                            game_id,
                            hand.hand_number,
                            seat,
                            *split_score(hand.points[seat]),
                            *split_score(hand.totals[seat]),
                            int(hand.shooter == seat),
                        )
                        for hand in history[hands_recorded:]
                        for seat in range(game_after.players)
                    ],
                )
            await db.execute(
                "UPDATE games SET snapshot = ?, last_seq = ?, hands_recorded = ?,"
                " meta = COALESCE(?, meta), status = ?, finished_at = ?, winners = ?"
                " WHERE id = ?",
                (
                    snapshot,
                    seq,
                    len(history),
                    meta_json,
                    "finished" if over else "active",
                    now if over else None,
                    _dumps(list(game_after.winners)) if over else None,
                    game_id,
                ),
            )
            if over:
                await self._write_results(db, game_id, chat_id, game_after, now)
        if handled is not None:
            handled.stored = True
        return seq

    async def _write_results(
        self, db: aiosqlite.Connection, game_id: int, chat_id: int, game: Game, now: int
    ) -> None:
        seat_rows = list(
            await db.execute_fetchall(
                "SELECT seat, user_id FROM game_seats WHERE game_id = ? ORDER BY seat", (game_id,)
            )
        )
        users = {seat: user_id for seat, user_id in seat_rows}
        rules = game.rules
        keys = [rank_key(rules, total) for total in game.scores]
        hands = len(game.hand_history)
        kind = score_kind_of(rules)
        results = []
        for seat, total in enumerate(game.scores):
            won = seat in game.winners
            place = 1 if won else 1 + sum(1 for k in keys if k < keys[seat])
            moons = sum(1 for h in game.hand_history if h.shooter == seat)
            re, im = split_score(total)
            results.append(
                (
                    game_id,
                    seat,
                    chat_id,
                    users.get(seat),
                    kind,
                    game.players,
                    re,
                    im,
                    keys[seat],
                    place,
                    int(won),
                    hands,
                    moons,
                    now,
                )
            )
        await db.executemany(
            "INSERT INTO game_results (game_id, seat, chat_id, user_id, score_kind, players,"
            " total_re, total_im, rank_key, place, won, hands, moons, finished_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            results,
        )
        await rate_finished(db, game_id)

    async def was_handled(self, update_id: int) -> bool:
        """Whether the update was handled already, here or by another process."""
        rows = await self._read("SELECT 1 FROM handled_updates WHERE update_id = ?", (update_id,))
        return bool(rows)

    async def mark_answered(self, update_id: int) -> None:
        """The press of a handled update was answered (no process answers it again)."""
        async with self._transaction() as db:
            await db.execute(
                "UPDATE handled_updates SET answered_at = ? WHERE update_id = ?",
                (_now_ms(), update_id),
            )

    async def unanswered(self, since_ms: int) -> list[handling.Unanswered]:
        """Presses whose moves are stored, handled at or after `since_ms` (milliseconds
        since the epoch), whose answers are not known to have gone out; oldest first."""
        rows = await self._read(
            "SELECT update_id, callback_id, answer, handled_at FROM handled_updates"
            " WHERE callback_id IS NOT NULL AND answered_at IS NULL AND handled_at >= ?"
            " ORDER BY handled_at, update_id",
            (since_ms,),
        )
        return [handling.Unanswered(int(u), str(c), a, int(h)) for u, c, a, h in rows]

    async def set_meta(self, game_id: int, meta: dict[str, Any]) -> None:
        async with self._transaction() as db:
            cursor = await db.execute(
                "UPDATE games SET meta = ? WHERE id = ?", (_dumps(meta), game_id)
            )
            if cursor.rowcount == 0:
                raise GameNotFound(game_id)

    async def cancel_game(self, game_id: int) -> bool:
        async with self._transaction() as db:
            status = await self._status(db, game_id, OPEN_STATUSES)
            await db.execute(
                "UPDATE games SET status = 'cancelled', finished_at = ? WHERE id = ?",
                (_now_ms(), game_id),
            )
            # In the same transaction: a game cancelled after its first hand is rated
            # exactly once, whatever crashes when.
            return status == "active" and await rate_cancelled(db, game_id)

    async def quarantine_game(self, game_id: int, reason: str) -> None:
        log.error("Game %d quarantined: %s", game_id, reason)
        async with self._transaction() as db:
            cursor = await db.execute(
                "UPDATE games SET status = 'quarantined', quarantine_reason = ? WHERE id = ?",
                (reason, game_id),
            )
            if cursor.rowcount == 0:
                raise GameNotFound(game_id)

    # ------------------------------------------------------------ games: reading

    async def _game_rows(self, where: str, parameters: Sequence[Any]) -> list[Any]:
        return await self._read(f"SELECT {_GAME_COLUMNS} FROM games g WHERE {where}", parameters)

    async def load_game(self, game_id: int, *, verify: bool = True) -> StoredGame:
        rows = await self._game_rows("g.id = ?", (game_id,))
        if not rows:
            raise GameNotFound(game_id)
        return await self._to_stored_game(rows[0], verify=verify)

    async def active_games(self) -> list[StoredGame]:
        rows = await self._game_rows("g.status IN ('lobby', 'active') ORDER BY g.id", ())
        return [await self._to_stored_game(row, verify=True) for row in rows]

    async def game_in_chat(self, chat_id: int, thread_id: int | None) -> StoredGame | None:
        rows = await self._game_rows(
            "g.chat_id = ? AND g.thread_id IS ? AND g.status IN ('lobby', 'active')"
            " ORDER BY g.id DESC LIMIT 1",
            (chat_id, thread_id),
        )
        return await self._to_stored_game(rows[0], verify=False) if rows else None

    async def last_finished_game(self, chat_id: int, thread_id: int | None) -> StoredGame | None:
        rows = await self._game_rows(
            "g.chat_id = ? AND g.thread_id IS ? AND g.status = 'finished'"
            " AND g.tournament_id IS NULL ORDER BY g.id DESC LIMIT 1",
            (chat_id, thread_id),
        )
        return await self._to_stored_game(rows[0], verify=False) if rows else None

    async def active_game_for_user(self, user_id: int) -> StoredGame | None:
        rows = await self._game_rows(
            "g.id IN (SELECT game_id FROM game_seats WHERE user_id = ?)"
            " AND g.status IN ('lobby', 'active') ORDER BY g.id DESC LIMIT 1",
            (user_id,),
        )
        return await self._to_stored_game(rows[0], verify=False) if rows else None

    async def seat_of(self, game_id: int, user_id: int) -> int | None:
        rows = await self._read(
            "SELECT seat FROM game_seats WHERE game_id = ? AND user_id = ?", (game_id, user_id)
        )
        return int(rows[0][0]) if rows else None

    async def _to_stored_game(self, row: Sequence[Any], *, verify: bool) -> StoredGame:
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
            meta_json,
            snapshot,
            last_seq,
            reason,
            created_at,
            started_at,
            finished_at,
            tournament_id,
            join_token,
            seats_json,
        ) = row
        stored = StoredGame(
            id=game_id,
            chat_id=chat_id,
            thread_id=thread_id,
            creator_id=creator_id,
            status=status,
            rules=Rules(),
            seats=tuple(
                StoredSeat(seat, kind, name, user_id, level)
                for seat, kind, name, user_id, level in json.loads(seats_json)
            ),
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
                    origin = Origin(rules, seed, None if dealer_from_seed else first_dealer, deals)
                    moves = await self._journal_rows(game_id, last_seq)
                    try:
                        replayed = replay(origin, moves)
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
            await self.quarantine_game(game_id, reason)
            return replace(stored, status="quarantined", quarantine_reason=reason)
        return replace(stored, rules=rules, meta=meta, fixed_deals=deals, game=game)

    async def _journal_rows(self, game_id: int, upto: int) -> list[tuple[int, dict[str, Any]]]:
        rows = await self._read(
            "SELECT seq, move FROM moves WHERE game_id = ? AND seq <= ? ORDER BY seq",
            (game_id, upto),
        )
        return [(seq, json.loads(move)) for seq, move in rows]

    async def journal(self, game_id: int) -> list[JournalEntry]:
        rows = await self._read(
            "SELECT seq, move, created_at FROM moves WHERE game_id = ? ORDER BY seq", (game_id,)
        )
        return [
            JournalEntry(seq, json.loads(move), datetime.fromtimestamp(at / 1000, tz=UTC))
            for seq, move, at in rows
        ]

    async def replay(self, game_id: int) -> Game:
        origin, last_seq = await self._origin(game_id)
        return replay(origin, await self._journal_rows(game_id, last_seq))

    async def game_and_moves(self, game_id: int) -> tuple[Game, list[tuple[Move, bool]]]:
        origin, last_seq = await self._origin(game_id)
        moves = [
            (Move.from_dict(data), bool(data.get("stand_in")))
            for _, data in await self._journal_rows(game_id, last_seq)
        ]
        return origin.new_game(), moves

    async def _origin(self, game_id: int) -> tuple[Origin, int]:
        rows = await self._read(
            "SELECT rules, seed, first_dealer, dealer_from_seed, fixed_deals, last_seq"
            " FROM games WHERE id = ?",
            (game_id,),
        )
        if not rows:
            raise GameNotFound(game_id)
        rules_json, seed, first_dealer, from_seed, deals_json, last_seq = rows[0]
        if seed is None:
            raise WrongGameStatus(game_id, "lobby", "started")
        origin = Origin(
            Rules.from_dict(json.loads(rules_json)),
            seed,
            None if from_seed else first_dealer,
            json.loads(deals_json),
        )
        return origin, last_seq

    # ------------------------------------------------------------ standings

    async def game_table(self, game_id: int) -> GameTable:
        rows = await self._game_rows("g.id = ?", (game_id,))
        if not rows:
            raise GameNotFound(game_id)
        header = await self._read(
            "SELECT status, rules, winners FROM games WHERE id = ?", (game_id,)
        )
        status, rules_json, winners_json = header[0]
        rules = Rules.from_dict(json.loads(rules_json))
        is_complex = rules.variant == "complex"
        seats = tuple(
            StoredSeat(seat, kind, name, user_id, level)
            for seat, kind, name, user_id, level in json.loads(rows[0][-1])
        )
        points = await self._read(
            "SELECT hand_number, seat, points_re, points_im, total_re, total_im, shot_moon"
            " FROM hand_points WHERE game_id = ? ORDER BY hand_number, seat",
            (game_id,),
        )
        n = rules.players
        lines: list[HandLine] = []
        for start in range(0, len(points), n):
            block = points[start : start + n]
            shooter = next((r[1] for r in block if r[6]), None)
            lines.append(
                HandLine(
                    block[0][0],
                    tuple(join_score(r[2], r[3], is_complex) for r in block),
                    tuple(join_score(r[4], r[5], is_complex) for r in block),
                    shooter,
                )
            )
        zero: Score = 0j if is_complex else 0
        totals = lines[-1].totals if lines else tuple(zero for _ in range(n))
        winners = tuple(json.loads(winners_json)) if winners_json else ()
        return GameTable(
            game_id, status, score_kind_of(rules), seats, tuple(lines), totals, winners
        )

    async def standings(
        self,
        chat_id: int | None = None,
        score_kind: ScoreKind = "points",
        *,
        limit: int = 20,
        min_games: int = 1,
    ) -> list[PlayerStanding]:
        return await self._standings(chat_id, score_kind, None, limit, min_games)

    async def player_standing(
        self, user_id: int, chat_id: int | None = None, score_kind: ScoreKind = "points"
    ) -> PlayerStanding | None:
        found = await self._standings(chat_id, score_kind, user_id, 1, 1)
        return found[0] if found else None

    async def _standings(
        self,
        chat_id: int | None,
        score_kind: ScoreKind,
        user_id: int | None,
        limit: int,
        min_games: int,
    ) -> list[PlayerStanding]:
        where = "score_kind = ? AND user_id IS NOT NULL"
        params: list[Any] = [score_kind]
        if chat_id is not None:
            where += " AND chat_id = ?"
            params.append(chat_id)
        if user_id is not None:
            where += " AND user_id = ?"
            params.append(user_id)
        # Ranking: wins, then win rate, then the smallest average per hand (its magnitude
        # in Complex Hearts, where |z| is what the game minimises).
        if score_kind == "complex":
            average = "(1.0 * re * re + 1.0 * im * im) / (1.0 * hands * hands)"
        else:
            average = "1.0 * re / hands"
        order = f"wins DESC, 1.0 * wins / games DESC, {average} ASC, user_id"
        rows = await self._read(
            f"""
            WITH agg AS (
                SELECT user_id, COUNT(*) AS games, SUM(won) AS wins, SUM(hands) AS hands,
                       SUM(total_re) AS re, SUM(total_im) AS im, SUM(moons) AS moons,
                       MIN(rank_key) AS best, MAX(rank_key) AS worst
                FROM game_results WHERE {where}
                GROUP BY user_id HAVING COUNT(*) >= ?
            ), top AS (SELECT * FROM agg ORDER BY {order} LIMIT ?)
            SELECT top.*, COALESCE(
                (SELECT display_name FROM users u WHERE u.user_id = top.user_id),
                (SELECT display_name FROM game_seats s WHERE s.user_id = top.user_id
                 ORDER BY s.game_id DESC LIMIT 1)
            ) FROM top ORDER BY {order}
            """,
            (*params, min_games, limit),
        )
        if not rows:
            return []
        best: dict[int, Score] = {}
        worst: dict[int, Score] = {}
        if score_kind == "complex":
            # The totals of the games with the smallest and largest |z|, per player.
            users = [r[0] for r in rows]
            marks = ",".join("?" * len(users))
            games = await self._read(
                f"SELECT user_id, rank_key, total_re, total_im FROM game_results"
                f" WHERE {where} AND user_id IN ({marks}) ORDER BY user_id, rank_key",
                (*params, *users),
            )
            for uid, _, re, im in games:
                best.setdefault(uid, complex(re, im))
                worst[uid] = complex(re, im)
        standings = []
        for uid, games, wins, hands, re, im, moons, low, high, name in rows:
            average_per_hand: float | complex = (
                (complex(re / hands, im / hands) if score_kind == "complex" else re / hands)
                if hands
                else 0.0
            )
            standings.append(
                PlayerStanding(
                    user_id=uid,
                    display_name=name or str(uid),
                    score_kind=score_kind,
                    games_played=games,
                    games_won=wins,
                    hands_played=hands,
                    average_per_hand=average_per_hand,
                    moons_shot=moons,
                    best_game=best.get(uid, low),
                    worst_game=worst.get(uid, high),
                )
            )
        return standings

    async def player_history(
        self, user_id: int, *, limit: int = 10, chat_id: int | None = None
    ) -> list[PlayerGame]:
        where = "user_id = ?"
        params: list[Any] = [user_id]
        if chat_id is not None:
            where += " AND chat_id = ?"
            params.append(chat_id)
        rows = await self._read(
            "SELECT game_id, chat_id, finished_at, score_kind, players, seat, total_re,"
            " total_im, place, won, hands, moons FROM game_results"
            f" WHERE {where} ORDER BY finished_at DESC, game_id DESC LIMIT ?",
            (*params, limit),
        )
        return [
            PlayerGame(
                game_id=game_id,
                chat_id=chat,
                finished_at=datetime.fromtimestamp(at / 1000, tz=UTC),
                score_kind=kind,
                players=players,
                seat=seat,
                total=join_score(re, im, kind == "complex"),
                place=place,
                won=bool(won),
                hands=hands,
                moons=moons,
            )
            for game_id, chat, at, kind, players, seat, re, im, place, won, hands, moons in rows
        ]

    # ------------------------------------------------------------ operations

    async def backup(self, dest_path: str | Path) -> None:
        # A connection of its own, in a thread: neither reads nor writes wait for it.
        await asyncio.to_thread(backup_module.backup_database, self.path, str(dest_path))


class _Unloadable(Exception):
    """Why a stored game cannot be resumed."""
