"""The bot as an operator runs it: months in one process, match after match.

What a finished or closed table leaves behind must not add up: no state in the
service, no message references in the store, no write-ahead log that only grows, no
query that gets slower with every match other chats ever played.  (The figures of a
long run are `bench/soak.py`'s; these tests hold the behaviour.)
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from bot import results as R
from bot.payload import table_verb
from bot.service import ChatRef, TableService, UserRef
from bot.store import Op, Store

from .fakechat import CHAT, Bot, Player, open_table, play_out, users

ROOT = Path(__file__).resolve().parents[2]
OTHER = ChatRef("tg", "-2", "Other group")


def kept(svc: TableService, table_id: str) -> list[str]:
    """Which of the service's per-table containers still name a table."""
    where = {
        "tables": table_id in svc.tables,
        "locks": table_id in svc._locks,
        "timers": table_id in svc._timers,
        "reminded": table_id in svc._reminded,
        "waiting": any(table_id in ids for ids in svc._waiting.values()),
    }
    return [name for name, found in where.items() if found]


def your_turn(player: Player, table_id: str) -> bool:
    hand = player.hand(table_id)
    return hand is not None and hand.your_turn


class Thinking:
    """An AI runner that thinks until told to move (the strong level takes seconds)."""

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.go = asyncio.Event()

    async def __call__(self, choose: Callable[[], int]) -> int:
        self.started.set()
        await self.go.wait()
        return choose()


async def _resign(bot: Bot, tid: str, user: UserRef) -> None:
    assert (await bot.svc.resign(CHAT, user)).ok


async def _vote(bot: Bot, tid: str, user: UserRef) -> None:
    table = bot.svc.tables[tid]
    assert (await bot.svc.act(user, table_verb(tid, table.version, "ab"))).ok


async def _admin(bot: Bot, tid: str, user: UserRef) -> None:
    admin = UserRef("tg", "999", "Admin")
    assert (await bot.svc.abort(CHAT, admin, is_admin=True, table_id=tid)).ok


async def _chat_lost(bot: Bot, tid: str, user: UserRef) -> None:
    assert await bot.svc.close_chat(CHAT, "group_lost") == [tid]


@pytest.mark.parametrize("close", [_resign, _vote, _admin, _chat_lost])
async def test_a_table_closed_while_the_computer_thinks_leaves_nothing_behind(
    make_bot: Callable[..., Bot], close: Callable[[Bot, str, UserRef], Awaitable[None]]
) -> None:
    """The computer thinks without the table's lock; if the table closes meanwhile
    (a resignation, a vote, an admin, the group gone), its move finds it gone — and
    the service keeps nothing of it, however many tables end that way."""
    thinking = Thinking()
    bot = await make_bot(ai_runner=thinking).start()
    try:
        (anna,) = (bot.player(u) for u in users(1))
        tid = await open_table(bot, "zweier", [anna])
        while not thinking.started.is_set():  # play until it is the computer's turn
            if await anna.take_turn(tid) is None:
                await bot.fc.wait(lambda: thinking.started.is_set() or your_turn(anna, tid))
        await close(bot, tid, anna.user)
        assert tid not in bot.svc.tables
        thinking.go.set()
        await bot.fc.wait(lambda: not bot.svc._tasks)
        assert kept(bot.svc, tid) == []
    finally:
        await bot.stop()


async def test_a_table_closed_while_its_platform_is_away_is_forgotten(bot: Bot) -> None:
    """A person's turn waits while his platform is out of reach; a table an admin
    closes meanwhile is gone for good, not kept until (or unless) it comes back."""
    anna, bert = (bot.player(u) for u in users(2))
    tid = await open_table(bot, "zweier", [anna, bert])
    bot.svc.hold("tg")
    assert kept(bot.svc, tid) == ["tables", "locks", "timers", "waiting"]
    admin = UserRef("tg", "999", "Admin")
    assert (await bot.svc.abort(CHAT, admin, is_admin=True, table_id=tid)).ok
    assert kept(bot.svc, tid) == []


