"""RULES.md §3 and §7: what a seat may see (`game.view(seat)`)."""

from __future__ import annotations

from hearts_helpers import HOLD, SUITED_DEAL, cards_in, codes, hands, rejects

from engine import Card, Game, Rules, SeatView


def test_view_shows_only_the_seats_own_hand() -> None:
    game = Game(Rules(pass_cycle=HOLD), deals=[SUITED_DEAL], first_dealer=3)
    for seat in range(4):
        view = game.view(seat)
        assert isinstance(view, SeatView)
        assert codes(view.hand) == SUITED_DEAL[seat]
        assert view.hand_sizes == (13, 13, 13, 13)
        assert view.legal == (tuple(game.legal_plays()) if seat == 0 else ())
    rejects(game, lambda: game.view(4), "no_such_seat")


def test_view_during_the_pass_hides_the_other_choices() -> None:
    game = Game(Rules(), deals=[SUITED_DEAL], first_dealer=3)
    game.pass_cards(1, ["2D", "3D", "4D"])
    game.pass_cards(2, ["2S", "3S", "4S"])
    for seat in (0, 1, 2, 3):
        view = game.view(seat)
        assert view.received is None
        if seat in (1, 2):
            assert view.passed is not None
            assert codes(view.passed) == SUITED_DEAL[seat][:3]
        else:
            assert view.passed is None
        assert {c.code for c in cards_in(view)} == set(SUITED_DEAL[seat])
    assert game.view(0).first_lead is None


def test_ruling_two_player_view_never_shows_dead_cards_nor_the_unplayed_first_lead() -> None:
    deal = hands(
        "AD 4C 6C 8C TC QC AC 8H TH QH AH QS AS",
        "2H 4H 6H 2S 4S 6S 8S TS 2D 4D 6D 8D TD",
        "QD 2C",
    )
    game = Game(Rules(players=2, variant="two_player"), deals=[deal], first_dealer=0)
    assert game.current_player == 0
    # Seat 1 must not learn that 4♣ leads (it would tell that 2♣ is dead).
    assert game.view(1).first_lead is None
    assert game.view(0).first_lead == Card.parse("4C")
    for seat in (0, 1):
        assert {c.code for c in cards_in(game.view(seat))} == set(deal[seat])
    game.play(0, "4C")
    assert game.view(1).first_lead == Card.parse("4C")


def test_two_player_dead_cards_are_shown_once_the_hand_has_ended() -> None:
    game = Game(Rules(players=2, variant="two_player", target=10_000), seed=12)
    dead = {c.code for c in map(Card, range(52)) if game.dead >> c.index & 1}
    while game.hand_number == 1:
        game.play(game.current_player or 0, game.legal_plays()[0])
    view = game.view(1)
    assert {c.code for c in view.hand_history[0].dead} == dead


def test_view_voids_and_played_cards_are_public_knowledge() -> None:
    game = Game(Rules(pass_cycle=HOLD), deals=[SUITED_DEAL], first_dealer=3)
    for seat, card in enumerate(["2C", "2D", "2S", "2H"]):
        game.play(seat, card)
    view = game.view(1)
    assert view.voids() == [set(), {"C"}, {"C"}, {"C"}]
    assert [c.code for c in view.cards_played_by_suit()["H"]] == ["2H"]
    assert view.points_taken == (1, 0, 0, 0)
    assert view.unseen_mask & view.hand_mask == 0
