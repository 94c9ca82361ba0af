"""The Discord adapter: discord.py in front of the table service.

Two directions, both thin:

* **In** — every button press (`PayloadButton`) and slash command becomes one call on
  the `TableService`, acknowledged within Discord's 3 seconds of the press (answered
  at once when the core is quick, deferred first when it is not).  Refusals go to the
  presser only, as an ephemeral reply with the core's reason.  An interaction the
  gateway delivers again (a replay after a resume) is dropped.
* **Out** — the service tells us of every change (`table_update`, called under the
  table's lock, so it only queues).  Each table has outboxes — one for its channel,
  one for each player's hand — worked by a task each, that render the *current* views
  when they send, so a burst of changes costs one edit per message (coalescing), each
  message changes in the order things happened, and one slow DM holds up nobody else.

Where things are shown, per table (slot → platform message, persisted with
`store.set_message_ref` so a restarted bot edits the same messages):

* ``lobby`` — the lobby message in the channel (the reply to ``/schnapsen new``);
* ``table`` — the table message; a new one each deal (messages older than an hour
  cannot be edited freely), the old one keeps the deal's final picture;
* ``hand:<user>`` — the user's hand, by direct message, with the legal moves as
  buttons; a new one each deal.  When a user's DMs are closed (403 / 50007) the
  channel says so once, and the table's "Show my hand" button opens the hand as an
  ephemeral message, which is kept up to date through that interaction's token
  while it lasts (`live:<user>`, in memory only: 15 minutes at most), and says so
  when it stops; an out-of-date button on it redraws it, current again.

When Discord fails: a 5xx or a network error is tried again a few times, rendering
the newest state (a post keeps its nonce, so Discord makes it once), and the first
answer to an interaction within its 3 seconds; when the bot may not use a table's
channel or thread any more (deleted, access or the right to post taken, removed from
the server) the tables there close as an abort, once, and their players are told by
DM.  While any shard has no gateway connection, the persons' turns wait.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import io
import logging
import re
import secrets
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

import aiohttp
import discord
from discord import app_commands

from adapters.recent import Recent
from bot.config import Config
from bot.i18n import TEXTS, norm_lang, supported_lang, t
from bot.payload import SELF, loggable, parsed
from bot.ports import PlatformUnreachable, TokenRejected
from bot.records import RecordFile
from bot.service import ChatRef, Outcome, TableService, TableUpdate, UserRef
from bot.store import StoreError
from bot.table import Status, Table
from bot.turn_pings import PING_AFTER, TurnPings
from bot.turn_pings import SLOT as PING
from bot.views import HandView, Message, hand_title, match_summary_text, started_lobby_text

from . import render
from .render import PayloadButton, fingerprint
from .texts import as_on_discord, text

log = logging.getLogger(__name__)

#: What a question's button (`Outcome.confirm`) answers when it has done its work.
_CONFIRMED = frozenset({"resigned", "forgotten"})

PLATFORM = "dc"
T = TypeVar("T")

#: `Interaction.extras` key: the interaction was deferred as a public "thinking…".
PUBLIC_THINKING = "schnapsen_public_thinking"
#: Seconds the core may take before a press or command is deferred (Discord: 3 s).
ACK_BUDGET = 2.0
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
#: Discord's window for the first answer to an interaction, and how much of its end we
#: leave unused (clocks and the network are not exact).
ACK_WINDOW = 3.0
ACK_MARGIN = 0.25
#: Seconds one try of a first answer may take: less than the second discord.py waits
#: before it tries a 5xx again itself, so our shorter pauses below decide instead.
ACK_TRY = 0.6
ACK_RETRY_DELAYS = (0.1, 0.25)

UNKNOWN_MESSAGE = 10008
ALREADY_ACKNOWLEDGED = 40060
OLD_MESSAGE = 30046
DMS_CLOSED = 50007
#: Discord's answers when the bot may not use a channel (any more).
CHANNEL_REFUSALS = frozenset({10003, 50001, 50013})  # unknown channel, no access, no right
#: The payload verb of "Take my seat back".
TAKE_BACK = "tb"
#: Abort reasons of tables whose channel, or whose server, the bot lost.
CHANNEL_LOST = "channel_lost"
SERVER_LOST = "server_lost"
#: What may pass on a second try: Discord's 5xx, the network.
OUTAGES = (discord.DiscordServerError, aiohttp.ClientError, OSError, TimeoutError)
#: Channels where posting takes "Send Messages in Threads", not "Send Messages".
THREADS = frozenset(
    {
        discord.ChannelType.public_thread,
        discord.ChannelType.private_thread,
        discord.ChannelType.news_thread,
    }
)


# --- the client ------------------------------------------------------------------------


def intents() -> discord.Intents:
    """Interactions need no intent; guilds keep the channel cache.  Nothing privileged."""
    return discord.Intents(guilds=True)


class _Hooks:
    """What our client adds to discord.py's (plain or auto-sharded) client."""

    schnapsen: DiscordAdapter

    async def setup_hook(self) -> None:
        await self.schnapsen.setup()

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        await self.schnapsen.on_interaction(interaction)

    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        self.schnapsen.channel_lost(channel.id, "was deleted")

    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        """A table opened in a thread plays there.  Raw: a thread not in discord.py's
        cache is announced too; discord.py also sends it for the cached threads of a
        deleted channel."""
        self.schnapsen.channel_lost(payload.thread_id, "was deleted")

    async def on_guild_remove(self, guild: discord.Guild) -> None:
        """The bot was removed from the server (an outage is `on_guild_unavailable`)."""
        self.schnapsen.server_lost(guild.id)


class _Tree(app_commands.CommandTree[Any]):
    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        """A command delivered a second time (a replay after a resume) is not run
        again: it would open a second table, or answer twice (40060)."""
        adapter: DiscordAdapter = self.client.schnapsen
        return adapter.first_delivery(interaction)


class SchnapsenClient(_Hooks, discord.Client):
    def __init__(self, adapter: DiscordAdapter, **options: Any) -> None:
        super().__init__(
            intents=intents(), allowed_mentions=discord.AllowedMentions.none(), **options
        )
        self.schnapsen = adapter
        self.tree: app_commands.CommandTree[Any] = _Tree(self)

    async def on_ready(self) -> None:
        self.schnapsen.ready.set()
        await self.schnapsen.gateway_back()

    async def on_disconnect(self) -> None:
        self.schnapsen.gateway_lost()

    async def on_resumed(self) -> None:
        await self.schnapsen.gateway_back()


