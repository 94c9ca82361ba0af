"""When a player's turn should ring.

A hand message is edited at every move, and an edit makes no sound on Telegram or
Discord; the reminder comes only shortly before the time runs out.  So a turn that
comes after the player has waited (others were thinking) rings: the adapter sends a
short message beside the hand and deletes it once he has moved.  Against computers,
which move within a second or two each, he is watching his hand anyway: no ping.
This module only decides; each adapter sends and deletes in its own way.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Literal

from .i18n import t

#: Seconds since a player's last turn ended after which his next one rings.
PING_AFTER = 8.0

#: The message-ref slot of a player's ping (``ping:<user key>``): stored until the
#: ping is deleted, so a restart deletes one the last run left behind.  It ends in
#: the user key, as /forgetme's clean-up expects.
SLOT = "ping:"

Key = tuple[str, str]  # (table id, user key)


class TurnPings:
    """Whose hand shows his turn, and since when each one's last turn ended."""

    def __init__(self, after: float = PING_AFTER, clock: Callable[[], float] = time.monotonic):
        self.after = after
        self._clock = clock
        self._turns: set[Key] = set()
        self._over: dict[Key, float] = {}

    def shown(self, key: Key, your_turn: bool, *, new: bool) -> Literal["ping", "unping"] | None:
        """His hand now shows `your_turn`; `new`: it is a new message (which rings by
        itself).  "ping": his turn came after a wait; "unping": his turn is over (a
        ping of it, if any, goes)."""
        now = self._clock()
        if your_turn and key not in self._turns:
            self._turns.add(key)
            ended = self._over.get(key)
            return None if new or ended is None or now - ended < self.after else "ping"
        if not your_turn and key in self._turns:
            self._turns.discard(key)
            self._over[key] = now
            return "unping"
        return None

    def waited(self, key: Key) -> bool:
        """Whether his last turn ended long enough ago for a turn now to ring (a new
        hand that could not be sent, which would have rung by itself)."""
        ended = self._over.get(key)
        return ended is not None and self._clock() - ended >= self.after

    def new_hands(self, table_id: str) -> None:
        """A deal's hands are posted anew: none of them shows a turn yet.  One whose
        turn it was when the deal ended (his move ended it) has just moved."""
        now = self._clock()
        for key in [k for k in self._turns if k[0] == table_id]:
            self._turns.discard(key)
            self._over[key] = now

    def text(self, lang: str | None, table_id: str, seconds: int) -> str:
        """The ping: which table (he may sit at several), and how long he has."""
        key = "turn.ping" if seconds else "turn.ping.untimed"  # 0: no clock runs
        return t(lang, key, table=table_id, seconds=seconds)

    def forget(self, table_id: str) -> None:
        """The table closed."""
        self.new_hands(table_id)
        self._over = {k: v for k, v in self._over.items() if k[0] != table_id}
