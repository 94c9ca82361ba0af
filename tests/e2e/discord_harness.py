"""What the Discord end-to-end tests share: a fake Discord that watches for leaked
cards, the real bot (core + adapter) on a SQLite file, and simulated players.

The players only do what a person can: read the messages they were sent and press
their buttons.  The harness looks at the core for two things a person sees too —
whose turn it is and whether the table still exists — so it knows when to act and when
the game is over, never to choose a move.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import discord
import discord.gateway
import discord.http
from pydantic import SecretStr

from adapters.discord import DiscordAdapter, render
from adapters.discord.errors import ALREADY_ACKNOWLEDGED
from bot.config import Config
from bot.i18n import LANGUAGES, card_label
from bot.payload import PayloadError
from bot.payload import decode as decode_payload
from bot.service import TableService, TableUpdate, Timings
from bot.store import Store
from bot.table import DealLog, Table
from bot.views import Message
from engine import protocol as P
from engine.actions import Pass
from engine.actions import decode as decode_action
from engine.cards import CARDS, Card
from tests.bot.fakechat import Seeds
from tests.e2e.fakes.discord.discordpy import ErrorLogGuard
from tests.e2e.fakes.discord.entities import FakeChannel, FakeGuild, FakeUser
from tests.e2e.fakes.discord.interaction import FakeInteraction
from tests.e2e.fakes.discord.messages import FakeMessage
from tests.e2e.fakes.discord.protocol import Limits
from tests.e2e.fakes.discord.server import FakeDiscord

INTERACTION_CALLBACK = "/interactions/{interaction_id}/{token}/callback"
#: Loggers whose ERROR records fail a test: discord.py's, the adapter's, the core's.
GUARDED_LOGGERS = ("discord", "adapters", "bot")
#: Seconds `World.play` waits for the next turn: a hang's bound, not a pace.  A turn
#: may wait for a computer's move, and a bot's first one starts its worker process
#: (spawned, at low priority): 3.4-6.4 s beside a CPU hog on a busy 2-core machine.
TURN_WAIT = 30.0


# --------------------------------------------------------------------------- hidden cards


def deal_states(log: DealLog) -> list[P.DealCore]:
    """Every state of a deal so far, from its record."""
    states = [log.state0]
    state = log.state0
    for match_seat, action in log.actions:
        state, _ = P.apply(state, log.spec.seats.index(match_seat), action)
        states.append(state)
    return states


def secret_cards(log: DealLog) -> set[Card]:
    """Cards dealt to (or now in) a hand that nobody has been shown publicly yet."""
    states = deal_states(log)
    seats = range(len(log.spec.seats))
    public: set[Card] = set()
    for state in states:
        public |= P.view(state, None).cards_seen()
    held: set[Card] = set()
    for state in (states[0], states[-1]):
        for seat in seats:
            held |= set(P.view(state, seat).hand)
    return held - public


_DEAL_NUMBER = re.compile(r"(?:Deal|Runde) (\d+)")


_HAND_LINE = re.compile(r"^(?:Hand|Karten): (.*)$", re.MULTILINE)


class CheckedFake(FakeDiscord):
    """A fake Discord that checks every message the bot writes, the moment it is
    written: a channel message must show no card that is still hidden at the bot's
    tables, and a private hand (DM or ephemeral) must be its reader's own hand."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.tables: dict[str, Table] = {}
        self.leaks: list[str] = []
        self.checked = 0
        self.hands_checked = 0

    def _store_message(self, channel: FakeChannel, *args: Any, **kwargs: Any) -> FakeMessage:
        message = super()._store_message(channel, *args, **kwargs)
        self._inspect(message)
        return message

    def _edit_message(self, message: FakeMessage, *args: Any, **kwargs: Any) -> None:
        before = message.content
        super()._edit_message(message, *args, **kwargs)
        if message.content != before:  # taking buttons away shows nothing new
            self._inspect(message)

    def poke(self) -> None:
        """Re-evaluate `wait_for` predicates (something outside the fake changed)."""
        self._changed()

    def _inspect(self, message: FakeMessage) -> None:
        if message.author is not self.bot_user:
            return
        reader = message.ephemeral_for or (
            message.channel.recipient if message.channel.is_dm else None
        )
        if reader is not None:
            self._inspect_hand(message, reader)
            return
        self.checked += 1
        text = message.text
        found = _DEAL_NUMBER.search(text)
        # a message naming its table is checked against that table's deals only: the
        # open cards of one table may be the hidden cards of another
        named = [tb for tb in self.tables.values() if tb.id in text]
        for table in named or self.tables.values():
            if not table.deals:
                continue
            number = int(found[1]) if found else len(table.deals)
            if not 1 <= number <= len(table.deals):
                continue
            lang = table.settings.get("lang", "en")
            suits = table.settings.get("suits", "french")
            for card in secret_cards(table.deals[number - 1]):
                label = card_label(card, lang, suits)
                if label in text:
                    self.leaks.append(
                        f"table {table.id} deal {number}: hidden card {label} in channel"
                        f" message {message.id}: {text!r}"
                    )

    def _inspect_hand(self, message: FakeMessage, reader: FakeUser) -> None:
        """The hand shown is one the reader's seat held during this or the last deal."""
        line = _HAND_LINE.search(message.content)
        if line is None:
            return
        for table in self.tables.values():
            seat = table.seat_of(f"dc:{reader.id}")
            if seat is None or table.id not in message.content or not table.deals:
                continue
            self.hands_checked += 1
            labels = {card_label(c, lang): c for lang in LANGUAGES for c in CARDS}
            shown = {labels[x] for x in line[1].split() if x in labels}
            held = []
            for log in table.deals[-2:]:
                if seat in log.spec.seats:
                    deal_seat = log.spec.seats.index(seat)
                    held += [set(P.view(s, deal_seat).hand) for s in deal_states(log)]
            if shown not in held:
                self.leaks.append(
                    f"table {table.id}: {reader.username} was shown {line[1]!r}, not a hand"
                    f" of their seat {seat}"
                )


