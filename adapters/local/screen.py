"""What the terminal prints: lines fitted to the screen, the prompt, the table and
hand with their numbered choices, and the news the core reports while others play.

`Screen` is the part of `LocalTable` that draws.  It reads the core's views and acts
on no table, so its listener (`table_update`, called by the core under the table's
lock) only prints and never blocks.
"""

from __future__ import annotations

from bot.i18n import TEXTS, card_label, game_name, t
from bot.service import TableUpdate
from bot.table import Status
from bot.telling import TOLD_KINDS
from bot.views import Button, HandView, ResultView, SeatLine, Style, TableView
from engine.cards import Card

from .choices import plays_card
from .guard import CoreFailed, Guard
from .refs import PLATFORM
from .texts import say
from .words import _verb
from .wrap import fill, wrap

PROMPT = "> "


class Screen(Guard):
    """The output of `LocalTable`: printing, the prompt, the table and the hand."""

    # --- output ------------------------------------------------------------------------

    def write(self, text: str) -> None:
        width = self.width()
        lines = [part for line in text.split("\n") for part in wrap(line, width)]
        # news while the prompt waits (a computer's move, a reminder): on a line of
        # its own, not after the "> "
        self._end_prompt_line()
        self._emit("\n".join(lines) + "\n")

    def _end_prompt_line(self) -> None:
        if self._at_prompt:
            self._emit("\n")
            self._at_prompt = False

    def prompt(self) -> None:
        self._emit(PROMPT)
        self._at_prompt = True

    def _emit(self, text: str) -> None:
        """Print; once nobody reads the output (`| head`, a closed pipe) the session
        ends quietly, its table kept, as on Ctrl-C, instead of with a traceback."""
        if self.output_gone:
            return
        try:
            self.out.write(text)
            self.out.flush()
        except BrokenPipeError:
            self.output_gone = True
            self.stop.set()

    def say(self, key: str, **values: object) -> None:
        self.write(say(self.lang, key, **values))

    # --- the listener (called by the core under the table's lock: print, never block) ---

    async def table_update(self, update: TableUpdate) -> None:
        if update.platform != PLATFORM:
            return
        # (a lobby closed after a failed start he was told of is not drawn closed)
        watched = update.table_id == self.table_id and update.table_id != self._lobby_closed
        if watched:
            self._on_update(update)
        elif update.kind in ("finished", "aborted") and self.table_id is None:
            self._ended_meanwhile(update.table_id, update.result)
        if update.kind in TOLD_KINDS:
            # printed (a table not at the screen has nothing more to show): a
            # restart need not tell it again
            await self.service.delivered(update.table_id, update.version)
        if watched and update.kind in ("finished", "aborted"):
            # only now: the session goes on (or stops the bot) once it is set
            self._over.set()

    def _ended_meanwhile(self, table_id: str, result: ResultView | None) -> None:
        """A match of his the last run ended or closed, and a kill kept it from the
        screen: its result, or why it closed, before the menu, saying which match it
        was (a bare "Deal 5 over" there reads like a fault, and a match that is just
        gone from the resume question like a lost game).  Not a match he did not sit
        at: not his to see.  (Only a told-again end comes here: his live ones come
        while he watches the table, or before he listens, at the resume question.)"""
        table = self.service.tables.get(table_id)
        if table is None or table.seat_of(self.user.key) is None:
            return
        game = game_name(table.game, self.lang)
        self.write("")
        if table.status == Status.FINISHED and result is not None:
            self.say("ended_meanwhile", game=game, table=table_id)
            self.write(result.message.text)
        elif table.status == Status.ABORTED:
            reason = _abort_reason(table.abort_reason, self.lang)
            key = "closed_meanwhile_why" if reason else "closed_meanwhile"
            self.say(key, game=game, table=table_id, reason=reason)

    def _on_update(self, update: TableUpdate) -> None:
        kind = update.kind
        if kind in ("action", "deal_end", "finished"):
            # before the board, which ends with his prompt when it is his turn again
            self._say_if_timed_out()
        if kind == "started":
            self.show(full=True)
        elif kind == "action":
            if self._calling_at is not None and update.version <= self._calling_at:
                # nothing new: the table put back as stored, a change of his having
                # failed; the words that tell him come first, then the table (his
                # call's answer draws it), once
                return
            if self._full_pending:
                self.show(full=True)
            else:
                self.show(full=self._my_turn(), compact=True)
        elif kind == "deal_end" and update.result is not None:
            self._show_result(update.result)
        elif kind == "finished":
            self.buttons = []
            if update.result is not None:
                self._show_result(update.result)
        elif kind == "aborted":
            self.buttons = []
            table = self.service.tables.get(update.table_id)
            reason = _abort_reason(table.abort_reason if table is not None else None, self.lang)
            self.say("aborted_why" if reason else "aborted", reason=reason)
            self._aborted = True
        elif kind == "reminder" and update.user == self.user.key:
            seconds = self.service.seconds_left(update.table_id)
            self.write(t(self.lang, "remind.turn", name=self.user.name, seconds=seconds))
            self._reprompt()  # his choices stand: ask again below the reminder

    def _say_if_timed_out(self) -> None:
        """The computer moved for him (his time ran out): say so, with how many turns
        more he may miss, else the card just appears played under his name."""
        missed = self._missed_turns()
        if missed > self._missed:
            limit = self.service.timings.missed_turns_limit
            self.say("timed_out", n=missed, limit=limit)
        self._missed = missed

    def _missed_turns(self) -> int:
        table = self.service.tables.get(self.table_id) if self.table_id else None
        seat = table.seat_of(self.user.key) if table is not None else None
        s = table.seats[seat] if table is not None and seat is not None else None
        return s.missed if s is not None else 0

    def _my_turn(self) -> bool:
        """Whether it is his turn: the table is drawn whole (so too after a bug, logged)."""
        if self.table_id is None:
            return False
        hand = self._ask_aside(self._hand, "his hand at table %s", self.table_id)
        return hand is None or hand.your_turn

    def _hand(self) -> HandView | None:
        return self.service.hand(self.table_id or "", self.user.key, self.lang)

    def show(self, *, full: bool = True, compact: bool = False) -> None:
        """Print the table and your hand (full), or only the table lines that changed;
        `compact`: the lines that changed and the hand, unless a new deal began."""
        if self.table_id is None:
            return
        table_id = self.table_id
        try:
            table = self._ask(
                lambda: self.service.table(table_id, self.lang),
                "drawing table %s",
                table_id,
                tell=False,
            )
            hand = self._ask(self._hand, "drawing his hand at table %s", table_id, tell=False)
        except CoreFailed:
            # (logged) he is told, and asked again if his choices stand; the next
            # update draws the table whole, or "s" now
            self.say("not_shown")
            self._full_pending = True
            self._reprompt()
            return
        if table is None or hand is None:
            # a change is being stored ("s" typed as a computer's move is saved): no
            # view yet, so the one asked for comes with the next update, not never
            self._full_pending = self._full_pending or (full and not compact)
            return
        if full and not compact:
            self._full_pending = False
        lines = table.message.text.splitlines()
        if not full:
            self._show_changes(lines)
            self._waiting_for = _to_act(table.seats)
            return
        if compact and self._shown and lines[1:2] == self._shown[1:2]:
            # his turn in the same deal: the table's news and his hand, not the
            # whole table again (which would scroll the trick just played away)
            self._show_changes(lines)
            self._picked = 0
            self.write("")
            held = hand.view.hand if hand.view is not None else ()
            # (none held before: cards just looked at, Thousand's blind bid, are
            # not news)
            if self._held and (new := [c for c in held if c not in self._held]):
                # a card drawn from the talon, the stock taken, a card given to him:
                # the hand line alone would leave him to spot it
                self.say("new_cards", cards=" ".join(self._card_label(c) for c in new))
            self.show_hand(hand.message.text, self._rows(table, hand))
            self._waiting_for = None if hand.your_turn else _to_act(table.seats)
            return
        self._shown = lines
        self._picked = 0
        self.write("")
        self.write(table.message.text)
        self.write("")
        self.show_hand(hand.message.text, self._rows(table, hand))
        self._waiting_for = None if hand.your_turn else _to_act(table.seats)

    @staticmethod
    def _rows(table: TableView, hand: HandView) -> list[list[Button]]:
        """The hand's buttons and the table's other than "show my hand" (that is the
        `s` command here): "take my seat back" after the computer stepped in."""
        extra = [b for b in table.message.all_buttons() if _verb(b.payload) not in ("h", None)]
        return [list(r) for r in hand.message.buttons] + ([extra] if extra else [])

    def _show_changes(self, lines: list[str], also_seen: tuple[str, ...] = ()) -> None:
        """Print the table lines that are news since the table was last shown.

        The first line names the table and never changes; a line that differs only
        in the to-act marker is not news (the "to act" line says it).
        """
        seen = {_plain(x) for x in (*self._shown, *also_seen)}
        for line in lines[1:]:
            if _plain(line) not in seen:
                self.write(line)
        self._shown = lines

    def _show_result(self, result: ResultView) -> None:
        """The deal as it ended, then its result.

        A deal can end on a move that is never shown as a table of its own (the
        marriage that makes 66, the last trick), and the final table is the only
        place with every trick; a chat edits its table message to it, here its new
        lines are printed.
        """
        if result.table is not None:
            said = tuple(result.message.text.splitlines())
            self._show_changes(result.table.message.text.splitlines(), said)
        self.write("")
        self.write(result.message.text)

    def show_hand(self, text: str, rows: list[list[Button]]) -> None:
        """Print a hand and number its buttons row by row; those numbers press them."""
        self._held = self._hand_cards()
        self.write(text)
        self.buttons = [b for row in rows for b in row]
        if not self.buttons:
            return
        self.say("your_actions")
        n = 0
        width = self.width()
        for group in self._card_rows_joined(rows):
            cells = []
            for b in group:
                n += 1
                cells.append(f"{n:>2}) {b.label}")
            # A row that does not fit is split between choices, never inside one.
            if cells:
                self.write("\n".join(fill(cells, width)))
        self.prompt()

    def _card_rows_joined(self, rows: list[list[Button]]) -> list[list[Button]]:
        """The rows to print: a hand's cards in one run, however many rows of five
        the chats need for them, so a narrow screen wraps them evenly (not 4, 1 and
        3 of eight cards); other rows (bids, Close, the gifts to each player) stay
        rows of their own."""
        joined: list[list[Button]] = []
        cards = False
        for row in rows:
            all_cards = bool(row) and all(plays_card(b) for b in row)
            if all_cards and cards:
                joined[-1] = joined[-1] + row
            else:
                joined.append(list(row))
            cards = all_cards
        return joined

    def _style(self) -> Style | None:
        """The language and card pictures this table is shown with (None after a
        bug, logged: the reader's language, the usual pictures)."""
        table_id = self.table_id
        if table_id is None or table_id not in self.service.tables:
            return None
        return self._ask_aside(
            lambda: self.service.style_for(table_id, self.lang),
            "the style of table %s",
            table_id,
        )

    def _card_label(self, card: Card) -> str:
        style = self._style() or Style(self.lang)
        return card_label(card, style.lang, style.suits)

    def _hand_cards(self) -> tuple[Card, ...]:
        """The cards the player's hand shows (none while they are not looked at,
        or after a bug, logged)."""
        hand = self._ask_aside(self._hand, "the cards at table %s", self.table_id)
        return hand.view.hand if hand is not None and hand.view is not None else ()

    def _reprompt(self) -> None:
        if self.buttons:
            self.prompt()


def _abort_reason(reason: str | None, lang: str) -> str:
    """Why a table closed, in words ("" for a reason without any)."""
    if reason is not None and f"abort.{reason}" in TEXTS["en"]:
        return t(lang, f"abort.{reason}")
    return ""


def _plain(line: str) -> str:
    return line.replace("▶ ", "")


def _to_act(seats: tuple[SeatLine | None, ...]) -> str | None:
    return next((s.name for s in seats if s is not None and s.to_act), None)
