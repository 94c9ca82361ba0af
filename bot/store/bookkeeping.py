"""What only adapters keep: where they showed a table (message refs) and which
platform updates they have handled, so that a restart edits the same messages and
handles no update twice.  Kept apart from the game's own data: none of it is needed
to rebuild a table."""

from __future__ import annotations

import time

from .database import Database, Op


def _drop_refs(table_id: str) -> Op:
    return ("DELETE FROM message_refs WHERE table_id = ?", (table_id,))


class AdapterBookkeeping(Database):
    """The adapters' message refs and handled updates (a mixin of `Store`)."""

    # --- where adapters show things -------------------------------------------------

    async def set_message_ref(self, table_id: str, slot: str, ref: str) -> None:
        """Remember a platform message (e.g. ``"chat_id/message_id"``) for a slot."""
        await self.write(
            ops=[
                (
                    "INSERT INTO message_refs (table_id, slot, ref, updated) VALUES (?, ?, ?, ?)"
                    " ON CONFLICT(table_id, slot) DO UPDATE SET ref=excluded.ref,"
                    " updated=excluded.updated",
                    (table_id, slot, ref, time.time()),
                )
            ]
        )

    async def drop_message_ref(self, table_id: str, slot: str) -> None:
        """Forget one slot's message (a ping deleted once its turn was over)."""
        await self.write(
            ops=[("DELETE FROM message_refs WHERE table_id = ? AND slot = ?", (table_id, slot))]
        )

    async def message_refs(self, table_id: str) -> dict[str, str]:
        rows = await self.fetchall(
            "SELECT slot, ref FROM message_refs WHERE table_id = ?", (table_id,)
        )
        return {slot: ref for slot, ref in rows}

    async def drop_message_refs(self, table_id: str) -> None:
        await self.write(ops=[_drop_refs(table_id)])

    async def drop_refs_of_closed_tables(self) -> None:
        """Forget message references of tables that are closed and whose close was
        delivered (`set_told`): one an adapter stored after that (a post that raced
        the end), or kept by a version of the bot that left them to the adapters.  A
        close not delivered yet keeps them: the restart shows it on those messages."""
        await self.write(
            ops=[
                (
                    "DELETE FROM message_refs WHERE table_id NOT IN (SELECT t.id FROM tables t"
                    " LEFT JOIN table_told k ON k.table_id = t.id"
                    " WHERE t.status IN ('lobby', 'playing') OR COALESCE(k.version, 0) < t.version)",
                    (),
                )
            ]
        )

    async def set_told(self, table_id: str, version: int) -> None:
        """An adapter delivered a table's end up to `version` (a deal's result, its
        close): a restart need not tell it again.  A closed table told to its end
        forgets where it was shown, in the same transaction: nothing is drawn there
        any more.  One write per deal and per close, never per card."""
        await self.write(
            ops=[
                (
                    "INSERT INTO table_told (table_id, version)"
                    " SELECT id, MIN(?, version) FROM tables WHERE id = ?"
                    " ON CONFLICT(table_id) DO UPDATE"
                    " SET version = MAX(table_told.version, excluded.version)",
                    (version, table_id),
                ),
                (
                    "DELETE FROM message_refs WHERE table_id = ? AND EXISTS (SELECT 1 FROM"
                    " tables t JOIN table_told k ON k.table_id = t.id WHERE t.id = ?"
                    " AND t.status IN ('finished', 'aborted') AND k.version >= t.version)",
                    (table_id, table_id),
                ),
            ]
        )

    # --- updates an adapter has handled ------------------------------------------------

    async def handled_updates(self, source: str) -> list[int]:
        """The update ids `source` stored as handled (`mark_handled`), oldest first."""
        rows = await self.fetchall(
            "SELECT update_id FROM handled_updates WHERE source = ? ORDER BY update_id",
            (source,),
        )
        return [int(r[0]) for r in rows]

    async def mark_handled(self, source: str, update_id: int, *, keep: int) -> None:
        """Store that `source`'s update `update_id` was handled, and forget those more
        than `keep` ids older: a platform sends again only the newest updates, those
        it was not yet told were received.  One write through the writer, so updates
        handled together share a commit (with each other and the tables' writes)."""
        await self.write(
            ops=[
                (
                    "INSERT OR IGNORE INTO handled_updates (source, update_id, at) VALUES (?, ?, ?)",
                    (source, update_id, time.time()),
                ),
                (
                    "DELETE FROM handled_updates WHERE source = ? AND update_id <= ?",
                    (source, update_id - keep),
                ),
            ]
        )

    async def forget_handled_updates(self, before: float) -> None:
        """Forget handled updates stored before `before` (Unix time), of any source:
        the platform no longer sends them again, and a source no longer used (a bot
        whose token was replaced) leaves nothing behind for ever."""
        await self.write(ops=[("DELETE FROM handled_updates WHERE at < ?", (before,))])

    async def forget_message_ref(self, table_id: str, slot: str, ref: str) -> None:
        """Forget a slot's message reference if it is still `ref` (a newer one, stored
        meanwhile, stays): a message left behind in a chat that changed its id."""
        await self.write(
            ops=[
                (
                    "DELETE FROM message_refs WHERE table_id = ? AND slot = ? AND ref = ?",
                    (table_id, slot, ref),
                )
            ]
        )
