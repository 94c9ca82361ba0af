"""Shared rig for the Telegram end-to-end tests (no tests of its own).

The real python-telegram-bot `Application` (built by `adapters.telegram`) runs against
`FakeTelegram` with a real `TableService` on a SQLite file; simulated users act only
through what Telegram would let them do: type commands, press buttons they were sent.
"""

from __future__ import annotations

import asyncio
import logging
import random
import re
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr
from telegram.request import HTTPXRequest

from adapters.telegram import TelegramAdapter, Throttle, serve
from bot.config import Config
from bot.i18n import LANGUAGES, card_label
from bot.payload import PayloadError
from bot.payload import decode as decode_payload
from bot.service import TableService, TableUpdate, Timings
from bot.store import Store
from bot.table import Table
from engine import protocol as P
from engine.cards import CARDS, Card
from engine.views import SeatView
from tests.bot.fakechat import Seeds
from tests.e2e.fakes.telegram.chats import FakeChat
from tests.e2e.fakes.telegram.keyboards import Button
from tests.e2e.fakes.telegram.messages import CallbackAnswer, FakeMessage
from tests.e2e.fakes.telegram.protocol import Limits
from tests.e2e.fakes.telegram.ptb import LogErrorGuard
from tests.e2e.fakes.telegram.server import FakeTelegram
from tests.e2e.fakes.telegram.users import FakeUser

#: Loggers whose ERROR records fail a test: the library, our adapter and the core.
GUARDED = ("telegram", "adapters", "bot")
#: Seconds `play` waits for the next turn, and for the table to move on after a
#: press: a hang's bound, not a pace.  A turn may wait for a computer's move, and a
#: bot's first one starts its worker process (spawned, at low priority): 3.4-6.4 s
#: beside a CPU hog on a busy 2-core machine.
TURN_WAIT = 30.0
#: Seconds the bot waits for an answer of the fake (PTB's own default: 5 s): a
#: request `FakeTelegram.hold` keeps stays on its way until the test lets it go, and
#: the test's steps in between (presses, each with its poll and answer) can take
#: longer than 5 s on a loaded machine.  Given up on, the request would be one the
#: bot timed out on, which the test did not mean (a greeting presumed sent, an edit
#: tried again beside the one held).  Above `TURN_WAIT`, so a hang fails a test's
#: own wait first.
PATIENCE = 60.0

_CARD_BY_LABEL = {card_label(c, lang): c for lang in LANGUAGES for c in CARDS}
_CARD = re.compile(r"(?:10|A|K|Q|J|D|B|9)[♥♦♣♠]")
_DEAL = re.compile(r"^Deal (\d+) — dealer", re.M)


# ------------------------------------------------------------------------ fixtures


@pytest.fixture
def log_guard() -> Iterator[LogErrorGuard]:
    """Fail the test on any ERROR from PTB, the adapter or the core."""
    with LogErrorGuard(*GUARDED) as guard:
        yield guard


@pytest.fixture
async def fake(log_guard: LogErrorGuard) -> AsyncIterator[FakeTelegram]:
    """The fake Bot API without flood control (long games); tests may set limits."""
    async with FakeTelegram(limits=Limits(rate=None)) as server:
        server.attach(log_guard)
        yield server


def warned(caplog: pytest.LogCaptureFixture, under: tuple[str, ...] = GUARDED) -> list[str]:
    """The lines logged at WARNING or above by the loggers `under` (by default the
    library, our adapter and the core): a failure should cost one, not a line per
    layer it passed."""
    return [
        r.getMessage()
        for r in caplog.records
        if r.levelno >= logging.WARNING and r.name.startswith(under)
    ]


# ------------------------------------------------------------------------ hidden info


def deal_over(rig: Rig, table_id: str) -> Callable[[], bool]:
    """`until` for one deal: a deal was scored (or the match is over already)."""
    return lambda: "deal_end" in rig.witness.kinds or rig.table(table_id) is None


