"""Where a table plays, over its life here: picked up after a restart, opened by
`/schnapsen new`, and forgotten once it closed.
"""

from __future__ import annotations

import logging
from typing import Any

import discord

from bot.service import ChatRef
from bot.store import StoreError
from bot.table import Status
from bot.turn_pings import SLOT as PING
from bot.views import Message

from . import render
from .answers import Answering
from .ids import PLATFORM, parse_ref
from .outbox import Op

#: Logged under the adapter's name, as all its parts are: one name to filter its lines by.
log = logging.getLogger("adapters.discord.adapter")


class Tables(Answering):
    """The `DiscordAdapter`'s tables' places.  A mixin, as `Answering` is."""

    async def _restore(self) -> None:
        """Pick up open tables: where their messages are, and show their current state
        (a change may have been stored just before the last stop, never shown); and
        where closed tables whose end the last run stored and never showed are (the
        core tells it at `listen`, and their messages are drawn from that)."""
        tables = [*self.service.tables.items(), *self.service.untold_closed.items()]
        for table_id, table in tables:
            if table.platform != PLATFORM:
                continue
            refs = await self.service.store.message_refs(table_id)
            channel = refs.get("channel")
            if channel is None or not channel.isdigit():
                log.warning(
                    "table %s has no known channel; its messages stay as they are", table_id
                )
                continue
            self._plays_in(table_id, int(channel))
            for user in table.humans():
                known = None if user in self._langs else await self.service.store.player(user)
                if known is not None and known[1]:
                    self._langs[user] = known[1]  # hands in each player's language
            slots = self._refs.setdefault(table_id, {})
            for slot, ref in refs.items():
                parsed = parse_ref(ref)
                if parsed is not None and slot.startswith(PING):
                    # a ping the last run left: whose turn it rang is not known
                    # any more, and the reminder comes anyway; it goes
                    self._pings[(table_id, slot[len(PING) :])] = parsed
                    self._add(table_id, Op("unping", f"hand:{slot[len(PING) :]}"))
                elif parsed is not None:
                    slots[slot] = parsed
                    if slot.startswith("hand:"):
                        self._dm_channels[slot[5:]] = parsed[0]
            if table.status not in (Status.LOBBY, Status.PLAYING):
                continue  # its end draws its last pictures
            if self.service.ends_untold(table_id):
                # a deal's result goes on its messages first; the next deal's are
                # posted after it, as after any deal's end
                continue
            if table.status == Status.LOBBY:
                self._add(table_id, Op("edit", "lobby"))
            else:
                self._add(table_id, Op("edit", "table"))
                for user in self.service.seat_users(table_id):
                    if f"hand:{user}" in slots:
                        self._add(table_id, Op("edit", f"hand:{user}"))
                    else:
                        # no DM hand on record: his DMs were closed, and the channel
                        # was told so; the next change tries them again, quietly
                        self._dm_noted.add((table_id, user))

    async def opened(
        self, interaction: discord.Interaction[Any], table_id: str, lobby: Message
    ) -> None:
        """`/schnapsen new` opened a table: its lobby is the reply to the command.

        The reply goes first (the 3-second window); until the table is registered the
        listener ignores it, and the edit queued last shows anything that changed."""
        channel_id = interaction.channel_id
        assert channel_id is not None
        try:
            message_id = await self.reply(
                interaction, render.content(lobby), view=render.view(lobby), ephemeral=False
            )
        except discord.HTTPException as e:
            log.warning("table %s: lobby not shown as the reply (%s); posting it", table_id, e)
            message_id = None
        self._plays_in(table_id, channel_id)
        # heard from here on; a start stored before, unheard (people saw the lobby and
        # pressed Join and Start while the reply's answer was on its way)
        now = self.service.tables.get(table_id)
        unheard_start = now is not None and now.status == Status.PLAYING and not now.unsaved
        self._refs.setdefault(table_id, {})
        if message_id is not None:
            # known in memory before the first await: a join shown meanwhile edits
            # this lobby instead of posting a second one
            await self._remember(table_id, "lobby", channel_id, message_id, lobby)
        await self.service.store.set_message_ref(table_id, "channel", str(channel_id))
        # kept after the table closes: its record is handed out in this channel
        await self.service.store.set_place(table_id, str(channel_id))
        table = self.service.tables.get(table_id)
        closing = table is not None and table.unsaved  # its update comes, and is heard now
        if table is None or (table.status not in (Status.LOBBY, Status.PLAYING) and not closing):
            # closed meanwhile (aborted, expired): its updates were ignored, so no
            # close comes; its lobby loses its buttons, and nothing of it stays
            row = await self.service.store.table_row(table_id)
            self._add(table_id, Op("final", "lobby"))
            self._add(table_id, Op("close", version=row.version if row is not None else None))
            return
        if unheard_start:  # shown now: the table and hands as they stand
            self._started(table_id, self.service.seat_users(table_id))
        else:
            self._add(table_id, Op("edit", "lobby"))

    def tables_by_channel(
        self, chat: ChatRef, channel_id: int | None
    ) -> tuple[list[str], list[str]]:
        """The server's open tables: the ids of those in `channel_id`, and the others
        as "id in <#channel>" for a reply that says where each one is."""
        here: list[str] = []
        elsewhere: list[str] = []
        for tb in self.service.tables_in(chat.key):
            channel = self._channels.get(tb.id)
            if channel is not None and channel == channel_id:
                here.append(tb.id)
            else:
                where = f" in <#{channel}>" if channel is not None else ""
                elsewhere.append(f"{tb.id}{where}")
        return here, elsewhere

    def _plays_in(self, table_id: str, channel_id: int) -> None:
        """Where a table's messages go; a table in a DM (whose chat is the channel
        itself, `chat`) shows its hands in that channel too."""
        self._channels[table_id] = channel_id
        table = self.service.tables.get(table_id) or self.service.untold_closed.get(table_id)
        if table is not None and table.chat == ChatRef(PLATFORM, str(channel_id)).key:
            self._in_dm.add(table_id)

    async def _forget(self, table_id: str) -> None:
        """Drop all a closed table left here.  Memory goes first: a database that
        fails must not keep it for the bot's lifetime.  The core forgot the table's
        refs when told its close went out (`delivered`); this drops those a post
        racing the close stored after (what it cannot drop, the next start does)."""
        self._channels.pop(table_id, None)
        self._in_dm.discard(table_id)
        self._refs.pop(table_id, None)
        self._pings = {k: v for k, v in self._pings.items() if k[0] != table_id}
        self._reminded = {k for k in self._reminded if k[0] != table_id}
        self._reminded_at = {k: v for k, v in self._reminded_at.items() if k[0] != table_id}
        self._ping_locks = {k: v for k, v in self._ping_locks.items() if k[0] != table_id}
        for key in [k for k in self._outboxes if k[0] == table_id]:
            del self._outboxes[key]
        for key in [k for k in self._shown if k[0] == table_id]:
            del self._shown[key]
        for key in [k for k in self._live if k[0] == table_id]:
            self._drop_live(key)
        self._dm_noted = {k for k in self._dm_noted if k[0] != table_id}
        self._lost.discard(table_id)
        try:
            await self.service.store.drop_message_refs(table_id)
        except StoreError as e:
            log.warning("table %s: its message refs stay until the next start: %s", table_id, e)
