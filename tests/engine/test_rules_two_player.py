"""RULES.md §6: two-player Hearts."""

from __future__ import annotations

from hearts_helpers import hands, play_hand, rejects, with_scores

from engine import Card, Game, GameOver, HandScored, HeartsBroken, MoonShot, Rules, TrickWon


def two(**options: object) -> Rules:
    return Rules(players=2, variant="two_player", **options)  # type: ignore[arg-type]


def dealt(deal: list[list[str]], **options: object) -> Game:
    return Game(two(**options), deals=[deal], first_dealer=1)


# Seat 0 leads every trick from the top and takes every point card in play.
MOON = hands(
    "2C 4C 6C 8C TC QC AC 8H TH QH AH QS AS",
    "2H 4H 6H 2S 4S 6S 8S TS 2D 4D 6D 8D TD",
    "QD AD",
)
# The same with the 2♥ dead: the moon needs only the six hearts in play and the Q♠.
MOON_DEAD_HEART = hands(
    "2C 4C 6C 8C TC QC AC 8H TH QH AH QS AS",
    "QD 4H 6H 2S 4S 6S 8S TS 2D 4D 6D 8D TD",
    "2H AD",
)
# Seat 1 is void in clubs; seat 0 holds the Q♠ and low hearts.
MIXED = hands(
    "2C 4C 6C 8C 2H 4H 6H QS 2S 4S 2D 4D 6D",
    "TC QC AC 8H TH QH AH AS 6S 8S 8D TD QD",
    "TS AD",
)


def test_ruling_two_player_lowest_club_in_play_leads_2c_else_4c_else_6c() -> None:
    assert dealt(MOON).legal_plays() == [Card.parse("2C")]
    no_2c = hands(
        "AD 4C 6C 8C TC QC AC 8H TH QH AH QS AS",
        "2H 4H 6H 2S 4S 6S 8S TS 2D 4D 6D 8D TD",
        "QD 2C",
    )
    assert dealt(no_2c).legal_plays() == [Card.parse("4C")]
    no_2c_4c = hands(
        "AD QD 6C 8C TC QC AC 8H TH QH AH QS AS",
        "2H 4H 6H 2S 4S 6S 8S TS 2D 4D 6D 8D TD",
        "4C 2C",
    )
    game = dealt(no_2c_4c)
    assert game.current_player == 0
    assert game.legal_plays() == [Card.parse("6C")]


def test_ruling_two_player_no_first_trick_restriction() -> None:
    game = dealt(MOON)
    game.play(0, "2C")
    assert game.legal_plays() == game.hand(1)
    events = game.play(1, "2H")
    assert events[-1] == TrickWon(1, ((0, Card.parse("2C")), (1, Card.parse("2H"))), 1)


def test_ruling_two_player_queen_on_first_trick_allowed_whatever_the_options() -> None:
    for options in ({}, {"no_points_on_first_trick": True, "queen_breaks_hearts": True}):
        deal = hands(
            "2C 4C 6C 8C TC QC AC 8H TH QH AH 2S AS",
            "2H 4H 6H QS 4S 6S 8S TS 2D 4D 6D 8D TD",
            "QD AD",
        )
        game = dealt(deal, **options)
        game.play(0, "2C")
        assert Card.parse("QS") in game.legal_plays()
        game.play(1, "QS")
        assert game.tricks[0].winner == 0


def test_two_player_hearts_are_trump() -> None:
    game = dealt(MOON)
    game.play(0, "2C")
    events = game.play(1, "2H")
    won = events[-1]
    assert isinstance(won, TrickWon)
    assert won.seat == 1
    assert won.points == 1
    assert game.current_player == 1


def test_two_player_highest_heart_wins_a_heart_trick() -> None:
    game = dealt(MOON)
    game.play(0, "2C")
    game.play(1, "2S")
    game.play(0, "8H")
    events = game.play(1, "6H")
    assert events[-1] == TrickWon(0, ((0, Card.parse("8H")), (1, Card.parse("6H"))), 2)


def test_two_player_hearts_may_not_be_led_until_broken() -> None:
    game = dealt(MIXED)
    game.play(0, "2C")
    game.play(1, "TC")
    assert not game.hearts_broken
    assert game.current_player == 1
    assert all(c.suit != "H" for c in game.legal_plays())
    rejects(game, lambda: game.play(1, "AH"), "hearts_not_broken")


