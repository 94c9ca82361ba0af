"""The bot as an operator runs it: one process, many groups, match after match.

    python bench/soak.py [--tables 300] [--chats 30] [--seed 1] [--game mix]
                         [--history 2000] [--think 0.02] [--no-render] [--no-trace]

Drives the real core (`TableService` on the real `Store`, a temporary SQLite file)
through `--tables` tables in `--chats` group chats, each chat playing its game
(`--game`, or a mix) one table after another, all chats at once.  Two people from a
shared pool sit at each table, computers fill the rest: the chat's ``ai_level``
setting is `--level`, by default the cheapest that ends a match (random, but the
heuristic in Thousand, which random players never take to 1000); people press like
`--human` (the same by default).  What the people do is drawn per table: most play
the match out, some resign, go idle (reminders, timeouts, the computer takes the
seat), vote to close it, are closed by an admin, abort or leave the lobby, or let it
expire; a resignation, vote or close comes preferably while a computer thinks
(`--think` seconds, without the table's lock, as the strong level does).  A listener
does what an adapter does with every update: draws the views (unless
``--no-render``) and keeps message references in the store, written off the table's
lock and dropped when the table ends.

After a warm-up (a tenth of the tables) the rest are measured: tables per second
(while every chat has a table; the last ones may play on alone, ``seconds_tail``),
the Python heap that stays per finished table (tracemalloc after gc; its top sites
are printed), the core's long-lived containers and the live asyncio tasks before and
after, the database's bytes per finished match and per deal, RSS.  Then the queries
a chat asks (leaderboard, /stats, /record, /forgetme) are timed on the history the
run made, and again once the history is padded to ``--history`` finished matches
(copies of the run's own rows under new chats and players).

Its last line is one JSON object with the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import gc
import json
import os
import random
import resource
import sqlite3
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot import results as R
from bot.ai_seats import choose_action
from bot.payload import game_action, table_verb
from bot.records import record_reply
from bot.service import ChatRef, Outcome, TableService, TableUpdate, Timings, UserRef
from bot.store import Store
from bot.table import Table
from engine import protocol as P

GAMES = {"zweier": 0.5, "dreier": 0.25, "bauern": 0.2, "tausend": 0.05}
#: What the people at a table do, and how often.
SCENARIOS = {
    "play": 0.55,  # play the match out
    "resign": 0.08,  # the host resigns after some presses
    "idle": 0.1,  # the guest stops pressing: reminders, timeouts, the computer's seat
    "vote": 0.07,  # both vote to close it mid-match
    "admin": 0.04,  # a chat admin closes it mid-match
    "host_abort": 0.06,  # the host closes the lobby
    "leave": 0.05,  # both leave the lobby
    "expire": 0.05,  # nobody starts it
}
#: Seconds without an update before a table counts as stalled (and is closed).
STALL = 20.0


class Adapter:
    """A listener doing with each update what a platform adapter does."""

    def __init__(self, service: TableService, render: bool) -> None:
        self.service = service
        self.render = render
        self.kinds: collections.Counter[str] = collections.Counter()
        self.events: dict[str, asyncio.Event] = {}  # tables a worker waits at
        self._io: set[asyncio.Task[None]] = set()
        self._n = 0

    async def table_update(self, update: TableUpdate) -> None:
        svc = self.service
        tid = update.table_id
        self.kinds[update.kind] += 1
        if self.render:
            if update.kind == "lobby":
                svc.lobby(tid)
            elif update.kind in ("started", "action"):
                svc.table(tid)
                for user in svc.seat_users(tid):
                    svc.hand(tid, user)
        if update.kind == "lobby" and update.version == 2:  # its first lobby message
            self._write(svc.store.set_message_ref(tid, "lobby", self._ref(update)))
        elif update.kind == "started":
            self._write(svc.store.set_message_ref(tid, "table", self._ref(update)))
            for user in svc.seat_users(tid):
                self._write(svc.store.set_message_ref(tid, f"hand:{user}", self._ref(update)))
        elif update.kind in ("finished", "aborted"):
            self._write(svc.store.drop_message_refs(tid))
        ev = self.events.get(tid)
        if ev is not None:
            ev.set()

    def _ref(self, update: TableUpdate) -> str:
        self._n += 1
        return f"{update.chat}/{self._n}"

    def _write(self, write: Awaitable[None]) -> None:
        """Off the table's lock, as an adapter's outbox does it."""
        task = asyncio.ensure_future(write)
        self._io.add(task)
        task.add_done_callback(self._io.discard)

    async def settle(self) -> None:
        while self._io:
            await asyncio.gather(*self._io, return_exceptions=True)


@dataclass
class Run:
    svc: TableService
    adapter: Adapter
    args: argparse.Namespace
    people: list[UserRef]
    admin: UserRef
    started: int = 0
    done: int = 0
    measured_from: int = 0
    outcomes: collections.Counter[str] = field(default_factory=collections.Counter)
    refused: collections.Counter[str] = field(default_factory=collections.Counter)
    presses: int = 0
    stalled: int = 0
    #: When the last table was handed out, and how many were done then: the steady
    #: state ends there (a long Thousand match may then play on alone).
    all_out: tuple[float, int] | None = None

    def next_table(self) -> int | None:
        if self.started >= self.args.tables:
            if self.all_out is None:
                self.all_out = (time.perf_counter(), self.done)
            return None
        self.started += 1
        return self.started


async def until(ev: asyncio.Event, timeout: float) -> bool:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(ev.wait(), timeout)
        return True
    return False


async def press(run: Run, user: UserRef, payload: str) -> Outcome:
    out = await run.svc.act(user, payload)
    run.presses += 1
    if not out.ok:
        run.refused[out.code] += 1
    return out


async def one_table(run: Run, chat: ChatRef, game: str, rng: random.Random) -> str:
    """Open one table in `chat` and live its scenario to the end; what ended it."""
    svc = run.svc
    scenario = pick(rng, SCENARIOS)
    host, guest = rng.sample(run.people, 2)
    out = await svc.create_table(chat, host, game)
    if not out.ok or out.table_id is None:
        run.refused[out.code] += 1
        return "not_opened"
    tid = out.table_id
    ev = run.adapter.events[tid] = asyncio.Event()
    try:
        return await _live(run, chat, tid, ev, scenario, host, guest, game, rng)
    finally:
        del run.adapter.events[tid]


async def _live(
    run: Run,
    chat: ChatRef,
    tid: str,
    ev: asyncio.Event,
    scenario: str,
    host: UserRef,
    guest: UserRef,
    game: str,
    rng: random.Random,
) -> str:
    svc = run.svc
    human = level_for(run.args.human, game)
    table = svc.tables[tid]
    if scenario != "expire":
        await press(run, guest, table_verb(tid, table.version, "j"))
        if scenario == "leave":
            await press(run, guest, table_verb(tid, table.version, "l"))
            await press(run, host, table_verb(tid, table.version, "l"))
        elif scenario == "host_abort":
            await svc.abort(chat, host)
        else:
            while tid in svc.tables and not table.is_full():
                await press(run, host, table_verb(tid, table.version, "ai"))
            await press(run, host, table_verb(tid, table.version, "st"))
    by_key = {host.key: host, guest.key: guest}
    idle = guest.key if scenario == "idle" else None
    moment = scenario in ("resign", "vote", "admin")
    trigger = rng.randrange(1, 40)  # presses before the scenario's moment comes
    presses = 0
    while tid in svc.tables:
        ev.clear()
        table = svc.tables[tid]
        seat = table.to_act()
        s = table.seats[seat] if seat is not None else None
        computers = any(x is not None and not x.human_playing for x in table.seats)
        if moment and presses >= trigger and (not computers or (s is not None and s.ai)):
            # preferably while a computer thinks: its move then finds the table gone
            moment = False
            if scenario == "resign":
                await svc.resign(chat, host)
            elif scenario == "vote":
                for user in (host, guest):
                    if tid in svc.tables:
                        await press(run, user, table_verb(tid, table.version, "ab"))
            else:
                await svc.abort(chat, run.admin, is_admin=True, table_id=tid)
            continue
        if s is not None and s.human_playing and s.user != idle and table.deal is not None:
            assert s.user is not None and seat is not None
            code = human_choice(human, table, seat, rng)
            await press(run, by_key[s.user], game_action(tid, table.version, code))
            presses += 1
            continue
        if not await until(ev, STALL) and svc.tables.get(tid) is table:
            run.stalled += 1
            await svc.abort(chat, run.admin, is_admin=True, table_id=tid)
    # a resignation, vote or close whose moment never came: the match was played out
    return "played" if scenario == "play" or moment else scenario


def human_choice(level: str, table: Table, seat: int, rng: random.Random) -> int:
    """A person's press: random legal play, or what an AI level would play (slower,
    and no shorter: a Thousand match runs for dozens of deals either way)."""
    assert table.deal is not None
    legal = table.deal.legal()
    if level == "random":
        return rng.choice(legal)
    dseat = table.deal_seat(seat)
    assert dseat is not None
    return choose_action(level, P.view(table.deal, dseat), legal, str(rng.random()))


def thinking(seconds: float) -> Callable[[Callable[[], int]], Awaitable[int]]:
    """The computer's runner: its choice on a thread, as the bot makes it, after
    `seconds` of "thinking" — the strong level's pause without its CPU, during which
    the table is not locked and a person may resign, vote or be closed by an admin."""

    async def run(choose: Callable[[], int]) -> int:
        await asyncio.sleep(seconds)
        return await asyncio.to_thread(choose)

    return run


def level_for(choice: str, game: str) -> str:
    """``auto``: the cheapest play that ends a match — random, but the heuristic in
    Thousand, which random players never take to 1000."""
    if choice != "auto":
        return choice
    return "heuristic" if game == "tausend" else "random"


def pick(rng: random.Random, weights: dict[str, float]) -> str:
    return rng.choices(list(weights), list(weights.values()))[0]


async def chat_worker(run: Run, n: int) -> None:
    """One group chat playing its game: its tables one after another, as long as
    tables are left."""
    rng = random.Random(f"{run.args.seed}:{n}")
    game = run.args.game if run.args.game != "mix" else pick(rng, GAMES)
    chat = ChatRef("bench", f"-{1000 + n}", f"Chat {n}")
    level = level_for(run.args.level, game)
    setting = await run.svc.update_setting(chat, run.admin, "ai_level", level, is_admin=True)
    assert setting.ok, setting
    while run.next_table() is not None:
        outcome = await one_table(run, chat, game, rng)
        run.done += 1
        if run.done > run.measured_from:
            run.outcomes[outcome] += 1


def containers(svc: TableService) -> dict[str, int]:
    """The sizes of the core's long-lived containers (and the loop's timer heap)."""
    loop = asyncio.get_running_loop()
    scheduled = list(getattr(loop, "_scheduled", []))
    out = {
        "tables": len(svc.tables),
        "locks": len(svc._locks),
        "timers": len(svc._timers),
        "timer_handles": sum(len(t.handles) for t in svc._timers.values()),
        "reminded": len(svc._reminded),
        "tasks": len(svc._tasks),
        "work": len(svc._work),
        "player_locks": len(svc._player_locks),
        "chat_locks": len(svc._chat_locks),
        "claims": len(svc._claims),
        "moved_chats": len(svc._moved),
        "waiting": sum(len(s) for s in svc._waiting.values()),
        "listeners": len(svc.listeners),
        "write_queue": svc.store._queue.qsize(),
        "loop_scheduled": len(scheduled),
        "loop_scheduled_cancelled": sum(1 for h in scheduled if h.cancelled()),
        "asyncio_tasks": len(asyncio.all_tasks()),
    }
    out.update(engine_caches())
    return out


def engine_caches() -> dict[str, int]:
    """The engine's memo tables (bounded by design; shown so a plateau is not read
    as a leak)."""
    out: dict[str, int] = {}
    with contextlib.suppress(ImportError):
        from engine.ai import dreier_policy as dp

        out["engine_dreier_bids"] = len(dp._BIDS)
        out["engine_dreier_discards"] = len(dp._DISCARDS)
        out["engine_dreier_trumps"] = len(dp._TRUMP_CHOICE)
    return out


def rss_mb() -> float:
    """Resident memory now (Linux), else the peak."""
    with contextlib.suppress(OSError, ValueError, IndexError):
        pages = int(Path("/proc/self/statm").read_text().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 2**20
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def db_figures(path: Path) -> dict[str, Any]:
    """The database after a full checkpoint: file sizes, rows, bytes per table."""
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        rows = {
            name: conn.execute(f"SELECT COUNT(*) FROM {name}").fetchone()[0]
            for name in ("tables", "table_log", "games", "results", "ratings", "message_refs")
        }
        finished = conn.execute("SELECT COUNT(*) FROM tables WHERE status='finished'").fetchone()
        closed = conn.execute(
            "SELECT COUNT(*) FROM message_refs WHERE table_id NOT IN"
            " (SELECT id FROM tables WHERE status IN ('lobby', 'playing'))"
        ).fetchone()
        try:
            by_table = dict(
                conn.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name").fetchall()
            )
        except sqlite3.Error:  # SQLite built without the dbstat table
            by_table = {}
    finally:
        conn.close()
    return {
        "file_bytes": _size(path),
        "rows": rows,
        "finished": finished[0],
        "message_refs_of_closed_tables": closed[0],
        "bytes_by_table": by_table,
    }


def _size(p: Path) -> int:
    return p.stat().st_size if p.exists() else 0


async def timed(fn: Callable[[], Awaitable[object]], repeat: int = 5) -> float:
    """Median milliseconds of `repeat` calls."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        await fn()
        times.append(time.perf_counter() - t0)
    return round(sorted(times)[len(times) // 2] * 1000, 2)


async def query_times(store: Store, chat: str, player: str) -> dict[str, float]:
    """What a chat asks of the history: boards (the slowest game's), /stats and
    /record (newest of the chat, newest of a player), in ms."""
    games = [g for (g,) in await store.fetchall("SELECT DISTINCT game FROM games")] or ["zweier"]

    async def boards(scope: str) -> float:
        return max(
            [await timed(partial(R.leaderboard, store, g, scope, player=player)) for g in games]
        )

    # /record of a player's newest: one who played in the chat, so that a file is built
    played = await store.fetchall(
        "SELECT player FROM results WHERE chat=? ORDER BY at DESC LIMIT 1", (chat,)
    )
    asker = str(played[0][0]) if played else player
    return {
        "leaderboard_global_ms": await boards("global"),
        "leaderboard_chat_ms": await boards(chat),
        "stats_ms": await timed(partial(R.player_stats, store, player)),
        "stats_chat_ms": await timed(partial(R.player_stats, store, player, chat)),
        "record_ms": await timed(partial(record_reply, store, chat, "en")),
        "record_of_player_ms": await timed(partial(record_reply, store, chat, "en", player=asker)),
    }


async def pad_history(store: Store, target: int) -> int:
    """Copy the run's finished matches (tables, logs, games, results, contracts,
    rated marks, ratings) under new chats and players until at least `target` matches are
    finished; how many there are then."""
    (have,) = (await store.fetchall("SELECT COUNT(*) FROM games"))[0]
    if not have or have >= target:
        return int(have)
    own = " WHERE table_id IN (SELECT table_id FROM games WHERE table_id NOT LIKE '%~%')"
    for k in range(1, -(-(target - have) // have) + 1):
        c = f"'~{k}'"  # a copy's chats are new chats
        p = f"'~{k % 7}'"  # its players one of 7 new pools, each met in many chats
        sql = [
            f"INSERT INTO tables SELECT id || {c}, chat || {c}, game, status, version,"
            f" deadline, created, updated FROM tables WHERE id IN (SELECT table_id FROM games"
            f" WHERE table_id NOT LIKE '%~%')",
            f"INSERT INTO table_log SELECT table_id || {c}, version, entry, at FROM table_log"
            + own,
            f"INSERT INTO games SELECT table_id || {c}, chat || {c}, game, record, finished"
            f" FROM games" + own,
            f"INSERT INTO results SELECT table_id || {c}, chat || {c}, game, player || {p},"
            f" seat, won, bummerl, schneider, score, at FROM results" + own,
            f"INSERT INTO contracts SELECT table_id || {c}, deal, chat || {c}, game,"
            f" player || {p}, contract, made FROM contracts" + own,
            f"INSERT INTO rated_results SELECT player || {p}, table_id || {c}"
            f" FROM rated_results" + own,
            f"INSERT OR IGNORE INTO ratings SELECT CASE scope WHEN 'global' THEN scope"
            f" ELSE scope || {c} END, game, player || {p}, mu, sigma, games FROM ratings"
            f" WHERE scope NOT LIKE '%~%' AND player NOT LIKE '%~%'",
        ]
        await store.write(ops=[(q, ()) for q in sql])
    (now,) = (await store.fetchall("SELECT COUNT(*) FROM games"))[0]
    return int(now)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(args.db or Path(tmp) / "soak.sqlite3")
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        store = await Store(path).open()
        timings = Timings(
            turn_timeout=args.turn_timeout,
            reminder_before=args.turn_timeout / 3,
            missed_turns_limit=3,
            ai_delay=0.0,
            lobby_expiry=args.lobby_expiry,
        )
        svc = TableService(
            store, timings=timings, ai_level="strong", ai_runner=thinking(args.think)
        )
        adapter = Adapter(svc, render=not args.no_render)
        await svc.start()
        await svc.listen(adapter, "bench")
        rng = random.Random(args.seed)
        people = [UserRef("bench", str(10_000 + i), f"P{i}") for i in range(args.players)]
        rng.shuffle(people)
        admin = UserRef("bench", "1", "Admin")
        r = Run(svc, adapter, args, people, admin)
        r.measured_from = max(args.chats, args.tables // 10)

        try:
            workers = [asyncio.create_task(chat_worker(r, n)) for n in range(args.chats)]
            t_start = time.perf_counter()
            while r.done < r.measured_from and not all(w.done() for w in workers):
                await asyncio.sleep(0.05)
            # warm: every code path ran, the engine's tables are built; measure from here
            gc.collect()
            before = containers(svc)
            if not args.no_trace:
                tracemalloc.start(args.frames)
            rss0 = rss_mb()
            t0 = time.perf_counter()
            done0 = r.done
            last = t0
            wal_max = 0
            while not all(w.done() for w in workers):
                await asyncio.sleep(0.1)
                wal_max = max(wal_max, _size(Path(f"{path}-wal")))
                if time.perf_counter() - last >= 5:
                    last = time.perf_counter()
                    print(
                        f"  {r.done}/{args.tables} tables, {r.presses} presses,"
                        f" {len(svc.tables)} open, rss {rss_mb():.0f} MB",
                        flush=True,
                    )
            for w in workers:
                w.result()  # a bench that failed says so
            elapsed = time.perf_counter() - t0
            measured = r.done - done0
            steady_end, steady_done = r.all_out or (time.perf_counter(), r.done)
            steady = max(steady_end - t0, 1e-9)
            await quiet(svc, adapter)
            gc.collect()
            heap = tracemalloc.get_traced_memory()[0] if tracemalloc.is_tracing() else None
            top: list[str] = []
            if tracemalloc.is_tracing():
                snap = tracemalloc.take_snapshot().filter_traces(
                    [tracemalloc.Filter(False, tracemalloc.__file__)]
                )
                for stat in snap.statistics("traceback")[: args.top]:
                    frames = " <- ".join(
                        f"{Path(f.filename).name}:{f.lineno}" for f in stat.traceback
                    )
                    top.append(f"{stat.size / 1024:8.1f} KiB {stat.count:6d} blocks  {frames}")
                tracemalloc.stop()
            after = containers(svc)
            rss1 = rss_mb()

            chat = "bench:-1000"
            player = people[0].key
            queries = await query_times(store, chat, player)
            finished_run = int((await store.fetchall("SELECT COUNT(*) FROM games"))[0][0])
            deals = int(
                (
                    await store.fetchall(
                        "SELECT COUNT(*) FROM table_log WHERE json_extract(entry, '$.k') = 'deal'"
                    )
                )[0][0]
            )
            await store.close()
            db = db_figures(path)  # checkpointed: the file is the whole database
            store = await Store(path).open()
            history = await pad_history(store, args.history)
            queries_history = await query_times(store, chat, player)

            async def forget() -> None:  # /forgetme of one who sits nowhere
                await store.write(ops=await R.forget_ops(store, player))

            forget_ms = await timed(forget, repeat=1)
            await store.close()
            db_history = _size(path) + _size(Path(f"{path}-wal"))
            await svc.stop()
        except BaseException:
            # a bench that failed says so and exits: the store's thread and the
            # service's clocks would keep the process alive
            for closing in (svc.stop, store.close):
                with contextlib.suppress(Exception):
                    await closing()
            raise

    total = time.perf_counter() - t_start
    grown = {k: after[k] - before[k] for k in before if after[k] != before[k]}
    print(f"finished in {total:.1f} s; outcomes {dict(r.outcomes)}; refused {dict(r.refused)}")
    print(f"updates {dict(adapter.kinds)}")
    print(f"containers before {before}")
    print(f"containers after  {after}")
    if top:
        print("heap that stayed, by allocation site:")
        for line in top:
            print("  " + line)
    print(f"database {db}")
    return {
        "tables": args.tables,
        "game": args.game,
        "chats": args.chats,
        "seed": args.seed,
        "measured_tables": measured,
        "seconds": round(elapsed, 2),
        "tables_per_s": round((steady_done - done0) / steady, 1),
        "seconds_tail": round(elapsed - steady, 2),
        "presses": r.presses,
        "stalled": r.stalled,
        "outcomes": dict(r.outcomes),
        "heap_bytes_per_table": round(heap / measured) if heap is not None and measured else None,
        "heap_kib_kept": round(heap / 1024, 1) if heap is not None else None,
        "containers_before": before,
        "containers_after": after,
        "containers_grown": grown,
        "rss_mb_before": round(rss0, 1),
        "rss_mb_after": round(rss1, 1),
        "finished_matches": finished_run,
        "deals": deals,
        "db_bytes": db["file_bytes"],
        "db_bytes_per_match": round(db["file_bytes"] / finished_run) if finished_run else None,
        "db_bytes_per_deal": round(db["file_bytes"] / deals) if deals else None,
        "wal_bytes_max": wal_max,
        "db_rows": db["rows"],
        "db_bytes_by_table": db["bytes_by_table"],
        "message_refs_of_closed_tables": db["message_refs_of_closed_tables"],
        "queries_ms": queries,
        "history_matches": history,
        "history_db_bytes": db_history,
        "queries_ms_history": queries_history,
        "forget_player_ms_history": forget_ms,
    }


async def quiet(svc: TableService, adapter: Adapter) -> None:
    """Once the workers are done, let the work in flight land (timers of closed
    tables, message-ref writes, a lobby expiring)."""
    for _ in range(200):
        await adapter.settle()
        if not svc._tasks and not svc._work and not svc.tables:
            break
        await asyncio.sleep(0.05)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=300, help="tables opened in all")
    parser.add_argument("--chats", type=int, default=30, help="group chats playing at once")
    parser.add_argument("--players", type=int, default=200, help="people in the shared pool")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--game", default="mix", choices=["mix", *GAMES])
    parser.add_argument(
        "--level", default="auto", help="the chats' ai_level setting (auto: see level_for)"
    )
    parser.add_argument(
        "--human", default="auto", help="how the people choose: auto, random, or an AI level"
    )
    parser.add_argument(
        "--think", type=float, default=0.02, help="seconds each computer move thinks"
    )
    parser.add_argument("--turn-timeout", type=float, default=0.3, help="seconds")
    parser.add_argument("--lobby-expiry", type=float, default=5.0, help="seconds")
    parser.add_argument(
        "--history", type=int, default=2000, help="finished matches to time the queries at"
    )
    parser.add_argument("--db", help="keep the database in this file (default: a temporary one)")
    parser.add_argument("--no-render", action="store_true", help="draw no views")
    parser.add_argument("--no-trace", action="store_true", help="no tracemalloc (faster)")
    parser.add_argument("--frames", type=int, default=3, help="tracemalloc frames per site")
    parser.add_argument("--top", type=int, default=12, help="allocation sites to print")
    args = parser.parse_args()
    result = asyncio.run(run(args))
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
