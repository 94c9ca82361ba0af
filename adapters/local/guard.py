"""A call from the terminal into the core: a bug it raises is told, not the end.

A change whose commit raises a bug is logged by the core (`Commits._commit`, with its
traceback), the table is read back as stored and redrawn (an ``action`` update at the
version it had), and the bug is raised on.  A chat answers such a press with "that
did not go through" beside the redrawn table; the terminal says so too, and the
caller (its ``except CoreFailed``) puts the player back where he was, to go on: at a
match, the table as stored below those words, drawn once (the redraw that came
while the call ran is not drawn: `Screen._on_update`).  Only the call into the core
is guarded: a bug in the terminal's own code still ends the program, to be found.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable
from typing import TypeVar

from bot.told import log_failure

from .shape import TableShape

log = logging.getLogger("adapters.local")

_T = TypeVar("_T")


class CoreFailed(Exception):
    """A call into the core raised a bug: it is logged, and the player was told."""


class Guard(TableShape):
    """`_core`, for the parts of `LocalTable` that call into the core."""

    async def _core(self, call: Awaitable[_T], what: str, *args: object, tell: bool = True) -> _T:
        """`call`'s answer; `CoreFailed` after a bug, logged once (`log_failure`: not
        again when the core logged it) and told, unless it is no call of his (`tell`
        False: the clocks started, a close noted), which he could not try again.
        `what % args` names the call in the log, never a card."""
        table = self.service.tables.get(self.table_id or "")
        self._calling_at = table.version if table is not None else None
        try:
            return await call
        except Exception as e:
            log_failure(log, e, what, *args)
            if tell:
                self.say("failed")
            raise CoreFailed from e
        finally:
            self._calling_at = None

    async def _aside(self, call: Awaitable[_T], what: str, *args: object) -> _T | None:
        """`call`'s answer, or None after a bug, logged and not told: a call that is
        not his (the clocks started, a close noted), which he could not try again,
        and after which what comes next still works."""
        try:
            return await self._core(call, what, *args, tell=False)
        except CoreFailed:
            return None
