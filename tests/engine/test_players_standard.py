"""The `standard` player's rules of thumb (RULES.md §7) in hand-written positions."""

from __future__ import annotations

import pytest

from engine.cards import Card, mask_of_codes
from engine.players.standard import highest_valued, lowest_valued, standard_card, standard_pass
from engine.rules import Rules

FOUR = Rules()
TWO = Rules(players=2, variant="two_player")


def play(legal: list[str], trick: list[str], rules: Rules = FOUR) -> str:
    card = standard_card(rules, mask_of_codes(legal), [Card.parse(c).index for c in trick])
    return Card(card).code


def test_value_order_is_rank_then_spades_hearts_diamonds_clubs() -> None:
    assert Card(highest_valued(mask_of_codes(["KS", "KH", "KD", "KC"]))).code == "KS"
    assert Card(highest_valued(mask_of_codes(["KH", "KD", "QS"]))).code == "KH"
    assert Card(lowest_valued(mask_of_codes(["4S", "4C", "9D"]))).code == "4C"
    assert Card(lowest_valued(mask_of_codes(["4S", "4H", "4D"]))).code == "4D"


def test_passes_three_highest_valued_cards() -> None:
    hand = mask_of_codes(["AC", "KS", "KH", "QS", "2H", "3C", "9D", "TD", "JC", "4S", "5S"])
    hand |= mask_of_codes(["6D", "7D"])
    assert sorted(Card(c).code for c in range(52) if standard_pass(hand) >> c & 1) == [
        "AC",
        "KH",
        "KS",
    ]


def test_leading_plays_lowest_card() -> None:
    assert play(["5C", "3D", "9S", "2H"], []) == "2H"
    assert play(["5C", "3D", "9S"], []) == "3D"


@pytest.mark.parametrize(
    ("legal", "trick", "expected"),
    [
        (["2D", "8D", "JD"], ["9D"], "8D"),  # 2nd: highest card that will not take it
        (["8D", "JD"], ["3D"], "8D"),  # 2nd: cannot duck, lowest of the suit
        (["2D", "8D", "JD"], ["9D", "TD"], "8D"),  # 3rd: under the winner
        (["JD", "KD"], ["9D", "TD"], "JD"),  # 3rd: must take, lowest of the suit
    ],
)
def test_second_and_third(legal: list[str], trick: list[str], expected: str) -> None:
    assert play(legal, trick) == expected


def test_last_with_points_ducks_with_highest_under() -> None:
    assert play(["8S", "TS", "KS", "AS"], ["JS", "2H", "5S"]) == "TS"


def test_last_with_points_that_must_take_plays_highest_avoiding_queen() -> None:
    assert play(["QS", "KS", "AS"], ["2S", "3S", "5H"]) == "AS"
    assert play(["QS", "KS"], ["2S", "3S", "5H"]) == "KS"
    assert play(["QS"], ["2S", "3S", "5H"]) == "QS"


def test_last_with_no_points_plays_highest() -> None:
    assert play(["2C", "TC", "KC"], ["5C", "7C", "9C"]) == "KC"


def test_void_plays_highest_valued_queen_of_spades_first() -> None:
    assert play(["2D", "AH", "QS", "AS"], ["5C"]) == "QS"
    assert play(["2D", "AH", "AS"], ["5C"]) == "AS"
    assert play(["KS", "AH", "2D"], ["5C", "6C"]) == "AH"
    assert play(["KD", "KH", "2S"], ["5C", "6C", "7C"]) == "KH"
    assert play(["QH", "QD", "QC"], ["5S"]) == "QH"


def test_two_player_heart_trumps_so_anything_ducks() -> None:
    # Only two players: the second is last. A trick with a heart is won by the heart.
    assert play(["2S", "QS", "AS"], ["4S"], TWO) == "AS"  # no points: highest
    assert play(["2H", "8H", "AH"], ["6H"], TWO) == "2H"  # points: highest under the 6♥