class Witness:
    """A core listener that records, per deal, every card the public has seen.

    It runs under the table lock like the adapter, at every version, so `revealed`
    is exactly what the engine's public view showed up to each version.
    """

    def __init__(self, service: TableService) -> None:
        self.service = service
        self.revealed: dict[tuple[str, int], set[Card]] = {}
        self.at_version: dict[tuple[str, int], frozenset[Card]] = {}
        self.dealt: dict[tuple[str, int], set[Card]] = {}
        self.kinds: list[str] = []
        self.updates: list[TableUpdate] = []

    async def table_update(self, update: TableUpdate) -> None:
        self.kinds.append(update.kind)
        self.updates.append(update)
        final = update.result.table if update.result is not None else None
        if final is not None and final.public is not None:
            key = (update.table_id, update.result.deal_no if update.result else 0)
            self.revealed.setdefault(key, set()).update(_public_cards(final.public))
        table = self.service.tables.get(update.table_id)
        if table is None or table.deal is None or table.deal_log is None:
            return
        key = (table.id, len(table.deals))
        pv = P.view(table.deal, None)
        seen = self.revealed.setdefault(key, set())
        seen |= _public_cards(pv)
        self.at_version[(table.id, table.version)] = frozenset(seen)
        if key not in self.dealt:
            state0 = table.deal_log.state0
            players = len(table.deal_log.spec.seats)
            self.dealt[key] = {c for s in range(players) for c in P.view(state0, s).hand}

    def check_group(self, table_id: str, chat: FakeChat) -> int:
        """Assert no group message ever showed a card the public had not seen.

        Every revision of every group message is checked: a table message against the
        cards revealed in its deal up to the version its buttons carry (or the whole
        deal); anything else must show no card at all.  Returns how many revisions
        were checked.
        """
        checked = 0
        for message in chat.messages:
            for rev in message.revisions:
                checked += 1
                cards = {_CARD_BY_LABEL[m] for m in _CARD.findall(rev.text)}
                if not cards:
                    continue
                deal = _DEAL.search(rev.text)
                assert deal is not None, f"cards outside a table message: {rev.text!r}"
                allowed: frozenset[Card] | set[Card] = self.revealed.get(
                    (table_id, int(deal.group(1))), set()
                )
                for row in rev.keyboard():
                    for button in row:
                        version = _version(button.data)
                        if version is not None and (table_id, version) in self.at_version:
                            allowed = self.at_version[(table_id, version)]
                leaked = cards - allowed
                dealt = self.dealt.get((table_id, int(deal.group(1))), set())
                assert not leaked, (
                    f"group saw unrevealed cards {sorted(map(str, leaked))} "
                    f"(from dealt hands: {sorted(map(str, leaked & dealt))}) in {rev.text!r}"
                )
        return checked


def _public_cards(pv: SeatView) -> set[Card]:
    assert not pv.hand, "the public view has no hand"
    return set(pv.cards_seen()) | {c for trick in pv.tricks for _, c in trick}


def _version(data: str) -> int | None:
    try:
        return decode_payload(data).version
    except PayloadError:
        return None


# ------------------------------------------------------------------------ the rig


@dataclass
class Rig:
    fake: FakeTelegram
    db: Path
    service: TableService
    store: Store
    adapter: TelegramAdapter
    stop: asyncio.Event
    task: asyncio.Task[None]
    witness: Witness
    rng: random.Random = field(default_factory=lambda: random.Random(7))

    def table(self, table_id: str) -> Table | None:
        return self.service.tables.get(table_id)


def config_for(fake: FakeTelegram, db: Path, **kw: Any) -> Config:
    """The bot's configuration pointing at the fake (no .env file)."""
    return Config(  # type: ignore[call-arg]
        _env_file=None,
        telegram_token=SecretStr(fake.token),
        telegram_api_url=fake.base_url,
        database_path=db,
        **kw,
    )


def webhook_config(fake: FakeTelegram, db: Path, **kw: Any) -> Config:
    """`config_for` in webhook mode: the bot listens on a free local port, at the path
    its URL names."""
    port = free_port()
    return config_for(
        fake,
        db,
        telegram_webhook_url=f"http://127.0.0.1:{port}/tg/hook",
        telegram_webhook_listen="127.0.0.1",
        telegram_webhook_port=port,
        **kw,
    )


#: Ports the kernel hands to outgoing connections (Linux's default range where it
#: cannot be read).
EPHEMERAL = (32768, 60999)


