"""Discord and Telegram served by one bot: `python -m bot` with both tokens.

The real runner (`bot.app.run`) starts both adapters in one process and one event
loop, over one SQLite file, against the fake Discord and the fake Telegram at once
(both on 127.0.0.1); the computers think in the runner's worker pool.  What a player
of either platform must never notice is the other one: his channel or group sees its
own table and players only, his hand comes to him alone, the boards and /stats count
his platform's games (a Discord and a Telegram account with the same number or the
same name are two people), the other platform failing does not hold up his game, and
a stop and a start go on with every table.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import re
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pytest
from pydantic import SecretStr

from adapters.discord import DiscordAdapter
from adapters.telegram import TelegramAdapter, Throttle
from adapters.telegram import serve as serve_telegram
from bot import app
from bot.config import Config
from bot.i18n import LANGUAGES, card_label
from engine import protocol as P
from engine.cards import CARDS
from tests.e2e.discord_harness import Bot, TableRecorder, World, deal_states, discord_world
from tests.e2e.fakes.discord.entities import FakeUser as DiscordUser
from tests.e2e.fakes.telegram.chats import FakeChat
from tests.e2e.fakes.telegram.protocol import Limits
from tests.e2e.fakes.telegram.ptb import LogErrorGuard
from tests.e2e.fakes.telegram.server import FakeTelegram
from tests.e2e.telegram_harness import (
    GUARDED,
    Players,
    Rig,
    Witness,
    free_port,
    hand_message,
    make_players,
    open_table,
    play,
    press,
    wait_for_document,
)

EDITS = "/channels/{channel_id}/messages/{message_id}"
#: Seconds the runner gets to come up or go down (a loaded 2-core machine).
STARTUP = 15.0

_LABELS = {card_label(c, lang): c for lang in LANGUAGES for c in CARDS}
_HAND_LINE = re.compile(r"^(?:Hand|Karten): (.*)$", re.M)


@dataclass
class Both:
    """The two fakes, and the bot while it runs (`start`, `stop`)."""

    world: World
    tg: FakeTelegram
    config: Config
    rig: Rig | None = None
    task: asyncio.Task[int] | None = None
    #: What the Telegram group was shown, across restarts (its `check_group`).
    witness: Witness | None = None
    #: The running bot's parts, as the runner reports them.
    running: app.App | None = None

    async def start(self, *, telegram: bool = True) -> None:
        """`python -m bot` with both tokens; back once Discord serves, and Telegram
        (unless not `telegram`: see `telegram_serves`)."""
        assert self.task is None
        stop = asyncio.Event()
        started: list[app.App] = []

        def on_started(running: app.App) -> None:
            # before the adapters start: these listeners see every update they see
            recorder = TableRecorder(running.service, self.world.fake)
            if self.witness is None:
                self.witness = Witness(running.service)
            self.witness.service = running.service
            running.service.listeners += [recorder, self.witness]
            for table in running.service.tables.values():
                recorder.track(table)
            started.append(running)

        task = self.task = asyncio.create_task(
            app.run(
                self.config,
                loader=unpaced,
                stop=stop,
                on_started=on_started,
                retry_delays=(0.2,),
            )
        )

        def discord_serves() -> bool:
            assert not task.done(), f"the bot ended: {task.result()}"
            return bool(started) and any(
                isinstance(x, DiscordAdapter) and x.ready.is_set()
                for x in started[0].service.listeners
            )

        await until(discord_serves, "Discord to serve")
        running = self.running = started[0]
        service = running.service
        [recorder] = [x for x in service.listeners if isinstance(x, TableRecorder)]
        [dc] = [x for x in service.listeners if isinstance(x, DiscordAdapter)]
        dc.idle_callbacks.append(self.world.fake.poke)
        same = cast("asyncio.Task[None]", task)  # the harnesses' own type
        self.world.bot = Bot(running.store, service, dc, stop, same, recorder)
        if telegram:
            await self.telegram_serves()

    async def telegram_serves(self) -> Rig:
        """Once the running bot polls Telegram: the Telegram side of it."""
        bot, running, witness = self.world.bot, self.running, self.witness
        assert bot is not None and running is not None and witness is not None

        def serving() -> TelegramAdapter | None:
            assert not bot.task.done(), f"the bot ended: {bot.task.result()}"
            polling = (
                self.tg.in_flight.get("getUpdates")
                or self.tg.calls_to("getUpdates")
                or self.tg.webhook is not None
            )
            found = [x for x in bot.service.listeners if isinstance(x, TelegramAdapter)]
            return found[0] if found and polling else None

        await until(lambda: serving() is not None, "Telegram to serve")
        adapter = serving()
        assert adapter is not None
        db = self.config.database_path
        self.rig = Rig(self.tg, db, bot.service, bot.store, adapter, bot.stop, bot.task, witness)
        return self.rig

    async def stop(self, *, settle: bool = True) -> int:
        """Stop as SIGTERM does (once all was sent, if `settle`); the exit code."""
        bot, task = self.world.bot, self.task
        assert bot is not None and task is not None
        if settle:
            await self.world.settle()
        bot.stop.set()
        try:
            return await asyncio.wait_for(task, app.SHUTDOWN_GRACE + 5)
        finally:
            self.world.bot, self.rig, self.task = None, None, None

    async def restart(self) -> None:
        assert await self.stop() == 0
        await self.start()


def unpaced(name: str) -> app.Serve:
    """The runner's adapters, Telegram's without its pacing (a group's 20 messages a
    minute would make a match take minutes; this fake has no flood control)."""
    if name == "telegram":
        return functools.partial(serve_telegram, throttle=Throttle.off())
    return app.load_adapter(name)


async def until(check: Callable[[], object], what: str, timeout: float = STARTUP) -> None:
    """Poll `check` (what the runner does inside wakes no fake)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not check():
        assert loop.time() < end, f"waited {timeout} s for {what}"
        await asyncio.sleep(0.02)


