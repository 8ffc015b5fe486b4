"""Verifiable deals in storage (issue 33, item 3): the game's key is kept, so a game
resumes and replays with the same hands' seeds; the games before it replay as before."""

from __future__ import annotations

import secrets
import sqlite3
from pathlib import Path

import pytest
from storage_testkit import VARIANTS, play_stored

from engine import fair
from storage import Storage


@pytest.mark.parametrize("variant", ["four", "two_player"])
async def test_a_keyed_game_replays_and_each_revealed_seed_gives_its_hands(
    store: Storage, variant: str
) -> None:
    key = secrets.token_bytes(32)
    rules = VARIANTS[variant]
    game_id, game = await play_stored(store, rules, seed=3, deal_key=key, hands=2)
    stored = await store.games.load_game(game_id, verify=True)
    assert stored.status == "active" and stored.game is not None
    assert stored.game.to_json() == game.to_json()
    assert (await store.games.replay(game_id)).to_json() == game.to_json()
    # Each hand's deal, replayed from the journal, is the deal its seed gives.
    dealt, journal = await store.games.game_and_moves(game_id)
    seen = {1: (list(dealt.hands), dealt.dead, dealt.deal_proof())}
    for move, _ in journal:
        move.apply(dealt)
        if dealt.hand_number not in seen and dealt.phase != "over":
            seen[dealt.hand_number] = (list(dealt.hands), dealt.dead, dealt.deal_proof())
    assert len(seen) == 3
    for hands, dead, proof in seen.values():
        assert proof is not None
        verdict = fair.verify(proof.seed, proof.commitment)
        assert verdict.matches
        assert (verdict.hands, verdict.dead) == (hands, dead)


async def test_a_restart_keeps_the_key_and_the_seeds(db_path: Path) -> None:
    key = secrets.token_bytes(32)
    store = await Storage.open(db_path)
    try:
        game_id, game = await play_stored(
            store, VARIANTS["four"], seed=4, deal_key=key, max_moves=30
        )
    finally:
        await store.close()
    with sqlite3.connect(db_path) as db:
        row = db.execute("SELECT deal_key FROM games WHERE id = ?", (game_id,)).fetchone()
    assert row == (key.hex(),)
    store = await Storage.open(db_path)
    try:
        [resumed] = [g for g in await store.games.active_games() if g.id == game_id]
        assert resumed.game is not None and resumed.game.deal_key == key
        assert resumed.game.deal_proof() == game.deal_proof() is not None
    finally:
        await store.close()


async def test_a_game_from_before_keeps_its_seed_and_has_no_key(store: Storage) -> None:
    game_id, game = await play_stored(store, VARIANTS["four"], seed=5, max_moves=20)
    stored = await store.games.load_game(game_id, verify=True)
    assert stored.game is not None and stored.game.deal_key is None
    assert stored.game.deal_proof() is None
    assert (await store.games.replay(game_id)).to_json() == game.to_json()