def free_port() -> int:
    """A local port nothing listens on, for a server the test starts later.

    Picked below the kernel's range for outgoing connections: a port from that range
    (what binding port 0 gives) may be taken by any connection the machine opens
    between the pick and the bind, as when a bot restarts on its webhook port."""
    try:
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        low = EPHEMERAL[0]
    picks = random.SystemRandom()
    for _ in range(100):
        port = picks.randrange(10000, max(low, 11000))
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue  # in use: another
            return port
    raise AssertionError("no free local port below the outgoing connections' range")


def seeds(name: str) -> Seeds:
    """A fixed `seed_source` for the core, drawn from `name` (the first dealer, then
    every deal).  The players of `play` choose from `Rig.rng`, so people alone at a
    table given these play the same game on every run (a computer seat still plays at
    random: its choices are seeded by the table id, which is random)."""
    return Seeds(f"{name} ")


def timings(**kw: Any) -> Timings:
    base: dict[str, Any] = dict(
        turn_timeout=600.0, reminder_before=20.0, ai_delay=0.0, lobby_expiry=900.0
    )
    base.update(kw)
    return Timings(**base)


async def start_rig(
    fake: FakeTelegram,
    db: Path,
    *,
    throttle: Throttle | None = None,
    timing: Timings | None = None,
    ai_level: str = "random",
    config: Config | None = None,
    ai_runner: Callable[[Callable[[], int]], Awaitable[int]] | None = None,
    seed_source: Callable[[], str] | None = None,
    **kw: Any,
) -> Rig:
    """Open the store, start the service and the adapter (long polling, 1 s polls).
    `seed_source`: the deals, fixed (`seeds`) unless a test passes its own, as the
    Discord harness does: a random deal that ends early (one in hundreds or
    thousands) would fail a test written for the usual one."""
    store = await Store(db).open()
    service = TableService(
        store,
        timings=timing or timings(),
        ai_level=ai_level,
        ai_runner=ai_runner,
        seed_source=seed_source or seeds("telegram"),
    )
    witness = Witness(service)
    service.listeners.append(witness)
    await service.start()
    stop = asyncio.Event()
    ready = asyncio.Event()
    options: dict[str, Any] = dict(throttle=throttle or Throttle.off(), poll_timeout=1, **kw)
    if config is not None:
        # the app runner's way in: `serve(service, config, stop)`
        task = asyncio.create_task(serve(service, config, stop, ready=ready.set, **options))
    else:
        adapter = TelegramAdapter(service, fake.token, api_url=fake.base_url, **options)
        task = asyncio.create_task(adapter.run(stop, ready.set))
    waiter = asyncio.ensure_future(ready.wait())
    done, _ = await asyncio.wait({task, waiter}, timeout=5, return_when=asyncio.FIRST_COMPLETED)
    if task in done:
        waiter.cancel()
        task.result()
    assert waiter in done, "the adapter did not start"
    adapter = next(x for x in service.listeners if isinstance(x, TelegramAdapter))
    patience(adapter)
    return Rig(fake, db, service, store, adapter, stop, task, witness)


def patience(adapter: TelegramAdapter, read: float = PATIENCE) -> None:
    """The bot's requests made from now on (but its polls, which have their own
    timeout) wait up to `read` seconds for the fake's answer: `PATIENCE`, or a
    moment for a test of a network that swallows requests."""
    request = adapter.app.bot.request
    assert isinstance(request, HTTPXRequest)
    client = request._client  # read for each request: PTB's default is the client's
    timeout = client.timeout
    client.timeout = httpx.Timeout(
        connect=timeout.connect, read=read, write=timeout.write, pool=timeout.pool
    )


async def stop_rig(rig: Rig) -> None:
    rig.stop.set()
    await asyncio.wait_for(rig.task, 15)
    await rig.service.stop()
    await rig.store.close()


@dataclass
class Players:
    """Simulated Telegram users in one group."""

    group: FakeChat
    users: list[FakeUser]


def make_players(
    fake: FakeTelegram, names: list[str], *, started: bool = True, supergroup: bool = True
) -> Players:
    """Users in a new group created by the first; `supergroup=False`: a basic group
    (which `FakeTelegram.migrate_group` can upgrade)."""
    users = [fake.create_user(n, username=n.lower(), started=started) for n in names]
    group = fake.create_group("Schnapsen", members=users, creator=users[0], supergroup=supergroup)
    return Players(group, users)