class TableRecorder:
    """A listener that keeps every table the service reported (also once it is gone),
    for the hidden-card check."""

    def __init__(self, service: TableService, fake: CheckedFake) -> None:
        self.service = service
        self.fake = fake
        self.updates: list[TableUpdate] = []
        self.versions: dict[str, int] = {}

    def track(self, table: Table) -> None:
        self.fake.tables[table.id] = table
        self.versions[table.id] = table.version

    async def table_update(self, update: TableUpdate) -> None:
        self.updates.append(update)
        self.versions[update.table_id] = update.version
        table = self.service.tables.get(update.table_id)
        if table is not None:
            self.fake.tables[table.id] = table
        self.fake.poke()

    def caught_up(self) -> bool:
        """Has every change the core made (in memory) been reported to listeners?
        A change is applied in memory before it is stored and reported."""
        return all(self.versions.get(t.id) == t.version for t in self.service.tables.values())


# --------------------------------------------------------------------------- the world


@dataclass
class Bot:
    store: Store
    service: TableService
    adapter: DiscordAdapter
    stop: asyncio.Event
    task: asyncio.Task[None]
    recorder: TableRecorder


@dataclass
class World:
    fake: CheckedFake
    guild: FakeGuild
    channel: FakeChannel
    db: Path
    users: dict[str, FakeUser]
    moderator: FakeUser
    outsider_channel: FakeChannel
    bot: Bot | None = None
    #: Fails the test on an ERROR log line; `guard.allow` for one provoked on purpose.
    guard: ErrorLogGuard | None = None
    #: Every Discord adapter made while this world ran: those of `start_bot`, and
    #: those `bot.app` makes itself.
    adapters: list[DiscordAdapter] = field(default_factory=list)
    #: Files in which bot processes of this world (``python -m bot``, whose adapters
    #: are not in `adapters`) note the interactions whose answer they cut: one id a
    #: line, written at the cut, so that a process killed later has told them.
    cut_notes: list[Path] = field(default_factory=list)
    rng: random.Random = field(default_factory=lambda: random.Random(7))
    seed: Seeds = field(default_factory=lambda: Seeds("deal "))

    def __getitem__(self, name: str) -> FakeUser:
        return self.users[name]

    @property
    def answers_cut(self) -> set[int]:
        """The interactions whose first answer the bots of this world cut as too slow
        and sent again: on a loaded machine Discord may have taken the first try, and
        refuses the next one (40060)."""
        noted = {
            int(i) for note in self.cut_notes if note.exists() for i in note.read_text().split()
        }
        return noted | {i for adapter in self.adapters for i in adapter.answers_cut}

    def refusals(self, interaction: FakeInteraction) -> list[int]:
        """The codes Discord refused the bot's requests about `interaction` with, less
        the one re-sent answer of a cut (`answers_cut`): a loaded machine's 40060, not
        an interaction the bot answered twice."""
        codes = [e.code for e in interaction.rejections]
        if interaction.id in self.answers_cut and ALREADY_ACKNOWLEDGED in codes:
            codes.remove(ALREADY_ACKNOWLEDGED)
        return codes

    def refused_requests(self) -> list[tuple[str, str, int | None]]:
        """Every request Discord refused, less the re-sent answer of each cut (see
        `refusals`)."""
        resent = {str(i) for i in self.answers_cut}
        refused = []
        for r in self.fake.requests:
            if r.status < 400:
                continue
            if r.route == INTERACTION_CALLBACK and r.code == ALREADY_ACKNOWLEDGED:
                interaction = r.path.split("/")[2]
                if interaction in resent:
                    resent.remove(interaction)  # one re-sent answer per cut, no more
                    continue
            refused.append((r.method, r.path, r.code))
        return refused

    @property
    def service(self) -> TableService:
        assert self.bot is not None
        return self.bot.service

    @property
    def adapter(self) -> DiscordAdapter:
        assert self.bot is not None
        return self.bot.adapter

    # --- the bot ---------------------------------------------------------------------

    async def start_bot(
        self,
        *,
        timings: Timings | None = None,
        config: dict[str, Any] | None = None,
        identify_wait: bool = True,
        **adapter_options: Any,
    ) -> Bot:
        """`identify_wait=False`: discord.py identifies each shard at once instead of
        5 s after the last (Discord's identify rate limit, which the fake does not
        enforce), so that a test with several shards stays fast."""
        assert self.bot is None
        store = await Store(self.db).open()
        service = TableService(
            store,
            timings=timings or Timings(ai_delay=0, turn_timeout=600, reminder_before=0),
            ai_level="random",
            seed_source=self.seed,
        )
        recorder = TableRecorder(service, self.fake)
        service.listeners.append(recorder)
        await service.start()
        for table in service.tables.values():
            recorder.track(table)
        settings = Config(  # type: ignore[call-arg]
            _env_file=None, discord_token=SecretStr(self.fake.token), **(config or {})
        )
        adapter_options.setdefault("guild_ready_timeout", 0.05)
        adapter = DiscordAdapter(service, settings, **adapter_options)
        adapter.idle_callbacks.append(self.fake.poke)
        if not identify_wait:
            adapter.client.before_identify_hook = _identify_at_once  # type: ignore[method-assign]
        stop = asyncio.Event()
        task = asyncio.create_task(adapter.run(stop), name="discord-adapter")
        ready = asyncio.create_task(adapter.ready.wait())
        done, _ = await asyncio.wait({ready, task}, timeout=5, return_when=asyncio.FIRST_COMPLETED)
        if ready not in done:
            ready.cancel()
            stop.set()
            try:
                await asyncio.wait_for(task, 10)
            finally:
                await service.stop()
                await store.close()
            raise TimeoutError("the Discord adapter did not become ready")
        self.bot = Bot(store, service, adapter, stop, task, recorder)
        return self.bot

    async def stop_bot(self) -> None:
        bot, self.bot = self.bot, None
        if bot is None:
            return
        bot.stop.set()
        try:
            await asyncio.wait_for(bot.task, 10)
        finally:
            await bot.service.stop()
            await bot.store.close()

    async def restart(self, **options: Any) -> Bot:
        await self.settle()
        await self.stop_bot()
        return await self.start_bot(**options)

    def settled(self) -> bool:
        """The core reported every change, the adapter sent all it queued, and it has
        the answers to every press and command (`_answering`)."""
        bot = self.bot
        return bot is None or (
            bot.recorder.caught_up() and bot.adapter.idle() and not _answering(bot)
        )

    async def settle(self, timeout: float = 5.0) -> None:
        await self.fake.wait_for(
            self.settled, timeout=timeout, description="the core and the adapter to settle"
        )

    # --- what players see and do -----------------------------------------------------

    async def slash(
        self, user: FakeUser, command: str, /, *, where: FakeChannel | None = None, **options: Any
    ) -> FakeMessage:
        interaction = await self.fake.slash(user, where or self.channel, command, **options)
        return await interaction

    async def resign(self, user: FakeUser, *, where: FakeChannel | None = None) -> FakeMessage:
        """/resign, and the button of its question (his alone); the question, which
        the press turns into the answer."""
        question = await self.slash(user, "resign", where=where)
        assert len(question.buttons) == 1, question.content
        label = question.buttons[0].label
        assert label is not None
        await self.click(user, question, label)
        return question

    async def click(self, user: FakeUser, message: FakeMessage, target: str) -> FakeInteraction:
        interaction = await self.fake.click(user, message, target)
        await interaction.wait_acknowledged()
        return interaction

    async def open_table(
        self, host: FakeUser, game: str, *, where: FakeChannel | None = None, **options: Any
    ) -> tuple[str, FakeMessage]:
        lobby = await self.slash(host, "schnapsen new", where=where, game=game, **options)
        table_id = table_of(lobby)
        assert table_id is not None, lobby.content
        return table_id, lobby

    async def start_match(
        self,
        host: FakeUser,
        *guests: FakeUser,
        game: str = "zweier",
        where: FakeChannel | None = None,
    ) -> str:
        """Open a table, let the guests join and the host start it; its id."""
        table_id, lobby = await self.open_table(host, game, where=where)
        for guest in guests:
            await self.click(guest, lobby, "Join")
            await self.settle()
        await self.click(host, lobby, "Start")
        await self.settle()
        return table_id

    def table_messages(self, table_id: str) -> list[FakeMessage]:
        """The channel's table messages of a table (one per deal), oldest first."""
        return [
            m
            for m in self.fake.channel_messages(self.channel)
            if table_id in m.content
            and _DEAL_NUMBER.search(m.content)
            and m.content.splitlines()[0].endswith(table_id)
        ]

    def hand_message(self, user: FakeUser, table_id: str) -> FakeMessage | None:
        """The newest hand this user was sent (DM) or shown (ephemeral) for a table."""
        candidates = [
            m
            for m in [*self.fake.dms(user), *self.fake.ephemerals(user)]
            if (f"table {table_id}" in m.content or f"Tisch {table_id}" in m.content)
            and not is_ping(m)
        ]
        return max(candidates, key=lambda m: m.edited_at or m.created_at, default=None)

    def pressable(self, table_id: str) -> tuple[FakeUser, FakeMessage] | None:
        """A player of the table and his newest hand, if it shows current buttons,
        whether or not the bot is through with what it queued (`next_move` waits for
        that): the moves a test makes while a message of the table is on its way."""
        table = self.service.tables.get(table_id)
        if table is None:
            return None
        for user in self.users.values():
            hand = self.hand_message(user, table_id)
            if hand is not None and any(
                b.custom_id and is_current(b.custom_id, table) for b in hand.buttons
            ):
                return user, hand
        return None

    async def play(
        self,
        table_id: str,
        *,
        until: Callable[[], bool] | None = None,
        max_presses: int = 3000,
    ) -> int:
        """Let the humans play by pressing their buttons until the table is gone (or
        `until()`); players with closed DMs press "Show my hand" when it is their turn.
        Returns how many buttons were pressed."""
        presses = 0
        while presses < max_presses:

            def next_step() -> tuple[str, FakeUser | None, FakeMessage | None] | None:
                if table_id not in self.service.tables or (until is not None and until()):
                    return ("done", None, None)
                return self.next_move(table_id)

            step, user, message = await self.fake.wait_for(
                next_step, timeout=TURN_WAIT, description=f"a turn at table {table_id}"
            )
            if step == "done":
                return presses
            assert user is not None and message is not None
            if step == "show":
                await self.click(user, message, "Show my hand")
            else:
                table = self.service.tables[table_id]
                ids = [
                    b.custom_id
                    for b in message.buttons
                    if b.custom_id is not None and is_current(b.custom_id, table)
                ]
                await self.click(user, message, self.choose(table, ids))
                presses += 1
        raise AssertionError(f"table {table_id} still running after {max_presses} presses")

    def choose(self, table: Table, custom_ids: list[str]) -> str:
        """A casual player: mostly passes in an auction (so ordinary contracts get
        played), otherwise presses any of their buttons."""
        passes = []
        for custom_id in custom_ids:
            payload = decode_payload(custom_id.removeprefix("s:"))
            if (
                payload.verb == "a"
                and payload.arg is not None
                and table.deal is not None
                and isinstance(decode_action(payload.arg, table.deal.contracts), Pass)
            ):
                passes.append(custom_id)
        if passes and self.rng.random() < 0.8:
            return passes[0]
        return self.rng.choice(custom_ids)

    def next_move(self, table_id: str) -> tuple[str, FakeUser, FakeMessage] | None:
        """("press", player, their hand) when a human is to act and sees current
        buttons; ("show", player, table message) when that player's DMs are closed and
        they have no current hand yet; None while things are moving."""
        table = self.service.tables.get(table_id)
        if table is None or not self.settled():
            return None
        seat = table.to_act()
        if seat is None or (s := table.seats[seat]) is None or s.user is None or s.ai:
            return None
        user = self.fake.users[int(s.user.split(":")[1])]
        for message in [*reversed(self.fake.dms(user)), *reversed(self.fake.ephemerals(user))]:
            if any(b.custom_id and is_current(b.custom_id, table) for b in message.buttons):
                return ("press", user, message)
        tables = self.table_messages(table_id)
        if user.dms_closed and tables:
            return ("show", user, tables[-1])
        return None


