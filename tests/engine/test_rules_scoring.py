"""RULES.md §5, standard Hearts: points, shooting the moon, Omnibus, the end of the game."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hearts_helpers import (
    HOLD,
    SHOOTER_WITHOUT_JD,
    SUITED_DEAL,
    hands,
    play_hand,
    prefer,
    rejects,
    suit,
    with_scores,
)

from engine import Card, Game, GameOver, HandScored, MoonShot, Rules, TrickWon


def scored(events: Sequence[object]) -> HandScored:
    return next(e for e in events if isinstance(e, HandScored))


def moon_game(moon: str = "choose", deal: list[list[str]] = SUITED_DEAL, **options: object) -> Game:
    rules = Rules(pass_cycle=HOLD, moon=moon, **options)  # type: ignore[arg-type]
    return Game(rules, deals=[deal], first_dealer=3)


def test_each_heart_is_one_point_and_the_queen_thirteen_adding_to_26() -> None:
    rules = Rules(pass_cycle=HOLD, moon="add_to_others", target=10_000)
    for seed in range(6):
        game = Game(rules, seed=seed)
        events = play_hand(game)
        taken = [0, 0, 0, 0]
        for e in events:
            if isinstance(e, TrickWon):
                cards = [c for _, c in e.cards]
                value = sum(c.suit == "H" for c in cards) + 13 * (Card.parse("QS") in cards)
                assert e.points == value
                taken[e.seat] += value
        hand = scored(events)
        if hand.shooter is None:
            assert list(hand.points) == taken
            assert sum(hand.points) == 26


def test_shooting_the_moon_takes_all_13_hearts_and_the_queen() -> None:
    game = moon_game()
    events = play_hand(game)
    assert events[-1] == MoonShot(0, None)
    assert game.phase == "moon"
    assert game.moon_shooter == 0
    assert game.current_player == 0
    assert game.waiting_for() == [0]
    assert game.legal_plays() == []
    assert game.points_taken() == (26, 0, 0, 0)


def test_option_moon_choose_shooter_picks_minus_26_for_me() -> None:
    game = moon_game()
    play_hand(game)
    events = game.choose_moon(0, "subtract_from_shooter")
    assert events[0] == MoonShot(0, "subtract_from_shooter")
    assert scored(events).points == (-26, 0, 0, 0)
    assert scored(events).shooter == 0
    assert game.scores == [-26, 0, 0, 0]
    assert game.hand_history[0].moon_choice == "subtract_from_shooter"


def test_option_moon_choose_shooter_picks_plus_26_for_everyone_else() -> None:
    game = moon_game()
    play_hand(game)
    events = game.choose_moon(0, "add_to_others")
    assert scored(events).points == (0, 26, 26, 26)
    assert game.hand_number == 2


def test_option_moon_choose_only_the_shooter_chooses_a_real_option() -> None:
    game = moon_game()
    play_hand(game)
    error = rejects(game, lambda: game.choose_moon(1, "add_to_others"), "not_your_turn")
    assert "shot the moon" in error.message
    rejects(game, lambda: game.choose_moon(0, "both"), "bad_moon_choice")
    rejects(game, lambda: game.play(0, "2C"), "wrong_phase")
    rejects(game, lambda: game.choose_moon(5, "add_to_others"), "no_such_seat")


def test_option_moon_add_to_others() -> None:
    events = play_hand(moon_game("add_to_others"))
    assert MoonShot(0, "add_to_others") in events
    assert scored(events).points == (0, 26, 26, 26)


def test_option_moon_subtract_from_shooter() -> None:
    events = play_hand(moon_game("subtract_from_shooter"))
    assert MoonShot(0, "subtract_from_shooter") in events
    assert scored(events).points == (-26, 0, 0, 0)


@pytest.mark.parametrize(
    ("moon", "points"), [("add_to_others", (0, 26, 26)), ("subtract_from_shooter", (-26, 0, 0))]
)
def test_moon_with_three_players(moon: str, points: tuple[int, ...]) -> None:
    deal = hands(
        suit("C") + " JD QD KD AD",
        suit("D", "3456789T") + " " + suit("S", "23456789T"),
        "JS QS KS AS " + suit("H"),
    )
    rules = Rules(players=3, pass_cycle=HOLD, moon=moon)  # type: ignore[arg-type]
    game = Game(rules, deals=[deal], first_dealer=0)
    assert scored(play_hand(game)).points == points


def test_option_bonus_card_jd_counts_minus_10_to_its_taker() -> None:
    rules = Rules(pass_cycle=HOLD, bonus_card="JD", moon="add_to_others", target=10_000)
    for seed in range(6):
        game = Game(rules, seed=seed)
        events = play_hand(game)
        jd_taker = next(
            e.seat
            for e in events
            if isinstance(e, TrickWon) and Card.parse("JD") in dict(e.cards).values()
        )
        hand = scored(events)
        if hand.shooter is None:
            assert sum(hand.points) == 16
            plain = [p + (10 if s == jd_taker else 0) for s, p in enumerate(hand.points)]
            assert sum(plain) == 26


def test_option_bonus_card_td_counts_minus_10_and_jd_nothing() -> None:
    game = moon_game("add_to_others", bonus_card="TD")
    events = play_hand(game)
    # Seat 0 took everything, the 10♦ included; the J♦ is worth nothing here.
    assert scored(events).points == (-10, 26, 26, 26)


def test_ruling_omnibus_bonus_applies_to_the_shooter_on_top_of_minus_26() -> None:
    game = moon_game("subtract_from_shooter", bonus_card="JD")
    assert scored(play_hand(game)).points == (-36, 0, 0, 0)


def test_ruling_omnibus_bonus_applies_to_the_shooter_on_top_of_plus_26_for_others() -> None:
    game = moon_game("add_to_others", bonus_card="JD")
    assert scored(play_hand(game)).points == (-10, 26, 26, 26)


def test_ruling_omnibus_shooting_needs_only_hearts_and_queen_bonus_to_whoever_took_it() -> None:
    game = moon_game("add_to_others", deal=SHOOTER_WITHOUT_JD, bonus_card="JD")
    events = play_hand(game, prefer("JD"))
    assert game.hand_history[0].shooter == 0
    assert scored(events).points == (0, 16, 26, 26)
    game = moon_game("subtract_from_shooter", deal=SHOOTER_WITHOUT_JD, bonus_card="JD")
    assert scored(play_hand(game, prefer("JD"))).points == (-26, -10, 0, 0)


# -------------------------------------------------------------- the moon timeout ruling


def moon_pending(totals: list[int], **options: object) -> Game:
    game = with_scores(moon_game(**options), totals)  # type: ignore[arg-type]
    play_hand(game)
    assert game.phase == "moon"
    return game


def test_ruling_moon_timeout_default_choice_is_plus_26_for_others() -> None:
    game = moon_pending([0, 0, 0, 0])
    assert game.default_moon_choice() == "add_to_others"


def test_ruling_moon_timeout_default_choice_plus_26_when_shooter_would_win() -> None:
    game = moon_pending([80, 70, 90, 90])
    assert game.default_moon_choice() == "add_to_others"
    events = game.choose_moon(0, game.default_moon_choice())
    assert events[-1] == GameOver((0,), (80, 96, 116, 116))


def test_ruling_moon_timeout_default_choice_minus_26_when_only_plus_26_would_lose() -> None:
    # +26 for the others: 80, 76, 101, 116, and seat 1 wins; -26: 54, 50, 75, 90, play on.
    game = moon_pending([80, 50, 75, 90])
    assert game.default_moon_choice() == "subtract_from_shooter"


def test_ruling_moon_timeout_default_choice_plus_26_when_both_options_would_lose() -> None:
    # +26: seat 1 wins on 56; -26: seat 3 reaches 100 and seat 1 wins on 30.
    game = moon_pending([80, 30, 90, 100])
    assert game.default_moon_choice() == "add_to_others"


def test_ruling_moon_timeout_default_choice_plus_26_when_play_on_tie_does_not_end() -> None:
    # +26: 64, 64, 106, 116 is a tie for lowest, so the game goes on (ties play on).
    game = moon_pending([64, 38, 80, 90])
    assert game.default_moon_choice() == "add_to_others"
    events = game.choose_moon(0, "add_to_others")
    assert not any(isinstance(e, GameOver) for e in events)
    assert game.phase != "over"


def test_ruling_moon_timeout_default_choice_minus_26_when_a_shared_win_would_end_the_game() -> None:
    # Under ties=share the same +26 ends the game with the shooter sharing the win.
    game = moon_pending([64, 38, 80, 90], ties="share")
    assert game.default_moon_choice() == "subtract_from_shooter"


def test_default_moon_choice_outside_a_moon_is_refused() -> None:
    game = moon_game()
    rejects(game, game.default_moon_choice, "no_moon")


# -------------------------------------------------------------- the end of the game


def test_option_target_game_ends_after_a_hand_in_which_someone_reaches_it() -> None:
    game = with_scores(moon_game("add_to_others"), [10, 74, 20, 30])
    events = play_hand(game)
    assert events[-1] == GameOver((0,), (10, 100, 46, 56))
    assert game.phase == "over"
    assert game.winners == (0,)
    assert game.current_player is None
    assert game.legal_plays() == []
    assert game.waiting_for() == []
    rejects(game, lambda: game.play(0, "2C"), "game_over")
    rejects(game, lambda: game.pass_cards(0, ["2C", "3C", "4C"]), "game_over")
    rejects(game, lambda: game.choose_moon(0, "add_to_others"), "game_over")


def test_option_target_game_goes_on_below_the_target() -> None:
    game = with_scores(moon_game("add_to_others"), [10, 73, 20, 30])
    events = play_hand(game)
    assert not any(isinstance(e, GameOver) for e in events)
    assert game.hand_number == 2
    assert game.scores == [10, 99, 46, 56]


def test_option_target_small_target() -> None:
    game = moon_game("add_to_others", target=26)
    assert play_hand(game)[-1] == GameOver((0,), (0, 26, 26, 26))


def test_ruling_ties_play_on_another_hand_until_one_is_lowest() -> None:
    game = with_scores(moon_game("subtract_from_shooter"), [40, 14, 100, 20])
    events = play_hand(game)
    assert scored(events).totals == (14, 14, 100, 20)
    assert not any(isinstance(e, GameOver) for e in events)
    assert game.phase in ("pass", "play")
    assert game.hand_number == 2
    assert game.winners == ()


def test_option_ties_share_lowest_totals_share_the_win() -> None:
    game = with_scores(moon_game("subtract_from_shooter", ties="share"), [40, 14, 100, 20])
    events = play_hand(game)
    assert events[-1] == GameOver((0, 1), (14, 14, 100, 20))
    assert game.winners == (0, 1)
