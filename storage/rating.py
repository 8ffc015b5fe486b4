"""Rating a game, inside the transaction that finishes (or cancels) it.

A game is rated in the transaction that stores its last move (`rate_finished`), so it is
rated exactly once, whatever crashes when. Everything a rating needs is read back from the
database (the seats, `game_results`' rank keys, the journal's stand-in marks), so a rebuild
(`storage.standings.Standings.rebuild_ratings`) computes from the same inputs as the live
rating.
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Sequence
from typing import Any, Final

from sqlalchemy import BindParameter, Connection, Executable, Select, bindparam, func, select

from engine import Game
from engine.scoring import rank_key
from ratings import Pool, SeatResult, Skill, computer_player, pool_of, rate_game

from .database import Database, Dialect, Upsert
from .schema import game_results, game_seats, games, moves, rated_games, rating_changes, ratings

OVERALL: Final = 0
"""The scope of the overall rating (a chat id is never 0)."""


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


# Statements built once: SQLAlchemy finds their compiled form without walking them again.
_GAME_ID: BindParameter[Any] = bindparam("game_id")
_CHAT = select(games.c.chat_id).where(games.c.id == _GAME_ID)
_GAME = select(games.c.status, games.c.meta, games.c.snapshot).where(games.c.id == _GAME_ID)
_RANK_KEYS = select(game_results.c.seat, game_results.c.rank_key).where(
    game_results.c.game_id == _GAME_ID
)
_SEATS = (
    select(game_seats.c.seat, game_seats.c.kind, game_seats.c.user_id, game_seats.c.computer_level)
    .where(game_seats.c.game_id == _GAME_ID)
    .order_by(game_seats.c.seat)
)
_IN_SCOPE = (
    ratings.c.pool == bindparam("pool"),
    ratings.c.chat_id == bindparam("scope"),
    ratings.c.player.in_(bindparam("players", expanding=True)),
)
_GAMES = select(ratings.c.player, ratings.c.games).where(*_IN_SCOPE)
_SKILLS = select(ratings.c.player, ratings.c.mu, ratings.c.sigma).where(*_IN_SCOPE)
_CHANGES = rating_changes.insert()
_RATED = rated_games.insert().values(
    game_id=_GAME_ID,
    seq=select(func.coalesce(func.max(rated_games.c.seq), 0) + 1).scalar_subquery(),
    pool=bindparam("pool"),
    rated_at=bindparam("now"),
)


@functools.cache
def _journal_counts(dialect: Dialect) -> Select[Any]:
    """Each seat's moves in a game's journal, and how many a stand-in made."""
    database = Database(dialect, "", ())
    journal = (
        select(
            database.json_int(moves.c.move, "seat").label("seat"),
            database.json_int(moves.c.move, "stand_in").label("stand_in"),
        )
        .where(moves.c.game_id == _GAME_ID)
        .subquery()
    )
    return select(
        journal.c.seat, func.count(), func.sum(func.coalesce(journal.c.stand_in, 0))
    ).group_by(journal.c.seat)


def _build_upsert_rating(dialect: Dialect) -> Executable:
    """A person's rating after a game: inserted, or the stored one updated, one more game."""
    upsert = Database(dialect, "", ()).insert(ratings)
    return upsert.on_conflict_do_update(
        index_elements=[ratings.c.pool, ratings.c.chat_id, ratings.c.player],
        set_={
            "mu": upsert.excluded.mu,
            "sigma": upsert.excluded.sigma,
            "games": ratings.c.games + 1,
            "updated_at": upsert.excluded.updated_at,
        },
    )


_UPSERT_RATING: Final = Upsert(_build_upsert_rating)


def _away(meta: str | None) -> set[int]:
    """The seats whose person was away when the game ended (left, removed, blocked the
    bot, or out of time and never back), from the bot's ``seat_state`` in ``meta``."""
    state = json.loads(meta or "{}").get("seat_state", {})
    return {int(seat) for seat, extra in state.items() if extra.get("away")}


def _rank_keys(db: Connection, game_id: int, status: str, snapshot: str | None) -> dict[int, int]:
    """Each seat's rank key: a finished game's results, a cancelled one's standing totals
    (the hands complete when it stopped)."""
    if status == "finished":
        rows = db.execute(_RANK_KEYS, {"game_id": game_id})
        return {seat: key for seat, key in rows}
    assert snapshot is not None
    game = Game.from_json(snapshot)
    return {seat: rank_key(game.rules, total) for seat, total in enumerate(game.scores)}


