"""`Game.take`: a game decided on a copy moved into the one a table holds (issue 52)."""

from __future__ import annotations

import random

from hearts_helpers import random_move

from engine import Game, Rules


def test_a_game_takes_a_copys_moves_and_keeps_its_identity() -> None:
    rng = random.Random(5)
    held = Game(Rules(players=4, target=40), seed=5)
    while held.phase != "over":
        before = held.to_json()
        after = held.copy()
        random_move(after, rng)
        assert held.to_json() == before  # the move was made on the copy alone
        expected = after.to_json()
        same = held
        held.take(after)
        assert held is same and held.to_json() == expected
    assert held.winners
