"""The ratings half of `SqliteStorage`: rating a finished game, reading boards and
histories, and rebuilding every rating from the stored games.

A mixin, like `SqliteTournaments`: it relies on the host's ``_transaction()`` and
``_read()``. A game is rated inside the transaction that stores its last move
(`rate_finished`), so a game is rated exactly once, whatever crashes when. Everything a
rating needs is read back from the database (the seats, `game_results`' rank keys, the
journal's stand-in marks), so a rebuild computes from the same inputs as the live rating.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from datetime import UTC, datetime
from typing import Any, Final

import aiosqlite

from engine import Game
from engine.scoring import rank_key
from ratings import (
    ANCHORS,
    COMPUTER_PLAYERS,
    Pool,
    SeatResult,
    Skill,
    computer_player,
    pool_of,
    rate_game,
)

from .models import RatingChange, RatingEntry, RebuildReport

OVERALL: Final = 0
"""The scope of the overall rating (a chat id is never 0)."""


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


async def _rows(db: aiosqlite.Connection, sql: str, parameters: Sequence[Any] = ()) -> list[Any]:
    return list(await db.execute_fetchall(sql, parameters))


def _away(meta: str | None) -> set[int]:
    """The seats whose person was away when the game ended (left, removed, blocked the
    bot, or out of time and never back), from the bot's ``seat_state`` in ``meta``."""
    state = json.loads(meta or "{}").get("seat_state", {})
    return {int(seat) for seat, extra in state.items() if extra.get("away")}


async def _rank_keys(
    db: aiosqlite.Connection, game_id: int, status: str, snapshot: str | None
) -> dict[int, int]:
    """Each seat's rank key: a finished game's results, a cancelled one's standing totals
    (the hands complete when it stopped)."""
    if status == "finished":
        rows = await _rows(
            db, "SELECT seat, rank_key FROM game_results WHERE game_id = ?", (game_id,)
        )
        return {seat: key for seat, key in rows}
    assert snapshot is not None
    game = Game.from_json(snapshot)
    return {seat: rank_key(game.rules, total) for seat, total in enumerate(game.scores)}


async def _seat_results(db: aiosqlite.Connection, game_id: int) -> list[SeatResult]:
    """Who played each seat of a rated game and its rank: a person who was away at the
    end (a leaver) ranks last, below everyone present (leavers tie), with full weight. A
    person present at the end (back with /rejoin) has the share of their seat's moves they
    made themselves (the journal marks a stand-in's), which scales a gain only."""
    ((status, meta, snapshot),) = await _rows(
        db, "SELECT status, meta, snapshot FROM games WHERE id = ?", (game_id,)
    )
    keys = await _rank_keys(db, game_id, status, snapshot)
    seats = await _rows(
        db,
        "SELECT seat, kind, user_id, computer_level FROM game_seats WHERE game_id = ?"
        " ORDER BY seat",
        (game_id,),
    )
    away = _away(meta)
    moves = {
        int(seat): (int(total), int(stood_in))
        for seat, total, stood_in in await _rows(
            db,
            "SELECT json_extract(move, '$.seat'), COUNT(*),"
            " SUM(COALESCE(json_extract(move, '$.stand_in'), 0))"
            " FROM moves WHERE game_id = ? GROUP BY 1",
            (game_id,),
        )
        if seat is not None
    }
    last = max(keys.values()) + 1
    results = []
    for seat, kind, user_id, level in seats:
        if kind == "computer" or user_id is None:
            results.append(SeatResult(seat, computer_player(level or "standard"), keys[seat]))
        elif seat in away:
            results.append(SeatResult(seat, user_id, last))
        else:
            # (No journal, as in games written by hand: played whole. Back with /rejoin
            # but not one move of their own since: one move's share, the least there is.)
            total, stood_in = moves.get(seat, (0, 0))
            share = max(total - stood_in, 1) / total if total else 1.0
            results.append(SeatResult(seat, user_id, keys[seat], min(share, 1.0)))
    return results


async def _games(db: aiosqlite.Connection, pool: Pool, players: Sequence[int]) -> dict[int, int]:
    """Each player's rated games overall in the pool (for who is still provisional: the
    same count in every scope, so a newcomer to a group who is established elsewhere is
    no sock puppet)."""
    marks = ",".join("?" * len(players))
    rows = await _rows(
        db,
        f"SELECT player, games FROM ratings WHERE pool = ? AND chat_id = ? AND player IN ({marks})",
        (pool, OVERALL, *players),
    )
    return {player: int(games) for player, games in rows}


async def _skills(
    db: aiosqlite.Connection, pool: Pool, scope: int, players: Sequence[int]
) -> dict[int, Skill]:
    marks = ",".join("?" * len(players))
    rows = await _rows(
        db,
        f"SELECT player, mu, sigma FROM ratings WHERE pool = ? AND chat_id = ?"
        f" AND player IN ({marks})",
        (pool, scope, *players),
    )
    return {player: Skill(mu, sigma) for player, mu, sigma in rows}


