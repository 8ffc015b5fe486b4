"""Ratings are OpenSkill's own numbers: each test rates the same ranks and weights with
`openskill` directly and expects the very same floats."""

from __future__ import annotations

import random

import pytest
from openskill_reference import openskill_rate

from ratings import (
    COMPUTER_PLAYERS,
    START,
    SeatResult,
    Skill,
    level_of,
    pool_of,
    rate_game,
    weights_for,
)


def test_a_game_moves_each_player_as_openskill_does() -> None:
    rng = random.Random(7)
    for _ in range(50):
        n = rng.choice((3, 4, 5, 6))
        before = {p: Skill(rng.uniform(15, 35), rng.uniform(1, 8.4)) for p in range(1, n + 1)}
        ranks = [rng.randrange(0, 150) for _ in range(n)]
        seats = [SeatResult(i, i + 1, ranks[i]) for i in range(n)]
        changes = rate_game(seats, before)
        want = openskill_rate([before[p] for p in range(1, n + 1)], ranks)
        assert [c.after for c in changes] == want
        assert [c.before for c in changes] == [before[p] for p in range(1, n + 1)]


def test_a_newcomer_starts_at_openskills_prior_and_1000() -> None:
    assert Skill(25.0, 25.0 / 3.0) == START
    assert START.shown == 1000
    changes = rate_game([SeatResult(0, 1, 10), SeatResult(1, 2, 20)], {})
    assert changes[0].after.mu > 25 > changes[1].after.mu


def test_equal_totals_are_a_tie() -> None:
    seats = [SeatResult(0, 1, 40), SeatResult(1, 2, 40), SeatResult(2, 3, 90), SeatResult(3, 4, 5)]
    changes = rate_game(seats, {})
    assert changes[0].after == changes[1].after  # tied, from the same rating: the same
    assert [c.after for c in changes] == openskill_rate([START] * 4, [40, 40, 90, 5])
    assert changes[3].after.mu > changes[0].after.mu > changes[2].after.mu


@pytest.mark.parametrize("place", [0, 3])
def test_partial_play_moves_a_person_by_their_share(place: int) -> None:
    """Half the moves their own: half the change, whether they gained or lost."""
    ranks = [10, 30, 50, 70]
    whole = rate_game([SeatResult(i, i + 1, ranks[i]) for i in range(4)], {})
    seats = [SeatResult(i, i + 1, ranks[i], 0.5 if i == place else 1.0) for i in range(4)]
    half = rate_game(seats, {})
    full_change = whole[place].after.mu - START.mu
    assert half[place].after.mu - START.mu == pytest.approx(full_change / 2)
    # Less certainty gained than a whole game gives.
    assert whole[place].after.sigma < half[place].after.sigma
    # The others are rated as if the seat were played whole.
    for i in range(4):
        if i != place:
            assert half[i].after == whole[i].after
    # And it is what OpenSkill returns for these weights: a gain times the share, a loss
    # divided by 1 / share.
    weights = weights_for(seats, {})
    assert weights is not None
    assert weights[place] == (0.5 if place == 0 else 2.0)
    assert [c.after for c in half] == openskill_rate([START] * 4, ranks, weights)
    assert half[place].weight == 0.5


def test_computer_players_are_one_identity_per_level() -> None:
    standard = COMPUTER_PLAYERS["standard"]
    expert = COMPUTER_PLAYERS["expert"]
    assert level_of(expert) == "expert" and level_of(12345) is None
    before = {standard: Skill(24.0, 3.0), expert: Skill(30.0, 2.0)}
    seats = [
        SeatResult(0, 99, 50),
        SeatResult(1, standard, 20),
        SeatResult(2, standard, 80),
        SeatResult(3, expert, 10),
    ]
    changes = rate_game(seats, before)
    assert [c.player for c in changes] == [99, standard, expert]
    per_seat = openskill_rate(
        [START, before[standard], before[standard], before[expert]], [50, 20, 80, 10]
    )
    # One identity in two seats: each seat rated from the level's rating before the
    # game; the level takes the mean of the two.
    s = changes[1]
    assert s.before == before[standard]
    assert s.after.mu == pytest.approx(
        before[standard].mu + ((per_seat[1].mu - 24.0) + (per_seat[2].mu - 24.0)) / 2
    )
    assert s.after.sigma == pytest.approx((per_seat[1].sigma + per_seat[2].sigma) / 2)
    assert changes[2].after == per_seat[3]


def test_two_player_hearts_has_its_own_pool() -> None:
    assert pool_of(2) == "two"
    assert {pool_of(n) for n in (3, 4, 5, 6)} == {"main"}


def test_a_share_outside_zero_to_one_is_refused() -> None:
    with pytest.raises(ValueError):
        rate_game([SeatResult(0, 1, 1, 0.0), SeatResult(1, 2, 2)], {})


def test_shown_rating_is_conservative() -> None:
    assert Skill(30.0, 2.0).shown == round(1000 + 20 * (30.0 - 6.0))
    assert Skill(30.0, 2.0).spread == 40
