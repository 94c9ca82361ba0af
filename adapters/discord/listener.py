"""The core's listener: what a change at a table shows, and where.

The core tells the adapter of every change (`table_update`) under the table's lock,
so this only decides what to show and queues it (`outbox`, which renders the
current views when it sends): the lobby, the table, each player's hand, the turn
pings, the notes in the channel, and a closed table's last messages.
"""

from __future__ import annotations

from bot.i18n import TEXTS, norm_lang, t
from bot.service import TableUpdate
from bot.views import Message, hand_title, match_summary_text, started_lobby_text

from . import render
from .ids import PLATFORM, user_id
from .losses import CHANNEL_LOST, SERVER_LOST
from .outbox import Op
from .shape import AdapterShape
from .texts import text


class Listener(AdapterShape):
    """The `DiscordAdapter`'s listener.  A mixin, as `Answering` is."""

    async def table_update(self, update: TableUpdate) -> None:
        """Called by the core under the table's lock: only decide what to show."""
        if update.platform != PLATFORM:
            return
        table_id = update.table_id
        if table_id not in self._channels:
            # the lobby of a table being opened: `/schnapsen new` shows it itself
            return
        kind = update.kind
        humans = self.service.seat_users(table_id)
        add = self._add
        if kind == "lobby":
            add(table_id, Op("edit", "lobby"))
        elif kind == "started":
            self._started(table_id, humans)
        elif kind in ("action", "replaced"):
            add(table_id, Op("edit", "table"))
            for user in humans:
                add(table_id, Op("edit", f"hand:{user}"))
                self._ring(table_id, user, new=False)
                if (table_id, user) in self._live:
                    add(table_id, Op("edit", f"live:{user}"))
            if kind == "replaced" and update.user is not None:
                add(table_id, self._note(table_id, "remind.replaced", update.user))
        elif kind == "back" and update.user is not None:
            # the takeover note stands in the channel: this one answers it, and names
            # him without a ping (he has just pressed something: he is here)
            add(table_id, self._note(table_id, "remind.back", update.user, ping=False))
        elif kind == "deal_end":
            final = update.result.table if update.result is not None else None
            add(
                table_id,
                Op("final", "table", render.without_buttons(final.message) if final else None),
            )
            table = self.service.tables.get(table_id)
            if update.result is not None and table is not None:
                # the DM hand of the deal that ended: the move that ended it brought
                # none, and the next deal's hand is a new message
                self._unping_all(table_id, humans)
                for user in humans:
                    lang = self._langs.get(user) or self._table_lang(table_id)
                    over = text(lang, "hand_deal_over", deal=update.result.deal_no)
                    # the hand as the deal left it (the cards still held, what he was
                    # shown), else which table it was
                    last = update.result.hand_of(user, norm_lang(lang))
                    shown = last.text if last is not None else hand_title(table, lang)
                    add(table_id, Op("final", f"hand:{user}", Message(f"{shown}\n{over}")))
            if update.result is not None:
                add(table_id, Op("note", message=update.result.message))
            # shown: a restart need not show it again
            self._told(table_id, humans, update.version)
        elif kind in ("finished", "aborted"):
            self._closing(table_id, update, humans)
        elif kind == "reminder" and update.user is not None:
            # the channel's mention stands in for his ping (one notice a turn), and
            # goes the same way once he has moved: a slow evening leaves no trail of
            # "20 s left" in the channel
            user = update.user
            note = self._note(table_id, "remind.turn", user)
            # it says his turn has come: counted as shown (a turn that began before a
            # restart was shown by no hand of this run), so its end is known; and any
            # move after this one was his and deletes the reminder (`_ring`), even
            # when his next turn follows at once (he took the trick)
            self._turn_pings.shown((table_id, user), True, new=True)
            moves = self._moves(table_id)
            if moves is not None:
                self._reminded_at[(table_id, user)] = moves
            table = self.service.tables.get(table_id)
            version = table.version if table is not None else None
            remind = Op("remind", f"hand:{user}", note.message, note.mentions, version)
            add(table_id, remind)

    def _closing(self, table_id: str, update: TableUpdate, humans: list[str]) -> None:
        """The last messages of a table: final pictures, the result, then forget it."""
        add = self._add
        table = self.service.tables.get(table_id)
        lang = self._table_lang(table_id)
        self._turn_pings.forget(table_id)
        self._unping_all(table_id, humans)
        if update.kind == "finished":
            final = update.result.table if update.result is not None else None
            view = final or self.service.table(table_id)
            add(
                table_id,
                Op("final", "table", render.without_buttons(view.message) if view else None),
            )
            self._last_hands(table_id, humans)
            if update.result is not None:
                add(table_id, Op("note", message=update.result.shown()))
            elif table is not None:  # resigned before any deal was scored
                summary = match_summary_text(table, self.service.style_for(table_id))
                add(table_id, Op("note", message=Message(summary)))
        else:
            reason = table.abort_reason if table is not None else None
            lost = reason in (CHANNEL_LOST, SERVER_LOST)
            if not lost:
                lobby = self.service.lobby(table_id) if table and not table.deals else None
                add(table_id, Op("final", "lobby", lobby.message if lobby else None))
                # the table as it was left: no one "to act", no votes still asked for
                view = self.service.table(table_id) if table and table.deals else None
                add(
                    table_id,
                    Op("final", "table", render.without_buttons(view.message) if view else None),
                )
            self._last_hands(table_id, humans)  # "This table was closed."
            self._left_hands(table_id, humans, table)
            for user in humans if lost else ():
                # the channel cannot be told: each player is, privately
                note = text(
                    self._langs.get(user) or lang,
                    str(reason),
                    table=table_id,
                    channel=f"<#{self._channels[table_id]}>",
                )
                add(table_id, Op("tell", f"hand:{user}", Message(note)))
            if not lost:
                key = f"abort.{reason}"
                why = t(lang, key) if key in TEXTS["en"] else str(reason or "")
                add(
                    table_id,
                    Op(
                        "note",
                        message=Message(t(lang, "result.aborted", table=table_id, reason=why)),
                    ),
                )
        add(table_id, Op("close", version=update.version))

    def _started_lobby(self, table_id: str, lobby: Message) -> Message:
        """The lobby's last words: who sat down, and that the game is on."""
        lang = self._table_lang(table_id)
        expiry = self.service.timings.lobby_expiry
        return Message(started_lobby_text(lobby.text, lang, expiry))

    def _started(self, table_id: str, humans: list[str]) -> None:
        """The match began: the lobby keeps who sat down, the table and each
        player's hand are posted."""
        add = self._add
        lobby = self.service.lobby(table_id)
        if lobby is not None and "lobby" in self._refs.get(table_id, {}):
            add(table_id, Op("final", "lobby", self._started_lobby(table_id, lobby.message)))
        add(table_id, Op("post", "table"))
        self._turn_pings.new_hands(table_id)
        for user in humans:
            self._dm_closed.pop(user, None)  # one new try each deal, never a loop
            add(table_id, Op("final", f"hand:{user}"))
            add(table_id, Op("post", f"hand:{user}"))
            self._ring(table_id, user, new=True)
            if (table_id, user) in self._live:
                add(table_id, Op("edit", f"live:{user}"))

    def _table_lang(self, table_id: str) -> str | None:
        table = self.service.tables.get(table_id)
        return table.settings.get("lang") if table is not None else None

    def _note(self, table_id: str, key: str, user: str, *, ping: bool = True) -> Op:
        lang = self._table_lang(table_id)
        uid = user_id(user)
        mention = f"<@{uid}>" if uid is not None else user
        if key == "remind.turn":
            body = t(lang, key, name=mention, seconds=self.service.seconds_left(table_id))
        else:
            body = t(lang, key, name=mention, n=self.service.timings.missed_turns_limit)
        pinged = (uid,) if uid is not None and ping else ()
        return Op("note", message=Message(body), mentions=pinged)