class ShardedSchnapsenClient(_Hooks, discord.AutoShardedClient):
    """Each shard drops and comes back on its own: the turns wait while any is down
    (a server's presses come through its shard only).  discord.py's shard-less
    `on_disconnect` / `on_resumed` fire for every shard, and `on_ready` after a lone
    shard identified anew not at all, so the shard events decide."""

    def __init__(self, adapter: DiscordAdapter, **options: Any) -> None:
        super().__init__(
            intents=intents(), allowed_mentions=discord.AllowedMentions.none(), **options
        )
        self.schnapsen = adapter
        self.tree: app_commands.CommandTree[Any] = _Tree(self)

    async def on_ready(self) -> None:
        self.schnapsen.ready.set()

    async def on_shard_disconnect(self, shard_id: int) -> None:
        self.schnapsen.gateway_lost(shard_id)

    async def on_shard_ready(self, shard_id: int) -> None:
        await self.schnapsen.gateway_back(shard_id)

    async def on_shard_resumed(self, shard_id: int) -> None:
        await self.schnapsen.gateway_back(shard_id)


AnyClient = SchnapsenClient | ShardedSchnapsenClient


class NotAnswered(Exception):
    """The first answer to an interaction did not reach Discord within its window."""


# --- the outbox --------------------------------------------------------------------------


@dataclass
class Op:
    """One thing to show.  ``edit``/``post`` render the slot from the service when they
    run (the newest state); ``final`` shows a message computed when it was queued (the
    table may be gone by then) and forgets the slot; ``note`` posts text in the channel,
    ``tell`` sends it to the slot's player by DM; ``ping`` replies to his DM hand that
    it is his turn, ``unping`` deletes that reply."""

    kind: Literal["edit", "post", "final", "note", "tell", "close", "ping", "unping", "remind"]
    slot: str = ""
    message: Message | None = None
    mentions: tuple[int, ...] = ()
    #: A reminder's table version: it is for that turn only, not sent once he moved.
    version: int | None = None
    #: Sent with a post: Discord makes a message once per nonce, however often tried.
    nonce: int = field(default_factory=lambda: secrets.randbits(63))


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


@dataclass
class _Live:
    """An ephemeral hand we can still edit (through an interaction token)."""

    edit: Callable[[str, discord.ui.View | None], Awaitable[Any]]
    expires: float
    #: Its last edit, when `expires` comes (see `DiscordAdapter._go_live`).
    timer: asyncio.TimerHandle | None = None


# --- the adapter -------------------------------------------------------------------------


