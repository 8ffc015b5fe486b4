"""The rules of events without Telegram: draws, places, advancing, ranking, times, parsing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.tournaments.parsing import parse_new
from bot.tournaments.plan import (
    SeatResult,
    TablePlan,
    advancing,
    draw,
    due_reminders,
    duplicate_deals,
    final_ranking,
    next_due,
    places,
    plan_tables,
    rules_for,
    table_seed,
)
from engine import Game, Rules

STANDARD = Rules()


def allowed(rules: Rules):  # type: ignore[no-untyped-def]
    return lambda n: rules_for(rules, n) is not None


@pytest.mark.parametrize(
    ("players", "resized", "with_computers"),
    [
        (13, [5, 4, 4], [(4, 0), (3, 1), (3, 1), (3, 1)]),
        (12, [4, 4, 4], [(4, 0), (4, 0), (4, 0)]),
        (6, [3, 3], [(3, 1), (3, 1)]),
        (5, [5], [(3, 1), (2, 2)]),
        (7, [4, 3], [(4, 0), (3, 1)]),
        (10, [4, 3, 3], [(4, 0), (3, 1), (3, 1)]),
        (3, [3], [(3, 1)]),
        (2, [(2, 2)], [(2, 2)]),
    ],
)
def test_tables_absorb_leftovers_by_resizing_or_with_computers(
    players: int, resized: list[object], with_computers: list[tuple[int, int]]
) -> None:
    plan = plan_tables(players, 4, allowed(STANDARD), computer_fill=False)
    expected = [TablePlan(*p) if isinstance(p, tuple) else TablePlan(p) for p in resized]  # type: ignore[arg-type]
    assert plan == expected
    assert plan_tables(players, 4, allowed(STANDARD), computer_fill=True) == [
        TablePlan(h, c) for h, c in with_computers
    ]
    assert sum(p.humans for p in plan) == players


def test_complex_hearts_tables_cannot_resize_so_computers_fill() -> None:
    complex_rules = Rules(variant="complex")
    assert rules_for(complex_rules, 5) is None
    assert plan_tables(13, 4, allowed(complex_rules), computer_fill=False) == [
        TablePlan(4),
        TablePlan(3, 1),
        TablePlan(3, 1),
        TablePlan(3, 1),
    ]


def test_the_draw_is_a_seeded_shuffle_of_everyone() -> None:
    plan = plan_tables(13, 4, allowed(STANDARD), computer_fill=False)
    first = draw(list(range(13)), plan, seed="x:1")
    assert first == draw(list(reversed(range(13))), plan, seed="x:1")
    assert first != draw(list(range(13)), plan, seed="x:2")
    assert sorted(u for table in first for u in table if u is not None) == list(range(13))
    assert [len(t) for t in first] == [5, 4, 4]
    assert draw([1, 2, 3], [TablePlan(3, 1)], seed=1)[0][3] is None


def test_seeding_by_rating_puts_the_strongest_at_different_tables() -> None:
    plan = [TablePlan(4, 0), TablePlan(4, 0), TablePlan(3, 1)]
    players = list(range(1, 12))
    strength = {p: float(p) for p in players}  # 11 is the strongest
    tables = draw(players, plan, seed="cup:1", strength=strength)
    at = {p: i for i, seats in enumerate(tables) for p in seats if p is not None}
    # The three strongest at three tables, the next three too (snake: 11 10 9 | 8 7 6).
    assert {at[11], at[10], at[9]} == {0, 1, 2}
    assert {at[8], at[7], at[6]} == {0, 1, 2}
    assert at[11] == at[6] and at[9] == at[8]
    assert [sum(p is not None for p in seats) for seats in tables] == [4, 4, 3]
    assert tables[2][3] is None
    # The seats at each table are shuffled, and the same seed gives the same draw.
    assert tables == draw(list(reversed(players)), plan, seed="cup:1", strength=strength)
    # Without ratings, the draw is the seeded shuffle it always was.
    assert draw(players, plan, seed="cup:1") == draw(players, plan, seed="cup:1", strength=None)


def test_event_new_reads_seeding() -> None:
    now = datetime(2026, 11, 1, tzinfo=UTC)
    assert parse_new(["seeding=rating"], "UTC", now).options.seeding == "rating"
    assert parse_new([], "UTC", now).options.seeding == "random"
    with pytest.raises(ValueError):
        parse_new(["seeding=height"], "UTC", now)


def test_duplicate_tables_share_seed_and_deals() -> None:
    assert table_seed(7, 1, 1, True) == table_seed(7, 1, 2, True)
    assert table_seed(7, 1, 1, False) != table_seed(7, 1, 2, False)
    seed = table_seed(7, 1, 1, True)
    deals = duplicate_deals(STANDARD, seed, hands=3)
    assert deals == duplicate_deals(STANDARD, seed, hands=3)
    game = Game(STANDARD, seed=seed, deals=deals)
    assert [c.code for c in game.hand(0)] == deals[0][0]


def test_places_use_totals_then_countback_then_the_draw() -> None:
    # Seats 1 and 2 both end on 10; seat 2 took fewer points in the last hand.
    hands = [[0, 4, 9, 13], [26, 6, 1, 0]]
    assert places(STANDARD, [26, 10, 10, 13], hands, seed=1) == [4, 2, 1, 3]
    same = places(STANDARD, [5, 5, 8, 8], [[5, 5, 8, 8]], seed=1)
    assert sorted(same) == [1, 2, 3, 4] and {same[2], same[3]} == {3, 4}


def result(table: int, seat: int, user: int | None, total: int, place: int, ok: bool = True):  # type: ignore[no-untyped-def]
    return SeatResult(table, seat, user, total, place, ok and user is not None)


def test_advancing_skips_no_shows_and_computers_and_always_shrinks() -> None:
    results = [
        result(1, 0, 10, 3, 1, ok=False),  # the no-show whose computer won
        result(1, 1, 11, 8, 2),
        result(1, 2, None, 9, 3),
        result(1, 3, 12, 20, 4),
        result(2, 0, 20, 0, 1),
        result(2, 1, 21, 5, 2),
        result(2, 2, 22, 21, 3),
    ]
    going = advancing(STANDARD, results, per_table=2, overall=None, table_size=4, seed=1)
    assert set(going) == {11, 12, 20, 21}
    # Everyone through would not shrink the field: one fewer per table.
    small = [result(1, 0, 1, 0, 1), result(1, 1, 2, 9, 2), result(2, 0, 3, 1, 1)]
    assert set(advancing(STANDARD, small, per_table=2, overall=None, table_size=4, seed=1)) == {
        1,
        3,
    }
    overall = advancing(STANDARD, results, per_table=2, overall=3, table_size=4, seed=1)
    assert overall == [20, 21, 11]  # place 1, then place 2 by the lower total


def test_final_ranking_puts_the_final_first_and_earlier_rounds_after() -> None:
    round1 = [
        result(1, 0, 1, 0, 1),
        result(1, 1, 2, 5, 2),
        result(1, 2, 3, 9, 3),
        result(2, 0, 4, 2, 1),
        result(2, 1, 5, 3, 2, ok=False),
        result(2, 2, 6, 7, 3),
    ]
    final = [result(1, 0, 4, 1, 1), result(1, 1, 1, 6, 2)]
    assert final_ranking(STANDARD, [round1, final], seed=1) == [4, 1, 2, 6, 3, 5]


def test_reminders_are_due_once_before_the_start_and_not_for_late_events() -> None:
    start = datetime(2031, 6, 1, 12, tzinfo=UTC)
    created = start - timedelta(days=3)
    assert due_reminders(start, created, start - timedelta(hours=25), set()) == []
    assert due_reminders(start, created, start - timedelta(hours=2), set()) == ["day"]
    assert due_reminders(start, created, start - timedelta(minutes=5), {"day"}) == ["hour"]
    assert due_reminders(start, created, start, set()) == []
    assert due_reminders(start, start - timedelta(hours=3), start - timedelta(hours=2), set()) == []
    assert next_due(start, None, created, created, set()) == start - timedelta(days=1)
    assert next_due(start, None, created, start - timedelta(hours=2), {"day"}) == start - timedelta(
        hours=1
    )


def test_event_new_reads_name_time_zone_and_options() -> None:
    now = datetime(2026, 11, 1, tzinfo=UTC)
    request = parse_new(
        ["Spring Cup", "2026-12-01", "18:00", "Asia/Kolkata", "size=5", "top=8", "only=@A,@b"],
        "UTC",
        now,
    )
    assert request.name == "Spring Cup"
    assert request.starts_at == datetime(2026, 12, 1, 12, 30, tzinfo=UTC)
    assert request.time_zone == "Asia/Kolkata"
    assert request.options.table_size == 5 and request.options.advance_overall == 8
    assert request.options.allowed_usernames == ("a", "b")
    assert parse_new([], "Europe/Berlin", now).name == "Hearts Cup"
    for bad in (["size=9"], ["advance=4"], ["Mars/Base"], ["2020-01-01", "10:00"], ["colour=red"]):
        with pytest.raises(ValueError):
            parse_new(bad, "UTC", now)
