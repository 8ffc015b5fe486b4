"""Databases written before Alembic (schema version 10, the fixtures in ``v10/``, made by
that version's code) are upgraded in place by the bot's normal start, and then read
exactly as that code read them: every game replays to its stored state, every standing,
rating board, tournament, language choice and handled update is the same."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import asyncpg
from upgrade_reads import plain, reads

from sandbox.postgres_server import PostgresServer
from storage import open_storage
from storage.upgrade import latest_version

FIXTURES = Path(__file__).parent / "v10"


OPTIONS_ADDED_SINCE = {"watching": True}
"""A tournament's options added after the fixtures were recorded, as an event stored before
them reads them: their defaults (``/event watch``, issue 33.1: the group may watch)."""


LOBBY_SEATS_EMPTIED = {1: 5}
"""Lobby → the person whose seat there revision 15 empties (one live seat per person,
issue 50.3): the fixtures seat person 5 in lobby 1 and at game 4 in progress, which
keeps them."""
LIVE_SEATS = {1: 13, 2: 13, 3: 13, 4: 13, 5: 4, 6: 4}
"""Each person's one live seat after the upgrade: their newest game in progress (the
fixtures seat people 1 to 4 at three games in progress at once)."""


def expected(database: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / f"expected-{database}.json").read_text())
    for game_id, user_id in LOBBY_SEATS_EMPTIED.items():
        stored = data[f"game {game_id}"]["stored"]
        stored["seats"] = [s for s in stored["seats"] if s["user_id"] != user_id]
    for tournament in numbered(data, "tournament").values():
        if tournament.get("stored") is not None:
            for name, default in OPTIONS_ADDED_SINCE.items():
                tournament["stored"]["options"].setdefault(name, default)
    return data


def numbered(recorded: dict[str, Any], kind: str) -> dict[int, Any]:
    """The reads of each game (or tournament) by id."""
    found = {}
    for key, value in recorded.items():
        words = key.split()
        if len(words) == 2 and words[0] == kind and words[1].isdigit():
            found[int(words[1])] = value
    return found


def ids(recorded: dict[str, Any], kind: str) -> range:
    """The ids of the games (or tournaments) the fixture's reads asked about."""
    return range(1, 1 + max(numbered(recorded, kind)))


async def load_postgres_fixture(postgres: PostgresServer) -> str:
    """A new database holding the PostgreSQL fixture, as version 10 left it."""
    url = await postgres.database()
    connection = await asyncpg.connect(url)
    try:
        await connection.execute((FIXTURES / "postgres-v10.sql").read_text())
    finally:
        await connection.close()
    return url


async def read_after_start(address: str | Path, recorded: dict[str, Any]) -> dict[str, Any]:
    store = await open_storage(address)
    try:
        games, tournaments = ids(recorded, "game"), ids(recorded, "tournament")
        read: dict[str, Any] = json.loads(json.dumps(plain(await reads(store, games, tournaments))))
        return read
    finally:
        await store.close()


def test_the_fixtures_hold_what_they_promise() -> None:
    """Games in every state, finished ones rated in both pools, tournaments at every stage,
    language choices, handled updates answered and not."""
    for database in ("sqlite", "postgres"):
        recorded = expected(database)
        games = [g for g in numbered(recorded, "game").values() if g is not None]
        statuses = {g["stored"]["status"] for g in games}
        assert statuses == {"lobby", "active", "finished", "cancelled", "quarantined"}
        played = [g for g in games if g["stored"]["game"] is not None]
        phases = {json.loads(g["stored"]["game"]["snapshot"])["phase"] for g in played}
        assert phases == {"pass", "play", "moon", "over"}
        assert all(g["replays to its snapshot"] for g in played)
        tournaments = {
            t["stored"]["status"] for t in numbered(recorded, "tournament").values() if t["stored"]
        }
        assert tournaments == {"registration", "running", "paused", "finished", "cancelled"}
        assert recorded["rating board None main"] and recorded["rating board None two"]
        assert recorded["standings None complex"] and recorded["standings -100 points"]
        assert recorded["languages"]["chosen_by_person"] and recorded["languages"]["chat_first"]
        assert recorded["unanswered"] and recorded["handled"] == {
            "9000": True,
            "9001": True,
            "9002": True,
            "9003": False,
        }


async def test_a_version_10_sqlite_database_is_upgraded_and_reads_the_same(
    tmp_path: Path,
) -> None:
    path = tmp_path / "hearts.db"
    shutil.copyfile(FIXTURES / "hearts-v10.db", path)
    recorded = expected("sqlite")
    assert await read_after_start(path, recorded) == recorded
    with sqlite3.connect(path) as db:  # stamped at Alembic's first revision, and upgraded
        assert db.execute("SELECT version_num FROM alembic_version").fetchall() == [
            (str(latest_version()),)
        ]
        assert dict(db.execute("SELECT user_id, game_id FROM live_seats")) == LIVE_SEATS
    # And again: a second start finds it current and changes nothing.
    assert await read_after_start(path, recorded) == recorded


async def test_a_version_10_postgresql_database_is_upgraded_and_reads_the_same(
    postgres: PostgresServer,
) -> None:
    url = await load_postgres_fixture(postgres)
    recorded = expected("postgres")
    assert await read_after_start(url, recorded) == recorded
    connection = await asyncpg.connect(url)
    try:  # stamped at Alembic's first revision, and upgraded
        assert await connection.fetchval("SELECT version_num FROM alembic_version") == str(
            latest_version()
        )
        live = await connection.fetch("SELECT user_id, game_id FROM live_seats")
        assert {r["user_id"]: r["game_id"] for r in live} == LIVE_SEATS
    finally:
        await connection.close()
    assert await read_after_start(url, recorded) == recorded