async def test_forget_me_adds_nothing_to_a_table_that_ended_meanwhile(bot: Bot) -> None:
    """/forgetme takes the locks of the player's tables one after another; one that
    ends while he waits for an earlier one (a press is being stored there) is over:
    its log ends with its last move, and no update says it changed after it
    finished."""
    anna, bert, cilli = (bot.player(u) for u in users(3))
    first = await open_table(bot, "zweier", [anna, bert])
    second = await open_table(bot, "zweier", [anna, cilli], chat=OTHER)
    assert sorted(bot.svc.tables) == [first, second]  # /forgetme's order
    async with bot.svc.lock(first):  # a press at the first table, being stored
        forget = asyncio.ensure_future(bot.svc.forget(anna.user))
        for _ in range(5):
            await asyncio.sleep(0)  # /forgetme now waits for the first table
        assert not forget.done()
        assert (await bot.svc.resign(OTHER, cilli.user)).ok
    assert (await forget).ok
    assert second not in bot.svc.tables
    log = await bot.store.table_log(second)  # type: ignore[union-attr]
    assert log[-1]["k"] == "resign"
    assert bot.fc.kinds(second)[-1] == "finished"
    assert kept(bot.svc, second) == []
    assert bot.svc.tables[first].seat_of(anna.key) is None


async def test_a_closed_table_forgets_where_it_was_shown(bot: Bot) -> None:
    """Adapters remember which platform message shows what, and drop it when the
    table ends; a crash or a shutdown before they get to it must not leave the rows
    for ever: the change that closes a table drops them."""
    store = bot.store
    assert store is not None
    anna, bert = (bot.player(u) for u in users(2))
    played = await open_table(bot, "zweier", [anna, bert])
    closed = await open_table(bot, "zweier", [anna, bert], chat=OTHER, start=False)
    for tid in (played, closed):
        await store.set_message_ref(tid, "table", "-1001/1")
        await store.set_message_ref(tid, f"hand:{anna.key}", "100/2")
    assert (await bot.svc.abort(OTHER, anna.user)).ok  # the host closes his lobby
    await play_out(bot.fc, played, [anna, bert])
    assert played not in bot.svc.tables and closed not in bot.svc.tables
    assert await store.message_refs(played) == {}
    assert await store.message_refs(closed) == {}


async def test_refs_stored_after_a_table_closed_are_gone_after_a_restart(
    make_bot: Callable[..., Bot],
) -> None:
    """A message posted as its table ended may be remembered after the end (an
    adapter's queue runs behind the core): nobody reads it again, and a restart
    forgets it."""
    bot = await make_bot().start()
    anna, bert = (bot.player(u) for u in users(2))
    tid = await open_table(bot, "zweier", [anna, bert])
    running = await open_table(bot, "zweier", [anna, bert], chat=OTHER)
    await bot.svc.abort(CHAT, anna.user)
    await bot.svc.abort(CHAT, bert.user)
    assert tid not in bot.svc.tables
    await bot.store.set_message_ref(tid, "table", "-1001/9")  # type: ignore[union-attr]
    await bot.store.set_message_ref(running, "table", "-4/1")  # type: ignore[union-attr]
    await bot.stop()
    bot = await make_bot().start()
    try:
        assert await bot.store.message_refs(tid) == {}  # type: ignore[union-attr]
        assert await bot.store.message_refs(running) == {"table": "-4/1"}  # type: ignore[union-attr]
    finally:
        await bot.stop()


#: Presses per table in `_busy_writes`.  The log of the store that never checkpoints
#: grows with them; the other's is bounded by how long one checkpoint takes, which on
#: a loaded machine (CI's other test worker) can be a sizeable part of a short run:
#: with 200 a table it once reached 0.34 of the unbounded log (the limit is a third);
#: with 600, 0.02 on a quiet machine and at most 0.06 beside two CPU hogs and a disk
#: writer syncing 50 MB at a time (8 runs).
APPENDS = 600


async def _busy_writes(path: Path, checkpoint_every: int) -> int:
    """Tables written to without a pause (a busy bot); the WAL file's size then."""
    store = await Store(path).open()
    store.CHECKPOINT_EVERY = checkpoint_every
    try:

        async def table(n: int) -> None:
            tid = await store.create_table(f"tg:-{n}", "zweier", {"k": "create", "n": n})
            for v in range(2, 2 + APPENDS):
                entry = {"k": "act", "seat": v % 2, "code": v, "by": "p", "pad": "x" * 200}
                await store.append(tid, v, [entry], status="playing", deadline=None)

        await asyncio.gather(*(table(n) for n in range(4)))
        return Path(f"{path}-wal").stat().st_size
    finally:
        await store.close()


async def test_the_write_ahead_log_does_not_grow_while_the_bot_is_busy(tmp_path: Path) -> None:
    """Checkpoints copy the WAL into the database beside the writer; under a steady
    stream of presses the log must still start over after each, or its file grows
    for as long as the bot is busy (to far more than the database itself)."""
    unbounded = await _busy_writes(tmp_path / "never.sqlite3", checkpoint_every=10**9)
    bounded = await _busy_writes(tmp_path / "often.sqlite3", checkpoint_every=10)
    assert bounded < unbounded / 3, (bounded, unbounded)


