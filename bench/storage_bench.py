"""Storage figures: durable moves per second, commit latency, standings and ratings over
100,000 hands.

``python -m bench storage [--moves N] [--hands N] [--database postgresql]``. Bars (issue 4):
at least 1,000 durable moves per second, p99 commit under 10 ms, a standings query under
50 ms. With ``--database postgresql`` the same figures follow for PostgreSQL, in the same
run: a server started here (Debian's package), or the one a ``postgresql://`` URL names;
its 100,000 hands are the SQLite ones, moved with copy-db.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from domain.games import StoredSeat
from engine import Game, Move, Rules
from engine.rules import MOON_CHOICES
from sandbox.postgres_server import PostgresServer
from storage import Storage, is_postgres, open_storage
from storage.copy import copy_database


def _random_move(game: Game, rng: random.Random) -> Move:
    if game.phase == "pass":
        seat = rng.choice(game.waiting_for())
        return Move.pass_cards(seat, rng.sample(game.hand(seat), 3))
    if game.phase == "play":
        assert game.current_player is not None
        return Move.play(game.current_player, rng.choice(game.legal_plays()))
    assert game.moon_shooter is not None
    return Move.moon(game.moon_shooter, rng.choice(MOON_CHOICES))


def _seats(players: int, first: int) -> list[StoredSeat]:
    """People of their own at each table (nobody sits at two live tables)."""
    return [StoredSeat.human(i, first + i, f"Player {i}") for i in range(players)]


async def _start(store: Storage, chat_id: int, seed: int) -> tuple[int, Game]:
    rules = Rules(players=4, target=100_000)  # never over while we measure
    seats = _seats(4, 1000 + 10 * seed)
    game_id = await store.games.create_lobby(chat_id, None, 1, rules, seats, {"message": 1})
    game = Game(rules, seed=seed)
    await store.games.start_game(game_id, seats, game)
    return game_id, game


async def bench_moves(where: str, moves: int, tables: int, synchronous: str) -> None:
    store = await open_storage(where, synchronous=synchronous)
    print("PostgreSQL" if is_postgres(where) else f"SQLite, synchronous={synchronous}")
    try:
        # Latency: one game, one move at a time, only record_move timed.
        game_id, game = await _start(store, -1, 1)
        rng = random.Random(1)
        latencies = []
        for _ in range(moves):
            move = _random_move(game, rng)
            move.apply(game)
            start = time.perf_counter()
            await store.games.record_move(game_id, move, game)
            latencies.append(time.perf_counter() - start)
        total = sum(latencies)
        q = statistics.quantiles(latencies, n=100)
        print(f"durable moves, one table:   {moves / total:8.0f} moves/s (commit time only)")
        print(
            f"commit latency:             p50 {q[49] * 1e3:.2f} ms   p99 {q[98] * 1e3:.2f} ms"
            f"   max {max(latencies) * 1e3:.2f} ms"
        )

        # Throughput: many tables at once, wall clock, engine work included.
        games = [await _start(store, -10 - i, 10 + i) for i in range(tables)]
        per_table = moves // tables

        async def play(game_id: int, game: Game, seed: int) -> None:
            rng = random.Random(seed)
            for _ in range(per_table):
                move = _random_move(game, rng)
                move.apply(game)
                await store.games.record_move(game_id, move, game)

        start = time.perf_counter()
        await asyncio.gather(*(play(g, game, i) for i, (g, game) in enumerate(games)))
        wall = time.perf_counter() - start
        print(
            f"durable moves, {tables} tables:  {per_table * tables / wall:8.0f} moves/s"
            " (wall clock, engine included)"
        )
    finally:
        await store.close()


def _fill_results(path: Path, hands: int, players: int = 4) -> tuple[int, int]:
    """Synthetic finished games straight into the tables: ~20 hands each, 200 users."""
    rng = random.Random(7)
    hands_per_game = 20
    n_games = hands // hands_per_game
    users = list(range(1, 201))
    chats = list(range(-1, -51, -1))
    db = sqlite3.connect(path)
    now = int(time.time() * 1000)
    rules = json.dumps(Rules(players=players).to_dict())
    with db:
        for g in range(1, n_games + 1):
            chat = rng.choice(chats)
            complex_game = g % 10 == 0
            seated: list[int | None] = [*rng.sample(users, players - 1), None]  # a computer
            finished = now - (n_games - g) * 60_000
            db.execute(
                "INSERT INTO games (id, chat_id, creator_id, status, rules, seed, first_dealer,"
                " snapshot, last_seq, hands_recorded, winners, created_at, started_at,"
                " finished_at) VALUES (?, ?, ?, 'finished', ?, ?, 0, '{}', 0, ?, '[0]', ?, ?, ?)",
                (g, chat, seated[0], rules, g, hands_per_game, finished, finished, finished),
            )
            db.executemany(
                "INSERT INTO game_seats VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (
                        g,
                        s,
                        "computer" if u is None else "human",
                        u,
                        f"P{u}",
                        "standard" if u is None else None,
                    )
                    for s, u in enumerate(seated)
                ],
            )
            totals = [[0, 0] for _ in range(players)]
            moons = [0] * players
            rows = []
            for h in range(1, hands_per_game + 1):
                shooter = rng.randrange(players) if rng.random() < 0.03 else None
                for s in range(players):
                    re = rng.randrange(0, 14)
                    im = rng.randrange(0, 14) if complex_game else 0
                    totals[s][0] += re
                    totals[s][1] += im
                    moons[s] += shooter == s
                    rows.append((g, h, s, re, im, totals[s][0], totals[s][1], int(shooter == s)))
            db.executemany("INSERT INTO hand_points VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
            keys = [re * re + im * im if complex_game else re for re, im in totals]
            low = min(keys)
            db.executemany(
                "INSERT INTO game_results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        g,
                        s,
                        chat,
                        seated[s],
                        "complex" if complex_game else "points",
                        players,
                        totals[s][0],
                        totals[s][1],
                        keys[s],
                        1 + sum(k < keys[s] for k in keys),
                        int(keys[s] == low),
                        hands_per_game,
                        moons[s],
                        finished,
                    )
                    for s in range(players)
                ],
            )
    db.execute("ANALYZE")
    db.close()
    return n_games, n_games * hands_per_game


async def bench_standings(path: Path, hands: int, url: str | None = None) -> None:
    """The standings over `hands` stored hands in SQLite at `path`, or (with `url`) the
    same rows copied into PostgreSQL."""
    if url is None:
        store = await Storage.open(path)
        await store.close()
        n_games, n_hands = _fill_results(path, hands)
        store = await Storage.open(path)
        start = time.perf_counter()
        await store.standings.rate_backlog()  # as the bot does at start-up
        print(f"rating {n_games} stored games at start-up: {time.perf_counter() - start:.2f} s")
    else:
        n_hands = hands // 20 * 20
        n_games = n_hands // 20
        start = time.perf_counter()
        await copy_database(path, url, prove=False)
        print(f"copy-db of those games into PostgreSQL: {time.perf_counter() - start:.2f} s")
        store = await open_storage(url)
    try:
        start = time.perf_counter()
        report = await store.standings.rebuild_ratings()
        rebuilt = time.perf_counter() - start
        print(
            f"ratings --rebuild: {report.games} games, {report.values} values in {rebuilt:.2f} s"
            f" ({report.differing} differing)"
        )
        queries: dict[str, Callable[[], Awaitable[object]]] = {
            "standings, all chats": lambda: store.standings.standings(None, "points"),
            "standings, one chat": lambda: store.standings.standings(-7, "points"),
            "standings, complex, all": lambda: store.standings.standings(None, "complex"),
            "one player, all chats": lambda: store.standings.player_standing(17),
            "player history (10)": lambda: store.standings.player_history(17),
            "table of a 20-hand game": lambda: store.standings.game_table(n_games // 2),
            "rating board, all chats": lambda: store.standings.rating_board(None),
            "rating board, one chat": lambda: store.standings.rating_board(-7),
            "one player's rating": lambda: store.standings.player_rating(17, -7),
            "rating history (200)": lambda: store.standings.rating_history(17),
        }
        print(f"stored: {n_games} finished games, {n_hands} hands, 200 players, 50 chats")
        for name, query in queries.items():
            await query()  # warm the cache, as a running bot would be
            times = []
            for _ in range(20):
                start = time.perf_counter()
                await query()
                times.append(time.perf_counter() - start)
            print(
                f"{name + ':':28s} median {statistics.median(times) * 1e3:6.2f} ms"
                f"   max {max(times) * 1e3:6.2f} ms"
            )
    finally:
        await store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--moves", type=int, default=3000)
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--hands", type=int, default=100_000)
    parser.add_argument("--synchronous", choices=("NORMAL", "FULL"), default="NORMAL")
    parser.add_argument(
        "--database",
        default="sqlite",
        help="sqlite (the default), or postgresql (a server started here) or a postgresql:// "
        "URL of an empty database: its figures after SQLite's",
    )
    args = parser.parse_args()
    server = None
    if args.database == "postgresql":
        server = PostgresServer()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            moves_db = str(Path(tmp) / "moves.db")
            asyncio.run(bench_moves(moves_db, args.moves, args.tables, args.synchronous))
            if args.database != "sqlite":
                url = asyncio.run(server.database()) if server else args.database
                asyncio.run(bench_moves(url, args.moves, args.tables, args.synchronous))
        with tempfile.TemporaryDirectory() as tmp:
            print("SQLite")
            asyncio.run(bench_standings(Path(tmp) / "standings.db", args.hands))
            if args.database != "sqlite":
                print("PostgreSQL")
                url = asyncio.run(server.database()) if server else args.database
                asyncio.run(bench_standings(Path(tmp) / "standings.db", args.hands, url))
    finally:
        if server is not None:
            server.stop()


if __name__ == "__main__":
    main()
