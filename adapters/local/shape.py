"""What the parts of `LocalTable` share: its state, and the methods one part calls on
another.

The table is built from mixins (`Session`, `Play`, `Screen`) over the state
`LocalTable.__init__` sets up.  `TableShape` is the one declaration of that state and
of those calls: every part subclasses it, so `mypy --strict` checks each part's use
against it, and each real method against its stub.  It adds nothing at run time: the
attributes are bare annotations, the stubs exist only for the type checker, and this
module imports none of the parts (nor anything else) when the program runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import asyncio
    from collections.abc import Callable
    from typing import TextIO

    from bot.service import ChatRef, TableService, TableUpdate, UserRef
    from bot.views import Button, Style
    from engine.cards import Card

    from .session import ReadLine


class TableShape:
    """The state and cross-part methods of `LocalTable`, for its parts to share.

    The attributes are set up by `LocalTable.__init__` (see there for what each
    holds); each stub names the part that defines the method."""

    service: TableService
    keyboard: bool
    stop: asyncio.Event
    readline: ReadLine
    out: TextIO
    user: UserRef
    lang: str
    chat: ChatRef
    games: list[str]
    width: Callable[[], int]
    table_id: str | None
    buttons: list[Button]
    _picked: int
    _waiting_for: str | None
    _lines_read: int
    _over: asyncio.Event
    _aborted: bool
    _missed: int
    _shown: list[str]
    _full_pending: bool
    _line_task: asyncio.Task[str | None] | None
    _at_prompt: bool
    _calling_at: int | None
    _lobby_closed: str | None
    _last_game: str
    _last_rules: tuple[str | None, dict[str, str] | None]
    _again: bool
    _held: tuple[Card, ...]
    output_gone: bool

    if TYPE_CHECKING:  # one part calls these on another; never defined at run time
        # screen (`Screen`)
        async def table_update(self, update: TableUpdate) -> None: ...
        def write(self, text: str) -> None: ...
        def _end_prompt_line(self) -> None: ...
        def prompt(self) -> None: ...
        def say(self, key: str, **values: object) -> None: ...
        def _missed_turns(self) -> int: ...
        def show(self, *, full: bool = True, compact: bool = False) -> None: ...
        def show_hand(self, text: str, rows: list[list[Button]]) -> None: ...
        def _style(self) -> Style | None: ...
        def _card_label(self, card: Card) -> str: ...
        def _hand_cards(self) -> tuple[Card, ...]: ...
        def _reprompt(self) -> None: ...

        # session (`Session`)
        async def _line(self) -> str | None: ...

        # play (`Play`)
        async def _choices_come(self, line: str) -> bool: ...
        async def command(self, line: str) -> bool: ...
