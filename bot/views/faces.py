"""The views' faces: the data an adapter receives, to send as it is or draw its own way.

Apart from the code that fills them in, so that adapters and tests read the shapes
without any message's rules.  `_Layout` fits buttons to the stricter platform
(Discord: 5 rows of 5).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from engine.views import SeatView

MAX_PER_ROW = 5


MAX_ROWS = 5


@dataclass(frozen=True, slots=True)
class Button:
    label: str
    payload: str


@dataclass(frozen=True, slots=True)
class Message:
    text: str
    buttons: tuple[tuple[Button, ...], ...] = ()

    def all_buttons(self) -> list[Button]:
        return [b for row in self.buttons for b in row]


@dataclass(frozen=True, slots=True)
class SeatLine:
    seat: int
    name: str
    user: str | None
    is_ai: bool
    away: bool
    team: int | None
    to_act: bool


@dataclass(frozen=True, slots=True)
class LobbyView:
    table_id: str
    game: str
    host: str
    seats: tuple[SeatLine | None, ...]
    can_start: bool
    message: Message


@dataclass(frozen=True, slots=True)
class TableView:
    table_id: str
    game: str
    status: str
    deal_no: int
    seats: tuple[SeatLine | None, ...]
    public: SeatView | None
    scores: tuple[int, ...]
    bummerl: tuple[int, ...]
    seed_sha256: str | None
    message: Message


@dataclass(frozen=True, slots=True)
class HandView:
    table_id: str
    seat: int
    user: str
    your_turn: bool
    view: SeatView | None
    message: Message


@dataclass(frozen=True, slots=True)
class ResultView:
    table_id: str
    deal_no: int
    points: tuple[int, ...]
    finished: bool
    message: Message
    seed: str | None = None
    #: The public table as the deal ended (its last trick included): adapters show it
    #: as the final state of that deal's table message; by the time they hear of the
    #: result the table has already moved on to the next deal.
    table: TableView | None = None
    #: Each person's own hand as the deal ended, in each language (user, lang,
    #: message; no buttons): the last picture of that deal's private hand message,
    #: with the cards he still held and what he had been shown.  Private: only for
    #: that user's own chat.
    hands: tuple[tuple[str, str, Message], ...] = ()
    #: After a match's end: the button that opens a lobby for the same game and rules
    #: in the same chat (`TableService.act`, verb ``re``), for adapters to show with
    #: the summary
    rematch: Button | None = None

    def shown(self) -> Message:
        """The result as the chat shows it: a match's summary with "Rematch" under it."""
        if self.rematch is None:
            return self.message
        return dataclasses.replace(self.message, buttons=((self.rematch,),))

    def hand_of(self, user: str, lang: str | None) -> Message | None:
        """`user`'s final hand in `lang` (or in any language there is)."""
        mine = [(lg, m) for u, lg, m in self.hands if u == user]
        return next((m for lg, m in mine if lg == lang), mine[0][1] if mine else None)


@dataclass(frozen=True, slots=True)
class BoardRow:
    rank: int
    player: str
    name: str
    rating: float
    games: int
    won: int
    bummerl: int


@dataclass(frozen=True, slots=True)
class Style:
    """How one reader wants things: language and card pictures."""

    lang: str = "en"
    suits: str = "french"
    #: "table" or "open" (`bot.settings.TRICKS`): how much of the played tricks shows.
    tricks: str = "table"


@dataclass
class _Layout:
    rows: list[list[Button]] = field(default_factory=list)

    def add_row(self, buttons: list[Button]) -> None:
        for i in range(0, len(buttons), MAX_PER_ROW):
            self.rows.append(buttons[i : i + MAX_PER_ROW])

    def done(self) -> tuple[tuple[Button, ...], ...]:
        return tuple(tuple(r) for r in self.rows[:MAX_ROWS])
