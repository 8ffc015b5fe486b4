"""A daily deal's table page (issue 34.4) is never sent a seed of the day's hands, not even
of the hands already over: they are published only once the day is closed."""

from __future__ import annotations

import json
import random

from test_live_view import step, table_for

from bot.i18n import translator
from bot.live.view import seat_state
from engine import Game, daily, fair

KEY = daily.day_key(bytes(range(32)), 7)


def test_no_page_state_of_a_daily_table_holds_a_seed() -> None:
    tr = translator("en")
    game = Game(daily.RULES, deal_key=KEY)
    table = table_for(daily.RULES, game)
    table.daily = 7
    seeds = [fair.parse_seed(p.seed)[2].hex() for p in daily.proofs(KEY)]
    rng = random.Random(3)
    seen_history = False
    while True:
        state = seat_state(tr, table, daily.PERSON_SEAT, version=1)
        text = json.dumps(state)
        assert KEY.hex() not in text
        assert not any(seed in text for seed in seeds)
        hands = state["history"]["hands"]
        assert all(h["seed"] is None and h["commitment"] is None for h in hands)
        seen_history = seen_history or bool(hands)
        if game.phase == "over":
            break
        step(game, rng)
    assert seen_history and len(game.hand_history) == daily.HANDS
