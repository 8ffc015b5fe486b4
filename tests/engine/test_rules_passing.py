"""RULES.md §3: passing three cards face down, hand by hand."""

from __future__ import annotations

import pytest
from hearts_helpers import HOLD, SUITED_DEAL, codes, pass_all, play_hand, rejects

from engine import Card, CardsPassed, CardsReceived, Game, Rules, pass_target


def directions(rules: Rules, count: int) -> list[str]:
    """The pass direction of the first ``count`` hands, played out."""
    game = Game(rules, seed=6)
    seen: list[str] = []
    for _ in range(count):
        seen.append(game.pass_direction)
        if game.phase == "pass":
            pass_all(game)
        play_hand(game)
    return seen


def test_four_players_pass_left_right_across_hold_then_repeat() -> None:
    rules = Rules(moon="add_to_others", target=10_000)
    assert directions(rules, 9) == [
        *("left", "right", "across", "hold"),
        *("left", "right", "across", "hold"),
        "left",
    ]


@pytest.mark.parametrize("players", [3, 5, 6])
def test_ruling_three_five_six_players_pass_left_right_hold(players: int) -> None:
    rules = Rules(players=players, moon="add_to_others", target=10_000)
    assert directions(rules, 7) == ["left", "right", "hold"] * 2 + ["left"]


def test_ruling_six_players_may_choose_across_with_pass_cycle() -> None:
    rules = Rules(players=6, pass_cycle=("left", "right", "across", "hold"))
    assert rules.cycle == ("left", "right", "across", "hold")
    assert [pass_target(s, "across", 6) for s in range(6)] == [3, 4, 5, 0, 1, 2]
    game = Game(Rules(players=6, pass_cycle=("across",)), seed=1)
    assert game.pass_direction == "across"
    chosen = [codes(game.hand(s))[:3] for s in range(6)]
    pass_all(game, chosen)
    for seat in range(6):
        assert set(chosen[seat]) <= set(codes(game.hand((seat + 3) % 6)))


def test_two_players_never_pass() -> None:
    game = Game(Rules(players=2, variant="two_player", target=10_000), seed=3)
    for _ in range(3):
        assert game.pass_direction == "hold"
        assert game.phase == "play"
        play_hand(game)


def test_option_pass_cycle_hold_means_no_passing() -> None:
    rules = Rules(pass_cycle=("hold",), moon="add_to_others", target=10_000)
    assert directions(rules, 3) == ["hold"] * 3
    assert Game(rules).phase == "play"


def test_option_pass_cycle_left_always_passes_left() -> None:
    rules = Rules(pass_cycle=("left",), moon="add_to_others", target=10_000)
    assert directions(rules, 5) == ["left"] * 5


@pytest.mark.parametrize(
    ("direction", "targets"),
    [("left", [1, 2, 3, 0]), ("right", [3, 0, 1, 2]), ("across", [2, 3, 0, 1])],
)
def test_left_is_the_next_seat_right_the_previous_across_half_way(
    direction: str, targets: list[int]
) -> None:
    rules = Rules(pass_cycle=(direction,))  # type: ignore[arg-type]
    game = Game(rules, deals=[SUITED_DEAL], first_dealer=0)
    chosen = [SUITED_DEAL[s][-3:] for s in range(4)]
    events = pass_all(game, chosen)
    for seat in range(4):
        to = targets[seat]
        assert set(chosen[seat]) <= set(codes(game.hand(to)))
        assert game.pass_target(seat) == to
        assert game.pass_source(to) == seat
        assert CardsReceived(to, seat, tuple(Card.parse(c) for c in chosen[seat])) in events


def test_every_player_chooses_before_anyone_receives() -> None:
    game = Game(Rules(), deals=[SUITED_DEAL], first_dealer=0)
    before = [codes(game.hand(s)) for s in range(4)]
    for seat in (2, 0, 3):
        events = game.pass_cards(seat, SUITED_DEAL[seat][:3])
        assert events == [CardsPassed(seat)]
    assert [codes(game.hand(s)) for s in range(4)] == before
    assert game.phase == "pass"
    assert game.waiting_for() == [1]
    assert not any(isinstance(e, CardsReceived) for e in events)
    # A player who has chosen sees their own choice and nothing of the others'.
    view = game.view(0)
    assert view.passed == tuple(Card.parse(c) for c in SUITED_DEAL[0][:3])
    assert view.received is None
    assert game.view(1).passed is None
    events = game.pass_cards(1, SUITED_DEAL[1][:3])
    assert events[0] == CardsPassed(1)
    assert sum(isinstance(e, CardsReceived) for e in events) == 4
    assert game.phase == "play"  # type: ignore[comparison-overlap]


def test_the_order_of_choosing_does_not_matter() -> None:
    results = []
    for order in ([0, 1, 2, 3], [3, 1, 0, 2]):
        game = Game(Rules(), seed=21, first_dealer=0)
        chosen = {s: codes(game.hand(s))[-3:] for s in range(4)}
        for seat in order:
            game.pass_cards(seat, chosen[seat])
        results.append(game.to_json())
    assert results[0] == results[1]


def test_holder_of_2c_after_the_pass_leads() -> None:
    game = Game(Rules(), deals=[SUITED_DEAL], first_dealer=0)
    pass_all(game, [["2C", "3C", "4C"], ["2D", "3D", "4D"], ["2S", "3S", "4S"], ["2H", "3H", "4H"]])
    assert game.current_player == 1
    assert game.legal_plays() == [Card.parse("2C")]


def test_pass_must_be_three_different_cards_of_your_own() -> None:
    game = Game(Rules(), deals=[SUITED_DEAL], first_dealer=0)
    rejects(game, lambda: game.pass_cards(0, ["2C", "3C"]), "pass_three")
    rejects(game, lambda: game.pass_cards(0, ["2C", "3C", "4C", "5C"]), "pass_three")
    rejects(game, lambda: game.pass_cards(0, ["2C", "2C", "3C"]), "pass_three")
    error = rejects(game, lambda: game.pass_cards(0, ["2C", "3C", "2D"]), "not_in_hand")
    assert error.message == "You don't have 2♦."
    rejects(game, lambda: game.pass_cards(0, ["2C", "3C", "ZZ"]), "not_a_card")
    rejects(game, lambda: game.pass_cards(4, ["2C", "3C", "4C"]), "no_such_seat")
    game.pass_cards(0, ["2C", "3C", "4C"])
    rejects(game, lambda: game.pass_cards(0, ["5C", "6C", "7C"]), "already_passed")


def test_no_passing_once_play_has_begun() -> None:
    game = Game(Rules(pass_cycle=HOLD), deals=[SUITED_DEAL], first_dealer=0)
    error = rejects(game, lambda: game.pass_cards(0, ["2C", "3C", "4C"]), "wrong_phase")
    assert "pass cards" in error.message


def test_no_playing_during_the_pass() -> None:
    game = Game(Rules(), deals=[SUITED_DEAL], first_dealer=0)
    rejects(game, lambda: game.play(0, "2C"), "wrong_phase")
    assert game.legal_plays() == []
    assert game.current_player is None
