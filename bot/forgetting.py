"""/forgetme: a person's data deleted, the seats he holds given up first.

In a lobby he leaves it; in a running match the computer plays on in his seat, under
a computer's name, or the table closes when no person is left in it.  His seats are
handed over table by table, each under its lock, before `results.forget_player`
deletes what the store holds of him; his /forgetme and the tables he opens wait for
each other, or a table opened meanwhile would keep his name.
"""

from __future__ import annotations

from . import results as R
from .i18n import norm_lang, t
from .lobbies import computer_name, left_behind
from .payload import self_verb
from .ports import Outcome, UserRef
from .service_shape import ServiceShape
from .store import StoreError
from .table import Entry, Status


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
        handed = False  # a seat of his given up and stored
        for table in list(self.tables.values()):
            if table.seat_of(user.key) is None:
                continue
            async with self.lock(table.id):
                seat = table.seat_of(user.key)
                if self.tables.get(table.id) is not table or seat is None:
                    continue  # it closed, or he left, while an earlier table was stored
                in_lobby = table.status == Status.LOBBY
                if in_lobby:
                    entries: list[Entry] = [{"k": "leave", "seat": seat}]
                    rest = [u for u in table.humans() if u != user.key]
                else:
                    name = computer_name(table)
                    level = table.settings.get("ai_level", self.ai_level)
                    entries = [
                        {
                            "k": "forget",
                            "seat": seat,
                            "user": user.key,
                            "name": name,
                            "level": level,
                        }
                    ]
                    # those still playing: one the computer replaced walked away
                    rest = [u for u in table.present() if u != user.key]
                # nobody left (in a match: to play or to stop it) closes it: computers
                # do not play on in the chat to the end of the match
                entries += left_behind(table, user.key, rest)
                try:
                    await self._commit(table, entries)
                except StoreError:
                    if not handed:
                        raise  # nothing changed: "that did not go through"
                    # a seat of his is given up and stored (and stays so), this one
                    # not: he must know that some are, and that asking again does it
                    return Outcome(False, t(lang, "forget.some_seats"), "not_saved")
                handed = True
                if in_lobby:
                    await self._after_lobby_change(table)
                elif table.status == Status.ABORTED:
                    await self._closed_table(table, "aborted")
                else:
                    await self._notify(table, "action")

        def seated_now() -> set[str]:
            return {tb.id for tb in self.tables.values() if tb.seat_of(user.key) is not None}

        try:
            await R.forget_player(self.store, user.key, seated_now)
        except StoreError:
            if not handed:
                raise  # nothing changed: "that did not go through", as for any press
            # his seats are handed over and stored (and stay so): only the deletion
            # failed, which a second /forgetme does, and he must know which it was
            return Outcome(False, t(lang, "forget.partly"), "not_saved")
        return Outcome(True, t(lang, "forget.done"), "forgotten")
