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
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from typing import TextIO

from bot.i18n import (
    TEXTS,
    card_label,
    fold_name,
    game_name,
    game_named,
    game_names_of,
    norm_lang,
    t,
)
from bot.payload import decode, parsed, table_verb
from bot.ports import NothingToServe
from bot.rules_text import rules_summary
from bot.service import ChatRef, TableService, TableUpdate, UserRef
from bot.table import Status
from bot.views import Button, HandView, LobbyView, ResultView, SeatLine, Style, TableView
from engine.actions import PlayCard
from engine.actions import encode as encode_action
from engine.cards import Card
from engine.games import available

from .choices import card_of, named, parse_card, plays_card, step_of, typed_rules, value_of
from .texts import say
from .wrap import fill, terminal_width, wrap

PLATFORM = "local"
CHAT = ChatRef(PLATFORM, "terminal")  # one place only: hands need not name it
DEFAULT_GAME = "zweier"
#: A game's name or id typed in part: at least this many letters.
MIN_PREFIX = 3
PROMPT = "> "
#: The commands' words, in English and German whichever the terminal speaks (the
#: German prompt's "q: Ende" is answered by "ende" too).
_QUIT = frozenset({"q", "quit", "exit", "ende", "beenden"})
_HELP = frozenset({"h", "help", "?", "hilfe"})
_SHOW = frozenset({"s", "show", "", "zeigen"})
_RULES = frozenset({"r", "rules", "regeln"})
_NEW = frozenset({"n", "new", "neu"})
_GO_ON = frozenset({"", "weiter", "continue"})
#: What a line may say other than a choice (quit, help, show, rules).
_COMMANDS = _QUIT | _HELP | _SHOW | _RULES
_RESIGN = frozenset({"resign", "aufgeben"})
_YES = frozenset({"y", "yes", "j", "ja"})
#: A game chosen at the menu: its id, and the preset and rule options typed after it.
_Choice = tuple[str, str | None, dict[str, str] | None]

ReadLine = Callable[[], Awaitable[str | None]]


def local_user(environ: dict[str, str] | None = None) -> UserRef:
    """The person at the keyboard: named after $USER, speaking the locale's language.

    Without $USER (a `docker run -it`) the name is the language's word for a player:
    the table speaks of every seat in the third person ("… takes the Bummerl",
    "Geber …"), which "You" cannot stand in.  The system account's name is no better
    there: in the image it is "bot", which reads like the computer.
    """
    env = os.environ if environ is None else environ
    locale = env.get("LC_ALL") or env.get("LC_MESSAGES") or env.get("LANG") or ""
    lang = "de" if locale.lower().startswith("de") else "en"
    name = (env.get("USER") or "").strip() or say(lang, "player_name")
    return UserRef(PLATFORM, "me", name, lang)


class _Stopped(Exception):
    """`stop` was set (Ctrl-C, SIGTERM) while waiting for input."""