@contextlib.asynccontextmanager
async def both_platforms(
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    *,
    discord_users: Sequence[DiscordUser] = (),
    tg: FakeTelegram | None = None,
    **settings: Any,
) -> AsyncIterator[Both]:
    """Both fakes (`tg`: one made by the test, not started yet), a bot configured for
    both on one database file.  Every ERROR logged (by anyone) fails the test, and so
    does a hidden card in a channel or a hand shown to another (`discord_world`'s
    checks)."""
    caplog.set_level(logging.INFO)
    async with discord_world(tmp_path) as world:
        for user in discord_users:
            world.fake.users[user.id] = user
            world.fake.add_member(world.guild, user)
        with LogErrorGuard(*GUARDED) as guard:
            async with tg or FakeTelegram(limits=Limits(rate=None)) as tg:
                tg.attach(guard)
                config = Config(  # type: ignore[call-arg]
                    _env_file=None,
                    discord_token=SecretStr(world.fake.token),
                    telegram_token=SecretStr(tg.token),
                    telegram_api_url=tg.base_url,
                    database_path=world.db,
                    ai_delay=0,
                    turn_timeout=600,
                    reminder_before=0,
                    ai_level="heuristic",
                    ai_workers=1,
                    **settings,
                )
                both = Both(world, tg, config)
                try:
                    yield both
                finally:
                    if both.task is not None:  # the test failed: stop the bot anyway
                        await both.stop()
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, "\n".join(f"{r.name}: {r.getMessage()}" for r in errors)


# ----------------------------------------------------------------------- what is seen


def discord_texts(world: World) -> list[str]:
    """Everything the bot wrote on Discord: channel, DMs, replies only one sees."""
    fake = world.fake
    out = []
    for m in fake.messages.values():
        if m.author is fake.bot_user:
            out += [m.text, *(r.content for r in m.history)]
    return out


def telegram_texts(tg: FakeTelegram, chats: list[FakeChat]) -> list[str]:
    return [r.text for chat in chats for m in chat.bot_messages() for r in m.revisions]


def mentions(texts: list[str], words: list[str]) -> list[str]:
    """The texts that name one of `words` (a table id, a player's name) as a word."""
    found = re.compile(r"\b(?:" + "|".join(map(re.escape, words)) + r")\b")
    return [t for t in texts if found.search(t)]


