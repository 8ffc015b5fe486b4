"""RULES.md §4.1 and §4.3: the first lead and what may be played to the first trick."""

from __future__ import annotations

from hearts_helpers import HOLD, SUITED_DEAL, hands, rejects, suit

from engine import Card, Game, HeartsBroken, Rules


def cards(text: str) -> list[Card]:
    return [Card.parse(c) for c in text.split()]


def test_first_trick_must_be_led_with_the_lowest_club() -> None:
    game = Game(Rules(pass_cycle=HOLD), deals=[SUITED_DEAL], first_dealer=3)
    assert game.current_player == 0
    assert game.legal_plays() == cards("2C")
    error = rejects(game, lambda: game.play(0, "AC"), "must_lead_lowest_club")
    assert error.message == "The first trick must be led with 2♣."


def test_option_no_points_on_first_trick_forbids_hearts_and_queen_of_spades() -> None:
    # Seat 2 holds 2H and twelve spades with the Q♠: no clubs, so it discards.
    deal = hands(
        suit("C"), suit("D"), "2H " + suit("S", "3456789TJQKA"), "2S " + suit("H", "3456789TJQKA")
    )
    game = Game(Rules(pass_cycle=HOLD), deals=[deal], first_dealer=3)
    game.play(0, "2C")
    game.play(1, "AD")
    assert Card.parse("QS") not in game.legal_plays()
    assert Card.parse("2H") not in game.legal_plays()
    assert game.legal_plays() == cards(suit("S", "3456789TJKA"))
    error = rejects(game, lambda: game.play(2, "QS"), "points_on_first_trick")
    assert error.message == "No hearts and no Q♠ on the first trick."
    rejects(game, lambda: game.play(2, "2H"), "points_on_first_trick")
    game.play(2, "3S")
    # Seat 3 has one non-point card, so it must play it.
    assert game.legal_plays() == cards("2S")


def test_ruling_all_points_hand_may_play_points_on_first_trick() -> None:
    # Seat 3 is void in clubs and holds only hearts and the Q♠ (RULES.md §4.3).
    deal = hands(
        suit("C"),
        suit("D"),
        "2H " + suit("S", "23456789TJKA"),
        "QS " + suit("H", "3456789TJQKA"),
    )
    game = Game(Rules(pass_cycle=HOLD), deals=[deal], first_dealer=3)
    game.play(0, "2C")
    game.play(1, "AD")
    game.play(2, "AS")
    assert game.legal_plays() == game.hand(3)
    events = game.play(3, "QS")
    assert HeartsBroken(3) in events
    assert game.tricks[0].winner == 0


def test_ruling_all_hearts_hand_may_play_a_heart_on_first_trick() -> None:
    game = Game(Rules(pass_cycle=HOLD), deals=[SUITED_DEAL], first_dealer=3)
    for seat, card in enumerate(["2C", "2D", "2S"]):
        game.play(seat, card)
    assert game.legal_plays() == cards(suit("H"))
    assert HeartsBroken(3) in game.play(3, "AH")


def test_option_no_points_on_first_trick_off_allows_points_when_void() -> None:
    deal = hands(
        suit("C"), suit("D"), "2H " + suit("S", "3456789TJQKA"), "2S " + suit("H", "3456789TJQKA")
    )
    game = Game(
        Rules(pass_cycle=HOLD, no_points_on_first_trick=False), deals=[deal], first_dealer=3
    )
    game.play(0, "2C")
    game.play(1, "AD")
    assert game.legal_plays() == game.hand(2)
    assert HeartsBroken(2) in game.play(2, "QS")
    assert game.legal_plays() == game.hand(3)


def test_first_trick_still_requires_following_suit() -> None:
    deal = hands(
        "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC 2H",
        "AC " + suit("D", "23456789TJQK"),
        "AD " + suit("S", "23456789TJKA"),
        "QS " + suit("H", "3456789TJQKA"),
    )
    game = Game(Rules(pass_cycle=HOLD), deals=[deal], first_dealer=3)
    game.play(0, "2C")
    assert game.legal_plays() == cards("AC")
    error = rejects(game, lambda: game.play(1, "2D"), "must_follow_suit")
    assert error.message == "You must follow ♣."
