"""After a restart: the messages of open tables reattached and redrawn, and those of
a closed table whose end the last run stored but never confirmed as sent, for the
core to tell it again (docs/bot.md, Durability).

`Restore` is the part of `TelegramAdapter` that does it, at start and when a group
moved (`migration`).
"""

from __future__ import annotations

from bot.table import Status
from bot.turn_pings import SLOT as PING

from .content import Handle
from .refs import PLATFORM
from .shape import AdapterShape
from .tables import TOPIC


class Restore(AdapterShape):
    """`TelegramAdapter`'s tables found again at start (see the module's docstring)."""

    async def _restore(self) -> None:
        """Reattach to the messages of open tables and show their current state; and
        to those of closed tables whose end the last run stored and never showed
        (the core tells it at `listen`)."""
        store = self.service.store
        closed = [(tb.id, tb.chat) for tb in self.service.untold_closed.values()]
        rows = [(row.id, row.chat) for row in await store.open_tables()]
        for table_id, chat in [*rows, *closed]:
            if not chat.startswith(PLATFORM + ":"):
                continue
            refs = await store.message_refs(table_id)
            st = self._state(table_id, chat)
            topic = refs.pop(TOPIC, "").partition("/")[2]
            if topic.isdigit():
                st.thread = int(topic)
            for slot, ref in refs.items():
                chat_id, _, message_id = ref.partition("/")
                if not message_id.isdigit():
                    continue
                # the topic is the group's: a hand in a private chat has none
                thread = None if slot.startswith(("hand:", PING)) else st.thread
                handle = Handle(int(chat_id), table_id, slot, int(message_id), thread=thread)
                if slot.startswith(PING):
                    # a ping the last run left: whose turn it rang is not known any
                    # more, and the reminder comes anyway; it goes
                    st.pings[slot[len(PING) :]] = handle
                    self._unping(st, slot[len(PING) :])
                elif slot == "lobby":
                    st.lobby = handle
                elif slot == "table":
                    st.table = handle
                elif slot.startswith("hand:"):
                    st.hands[slot[5:]] = handle
            self._refresh(table_id)

    def _refresh(self, table_id: str) -> None:
        """Edit a table's messages to its current state (after a restart).  Not while
        a deal's end waits to be told: its result goes on those messages first, and
        the next deal's are posted anew after it."""
        table = self.service.tables.get(table_id)
        st = self.states.get(table_id)
        if table is None or st is None or self.service.ends_untold(table_id):
            return
        if table.status == Status.LOBBY:
            self._show_lobby(table_id, st)
        elif table.status == Status.PLAYING:
            self._show_table(table_id, st)
            for user in self.service.seat_users(table_id):
                self._show_hand(table_id, st, user)