def telegram_hands_are_their_own(both: Both, table_id: str, players: Players) -> int:
    """Every hand a Telegram player was shown is one his seat held; how many checked."""
    table = both.world.fake.tables[table_id]  # kept by the recorder, also once closed
    checked = 0
    for user in players.users:
        seat = table.seat_of(f"tg:{user.id}")
        assert seat is not None
        hands: list[set[Any]] = []
        for log in table.deals:
            if seat in log.spec.seats:
                deal_seat = log.spec.seats.index(seat)
                hands += [set(P.view(s, deal_seat).hand) for s in deal_states(log)]
        for message in user.private_chat.bot_messages():
            for rev in message.revisions:
                line = _HAND_LINE.search(rev.text)
                if line is None or table_id not in rev.text:
                    continue
                shown = {_LABELS[x] for x in line[1].split() if x in _LABELS}
                assert shown in hands, f"{user.first_name} was shown {line[1]!r}"
                checked += 1
    return checked


# ----------------------------------------------------------------------- the tests


async def open_discord_dreier(world: World) -> str:
    """Anna and Bert with a computer at a Dreierschnapsen table, started."""
    anna, bert = world["anna"], world["bert"]
    table_id, lobby = await world.open_table(anna, "dreier")
    await world.click(bert, lobby, "Join")
    await world.settle()
    await world.click(anna, lobby, "Add computer")
    await world.settle()
    await world.click(anna, lobby, "Start")
    await world.settle()
    return table_id


async def open_telegram_dreier(rig: Rig, players: Players) -> str:
    """The same in a Telegram group."""
    table_id, lobby = await open_table(rig, players, "/new dreier")
    host = players.users[0]
    assert not (await press(rig.fake, host, lobby, "Add computer")).show_alert
    await rig.fake.wait_for(lambda: "computer" in lobby.text, what="the computer seated")
    assert not (await press(rig.fake, host, lobby, "Start")).show_alert
    return table_id


def deals_scored(both: Both, table_id: str) -> int:
    assert both.witness is not None
    return sum(1 for u in both.witness.updates if u.table_id == table_id and u.result)


def deal_moves(both: Both, table_id: str) -> list[object]:
    """The moves of the table's running deal, as stored."""
    table = both.world.service.tables[table_id]
    assert table.deal_log is not None
    return list(table.deal_log.actions)


def moves_made(both: Both, table_id: str) -> int:
    """Moves of the table's running deal."""
    table = both.world.service.tables.get(table_id)
    return 0 if table is None or table.deal_log is None else len(table.deal_log.actions)


async def play_both(
    both: Both, dc_table: str, tg_table: str, players: Players, *, deals: int = 0, moves: int = 0
) -> None:
    """The players of both tables press their buttons at the same time until each
    table has scored `deals` deals and made `moves` moves of the next (a deal may end
    its match: random computers bid wildly)."""
    rig = both.rig
    assert rig is not None

    def done(table_id: str) -> Callable[[], bool]:
        def check() -> bool:
            scored = deals_scored(both, table_id)
            if table_id not in both.world.service.tables:
                return True
            return scored > deals or (scored == deals and moves_made(both, table_id) >= moves)

        return check

    await asyncio.gather(
        both.world.play(dc_table, until=done(dc_table)),
        play(rig, tg_table, players.users, until=done(tg_table), prefer=("Pass", "Normal game")),
    )


