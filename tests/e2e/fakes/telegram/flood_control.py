"""Flood control as Telegram applies it: per-chat and global message budgets that
answer 429 with ``retry_after`` once spent.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    pass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tests.e2e.fakes.telegram.chats import FakeChat
    from tests.e2e.fakes.telegram.protocol import RateLimits


@dataclass
class _Bucket:
    capacity: float
    rate: float  # tokens per second
    tokens: float
    stamp: float

    def wait(self, now: float) -> float:
        self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        return 0.0 if self.tokens >= 1 else (1 - self.tokens) / self.rate


class _FloodControl:
    """Token buckets per chat, per group and overall; see ``RateLimits``."""

    def __init__(self) -> None:
        self._buckets: dict[tuple[str, int, float, float], _Bucket] = {}

    def _bucket(self, kind: str, key: int, capacity: float, rate: float, now: float) -> _Bucket:
        ident = (kind, key, capacity, rate)
        if ident not in self._buckets:
            self._buckets[ident] = _Bucket(capacity, rate, capacity, now)
        return self._buckets[ident]

    def admit(self, limits: RateLimits, chat: FakeChat | None) -> tuple[int, list[_Bucket]]:
        """``(retry_after, [])`` when refused, else ``(0, buckets)`` to ``spend`` on success.

        Only requests that succeed are counted: a refused edit posts nothing.
        """
        now = time.monotonic()
        buckets = [self._bucket("global", 0, limits.global_burst, limits.global_per_second, now)]
        if chat is not None:
            buckets.append(
                self._bucket(
                    "chat", chat.id, limits.per_chat_burst, limits.per_chat_per_second, now
                )
            )
            if chat.is_group:
                per_minute = limits.per_group_per_minute
                buckets.append(self._bucket("group", chat.id, per_minute, per_minute / 60, now))
        wait = max(bucket.wait(now) for bucket in buckets)
        if wait > 0:
            return max(1, math.ceil(wait)), []
        return 0, buckets

    @staticmethod
    def spend(buckets: list[_Bucket]) -> None:
        for bucket in buckets:
            bucket.tokens -= 1