class DiscordAdapter:
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
        #: Turns that come after a wait ring by DM (`bot.turn_pings`); the DM ping of
        #: each (table, user) that shows, until he moves: (channel, message).
        self._turn_pings = TurnPings(ping_after)
        self._pings: dict[tuple[str, str], tuple[int, int]] = {}
        #: The (table, user) whose standing ping is the channel's reminder: a DM ping
        #: that queued behind a slow edit of his hand meanwhile does not replace it.
        self._reminded: set[tuple[str, str]] = set()
        # the table's moves (deals, moves in its deal) when a player was reminded: any
        # move since was his, and ended the turn the reminder spoke of
        self._reminded_at: dict[tuple[str, str], tuple[int, int]] = {}
        #: One ping, reminder or delete of one (table, user) at a time: the reminder
        #: goes in the channel's queue, his pings in his own, and two sent at once
        #: would leave one standing for good.
        self._ping_locks: dict[tuple[str, str], asyncio.Lock] = {}
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
        self._channels: dict[str, int] = {}  # table → the channel it plays in
        self._in_dm: set[str] = set()  # tables played in a DM (`_plays_in`)
        self._refs: dict[str, dict[str, tuple[int, int]]] = {}  # table → slot → message
        self._shown: dict[tuple[str, str], render.Fingerprint] = {}
        #: Per table: the channel's queue (lobby, table, notes: key "") and one per
        #: player's hand ("hand:<user>", "live:<user>"), each worked by its own task.
        self._outboxes: dict[tuple[str, str], _Outbox] = {}
        self._live: dict[tuple[str, str], _Live] = {}
        #: User key → Discord locale: a player's, kept while seated, sets his hands'
        #: language; anyone else's is set again by their next interaction.
        self._langs: Recent[str, str] = Recent(USERS_KEPT, self._seated)
        self._dm_channels: Recent[str, int] = Recent(USERS_KEPT)  # a miss: create_dm again
        #: Players whose DMs refused a hand: they play through "Show my hand".
        self._dm_closed: Recent[str, None] = Recent(USERS_KEPT, self._seated)
        self._dm_noted: set[tuple[str, str]] = set()
        self._lost: set[str] = set()  # tables whose channel the bot may not use any more
        self._closers: set[asyncio.Task[None]] = set()  # closing them
        self._down: set[int] = set()  # shards without a gateway connection
        #: First answers cut after `ACK_TRY` and tried again: a slow answer may still
        #: have reached Discord, and then the retry meets 40060 (counted for the tests).
        self.answers_cut = 0
        #: Called each time the last queued message has gone out (tests wait on it).
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
            with contextlib.suppress(TimeoutError):  # presses in flight finish first
                await asyncio.wait_for(self._handled.wait(), DRAIN_TIMEOUT / 2)
            with contextlib.suppress(ValueError):
                self.service.listeners.remove(self)
            for live in self._live.values():  # no last edit may come after the close
                if live.timer is not None:
                    live.timer.cancel()
            await self._drain_all(DRAIN_TIMEOUT / 2)
            await client.close()
            if connect is not None:
                done, _ = await asyncio.wait({connect}, timeout=DRAIN_TIMEOUT)
                if not done:
                    connect.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await connect
        if connect is not None and not connect.cancelled() and connect.exception() is not None:
            raise connect.exception()  # type: ignore[misc]

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

    async def _restore(self) -> None:
        """Pick up open tables: where their messages are, and show their current state
        (a change may have been stored just before the last stop, never shown)."""
        for table_id, table in list(self.service.tables.items()):
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
            for user in self.service.seat_users(table_id):
                known = None if user in self._langs else await self.service.store.player(user)
                if known is not None and known[1]:
                    self._langs[user] = known[1]  # hands in each player's language
            slots = self._refs.setdefault(table_id, {})
            for slot, ref in refs.items():
                parsed = _parse_ref(ref)
                if parsed is not None and slot.startswith(PING):
                    # a ping the last run left: whose turn it rang is not known
                    # any more, and the reminder comes anyway; it goes
                    self._pings[(table_id, slot[len(PING) :])] = parsed
                    self._add(table_id, Op("unping", f"hand:{slot[len(PING) :]}"))
                elif parsed is not None:
                    slots[slot] = parsed
                    if slot.startswith("hand:"):
                        self._dm_channels[slot[5:]] = parsed[0]
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

    # --- who and where -----------------------------------------------------------------

    def user(self, interaction: discord.Interaction[Any]) -> UserRef:
        who = interaction.user
        locale = interaction.locale.value if interaction.locale else None
        # at the table a server's members know him by his nickname there; boards and
        # records, which other servers show too, by his account's name
        account = who.global_name or who.name
        lang = supported_lang(locale)  # a French client: the server's, see `who`
        ref = UserRef(PLATFORM, str(who.id), who.display_name, lang=lang, account_name=account)
        if lang:
            self._langs[ref.key] = lang
        return ref

    async def who(
        self, interaction: discord.Interaction[Any], pressed: str | None = None
    ) -> UserRef:
        """`user` as answers address him (`TableService.reader`): a French client in a
        German server reads German there, and a press (`pressed`, its payload) its
        table's language, in his DMs too."""
        return await self.service.reader(self.user(interaction), self.chat(interaction), pressed)

    async def _failed_lang(self, interaction: discord.Interaction[Any]) -> str | None:
        """The language of a failure's answer: `who`'s, or his own alone when even that
        cannot be read (the store failing is often why the command failed)."""
        try:
            return (await self.who(interaction)).speaks
        except Exception:  # the answer matters more than its language
            return self.user(interaction).lang

    @staticmethod
    def chat(interaction: discord.Interaction[Any]) -> ChatRef:
        """A server is a chat (its settings, its leaderboard); a DM is one of its own."""
        if interaction.guild_id is not None:
            name = interaction.guild.name if interaction.guild is not None else ""
            # the server's preferred locale: its tables' language until an admin sets one
            locale = interaction.guild_locale.value if interaction.guild_locale else None
            return ChatRef(PLATFORM, str(interaction.guild_id), name, lang=locale)
        return ChatRef(PLATFORM, str(interaction.channel_id))  # a DM: no place to name

    @staticmethod
    def missing_permissions(interaction: discord.Interaction[Any]) -> list[str]:
        """What a table in the interaction's channel would need and the bot lacks
        there (`discord.Permissions` flag names, from Discord's ``app_permissions``).

        Checked before a table opens: its lobby is the command's reply, which needs no
        right in the channel, so a table opened without them would look fine and close
        at its first edit (no "View Channel": 50001) or post (no "Send Messages":
        50013), its players told the bot cannot post there "any more".  Only what the
        adapter uses: it edits its messages by id and never reads or replies to
        others (no "Read Message History"), and sends text and buttons only (no
        "Embed Links", no "Attach Files" — a record goes as an interaction reply).
        In a DM with the bot it may always post."""
        if interaction.guild_id is None:
            return []
        have = interaction.app_permissions
        thread = getattr(interaction.channel, "type", None) in THREADS
        needed = ("view_channel", "send_messages_in_threads" if thread else "send_messages")
        return [name for name in needed if not getattr(have, name)]

    async def ask(
        self, interaction: discord.Interaction[Any], outcome: Outcome, user: UserRef
    ) -> None:
        """The core's answer to a command that asks first (/resign, /forgetme): the
        question with the button that does it, seen by him alone; or the refusal."""
        view = None
        if outcome.confirm is not None:
            label, payload = outcome.confirm
            view = discord.ui.View(timeout=None)
            view.add_item(render.PayloadButton(payload, label))
        await self.reply(interaction, outcome.text or text(user.speaks, "done"), view=view)

    def forget_user(self, user: str, *, done: bool = True) -> None:
        """After /forgetme: nothing of the user stays here either (the core dropped
        their message refs; the computer plays their seats).  `done` False: the
        deletion failed part way, after some tables gave his seat to the computer;
        the hands and pings of those go all the same, the rest stays."""

        def still_his(table_id: str) -> bool:
            table = self.service.tables.get(table_id)
            return table is not None and table.seat_of(user) is not None

        for table_id, pinged in list(self._pings):  # his ping goes with him
            if pinged == user and not still_his(table_id):
                self._add(table_id, Op("unping", f"hand:{user}"))
        for table_id, slots in self._refs.items():
            # his DM hand stops following the game: it says why, without buttons (the
            # slot goes with this last edit)
            # (a table his leaving closed said so as it closed, and its refs go with it)
            table = self.service.tables.get(table_id)
            if f"hand:{user}" in slots and table is not None and not still_his(table_id):
                note = self._hand_note(table_id, user, table, "hand.forgotten")
                self._add(table_id, Op("final", f"hand:{user}", note))
        if not done:
            return
        self._langs.pop(user, None)
        self._dm_channels.pop(user, None)
        self._dm_closed.pop(user, None)
        for key in [k for k in self._live if k[1] == user]:
            self._drop_live(key)

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
            self._add(table_id, Op("final", "lobby"))
            self._add(table_id, Op("close"))
            return
        self._add(table_id, Op("edit", "lobby"))

    def _seated(self) -> set[str]:
        """The players at the tables shown here (`_Recent` keeps what it knows of them)."""
        return {user for tid in self._channels for user in self.service.seat_users(tid)}

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
        table = self.service.tables.get(table_id)
        if table is not None and table.chat == ChatRef(PLATFORM, str(channel_id)).key:
            self._in_dm.add(table_id)

    # --- in: answering within Discord's deadline ------------------------------------------

    async def within_budget(
        self,
        interaction: discord.Interaction[Any],
        work: Awaitable[T],
        *,
        ephemeral: bool = True,
        thinking: bool = False,
    ) -> T:
        """Await `work`; if it takes longer than the budget, acknowledge first.  The
        budget counts from the press, as Discord's window does, not from when the bot
        got it: a lagging gateway or a busy loop may have used part of it already."""
        task = asyncio.ensure_future(work)
        waited = max(0.0, time.time() - interaction.created_at.timestamp())
        try:
            return await asyncio.wait_for(asyncio.shield(task), max(0.0, self.ack_budget - waited))
        except TimeoutError:
            if not interaction.response.is_done():
                # a command's defer "thinks" always, a press's only when asked to
                command = interaction.type is discord.InteractionType.application_command
                await self.first_response(
                    interaction,
                    lambda: interaction.response.defer(ephemeral=ephemeral, thinking=thinking),
                    discord.InteractionResponseType.deferred_channel_message
                    if thinking or command
                    else discord.InteractionResponseType.deferred_message_update,
                )
                if not ephemeral and (thinking or command):
                    interaction.extras[PUBLIC_THINKING] = True
            return await task

    async def first_response(
        self,
        interaction: discord.Interaction[Any],
        send: Callable[[], Awaitable[T]],
        kind: discord.InteractionResponseType,
        again: Callable[[], Awaitable[object]] | None = None,
    ) -> T | None:
        """Send the first answer to an interaction, tried again after a 5xx or a network
        error while Discord's 3 seconds last: unanswered, the user sees "This
        interaction failed" although the press counted.  A try whose answer was lost may
        have reached Discord: then the next one is refused with 40060, which means it is
        done (and the result, None, unknown).  What it showed is not known either (a try
        cut mid-way may have been acknowledged without its content), so `again` then
        shows it once more as an edit of that answer.  `NotAnswered` when no try got
        through."""
        deadline = interaction.created_at.timestamp() + ACK_WINDOW - ACK_MARGIN
        delays = iter(ACK_RETRY_DELAYS)
        retried = False
        while True:
            try:
                async with asyncio.timeout(ACK_TRY):
                    return await send()
            except discord.HTTPException as e:
                if retried and e.code == ALREADY_ACKNOWLEDGED:
                    # discord.py did not see its answer arrive: tell it, so that what
                    # follows goes out as followups and edits of this answer
                    interaction.response._response_type = kind
                    if again is not None:
                        with contextlib.suppress(discord.HTTPException, *OUTAGES):
                            await again()
                    return None
                if not isinstance(e, discord.DiscordServerError):
                    raise
                error: Exception = e
            except (aiohttp.ClientError, OSError, TimeoutError) as e:
                if isinstance(e, TimeoutError):
                    self.answers_cut += 1
                error = e
            delay = next(delays, None)
            if delay is None or time.time() + delay >= deadline:
                raise NotAnswered(f"{type(error).__name__}: {error}") from error
            retried = True
            await asyncio.sleep(delay)

    async def reply(
        self,
        interaction: discord.Interaction[Any],
        content: str,
        *,
        view: discord.ui.View | None = None,
        ephemeral: bool = True,
        file: RecordFile | None = None,
    ) -> int | None:
        """Answer (or follow up on a deferred interaction); the new message's id.  The
        view and the file go with the first 2,000 characters, any more text follows in
        further messages."""
        lang = interaction.locale.value if interaction.locale else None
        first, *rest = render.parts(as_on_discord(content, lang))
        sent = await self._answer_once(interaction, first, view, ephemeral, file)
        for part in rest:
            await interaction.followup.send(part, ephemeral=ephemeral, wait=True)
        return sent

    async def _answer_once(
        self,
        interaction: discord.Interaction[Any],
        content: str,
        view: discord.ui.View | None,
        ephemeral: bool,
        file: RecordFile | None,
    ) -> int | None:
        def message(**kwargs: Any) -> dict[str, Any]:
            # a discord.File is read (and closed) by the try that sends it: a fresh
            # one for every try
            if view is not None:
                kwargs["view"] = view
            if file is not None:
                kwargs["file"] = discord.File(io.BytesIO(file.data), filename=file.filename)
            return kwargs

        if file is not None and not interaction.response.is_done():
            # an upload may take longer than a first answer's short try (a record of a
            # long match is half a megabyte): acknowledge first, then send it as the
            # follow-up, which has no such window
            await self.first_response(
                interaction,
                lambda: interaction.response.defer(ephemeral=ephemeral, thinking=True),
                discord.InteractionResponseType.deferred_channel_message,
            )
        if interaction.response.is_done():
            if interaction.extras.pop(PUBLIC_THINKING, False) and ephemeral:
                await self._drop_public_thinking(interaction)
            sent = await interaction.followup.send(
                content, wait=True, **message(ephemeral=ephemeral)
            )
            return sent.id
        response = await self.first_response(
            interaction,
            lambda: interaction.response.send_message(content, **message(ephemeral=ephemeral)),
            discord.InteractionResponseType.channel_message,
        )
        if response is not None:
            return response.message_id
        # it was sent, its answer lost: make sure it reads right (a try cut mid-way may
        # have left it without its file), and learn its id
        edits = message()
        if "file" in edits:
            edits["attachments"] = [edits.pop("file")]
        with contextlib.suppress(discord.HTTPException, *OUTAGES):
            return (await interaction.edit_original_response(content=content, **edits)).id
        return None

    async def _drop_public_thinking(self, interaction: discord.Interaction[Any]) -> None:
        """A public "thinking…" answer is about to get a private reply (a refusal of a
        slow `/schnapsen new`).  Discord makes the first follow-up fill in the
        thinking message with the defer's visibility, whatever its own flags say: it
        would show the refusal to the whole channel.  With the thinking message
        deleted first, the follow-up is a message of its own, seen by the user only."""
        try:
            await interaction.delete_original_response()
        except (discord.HTTPException, *OUTAGES) as e:
            log.warning("a thinking answer could not be removed: %s", e)

    # --- in: button presses --------------------------------------------------------------

    async def press(self, interaction: discord.Interaction[Any], payload: str) -> None:
        """One button press, whatever the button: the core decides what it means and
        whether this user may press it."""
        if not self.first_delivery(interaction):
            return
        async with self.handling():
            await self._press(interaction, payload)

    async def _press(self, interaction: discord.Interaction[Any], payload: str) -> None:
        user = await self.who(interaction, payload)
        message = interaction.message
        table_id = _table_of(payload)
        on_hand = (
            message is not None
            and table_id is not None
            and self._is_hand(table_id, user.key, message)
        )
        # "Rematch" opens a table: where only admins may, Manage Server counts, as
        # for /schnapsen new
        is_admin = interaction.guild_id is None or interaction.permissions.manage_guild
        try:
            outcome = await self.within_budget(
                interaction,
                self.service.act(user, payload, self.chat(interaction), is_admin=is_admin),
            )
        except (discord.HTTPException, NotAnswered, *OUTAGES) as e:  # could not even defer
            log.warning("a press (%s) could not be acknowledged: %s", loggable(payload), e)
            self._unanswered(table_id, user.key)
            return
        except Exception:
            log.exception("a press (%s) failed", loggable(payload))
            with contextlib.suppress(discord.HTTPException, NotAnswered):
                await self.reply(interaction, text(user.speaks, "failed"))
            return
        if outcome.ok and outcome.hand is None and table_id is not None:
            outcome = self._with_hand(outcome, table_id, user, payload)
        try:
            await self._answer(interaction, user, outcome, table_id, on_hand)
        except (discord.HTTPException, NotAnswered, *OUTAGES) as e:
            # a network error too: left to discord.py it would log the button, label
            # (a card of the presser's hand) and all
            log.warning("could not answer a press (%s): %s", loggable(payload), e)
            self._unanswered(table_id, user.key)

    def said(
        self, interaction: discord.Interaction[Any], user: UserRef, outcome: Outcome
    ) -> str | None:
        """The core's note for the presser.  "You already play at another table"
        says which and where: on Discord it may be in any channel or thread of the
        server (a lobby opened and forgotten there keeps its host from opening one)."""
        if outcome.code != "seated_elsewhere" or outcome.text is None:
            return outcome.text
        table = self.service.table_of(self.chat(interaction).key, user.key)
        channel = self._channels.get(table.id) if table is not None else None
        if table is None or channel is None:
            return outcome.text
        where = text(user.speaks, "seated_at", table=table.id, channel=f"<#{channel}>")
        return f"{outcome.text} {where}"

    def _with_hand(self, outcome: Outcome, table_id: str, user: UserRef, payload: str) -> Outcome:
        """Back in his seat, a player whose DMs are closed has no hand to play from
        until he asks for one: the answer to "Take my seat back" is his hand."""
        if user.key not in self._dm_closed or _verb_of(payload) != TAKE_BACK:
            return outcome
        hand = self.service.hand(table_id, user.key, self._langs.get(user.key))
        return outcome if hand is None else dataclasses.replace(outcome, hand=hand)

    async def command_failed(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError
    ) -> None:
        """The command tree's error handler.  discord.py's own logs an ERROR and
        answers nothing, so the user sees "The application did not respond": an answer
        Discord would not take is a warning (as for presses), anything else a fault
        the user is told of (the traceback logged; options never hold a card)."""
        cause = error.original if isinstance(error, app_commands.CommandInvokeError) else error
        name = interaction.command.qualified_name if interaction.command else "?"
        if isinstance(cause, (NotAnswered, discord.HTTPException, *OUTAGES)):
            log.warning("could not answer /%s: %s", name, cause)
            return
        log.error("/%s failed", name, exc_info=cause)
        with contextlib.suppress(discord.HTTPException, NotAnswered, *OUTAGES):
            await self.reply(interaction, text(await self._failed_lang(interaction), "failed"))

    def _unanswered(self, table_id: str | None, user: str) -> None:
        """The presser saw "This interaction failed" and no answer: whatever the press
        did (a move counts all the same), their hand shows the table as it now is."""
        if table_id is not None:
            self._refresh_hand(table_id, user)

    def _is_hand(self, table_id: str, user: str, message: discord.Message) -> bool:
        """Whether the pressed message is `user`'s own hand: only then is it edited into
        his hand.  An ephemeral message is his if it answered his interaction (a forged
        press on another's ephemeral hand must not write this hand into it)."""
        if message.flags.ephemeral:
            meta = message.interaction_metadata
            return meta is not None and f"dc:{meta.user.id}" == user
        ref = self._refs.get(table_id, {}).get(f"hand:{user}")
        return ref is not None and ref[1] == message.id

    async def _answer(
        self,
        interaction: discord.Interaction[Any],
        user: UserRef,
        outcome: Outcome,
        table_id: str | None,
        on_hand: bool,
    ) -> None:
        pressed = interaction.message
        ephemeral_hand = on_hand and pressed is not None and pressed.flags.ephemeral
        if outcome.code in _CONFIRMED:
            await self._confirmed(interaction, user, outcome)
            return
        if table_id == SELF:  # /forgetme's button, failed part way: what was done shows
            self.forget_user(user.key, done=False)
        if outcome.hand is not None:
            await self._show_hand(interaction, user, outcome.hand, on_hand, ephemeral_hand)
            return
        if outcome.code == "rematch" and outcome.lobby is not None and outcome.table_id:
            # "Rematch" opened a lobby: it is the answer, in the channel, as after /new
            await self.opened(interaction, outcome.table_id, outcome.lobby.message)
            return
        if outcome.code == "stale" and ephemeral_hand and table_id is not None:
            # an ephemeral hand that stopped following the game (its token ran out) or
            # fell behind: the press brings it up to date in place, with a fresh token
            current = self.service.hand(table_id, user.key, self._langs.get(user.key))
            if current is not None:
                await self._show_hand(interaction, user, current, on_hand, ephemeral_hand)
                return
        if outcome.text:
            await self.reply(interaction, self.said(interaction, user, outcome) or outcome.text)
            if outcome.code == "stale" and on_hand and table_id is not None:
                self._refresh_hand(table_id, user.key)  # the hand shows old buttons
            return
        if not interaction.response.is_done():
            await self.first_response(
                interaction,
                interaction.response.defer,
                discord.InteractionResponseType.deferred_message_update,
            )
        if ephemeral_hand and table_id is not None and table_id in self._channels:
            # keep editing this ephemeral hand through the newest token
            self._go_live(
                table_id,
                user.key,
                lambda c, v: interaction.edit_original_response(content=c, view=v),
            )
            self._shown.pop((table_id, f"live:{user.key}"), None)
            self._add(table_id, Op("edit", f"live:{user.key}"))

    async def _confirmed(
        self, interaction: discord.Interaction[Any], user: UserRef, outcome: Outcome
    ) -> None:
        """A question's button did what it asked: the question (his alone) becomes the
        answer, without the button."""
        if outcome.code == "forgotten":
            self.forget_user(user.key)
        words = outcome.text or text(user.speaks, "done")
        if interaction.response.is_done():  # deferred: the pressed message is @original
            await interaction.edit_original_response(content=words, view=None)
            return
        await self.first_response(
            interaction,
            lambda: interaction.response.edit_message(content=words, view=None),
            discord.InteractionResponseType.message_update,
            lambda: interaction.edit_original_response(content=words, view=None),
        )

    async def _show_hand(
        self,
        interaction: discord.Interaction[Any],
        user: UserRef,
        hand: HandView,
        on_hand: bool,
        ephemeral_hand: bool,
    ) -> None:
        """A hand for this user only: in place of the hand they pressed on (a menu),
        or as a new ephemeral message ("Show my hand")."""
        table_id = hand.table_id
        msg = hand.message
        live_slot = (table_id, f"live:{user.key}")
        version = _drawn_at(msg) or self._version(table_id)
        if on_hand:
            if interaction.response.is_done():  # deferred: the pressed message is @original
                await interaction.edit_original_response(
                    content=render.content(msg), view=render.view(msg)
                )
            else:
                await self.first_response(
                    interaction,
                    lambda: interaction.response.edit_message(
                        content=render.content(msg), view=render.view(msg)
                    ),
                    discord.InteractionResponseType.message_update,
                    lambda: interaction.edit_original_response(
                        content=render.content(msg), view=render.view(msg)
                    ),
                )
            if ephemeral_hand:
                self._go_live(
                    table_id,
                    user.key,
                    lambda c, v: interaction.edit_original_response(content=c, view=v),
                )
                self._shown[live_slot] = fingerprint(msg)
            else:
                self._shown.pop((table_id, f"hand:{user.key}"), None)
        else:
            edit = await self._new_ephemeral(interaction, msg)
            if table_id in self._channels:
                old = self._live.get((table_id, user.key))
                self._go_live(table_id, user.key, edit)
                self._shown[live_slot] = fingerprint(msg)
                if old is not None and old.expires > _now():
                    # the hand shown before stops following the game: it says where
                    # to look, without buttons that would act on an old picture
                    note = text(self._langs.get(user.key), "live_moved")
                    with contextlib.suppress(discord.HTTPException, *OUTAGES):
                        await old.edit(render.content(_noted(msg, note)), None)
        if self._version(table_id) != version:
            self._refresh_hand(table_id, user.key)  # the table moved on meanwhile

    async def _new_ephemeral(
        self, interaction: discord.Interaction[Any], msg: Message
    ) -> Callable[[str, discord.ui.View | None], Awaitable[Any]]:
        """Show `msg` to the presser only; how to edit it while the token lasts."""
        kwargs: dict[str, Any] = _view_kwargs(msg)
        if interaction.response.is_done():
            sent = await interaction.followup.send(
                render.content(msg), ephemeral=True, wait=True, **kwargs
            )

            async def edit_followup(content: str, view: discord.ui.View | None) -> None:
                await sent.edit(content=content, view=view)

            return edit_followup
        await self.first_response(
            interaction,
            lambda: interaction.response.send_message(
                render.content(msg), ephemeral=True, **kwargs
            ),
            discord.InteractionResponseType.channel_message,
            lambda: interaction.edit_original_response(
                content=render.content(msg), view=render.view(msg)
            ),
        )

        async def edit_original(content: str, view: discord.ui.View | None) -> None:
            await interaction.edit_original_response(content=content, view=view)

        return edit_original

    def _go_live(
        self,
        table_id: str,
        user: str,
        edit: Callable[[str, discord.ui.View | None], Awaitable[Any]],
    ) -> None:
        """Follow the game in this ephemeral hand while its token lasts.  When it ends
        the hand is edited once more, saying that it stopped (else it would keep
        saying "Waiting for ..." when it is long the player's turn)."""
        self._drop_live((table_id, user))
        live = self._live[(table_id, user)] = _Live(edit, _now() + self.live_ttl)

        def ended() -> None:
            if self._live.get((table_id, user)) is live and table_id in self._channels:
                self._add(table_id, Op("edit", f"live:{user}"))

        live.timer = asyncio.get_running_loop().call_later(self.live_ttl, ended)

    def _drop_live(self, key: tuple[str, str]) -> _Live | None:
        live = self._live.pop(key, None)
        if live is not None and live.timer is not None:
            live.timer.cancel()
        return live

    def _version(self, table_id: str) -> int | None:
        table = self.service.tables.get(table_id)
        return None if table is None else table.version

    def _refresh_hand(self, table_id: str, user: str) -> None:
        if table_id not in self._channels:
            return
        for slot in (f"hand:{user}", f"live:{user}"):
            self._shown.pop((table_id, slot), None)
        if f"hand:{user}" in self._refs.get(table_id, {}):
            self._add(table_id, Op("edit", f"hand:{user}"))
        if (table_id, user) in self._live:
            self._add(table_id, Op("edit", f"live:{user}"))

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        """A component that is not ours (no ``s:`` payload): say so instead of
        letting the user see "This interaction failed"."""
        if interaction.type != discord.InteractionType.component:
            return
        data: dict[str, Any] = dict(interaction.data or {})
        custom_id = str(data.get("custom_id", ""))
        if PayloadButton.__discord_ui_compiled_template__.fullmatch(custom_id):
            return
        if not self.first_delivery(interaction):
            return
        with contextlib.suppress(discord.HTTPException, NotAnswered):
            await self.reply(interaction, text((await self.who(interaction)).speaks, "not_here"))

    # --- out: the listener ---------------------------------------------------------------

    async def table_update(self, update: TableUpdate) -> None:
        """Called by the core under the table's lock: only decide what to show."""
        if update.platform != PLATFORM:
            return
        table_id = update.table_id
        if table_id not in self._channels:
            # the lobby of a table being opened: `/schnapsen new` shows it itself
            return
        kind = update.kind
        humans = self.service.seat_users(table_id)
        add = self._add
        if kind == "lobby":
            add(table_id, Op("edit", "lobby"))
        elif kind == "started":
            lobby = self.service.lobby(table_id)
            if lobby is not None and "lobby" in self._refs.get(table_id, {}):
                add(table_id, Op("final", "lobby", self._started_lobby(table_id, lobby.message)))
            add(table_id, Op("post", "table"))
            self._turn_pings.new_hands(table_id)
            for user in humans:
                self._dm_closed.pop(user, None)  # one new try each deal, never a loop
                add(table_id, Op("final", f"hand:{user}"))
                add(table_id, Op("post", f"hand:{user}"))
                self._ring(table_id, user, new=True)
                if (table_id, user) in self._live:
                    add(table_id, Op("edit", f"live:{user}"))
        elif kind in ("action", "replaced"):
            add(table_id, Op("edit", "table"))
            for user in humans:
                add(table_id, Op("edit", f"hand:{user}"))
                self._ring(table_id, user, new=False)
                if (table_id, user) in self._live:
                    add(table_id, Op("edit", f"live:{user}"))
            if kind == "replaced" and update.user is not None:
                add(table_id, self._note(table_id, "remind.replaced", update.user))
        elif kind == "back" and update.user is not None:
            # the takeover note stands in the channel: this one answers it, and names
            # him without a ping (he has just pressed something: he is here)
            add(table_id, self._note(table_id, "remind.back", update.user, ping=False))
        elif kind == "deal_end":
            final = update.result.table if update.result is not None else None
            add(table_id, Op("final", "table", _stripped(final.message) if final else None))
            table = self.service.tables.get(table_id)
            if update.result is not None and table is not None:
                # the DM hand of the deal that ended: the move that ended it brought
                # none, and the next deal's hand is a new message
                self._unping_all(table_id, humans)
                for user in humans:
                    lang = self._langs.get(user) or self._table_lang(table_id)
                    over = text(lang, "hand_deal_over", deal=update.result.deal_no)
                    # the hand as the deal left it (the cards still held, what he was
                    # shown), else which table it was
                    last = update.result.hand_of(user, norm_lang(lang))
                    shown = last.text if last is not None else hand_title(table, lang)
                    add(table_id, Op("final", f"hand:{user}", Message(f"{shown}\n{over}")))
            if update.result is not None:
                add(table_id, Op("note", message=update.result.message))
        elif kind in ("finished", "aborted"):
            self._closing(table_id, update, humans)
        elif kind == "reminder" and update.user is not None:
            # the channel's mention stands in for his ping (one notice a turn), and
            # goes the same way once he has moved: a slow evening leaves no trail of
            # "20 s left" in the channel
            user = update.user
            note = self._note(table_id, "remind.turn", user)
            # it says his turn has come: counted as shown (a turn that began before a
            # restart was shown by no hand of this run), so its end is known; and any
            # move after this one was his and deletes the reminder (`_ring`), even
            # when his next turn follows at once (he took the trick)
            self._turn_pings.shown((table_id, user), True, new=True)
            moves = self._moves(table_id)
            if moves is not None:
                self._reminded_at[(table_id, user)] = moves
            table = self.service.tables.get(table_id)
            version = table.version if table is not None else None
            remind = Op("remind", f"hand:{user}", note.message, note.mentions, version)
            add(table_id, remind)

    def _closing(self, table_id: str, update: TableUpdate, humans: list[str]) -> None:
        """The last messages of a table: final pictures, the result, then forget it."""
        add = self._add
        table = self.service.tables.get(table_id)
        lang = self._table_lang(table_id)
        self._turn_pings.forget(table_id)
        self._unping_all(table_id, humans)
        if update.kind == "finished":
            final = update.result.table if update.result is not None else None
            view = final or self.service.table(table_id)
            add(table_id, Op("final", "table", _stripped(view.message) if view else None))
            self._last_hands(table_id, humans)
            if update.result is not None:
                add(table_id, Op("note", message=update.result.shown()))
            elif table is not None:  # resigned before any deal was scored
                summary = match_summary_text(table, self.service.style_for(table_id))
                add(table_id, Op("note", message=Message(summary)))
        else:
            reason = table.abort_reason if table is not None else None
            lost = reason in (CHANNEL_LOST, SERVER_LOST)
            if not lost:
                lobby = self.service.lobby(table_id) if table and not table.deals else None
                add(table_id, Op("final", "lobby", lobby.message if lobby else None))
                # the table as it was left: no one "to act", no votes still asked for
                view = self.service.table(table_id) if table and table.deals else None
                add(table_id, Op("final", "table", _stripped(view.message) if view else None))
            self._last_hands(table_id, humans)  # "This table was closed."
            self._left_hands(table_id, humans, table)
            for user in humans if lost else ():
                # the channel cannot be told: each player is, privately
                note = text(
                    self._langs.get(user) or lang,
                    str(reason),
                    table=table_id,
                    channel=f"<#{self._channels[table_id]}>",
                )
                add(table_id, Op("tell", f"hand:{user}", Message(note)))
            if not lost:
                key = f"abort.{reason}"
                why = t(lang, key) if key in TEXTS["en"] else str(reason or "")
                add(
                    table_id,
                    Op(
                        "note",
                        message=Message(t(lang, "result.aborted", table=table_id, reason=why)),
                    ),
                )
        add(table_id, Op("close"))

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
            uid = _user_id(user)
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

    def _left_hands(self, table_id: str, humans: list[str], table: Table | None) -> None:
        """The DM hands of people no longer seated whose leaving closed the table
        (the last one's /forgetme): they say it closed, without buttons, instead of
        a "Your turn." nothing answers."""
        for slot in list(self._refs.get(table_id, {})):
            user = slot[5:]
            if slot.startswith("hand:") and user not in humans:
                note = self._hand_note(table_id, user, table, "hand.closed")
                self._add(table_id, Op("final", slot, note))

    def _hand_note(self, table_id: str, user: str, table: Table | None, key: str) -> Message:
        """A DM hand's last words when it stops following the game: which table (if
        it is still known), and why, in the player's language."""
        lang = self._langs.get(user) or self._table_lang(table_id)
        title = hand_title(table, lang) + "\n" if table is not None else ""
        return Message(title + t(lang, key))

    def _last_hands(self, table_id: str, humans: list[str]) -> None:
        """Each hand's last picture, without buttons: the match is over, or the table
        closed (not a "Waiting for ..." that nothing will ever change)."""
        for user in humans:
            hand = self.service.hand(table_id, user, self._langs.get(user))
            msg = _stripped(hand.message) if hand is not None else None
            self._add(table_id, Op("final", f"hand:{user}", msg))
            self._add(table_id, Op("final", f"live:{user}", msg))

    def _started_lobby(self, table_id: str, lobby: Message) -> Message:
        """The lobby's last words: who sat down, and that the game is on."""
        lang = self._table_lang(table_id)
        expiry = self.service.timings.lobby_expiry
        return Message(started_lobby_text(lobby.text, lang, expiry))

    def _table_lang(self, table_id: str) -> str | None:
        table = self.service.tables.get(table_id)
        return table.settings.get("lang") if table is not None else None

    def _note(self, table_id: str, key: str, user: str, *, ping: bool = True) -> Op:
        lang = self._table_lang(table_id)
        uid = _user_id(user)
        mention = f"<@{uid}>" if uid is not None else user
        if key == "remind.turn":
            body = t(lang, key, name=mention, seconds=self.service.seconds_left(table_id))
        else:
            body = t(lang, key, name=mention, n=self.service.timings.missed_turns_limit)
        pinged = (uid,) if uid is not None and ping else ()
        return Op("note", message=Message(body), mentions=pinged)

    # --- out: the outbox worker ----------------------------------------------------------

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
            while box.ops and box.ops[0].kind not in ("note", "close"):
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
                channel_id = _refused_channel(e)
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
            await self._forget(table_id)
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
                    render.content(msg), nonce=nonce, **_view_kwargs(msg)
                )
            except discord.Forbidden as e:
                if e.code != DMS_CLOSED:
                    raise
                await self._dms_closed(table_id, user)
                return
        else:
            channel_id = self._channels[table_id]
            sent = await self._channel(channel_id).send(
                render.content(msg), nonce=nonce, **_view_kwargs(msg)
            )
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
            live = self._drop_live((table_id, slot[5:]))
            if live is not None and msg is not None and live.expires > _now():
                with contextlib.suppress(discord.HTTPException):
                    await live.edit(render.content(msg), None)
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

    async def _edit_live(self, table_id: str, user: str) -> None:
        live = self._live.get((table_id, user))
        if live is None:
            return
        msg = self._render(table_id, f"hand:{user}")
        slot = (table_id, f"live:{user}")
        if live.expires <= _now():
            # its last edit (the token outlives `live_ttl` by a minute): as it is now,
            # and that it will not follow the game any more
            self._drop_live((table_id, user))
            self._shown.pop(slot, None)
            if msg is not None:
                # the button as the table message labels it: in the table's language
                shown = t(self._table_lang(table_id), "button.show_hand")
                note = text(self._langs.get(user), "live_ended", show_hand=shown)
                with contextlib.suppress(discord.HTTPException, *OUTAGES):
                    await live.edit(render.content(_noted(msg, note)), render.view(msg))
            return
        if msg is None or self._shown.get(slot) == fingerprint(msg):
            return
        try:
            await live.edit(render.content(msg), render.view(msg))
        except discord.HTTPException as e:
            log.info("table %s: ephemeral hand of %s not editable: %s", table_id, user, e)
            self._drop_live((table_id, user))
            return
        self._shown[slot] = fingerprint(msg)

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
            **_view_kwargs(op.message),  # "Rematch" under a match's summary
        )

    async def _tell(self, user: str, op: Op) -> None:
        """A note for one player, by DM (when they are open)."""
        assert op.message is not None
        if user in self._dm_closed or (dm := await self._dm(user)) is None:
            return
        try:
            await self._channel(dm).send(render.content(op.message), nonce=op.nonce)
        except discord.Forbidden as e:  # DMs closed, or no server shared any more
            log.info("could not tell %s by DM: %s", user, e)

    async def _dms_closed(self, table_id: str, user: str) -> None:
        """Say once per table that this user plays through "Show my hand"."""
        self._dm_closed[user] = None
        # the new deal's DM hand, which would have rung, did not come: a first turn
        # after a wait rings in the channel instead
        key = (table_id, user)
        if (
            key not in self._pings
            and self.service.his_turn(table_id, user)
            and self._turn_pings.waited(key)
        ):
            self._add_ping(table_id, user)
        if (table_id, user) in self._dm_noted:
            return
        self._dm_noted.add((table_id, user))
        uid = _user_id(user)
        # a channel note, naming the table's button as the table labels it: in the
        # table's language, not the player's
        lang = self._table_lang(table_id)
        note = text(lang, "dm_closed", mention=f"<@{uid}>", show_hand=t(lang, "button.show_hand"))
        await self._send_note(
            table_id, Op("note", message=Message(note), mentions=(uid,) if uid else ())
        )

    async def _dm(self, user: str) -> int | None:
        channel_id = self._dm_channels.get(user)
        if channel_id is None:
            uid = _user_id(user)
            if uid is None:  # pragma: no cover - not a Discord user key
                return None
            channel = await self.client.create_dm(discord.Object(id=uid))
            channel_id = self._dm_channels[user] = channel.id
        return channel_id

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

    async def _forget(self, table_id: str) -> None:
        """Drop all a closed table left here.  Memory goes first: a database that
        fails must not keep it for the bot's lifetime.  The core forgot the table's
        refs as it closed it; this drops those a post racing the close stored after
        (what it cannot drop, the next start does)."""
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
            except Exception:
                log.exception("Discord: %s; closing table(s) %s failed", why, ", ".join(fresh))
                return
            log.warning("Discord: %s; closed table(s): %s", why, ", ".join(closed) or "none")

        task = asyncio.create_task(close(), name=f"discord-close-{fresh[0]}")
        self._closers.add(task)

        def done(task: asyncio.Task[None]) -> None:
            self._closers.discard(task)
            self._if_idle()

        task.add_done_callback(done)