@pytest.mark.parametrize("webhook", [False, True], ids=["polling", "webhook"])
async def test_a_channel_and_a_group_play_at_once_and_go_on_after_a_restart(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, webhook: bool
) -> None:
    port = free_port()
    settings: dict[str, Any] = dict(
        telegram_webhook_url=f"http://127.0.0.1:{port}/tg/hook",
        telegram_webhook_listen="127.0.0.1",
        telegram_webhook_port=port,
    )
    async with both_platforms(tmp_path, caplog, **(settings if webhook else {})) as both:
        await both.start()
        world, rig = both.world, both.rig
        assert rig is not None
        players = make_players(both.tg, ["Resi", "Sepp"])
        dc_table, tg_table = await asyncio.gather(
            open_discord_dreier(world), open_telegram_dreier(rig, players)
        )
        assert dc_table != tg_table
        assert world.service.tables[dc_table].platform == "dc"
        assert world.service.tables[tg_table].platform == "tg"

        # both tables play at the same time, computers included; a stop mid-deal is
        # clean, and the next start picks both tables up where they were
        await play_both(both, dc_table, tg_table, players, moves=4)
        moves = {t: deal_moves(both, t) for t in (dc_table, tg_table)}
        await both.restart()
        # nothing lost (a computer whose turn it was may have moved since)
        assert {t: deal_moves(both, t)[: len(m)] for t, m in moves.items()} == moves
        await play_both(both, dc_table, tg_table, players, deals=1)
        assert both.rig is not None and await both.rig.adapter.outbox.drain(5)
        await world.settle()

        # the computers thought in the runner's worker process
        assert both.running is not None and both.running.workers.pids()

        # each platform saw its own table and players only
        dc_said = discord_texts(world)
        tg_said = telegram_texts(both.tg, [players.group, *(u.private_chat for u in players.users)])
        assert mentions(dc_said, [dc_table]) and mentions(tg_said, [tg_table])
        assert mentions(dc_said, [tg_table, "Resi", "Sepp"]) == []
        assert mentions(tg_said, [dc_table, "anna", "bert"]) == []
        # the restarted Telegram adapter took up its own table only: it asked Telegram
        # nothing about the Discord one (whose channel id is no chat of Telegram's)
        ours = {players.group.id, *(u.id for u in players.users)}
        asked = {c.params["chat_id"] for c in both.tg.calls if "chat_id" in c.params}
        assert asked <= ours, asked - ours
        # hands went to their owners only (Discord's are checked as they are sent)
        assert world.fake.hands_checked > 0
        assert telegram_hands_are_their_own(both, tg_table, players) > 0
        assert both.witness is not None
        assert both.witness.check_group(tg_table, players.group) > 0


async def play_to_the_end(both: Both, dc_table: str, tg_table: str, players: Players) -> None:
    """Both matches played out at the same time, by their players' buttons."""
    rig = both.rig
    assert rig is not None
    tables = both.world.service.tables
    await asyncio.gather(
        both.world.play(dc_table),
        play(rig, tg_table, players.users, until=lambda: tg_table not in tables),
    )
    assert await rig.adapter.outbox.drain(5)
    await both.world.settle()


def board_rows(text: str) -> list[str]:
    """A board's players, best first."""
    return re.findall(r"^\d+\. (.+?) — rating", text, re.M)