class LocalTable:
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
        self._line_task: asyncio.Task[str | None] | None = None
        self._at_prompt = False  # the cursor is after the prompt: nothing typed since
        self._last_game = DEFAULT_GAME if DEFAULT_GAME in self.games else self.games[0]
        #: the preset and rule options the last game was opened with: Enter plays the
        #: same rules again (a rematch), not the game's standard ones
        self._last_rules: tuple[str | None, dict[str, str] | None] = (None, None)
        self._again = False  # Enter after a match: open the same game, no menu
        self._held: tuple[Card, ...] = ()  # his cards as his hand was shown last
        #: Nobody reads the output any more (a closed pipe): nothing more is printed.
        self.output_gone = False

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
        if update.table_id != self.table_id:
            return
        kind = update.kind
        if kind in ("action", "deal_end", "finished"):
            # before the board, which ends with his prompt when it is his turn again
            self._say_if_timed_out()
        if kind == "started":
            self.show(full=True)
        elif kind == "action":
            self.show(full=self._my_turn(), compact=True)
        elif kind == "deal_end" and update.result is not None:
            self._show_result(update.result)
        elif kind == "finished":
            self.buttons = []
            if update.result is not None:
                self._show_result(update.result)
            self._over.set()
        elif kind == "aborted":
            self.buttons = []
            table = self.service.tables.get(update.table_id)
            reason = table.abort_reason if table is not None else None
            if reason is not None and f"abort.{reason}" in TEXTS["en"]:
                self.say("aborted_why", reason=t(self.lang, f"abort.{reason}"))
            else:
                self.say("aborted")
            self._aborted = True
            self._over.set()
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
        if self.table_id is None:
            return False
        hand = self.service.hand(self.table_id, self.user.key, self.lang)
        return hand is not None and hand.your_turn

    def show(self, *, full: bool = True, compact: bool = False) -> None:
        """Print the table and your hand (full), or only the table lines that changed;
        `compact`: the lines that changed and the hand, unless a new deal began."""
        if self.table_id is None:
            return
        table = self.service.table(self.table_id, self.lang)
        hand = self.service.hand(self.table_id, self.user.key, self.lang)
        if table is None or hand is None:
            return
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

    # --- the session -------------------------------------------------------------------

    async def run(self) -> None:
        """Menus and play until the user quits, input ends or `stop` is set."""
        try:
            self.say("banner")
            while not self.stop.is_set():
                table_id = await self._resume_or_open()
                if table_id is None:
                    return
                if not await self._play(table_id):
                    return
        except _Stopped:  # Ctrl-C or SIGTERM
            self.write("")
            # at the "continue it?" question no table is watched yet: his is kept all
            # the same
            mine = self.service.table_of(self.chat.key, self.user.key)
            kept = self.table_id in self.service.tables or (
                mine is not None and mine.status == Status.PLAYING
            )
            self.say("bye_saved" if kept else "bye")
            return
        finally:
            if self in self.service.listeners:
                self.service.listeners.remove(self)
            if self._line_task is not None:
                self._line_task.cancel()

    async def _line(self) -> str | None:
        """The next input line (None at the end of input); `_Stopped` on stop."""
        _, line = await self._wait()
        return line

    async def _wait(self, over: asyncio.Event | None = None) -> tuple[bool, str | None]:
        """(False, the next line) or (True, None) once `over` is set, whichever is first.

        A line being read when `over` wins stays pending for the next call, so no
        typed line is lost.
        """
        if self.stop.is_set():  # Ctrl-C, or nobody reads the output: before any line
            raise _Stopped
        if over is not None and over.is_set():
            # the match ended while a line waited (a pipe has the next ones ready at
            # once): say so before any more lines are read as choices
            return True, None
        if self._line_task is None:
            self._line_task = asyncio.ensure_future(self.readline())
        line_task = self._line_task
        stop = asyncio.ensure_future(self.stop.wait())
        end = asyncio.ensure_future(over.wait()) if over is not None else None
        waits: list[asyncio.Future[object]] = [line_task, stop]  # type: ignore[list-item]
        if end is not None:
            waits.append(end)  # type: ignore[arg-type]
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop.cancel()
            if end is not None:
                end.cancel()
        if self.stop.is_set():
            raise _Stopped  # a line that came with the stop is not played
        if line_task.done():
            self._line_task = None
            line = line_task.result()
            if line is None:
                # End of input (Ctrl-D) echoes no newline: what follows would be
                # printed on the prompt's line.
                self._end_prompt_line()
            self._lines_read += line is not None
            self._at_prompt = False
            return False, line
        if over is not None and over.is_set():
            return True, None
        raise _Stopped

    async def _resume_or_open(self) -> str | None:
        """The table to play: an unfinished one of ours, or a new one."""
        typed: str | None = None  # the new game, typed at the question below
        table = self.service.table_of(self.chat.key, self.user.key)
        if table is not None and await self.service.close_if_abandoned(table.id):
            # he had walked away and the bot stopped before it closed the table:
            # it is closed now, and he is told instead of asked to go on
            self.say("resume_closed", game=game_name(table.game, self.lang), table=table.id)
            table = None
        if table is not None and table.status == Status.PLAYING:
            # nothing of this platform moves while he is asked (after a start every
            # table waits for `listen`, below): no clock runs, no computer plays
            self.say("resume", game=game_name(table.game, self.lang), table=table.id)
            if table.game in self.games:  # "play another" offers this game next
                self._last_game = table.game
                self._last_rules = typed_rules(table)  # with its rules, not the standard
            while True:
                self.prompt()
                line = await self._line()
                if line is None or line.strip().lower() in _QUIT:
                    self.say("bye_saved")  # the table stays open either way
                    return None
                answer = line.strip().lower()
                if answer in _GO_ON:
                    # opened under another locale: the results follow the reader now
                    await self.service.set_table_language(table.id, self.user, self.lang)
                    self._start_watching(table.id)
                    # the name the seat got when the game began (another $USER then)
                    seat = table.seat_of(self.user.key)
                    held = table.seats[seat] if seat is not None else None
                    self.say("playing_as", name=held.name if held else self.user.name)
                    self.show(full=True)
                    # his turn's clock starts now, with a reminder if it ran out
                    await self.service.listen(self, PLATFORM)
                    return table.id
                first = answer.split()[0]
                if answer in _NEW or (_number(first) is None and find_games(first, self.games)):
                    # a game typed by name here is the new one (a script that starts
                    # with its game runs again after it left one unfinished); not by
                    # its number, which could be meant for a choice of the old game
                    await self.service.abort(self.chat, self.user)
                    self.say("abandoned")
                    typed = None if answer in _NEW else line
                    break
                self.say("resume_bad")
        # Only now are the clocks of this platform's turns started (`listen`): a turn
        # of his that waited since the last run does not run out while the question
        # above waits for him, nor is its reminder printed to nobody.
        await self.service.listen(self, PLATFORM)
        if table is not None and table.status == Status.LOBBY:
            # a lobby left over from an interrupted start
            self._start_watching(table.id)
            return await self._fill_and_start(table.id)
        while True:
            if self._again:  # Enter after a match: the same game and rules at once
                self._again = False
                chosen: _Choice | None = (self._last_game, *self._last_rules)
            else:
                chosen = await self._choose_game(typed)
                typed = None
            if chosen is None:
                return None
            game_id, preset, options = chosen
            await self._speak_my_language()
            outcome = await self.service.create_table(
                self.chat, self.user, game_id, preset=preset, options=options, is_admin=True
            )
            if outcome.ok and outcome.table_id is not None:
                break
            # a misspelt option: the menu again, not the end of the program
            self.say("cannot_start", reason=outcome.text or outcome.code)
        self._last_game = game_id
        self._last_rules = (preset, options)
        self._start_watching(outcome.table_id)
        return await self._fill_and_start(outcome.table_id)

    async def _speak_my_language(self) -> None:
        """Make the terminal's chat speak the user's language before a table opens.

        A table renders its deal and match results in its chat's language (the
        `language` setting, stored with the table when it opens), not in the
        reader's, so without this a German locale would get German menus but
        English results.
        """
        if (await self.service.settings(self.chat)).language == self.lang:
            return
        outcome = await self.service.update_setting(
            self.chat, self.user, "language", self.lang, is_admin=True
        )
        if not outcome.ok:  # not expected: `lang` is one of the languages we speak
            self.write(outcome.text or outcome.code)

    def _start_watching(self, table_id: str) -> None:
        self.table_id = table_id
        self.buttons = []
        self._shown = []
        self._over.clear()
        self._missed = self._missed_turns()

    async def _choose_game(self, typed: str | None = None) -> _Choice | None:
        """The game, and a preset and rule options typed after it (`tausend
        players=4`, `dreier all_contracts`), as `/new` takes them in a chat.  `typed`:
        a game already typed (at the "continue it?" question), tried first."""
        if typed is not None and (chosen := self._game_typed(typed)) is not None:
            return chosen
        self.write("")
        self.say("games")
        for i, gid in enumerate(self.games):
            self.say("game_line", n=i + 1, name=game_name(gid, self.lang), id=gid)
        default = self.games.index(self._last_game) + 1
        preset, options = self._last_rules
        typed_rules = ([preset] if preset else []) + [
            f"{k}={v}" for k, v in (options or {}).items()
        ]
        default_text = " ".join([str(default), game_name(self._last_game, self.lang), *typed_rules])
        self.say("choose", default=default_text)
        while True:
            self.prompt()
            line = await self._line()
            if line is None:
                if not self._lines_read and not self.keyboard:
                    # an empty pipe: no input at all, as with /dev/null (exit 2)
                    raise NothingToServe(say(self.lang, "no_input"))
                self.say("bye")
                return None
            text = line.strip().lower()
            if text in _QUIT:
                self.say("bye")
                return None
            if text in _HELP:
                self.say("menu_help", default=default_text)
                continue
            if text in _RULES:
                for gid in self.games:
                    self.write(rules_summary(gid, self.lang, standard=True) + "\n")
                continue
            if text == "":
                return self._last_game, *self._last_rules
            if (chosen := self._game_typed(line)) is not None:
                return chosen

    def _game_typed(self, line: str) -> _Choice | None:
        """The game a line names, with the preset and options after it; None after
        saying why it names none."""
        text = line.strip().lower()
        matches = find_games(text, self.games)
        if len(matches) == 1:
            return matches[0], None, None
        first, *extra = line.split()
        if not matches and extra and len(found := find_games(first.lower(), self.games)) == 1:
            words = [w for w in extra if "=" not in w]
            options = dict(w.split("=", 1) for w in extra if "=" in w)
            if len(words) <= 1:
                return found[0], (words[0] if words else None), options or None
        if matches:
            listed = ", ".join(
                f"{self.games.index(g) + 1}) {game_name(g, self.lang)}" for g in matches
            )
            self.say("ambiguous_game", text=line.strip(), games=listed)
        elif _starts_a_name(text, self.games):
            self.say("short_game", text=line.strip(), least=MIN_PREFIX)
        else:
            self.say("bad_game", text=line.strip(), n=len(self.games))
        return None

    async def _fill_and_start(self, table_id: str) -> str | None:
        """Computer players in every free seat, then start."""
        while True:
            lobby = self.service.lobby(table_id, self.lang)
            if lobby is None:
                return None
            if lobby.can_start:
                break
            outcome = await self.service.act(self.user, table_verb(table_id, _version(lobby), "ai"))
            if not outcome.ok:
                self.say("cannot_start", reason=outcome.text or outcome.code)
                return None
        lobby = self.service.lobby(table_id, self.lang)
        assert lobby is not None
        computers = sum(1 for s in lobby.seats if s is not None and s.is_ai)
        self.say("created", game=game_name(lobby.game, self.lang), n=computers)
        # the table names every seat in the third person, this one too: say which it is
        self.say("playing_as", name=self.user.name)
        outcome = await self.service.act(self.user, table_verb(table_id, _version(lobby), "st"))
        if not outcome.ok:
            self.say("cannot_start", reason=outcome.text or outcome.code)
            return None
        return table_id

    async def _play(self, table_id: str) -> bool:
        """Read commands until the match ends (True: offer another) or the user quits."""
        while True:
            over, line = await self._wait(self._over)
            if over:
                self._over.clear()
                self.table_id = None
                self.say("closed_over" if self._aborted else "match_over")
                self._aborted = False
                # a script's lines meant for choices the match no longer has: said
                # once, then read without a word (a prompt and a complaint per line
                # fill the screen)
                told = quiet = False
                while True:
                    if self.keyboard or not quiet:
                        self.prompt()
                    line = await self._line()
                    if line is None or line.strip().lower() in _QUIT:
                        self.say("bye")
                        return False
                    answer = line.strip().lower()
                    if answer in ("", "m", "menu", "menü"):
                        # Enter: the same game and rules; a script's blank line
                        # opens the menu, as before (it names its next game)
                        self._again = not answer and self.keyboard
                        return True
                    if self.keyboard or not told:
                        self.say("match_over_bad")
                    else:
                        quiet = True
                    told = True
            if line is None:  # end of input
                self.say("bye_saved")
                return False
            if not self.keyboard and not await self._choices_come(line):
                continue  # the match ended first: the line was for a choice that never came
            if not await self.command(line):
                return False

    async def _choices_come(self, line: str) -> bool:
        """A choice read from a pipe or a file while the computers move waits for the
        player's choices (False: the match ended first), where one typed at the
        keyboard is refused ("wait for ..."): a script has no way to know when its
        line will be read, a person sees whose turn it is."""
        if self.buttons or line.strip().lower() in _COMMANDS:
            return True
        while not self.buttons and not self._over.is_set() and not self.stop.is_set():
            await asyncio.sleep(0.02)
        return bool(self.buttons)

    async def command(self, line: str) -> bool:
        """Handle one typed line during play; False when the user quits."""
        text = line.strip().lower()
        if text in _QUIT:
            self.say("bye_saved")
            return False
        if text in _HELP:
            self.say("help")
            self._reprompt()
        elif text in _SHOW:
            # with nothing to choose there is no prompt: the computers' moves follow
            # as they come (a command may still be typed)
            self.show(full=True)
        elif text in _RULES:
            await self._rules()
        elif (n := _number(text)) is not None:
            await self.press(n)
        elif (card := self._typed_card(text)) is not None:
            await self.press_card(card)
        elif text in _RESIGN:
            return await self._resign()
        elif fits := named(text, [b.label for b in self.buttons]):
            if len(fits) == 1:
                await self._press(self.buttons[fits[0]])
            else:
                listed = " · ".join(f"{i + 1}) {self.buttons[i].label}" for i in fits)
                self.say("which_choice", text=line.strip(), choices=listed)
                self.prompt()
        else:
            self.say("unknown_command", text=line.strip())
            self._reprompt()
        return True

    async def press(self, n: int) -> None:
        """Press choice `n` of those shown, or else bid the value `n`.

        A number that is a choice on the page shown is always that choice; only a
        number beyond them is read as a value, which Thousand's pages of bids may
        hold on another page (its values start at 100, beyond any page's choices).
        """
        if not self.buttons:
            self._nothing_to_press()
            return
        if 1 <= n <= len(self.buttons):
            await self._press(self.buttons[n - 1])
            return
        values = await self._values()
        if n in values:
            await self._press(values[n])
            return
        if values:
            low, high = min(values), max(values)
            self.say(
                "no_such_bid",
                n=n,
                numbers=say(self.lang, "numbers", max=len(self.buttons)),
                low=low,
                high=high,
                step=step_of(list(values)),
                bids=len(values),
            )
        else:
            self.say("no_such_action", n=n, max=len(self.buttons))
        self.prompt()

    async def press_card(self, card: Card) -> None:
        """Press the one choice that plays (gives, discards) `card`, or say why not.

        The refusal names only the player's own cards: those shown as choices, or
        the hand the player sees.
        """
        if not self.buttons:
            self._nothing_to_press()
            return
        mine = [(n, b) for n, b in enumerate(self.buttons, 1) if card_of(b, self._picked) == card]
        if len(mine) == 1:
            await self._press(mine[0][1])
            return
        regift = next((b for b in self.buttons if _verb(b.payload) == "gv"), None)
        if not mine and regift is not None and card in self._hand_cards():
            # asked who gets the card he picked, he names another card of his: he
            # changed his mind, as "Pick again" and that card would say
            p = decode(regift.payload)
            await self._press(Button("", table_verb(p.table, p.version, "gv", card.index + 1)))
            return
        label = self._card_label(card)
        if mine:
            listed = " · ".join(f"{n}) {b.label}" for n, b in mine)
            self.say("which_card", card=label, choices=listed)
        elif (held := self._hand_cards()) and card not in held:
            self.say("card_not_held", card=label)
        elif self._picked >> card.index & 1:  # a discard's card picked already
            more = any(_verb(b.payload) == "dp" and decode(b.payload).arg for b in self.buttons)
            self.say("card_picked" if more else "card_picked_all", card=label)
        else:
            why = self._why_not(card)
            self.say("card_not_now_why" if why else "card_not_now", card=label, why=why)
        self.prompt()

    def _why_not(self, card: Card) -> str | None:
        """The rule that keeps `card` from being played now (follow suit, take the
        trick), as the core words a refused play; None when playing a card is not the
        question (a bid is asked for)."""
        if not any(card_of(b, 0) is not None for b in self.buttons):
            return None
        code = encode_action(PlayCard(card))
        return self.service.why_not(self.table_id or "", self.user.key, code, self.lang)

    async def _resign(self) -> bool:
        """Give up the match, after asking: it counts as lost.  False when the input
        ended at the question (Ctrl-D quits there as everywhere, the match kept)."""
        table = self.service.tables.get(self.table_id or "")
        if table is None or table.status != Status.PLAYING:
            self.say("resign_not_now")
            self._reprompt()
            return True
        self.say("resign_ask")
        self.prompt()
        line = await self._line()
        if line is None:
            self.say("bye_saved")
            return False
        if line.strip().lower() not in _YES:
            self.say("resign_kept")
            self.show(full=True)
            return True
        outcome = await self.service.resign(self.chat, self.user)
        if not outcome.ok:
            self.say("refused", reason=outcome.text or outcome.code)
        return True

    def _nothing_to_press(self) -> None:
        if self._waiting_for:
            self.say("nothing_to_press", name=self._waiting_for)
        else:
            self.say("nothing_yet")

    async def _press(self, button: Button) -> None:
        self.buttons = []  # pressed: the next view brings the next choices
        outcome = await self.service.act(self.user, button.payload)
        if not outcome.ok:
            self.say("refused", reason=outcome.text or outcome.code)
            self.show(full=True)
            return
        if outcome.hand is not None:  # a hand menu: the next page, a discard's 2nd card
            menu = decode(button.payload)
            self._picked = (menu.arg or 0) if menu.verb == "dp" else 0
            msg = outcome.hand.message
            self.show_hand(msg.text, [list(r) for r in msg.buttons])
        elif outcome.text:
            self.write(outcome.text)

    async def _values(self) -> dict[int, Button]:
        """The values (bids) among this turn's choices, on every page of them.

        The other pages are asked of the core like a "More…" press, which changes
        nothing but what a hand would show; none of them is printed.
        """
        values: dict[int, Button] = {}
        asked: set[str] = set()
        pages = [self.buttons]
        while pages:
            page = pages.pop()
            for b in page:
                if (v := value_of(b)) is not None:
                    values.setdefault(v, b)
            for payload in [b.payload for b in page if _verb(b.payload) == "pg"]:
                if payload in asked:  # "Back" leads to a page already read
                    continue
                asked.add(payload)
                outcome = await self.service.act(self.user, payload)
                if outcome.ok and outcome.hand is not None:
                    pages.append(outcome.hand.message.all_buttons())
        return values

    def _typed_card(self, text: str) -> Card | None:
        style = self._style()
        return None if style is None else parse_card(text, style.lang, style.suits)

    def _style(self) -> Style | None:
        """The language and card pictures this table is shown with."""
        if self.table_id not in self.service.tables:
            return None
        return self.service.style_for(self.table_id, self.lang)

    def _card_label(self, card: Card) -> str:
        style = self._style() or Style(self.lang)
        return card_label(card, style.lang, style.suits)

    def _hand_cards(self) -> tuple[Card, ...]:
        """The cards the player's hand shows (none while they are not looked at)."""
        hand = self.service.hand(self.table_id or "", self.user.key, self.lang)
        return hand.view.hand if hand is not None and hand.view is not None else ()

    async def _rules(self) -> None:
        table = self.service.tables.get(self.table_id or "")
        if table is None:
            return
        outcome = await self.service.act(self.user, table_verb(table.id, table.version, "ru"))
        self.write(outcome.text or "")
        self._reprompt()

    def _reprompt(self) -> None:
        if self.buttons:
            self.prompt()


