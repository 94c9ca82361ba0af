"""How late the event loop answers while the computers think: on threads or in processes.

    python bench/loop_lag.py [--tables 1,4,16] [--decisions 24] [--workers N] [--seed 1]
                             [--tick 0.005]

For each K in `--tables`, K tables' strong computers think at once, each table one
decision after another as the service asks for them (through `AIWorkers.run`, the
service's `ai_runner`): first on threads (``AI_WORKERS=0``), then in `--workers`
worker processes (by default one per core, as the bot starts).  The decisions are the
same in both: strong-level positions of all four games, met in seeded random deals.
Meanwhile a ticker on the same loop sleeps `--tick` seconds again and again; how late
it wakes is how late a button press, a Telegram callback answer or a Discord
interaction would be answered.  K = 0 is the idle loop.

Printed per run: the ticker's lag (p50, p95, max, in ms), the decisions per second,
how long a table waited for its decision (p50, p95), and how many decisions came out
other than when made alone (the strong level stops searching after a second of wall
time, so a decision starved of CPU plays weaker).
Then the pool's start-up: the first decision on a fresh pool (starting a worker,
importing the AI, deciding) against the same decision on a warm worker and on a
thread; and the resident memory of each worker after the runs, and of this process.

Its last line is one JSON object with the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.ai_seats import choose_action
from bot.ai_workers import AIWorkers, default_workers, think_in_thread
from engine import protocol as P
from engine.games import game

Decision = Callable[[], int]
Runner = Callable[[Decision], Awaitable[int]]
GAMES = ("zweier", "dreier", "bauern", "tausend")


def decisions(n: int, seed: int) -> list[Decision]:
    """`n` strong-level decisions with a real choice, from seeded random deals of every
    game, in the form the service hands its `ai_runner`."""
    rng = random.Random(seed)
    out: list[Decision] = []
    while len(out) < n:
        spec = game(GAMES[len(out) % len(GAMES)])
        state = spec.start_deal(spec.parse_options(None), 0, seed=rng.randbytes(16))
        while (seat := P.to_act(state)) is not None:
            legal = list(state.legal())
            view = P.view(state, seat)
            if len(legal) > 1 and rng.random() < 0.25:
                out.append(partial(choose_action, "strong", view, legal, f"bench:{len(out)}"))
                break
            state, _ = P.apply(state, seat, rng.choice(view.legal))
    return out


def _ms(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return round(1000 * xs[min(len(xs) - 1, int(q * len(xs)))], 1) if xs else 0.0


async def measure(
    run: Runner, work: list[Decision], alone: list[int], tables: int, per_table: int, tick: float
) -> dict[str, float]:
    """K tables deciding at once while a ticker measures the loop's lag; and how long
    a table waited for each decision, and how many came out other than when made
    alone (`alone`): the strong level's search stops after a second of wall time."""
    lags: list[float] = []
    waits: list[float] = []
    changed = 0
    busy = True

    async def ticker() -> None:
        while busy:
            t0 = time.perf_counter()
            await asyncio.sleep(tick)
            lags.append(time.perf_counter() - t0 - tick)

    async def table(k: int) -> None:
        nonlocal changed
        for i in range(per_table):
            at = (k * per_table + i) % len(work)
            t0 = time.perf_counter()
            code = await run(work[at])
            waits.append(time.perf_counter() - t0)
            changed += code != alone[at]

    ticking = asyncio.create_task(ticker())
    t0 = time.perf_counter()
    if tables:
        await asyncio.gather(*(table(k) for k in range(tables)))
    else:
        await asyncio.sleep(1.0)
    seconds = time.perf_counter() - t0
    busy = False
    await ticking
    return {
        "lag_p50_ms": _ms(lags, 0.5),
        "lag_p95_ms": _ms(lags, 0.95),
        "lag_max_ms": _ms(lags, 1.0),
        "decisions_per_s": round(tables * per_table / seconds, 1),
        "decision_p50_ms": _ms(waits, 0.5),
        "decision_p95_ms": _ms(waits, 0.95),
        "changed": changed,
        "seconds": round(seconds, 2),
    }


def rss_mb(pid: int | str = "self") -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


async def timed(run: Runner, decide: Decision) -> float:
    t0 = time.perf_counter()
    await run(decide)
    return round(1000 * (time.perf_counter() - t0), 1)


async def bench(args: argparse.Namespace) -> dict[str, object]:
    work = decisions(max(8, args.decisions * 4), args.seed)
    t0 = time.perf_counter()
    alone = [decide() for decide in work]
    print(
        f"{len(work)} decisions made one at a time: {1000 * (time.perf_counter() - t0) / len(work):.1f} ms each"
    )
    out: dict[str, object] = {"cores": default_workers(), "workers": args.workers}
    # the start-up a table sees at its first computer move, on a fresh pool
    fresh = AIWorkers(args.workers)
    thread_ms = await timed(think_in_thread, work[0])
    first_ms = await timed(fresh.run, work[0])
    warm_ms = await timed(fresh.run, work[0])
    fresh.close()
    out["startup"] = {"thread_ms": thread_ms, "pool_first_ms": first_ms, "pool_warm_ms": warm_ms}
    print(
        f"first decision: thread {thread_ms} ms, fresh pool {first_ms} ms "
        f"(warm worker {warm_ms} ms)"
    )

    pool = AIWorkers(args.workers)
    await asyncio.gather(*(pool.run(d) for d in work[: args.workers]))  # every worker up
    runs: list[dict[str, object]] = []
    for k in [0, *args.tables]:
        for mode, run in (("threads", think_in_thread), ("processes", pool.run)):
            if k == 0 and mode == "processes":
                continue
            row = await measure(run, work, alone, k, args.decisions, args.tick)
            runs.append({"mode": "idle" if k == 0 else mode, "tables": k, **row})
            print(
                f"{'idle' if k == 0 else mode:9} K={k:<3} lag p50 {row['lag_p50_ms']:6.1f} ms"
                f"  p95 {row['lag_p95_ms']:6.1f} ms  max {row['lag_max_ms']:6.1f} ms"
                f"  {row['decisions_per_s']:5.1f} decisions/s, each waited p50"
                f" {row['decision_p50_ms']:6.1f} p95 {row['decision_p95_ms']:6.1f} ms,"
                f" {row['changed']} changed"
            )
    out["runs"] = runs
    workers_mb = [rss_mb(pid) for pid in pool.pids()]
    pool.close()
    out["worker_rss_mb"] = workers_mb
    out["main_rss_mb"] = rss_mb()
    print(f"RSS: each worker {workers_mb} MB; this process {out['main_rss_mb']} MB")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", default="1,4,16", help="K values, comma-separated")
    parser.add_argument("--decisions", type=int, default=24, help="decisions per table")
    parser.add_argument("--workers", type=int, default=default_workers())
    parser.add_argument("--tick", type=float, default=0.005, help="the ticker's sleep (s)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    args.tables = [int(k) for k in args.tables.split(",") if k.strip()]
    print(json.dumps(asyncio.run(bench(args))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