def _answering(bot: Bot) -> bool:
    """A press or command is still being answered.

    Discord shows an answer (the lobby, a hand) and a player may press on it once it
    has the bot's answer; the bot goes on only when that answer comes back to it.
    On a loaded machine it comes back late (one cut as too slow is sent again, and
    its id asked for): a test that went on meanwhile found the bot not yet knowing
    where a table it opened plays (a start it then dropped: no table message, no
    hand), an ephemeral hand not yet following the game, or a request of the bot
    without its answer."""
    return bot.adapter._handling > 0


async def _identify_at_once(shard_id: int | None, *, initial: bool = False) -> None:
    """discord.py's `before_identify_hook` without its 5-second wait."""


def is_ping(message: FakeMessage) -> bool:
    """A "your turn" reply beside a DM hand (`bot.turn_pings`), no hand itself."""
    return message.content.startswith(("Your turn at table", "Du bist dran am Tisch"))


def reads_as(message: FakeMessage, shown: Message) -> bool:
    """Does the message on Discord show `shown` as the adapter renders it: its text,
    and its buttons down to their custom ids (which carry the table's version)?"""
    view = render.view(shown)
    buttons = [getattr(item, "custom_id", None) for item in view.children] if view else []
    return (
        message.content == render.content(shown)
        and [b.custom_id for b in message.buttons] == buttons
    )


