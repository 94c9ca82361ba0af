"""/forgetme: a person's data deleted, the seats he holds given up first.

In a lobby he leaves it; in a running match the computer plays on in his seat, under
a computer's name, or the table closes when no person is left in it.  His seats are
handed over table by table, each under its lock, before `results.forget_player`
deletes what the store holds of him; his /forgetme and the tables he opens wait for
each other, or a table opened meanwhile would keep his name.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from engine.events import Event

from . import results as R
from .i18n import norm_lang, t
from .lobbies import computer_name
from .locks import KeyedLocks
from .payload import self_verb
from .ports import Outcome, UserRef
from .store import Store, StoreError
from .table import Entry, Status, Table
from .views import ResultView


class Forgetting:
    """/forgetme for `TableService` (a mixin: it commits and locks as the service does)."""

    _people: KeyedLocks[str]
    ai_level: str
    store: Store
    tables: dict[str, Table]

    if TYPE_CHECKING:  # what it uses of the service and the other mixins

        async def _after_lobby_change(self, table: Table) -> None: ...

        async def _closed_table(self, table: Table, kind: str) -> None: ...

        async def _commit(
            self,
            table: Table,
            entries: list[Entry],
            then: Callable[[Table], list[Entry]] | None = None,
        ) -> tuple[Event, ...]: ...

        async def _notify(
            self,
            table: Table,
            kind: str,
            events: tuple[Event, ...] = (),
            *,
            user: str | None = None,
            result: ResultView | None = None,
        ) -> None: ...

        async def _outcome(self, user: UserRef, coro: Coroutine[Any, Any, Outcome]) -> Outcome: ...

        def lock(self, table_id: str) -> asyncio.Lock: ...

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
                if table.status == Status.LOBBY:
                    entries: list[Entry] = [{"k": "leave", "seat": seat}]
                    rest = [u for u in table.humans() if u != user.key]
                    if not rest:
                        entries.append({"k": "abort", "reason": "empty"})
                    elif table.host == user.key:
                        entries.append({"k": "host", "user": rest[0]})
                    await self._commit(table, entries)
                    handed = True
                    await self._after_lobby_change(table)
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
                    if not rest:
                        # nobody is left to play or to stop it: close, do not let
                        # computers play on in the chat to the end of the match
                        entries.append({"k": "abort", "reason": "empty"})
                    elif table.host == user.key:
                        entries.append({"k": "host", "user": rest[0]})
                    await self._commit(table, entries)
                    handed = True
                    if table.status == Status.ABORTED:
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
