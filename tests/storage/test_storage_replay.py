"""The journal replays to the snapshot exactly; bad games are quarantined, alone."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest
from storage_testkit import VARIANTS, drop_trigger, play_stored, random_move, seats_for, tamper

from engine import Game
from storage import Storage


@pytest.mark.parametrize("variant", sorted(VARIANTS))
async def test_journal_replays_to_the_snapshot(store: Storage, variant: str) -> None:
    rules = VARIANTS[variant]
    for seed in (1, 2):
        # One game played to the end, one stopped somewhere in the middle.
        stop = None if seed == 1 else random.Random(seed).randrange(1, 200)
        game_id, game = await play_stored(store, rules, seed=seed, max_moves=stop)
        stored = await store.games.load_game(game_id, verify=True)
        assert stored.status == ("finished" if stop is None else "active")
        assert stored.game is not None
        replayed = await store.games.replay(game_id)
        assert replayed.to_json() == stored.game.to_json() == game.to_json()


async def test_resume_after_restart_loads_every_open_game(db_path: Path) -> None:
    store = await Storage.open(db_path)
    games = {}
    for i, variant in enumerate(sorted(VARIANTS)):
        game_id, game = await play_stored(store, VARIANTS[variant], seed=i, max_moves=40 + i)
        games[game_id] = game
    lobby = await store.games.create_lobby(-5, 3, 1, VARIANTS["four"], seats_for(4))
    await store.close()

    store = await Storage.open(db_path)
    try:
        resumed = {g.id: g for g in await store.games.active_games()}
        assert set(resumed) == {*games, lobby}
        for game_id, game in games.items():
            loaded = resumed[game_id].game
            assert loaded is not None and loaded.to_json() == game.to_json()
        assert resumed[lobby].status == "lobby" and resumed[lobby].thread_id == 3
    finally:
        await store.close()


async def test_bad_games_are_quarantined_and_the_others_load(
    store: Storage, caplog: pytest.LogCaptureFixture
) -> None:
    good, good_game = await play_stored(store, VARIANTS["four"], seed=1, max_moves=30)
    corrupt, _ = await play_stored(store, VARIANTS["five"], seed=2, max_moves=30)
    diverged, _ = await play_stored(store, VARIANTS["three"], seed=3, max_moves=30)
    broken, _ = await play_stored(store, VARIANTS["six"], seed=4, max_moves=30)
    # A snapshot from another deal: it loads, but the journal does not lead there. And a
    # journal whose move cannot be played (the triggers guard the journal, so damage it
    # the way a bad disk or a bad hand edit would: around them).
    other = Game(VARIANTS["three"], seed=99)
    await tamper(
        store,
        ('UPDATE games SET snapshot = \'{"format": 1, "rul\' WHERE id = :id', {"id": corrupt}),
        (
            "UPDATE games SET snapshot = :snapshot WHERE id = :id",
            {"snapshot": other.to_json(), "id": diverged},
        ),
        (drop_trigger(store, "moves_are_never_changed"), {}),
        (
            'UPDATE moves SET move = \'{"kind":"play","seat"\\:0,"cards":["AS"]}\''
            " WHERE game_id = :id AND seq = 25",
            {"id": broken},
        ),
    )
    resumed = {g.id: g for g in await store.games.active_games()}
    assert resumed[good].status == "active"
    good_loaded = resumed[good].game
    assert good_loaded is not None and good_loaded.to_json() == good_game.to_json()
    for game_id, why in (
        (corrupt, "snapshot does not load"),
        (diverged, "replays to a different game"),
        (broken, "move 25 does not replay"),
    ):
        assert resumed[game_id].status == "quarantined", game_id
        assert resumed[game_id].game is None
        reason = resumed[game_id].quarantine_reason
        assert reason is not None and why in reason, reason
        assert why in caplog.text
    # Quarantined games stay out of play, with the reason kept for inspection.
    assert {g.id for g in await store.games.active_games()} == {good}
    assert (await store.games.load_game(corrupt)).quarantine_reason == resumed[
        corrupt
    ].quarantine_reason
    assert await store.games.game_in_chat(-100, None) is not None


async def test_concurrent_moves_never_interleave(store: Storage) -> None:
    async def play(seed: int) -> tuple[int, Game]:
        rules = VARIANTS[sorted(VARIANTS)[seed % len(VARIANTS)]]
        game_id = await store.games.create_lobby(seed, None, 1, rules, seats_for(rules.players))
        game = Game(rules, seed=seed)
        await store.games.start_game(game_id, seats_for(rules.players), game)
        rng = random.Random(seed)
        for expected in range(1, 81):
            move = random_move(game, rng)
            move.apply(game)
            assert await store.games.record_move(game_id, move, game) == expected
        return game_id, game

    played = await asyncio.gather(*(play(seed) for seed in range(12)))
    for game_id, game in played:
        stored = await store.games.load_game(game_id, verify=True)
        assert stored.status == "active" and stored.last_seq == 80
        assert stored.game is not None and stored.game.to_json() == game.to_json()


async def test_many_coroutines_on_one_game_get_distinct_seqs(store: Storage) -> None:
    rules = VARIANTS["four"]
    game_id = await store.games.create_lobby(1, None, 1, rules, seats_for(4))
    game = Game(rules, seed=8)
    await store.games.start_game(game_id, seats_for(4), game)
    rng = random.Random(8)
    tasks = []
    for _ in range(60):
        move = random_move(game, rng)
        move.apply(game)
        # Fired without waiting: the lock queues them in order, one transaction each.
        tasks.append(asyncio.create_task(store.games.record_move(game_id, move, game)))
    assert await asyncio.gather(*tasks) == list(range(1, 61))
    assert (await store.games.replay(game_id)).to_json() == game.to_json()
