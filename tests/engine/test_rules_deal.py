"""RULES.md §1–2: decks, the deal, the dealer's rotation, seeds and fixed deals."""

from __future__ import annotations

import random

import pytest
from hearts_helpers import HOLD, codes, hands, pass_all, play_hand, suit

from engine import Card, Game, Rules
from engine.cards import cards_of
from engine.game import shuffled

RANKS = "23456789TJQKA"
ALL_CARDS = {r + s for s in "CDSH" for r in RANKS}


def rules_for(players: int, **options: object) -> Rules:
    variant = "two_player" if players == 2 else "standard"
    return Rules(players=players, variant=variant, **options)  # type: ignore[arg-type]


def cards_dealt(game: Game) -> set[str]:
    dealt: set[str] = set()
    for seat in range(game.players):
        dealt |= set(codes(game.hand(seat)))
    return dealt


def test_four_players_use_the_whole_deck_thirteen_each() -> None:
    game = Game(rules_for(4), seed=1)
    assert [len(game.hand(s)) for s in range(4)] == [13] * 4
    assert cards_dealt(game) == ALL_CARDS


def test_three_players_remove_2d_seventeen_each() -> None:
    game = Game(rules_for(3), seed=1)
    assert [len(game.hand(s)) for s in range(3)] == [17] * 3
    assert cards_dealt(game) == ALL_CARDS - {"2D"}


def test_five_players_remove_2d_2c_ten_each() -> None:
    game = Game(rules_for(5), seed=1)
    assert [len(game.hand(s)) for s in range(5)] == [10] * 5
    assert cards_dealt(game) == ALL_CARDS - {"2D", "2C"}


def test_ruling_six_players_remove_2d_2c_3d_3c() -> None:
    game = Game(rules_for(6), seed=1)
    assert [len(game.hand(s)) for s in range(6)] == [8] * 6
    assert cards_dealt(game) == ALL_CARDS - {"2D", "2C", "3D", "3C"}


def test_two_players_use_28_cards_and_two_dead() -> None:
    game = Game(rules_for(2), seed=1)
    deck = {r + s for s in "CDSH" for r in "2468TQA"}
    assert [len(game.hand(s)) for s in range(2)] == [13, 13]
    dead = set(codes(Card(i) for i in range(52) if game.dead >> i & 1))
    assert len(dead) == 2
    assert cards_dealt(game) | dead == deck
    assert not cards_dealt(game) & dead


@pytest.mark.parametrize(("players", "lead"), [(3, "2C"), (4, "2C"), (5, "3C"), (6, "4C")])
def test_holder_of_lowest_club_in_play_leads_it(players: int, lead: str) -> None:
    game = Game(rules_for(players, pass_cycle=HOLD), seed=3)
    holder = next(s for s in range(players) if Card.parse(lead) in game.hand(s))
    assert game.phase == "play"
    assert game.current_player == holder
    assert game.legal_plays() == [Card.parse(lead)]


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_cards_are_dealt_one_at_a_time_starting_left_of_the_dealer(players: int) -> None:
    seed, dealer = 11, players - 1
    game = Game(rules_for(players), seed=seed, first_dealer=dealer)
    rng = random.Random(seed)
    rng.randrange(players)  # the first dealer's draw, made even when the dealer is named
    deck = shuffled(rng, [c for c in range(52) if game._deck >> c & 1])
    expected: list[set[int]] = [set() for _ in range(players)]
    if players == 2:
        # One card to the dead pile, thirteen each, the last card dead.
        assert game.dead == 1 << deck[0] | 1 << deck[-1]
        deck = deck[1:-1]
    for i, card in enumerate(deck):
        expected[(dealer + 1 + i) % players].add(card)
    assert [{c.index for c in game.hand(s)} for s in range(players)] == expected


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_first_dealer_is_chosen_at_random_from_the_seed(players: int) -> None:
    dealers = {Game(rules_for(players), seed=s).first_dealer for s in range(60)}
    assert dealers == set(range(players))
    for seed in range(5):
        assert Game(rules_for(players), seed=seed).first_dealer == random.Random(seed).randrange(
            players
        )


def test_first_dealer_can_be_given_and_must_be_a_seat() -> None:
    assert Game(Rules(), seed=0, first_dealer=2).dealer == 2
    with pytest.raises(ValueError, match="first dealer"):
        Game(Rules(), first_dealer=4)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_deal_passes_to_the_left_after_each_hand(players: int) -> None:
    game = Game(
        rules_for(players, pass_cycle=HOLD, target=10_000, moon="add_to_others"),
        seed=4,
        first_dealer=1,
    )
    dealers = []
    for number in range(1, 2 * players + 2):
        assert game.hand_number == number
        dealers.append(game.dealer)
        play_hand(game)
    assert dealers == [(1 + i) % players for i in range(2 * players + 1)]
    assert [h.dealer for h in game.hand_history] == dealers


def test_hand_number_counts_from_one() -> None:
    game = Game(Rules(pass_cycle=HOLD), seed=2)
    assert game.hand_number == 1
    play_hand(game)
    assert game.hand_number == 2
    assert game.hand_history[0].hand_number == 1


def test_a_seed_replays_a_game() -> None:
    def run() -> list[str]:
        game = Game(Rules(players=5), seed=99)
        states = []
        for _ in range(3):
            pass_all(game) if game.phase == "pass" else None
            play_hand(game)
            states.append(game.to_json())
        return states

    assert run() == run()
    assert Game(Rules(), seed=1).to_json() != Game(Rules(), seed=2).to_json()


