"""The daily deal's figures: a day of stored results, its board and its scoring.

    python -m bench daily [--people 1000] [--runs 30] [--database postgresql]

Fills a new database with one day of the daily deal finished by ``--people`` people (their
games, their four hands' points at the person's seat, their names), then times what
``/daily`` reads: one rescoring of the day (every result read from the hands scored,
matchpoints for all, sorted: p50 and p95 over ``--runs``); the board as the bot reads it
(`storage.daily.Boards`: a group of 30 members' lines, and a person's own line, their
hands read and scored against the board kept in memory) while new results keep arriving
(a new person's hand stored every 100 ms, ten times the pace of 10,000 people spread over
a day) and boards are read every 10 ms; the matchpoint scoring alone;
settling the closed day, and the overall board after it. The issue's bars: the board's
p95 under 50 ms and the scoring of 10,000 results under a second (``--people 10000``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import tempfile
import time
from pathlib import Path

from sqlalchemy import Connection

from engine import daily
from sandbox.postgres_server import PostgresServer
from storage import Storage, open_storage
from storage.daily import Boards, ScoredDay
from storage.schema import daily_games, games, hand_points, users

DAY = 100


def draw_points(rng: random.Random) -> list[int]:
    """Four hands' points as people take them: mostly few, the Q♠ now and then, a moon
    rarely."""
    out = []
    for _ in range(daily.HANDS):
        roll = rng.random()
        if roll < 0.02:
            out.append(0 if rng.random() < 0.5 else 26)
        else:
            out.append(rng.choice((0, 0, 1, 2, 3, 4, 5)) + (13 if roll < 0.25 else 0))
    return out


def _fill(connection: Connection, people: int, seed: int) -> None:
    rng = random.Random(seed)
    rules = json.dumps(daily.RULES.to_dict())
    now = int(time.time() * 1000)
    first = 1_000_000
    connection.execute(
        games.insert(),
        [
            {
                "id": first + p,
                "chat_id": first + p,
                "creator_id": first + p,
                "status": "active",  # finished games unrated would be rated on opening
                "rules": rules,
                "created_at": now,
            }
            for p in range(people)
        ],
    )
    connection.execute(
        users.insert(),
        [
            {"user_id": first + p, "display_name": f"Player {p}", "updated_at": now}
            for p in range(people)
        ],
    )
    rows = []
    for p in range(people):
        total = 0
        for hand, points in enumerate(draw_points(rng), start=1):
            total += points
            rows.append(
                {
                    "game_id": first + p,
                    "hand_number": hand,
                    "seat": daily.PERSON_SEAT,
                    "points_re": points,
                    "points_im": 0,
                    "total_re": total,
                    "total_im": 0,
                    "shot_moon": int(points == 0 and rng.random() < 0.01),
                }
            )
    connection.execute(hand_points.insert(), rows)
    connection.execute(
        daily_games.insert(),
        [
            {"day": DAY, "user_id": first + p, "game_id": first + p, "started_at": now}
            for p in range(people)
        ],
    )


def _ms(samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"p50 {statistics.median(ordered) * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms"


async def bench(where: str, people: int, runs: int) -> None:
    store = await open_storage(where)
    try:
        started = time.perf_counter()
        await store.database.transact(_fill, people, 1)
        print(f"  {people:,} results of day {DAY} stored in {time.perf_counter() - started:.1f} s")
        await _measure(store, people, runs)
    finally:
        await store.close()


async def _measure(store: Storage, people: int, runs: int) -> None:
    board: list[float] = []
    scoring: list[float] = []
    for _ in range(runs):
        t0 = time.perf_counter()
        results = await store.daily.results(DAY)
        t1 = time.perf_counter()
        ScoredDay.of(results)
        t2 = time.perf_counter()
        board.append(t2 - t0)
        scoring.append(t2 - t1)
    assert len(results) == people
    print(f"  one rescoring of the day (read, score, sort), {runs} runs: {_ms(board)}")
    print(f"  matchpoints of {people:,} results alone: {_ms(scoring)}")
    await _live(store, people, runs)
    t0 = time.perf_counter()
    await store.daily.settle(DAY)
    print(f"  the closed day settled (points and scores stored): {time.perf_counter() - t0:.2f} s")
    overall: list[float] = []
    for _ in range(runs):
        t0 = time.perf_counter()
        await store.daily.overall(1)
        overall.append(time.perf_counter() - t0)
    print(f"  the overall board, {runs} runs: {_ms(overall)}")
    settled: list[float] = []
    for _ in range(runs):
        t0 = time.perf_counter()
        await store.daily.results(DAY)
        settled.append(time.perf_counter() - t0)
    print(f"  a closed day's results read back, {runs} runs: {_ms(settled)}")


async def _live(store: Storage, people: int, runs: int) -> None:
    """Boards read every 10 ms (a group's, and a person's own line, in turn) while a new
    person's hand is stored every 100 ms; ``runs`` × 10 reads."""
    boards = Boards(store.daily)
    await boards.day(DAY)
    stop = asyncio.Event()
    arrived = 0

    async def arrive() -> None:
        nonlocal arrived
        rng = random.Random(2)
        first = 1_000_000 + people
        while not stop.is_set():
            await asyncio.sleep(0.1)
            await store.database.transact(_one_more, first + arrived, rng.randrange(27))
            boards.changed(DAY, first + arrived)
            arrived += 1

    writer = asyncio.create_task(arrive())
    group: list[float] = []
    own: list[float] = []
    try:
        for n in range(runs * 10):
            await asyncio.sleep(0.01)
            t0 = time.perf_counter()
            if n % 2:  # a group of 30 members: their lines, ranked
                members = [1_000_000 + (n * 31 + m * 337) % people for m in range(30)]
                lines = await boards.lines(DAY, members)
                sorted(lines.items(), key=lambda item: -item[1].score)[:10]
                group.append(time.perf_counter() - t0)
            else:
                await boards.mine(DAY, 1_000_000 + n % people)
                own.append(time.perf_counter() - t0)
    finally:
        stop.set()
        await writer
    print(
        f"  while {arrived} new results arrived, a group's board, {len(group)} reads: "
        f"{_ms(group)}; a person's own line, {len(own)} reads: {_ms(own)}"
    )


