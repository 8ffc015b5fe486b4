"""The table page is never sent a hand's seed, nor the game's deal key (issue 33, item 3):
at every step of a whole game dealt from a key, no seat's page state holds either; every
one shows the hand's commitment, short, from the deal on (its pass is pressed there)."""

from __future__ import annotations

import json
import random

from test_live_view import step, table_for

from bot.i18n import translator
from bot.live.view import seat_state
from engine import Game, Rules, fair

KEY = bytes(range(100, 132))


def test_no_page_state_holds_the_key_or_a_seed() -> None:
    tr = translator("en")
    rules = Rules(target=40)
    game = Game(rules, deal_key=KEY)
    table = table_for(rules, game)
    rng = random.Random(5)
    seeds = set()
    while game.phase != "over":
        proof = game.deal_proof()
        assert proof is not None
        seed = fair.parse_seed(proof.seed)[2].hex()
        seeds.add(seed)
        for seat in range(rules.players):
            state = seat_state(tr, table, seat, version=1)
            text = json.dumps(state)
            assert KEY.hex() not in text and seed not in text
            assert state["sealed"] == f"🔐 Deal commitment: {proof.commitment[:12]}…"
            # Each finished hand's seed and commitment, to verify (🔐 Verify deal).
            assert [(h["hand"], h["seed"], h["commitment"]) for h in state["history"]["hands"]] == [
                (h, *(game.deal_proof(h) or ())) for h in range(1, game.hand_number)
            ]
            assert proof.seed.split("-")[-1] not in text
        step(game, rng)
    assert len(seeds) >= 2
    assert seat_state(tr, table, 0, version=1)["sealed"] is None  # the game is over
