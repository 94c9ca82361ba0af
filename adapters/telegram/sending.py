"""How a chat's worker sends its ops: one request at a time, and Telegram's answers.

Why a module of its own: what Telegram answers decides what happens next, and that
is most of the outbox's rules (what each error *is* the `errors` module tells):

- **Rate.** A 429 is honoured: wait `retry_after`, then send the newest content (the
  final state is never dropped).
- **Benign errors.** "message is not modified" is success; an edit of a message that is
  gone (deleted by an admin, too old to edit) becomes a new post.
- **A chat that refuses the bot.** 403 (a user who never started the bot or blocked it,
  a group that removed it), or a 400 that says the same in other words (`refuses`)
  marks the chat blocked: its pending messages are dropped, nothing more is tried
  there until `unblock`, and `on_refused` tells the adapter once.  A forum topic
  closed or deleted (`refuses_topic`) drops that topic's messages only and tells
  `on_topic_refused`.
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
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from telegram.error import (
    BadRequest,
    ChatMigrated,
    Forbidden,
    NetworkError,
    RetryAfter,
    TelegramError,
)

from .content import Handle
from .errors import _unsent, refuses, refuses_topic, retry_seconds, unread
from .moves import Moves
from .ops import ChatQueue, Op
from .requests import _answer, request

#: Logged under the outbox's name, as all its parts are: one name to filter its lines by.
log = logging.getLogger("adapters.telegram.outbox")


class Sending(Moves):
    """The worker of each chat's queue, and what it does with Telegram's answers."""

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
                held = self._lost(chat, op)
                log.exception("telegram request for chat %s failed%s", chat.id, held)
            finally:
                chat.current = None
                self._done()

    def _lost(self, chat: ChatQueue, op: Op) -> str:
        """`op` is given up on: its fallback, if any, goes next in its chat, unless a
        try may have reached Telegram (then the message may well be there, and "please
        try again" would be wrong).  Returns what the caller's line about the failure
        adds of that (a fallback held back), so one failure is one log line."""
        self.stats.failed += 1
        if op.fallback is None or chat.blocked or self._closed:
            return ""
        if op.uncertain:
            return "; it may have arrived, so no fallback"
        self._next(chat, Op("send", None, op.fallback, thread=op.thread))
        return ""

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
                held = self._lost(chat, op)
                log.warning(
                    "telegram refused a %s in chat %s: %s%s", op.kind, chat.id, e.message, held
                )
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
                        held = self._lost(chat, op)
                        log.warning("giving up a %s in chat %s: %s%s", op.kind, chat.id, e, held)
                        return
                await asyncio.sleep(min(0.2 * 2 ** min(op.failures, 5), 5.0))
            except TelegramError as e:
                if unread(e):  # an answer PTB could not read: it may have arrived
                    op.uncertain = True
                held = self._lost(chat, op)
                log.warning("telegram error on a %s in chat %s: %s%s", op.kind, chat.id, e, held)
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
            probe = _answer("getMe", self.bot.get_me())  # an answer in the wrong shape is one too
            await self._contact.noting(probe, timeout_unreachable=True)

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
