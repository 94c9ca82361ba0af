"""The local terminal table (adapters/local) driven in-process with scripted input.

A `Terminal` stands in for the keyboard and the screen: it answers every prompt the
table prints with the next line of a script (or a rule such as "press 1"), and keeps
everything printed.  The core, the SQLite file and the computer seats are real; the AI
moves at once (ai_delay 0) at the "random" level, so whole matches take a moment.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import io
import logging
import os
import re
import sqlite3
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import NamedTuple

import pytest

from adapters.local import LineReader, LocalTable, local_user
from adapters.local.choices import named, parse_card
from adapters.local.terminal import CHAT, PROMPT
from adapters.local.texts import say
from adapters.local.wrap import columns, fill, terminal_width, wrap
from bot.i18n import card_label, game_name, t
from bot.payload import decode, table_verb
from bot.ports import NothingToServe
from bot.service import ChatRef, TableService, TableUpdate, Timings, UserRef
from bot.store import Store
from bot.table import Status, Table
from bot.telling import TOLD_KINDS
from engine.cards import CARDS, Card
from engine.dreier.match import DreierMatch
from engine.dreier.options import DreierOptions
from engine.games import available

from .fakechat import CommitCopies, busy, until_idle
from .test_store_failures import _fail_once

LOCAL_TIMINGS = Timings(
    turn_timeout=3600.0, reminder_before=20.0, missed_turns_limit=3, ai_delay=0.0
)
USER = UserRef("local", "me", "Tester", "en")

#: Decides the answer to a prompt from the screen printed since the previous answer.
Answer = Callable[[str], str | None]


class Terminal(io.StringIO):
    """Screen and keyboard: every prompt (``"> "``) gets one answer."""

    def __init__(self, answer: Answer) -> None:
        super().__init__()
        self.answer = answer
        self.lines: asyncio.Queue[str | None] = asyncio.Queue()
        self.since = 0  # where the text since the last answer starts
        self.prompts = 0

    def write(self, s: str) -> int:
        n = super().write(s)
        if s == PROMPT:
            self.prompts += 1
            screen = self.getvalue()[self.since :]
            self.since = len(self.getvalue())
            self.lines.put_nowait(self.answer(screen))
        return n

    async def next_line(self) -> str | None:
        return await self.lines.get()

    @property
    def text(self) -> str:
        return self.getvalue()


def script(*lines: str | None, then: str | None = None) -> Answer:
    """Answer prompts with `lines` in order, then always with `then`."""
    todo = list(lines)

    def answer(screen: str) -> str | None:
        return todo.pop(0) if todo else then

    return answer


@pytest.fixture(autouse=True)
def wide_screen(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lines are wrapped to $COLUMNS (or the terminal's width): wide unless a test says."""
    monkeypatch.setenv("COLUMNS", "500")


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "local.sqlite3"


@pytest.fixture
async def service(db: Path) -> AsyncIterator[TableService]:
    async with running_service(db) as svc:
        yield svc


class running_service:
    """A started core on `db`; leave and enter again to restart the bot.

    `seed` fixes every seed the core draws (the first dealer and every deal), for a
    test that needs a certain hand.
    """

    def __init__(self, db: Path, seed: str | None = None, timings: Timings = LOCAL_TIMINGS) -> None:
        self.db = db
        self.seed = seed
        self.timings = timings

    async def __aenter__(self) -> TableService:
        self.store = await Store(self.db).open()
        seed = self.seed
        self.service = TableService(
            self.store,
            timings=self.timings,
            ai_level="random",
            seed_source=None if seed is None else (lambda: seed),
        )
        await self.service.start()
        return self.service

    async def __aexit__(self, *exc: object) -> None:
        await self.service.stop()
        await self.store.close()


async def play(
    service: TableService,
    answer: Answer,
    timeout: float = 60.0,
    *,
    keyboard: bool = False,
    user: UserRef = USER,
) -> Terminal:
    """Run the table with `answer` typing (at a keyboard, or as a script when not)."""
    term = Terminal(answer)
    table = LocalTable(
        service,
        asyncio.Event(),
        readline=term.next_line,
        out=term,
        user=user,
        keyboard=keyboard,
    )
    await asyncio.wait_for(table.run(), timeout)
    return term


async def test_plays_a_whole_zweier_match_to_the_end(service: TableService, db: Path) -> None:
    def answer(screen: str) -> str:
        if "Choose a game" in screen:
            return "zweier"
        if "Match over" in screen:
            return "q"
        return "1"  # the first choice is always a legal one (a card)

    term = await play(service, answer)
    out = term.text
    assert "Your choices:" in out
    assert "Last trick:" in out
    assert "Deal 1 over:" in out
    assert "Game over!" in out
    assert "Match over" in out
    assert "✗" not in out  # no press was refused
    assert out.rstrip().endswith("Bye.")
    assert service.tables == {}  # the finished table is closed
    rows = await service.store.fetchall("SELECT status FROM tables")
    assert rows == [("finished",)]


async def test_each_deal_is_shown_as_it_ended_before_its_result(service: TableService) -> None:
    """The move that ends a deal (the marriage that makes 66, the last trick) is not
    followed by a turn of the player's, so its table was never printed: now the
    deal's final lines (every trick, the card points) come before its result."""

    def answer(screen: str) -> str:
        if "Choose a game" in screen:
            return "zweier"
        return "q" if "Match over" in screen else "1"

    out = (await play(service, answer)).text
    blocks = re.split(r"^Deal \d+ over:", out, flags=re.M)
    assert len(blocks) > 2
    for before in blocks[:-1]:
        ending = before[before.rfind(PROMPT) :]  # printed after the player's last move
        assert "Tricks played: 1. " in ending, ending


async def test_plays_another_match_after_the_end(service: TableService) -> None:
    matches = wrong = 0

    def answer(screen: str) -> str:
        nonlocal matches, wrong
        if "Choose a game" in screen:
            return ""  # the default: zweier, then the game played last
        if "Match over" in screen:
            matches += 1
            return "1" if matches == 1 else "q"
        if "Type Enter to play the same game again" in screen:
            wrong += 1  # "1" is neither: asked again, each time at a keyboard
            return "1" if wrong == 1 else ""
        return "1"

    term = await play(service, answer, timeout=120, keyboard=True)
    assert term.text.count("Game over!") == 2
    assert term.text.count("Type Enter to play the same game again, m to choose another") == 2
    assert term.text.count("Choose a game") == 1  # Enter after a match: no menu between
    rows = await service.store.fetchall("SELECT game, status FROM tables")
    assert rows == [("zweier", "finished"), ("zweier", "finished")]


async def test_enter_after_a_match_plays_the_same_game_again(service: TableService) -> None:
    """Enter after a Dreier match opens Dreier again, not the first game of the list."""
    term = await play(service, script("dreier", "resign", "y", "", "q"), keyboard=True)
    assert term.text.count("Dreierschnapsen (3 players): you and 2 computer players.") == 2
    [table] = service.tables.values()  # the second, kept as he quit
    assert table.game == "dreier"


async def test_enter_plays_the_same_rules_again(service: TableService) -> None:
    """A game opened with rule options ("zweier auto_claim=off"): Enter after the
    match plays a rematch with the same options at once; m shows the menu, whose
    Enter offers the same again and says so."""
    menus = matches = 0

    def answer(screen: str) -> str:
        nonlocal menus, matches
        if "Choose a game" in screen:
            menus += 1
            return "zweier auto_claim=off" if menus == 1 else ""
        if "Match over" in screen:
            matches += 1
            return ["", "m", "q"][matches - 1]
        return "1"

    term = await play(service, answer, timeout=180, keyboard=True)
    assert term.text.count("Game over!") == 3
    assert menus == 2  # the first game's and m's: none after the first Enter
    assert "(Enter: 1 Schnapsen (2 players) auto_claim=off · h: help · q: quit)" in term.text
    rows = await service.store.fetchall("SELECT id FROM tables ORDER BY rowid")
    assert len(rows) == 3
    for (tid,) in rows:
        table = Table.from_log(tid, await service.store.table_log(tid))
        assert table.options_json["auto_claim"] is False, tid


@pytest.mark.parametrize("game_id", available())
async def test_every_game_starts_and_takes_choices(service: TableService, game_id: str) -> None:
    presses = 0

    def answer(screen: str) -> str:
        nonlocal presses
        if "Choose a game" in screen:
            return game_id
        presses += 1
        return "1" if presses < 12 and "Match over" not in screen else "q"

    term = await play(service, answer)
    out = term.text
    assert "computer player" in out
    assert "Your choices:" in out
    assert "✗" not in out
    assert presses >= 2


@pytest.mark.parametrize(
    ("game_id", "phase"),
    [("dreier", "Trumps — Player to choose"), ("tausend", "Stock — Player to give each opponent")],
)
async def test_without_a_user_name_the_player_is_named_in_the_third_person(
    service: TableService, game_id: str, phase: str
) -> None:
    """With no USER (a `docker run -it`) the terminal player gets a name that reads
    right where the table speaks of a seat ("Player to choose", "dealer Player"), not
    "You gives" or "You takes the Bummerl"; the terminal says once which seat is his."""
    seen = ""

    def answer(screen: str) -> str:
        nonlocal seen
        seen += screen
        if "Choose a game" in screen:
            return game_id
        if phase in seen or len(seen) > 2_000_000:
            return "q"
        if "Match over" in screen:
            return ""  # another match
        if "Bidding — Player to bid" in screen:  # outbid everyone: the human declares
            return str(re.findall(r"(\d+)\) ", screen)[-1])
        return "1"

    term = Terminal(answer)
    table = LocalTable(
        service, asyncio.Event(), readline=term.next_line, out=term, user=local_user({})
    )
    await asyncio.wait_for(table.run(), 60)
    out = term.text
    assert phase in out
    assert "The table calls you Player." in out
    assert not re.search(r"\bYou (?:gives|takes|chooses|states|declares|says|to)\b", out)
    assert not re.search(r"(?:dealer|by) You\b", out)


async def test_clear_errors_for_bad_input(service: TableService) -> None:
    term = await play(
        service, script("abc", "9", "h", "r", "zweier", "99", "0", "hello", "h", "r", "s", "q")
    )
    out = term.text
    assert "There is no game 'abc'" in out
    assert "There is no game '9': type a number from 1 to" in out
    assert "Commands:" in out
    assert "Two players, 20 cards" in out  # the rules of every game, from the menu
    assert "There is no choice 99: type " in out  # "1 (the only choice)" or a range
    assert "There is no choice 0" in out
    assert "Unknown command 'hello'" in out
    assert "Options:" in out  # the table's rules with its options
    assert out.rstrip().endswith("Bye — your game is kept; run the bot again to continue it.")


async def test_a_number_beyond_the_only_choice_is_told_to_type_1(service: TableService) -> None:
    """Where his hand has one choice (a suit he must follow, the last trick), a
    wrong number is answered with that: "type 1 (the only choice)", not "a number
    from 1 to 1"."""
    typed = False

    def answer(screen: str) -> str:
        nonlocal typed
        if "Choose a game" in screen:
            return "zweier auto_claim=off"  # every deal's last trick is played out
        if typed or len(screen) > 1_000_000:
            return "q"
        if "Match over" in screen:
            return ""
        typed = len(choices(screen)) == 1
        return "2" if typed else "1"

    out = (await play(service, answer, timeout=120)).text
    assert "There is no choice 2: type 1 (the only choice)." in out


@pytest.mark.parametrize("typed", ["s", ""])
async def test_s_or_a_blank_line_shows_table_and_hand_again(
    service: TableService, typed: str
) -> None:
    """The help in a game names both: Enter is what a player tries first."""
    screens: list[str] = []

    def answer(screen: str) -> str:
        screens.append(screen)
        return ["zweier", "h", typed][len(screens) - 1] if len(screens) <= 3 else "q"

    await play(service, answer)
    assert "  s, Enter  show the table and your hand again" in screens[2]  # what h said
    shown = screens[3]  # what the typed line brought
    assert "Your hand at table" in shown
    assert "Unknown command" not in shown


async def test_digits_other_than_ascii_are_unknown_input(service: TableService) -> None:
    """`str.isdigit` holds for "²" (which `int` refuses) and "٣" (which it reads as 3)."""
    term = await play(service, script("²", "zweier", "²", "٣", "１", "1", "q"))
    out = term.text
    assert "There is no game '²': type a number from 1 to" in out
    assert "Unknown command '²'" in out
    assert "Unknown command '٣'" in out
    assert "Unknown command '１'" in out
    assert "✗" not in out
    assert out.rstrip().endswith("Bye — your game is kept; run the bot again to continue it.")


async def test_a_very_long_number_is_unknown_input(service: TableService) -> None:
    """`int` refuses more than 4300 digits: such a line is no game's number either."""
    term = await play(service, script("9" * 5000, "q"))
    assert "There is no game" in term.text and f"'{'9' * 5000}'" in term.text
    assert term.text.rstrip().endswith("Bye.")


async def test_pressing_or_resigning_with_nothing_to_play_says_so(service: TableService) -> None:
    term = Terminal(script())
    table = LocalTable(service, asyncio.Event(), readline=term.next_line, out=term, user=USER)
    await table.press(1)
    [ace] = Card.parse("AH")
    await table.press_card(ace)  # a card typed by name: the same answer, nothing else
    assert term.text == "Nothing to choose now.\n" * 2
    assert await table.command("resign")  # no question asked, the session goes on
    assert term.text.endswith("now.\nThere is no running match to resign.\n")


async def test_a_number_typed_while_a_computer_bids_says_whom_to_wait_for(db: Path) -> None:
    """At the keyboard, a number typed after his bid while the next computer is to
    bid is answered with whose move it is, by the name of the seat to act."""
    timings = dataclasses.replace(LOCAL_TIMINGS, ai_delay=1.0)  # the computer thinks
    bids = 0

    def answer(screen: str) -> str:
        nonlocal bids
        if "Choose a game" in screen:
            return "tausend"
        if "Bidding — Tester to bid" in screen and not bids:
            bids += 1
            term.lines.put_nowait("2")  # his bid, then at once one more line
            return "1"
        return "q"

    term = Terminal(answer)
    async with running_service(db, MARRIAGES, timings) as service:
        table = LocalTable(
            service, asyncio.Event(), readline=term.next_line, out=term, user=USER, keyboard=True
        )
        await asyncio.wait_for(table.run(), 30)
    assert "Bids: Computer 2: 100 · Tester: 105" in term.text
    assert "Nothing to choose now — wait for Computer 1." in term.text


