"""The screens' state apart from the game's (issue 52.1): `storage.screens` keeps each
table's screens' state by game, written and read apart from the journal; revision 16
moves it out of the games' ``meta`` of a database from before, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import asyncpg
import pytest
from storage_testkit import seats_for

from engine import Game, Move, Rules
from sandbox.postgres_server import PostgresServer
from storage import Storage
from storage.upgrade import latest_version

RULES = Rules()
ANN, BOB = 21, 22

SCREENS = {
    "table_message_id": 501,
    "dm_message_ids": {"0": 601, "1": 602},
    "nudge_message_ids": {},
    "reminder_message_ids": {"1": 700},
    "idle_message_ids": {},
    "selections": {"0": ["QS", "AH"]},
    "active_at": {"0": 1765000000.5},
    "tracker_open": {"1": True},
    "reminded": True,
    "hints": {},
}
"""A live table's screens' state as the bot writes it (JSON: seats are strings)."""
OWN = {"pending": {"23": "Cy"}, "deadline": 1765000060.0, "hints_used": {"1": {"0": 2}}}
"""What the old ``meta["ui"]`` held that is the table's own, not its screens'."""


async def test_a_tables_screens_are_stored_apart_and_replaced(store: Storage) -> None:
    game_id = await store.games.create_lobby(-1, None, ANN, RULES, seats_for(4, [ANN]), {"a": 1})
    assert await store.screens.get(game_id) is None
    await store.screens.put(game_id, SCREENS)
    assert await store.screens.get(game_id) == SCREENS
    changed = {**SCREENS, "table_message_id": 502, "selections": {}}
    await store.screens.put(game_id, changed)
    assert await store.screens.get(game_id) == changed
    # The game's writes leave it alone, and it leaves the game's meta alone.
    game = Game(RULES, seed=4)
    await store.games.start_game(game_id, seats_for(4, [ANN]), game, {"b": 2})
    after = game.copy()
    move = Move.pass_cards(0, after.hand(0)[:3])
    move.apply(after)
    await store.games.record_move(game_id, move, after, {"c": 3})
    assert (await store.games.load_game(game_id)).meta == {"c": 3}
    other = await store.games.create_lobby(-2, None, BOB, RULES, seats_for(4, [BOB]))
    await store.screens.put(other, {"table_message_id": 9})
    assert await store.screens.of_games([game_id, other, 999]) == {
        game_id: changed,
        other: {"table_message_id": 9},
    }
    assert await store.screens.of_games([]) == {}
    many = await store.screens.of_games([*range(other + 1, other + 1200), game_id, other])
    assert set(many) == {game_id, other}  # asked for in several queries


# ------------------------------------------------------------------ the upgrade


class Raw:
    """Plain SQL on the database under test, outside the bot's storage."""

    def __init__(self, where: str | Path) -> None:
        self.where = where

    async def run(self, sql: str, *args: Any) -> list[tuple[Any, ...]]:
        if isinstance(self.where, Path):
            with sqlite3.connect(self.where) as db:
                marks = sql
                for n in range(len(args), 0, -1):
                    marks = marks.replace(f"${n}", "?")
                return db.execute(marks, args).fetchall()
        connection = await asyncpg.connect(self.where)
        try:
            return [tuple(r) for r in await connection.fetch(sql, *args)]
        finally:
            await connection.close()


async def _database(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> str | Path:
    if kind == "sqlite":
        return tmp_path / "hearts.db"
    server: PostgresServer = request.getfixturevalue("postgres")
    return await server.database()


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
async def test_revision_16_moves_the_screens_out_of_meta(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """A database at revision 15 whose games keep their screens in ``meta["ui"]``: the
    upgrade moves them to ``table_screens`` and keeps the table's own keys in ``meta``."""
    where = await _database(kind, tmp_path, request)
    store = await Storage.open(where)
    live = await store.games.create_lobby(-1, None, ANN, RULES, seats_for(4, [ANN]))
    await store.games.start_game(live, seats_for(4, [ANN]), Game(RULES, seed=5))
    lobby = await store.games.create_lobby(-2, None, BOB, RULES, seats_for(4, [BOB]))
    plain = await store.games.create_lobby(-3, None, 24, RULES, seats_for(4, [24]))
    await store.close()
    raw = Raw(where)
    old_live = {"chat_title": "Crash", "ui": {**SCREENS, **OWN}, "seat_state": {}}
    old_lobby = {"chat_title": "Lobby", "ui": {"table_message_id": 42, "pending": {}}}
    await raw.run("DROP TABLE table_screens")
    await raw.run("UPDATE alembic_version SET version_num = '15'")
    for game_id, meta in ((live, old_live), (lobby, old_lobby), (plain, {"x": 1})):
        await raw.run("UPDATE games SET meta = $1 WHERE id = $2", json.dumps(meta), game_id)

    store = await Storage.open(where)
    try:
        assert await store.screens.of_games([live, lobby, plain]) == {
            live: SCREENS,
            lobby: {"table_message_id": 42},
        }
        assert (await store.games.load_game(live)).meta == {
            "chat_title": "Crash",
            "seat_state": {},
            **OWN,
        }
        assert (await store.games.load_game(lobby)).meta == {"chat_title": "Lobby", "pending": {}}
        assert (await store.games.load_game(plain)).meta == {"x": 1}
    finally:
        await store.close()
    [(version,)] = await raw.run("SELECT version_num FROM alembic_version")
    assert version == str(latest_version())
