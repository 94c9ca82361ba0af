"""Edges of the turn clocks that mutation testing found no test looking at: how long a
player gets once his platform is back, which timers a held turn keeps, and a
computer's move the table outran while it thought.  The bot's clock is the test's
(`now`); turns are long, so nothing fires on its own meanwhile."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Callable
from typing import Any

import pytest

from bot import commits
from bot import service as bot_service
from bot.ports import TableUpdate, Timings
from bot.table import Table

from .conftest import FAST, WALK
from .fakechat import CHAT, Bot, Player, busy, button, open_table, to_move, users
from .test_board_and_settings import _walked_away
from .test_store_failures import _fail_once


async def _held_past_deadline(bot: Bot, now: list[float]) -> str:
    """A running table whose person's turn ran out while Telegram was out of reach,
    then Telegram is back: the id."""
    a, b = (bot.player(u) for u in users(2))
    tid = await open_table(bot, "zweier", [a, b])
    bot.svc.hold("tg")
    deadline = bot.svc.tables[tid].deadline
    assert deadline is not None
    now[0] = deadline + 5.0
    await bot.svc.listen(bot.fc, "tg")
    return tid


@pytest.mark.parametrize(
    ("turn", "reminder_before", "left"),
    [
        (30.0, 10.0, 10),  # the reminder's time
        (12.0, 10.0, 6),  # a chat's short turn: reminded half-way, so half of it
        (30.0, 0.0, 15),  # reminders off: half a turn, not none or all of it
        (30.0, 1.0, 1),  # a reminder of one second is still a reminder
    ],
)
async def test_a_turn_that_ran_out_while_held_gets_the_reminders_time(
    make_bot: Callable[..., Bot], turn: float, reminder_before: float, left: int
) -> None:
    """The outage is not the player's: back, he has as long as a reminder gives him
    (what the reminder tells him), not a full turn and not an instant time-out.  He is
    reminded at once, unless the bot sends no reminders."""
    now = [1_000_000.0]
    timings = dataclasses.replace(FAST, turn_timeout=turn, reminder_before=reminder_before)
    bot = await make_bot(timings=timings, clock=lambda: now[0]).start()
    try:
        tid = await _held_past_deadline(bot, now)
        assert bot.svc.seconds_left(tid) == left
        row = await bot.db.table_row(tid)
        assert row is not None and row.deadline == pytest.approx(now[0] + left)
        await bot.fc.wait(lambda: not bot.svc._tasks)
        assert bot.fc.kinds(tid).count("reminder") == (1 if reminder_before else 0)
    finally:
        await bot.stop()


async def test_a_held_turn_keeps_no_timer_of_before_the_outage(
    make_bot: Callable[..., Bot],
) -> None:
    """The platform goes early in a turn and comes back: the turn's reminder and
    time-out armed before the outage are stopped, or beside the new ones he would be
    reminded twice (the old timers are of the same version: nothing else drops them)."""
    now = [1_000_000.0]
    bot = await make_bot(clock=lambda: now[0]).start()
    try:
        a, b = (bot.player(u) for u in users(2))
        tid = await open_table(bot, "zweier", [a, b])
        before = list(bot.svc._timers[tid].handles)
        assert len(before) == 2  # the reminder and the time-out
        bot.svc.hold("tg")
        await bot.svc.listen(bot.fc, "tg")
        assert all(h.cancelled() for h in before)
        assert len(bot.svc._timers[tid].handles) == 2
    finally:
        await bot.stop()


async def test_a_restored_turn_without_a_stored_deadline_gets_a_whole_turn(
    make_bot: Callable[..., Bot],
) -> None:
    """A person's turn whose row has no deadline (written by a bot of before the
    deadline column, or by hand) is armed from the restart: a whole turn, reminded
    before its end, not a time-out that plays for him the moment the bot is back."""
    now = [1_000_000.0]
    bot = await make_bot(clock=lambda: now[0]).start()
    a, b = (bot.player(u) for u in users(2))
    tid = await open_table(bot, "zweier", [a, b])
    await bot.db.set_deadline(tid, None)
    await bot.stop()
    bot = await make_bot(clock=lambda: now[0]).start()
    try:
        assert bot.svc.tables[tid].deadline is None
        loop = asyncio.get_running_loop()
        left = sorted(h.when() - loop.time() for h in bot.svc._timers[tid].handles)
        turn, before = FAST.turn_timeout, FAST.reminder_before
        assert left == [
            pytest.approx(turn - before, abs=1.0),  # the reminder
            pytest.approx(turn, abs=1.0),  # the time-out
        ]
    finally:
        await bot.stop()


class _HeldAI:
    """An `ai_runner` that decides at once until `hold` is set, then holds each
    decision until `gate` is: the test changes the table while the computer thinks."""

    def __init__(self) -> None:
        self.hold = False
        self.thinking = asyncio.Event()
        self.gate = asyncio.Event()

    async def __call__(self, choose: Callable[[], int]) -> int:
        if self.hold:
            self.thinking.set()
            await self.gate.wait()
        return choose()


async def _computer_thinking(bot: Bot, held: _HeldAI) -> tuple[str, Player, Player]:
    """A Zweier table Bert walked away from, the computer thinking over his seat's
    turn until the test lets it: the id, Anna, Bert."""
    anna, bert = (bot.player(u) for u in users(2))
    tid = await _walked_away(bot, bert, anna)
    held.hold = True
    loop = asyncio.get_running_loop()
    end = loop.time() + 10
    while not held.thinking.is_set():  # Anna plays until the computer is to move
        assert loop.time() < end, bot.fc.describe()
        await anna.take_turn(tid)
        await asyncio.sleep(0.02)
    assert bot.svc.tables[tid].to_act() == bot.svc.tables[tid].seat_of(bert.key)
    return tid, anna, bert


async def test_a_computer_move_thought_out_before_the_seat_was_taken_back_is_dropped(
    make_bot: Callable[..., Bot],
) -> None:
    """Bert walked away and the computer plays his seat.  While it thinks over his
    turn he takes the seat back: the move it then comes up with is of the table as it
    was, and is dropped.  The turn is his, he plays it himself, and the game goes on
    (played anyway, the computer would move for a person who is back, under his name)."""
    held = _HeldAI()
    bot = await make_bot(timings=WALK, ai_runner=held).start()
    try:
        tid, _, bert = await _computer_thinking(bot, held)
        table = bot.svc.tables[tid]
        seat = table.seat_of(bert.key)
        version = table.version

        assert (await bert.press(button(bot.fc.tables[tid].message, "tb"))).ok
        held.gate.set()
        await bot.fc.wait(lambda: not bot.svc._tasks)  # the computer's move is through

        log = await bot.db.table_log(tid)
        assert log[-1]["k"] == "back"  # and no move of the computer after it
        assert bot.svc.tables.get(tid) is table and table.version == version + 1
        s = table.seats[seat]  # type: ignore[index]
        assert s is not None and s.ai is None and table.to_act() == seat
        out = await bert.take_turn(tid)
        assert out is not None and out.ok, out
        last = (await bot.db.table_log(tid))[-1]
        assert (last["k"], last["seat"], last["by"]) == ("act", seat, "p")  # his own
    finally:
        await bot.stop()


async def test_a_computer_move_thought_out_before_the_match_ended_is_dropped(
    make_bot: Callable[..., Bot],
) -> None:
    """Anna concedes while the computer thinks over Bert's seat: the match is over,
    and the move it then comes up with is not played into the finished match's
    record, nor is the end announced a second time."""
    held = _HeldAI()
    bot = await make_bot(timings=WALK, ai_runner=held).start()
    try:
        tid, anna, _ = await _computer_thinking(bot, held)
        assert (await bot.svc.resign(CHAT, anna.user)).ok
        assert bot.fc.kinds(tid)[-1] == "finished"
        told = len(bot.fc.updates)
        held.gate.set()
        await bot.fc.wait(lambda: not bot.svc._tasks)  # the computer's move is through

        assert bot.fc.updates[told:] == []
        assert (await bot.db.table_log(tid))[-1]["k"] == "resign"
        row = await bot.db.table_row(tid)
        assert row is not None and row.status == "finished"
    finally:
        await bot.stop()


def _errors(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_a_computer_move_that_fails_with_a_bug_is_logged_once_with_its_traceback(
    make_bot: Callable[..., Bot], monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A bug in the computer's turn (outside its choice, which has its own line):
    the operator reads one ERROR line naming the timer and its table, with the
    traceback to find it by; not none (a table that stalls for no visible reason),
    not two."""

    def broken(self: object, table: object, seat: int) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(bot_service.TableService, "_choice", broken)
    caplog.set_level(logging.ERROR)
    bot = await make_bot().start()
    try:
        anna = bot.player(users(1)[0])
        tid = await open_table(bot, "zweier", [anna])
        loop = asyncio.get_running_loop()
        end = loop.time() + 10
        while not _errors(caplog):  # Anna plays until the computer is to move
            assert loop.time() < end, bot.fc.describe()
            await anna.take_turn(tid)
            await asyncio.sleep(0.02)
        await bot.fc.wait(lambda: not bot.svc._tasks)
        [error] = _errors(caplog)
        assert error.getMessage() == f"background task ai:{tid} failed"
        assert error.exc_info is not None and error.exc_info[0] is RuntimeError
    finally:
        await bot.stop()


