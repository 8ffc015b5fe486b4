"""How many commands one person may send: a small token bucket each.

A person may send a burst of commands, then one every few seconds. The first command over
that gets one polite answer; the rest are dropped without a word until the bucket has a
token again. Buckets that have filled up again are forgotten, so memory holds only the
people who sent commands in the last few seconds.

The same buckets pace buttons (`PRESSES`, `MOVES`: a seat's cards, which come faster) and
what a person has the bot post in a group (`GroupPosts`): each person's share of a group's
posts, and the group's own, within Telegram's pace for a group (20 a minute), so one
person's flood never stands in the line ahead of everyone else's answers.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from enum import Enum


class Verdict(Enum):
    ALLOW = "allow"
    WARN = "warn"
    """Over the limit for the first time since the last allowed command: say so once."""
    DROP = "drop"


@dataclass
class _Bucket:
    tokens: float
    at: float
    warned: bool = False


class CommandLimiter:
    """A token bucket per person: `burst` commands at once, then one per `every` seconds."""

    def __init__(
        self,
        burst: int = 5,
        every: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.burst = burst
        self.every = every
        self._clock = clock
        self._buckets: OrderedDict[Hashable, _Bucket] = OrderedDict()
        """Least recently used first: a bucket untouched for `burst * every` is full."""

    def check(self, user_id: Hashable) -> Verdict:
        """Take a token for one command of `user_id` (or of any key: a person in a chat, a
        chat), and say what to do with it."""
        now = self._clock()
        self._forget_full(now)
        bucket = self._buckets.get(user_id)
        if bucket is None:
            bucket = self._buckets[user_id] = _Bucket(float(self.burst), now)
        else:
            bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.at) / self.every)
            bucket.at = now
            self._buckets.move_to_end(user_id)
        if bucket.tokens >= 1.0:
            bucket.tokens -= 1.0
            bucket.warned = False
            return Verdict.ALLOW
        if bucket.warned:
            return Verdict.DROP
        bucket.warned = True
        return Verdict.WARN

    def dropping(self, key: Hashable) -> bool:
        """Whether a command of `key` would be dropped without a word now (told already,
        no token yet), asked without taking anything: a flood's updates are let go before
        anything else is done for them (`HeartsApplication.process_update`)."""
        bucket = self._buckets.get(key)
        if bucket is None or not bucket.warned:
            return False
        tokens = bucket.tokens + (self._clock() - bucket.at) / self.every
        return tokens < 1.0

    def _forget_full(self, now: float) -> None:
        refill = self.burst * self.every
        while self._buckets:
            oldest = next(iter(self._buckets.values()))
            if now - oldest.at < refill:
                return
            self._buckets.popitem(last=False)

    def __len__(self) -> int:
        """How many buckets are held (memory tests); full ones are forgotten first."""
        self._forget_full(self._clock())
        return len(self._buckets)


def presses(clock: Callable[[], float] = time.monotonic) -> CommandLimiter:
    """A person's button presses (the rules menu, Join, the language menu…): a burst of ten
    (a host going through the rules menu), then one a second."""
    return CommandLimiter(burst=10, every=1.0, clock=clock)


def moves(clock: Callable[[], float] = time.monotonic) -> CommandLimiter:
    """A person's presses of their seat's buttons (cards, pass, moon, the tracker): a hand
    played as fast as fingers go, a flood held to ten a second."""
    return CommandLimiter(burst=30, every=0.1, clock=clock)


class GroupPosts:
    """What the bot posts in a group because someone asked (a command's answer, a ▶ Replay):
    each person a burst of five, then one every ten seconds in that group, and the group
    twenty, then one every three seconds (Telegram's pace for a group, 20 a minute). One
    person's flood so takes at most a third of the group's pace: the others' answers
    (which may run a little ahead of it, `bot.telegram.pace.URGENT_BURST`) go at once."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.people = CommandLimiter(burst=5, every=10.0, clock=clock)
        self.chats = CommandLimiter(burst=20, every=3.0, clock=clock)

    def check(self, chat_id: int, user_id: int) -> Verdict:
        """Take a post of `user_id`'s in `chat_id`: ALLOW, WARN (the person's first over
        their share) or DROP (over it again, or the group over its own)."""
        verdict = self.people.check((chat_id, user_id))
        if verdict is not Verdict.ALLOW:
            return verdict
        return Verdict.ALLOW if self.chats.check(chat_id) is Verdict.ALLOW else Verdict.DROP
