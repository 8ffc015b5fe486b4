"""Saving and restoring a game: `to_json` / `from_json`, the generator included."""

from __future__ import annotations

import json

import pytest
from hearts_helpers import HOLD, SUITED_DEAL, pass_all, play_hand, with_scores

from engine import Game, Rules
from engine.rules import Variant


def round_trips(game: Game) -> Game:
    text = game.to_json()
    restored = Game.from_json(text)
    assert restored.to_json() == text
    return restored


def test_round_trip_in_the_pass_with_some_choices_made() -> None:
    game = Game(Rules(players=5), seed=3)
    game.pass_cards(2, [c.code for c in game.hand(2)[:3]])
    restored = round_trips(game)
    assert restored.has_passed(2)
    assert not restored.has_passed(0)


def test_round_trip_mid_trick_and_play_continues_identically() -> None:
    game = Game(Rules(moon="add_to_others", target=60), seed=4)
    pass_all(game)
    for _ in range(6):
        game.play(game.current_player or 0, game.legal_plays()[-1])
    restored = round_trips(game)
    play_hand(game)
    play_hand(restored)
    assert restored.to_json() == game.to_json()


def test_round_trip_in_the_moon_phase() -> None:
    game = Game(Rules(pass_cycle=HOLD), deals=[SUITED_DEAL], first_dealer=3)
    play_hand(game)
    restored = round_trips(game)
    assert restored.moon_shooter == 0
    assert restored.default_moon_choice() == "add_to_others"
    restored.choose_moon(0, "subtract_from_shooter")
    assert restored.scores == [-26, 0, 0, 0]


def test_round_trip_at_game_over() -> None:
    game = with_scores(
        Game(Rules(pass_cycle=HOLD, moon="add_to_others"), deals=[SUITED_DEAL], first_dealer=3),
        [0, 90, 0, 0],
    )
    play_hand(game)
    assert game.phase == "over"
    assert round_trips(game).winners == (0,)


def test_round_trip_complex_scores() -> None:
    game = Game(
        Rules(variant="complex", pass_cycle=HOLD, moon="add_to_others"),
        deals=[SUITED_DEAL],
        first_dealer=3,
    )
    play_hand(game)
    restored = round_trips(game)
    assert restored.scores == [-20j, 13 + 13j, 13 + 13j, 13 + 13j]


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_restored_game_deals_the_same_next_hands(players: int) -> None:
    variant: Variant = "two_player" if players == 2 else "standard"
    rules = Rules(
        players=players, variant=variant, pass_cycle=HOLD, moon="add_to_others", target=10_000
    )
    game = Game(rules, seed=17)
    restored = round_trips(game)
    for _ in range(3):
        play_hand(game)
        play_hand(restored)
        assert restored.to_json() == game.to_json()
        assert restored.dead == game.dead


@pytest.mark.parametrize(
    "text",
    ["", "[]", "{}", '{"format": 99}', json.dumps({"format": 1, "rules": {}})],
)
def test_unreadable_saves_raise_value_error(text: str) -> None:
    with pytest.raises(ValueError):
        Game.from_json(text)


def test_a_save_with_a_lost_card_is_refused() -> None:
    data = json.loads(Game(Rules(), seed=1).to_json())
    data["hands"][0] = data["hands"][0][1:]
    with pytest.raises(ValueError, match="lost or gained"):
        Game.from_json(json.dumps(data))


def test_copy_is_independent() -> None:
    game = Game(Rules(pass_cycle=HOLD), seed=2)
    copy = game.copy()
    copy.play(copy.current_player or 0, copy.legal_plays()[0])
    assert game.trick == []
    assert copy.trick != []


def test_copy_is_the_same_game_at_every_step_and_deals_the_same_next_hands() -> None:
    for rules in (Rules(), Rules(players=3), Rules(variant="complex"), Rules(2, "two_player")):
        game = Game(rules, seed=11)
        for _ in range(400):
            if game.phase == "over":
                break
            twin = game.copy()
            assert twin.to_json() == game.to_json()
            _advance(game)
            _advance(twin)
            assert twin.to_json() == game.to_json()


def _advance(game: Game) -> None:
    """One move by whoever must move (the same choice for equal games)."""
    if game.phase == "pass":
        seat = game.waiting_for()[0]
        game.pass_cards(seat, game.hand(seat)[:3])
    elif game.phase == "moon":
        game.choose_moon(game.waiting_for()[0], "add_to_others")
    else:
        seat = game.current_player
        assert seat is not None
        game.play(seat, game.legal_plays()[0])
