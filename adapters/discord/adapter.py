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

`DiscordAdapter` holds the state and the life of the adapter: running, restoring the
tables' messages after a restart, who and where a user is, and the listener.  Its
parts are mixins over that state, a module each:

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
from bot.i18n import TEXTS, norm_lang, supported_lang, t
from bot.ports import PlatformUnreachable, TokenRejected
from bot.service import ChatRef, TableService, TableUpdate, UserRef
from bot.store import StoreError
from bot.table import Status
from bot.turn_pings import PING_AFTER, TurnPings
from bot.turn_pings import SLOT as PING
from bot.views import Message, hand_title, match_summary_text, started_lobby_text

from . import render
from .answers import (
    ACK_BUDGET,
    ACK_MARGIN,
    ACK_RETRY_DELAYS,
    ACK_TRY,
    ACK_WINDOW,
    PUBLIC_THINKING,
    NotAnswered,
    T,
)
from .client import AnyClient, SchnapsenClient, ShardedSchnapsenClient, intents
from .errors import (
    ALREADY_ACKNOWLEDGED,
    CHANNEL_REFUSALS,
    DMS_CLOSED,
    OLD_MESSAGE,
    OUTAGES,
    UNKNOWN_MESSAGE,
)
from .hands import Hands
from .ids import PLATFORM, TAKE_BACK, parse_ref, user_id
from .losses import CHANNEL_LOST, SERVER_LOST, Losses
from .outbox import Op, OutboxWorker
from .pings import Pings
from .presses import Presses
from .render import PayloadButton
from .texts import text

__all__ = [
    "ACK_BUDGET",
    "ACK_MARGIN",
    "ACK_RETRY_DELAYS",
    "ACK_TRY",
    "ACK_WINDOW",
    "ALREADY_ACKNOWLEDGED",
    "CHANNEL_LOST",
    "CHANNEL_REFUSALS",
    "DMS_CLOSED",
    "DRAIN_TIMEOUT",
    "LIVE_TTL",
    "OLD_MESSAGE",
    "OUTAGES",
    "PLATFORM",
    "PUBLIC_THINKING",
    "RETRY_DELAYS",
    "SEEN_INTERACTIONS",
    "SERVER_LOST",
    "TAKE_BACK",
    "THREADS",
    "UNKNOWN_MESSAGE",
    "USERS_KEPT",
    "AnyClient",
    "DiscordAdapter",
    "NotAnswered",
    "Op",
    "SchnapsenClient",
    "ShardedSchnapsenClient",
    "T",
    "intents",
    "serve",
]

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
#: Channels where posting takes "Send Messages in Threads", not "Send Messages".
THREADS = frozenset(
    {
        discord.ChannelType.public_thread,
        discord.ChannelType.private_thread,
        discord.ChannelType.news_thread,
    }
)


class DiscordAdapter(Presses, Hands, Pings, OutboxWorker, Losses):
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
        self.answers_cut = 0  # see `Answering`
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
            add(
                table_id,
                Op("final", "table", render.without_buttons(final.message) if final else None),
            )
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
            add(
                table_id,
                Op("final", "table", render.without_buttons(view.message) if view else None),
            )
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
                add(
                    table_id,
                    Op("final", "table", render.without_buttons(view.message) if view else None),
                )
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
        uid = user_id(user)
        mention = f"<@{uid}>" if uid is not None else user
        if key == "remind.turn":
            body = t(lang, key, name=mention, seconds=self.service.seconds_left(table_id))
        else:
            body = t(lang, key, name=mention, n=self.service.timings.missed_turns_limit)
        pinged = (uid,) if uid is not None and ping else ()
        return Op("note", message=Message(body), mentions=pinged)

    # --- a closed table goes ---------------------------------------------------------

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


async def serve(service: TableService, config: Config, stop: asyncio.Event) -> None:
    """The adapter contract of `bot.app`: run the Discord bot until `stop` is set."""
    await DiscordAdapter(service, config).run(stop)
