"""Telling a table's ends again after a kill: a deal's result, a closed table's last
messages.

A change that scores a deal or closes a table is stored before its listeners hear of
it, and adapters only queue what it shows: a kill -9 between the commit and the send
left the result stored and counted but never shown (no summary, no Rematch button, a
table message whose buttons only get refusals, a deal's result missing before the next
deal).  So an adapter confirms an end once its outbox sent what the end shows
(`delivered`, stored as the table's `told` version), and a start finds the ends after
`told` in the table's log and tells them, as the uninterrupted run would have, when
the platform serves again (`listen`).  At least once: a summary shown twice after a
rare kill is far better than none.
"""

from __future__ import annotations

import dataclasses
import logging
from collections import Counter
from dataclasses import dataclass

from .service_shape import ServiceShape
from .store import StoreError
from .table import Entry, Status, Table
from .views import ResultView, deal_result_view

# the service's log lines keep its name, whichever of its modules writes them
log = logging.getLogger("bot.service")

#: The update kinds an adapter confirms with `delivered` once it showed them.
TOLD_KINDS = frozenset({"deal_end", "finished", "aborted"})

#: How long a closed table's untold end is kept for its platform to serve again, in
#: seconds: a week, the longest a turn or a lobby may be set to wait
#: (`bot.config.WEEK`).  A platform silent for longer has most likely had its token
#: removed for good, and a summary a week late tells its chat of a match it has long
#: forgotten; kept, the table would be rebuilt and its message refs held at every
#: start for ever.
UNTOLD_KEPT = 7 * 24 * 3600.0


@dataclass(frozen=True)
class End:
    """An end of a table stored but not known to be shown: the update to send again."""

    kind: str  # one of TOLD_KINDS
    version: int  # the table's version right after the change that made it
    result: ResultView | None


class Telling(ServiceShape):
    """The ends of tables told again after a restart (a mixin of `TableService`)."""

    async def delivered(self, table_id: str, version: int) -> None:
        """An adapter sent what a `deal_end`, `finished` or `aborted` update of
        `version` shows: a restart need not tell it again (and a closed table's message
        references go).  A write that fails only means it is told again after the next
        start, so it is logged, not raised into the adapter's sending."""
        try:
            await self.store.set_told(table_id, version)
        except StoreError as e:
            log.warning("table %s: could not store that its end was shown (%s)", table_id, e)

    def ends_untold(self, table_id: str) -> bool:
        """Whether an end of this table waits to be told at `listen` (an adapter
        restoring its messages leaves them to that)."""
        return table_id in self._untold

    def _end_result(self, table: Table) -> ResultView | None:
        """What a deal's end (or the match's) shows, as the change that made it left
        the table: the result, with each person's hand as the deal left it."""
        result = deal_result_view(table, self._style(table))
        if result is not None:
            result = dataclasses.replace(result, hands=self._final_hands(table))
        return result

    def _replay(self, table_id: str, entries: list[Entry], told: int) -> tuple[Table, list[End]]:
        """The table its log makes (as `Table.from_log`), and its ends after version
        `told`, each drawn as the change that made it left the table.

        A deal's end is drawn just before the next deal's entry, which its change
        adds last (`TableService._play`); one after which the table was left to close
        (its people gone) was never announced, and is not now."""
        table = Table(table_id, entries[0])
        ends: list[End] = []
        scored_at = 0  # the version that scored a deal whose next deal is not dealt yet
        for entry in entries[1:]:
            result = None
            if entry.get("k") == "deal" and scored_at:
                if scored_at > told:
                    result = self._end_result(table)
                scored_at = 0
            deals = len(table.deal_points)
            table.apply(entry)
            if result is not None and table.abandoned() is None:
                ends.append(End("deal_end", table.version, result))
            if len(table.deal_points) > deals:
                scored_at = table.version
        if table.version > told and table.status == Status.FINISHED:
            ends.append(End("finished", table.version, self._end_result(table)))
        elif table.version > told and table.status == Status.ABORTED:
            ends.append(End("aborted", table.version, None))
        return table, ends

    async def _restore_untold(self) -> None:
        """At start: the closed tables whose end no adapter confirmed, rebuilt, to be
        told when their platform serves (`_tell_closed`); those that waited longer
        than `UNTOLD_KEPT` given up.  Then one line for the operator: an end kept
        for a platform that no longer serves is otherwise kept silently."""
        given_up: Counter[str] = Counter()
        oldest = self._clock() - UNTOLD_KEPT
        for row in await self.store.closed_untold():
            if row.updated < oldest:
                await self.delivered(row.id, row.version)  # told no more, its refs gone
                given_up[_platform(row.chat)] += 1
                continue
            try:
                table, ends = self._replay(row.id, await self.store.table_log(row.id), row.told)
            except Exception as e:
                # the type only: a message may quote a card
                log.error(
                    "table %s closed, but its end cannot be shown again (%s)",
                    row.id,
                    type(e).__name__,
                )
                await self.delivered(row.id, row.version)  # nor tried at every start
                continue
            self.untold_closed[table.id] = table
            self._untold[table.id] = ends
        if given_up:
            log.info(
                "ends of closed tables not told within %d days, given up: %s",
                UNTOLD_KEPT // 86400,
                _per_platform(given_up),
            )
        waiting: Counter[str] = Counter()
        for table_id, ends in self._untold.items():
            held = self.tables.get(table_id) or self.untold_closed.get(table_id)
            if held is not None:
                waiting[held.platform] += len(ends)
        if waiting:
            log.info("ends to tell when their platform serves: %s", _per_platform(waiting))

    async def _tell_closed(self, platform: str) -> None:
        """Tell the ends of `platform`'s closed tables that no adapter confirmed, as
        their closing change told them: with the table there while its listeners draw
        it, then gone."""
        for table_id in sorted(self.untold_closed):
            table = self.untold_closed[table_id]
            if table.platform != platform:
                continue
            del self.untold_closed[table_id]
            ends = self._untold.pop(table_id, [])
            if self._closed or table_id in self.tables:
                continue
            self.tables[table_id] = table
            async with self.lock(table_id):
                try:
                    for end in ends:
                        await self._notify(table, end.kind, result=end.result, version=end.version)
                finally:
                    self._forget_table(table)

    async def _tell_deal_ends(self, table: Table) -> None:
        """Tell the deal results of an open table that no adapter confirmed, then its
        deal as it is (its table and hands drawn anew), as after any deal's end.
        Under the table's lock."""
        ends = self._untold.pop(table.id, [])
        for end in ends:
            await self._notify(table, end.kind, result=end.result, version=end.version)
        if ends:
            await self._notify(table, "started")


def _platform(chat: str) -> str:
    """The platform of a chat key (`ChatRef.key`: ``platform:id``)."""
    return chat.split(":", 1)[0]


def _per_platform(counts: Counter[str]) -> str:
    return ", ".join(f"{platform} {n}" for platform, n in sorted(counts.items()))
