"""Moves as data (`Move`): what the journal stores and replays."""

from __future__ import annotations

import pytest
from hearts_helpers import HOLD, SUITED_DEAL, rejects

from engine import Card, Game, Move, Rules


def test_moves_round_trip_through_dicts() -> None:
    for move in (
        Move.pass_cards(1, ["2C", "3C", "QS"]),
        Move.play(2, "10H"),
        Move.moon(0, "add_to_others"),
    ):
        assert Move.from_dict(move.to_dict()) == move
    assert Move.play(2, "10H").cards == (Card.parse("TH"),)


@pytest.mark.parametrize(
    "data",
    [
        {"kind": "play", "seat": "1", "cards": ["2C"]},
        {"kind": "play", "seat": 1, "cards": []},
        {"kind": "pass", "seat": 1, "cards": ["2C"]},
        {"kind": "moon", "seat": 1, "choice": "both"},
        {"kind": "bid", "seat": 1},
    ],
)
def test_malformed_moves_raise_value_error(data: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        Move.from_dict(data)


def test_applying_a_move_plays_it_or_refuses_it_unchanged() -> None:
    game = Game(Rules(pass_cycle=HOLD), deals=[SUITED_DEAL], first_dealer=3)
    rejects(game, lambda: Move.play(0, "3C").apply(game), "must_lead_lowest_club")
    assert Move.play(0, "2C").apply(game)[0].kind == "card_played"
