"""A table in the terminal: you against computer seats, through the same core.

The terminal is an adapter like the chat ones: it opens a table with `TableService`,
presses buttons by their payloads with `service.act`, and renders the neutral views the
core computes (table, hand, results).  It holds no game logic: the numbered choices are
the buttons of your `HandView`, in order; a card typed by name, or a Thousand bid by its
value, presses the button whose payload plays that card or bids that value (`choices`).

What it prints:
* when it is your turn, or a deal starts: the table, your hand and numbered choices;
* while the computers play: the lines of the table that changed (the trick growing,
  who is to act), so you can follow without a wall of repeated tables;
* after each deal and at the end: the result message.

Every line is fitted to the terminal's width (`wrap`); the table is opened in the
language the terminal speaks (`local_user`), so its results read like the menus.

The table is put together from parts, each a module of its own: `session` (the menus
and the match loop, reading lines), `play` (what a line typed during a match does),
`screen` (what is printed), over the state declared once in `shape`; the typed words
are read by `words` and `choices`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TextIO

from bot.i18n import norm_lang
from bot.service import ChatRef, TableService, UserRef
from bot.views import Button
from engine.cards import Card
from engine.games import available

from .play import Play
from .refs import CHAT as CHAT
from .refs import PLATFORM as PLATFORM
from .refs import local_user as local_user
from .screen import PROMPT as PROMPT
from .screen import Screen
from .session import ReadLine as ReadLine
from .session import Session
from .words import MIN_PREFIX as MIN_PREFIX
from .words import find_games as find_games
from .wrap import terminal_width

DEFAULT_GAME = "zweier"


class LocalTable(Session, Play, Screen):
    """The terminal adapter's state: one user, one table at a time."""

    def __init__(
        self,
        service: TableService,
        stop: asyncio.Event,
        *,
        readline: ReadLine,
        out: TextIO,
        user: UserRef | None = None,
        chat: ChatRef = CHAT,
        games: list[str] | None = None,
        width: Callable[[], int] = terminal_width,
        keyboard: bool = False,
    ) -> None:
        self.service = service
        #: Input is a terminal: an end of input there is Ctrl-D, not "no keyboard".
        self.keyboard = keyboard
        self.stop = stop
        self.readline = readline
        self.out = out
        self.user = user or local_user()
        self.lang = norm_lang(self.user.lang)
        self.chat = chat
        self.games = games if games is not None else available()
        #: The screen's width in columns, asked at every line (0: unknown, no wrapping).
        self.width = width
        self.table_id: str | None = None
        #: The choices shown last, numbered from 1: what a typed number presses.
        self.buttons: list[Button] = []
        #: The cards of a discard picked so far, as a mask: the pick menu shown.
        self._picked = 0
        self._waiting_for: str | None = None
        self._lines_read = 0
        self._over = asyncio.Event()
        self._aborted = False  # the match ended closed, not played out
        self._missed = 0  # his turns the computer played in a row, as last seen
        self._shown: list[str] = []  # the table text printed last, line by line
        #: the whole table was asked for while a change was being stored (nothing to
        #: draw from then): the next update draws it whole
        self._full_pending = False
        self._line_task: asyncio.Task[str | None] | None = None
        self._at_prompt = False  # the cursor is after the prompt: nothing typed since
        #: the version of his table as a call of his into the core began (`Guard._core`)
        self._calling_at: int | None = None
        #: the lobby closed last after a failed start (`Session._fill_and_start`): he
        #: was told the start failed, and its close is no news of his table
        self._lobby_closed: str | None = None
        self._last_game = DEFAULT_GAME if DEFAULT_GAME in self.games else self.games[0]
        #: the preset and rule options the last game was opened with: Enter plays the
        #: same rules again (a rematch), not the game's standard ones
        self._last_rules: tuple[str | None, dict[str, str] | None] = (None, None)
        self._again = False  # Enter after a match: open the same game, no menu
        self._held: tuple[Card, ...] = ()  # his cards as his hand was shown last
        #: Nobody reads the output any more (a closed pipe): nothing more is printed.
        self.output_gone = False