async def started_match(rig: Rig, fake: FakeTelegram, presses: int = 0) -> tuple[Players, str]:
    """Anna and Berti in a Zweier match `presses` presses in (a press of whoever is
    to act, once his buttons are there)."""
    players = make_players(fake, ["Anna", "Berti"])
    table_id, lobby = await open_table(rig, players, "/new zweier")
    assert not (await press(fake, players.users[0], lobby, "Start")).show_alert
    if presses:
        await play(rig, table_id, players.users, until=lambda: False, limit=presses)
    return players, table_id


async def press(
    fake: FakeTelegram, user: FakeUser, message: FakeMessage, label: str
) -> CallbackAnswer:
    query = user.press(message, label)
    return await fake.wait_answer(query)


async def asked(fake: FakeTelegram, user: FakeUser, chat: FakeChat, command: str) -> FakeMessage:
    """`command` (/resign in a group, /forgetme privately): the question it is
    answered with."""
    typed = user.send(chat, command)
    return await fake.wait_for_message(chat, after=typed, contains="?")


async def confirmed(
    fake: FakeTelegram, user: FakeUser, chat: FakeChat, command: str
) -> FakeMessage:
    """`command` and the one button of the question it is answered with; the question."""
    question = await asked(fake, user, chat, command)
    [button] = question.buttons()
    answer = await press(fake, user, question, button.text)
    assert not answer.show_alert, answer.text
    return question


async def cillis_lobby(fake: FakeTelegram, group: FakeChat) -> FakeMessage:
    """Cilli, a new member of the group who started the bot, opens a Zweier lobby of
    her own there: another table in the chat, none of the others' business."""
    cilli = fake.create_user("Cilli", started=True)
    group.add_member(cilli)
    typed = cilli.send(group, "/new zweier")
    return await fake.wait_for_message(group, after=typed, contains="Host: Cilli")


async def data_deleted(fake: FakeTelegram, question: FakeMessage) -> None:
    """Wait for /forgetme's confirmed question to become its answer (his data gone)."""
    await fake.wait_for(
        lambda: question.text.startswith("Your data is deleted") or None,
        what="the question to become the answer",
    )


async def open_table(
    rig: Rig, players: Players, command: str, *, after: FakeMessage | None = None
) -> tuple[str, FakeMessage]:
    """`/new ...` by the first user, everyone else joins; returns table id and lobby
    (the first lobby posted after `after`)."""
    fake = rig.fake
    host, *others = players.users
    host.send(players.group, command)
    lobby = await fake.wait_for_message(players.group, after=after, contains="Host:")
    table_id = _table_id(lobby)
    for user in others:
        answer = await press(fake, user, lobby, "Join")
        assert not answer.show_alert, answer.text
        await fake.wait_for(joined(user, lobby), what=f"{user.first_name} in the lobby")
    return table_id, lobby


def joined(user: FakeUser, lobby: FakeMessage) -> Callable[[], bool]:
    """Whether the lobby names `user` (his join went through), for `wait_for`."""
    return lambda: user.first_name in lobby.text


async def lobby_with_a_stranger(fake: FakeTelegram) -> tuple[Players, FakeMessage, str]:
    """Anna's Zweierschnapsen lobby in a group with Berti, who has never started the
    bot (so it cannot write to him privately); the players, the lobby, its table."""
    anna = fake.create_user("Anna", started=True)
    berti = fake.create_user("Berti", started=False)
    group = fake.create_group("Schnapsen", members=[anna, berti], creator=anna)
    anna.send(group, "/new zweier")
    lobby = await fake.wait_for_message(group, contains="Host:")
    return Players(group, [anna, berti]), lobby, _table_id(lobby)


def _table_id(lobby: FakeMessage) -> str:
    for button in lobby.buttons():
        try:
            return decode_payload(button.data).table
        except PayloadError:
            continue
    raise AssertionError(f"no table buttons in {lobby.text!r}")


def hand_message(user: FakeUser, table_id: str) -> FakeMessage | None:
    """The user's newest private hand message for this table (English texts)."""
    for message in reversed(user.private_chat.bot_messages()):
        if message.text.startswith(f"Your hand at table {table_id}"):
            return message
        for rev in message.revisions:
            for row in rev.keyboard():
                for button in row:
                    try:
                        if decode_payload(button.data).table == table_id:
                            return message
                    except PayloadError:
                        continue
    return None


