"""Standings, a player's history and a game's table, against figures worked out by hand."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pytest
from storage_testkit import VARIANTS, play_stored, tamper

from domain.standings import ScoreKind
from engine import Game, Rules
from engine.scoring import magnitude_squared
from storage import Storage

ADA, BOB, CY = 1, 2, 3


async def test_standings_match_the_games(store: Storage) -> None:
    await store.people.upsert_user(ADA, "Ada", "ada")
    played: list[tuple[int, Game, list[int]]] = []
    plan = [
        (10, VARIANTS["four"], [ADA, BOB, CY]),
        (10, VARIANTS["three"], [BOB, ADA]),
        (10, VARIANTS["omnibus"], [CY, BOB, ADA]),
        (20, VARIANTS["two_player"], [ADA, BOB]),
        (20, VARIANTS["five"], [ADA]),
        (10, VARIANTS["complex"], [ADA, BOB]),
        (10, VARIANTS["complex"], [BOB, ADA]),
    ]
    for seed, (chat, rules, users) in enumerate(plan):
        _, game = await play_stored(store, rules, seed=seed, chat_id=chat, user_ids=users)
        played.append((chat, game, users))
    # An unfinished game counts nowhere.
    await play_stored(store, VARIANTS["four"], seed=50, chat_id=10, user_ids=[ADA], max_moves=9)

    def expected(chat: int | None, kind: str) -> dict[int, dict[str, object]]:
        out: dict[int, dict[str, object]] = defaultdict(lambda: defaultdict(int))
        for game_chat, game, users in played:
            if (chat is not None and game_chat != chat) or (
                (game.rules.variant == "complex") != (kind == "complex")
            ):
                continue
            for seat, user in enumerate(users):
                row = out[user]
                row["games"] += 1  # type: ignore[operator]
                row["wins"] += int(seat in game.winners)  # type: ignore[operator]
                row["hands"] += len(game.hand_history)  # type: ignore[operator]
                row["points"] += game.scores[seat]  # type: ignore[operator]
                row["moons"] += sum(h.shooter == seat for h in game.hand_history)  # type: ignore[operator]
                row.setdefault("totals", []).append(game.scores[seat])  # type: ignore[attr-defined]
        return out

    chats: tuple[int | None, ...] = (None, 10, 20)
    kinds: tuple[ScoreKind, ...] = ("points", "complex")
    for where in chats:
        for kind in kinds:
            want = expected(where, kind)
            got = {s.user_id: s for s in await store.standings.standings(where, kind)}
            assert set(got) == set(want), (where, kind)
            for user, row in want.items():
                s = got[user]
                assert (s.games_played, s.games_won, s.hands_played, s.moons_shot) == (
                    row["games"],
                    row["wins"],
                    row["hands"],
                    row["moons"],
                )
                assert s.win_rate == pytest.approx(s.games_won / s.games_played)
                average = row["points"] / row["hands"]  # type: ignore[operator]
                assert s.average_per_hand == pytest.approx(average)
                totals = row["totals"]
                key = magnitude_squared if kind == "complex" else (lambda t: t)
                assert s.best_game == min(totals, key=key)  # type: ignore[call-overload]
                assert s.worst_game == max(totals, key=key)  # type: ignore[call-overload]
            order = [s.user_id for s in await store.standings.standings(where, kind)]
            wins = [got[u].games_won for u in order]
            assert wins == sorted(wins, reverse=True)

    overall = {s.user_id: s for s in await store.standings.standings()}
    assert overall[ADA].display_name == "Ada"  # the users table
    assert overall[BOB].display_name == f"Player {BOB}"  # the seat, for a user never upserted
    assert overall[ADA].games_played == 5
    assert (
        await store.standings.player_standing(ADA, 20)
        == {s.user_id: s for s in await store.standings.standings(20)}[ADA]
    )
    assert await store.standings.player_standing(99) is None
    assert len(await store.standings.standings(limit=2)) == 2
    assert await store.standings.standings(min_games=100) == []


async def test_player_history_newest_first(store: Storage) -> None:
    games = []
    for seed in range(4):
        rules = Rules(variant="complex", target=15) if seed == 2 else Rules(target=26)
        game_id, game = await play_stored(store, rules, seed=seed, chat_id=seed % 2, user_ids=[ADA])
        games.append((game_id, game))
    history = await store.standings.player_history(ADA, limit=3)
    assert [h.game_id for h in history] == [g for g, _ in reversed(games)][:3]
    for entry in history:
        game = dict(games)[entry.game_id]
        assert entry.total == game.scores[0]
        assert entry.won == (0 in game.winners)
        assert entry.hands == len(game.hand_history)
        assert entry.place >= 1 and (entry.place == 1 or not entry.won)
    assert [h.game_id for h in await store.standings.player_history(ADA, chat_id=1)] == [
        games[3][0],
        games[1][0],
    ]
    assert history[1].score_kind == "complex" and isinstance(history[1].total, complex)


async def test_hand_made_results(store: Storage) -> None:
    # Three finished games written as rows, the sums checked by hand.
    game_id, _ = await play_stored(store, Rules(players=3), seed=1, max_moves=1)
    rows = [
        # game, seat, user, total, won, hands, moons
        (game_id, 0, ADA, 40, 1, 10, 1),
        (game_id, 1, BOB, 120, 0, 10, 0),
        (game_id, 2, None, 100, 0, 10, 0),
    ]
    await tamper(
        store,
        *(
            (
                "INSERT INTO game_results VALUES (:game, :seat, 7, :user, 'points', 3, :total, 0,"
                " :total, 1, :won, :hands, :moons, 0)",
                {
                    "game": g,
                    "seat": seat,
                    "user": user,
                    "total": total,
                    "won": won,
                    "hands": hands,
                    "moons": moons,
                },
            )
            for g, seat, user, total, won, hands, moons in rows
        ),
    )
    [ada, bob] = await store.standings.standings(7)
    assert (ada.user_id, ada.games_won, ada.average_per_hand, ada.moons_shot) == (ADA, 1, 4.0, 1)
    assert (bob.user_id, bob.games_won, bob.average_per_hand, bob.best_game) == (BOB, 0, 12.0, 120)
    assert ada.win_rate == 1.0 and bob.win_rate == 0.0


async def test_table_of_a_game_in_play(store: Storage) -> None:
    game_id, game = await play_stored(store, VARIANTS["four"], seed=3, max_moves=120)
    table = await store.standings.game_table(game_id)
    assert table.status == "active" and table.winners == ()
    assert len(table.hands) == len(game.hand_history) >= 1
    assert table.totals == tuple(game.scores)
    assert [h.totals for h in table.hands] == [h.totals for h in game.hand_history]


async def test_a_score_table_and_a_rating_are_each_one_trip_to_the_readers_thread(
    sqlite_store: Storage,
) -> None:
    """A read that needs several queries (a game's head, seats and hands; a rating and
    how many are rated) asks them together: one wake-up of the reader's aiosqlite thread
    and of the event loop, not one a query."""
    game_id, game = await play_stored(
        sqlite_store, VARIANTS["four"], seed=4, chat_id=-5, user_ids=[11, 12]
    )
    raw = await sqlite_store.database._reader.get_raw_connection()  # type: ignore[union-attr]
    thread = raw.dbapi_connection._connection  # type: ignore[union-attr]
    trips = 0
    queue = thread._execute

    async def counted(*args: Any, **kwargs: Any) -> Any:
        nonlocal trips
        trips += 1
        return await queue(*args, **kwargs)

    thread._execute = counted
    try:
        table = await sqlite_store.standings.game_table(game_id)
        assert (trips, len(table.hands), table.totals) == (
            1,
            len(game.hand_history),
            tuple(game.scores),
        )
        board = await sqlite_store.standings.rating_board(-5)
        assert (trips, {e.player for e in board[:2]}) == (2, {11, 12})
        rating = await sqlite_store.standings.player_rating(11, -5)
        assert trips == 3 and rating is not None and rating.rated == 2
    finally:
        thread._execute = queue


async def test_the_standings_and_ratings_read_on_sqlite_go_straight_to_its_driver(
    store: Storage,
) -> None:
    """The standings' and ratings' queries, written once, are compiled once (`Query`): on
    SQLite they run on the reader's own sqlite3 connection, not one through SQLAlchemy's
    execution (its cache key walked at every call, its context, its rows cost about as
    much as a small query), and read exactly the rows SQLAlchemy reads from the same
    statement, on both databases."""
    from sqlalchemy import Engine, event

    from storage import standings as queries
    from storage.database import Query, placed, width_of

    for seed, (chat, rules, users) in enumerate(
        [(-5, VARIANTS["four"], [ADA, BOB]), (-5, VARIANTS["complex"], [BOB, CY])]
    ):
        await play_stored(store, rules, seed=seed, chat_id=chat, user_ids=users)
    await store.people.upsert_user(ADA, "Ada", "ada")
    asked: list[tuple[Query, dict[str, Any]]] = [
        (queries._standings_query(kind, by_chat, by_user), {"chat_id": -5, "user_id": BOB})
        for kind in ("points", "complex")
        for by_chat in (False, True)
        for by_user in (False, True)
    ]
    for users in ([BOB], [BOB, CY], [ADA, BOB, CY]):  # widths 1, 2 and 4
        width = width_of(len(users))
        people = placed("person", users, width)
        asked += [
            (queries._complex_games_query(by_chat, False, width), {"chat_id": -5} | people)
            for by_chat in (False, True)
        ]
    scope = {"pool": "main", "scope": -5, "player": BOB, "game_id": 1, "limit": 10}
    asked += [
        (query, scope | {"user_id": BOB, "chat_id": -5, "min_games": 1})
        for query in vars(queries).values()
        if isinstance(query, Query)
    ]
    for query, parameters in asked:
        parameters = {"min_games": 1, "limit": 20} | parameters
        fast = await store.database.read(query, parameters)
        assert fast, query.statement  # each reads something here
        slow = await store.database.read(query.statement, parameters)
        assert [tuple(row) for row in fast] == [tuple(row) for row in slow]
    sent: list[str] = []

    def count(*args: object) -> None:
        sent.append(str(args[2]))

    event.listen(Engine, "before_cursor_execute", count)
    try:
        standing = await store.standings.standings(-5)
        complex_standing = await store.standings.standings(-5, "complex")
        board = await store.standings.rating_board(-5)
        rating = await store.standings.player_rating(BOB, -5)
        history = await store.standings.player_history(BOB)
        table = await store.standings.game_table(1)
        changes = await store.standings.rating_history(BOB, -5)
    finally:
        event.remove(Engine, "before_cursor_execute", count)
    assert {s.user_id for s in standing} == {ADA, BOB}
    assert {s.user_id for s in complex_standing} == {BOB, CY}
    assert {e.player for e in board[:3]} == {ADA, BOB, CY} and rating is not None
    assert len(history) == 2 and len(table.hands) >= 1 and len(changes) == 2
    assert (sent == []) == (store.database.dialect == "sqlite")


async def test_a_query_is_read_with_its_types_and_refuses_what_it_cannot_compile_once(
    sqlite_store: Storage,
) -> None:
    """A `Query`'s values go in and its columns come out processed as SQLAlchemy would
    (a boolean bound as 1 reads back as True); a statement whose SQL is finished only as it
    runs (an expanding IN list) cannot be compiled once, and says so."""
    from sqlalchemy import Boolean, bindparam, literal, select

    from storage.database import Query
    from storage.schema import users

    flags = Query(select(literal(True, Boolean), bindparam("flag", type_=Boolean)))
    assert [tuple(r) for r in await sqlite_store.database.read(flags, {"flag": False})] == [
        (True, False)
    ]
    among = Query(
        select(users.c.user_id).where(users.c.user_id.in_(bindparam("ids", expanding=True)))
    )
    with pytest.raises(TypeError, match="finished only as it runs"):
        await sqlite_store.database.read(among, {"ids": [1, 2]})
