"""The core's durable press path under load: N concurrent tables on one SQLite file.

    python bench/core.py [--tables 500] [--rate 1000] [--seconds 10] [--game zweier] [--render]

Every table seats two simulated players who press game buttons through
`TableService.act` (each press is a legal action of the seat to act, carrying the
table's version, like a button): `--rate` presses per second offered over all tables
(each table's presses at random moments), or with ``--rate 0`` as fast as the core
answers (the saturated throughput; latency is then mostly queueing).  Every press is durable
before `act` returns: it is appended to the table's log in SQLite (WAL, group commit).
A match that ends is followed by a new table in the same chat.  Nobody renders views
unless ``--render`` (then a listener builds the table message and both hands after
every change, as an adapter would).

Prints progress lines, then one JSON object as the last line: ``tables``,
``actions`` (game presses answered ok), ``actions_per_s``, ``p50_ms`` and ``p99_ms``
(latency of `act`), and some detail (commits, seconds, matches).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import gc
import json
import os
import pstats
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.payload import game_action, table_verb
from bot.service import ChatRef, TableService, TableUpdate, Timings, UserRef
from bot.store import Store


class Renderer:
    """A listener that builds what an adapter would show after every change."""

    def __init__(self, service: TableService) -> None:
        self.service = service

    async def table_update(self, update: TableUpdate) -> None:
        svc = self.service
        if update.kind in ("started", "action"):
            svc.table(update.table_id)
            for user in svc.seat_users(update.table_id):
                svc.hand(update.table_id, user)


class Stats:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.actions = 0
        self.refused = 0
        self.matches = 0
        self.measuring = False


async def open_table(
    svc: TableService, n: int, game: str, rng: random.Random
) -> tuple[str, list[UserRef]]:
    chat = ChatRef("bench", f"c{n}-{rng.randrange(10**9)}")
    users = [UserRef("bench", f"u{n}a", "A"), UserRef("bench", f"u{n}b", "B")]
    out = await svc.create_table(chat, users[0], game)
    assert out.ok and out.table_id is not None, out
    tid = out.table_id
    table = svc.tables[tid]
    for u in users[1:]:
        assert (await svc.act(u, table_verb(tid, table.version, "j"))).ok
    while not table.is_full():
        assert (await svc.act(users[0], table_verb(tid, table.version, "ai"))).ok
    assert (await svc.act(users[0], table_verb(tid, table.version, "st"))).ok
    return tid, users


async def worker(
    svc: TableService,
    n: int,
    game: str,
    stats: Stats,
    stop: asyncio.Event,
    ready: asyncio.Barrier,
    rate: float,
) -> None:
    """One table's players.  With `rate` > 0 they press at random moments, `rate`
    presses per second on average (Poisson arrivals); with 0, as fast as they can."""
    rng = random.Random(n)
    tid, users = await open_table(svc, n, game, rng)
    await ready.wait()
    by_key = {u.key: u for u in users}
    clock = time.perf_counter
    loop = asyncio.get_running_loop()
    next_at = loop.time() + (rng.expovariate(rate) if rate > 0 else 0.0)
    while not stop.is_set():
        if rate > 0:
            delay = next_at - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            next_at = max(next_at, loop.time() - 1.0) + rng.expovariate(rate)
        table = svc.tables.get(tid)
        if table is None:  # the match ended: a new table in a new chat
            stats.matches += 1
            tid, users = await open_table(svc, n, game, rng)
            by_key = {u.key: u for u in users}
            continue
        seat = table.to_act()
        if seat is None or table.deal is None:
            await asyncio.sleep(0)
            continue
        s = table.seats[seat]
        if s is None or s.user is None or s.ai is not None:  # a computer's turn
            await asyncio.sleep(0)
            continue
        code = rng.choice(table.deal.legal())
        payload = game_action(tid, table.version, code)
        t0 = clock()
        out = await svc.act(by_key[s.user], payload)
        dt = clock() - t0
        if not stats.measuring:
            continue
        if out.ok:
            stats.actions += 1
            stats.latencies.append(dt)
        else:
            stats.refused += 1


def percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return 0.0
    k = min(len(sorted_values) - 1, max(0, round(q * (len(sorted_values) - 1))))
    return sorted_values[k]


async def run(args: argparse.Namespace) -> dict[str, object]:
    with contextlib.ExitStack() as stack:
        if args.db:
            path = Path(args.db)
            for suffix in ("", "-wal", "-shm"):
                Path(str(path) + suffix).unlink(missing_ok=True)
        else:
            path = Path(stack.enter_context(tempfile.TemporaryDirectory())) / "bench.sqlite3"
        store = await Store(path).open()
        timings = Timings(turn_timeout=3600, reminder_before=60, ai_delay=0, lobby_expiry=3600)
        svc = TableService(store, timings=timings, ai_level="random")
        if args.render:
            svc.listeners.append(Renderer(svc))
        await svc.start()
        stats = Stats()
        stop = asyncio.Event()
        ready = asyncio.Barrier(args.tables + 1)
        t_setup = time.perf_counter()
        tasks = [
            asyncio.create_task(
                worker(svc, n, args.game, stats, stop, ready, args.rate / args.tables)
            )
            for n in range(args.tables)
        ]
        await ready.wait()
        print(
            f"{args.tables} tables open in {time.perf_counter() - t_setup:.1f} s; "
            f"warming up {args.warmup} s, measuring {args.seconds} s",
            flush=True,
        )
        gc.collect()
        await asyncio.sleep(args.warmup)
        stats.measuring = True
        commits0 = store.commits
        prof = cProfile.Profile() if args.profile else None
        if prof is not None:
            prof.enable()
        t0 = time.perf_counter()
        for _ in range(int(args.seconds)):
            await asyncio.sleep(1)
            print(f"  {stats.actions} actions", flush=True)
        await asyncio.sleep(args.seconds - int(args.seconds))
        elapsed = time.perf_counter() - t0
        stats.measuring = False
        if prof is not None:
            prof.disable()
        commits = store.commits - commits0
        stop.set()
        await asyncio.gather(*tasks)
        await svc.stop()
        await store.close()
        if prof is not None:
            pstats.Stats(prof).sort_stats(args.sort).print_stats(35)
    lat = sorted(stats.latencies)
    return {
        "tables": args.tables,
        "game": args.game,
        "offered_per_s": args.rate or None,
        "render": args.render,
        "seconds": round(elapsed, 2),
        "actions": stats.actions,
        "actions_per_s": round(stats.actions / elapsed, 1),
        "p50_ms": round(percentile(lat, 0.50) * 1000, 2),
        "p99_ms": round(percentile(lat, 0.99) * 1000, 2),
        "max_ms": round((lat[-1] if lat else 0.0) * 1000, 2),
        "refused": stats.refused,
        "commits": commits,
        "actions_per_commit": round(stats.actions / commits, 1) if commits else None,
        "matches_finished": stats.matches,
        "cpus": os.cpu_count(),
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=500)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument(
        "--rate",
        type=float,
        default=1000.0,
        help="presses per second offered over all tables (0: as fast as the core answers)",
    )
    parser.add_argument("--game", default="zweier")
    parser.add_argument("--render", action="store_true", help="build views after every change")
    parser.add_argument("--db", help="database file (default: a temporary directory)")
    parser.add_argument("--profile", action="store_true", help="cProfile the measured phase")
    parser.add_argument("--sort", default="tottime", help="profile order (tottime, cumulative)")
    args = parser.parse_args()
    result = asyncio.run(run(args))
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
