"""The pace the outbox keeps, so that Telegram need not refuse it (429).

Why a module of its own: the limits and the token bucket that meets them are
arithmetic, apart from the queue that waits on them.  Token buckets per chat (about
1 message/s), per group (20/min) and overall (30/s) delay requests before Telegram
would refuse them; `Throttle.off()` (tests) sends at once.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Throttle:
    """The pace the outbox keeps (Telegram's documented limits, slightly under)."""

    per_chat_per_second: float = 1.0
    per_chat_burst: int = 2
    per_group_per_minute: float = 20.0
    per_group_burst: int = 10
    global_per_second: float = 30.0
    global_burst: int = 30
    enabled: bool = True

    @classmethod
    def off(cls) -> Throttle:
        return cls(enabled=False)


@dataclass
class _Bucket:
    capacity: float
    rate: float
    tokens: float
    stamp: float

    def reserve(self, now: float) -> float:
        """Take one token (maybe on credit); return how long to wait for it."""
        self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        self.tokens -= 1
        return 0.0 if self.tokens >= 0 else -self.tokens / self.rate

    def full(self, now: float) -> bool:
        """Refilled: a new bucket made now would pace exactly like this one."""
        return self.tokens + (now - self.stamp) * self.rate >= self.capacity
