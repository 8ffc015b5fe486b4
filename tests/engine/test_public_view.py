"""`Game.public_view`: what anyone watching the table may know, equal to what every seat's
own view says of the table, through whole random games of every variant."""

from __future__ import annotations

import random
from dataclasses import fields

import pytest

from engine import Game, PublicView, Rules


@pytest.mark.parametrize(
    "rules",
    [
        Rules(),
        Rules(players=3),
        Rules(players=5),
        Rules(variant="complex"),
        Rules(players=2, variant="two_player"),
    ],
    ids=["four", "three", "five", "complex", "two_player"],
)
def test_the_public_view_is_what_every_seat_sees_of_the_table(rules: Rules) -> None:
    game = Game(rules, seed=11)
    rng = random.Random(11)
    shared = [f.name for f in fields(PublicView)]
    while game.phase != "over":
        public = game.public_view()
        for seat in range(rules.players):
            view = game.view(seat)
            for name in shared:
                assert getattr(public, name) == getattr(view, name), name
            assert public.voids() == view.voids()
            assert public.cards_played_by_suit() == view.cards_played_by_suit()
        if game.phase == "pass":
            seat = rng.choice(game.waiting_for())
            game.pass_cards(seat, rng.sample(game.hand(seat), 3))
        elif game.phase == "play":
            assert game.current_player is not None
            game.play(game.current_player, rng.choice(game.legal_plays()))
        else:
            assert game.moon_shooter is not None
            game.choose_moon(game.moon_shooter, "add_to_others")
    assert game.public_view().winners == game.winners
