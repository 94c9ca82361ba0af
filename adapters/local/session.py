"""The session at the terminal: the game menu, resuming an unfinished table, filling
seats with computers, and the match menu after a match, around reading the lines.

`Session` is the part of `LocalTable` that runs it (`run`); it hands each line typed
during a match to the play (`Play.command`).  Reading waits on the input, the end of
the match and `stop` at once, so a Ctrl-C or a match ending is never stuck behind a
line that does not come.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Literal

from bot.i18n import game_name, game_named, preset_named, t, typed
from bot.payload import decode, table_verb
from bot.ports import NothingToServe
from bot.rules_text import rules_summary
from bot.table import Status, Table
from bot.views import LobbyView
from engine.games import game as game_spec

from .choices import typed_rules
from .guard import CoreFailed, Guard
from .refs import PLATFORM
from .texts import say
from .words import (
    _GO_ON,
    _HELP,
    _NEW,
    _QUIT,
    _RULES,
    MIN_PREFIX,
    _number,
    _starts_a_name,
    find_games,
)

#: A game chosen at the menu: its id, and the preset and rule options typed after it.
_Choice = tuple[str, str | None, dict[str, str] | None]

ReadLine = Callable[[], Awaitable[str | None]]


class _Stopped(Exception):
    """`stop` was set (Ctrl-C, SIGTERM) while waiting for input."""


class Session(Guard):
    """The menus and the match loop of `LocalTable`."""

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
            # (a bug there is logged: "Bye." at worst, for a table that is kept)
            mine = self._ask_aside(self._my_table, "the table of the terminal's user")
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
        try:
            table = self._ask(self._my_table, "the table of the terminal's user")
        except CoreFailed:  # told: the menu, as without a table
            table = None
        if table is not None and await self._closed_if_abandoned(table.id):
            # he had walked away and the bot stopped before it closed the table:
            # it is closed now, and he is told instead of asked to go on
            self.say("resume_closed", game=game_name(table.game, self.lang), table=table.id)
            await self._told_here(table)
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
                try:
                    if answer in _GO_ON:
                        return await self._resume(table)
                    if answer in _NEW or self._names_a_game(answer):
                        await self._core(self.service.abort(self.chat, self.user), "abandoning")
                        self.say("abandoned")
                        await self._told_here(table)
                        typed = None if answer in _NEW else line
                        break
                except CoreFailed:  # told: he is asked again
                    pass
                self.say("resume_bad")
        # Only now are the clocks of this platform's turns started (`listen`): a turn
        # of his that waited since the last run does not run out while the question
        # above waits for him, nor is its reminder printed to nobody.
        await self._aside(self.service.listen(self, PLATFORM), "listen")
        if table is not None and table.status == Status.LOBBY:
            # a lobby left over from an interrupted start
            self._start_watching(table.id)
            with contextlib.suppress(CoreFailed):  # told, and closed: the menu next
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
            try:
                await self._speak_my_language()
                opened = self.service.create_table(
                    self.chat, self.user, game_id, preset=preset, options=options, is_admin=True
                )
                outcome = await self._core(opened, "opening a %s table", game_id)
                if outcome.ok and outcome.table_id is not None:
                    self._last_game = game_id
                    self._last_rules = (preset, options)
                    self._start_watching(outcome.table_id)
                    return await self._fill_and_start(outcome.table_id)
            except CoreFailed:  # told: the menu again, Enter trying the same game
                self._last_game, self._last_rules = game_id, (preset, options)
                continue
            # a misspelt option: the menu again, not the end of the program
            self.say("cannot_start", reason=outcome.text or outcome.code)

    async def _resume(self, table: Table) -> str:
        """Play on the unfinished `table` he chose to continue."""
        # opened under another locale: the results follow the reader now
        language = self.service.set_table_language(table.id, self.user, self.lang)
        await self._core(language, "the language of table %s", table.id)
        self._start_watching(table.id)
        # the name the seat got when the game began (another $USER then)
        seat = table.seat_of(self.user.key)
        held = table.seats[seat] if seat is not None else None
        self.say("playing_as", name=held.name if held else self.user.name)
        if not self._ask(
            lambda: self.service.ends_untold(table.id), "the untold ends of table %s", table.id
        ):
            # else a deal's result a kill kept from the screen comes
            # first, then this deal (`listen` tells both)
            self.show(full=True)
        # his turn's clock starts now, with a reminder if it ran out
        await self._core(self.service.listen(self, PLATFORM), "listen")
        return table.id

    def _my_table(self) -> Table | None:
        """His table in the terminal's chat (open, a lobby or playing), if any."""
        return self.service.table_of(self.chat.key, self.user.key)

    def _names_a_game(self, answer: str) -> bool:
        """A game typed by name at the "continue it?" question is the new one (a
        script that starts with its game runs again after it left one unfinished);
        not by its number, which could be meant for a choice of the old game ("66"
        and "1000" are names, no choice's number or bid)."""
        first = answer.split()[0]
        return game_named(first, self.games) is not None or (
            _number(first) is None and bool(find_games(first, self.games))
        )

    async def _closed_if_abandoned(self, table_id: str) -> bool:
        # after a bug he is asked about it as it is
        closed = self.service.close_if_abandoned(table_id)
        return bool(await self._aside(closed, "closing table %s if abandoned", table_id))

    async def _told_here(self, table: Table) -> None:
        """A table of his closed at the resume question, and he was told so there:
        not listening yet (`listen` comes after the question), the terminal heard no
        `aborted` to confirm, so the next start would tell him again that it closed
        "as the bot stopped"."""
        if table.id not in self.service.tables:
            delivered = self.service.delivered(table.id, table.version)
            await self._aside(delivered, "table %s told", table.id)  # else told again at a start

    async def _speak_my_language(self) -> None:
        """Make the terminal's chat speak the user's language before a table opens.

        A table renders its deal and match results in its chat's language (the
        `language` setting, stored with the table when it opens), not in the
        reader's, so without this a German locale would get German menus but
        English results.
        """
        settings = await self._core(self.service.settings(self.chat), "the settings")
        if settings.language == self.lang:
            return
        setting = self.service.update_setting(
            self.chat, self.user, "language", self.lang, is_admin=True
        )
        outcome = await self._core(setting, "the language setting")
        if not outcome.ok:  # not expected: `lang` is one of the languages we speak
            self.write(outcome.text or outcome.code)

    def _start_watching(self, table_id: str) -> None:
        self.table_id = table_id
        self.buttons = []
        self._shown = []
        self._full_pending = False
        self._over.clear()
        self._aborted = False  # the close of the table before is not this one's
        self._missed = self._missed_turns()

    async def _choose_game(self, typed: str | None = None) -> _Choice | None:
        """The game, and a preset and rule options typed after it (`tausend
        players=4`, `dreier all_contracts`), as `/new` takes them in a chat.  `typed`:
        a game already typed (at the "continue it?" question), tried first."""
        if typed is not None and (chosen := self._game_typed(typed)):
            return chosen
        default_text = self._show_games()
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
                    changed = say(self.lang, "options_changed", game=gid)
                    self.write(rules_summary(gid, self.lang, standard=True, changed=changed) + "\n")
                continue
            if text == "":
                return self._last_game, *self._last_rules
            chosen = self._game_typed(line)
            if chosen:
                return chosen
            if chosen is False:
                # as after a misspelt preset the core refused: the games again
                default_text = self._show_games()

    def _show_games(self) -> str:
        """List the games and ask for one; the choice Enter takes, as shown."""
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
        return default_text

    def _game_typed(self, line: str) -> _Choice | Literal[False] | None:
        """The game a line names, with the preset and options after it; None after
        saying why it names none, False after saying why its rules open no table."""
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
            # the game is one; a word after it is what is wrong, said as the menu
            # says a misspelt preset (the core's refusal), not "there is no game"
            self.say("cannot_start", reason=_presets_wrong(found[0], words, self.lang))
            return False
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
        """Computer players in every free seat, then start.  `CoreFailed` when
        either raised a bug: he was told, and the lobby is closed, so the game menu
        (Enter: this game again) opens another, where it would still hold his seat."""
        try:
            await self._listening()
            return await self._start(table_id)
        except CoreFailed:
            closed = self.service.abort(self.chat, self.user)  # else the next start finds it
            self._lobby_closed = table_id  # not news: "The table was closed: the host closed it"
            await self._aside(closed, "closing lobby %s", table_id)
            raise

    async def _listening(self) -> None:
        """`listen` again, as his call, if the one before the menu raised a bug
        before it added the terminal: it would be told nothing of the table he
        starts, which would wait for him with nothing on the screen."""
        if self not in self.service.listeners:
            await self._core(self.service.listen(self, PLATFORM), "listen")

    async def _start(self, table_id: str) -> str | None:
        while True:
            lobby = self._lobby(table_id)
            if lobby is None:
                return None
            if lobby.can_start:
                break
            computer = self.service.act(self.user, table_verb(table_id, _version(lobby), "ai"))
            outcome = await self._core(computer, "a computer for lobby %s", table_id)
            if not outcome.ok:
                self.say("cannot_start", reason=outcome.text or outcome.code)
                return None
        lobby = self._lobby(table_id)
        assert lobby is not None
        computers = sum(1 for s in lobby.seats if s is not None and s.is_ai)
        self.say("created", game=game_name(lobby.game, self.lang), n=computers)
        # the table names every seat in the third person, this one too: say which it is
        self.say("playing_as", name=self.user.name)
        started = self.service.act(self.user, table_verb(table_id, _version(lobby), "st"))
        outcome = await self._core(started, "starting table %s", table_id)
        if not outcome.ok:
            self.say("cannot_start", reason=outcome.text or outcome.code)
            return None
        return table_id

    def _lobby(self, table_id: str) -> LobbyView | None:
        return self._ask(lambda: self.service.lobby(table_id, self.lang), "lobby %s", table_id)

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


def _presets_wrong(game_id: str, words: list[str], lang: str) -> str:
    """Why more than one word after a game's name opens no table: the first that
    is no preset of the game, or else the second preset (one at a time), with the
    presets it has, in the words a chat's ``/new`` answers them with."""
    presets = tuple(game_spec(game_id).presets)
    listed = ", ".join(presets) or "—"
    wrong = next((w for w in words if preset_named(w, presets) is None), None)
    if wrong is not None:
        return t(lang, "refuse.unknown_preset", preset=typed(wrong), presets=listed)
    one = t(lang, "new.one_preset", words=", ".join(typed(w) for w in words))
    return f"{one} {say(lang, 'presets', presets=listed)}"


def _version(lobby: LobbyView) -> int:
    """The table version a lobby's buttons carry (every payload has it)."""
    return decode(lobby.message.all_buttons()[0].payload).version
