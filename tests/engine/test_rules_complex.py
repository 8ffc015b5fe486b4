"""RULES.md §5, Complex Hearts: complex scores, the 10♣ multiplier, magnitudes."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hearts_helpers import HOLD, SHOOTER_WITHOUT_TC, SUITED_DEAL, hands, play_hand, with_scores

from engine import Card, Game, GameOver, HandScored, Rules, TrickWon, magnitude_squared


def complex_game(deal: list[list[str]], moon: str = "choose", **options: object) -> Game:
    rules = Rules(variant="complex", pass_cycle=HOLD, moon=moon, **options)  # type: ignore[arg-type]
    return Game(rules, deals=[deal], first_dealer=3)


def scored(events: Sequence[object]) -> HandScored:
    return next(e for e in events if isinstance(e, HandScored))


# Seat 1 can take the first two tricks, and with them the 10♣, the Q♠, the J♦ and a heart.
KNOWN = hands(
    "2C 3C 4C 5C 6C 7C 8C 9C JC QC KC 2D 3D",
    "AC AD 4D 5D 6D 7D 8D 9D TD QD KD 2S 3S",
    "TC JD 4S 5S 6S 7S 8S 9S TS JS KS AS 2H",
    "QS " + " ".join(r + "H" for r in "3456789TJQKA"),
)


def test_complex_hand_value_hearts_one_queen_13i_jack_minus_10_times_2i_for_ten_of_clubs() -> None:
    game = complex_game(KNOWN)
    events = []
    # Trick 1: 2C, AC, TC, QS -> seat 1 takes the 10♣ and the Q♠.
    for seat, card in enumerate(["2C", "AC", "TC", "QS"]):
        events += game.play(seat, card)
    # Trick 2: seat 1 leads A♦; seat 2 plays J♦; seat 3 a heart; seat 0 2♦.
    for seat, card in [(1, "AD"), (2, "JD"), (3, "3H"), (0, "2D")]:
        events += game.play(seat, card)
    won = [e for e in events if isinstance(e, TrickWon)]
    assert [w.seat for w in won] == [1, 1]
    assert won[0].points == 13j * 2j  # the 10♣ doubles the trick's own worth by 2i
    assert game.points_taken() == (0, (1 + 13j - 10) * 2j, 0, 0)
    assert game.points_taken()[1] == -26 - 18j


def test_complex_scores_without_ten_of_clubs_are_plain_sums() -> None:
    rules = Rules(variant="complex", pass_cycle=HOLD, moon="add_to_others", target=10_000)
    for seed in range(6):
        game = Game(rules, seed=seed)
        events = play_hand(game)
        hand = scored(events)
        if hand.shooter is not None:
            continue
        piles: list[list[Card]] = [[], [], [], []]
        for e in events:
            if isinstance(e, TrickWon):
                piles[e.seat] += [c for _, c in e.cards]
        for seat, pile in enumerate(piles):
            codes = {c.code for c in pile}
            value = sum(c.suit == "H" for c in pile) + 13j * ("QS" in codes) - 10 * ("JD" in codes)
            if "TC" in codes:
                value *= 2j
            assert hand.points[seat] == value


def test_complex_moon_subtract_with_jack_and_ten_of_clubs() -> None:
    # Seat 0 takes every card: the 10♣ and J♦ included.
    game = complex_game(SUITED_DEAL, "subtract_from_shooter")
    points = scored(play_hand(game)).points
    assert points == ((-(13 + 13j) - 10) * 2j, 0, 0, 0)
    assert points[0] == 26 - 46j


def test_complex_moon_add_with_jack_and_ten_of_clubs() -> None:
    game = complex_game(SUITED_DEAL, "add_to_others")
    points = scored(play_hand(game)).points
    assert points == (-20j, 13 + 13j, 13 + 13j, 13 + 13j)


def test_ruling_complex_others_moon_part_never_multiplied_by_10c() -> None:
    game = complex_game(SHOOTER_WITHOUT_TC, "add_to_others")
    events = play_hand(game)
    assert game.hand_history[0].shooter == 0
    # Seat 1 took the 10♣ but nothing else of value: its +(13+13i) is not doubled by 2i.
    assert scored(events).points == (-10, 13 + 13j, 13 + 13j, 13 + 13j)


def test_ruling_complex_moon_subtract_others_keep_their_own_hand_value() -> None:
    game = complex_game(SHOOTER_WITHOUT_TC, "subtract_from_shooter")
    assert scored(play_hand(game)).points == (-(13 + 13j) - 10, 0, 0, 0)


def test_option_moon_choose_in_complex_asks_the_shooter() -> None:
    game = complex_game(SUITED_DEAL)
    play_hand(game)
    assert game.phase == "moon"
    assert game.default_moon_choice() == "add_to_others"
    assert scored(game.choose_moon(0, "subtract_from_shooter")).points[0] == 26 - 46j


def test_ruling_complex_exact_magnitudes_compare_by_squared_modulus() -> None:
    assert magnitude_squared(28 + 47j) == 2993
    assert magnitude_squared(-47 + 28j) == magnitude_squared(47 - 28j) == 2993
    assert magnitude_squared(-26) == 676
    assert magnitude_squared(26j) == 676


def test_ruling_complex_game_ends_when_a_magnitude_reaches_the_target() -> None:
    # Seat 1 ends on 60+80i: |z| = 100 exactly; seat 3 on 13+13i is the lowest magnitude.
    game = with_scores(
        complex_game(SUITED_DEAL, "add_to_others"), [[0, 0], [47, 67], [0, 50], [0, 0]]
    )
    events = play_hand(game)
    assert events[-1] == GameOver((3,), (-20j, 60 + 80j, 13 + 63j, 13 + 13j))


def test_ruling_complex_lowest_magnitude_wins_not_lowest_real_part() -> None:
    # Seat 1 ends on -40, the lowest real part, but seat 0's -20i is the lowest magnitude.
    start = [[0, 0], [-53, -13], [87, 87], [0, 7]]
    game = with_scores(complex_game(SUITED_DEAL, "add_to_others"), start)
    events = play_hand(game)
    over = events[-1]
    assert isinstance(over, GameOver)
    assert over.totals[1] == -40
    assert over.winners == (0,)


def test_ruling_complex_game_goes_on_below_the_target_magnitude() -> None:
    # 70+70i has |z| ≈ 98.99 < 100.
    game = with_scores(
        complex_game(SUITED_DEAL, "add_to_others"), [[0, 0], [57, 57], [0, 0], [0, 0]]
    )
    events = play_hand(game)
    assert scored(events).totals[1] == 70 + 70j
    assert not any(isinstance(e, GameOver) for e in events)


@pytest.mark.parametrize("ties", ["play_on", "share"])
def test_ruling_complex_ties_by_magnitude(ties: str) -> None:
    # Seat 0 ends on -20i and seat 3 on 20 (|z| 20 each) while seat 1 passes 100.
    start = [[0, 0], [90, 0], [10, 10], [7, -13]]
    game = with_scores(complex_game(SUITED_DEAL, "add_to_others", ties=ties), start)
    events = play_hand(game)
    assert scored(events).totals[3] == 20
    if ties == "share":
        assert events[-1] == GameOver((0, 3), (-20j, 103 + 13j, 23 + 23j, 20))
    else:
        assert not any(isinstance(e, GameOver) for e in events)