FIXED_4 = hands(suit("C"), suit("D"), suit("S"), suit("H"))


def test_fixed_deal_is_used_instead_of_a_shuffle() -> None:
    game = Game(Rules(), seed=5, deals=[FIXED_4], first_dealer=3)
    for seat in range(4):
        assert codes(game.hand(seat)) == FIXED_4[seat]
    assert game.fixed_deals == [FIXED_4]


def test_fixed_deal_accepts_cards_and_codes_in_any_order() -> None:
    deal = [[Card.parse(c) for c in reversed(pile)] for pile in FIXED_4]
    game = Game(Rules(), deals=[deal], first_dealer=0)
    assert codes(game.hand(3)) == FIXED_4[3]


def test_past_the_fixed_deals_the_game_goes_on_shuffling_from_its_seed() -> None:
    rules = Rules(pass_cycle=HOLD, moon="add_to_others")
    game = Game(rules, seed=8, deals=[FIXED_4], first_dealer=0)
    again = Game(rules, seed=8, deals=[FIXED_4], first_dealer=0)
    play_hand(game)
    play_hand(again)
    assert game.hand_number == 2
    second = [codes(game.hand(s)) for s in range(4)]
    assert second == [codes(again.hand(s)) for s in range(4)]
    # Fixed deals do not draw from the generator: hand 2 is the seed's first shuffle.
    fresh = Game(rules, seed=8, first_dealer=1)
    assert second == [codes(fresh.hand(s)) for s in range(4)]


def test_two_player_fixed_deal_has_the_dead_pile_last() -> None:
    deal = hands(
        "2C 4C 6C 8C TC QC AC 2D 4D 6D 8D TD QD",
        "2S 4S 6S 8S TS QS AS 2H 4H 6H 8H TH QH",
        "AD AH",
    )
    game = Game(Rules(players=2, variant="two_player"), deals=[deal], first_dealer=0)
    assert {Card(i).code for i in range(52) if game.dead >> i & 1} == {"AD", "AH"}
    assert codes(game.hand(1)) == deal[1]


@pytest.mark.parametrize(
    ("deal", "match"),
    [
        (FIXED_4[:3], "3 piles; it needs 4"),
        ([*FIXED_4[:3], [*FIXED_4[3][:12], "2C"]], "gives a card twice"),
        ([*FIXED_4[:3], FIXED_4[3][:12]], "has 12 cards, not 13"),
    ],
)
def test_fixed_deal_must_be_a_deal(deal: list[list[str]], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        Game(Rules(), deals=[deal])


def test_fixed_deal_must_use_only_cards_of_the_deck() -> None:
    deck = sorted(ALL_CARDS - {"2D"}, key=lambda c: Card.parse(c).index)
    deal = [deck[0:17], deck[17:34], deck[34:51]]
    assert Game(Rules(players=3), deals=[deal]).hand_number == 1
    deal[2][0] = "2D"
    with pytest.raises(ValueError, match="not in this deck: 2D"):
        Game(Rules(players=3), deals=[deal])


def test_shuffle_is_a_permutation_fixed_by_the_generator() -> None:
    deck = [c for c in range(52) if c % 13 != 5]
    first = shuffled(random.Random(7), deck)
    assert sorted(first) == deck
    assert shuffled(random.Random(7), deck) == first
    assert shuffled(random.Random(8), deck) != first


def test_shuffle_puts_every_card_in_every_place_equally_often() -> None:
    # 52 cards × 52 places, 20,800 shuffles: 400 expected per cell. A chi-square over the
    # 2,601 degrees of freedom of the table lands near 2,601; a biased shuffle (a swap
    # shuffle with an off-by-one, or keys that tie and fall back to card order) is far off.
    rng = random.Random(2026)
    deck = list(range(52))
    counts = [[0] * 52 for _ in range(52)]
    rounds = 20_800
    for _ in range(rounds):
        for place, card in enumerate(shuffled(rng, deck)):
            counts[card][place] += 1
    expected = rounds / 52
    chi_square = sum((n - expected) ** 2 / expected for row in counts for n in row)
    assert 2_300 < chi_square < 2_900
    # Nothing sticks to its place in the unshuffled order either.
    assert max(counts[c][c] for c in range(52)) < expected * 1.25


@pytest.mark.parametrize(
    ("players", "expected_hands", "expected_dead"),
    [
        (
            4,
            [
                "7C KC 2D 4D 7D 2S 3S 5S TS JS 2H 5H JH",
                "2C TC QC 3D 5D 6D JD QS KS AS 4H 6H AH",
                "4C 8C 9C JC AC 9D TD KD 4S 8S 3H 7H QH",
                "3C 5C 6C 8D QD AD 6S 7S 9S 8H 9H TH KH",
            ],
            "",
        ),
        (
            2,
            [
                "4C 6C 2D 4D TD QD AD 2S 8S TS QS 2H 6H",
                "2C TC QC AC 6D 8D 4S 6S AS 4H 8H TH AH",
            ],
            "8C QH",
        ),
    ],
)
def test_a_seed_deals_the_same_cards_in_every_version(
    players: int, expected_hands: list[str], expected_dead: str
) -> None:
    # Stored games are checked by replaying their journal from the seed when the bot starts:
    # a change to the shuffle would quarantine every game in progress during an upgrade.
    variant = "two_player" if players == 2 else "standard"
    game = Game(Rules(players=players, variant=variant), seed=2026, first_dealer=0)
    assert [" ".join(codes(game.hand(s))) for s in range(players)] == expected_hands
    assert " ".join(c.code for c in cards_of(game.dead)) == expected_dead