async def test_quit_keeps_the_game_and_the_next_start_resumes_it(db: Path) -> None:
    async with running_service(db) as service:
        first = await play(service, script("zweier", "1", "q"))
        table_id = next(iter(service.tables))
        assert "Bye — your game is kept" in first.text

    async with running_service(db) as service:  # the bot restarts on the same file
        assert table_id in service.tables
        again = await play(service, script("", "1", "q"))
        assert f"at table {table_id} is still open" in again.text
        assert again.text.count("Your choices:") >= 1
        assert "Choose a game" not in again.text


async def test_a_game_resumed_under_another_name_says_the_name_it_sits_under(db: Path) -> None:
    """Started as Tester, resumed with another $USER: the seat (and everything the
    table shows) keeps the first name, and the terminal says that one."""
    async with running_service(db) as service:
        await play(service, script("zweier", "q"))
    async with running_service(db) as service:
        term = Terminal(script("", "q"))
        other = UserRef("local", "me", "Someone", "en")
        table = LocalTable(service, asyncio.Event(), readline=term.next_line, out=term, user=other)
        await asyncio.wait_for(table.run(), 30)
        assert "The table calls you Tester." in term.text
        assert "calls you Someone" not in term.text


async def test_a_game_its_player_walked_away_from_is_closed_after_a_restart(db: Path) -> None:
    """The player had walked away (the computer holds his seat) and the bot stopped
    before it could close the table: after the restart it is closed as walked away,
    as it would have been, not played out by the computers for nobody.  The terminal
    offers a new game instead of asking to continue a table that is gone."""
    async with running_service(db) as service:
        await play(service, script("zweier", "q"))
        table_id = next(iter(service.tables))
        table = service.tables[table_id]
        seat = table.seat_of(USER.key)
        async with service.lock(table_id):  # as after his turns ran out
            await service._commit(table, [{"k": "replace", "seat": seat, "level": "random"}])
            service._cancel_timers(table_id)  # the bot stops before it closes the table
        assert table_id in service.tables
        acts = [e for e in await service.store.table_log(table_id) if e["k"] == "act"]
        assert table_id in service.tables

    async with running_service(db) as service:
        term = Terminal(script("q"))
        local = LocalTable(service, asyncio.Event(), readline=term.next_line, out=term, user=USER)
        await asyncio.wait_for(local.run(), 30)
        assert table_id not in service.tables
        row = await service.store.table_row(table_id)
        assert row is not None and row.status == "aborted"
        log = await service.store.table_log(table_id)
        assert log[-1] == {**log[-1], "k": "abort", "reason": "walked_away"}
        assert [e for e in log if e["k"] == "act"] == acts  # no computer played on
        assert "is still open" not in term.text and "Choose a game" in term.text
        said = " ".join(term.text.split())  # as wrapped to the terminal's width
        assert f"at table {table_id} is closed: the computer had taken your seat" in said

    async with running_service(db) as service:  # told once: not again at the next start
        out = (await play(service, script("q"))).text
        assert table_id not in out


async def test_a_lobby_left_by_an_interrupted_start_is_filled_and_played(db: Path) -> None:
    """The bot stopped after his table opened and before it started: the next start
    seats the computers and plays it, instead of asking to continue a game that never
    began (or opening the menu beside a table of his that nobody can start)."""
    async with running_service(db) as service:
        opened = await service.create_table(CHAT, USER, "dreier", is_admin=True)
        assert opened.ok and opened.table_id is not None
    async with running_service(db) as service:
        term = await play(service, script("q"))
        assert "is still open" not in term.text and "Choose a game" not in term.text
        assert "Dreierschnapsen (3 players): you and 2 computer players" in term.text
        assert "Your choices:" in term.text
        assert service.tables[opened.table_id].status == Status.PLAYING


async def _play_slowly(
    service: TableService,
    lines: list[str],
    pauses: list[float],
    before: Callable[[int], Awaitable[None]] | None = None,
) -> Terminal:
    """Play `lines` as the answers, the k-th given `pauses[k]` seconds after it is
    asked for (a player who reads, or walks away), and after `before(k)`."""
    term = Terminal(script(*lines))
    first = term.next_line
    waits = list(pauses)
    asked = 0

    async def slowly() -> str | None:
        nonlocal asked
        k, asked = asked, asked + 1
        await asyncio.sleep(waits.pop(0) if waits else 0)
        if before is not None:
            await before(k)
        return await first()

    term.next_line = slowly  # type: ignore[method-assign]
    local = LocalTable(service, asyncio.Event(), readline=term.next_line, out=term, user=USER)
    await asyncio.wait_for(local.run(), 30)
    return term


async def test_a_turn_does_not_run_out_while_the_resume_question_waits(db: Path) -> None:
    """He quit on his turn and comes back after its time ran out: while "continue
    it?" waits for him, the computer does not play his card; once he continues, he
    is reminded and has the reminder's time to play.  The reminder comes while his
    prompt waits: on a line of its own (not after the "> "), and the prompt again
    below it, so the cursor is not left above the news."""
    async with running_service(db) as service:
        await play(service, script("zweier", "q"))  # quit at his first choice
        table_id = next(iter(service.tables))
        version = service.tables[table_id].version
        await service.store.set_deadline(table_id, time.time() - 60)  # an hour later, say

    # the question waits longer than the reminder's time (1 s), the grace a clock
    # started at the restart would have given him
    quick = Timings(turn_timeout=2.0, reminder_before=1.0, missed_turns_limit=3, ai_delay=0)
    async with running_service(db, timings=quick) as service:
        table = service.tables[table_id]

        async def long_grace(k: int) -> None:
            if k == 0:  # as he continues: the grace he gets now is 30 s (a 1 s one
                # ran out under his "q" when the machine stalled a second)
                service.timings = dataclasses.replace(quick, reminder_before=30.0)

        # he reads the question a while
        term = await _play_slowly(service, ["", "q"], [2.5, 0.1], long_grace)
        seat = table.seat_of(USER.key)
        assert seat is not None and table.seats[seat].missed == 0  # type: ignore[union-attr]
        assert table.version == version  # no move was made for him
        after = term.text.split("is still open")[1]
        assert re.search(rf"{PROMPT}\nTester, it is your turn \(\d+ s left\)\.\n{PROMPT}", after), (
            after
        )


async def test_abandon_the_unfinished_game_for_a_new_one(db: Path) -> None:
    async with running_service(db) as service:
        await play(service, script("zweier", "q"))
        old = next(iter(service.tables))
        term = await play(service, script("x", "n", "zweier", "q"))
        assert "Type Enter to continue, n (or a game's name) for a new game" in term.text
        assert "The unfinished game is closed." in term.text
        assert old not in service.tables
        rows = dict(await service.store.fetchall("SELECT id, status FROM tables"))
        assert rows[old] == "aborted"
        assert list(rows.values()).count("playing") == 1


async def test_end_of_input_before_anything_explains_the_chat_bot(
    service: TableService,
) -> None:
    """No line at all (an empty pipe): nothing to serve, the runner's exit code 2."""
    with pytest.raises(NothingToServe) as told:
        await play(service, script(None))
    assert "stdin is closed" in str(told.value)
    assert "DISCORD_TOKEN or TELEGRAM_TOKEN" in str(told.value)


async def test_end_of_input_during_a_game_keeps_it(service: TableService) -> None:
    term = await play(service, script("zweier", None))
    assert term.text.count("your game is kept") == 1  # the session ends: not asked again
    assert len(service.tables) == 1
    # Ctrl-D echoes no newline on a terminal: the goodbye goes on a line of its own.
    assert term.text.endswith(
        PROMPT + "\nBye — your game is kept; run the bot again to continue it.\n"
    )


class Failure(NamedTuple):
    out: str  # the whole screen
    after: str  # what the line typed at the failure brought, up to the next prompt
    table: str  # the id of his table then ("": none)
    version: int  # its version then (0: none)


async def _failing_once(
    service: TableService,
    monkeypatch: pytest.MonkeyPatch,
    failing: str,
    lines: list[str],
    at: str | None,
    *,
    bug: bool = True,
    call: int = 1,
    user: UserRef = USER,
) -> Failure:
    """Run the terminal typing `lines` (then q).  Where the screen first shows `at`
    (None: before the run), `failing` (a method of the service, or of its store:
    "store.append") fails once, at its `call`-th call from then: with a bug, or
    (`bug` False) as a locked database."""
    todo = list(lines)
    armed: list[tuple[int, str, int]] = []  # the prompt it was armed at, his table then
    prompts = 0
    owner, _, method = failing.rpartition(".")

    def arm() -> None:
        table = next(iter(service.tables.values()), None)
        armed.append((prompts, *((table.id, table.version) if table else ("", 0))))
        target = getattr(service, owner) if owner else service
        error = RuntimeError("a bug") if bug else None  # a new one: the core marks it told
        _fail_once(monkeypatch, target, method, at=call, error=error)

    def answer(screen: str) -> str:
        nonlocal prompts
        prompts += 1
        if not armed and at is not None and at in screen:
            arm()
        return todo.pop(0) if todo else "q"

    if at is None:
        arm()
    out = (await play(service, answer, timeout=10, user=user)).text
    [(prompt, table, version)] = armed
    return Failure(out, out.split(PROMPT)[prompt], table, version)


def _one_error(caplog: pytest.LogCaptureFixture, logged_by: str, bug: bool = True) -> None:
    """The failure is one ERROR line (with the bug's traceback), of `logged_by`."""
    [error] = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert error.name == logged_by, error.getMessage()
    if bug:
        assert error.exc_info is not None and str(error.exc_info[1]) == "a bug"


def _told_then_table(failure: Failure, told: str, lang: str = "en") -> None:
    """After his line, `told` comes first, then his table as stored with his choices,
    drawn once, then his prompt."""
    assert failure.after.lstrip("\n").startswith(told + "\n"), failure.after
    # said once: not again below his prompt, as news of the table
    assert failure.out.count(told.removeprefix("✗ ")) == 1, failure.out
    # the table's heading, and his hand's
    assert failure.after.count(failure.table) == 2, failure.after
    assert failure.after.count(say(lang, "your_actions")) == 1, failure.after


@pytest.mark.parametrize(
    ("failing", "lines", "bug", "logged_by"),
    [
        # a move: in its commit (the core logged it, and read the table back)
        ("store.append", ["zweier", "1", "1"], True, "bot.service"),
        ("_game_action", ["zweier", "1", "1"], True, "adapters.local"),  # before any commit
        ("store.append", ["zweier", "1", "1"], False, "bot.service"),  # not saved: refused
        ("act", ["zweier", "r", "1"], True, "adapters.local"),  # the rules asked for
        ("act", ["tausend", "385", "385"], True, "adapters.local"),  # the page holding a bid
    ],
    ids=["commit", "before_commit", "not_saved", "rules", "page_of_bids"],
)
async def test_what_fails_in_a_match_is_told_then_the_table_once_and_play_goes_on(
    db: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    failing: str,
    lines: list[str],
    bug: bool,
    logged_by: str,
) -> None:
    """His move, the rules or Thousand's next page of bids raises an error nobody
    expected (a bug), or his move is not saved: as a chat tells a press that failed,
    the terminal says so first, then shows the table as stored (the move is not in
    it) with his choices, once (the core's redraw of the table read back is not
    drawn as well), and takes the next line.  The bug is one ERROR line with its
    traceback (the core's, if it logged it), not the end of the program."""
    caplog.set_level(logging.DEBUG)
    async with running_service(db, MARRIAGES if lines[0] == "tausend" else None) as service:
        failure = await _failing_once(
            service, monkeypatch, failing, lines, say("en", "your_actions"), bug=bug
        )
        [table] = service.tables.values()  # kept, as he quit
    not_saved = say("en", "refused", reason=t("en", "refuse.not_saved"))
    _told_then_table(failure, say("en", "failed") if bug else not_saved)
    assert table.version > failure.version, failure.out  # the next line went in
    assert failure.out.rstrip().endswith(say("en", "bye_saved"))
    _one_error(caplog, logged_by, bug)