def find_games(text: str, games: list[str]) -> list[str]:
    """The games that `text` names, as typed at the game menu (one: that game).

    A game answers to its id, its name in every language we speak and the other
    names it goes by (`GAME_ALIASES`: "66" and "1000" among them), whatever the case
    and spacing, then to its number in `games`; failing that, to the first
    `MIN_PREFIX` letters or more of any of its names.  Several games fitting a prefix
    all come back, for the menu to list.
    """
    key = fold_name(text)
    if (named := game_named(key, games)) is not None:  # "66" and "1000" are names
        return [named]
    if (n := _number(key)) is not None:
        return [games[n - 1]] if 1 <= n <= len(games) else []
    if len(key) < MIN_PREFIX:
        return []
    names = {g: game_names_of(g) for g in games}
    return [g for g in games if any(name.startswith(key) for name in names[g])]


def _starts_a_name(text: str, games: list[str]) -> bool:
    """`text` begins some game's name but is shorter than a prefix may be ("zw")."""
    key = fold_name(text)
    if not key or _number(key) is not None:  # "6" is a number out of range, not "66" cut
        return False
    return any(n.startswith(key) for g in games for n in game_names_of(g))


def _version(lobby: LobbyView) -> int:
    """The table version a lobby's buttons carry (every payload has it)."""
    return decode(lobby.message.all_buttons()[0].payload).version


def _number(text: str) -> int | None:
    """A typed number: ASCII digits only.

    `str.isdigit` also accepts "²" or "٣", which `int` refuses or reads as a
    number nobody typed on purpose; those are unknown input like any other word
    (and so is a number of thousands of digits, which `int` refuses).
    """
    if not (text.isascii() and text.isdigit()):
        return None
    try:
        return int(text)
    except ValueError:  # longer than sys.get_int_max_str_digits()
        return None


def _plain(line: str) -> str:
    return line.replace("▶ ", "")


def _verb(payload: str) -> str | None:
    p = parsed(payload)
    return None if p is None else p.verb


def _to_act(seats: tuple[SeatLine | None, ...]) -> str | None:
    return next((s.name for s in seats if s is not None and s.to_act), None)
