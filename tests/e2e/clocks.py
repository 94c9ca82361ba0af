"""Turn clocks, and the outboxes' pauses before a try again, that a test sets or ends
itself, so that nothing it does must beat a short timer: on a loaded 2-core machine a
click or a press can come a second or more late, and a short turn (or grace) then runs
out under it; a pause it ends itself costs no real seconds."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

from adapters.discord import DiscordAdapter
from adapters.discord.outbox import Op
from bot.service import TableService


def long_turns(service: TableService, table_id: str, turn: float = 30.0) -> None:
    """Turns of `turn` seconds at the table from now on, with the reminder (if there
    are reminders) a third of a turn before the end: the grace `listen` gives after
    an outage (the reminder's time, or half a turn) is that long too.  A clock that
    is running keeps its deadline."""
    old = service.timings
    reminder = turn / 3 if old.reminder_before else 0.0  # reminders stay off where they were
    service.timings = dataclasses.replace(old, turn_timeout=turn, reminder_before=reminder)
    service.tables[table_id].settings["turn_timeout"] = turn  # a table keeps its own


def run_out(service: TableService, table_id: str, key: str) -> bool:
    """If it is the turn of the person `key` at the table, his time runs out now, as
    when his turn's timer ends (the timer's own callback, fired early): the computer
    moves for him and counts the missed turn.  False when it is not his turn."""
    table = service.tables.get(table_id)
    if table is None or table.deadline is None:
        return False
    seat = table.to_act()
    if seat is None or table.seat_of(key) != seat:
        return False
    service._fire(table_id, table.version, "timeout")
    return True


def remind(service: TableService, table_id: str) -> bool:
    """The reminder of the turn at the table goes now, as when its timer ends (the
    timer's own callback, fired early).  False when no person's turn runs there."""
    table = service.tables.get(table_id)
    if table is None or table.deadline is None:
        return False
    service._fire(table_id, table.version, "remind")
    return True


async def reminded(service: TableService, table_id: str) -> bool:
    """As `remind`, but run to its end here: once it returns, the adapters have the
    reminder in their queues (sent, or waiting behind what is ahead of it there).
    False when no person's turn runs at the table."""
    table = service.tables.get(table_id)
    if table is None or table.deadline is None:
        return False
    await service._on_timer(table_id, table.version, "remind")
    return True


async def held(service: TableService, platform: str, timeout: float = 15.0) -> None:
    """Wait until the bot holds the clocks of the platform's persons' turns (its
    outage noticed): from then on no timer of theirs runs out, and a test may put a
    deadline in the past.  Polled: what the bot alone decides wakes no fake."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while platform not in service._held:
        assert loop.time() < end, f"waited {timeout} s for the clocks of {platform} to stop"
        await asyncio.sleep(0.02)


def ticking(service: TableService, table_id: str) -> bool:
    """The table's clock runs: its platform is served (not held in an outage) and a
    timer of its turn is armed."""
    table = service.tables.get(table_id)
    timers = service._timers.get(table_id)
    return (
        table is not None
        and table.platform not in service._held
        and timers is not None
        and any(not h.cancelled() for h in timers.handles)
    )


def end_live(adapter: DiscordAdapter, table_id: str, key: str) -> None:
    """The ephemeral hand of the person `key` stops following the game now, as when
    its timer ends (`live_ttl`, 14 minutes): its last edit says so, then it is left
    alone.  A short `live_ttl` instead would race the interaction's token, which
    outlives it by less than a late answer on a loaded machine."""
    live = adapter._live[(table_id, key)]
    assert live.timer is not None
    live.timer.cancel()
    live.expires = 0.0  # the last edit is due: the token still lasts
    adapter._add(table_id, Op("edit", f"live:{key}"))


async def computer_moves(service: TableService, table_id: str) -> bool:
    """The computer's move at the table goes now, as when its timer ends (the timer's
    own callback, run here to its end: with a long `ai_delay` the test decides when
    the computer plays).  False when no computer is to act there."""
    table = service.tables.get(table_id)
    seat = table.to_act() if table is not None else None
    if table is None or seat is None or (s := table.seats[seat]) is None or s.ai is None:
        return False
    await service._on_timer(table_id, table.version, "ai")
    return True


class HeldPauses:
    """`asyncio` as the outbox's `sending` module sees it, but for its pauses (before
    a try again, a 429's wait): each is noted and lasts until the test ends it, so
    what happens during one is no race, and no test waits out real seconds."""

    def __init__(self) -> None:
        self.seconds: list[float] = []
        self._pausing: asyncio.Queue[asyncio.Event] = asyncio.Queue()

    def __getattr__(self, name: str) -> Any:
        return getattr(asyncio, name)

    async def sleep(self, seconds: float) -> None:
        self.seconds.append(seconds)
        go_on = asyncio.Event()
        self._pausing.put_nowait(go_on)
        await go_on.wait()

    async def paused(self) -> asyncio.Event:
        """Wait for the next pause; setting the event returned ends it."""
        return await asyncio.wait_for(self._pausing.get(), 5)
