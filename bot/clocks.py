"""The clocks of the open tables: what happens at a table without a press.

A lobby expires, a computer moves, a person is reminded of his turn and, when it runs
out, the computer plays it for him (and keeps his seat after too many missed turns).
Timers are keyed to the table's version, so every change re-arms them and a timer of
an older version does nothing; the turn reminded is remembered, so a re-arm neither
repeats its reminder nor drops one that came due meanwhile.  While a platform is out
of reach (`hold`) its persons' turns wait for `listen`, which gives back the time the
outage took.
"""

from __future__ import annotations

import asyncio
import logging
import random
from dataclasses import dataclass, field

from .ports import Listener
from .service_shape import ServiceShape
from .table import Entry, Status, Table, Turn

# the service's log lines keep its name, whichever of its modules writes them
log = logging.getLogger("bot.service")


@dataclass
class Timers:
    """A table's pending timers, cancelled together: a change re-arms them all."""

    handles: list[asyncio.TimerHandle] = field(default_factory=list)

    def cancel(self) -> None:
        for h in self.handles:
            h.cancel()
        self.handles.clear()


class Clocks(ServiceShape):
    """The timers of `TableService` (a mixin: they fire into its commits, under its
    table locks)."""

    async def listen(self, listener: Listener, platform: str) -> None:
        """Add an adapter's listener once it can deliver, and arm the tables of its
        platform that waited since the restart (or a person's turn since `hold`).  The downtime is not the
        player's: a turn that ran out, or nearly, while the bot was down or the
        platform unreachable gets the reminder's time from now, stored, and the
        reminder goes out at once.  First the ends the last run stored and never
        showed (a deal's result, a closed table's last messages) are told
        (`bot.telling`)."""
        if listener not in self.listeners:
            self.listeners.append(listener)
        self._held.discard(platform)
        await self._tell_closed(platform)  # ends a kill kept from the chat, first
        for table_id in sorted(self._waiting.pop(platform, ())):
            table = self.tables.get(table_id)
            if table is None:
                continue
            async with self.lock(table_id):
                if self.tables.get(table_id) is not table:
                    continue
                await self._tell_deal_ends(table)
                grace = self._after_downtime(table)
                if grace is not None:
                    try:
                        await self.store.set_deadline(table.id, grace)
                    except Exception:
                        log.exception("table %s: could not store the new deadline", table_id)
                    table.deadline = grace
                self._arm(table)  # a grace's reminder is due now: it goes at once

    def hold(self, platform: str) -> None:
        """Stop the clocks of the persons' turns of a platform that cannot be reached
        (its outage, or the bot's network down), until `listen` starts them again with
        the grace of a restart.  A press that cannot reach the bot is not the player's
        fault: without this his turn would time out, his late press be refused, and
        his seat go to the computer.  Computer turns and lobby expiry go on."""
        self._held.add(platform)
        for table in list(self.tables.values()):
            if table.platform == platform and table.deadline is not None:
                self._arm(table)  # a person's turn: it waits, armed by `listen`

    def _after_downtime(self, table: Table) -> float | None:
        """A new deadline for a turn that ran out, or nearly, while the bot was down
        (None: the stored one stands).  The downtime is not the player's: he gets a
        reminder at once and the reminder's time to move, not an instant computer
        move and a missed turn counted against him."""
        if table.deadline is None:
            return None
        # Without reminders the reminder's time is nothing: half a turn instead, or the
        # timeout would fire the moment the platform is back.
        timeout = float(table.settings.get("turn_timeout", self.timings.turn_timeout))
        least = self._clock() + (self._remind_window(table) or timeout / 2)
        return least if table.deadline < least else None

    def _remind_window(self, table: Table) -> float:
        """How long before the deadline the player is reminded: `reminder_before`, or
        half of a chat's shorter turn timeout."""
        timeout = float(table.settings.get("turn_timeout", self.timings.turn_timeout))
        return min(self.timings.reminder_before, timeout / 2)

    def seconds_left(self, table_id: str) -> int:
        """Whole seconds until the turn at a table times out (0 without a deadline):
        what a reminder tells the player, by the core's clock."""
        table = self.tables.get(table_id)
        if table is None or table.deadline is None:
            return 0
        return max(0, round(table.deadline - self._clock()))

    def _deadline(self, table: Table) -> float | None:
        seat = table.to_act()
        if seat is None:
            return None
        if table.seats[seat] is None or table.computer_move(seat) is not None:
            return None
        return self._clock() + float(table.settings.get("turn_timeout", self.timings.turn_timeout))

    def _cancel_timers(self, table_id: str) -> None:
        """The table's clock stops for good (it closed or ended, or cannot be rebuilt):
        its timers go, and so does the turn it reminded."""
        self._reminded.pop(table_id, None)
        timers = self._timers.pop(table_id, None)
        if timers is not None:
            timers.cancel()

    def _reminded_turn(self, table: Table) -> bool:
        """Whether the player to act was reminded of this turn."""
        return self._reminded.get(table.id) == _reminder_key(table)

    def _arm(self, table: Table) -> None:
        """Schedule what happens next at this table without a human pressing."""
        if self._closed:
            return
        armed = self._timers.get(table.id)
        if armed is not None:
            armed.cancel()
        timers = self._timers[table.id] = Timers()
        loop = asyncio.get_running_loop()
        version = table.version
        if table.status == Status.LOBBY:
            at = table.created_at + self.timings.lobby_expiry
            delay = max(0.0, at - self._clock())
            timers.handles.append(loop.call_later(delay, self._fire, table.id, version, "expire"))
            return
        if table.abandoned() is not None:
            # its people left, or voted it closed, and closing it did not happen then
            # (the write failed, or the bot stopped in between): it closes now
            timers.handles.append(loop.call_later(0, self._fire, table.id, version, "close"))
            return
        seat = table.to_act()
        if seat is None:
            return
        if table.seats[seat] is None:
            return
        what = table.computer_move(seat)
        if what is not None:
            timers.handles.append(
                loop.call_later(self.timings.ai_delay, self._fire, table.id, version, what)
            )
            return
        if self._held_turn(table):
            return
        timeout = float(table.settings.get("turn_timeout", self.timings.turn_timeout))
        deadline = table.deadline or (self._clock() + timeout)
        now = self._clock()
        # A chat's short turn timeout still gets its reminder, half-way through (0: no
        # reminders).  Once a turn: a change at the table re-arms it, and reminds no
        # more.  One whose time passed unsent goes at once: the timers are armed after
        # the turn's write, which can take longer than the turn less the reminder's
        # time; a change as it was due drops its timer (of the version before); and
        # `listen`'s grace after an outage is the reminder's time.
        window = self._remind_window(table)
        if window > 0 and deadline > now and not self._reminded_turn(table):
            remind_in = max(0.0, deadline - window - now)
            timers.handles.append(
                loop.call_later(remind_in, self._fire, table.id, version, "remind")
            )
        timers.handles.append(
            loop.call_later(max(0.0, deadline - now), self._fire, table.id, version, "timeout")
        )

    def _fire(self, table_id: str, version: int, what: str) -> None:
        self._spawn(self._on_timer(table_id, version, what), f"{what}:{table_id}")

    async def _on_timer(self, table_id: str, version: int, what: str) -> None:
        table = self.tables.get(table_id)
        if table is None:
            return
        async with self.lock(table_id):
            if self.tables.get(table_id) is not table or table.version != version:
                return
            if what == "expire":
                if table.status == Status.LOBBY:
                    await self._commit(table, [{"k": "abort", "reason": "expired"}])
                    await self._closed_table(table, "aborted")
                return
            if what == "close":
                await self._close_if_abandoned(table)
                return
            if what not in ("ai", "out") and self._held_turn(table):
                return
            seat = table.to_act()
            if seat is None:
                return
            s = table.seats[seat]
            if what == "remind":
                # reminders switched off after this one was armed: none goes (`_arm`
                # arms none then; the timer must not outlive the setting)
                if s is not None and s.user is not None and self._remind_window(table) > 0:
                    self._reminded[table_id] = _reminder_key(table)
                    await self._notify(table, "reminder", user=s.user)
                return
            choice, legal = self._choice(table, seat)
        # The computer thinks without holding the table: presses (a hand to show, a
        # seat to take back, an abort) are answered meanwhile.  Its choice is a
        # function of the table id and version, so if anything changed, it is dropped
        # and the timers re-armed by that change decide again.
        try:
            code = await self._ai_runner(choice)
        except Exception as e:  # the table must not stall on an AI bug
            # the type only: a message could name the cards of the seat's hand
            log.error(
                "the computer failed to choose at table %s (%s); it plays at random",
                table_id,
                type(e).__name__,
            )
            code = -1
        if code not in legal:
            code = random.Random(f"{table_id}:{version}").choice(legal)
        async with self.lock(table_id):
            if self.tables.get(table_id) is not table or table.version != version:
                return
            if what == "timeout" and self._held_turn(table):
                return  # the platform went while the computer thought for him
            # the seat as it is now: a failed write meanwhile rebuilt the table in
            # place, at the same version, with seats of its own
            s = table.seats[seat]
            entries: list[Entry] = []
            if what == "timeout":
                entries.append({"k": "act", "seat": seat, "code": code, "by": "t"})
                assert s is not None
                if s.missed + 1 >= self.timings.missed_turns_limit and s.user is not None:
                    level = table.settings.get("ai_level", self.ai_level)
                    entries.append({"k": "replace", "seat": seat, "level": level})
            else:
                by = "o" if what == "out" else "ai"
                entries.append({"k": "act", "seat": seat, "code": code, "by": by})
            await self._play(table, entries)
            replaced = what == "timeout" and s is not None and s.ai is not None
            if replaced and s is not None and s.user is not None and table.id in self.tables:
                await self._notify(table, "replaced", user=s.user)

    def _held_turn(self, table: Table) -> bool:
        """A person's turn whose platform is out of reach (`hold`), to arm or whose
        timer fired as it went: it waits with the others for `listen` instead of
        running out."""
        if table.platform not in self._held:
            return False
        self._wait_for_platform(table)
        return True

    def _wait_for_platform(self, table: Table) -> None:
        self._waiting.setdefault(table.platform, set()).add(table.id)


def _reminder_key(table: Table) -> tuple[float | None, Turn]:
    """What a reminder was for: the turn, and its deadline (a grace after an outage is
    reminded again)."""
    return (table.deadline, table.turn())
