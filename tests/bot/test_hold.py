"""A platform out of reach (`hold`): its persons' turns wait, the computer plays on,
and `listen` gives the waiting turn the grace of a restart."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable

from bot.service import Timings

from .fakechat import Bot, GatedAI, button, open_table, users

TIMINGS = Timings(
    turn_timeout=0.3, reminder_before=0.2, missed_turns_limit=1, ai_delay=0.0, lobby_expiry=600
)


def _long_turns(bot: Bot, tid: str) -> None:
    """Turns of 30 s at the table from now on, so the grace `listen` gives (the
    reminder's time, or half a turn) is long enough for the test's press on a busy
    machine: the short turns before only show a held turn waiting (with them a 1 s
    stall before the press let the grace run out under it)."""
    old = bot.svc.timings  # a copy: the module's TIMINGS stay short for the next test
    reminder = 10.0 if old.reminder_before else 0.0  # reminders stay off where they were
    bot.svc.timings = dataclasses.replace(old, turn_timeout=30.0, reminder_before=reminder)
    bot.svc.tables[tid].settings["turn_timeout"] = 30.0  # a table keeps the turn it opened with


def _to_act(bot: Bot, tid: str) -> str | None:
    table = bot.svc.tables[tid]
    seat = table.to_act()
    s = table.seats[seat] if seat is not None else None
    return s.user if s is not None else None


async def _acts(bot: Bot, tid: str) -> list[object]:
    """Who made each move: "ai" (a computer seat), "t" (a timeout), "p" (a person)."""
    async with bot.svc.lock(tid):  # a write in flight lands first
        log = await bot.store.table_log(tid)  # type: ignore[union-attr]
    return [e.get("by") for e in log if e["k"] == "act"]


async def test_a_held_persons_turn_waits_and_gets_its_grace(make_bot: Callable[..., Bot]) -> None:
    bot = await make_bot(timings=TIMINGS).start()
    try:
        a, b = (bot.player(u) for u in users(2))
        tid = await open_table(bot, "zweier", [a, b], start=False)
        bot.svc.hold("tg")  # Telegram cannot be reached (from before the first turn on)
        assert (await a.press(button(bot.fc.lobbies[tid].message, "st"))).ok
        waiting = a if _to_act(bot, tid) == a.key else b
        await asyncio.sleep(1.0)  # three turn timeouts, with one miss taking the seat
        assert "reminder" not in bot.fc.kinds(tid)  # it would go nowhere
        assert await _acts(bot, tid) == []
        table = bot.svc.tables[tid]
        assert all(s is not None and s.ai is None for s in table.seats)  # nobody replaced

        _long_turns(bot, tid)
        await bot.svc.listen(bot.fc, "tg")  # reachable again: reminded at once
        await bot.fc.wait(lambda: "reminder" in bot.fc.kinds(tid), timeout=2)
        assert [u.user for u in bot.fc.updates if u.kind == "reminder"] == [waiting.key]
        out = await waiting.take_turn(tid)  # his press counts
        assert out is not None and out.ok, out
        assert await _acts(bot, tid) == ["p"]
    finally:
        await bot.stop()


async def test_without_reminders_a_held_turn_still_gets_time_once_back(
    make_bot: Callable[..., Bot],
) -> None:
    """REMINDER_BEFORE=0 turns reminders off; it must not turn the grace off too,
    or the computer takes the turn the moment the platform is back."""
    quiet = dataclasses.replace(TIMINGS, turn_timeout=1.0, reminder_before=0.0)
    bot = await make_bot(timings=quiet).start()
    try:
        a, b = (bot.player(u) for u in users(2))
        tid = await open_table(bot, "zweier", [a, b], start=False)
        bot.svc.hold("tg")
        assert (await a.press(button(bot.fc.lobbies[tid].message, "st"))).ok
        waiting = a if _to_act(bot, tid) == a.key else b
        await asyncio.sleep(1.3)  # past the turn's deadline
        _long_turns(bot, tid)
        await bot.svc.listen(bot.fc, "tg")
        await asyncio.sleep(0.1)  # he reads his hand (the grace is half a turn, 15 s)
        out = await waiting.take_turn(tid)
        assert out is not None and out.ok, out
        assert await _acts(bot, tid) == ["p"]
        assert "reminder" not in bot.fc.kinds(tid)  # reminders stay off
    finally:
        await bot.stop()


async def test_the_computer_plays_on_while_a_platform_is_held(
    make_bot: Callable[..., Bot],
) -> None:
    bot = await make_bot(timings=TIMINGS).start()
    try:
        person = bot.player(users(1)[0])
        tid = await open_table(bot, "zweier", [person], start=False)
        bot.svc.hold("tg")
        res = await person.press(button(bot.fc.lobbies[tid].message, "st"))
        assert res.ok, res
        while "ai" not in await _acts(bot, tid):  # the person plays whenever it is his turn
            if await person.take_turn(tid) is None:
                n = len(bot.fc.updates)

                def updated(n: int = n) -> bool:
                    return len(bot.fc.updates) != n

                await bot.fc.wait(updated, timeout=2)
        await bot.fc.wait(lambda: _to_act(bot, tid) == person.key, timeout=2)
        await asyncio.sleep(0.6)  # two turn timeouts: the person's turn still waits
        assert "t" not in await _acts(bot, tid)
        assert _to_act(bot, tid) == person.key
    finally:
        await bot.stop()


async def test_a_timeout_already_thinking_when_the_platform_goes_waits(
    make_bot: Callable[..., Bot],
) -> None:
    """The person's time ran out and the computer is choosing for him when the
    platform goes: that choice is not played; his turn waits like the others."""
    gated = GatedAI()
    bot = await make_bot(timings=TIMINGS, ai_runner=gated).start()
    try:
        a, b = (bot.player(u) for u in users(2))
        tid = await open_table(bot, "zweier", [a, b])
        waiting = a if _to_act(bot, tid) == a.key else b
        await asyncio.wait_for(gated.thinking.wait(), 2)  # his timeout fired
        bot.svc.hold("tg")
        gated.gate.set()
        await asyncio.sleep(0.5)
        assert await _acts(bot, tid) == []  # no move made for him
        assert all(s is not None and s.ai is None for s in bot.svc.tables[tid].seats)

        _long_turns(bot, tid)
        await bot.svc.listen(bot.fc, "tg")
        out = await waiting.take_turn(tid)
        assert out is not None and out.ok, out
        assert await _acts(bot, tid) == ["p"]
    finally:
        await bot.stop()
