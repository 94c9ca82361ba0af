"""A call from the terminal into the core: a bug it raises is told, not the end.

A change whose commit raises a bug is logged by the core (`Commits._commit`, with its
traceback), the table is read back as stored and redrawn (an ``action`` update at the
version it had), and the bug is raised on.  A chat answers such a press with "that
did not go through" beside the redrawn table; the terminal says so too, and the
caller (its ``except CoreFailed``) puts the player back where he was, to go on: at a
match, the table as stored below those words, drawn once (the redraw that came
while the call ran is not drawn: `Screen._on_update`).  A query that reads the core
without changing it (his table, a lobby, a hand, why a card is refused) is guarded
the same way (`_ask`).  Only the call into the core is guarded: a bug in the
terminal's own code still ends the program, to be found.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

from bot.told import log_failure

from .shape import TableShape

log = logging.getLogger("adapters.local")

_T = TypeVar("_T")


class CoreFailed(Exception):
    """A call into the core raised a bug: it is logged, and the player was told."""


class Guard(TableShape):
    """`_core` and `_ask`, for the parts of `LocalTable` that call into the core."""

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
            raise self._failed(e, what, *args, tell=tell) from e
        finally:
            self._calling_at = None

    def _ask(self, query: Callable[[], _T], what: str, *args: object, tell: bool = True) -> _T:
        """`query`'s answer: a view or a fact the core reads for him, changing
        nothing; `CoreFailed` after a bug, logged once and told (unless `tell` is
        False: the caller has words of its own), as `_core`'s.  (No version is
        noted: nothing of his is put back that a redraw could repeat.)"""
        try:
            return query()
        except Exception as e:
            raise self._failed(e, what, *args, tell=tell) from e

    def _ask_aside(self, query: Callable[[], _T], what: str, *args: object) -> _T | None:
        """`query`'s answer, or None after a bug, logged and not told: a fact the
        terminal reads for itself (the cards last shown, is it his turn), whose
        None does no harm, which he could not ask again."""
        try:
            return self._ask(query, what, *args, tell=False)
        except CoreFailed:
            return None

    def _failed(self, error: Exception, what: str, *args: object, tell: bool) -> CoreFailed:
        """The `CoreFailed` to raise after `error`, once it is logged (`log_failure`:
        not again when the core logged it) and, if `tell`, told."""
        log_failure(log, error, what, *args)
        if tell:
            self.say("failed")
        return CoreFailed()

    async def _aside(self, call: Awaitable[_T], what: str, *args: object) -> _T | None:
        """`call`'s answer, or None after a bug, logged and not told: a call that is
        not his (the clocks started, a close noted), which he could not try again,
        and after which what comes next still works."""
        try:
            return await self._core(call, what, *args, tell=False)
        except CoreFailed:
            return None
