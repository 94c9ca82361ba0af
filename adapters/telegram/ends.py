"""A deal's or a match's end: the hands say it is over, the core is told once what
it shows went out (so that a restart does not tell it again), and a closed table is
forgotten.

`Ends` is the part of `TelegramAdapter` that does it, for the listener (`tables`).
"""

from __future__ import annotations

from typing import Any

from bot.i18n import norm_lang
from bot.views import ResultView

from .content import Content
from .refs import PLATFORM, user_id
from .shape import AdapterShape
from .tables import TableState
from .texts import tt


class Ends(AdapterShape):
    """`TelegramAdapter`'s ends of deals and tables (see the module's docstring)."""

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
