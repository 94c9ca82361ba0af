"""The terminal table shows its player nothing of the computers' cards.

The person at the keyboard is the one human at the table: everything printed (the
table, his hand, results, refusals of typed cards) must name only cards the public
has seen in the deal or his own seat may know (his hand, and what it was shown: the
talon he took, the card he was given).  Each line is checked as it is printed,
against the deal as it stands then; a deal's last picture and result (printed once
it is over, when its seed says everything) are not checked.  The player also types
card names at every other prompt: "not in your hand" and "cannot be played now" must
tell him only about his own hand.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from adapters.local import LocalTable
from adapters.local.terminal import CHAT, PROMPT
from bot.i18n import card_label
from bot.service import TableService, TableUpdate
from bot.table import Table
from engine import protocol as P
from engine.cards import CARDS, Card
from engine.events import DealEnded

from .test_leaks import Watch, _cards_in
from .test_local_table import USER, Answer, Terminal, running_service, tie_break_at_once


class Observer:
    """A core listener (ahead of the terminal's) that keeps what the terminal's player
    may know of the deal in play, and whether the deal on screen is over."""

    def __init__(self, service: TableService) -> None:
        self.service = service
        self.watch = Watch(service)
        self.own: dict[int, set[Card]] = {}  # deal number -> what his seat was shown
        self.deal_over = False

    def table(self) -> Table | None:
        return next(iter(self.service.tables.values()), None)

    def allowed_and_hidden(self) -> tuple[set[Card], set[Card]]:
        table = self.table()
        if table is None or table.deal is None or self.deal_over:
            return set(CARDS), set()
        seat = table.seat_of(USER.key)
        dseat = table.deal_seat(seat) if seat is not None else None
        own = self.own.setdefault(len(table.deals), set())
        if dseat is not None:
            own |= P.view(table.deal, dseat).cards_seen()
        return own, self.watch.hidden(table)

    async def table_update(self, update: TableUpdate) -> None:
        ended = [i for i, e in enumerate(update.events) if isinstance(e, DealEnded)]
        self.deal_over = update.kind in ("deal_end", "finished", "aborted")
        table = self.service.tables.get(update.table_id)
        if table is not None and not self.deal_over:
            self.watch.hidden(table, update.events[ended[-1] + 1 :] if ended else update.events)
            self.allowed_and_hidden()


class CheckedTerminal(Terminal):
    """The screen, checking every line as it is printed."""

    def __init__(self, answer: Answer, service: TableService) -> None:
        super().__init__(answer)
        self.observer = Observer(service)
        service.listeners.append(self.observer)
        self.typed: Card | None = None
        self.problems: list[str] = []
        self.checked = 0

    def write(self, s: str) -> int:
        if s == PROMPT:
            self.typed = None  # what he types next is asked for now
        own, hidden = self.observer.allowed_and_hidden()
        if self.typed is not None:
            own = own | {self.typed}  # he named it himself
        leaked = _cards_in(s, hidden - own)
        self.checked += bool(hidden)
        if leaked:
            self.problems.append(f"{sorted(map(str, leaked))} in {s!r}")
        return super().write(s)

    def card_or_first(self) -> str:
        """At every other prompt a card he may or may not hold (every card in turn),
        else the first choice."""
        if self.prompts % 2:
            self.typed = CARDS[self.prompts // 2 % len(CARDS)]
            return card_label(self.typed, "en")
        return "1"

    def assert_clean(self) -> None:
        """Lines were checked while cards were hidden, and none named one."""
        assert self.checked > 20
        assert not self.problems, "\n".join(self.problems[:10])


@pytest.mark.parametrize(
    ("game_id", "preset"),
    [("zweier", None), ("dreier", None), ("bauern", None), ("tausend", None)]
    + [("tausend", "two_players")],
)
async def test_the_terminal_shows_no_computer_s_card(
    tmp_path: Path, game_id: str, preset: str | None
) -> None:
    async with running_service(tmp_path / "local.sqlite3") as service:
        # computers that bid like people: deals are played out, matches last
        settings = {"ai_level": "heuristic", f"preset.{game_id}": preset}
        for key, value in settings.items():
            if value is not None:
                assert (await service.update_setting(CHAT, USER, key, value, is_admin=True)).ok

        def answer(screen: str) -> str:
            if "Choose a game" in screen:
                return game_id
            # two deals, and on until a typed card was refused: a quick deal (the
            # computer closes the talon at once) asks for only a card or two, which
            # the rotation may find in his hand
            deals = len(re.findall(r"^Deal \d+ over:", term.text, re.M))
            if (deals >= 2 and "is not in your hand" in term.text) or term.prompts > 400:
                return "q"
            if "Match over" in screen:  # one deal may end a match (a Dreier contract of 24+)
                return "m"
            return term.card_or_first()

        term = CheckedTerminal(answer, service)
        table = LocalTable(service, asyncio.Event(), readline=term.next_line, out=term, user=USER)
        await asyncio.wait_for(table.run(), 60)
    # cards were typed and refused
    assert "is not in your hand" in term.text, term.text[-4000:]
    term.assert_clean()


@pytest.mark.parametrize("tied", [(1, 2), (0, 1)], ids=["sits_out", "plays"])
async def test_a_dreier_tie_break_shows_him_no_tied_player_s_card(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tied: tuple[int, int]
) -> None:
    """The tie-break deal of two (RULES.md §3 "Score"), which Tester sits out or
    plays against Computer 1: nothing printed names a card of theirs before it is
    played, nor does a card he types and is refused (his seat has no hand to check
    it against when he sits out)."""
    tie_break_at_once(monkeypatch, tied)
    async with running_service(tmp_path / "local.sqlite3") as service:

        def answer(screen: str) -> str:
            if "Choose a game" in screen:
                if tied == (1, 2):  # no prompt until the end: typed meanwhile
                    for c in CARDS:
                        asyncio.get_running_loop().call_soon(
                            term.lines.put_nowait, card_label(c, "en")
                        )
                return "dreier count_down=on"
            if "Match over" in screen or term.prompts > 200:
                return "q"
            return term.card_or_first()

        term = CheckedTerminal(answer, service)
        table = LocalTable(
            service, asyncio.Event(), readline=term.next_line, out=term, user=USER, keyboard=True
        )
        await asyncio.wait_for(table.run(), 60)
    assert "Tie-break won by" in term.text, term.text[-4000:]
    assert ("Your choices:" in term.text) == (0 in tied)  # asked to play only in his deal
    term.assert_clean()
