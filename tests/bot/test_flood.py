"""The limiter's buckets (issue 50, item 5): a person's presses and moves, their share of a
group's posts and the group's own, and a flood let go without taking anything."""

from __future__ import annotations

from bot.flood import CommandLimiter, GroupPosts, Verdict, moves, presses


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_person_over_their_share_of_a_group_is_told_once_then_dropped() -> None:
    clock = Clock()
    posts = GroupPosts(clock)
    assert [posts.check(-1, 7) for _ in range(5)] == [Verdict.ALLOW] * 5
    assert posts.check(-1, 7) is Verdict.WARN
    assert posts.check(-1, 7) is Verdict.DROP
    # Someone else in the same group, and the same person in another, are not held back.
    assert posts.check(-1, 8) is Verdict.ALLOW and posts.check(-2, 7) is Verdict.ALLOW
    clock.now += 10.0  # one more post of theirs every ten seconds
    assert posts.check(-1, 7) is Verdict.ALLOW and posts.check(-1, 7) is Verdict.WARN


def test_a_group_has_twenty_posts_at_once_then_one_every_three_seconds() -> None:
    clock = Clock()
    posts = GroupPosts(clock)
    allowed = [posts.check(-1, person) for person in range(30)]
    assert allowed.count(Verdict.ALLOW) == 20 and set(allowed[20:]) == {Verdict.DROP}
    clock.now += 3.0
    assert posts.check(-1, 99) is Verdict.ALLOW and posts.check(-1, 98) is Verdict.DROP


def test_dropping_asks_without_taking() -> None:
    clock = Clock()
    limiter = CommandLimiter(burst=2, every=1.0, clock=clock)
    assert not limiter.dropping(7)  # never seen
    assert limiter.check(7) is Verdict.ALLOW and limiter.check(7) is Verdict.ALLOW
    assert not limiter.dropping(7)  # over, but not told yet: the next one is told
    assert limiter.check(7) is Verdict.WARN
    assert all(limiter.dropping(7) for _ in range(100))  # asking takes nothing
    clock.now += 1.0
    assert not limiter.dropping(7) and limiter.check(7) is Verdict.ALLOW


def test_moves_come_faster_than_other_presses() -> None:
    clock = Clock()
    menu, seat = presses(clock), moves(clock)
    assert sum(menu.check(1) is Verdict.ALLOW for _ in range(40)) == 10
    assert sum(seat.check(1) is Verdict.ALLOW for _ in range(40)) == 30
