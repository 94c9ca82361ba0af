"""Turn pings: a turn that comes after a wait rings, and the ring goes once he moved.

`bot.turn_pings` decides when a turn rings; here is how it rings on Discord: a reply
to the player's DM hand (an edit of it makes no sound), or, with his DMs closed, a
mention in the table's channel; and the core's reminder, a mention in the channel,
standing in for his ping.  Whatever rang is deleted once his turn is over, and kept
in the store meanwhile, so that a restarted bot deletes what the last run left.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses

import discord

from bot.turn_pings import SLOT as PING
from bot.views import Message

from . import render
from .ids import user_id
from .outbox import Op
from .shape import AdapterShape


class Pings(AdapterShape):
    """The `DiscordAdapter`'s turn pings.  A mixin, as `Answering` is."""

    def _ring(self, table_id: str, user: str, *, new: bool) -> None:
        """A turn that comes after a wait rings: a DM reply to his hand (an edit of
        it makes no sound), or with closed DMs a mention in the channel, deleted once
        he has moved.  Not at a table played in a DM, where the hand is below the
        table anyway."""
        key = (table_id, user)
        reminded = self._reminded_at.get(key)
        # he moved since his reminder: it goes, one still being sent too (the unping
        # waits for it), even when his next turn follows at once
        moved = reminded is not None and reminded != self._moves(table_id)
        if moved:
            del self._reminded_at[key]
        said = None
        if table_id not in self._in_dm:  # there no ping: his hand is below the table
            said = self._turn_pings.shown(key, self.service.his_turn(table_id, user), new=new)
        if said == "unping" or moved:
            self._add(table_id, Op("unping", f"hand:{user}"))
        if said == "ping":
            self._add_ping(table_id, user)  # which replaces one still standing

    def _moves(self, table_id: str) -> tuple[int, int] | None:
        """How far a table's match has come: deals dealt, moves in the current one."""
        table = self.service.tables.get(table_id)
        if table is None:
            return None
        return len(table.deals), len(table.deal_log.actions) if table.deal_log else 0

    def _add_ping(self, table_id: str, user: str) -> None:
        lang = self._langs.get(user) or self._table_lang(table_id)
        body = self._turn_pings.text(lang, table_id, self.service.seconds_left(table_id))
        self._add(table_id, Op("ping", f"hand:{user}", Message(body)))

    async def _ping(self, table_id: str, op: Op) -> None:
        user = op.slot[5:]
        if op.message is None:
            return
        async with self._ping_lock(table_id, user):
            if (table_id, user) not in self._reminded:  # the reminder says it already
                await self._ping_now(table_id, user, op)

    async def _ping_now(self, table_id: str, user: str, op: Op) -> None:
        assert op.message is not None
        # one notice a turn: a second one queued meanwhile (his DMs found closed as
        # the first waited in his lane) replaces it, or the first would stand for good
        await self._unping(table_id, user)
        if user in self._dm_closed:
            # He plays from "Show my hand", out of sight: the channel mentions him
            # (the ping names no card), and the message goes after his move too.
            uid = user_id(user)
            if uid is None:  # pragma: no cover - not a Discord user key
                return
            text = Message(f"<@{uid}> {op.message.text}")
            note = dataclasses.replace(op, message=text, mentions=(uid,))
            sent = await self._send_note(table_id, note)
            await self._pinged(table_id, user, sent.channel.id, sent.id)
            return
        ref = self._refs.get(table_id, {}).get(op.slot)
        if ref is None:
            return  # no DM hand to answer
        channel_id, message_id = ref
        reply = discord.MessageReference(
            message_id=message_id, channel_id=channel_id, fail_if_not_exists=False
        )
        sent = await self._channel(channel_id).send(
            render.content(op.message), reference=reply, nonce=op.nonce
        )
        await self._pinged(table_id, user, channel_id, sent.id)

    async def _remind(self, table_id: str, op: Op) -> None:
        """The reminder: a mention in the table's channel, kept as his ping."""
        user = op.slot[5:]
        async with self._ping_lock(table_id, user):
            table = self.service.tables.get(table_id)
            if table is None or table.version != op.version:
                return  # it waited in the channel's queue while he moved: not his turn
            await self._unping(table_id, user)
            sent = await self._send_note(table_id, op)
            await self._pinged(table_id, user, sent.channel.id, sent.id)
            self._reminded.add((table_id, user))

    async def _unping_op(self, table_id: str, user: str) -> None:
        """His turn is over (or the ping is an old one): whatever rang goes."""
        async with self._ping_lock(table_id, user):
            await self._unping(table_id, user)
            self._reminded.discard((table_id, user))

    def _ping_lock(self, table_id: str, user: str) -> asyncio.Lock:
        return self._ping_locks.setdefault((table_id, user), asyncio.Lock())

    async def _pinged(self, table_id: str, user: str, channel_id: int, message_id: int) -> None:
        """Remember a ping until it is deleted, in the store too: a restart deletes
        the one it finds there."""
        self._pings[(table_id, user)] = (channel_id, message_id)
        await self.service.store.set_message_ref(
            table_id, PING + user, f"{channel_id}/{message_id}"
        )

    async def _unping(self, table_id: str, user: str) -> None:
        ping = self._pings.get((table_id, user))
        if ping is None:
            return
        # he deleted it himself, or a channel ping's channel is gone
        with contextlib.suppress(discord.NotFound, discord.Forbidden):
            await self._channel(ping[0]).get_partial_message(ping[1]).delete()
        self._pings.pop((table_id, user), None)  # only now: a 5xx is tried again
        await self.service.store.drop_message_ref(table_id, PING + user)

    def _unping_all(self, table_id: str, humans: list[str]) -> None:
        """The pings a table's end or a deal's end leaves: its seated people's, and
        any of one who left the seat meanwhile (/forgetme)."""
        pinged = {u for t, u in self._pings if t == table_id}
        for user in sorted(pinged | set(humans)):
            self._add(table_id, Op("unping", f"hand:{user}"))
