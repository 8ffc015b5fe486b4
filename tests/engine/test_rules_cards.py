"""RULES.md §1: ranks, suits, the card text form and how cards are shown."""

from __future__ import annotations

import pytest

from engine import Card


def test_ranks_run_two_to_ace() -> None:
    ranks = [Card.parse(code + "S").rank for code in "23456789TJQKA"]
    assert ranks == list(range(2, 15))


def test_suits_order_clubs_diamonds_spades_hearts() -> None:
    cards = sorted(Card.parse(c) for c in ["2H", "AS", "3D", "KC"])
    assert [c.code for c in cards] == ["KC", "3D", "AS", "2H"]
    assert [Card.parse(c).suit for c in ["2C", "2D", "2S", "2H"]] == ["C", "D", "S", "H"]


@pytest.mark.parametrize("code", ["2C", "TC", "JC", "QC", "KC", "AC", "QS", "JD", "AH"])
def test_card_text_form_round_trips(code: str) -> None:
    card = Card.parse(code)
    assert str(card) == code
    assert card.code == code
    assert eval(repr(card)) == card


def test_ten_is_t_and_10_is_accepted_on_input() -> None:
    assert Card.parse("10C") == Card.parse("TC")
    assert str(Card.parse("10h")) == "TH"
    assert Card.parse(" qs ") == Card.parse("QS")


def test_cards_are_displayed_with_suit_symbols() -> None:
    assert Card.parse("QS").symbol == "Q♠"
    assert Card.parse("TC").symbol == "10♣"
    assert Card.parse("AH").symbol == "A♥"
    assert Card.parse("2D").symbol == "2♦"


@pytest.mark.parametrize("text", ["", "1C", "QX", "10", "QSS", "11C", "S"])
def test_not_a_card_raises_value_error_naming_the_text(text: str) -> None:
    with pytest.raises(ValueError, match="is not a card"):
        Card.parse(text)


def test_cards_are_values_and_immutable() -> None:
    card = Card.parse("QS")
    assert card == Card(card.index)
    assert len({Card.parse("QS"), Card.parse("qs")}) == 1
    with pytest.raises(AttributeError):
        card.index = 3
    with pytest.raises(ValueError):
        Card(52)
