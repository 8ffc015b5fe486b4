"""Run by test_storage_kill: writes moves and prints each acknowledged seq, until killed."""

from __future__ import annotations

import asyncio
import random
import sys

from storage_testkit import random_move, seats_for

from engine import Game, Rules
from storage import open_storage


async def main(path: str) -> None:
    store = await open_storage(path)  # a file (SQLite) or a postgresql:// URL
    rules = Rules(players=4, target=10_000)  # never ends while we write
    game_id = await store.games.create_lobby(-1, None, 1, rules, seats_for(4))
    game = Game(rules, seed=1)
    await store.games.start_game(game_id, seats_for(4), game)
    print(f"game {game_id}", flush=True)
    rng = random.Random(1)
    while True:
        move = random_move(game, rng)
        move.apply(game)
        seq = await store.games.record_move(game_id, move, game, meta={"seq": "x" * 500})
        print(f"ack {seq}", flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
