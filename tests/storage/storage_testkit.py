"""Helpers for the storage tests: random legal games, and tables to seat them at."""

from __future__ import annotations

import random
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

from pre_alembic_schemas import MIGRATIONS
from sqlalchemy import Connection, text

from domain.games import StoredSeat
from domain.handling import Handling
from engine import Game, Move, Rules
from engine.rules import MOON_CHOICES
from storage import Storage

# Every variant: 2 to 6 players, Complex, Omnibus, and a moon option without a choice.
VARIANTS: dict[str, Rules] = {
    "two_player": Rules(players=2, variant="two_player", target=60),
    "three": Rules(players=3, target=60),
    "four": Rules(players=4, target=60),
    "five": Rules(players=5, target=60),
    "six": Rules(players=6, target=60),
    "complex": Rules(players=4, variant="complex", target=40),
    "omnibus": Rules(players=4, bonus_card="JD", moon="add_to_others", target=60),
}


def random_move(game: Game, rng: random.Random) -> Move:
    """A legal move for ``game``, chosen at random."""
    if game.phase == "pass":
        seat = rng.choice(game.waiting_for())
        return Move.pass_cards(seat, rng.sample(game.hand(seat), 3))
    if game.phase == "play":
        assert game.current_player is not None
        return Move.play(game.current_player, rng.choice(game.legal_plays()))
    if game.phase == "moon":
        assert game.moon_shooter is not None
        return Move.moon(game.moon_shooter, rng.choice(MOON_CHOICES))
    raise AssertionError("the game is over")


def seats_for(players: int, user_ids: list[int] | None = None) -> list[StoredSeat]:
    """Humans with ``user_ids`` first, computers in the other seats."""
    users = user_ids or []
    return [
        StoredSeat.human(i, users[i], f"Player {users[i]}")
        if i < len(users)
        else StoredSeat.computer(i, f"Computer {i}")
        for i in range(players)
    ]


async def play_stored(
    store: Storage,
    rules: Rules,
    *,
    seed: int,
    chat_id: int = -100,
    user_ids: list[int] | None = None,
    max_moves: int | None = None,
    first_dealer: int | None = None,
    seats: list[StoredSeat] | None = None,
    own_moves: dict[int, int] | None = None,
    hands: int | None = None,
    back_after: dict[int, int] | None = None,
    deal_key: bytes | None = None,
    handled: Handling | None = None,
) -> tuple[int, Game]:
    """Create, start and play a random game through ``store``; returns its id and game.

    ``own_moves``: seat → how many moves its person makes before they leave (stored as
    away, as the bot stores a seat's state) and a computer player stands in for them (0: a
    no-show) for the rest of the game. ``hands``: stop once that many hands are complete.
    ``back_after``: seat → after how many of its moves (own and stood in) a seat of
    ``own_moves`` is back (as after /rejoin): its person makes the moves after that (after
    the seat's last: back for the game's end, having made none of the moves since).
    ``deal_key``: the game's hands are dealt from it (verifiable deals), not from ``seed``.
    ``handled``: the Telegram update every move is stored as made by.
    """
    seats = seats or seats_for(rules.players, user_ids)
    creator = (user_ids or [1])[0]
    game_id = await store.games.create_lobby(chat_id, None, creator, rules, seats, {"lobby": True})
    game = Game(rules, seed=seed, first_dealer=first_dealer, deal_key=deal_key)
    await store.games.start_game(game_id, seats, game)
    rng = random.Random(seed)
    moves = 0
    made: dict[int, int] = {}
    limits = own_moves or {}
    away: set[int] = set()
    while game.phase != "over" and (max_moves is None or moves < max_moves):
        if hands is not None and len(game.hand_history) >= hands:
            break
        move = random_move(game, rng)
        move.apply(game)
        moves += 1
        made[move.seat] = made.get(move.seat, 0) + 1
        back = (back_after or {}).get(move.seat)
        stand_in = move.seat in limits and limits[move.seat] < made[move.seat]
        stand_in = stand_in and (back is None or made[move.seat] <= back)
        was = set(away)
        if stand_in:
            away.add(move.seat)
        else:
            away.discard(move.seat)
        # Back (/rejoin) once the seat has made its `back_after` moves, even its last.
        away -= {seat for seat in away if made[seat] >= (back_after or {}).get(seat, 1 << 30)}
        meta = None
        if away != was:
            meta = {"seat_state": {str(seat): {"away": True} for seat in away}}
        stored = await store.games.record_move(
            game_id, move, game, meta, stand_in=stand_in, handled=handled
        )
        assert stored == moves
    return game_id, game


async def tamper(store: Storage, *statements: tuple[str, dict[str, Any]]) -> None:
    """Change the database behind the repositories' backs, as a bad disk or a hand edit
    would (``:name`` parameters, on either database)."""

    def change(db: Connection) -> None:
        for sql, parameters in statements:
            db.execute(text(sql), parameters)

    await store.database.transact(change)


def drop_trigger(store: Storage, name: str) -> str:
    return f"DROP TRIGGER {name}" + (" ON moves" if store.dialect == "postgresql" else "")


async def pragma(store: Storage, name: str, *, writer: bool = False) -> list[tuple[Any, ...]]:
    """A SQLite pragma's rows as the reader connection (or, `writer`, the writer) sees it."""
    if not writer:
        return [tuple(row) for row in await store.database.read(text(f"PRAGMA {name}"))]

    def read(db: Connection) -> list[tuple[Any, ...]]:
        return [tuple(row) for row in db.execute(text(f"PRAGMA {name}")).all()]

    return await store.database.transact(read)


def legacy_sqlite(path: Path, version: int) -> None:
    """An empty SQLite database as the code before Alembic left it at ``version`` (1-10)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with closing(sqlite3.connect(path, isolation_level=None)) as db:
        for migration in MIGRATIONS[:version]:
            for statement in migration.statements:
                db.execute(statement)
        db.execute(f"PRAGMA user_version = {version}")


def back_before_revision_13(db: sqlite3.Connection) -> None:
    """Undo revision 13 (bot accounts) by hand, as version 10 left the tables."""
    for table in ("accounts", "open_dms", "served_chats", "served_chats_told"):
        db.execute(f"DROP TABLE {table}")
    db.execute("DROP INDEX games_open_by_account")
    for table in ("games", "tournaments"):
        db.execute(f"ALTER TABLE {table} DROP COLUMN account")
    db.execute("ALTER TABLE handled_updates RENAME TO handled_keyed")
    db.execute("DROP INDEX handled_unanswered")
    db.execute(
        "CREATE TABLE handled_updates (update_id INTEGER PRIMARY KEY, handled_at INTEGER"
        " NOT NULL, callback_id TEXT, answer TEXT, answered_at INTEGER)"
    )
    db.execute(
        "INSERT INTO handled_updates SELECT update_id, handled_at, callback_id, answer,"
        " answered_at FROM handled_keyed"
    )
    db.execute("DROP TABLE handled_keyed")
    db.execute(
        "CREATE INDEX handled_unanswered ON handled_updates (handled_at)"
        " WHERE callback_id IS NOT NULL AND answered_at IS NULL"
    )
