"""RULES.md §4.4–4.6: leading hearts, breaking hearts, leading the Q♠."""

from __future__ import annotations

import pytest
from hearts_helpers import HOLD, hands, rejects

from engine import Card, Game, HeartsBroken, Rules

# After the first trick (2C, AC, 5C, 9C) seat 1 leads holding hearts, diamonds and the Q♠.
MIXED = hands(
    "2C 3C 4C 2S 3S 4S 5S 6S 7S 8S 9S TS JS",
    "AC 2H 3H 4H 5H 6H QS 2D 3D 4D 5D 6D 7D",
    "5C 6C 7C 8C 7H 8H 9H TH 8D 9D TD JD QD",
    "9C TC JC QC KC JH QH KH AH KS AS KD AD",
)
# Seat 1 wins the first trick and then holds only hearts.
ONLY_HEARTS = hands(
    "2C 3C 4C 2D 3D 4D 5D 6D 7D 8D 9D TD JD",
    "AC 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH",
    "5C 6C 7C 8C 9C 2S 3S 4S 5S 6S 7S 8S 9S",
    "TC JC QC KC TS JS QS KS AS QD KD AD AH",
)
# Seat 1 wins the first trick and then holds only hearts and the Q♠.
HEARTS_AND_QUEEN = hands(
    "2C 3C 4C 2D 3D 4D 5D 6D 7D 8D 9D TD JD",
    "AC 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH QS",
    "5C 6C 7C 8C 9C 2S 3S 4S 5S 6S 7S 8S 9S",
    "TC JC QC KC TS JS KH KS AS QD KD AD AH",
)


def after_first_trick(deal: list[list[str]], **options: object) -> Game:
    game = Game(Rules(pass_cycle=HOLD, **options), deals=[deal], first_dealer=3)  # type: ignore[arg-type]
    for seat in range(4):
        game.play(seat, game.legal_plays()[0])
    assert game.current_player == 1
    assert not game.hearts_broken
    return game


def test_hearts_may_not_be_led_until_broken() -> None:
    game = after_first_trick(MIXED)
    assert all(c.suit != "H" for c in game.legal_plays())
    error = rejects(game, lambda: game.play(1, "2H"), "hearts_not_broken")
    assert error.message == "Hearts are not broken yet."


def test_ruling_queen_of_spades_may_be_led_any_time() -> None:
    game = after_first_trick(MIXED)
    assert Card.parse("QS") in game.legal_plays()
    game.play(1, "QS")
    assert game.trick[0] == (1, Card.parse("QS"))


def test_option_queen_breaks_hearts_on() -> None:
    game = after_first_trick(MIXED)
    events = game.play(1, "QS")
    assert HeartsBroken(1) in events
    assert game.hearts_broken


def test_option_queen_breaks_hearts_off() -> None:
    game = after_first_trick(MIXED, queen_breaks_hearts=False)
    events = game.play(1, "QS")
    assert not any(isinstance(e, HeartsBroken) for e in events)
    assert not game.hearts_broken


def test_hearts_break_when_a_heart_is_played_and_may_then_be_led() -> None:
    game = after_first_trick(MIXED)
    game.play(1, "2D")
    game.play(2, "8D")
    game.play(3, "KD")
    events = game.play(0, "2S")  # seat 0 is void in diamonds but discards a spade
    assert not game.hearts_broken
    assert game.current_player == 3
    game.play(3, "KS")
    game.play(0, "JS")
    events = game.play(1, "QS")
    assert HeartsBroken(1) in events
    game.play(2, "7H")
    assert game.hearts_broken
    # Seat 3 won with K♠ and now may lead a heart.
    assert game.current_player == 3
    assert Card.parse("AH") in game.legal_plays()


def test_heart_discard_breaks_hearts_without_the_queen() -> None:
    game = after_first_trick(MIXED, queen_breaks_hearts=False)
    game.play(1, "2D")
    game.play(2, "8D")
    game.play(3, "KD")
    assert Card.parse("TS") in game.legal_plays()
    events = game.play(0, "2S")
    assert not game.hearts_broken
    game.play(3, "AS")
    game.play(0, "3S")
    game.play(1, "QS")
    events = game.play(2, "7H")
    assert events[1] == HeartsBroken(2)


@pytest.mark.parametrize("queen_breaks_hearts", [True, False])
def test_leader_holding_only_hearts_may_lead_hearts(queen_breaks_hearts: bool) -> None:
    game = after_first_trick(ONLY_HEARTS, queen_breaks_hearts=queen_breaks_hearts)
    assert game.legal_plays() == game.hand(1)
    assert HeartsBroken(1) in game.play(1, "5H")


@pytest.mark.parametrize("queen_breaks_hearts", [True, False])
def test_leader_holding_only_hearts_and_queen_may_lead_hearts(queen_breaks_hearts: bool) -> None:
    game = after_first_trick(HEARTS_AND_QUEEN, queen_breaks_hearts=queen_breaks_hearts)
    assert game.legal_plays() == game.hand(1)
    assert HeartsBroken(1) in game.play(1, "2H")