def _choices(message: FakeMessage, table_id: str, version: int) -> list[Button]:
    out = []
    for button in message.buttons():
        try:
            p = decode_payload(button.data)
        except PayloadError:
            continue
        if p.table == table_id and p.version == version and p.verb in ("a", "dp", "gv", "pg"):
            out.append(button)
    return out


async def play(
    rig: Rig,
    table_id: str,
    users: list[FakeUser],
    *,
    until: Callable[[], bool],
    prefer: tuple[str, ...] = (),
    limit: int | None = None,
    max_presses: int = 5000,
) -> int:
    """Press the buttons the players were sent until `until()` (or `limit` presses).

    Each step waits for some user's private hand message to offer buttons of the
    table's current version, presses one (a game action mostly; a hand menu when the
    engine wants a discard picked card by card; a label in `prefer` most often, so
    random players do not bid the wildest contract every deal), then waits for the table to move on
    or the hand message to change.
    """
    fake = rig.fake
    presses = 0

    def pick() -> tuple[FakeUser, FakeMessage, Button] | None:
        table = rig.table(table_id)
        if table is None:
            return None
        for user in users:
            message = hand_message(user, table_id)
            if message is None:
                continue
            options = _choices(message, table_id, table.version)
            if options:
                actions = [b for b in options if decode_payload(b.data).verb == "a"]
                pool = actions if actions and rig.rng.random() < 0.9 else options
                liked = [b for b in options if b.text in prefer]
                if liked and rig.rng.random() < 0.9:
                    pool = liked
                return user, message, rig.rng.choice(pool)
        return None

    while not until() and presses != limit:
        assert presses < max_presses, "the game did not end"
        found = await fake.wait_for(
            lambda: pick() or until(), timeout=TURN_WAIT, what=_stuck(rig, table_id, users)
        )
        if found is True:
            break
        assert isinstance(found, tuple)
        user, message, button = found
        table = rig.table(table_id)
        assert table is not None
        version = table.version
        revisions = len(message.revisions)
        answer = await press(fake, user, message, button.data)
        presses += 1
        if answer.show_alert and rig.table(table_id) is None:
            break  # it closed as he pressed (its topic lost, say): the refusal says so
        assert not answer.show_alert, f"{user.first_name} pressed {button}: {answer.text}"

        def moved(
            version: int = version, message: FakeMessage = message, n: int = revisions
        ) -> bool:
            tb = rig.table(table_id)
            return tb is None or tb.version != version or len(message.revisions) > n

        await fake.wait_for(moved, timeout=TURN_WAIT, what="the table to move on")
    return presses


def _stuck(rig: Rig, table_id: str, users: list[FakeUser]) -> str:
    """What the players see, for a failure message."""
    table = rig.table(table_id)
    lines = ["a hand with buttons to press"]
    lines.append(f"updates: {rig.witness.kinds[-8:]}")
    if table is not None:
        lines.append(f"table version {table.version}, seat to act {table.to_act()}")
    for user in users:
        message = hand_message(user, table_id)
        text = message.text if message is not None else "(no hand message)"
        keys = message.keyboard() if message is not None else []
        lines.append(f"--- {user.first_name}: {text}\n{keys}")
    return "\n".join(lines)


async def finished_match(rig: Rig, fake: FakeTelegram) -> tuple[Players, str]:
    """Anna and Berti's Zweier match, played to its end by buttons."""
    players, table_id = await started_match(rig, fake)
    await play(rig, table_id, players.users, until=lambda: rig.table(table_id) is None)
    await rig.adapter.outbox.drain()
    return players, table_id


async def wait_for_document(
    fake: FakeTelegram, chat: FakeChat, *, after: FakeMessage | int | None = None
) -> FakeMessage:
    """The first document the bot posts in `chat` after message `after`."""
    floor = after.message_id if isinstance(after, FakeMessage) else after or 0

    def match() -> FakeMessage | None:
        fresh = (m for m in chat.bot_messages() if m.message_id > floor)
        return next((m for m in fresh if m.document is not None), None)

    return await fake.wait_for(match, what=f"a document in chat {chat.id}\n{chat.transcript()}")
