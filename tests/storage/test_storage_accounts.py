"""Several bot accounts on one database (issue 35), on SQLite and a real PostgreSQL: what
belongs to one account (games, tournaments, handled updates, the groups it serves), what
they share (people, standings, ratings, languages), the rows from before accounts claimed
by the first account that opens the upgraded database, and each account's leader lock."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from patience import patient
from storage_testkit import play_stored, random_move, seats_for

from domain.handling import Handling
from domain.tournaments import TournamentOptions
from engine import Game, Rules
from sandbox.postgres_server import PostgresServer
from storage import Storage

A, B = 7_000_000_001, 8_123_456_789  # two bots' Telegram ids (B's is past 2³²)


@pytest.fixture(params=["sqlite", "postgresql"])
async def address(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    if request.param == "postgresql":
        server: PostgresServer = request.getfixturevalue("postgres")
        yield await server.database()
    else:
        yield str(tmp_path / "hearts.db")


async def opened(address: str, account: int) -> Storage:
    return await Storage.open(address, account=account)


async def lobby(store: Storage, chat_id: int) -> int:
    return await store.games.create_lobby(chat_id, None, 1, Rules(), seats_for(4))


async def tournament(store: Storage, chat_id: int) -> int:
    event = await store.tournaments.create_tournament(
        chat_id=chat_id,
        thread_id=None,
        organiser_id=1,
        organiser_name="Kumar",
        name="Cup",
        rules=Rules(),
        options=TournamentOptions(),
        time_zone="UTC",
        starts_at=None,
        registration_deadline=None,
    )
    return event.id


async def move_with_update(store: Storage, game_id: int, game: Game, update_id: int) -> None:
    move = random_move(game, random.Random(update_id))
    move.apply(game)
    handling = Handling(update_id, f"cb-{update_id}", store.account, answer="Played")
    await store.games.record_move(game_id, move, game, handled=handling)
    assert handling.stored


async def test_rows_from_before_accounts_go_to_the_first_account_that_opens(
    address: str,
) -> None:
    before = await opened(address, 0)  # as the code before accounts wrote them
    try:
        game_id = await lobby(before, -100)
        event_id = await tournament(before, -101)
        played = await before.games.create_lobby(-102, None, 1, Rules(), seats_for(4))
        game = Game(Rules(), seed=3)
        await before.games.start_game(played, seats_for(4), game)
        await move_with_update(before, played, game, 17)
    finally:
        await before.close()

    first = await opened(address, A)
    second = await opened(address, B)
    try:
        assert {g.id for g in await first.games.active_games()} == {game_id, played}
        assert [t.id for t in await first.tournaments.open_tournaments()] == [event_id]
        assert await first.ledger.was_handled(17)
        # The second account claims nothing: the first took them all, and their groups.
        assert await second.games.active_games() == []
        assert await second.tournaments.open_tournaments() == []
        assert not await second.ledger.was_handled(17)
        for group in (-100, -101, -102):
            assert await second.accounts.serving(group) == A
        assert await first.accounts.claim_unowned() == 0  # once only
    finally:
        await first.close()
        await second.close()


async def test_each_account_resumes_its_own_games_and_tournaments(address: str) -> None:
    a, b = await opened(address, A), await opened(address, B)
    try:
        a_game, b_game = await lobby(a, -1), await lobby(b, -2)
        a_event, b_event = await tournament(a, -1), await tournament(b, -2)
        assert [g.id for g in await a.games.active_games()] == [a_game]
        assert [g.id for g in await b.games.active_games()] == [b_game]
        assert [t.id for t in await a.tournaments.open_tournaments()] == [a_event]
        assert [t.id for t in await b.tournaments.open_tournaments()] == [b_event]
        # A game is still found by its id by either (a link, /verify): ids are shared.
        assert (await b.games.load_game(a_game)).id == a_game
    finally:
        await a.close()
        await b.close()


async def test_two_accounts_update_17_are_two_updates(address: str) -> None:
    a, b = await opened(address, A), await opened(address, B)
    try:
        games = []
        for store, chat in ((a, -1), (b, -2)):
            game_id = await lobby(store, chat)
            game = Game(Rules(), seed=5)
            await store.games.start_game(game_id, seats_for(4), game)
            games.append((store, game_id, game))
        store, game_id, game = games[0]
        await move_with_update(store, game_id, game, 17)
        assert await a.ledger.was_handled(17)
        assert not await b.ledger.was_handled(17)  # B's own update 17 is still to come
        store, game_id, game = games[1]
        await move_with_update(store, game_id, game, 17)  # and it is stored beside A's
        assert await b.ledger.was_handled(17)
        assert [p.update_id for p in await a.ledger.unanswered(0)] == [17]
        await a.ledger.mark_answered(17)
        assert await a.ledger.unanswered(0) == []
        assert [p.update_id for p in await b.ledger.unanswered(0)] == [17]  # B's untouched
    finally:
        await a.close()
        await b.close()


async def test_a_group_is_served_by_the_first_account_used_there(address: str) -> None:
    a, b = await opened(address, A), await opened(address, B)
    try:
        await a.accounts.introduce("hearts_a_bot")
        assert await b.accounts.who_serves(-5) is None
        assert await a.accounts.serving(-5) == A  # claimed
        assert await b.accounts.serving(-5) == A
        serving = await b.accounts.who_serves(-5)
        assert serving is not None and (serving.account, serving.username) == (A, "hearts_a_bot")
        assert await b.accounts.tell_once(-5)
        assert not await b.accounts.tell_once(-5)  # once
        assert await b.accounts.serving(-6) == B and await a.accounts.serving(-6) == B
        # A is removed from its group: it gives the group up, and B may take it.
        await a.accounts.release(-5)
        assert await b.accounts.serving(-5) == B
        assert await a.accounts.serving(-5) == B
        assert await a.accounts.tell_once(-5)
    finally:
        await a.close()
        await b.close()


async def test_two_accounts_claiming_one_group_at_once_agree(address: str) -> None:
    stores = [await opened(address, account) for account in (A, B, A + 1, B + 1)]
    try:
        found = await asyncio.gather(*(s.accounts.serving(-9) for s in stores))
        assert len(set(found)) == 1 and found[0] in (A, B, A + 1, B + 1)
    finally:
        for store in stores:
            await store.close()


async def test_people_standings_ratings_and_languages_are_shared(address: str) -> None:
    a, b = await opened(address, A), await opened(address, B)
    try:
        await a.people.save_person_language(7, chosen="es", app="")
        await a.people.upsert_user(7, "Sofía", "sofia")
        await play_stored(a, Rules(players=3, target=30), seed=3, chat_id=-1, user_ids=[7])
        assert (await b.people.language_choices()).chosen_by_person[7] == "es"
        user = await b.people.get_user(7)
        assert user is not None and user.display_name == "Sofía"
        standing = await b.standings.player_standing(7)
        assert standing is not None and standing.games_played == 1
        assert await b.standings.player_rating(7) == await a.standings.player_rating(7)
        assert await b.standings.player_rating(7) is not None
    finally:
        await a.close()
        await b.close()


async def test_each_account_has_its_own_leader_lock(postgres: PostgresServer) -> None:
    """Two accounts' leaders serve at once; a second process of one account waits for its
    own account's lock only, and `leader` names who holds each."""
    from storage.postgres import Leadership, leader, lock_key

    assert len({lock_key(a) for a in (A, B, A + 1, B + 1, 0)}) == 5
    assert all(-(2**31) <= lock_key(a) < 2**31 for a in (A, B, 2**63 - 1))
    url = await postgres.database()
    lead_a = await Leadership.wait(url, "bot-a-1", account=A)
    lead_b = await asyncio.wait_for(Leadership.wait(url, "bot-b-1", account=B), patient(5))
    told: list[str | None] = []
    standby = asyncio.create_task(Leadership.wait(url, "bot-a-2", told.append, account=A))
    try:
        await asyncio.sleep(1.0)
        assert not standby.done() and told == ["bot-a-1"]
        assert await leader(url, A) == "bot-a-1"
        assert await leader(url, B) == "bot-b-1"
        await lead_a.release()  # A's leader stops: A's standby leads, B is untouched
        taken = await asyncio.wait_for(standby, patient(5))
        assert await leader(url, A) == "bot-a-2"
        assert await leader(url, B) == "bot-b-1"
        await taken.release()
    finally:
        standby.cancel()
        await lead_a.release()
        await lead_b.release()


