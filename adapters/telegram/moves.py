"""A chat that moved: a group upgraded to a supergroup, and its queue with it.

Why a module of its own: a group upgraded to a supergroup gets a new id, and every
request to the old one fails with `ChatMigrated`.  The chat's queue moves to the new
id (the failed request first), later requests for the old id go there too, and
`on_migrated` tells the adapter once.  A message already posted in the old chat stays
behind: nothing more is sent for it unless the adapter `rehome`s it (then its next
show posts it anew in the new chat).  What the adapter does about it (its tables and
their messages) is `migration`'s.
"""

from __future__ import annotations

from .content import Handle
from .ops import Op
from .queues import ChatQueues


class Moves(ChatQueues):
    """Chat ids that changed, and the queues and handles that follow them."""

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
