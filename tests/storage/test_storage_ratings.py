"""Ratings as stored: rated with the game's last move, in its chat and overall, weighted by
a person's own share of moves, rebuilt to the same floats, never twice."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from openskill_reference import openskill_rate
from storage_testkit import VARIANTS, play_stored, seats_for, tamper

from engine import Game
from engine.scoring import rank_key
from ratings import COMPUTER_PLAYERS, START
from storage import StoredSeat, WrongGameStatus
from storage.sqlite import SqliteStorage

ADA, BOB, CY = 1, 2, 3
STANDARD = COMPUTER_PLAYERS["standard"]
EXPERT = COMPUTER_PLAYERS["expert"]


def _ranks(game: Game) -> list[int]:
    return [rank_key(game.rules, total) for total in game.scores]


def _seats(*users: int, level: str = "expert") -> list[StoredSeat]:
    people = [StoredSeat.human(i, u, f"P{u}") for i, u in enumerate(users)]
    return people + [StoredSeat.computer(i, f"C{i}", level) for i in range(len(users), 4)]


async def test_a_finished_game_is_rated_in_its_chat_and_overall(store: SqliteStorage) -> None:
    game_id, game = await play_stored(
        store, VARIANTS["four"], seed=1, chat_id=10, seats=_seats(ADA, BOB, CY)
    )
    want = openskill_rate([START] * 4, _ranks(game))
    for scope in (10, None):
        changes = await store.rating_changes(game_id, scope)
        assert [c.player for c in changes] == [ADA, BOB, CY, EXPERT]
        assert [c.after for c in changes] == want
        assert all(c.before == START and c.weight == 1.0 for c in changes)
        assert all(c.pool == "main" for c in changes)
    ada = await store.player_rating(ADA, 10)
    assert ada is not None and ada.games == 1 and ada.skill == want[0]
    assert ada.provisional
    expected_place = 1 + sum(1 for s in want[:3] if s.conservative > want[0].conservative)
    assert (ada.place, ada.rated) == (expected_place, 3)
    board = await store.rating_board(10)
    people = [e for e in board if e.player > 0]
    assert [e.player for e in people] == sorted(
        (ADA, BOB, CY), key=lambda p: -want[p - 1].conservative
    )
    assert [e.place for e in people] == [1, 2, 3]
    assert board[-1].player == EXPERT and board[-1].skill == want[3]
    assert people[0].display_name.startswith("P")


async def test_each_chat_keeps_its_own_ratings_and_overall_sees_them_all(
    store: SqliteStorage,
) -> None:
    first, _ = await play_stored(
        store, VARIANTS["four"], seed=2, chat_id=10, seats=_seats(ADA, BOB)
    )
    second, g2 = await play_stored(
        store, VARIANTS["four"], seed=3, chat_id=20, seats=_seats(ADA, BOB)
    )
    in_10 = {c.player: c for c in await store.rating_changes(first, 10)}
    in_20 = {c.player: c for c in await store.rating_changes(second, 20)}
    overall = {c.player: c for c in await store.rating_changes(second)}
    # The second chat starts everyone afresh; overall goes on from the first game.
    assert in_20[ADA].before == START
    assert overall[ADA].before == in_10[ADA].after
    assert overall[EXPERT].before == in_10[EXPERT].after
    fresh = openskill_rate([START] * 4, _ranks(g2))
    assert [in_20[ADA].after, in_20[BOB].after] == fresh[:2]
    going_on = openskill_rate([in_10[p].after for p in (ADA, BOB, EXPERT, EXPERT)], _ranks(g2))
    assert [overall[ADA].after, overall[BOB].after] == going_on[:2]
    overall_ada = await store.player_rating(ADA)
    assert overall_ada is not None and overall_ada.games == 2
    history = await store.rating_history(ADA)
    assert [h.game_id for h in history] == [first, second]
    assert history[1].before == history[0].after
    assert [h.game_id for h in await store.rating_history(ADA, 20)] == [second]


async def test_a_person_who_left_midway_is_weighted_by_their_own_moves(
    store: SqliteStorage,
) -> None:
    game_id, game = await play_stored(
        store, VARIANTS["four"], seed=4, chat_id=10, seats=_seats(ADA, BOB), own_moves={0: 9}
    )
    journal = await store.journal(game_id)
    seat_moves = [e for e in journal if e.move["seat"] == 0]
    assert sum(1 for e in seat_moves if e.move.get("stand_in")) == len(seat_moves) - 9
    changes = {c.player: c for c in await store.rating_changes(game_id)}
    share = 9 / len(seat_moves)
    assert changes[ADA].weight == pytest.approx(share)
    whole = openskill_rate([START] * 4, _ranks(game))
    assert changes[ADA].after.mu - START.mu == pytest.approx((whole[0].mu - START.mu) * share)
    assert changes[BOB].after == whole[1]


async def test_a_no_show_is_not_rated_their_seat_is_the_stand_ins(store: SqliteStorage) -> None:
    game_id, _ = await play_stored(
        store, VARIANTS["four"], seed=5, chat_id=10, seats=_seats(ADA, BOB), own_moves={1: 0}
    )
    players = [c.player for c in await store.rating_changes(game_id)]
    assert BOB not in players
    assert STANDARD in players and EXPERT in players
    assert await store.player_rating(BOB) is None


async def test_two_player_games_are_rated_in_their_own_pool(store: SqliteStorage) -> None:
    game_id, _ = await play_stored(
        store, VARIANTS["two_player"], seed=6, chat_id=10, user_ids=[ADA, BOB]
    )
    assert {c.pool for c in await store.rating_changes(game_id)} == {"two"}
    assert await store.player_rating(ADA, pool="main") is None
    two = await store.player_rating(ADA, pool="two")
    assert two is not None and two.games == 1


async def test_unfinished_and_cancelled_games_do_not_count(store: SqliteStorage) -> None:
    game_id, _ = await play_stored(
        store, VARIANTS["four"], seed=7, chat_id=10, user_ids=[ADA], max_moves=20
    )
    await store.cancel_game(game_id)
    assert await store.rating_changes(game_id) == []
    assert await store.player_rating(ADA) is None


async def test_complex_hearts_is_rated_by_magnitude_in_the_main_pool(store: SqliteStorage) -> None:
    game_id, game = await play_stored(
        store, VARIANTS["complex"], seed=8, chat_id=10, seats=_seats(ADA, BOB, CY)
    )
    changes = await store.rating_changes(game_id)
    assert {c.pool for c in changes} == {"main"}
    assert [c.after for c in changes] == openskill_rate([START] * 4, _ranks(game))


async def test_rebuild_gives_exactly_the_stored_values(store: SqliteStorage) -> None:
    plan = [
        ("four", 10, (ADA, BOB, CY)),
        ("complex", 10, (BOB, CY)),
        ("omnibus", 20, (ADA, CY)),
        ("four", 20, (ADA,)),
        ("four", 10, (CY, ADA, BOB)),
    ]
    for seed, (variant, chat, users) in enumerate(plan, start=20):
        await play_stored(
            store,
            VARIANTS[variant],
            seed=seed,
            chat_id=chat,
            seats=_seats(*users),
            own_moves={0: 12} if seed == 22 else None,
        )
    await play_stored(store, VARIANTS["two_player"], seed=30, chat_id=10, user_ids=[ADA, BOB])
    before = [await store.rating_board(s, p) for s in (None, 10, 20) for p in ("main", "two")]
    history = await store.rating_history(ADA)
    report = await store.rebuild_ratings()
    assert (report.games, report.differing) == (6, 0)
    assert report.values == 2 * (4 + 3 + 3 + 2 + 4 + 2)
    assert [
        await store.rating_board(s, p) for s in (None, 10, 20) for p in ("main", "two")
    ] == before
    assert await store.rating_history(ADA) == history

    # A stored value that is not what the model gives is found and put right.
    await tamper(
        store, ("UPDATE rating_changes SET mu_after = mu_after + 1 WHERE player = ?", (ADA,))
    )
    report = await store.rebuild_ratings()
    assert report.differing > 0
    assert await store.rating_history(ADA) == history


async def test_games_finished_before_ratings_existed_are_rated_once_on_opening(
    db_path: Path,
) -> None:
    store = await SqliteStorage.open(db_path)
    ids = [
        (await play_stored(store, VARIANTS["four"], seed=s, chat_id=10, seats=_seats(ADA)))[0]
        for s in (40, 41)
    ]
    rated = await store.rating_board(10)
    await store.close()
    with sqlite3.connect(db_path) as db:  # as a version 6 database left them
        for table in ("rating_changes", "ratings", "rated_games"):
            db.execute(f"DELETE FROM {table}")
    for _ in range(2):  # opened twice: rated the first time only
        store = await SqliteStorage.open(db_path)
        assert await store.rating_board(10) == rated
        ada = await store.player_rating(ADA, 10)
        assert ada is not None and ada.games == 2
        await store.close()
    assert ids


async def test_a_game_that_ends_across_a_restart_is_rated_once(db_path: Path) -> None:
    store = await SqliteStorage.open(db_path)
    rules = VARIANTS["four"]
    seats = seats_for(4, [ADA, BOB])
    game_id, game = await play_stored(store, rules, seed=50, chat_id=10, seats=seats)
    last = (await store.journal(game_id))[-1]
    await store.close()
    store = await SqliteStorage.open(db_path)  # the bot restarts after the last move
    from engine import Move

    with pytest.raises(WrongGameStatus):  # the last move sent again is refused
        await store.record_move(game_id, Move.from_dict(last.move), game)
    ada = await store.player_rating(ADA)
    assert ada is not None and ada.games == 1
    assert len(await store.rating_history(ADA)) == 1
    await store.close()