def _one_more(connection: Connection, who: int, points: int) -> None:
    """A new person's first hand of the day, stored as a daily hand is."""
    now = int(time.time() * 1000)
    rules = json.dumps(daily.RULES.to_dict())
    connection.execute(
        games.insert().values(
            id=who, chat_id=who, creator_id=who, status="active", rules=rules, created_at=now
        )
    )
    connection.execute(
        hand_points.insert().values(
            game_id=who,
            hand_number=1,
            seat=daily.PERSON_SEAT,
            points_re=points,
            points_im=0,
            total_re=points,
            total_im=0,
            shot_moon=0,
        )
    )
    connection.execute(
        daily_games.insert().values(day=DAY, user_id=who, game_id=who, started_at=now)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--people", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument(
        "--database",
        default="sqlite",
        help="sqlite (the default), or postgresql (a server started here) or a URL",
    )
    args = parser.parse_args()
    if args.database == "sqlite":
        with tempfile.TemporaryDirectory() as folder:
            print("SQLite")
            asyncio.run(bench(str(Path(folder) / "daily.db"), args.people, args.runs))
        return
    if args.database == "postgresql":
        server = PostgresServer()
        try:
            print("PostgreSQL")
            asyncio.run(_on_server(server, args.people, args.runs))
        finally:
            server.stop()
        return
    print("PostgreSQL")
    asyncio.run(bench(args.database, args.people, args.runs))


async def _on_server(server: PostgresServer, people: int, runs: int) -> None:
    await bench(await server.database(), people, runs)


if __name__ == "__main__":
    main()