async def _vm_steps(store: Store, query: Callable[[], Awaitable[object]]) -> int:
    """SQLite virtual-machine steps (in thousands) a read takes: how much of the
    database it walks, the same on any machine."""
    steps = 0

    def count() -> int:
        nonlocal steps
        steps += 1
        return 0

    await store.ro.set_progress_handler(count, 1000)
    try:
        await query()
    finally:
        await store.ro.set_progress_handler(None, 1000)  # type: ignore[arg-type]
    return steps


async def _other_chats_history(store: Store, matches: int, start: int) -> None:
    """Finished matches of other chats and their players' ratings (as results.py
    writes them), as months of a popular bot leave them."""
    ops: list[Op] = []
    for n in range(start, start + matches):
        ops.append(
            (
                "INSERT INTO games (table_id, chat, game, record, finished) VALUES (?, ?, ?, ?, ?)",
                (f"h{n}", f"tg:-9{n % 300}", "zweier", json.dumps({"deals": []}), float(n)),
            )
        )
        for scope in ("global", f"tg:-9{n % 300}"):
            ops.append(
                (
                    "INSERT OR IGNORE INTO ratings (scope, game, player, mu, sigma, games)"
                    " VALUES (?, 'zweier', ?, 25, 8, 1)",
                    (scope, f"tg:{n}"),
                )
            )
    await store.write(ops=ops)


async def test_a_chats_record_and_stats_cost_the_same_however_long_the_history(
    bot: Bot,
) -> None:
    """/record (a chat's newest match) and /stats read what concerns that chat or
    player, not every match and rating ever stored: with a hundred times the
    history of other chats, they walk no more of the database."""
    store = bot.store
    assert store is not None
    anna, bert = (bot.player(u) for u in users(2))
    tid = await open_table(bot, "zweier", [anna, bert])
    await play_out(bot.fc, tid, [anna, bert])
    reads: dict[str, Callable[[], Awaitable[object]]] = {
        "record": lambda: store.finished_game(CHAT.key),
        "stats": lambda: R.player_stats(store, anna.key),
    }
    await _other_chats_history(store, 30, 0)
    before = {name: await _vm_steps(store, read) for name, read in reads.items()}
    await _other_chats_history(store, 3000, 30)
    after = {name: await _vm_steps(store, read) for name, read in reads.items()}
    assert (await store.finished_game(CHAT.key)) is not None
    for name in reads:
        assert after[name] <= before[name] + 2, (name, before, after)


@pytest.mark.parametrize("close", [_vote, _admin])
async def test_a_table_closed_after_a_reminder_forgets_it(
    bot: Bot, close: Callable[[Bot, str, UserRef], Awaitable[None]]
) -> None:
    """Which turn the bot reminded is kept while the table runs (so the reminder is
    not sent again); a table that closes takes that with it."""
    anna, bert = (bot.player(u) for u in users(2))
    tid = await open_table(bot, "zweier", [anna, bert])
    bot.svc._fire(tid, bot.svc.tables[tid].version, "remind")  # the reminder's timer
    await bot.fc.wait(lambda: "reminder" in bot.fc.kinds(tid))
    assert "reminded" in kept(bot.svc, tid)
    await close(bot, tid, anna.user)
    if tid in bot.svc.tables:  # a vote: Bert's closes it
        await close(bot, tid, bert.user)
    assert kept(bot.svc, tid) == []


def test_the_soak_bench_runs_and_the_core_keeps_nothing_of_its_tables() -> None:
    """`bench/soak.py` (quoted in docs/bot.md) keeps running and says what it
    promises; after its tables, the core's per-table containers are empty."""
    out = subprocess.run(
        [sys.executable, "bench/soak.py", "--tables", "16", "--chats", "4", "--game", "zweier"]
        + ["--history", "40", "--no-trace", "--think", "0.005", "--lobby-expiry", "0.5"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout.strip().splitlines()[-1])
    assert res["stalled"] == 0
    after = res["containers_after"]
    for name in (
        "tables",
        "locks",
        "timers",
        "reminded",
        "tasks",
        "work",
        "player_locks",
        "claims",
    ):
        assert after[name] == 0, (name, after)
    assert res["message_refs_of_closed_tables"] == 0
    assert res["history_matches"] >= 40
    for key in ("tables_per_s", "db_bytes_per_match", "wal_bytes_max", "queries_ms_history"):
        assert key in res
