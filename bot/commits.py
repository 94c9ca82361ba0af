"""Committing changes: the heart of `TableService` (`bot.service`), one of its mixins.

A change is decided and applied to the in-memory table under its lock, then stored
with the table's new version in one transaction (with any other tables and rows of the
same request), and only then told to the listeners.  If the store fails, the table is
rebuilt from its log, so memory never runs ahead of what is durable, and its timers
try again a moment later.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Callable, Sequence

from engine.events import Event

from . import results as R
from .clocks import Timers
from .service_shape import ServiceShape
from .store import Op, StoreError, TableChange
from .table import Entry, Status, Table
from .told import mark_told

# the service's log lines keep its name, whichever of its modules writes them
log = logging.getLogger("bot.service")

#: Seconds after a change that could not be stored before the table's timers try again.
RETRY_AFTER_FAILED_WRITE = 1.0


class Commits(ServiceShape):
    async def _commit(
        self,
        table: Table,
        entries: list[Entry],
        then: Callable[[Table], list[Entry]] | None = None,
        *,
        ops: Sequence[Op] = (),
    ) -> tuple[Event, ...]:
        """Apply entries in memory, then make them durable; rebuild on failure.

        `then` may add follow-up entries after seeing the applied state (the next
        deal's seed when a deal ended); they are applied and stored in the same
        transaction, so a crash can never leave a scored deal without its successor.
        `ops`: more statements of the same change, stored in that transaction too.
        """
        [events] = await self._commit_tables([(table, entries)], then, ops=ops)
        return events

    async def _commit_tables(
        self,
        changes: Sequence[tuple[Table, list[Entry]]],
        then: Callable[[Table], list[Entry]] | None = None,
        *,
        ops: Sequence[Op] = (),
    ) -> list[tuple[Event, ...]]:
        """`_commit` for one request that changes several tables (its caller holds
        their locks): all are stored in one transaction, or none is and each is
        rebuilt, so a kill or a failing disk never leaves the request half done.
        With no table to change, `ops` alone are stored."""
        if not changes:
            await self.store.write(ops=ops)
            return []
        for table, _ in changes:
            if table.unsaved:  # a failed write's table not read back yet: nothing to build on
                raise StoreError(f"table {table.id} is not read back from the store yet")
        staged: list[TableChange] = []
        out: list[tuple[Event, ...]] = []
        try:
            for table, _ in changes:
                table.unsaved = True
            statuses = [table.status for table, _ in changes]
            for table, entries in changes:
                first = table.version + 1
                turn_before = table.turn()
                events: list[Event] = []
                entries = list(entries)
                for e in entries:
                    events.extend(table.apply(e))
                if then is not None:
                    more = then(table)
                    for e in more:
                        events.extend(table.apply(e))
                    entries.extend(more)
                if table.deadline is None or table.turn() != turn_before:
                    # a new turn gets a new deadline; a vote or a seat change elsewhere
                    # does not give the player to act more time
                    table.deadline = self._deadline(table)
                staged.append(
                    TableChange(table.id, first, entries, str(table.status), table.deadline)
                )
                out.append(tuple(events))
            # A finished match reads its players' ratings and writes new ones: matches
            # sharing a player go one at a time, each durable before the next reads,
            # or two matches of one player ending at once would lose an update.
            players = [
                p
                for (table, _), before in zip(changes, statuses, strict=True)
                if before != Status.FINISHED and table.status == Status.FINISHED
                for p in table.humans()
            ]
            async with self._player_locks.hold(players):
                results = [
                    op
                    for (table, _), before in zip(changes, statuses, strict=True)
                    for op in await R.result_ops(self, table, before)
                ]
                c, *also = staged
                await self.store.append(
                    c.table_id,
                    c.first_version,
                    c.entries,
                    status=c.status,
                    deadline=c.deadline,
                    ops=[*ops, *results],
                    also=also,
                )
            for table, _ in changes:
                table.unsaved = False
                # Every change re-arms the table's timers: they are keyed to its
                # version, so a timer of an older version (a join, a vote since)
                # would do nothing.
                if table.status in (Status.LOBBY, Status.PLAYING):
                    self._arm(table)
                else:
                    self._cancel_timers(table.id)
        except Exception as e:
            # the database, not a bug (a full disk, another program's lock): one line
            known = isinstance(e, StoreError)
            log.error(
                "could not store a change of table %s (%s); reloading it",
                ", ".join(table.id for table, _ in changes),
                e if known else type(e).__name__,
                exc_info=not known,
            )
            mark_told(e)  # whoever it reaches next does not log it again
            for table, _ in changes:
                if await self._reload(table.id):
                    # what was drawn outside the lock meanwhile was skipped: draw the
                    # table as stored
                    kind = "lobby" if table.status == Status.LOBBY else "action"
                    await self._notify(table, kind)
            raise
        except asyncio.CancelledError:
            # cancelled while the write was under way (a stop): whether it went in,
            # only the store can say; read the table back rather than leave it unsaved
            for table, _ in changes:
                if table.unsaved and not self._closed:
                    self._spawn(self._reload_later(table.id), f"reload {table.id}")
            raise
        return out

    async def _reload(self, table_id: str) -> bool:
        """After a change that could not be stored: the table as stored (memory is
        never ahead of the disk), with its turn's deadline, and its timers armed
        again after a pause.  A computer's move, a timeout or an expiry whose change
        failed is tried again then, instead of the table stalling until a restart;
        the pause keeps a failing disk from being hammered.

        If the store cannot even be read, the table stays as it is, unsaved (nothing
        drawn from it, no change built on it: a press is told it was not saved), and
        the reading is tried again after the pause.  False then.

        A table closed before the change came (a move that reached a resigned match,
        refused by `Table.apply`) stays closed: False, nothing read back or drawn."""
        if table_id not in self.tables:
            return False
        try:
            table = await self._load(table_id)
            row = await self.store.table_row(table_id)
        except (StoreError, sqlite3.Error, OSError) as e:
            log.error(
                "could not read table %s back from the store (%s); trying again",
                table_id,
                type(e).__name__,
            )
            self._spawn(self._reload_later(table_id), f"reload {table_id}")
            return False
        except Exception as e:  # its log no longer replays (a bug): as at a start
            log.error("table %s cannot be rebuilt from its log (%s)", table_id, type(e).__name__)
            self.tables.pop(table_id, None)
            self._cancel_timers(table_id)
            return False
        table.deadline = row.deadline if row is not None else None
        current = self.tables.get(table_id)
        if current is not None:
            current.reset_to(table)  # those waiting for its lock hold this object
            table = current
        else:  # pragma: no cover - closed while it was read back: stays closed
            return False

        def retry() -> None:
            if self.tables.get(table_id) is table:
                self._arm(table)

        timers = self._timers.setdefault(table_id, Timers())  # those armed still count
        loop = asyncio.get_running_loop()
        timers.handles.append(loop.call_later(RETRY_AFTER_FAILED_WRITE, retry))
        return True

    async def _reload_later(self, table_id: str) -> None:
        """`_reload` once more, after the pause, for a table the store could not
        give back; then it is drawn as stored."""
        await asyncio.sleep(RETRY_AFTER_FAILED_WRITE)
        async with self.lock(table_id):
            table = self.tables.get(table_id)
            if self._closed or table is None or not table.unsaved:
                return
            if await self._reload(table_id):
                kind = "lobby" if table.status == Status.LOBBY else "action"
                await self._notify(table, kind)