async def rate_finished(db: aiosqlite.Connection, game_id: int) -> None:
    """Rate a finished game, or one cancelled after its first hand, in its chat and
    overall; in the caller's transaction, after a finished game's `game_results` are
    written. Only people's ratings are written: the computer levels are fixed anchors."""
    header = await _rows(db, "SELECT chat_id FROM games WHERE id = ?", (game_id,))
    chat_id = header[0][0]
    seats = await _seat_results(db, game_id)
    pool = pool_of(len(seats))
    now = _now_ms()
    games = await _games(db, pool, [s.player for s in seats])  # before this game's
    for scope in dict.fromkeys((chat_id, OVERALL)):  # (a chat 0 exists only in tests)
        before = await _skills(db, pool, scope, [s.player for s in seats])
        changes = rate_game(seats, before, games=games)
        await db.executemany(
            "INSERT INTO ratings (pool, chat_id, player, mu, sigma, games, updated_at)"
            " VALUES (?, ?, ?, ?, ?, 1, ?) ON CONFLICT (pool, chat_id, player) DO UPDATE"
            " SET mu = excluded.mu, sigma = excluded.sigma, games = ratings.games + 1,"
            " updated_at = excluded.updated_at",
            [(pool, scope, c.player, c.after.mu, c.after.sigma, now) for c in changes],
        )
        await db.executemany(
            "INSERT INTO rating_changes (game_id, chat_id, player, pool, seat, weight,"
            " mu_before, sigma_before, mu_after, sigma_after)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    game_id,
                    scope,
                    c.player,
                    pool,
                    c.seat,
                    c.weight,
                    c.before.mu,
                    c.before.sigma,
                    c.after.mu,
                    c.after.sigma,
                )
                for c in changes
            ],
        )
    await db.execute(
        "INSERT INTO rated_games (game_id, seq, pool, rated_at)"
        " VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM rated_games), ?, ?)",
        (game_id, pool, now),
    )


async def rate_cancelled(db: aiosqlite.Connection, game_id: int) -> bool:
    """Rate a game as it is cancelled (by its host, or as its group removed the bot) from
    its standing totals, if it had started for the ratings: its first hand complete.
    In the caller's transaction, with the game's status already 'cancelled'. Returns
    whether it was rated."""
    rows = await _rows(db, "SELECT hands_recorded FROM games WHERE id = ?", (game_id,))
    if not rows or not rows[0][0]:
        return False
    await rate_finished(db, game_id)
    return True


async def rate_backlog(db: aiosqlite.Connection) -> int:
    """Rate the finished games not rated yet (those finished before ratings existed), in
    the order they finished; returns how many."""
    pending = await _rows(
        db,
        "SELECT id FROM games WHERE status = 'finished'"
        " AND id NOT IN (SELECT game_id FROM rated_games) ORDER BY finished_at, id",
    )
    for (game_id,) in pending:
        await rate_finished(db, game_id)
    return len(pending)


def _change(row: Sequence[Any]) -> RatingChange:
    game_id, chat_id, pool, player, seat, weight, mu0, s0, mu1, s1, at = row
    return RatingChange(
        game_id,
        chat_id,
        pool,
        player,
        seat,
        weight,
        Skill(mu0, s0),
        Skill(mu1, s1),
        datetime.fromtimestamp((at or 0) / 1000, tz=UTC),
    )


_CHANGE_COLUMNS: Final = (
    "c.game_id, c.chat_id, c.pool, c.player, c.seat, c.weight, c.mu_before, c.sigma_before,"
    " c.mu_after, c.sigma_after, g.finished_at"
)

_NAME: Final = """COALESCE(
    (SELECT display_name FROM users u WHERE u.user_id = r.player),
    (SELECT display_name FROM game_seats s WHERE s.user_id = r.player
     ORDER BY s.game_id DESC LIMIT 1), '')"""


