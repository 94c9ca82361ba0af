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
table lock, it only queues on the outbox.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bot.i18n import norm_lang, t
from bot.service import TableUpdate
from bot.table import Status
from bot.turn_pings import SLOT as PING
from bot.views import HandView, ResultView, match_summary_text, started_lobby_text

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
    """`TelegramAdapter`'s table messages: the listener, the lobby, table, hand and
    ping messages, and their references in the store (see the module's docstring)."""

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

    def _settle(
        self,
        table_id: str,
        st: TableState,
        key: str,
        result: ResultView | None,
        **values: Any,
    ) -> None:
        """The hand messages of a deal that ended show the hand as the deal left it
        (`result.hands`: the cards still held, what one was shown) and say that it is
        over, instead of the last "Your turn." (without its buttons) or "Waiting for
        ...", which nothing would ever change: the move that ended the deal brings no
        hand of its own, and after the last deal no new hand comes below.  A turn ping
        waiting for a move goes: the move was the deal's end."""
        for user in list(st.pings):
            self._unping(st, user)
        for user, handle in st.hands.items():
            lang = self.langs.get(user) or self._table_lang(table_id)
            final = result.hand_of(user, norm_lang(lang)) if result is not None else None
            if final is not None and key == "hand_match_over":
                self.outbox.edit(handle, Content(final.text))  # it ends saying so itself
                continue
            if final is not None:
                shown = final.text
            elif handle.latest is not None:
                # without it, the title alone says which table it was
                shown = handle.latest.text.split("\n", 1)[0]
            else:  # a message of the last run, not drawn by this one
                self.outbox.freeze(handle)
                continue
            self.outbox.edit(handle, Content(f"{shown}\n{tt(lang, key, **values)}"))

    def _confirm(self, table_id: str, st: TableState, version: int) -> None:
        """Tell the core, once what an end shows went out, that it need not be told
        again after a restart (`TableService.delivered`): when every chat it was
        queued in, the group and each hand's private chat, got past it."""
        service = self.service
        chats = {st.chat_id, *(hand.chat_id for hand in st.hands.values())}
        left = set(chats)
        for chat_id in chats:

            async def sent(chat_id: int = chat_id) -> None:
                left.discard(chat_id)
                if not left:
                    await service.delivered(table_id, version)

            self.outbox.call(chat_id, sent)

    def _close(self, table_id: str, st: TableState, version: int) -> None:
        for question in st.questions:
            self.outbox.freeze(question)
        self.states.pop(table_id, None)
        self.turn_pings.forget(table_id)
        self._lobby_locks.pop(table_id, None)
        # `unreachable` gates the Start of tables he sits at; with none left it may
        # forget him: a join greets him first, and a refusal puts him back.
        for user in self.service.seat_users(table_id):
            if not any(
                tb.id != table_id and tb.platform == PLATFORM and tb.seat_of(user) is not None
                for tb in self.service.tables.values()
            ):
                self.unreachable.discard(user_id(user))
        # its message refs go with it, once its last messages went out
        self._confirm(table_id, st, version)

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
