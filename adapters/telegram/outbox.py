"""Everything the bot sends to Telegram goes through here: one ordered queue per chat.

Why: the core tells listeners about every change under the table's lock, so the
listener only *queues*; a worker per chat does the I/O.  What a queue holds is in
`ops`, the request each op makes in `requests`; this module is the queue, where
Telegram's limits are met:

- **Order.** A chat's operations run one at a time, in the order they were queued
  (a deal's result before the next deal's table message).
- **Coalescing.** A message is a `Handle` (see `content`); queuing an edit for a
  handle that already has an edit (or its first post) waiting replaces that content
  instead of adding a request, so a burst of moves becomes one edit showing the
  newest state.  The worker takes its throttle slot *before* it picks the content,
  so waiting for the rate limit is exactly when edits pile up and merge.
- **Rate.** The `throttle` module's token buckets delay requests before Telegram would
  refuse them; a 429 anyway is honoured: wait `retry_after`, then send the newest
  content (the final state is never dropped).
- **Files.** A document (`send_file`) waits its turn like a message; a caption longer
  than Telegram takes goes in full as a message right after it, so nothing is cut,
  once the document went through (it explains a file that is there).
- **Benign errors.** "message is not modified" is success; an edit of a message that is
  gone (deleted by an admin, too old to edit) becomes a new post.
- **A chat that refuses the bot.** 403 (a user who never started the bot or blocked it,
  a group that removed it), or a 400 that says the same in other words (`refuses`, in
  the `errors` module, which tells Telegram's errors apart) marks the chat blocked:
  its pending messages are dropped, nothing more is tried there until `unblock`,
  and `on_refused` tells the adapter once.  A forum topic closed or deleted
  (`refuses_topic`) drops that topic's messages only and tells `on_topic_refused`.
- **Telegram out of reach.** A request that could not even connect is tried again
  (at most every 5 s) until it goes through, however long the outage: the chat's
  queue waits in order, its edits merging meanwhile.  Other network failures (a
  timeout, a dropped answer: the request may have arrived) are tried `max_attempts`
  times, so one Telegram keeps failing on cannot hold up its chat for ever.  A message
  given up on (that, or a refusal other than the chat's) is replaced by its
  `fallback`, when it has one, so whoever asked for it is not left waiting; but only
  if it certainly did not arrive (refused, or never sent): after a try that may have
  reached Telegram, "please try again" would be wrong, or would bring a second copy.
  `on_reach(False)` tells the adapter once when requests stop connecting, and
  `on_reach(True)` once when Telegram answers again (any answer, a refusal too).
  A bot with nothing to send learns the same from `probe`, which asks for little.
- **Memory.** A chat's queue lives while it has work: one idle for `idle_after`
  seconds (and its pace recovered) is dropped, so a bot that wrote to a hundred
  thousand private chats in a year holds only the busy ones; a blocked chat is
  remembered by its id alone.
- **A chat that moved.** A group upgraded to a supergroup gets a new id, and every
  request to the old one fails with `ChatMigrated`.  The chat's queue moves to the new
  id (the failed request first), later requests for the old id go there too, and
  `on_migrated` tells the adapter once.  A message already posted in the old chat stays
  behind: nothing more is sent for it unless the adapter `rehome`s it (then its next
  show posts it anew in the new chat).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable

from telegram import Bot
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    NetworkError,
    RetryAfter,
    TelegramError,
)

from .content import MAX_CAPTION, MAX_TEXT, Attachment, Btn, Content, Handle, fit, parts, units
from .errors import _unsent, refuses, refuses_topic, retry_seconds
from .ops import ChatQueue, Op, OpKind, Stats
from .requests import Contact, request
from .throttle import Throttle, _Bucket

# What moved out of this module is still importable from it (tests, older callers).
__all__ = [
    "MAX_CAPTION",
    "MAX_TEXT",
    "Attachment",
    "Btn",
    "Content",
    "Handle",
    "OpKind",
    "Outbox",
    "Stats",
    "Throttle",
    "fit",
    "parts",
    "refuses",
    "refuses_topic",
    "retry_seconds",
    "units",
]

log = logging.getLogger(__name__)


class Outbox:
    """Ordered, coalescing, throttled queues of Telegram requests, one per chat."""

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

    # --- queuing (synchronous: safe to call under the core's table lock) -------------

    def post(self, handle: Handle, content: Content, *, reply_to: Handle | None = None) -> None:
        """Post `handle` as a new message (its first appearance); `reply_to` as in
        `send`."""
        handle.latest = content
        self._follow(handle)
        self._enqueue(handle.chat_id, Op("post", handle, content, reply_to=reply_to))

    def edit(self, handle: Handle, content: Content, *, force: bool = False) -> None:
        """Show `content` in `handle`'s message, merging with a waiting edit.

        An edit to what the message shows already costs no request, unless `force`:
        a user asking to see it may have deleted it, and only asking Telegram tells
        ("message to edit not found": it is posted anew)."""
        handle.latest = content
        self._follow(handle)
        if handle.dead:
            return
        chat = self._chats.get(handle.chat_id)
        pending = self._pending_op(chat, handle) if chat is not None else None
        if pending is not None:
            pending.content = content
            pending.force = pending.force or force
            if pending.kind == "strip":
                pending.kind = "edit"
            self.stats.coalesced += 1
            return
        busy = chat is not None and chat.current is not None and chat.current.handle is handle
        shown = handle.shown == content and handle.message_id is not None
        if shown and not busy and not force:
            return
        self._enqueue(handle.chat_id, Op("edit", handle, content, force=force))

    def freeze(self, handle: Handle) -> None:
        """Take the buttons off a message that is history now (keeping its text)."""
        if handle.latest is not None:
            self.edit(handle, handle.latest.bare())
            return
        self._follow(handle)
        if handle.dead:
            return
        self._enqueue(handle.chat_id, Op("strip", handle))

    def delete(self, handle: Handle) -> None:
        """Delete `handle`'s message (a ping that has done its work), after whatever
        is queued for it; nothing if it was never posted or is gone already."""
        self._follow(handle)
        if handle.dead:
            return
        self._enqueue(handle.chat_id, Op("delete", handle))

    def send(
        self,
        chat_id: int,
        content: Content,
        *,
        reply_to: Handle | None = None,
        thread: int | None = None,
    ) -> None:
        """A one-off message nobody edits later (results, notes); `reply_to`: shown as
        a reply to that message of the same chat (if it is still there), which quotes
        it and takes a tap to it; `thread`: the forum topic it goes to."""
        self._enqueue(chat_id, Op("send", None, content, reply_to=reply_to, thread=thread))

    def send_file(
        self,
        chat_id: int,
        file: Attachment,
        caption: str,
        *,
        fallback: Content | None = None,
        thread: int | None = None,
    ) -> None:
        """A document with `caption` (in forum topic `thread`, if one).  Telegram takes 1024 characters of caption: a
        longer one goes in full as a message right after the document, which keeps its
        first line; only once the document went through, or the chat would read about a
        file it never got.  `fallback`: the message sent instead if Telegram certainly
        did not take the document (see the module's docstring), so whoever asked for it
        hears so."""
        short = caption.strip()
        if units(short) > MAX_CAPTION:
            short = fit(short.split("\n", 1)[0], MAX_CAPTION)
        then = Content(caption) if short != caption.strip() else None
        op = Op(
            "document",
            None,
            Content(short),
            file=file,
            fallback=fallback,
            then=then,
            thread=thread,
        )
        self._enqueue(chat_id, op)

    def call(self, chat_id: int, fn: Callable[[], Awaitable[None]]) -> None:
        """Run `fn` in this chat's order (e.g. forget message refs after the last edit)."""
        self._enqueue(chat_id, Op("call", fn=fn))

    async def paced(self, chat_id: int) -> None:
        """Wait for a slot in `chat_id`'s pace, for a request made outside the queue."""
        chat = self._chat(self.current_chat(chat_id))
        self._run(chat)  # with nothing queued it only drops the chat once idle
        await self._pace(chat)

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

    # --- chats that moved (a group upgraded to a supergroup) --------------------------

    def current_chat(self, chat_id: int) -> int:
        """The id a chat has now (`chat_id` itself unless it moved)."""
        return self._moved.get(chat_id, chat_id)

    def migrate(self, old: int, new: int) -> None:
        """Chat `old` is `new` now: move its queue there and send everything for
        `old` to `new` from now on (`on_migrated` is called the first time)."""
        self._move(old, new, None)

    def rehome(self, handle: Handle) -> bool:
        """Bring a message that still matters (a lobby, a running deal's table) along
        to the chat its chat moved to: its next `edit` posts it there anew.  False if
        its chat did not move."""
        new = self.current_chat(handle.chat_id)
        if new == handle.chat_id:
            return False
        handle.chat_id = new
        handle.message_id = None
        handle.shown = None
        handle.dead = False
        return True

    def _follow(self, handle: Handle) -> None:
        """A handle of a chat that moved: one not posted yet goes along to the new id;
        a message posted in the old chat stays behind and gets nothing more (`rehome`
        brings it along)."""
        new = self._moved.get(handle.chat_id)
        if new is None:
            return
        if handle.message_id is None:
            handle.chat_id = new
        else:
            handle.dead = True

    def _move(self, old: int, new: int, retry: Op | None) -> None:
        new = self.current_chat(new)
        if old == new:
            return
        first_time = old not in self._moved
        self._moved[old] = new
        for k, v in list(self._moved.items()):  # a chat that moved twice
            if v == old:
                self._moved[k] = new
        ops: list[Op] = []
        if retry is not None:  # it ran and failed; it goes first in the new chat
            ops.append(retry)
            self._pending += 1
            self._idle.clear()
        src = self._chats.get(old)
        if src is not None:
            ops.extend(src.ops)
            src.ops.clear()
        kept: list[Op] = []
        for op in ops:
            if op.handle is not None:
                self._follow(op.handle)
                if op.handle.dead:  # an edit of a message left behind
                    self._done()
                    continue
            op.sending = False
            op.attempts = op.failures = 0
            kept.append(op)
        if kept and not self._closed:
            target = self._chat(new)
            target.ops.extendleft(reversed(kept))  # queued before anything sent to `new`
            self._run(target)
        else:
            for _ in kept:
                self._done()
        if first_time and self.on_migrated is not None:
            self.on_migrated(old, new)

    def _pending_op(self, chat: ChatQueue, handle: Handle) -> Op | None:
        """A queued (or taken but not yet sent) op whose content may still change."""
        if (
            chat.current is not None
            and chat.current.handle is handle
            and not chat.current.sending
            and chat.current.kind in ("post", "edit", "strip")
        ):
            return chat.current
        for op in reversed(chat.ops):
            if op.handle is handle and op.kind in ("post", "edit", "strip"):
                return op
        return None

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

    # --- the worker ----------------------------------------------------------------

    async def _worker(self, chat: ChatQueue) -> None:
        while not self._closed:
            if not chat.ops:
                chat.wake.clear()
                try:
                    await asyncio.wait_for(chat.wake.wait(), self.idle_after)
                except TimeoutError:
                    if self._forget_idle(chat):
                        return  # an idle chat costs nothing; `_enqueue` starts anew
                continue
            op = chat.ops.popleft()
            chat.current = op
            try:
                await self._perform(chat, op)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("telegram request for chat %s failed", chat.id)
                self._lost(chat, op)
            finally:
                chat.current = None
                self._done()

    def _lost(self, chat: ChatQueue, op: Op) -> None:
        """`op` is given up on: its fallback, if any, goes next in its chat, unless a
        try may have reached Telegram (then the message may well be there, and "please
        try again" would be wrong)."""
        self.stats.failed += 1
        if op.fallback is None or chat.blocked or self._closed:
            return
        if op.uncertain:
            log.warning("a %s in chat %s may not have arrived; no fallback", op.kind, chat.id)
            return
        self._next(chat, Op("send", None, op.fallback, thread=op.thread))

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

    async def _perform(self, chat: ChatQueue, op: Op) -> None:
        if op.kind == "call":
            assert op.fn is not None
            await op.fn()
            return
        handle = op.handle
        while True:
            if chat.id in self._moved:  # moved while this op waited its turn
                self._move(chat.id, self._moved[chat.id], op)
                return
            if chat.blocked or (handle is not None and handle.dead):
                if handle is not None:
                    handle.dead = True
                return
            if op.kind == "delete" and (handle is None or handle.message_id is None):
                return  # never posted: nothing to delete
            if op.kind in ("edit", "strip") and handle is not None and handle.message_id is None:
                op.kind = "post"  # its post never went through: post it now
                op.content = op.content or handle.latest
            same = handle is not None and op.content == handle.shown
            if op.kind == "edit" and same and not op.force:
                return
            await self._pace(chat)
            op.sending = True
            op.attempts += 1
            try:
                await self._attempt(chat, op)
                if op.then is not None and not self._closed:
                    self._next(chat, Op("send", None, op.then, thread=op.thread))
                return
            except RetryAfter as e:
                self.stats.retry_after += 1
                wait = retry_seconds(e)
                log.info("flood control in chat %s: waiting %.1f s", chat.id, wait)
                op.sending = False
                await asyncio.sleep(wait)
                self._absorb(chat, op)
            except BadRequest as e:
                text = e.message.lower()
                if op.kind == "delete":  # gone already, or too old to delete: leave it
                    return
                if "not modified" in text:
                    self.stats.not_modified += 1
                    if handle is not None and op.content is not None:
                        handle.shown = op.content
                    return
                if (
                    handle is not None
                    and op.kind in ("edit", "strip")
                    and ("message to edit not found" in text or "can't be edited" in text)
                ):
                    if op.kind == "strip":
                        return  # nothing left to take the buttons off
                    handle.message_id = None  # gone: post it anew
                    continue
                if refuses_topic(e):  # one topic (None: a closed General), not the group
                    thread = handle.thread if handle is not None else op.thread
                    self._topic_refused(chat, thread, handle, e)
                    return
                if refuses(e):
                    self._refused(chat, handle, e)
                    return
                log.warning("telegram refused a %s in chat %s: %s", op.kind, chat.id, e.message)
                self._lost(chat, op)
                return
            except ChatMigrated as e:
                self.stats.migrated += 1
                new = int(e.new_chat_id)
                log.info("chat %s was upgraded to a supergroup: now %s", chat.id, new)
                op.sending = False
                self._move(chat.id, new, op)
                return
            except Forbidden as e:
                self._refused(chat, handle, e)
                return
            except NetworkError as e:  # timeouts and connection trouble: retry
                op.sending = False
                op.failures += 1
                if _unsent(e):
                    self.stats.unreachable += 1
                    op.attempts -= 1  # an outage uses up no attempts
                else:
                    op.uncertain = True  # sent; whether it arrived, no answer said
                    if op.attempts >= self.max_attempts:
                        log.warning("giving up a %s in chat %s: %s", op.kind, chat.id, e)
                        self._lost(chat, op)
                        return
                await asyncio.sleep(min(0.2 * 2 ** min(op.failures, 5), 5.0))
            except TelegramError as e:
                log.warning("telegram error on a %s in chat %s: %s", op.kind, chat.id, e)
                if type(e) is TelegramError:  # an answer PTB could not read: a 2xx garbled
                    op.uncertain = True
                self._lost(chat, op)
                return
            finally:
                op.sending = False

    async def _attempt(self, chat: ChatQueue, op: Op) -> None:
        self.stats.requests += 1
        await self._contact.noting(request(self.bot, chat.id, op, self.on_posted))

    async def probe(self) -> None:
        """Ask Telegram something light (getMe), for a bot with nothing to send that
        must still notice an outage, and its end.  Any answer says Telegram is within
        reach; no answer in time says it is not (getMe is small and instant, so a
        timeout here is no slow answer but a network that swallows requests)."""
        with contextlib.suppress(TelegramError):
            await self._contact.noting(self.bot.get_me(), timeout_unreachable=True)

    def _absorb(self, chat: ChatQueue, op: Op) -> None:
        """Before a retry, take over newer content queued for the same message."""
        if op.handle is None:
            return
        for other in list(chat.ops):
            if other.handle is op.handle and other.kind in ("edit", "strip"):
                if other.kind == "edit":
                    op.content = other.content
                    if op.kind == "strip":
                        op.kind = "edit"
                chat.ops.remove(other)
                self.stats.coalesced += 1
                self._done()

    def _refused(self, chat: ChatQueue, handle: Handle | None, e: TelegramError) -> None:
        self.stats.forbidden += 1
        log.info("chat %s refuses the bot: %s", chat.id, e.message)
        self._block(chat)
        if handle is not None:
            handle.dead = True
        if self.on_refused is not None:
            self.on_refused(chat.id)

    def _topic_refused(
        self, chat: ChatQueue, thread: int | None, handle: Handle | None, e: TelegramError
    ) -> None:
        """A topic closed or deleted: what waits for it is dropped and the adapter told
        (every refused message tells it: a topic reopened and closed again is news);
        the group's other topics go on."""
        self.stats.forbidden += 1
        log.info("chat %s refuses the bot topic %s: %s", chat.id, thread, e.message)
        if handle is not None:
            handle.dead = True
        for other in list(chat.ops):
            there = other.handle.thread if other.handle is not None else other.thread
            if other.kind != "call" and there == thread:
                chat.ops.remove(other)
                if other.handle is not None:
                    other.handle.dead = True
                self._done()
        if self.on_topic_refused is not None:
            self.on_topic_refused(chat.id, thread)

    def _block(self, chat: ChatQueue) -> None:
        chat.blocked = True
        for other in list(chat.ops):
            if other.kind != "call":
                chat.ops.remove(other)
                if other.handle is not None:
                    other.handle.dead = True
                self._done()

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
