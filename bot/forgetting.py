"""/forgetme: a person's data deleted, the seats he holds given up with it.

In a lobby he leaves it; in a running match the computer plays on in his seat, under
a computer's name, or the table closes when no person is left in it.  His seats are
handed over and what the store holds of him deleted in one transaction, under the
locks of all his tables: a kill or a failing disk leaves all of it done or none (a
seat given up and his data kept, he would have paid for nothing, and not been told).
His /forgetme and the tables he opens wait for each other, or a table opened
meanwhile would keep his name.
"""

from __future__ import annotations

from . import results as R
from .i18n import norm_lang, t
from .lobbies import computer_name, left_behind
from .payload import self_verb
from .ports import Outcome, UserRef
from .service_shape import ServiceShape
from .table import Entry, Status, Table


class Forgetting(ServiceShape):
    """/forgetme for `TableService` (a mixin: it commits and locks as the service does)."""

    async def forget(self, user: UserRef, *, ask: bool = False) -> Outcome:
        """Delete a user's data; seats they hold are played on by the computer.

        `ask`: only ask first; the answer's `confirm` button deletes (whoever presses
        it deletes his own: adapters show it to the asker alone)."""
        if ask:
            lang = norm_lang(user.speaks)
            playing = sum(1 for tb in self.tables.values() if tb.seat_of(user.key) is not None)
            key = "confirm.forget_playing" if playing else "confirm.forget"
            confirm = (t(lang, "button.forget"), self_verb("fg"))
            return Outcome(True, t(lang, key), "confirm", confirm=confirm)
        return await self._outcome(user, self._forget(user))

    async def _forget(self, user: UserRef) -> Outcome:
        async with self._people.hold([user.key]):
            return await self._forget_now(user)

    async def _forget_now(self, user: UserRef) -> Outcome:
        lang = norm_lang(user.speaks)
        seated = [tb for tb in self.tables.values() if tb.seat_of(user.key) is not None]
        async with self.locked(seated) as mine:
            changes: list[tuple[Table, list[Entry]]] = []
            for table in mine:
                seat = table.seat_of(user.key)
                if self.tables.get(table.id) is not table or seat is None:
                    continue  # it closed, or he left, while its lock was awaited
                changes.append((table, self._hand_over(table, user.key, seat)))
            handed = {table.id for table, _ in changes}

            def seated_after() -> set[str]:
                return {
                    tb.id
                    for tb in self.tables.values()
                    if tb.seat_of(user.key) is not None and tb.id not in handed
                }

            # the handed-over tables are locked: their next versions are these
            pending = [
                (table.id, table.version + 1 + i, e)
                for table, entries in changes
                for i, e in enumerate(entries)
            ]
            ops = await R.forget_ops(self.store, user.key, seated_after, pending)
            await self._commit_tables(changes, ops=ops)
            for table, _ in changes:
                if table.status == Status.ABORTED:
                    await self._closed_table(table, "aborted")
                elif table.status == Status.LOBBY:
                    await self._notify(table, "lobby")
                else:
                    await self._notify(table, "action")
        return Outcome(True, t(lang, "forget.done"), "forgotten")

    def _hand_over(self, table: Table, user: str, seat: int) -> list[Entry]:
        """The entries that give up `user`'s seat: he leaves a lobby; in a running
        match the computer plays on in it.  Nobody left (in a match: to play or to
        stop it) closes the table: computers do not play on in the chat to the end
        of the match."""
        if table.status == Status.LOBBY:
            entries: list[Entry] = [{"k": "leave", "seat": seat}]
            rest = [u for u in table.humans() if u != user]
        else:
            name = computer_name(table)
            level = table.settings.get("ai_level", self.ai_level)
            entries = [{"k": "forget", "seat": seat, "user": user, "name": name, "level": level}]
            # those still playing: one the computer replaced walked away
            rest = [u for u in table.present() if u != user]
        return entries + left_behind(table, user, rest)