async def test_a_card_refused_for_a_reason_that_fails_is_told_then_the_table_and_play_goes_on(
    db: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Following suit in Thousand he types a card of his hand that is no choice now,
    and asking the core for the rule that keeps it raises a bug: he is told, then
    sees his table and choices once, and the card he types next is played.  One
    ERROR line; the program not ended."""
    cards: dict[str, str] = {}
    at: list[tuple[int, str, int]] = []  # the prompt the card was typed at, the table

    def answer(screen: str) -> str:
        if "Choose a game" in screen:
            return "tausend"
        if "Bidding — Tester to bid" in screen:
            return "1"  # pass: a computer declares and leads, Tester follows suit
        allowed = plain_cards(screen)
        if allowed and not cards:
            cards["not_now"] = next(c for c in hand(screen) if c not in allowed)
            cards["played"] = allowed[0]
            [table] = service.tables.values()
            at.append((term.prompts, table.id, table.version))
            _fail_once(monkeypatch, service, "why_not", error=RuntimeError("a bug"))
            return letters(cards["not_now"])
        if cards and term.prompts == at[0][0] + 1:
            return letters(cards["played"])
        return "q" if cards else "1"

    caplog.set_level(logging.DEBUG)
    term = Terminal(answer)
    async with running_service(db, NO_MARRIAGE) as service:
        table = LocalTable(service, asyncio.Event(), readline=term.next_line, out=term, user=USER)
        await asyncio.wait_for(table.run(), 60)
        [(prompt, table_id, version)] = at
        assert service.tables[table_id].version > version, term.text  # the card went in
    failure = Failure(term.text, term.text.split(PROMPT)[prompt], table_id, version)
    _told_then_table(failure, say("en", "failed"))
    assert "cannot be played now" not in failure.out, failure.out
    _one_error(caplog, "adapters.local")


async def test_a_table_that_cannot_be_shown_is_told_and_his_choices_stand(
    service: TableService, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """ "s" at his turn, and the core's view of his hand raises a bug: he is told
    the table could not be shown, his prompt comes again, and the choice he types
    next is played; its news is the whole table he did not see, not only the lines
    that changed.  One ERROR line; the program not ended."""
    caplog.set_level(logging.DEBUG)
    lines = ["zweier", "s", "1"]
    failure = await _failing_once(service, monkeypatch, "hand", lines, say("en", "your_actions"))
    [table] = service.tables.values()
    assert failure.after.lstrip("\n") == say("en", "not_shown") + "\n", failure.after
    assert table.version > failure.version, failure.out  # his "1"
    after_his_move = failure.out.partition(failure.after)[2].split(PROMPT)[1]
    assert f"— {table.id}\nDeal 1 — dealer " in after_his_move, after_his_move
    assert failure.out.count("✗") == 1, failure.out
    _one_error(caplog, "adapters.local")


@pytest.mark.parametrize(
    ("lines", "call"),
    [(["zweier", "1", "1"], 1), (["zweier", "s", "1"], 2)],
    ids=["is_it_his_turn", "the_cards_shown"],
)
async def test_a_bug_in_what_the_terminal_reads_for_itself_is_logged_not_told(
    service: TableService,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    lines: list[str],
    call: int,
) -> None:
    """The core's view of his hand raises a bug where the terminal only reads it for
    itself: whether the news after his move is his turn (drawn whole then), or the
    cards his hand showed (to name a card new in it next time, after "s"): nothing
    he asked for fails, so he is not told; it is logged once, and he plays on."""
    caplog.set_level(logging.DEBUG)
    failure = await _failing_once(
        service, monkeypatch, "hand", lines, say("en", "your_actions"), call=call
    )
    [table] = service.tables.values()
    assert "✗" not in failure.out, failure.out
    assert say("en", "your_actions") in failure.after, failure.after
    assert table.version > failure.version, failure.out  # his move went in
    _one_error(caplog, "adapters.local")


async def test_news_that_cannot_be_drawn_is_told_and_the_next_move_draws_the_table(
    db: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The core's view of the table raises a bug as the match starts (its first deal
    drawn as news, not at a line of his): he is told it could not be shown, and the
    next move (the computer's lead) draws the whole table with his choices, and he
    plays on.  One ERROR line, the terminal's (not the core's "a listener failed"),
    and the program not ended."""
    caplog.set_level(logging.DEBUG)
    async with running_service(db, SCHNAPSEN) as service:  # he deals: the computer leads
        failure = await _failing_once(service, monkeypatch, "table", ["zweier", "1"], "Choose")
        [table] = service.tables.values()
    told = say("en", "not_shown")
    assert failure.out.count(told) == 1 and failure.out.count("✗") == 1, failure.out
    drawn = failure.out.partition(told)[2].partition(say("en", "your_actions"))[0]
    assert f"— {table.id}\nDeal 1 — dealer Tester\n" in drawn, failure.out
    assert f"Your hand at table {table.id}" in drawn, failure.out
    assert table.version > failure.version + 2, failure.out  # started, his lead, his "1"
    _one_error(caplog, "adapters.local")


@pytest.mark.parametrize(
    ("lang", "bug", "told"),
    [
        ("en", True, "✗ Something went wrong, so that did not go through. Please try again."),
        ("en", False, "✗ That did not go through: the bot could not save it (its database "),
        ("de", False, "✗ Das hat nicht geklappt: der Bot konnte es nicht speichern (seine "),
    ],
    ids=["bug", "not_saved", "not_saved_de"],
)
async def test_a_resign_that_does_not_go_through_is_told_and_the_match_plays_on(
    service: TableService,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    lang: str,
    bug: bool,
    told: str,
) -> None:
    """His resignation's commit raises a bug, or the core refuses it (not saved):
    the match is not lost (the store has it as before); he is told why, in his
    language, then sees the table and his choices and plays on; the core's ERROR
    line is the only one."""
    caplog.set_level(logging.DEBUG)
    user = dataclasses.replace(USER, lang=lang)
    resign, yes = ("resign", "y") if lang == "en" else ("aufgeben", "j")
    failure = await _failing_once(
        service,
        monkeypatch,
        "store.append",
        ["zweier", resign, yes, "1"],
        say(lang, "resign_ask"),
        bug=bug,
        user=user,
    )
    assert failure.after.lstrip("\n").startswith(told), failure.after
    _told_then_table(failure, failure.after.lstrip("\n").partition("\n")[0], lang)
    [table] = service.tables.values()  # still playing, kept as he quit
    assert table.status == Status.PLAYING
    assert table.version > failure.version, failure.out  # his next move went in
    _one_error(caplog, "bot.service", bug)


@pytest.mark.parametrize(
    ("failing", "call"),
    [("settings", 1), ("create_table", 1), ("act", 1), ("act", 3)]
    # the lobby read (the core's own read as it opens is the 1st), when it is empty
    # and when it is full
    + [("lobby", 2), ("lobby", 5)],
    ids=["language", "open", "computer", "start", "lobby", "lobby_full"],
)
async def test_a_game_that_fails_to_open_is_told_and_the_menu_offers_it_again(
    service: TableService,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    failing: str,
    call: int,
) -> None:
    """Opening the game chosen at the menu raises a bug (the chat's language read,
    the table opened, its lobby read, a computer seated, the start): he is told, and
    the menu comes again with that game on Enter; a lobby left half filled is closed,
    so Enter opens it anew and it plays (a match over, not "closed").  That close is
    not his news: no "The table was closed: the host closed it" (he did not).  One
    ERROR line; the program not ended."""
    caplog.set_level(logging.DEBUG)
    lines = ["dreier", "", "resign", "y"]
    failure = await _failing_once(service, monkeypatch, failing, lines, "Choose a game", call=call)
    again = "Choose a game (Enter: 2 Dreierschnapsen (3 players) · h: help · q: quit)"
    assert again in failure.after.partition(say("en", "failed") + "\n")[2], failure.after
    assert "The table was closed" not in failure.out, failure.out
    assert "Match over." in failure.out and "No result" not in failure.out, failure.out
    assert service.tables == {}  # the lobby closed, the match resigned
    _one_error(caplog, "adapters.local")


@pytest.mark.parametrize(
    ("failing", "typed", "then"),
    [
        ("set_table_language", "", "The table calls you Tester."),
        ("listen", "", "The table calls you Tester."),
        ("ends_untold", "", "The table calls you Tester."),
        ("abort", "n", "The unfinished game is closed."),
    ],
)
async def test_what_fails_at_the_continue_question_is_told_and_it_is_asked_again(
    db: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    failing: str,
    typed: str,
    then: str,
) -> None:
    """Continuing his unfinished game (its language, its clocks, whether a result
    waits to be told first) or abandoning it raises a bug: he is told, then asked
    again, and the same answer then does it."""
    async with running_service(db) as service:
        await play(service, script("zweier", "q"))
        caplog.set_level(logging.DEBUG)
        failure = await _failing_once(
            service, monkeypatch, failing, [typed, typed], "is still open"
        )
    told = say("en", "failed") + "\n" + say("en", "resume_bad") + "\n"
    # (the seat's name comes before the check for a result to tell, the table before
    # its clocks)
    if failing not in ("ends_untold", "listen"):
        assert failure.after.lstrip("\n") == told, failure.after
    assert then in failure.out.partition(told)[2], failure.out
    _one_error(caplog, "adapters.local")


@pytest.mark.parametrize(
    ("failing", "at", "typed"),
    [("close_if_abandoned", None, ""), ("_tell_closed", "is still open", "n")]
    + [("delivered", "is still open", "n")],
    ids=["walked_away", "clocks", "told"],
)
async def test_a_failure_of_no_call_of_his_is_logged_and_the_session_goes_on(
    db: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    failing: str,
    at: str | None,
    typed: str,
) -> None:
    """Closing a game he walked away from before asking about it, the clocks started
    after the question, an abandoned game noted as told: a bug there is nothing he
    asked for or could try again, so it is only logged (one ERROR line), and the
    session goes on: the game continued, or the new one played."""
    async with running_service(db) as service:
        await play(service, script("zweier", "q"))
        caplog.set_level(logging.DEBUG)
        failure = await _failing_once(service, monkeypatch, failing, [typed, "zweier"], at)
        [table] = service.tables.values()
    assert "✗" not in failure.out, failure.out
    assert table.status == Status.PLAYING
    assert failure.out.rstrip().endswith(say("en", "bye_saved")), failure.out
    _one_error(caplog, "adapters.local")


async def test_his_table_not_found_for_a_bug_at_the_start_is_told_and_the_menu_comes(
    service: TableService, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Asking the core for his unfinished table as the terminal starts raises a bug:
    he is told, then the game menu comes as with no table, and the game he chooses
    there opens and plays.  One ERROR line; the program not ended."""
    caplog.set_level(logging.DEBUG)
    failure = await _failing_once(service, monkeypatch, "table_of", ["zweier", "1"], None)
    before_menu = failure.out.partition("\nGames (type")[0]
    assert before_menu.endswith("\n" + say("en", "failed") + "\n"), failure.out
    assert failure.out.count("✗") == 1, failure.out  # his move went in
    assert failure.out.rstrip().endswith(say("en", "bye_saved")), failure.out
    _one_error(caplog, "adapters.local")


@pytest.mark.parametrize("failures", [1, 2])
async def test_a_bug_before_he_listens_is_tried_again_as_his_game_starts(
    service: TableService,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    failures: int,
) -> None:
    """`listen` (the clocks started before the menu) raises a bug at its very top,
    before the terminal is among its listeners: logged, not told, it is called again
    as the game he chooses starts, so its table is drawn and plays (before, nothing
    was drawn: the table waited for him, the terminal for the table).  When that
    fails too he is told, as for any game that fails to open, and the menu offers
    the game again."""
    caplog.set_level(logging.DEBUG)
    # Enter: the game again, after it failed to open
    lines = ["dreier", "resign", "y"] if failures == 1 else ["dreier", "", "resign", "y"]
    if failures == 2:  # the 1st call fails in here, the 2nd in `_failing_once`
        _fail_once(monkeypatch, service, "listen", error=RuntimeError("a bug"))
    failure = await _failing_once(service, monkeypatch, "listen", lines, None, call=failures)
    told = say("en", "failed")
    assert failure.out.count(told) == failures - 1, failure.out
    again = "Choose a game (Enter: 2 Dreierschnapsen (3 players) · h: help · q: quit)"
    assert failures == 1 or again in failure.out.partition(told)[2], failure.out
    assert "The table was closed" not in failure.out, failure.out
    assert "Match over." in failure.out and "No result" not in failure.out, failure.out
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert [(r.name, r.getMessage()) for r in errors] == [("adapters.local", "listen")] * failures


async def test_end_of_input_at_the_resume_prompt_says_the_game_is_kept(db: Path) -> None:
    async with running_service(db) as service:
        await play(service, script("zweier", "q"))
        table_id = next(iter(service.tables))
        term = await play(service, script(None))
        assert "is still open" in term.text
        assert term.text.endswith(
            PROMPT + "\nBye — your game is kept; run the bot again to continue it.\n"
        )
        assert table_id in service.tables


async def test_end_of_input_at_the_game_menu_ends_the_prompt_line(service: TableService) -> None:
    term = await play(service, script("x", None))
    assert term.text.endswith(PROMPT + "\nBye.\n")


async def _stopped_while_waiting(service: TableService, waiting_for: str) -> str:
    """Run the table until it shows `waiting_for` and waits for a line, then stop it
    (Ctrl-C or SIGTERM); what it printed."""
    stop = asyncio.Event()
    asked = asyncio.Event()
    never: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()

    async def readline() -> str | None:
        # waited for instead of a pause: a loaded machine may print the question late
        asked.set()
        return await never

    out = io.StringIO()
    table = LocalTable(service, stop, readline=readline, out=out, user=USER)
    task = asyncio.create_task(table.run())
    await asyncio.wait_for(asked.wait(), 30)
    assert waiting_for in out.getvalue()
    stop.set()
    await asyncio.wait_for(task, 30)
    assert table not in service.listeners
    return out.getvalue()


async def test_stop_ends_the_session_while_waiting_for_input(service: TableService) -> None:
    out = await _stopped_while_waiting(service, "Choose a game")
    assert out.rstrip().endswith("Bye.")


async def test_stop_at_the_resume_question_says_the_game_is_kept(db: Path) -> None:
    """Ctrl-C while "continue it?" waits: the game stays, as with q, and he is told."""
    async with running_service(db) as service:
        await play(service, script("zweier", "q"))
    async with running_service(db) as service:
        out = await _stopped_while_waiting(service, "is still open")
        assert out.rstrip().endswith("your game is kept; run the bot again to continue it.")
        assert any(t.status.value == "playing" for t in service.tables.values())


async def test_a_stop_whose_table_is_not_found_for_a_bug_says_bye(
    db: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Ctrl-C at "continue it?", and asking the core for his table (to say whether
    it is kept) raises a bug: a goodbye all the same, not a traceback, and the game
    is kept; one ERROR line."""
    async with running_service(db) as service:
        await play(service, script("zweier", "q"))
    async with running_service(db) as service:
        caplog.set_level(logging.DEBUG)
        # the 1st call finds the table to ask about
        _fail_once(monkeypatch, service, "table_of", at=2, error=RuntimeError("a bug"))
        out = await _stopped_while_waiting(service, "is still open")
        assert any(t.status == Status.PLAYING for t in service.tables.values())
    assert out.rstrip().endswith("Bye.") and "✗" not in out, out
    _one_error(caplog, "adapters.local")


@pytest.mark.parametrize("lang", ["en", "de"])
def test_a_single_choice_is_not_a_range(lang: str) -> None:
    """With one choice a refusal says "type 1", not "a number from 1 to 1"."""
    one = say(lang, "no_such_action", n=4, max=1)
    bid = say(lang, "no_such_bid", n=105, numbers=say(lang, "numbers", max=1), low=100, bids=1)
    assert "1 to 1" not in one and "1 bis 1" not in one and "1" in one
    assert "1 to 1" not in bid and "1 bis 1" not in bid and "100" in bid
    assert "from 1 to 3" in say("en", "no_such_action", n=4, max=3)


async def _her_match_resigned(service: TableService, chat: ChatRef, her: UserRef) -> None:
    """She opens a Zweier table in `chat`, a computer joins, she starts and resigns:
    a match of someone else's that ends while the terminal's player waits."""
    opened = await service.create_table(chat, her, "zweier")
    assert opened.ok and opened.table_id is not None
    for verb in ("ai", "st"):
        lobby = service.lobby(opened.table_id)
        assert lobby is not None
        version = decode(lobby.message.all_buttons()[0].payload).version
        assert (await service.act(her, table_verb(opened.table_id, version, verb))).ok
    assert (await service.resign(chat, her)).ok


async def test_updates_of_other_tables_are_not_shown(service: TableService) -> None:
    """Another chat's match starts and ends while his waits for his choice: none of
    it is printed, and his match goes on (its end is not taken for his)."""
    anna = UserRef("tg", "1", "Anna")
    her_chat = ChatRef("tg", "-1")
    lines = ["zweier"]

    async def readline() -> str | None:
        if lines:
            return lines.pop(0)
        # at his first choice: Anna plays a match elsewhere and resigns it
        await _her_match_resigned(service, her_chat, anna)
        return "q"

    term = Terminal(script())
    table = LocalTable(service, asyncio.Event(), readline=readline, out=term, user=USER)
    await asyncio.wait_for(table.run(), 30)
    assert "Anna" not in term.text
    assert "Match over" not in term.text
    assert term.text.rstrip().endswith("your game is kept; run the bot again to continue it.")


class _Ends:
    """A listener beside the terminal: the ends the core tells (a deal's, a match's)."""

    def __init__(self) -> None:
        self.seen: list[TableUpdate] = []

    async def table_update(self, update: TableUpdate) -> None:
        if update.kind in TOLD_KINDS:
            self.seen.append(update)


async def _killed_after(
    db: Path,
    copies_dir: Path,
    run: Callable[[TableService], Awaitable[object]],
    kind: str,
    timings: Timings = LOCAL_TIMINGS,
) -> Path:
    """`run` on a started core, the database copied after every commit: the copy a
    kill -9 leaves right after the first `kind` end was stored, before the screen
    printed it."""
    async with running_service(db, timings=timings) as service:
        copies = CommitCopies(service.store, copies_dir)
        ends = _Ends()
        service.listeners.append(ends)
        await run(service)
    end = next(u for u in ends.seen if u.kind == kind)
    for _, path, _ in copies.taken:
        with contextlib.closing(sqlite3.connect(path)) as conn:
            row = conn.execute("SELECT version FROM tables WHERE id = ?", (end.table_id,))
            if row.fetchone() == (end.version,):
                return path
    raise AssertionError(f"no copy has the {kind} of {end.table_id}")


def _to_the_end(quit_at: str) -> Answer:
    def answer(screen: str) -> str:
        if "Choose a game" in screen:
            return "zweier"
        return "q" if quit_at in screen else "1"

    return answer


async def test_a_deal_result_a_kill_kept_from_the_screen_comes_before_the_next_deal(
    db: Path, tmp_path: Path
) -> None:
    """Killed right after his move scored deal 1 (and dealt deal 2), before it was
    printed: resumed, the terminal showed deal 2 with his hand, then deal 1's result
    under it, then deal 2 again.  Now deal 1's result comes first, then deal 2."""
    killed = await _killed_after(
        db, tmp_path, lambda svc: play(svc, _to_the_end("Deal 1 over")), "deal_end"
    )
    async with running_service(killed) as service:
        out = (await play(service, script("", "q"))).text
    before = out[: out.index("Deal 1 over:")]
    assert "Deal 2 — " not in before and "Your hand at table" not in before
    assert "Deal 2 — " in out


async def test_a_match_end_a_kill_kept_from_the_screen_is_told_before_the_menu(
    db: Path, tmp_path: Path
) -> None:
    """Killed right after the move that ended his match, before it was printed: the
    next start prints its result before the menu, saying which match it was, not a
    bare "Deal 5 over" out of nowhere; and not again at the start after."""
    killed = await _killed_after(
        db, tmp_path, lambda svc: play(svc, _to_the_end("Match over")), "finished"
    )
    async with running_service(killed) as service:
        [(table_id, game)] = await service.store.fetchall("SELECT id, game FROM tables")
        out = (await play(service, script("q"))).text
    said = f"Your game {game_name(game, 'en')} at table {table_id} ended as the bot stopped:"
    assert said in out
    assert "Game over!" in out.split(said, 1)[1].split("Choose a game")[0]
    async with running_service(killed) as service:
        out = (await play(service, script("q"))).text
    assert "Game over!" not in out


async def test_a_match_end_of_another_player_is_not_told_at_this_terminal(
    db: Path, tmp_path: Path
) -> None:
    """Anna's match at the terminal's chat ended just before a kill: the next start
    does not print her result to him (not his match, and out of nowhere for him)."""
    anna = UserRef("local", "anna", "Anna", "en")

    async def her_match(service: TableService) -> None:
        await _her_match_resigned(service, CHAT, anna)

    killed = await _killed_after(db, tmp_path, her_match, "finished")
    async with running_service(killed) as service:
        out = (await play(service, script("q"))).text
    assert "Anna" not in out
    assert "Game over!" not in out


async def test_a_close_a_kill_kept_from_the_screen_is_told_before_the_menu(
    db: Path, tmp_path: Path
) -> None:
    """His turns ran out and his table closed as walked away, and a kill kept that
    from the screen: the next start said nothing of it (his game just gone, not even
    offered to go on).  Now it says before the menu which game closed and why, as
    the live screen would have; and not again at the start after."""
    timings = Timings(turn_timeout=0.2, reminder_before=0.1, missed_turns_limit=2, ai_delay=0.0)

    async def walk_away(service: TableService) -> None:
        term = AwayTerminal(script())
        table = LocalTable(service, asyncio.Event(), readline=term.next_line, out=term, user=USER)
        await asyncio.wait_for(table.run(), 30)

    killed = await _killed_after(db, tmp_path, walk_away, "aborted", timings)
    async with running_service(killed) as service:
        [(table_id, game)] = await service.store.fetchall("SELECT id, game FROM tables")
        out = " ".join((await play(service, script("q"))).text.split())
    said = (
        f"Your game {game_name(game, 'en')} at table {table_id} was closed, without a result,"
        " as the bot stopped: every player walked away"
    )
    assert said in out
    assert out.index(said) < out.index("Choose a game")
    async with running_service(killed) as service:
        out = (await play(service, script("q"))).text
    assert "was closed" not in out and table_id not in out


async def test_a_game_abandoned_at_the_resume_question_is_not_told_again(db: Path) -> None:
    """He abandoned his unfinished game at the resume question and was told so
    there: the next start does not tell him it closed as the bot stopped."""
    async with running_service(db) as service:
        await play(service, script("zweier", "q"))
    async with running_service(db) as service:
        out = (await play(service, script("n", "q"))).text
    assert "The unfinished game is closed." in out
    async with running_service(db) as service:
        out = (await play(service, script("q"))).text
    assert "was closed" not in out and "is still open" not in out


def test_local_user_from_the_environment() -> None:
    me = local_user({"USER": "anna", "LANG": "de_AT.UTF-8"})
    assert (me.platform, me.id, me.name, me.lang) == ("local", "me", "anna", "de")
    assert me.key == "local:me"
    # no USER: the language's word for a player, which reads right in the third person
    assert local_user({}).name == "Player"
    assert local_user({"LANG": "de_AT.UTF-8"}).name == "Spieler"
    assert local_user({"USER": " ", "LANG": "C.UTF-8"}).lang == "en"
    assert CHAT.key == "local:terminal"


async def test_german_menus_for_a_german_locale(service: TableService) -> None:
    term = Terminal(script("q"))
    de = UserRef("local", "me", "Anna", "de")
    table = LocalTable(service, asyncio.Event(), readline=term.next_line, out=term, user=de)
    await asyncio.wait_for(table.run(), 5)
    assert "Spiel wählen" in term.text
    assert "Servus." in term.text


async def test_a_german_terminal_takes_its_commands_in_german(service: TableService) -> None:
    """Its prompt says "q: Ende": "hilfe", "regeln", "zeigen" and "ende" are commands
    (the English words still are), at the menu and in a game; "weiter" at the resume
    question continues the game kept."""
    de = UserRef("local", "me", "Anna", "de")

    async def run(*lines: str) -> str:
        term = Terminal(script(*lines))
        table = LocalTable(service, asyncio.Event(), readline=term.next_line, out=term, user=de)
        await asyncio.wait_for(table.run(), 30)
        return term.text

    out = await run("hilfe", "regeln", "zweier", "hilfe", "zeigen", "regeln", "ende")
    assert "Es gibt kein Spiel" not in out and "Unbekannter Befehl" not in out, out
    assert "Spiel wählen:" in out and "Befehle:" in out  # both helps
    assert out.count("Wer zuerst 66 Augen hat") == 2  # the rules, at the menu and in play
    assert "die Partie bleibt gespeichert" in out.splitlines()[-1]  # "ende" quit
    out = await run("weiter", "beenden")
    assert "Deine unfertige Partie" in out and "Enter zum Weiterspielen" not in out, out
    assert "Unbekannter Befehl" not in out


@pytest.mark.parametrize(("lang", "other"), [("de", "en"), ("en", "de")])
async def test_results_come_in_the_language_of_the_terminal(
    service: TableService, lang: str, other: str
) -> None:
    """The results are rendered in the table's (chat's) language, not the reader's:
    the terminal sets its chat's language to its own before it opens a table."""
    me = UserRef("local", "me", "Anna", lang)
    await service.update_setting(CHAT, me, "language", other, is_admin=True)

    def answer(screen: str) -> str:
        if "1)" in screen and ("Choose a game" in screen or "Spiel wählen" in screen):
            return "zweier"
        if "Match over" in screen or "Partie vorbei. Enter" in screen:
            return "q"
        return "1"

    term = Terminal(answer)
    table = LocalTable(service, asyncio.Event(), readline=term.next_line, out=term, user=me)
    await asyncio.wait_for(table.run(), 60)
    out = term.text
    if lang == "de":
        assert "Runde 1 vorbei:" in out and "Seed der Runde 1:" in out
        assert "Partie vorbei!" in out
        assert "Deal 1 over" not in out and "Game over!" not in out
    else:
        assert "Deal 1 over:" in out and "Seed of deal 1:" in out and "Game over!" in out
        assert "Runde 1 vorbei" not in out and "Partie vorbei!" not in out
    assert (await service.settings(CHAT)).language == lang


async def test_a_game_resumed_under_another_locale_speaks_the_new_one(
    service: TableService,
) -> None:
    """Opened in German, kept with q, resumed in English: the rest of the match and
    its results come in English."""
    moves = 0

    def first(screen: str) -> str:
        nonlocal moves
        if "Spiel wählen" in screen:
            return "zweier"
        moves += 1
        return "q" if moves > 3 else "1"

    de = UserRef("local", "me", "Anna", "de")
    term = Terminal(first)
    await asyncio.wait_for(
        LocalTable(service, asyncio.Event(), readline=term.next_line, out=term, user=de).run(), 60
    )
    assert "Partie" in term.text

    def again(screen: str) -> str:
        if "is still open" in screen:
            return ""  # Enter: go on with it
        if "Match over" in screen:
            return "q"
        return "1"

    en = UserRef("local", "me", "Anna", "en")
    term = Terminal(again)
    await asyncio.wait_for(
        LocalTable(service, asyncio.Event(), readline=term.next_line, out=term, user=en).run(), 60
    )
    # which deal ends first after the resume depends on the deal (the first may end
    # within the three German moves): any deal's result, all in English
    assert re.search(r"Deal \d+ over:", term.text) and "Game over!" in term.text
    assert not re.search(r"Runde \d+ vorbei", term.text) and "Partie vorbei!" not in term.text


# --- fitting a narrow terminal ---------------------------------------------------------


class Declarer:
    """Answers that play Thousand and outbid everyone, so that the player declares
    (takes the stock, gives cards, leads), until `done` says of all that was shown
    (`seen`) that the test has what it needs; another match after one ends."""

    def __init__(self, name: str, done: Callable[[str], bool]) -> None:
        self.name = name
        self.done = done
        self.seen = ""

    def __call__(self, screen: str) -> str:
        self.seen += screen
        if "Choose a game" in screen:
            return "tausend"
        if self.done(self.seen) or len(self.seen) > 2_000_000:
            return "q"
        if "Match over" in screen:
            return ""
        if f"Bidding — {self.name} to bid" in screen and (bids := re.findall(r"Bid (\d+)", screen)):
            return str(max(bids, key=int))
        return "1"


async def test_lines_fit_a_narrow_terminal(
    service: TableService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At 40 columns the long lines (the bids, Thousand's gifts) wrap
    at spaces; a choice's number stays with its text."""
    monkeypatch.setenv("COLUMNS", "40")
    term = Terminal(
        Declarer("Player", lambda seen: re.search(r"9\) Give \S+ to", seen) is not None)
    )
    you = local_user({})  # "Player", so the phase lines read "Player to bid"
    table = LocalTable(service, asyncio.Event(), readline=term.next_line, out=term, user=you)
    await asyncio.wait_for(table.run(), 60)
    out = term.text
    assert "Stock — Player to give" in out
    lines = [line.removeprefix(PROMPT) for line in out.splitlines()]
    too_wide = [line for line in lines if columns(line) > 40]
    assert too_wide == []
    choices = [line for line in lines if re.search(r"\d+\)", line)]
    assert any("10) Give" in line for line in choices)  # the cards to give
    assert any(re.search(r"9\) Give \S+ to", line) for line in choices)  # the 2nd gift
    # a choice's number ("7)") never ends a line: its text follows on the same line
    # (a marriage's value, "K♥ + marriage (100)", is text, not a number; nor is a
    # count in brackets, "On the barrel: Player (deal 1 of 3)", shown once the deals
    # he defends before he first declares have taken him to 880)
    assert [
        line
        for line in map(str.rstrip, choices)
        if re.search(r"(?:^|\s)\d+\)$", line) and not re.search(r"\([^()]*\)$", line)
    ] == []
    # Numbers are never separated from the number of choices or tricks either.
    assert [line for line in lines if re.fullmatch(r" *\d+[.)]? *", line)] == []


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_game_prompt_is_one_line_at_80_columns(lang: str) -> None:
    """The prompt stays right above "> " on a classic terminal, whichever game is the
    default (the one played last)."""
    for n, gid in enumerate(available(), 1):
        choose = say(lang, "choose", default=f"{n} {game_name(gid, lang)}")
        assert columns(choose) <= 80, choose


def test_wrap_breaks_at_spaces_and_keeps_cards_and_numbers_whole() -> None:
    tricks = "Tricks played: 1. A♥ 9♥ Q♥ → Computer 2; 2. K♣ A♣ 10♣ → You; 3. 10♥ J♣ J♥ → Anna"
    lines = wrap(tricks, 30)
    assert all(columns(line) <= 30 for line in lines)
    assert " ".join(part.strip() for part in lines) == tricks
    assert all(re.match(r" *(?:\d\.|→)? *$", line) is None for line in lines)
    assert not any(line.rstrip().endswith(("1.", "2.", "3.", "Computer")) for line in lines)
    assert lines[1].startswith("  ")  # continuation lines are indented
    # German suit marks are two columns wide; a card wider than the line stays whole.
    german = "Hand: 🌰Ober 🔔Ass 🍃König ❤Zehner"
    assert columns("🌰Ober") == 6
    assert wrap(german, 11) == ["Hand:", "  🌰Ober", "  🔔Ass", "  🍃König", "  ❤Zehner"]
    assert wrap("  12) Give 10♥ to Computer 1", 20) == ["  12) Give 10♥ to", "      Computer 1"]
    assert wrap("short", 0) == ["short"]  # width unknown (a pipe): as it is


@pytest.mark.parametrize(
    ("line", "width"),
    [
        ("Tricks played: 1. A♥ 9♥ Q♥ → Anna; 2. K♣ A♣", 17),
        ("Last trick: 10♥ J♣ J♥ → Computer 2", 22),
        ("Score: You +12 · Anna -3", 11),
    ],
)
def test_wrap_never_leaves_a_number_or_a_separator_alone(line: str, width: int) -> None:
    """Where the break would fall after a trick's number ("1." ending a line) or
    before a score, a seat's number or a separator ("→", "·" starting one), the
    words around it move to the next line together."""
    lines = wrap(line, width)
    assert all(columns(part) <= width for part in lines), lines
    assert " ".join(part.strip() for part in lines) == line
    for part in lines:
        assert not re.search(r"(?:^|\s)\d+[.)]$", part), lines
        # (a card such as 9♥ may start a line: it is not a number)
        assert not re.match(r" *(?:[·→]|[+-]?\d+[.;:)]?(?: |$))", part), lines
    assert wrap(line, 0) == [line]  # width unknown (a pipe): as it is, however long


def test_wrap_fills_lines_to_the_edge_and_never_indents_past_it() -> None:
    """A line (or a row of choices) is full up to its last column; a choice's text
    goes on under itself, unless that indent would leave half a narrow line or less
    for the text: then continuation lines are indented by two, so none overflows."""
    assert wrap("Hand: A♠ 10♠ K♥ Q♥ J♦", 12) == ["Hand: A♠ 10♠", "  K♥ Q♥ J♦"]
    assert fill(["1) A♠", "2) 10♠"], 16) == ["  1) A♠   2) 10♠"]  # choices too
    choice = "  12) Give 10♥ to Computer 1"
    assert all(part.startswith("      ") for part in wrap(choice, 16)[1:])
    help_line = "  <number>  choose that action (play a card, bid, close the talon)"
    lines = wrap(help_line, 16)
    assert len(lines) > 2 and all(columns(part) <= 16 for part in lines), lines


def test_output_to_a_pipe_is_not_wrapped(monkeypatch: pytest.MonkeyPatch) -> None:
    """No terminal on stdout and no $COLUMNS (`make run | tee log`): the width is
    unknown, and lines are printed as they are, not one word a line, and a row of
    choices stays one line, not one choice a line."""
    monkeypatch.delenv("COLUMNS")

    def no_terminal(fd: int = 1) -> os.terminal_size:
        raise OSError("not a terminal")

    monkeypatch.setattr(os, "get_terminal_size", no_terminal)
    assert terminal_width() == 0
    choices = [f"{n:>2}) {card}" for n, card in enumerate(["A♠", "10♠", "K♥", "Q♥", "J♦"], 1)]
    assert fill(choices, 0) == ["   1) A♠    2) 10♠    3) K♥    4) Q♥    5) J♦"]


# --- reading lines without blocking the loop -----------------------------------------


async def test_line_reader_on_a_pipe() -> None:
    r, w = os.pipe()
    try:
        reader = LineReader(r)
        os.write(w, b"one\r\ntw")
        assert await asyncio.wait_for(reader.readline(), 2) == "one"
        os.write(w, "o\nlast ü".encode())
        assert await asyncio.wait_for(reader.readline(), 2) == "two"
        os.close(w)
        w = -1
        assert await asyncio.wait_for(reader.readline(), 2) == "last ü"
        assert await asyncio.wait_for(reader.readline(), 2) is None
        assert await reader.readline() is None  # stays at the end
        reader.close()
    finally:
        os.close(r)
        if w >= 0:
            os.close(w)


async def test_line_reader_on_a_regular_file_uses_a_thread(tmp_path: Path) -> None:
    path = tmp_path / "input.txt"
    path.write_text("zweier\n1\n")
    with path.open("rb") as f:
        reader = LineReader(f.fileno())
        got = [await asyncio.wait_for(reader.readline(), 2) for _ in range(3)]
        reader.close()
    assert got == ["zweier", "1", None]


# --- the game menu ---------------------------------------------------------------------


async def chosen_game(service: TableService, typed: str, user: UserRef = USER) -> str:
    """The game a table opens with when `typed` is the answer to the game menu."""
    term = Terminal(script(typed, "q"))
    table = LocalTable(service, asyncio.Event(), readline=term.next_line, out=term, user=user)
    await asyncio.wait_for(table.run(), 30)
    assert "There is no game" not in term.text
    assert len(service.tables) == 1, term.text
    return next(iter(service.tables.values())).game


@pytest.mark.parametrize(
    ("typed", "game_id"),
    [
        ("Thousand", "tausend"),
        ("thousand", "tausend"),
        ("  THOUSAND  ", "tausend"),
        ("Thousand (Russian Schnapsen)", "tausend"),
        ("Tausend (Russisches Schnapsen)", "tausend"),
        ("Russisch Schnapsen", "tausend"),
        ("Schnapsen", "zweier"),
        ("Schnapsen (2 players)", "zweier"),
        ("schnapsen (zu zweit)", "zweier"),
        ("Dreierschnapsen", "dreier"),
        ("Dreierschnapsen (3 players)", "dreier"),
        ("Bauernschnapsen", "bauern"),
        ("bauernschnapsen (4 PLAYERS)", "bauern"),
        ("Tausend", "tausend"),
        (" Zweier ", "zweier"),
        ("3", "bauern"),
        ("thou", "tausend"),
        ("drei", "dreier"),
        ("schn", "zweier"),
        ("bau", "bauern"),
        # the other names the games go by (RULES.md), "66" and "1000" not read as numbers
        ("Zweierschnapsen", "zweier"),
        ("66", "zweier"),
        ("Talonschnapsen", "dreier"),
        ("Viererschnapsen", "bauern"),
        ("Russian Schnapsen", "tausend"),
        ("russisch  schnapsen", "tausend"),
        ("1000", "tausend"),
        ("zweierschn", "zweier"),
    ],
)
async def test_a_game_is_chosen_by_number_id_or_shown_name(
    service: TableService, typed: str, game_id: str
) -> None:
    """The menu says "type a number or a name": the names it shows work, in either
    language, whatever the case, and so does a prefix of 3 letters or more."""
    assert await chosen_game(service, typed) == game_id


async def test_a_german_terminal_takes_english_names_too(service: TableService) -> None:
    de = UserRef("local", "me", "Anna", "de")
    assert await chosen_game(service, "thousand", de) == "tausend"


async def test_short_unknown_or_ambiguous_names_are_refused(
    service: TableService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A prefix needs 3 letters; one that fits several games lists them."""
    from bot import i18n

    monkeypatch.setitem(i18n.GAME_NAMES["en"], "tausend", "Schnapsen for a thousand")
    typed = ("th", "xy", "6", "Thousandx", "schnap", "Schnapsen for", "q")
    term = await play(service, script(*typed))
    out = term.text
    assert "'th' is too short to tell: type at least 3 letters of a game's name" in out
    assert "There is no game 'xy'" in out
    # a number out of range is that, not the start of "66"
    assert "There is no game '6': type a number from 1 to" in out
    assert "There is no game 'Thousandx'" in out
    assert (
        "'schnap' fits more than one game: 1) Schnapsen (2 players), "
        "4) Schnapsen for a thousand. Type more of the name, or its number." in out
    )
    assert next(iter(service.tables.values())).game == "tausend"


@pytest.mark.parametrize(
    ("lang", "heading", "playing"),
    [("en", "Choosing a game:", "show the table"), ("de", "Spiel wählen:", "Tisch und Karten")],
)
async def test_help_at_the_game_menu_is_about_choosing_a_game(
    service: TableService, lang: str, heading: str, playing: str
) -> None:
    screens: list[str] = []

    def answer(screen: str) -> str:
        screens.append(screen)
        return "h" if len(screens) == 1 else "q"

    term = Terminal(answer)
    me = UserRef("local", "me", "Anna", lang)
    table = LocalTable(service, asyncio.Event(), readline=term.next_line, out=term, user=me)
    await asyncio.wait_for(table.run(), 5)
    menu_help = screens[1]  # what `h` printed
    assert heading in menu_help
    assert playing not in menu_help  # not the help for playing cards
    default = "1 " + game_name("zweier", lang)
    assert default in menu_help  # Enter: the default game
    commands = ("r ", "h ", "q ") if lang == "en" else ("r, regeln", "h, hilfe", "q, ende")
    for key in ("Enter", *(f"\n  {c}" for c in commands)):
        assert key in menu_help
    assert len(menu_help.strip().splitlines()) > 5


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_game_menu_help_fits_80_columns(lang: str) -> None:
    for n, gid in enumerate(available(), 1):
        text = say(lang, "menu_help", default=f"{n} {game_name(gid, lang)}")
        assert max(columns(line) for line in text.splitlines()) <= 80, text


# --- typing a card or a bid ------------------------------------------------------------

#: Thousand dealt with this seed (dealer Computer 1): Computer 2 opens with 100, then
#: Tester bids holding A♥ K♥ Q♥ K♦ Q♦ A♠ 10♠ — marriages, so the bids go up to 400,
#: on three pages of 24; the computers hold none and cannot bid above 120.
MARRIAGES = hashlib.sha256(b"k469").hexdigest()[:32]
#: As above, but Tester holds Q♥ 10♦ K♦ 10♣ J♣ A♠ 10♠: no marriage, no bid above 120.
NO_MARRIAGE = hashlib.sha256(b"k1").hexdigest()[:32]
#: Schnapsen dealt with this seed: the terminal's player deals and holds Q♦ J♦ A♣ 10♣ J♠.
SCHNAPSEN = hashlib.sha256(b"z5").hexdigest()[:32]

_CHOICE = re.compile(r"(\d+)\) (.+?)(?=\s+\d+\) |\s*$)", re.M)
_SUIT_LETTER = dict(zip("♠♥♦♣", "shdc", strict=True))
ALL_CARDS = [card_label(c) for c in CARDS]


def choices(screen: str) -> dict[str, int]:
    """The choices printed last on `screen`, by label, with their numbers."""
    heading = max(screen.rfind("Your choices:"), screen.rfind("Deine Möglichkeiten:"))
    if heading < 0:
        return {}
    listed = screen[heading:].partition("\n")[2].partition(PROMPT)[0]
    return {label: int(n) for n, label in _CHOICE.findall(listed)}


def hand(screen: str) -> list[str]:
    """The cards of the hand printed on `screen`."""
    line = re.findall(r"^(?:Hand|Karten): (.*)$", screen, re.M)
    return line[-1].split() if line else []


def plain_cards(screen: str) -> list[str]:
    """The cards among the choices that are one choice each (no marriage to say)."""
    labels = list(choices(screen))
    return [
        c
        for c in labels
        if re.fullmatch(r"(?:10|[AKQJ9DB])[♠♥♦♣]", c)
        and not any(other.startswith(f"{c} ") for other in labels)
    ]


def letters(label: str) -> str:
    """A card as typed with letters: ``K♥`` → ``kh``."""
    return (label[:-1] + _SUIT_LETTER[label[-1]]).lower()


@pytest.mark.parametrize(("bid", "final"), [(385, 390), (125, 395)])
async def test_a_bid_is_typed_as_its_value_on_any_page(db: Path, bid: int, final: int) -> None:
    """Thousand's bids come in pages of 24 ("More…"): typing a value bids it, whatever
    page holds it — in the bidding (385 is on the third page) and in the final bid
    after the stock (from 125, 395 is on the third)."""
    async with running_service(db, MARRIAGES) as service:
        # the gifts: a card, to whom, then the second card (to the one left)
        term = await play(service, script("tausend", str(bid), "1", "1", "1", str(final), "q"))
    out = term.text
    assert "Hand: A♥ K♥ Q♥ K♦ Q♦ A♠ 10♠" in out
    assert "24) Bid 215   25) More…" in out  # the bidding's first page ends at 215
    assert f"Bids: Computer 2: 100 · Tester: {bid} · " in out
    assert f"Contract: Bid {final} (raised from {bid}) by Tester" in out
    assert "There is no choice" not in out and "✗" not in out


async def test_a_value_that_is_no_bid_now_is_refused_with_the_bids_allowed(
    tmp_path: Path,
) -> None:
    """A value off the steps of 5, or above what the hand allows, is refused with the
    range of bids (or the one bid left); a number typed where no value is a choice
    keeps the old refusal."""
    async with running_service(tmp_path / "a.sqlite3", MARRIAGES) as service:
        out = (await play(service, script("tausend", "123", "405", "400", "250", "q"))).text
    for n in (123, 405):
        assert (
            f"There is no choice {n} and no bid {n}: type a number from 1 to 25, "
            "or a bid from 105 to 400 in steps of 5." in out
        )
    assert "Tester: 400" in out
    # giving a card: the choices are cards, a number is only a choice's
    assert "There is no choice 250: type a number from 1 to 10." in out
    async with running_service(tmp_path / "b.sqlite3", NO_MARRIAGE) as service:
        out = (await play(service, script("tausend", "125", "q"))).text
    assert "Hand: Q♥ 10♦ K♦ 10♣ J♣ A♠ 10♠" in out
    assert (
        "There is no choice 125 and no bid 125: type a number from 1 to 5, "
        "or a bid from 105 to 120 in steps of 5." in out
    )
    # won at 120, which his hand cannot top: the final bid has one value, said so
    async with running_service(tmp_path / "c.sqlite3", NO_MARRIAGE) as service:
        out = (await play(service, script("tausend", "120", "1", "1", "1", "125", "q"))).text
    assert "Final bid — Tester to state it" in out
    assert "There is no choice 125 and no bid 125: type 1, or the bid 120." in out


async def test_cards_are_played_by_name(service: TableService) -> None:
    """A card of the choices answers to its rank and suit letters, in either case, and
    to the card as printed."""
    forms: list[Callable[[str], str]] = [letters, lambda c: letters(c).upper(), lambda c: c]
    typed: list[tuple[int, str, str]] = []  # (answer number, typed, card)
    answers = 0

    def answer(screen: str) -> str:
        nonlocal answers
        answers += 1
        if "Choose a game" in screen:
            return "zweier"
        cards = plain_cards(screen)
        if len(typed) == 6 or "Match over" in screen:
            return "q"
        if not cards:
            return "1"
        text = forms[len(typed) % len(forms)](cards[-1])
        typed.append((answers, text, cards[-1]))
        return text

    out = (await play(service, answer)).text
    after = out.split(PROMPT)  # after[n]: what answer n brought
    assert len(typed) == 6, out
    for n, text, card in typed:
        assert f"Tester {card}" in after[n], (text, after[n])
    kinds = {"printed" if t[-1] in _SUIT_LETTER else t.isupper() for _, t, _ in typed}
    assert kinds == {"printed", True, False}
    assert "Unknown command" not in out and "✗" not in out


async def test_german_card_letters_are_taken(db: Path) -> None:
    """A German table prints Dame and Bube as D and B: "dd" plays D♦, "bs" B♠."""
    typed: list[tuple[int, str, str]] = []
    answers = 0

    def answer(screen: str) -> str:
        nonlocal answers
        answers += 1
        if "Spiel wählen" in screen:
            return "zweier"
        german = [c for c in plain_cards(screen) if c[0] in "DB"]
        if len(typed) == 2 or answers > 60 or "Partie vorbei. Enter" in screen:
            return "q"
        if not german:
            return "1"
        typed.append((answers, letters(german[0]), german[0]))
        return letters(german[0])

    de = UserRef("local", "me", "Anna", "de")
    async with running_service(db, SCHNAPSEN) as service:
        term = Terminal(answer)
        table = LocalTable(service, asyncio.Event(), readline=term.next_line, out=term, user=de)
        await asyncio.wait_for(table.run(), 60)
    out = term.text
    assert "Karten: D♦ B♦ A♣ 10♣ B♠" in out
    after = out.split(PROMPT)
    assert typed, out
    for n, text, card in typed:
        assert f"Anna {card}" in after[n], (text, after[n])
    assert "Unbekannter Befehl" not in out and "✗" not in out


async def test_a_card_that_is_several_choices_asks_which(db: Path) -> None:
    """Giving a card in Thousand: the card picks what to give, then the player is
    asked to whom; the card again does not say to whom, another card of his picks
    that one instead."""
    async with running_service(db, MARRIAGES) as service:
        out = (
            await play(service, script("tausend", "125", "as", "as", "10s", "2", "as", "q"))
        ).text
    assert "1) Give A♥…" in out and "10) Give Q♠…" in out
    assert "Who gets A♠?" in out and "Who gets 10♠?" in out
    assert (
        "A♠ is more than one choice: 1) Give A♠ to Computer 1 · "
        "2) Give A♠ to Computer 2. Type the number of one." in out
    )
    # the second card goes to the one opponent left: its name is enough
    assert "Computer 2 holds: 10♠" in out and "Computer 1 holds: A♠" in out


async def test_a_card_that_cannot_be_played_now_is_refused(db: Path) -> None:
    """Following suit in Thousand: a card of the hand that may not be played now, and a
    card not in the hand, are refused as such; then a card of the choices is played."""
    cards: dict[str, str] = {}

    def answer(screen: str) -> str:
        if "Choose a game" in screen:
            return "tausend"
        if "Bidding — Tester to bid" in screen:
            return "1"  # pass: a computer declares and leads, Tester follows suit
        allowed = plain_cards(screen)
        if allowed and not cards:
            held = hand(screen)
            cards["not_now"] = next(c for c in held if c not in allowed)
            cards["not_held"] = next(c for c in ALL_CARDS if c not in held)
            cards["played"] = allowed[0]
            return letters(cards["not_now"])
        if "cannot be played now" in screen:
            return letters(cards["not_held"])
        if "is not in your hand" in screen:
            return letters(cards["played"])
        return "q" if cards else "1"

    async with running_service(db, NO_MARRIAGE) as service:
        out = (await play(service, answer)).text
    # the rule that keeps it, not merely that it is no choice
    assert f"{cards['not_now']} cannot be played now: you must " in out
    assert f"{cards['not_held']} is not in your hand." in out
    assert f"Tester {cards['played']}" in out.rpartition("is not in your hand.")[2]


@pytest.mark.parametrize(
    ("typed", "lang", "suits", "card"),
    [
        ("as", "en", "french", "AS"),
        ("AS", "en", "french", "AS"),
        ("10h", "en", "french", "TH"),
        ("th", "en", "french", "TH"),
        ("qc", "en", "french", "QC"),
        ("Q♣", "en", "french", "QC"),
        ("k♥\ufe0f", "en", "french", "KH"),  # ♥ as some keyboards send it
        ("9d", "en", "french", "9D"),
        ("jd", "de", "french", "JD"),
        ("dd", "de", "french", "QD"),  # Dame of diamonds (Karo)
        ("bs", "de", "french", "JS"),
        ("D♥", "de", "french", "QH"),
        ("🍃ober", "de", "german", "QS"),
        ("❤König", "de", "german", "KH"),
        ("❤King", "en", "german", "KH"),
        # a suit's symbol after a rank letter, though the table prints the card
        # otherwise ("10♠", or with German suits)
        ("t♠", "en", "french", "TS"),
        ("k♥", "en", "german", "KH"),
        ("a♦", "en", "german", "AD"),
        ("j♣", "en", "german", "JC"),
    ],
)
def test_a_card_typed_by_name(typed: str, lang: str, suits: str, card: str) -> None:
    assert parse_card(typed, lang, suits) == Card.from_id(card)


@pytest.mark.parametrize(
    "typed",
    [
        "s",
        "r",
        "h",
        "q",
        "?",
        "show",
        "rules",
        "help",
        "quit",
        "exit",
        "n",
        "new",
        "",
        "hello",
        "10",
        "1",
        "a",
        "d",
        "kx",
    ],
)
def test_no_command_reads_as_a_card(typed: str) -> None:
    """The terminal's commands (and the resume prompt's n) never name a card."""
    for lang in ("en", "de"):
        assert parse_card(typed, lang, "french") is None


async def test_cards_to_discard_are_picked_by_name(service: TableService) -> None:
    """Dreierschnapsen's declarer discards two cards, picked one at a time: typing a
    card picks it, the second too; one picked already is no choice any more."""
    picked: list[str] = []
    offered: list[str] = []
    retyped = False

    def answer(screen: str) -> str:
        nonlocal retyped
        if "Choose a game" in screen:
            return "dreier"
        if "Match over" in screen:
            return ""
        if "Discard " in screen and "…" in screen:
            offered[:] = [c.removeprefix("Discard ").removesuffix("…") for c in choices(screen)]
            if len(picked) == 1 and not retyped:
                retyped = True
                return letters(picked[0])  # the first card again, before the second
        if offered and len(picked) < 2 and ("…" in screen or "pick another card" in screen):
            picked.append(offered[0])
            return letters(picked[-1])
        if len(picked) == 2 and "Pick again" in screen:
            return letters(picked[0])  # picked: no choice any more
        if "Bidding — Tester to bid" in screen:  # the cheapest bid: a game with the talon
            return "2" if "2) " in screen else "1"
        return "q" if len(picked) == 2 else "1"

    out = (await play(service, answer, timeout=60)).text
    first, second = picked
    assert f"Pick the next card to discard (so far: {first})." in out
    # "or raise" where the two cards kept allow a raise, else the discard alone
    either = "|".join(re.escape(f"Discard {a} {b}") for a, b in ((first, second), (second, first)))
    assert re.search(rf"(?:{either})(?:: keep the contract or raise\.|\?)\n", out)
    # one is picked: another card is asked for
    assert f"{first} is picked already: pick another card, or type the number" in out
    # both are picked: the discard is confirmed by number, no card is left to pick
    assert f"{first} is picked already, and so are the others: type the number of a choice." in out


class AwayTerminal(Terminal):
    """A player who picks a game and then types nothing (he walked away) until the
    table has something to say about it; then q."""

    def write(self, s: str) -> int:
        n = io.StringIO.write(self, s)
        if s == PROMPT:
            screen = self.getvalue()[self.since :]
            self.since = len(self.getvalue())
            if "Choose a game" in screen:
                self.lines.put_nowait("zweier")
            elif "Enter: the same game again" in screen:
                self.lines.put_nowait("q")
        return n


async def test_a_player_whose_turns_ran_out_is_told_why_the_table_closed(db: Path) -> None:
    """Alone at the table, his turns run out and the computer takes his seat: the
    table closes at once, so he is told why, not offered a "Take my seat back" that
    no longer exists, nor "Match over" for a match nobody finished."""
    timings = Timings(turn_timeout=0.2, reminder_before=0.1, missed_turns_limit=2, ai_delay=0.0)
    async with running_service(db, timings=timings) as service:
        term = AwayTerminal(script())
        table = LocalTable(service, asyncio.Event(), readline=term.next_line, out=term, user=USER)
        await asyncio.wait_for(table.run(), 30)
        said = " ".join(term.text.split())
        assert "The table was closed: every player walked away" in said
        assert "No result: the match was not played out." in said
        assert "Take my seat back" not in said and "Match over" not in said
        [row] = await service.store.fetchall("SELECT status FROM tables")
        assert row[0] == "aborted"


async def test_a_match_played_out_after_a_closed_one_is_over_not_closed(
    service: TableService,
) -> None:
    """His table is closed mid-match (as by /abort in a chat); "menu" there opens
    the game menu, he opens the game again and plays it out: its end says "Match
    over", not the "No result" of the closed one."""
    closed = False
    menus = 0

    def answer(screen: str) -> str:
        nonlocal closed, menus
        if "Choose a game" in screen:
            menus += 1
            return "zweier"
        if "Match over" in screen or "No result" in screen:
            return "menu" if menus == 1 else "q"
        if not closed:
            closed = True
            return "close"  # at his first choice: the table is closed (below)
        return "1"

    term = Terminal(answer)

    async def readline() -> str | None:
        line = await term.next_line()
        if line == "close":
            assert (await service.abort(CHAT, USER)).ok
            return "s"
        return line

    table = LocalTable(service, asyncio.Event(), readline=readline, out=term, user=USER)
    await asyncio.wait_for(table.run(), 60)
    closed_said, _, after = term.text.partition("No result: the match was not played out.")
    assert closed_said and "Game over!" in after
    assert "No result" not in after and "Match over. Enter: the same game again" in after


async def test_ctrl_d_at_the_first_menu_of_a_terminal_says_bye(service: TableService) -> None:
    """Ctrl-D on a keyboard ends the input too: "Bye.", not "no keyboard input"."""
    term = Terminal(script(None))
    table = LocalTable(
        service, asyncio.Event(), readline=term.next_line, out=term, user=USER, keyboard=True
    )
    await asyncio.wait_for(table.run(), 30)
    assert term.text.rstrip().endswith("Bye.")
    assert "stdin is closed" not in term.text


async def test_a_script_piped_in_plays_each_line_when_its_turn_comes(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Input from a pipe or a file is there at once, read while the computers still
    move: each choice waits for the player's turn instead of being refused ("wait
    for ...") and lost, so a script of moves plays them all, in turn.

    The deals and the computer's choices are fixed: with random ones, about one match
    in 3,000 was over (three quick deals of 3 game points) before the 12 lines."""
    timings = dataclasses.replace(LOCAL_TIMINGS, ai_delay=0.05)
    lines: list[str | None] = ["zweier", *["1"] * 12, "q"]
    monkeypatch.setattr("bot.service.choose_action", lambda level, view, legal, seed: legal[0])

    async def readline() -> str | None:
        return lines.pop(0) if lines else None

    out = io.StringIO()
    async with running_service(db, seed="5eed" * 8, timings=timings) as service:
        table = LocalTable(service, asyncio.Event(), readline=readline, out=out, user=USER)
        await asyncio.wait_for(table.run(), 30)
        [table_id] = service.tables
        log = await service.store.table_log(table_id)
    text = out.getvalue()
    assert "Nothing to choose now" not in text
    assert sum(1 for e in log if e["k"] == "act" and e.get("by") == "p") == 12
    assert text.rstrip().endswith("Bye — your game is kept; run the bot again to continue it.")


@pytest.mark.parametrize(("game", "seed"), [("zweier", None), ("tausend", MARRIAGES)])
async def test_a_turn_the_computer_played_for_him_says_so(
    db: Path, game: str, seed: str | None
) -> None:
    """His time ran out: the card appears under his name, and a line says the
    computer played it, and how many more turns he may miss.  That news comes while
    his prompt waits: below it, the table's lines right after (no blank line); and
    once: not again with each computer's move after it (Thousand's bids)."""
    # his turns are long and the test runs out the first one at once: with 1 s turns
    # and his "q" 1.5 s in, a stall of 1.5 s more made three missed turns and the
    # table closed under the test
    quick = Timings(turn_timeout=30.0, reminder_before=0.0, missed_turns_limit=3, ai_delay=0)
    async with running_service(db, seed, timings=quick) as service:

        async def time_runs_out(k: int) -> None:
            if k == 1:  # before his "q"
                await _run_out_his_turn(service)
                # the computers' moves after his reach the screen (his turn again)
                await until_idle(lambda: busy(service), lambda: "the computers did not move")

        term = await _play_slowly(service, [game, "q"], [0.0, 0.0], time_runs_out)
        table = next(iter(service.tables.values()))
        seat = table.seat_of(USER.key)
        s = table.seats[seat] if seat is not None else None
        assert s is not None and s.missed == 1
        said = " ".join(term.text.split())
        # the note once; a hand drawn while the computer still plays his turn (it
        # exchanged the trump Jack or closed the talon first, a random deal here)
        # says "Your time ran out: the computer is finishing this turn", which is
        # not the note again
        assert said.count("Your time ran out: the computer played for you") == 1
        # the table's news follows the note at once, no blank line between: the
        # whole news when he led, the trick's end and his next hand when he followed
        # (when the computer exchanged the trump Jack or closed the talon for him, it
        # played his card too: one turn, one note; also so with a computer forced
        # to exchange or close, tried by hand)
        assert re.search(rf"{PROMPT}\nYour time ran out[^\n]*\n[^\n]", term.text), term.text
        assert (
            "Your time ran out: the computer played for you (1 of 3 turns missed; "
            "at 3 the table closes)." in said
        )


async def _run_out_his_turn(service: TableService) -> None:
    """Once it is his turn at his table, his time runs out now, as when the turn's
    timer ends (the timer's own callback, fired early), and the computer plays for
    him; back when what that printed is on his screen."""
    loop = asyncio.get_running_loop()
    end = loop.time() + 20
    while True:
        assert loop.time() < end, "his turn never came"
        table = next(iter(service.tables.values()), None)
        seat = None if table is None else table.seat_of(USER.key)
        if table is not None and table.deadline is not None and table.to_act() == seat:
            break
        await asyncio.sleep(0.01)
    assert seat is not None
    missed = table.seats[seat].missed  # type: ignore[union-attr]
    service._fire(table.id, table.version, "timeout")
    while table.seats[seat].missed == missed:  # type: ignore[union-attr]
        assert loop.time() < end, "the computer did not play for him"
        await asyncio.sleep(0.01)
    async with service.lock(table.id):  # what the move printed is printed
        pass


async def test_lines_piped_beyond_the_match_end_are_not_read_as_moves(
    service: TableService,
) -> None:
    """A script pipes more choices than the match takes: the end of the match is
    said once it comes, the leftover lines do not make it say the game is kept (it
    is over), and nothing is said per leftover line."""
    lines: list[str | None] = ["zweier", *["1"] * 1500, None]

    async def piped() -> str | None:
        await asyncio.sleep(0)
        return lines.pop(0) if lines else None

    term = Terminal(script())
    local = LocalTable(service, asyncio.Event(), readline=piped, out=term, user=USER)
    await asyncio.wait_for(local.run(), 120)
    assert "Game over!" in term.text and "Match over. Enter: the same game again" in term.text
    assert "your game is kept" not in term.text
    assert term.text.count("Type Enter to play the same game again") == 1
    assert "Nothing to choose" not in term.text  # no line pressed after the end
    # the match's prompt and the one after the complaint: not one per line
    assert term.text.partition("Match over.")[2].count(PROMPT) == 2
    assert term.text.rstrip().endswith("Bye.")


async def test_a_game_is_opened_with_a_preset_or_options_typed_after_it(
    service: TableService,
) -> None:
    """`tausend players=4` plays Thousand for four, as `/new` would in a chat; a
    misspelt option shows why and the menu again, not the end of the program."""
    term = await play(service, script("tausend players=9", "thousand players=4", "q"))
    assert "Could not open the table: Bad rule options:" in term.text
    [table] = service.tables.values()
    assert table.game == "tausend" and table.players == 4


@pytest.mark.parametrize(
    "typed", ["zweier foo", "zweier standard standard", "zweier auto_claim=on=off"]
)
async def test_rules_refused_at_the_menu_show_the_games_again(
    service: TableService, typed: str
) -> None:
    """Two presets after a game's name are refused as a misspelt one is, and so is
    an option's value with an "=" in it: with why, and the list of games again to
    choose from (it once only prompted again)."""
    term = await play(service, script(typed, "dreier", "q"))
    after = term.text.partition("Could not open the table:")[2]
    assert "Games (type a number or a name):" in after, term.text
    assert "Choose a game" in after
    [table] = service.tables.values()
    assert table.game == "dreier"


async def test_resign_asks_then_ends_the_match(service: TableService) -> None:
    term = await play(service, script("zweier", "resign", "n", "aufgeben", "y", "q"))
    assert term.text.count("Resign this match? It counts as lost.") == 2
    assert "You play on." in term.text
    assert "Match over." in term.text and "Tester resigned." in term.text
    assert "✗" not in term.text  # the resignation is taken, no refusal said
    assert service.tables == {}


async def test_a_choice_is_typed_by_its_words_and_pages_of_bids_start_with_pass(
    db: Path,
) -> None:
    """Thousand's second page of bids starts with Pass, as the first does (a habit of
    typing 1 must not bid 220); and "pass", typed as the choice reads, passes."""
    async with running_service(db, MARRIAGES) as service:
        out = (await play(service, script("tausend", "25", "pass", "q"))).text
    assert re.search(r"1\) Pass +2\) Bid 220", out), out
    assert "Bids: Computer 2: 100 · Tester: Pass" in out


async def test_the_next_game_offered_is_the_one_resumed_or_abandoned(db: Path) -> None:
    """After a resumed or an abandoned Dreier game, Enter at the menu offers Dreier,
    not the first game of the list."""
    async with running_service(db) as service:
        await play(service, script("dreier", "q"))
        term = await play(service, script("n", "q"))
    offered = f"Enter: {available().index('dreier') + 1} {game_name('dreier', 'en')}"
    assert offered in term.text.partition("The unfinished game is closed.")[2], term.text


# --- what the first minute at the terminal showed ----------------------------------------

LABELS = [
    "Normal game (1–3)",
    "Normal game, no talon (2–4)",
    "Plauderer (7)",
    "Plauderer, no talon (8)",
    "Gang (9)",
    "Trumps: ♥ Hearts",
    "Trumps: ♦ Diamonds",
]


@pytest.mark.parametrize(
    ("typed", "fits"),
    [
        ("Normal game (1–3)", [0]),  # the whole label
        ("normal game", [0]),  # its name: before the longer name it begins
        ("GANG", [4]),
        ("plauderer", [2]),
        ("plauderer no", [3]),  # the first words of a name
        ("hearts", []),  # never words inside a name: "the" would close the talon
        ("the", []),
        ("no talon", []),
        ("normal", [0, 1]),  # several: he is asked which
        ("trumps", [5, 6]),
        ("ich", []),  # one short word is no name's start ("Ich hab 66 (Aus!)")
        ("gan", []),  # words, not letters
        ("nonsense", []),
        ("", []),
    ],
)
def test_a_choice_is_found_by_the_words_a_player_says(typed: str, fits: list[int]) -> None:
    assert named(typed, LABELS) == fits


@pytest.mark.parametrize("typed", ["ich", "hab", "66", "aus", "the", "talon", "trump", "jack"])
def test_a_filler_word_presses_nothing(typed: str) -> None:
    """Words found inside labels once pressed them: "the" closed the talon, "ich" the
    German claim, which loses the deal when wrong."""
    labels = ["Ich hab 66 (Aus!)", "Close the talon", "Exchange the trump jack", "K♥"]
    assert named(typed, labels) == []


async def test_a_contract_is_bid_by_its_name(service: TableService) -> None:
    """A Dreier contract's label ends in its points ("Gang (9)"): its name alone bids
    it."""
    wanted: str | None = None

    def answer(screen: str) -> str:
        nonlocal wanted
        if "Choose a game" in screen:
            return "dreier all_contracts"
        if wanted is not None:
            return "q"
        if "Match over" in screen:  # a computer's contract ended the match first: another
            return "m"
        if "Bidding — Tester to bid" in screen and "Your choices:" in screen:
            listed = re.findall(r"\d+\) ((?:\S+ )*?\S+) \(\d+(?:–\d+)?\)", screen)
            if not listed:  # bid over the highest contract: only Pass is left
                return "1"
            wanted = listed[-1]  # the last: a name other names do not begin
            return wanted.lower()
        return "1"

    out = (await play(service, answer)).text
    assert wanted is not None, out
    assert f"Tester: {wanted}" in out, out


async def test_words_that_begin_several_choices_ask_which_and_press_none(
    service: TableService,
) -> None:
    """ "trumps" begins every suit the declarer may choose: the terminal lists those
    choices with their numbers and asks again, and no trump is chosen for him."""
    listed: list[str] = []

    def answer(screen: str) -> str:
        if "Choose a game" in screen:
            return "dreier"
        if listed:
            return "q"
        if "Match over" in screen:  # the computers' contracts ended the match first
            return "m"
        choices = re.findall(r"(\d+)\) (Trumps: \S+ \w+)", screen)
        if len(choices) < 2:
            return "1"  # the lowest bid, then any card, until he names the trumps
        listed.extend(f"{n}) {label}" for n, label in choices)
        return "trumps"

    out = (await play(service, answer)).text
    assert listed, out
    asked = f"'trumps' fits more than one choice: {' · '.join(listed)}. Type the number of one"
    _, said, after = out.partition(asked)
    assert said, out
    # asked again, and nothing pressed: no table news before he quits
    bye = "Bye — your game is kept; run the bot again to continue it.\n"
    assert after == f", or more of its words.\n{PROMPT}{bye}"


async def test_ctrl_d_at_the_resign_question_quits_and_keeps_the_match(
    service: TableService,
) -> None:
    term = await play(service, script("zweier", "resign", None))
    assert term.text.rstrip().endswith("Bye — your game is kept; run the bot again to continue it.")
    assert "You play on." not in term.text
    [table] = service.tables.values()
    assert table.status.value == "playing"


async def test_a_game_named_at_the_resume_question_is_the_new_one(db: Path) -> None:
    """The README's `printf 'zweier\\n1\\n1\\n' | make run` leaves a game unfinished:
    run again, its first line is asked whether to continue.  A game's name there
    abandons the old one and opens the new; a number does not (it may be meant for a
    choice of the old game)."""
    async with running_service(db) as service:
        await play(service, script("zweier", "q"))
        [old] = service.tables
        term = await play(service, script("2", "dreier", "q"))
        assert "Type Enter to continue, n (or a game's name) for a new game" in term.text
        rows = dict(await service.store.fetchall("SELECT id, game || ' ' || status FROM tables"))
    assert rows.pop(old) == "zweier aborted"
    assert list(rows.values()) == ["dreier playing"]


@pytest.mark.parametrize(
    ("name", "game"), [("66", "zweier"), ("1000", "tausend"), ("thou", "tausend")]
)
async def test_a_game_named_by_digits_or_its_first_letters_at_the_resume_question_is_new(
    db: Path, name: str, game: str
) -> None:
    """ "66" and "1000" are games' names (the menu takes them), and so are the first
    letters of one ("thou"): at the "continue it?" question they open the new game as
    any other name does, not "type a game's name"."""
    async with running_service(db) as service:
        await play(service, script("zweier", "q"))
        [old] = service.tables
        term = await play(service, script(name, "q"))
        assert "Type Enter to continue" not in term.text
        rows = dict(await service.store.fetchall("SELECT id, game || ' ' || status FROM tables"))
    assert rows.pop(old) == "zweier aborted"
    assert list(rows.values()) == [f"{game} playing"]


async def test_words_after_a_game_named_at_the_resume_question_say_which_is_wrong(
    db: Path,
) -> None:
    """ "zweier standard standard" names a game: what is wrong is the words after
    it, and the answer says which and what may follow, as the menu answers a
    misspelt preset, not "there is no game"."""
    async with running_service(db) as service:
        await play(service, script("zweier", "q"))
        term = await play(
            service, script("zweier standard standard", "zweier standard foo", "dreier", "q")
        )
        [table] = [t for t in service.tables.values() if t.status.value == "playing"]
    said = " ".join(term.text.split())
    assert "There is no game" not in said
    assert (
        "Could not open the table: One preset at a time (you named standard, standard); "
        "other rules go as name=value, e.g. auto_claim=off. Presets: standard, manual_claims."
    ) in said
    assert "Could not open the table: Unknown preset foo. Presets: standard, manual_claims." in said
    assert table.game == "dreier"


async def test_a_bad_rule_after_a_game_named_at_the_resume_question_is_said_once(
    db: Path,
) -> None:
    """ "zweier auto_claim=maybe" at the "continue it?" question names a game, so the
    old one closes; the core refuses the rule, once, and the menu follows, as after
    that line at the menu (not the same refusal again and again)."""
    async with running_service(db) as service:
        await play(service, script("zweier", "q"))
        term = await play(service, script("zweier auto_claim=maybe", "q"))
    said = " ".join(term.text.split())
    refusal = "Could not open the table: Bad rule options: auto_claim is on or off, not maybe"
    assert said.count(refusal) == 1
    assert "Choose a game" in said
    assert said.endswith("Bye.")


async def test_the_table_asked_for_while_a_move_is_stored_comes_with_the_next_move(
    db: Path,
) -> None:
    """ "s" typed in the moment a move is being stored (the table unsaved: nothing to
    draw from yet) printed nothing at all, not even a prompt, found by a random-input
    hunt.  The whole table he asked for now comes with the next move, and once: the
    move after shows only the news and his hand."""
    async with running_service(db, seed="5eed" * 8) as service:
        n = 0
        marks: list[int] = []

        async def saved_then_moved(tid: str) -> None:
            while local._lines_read < 2:  # "s" read while the table is unsaved
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.1)
            service.tables[tid].unsaved = False  # the write went through
            hand = service.hand(tid, USER.key, "en")
            assert hand is not None
            assert (await service.act(USER, hand.message.all_buttons()[0].payload)).ok

        def answer(screen: str) -> str | None:
            nonlocal n
            n += 1
            marks.append(len(term.text))
            if n == 1:
                return "zweier"
            if n == 2:
                [table] = service.tables.values()
                table.unsaved = True  # a move of the computer's being stored
                moves.append(asyncio.get_running_loop().create_task(saved_then_moved(table.id)))
                return "s"
            return "1" if n == 3 else None

        moves: list[asyncio.Task[None]] = []
        term = Terminal(answer)
        local = LocalTable(
            service, asyncio.Event(), readline=term.next_line, out=term, user=USER, keyboard=True
        )
        await asyncio.wait_for(local.run(), 30)
        await moves[0]
        [tid] = service.tables
    after_s, after_next = term.text[marks[1] : marks[2]], term.text[marks[2] :]
    assert f"Schnapsen (2 players) — {tid}" in after_s, after_s
    assert "Your choices:" in after_next, after_next
    assert f"Schnapsen (2 players) — {tid}" not in after_next, after_next


async def test_the_menus_rules_name_each_games_presets(service: TableService) -> None:
    """The menu's help says `r` lists each game's presets: it does."""
    out = (await play(service, script("r", "q"))).text
    assert "Presets: all contracts (all_contracts), Carinthian" in out
    assert "Presets: golden round (golden)" in out


@pytest.mark.parametrize(("lang", "settings"), [("en", "settings"), ("de", "Einstellungen")])
async def test_the_menus_rules_say_how_to_change_an_option_here(
    service: TableService, lang: str, settings: str
) -> None:
    """The terminal has no settings to change the standard options: its rules say
    to type them after the game's name, as its menu takes them, and send nobody
    looking for settings there are none of."""
    user = UserRef("local", "me", "Tester", lang)
    term = Terminal(script("r", "q"))
    table = LocalTable(service, asyncio.Event(), readline=term.next_line, out=term, user=user)
    await asyncio.wait_for(table.run(), 60)
    out = term.text
    assert settings not in out
    example = "dreier name=value" if lang == "en" else "dreier Name=Wert"
    assert re.search(rf"^Optio.*\(.*{example}\):$", out, re.M), out


class ClosedPipe(Terminal):
    """A screen nobody reads after a while (`| head -3`): writes fail then."""

    def __init__(self, answer: Answer, lasts: int) -> None:
        super().__init__(answer)
        self.lasts = lasts

    def write(self, s: str) -> int:
        if len(self.getvalue()) > self.lasts:
            raise BrokenPipeError(32, "Broken pipe")
        return super().write(s)


async def test_output_nobody_reads_ends_the_session_quietly(service: TableService) -> None:
    term = ClosedPipe(script("zweier", then="1"), lasts=1500)
    stop = asyncio.Event()
    table = LocalTable(service, stop, readline=term.next_line, out=term, user=USER)
    await asyncio.wait_for(table.run(), 30)  # no BrokenPipeError out of it
    assert table.output_gone and stop.is_set()
    [kept] = service.tables.values()  # the game is kept, as on Ctrl-C
    assert kept.status.value == "playing"


class LineBuffered(Terminal):
    """A terminal's stdout: text reaches the screen at a newline or a flush, so the
    prompt, which ends no line, is seen (and answered) only once it is flushed."""

    def __init__(self, answer: Answer) -> None:
        super().__init__(answer)
        self.held: list[str] = []

    def write(self, s: str) -> int:
        self.held.append(s)
        if "\n" in s:
            self.flush()
        return len(s)

    def flush(self) -> None:
        held, self.held = self.held, []
        for s in held:
            super().write(s)


async def test_the_prompt_reaches_a_line_buffered_screen(service: TableService) -> None:
    """At a real terminal the "> " waits in the buffer until flushed: unflushed, the
    player sees no prompt and the game menu seems hung."""
    term = LineBuffered(script("zweier", "q"))
    table = LocalTable(service, asyncio.Event(), readline=term.next_line, out=term, user=USER)
    await asyncio.wait_for(table.run(), 20)
    assert term.prompts == 2 and "Your choices:" in term.text


async def test_a_hands_cards_wrap_as_one_run_on_a_narrow_screen(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Eight cards are two rows of buttons in a chat (five a row); at 40 columns
    they wrap as one run, not as 4, 1 and 3."""
    monkeypatch.setenv("COLUMNS", "40")

    def card_runs(seen: str) -> list[list[str]]:
        """The choices shown that are cards only ("  1) A♠    2) 10♠"), line by line."""
        runs = [
            m.group(1).splitlines() for m in re.finditer(r"Your choices:\n(.*?)\n> ", seen, re.S)
        ]
        return [r for r in runs if all(re.fullmatch(r"(?: +\d+\) \S+)+", line) for line in r)]

    answer = Declarer("Tester", lambda seen: len(card_runs(seen)) > 3)
    async with running_service(db, MARRIAGES) as service:
        await play(service, answer)
    blocks = card_runs(answer.seen)
    assert blocks and any(len(re.findall(r"\d+\)", "".join(b))) >= 7 for b in blocks), blocks
    for block in blocks:
        assert all(len(re.findall(r"\d+\)", line)) > 1 for line in block[:-1]), block


async def test_a_choice_that_is_no_card_keeps_a_line_of_its_own(service: TableService) -> None:
    """The cards of a hand run together (however many rows of five a chat needs),
    but "Close the talon" after them stays on a line of its own, as in the chats'
    row of its own, not appended to the cards as a sixth card would be."""
    seen = ""

    def answer(screen: str) -> str:
        nonlocal seen
        seen += screen
        if "Choose a game" in screen:
            return "zweier"
        done = "Close the talon" in seen or "Match over" in screen or len(seen) > 1_000_000
        return "q" if done else "1"

    await play(service, answer)
    block = seen[seen.rfind("Your choices:") :].partition(PROMPT)[0]
    card = r"\d+\) (?:A|10|K|Q|J|9)[♠♥♦♣](?:\s|$)"
    [close] = [line for line in block.splitlines() if "Close the talon" in line]
    assert re.search(card, block) and not re.search(card, close), block


@pytest.mark.parametrize("suits", ["french", "german"])
async def test_his_turn_shows_the_news_and_his_hand_not_the_whole_table(
    db: Path, suits: str
) -> None:
    """Each of his turns used to print the whole table again (20 lines and more, the
    trick just played scrolled away): now the table's news, a card he drew (one he
    did not hold before, named as his hand names it: in German suits, 🌰Ober), and
    his hand; the whole table once a deal, or on `s`; and while the computer moves,
    only the table's news."""
    presses = 0

    def answer(screen: str) -> str:
        nonlocal presses
        presses += 1
        return "zweier" if presses == 1 else ("1" if presses < 14 else "q")

    async with running_service(db, SCHNAPSEN) as service:  # nobody closes the talon
        assert (await service.update_setting(CHAT, USER, "suits", suits, is_admin=True)).ok
        out = (await play(service, answer)).text
    deals = len(re.findall(r"Deal \d+ over", out)) + 1
    assert 1 <= out.count("Deal fingerprint") <= deals, out
    assert out.count("Your choices:") >= 10
    # his hand comes with his choices (and once as a deal starts), not again after
    # each move of the computer's
    assert out.count("Your hand at table") <= out.count("Your choices:") + deals, out
    # the score line, whose "▶" marks the seat to act, is printed with the whole
    # table, not again each time only its marker moved
    assert sum("▶" in line for line in out.splitlines()) <= deals, out
    drawn = list(re.finditer(r"New in your hand: (\S+)\n.*\nHand: ([^\n]+)", out))
    assert drawn, out  # the talon is drawn from after each of the first tricks
    for m in drawn:
        card, hand = m.groups()
        before = re.findall(r"^Hand: ([^\n]+)", out[: m.start()], re.M)[-1]
        assert card in hand.split() and card not in before.split(), (card, before, hand)


async def test_enter_after_a_resumed_match_plays_its_rules_again(db: Path) -> None:
    """Thousand for four, left and resumed: Enter after its match opens Thousand for
    four again, not the standard three (the resumed table's rules were not kept)."""
    async with running_service(db) as service:
        await play(service, script("tausend players=4", "q"))
        matches = 0

        def answer(screen: str) -> str:
            nonlocal matches
            if "is still open" in screen:
                return ""
            if "Resign this match?" in screen:
                return "y"
            if "Match over" in screen:
                matches += 1
                return "" if matches == 1 else "q"
            return "resign"

        await play(service, answer, keyboard=True)
        rows = await service.store.fetchall("SELECT id FROM tables ORDER BY rowid")
        tables = [Table.from_log(tid, await service.store.table_log(tid)) for (tid,) in rows]
    assert [t.players for t in tables] == [4, 4], [t.options_json for t in tables]


async def test_a_scripts_blank_line_after_the_match_opens_no_game(db: Path) -> None:
    """`(echo zweier; yes 1 | head -600; echo) | make run`: the blank line after the
    match is no Enter at a keyboard; it leaves the menu, and nothing unfinished."""
    lines: list[str | None] = ["zweier", *["1"] * 600, "", None]

    async def piped() -> str | None:
        await asyncio.sleep(0)
        return lines.pop(0) if lines else None

    term = Terminal(script())
    async with running_service(db) as service:
        local = LocalTable(service, asyncio.Event(), readline=piped, out=term, user=USER)
        await asyncio.wait_for(local.run(), 120)
        rows = await service.store.fetchall("SELECT status FROM tables")
    assert rows == [("finished",)], term.text
    assert term.text.rstrip().endswith("Bye.")


async def test_a_closed_output_ends_the_session_though_input_keeps_coming(
    service: TableService,
) -> None:
    """`(echo zweier; yes 1) | make run | head -3`: the lines keep coming after nobody
    reads; the session ends at once all the same, not after draining the input."""
    term = ClosedPipe(script(), lasts=1500)
    lines = iter(["zweier"])

    async def endless() -> str | None:
        await asyncio.sleep(0)
        return next(lines, "1")

    stop = asyncio.Event()
    table = LocalTable(service, stop, readline=endless, out=term, user=USER)
    await asyncio.wait_for(table.run(), 30)
    assert table.output_gone


async def test_cards_looked_at_after_a_blind_bid_are_not_news(service: TableService) -> None:
    """With blind bids his cards lie face down until he looks: looking shows his hand,
    not "New in your hand" for all seven of them."""
    looked = False

    def answer(screen: str) -> str:
        nonlocal looked
        if "Choose a game" in screen:
            return "tausend blind"
        if looked:
            return "q"
        if (n := re.search(r"(\d+)\) Look at my cards", screen)) is not None:
            looked = True
            return n.group(1)
        return "1"

    out = (await play(service, answer)).text
    assert looked, out
    assert "New in your hand" not in out


def tie_break_at_once(monkeypatch: pytest.MonkeyPatch, tied: tuple[int, int]) -> None:
    """Dreier matches opened with ``count_down=on`` begin at their tie-break: the
    match seats `tied` (Tester sits in 0) stand at 9 each, the third at 24, so the
    match's one deal is the Schnapsen deal of those two that decides who takes the
    Bummerl (RULES.md §3 "Score").  A match of random computers seldom ends tied;
    every other Dreier match is dealt as usual."""
    init = DreierMatch.__init__

    def tied_at_once(self: DreierMatch, options: DreierOptions, first_dealer: int = 0) -> None:
        init(self, options, first_dealer)
        if options.count_down:
            self.scores = [9 if seat in tied else 24 for seat in range(3)]
            self.tie_break, self.tie_bummerl = tied, 1

    monkeypatch.setattr(DreierMatch, "__init__", tied_at_once)


async def test_a_tie_break_he_sits_out_says_who_plays_and_the_next_match_deals_him_in(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Computer 1 and Computer 2, tied for the Bummerl, play the tie-break; Tester's
    seat has no cards that deal (its hand has no view).  The screen shows the table
    and says he sits it out, as the deal begins and again on "s"; a number he types
    is answered with whom to wait for; he is asked nothing until the match is over,
    and the next match deals him cards and asks for his choice.  (Reading the cards
    of a hand without a view stopped his hand from being shown at all.)"""
    tie_break_at_once(monkeypatch, (1, 2))
    timings = dataclasses.replace(LOCAL_TIMINGS, ai_delay=0.05)
    asked: list[str] = []

    def answer(screen: str) -> str:
        asked.append(screen)
        if len(asked) == 1:
            # typed after the game, while the computers play: no prompt asks for them
            for typed in ("1", "s"):
                asyncio.get_running_loop().call_soon(term.lines.put_nowait, typed)
            return "dreier count_down=on"
        return {2: "m", 3: "dreier"}.get(len(asked), "q")

    term = Terminal(answer)
    async with running_service(db, timings=timings) as service:
        local = LocalTable(
            service, asyncio.Event(), readline=term.next_line, out=term, user=USER, keyboard=True
        )
        await asyncio.wait_for(local.run(), 60)
    tie_break, over, next_match = asked[1], asked[2], asked[3]
    assert "Tie-break: Computer 1 against Computer 2" in tie_break, tie_break
    # his hand, twice: as the deal began and on "s"
    sitting_out = re.findall(
        r"^Your hand at table \w+ — .*\nTie-break: .*\nYou sit out", tie_break, re.M
    )
    assert len(sitting_out) == 2, tie_break
    assert re.search(r"^Nothing to choose now — wait for Computer [12]\.$", tie_break, re.M), (
        tie_break
    )
    assert "Hand:" not in tie_break and "Your choices:" not in tie_break
    assert re.search(
        r"^Tie-break won by Computer [12]: Computer [12] takes the Bummerl\.$", tie_break, re.M
    )
    assert tie_break.endswith(
        "Match over. Enter: the same game again · m: choose another · q: quit\n> "
    )
    assert "Choose a game" in over
    assert "Tie-break" not in next_match and "Your choices:" in next_match, next_match
    assert re.search(r"^Hand: (?:10|[AKQJ])[♠♥♦♣]", next_match, re.M), next_match
