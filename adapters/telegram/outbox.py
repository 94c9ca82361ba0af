"""Everything the bot sends to Telegram goes through here: one ordered queue per chat.

Why: the core tells listeners about every change under the table's lock, so the
listener only *queues*; a worker per chat does the I/O.  What a queue holds is in
`ops`, the request each op makes in `requests`.  `Outbox` is built in layers, a
module each, where Telegram's limits are met: `queues` (the chats' queues, in order
and at pace, forgotten when idle), `moves` (a group upgraded to a supergroup takes
its queue along) and `sending` (a chat's worker: retries, outages, and what each of
Telegram's errors means for the message and its chat).  This module is what is
queued:

- **Coalescing.** A message is a `Handle` (see `content`); queuing an edit for a
  handle that already has an edit (or its first post) waiting replaces that content
  instead of adding a request, so a burst of moves becomes one edit showing the
  newest state.  The worker takes its throttle slot *before* it picks the content,
  so waiting for the rate limit is exactly when edits pile up and merge.
- **Files.** A document (`send_file`) waits its turn like a message; a caption longer
  than Telegram takes goes in full as a message right after it, so nothing is cut,
  once the document went through (it explains a file that is there).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from .content import MAX_CAPTION, Attachment, Content, Handle, fit, units
from .ops import ChatQueue, Op
from .sending import Sending


class Outbox(Sending):
    """Ordered, coalescing, throttled queues of Telegram requests, one per chat."""

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
        did not take the document (see `sending`), so whoever asked for it
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

    def _pending_op(self, chat: ChatQueue, handle: Handle) -> Op | None:
        """The op whose content may still change: the last one queued for `handle`,
        else the one taken but not being sent.  A queued one goes first: it runs
        after the taken one (queued while that was on its way, which now waits to be
        tried again), so the newest content given to the taken one would be shown,
        then overwritten by the older content queued behind it."""
        for op in reversed(chat.ops):
            if op.handle is handle and op.kind in ("post", "edit", "strip"):
                return op
        if (
            chat.current is not None
            and chat.current.handle is handle
            and not chat.current.sending
            and chat.current.kind in ("post", "edit", "strip")
        ):
            return chat.current
        return None
