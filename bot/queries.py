"""What adapters read of a table without changing it: its views, drawn for a reader,
and questions about it (whose turn it is, why the rules refuse a card).

Nothing here takes a table's lock (adapters draw when they send): a table changed in
memory and not stored yet (`Table.unsaved`) draws nothing instead, so no one is shown
what a failed write takes back.
"""

from __future__ import annotations

from engine import protocol as P
from engine.actions import Action, decode
from engine.errors import IllegalAction

from .i18n import LANGUAGES, TEXTS, norm_lang, supported_lang, t
from .ports import UserRef
from .service_shape import ServiceShape
from .table import Table
from .views import HandView, LobbyView, Message, Style, TableView, hand_view, lobby_view, table_view


def table_style(table: Table, lang: str) -> Style:
    """How a table is written for a reader of `lang`: its card pictures and how much
    of the tricks it shows are the table's settings."""
    return Style(lang, table.settings.get("suits", "french"), table.settings.get("tricks", "table"))


class TableQueries(ServiceShape):
    """The read side of `TableService` (a mixin: it reads the service's tables)."""

    def _style(self, table: Table, user: UserRef | None = None) -> Style:
        own = supported_lang(user.lang) if user is not None else None
        lang = own or table.settings.get("lang", "en")
        return table_style(table, lang)

    def _final_hands(self, table: Table) -> tuple[tuple[str, str, Message], ...]:
        out = []
        for user in table.humans():
            for lang in LANGUAGES:
                hand = hand_view(table, user, table_style(table, lang))
                if hand is not None:
                    out.append((user, lang, hand.message))
        return tuple(out)

    def style_for(self, table_id: str, user_lang: str | None = None) -> Style:
        table = self.tables[table_id]
        lang = supported_lang(user_lang) or table.settings.get("lang", "en")
        return table_style(table, lang)

    def _drawable(self, table_id: str) -> Table | None:
        """The table to draw, or None: gone, or changed in memory and not stored yet
        (`Table.unsaved`).  An adapter that draws outside the table's lock (a queued
        edit rendered when it is sent, a private /start) then draws nothing, and the
        change's own update, or the reload's after a failed write, draws it."""
        table = self.tables.get(table_id)
        return None if table is None or table.unsaved else table

    def lobby(self, table_id: str, lang: str | None = None) -> LobbyView | None:
        table = self._drawable(table_id)
        if table is None:
            return None
        return lobby_view(
            table, self.style_for(table_id, lang), int(self.timings.lobby_expiry // 60)
        )

    def table(self, table_id: str, lang: str | None = None) -> TableView | None:
        table = self._drawable(table_id)
        return None if table is None else table_view(table, self.style_for(table_id, lang))

    def hand(self, table_id: str, user: str, lang: str | None = None) -> HandView | None:
        table = self._drawable(table_id)
        if table is None:
            return None
        return hand_view(table, user, self.style_for(table_id, lang))

    def why_not(self, table_id: str, user: str, code: int, lang: str | None = None) -> str | None:
        """Why the rules refuse `user` the action `code` now, in his words, as the
        refusal of a pressed button would say it, without pressing (the terminal's
        typed card); None when they allow it or it is not his turn."""
        table = self.tables.get(table_id)
        seat = table.seat_of(user) if table is not None else None
        if table is None or table.deal is None or seat is None or table.to_act() != seat:
            return None
        if code in table.deal.legal():
            return None
        return explain(table, seat, code, norm_lang(lang))

    def his_turn(self, table_id: str, user: str) -> bool:
        """Whether it is `user`'s turn and he plays it himself (not the computer for
        him, after his turns ran out): what makes a turn ring (`bot.turn_pings`),
        read from the table, with no hand drawn for it."""
        table = self.tables.get(table_id)
        if table is None or user not in table.present():
            return False
        seat = table.seat_of(user)
        return seat is not None and table.to_act() == seat

    def seat_users(self, table_id: str) -> list[str]:
        table = self.tables.get(table_id)
        return [] if table is None else table.humans()


def explain(table: Table, seat: int, code: int, lang: str) -> str:
    """Why the rules refuse `code`: in the player's words where the refusal is one a
    player meets (following suit), else the engine's own."""
    assert table.deal is not None
    dseat = table.deal_seat(seat)
    try:
        action: Action = decode(code, table.deal.contracts)
    except (ValueError, IndexError):
        return "unknown action"
    try:
        P.apply(table.deal, dseat if dseat is not None else seat, action)
    except IllegalAction as e:
        key = f"illegal.{e.code}"
        return t(lang, key) if key in TEXTS["en"] else e.message
    return "not allowed now"  # pragma: no cover