async def _computer_move_stored_after_a_failure(
    bot: Bot,
    held: _HeldAI,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    error: Exception | None,
    level: int,
) -> tuple[str, Table, Player]:
    """The computer thinks for Bert; the first write of its move fails (with `error`,
    else a locked database) and the next goes in: returns the table's id, the table
    and Bert once the move is stored, with `caplog` at `level` from the failure on."""
    monkeypatch.setattr(commits, "RETRY_AFTER_FAILED_WRITE", 0.01)
    tid, _, bert = await _computer_thinking(bot, held)
    table = bot.svc.tables[tid]
    version = table.version
    assert bot.store is not None
    _fail_once(monkeypatch, bot.store, "append", error=error)
    caplog.set_level(level, logger=None if level == logging.ERROR else "bot.service")
    held.gate.set()
    await bot.fc.wait(lambda: table.version > version and not bot.svc._tasks)
    return tid, table, bert


async def test_a_computer_move_the_database_did_not_take_is_logged_once(
    make_bot: Callable[..., Bot], monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The write of the computer's move for Bert fails (a locked database): one ERROR
    line says so and that the table is read back, not a second one with a traceback
    for the timer it failed in; the move is made once the database takes it."""
    bot = await make_bot(timings=WALK, ai_runner=(held := _HeldAI())).start()
    try:
        tid, table, bert = await _computer_move_stored_after_a_failure(
            bot, held, monkeypatch, caplog, None, logging.ERROR
        )
        assert [r.getMessage() for r in _errors(caplog)] == [
            f"could not store a change of table {tid} (cannot write to the database: "
            "database is locked); reloading it"
        ]
        log = await bot.db.table_log(tid)
        assert log[-1]["seat"] == table.seat_of(bert.key) and log[-1]["by"] == "ai"
    finally:
        await bot.stop()


async def test_a_computer_move_whose_write_fails_with_a_bug_is_logged_once(
    make_bot: Callable[..., Bot], monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Storing the computer's move for Bert fails with a bug (not the database): the
    operator reads one ERROR line, the commit's, with the traceback, not a second one
    with the same traceback for the timer it failed in (that one is a DEBUG line); the
    move is made when tried again."""
    bot = await make_bot(timings=WALK, ai_runner=(held := _HeldAI())).start()
    try:
        tid, table, bert = await _computer_move_stored_after_a_failure(
            bot, held, monkeypatch, caplog, RuntimeError("a bug"), logging.DEBUG
        )
        [error] = _errors(caplog)
        assert error.getMessage() == (
            f"could not store a change of table {tid} (RuntimeError); reloading it"
        )
        assert error.exc_info is not None and error.exc_info[0] is RuntimeError
        [timer] = [
            r for r in caplog.records if r.getMessage() == f"background task ai:{tid} failed"
        ]
        assert timer.levelno == logging.DEBUG and timer.exc_info is None  # for who looks closer
        log = await bot.db.table_log(tid)
        assert log[-1]["seat"] == table.seat_of(bert.key) and log[-1]["by"] == "ai"
    finally:
        await bot.stop()


async def test_a_computer_move_cut_off_by_a_stop_logs_no_error(
    make_bot: Callable[..., Bot], caplog: pytest.LogCaptureFixture
) -> None:
    """The bot stops while the computer thinks over Bert's move: its timer's task is
    cancelled, which is no failure: the stop logs no ERROR."""
    held = _HeldAI()
    bot = await make_bot(timings=WALK, ai_runner=held).start()
    await _computer_thinking(bot, held)
    assert bot.svc._tasks  # its timer's task, waiting for the computer
    caplog.set_level(logging.ERROR)
    await bot.stop()
    assert _errors(caplog) == []


async def test_a_reminder_due_as_the_platform_goes_is_sent_once_when_it_is_back(
    make_bot: Callable[..., Bot],
) -> None:
    """Anna's reminder is due the moment Telegram goes out of reach (its timer fired,
    the reminder not yet sent): it is not sent into the outage, and once Telegram is
    back she is reminded once, with the reminder's time to move, not twice."""
    now = [1_000_000.0]
    bot = await make_bot(clock=lambda: now[0]).start()
    try:
        a, b = (bot.player(u) for u in users(2))
        tid = await open_table(bot, "zweier", [a, b])
        table = bot.svc.tables[tid]
        assert table.deadline is not None
        now[0] = table.deadline - FAST.reminder_before + 1.0
        bot.svc.hold("tg")
        bot.svc._fire(tid, table.version, "remind")  # the reminder's timer, as it went
        await bot.fc.wait(lambda: not bot.svc._tasks)
        assert "reminder" not in bot.fc.kinds(tid)

        await bot.svc.listen(bot.fc, "tg")
        await bot.fc.wait(lambda: "reminder" in bot.fc.kinds(tid) and not bot.svc._tasks)
        assert bot.fc.kinds(tid).count("reminder") == 1
        assert bot.svc.seconds_left(tid) == FAST.reminder_before
    finally:
        await bot.stop()


async def test_a_computers_turn_has_no_clock_that_runs_out_over_a_restart(
    make_bot: Callable[..., Bot],
) -> None:
    """Bert walked away; the bot stops while the computer is to move for him, and is
    back an hour later.  That turn was never a person's: Bert is not reminded of it
    (as of a turn that ran out while the bot was down), the computer just moves."""
    now = [1_000_000.0]
    held = _HeldAI()
    bot = await make_bot(timings=WALK, ai_runner=held, clock=lambda: now[0]).start()
    tid, _, _ = await _computer_thinking(bot, held)
    await bot.stop()
    now[0] += 3600.0
    bot = await make_bot(timings=WALK, clock=lambda: now[0]).start()
    try:
        await bot.fc.wait(lambda: not busy(bot.svc))  # the computer moved
        assert "reminder" not in bot.fc.kinds(tid)
        assert "action" in bot.fc.kinds(tid)
    finally:
        await bot.stop()


async def test_no_clock_runs_at_a_closed_table_or_a_computers_turn(
    make_bot: Callable[..., Bot],
) -> None:
    """What a reminder or a turn ping says is left (`seconds_left`, read by the
    adapters as they send it) is 0 when no person's clock runs, not an error: the
    table closed meanwhile, or the computer is to move."""
    held = _HeldAI()
    bot = await make_bot(timings=WALK, ai_runner=held).start()
    try:
        tid, anna, _ = await _computer_thinking(bot, held)
        assert bot.svc.seconds_left(tid) == 0
        assert (await bot.svc.resign(CHAT, anna.user)).ok
        assert tid not in bot.svc.tables
        assert bot.svc.seconds_left(tid) == 0
        held.gate.set()
    finally:
        await bot.stop()


async def test_a_reminder_timer_of_a_turn_already_played_reminds_nobody(
    make_bot: Callable[..., Bot],
) -> None:
    """Anna's reminder timer fires as her move lands: the reminder is of a turn that
    is over.  Nobody is reminded, least of all Bert, whose turn has only begun."""
    bot = await make_bot().start()
    try:
        a, b = (bot.player(u) for u in users(2))
        tid = await open_table(bot, "zweier", [a, b])
        table = bot.svc.tables[tid]
        before, seat = table.version, table.to_act()
        mover = a if table.seat_of(a.key) == seat else b
        assert (await mover.press(mover.a_move(tid))).ok
        assert table.to_act() != seat
        bot.svc._fire(tid, before, "remind")  # the timer of the turn before
        await bot.fc.wait(lambda: not bot.svc._tasks)
        assert "reminder" not in bot.fc.kinds(tid)
    finally:
        await bot.stop()


async def test_a_reminder_armed_before_reminders_were_switched_off_reminds_nobody(
    make_bot: Callable[..., Bot],
) -> None:
    """Anna's reminder was armed while the bot sent reminders; then they were switched
    off (REMINDER_BEFORE=0) before it came due.  Its timer still fires, and sends her
    nothing: no reminders means none, whenever the timer was armed (and whoever fires
    it: the tests' clocks helpers call it directly)."""
    bot = await make_bot(timings=FAST).start()
    try:
        a, b = (bot.player(u) for u in users(2))
        tid = await open_table(bot, "zweier", [a, b])
        table = bot.svc.tables[tid]
        assert len(bot.svc._timers[tid].handles) == 2  # the reminder and the time-out
        bot.svc.timings = dataclasses.replace(FAST, reminder_before=0.0)
        bot.svc._fire(tid, table.version, "remind")  # the reminder's timer, as it comes
        await bot.fc.wait(lambda: not bot.svc._tasks)
        assert "reminder" not in bot.fc.kinds(tid)
        assert table.deadline is not None and bot.svc.seconds_left(tid) > 0  # her turn runs on
    finally:
        await bot.stop()


async def test_an_expired_lobby_stays_closed_after_a_restart(
    make_bot: Callable[..., Bot],
) -> None:
    """Nobody started Anna's lobby in time: it closes, and the chat is told.  That is
    stored, with its reason (the adapters tell the chat "nobody started it in time",
    not that its host closed it): a restart does not bring back a lobby the chat was
    told is gone."""
    bot = await make_bot().start()
    anna = bot.player(users(1)[0])
    tid = await open_table(bot, "zweier", [anna], start=False)
    bot.svc._fire(tid, bot.svc.tables[tid].version, "expire")  # its time is up
    await bot.fc.wait(lambda: "aborted" in bot.fc.kinds(tid))
    await bot.stop()
    bot = await make_bot().start()
    try:
        assert tid not in bot.svc.tables
        row = await bot.db.table_row(tid)
        assert row is not None and row.status == "aborted"
        last = (await bot.db.table_log(tid))[-1]
        assert (last["k"], last.get("reason")) == ("abort", "expired")
    finally:
        await bot.stop()


async def _two_at_a_turn(
    make_bot: Callable[..., Bot], now: list[float], timings: Timings = FAST
) -> tuple[Bot, list[Player], str]:
    """Anna and Bert at a Zweierschnapsen table on the test's clock, one of them to
    act."""
    bot = await make_bot(timings=timings, clock=lambda: now[0]).start()
    players = [bot.player(u) for u in users(2)]
    tid = await open_table(bot, "zweier", players)
    return bot, players, tid


async def _two_at_a_long_turn(
    make_bot: Callable[..., Bot], now: list[float]
) -> tuple[Bot, list[Player], str]:
    """Anna and Bert at a Zweierschnapsen table with ten-minute turns on the test's
    clock, one of them to act."""
    timings = dataclasses.replace(FAST, turn_timeout=600.0, reminder_before=60.0)
    bot, players, tid = await _two_at_a_turn(make_bot, now, timings)
    assert bot.svc.seconds_left(tid) == 600
    return bot, players, tid


async def test_each_turn_gets_its_own_full_time(make_bot: Callable[..., Bot]) -> None:
    """One who moves with a minute to spare does not pass his last minute on: the
    next player's clock starts afresh, not at what was left of his."""
    now = [1_000_000.0]
    bot, players, tid = await _two_at_a_long_turn(make_bot, now)
    try:
        table = bot.svc.tables[tid]
        mover = next(p for p in players if table.seat_of(p.key) == table.to_act())
        now[0] += 540.0
        out = await mover.take_turn(tid)
        assert out is not None and out.ok, out
        to_act = table.to_act()
        assert to_act is not None and to_act != table.seat_of(mover.key)
        assert bot.svc.seconds_left(tid) == 600
    finally:
        await bot.stop()


async def test_a_language_change_gives_the_player_to_act_no_more_time(
    make_bot: Callable[..., Bot],
) -> None:
    """The chat switched to German in the middle of a turn: the table is stored and
    drawn again, but it is the same turn, and its clock runs on where it was."""
    now = [1_000_000.0]
    bot, players, tid = await _two_at_a_long_turn(make_bot, now)
    try:
        now[0] += 100.0
        admin = players[0].user
        assert (await bot.svc.update_setting(CHAT, admin, "language", "de", is_admin=True)).ok
        assert bot.svc.tables[tid].settings["lang"] == "de"
        assert bot.svc.seconds_left(tid) == 500
    finally:
        await bot.stop()


async def test_a_chats_own_turn_timeout_times_its_turns(make_bot: Callable[..., Bot]) -> None:
    """The chat set /settings turn_timeout 10; the bot's turn is 30 s, reminded 10 s
    before its end.  A turn at the chat's tables lasts 10 s and is reminded half-way,
    and one that ran out while Telegram was out of reach gets those 5 s back (half
    of it, with reminders off); a turn restored without a stored deadline is armed for
    10 s too: the chat's timeout, not the bot's, in every clock of the turn."""
    now = [1_000_000.0]
    bot = await make_bot(clock=lambda: now[0]).start()
    loop = asyncio.get_running_loop()

    def timers_left(tid: str) -> list[float]:
        return sorted(h.when() - loop.time() for h in bot.svc._timers[tid].handles)

    try:
        a, b = (bot.player(u) for u in users(2))
        assert (await bot.svc.update_setting(CHAT, a.user, "turn_timeout", "10", is_admin=True)).ok
        tid = await open_table(bot, "zweier", [a, b])
        assert bot.svc.seconds_left(tid) == 10
        assert timers_left(tid) == [pytest.approx(5.0, abs=1.0), pytest.approx(10.0, abs=1.0)]

        bot.svc.hold("tg")
        now[0] += 15.0  # his turn ran out during the outage: 0 s left, not 1 or less
        assert bot.svc.seconds_left(tid) == 0
        await bot.svc.listen(bot.fc, "tg")
        assert bot.svc.seconds_left(tid) == 5
        # with reminders off, half of the chat's turn (not of the bot's 30 s)
        bot.svc.timings = dataclasses.replace(FAST, reminder_before=0.0)
        bot.svc.hold("tg")
        now[0] += 15.0
        await bot.svc.listen(bot.fc, "tg")
        assert bot.svc.seconds_left(tid) == 5
        await bot.db.set_deadline(tid, None)  # a row of a bot from before deadlines
    finally:
        await bot.stop()
    bot = await make_bot(clock=lambda: now[0]).start()
    try:
        assert timers_left(tid) == [pytest.approx(5.0, abs=1.0), pytest.approx(10.0, abs=1.0)]
    finally:
        await bot.stop()


class _Adapter:
    """A platform's listener that registers only as an adapter does: by `listen`."""

    def __init__(self) -> None:
        self.heard: list[tuple[str, str]] = []

    async def table_update(self, update: TableUpdate) -> None:
        self.heard.append((update.table_id, update.kind))


async def test_an_adapter_hears_of_the_tables_once_it_listens(bot: Bot) -> None:
    """An adapter is told of the changes from its `listen` on, and once each, though
    every outage of its platform ends with another `listen`: else its chats would show
    nothing, or every message twice."""
    telegram, discord = _Adapter(), _Adapter()
    await bot.svc.listen(telegram, "tg")
    await bot.svc.listen(discord, "dc")
    await bot.svc.listen(telegram, "tg")  # Telegram was out of reach, and is back
    tid = await open_table(bot, "zweier", [bot.player(users(1)[0])])
    assert (tid, "started") in discord.heard
    assert telegram.heard == discord.heard


# --- a reminder that comes due while nothing can send it --------------------------------


def _reminders(bot: Bot, tid: str) -> list[tuple[str | None, object, object]]:
    """Whom the table's reminders went to, each with what else it carried (nothing:
    no event, no result, so no card of anybody's)."""
    return [
        (u.user, u.events, u.result)
        for u in bot.fc.updates
        if u.kind == "reminder" and u.table_id == tid
    ]


def _reminder_due(bot: Bot, tid: str, now: list[float]) -> float:
    """The test's clock a second past the reminder's time of the turn: its deadline."""
    deadline = bot.svc.tables[tid].deadline
    assert deadline is not None
    now[0] = deadline - FAST.reminder_before + 1.0
    return deadline


async def _switch_language(bot: Bot, tid: str, player: Player) -> None:
    """A change at the table that keeps the turn: it speaks the other language now
    (as a terminal resuming under another locale makes it)."""
    lang = "de" if bot.svc.tables[tid].settings.get("lang") != "de" else "en"
    version = bot.svc.tables[tid].version
    assert (await bot.svc.set_table_language(tid, player.user, lang)).ok
    assert bot.svc.tables[tid].version == version + 1


async def test_a_turn_written_slower_than_its_time_to_the_reminder_is_still_reminded(
    make_bot: Callable[..., Bot], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first turn's deadline (30 s) is taken before the start is written, its
    timers armed after.  The write takes 25 s (a loaded machine, a slow disk): the
    reminder, due 10 s before the end, is past its time when it is armed.  The player
    to act is reminded at once, once, with the 5 s he has left, not left to find his
    turn gone to the computer unannounced."""
    now = [1_000_000.0]
    bot = await make_bot(clock=lambda: now[0]).start()
    try:
        a, b = (bot.player(u) for u in users(2))
        tid = await open_table(bot, "zweier", [a, b], start=False)
        append = bot.db.append

        async def slow(*args: Any, **kw: Any) -> None:
            now[0] += 25.0
            await append(*args, **kw)

        monkeypatch.setattr(bot.db, "append", slow)
        assert (await a.press(button(bot.fc.lobbies[tid].message, "st"))).ok
        table = bot.svc.tables[tid]
        mover = to_move(table, [a, b])
        await bot.fc.wait(lambda: "reminder" in bot.fc.kinds(tid))
        await bot.settle()
        assert _reminders(bot, tid) == [(mover.key, (), None)]
        assert bot.svc.seconds_left(tid) == 5
        assert table.to_act() == table.seat_of(mover.key)  # his turn, still his to play
    finally:
        await bot.stop()


async def test_a_reminder_due_as_a_vote_is_written_still_goes_once(
    make_bot: Callable[..., Bot], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reminder of the player to act comes due while the other one's vote to
    close the table is being written: its timer, of the table before the vote, finds
    a newer table and does nothing, and the timers the vote arms find its time
    passed.  He is still reminded, once, as soon as the vote is in; his turn goes on
    with the deadline it had."""
    now = [1_000_000.0]
    bot, [a, b], tid = await _two_at_a_turn(make_bot, now)
    try:
        table = bot.svc.tables[tid]
        deadline, version = table.deadline, table.version
        mover = to_move(table, [a, b])
        voter = b if mover is a else a
        append = bot.db.append

        async def reminder_due_meanwhile(*args: Any, **kw: Any) -> None:
            _reminder_due(bot, tid, now)
            bot.svc._fire(tid, version, "remind")  # its timer, as it comes
            await append(*args, **kw)

        monkeypatch.setattr(bot.db, "append", reminder_due_meanwhile)
        assert (await bot.svc.abort(CHAT, voter.user)).ok  # /abort: his vote
        monkeypatch.undo()
        assert table.version == version + 1 and table.votes == {voter.key}
        await bot.fc.wait(lambda: "reminder" in bot.fc.kinds(tid))
        await bot.settle()
        assert _reminders(bot, tid) == [(mover.key, (), None)]
        assert table.deadline == deadline and bot.svc.seconds_left(tid) == 9
    finally:
        await bot.stop()


async def test_a_turn_is_reminded_once_however_often_the_table_changes(
    make_bot: Callable[..., Bot],
) -> None:
    """The table changes again and again during a turn (its language switched back
    and forth), before its reminder is due, as it comes due and after: the player to
    act is reminded once.  The next turn, which has a deadline of its own, gets its
    own reminder, once too."""
    now = [1_000_000.0]
    bot, [a, b], tid = await _two_at_a_turn(make_bot, now)
    try:
        table = bot.svc.tables[tid]
        told: list[tuple[str | None, object, object]] = []
        for _ in range(2):
            mover = to_move(table, [a, b])
            for _ in range(3):  # before it is due
                await _switch_language(bot, tid, a)
            await bot.settle()
            assert _reminders(bot, tid) == told
            deadline = _reminder_due(bot, tid, now)
            for _ in range(4):  # due (its timer dropped by the first), then after
                await _switch_language(bot, tid, b)
                now[0] += 1.0
            await bot.fc.wait(lambda: len(_reminders(bot, tid)) > len(told))
            await bot.settle()
            told.append((mover.key, (), None))
            assert _reminders(bot, tid) == told
            assert table.deadline == deadline
            assert (await mover.press(mover.a_move(tid))).ok  # a new turn
            assert table.deadline == now[0] + FAST.turn_timeout
    finally:
        await bot.stop()


async def test_a_change_as_the_turn_runs_out_reminds_nobody(make_bot: Callable[..., Bot]) -> None:
    """The table changes at the very moment the turn runs out, its reminder never
    sent: the computer plays the turn for the player; he is not reminded of it with
    0 s left on top."""
    now = [1_000_000.0]
    bot, [a, _], tid = await _two_at_a_turn(make_bot, now)
    try:
        table = bot.svc.tables[tid]
        assert table.deadline is not None
        now[0] = table.deadline
        await _switch_language(bot, tid, a)
        switched = table.version
        await bot.fc.wait(lambda: table.version > switched)  # the computer's move for him
        await bot.settle()
        assert _reminders(bot, tid) == []
        log = await bot.db.table_log(tid)
        assert [e["by"] for e in log if e["k"] == "act"][:1] == ["t"]  # timed out
    finally:
        await bot.stop()


async def test_a_reminder_is_not_sent_again_when_the_clock_is_set_back(
    make_bot: Callable[..., Bot],
) -> None:
    """The player to act was reminded; then the machine's clock is set back a few
    seconds (a time sync) and the table changes.  By the clock his reminder's time
    is ahead again, but it was sent: nothing but his time-out is armed."""
    now = [1_000_000.0]
    bot, [a, _], tid = await _two_at_a_turn(make_bot, now)
    try:
        _reminder_due(bot, tid, now)
        await _switch_language(bot, tid, a)
        await bot.fc.wait(lambda: "reminder" in bot.fc.kinds(tid))
        now[0] -= 5.0
        await _switch_language(bot, tid, a)
        loop = asyncio.get_running_loop()
        left = [h.when() - loop.time() for h in bot.svc._timers[tid].handles]
        assert left == [pytest.approx(14.0, abs=1.0)]  # the time-out alone
        await bot.settle()
        assert len(_reminders(bot, tid)) == 1
    finally:
        await bot.stop()