def _stripped(message: Message) -> Message:
    return render.without_buttons(message)


def _noted(message: Message, note: str) -> Message:
    return Message(f"{message.text}\n\n{note}", message.buttons)


def _view_kwargs(msg: Message) -> dict[str, Any]:
    view = render.view(msg)
    return {"view": view} if view is not None else {}


_CHANNEL_PATH = re.compile(r"/channels/(\d+)(?:/|$)")


def _refused_channel(error: discord.HTTPException) -> int | None:
    """The channel Discord says the bot may not use (any more), if that is the error."""
    if error.code not in CHANNEL_REFUSALS:
        return None
    found = _CHANNEL_PATH.search(str(getattr(error.response, "url", "")))
    return int(found[1]) if found else None


def _parse_ref(ref: str) -> tuple[int, int] | None:
    channel, _, message = ref.partition("/")
    if channel.isdigit() and message.isdigit():
        return int(channel), int(message)
    return None


def _user_id(user_key: str) -> int | None:
    platform, _, uid = user_key.partition(":")
    return int(uid) if platform == PLATFORM and uid.isdigit() else None


def _drawn_at(message: Message) -> int | None:
    """The table version a message's buttons were drawn at (None: no buttons)."""
    for button in message.all_buttons():
        if (p := parsed(button.payload)) is not None:
            return p.version
    return None


def _table_of(payload: str) -> str | None:
    p = parsed(payload)
    return None if p is None else p.table


def _verb_of(payload: str) -> str | None:
    p = parsed(payload)
    return None if p is None else p.verb


def _now() -> float:
    return time.monotonic()


async def serve(service: TableService, config: Config, stop: asyncio.Event) -> None:
    """The adapter contract of `bot.app`: run the Discord bot until `stop` is set."""
    await DiscordAdapter(service, config).run(stop)
