"""``hearts-bot copy-db``: a SQLite database moved into an empty PostgreSQL one, every game
replayed from the copy, and a database that is not empty refused."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from storage_testkit import VARIANTS, play_stored

from bot.__main__ import main as hearts_bot
from domain.people import ChatSettings
from domain.tournaments import TournamentOptions
from engine import Rules
from sandbox.postgres_server import PostgresServer
from storage import Storage, StorageError, open_storage
from storage.copy import copy_database

ADA, BOB, CY = 11, 12, 13


async def fill(path: Path) -> dict[str, object]:
    """Games of every variant (finished and in play), settings, languages, a tournament;
    returns what the storage answers about them."""
    store = await Storage.open(path)
    try:
        for seed, variant in enumerate(VARIANTS, start=1):
            users = [ADA, BOB, CY][: VARIANTS[variant].players]
            await play_stored(store, VARIANTS[variant], seed=seed, chat_id=-7, user_ids=users)
        active, _ = await play_stored(store, Rules(), seed=40, chat_id=-8, max_moves=30)
        # The daily deal: the secret its deals come from, a person's game of a day (its
        # scores settled), their card posted to a group.
        await store.daily.secret()
        await store.daily.claim(30, ADA, active)
        await store.daily.settle(30)
        await store.daily.claim_post(30, ADA, -7)
        await store.people.save_chat_settings(
            ChatSettings(-7, Rules(target=75).to_dict(), 30, "pro", False)
        )
        await store.people.save_person_language(ADA, chosen="es", app="en")
        await store.people.upsert_user(ADA, "Ada", "ada")
        await store.tournaments.create_tournament(
            chat_id=-7,
            thread_id=None,
            organiser_id=ADA,
            organiser_name="Ada",
            name="Cup",
            rules=Rules(),
            options=TournamentOptions(),
            time_zone="UTC",
            starts_at=dt.datetime(2027, 1, 1, tzinfo=dt.UTC),
            registration_deadline=None,
        )
        return await answers(store, active)
    finally:
        await store.close()


async def answers(store: Storage, active: int) -> dict[str, object]:
    return {
        "standings": await store.standings.standings(-7),
        "overall": await store.standings.standings(None),
        "board": await store.standings.rating_board(-7),
        "history": await store.standings.rating_history(ADA),
        "settings": await store.people.get_chat_settings(-7),
        "languages": await store.people.language_choices(),
        "user": await store.people.get_user(ADA),
        "tournaments": await store.tournaments.tournaments_in_chat(-7),
        "active": [
            (g.id, g.last_seq, g.game and g.game.to_json())
            for g in await store.games.active_games()
        ],
        "table": await store.standings.game_table(active),
        "daily secret": await store.daily.secret(),
        "daily game": await store.daily.game_of(30, ADA),
        "daily posted": await store.daily.claim_post(30, ADA, -7),
    }


async def test_every_row_is_copied_and_every_game_replays_from_the_copy(
    tmp_path: Path, postgres: PostgresServer
) -> None:
    source = tmp_path / "hearts.sqlite3"
    before = await fill(source)
    url = await postgres.database()
    report = await copy_database(source, url)
    assert report.rows["games"] == len(VARIANTS) + 1 and report.rows["moves"] > 500
    assert report.games_replayed == len(VARIANTS) + 1
    copy = await open_storage(url)
    try:
        active = before["table"].game_id  # type: ignore[attr-defined]
        assert await answers(copy, active) == before  # type: ignore[arg-type]
        # The copy goes on where the source stopped: new ids follow the copied ones.
        new = await copy.games.create_lobby(-9, None, ADA, Rules(), [])
        assert new == len(VARIANTS) + 2
    finally:
        await copy.close()
    with pytest.raises(StorageError, match="copy-db writes only into an empty database"):
        await copy_database(source, url)


def test_the_command_copies_and_refuses_what_it_must(
    tmp_path: Path, postgres: PostgresServer, capsys: pytest.CaptureFixture[str]
) -> None:
    import asyncio

    source = tmp_path / "hearts.sqlite3"
    asyncio.run(fill(source))
    url = asyncio.run(postgres.database())
    assert hearts_bot(["copy-db", str(source), url]) == 0
    out = capsys.readouterr().out
    assert "every game replays from the copy" in out and "table-stakes" not in out
    assert hearts_bot(["copy-db", str(source), url]) == 1
    assert "already holds games" in capsys.readouterr().err
    assert hearts_bot(["copy-db", str(tmp_path / "none.sqlite3"), url]) == 1
    assert hearts_bot(["copy-db", str(source), "mysql://x/y"]) == 2


def test_rows_are_inserted_as_read_unless_a_column_must_be_processed_first() -> None:
    """copy-db inserts each table's rows, read as tuples, through its INSERT compiled once
    for asyncpg: as they are when its values are the table's columns in order with nothing
    to process (every table today), else each value put where it goes and processed as
    SQLAlchemy would."""
    from sqlalchemy import Column, Integer, MetaData, Table, TypeDecorator
    from sqlalchemy.dialects.postgresql.asyncpg import dialect

    from storage.copy import TABLES, _in_order, _statements
    from storage.database import _Positional

    for table in TABLES:
        _, insert = _statements()[table]
        assert _in_order(insert, table, [("row",)]) == [("row",)]

    class Doubled(TypeDecorator[int]):
        impl = Integer
        cache_ok = True

        def process_bind_param(self, value: int | None, dialect: object) -> int | None:
            return None if value is None else 2 * value

    table = Table("t", MetaData(), Column("a", Integer), Column("b", Doubled))
    insert = _Positional(table.insert().compile(dialect=dialect()))  # type: ignore[no-untyped-call]
    assert _in_order(insert, table, [(1, 2), (3, None)]) == [(1, 4), (3, None)]


def test_copy_db_copies_every_table_of_the_schema() -> None:
    """A table added to the schema is copied too (the bot accounts' tables were left out:
    a copied bot knew nobody's DM as open, and no group's account)."""
    from storage import schema
    from storage.copy import TABLES

    assert {t.name for t in TABLES} == set(schema.metadata.tables)
    assert len(TABLES) == len(set(TABLES))