def _seat_results(db: Connection, database: Database, game_id: int) -> list[SeatResult]:
    """Who played each seat of a rated game and its rank: a person who was away at the
    end (a leaver) ranks last, below everyone present (leavers tie), with full weight. A
    person present at the end (back with /rejoin) has the share of their seat's moves they
    made themselves (the journal marks a stand-in's), which scales a gain only."""
    status, meta, snapshot = db.execute(_GAME, {"game_id": game_id}).one()
    keys = _rank_keys(db, game_id, status, snapshot)
    seats = db.execute(_SEATS, {"game_id": game_id})
    away = _away(meta)
    counted = db.execute(_journal_counts(database.dialect), {"game_id": game_id})
    made = {
        int(seat): (int(total), int(stand_ins))
        for seat, total, stand_ins in counted
        if seat is not None
    }
    last = max(keys.values()) + 1
    results = []
    for number, kind, user_id, level in seats:
        if kind == "computer" or user_id is None:
            results.append(SeatResult(number, computer_player(level or "standard"), keys[number]))
        elif number in away:
            results.append(SeatResult(number, user_id, last))
        else:
            # (No journal, as in games written by hand: played whole. Back with /rejoin
            # but not one move of their own since: one move's share, the least there is.)
            total, stand_ins = made.get(number, (0, 0))
            share = max(total - stand_ins, 1) / total if total else 1.0
            results.append(SeatResult(number, user_id, keys[number], min(share, 1.0)))
    return results


def _games(db: Connection, pool: Pool, players: Sequence[int]) -> dict[int, int]:
    """Each player's rated games overall in the pool (for who is still provisional: the
    same count in every scope, so a newcomer to a group who is established elsewhere is
    no sock puppet)."""
    rows = db.execute(_GAMES, {"pool": pool, "scope": OVERALL, "players": list(players)})
    return {player: int(games) for player, games in rows}


def _skills(db: Connection, pool: Pool, scope: int, players: Sequence[int]) -> dict[int, Skill]:
    rows = db.execute(_SKILLS, {"pool": pool, "scope": scope, "players": list(players)})
    return {player: Skill(mu, sigma) for player, mu, sigma in rows}


def rate_finished(db: Connection, database: Database, game_id: int) -> None:
    """Rate a finished game, or one cancelled after its first hand, in its chat and
    overall; in the caller's transaction, after a finished game's `game_results` are
    written. Only people's ratings are written: the computer levels are fixed anchors."""
    chat_id = db.execute(_CHAT, {"game_id": game_id}).scalar_one()
    seats = _seat_results(db, database, game_id)
    pool = pool_of(len(seats))
    now = _now_ms()
    games_before = _games(db, pool, [s.player for s in seats])
    for scope in dict.fromkeys((chat_id, OVERALL)):  # (a chat 0 exists only in tests)
        before = _skills(db, pool, scope, [s.player for s in seats])
        changes = rate_game(seats, before, games=games_before)
        if changes:
            _UPSERT_RATING.execute(
                db,
                [
                    {
                        "pool": pool,
                        "chat_id": scope,
                        "player": c.player,
                        "mu": c.after.mu,
                        "sigma": c.after.sigma,
                        "games": 1,
                        "updated_at": now,
                    }
                    for c in changes
                ],
            )
            db.execute(
                _CHANGES,
                [
                    {
                        "game_id": game_id,
                        "chat_id": scope,
                        "player": c.player,
                        "pool": pool,
                        "seat": c.seat,
                        "weight": c.weight,
                        "mu_before": c.before.mu,
                        "sigma_before": c.before.sigma,
                        "mu_after": c.after.mu,
                        "sigma_after": c.after.sigma,
                    }
                    for c in changes
                ],
            )
    db.execute(_RATED, {"game_id": game_id, "pool": pool, "now": now})


def rate_cancelled(db: Connection, database: Database, game_id: int) -> bool:
    """Rate a game as it is cancelled (by its host, or as its group removed the bot) from
    its standing totals, if it had started for the ratings: its first hand complete.
    In the caller's transaction, with the game's status already 'cancelled'. Returns
    whether it was rated."""
    hands = (
        db.execute(select(games.c.hands_recorded).where(games.c.id == game_id))
    ).scalar_one_or_none()
    if not hands:
        return False
    rate_finished(db, database, game_id)
    return True


def rate_backlog(db: Connection, database: Database) -> int:
    """Rate the finished games not rated yet (those finished before ratings existed), in
    the order they finished; returns how many."""
    pending = (
        db.execute(
            select(games.c.id)
            .where(games.c.status == "finished", games.c.id.not_in(select(rated_games.c.game_id)))
            .order_by(games.c.finished_at, games.c.id)
        )
    ).scalars()
    rated = 0
    for game_id in list(pending):
        rate_finished(db, database, game_id)
        rated += 1
    return rated
