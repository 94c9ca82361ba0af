"""The messages that show a table, kept in step with the core's table updates.

Where things are shown
- The group sees a lobby message, then one table message per deal (edited as play
  goes on) and a result message per deal.  It never sees a hand.
- Each seated human has one private hand message per deal in their private chat
  with the bot, edited in place; hand menus and "Show my hand" edit it too.
- Message ids are remembered in the store (`set_message_ref`: slots ``lobby``,
  ``table`` and ``hand:<user>``), so after a restart the same messages are edited.
- In a forum supergroup, a command is answered in the topic it was typed in, and a
  table opened there posts all its group messages there (the topic kept in the slot
  ``topic``, so a restart keeps to it).  Without a topic: the General topic.

`TableMessages` is the core's listener half of `TelegramAdapter`: called under the
table lock, it only queues on the outbox.  It holds which messages show each table
(`TableState`), what each kind of update draws, and the group's messages; the hands
and turn pings are `hands`, a deal's or a table's end `ends`, and the messages found
again after a restart `restore`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.i18n import norm_lang, t
from bot.service import TableUpdate
from bot.views import match_summary_text, started_lobby_text

from .content import Content, Handle
from .layout import content_of
from .membership import GROUP_LOST, TOPIC_LOST
from .refs import PLATFORM, user_id
from .shape import AdapterShape
from .texts import tt

#: The message-reference slot that keeps the forum topic a table was opened in.
TOPIC = "topic"


@dataclass(eq=False)
class TableState:
    """Which messages show one table."""

    chat_id: int
    thread: int | None = None  # the forum topic its group messages go to (None: General)
    lobby: Handle | None = None
    table: Handle | None = None
    hands: dict[str, Handle] = field(default_factory=dict)
    warned: set[str] = field(default_factory=set)  # told in the group to start the bot
    pings: dict[str, Handle] = field(default_factory=dict)  # "your turn", until he moves
    #: /resign's questions in the group: their buttons go when the table closes
    questions: list[Handle] = field(default_factory=list)


class TableMessages(AdapterShape):
    """`TelegramAdapter`'s table messages: the listener, the lobby and table messages,
    and the table's forum topic kept in the store (see the module's docstring)."""

    async def table_update(self, update: TableUpdate) -> None:
        if update.platform != PLATFORM:
            return
        self._on_update(update)

    def _on_update(self, u: TableUpdate) -> None:
        st = self._state(u.table_id, u.chat)
        tid = u.table_id
        kind = u.kind
        if kind == "lobby":
            self._show_lobby(tid, st)
        elif kind == "started":
            if st.lobby is not None:
                lobby = self.service.lobby(tid)
                if lobby is not None:  # its last words, not "the host can start"
                    expiry = self.service.timings.lobby_expiry
                    text = started_lobby_text(lobby.message.text, self._table_lang(tid), expiry)
                    self.outbox.edit(st.lobby, Content(text))
                self.outbox.freeze(st.lobby)
            if st.table is not None:
                self.outbox.freeze(st.table)
            for hand in st.hands.values():
                self.outbox.freeze(hand)
            st.table = None
            st.hands = {}
            self.turn_pings.new_hands(tid)  # new messages: they ring themselves
            self._show_table(tid, st)
            for user in self.service.seat_users(tid):
                self._show_hand(tid, st, user)
        elif kind == "action":
            self._show_table(tid, st)
            for user in self.service.seat_users(tid):
                self._show_hand(tid, st, user)
        elif kind in ("deal_end", "finished"):
            final = u.result.table if u.result is not None else None
            if st.table is not None and final is not None:
                # the deal as it ended (last trick included), without buttons
                self.outbox.edit(st.table, content_of(final.message).bare())
            elif st.table is not None and kind == "finished":
                self._show_table(tid, st)  # a finished table has no buttons
            elif st.table is not None:
                self.outbox.freeze(st.table)
            if kind == "finished":
                if st.lobby is not None:  # its buttons, if its edit at the start failed
                    self.outbox.freeze(st.lobby)
                self._settle(tid, st, "hand_match_over", u.result)
            elif u.result is not None:
                self._settle(tid, st, "hand_deal_over", u.result, deal=u.result.deal_no)
            if u.result is not None:
                self._to_group(st, content_of(u.result.shown()))
            elif kind == "finished" and (table := self.service.tables.get(tid)) is not None:
                # ended before any deal was scored (a resignation): the summary alone
                summary = match_summary_text(table, self.service.style_for(tid))
                self._to_group(st, Content(summary))
            if kind == "finished":
                self._close(tid, st, u.version)
            else:
                self._confirm(tid, st, u.version)
        elif kind == "aborted":
            lang = self._table_lang(tid)
            table = self.service.tables.get(tid)
            reason = (table.abort_reason if table is not None else None) or "host"
            # a lobby closed before the start says so (not "the host can start")
            closed = self.service.lobby(tid) if table is not None and not table.deals else None
            if st.lobby is not None and closed is not None:
                self.outbox.edit(st.lobby, content_of(closed.message))
            view = self.service.table(tid) if table is not None and table.deals else None
            if st.table is not None and view is not None:
                # the table as it was left: no one "to act", no votes still asked for
                self.outbox.edit(st.table, content_of(view.message).bare())
            for h in (st.lobby if closed is None else None, st.table):
                if h is not None:
                    self.outbox.freeze(h)
            self._settle(tid, st, "hand_closed", None)
            if reason in (GROUP_LOST, TOPIC_LOST):  # nobody there reads it: tell the players
                for user in self.service.seat_users(tid):
                    if user_id(user) not in self.unreachable:
                        note = tt(self.langs.get(user) or lang, reason, table=tid)
                        self.outbox.send(user_id(user), Content(note))
            else:
                text = t(lang, "result.aborted", table=tid, reason=t(lang, f"abort.{reason}"))
                self._to_group(st, Content(text))
            self._close(tid, st, u.version)
        elif kind == "reminder" and u.user is not None:
            self._remind(tid, st, u.user)
        elif kind == "replaced" and u.user is not None:
            lang = self._table_lang(tid)
            text = t(
                lang,
                "remind.replaced",
                name=self._seat_name(tid, u.user),
                n=self.service.timings.missed_turns_limit,
            )
            self._to_group(st, Content(text))
        elif kind == "back" and u.user is not None:
            name = self._seat_name(tid, u.user)
            self._to_group(st, Content(t(self._table_lang(tid), "remind.back", name=name)))

    def _state(self, table_id: str, chat: str) -> TableState:
        st = self.states.get(table_id)
        if st is None:
            st = self.states[table_id] = TableState(int(chat.split(":", 1)[1]))
            table = self.service.tables.get(table_id)
            if table is not None:
                thread = self._opening.get((table.chat, table.host))
                if thread is not None:
                    self._keep_topic(table_id, st, thread)
        return st

    def _keep_topic(self, table_id: str, st: TableState, thread: int) -> None:
        """A table opened in a forum topic posts there, after a restart too: the topic
        is stored with its message references (slot `TOPIC`), before its lobby's."""
        st.thread = thread
        store = self.service.store
        ref = f"{st.chat_id}/{thread}"

        async def keep() -> None:
            if table_id in self.states:  # not closed meanwhile (its refs dropped)
                await store.set_message_ref(table_id, TOPIC, ref)

        self.outbox.call(st.chat_id, keep)

    def _to_group(self, st: TableState, content: Content) -> None:
        """A one-off message about a table to its group, in the table's topic."""
        self.outbox.send(st.chat_id, content, thread=st.thread)

    def _show_lobby(self, table_id: str, st: TableState) -> None:
        view = self.service.lobby(table_id)
        if view is None:
            return
        lang = self._table_lang(table_id)
        missing = [u for u in view.seats if u is not None and u.user and self._unreachable(u.user)]
        notes = []
        if missing:
            names = ", ".join(s.name for s in missing if s is not None)
            notes.append(tt(lang, "lobby_need_start", names=names, link=self.deep_link(table_id)))
        content = content_of(view.message, notes)
        if st.lobby is None:
            st.lobby = Handle(st.chat_id, table_id, "lobby", thread=st.thread)
            self.outbox.post(st.lobby, content)
        else:
            self.outbox.edit(st.lobby, content)

    def _show_table(self, table_id: str, st: TableState) -> None:
        view = self.service.table(table_id)
        if view is None:
            return
        content = content_of(view.message)
        if st.table is None:
            st.table = Handle(st.chat_id, table_id, "table", thread=st.thread)
            self.outbox.post(st.table, content)
        else:
            self.outbox.edit(st.table, content)

    def _unreachable(self, user: str) -> bool:
        return user.startswith(PLATFORM + ":") and user_id(user) in self.unreachable

    def _table_lang(self, table_id: str) -> str:
        table = self.service.tables.get(table_id)
        return norm_lang(table.settings.get("lang") if table is not None else None)

    def _seat_name(self, table_id: str, user: str) -> str:
        table = self.service.tables.get(table_id)
        if table is not None:
            seat = table.seat_of(user)
            s = table.seats[seat] if seat is not None else None
            if s is not None:
                return s.name
        return user
