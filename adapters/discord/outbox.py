"""Out: the queues through which everything the adapter shows goes to Discord.

The service tells the adapter of every change (`table_update`, called under the
table's lock, so it only queues `Op`s).  Each table has outboxes — one for its
channel, one for each player's hand — worked by a task each, that render the
*current* views when they send, so a burst of changes costs one edit per message
(coalescing), each message changes in the order things happened, and one slow DM
holds up nobody else.

Where things are shown, per table (slot → platform message, persisted with
`store.set_message_ref` so a restarted bot edits the same messages): ``lobby``, the
lobby message in the channel (the reply to ``/schnapsen new``); ``table``, the table
message, a new one each deal (messages older than an hour cannot be edited freely),
the old one keeping the deal's final picture; and the hands (`hands`).

When Discord fails, a 5xx or a network error is tried again a few times, rendering
the newest state (a post keeps its nonce, so Discord makes it once); a refusal to
use the table's channel closes its tables (`losses`); a message that is gone, or
too old to edit, is posted anew.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections import deque
from dataclasses import dataclass, field
from typing import Literal

import discord

from bot.table import Status
from bot.views import Message

from . import render
from .errors import DMS_CLOSED, OLD_MESSAGE, OUTAGES, UNKNOWN_MESSAGE, refused_channel
from .render import fingerprint
from .shape import AdapterShape

#: Logged under the adapter's name, as all its parts are: one name to filter its lines by.
log = logging.getLogger("adapters.discord.adapter")


@dataclass
class Op:
    """One thing to show.  ``edit``/``post`` render the slot from the service when they
    run (the newest state); ``final`` shows a message computed when it was queued (the
    table may be gone by then) and forgets the slot; ``note`` posts text in the channel,
    ``tell`` sends it to the slot's player by DM; ``ping`` replies to his DM hand that
    it is his turn, ``unping`` deletes that reply.  ``told`` (a deal's end, one in
    each queue it was shown through: `_told`) and ``close`` (a table's) tell the core
    that what came before was sent: a restart need not show that end again
    (`TableService.delivered`)."""

    kind: Literal[
        "edit", "post", "final", "note", "tell", "close", "ping", "unping", "remind", "told"
    ]
    slot: str = ""
    message: Message | None = None
    mentions: tuple[int, ...] = ()
    #: A reminder's table version: it is for that turn only, not sent once he moved.
    #: An end's (``told``, ``close``): the version of its update.
    version: int | None = None
    #: Sent with a post: Discord makes a message once per nonce, however often tried.
    nonce: int = field(default_factory=lambda: secrets.randbits(63))
    #: A ``told``'s queues (by slot) not past their ``told`` yet, shared by them all.
    waiting: set[str] = field(default_factory=set)


@dataclass
class _Outbox:
    ops: deque[Op] = field(default_factory=deque)
    task: asyncio.Task[None] | None = None

    def add(self, op: Op) -> None:
        if op.kind == "edit":
            for queued in reversed(self.ops):
                if queued.slot == op.slot:
                    if queued.kind in ("edit", "post"):
                        return  # it will render the newest state anyway
                    break
        elif op.kind in ("post", "final"):
            # edits queued for this slot would only be overwritten
            self.ops = deque(q for q in self.ops if not (q.kind == "edit" and q.slot == op.slot))
        self.ops.append(op)

    @property
    def idle(self) -> bool:
        return not self.ops and (self.task is None or self.task.done())


class OutboxWorker(AdapterShape):
    """The `DiscordAdapter`'s outboxes.  A mixin, as `Answering` is."""

    def _add(self, table_id: str, op: Op) -> None:
        # A player's DM hand (or ephemeral hand) has a queue of its own: one that is
        # slow to go through (Discord slow on that DM channel, 5xx tried again,
        # a 429 waited out) must not hold up the table message and the other hands.
        # At a table played in a DM the hand is in the channel, below its table.
        # The reminder is a channel message and comes when the time is nearly up:
        # it goes in the table's queue, not behind his hand's.
        private = (
            op.slot.startswith(("hand:", "live:"))
            and op.kind != "remind"
            and table_id not in self._in_dm
        )
        lane = op.slot if private else ""
        box = self._outboxes.get((table_id, lane))
        if box is None:
            box = self._outboxes[(table_id, lane)] = _Outbox()
        box.add(op)
        if box.task is None or box.task.done():
            box.task = asyncio.create_task(
                self._work(table_id, box), name=f"discord-outbox-{table_id}{lane}"
            )

    async def _work(self, table_id: str, box: _Outbox) -> None:
        """Send one queue of a table.  Up to the next note, ops of different messages
        go out side by side (the lobby, the table); a message's own ops stay in order,
        and notes keep their place in the conversation."""
        while box.ops:
            chains: dict[str, list[Op]] = {}
            while box.ops and box.ops[0].kind not in ("note", "close", "told"):
                op = box.ops.popleft()
                chains.setdefault(op.slot, []).append(op)
            if chains:
                await asyncio.gather(*(self._chain(table_id, ops) for ops in chains.values()))
            else:
                await self._chain(table_id, [box.ops.popleft()])
        box.task = None
        self._if_idle()

    async def _chain(self, table_id: str, ops: list[Op]) -> None:
        for op in ops:
            await self._attempt(table_id, op)

    def _told(self, table_id: str, users: list[str], version: int) -> None:
        """Tell the core a deal's end went out once every queue that shows it got past
        it: the channel's (the table, the result) and each player's hand's (his hand
        as the deal left it).  Confirmed after the channel's alone, a kill while a
        slow DM was still on its way left that hand unshown for good: the restart
        drew the next deal over it."""
        slots = ["", *(f"hand:{user}" for user in users)]
        waiting = set(slots)
        for slot in slots:
            self._add(table_id, Op("told", slot, version=version, waiting=waiting))

    async def _attempt(self, table_id: str, op: Op) -> None:
        """One op, tried again after a 5xx or a network error (an edit renders the
        newest state then; a post keeps its nonce, so it is never made twice) — a few
        times, never in a loop: the next change of the slot tries anew anyway."""
        for delay in (*self.retry_delays, None):
            try:
                await self._do(table_id, op)
                return
            except asyncio.CancelledError:
                raise
            except OUTAGES as e:
                if delay is None:
                    log.warning("table %s: could not %s %s: %s", table_id, op.kind, op.slot, e)
                    return
                log.info("table %s: %s %s failed (%s); trying again", table_id, op.kind, op.slot, e)
                await asyncio.sleep(delay)
            except discord.HTTPException as e:
                channel_id = refused_channel(e)
                if channel_id is not None and channel_id in self._channels.values():
                    self.channel_lost(channel_id, f"refused the bot ({e.status} {e.code})")
                else:
                    log.warning("table %s: could not %s %s: %s", table_id, op.kind, op.slot, e)
                return
            except Exception:
                log.exception("table %s: %s %s failed", table_id, op.kind, op.slot)
                return

    async def _do(self, table_id: str, op: Op) -> None:
        lost = table_id in self._lost
        if lost and (op.kind in ("note", "ping", "remind") or op.slot in ("lobby", "table")):
            return  # the channel is gone: the table is being closed
        if op.kind == "close":
            await self._hands_sent(table_id)
            if op.version is not None:
                await self.service.delivered(table_id, op.version)
            await self._forget(table_id)
        elif op.kind == "told":
            op.waiting.discard(op.slot)
            if not op.waiting and op.version is not None:
                await self.service.delivered(table_id, op.version)
        elif op.kind == "note":
            await self._send_note(table_id, op)
        elif op.kind == "tell":
            await self._tell(op.slot[5:], op)
        elif op.kind == "ping":
            await self._ping(table_id, op)
        elif op.kind == "remind":
            await self._remind(table_id, op)
        elif op.kind == "unping":
            await self._unping_op(table_id, op.slot[5:])
        elif op.kind == "final":
            await self._final(table_id, op.slot, op.message)
        elif op.slot.startswith("live:"):
            await self._edit_live(table_id, op.slot[5:])
        else:
            msg = self._render(table_id, op.slot)
            if msg is None:
                return
            ref = self._refs.get(table_id, {}).get(op.slot)
            if op.kind == "post" or ref is None:
                await self._post(table_id, op.slot, msg, op.nonce)
            elif self._shown.get((table_id, op.slot)) != fingerprint(msg):
                await self._edit(table_id, op.slot, ref, msg, op.nonce)

    def _render(self, table_id: str, slot: str) -> Message | None:
        """A slot's current message from the core (None: nothing to show there now)."""
        table = self.service.tables.get(table_id)
        if table is None or (slot == "lobby") != (table.status == Status.LOBBY):
            return None
        if slot == "lobby":
            lobby = self.service.lobby(table_id)
            return lobby.message if lobby is not None else None
        if slot == "table":
            view = self.service.table(table_id)
            return view.message if view is not None else None
        user = slot.split(":", 1)[1]
        hand = self.service.hand(table_id, user, self._langs.get(user))
        return hand.message if hand is not None else None

    async def _post(self, table_id: str, slot: str, msg: Message, nonce: int) -> None:
        if slot.startswith("hand:"):
            user = slot[5:]
            if user in self._dm_closed:
                return
            try:
                dm = await self._dm(user)
                if dm is None:
                    return
                channel_id = dm
                sent = await self._channel(channel_id).send(
                    render.content(msg), nonce=nonce, **render.view_kwargs(msg)
                )
            except discord.Forbidden as e:
                if e.code != DMS_CLOSED:
                    raise
                await self._dms_closed(table_id, user)
                return
        else:
            channel_id = self._channels[table_id]
            sent = await self._channel(channel_id).send(
                render.content(msg), nonce=nonce, **render.view_kwargs(msg)
            )
        if not _shows(sent, msg):
            # a post tried again after a 5xx that Discord had carried out: the nonce
            # gave back the message as it was first sent, an older state of the slot
            await sent.edit(content=render.content(msg), view=render.view(msg))
        await self._remember(table_id, slot, channel_id, sent.id, msg)

    async def _remember(
        self, table_id: str, slot: str, channel_id: int, message_id: int, msg: Message
    ) -> None:
        self._refs.setdefault(table_id, {})[slot] = (channel_id, message_id)
        self._shown[(table_id, slot)] = fingerprint(msg)
        await self.service.store.set_message_ref(table_id, slot, f"{channel_id}/{message_id}")

    async def _edit(
        self, table_id: str, slot: str, ref: tuple[int, int], msg: Message, nonce: int
    ) -> None:
        channel_id, message_id = ref
        try:
            await (
                self._channel(channel_id)
                .get_partial_message(message_id)
                .edit(content=render.content(msg), view=render.view(msg))
            )
        except discord.HTTPException as e:
            if e.code == DMS_CLOSED and slot.startswith("hand:"):
                # the player closed their DMs mid-deal: on to "Show my hand"
                self._refs.get(table_id, {}).pop(slot, None)
                await self._dms_closed(table_id, slot[5:])
                return
            if e.code not in (UNKNOWN_MESSAGE, OLD_MESSAGE):
                raise
            # deleted, or too old to edit: show it as a new message instead
            log.info(
                "table %s: %s message %s gone (%s); posting anew",
                table_id,
                slot,
                message_id,
                e.code,
            )
            await self._post(table_id, slot, msg, nonce)
            return
        self._shown[(table_id, slot)] = fingerprint(msg)

    async def _final(self, table_id: str, slot: str, msg: Message | None) -> None:
        """Show a slot's last state (or just take its buttons away) and forget it."""
        if slot.startswith("live:"):
            await self._final_live(table_id, slot[5:], msg)
            return
        ref = self._refs.get(table_id, {}).pop(slot, None)
        self._shown.pop((table_id, slot), None)
        if ref is None:
            return
        channel_id, message_id = ref
        partial = self._channel(channel_id).get_partial_message(message_id)
        try:
            if msg is None:
                await partial.edit(view=None)
            else:
                await partial.edit(content=render.content(msg), view=None)
        except discord.HTTPException as e:
            # too old or deleted: its buttons are refused as stale anyway
            log.info("table %s: final %s not shown: %s", table_id, slot, e)

    async def _send_note(self, table_id: str, op: Op) -> discord.Message:
        """A message in the table's channel, mentioning (and so ringing) only
        `op.mentions`."""
        assert op.message is not None
        mentions = discord.AllowedMentions(
            everyone=False, roles=False, users=[discord.Object(id=u) for u in op.mentions]
        )
        return await self._channel(self._channels[table_id]).send(
            render.content(op.message),
            allowed_mentions=mentions,
            nonce=op.nonce,
            **render.view_kwargs(op.message),  # "Rematch" under a match's summary
        )

    def _channel(self, channel_id: int) -> discord.PartialMessageable:
        return self.client.get_partial_messageable(channel_id)

    async def _hands_sent(self, table_id: str) -> None:
        """Wait until the hands' queues of a closing table are through (their last
        pictures use the refs that closing forgets)."""
        while busy := [
            box.task
            for (tid, lane), box in self._outboxes.items()
            if tid == table_id and lane and box.task is not None and not box.task.done()
        ]:
            await asyncio.wait(busy)


def _shows(sent: discord.Message, msg: Message) -> bool:
    """Does the message Discord answered a post with show `msg` (text and buttons)?"""
    shown = [
        getattr(item, "custom_id", None)
        for row in sent.components
        for item in getattr(row, "children", ())
    ]
    view = render.view(msg)  # the buttons as a post of `msg` carries them
    wanted = [getattr(item, "custom_id", None) for item in view.children] if view else []
    return sent.content == render.content(msg) and shown == wanted
