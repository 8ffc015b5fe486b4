"""`Membership`: Telegram asked once per person and group in a while (a yes for a
minute, a no for twenty seconds), and no more people remembered than `MAX_KEPT`."""

from __future__ import annotations

import pytest

import bot.live.membership
from bot.live.membership import MEMBER_TTL, STRANGER_TTL, Membership


class Telegram:
    """Telegram's answers to ``getChatMember``: the members of each chat, and the asks."""

    def __init__(self, members: set[tuple[int, int]]) -> None:
        self.members = members
        self.asked: list[tuple[int, int]] = []

    async def is_member(self, chat_id: int, user_id: int) -> bool:
        self.asked.append((chat_id, user_id))
        return (chat_id, user_id) in self.members


async def test_an_answer_is_remembered_for_a_while() -> None:
    now = [1000.0]
    telegram = Telegram({(-1, 7)})
    membership = Membership(telegram.is_member, clock=lambda: now[0])
    for _ in range(5):
        assert await membership.is_member(-1, 7)
        assert not await membership.is_member(-1, 8)
    assert telegram.asked == [(-1, 7), (-1, 8)] and membership.asked == 2
    assert not await membership.is_member(-2, 7)  # another group is asked about apart
    telegram.members.add((-1, 8))  # Eight joins: known within twenty seconds
    now[0] += STRANGER_TTL + 1
    assert await membership.is_member(-1, 8) and await membership.is_member(-1, 7)
    assert telegram.asked.count((-1, 7)) == 1
    telegram.members.discard((-1, 7))  # Seven leaves: known within a minute
    now[0] += MEMBER_TTL
    assert not await membership.is_member(-1, 7)


async def test_no_more_people_are_kept_than_the_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bot.live.membership, "MAX_KEPT", 3)
    telegram = Telegram({(-1, n) for n in range(10)})
    membership = Membership(telegram.is_member)
    for n in range(10):
        assert await membership.is_member(-1, n)
    assert len(membership) == 3
    await membership.is_member(-1, 9)  # the most recent is still known
    assert len(telegram.asked) == 10
    await membership.is_member(-1, 0)  # the least recent was forgotten: asked again
    assert len(telegram.asked) == 11
