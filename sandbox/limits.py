"""Telegram's flood limits as token buckets, so the double answers 429 where Telegram would."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Limit:
    """At most `burst` messages at once, refilled at `per_second` messages a second."""

    per_second: float
    burst: int

    @classmethod
    def per_minute(cls, count: int) -> Limit:
        return cls(per_second=count / 60.0, burst=count)


@dataclass(frozen=True)
class RateLimits:
    """The limits the double enforces on messages and edits; `None` switches one off.

    Defaults follow Telegram's published guidance: 20 messages a minute in a group, about
    one a second in a private chat (short bursts allowed), 30 a second overall.
    """

    group: Limit | None = Limit(per_second=20 / 60.0, burst=20)
    private: Limit | None = Limit(per_second=1.0, burst=5)
    overall: Limit | None = Limit(per_second=30.0, burst=30)

    @classmethod
    def off(cls) -> RateLimits:
        """No limit at all: for fast tests that do not look at flood control."""
        return cls(group=None, private=None, overall=None)


@dataclass
class _Bucket:
    limit: Limit
    tokens: float
    updated: float


@dataclass
class FloodControl:
    """Counts messages per chat and overall; `check` says how long to wait, 0 if none."""

    limits: RateLimits
    clock: Callable[[], float]
    _buckets: dict[tuple[str, int], _Bucket] = field(default_factory=dict)

    def _bucket(self, key: tuple[str, int], limit: Limit) -> _Bucket:
        now = self.clock()
        bucket = self._buckets.get(key)
        if bucket is None or bucket.limit != limit:
            bucket = _Bucket(limit, float(limit.burst), now)
            self._buckets[key] = bucket
        bucket.tokens = min(
            float(limit.burst), bucket.tokens + (now - bucket.updated) * limit.per_second
        )
        bucket.updated = now
        return bucket

    def _applicable(self, chat_id: int, is_group: bool) -> list[tuple[tuple[str, int], Limit]]:
        found: list[tuple[tuple[str, int], Limit]] = []
        if self.limits.overall is not None:
            found.append((("overall", 0), self.limits.overall))
        chat_limit = self.limits.group if is_group else self.limits.private
        if chat_limit is not None:
            found.append((("chat", chat_id), chat_limit))
        return found

    def check(self, chat_id: int, is_group: bool) -> int:
        """Seconds to wait before a message to `chat_id` is allowed, or 0 (and count it)."""
        buckets = [self._bucket(key, limit) for key, limit in self._applicable(chat_id, is_group)]
        wait = 0.0
        for bucket in buckets:
            if bucket.tokens < 1.0:
                wait = max(wait, (1.0 - bucket.tokens) / bucket.limit.per_second)
        if wait > 0:
            return max(1, math.ceil(wait))
        for bucket in buckets:
            bucket.tokens -= 1.0
        return 0
