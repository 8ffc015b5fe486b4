"""One live seat per person, kept by the database (issue 50.3): ``live_seats``' key refuses
a person a second lobby or game while one is open or playing, whichever bot account writes
it, and two writes at once; the seat is free again once its table ends or they leave it."""

from __future__ import annotations

import asyncio

import pytest
from storage_testkit import play_stored, seats_for, tamper

from engine import Game, Rules
from storage import SeatTaken, Storage

RULES = Rules()
ANN, BOB, CY = 11, 12, 13


async def lobby(store: Storage, *people: int, chat_id: int = -1) -> int:
    return await store.games.create_lobby(
        chat_id, None, people[0], RULES, seats_for(4, list(people))
    )


@pytest.fixture
def other(store: Storage) -> Storage:
    """A second bot account's repositories on the same database (on PostgreSQL, its
    writes on connections of their own from the pool)."""
    return Storage(store.database, account=7000000002)


async def test_a_second_lobby_seat_is_refused_and_nothing_is_written(store: Storage) -> None:
    first = await lobby(store, ANN, BOB)
    with pytest.raises(SeatTaken) as refused:
        await lobby(store, CY, BOB, chat_id=-2)
    assert (refused.value.user_id, refused.value.game_id) == (BOB, first)
    assert await store.games.game_in_chat(-2, None) is None  # no second table at all
    # Adding Bob to another lobby is refused too, and that lobby stays as it was.
    second = await lobby(store, CY, chat_id=-3)
    with pytest.raises(SeatTaken):
        await store.games.update_lobby(second, seats=seats_for(4, [CY, BOB]))
    assert [s.user_id for s in (await store.games.load_game(second)).seats][:2] == [CY, None]
    found = await store.games.active_game_for_user(BOB)
    assert found is not None and found.id == first


async def test_another_accounts_table_is_refused_too(store: Storage, other: Storage) -> None:
    first = await lobby(store, ANN)
    with pytest.raises(SeatTaken) as refused:
        await other.games.create_lobby(-9, None, ANN, RULES, seats_for(4, [ANN]))
    assert refused.value.game_id == first
    found = await other.games.active_game_for_user(ANN)
    assert found is not None and found.id == first


async def test_two_tables_at_once_seat_the_person_at_one(store: Storage, other: Storage) -> None:
    """Two accounts seat Ann at the same moment: the key lets one write through."""
    results = await asyncio.gather(
        *(
            where.games.create_lobby(-20 - n, None, ANN, RULES, seats_for(4, [ANN]))
            for n, where in enumerate([store, other] * 3)
        ),
        return_exceptions=True,
    )
    made = [r for r in results if isinstance(r, int)]
    assert len(made) == 1, results
    assert all(isinstance(r, SeatTaken) for r in results if not isinstance(r, int)), results


async def test_the_seat_is_free_once_the_table_ends_or_they_leave(store: Storage) -> None:
    # Left: the lobby's seats written without them.
    left = await lobby(store, ANN, BOB)
    await store.games.update_lobby(left, seats=seats_for(4, [ANN]))
    free = await lobby(store, BOB, chat_id=-2)
    # Cancelled.
    await store.games.cancel_game(free)
    dealt = await lobby(store, BOB, chat_id=-3)
    # A game dealt keeps them; quarantined, it does not.
    await store.games.start_game(dealt, seats_for(4, [BOB]), Game(RULES, seed=1))
    with pytest.raises(SeatTaken):
        await lobby(store, BOB, chat_id=-4)
    # A snapshot that no longer loads: loading quarantines the game, and frees its people.
    await tamper(store, ("UPDATE games SET snapshot = '{' WHERE id = :id", {"id": dealt}))
    assert (await store.games.load_game(dealt)).status == "quarantined"
    # Finished: a whole game played, then the next one.
    await store.games.cancel_game(left)
    await play_stored(store, Rules(target=20), seed=3, chat_id=-5, user_ids=[ANN, BOB])
    assert await store.games.active_game_for_user(ANN) is None
    await play_stored(store, Rules(target=20), seed=4, chat_id=-6, user_ids=[BOB, ANN])
    assert await store.games.active_game_for_user(BOB) is None
