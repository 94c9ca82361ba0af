"""The Discord adapter: discord.py in front of the table service.

Two directions, both thin:

* **In** — every button press (`PayloadButton`) and slash command becomes one call on
  the `TableService`, acknowledged within Discord's 3 seconds of the press
  (`answers`).  Refusals go to the presser only, as an ephemeral reply with the
  core's reason.  An interaction the gateway delivers again (a replay after a
  resume) is dropped.
* **Out** — the service tells us of every change (`table_update`, called under the
  table's lock, so it only queues).  What changed decides what is shown where; the
  outboxes send it, rendering the *current* views when they send (`outbox`).

`DiscordAdapter` holds the state and the life of the adapter: logging in, running,
and a clean stop.  Its parts are mixins over that state, a module each:

* `users` — who and where a user is, what the bot may do in his channel, and
  forgetting him;
* `tables` — where a table plays: restored after a restart, opened, forgotten;
* `listener` — what a change at a table shows, and where;
* `answers` — answering an interaction within Discord's window, and its failures;
* `presses` — a button press, from its payload to its answer;
* `hands` — a player's hand: by DM, or as an ephemeral message when his DMs are closed;
* `pings` — a turn that rings after a wait, and the ring gone once he moved;
* `outbox` — the queues, and how each message is posted, edited or finished;
* `losses` — the gateway, a channel or a server lost.

`shape` is their one base: that state, and what the parts call on each other,
declared once so that mypy checks every part against it.

`client` is the discord.py client, which hands its events to the adapter; `ids` and
`errors` read the adapter's strings and Discord's failures; `commands` are the slash
commands.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

import aiohttp
import discord

from adapters.recent import Recent
from bot.config import Config
from bot.ports import PlatformUnreachable, TokenRejected
from bot.service import TableService
from bot.turn_pings import PING_AFTER, TurnPings

from .answers import ACK_BUDGET
from .client import AnyClient, SchnapsenClient, ShardedSchnapsenClient
from .hands import Hands
from .ids import PLATFORM
from .listener import Listener
from .losses import Losses
from .outbox import OutboxWorker
from .pings import Pings
from .presses import Presses
from .render import PayloadButton
from .tables import Tables
from .users import Users

log = logging.getLogger(__name__)

#: An ephemeral hand is edited through its interaction's token, valid for 15 minutes.
LIVE_TTL = 14 * 60.0
#: On stop, queued messages get this long to go out (bot.app allows 8 s in all).
DRAIN_TIMEOUT = 4.0

#: How many interactions' ids are remembered, so that one delivered again is dropped.
SEEN_INTERACTIONS = 10_000
#: How many users' locale, DM channel and closed DMs are kept (`Recent`: the least
#: recently used go, read when the adapter is made, so tests can shrink it).
USERS_KEPT = 10_000
#: Seconds between the tries of a message Discord failed to take (5xx, network).
RETRY_DELAYS = (2.0, 5.0, 15.0)


class DiscordAdapter(Listener, Tables, Users, Presses, Hands, Pings, OutboxWorker, Losses):
    """Runs one Discord client over a `TableService`; see the module docstring."""

    def __init__(
        self,
        service: TableService,
        config: Config,
        *,
        ack_budget: float = ACK_BUDGET,
        live_ttl: float = LIVE_TTL,
        retry_delays: tuple[float, ...] = RETRY_DELAYS,
        ping_after: float = PING_AFTER,
        **client_options: Any,
    ) -> None:
        self.service = service
        # the turn pings' state: see `Pings`
        self._turn_pings = TurnPings(ping_after)
        self._pings = {}
        self._reminded = set()
        self._reminded_at = {}
        self._ping_locks = {}
        self.config = config
        self.ack_budget = ack_budget
        self.live_ttl = live_ttl
        self.retry_delays = retry_delays
        sharded = config.discord_shard_count is not None or bool(config.discord_shard_ids)
        if config.discord_shard_ids and config.discord_shard_count is None:
            raise ValueError("DISCORD_SHARD_IDS needs DISCORD_SHARD_COUNT (the total)")
        self.client: AnyClient
        if sharded:
            self.client = ShardedSchnapsenClient(
                self,
                shard_count=config.discord_shard_count,
                shard_ids=config.discord_shard_ids,
                **client_options,
            )
        else:
            self.client = SchnapsenClient(self, **client_options)
        self.ready = asyncio.Event()
        # where each table's messages are, and their queues: see `OutboxWorker`
        self._channels = {}
        self._in_dm = set()
        self._refs = {}
        self._shown = {}
        self._outboxes = {}
        # what is known of the players and their hands: see `Hands`
        self._live = {}
        self._langs = Recent(USERS_KEPT, self._seated)
        self._dm_channels = Recent(USERS_KEPT)
        self._dm_closed = Recent(USERS_KEPT, self._seated)
        self._dm_noted = set()
        # the channels, servers and connections lost: see `Losses`
        self._lost = set()
        self._closers = set()
        self._down = set()
        self.answers_cut = Recent(SEEN_INTERACTIONS)  # see `Answering`
        #: Called each time the last queued message has gone out, or the last press or
        #: command being handled was answered, with nothing queued (tests wait on it).
        self.idle_callbacks: list[Callable[[], None]] = []
        #: Ids of the interactions handled, oldest first (`first_delivery`).
        self._delivered: Recent[int, None] = Recent(SEEN_INTERACTIONS)
        self._handling = 0  # presses and commands being handled
        self._handled = asyncio.Event()
        self._handled.set()

    # --- running -----------------------------------------------------------------------

    async def run(self, stop: asyncio.Event) -> None:
        """Log in, connect, keep the tables' messages up to date until `stop` is set."""
        token = self.config.discord_token
        if token is None:
            raise RuntimeError("DISCORD_TOKEN is not set")
        client = self.client
        self.service.listeners.append(self)  # changes from now on are queued
        connect: asyncio.Task[None] | None = None
        ended_here = False  # the connection was still running when we closed it
        try:
            await self._login(token.get_secret_value())
            await self._restore()  # before any press can arrive
            # logged in: the turns that waited for Discord since a restart start now
            await self.service.listen(self, PLATFORM)
            connect = asyncio.create_task(client.connect(reconnect=True), name="discord-connect")
            stopped = asyncio.create_task(stop.wait(), name="discord-stop")
            await asyncio.wait({connect, stopped}, return_when=asyncio.FIRST_COMPLETED)
            stopped.cancel()
        finally:
            if self._handling:
                log.info("stopping: %d presses or commands being answered", self._handling)
            with contextlib.suppress(TimeoutError):  # presses in flight finish first
                await asyncio.wait_for(self._handled.wait(), DRAIN_TIMEOUT / 2)
            with contextlib.suppress(ValueError):
                self.service.listeners.remove(self)
            for live in self._live.values():  # no last edit may come after the close
                if live.timer is not None:
                    live.timer.cancel()
            await self._drain_all(DRAIN_TIMEOUT / 2)
            ended_here = connect is not None and not connect.done()
            await client.close()
            if connect is not None:
                done, _ = await asyncio.wait({connect}, timeout=DRAIN_TIMEOUT)
                if not done:
                    connect.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await connect
        if connect is None or connect.cancelled() or (failed := connect.exception()) is None:
            return
        # closed while it was reconnecting, discord.py's loop ends in an error of its
        # own (its `dispatch` after `close`): a stop, not a failure
        if not ended_here:
            raise failed

    async def _login(self, token: str) -> None:
        """Log in, telling a wrong token (stop: a setting to fix) from a Discord that
        cannot be reached (the runner tries again).  Once logged in, discord.py itself
        reconnects the gateway through outages."""
        try:
            await self.client.login(token)
        except discord.LoginFailure:
            raise TokenRejected(
                "Discord rejected DISCORD_TOKEN (401 Unauthorized); copy the bot token "
                "again from the Developer Portal"
            ) from None
        except (OSError, aiohttp.ClientError, TimeoutError, discord.DiscordServerError) as e:
            raise PlatformUnreachable(f"{type(e).__name__}: {e}") from None

    async def setup(self) -> None:
        """`setup_hook`: the buttons that survive restarts, and the slash commands."""
        from .commands import Translator, install

        self.client.add_dynamic_items(PayloadButton)
        tree = self.client.tree
        install(tree, self)
        await tree.set_translator(Translator())
        await tree.sync()

    async def _drain_all(self, timeout: float) -> None:
        tasks = [
            b.task for b in self._outboxes.values() if b.task is not None and not b.task.done()
        ]
        tasks += self._closers
        if not tasks:
            return
        _, pending = await asyncio.wait(tasks, timeout=timeout)
        for task in pending:
            task.cancel()
        for task in pending:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    @contextlib.asynccontextmanager
    async def handling(self) -> AsyncIterator[None]:
        """Around a press or command that changes something: a stop waits for it."""
        self._handling += 1
        self._handled.clear()
        try:
            yield
        finally:
            self._handling -= 1
            if self._handling == 0:
                self._handled.set()
                self._if_idle()

    def idle(self) -> bool:
        """Nothing queued or being sent, no table being closed (for tests, a clean stop)."""
        return not self._closers and all(box.idle for box in self._outboxes.values())

    def _if_idle(self) -> None:
        if self.idle():
            for callback in list(self.idle_callbacks):
                callback()

    def first_delivery(self, interaction: discord.Interaction[Any]) -> bool:
        """False for an interaction handled already: after a RESUME the gateway may
        replay one the bot had received.  Done again, a press without a version to
        be stale by ("Add computer") would count twice, and any second answer is
        refused by Discord (40060)."""
        if self._delivered.first_time(interaction.id, None):
            return True
        log.info("interaction %s delivered again; dropped", interaction.id)
        return False


async def serve(service: TableService, config: Config, stop: asyncio.Event) -> None:
    """The adapter contract of `bot.app`: run the Discord bot until `stop` is set."""
    await DiscordAdapter(service, config).run(stop)