def table_of(message: FakeMessage) -> str | None:
    for button in message.buttons:
        payload = (button.custom_id or "").removeprefix("s:")
        with contextlib.suppress(PayloadError):
            return decode_payload(payload).table
    return None


def is_current(custom_id: str, table: Table) -> bool:
    """Is this a button of the table's current version?"""
    try:
        payload = decode_payload(custom_id.removeprefix("s:"))
    except PayloadError:
        return False
    return payload.table == table.id and payload.version == table.version


@contextlib.asynccontextmanager
async def discord_world(tmp_path: Path, *, limits: Limits | None = None) -> AsyncIterator[World]:
    """A fake Discord with a server, a channel and players; discord.py pointed at it
    for the duration (the patch is process-wide and always undone)."""
    saved = (discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY)
    guard = ErrorLogGuard(*GUARDED_LOGGERS)
    fake = CheckedFake(limits=limits or Limits())
    async with fake:
        guild = fake.add_guild("Wirtshaus")
        channel = fake.add_text_channel(guild, "schnapsen")
        other = fake.add_text_channel(guild, "kaffeehaus")
        users = {
            "anna": fake.add_user("anna"),
            "bert": fake.add_user("bert", locale="de"),
            "clara": fake.add_user("clara"),
            "dora": fake.add_user("dora"),
            "emil": fake.add_user("emil", dms_closed=True),
            "otto": fake.add_user("otto"),
        }
        for user in users.values():
            fake.add_member(guild, user)
        moderator = fake.add_user("moderator")
        fake.add_member(guild, moderator, manage_guild=True)
        world = World(fake, guild, channel, tmp_path / "bot.sqlite3", users, moderator, other)
        world.guard = guard
        made = DiscordAdapter.__init__

        def counted(adapter: DiscordAdapter, *args: Any, **kwargs: Any) -> None:
            made(adapter, *args, **kwargs)
            world.adapters.append(adapter)

        with fake.patched():
            guard.install()
            DiscordAdapter.__init__ = counted  # type: ignore[method-assign,assignment]
            try:
                yield world
            finally:
                try:
                    await world.stop_bot()
                finally:
                    DiscordAdapter.__init__ = made  # type: ignore[method-assign]
                    guard.uninstall()
        fake.assert_healthy()
    assert saved == (discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY)
    guard.check()
    assert not fake.leaks, "\n".join(fake.leaks)
    # every press and command was answered in time, and never twice — but where a test
    # made Discord fail or refuse an answer (5xx, `refuse`), it may stay unanswered, or
    # a retry meet 40060, one that reached the bot after its window cannot be answered
    # in time; and on a loaded machine an answer slower than the adapter's cut is sent
    # again
    troubled = {
        r.path.split("/")[2]
        for r in fake.requests_to("POST", INTERACTION_CALLBACK)
        if r.status >= 500 or r.refused_on_purpose
    }
    calm = [i for i in fake.interactions if str(i.id) not in troubled and not i.expired_on_arrival]
    assert [i for i in calm if not i.acknowledged] == []
    again = [i.id for i in calm if ALREADY_ACKNOWLEDGED in world.refusals(i)]
    assert again == [], f"answered twice, not after a cut: {again}"


def assert_closed_cleanly(world: World, table_id: str) -> None:
    """Nothing of a finished table keeps a button or a message ref."""
    for message in world.table_messages(table_id):
        assert message.buttons == [], message.content