async def test_a_dm_opened_with_one_account_is_not_open_to_another(address: str) -> None:
    before = await opened(address, 0)
    try:
        await before.people.upsert_user(7, "Sofía", None)
        await before.people.set_dm_open(7, True)  # before accounts
    finally:
        await before.close()
    a, b = await opened(address, A), await opened(address, B)
    try:
        assert await a.people.dm_open(7)  # the first account's, claimed
        assert not await b.people.dm_open(7)
        await b.people.set_dm_open(7, True)
        await a.people.set_dm_open(7, False)  # Sofía blocked A: B may still write
        assert not await a.people.dm_open(7) and await b.people.dm_open(7)
        user = await b.people.get_user(7)
        assert user is not None and user.dm_open and user.display_name == "Sofía"
    finally:
        await a.close()
        await b.close()


async def test_a_process_of_the_version_before_accounts_never_leads_beside_a_newer_one(
    postgres: PostgresServer,
) -> None:
    """The older versions took one lock for every process (`LEADER_LOCK` alone); a newer
    process holds it shared while it waits or leads: during an upgrade an older leader
    keeps the newer ones waiting, and a newer leader keeps an older one waiting."""
    import asyncpg

    from storage.postgres import LEADER_LOCK, Leadership

    url = await postgres.database()
    older = await asyncpg.connect(url, server_settings={"application_name": "hearts-old"})
    try:
        assert await older.fetchval("SELECT pg_try_advisory_lock($1)", LEADER_LOCK)
        told: list[str | None] = []
        newer = asyncio.create_task(Leadership.wait(url, "hearts-new", told.append, account=A))
        await asyncio.sleep(1.0)
        assert not newer.done() and told == ["hearts-old (an older version)"]
        await older.execute("SELECT pg_advisory_unlock($1)", LEADER_LOCK)
        leading = await asyncio.wait_for(newer, patient(5))
        try:  # and now an older process cannot lead
            assert not await older.fetchval("SELECT pg_try_advisory_lock($1)", LEADER_LOCK)
            other = await asyncio.wait_for(Leadership.wait(url, "hearts-b", account=B), patient(5))
            await other.release()  # newer processes of other accounts lead beside it
        finally:
            await leading.release()
        assert await older.fetchval("SELECT pg_try_advisory_lock($1)", LEADER_LOCK)
    finally:
        await older.close()