class SqliteRatings:
    """Reading and rebuilding ratings. See `storage.repository.Storage` for each method."""

    def _transaction(self) -> AbstractAsyncContextManager[aiosqlite.Connection]:
        raise NotImplementedError  # provided by SqliteStorage

    async def _read(self, sql: str, parameters: Sequence[Any] = ()) -> list[Any]:
        raise NotImplementedError  # provided by SqliteStorage

    async def rating_changes(self, game_id: int, chat_id: int | None = None) -> list[RatingChange]:
        scope = OVERALL if chat_id is None else chat_id
        rows = await self._read(
            f"SELECT {_CHANGE_COLUMNS} FROM rating_changes c JOIN games g ON g.id = c.game_id"
            " WHERE c.game_id = ? AND c.chat_id = ? ORDER BY c.seat",
            (game_id, scope),
        )
        return [_change(r) for r in rows]

    async def rating_history(
        self, player: int, chat_id: int | None = None, pool: Pool = "main", *, limit: int = 200
    ) -> list[RatingChange]:
        """A player's changes in a scope, oldest first (the last ``limit``)."""
        scope = OVERALL if chat_id is None else chat_id
        rows = await self._read(
            f"SELECT * FROM (SELECT {_CHANGE_COLUMNS}, r.seq FROM rating_changes c"
            " JOIN rated_games r ON r.game_id = c.game_id JOIN games g ON g.id = c.game_id"
            " WHERE c.player = ? AND c.pool = ? AND c.chat_id = ?"
            " ORDER BY r.seq DESC LIMIT ?) AS newest ORDER BY seq",
            (player, pool, scope, limit),
        )
        return [_change(r[:-1]) for r in rows]

    async def rating_board(
        self, chat_id: int | None = None, pool: Pool = "main", *, limit: int = 10
    ) -> list[RatingEntry]:
        """People best first (by μ − 3σ), then the computer levels' fixed ratings; empty
        when nobody is rated in the scope."""
        scope = OVERALL if chat_id is None else chat_id
        rated = await self._rated_people(pool, scope)
        people = await self._read(
            f"SELECT r.player, r.mu, r.sigma, r.games, {_NAME} FROM ratings r"
            " WHERE r.pool = ? AND r.chat_id = ? AND r.player > 0"
            " ORDER BY r.mu - 3 * r.sigma DESC, r.player LIMIT ?",
            (pool, scope, limit),
        )
        board = [
            RatingEntry(p, name, Skill(mu, sigma), games, place, rated)
            for place, (p, mu, sigma, games, name) in enumerate(people, start=1)
        ]
        if not board:
            return []
        # The computer levels' fixed ratings, strongest first (rows a database kept from
        # before they were fixed are left out, and go with the next rebuild).
        return board + sorted(
            (
                RatingEntry(COMPUTER_PLAYERS[level], "", skill, 0, 0, rated)
                for level, skill in ANCHORS.items()
            ),
            key=lambda e: -e.skill.conservative,
        )

    async def player_rating(
        self, player: int, chat_id: int | None = None, pool: Pool = "main"
    ) -> RatingEntry | None:
        scope = OVERALL if chat_id is None else chat_id
        rows = await self._read(
            f"SELECT r.mu, r.sigma, r.games, {_NAME},"
            " (SELECT COUNT(*) FROM ratings o WHERE o.pool = r.pool AND o.chat_id = r.chat_id"
            "  AND o.player > 0 AND o.mu - 3 * o.sigma > r.mu - 3 * r.sigma)"
            " FROM ratings r WHERE r.pool = ? AND r.chat_id = ? AND r.player = ?",
            (pool, scope, player),
        )
        if not rows:
            return None
        mu, sigma, games, name, above = rows[0]
        rated = await self._rated_people(pool, scope)
        return RatingEntry(player, name, Skill(mu, sigma), games, above + 1, rated)

    async def _rated_people(self, pool: Pool, scope: int) -> int:
        rows = await self._read(
            "SELECT COUNT(*) FROM ratings WHERE pool = ? AND chat_id = ? AND player > 0",
            (pool, scope),
        )
        return int(rows[0][0])

    async def rebuild_ratings(self) -> RebuildReport:
        """Every rating again from the stored games, in the order they were rated (games
        never rated after, in the order they finished); all in one transaction."""
        async with self._transaction() as db:
            stored = {
                (game, scope, player): values
                for game, scope, player, *values in await _rows(
                    db,
                    "SELECT game_id, chat_id, player, mu_before, sigma_before, mu_after,"
                    " sigma_after FROM rating_changes",
                )
            }
            # Cancelled games count when they were rated as they were cancelled (after
            # their first hand); those cancelled before cancelling cost a rating stay free.
            order = await _rows(
                db,
                "SELECT g.id FROM games g LEFT JOIN rated_games r ON r.game_id = g.id"
                " WHERE g.status = 'finished' OR (g.status = 'cancelled' AND r.seq IS NOT NULL)"
                " ORDER BY r.seq IS NULL, r.seq, g.finished_at, g.id",
            )
            for table in ("rating_changes", "ratings", "rated_games"):
                await db.execute(f"DELETE FROM {table}")
            for (game_id,) in order:
                await rate_finished(db, game_id)
            rebuilt = await _rows(
                db,
                "SELECT game_id, chat_id, player, mu_before, sigma_before, mu_after,"
                " sigma_after FROM rating_changes",
            )
        differing = sum(
            1
            for game, scope, player, *values in rebuilt
            if stored.get((game, scope, player)) != values
        )
        differing += len(stored.keys() - {(r[0], r[1], r[2]) for r in rebuilt})
        return RebuildReport(len(order), len(rebuilt), differing)
