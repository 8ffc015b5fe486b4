"""How many commands one person may send: a small token bucket each.

A person may send a burst of commands, then one every few seconds. The first command over
that gets one polite answer; the rest are dropped without a word until the bucket has a
token again. Buckets that have filled up again are forgotten, so memory holds only the
people who sent commands in the last few seconds.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
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
        self._buckets: OrderedDict[int, _Bucket] = OrderedDict()
        """Least recently used first: a bucket untouched for `burst * every` is full."""

    def check(self, user_id: int) -> Verdict:
        """Take a token for one command of `user_id`, and say what to do with it."""
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