def test_two_player_queen_of_spades_may_be_played_any_time() -> None:
    game = dealt(MOON)
    game.play(0, "2C")
    game.play(1, "2D")
    assert Card.parse("QS") in game.legal_plays()


def test_ruling_two_player_hearts_break_when_a_player_cannot_follow_suit() -> None:
    game = dealt(MOON)
    game.play(0, "2C")
    events = game.play(1, "2S")
    assert HeartsBroken(1) in events
    assert game.hearts_broken
    assert Card.parse("8H") in game.legal_plays()


def test_ruling_two_player_queen_breaks_hearts_option_has_no_effect() -> None:
    game = dealt(MIXED, queen_breaks_hearts=True)
    game.play(0, "2C")
    game.play(1, "TC")
    events = game.play(1, "6S")
    events += game.play(0, "QS")
    assert not any(isinstance(e, HeartsBroken) for e in events)


def test_ruling_two_player_hearts_break_when_holding_only_hearts() -> None:
    # Seat 1 plays off its four clubs and diamonds; with only hearts left, hearts break.
    deal = hands(
        "2C 4C 6C 8C 2D 4D 6D 8D 2S 4S 6S 8S TS",
        "TC QC AC TD QD AD 2H 4H 6H 8H TH QH AH",
        "QS AS",
    )
    game = dealt(deal)
    plays = [(0, "2C"), (1, "TC"), (1, "QC"), (0, "4C"), (1, "AC"), (0, "6C")]
    plays += [(1, "TD"), (0, "2D"), (1, "QD"), (0, "4D")]
    for seat, card in plays:
        events = game.play(seat, card)
        assert not game.hearts_broken
    events = game.play(1, "AD")
    assert HeartsBroken(1) in events
    assert game.hearts_broken
    game.play(0, "6D")
    assert game.current_player == 1
    assert game.legal_plays() == game.hand(1)


def test_two_player_moon_is_taking_every_point_card_in_play() -> None:
    game = dealt(MOON)
    events = play_hand(game)
    assert MoonShot(0, None) in events
    hand = next(e for e in events if isinstance(e, HandScored))
    assert hand.points == (0, 20)
    assert hand.shooter == 0


def test_two_player_moon_excludes_dead_point_cards() -> None:
    game = dealt(MOON_DEAD_HEART)
    events = play_hand(game)
    hand = next(e for e in events if isinstance(e, HandScored))
    assert hand.points == (0, 20)
    assert game.hand_history[0].dead == (Card.parse("AD"), Card.parse("2H"))


def test_option_moon_does_not_apply_to_two_player() -> None:
    for moon in ("choose", "subtract_from_shooter"):
        game = dealt(MOON, moon=moon)
        events = play_hand(game)
        assert game.phase != "moon"
        assert MoonShot(0, None) in events
        assert game.scores == [0, 20]


def test_two_player_points_are_hearts_one_and_queen_thirteen() -> None:
    rules = two(target=10_000)
    for seed in range(8):
        game = Game(rules, seed=seed)
        events = play_hand(game)
        hand = next(e for e in events if isinstance(e, HandScored))
        if hand.shooter is None:
            dead = game.hand_history[-1].dead
            in_play = 7 - sum(c.suit == "H" for c in dead) + 13 * (Card.parse("QS") not in dead)
            assert sum(hand.points) == in_play


def test_two_player_first_to_reach_the_target_loses() -> None:
    game = with_scores(dealt(MOON), [90, 85])
    events = play_hand(game)
    assert events[-1] == GameOver((0,), (90, 105))


def test_two_player_both_reach_target_lower_total_wins() -> None:
    game = with_scores(dealt(MOON), [101, 85])
    assert play_hand(game)[-1] == GameOver((0,), (101, 105))


def test_two_player_both_reach_target_equal_totals_play_on() -> None:
    for ties in ("play_on", "share"):
        game = with_scores(dealt(MOON, ties=ties), [105, 85])
        events = play_hand(game)
        assert not any(isinstance(e, GameOver) for e in events)
        assert game.scores == [105, 105]
        assert game.hand_number == 2
