"""Which updates were handled, so that none is handled twice.

Webhooks redeliver, and Telegram sends again, after a restart, what a killed bot
had handled but not yet confirmed: a second /new, Join or setting must not follow.
Updates are deduplicated by `update_id`, and each one handled is stored (the
newest `KEEP_UPDATES`, for at most `KEEP_UPDATES_FOR`), to be recalled at the next
start (`recall`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Coroutine
from typing import Any

from telegram import Update
from telegram.ext import ContextTypes

from adapters.recent import Recent
from bot.service import Outcome, TableService

from .refs import PLATFORM

#: The adapter's one logger, whichever of its modules speaks.
log = logging.getLogger("adapters.telegram.adapter")

#: How many of the newest update ids the bot keeps as handled, in memory and in the
#: store.  Telegram sends again only those it was not told were received: one poll's
#: batch (at most 100), or the webhook deliveries not yet answered.
KEEP_UPDATES = 10_000
#: Seconds a handled update is kept in the store at most: Telegram keeps an update
#: for 24 hours, and sends nothing older again.
KEEP_UPDATES_FOR = 2 * 86_400.0


class HandledUpdates:
    """The update ids seen and handled, in memory and in the core's store."""

    def __init__(
        self,
        service: TableService,
        spawn: Callable[[Coroutine[Any, Any, None]], asyncio.Task[None]],
    ) -> None:
        self.service = service
        self._spawn = spawn  # work waited for at shutdown
        self._seen: Recent[int, None] = Recent(KEEP_UPDATES)
        #: Where the store keeps the updates handled: this bot's (a new token may be
        #: a new bot, whose update ids start anew); set at start (`recall`).
        self._source: str | None = None
        #: Presses answered before the core was done (`_on_press`): handled when it is.
        self.busy: dict[int, asyncio.Task[Outcome]] = {}

    def first_time(self, update_id: int) -> bool:
        return self._seen.first_time(update_id, None)

    async def recall(self, bot_id: int) -> None:
        """The updates handled before this start, so that those Telegram sends again
        are dropped (`_dedupe`): a bot killed before it confirmed them (PTB does with
        the next poll, or at a clean stop; a webhook delivery, with its answer) gets
        them again, and a second /new, Join or setting would be handled twice."""
        store = self.service.store
        self._source = f"{PLATFORM}:{bot_id}"
        await store.forget_handled_updates(time.time() - KEEP_UPDATES_FOR)
        for update_id in await store.handled_updates(self._source):
            self._seen[update_id] = None

    async def handled(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """After the handlers: store that the update was handled (`recall`).
        Not before: one a kill cut short is handled when Telegram sends it again.  A
        press answered while the core was still busy counts once the core is done."""
        update_id = update.update_id
        busy = self.busy.pop(update_id, None)
        if busy is not None and not busy.done():
            busy.add_done_callback(lambda _: self._spawn(self._store_handled(update_id)))
            return
        await self._store_handled(update_id)

    async def _store_handled(self, update_id: int) -> None:
        if self._source is None:
            return
        try:
            await self.service.store.mark_handled(self._source, update_id, keep=KEEP_UPDATES)
        except Exception as e:  # the store failed: a kill now might bring it once more
            log.warning("could not store that update %s was handled: %s", update_id, e)
