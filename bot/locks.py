"""Locks by key (a player, a host in a chat, a chat's settings), kept only while in use.

A lock per key that stayed in a dict once made would grow with every player the bot
ever saw; one dropped while another task still waited on it would let a third task
take a new lock for the same key and run beside the waiter.  So each lock counts its
users and goes with the last.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)


class KeyedLocks(Generic[K]):
    def __init__(self) -> None:
        self._locks: dict[K, tuple[asyncio.Lock, int]] = {}  # lock, users

    def __len__(self) -> int:
        return len(self._locks)

    @contextlib.asynccontextmanager
    async def hold(self, keys: list[K]) -> AsyncIterator[None]:
        """Hold the locks of `keys`, taken in one order (sorted): two holders of
        overlapping keys cannot deadlock."""
        ordered = sorted(set(keys))  # type: ignore[type-var]
        for k in ordered:
            lock, users = self._locks.get(k) or (asyncio.Lock(), 0)
            self._locks[k] = (lock, users + 1)
        held: list[asyncio.Lock] = []
        try:
            for k in ordered:
                lock = self._locks[k][0]
                await lock.acquire()
                held.append(lock)
            yield
        finally:
            for lock in reversed(held):
                lock.release()
            for k in ordered:
                lock, users = self._locks[k]
                if users > 1:
                    self._locks[k] = (lock, users - 1)
                else:
                    del self._locks[k]
