"""What an adapter remembers per user or per delivery, bounded: a bot runs for months
and meets ever more users and updates, while only the recent ones matter."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from itertools import islice
from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Recent(OrderedDict[K, V]):
    """A map of the `cap` keys used last: each write or `get` keeps a key, and the one
    unused longest goes first.  Keys `keep` names (the players seated now, whose hands
    a miss would show wrongly rather than merely cost a refetch) are never dropped, so
    the map may stay over its cap while all the rest is in use."""

    def __init__(self, cap: int, keep: Callable[[], set[K]] = set) -> None:
        super().__init__()
        self.cap = cap
        self._keep = keep

    def __setitem__(self, key: K, value: V) -> None:
        super().__setitem__(key, value)
        self.move_to_end(key)
        if len(self) <= self.cap:
            return
        kept = self._keep()
        # the oldest first, and only as many as are over: a look at a few keys
        for old in list(islice((k for k in self if k not in kept), len(self) - self.cap)):
            del self[old]

    def get(self, key: K, default: V | None = None) -> V | None:  # type: ignore[override]
        if key in self:
            self.move_to_end(key)
            return super().__getitem__(key)
        return default

    def first_time(self, key: K, value: V) -> bool:
        """Remember `key`; False when it was known already (a delivery seen before)."""
        if key in self:
            return False
        self[key] = value
        return True
