"""The table's rule set: every option of RULES.md and its impossible combinations."""

from __future__ import annotations

from typing import Any

import pytest

from engine import Rules


def test_defaults_are_the_documented_ones() -> None:
    rules = Rules()
    assert rules == Rules(
        players=4,
        variant="standard",
        bonus_card=None,
        moon="choose",
        queen_breaks_hearts=True,
        no_points_on_first_trick=True,
        pass_cycle=None,
        target=100,
        ties="play_on",
    )


@pytest.mark.parametrize("players", [0, 1, 7, True, "4", 4.0])
def test_player_count_is_two_to_six(players: Any) -> None:
    with pytest.raises(ValueError, match="2 to 6"):
        Rules(players=players)


def test_two_players_need_the_two_player_variant_and_back() -> None:
    with pytest.raises(ValueError, match="two_player"):
        Rules(players=2)
    with pytest.raises(ValueError, match="2 players"):
        Rules(players=4, variant="two_player")
    assert Rules(players=2, variant="two_player").hand_size == 13


@pytest.mark.parametrize("players", [3, 5, 6])
def test_complex_is_for_four_players(players: int) -> None:
    with pytest.raises(ValueError, match="4 players"):
        Rules(players=players, variant="complex")


def test_unknown_variant_is_rejected() -> None:
    with pytest.raises(ValueError, match="variant"):
        Rules(variant="omnibus")  # type: ignore[arg-type]


@pytest.mark.parametrize("card", ["JD", "TD"])
def test_option_bonus_card_jd_or_td_for_standard(card: str) -> None:
    for players in (3, 4, 5, 6):
        assert Rules(players=players, bonus_card=card).bonus_card == card


def test_option_bonus_card_other_cards_rejected() -> None:
    with pytest.raises(ValueError, match="JD or TD"):
        Rules(bonus_card="QS")


def test_option_bonus_card_with_complex_is_an_error() -> None:
    with pytest.raises(ValueError, match="standard Hearts only"):
        Rules(variant="complex", bonus_card="JD")


def test_option_bonus_card_with_two_player_is_an_error() -> None:
    with pytest.raises(ValueError, match="standard Hearts only"):
        Rules(players=2, variant="two_player", bonus_card="TD")


@pytest.mark.parametrize("moon", ["choose", "add_to_others", "subtract_from_shooter"])
def test_option_moon_values(moon: Any) -> None:
    assert Rules(moon=moon).moon == moon


def test_option_moon_unknown_rejected() -> None:
    with pytest.raises(ValueError, match="moon"):
        Rules(moon="both")  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["queen_breaks_hearts", "no_points_on_first_trick"])
def test_on_off_options_must_be_booleans(name: str) -> None:
    with pytest.raises(ValueError, match=name):
        Rules(**{name: 1})  # type: ignore[arg-type]
    assert getattr(Rules(**{name: False}), name) is False  # type: ignore[arg-type]


def test_option_pass_cycle_accepts_a_list_and_keeps_a_tuple() -> None:
    rules = Rules(pass_cycle=["left", "hold"])  # type: ignore[arg-type]
    assert rules.pass_cycle == ("left", "hold")
    assert rules.cycle == ("left", "hold")


@pytest.mark.parametrize(
    ("players", "cycle", "match"),
    [
        (4, (), "at least one"),
        (4, ("sideways",), "not a pass direction"),
        (3, ("across",), "nobody sits across"),
        (5, ("left", "across"), "nobody sits across"),
    ],
)
def test_option_pass_cycle_rejects_impossible_cycles(players: int, cycle: Any, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        Rules(players=players, pass_cycle=cycle)


def test_option_pass_cycle_two_player_allows_only_hold() -> None:
    with pytest.raises(ValueError, match="no passing"):
        Rules(players=2, variant="two_player", pass_cycle=("left",))
    assert Rules(players=2, variant="two_player", pass_cycle=("hold",)).cycle == ("hold",)


@pytest.mark.parametrize("target", [0, -5, True, 99.5, "100"])
def test_option_target_is_a_whole_number_of_one_or_more(target: Any) -> None:
    with pytest.raises(ValueError, match="target"):
        Rules(target=target)


@pytest.mark.parametrize("ties", ["play_on", "share"])
def test_option_ties_values(ties: Any) -> None:
    assert Rules(ties=ties).ties == ties


def test_option_ties_unknown_rejected() -> None:
    with pytest.raises(ValueError, match="play_on or share"):
        Rules(ties="split")  # type: ignore[arg-type]


def test_rules_round_trip_through_dicts_and_reject_unknown_keys() -> None:
    rules = Rules(players=6, bonus_card="TD", moon="add_to_others", pass_cycle=("across",))
    assert Rules.from_dict(rules.to_dict()) == rules
    with pytest.raises(ValueError, match="Unknown rule option"):
        Rules.from_dict({**rules.to_dict(), "jokers": True})


def test_rules_are_immutable() -> None:
    with pytest.raises(AttributeError):
        Rules().target = 50  # type: ignore[misc]


def test_changing_the_player_count_keeps_what_still_applies() -> None:
    omnibus = Rules(bonus_card="JD", moon="add_to_others", target=50)
    assert omnibus.with_players(5) == Rules(
        players=5, bonus_card="JD", moon="add_to_others", target=50
    )
    two = omnibus.with_players(2)
    assert (two.players, two.variant, two.bonus_card, two.target) == (2, "two_player", None, 50)
    assert two.with_players(4).variant == "standard"
    assert Rules(variant="complex").with_players(3).variant == "standard"
    assert Rules(players=4, pass_cycle=("across",)).with_players(5).pass_cycle is None
    with pytest.raises(ValueError, match="2 to 6"):
        Rules().with_players(7)


def test_changing_the_variant_seats_the_count_it_needs() -> None:
    assert Rules(players=5).with_variant("two_player").players == 2
    assert Rules(players=5).with_variant("complex").players == 4
    assert Rules(players=5).with_variant("standard", "TD") == Rules(players=5, bonus_card="TD")
    back = Rules(players=2, variant="two_player").with_variant("standard")
    assert (back.players, back.variant) == (4, "standard")
    with pytest.raises(ValueError, match="bonus card"):
        Rules().with_variant("complex", "JD")


def test_stored_rules_that_no_longer_validate_fall_back_to_the_defaults() -> None:
    assert Rules.from_stored(None) == Rules()
    assert Rules.from_stored({}) == Rules()
    assert Rules.from_stored({"players": 3, "target": 50}) == Rules(players=3, target=50)
    assert Rules.from_stored({"players": 9}) == Rules()
    assert Rules.from_stored({"renamed_option": True}) == Rules()
