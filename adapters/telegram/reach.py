"""Whether Telegram is in reach, and the persons' turn clocks that wait while not.

Out of reach, Telegram is tried again until it answers: polls with one warning
line per failure, the outbox without dropping anything.  Meanwhile the players'
presses cannot reach the bot, so the persons' turn clocks stop (`TableService.hold`)
and get their time back when it answers.  Polling learns both from its polls
(`PollRequest`); with a webhook, from the outbox's requests, and a quiet table
learns of the outage from a light probe made while a turn's clock runs (`watch`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from telegram.error import NetworkError, TelegramError, TimedOut
from telegram.request import HTTPXRequest

from bot.service import Listener, TableService

from .outbox import Outbox
from .refs import PLATFORM

#: The adapter's one logger, whichever of its modules speaks.
log = logging.getLogger("adapters.telegram.adapter")

#: Webhook mode: seconds without a word from Telegram after which, while a person's
#: turn clock runs (or Telegram is out of reach), a probe asks whether it is there.
#: Well below the shortest turn a chat may set (10 s), so an outage on a quiet table
#: holds the clock before it runs out.
PROBE_AFTER = 3.0
#: Seconds a poll the stop overtook waits for the stop to cancel it (`PollRequest`):
#: PTB cancels it at once; well within the runner's grace for the whole shutdown.
OVERTAKEN_WAIT = 5.0
#: Polling: seconds between polls that find Telegram out of reach, the first and the
#: longest (PTB's own).
RETRY_FIRST, RETRY_LONGEST = 1.0, 30.0


class Reach:
    """Telegram's reach as the adapter learns of it, and the clocks it holds."""

    def __init__(
        self,
        service: TableService,
        listener: Listener,
        spawn: Callable[[Coroutine[Any, Any, None]], asyncio.Task[None]],
        probe_after: float = PROBE_AFTER,
    ) -> None:
        self.service = service
        self.listener = listener  # the adapter, listening again once Telegram is back
        self._spawn = spawn  # work waited for at shutdown
        self.probe_after = probe_after
        self._out_of_reach = False  # a poll or a send failed to connect; none answered since

    def poll_failed(self, error: TelegramError) -> None:
        """Fetching updates failed (Telegram out of reach); the poll is tried again,
        waiting longer each time, up to 30 s (`PollRequest`).  One line per try: PTB's
        default is an ERROR with a traceback every time, a wall of them for an outage
        that is not the bot's fault.  The players' presses cannot reach us meanwhile,
        so their turns' clocks stop."""
        log.warning("cannot fetch updates from Telegram (%s); trying again", error)
        self._lose_reach()

    async def poll_answered(self) -> None:
        """Telegram answers again (before the updates the poll brings are handled)."""
        await self._regain_reach()

    def on_reach(self, reachable: bool) -> None:
        """Webhook mode has no poll to fail: the outbox's requests (and probes) that
        cannot connect are the sign of an outage (presses cannot reach the bot then,
        most likely), and its first request Telegram answers the sign of the end."""
        if reachable:
            self._spawn(self._regain_reach())
        else:
            log.warning("telegram out of reach; the persons' turns wait")
            self._lose_reach()

    def _lose_reach(self) -> None:
        """Presses cannot reach us: the persons' turns' clocks stop (once an outage)."""
        if not self._out_of_reach:
            self._out_of_reach = True
            self.service.hold(PLATFORM)

    async def _regain_reach(self) -> None:
        """The turns held since the outage get their time, as after a restart."""
        if self._out_of_reach:
            self._out_of_reach = False
            if self.listener in self.service.listeners:  # not shut down meanwhile
                await self.service.listen(self.listener, PLATFORM)

    async def watch(self, outbox: Outbox) -> None:
        """Webhook mode: a quiet table (nothing to send, no reminder due) would not
        notice an outage, and its person's turn would run out while his presses cannot
        reach the bot.  So while a person's clock runs, or Telegram is out of reach, a
        probe asks after `probe_after` seconds without a word from Telegram."""
        while True:
            quiet = time.monotonic() - outbox.contact_at
            if quiet < self.probe_after:
                await asyncio.sleep(self.probe_after - quiet)
            elif self._out_of_reach or self._clock_runs():
                await outbox.probe()
            else:
                await asyncio.sleep(self.probe_after)

    def _clock_runs(self) -> bool:
        """A person's turn clock runs at one of our tables."""
        tables = self.service.tables.values()
        return any(tb.platform == PLATFORM and tb.deadline is not None for tb in tables)


class PollRequest(HTTPXRequest):
    """The connection for getUpdates (one, as PTB's own).  It says when a poll is
    answered (PTB tells of a failed poll only, not of Telegram being back), tries a
    poll that found Telegram out of reach again itself (`do_request`), and holds back
    a poll the stop overtook (`stopping`)."""

    def __init__(
        self,
        answered: Callable[[], Awaitable[None]],
        failed: Callable[[TelegramError], None],
    ) -> None:
        super().__init__(connection_pool_size=1)
        self._answered = answered
        self._failed = failed
        self._stops = 0  # stops begun: a poll started before the last one is overtaken
        self._stopping = False  # since the last stop began, until the next start

    async def initialize(self) -> None:
        await super().initialize()
        self._stopping = False

    def stopping(self) -> None:
        """Before `Updater.stop`: a poll in flight now tells PTB nothing more.

        PTB's stop marks the updater stopped, then cancels the poll in flight.  An
        answer that lands in between, with updates, is dropped with a CRITICAL
        "Updater stopped unexpectedly" line, though nothing is wrong: those updates
        were not confirmed, so Telegram sends them again at the next start (a failure
        landing there would say Telegram is out of reach).  Held back here, the poll
        waits for that cancel, as one answered a moment later would; the confirming
        poll PTB makes after it starts afterwards and passes."""
        self._stops += 1
        self._stopping = True

    async def do_request(self, *args: Any, **kwargs: Any) -> tuple[int, bytes]:
        """A poll, tried again while Telegram is out of reach, waiting longer each
        time (as PTB would: 1 s, then half as long again each time, up to 30 s).

        PTB's own wait between failed polls is no part of the poll, and its stop waits
        it out: late in an outage 30 s, beyond the runner's grace after SIGTERM.  This
        one is, and the stop cancels it with the poll.  A timeout is PTB's (it polls
        again at once), and so is the confirming poll at the stop."""
        stops, serving = self._stops, not self._stopping
        wait = 0.0
        while True:
            try:
                answer = await super().do_request(*args, **kwargs)
                break
            except Exception as e:
                if stops != self._stops:
                    await _until_cancelled()
                if not serving or not isinstance(e, NetworkError) or isinstance(e, TimedOut):
                    raise
                self._failed(e)
            wait = min(wait * 1.5, RETRY_LONGEST) if wait else RETRY_FIRST
            await asyncio.sleep(wait)
        if stops == self._stops and answer[0] == 200:
            await self._answered()  # before the updates it brings are handled
        if stops != self._stops:
            await _until_cancelled()
        return answer


async def _until_cancelled() -> None:
    """Wait for PTB's stop to cancel the poll, as it does at once; bounded, so that a
    stop that did not would only bring back the line, not hang the shutdown."""
    await asyncio.sleep(OVERTAKEN_WAIT)
