"""The daily deal: the day's number and key, its deals, computers whose randomness is fixed
per deal (the same moves give the same game), and matchpoints."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engine import Game, Move, daily
from engine.fair import verify
from engine.players import StandardPlayer

SECRET = bytes(range(32))


def at(text: str) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp()


def test_a_day_runs_from_midnight_to_midnight_utc() -> None:
    assert daily.day_number(at("2026-01-01T00:00:00")) == 1
    assert daily.day_number(at("2026-01-01T23:59:59")) == 1
    assert daily.day_number(at("2026-01-02T00:00:00")) == 2
    assert daily.day_number(at("2026-11-28T05:00:00")) == 332
    assert daily.day_start(332) == at("2026-11-28T00:00:00")
    assert str(daily.day_date(332)) == "2026-11-28"


def test_the_days_key_comes_from_the_secret_and_the_day() -> None:
    assert daily.day_key(SECRET, 5) == daily.day_key(SECRET, 5)
    assert daily.day_key(SECRET, 5) != daily.day_key(SECRET, 6)
    assert daily.day_key(SECRET, 5) != daily.day_key(bytes(32), 5)
    with pytest.raises(ValueError):
        daily.day_key(b"short", 5)


def test_four_hands_passing_left_right_across_hold_then_the_game_ends() -> None:
    key = daily.day_key(SECRET, 9)
    game = Game(daily.RULES, deal_key=key)
    directions = []
    while game.phase != "over":
        directions.append(game.pass_direction) if game.hand_number > len(directions) else None
        play_one(game, key, StandardPlayer(3), computers=False)
    assert directions == ["left", "right", "across", "hold"]
    assert len(game.hand_history) == 4
    low = min(game.scores)
    assert game.winners == tuple(s for s, t in enumerate(game.scores) if t == low)


def test_the_published_seeds_verify_against_the_commitments_each_hand_showed() -> None:
    key = daily.day_key(SECRET, 9)
    game = Game(daily.RULES, deal_key=key)
    shown = []
    while game.phase != "over":
        if len(shown) < game.hand_number:
            proof = game.deal_proof()
            assert proof is not None
            shown.append((proof.commitment, [h for h in game.hands]))
        play_one(game, key, StandardPlayer(3), computers=False)
    for (commitment, hands), published in zip(shown, daily.proofs(key), strict=True):
        verdict = verify(published.seed, commitment)
        assert verdict.matches
        assert verdict.hands == hands


def play_one(game: Game, key: bytes, person: StandardPlayer, computers: bool = True) -> Move:
    """One decision: the person's at seat 0, or the day's computer at its seat (or, where
    a test looks at the deals and not the play, ``computers`` False, the person's player)."""
    seat = game.waiting_for()[0]
    view = game.view(seat)
    if seat == daily.PERSON_SEAT or not computers:
        player: object = person
    else:
        player = daily.computer(daily.computer_seed(key, game.hand_number, seat))
    if game.phase == "pass":
        move = Move.pass_cards(seat, player.choose_pass(view, 1))  # type: ignore[attr-defined]
    elif game.phase == "moon":
        move = Move.moon(seat, player.choose_moon(view, 1))  # type: ignore[attr-defined]
    else:
        # A budget of 1 ms: the computers play out all their deals all the same.
        move = Move.play(seat, player.choose_play(view, 1))  # type: ignore[attr-defined]
    move.apply(game)
    return move


def whole_game(key: bytes, person: StandardPlayer, hands: int = 4) -> list[Move]:
    game = Game(daily.RULES, deal_key=key)
    moves = []
    while game.phase != "over" and game.hand_number <= hands:
        moves.append(play_one(game, key, person))
    return moves


def test_two_people_who_make_the_same_moves_get_the_same_game() -> None:
    key = daily.day_key(SECRET, 12)
    first = whole_game(key, StandardPlayer(1), hands=1)
    second = whole_game(key, StandardPlayer(1), hands=1)
    assert first == second
    # Someone else, who plays differently, gets the same deals all the same.
    other = whole_game(key, StandardPlayer(99), hands=1)
    a, b = Game(daily.RULES, deal_key=key), Game(daily.RULES, deal_key=key)
    assert a.hands == b.hands
    assert other[0].kind == "pass" and first[0].kind == "pass"


def test_the_computers_decide_from_the_deal_not_the_clock() -> None:
    key = daily.day_key(SECRET, 12)
    game = Game(daily.RULES, deal_key=key)
    while game.phase != "play" or game.current_player == daily.PERSON_SEAT:
        play_one(game, key, StandardPlayer(1))
    seat = game.current_player
    assert seat is not None
    view = game.view(seat)
    seed = daily.computer_seed(key, game.hand_number, seat)
    fast = daily.computer(seed).choose_play(view, 0.001)
    slow = daily.computer(seed).choose_play(view, 5000)
    assert fast == slow
    assert daily.computer_seed(key, 1, 1) != daily.computer_seed(key, 1, 2)
    assert daily.computer_seed(key, 1, 1) != daily.computer_seed(key, 2, 1)


def test_matchpoints_one_for_each_result_beaten_half_for_each_tie() -> None:
    results = {1: [0], 2: [5], 3: [5], 4: [13]}
    # 0 beats three others: 100 %; 5 beats 13 and ties one: 1.5 of 3; 13 beats none.
    assert [daily.hand_marks(results, p) for p in (1, 2, 3, 4)] == [[100.0], [50.0], [50.0], [0.0]]


def test_the_days_score_is_the_mean_over_all_four_hands_an_unplayed_one_scoring_zero() -> None:
    results = {1: [0, 26, 3, 0], 2: [4, 0, 3, -26], 3: [4, 0]}
    marks = daily.scores(results)
    assert daily.hand_marks(results, 1) == [100.0, 0.0, 50.0, 0.0]
    assert marks[1] == pytest.approx(37.5)
    assert daily.hand_marks(results, 2) == [25.0, 75.0, 50.0, 100.0]
    assert daily.hand_marks(results, 3) == [25.0, 75.0]
    # Two hands played (25 % and 75 %), two not: (25 + 75 + 0 + 0) / 4, not their mean 50 %.
    assert marks[3] == pytest.approx(25.0)
    assert daily.UNPLAYED == 0.0


def test_stopping_never_raises_a_days_score() -> None:
    """Whatever the field, a hand played scores at least what a hand not played does: each
    prefix of a person's hands scores no more than the whole game."""
    results = {1: [13, 0, 26, 5], 2: [0, 26, 0, 0], 3: [26, 26, 26, 26], 4: [5, 5, 5, 5]}
    for who, points in results.items():
        whole = daily.scores(results)[who]
        for stop in range(1, daily.HANDS):
            stopped = daily.scores({**results, who: points[:stop]})[who]
            assert stopped <= whole + 1e-9


def test_alone_on_a_hand_is_fifty_percent() -> None:
    assert daily.scores({7: [13, 2, 0, 0]}) == {7: 50.0}
    assert daily.scores({7: [13, 2]}) == {7: 25.0}  # two hands not played: 0 % each
    assert daily.scores({7: []}) == {}


def test_a_game_of_fixed_hands_reads_back_and_old_rules_read_the_same() -> None:
    from engine import Rules

    assert "hands" not in Rules().to_dict()
    assert Rules.from_dict(daily.RULES.to_dict()) == daily.RULES
    with pytest.raises(ValueError):
        Rules(hands=0)
