"""When the bot loses its way to the players: the gateway, a channel, a server.

While any shard has no gateway connection, presses cannot reach the bot, so the
persons' turns wait.  When the bot may not use a table's channel or thread any more
(deleted, access or the right to post taken, removed from the server) the tables
there close as an abort, once, and their players are told by DM.
"""

from __future__ import annotations

import asyncio
import logging

from bot.service import ChatRef
from bot.store import StoreError

from .ids import PLATFORM
from .shape import AdapterShape

#: Logged under the adapter's name, as all its parts are: one name to filter its lines by.
log = logging.getLogger("adapters.discord.adapter")

#: Abort reasons of tables whose channel, or whose server, the bot lost.
CHANNEL_LOST = "channel_lost"
SERVER_LOST = "server_lost"


class Losses(AdapterShape):
    """The `DiscordAdapter`'s lost connections.  A mixin, as `Answering` is."""

    # --- the gateway drops and comes back ----------------------------------------------

    def gateway_lost(self, shard: int = 0) -> None:
        """No gateway connection (Discord's outage or ours) on this shard: presses
        cannot reach the bot, so the persons' turns stop their clocks instead of
        running out."""
        if not self._down:
            self.service.hold(PLATFORM)
        self._down.add(shard)

    async def gateway_back(self, shard: int = 0) -> None:
        """Connected again (resumed, or a new session): once no shard is down any more,
        the held turns get their time, those that ran out or nearly with a reminder at
        once.  The core holds a whole platform, not a server, so one shard still down
        keeps every turn waiting."""
        self._down.discard(shard)
        if not self._down:
            await self.service.listen(self, PLATFORM)

    # --- the bot loses a channel or a server ---------------------------------------------

    def channel_lost(self, channel_id: int, why: str) -> None:
        """The bot may not show anything in this channel any more (deleted, or its right
        to see it or to post there taken).  Its tables close as an abort closes them:
        nobody there could follow them or stop them, and left open the computer would
        play the absent players' turns to the end of a match nobody saw."""
        tables = [tid for tid, channel in self._channels.items() if channel == channel_id]
        self._lose(tables, CHANNEL_LOST, f"channel {channel_id} {why}")

    def server_lost(self, guild_id: int) -> None:
        """The bot was removed from a server: every table there closes likewise."""
        chat = ChatRef(PLATFORM, str(guild_id)).key
        tables = [tb.id for tb in self.service.tables_in(chat) if tb.id in self._channels]
        self._lose(tables, SERVER_LOST, f"removed from server {guild_id}")

    def _lose(self, table_ids: list[str], reason: str, why: str) -> None:
        """Close these tables once, however many refusals and events say so; nothing is
        sent to their channel meanwhile."""
        fresh = [tid for tid in table_ids if tid not in self._lost]
        if not fresh:
            return
        self._lost.update(fresh)

        async def close() -> None:
            try:
                closed = await self.service.close_tables(fresh, reason)
            except Exception as e:
                # not lost for good: their channel is tried again, and its next refusal
                # closes them (as a Telegram group's does)
                self._lost.difference_update(fresh)
                if isinstance(e, StoreError):  # the core said so: a store that failed
                    log.warning(
                        "Discord: %s; could not close table(s) %s: %s", why, ", ".join(fresh), e
                    )
                else:
                    log.exception("Discord: %s; closing table(s) %s failed", why, ", ".join(fresh))
                return
            log.warning("Discord: %s; closed table(s): %s", why, ", ".join(closed) or "none")

        task = asyncio.create_task(close(), name=f"discord-close-{fresh[0]}")
        self._closers.add(task)

        def done(task: asyncio.Task[None]) -> None:
            self._closers.discard(task)
            self._if_idle()

        task.add_done_callback(done)
