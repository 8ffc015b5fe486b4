"""RULES.md §4.2, §4.7, §4.8: following suit, who takes a trick, the end of a hand."""

from __future__ import annotations

import pytest
from hearts_helpers import HOLD, SUITED_DEAL, hands, play_hand, rejects

from engine import Card, CardPlayed, Game, HandScored, Rules, TrickWon
from engine.rules import Variant

DEAL = hands(
    "2C 3C 4C 2S 3S 4S 5S 6S 7S 8S 9S TS JS",
    "AC 2H 3H 4H 5H 6H QS 2D 3D 4D 5D 6D 7D",
    "5C 6C 7C 8C 7H 8H 9H TH 8D 9D TD JD QD",
    "9C TC JC QC KC JH QH KH AH KS AS KD AD",
)


def test_highest_card_of_the_suit_led_wins_and_its_winner_leads() -> None:
    game = Game(Rules(pass_cycle=HOLD), deals=[DEAL], first_dealer=3)
    events = []
    for seat, card in enumerate(["2C", "AC", "5C", "KC"]):
        events += game.play(seat, card)
    assert events[-1] == TrickWon(
        1, tuple((s, Card.parse(c)) for s, c in enumerate(["2C", "AC", "5C", "KC"])), 0
    )
    assert game.current_player == 1
    assert game.tricks[0].winner == 1
    assert game.tricks[0].leader == 0


def test_off_suit_cards_never_win_there_are_no_trumps() -> None:
    game = Game(Rules(pass_cycle=HOLD), deals=[DEAL], first_dealer=3)
    for seat, card in enumerate(["2C", "AC", "5C", "9C"]):
        game.play(seat, card)
    for seat, card in [(1, "2D"), (2, "8D"), (3, "AD"), (0, "JS")]:
        game.play(seat, card)
    # Seat 3 took it with A♦; now it leads A♠ and seat 1's Q♠ is taken, a heart discard
    # from seat 2 does not win.
    for seat, card in [(3, "AS"), (0, "2S"), (1, "QS")]:
        game.play(seat, card)
    events = game.play(2, "TH")
    won = events[-1]
    assert isinstance(won, TrickWon)
    assert won.seat == 3
    assert won.points == 14


def test_must_follow_suit_if_able_otherwise_any_card() -> None:
    game = Game(Rules(pass_cycle=HOLD), deals=[DEAL], first_dealer=3)
    for seat, card in enumerate(["2C", "AC", "5C", "9C"]):
        game.play(seat, card)
    game.play(1, "2D")
    assert all(c.suit == "D" for c in game.legal_plays())
    error = rejects(game, lambda: game.play(2, "7H"), "must_follow_suit")
    assert error.message == "You must follow ♦."
    game.play(2, "8D")
    game.play(3, "KD")
    # Seat 0 has no diamonds: anything goes (hearts are points, but this is not trick 1).
    assert game.legal_plays() == game.hand(0)


def test_moves_out_of_turn_or_of_cards_not_held_are_refused() -> None:
    game = Game(Rules(pass_cycle=HOLD), deals=[DEAL], first_dealer=3)
    assert rejects(game, lambda: game.play(1, "AC"), "not_your_turn").message == (
        "It is not your turn."
    )
    assert rejects(game, lambda: game.play(0, "AC"), "not_in_hand").message == (
        "You don't have A♣."
    )
    rejects(game, lambda: game.play(0, "XX"), "not_a_card")
    rejects(game, lambda: game.play(9, "2C"), "no_such_seat")
    rejects(game, lambda: game.play(True, "2C"), "no_such_seat")
    rejects(game, lambda: game.choose_moon(0, "add_to_others"), "wrong_phase")
    assert game.play(0, "2c") == [CardPlayed(0, Card.parse("2C"))]


@pytest.mark.parametrize(("players", "tricks"), [(3, 17), (4, 13), (5, 10), (6, 8), (2, 13)])
def test_hand_ends_when_all_cards_are_played(players: int, tricks: int) -> None:
    variant: Variant = "two_player" if players == 2 else "standard"
    rules = Rules(players=players, variant=variant, pass_cycle=HOLD, moon="add_to_others")
    game = Game(rules, seed=5)
    events = []
    while game.hand_number == 1:
        events += play_hand(game)
    assert sum(isinstance(e, TrickWon) for e in events) == tricks
    assert all(len(e.cards) == players for e in events if isinstance(e, TrickWon))
    assert isinstance(next(e for e in events if isinstance(e, HandScored)), HandScored)


def test_suited_deal_seat_with_all_clubs_takes_every_trick() -> None:
    game = Game(Rules(pass_cycle=HOLD, moon="add_to_others"), deals=[SUITED_DEAL], first_dealer=3)
    events = play_hand(game)
    assert [e.seat for e in events if isinstance(e, TrickWon)] == [0] * 13
