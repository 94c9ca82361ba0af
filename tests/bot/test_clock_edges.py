"""Edges of the turn clocks that mutation testing found no test looking at: how long a
player gets once his platform is back, and which timers a held turn keeps.  The bot's
clock is the test's (`now`); turns are long, so nothing fires on its own meanwhile."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable

import pytest

from .conftest import FAST
from .fakechat import Bot, open_table, users


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
    ],
)
async def test_a_turn_that_ran_out_while_held_gets_the_reminders_time(
    make_bot: Callable[..., Bot], turn: float, reminder_before: float, left: int
) -> None:
    """The outage is not the player's: back, he has as long as a reminder gives him
    (what the reminder tells him), not a full turn and not an instant time-out."""
    now = [1_000_000.0]
    timings = dataclasses.replace(FAST, turn_timeout=turn, reminder_before=reminder_before)
    bot = await make_bot(timings=timings, clock=lambda: now[0]).start()
    try:
        tid = await _held_past_deadline(bot, now)
        assert bot.svc.seconds_left(tid) == left
        row = await bot.db.table_row(tid)
        assert row is not None and row.deadline == pytest.approx(now[0] + left)
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
