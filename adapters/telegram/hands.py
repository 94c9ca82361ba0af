"""A player's hand, in his private chat with the bot (never anywhere else): posted
or edited as play goes on, the turn that rings after a wait and its reminder, and
the group told once when it cannot reach him.

`Hands` is the part of `TelegramAdapter` that does it, for the listener (`tables`),
the presses ("Show my hand") and the restore.
"""

from __future__ import annotations

from bot.i18n import t
from bot.turn_pings import SLOT as PING
from bot.views import HandView

from .content import Content, Handle
from .layout import content_of
from .refs import user_id
from .shape import AdapterShape
from .tables import TableState
from .texts import tt


class Hands(AdapterShape):
    """`TelegramAdapter`'s hand messages and turn pings (see the module's docstring)."""

    def _show_hand(
        self,
        table_id: str,
        st: TableState,
        user: str,
        view: HandView | None = None,
        *,
        asked: bool = False,
    ) -> None:
        """Post or edit `user`'s private hand message (never anywhere else); `asked`:
        the user wants to see it ("Show my hand"), so it is checked even if nothing
        changed — he may have deleted it, and then it is posted anew."""
        uid = user_id(user)
        if view is None:
            view = self.service.hand(table_id, user, self.langs.get(user))
        if view is None:
            return
        handle = st.hands.get(user)
        if uid in self.unreachable or (handle is not None and handle.dead):
            self._warn(table_id, st, user)
            return
        content = content_of(view.message)
        if handle is None:
            handle = st.hands[user] = Handle(uid, table_id, f"hand:{user}")
            self.outbox.post(handle, content)  # a new message: Telegram rings for it
        else:
            self.outbox.edit(handle, content, force=asked)
        mine = self.service.his_turn(table_id, user)
        self._turn_ping(table_id, st, user, mine, posted=handle.message_id is None)

    def _turn_ping(
        self, table_id: str, st: TableState, user: str, your_turn: bool, *, posted: bool
    ) -> None:
        """A turn that comes after a wait rings (`bot.turn_pings`): a short reply to
        the hand message, deleted once he has moved, so his private chat keeps the
        hands and not a "your turn" for every trick."""
        said = self.turn_pings.shown((table_id, user), your_turn, new=posted)
        if said is not None:
            self._unping(st, user)
        if said == "ping":
            lang = self.langs.get(user) or self._table_lang(table_id)
            text = self.turn_pings.text(lang, table_id, self.service.seconds_left(table_id))
            self._ping(table_id, st, user, text)

    def _ping(self, table_id: str, st: TableState, user: str, text: str) -> None:
        """His one notice of this turn, a reply to his hand, in place of one still
        standing; its ref is stored (`on_posted`) until it is deleted, so a restart
        deletes one the last run left."""
        self._unping(st, user)
        ping = st.pings[user] = Handle(user_id(user), table_id, PING + user)
        self.outbox.post(ping, Content(text), reply_to=st.hands.get(user))

    def _unping(self, st: TableState, user: str) -> None:
        ping = st.pings.pop(user, None)
        if ping is None:
            return
        self.outbox.delete(ping)
        store, table_id, slot = self.service.store, ping.table_id, PING + user

        async def forget() -> None:
            await store.drop_message_ref(table_id, slot)

        self.outbox.call(ping.chat_id, forget)

    def _warn(self, table_id: str, st: TableState, user: str) -> None:
        """Tell the group (once per table) that `user` must open the private chat."""
        if user in st.warned:
            return
        st.warned.add(user)
        text = tt(
            self._table_lang(table_id),
            "deliver_hand",
            name=self._seat_name(table_id, user),
            link=self.deep_link(table_id),
        )
        self._to_group(st, Content(text))

    def _remind(self, table_id: str, st: TableState, user: str) -> None:
        lang = self.langs.get(user) or self._table_lang(table_id)
        text = t(
            lang,
            "remind.turn",
            name=self._seat_name(table_id, user),
            seconds=self.service.seconds_left(table_id),
        )
        uid = user_id(user)
        if uid in self.unreachable:
            self._to_group(st, Content(text))
        else:
            # a reply to his hand message: it says which table (he may sit at tables
            # in two groups) and a tap leads to the buttons.  It stands in for his
            # ping (one notice a turn) and goes the same way once he has moved, so
            # the chat keeps no "20 s left" of turns long over.
            self._ping(table_id, st, user, text)