async def test_a_discord_and_a_telegram_account_of_one_number_and_name_are_two_people(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Anna plays on Discord and on Telegram under one name, and by chance her two
    accounts have one number: each platform's board, /stats and /record show her the
    match she played there, and each of her accounts is a player of its own."""
    tg = FakeTelegram(limits=Limits(rate=None))  # for her Telegram account's number
    tg_anna = tg.create_user("Anna", username="anna", started=True)
    dc_anna = DiscordUser(id=tg_anna.id, username="Anna")
    async with both_platforms(tmp_path, caplog, discord_users=[dc_anna], tg=tg) as both:
        await both.start()
        world = both.world
        rig = both.rig
        assert rig is not None
        berti = tg.create_user("Berti", username="berti", started=True)
        group = tg.create_group("Schnapsen", members=[tg_anna, berti], creator=tg_anna)
        players = Players(group, [tg_anna, berti])
        bert = world["bert"]

        async def on_discord() -> str:
            table_id, lobby = await world.open_table(dc_anna, "zweier")
            await world.click(bert, lobby, "Join")
            await world.settle()
            await world.click(dc_anna, lobby, "Start")
            await world.settle()
            return table_id

        async def on_telegram() -> str:
            table_id, lobby = await open_table(rig, players, "/new zweier")
            assert not (await press(tg, tg_anna, lobby, "Start")).show_alert
            return table_id

        dc_table, tg_table = await asyncio.gather(on_discord(), on_telegram())
        # a button of one platform's table pressed by her account on the other (a
        # forged one: no message there has it) moves nothing
        tables = world.service.tables
        versions = {t: tables[t].version for t in (dc_table, tg_table)}
        hand = await tg.wait_for(lambda: hand_message(tg_anna, tg_table), what="her hand")
        toast = await tg.wait_answer(
            tg_anna.press_data(hand, f"{dc_table}:{versions[dc_table]}:a0")
        )
        assert toast.text == "That table is closed."
        table_message = world.table_messages(dc_table)[-1]
        forged = f"s:{tg_table}:{versions[tg_table]}:a0"
        reply = await (await world.fake.click(dc_anna, table_message, forged, forged=True))
        assert (reply.content, reply.ephemeral_for) == ("That table is closed.", dc_anna)
        assert {t: tables[t].version for t in versions} == versions

        await play_to_the_end(both, dc_table, tg_table, players)

        # the boards: each platform's own players, Anna once on each
        board = await world.slash(dc_anna, "leaderboard", game="zweier")
        assert sorted(board_rows(board.content)) == ["Anna", "bert"]
        last = group.latest()
        tg_anna.send(group, "/leaderboard zweier")
        answer = await tg.wait_for_message(group, after=last, contains="Leaderboard")
        assert sorted(board_rows(answer.text)) == ["Anna", "Berti"]
        # everywhere: one board of both platforms, where her accounts are two players
        board = await world.slash(dc_anna, "leaderboard", game="zweier", scope="global")
        assert sorted(board_rows(board.content)) == ["Anna", "Anna", "Berti", "bert"]

        # /stats: one match each, here and everywhere
        one = "Schnapsen (2 players): 1 played"
        for scope in ("server", "global"):
            stats = await world.slash(dc_anna, "stats", scope=scope)
            assert stats.content.startswith("Statistics for Anna") and one in stats.content
        for command in ("/stats", "/stats global"):
            last = group.latest()
            tg_anna.send(group, command)
            stats_msg = await tg.wait_for_message(group, after=last, contains="Statistics")
            assert one in stats_msg.text, stats_msg.text

        # /record: the match she played on the platform she asks on
        file = await world.slash(dc_anna, "record")
        [attachment] = file.attachments
        assert attachment["filename"] == f"schnapsen-zweier-{dc_table}.json"
        assert "0 Anna · 1 bert" in file.content or "0 bert · 1 Anna" in file.content
        last = group.latest()
        tg_anna.send(group, "/record")
        document = await wait_for_document(tg, group, after=last)
        assert document.document is not None
        assert document.document.file_name == f"schnapsen-zweier-{tg_table}.json"
        # the other platform's match, named: no such match for her here
        refused = await world.slash(dc_anna, "record", table=tg_table)
        assert refused.content.startswith(f"No finished match {tg_table}"), refused.content
        assert refused.attachments == []
        dm = await (await world.fake.slash(dc_anna, None, "record", table=tg_table))
        assert dm.content.startswith(f"No finished match {tg_table}"), dm.content
        last = group.latest()
        tg_anna.send(group, f"/record {dc_table}")
        refusal = await tg.wait_for_message(group, after=last, contains=dc_table)
        assert refusal.text.startswith(f"No finished match {dc_table}")
        assert refusal.document is None


async def test_one_platform_failing_holds_up_nothing_on_the_other(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The bot starts while Telegram cannot be reached: the Discord table plays on,
    the Telegram one waits (no move, no clock) until Telegram answers, then goes on.
    Then Discord leaves the bot's messages unanswered: the Telegram table plays a deal
    meanwhile, and a stop then is a clean one all the same."""
    async with both_platforms(tmp_path, caplog) as both:
        await both.start()
        world, tg = both.world, both.tg
        rig = both.rig
        assert rig is not None
        players = make_players(tg, ["Resi", "Sepp"])
        dc_table, tg_table = await asyncio.gather(
            open_discord_dreier(world), open_telegram_dreier(rig, players)
        )
        await play_both(both, dc_table, tg_table, players, moves=4)
        assert await both.stop() == 0

        await tg.go_offline()
        await both.start(telegram=False)
        await until(lambda: "telegram: cannot reach the platform" in caplog.text, "a try")
        waiting = deal_moves(both, tg_table)
        await world.play(dc_table, until=lambda: deals_scored(both, dc_table) >= 1)
        await world.settle()
        assert deal_moves(both, tg_table) == waiting
        await tg.come_back()
        rig = await both.telegram_serves()

        # Discord takes the bot's edits and never answers, after a Discord move
        edits = world.fake.hold("PATCH", EDITS)
        if dc_table in world.service.tables:  # (a match may end with its first deal)
            moved = moves_made(both, dc_table)
            await world.play(dc_table, until=lambda: moves_made(both, dc_table) > moved)
            await edits.wait_held()
        await play(
            rig,
            tg_table,
            players.users,
            until=lambda: deals_scored(both, tg_table) >= 1,
            prefer=("Pass", "Normal game"),
        )
        assert await rig.adapter.outbox.drain(5)
        assert edits.waiting or dc_table not in world.service.tables  # still unanswered
        assert await both.stop(settle=False) == 0
        edits.release()
