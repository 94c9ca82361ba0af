"""The outbox's queues: one per chat, each worked by its own task, in order and at pace.

Why a module of its own: this is the bookkeeping every other part of the `outbox`
leans on (which chats have a queue, how many ops wait, when a chat is idle enough to
forget), kept apart from what a request does (`sending`) and what is queued
(`outbox`):

- **Order.** A chat's operations run one at a time, in the order they were queued
  (a deal's result before the next deal's table message).
- **Rate.** The `throttle` module's token buckets delay requests before Telegram would
  refuse them (`_pace`); a 429 anyway is honoured by `sending`.
- **Memory.** A chat's queue lives while it has work: one idle for `idle_after`
  seconds (and its pace recovered) is dropped, so a bot that wrote to a hundred
  thousand private chats in a year holds only the busy ones; a blocked chat is
  remembered by its id alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from telegram import Bot

from .content import Handle
from .ops import ChatQueue, Op, Stats
from .requests import Contact
from .throttle import Throttle, _Bucket


class ChatQueues:
    """The outbox's state, and its queues' life: made, run, paced, blocked, dropped.

    Its ``__init__`` is `Outbox`'s: the state every layer shares is set up here, once."""

    def __init__(
        self,
        bot: Bot,
        *,
        throttle: Throttle | None = None,
        on_posted: Callable[[Handle], Awaitable[None]] | None = None,
        on_refused: Callable[[int], None] | None = None,
        on_topic_refused: Callable[[int, int | None], None] | None = None,
        on_migrated: Callable[[int, int], None] | None = None,
        on_reach: Callable[[bool], None] | None = None,
        max_attempts: int = 5,
        idle_after: float = 60.0,
    ) -> None:
        self.bot = bot
        self.idle_after = idle_after
        self.throttle = throttle or Throttle()
        self.on_posted = on_posted
        self.on_refused = on_refused
        self.on_topic_refused = on_topic_refused
        self.on_migrated = on_migrated
        self.max_attempts = max_attempts
        self.stats = Stats()
        #: Chats with a worker (or work) now.  A chat whose worker went idle is
        #: dropped (`_forget_idle`): a bot runs for months, and every player's private
        #: chat would otherwise stay here for good.
        self._chats: dict[int, ChatQueue] = {}
        self._blocked: set[int] = set()  # blocked chats that were dropped while idle
        self._moved: dict[int, int] = {}  # old chat id -> the id it has now
        self._pending = 0
        self._idle = asyncio.Event()
        self._idle.set()
        self._global = _Bucket(
            self.throttle.global_burst,
            self.throttle.global_per_second,
            self.throttle.global_burst,
            time.monotonic(),
        )
        self._closed = False
        self._contact = Contact(on_reach)  # whether Telegram answers, and when it last did

    def current_chat(self, chat_id: int) -> int:
        """The id a chat has now (`chat_id` itself unless it moved)."""
        return self._moved.get(chat_id, chat_id)

    def blocked(self, chat_id: int) -> bool:
        chat_id = self.current_chat(chat_id)
        chat = self._chats.get(chat_id)
        return chat.blocked if chat is not None else chat_id in self._blocked

    def unblock(self, chat_id: int) -> None:
        chat_id = self.current_chat(chat_id)
        self._blocked.discard(chat_id)
        chat = self._chats.get(chat_id)
        if chat is not None:
            chat.blocked = False

    def block(self, chat_id: int) -> None:
        """Telegram said the chat refuses the bot (a ``my_chat_member`` update): drop
        what is queued there and send nothing more until `unblock`."""
        chat_id = self.current_chat(chat_id)
        chat = self._chats.get(chat_id)
        if chat is None:
            self._blocked.add(chat_id)  # nothing queued there to drop
        else:
            self._block(chat)

    def _block(self, chat: ChatQueue) -> None:
        chat.blocked = True
        for other in list(chat.ops):
            if other.kind != "call":
                chat.ops.remove(other)
                if other.handle is not None:
                    other.handle.dead = True
                self._done()

    def _enqueue(self, chat_id: int, op: Op) -> None:
        if self._closed:
            return
        chat_id = self.current_chat(chat_id)
        if op.kind != "call" and self.blocked(chat_id):
            if op.handle is not None:
                op.handle.dead = True
            return
        chat = self._chat(chat_id)
        chat.ops.append(op)
        self._pending += 1
        self._idle.clear()
        self._run(chat)

    def _run(self, chat: ChatQueue) -> None:
        """Make sure `chat` has a worker, and wake it."""
        if chat.task is None or chat.task.done():
            chat.task = asyncio.get_running_loop().create_task(
                self._worker(chat), name=f"tg-outbox:{chat.id}"
            )
        chat.wake.set()

    def _chat(self, chat_id: int) -> ChatQueue:
        chat = self._chats.get(chat_id)
        if chat is None:
            chat = ChatQueue(chat_id, buckets=self._buckets(chat_id))
            if chat_id in self._blocked:
                self._blocked.discard(chat_id)
                chat.blocked = True
            self._chats[chat_id] = chat
        return chat

    def _forget_idle(self, chat: ChatQueue) -> bool:
        """Drop `chat` once nothing of it needs remembering: no work, and buckets full
        again (a new chat gets full ones, so an earlier drop would let a burst through
        that its pace still forbids).  Whether it is blocked survives it, in a set of
        ids; anything sent later re-creates it, in order, and a handle keeps what its
        message shows, so edits still merge or cost nothing."""
        if chat.ops or chat.current is not None:
            return False
        now = time.monotonic()
        if not all(b.full(now) for b in chat.buckets):
            return False
        if self._chats.get(chat.id) is chat:
            del self._chats[chat.id]
            if chat.blocked:
                self._blocked.add(chat.id)
        return True

    def _buckets(self, chat_id: int) -> list[_Bucket]:
        th = self.throttle
        now = time.monotonic()
        out = [_Bucket(th.per_chat_burst, th.per_chat_per_second, th.per_chat_burst, now)]
        if chat_id < 0:  # groups and channels have negative ids
            rate = th.per_group_per_minute / 60.0
            out.append(_Bucket(th.per_group_burst, rate, th.per_group_burst, now))
        return out

    def _next(self, chat: ChatQueue, op: Op) -> None:
        """Queue `op` first in `chat`, before anything queued meanwhile."""
        chat.ops.appendleft(op)
        self._pending += 1
        self._idle.clear()

    def _done(self) -> None:
        self._pending -= 1
        if self._pending <= 0:
            self._pending = 0
            self._idle.set()

    async def _pace(self, chat: ChatQueue) -> None:
        if not self.throttle.enabled:
            return
        now = time.monotonic()
        delay = max(b.reserve(now) for b in [self._global, *chat.buckets])
        if delay > 0:
            await asyncio.sleep(delay)

    # --- lifecycle -----------------------------------------------------------------

    @property
    def contact_at(self) -> float:
        """When the last request to Telegram ended (answered or not): how long the bot
        has gone without news of whether Telegram is within reach."""
        return self._contact.at

    @property
    def pending(self) -> int:
        return self._pending

    @property
    def held(self) -> int:
        """How many chats' queues are in memory (busy ones, or idle but recently)."""
        return len(self._chats)

    async def drain(self, timeout: float = 10.0) -> bool:
        """Wait until every queue is empty (or `timeout`); True when it is."""
        try:
            await asyncio.wait_for(self._idle.wait(), timeout)
        except TimeoutError:
            return False
        return True

    async def close(self) -> None:
        self._closed = True
        tasks = [c.task for c in self._chats.values() if c.task is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    if TYPE_CHECKING:  # for mypy: the worker is `sending`'s

        async def _worker(self, chat: ChatQueue) -> None: ...
