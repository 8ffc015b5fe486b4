"""The `expert` player in hand-written positions: its pass, its playout policy, the cards
it treats as equivalent; and every level's moon choice in hand-built moon positions."""

from __future__ import annotations

import pytest
from hearts_helpers import HOLD, SUITED_DEAL, hands, play_hand, suit, with_scores

from engine import Card, Game, Rules
from engine.cards import CARDS, cards_of, mask_of_codes
from engine.players import LEVELS, ExpertPlayer, make_player
from engine.players.expert import equivalent_groups, expert_pass
from engine.players.smart import smart_card

# ----------------------------------------------------------------- the moon choice

#: Seat 1 holds every club: it leads each trick and takes all 13 hearts and the Q♠.
SEAT1_SHOOTS = hands(suit("D"), suit("C"), suit("S"), suit("H"))


def moon_position(deal: list[list[str]], scores: list[int]) -> Game:
    """A game at the moon choice after ``deal``, the totals before the hand ``scores``."""
    game = with_scores(
        Game(Rules(pass_cycle=HOLD, moon="choose"), deals=[deal], first_dealer=3), scores
    )
    play_hand(game)
    assert game.phase == "moon"
    return game


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_adds_26_when_that_wins_the_game(level: str) -> None:
    # +26 takes every other seat past 100 with seat 0 lowest; -26 plays on.
    game = moon_position(SUITED_DEAL, [0, 78, 78, 78])
    assert game.moon_shooter == 0
    assert make_player(level, 1).choose_moon(game.view(0), 300) == "add_to_others"


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_subtracts_26_when_adding_would_lose_the_game(level: str) -> None:
    # Seat 1 shoots at 60; +26 ends the game (seats 2 and 3 pass 100) with seat 0 lowest.
    game = moon_position(SEAT1_SHOOTS, [30, 60, 80, 80])
    assert game.moon_shooter == 1
    assert make_player(level, 1).choose_moon(game.view(1), 300) == "subtract_from_shooter"


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_keeps_the_default_when_the_game_goes_on(level: str) -> None:
    game = moon_position(SUITED_DEAL, [10, 20, 30, 40])
    assert make_player(level, 1).choose_moon(game.view(0), 300) == "add_to_others"


# ----------------------------------------------------------------- the pass


def codes(text: str) -> list[str]:
    return text.split()


def passed(hand: str, rules: Rules | None = None) -> set[str]:
    return {c.code for c in cards_of(expert_pass(rules or Rules(), mask_of_codes(codes(hand))))}


def test_expert_passes_an_unguarded_queen_and_the_spades_above_it() -> None:
    # Q♠ with only two small spades, and the A♠ too: both are liabilities.
    assert passed("QS AS 3S 2C 5C 8C 4D 7D 9D 3H 6H 8H TD") == {"QS", "AS", "TD"}


def test_expert_keeps_a_well_guarded_queen_and_passes_high_hearts() -> None:
    # Five small spades guard the Q♠; the A♥ and K♥ go, and the last, short suit empties.
    chosen = passed("QS 2S 4S 5S 7S 9S AH KH 3H 4H 2D 3D KC")
    assert "QS" not in chosen
    assert {"AH", "KH"} <= chosen
    assert not chosen & {"2S", "4S", "5S", "7S", "9S", "3H", "4H", "2D", "3D"}


def test_expert_passes_the_ace_and_king_of_spades_without_the_queen() -> None:
    assert {"AS", "KS"} <= passed("AS KS 3S 2C 3C 4C 5C 2D 3D 4D 5D 2H 3H")


def test_expert_keeps_the_omnibus_card() -> None:
    chosen = passed("JD QD KD AD 2S 3S 4S 5S 6S 2C 3C 2H 3H", Rules(bonus_card="JD"))
    assert "JD" not in chosen


def test_expert_player_passes_three_of_its_own_cards() -> None:
    game = Game(Rules(), seed=3)
    view = game.view(0)
    cards = ExpertPlayer(1).choose_pass(view, 300)
    assert len(set(cards)) == 3 and set(cards) <= set(view.hand)


# ----------------------------------------------------------------- the playout policy


def smart(legal: str, trick: str = "", played: str = "", rules: Rules | None = None) -> str:
    hand = mask_of_codes(codes(legal))
    trick_cards = [Card.parse(c).index for c in trick.split()]
    seen = mask_of_codes(codes(played)) | mask_of_codes(codes(trick))
    return CARDS[smart_card(rules or Rules(), hand, trick_cards, hand, seen)].code


def test_smart_last_does_not_take_a_clean_spade_trick_with_the_queen() -> None:
    # standard would play its highest spade, the Q♠, and take 13 points.
    assert smart("QS 8S", "5S 9S 3S") == "8S"
    # Under a K♠ the queen is dropped.
    assert smart("QS 8S", "5S KS 3S") == "QS"


def test_smart_void_dumps_the_queen_then_the_high_spades_while_it_is_out() -> None:
    assert smart("QS AH 2D", "5C 9C") == "QS"
    assert smart("AS KH 2D", "5C 9C") == "AS"
    # With the queen gone, the A♠ is no danger: the highest heart goes.
    assert smart("AS KH 2D", "5C 9C", played="QS") == "KH"
    # A heart a little lower than an ace still goes before it.
    assert smart("AD QH 3S", "5C 9C") == "QH"
    assert smart("AD 4H 3S", "5C 9C") == "AD"


def test_smart_does_not_lead_the_top_spades_into_a_live_queen() -> None:
    assert smart("KS 3D 5C") == "5C" or smart("KS 3D 5C") == "3D"
    assert smart("AS KS QS 9H", played="2H") == "9H"
    assert smart("AS 2S") == "2S"


def test_smart_second_hand_ducks_and_forced_keeps_the_queen() -> None:
    assert smart("2S 9S JS", "TS") == "9S"
    assert smart("QS KS", "JS") == "KS"


def test_smart_is_standard_in_two_player_hearts() -> None:
    rules = Rules(players=2, variant="two_player")
    assert smart("QS 8S", "5S", rules=rules) == "QS"


# ----------------------------------------------------------------- equivalent cards


def test_touching_cards_are_one_choice_but_the_queen_and_bonus_stand_alone() -> None:
    rules = Rules(bonus_card="JD")
    legal = mask_of_codes(codes("2C 3C 5C 9D TD JD QD JS KS QS 4H 5H 7H"))
    played = mask_of_codes(codes("4C 6C AS"))
    groups = {
        " ".join(c.code for c in cards_of(g)) for g in equivalent_groups(rules, legal, played)
    }
    assert groups == {"2C 3C 5C", "9D TD", "JD", "QD", "JS", "QS", "KS", "4H 5H", "7H"}
