"""The computer players think in worker processes, so the bot keeps answering.

A decision is pure Python (the strong level takes tens of milliseconds of CPU, a few
hundred at worst).  On a thread it holds the GIL, and while several tables'
computers think the event loop answers button presses, Telegram's callback answers
and Discord's interactions (both have deadlines) late.  In a worker process it holds
nobody's lock.

The pool starts at the first decision (an idle bot starts no process) with the
*spawn* method, never *fork*: the bot has threads (aiosqlite's, the store's writer)
whose locks a forked child would inherit held.  A decision is a picklable call
(`functools.partial` of `bot.ai_seats.choose_action` over a frozen `SeatView`), and
it is seeded, so a worker picks what a thread would.

Nothing is lost when a worker dies (killed, out of memory): the pool is replaced and
the decision made again on the new one.  A decision that a worker holds too long is
given up (the service then plays at random, as for any failing AI) and the workers,
one of which hangs, are killed and replaced; a decision merely queued behind other
tables' waits its turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import multiprocessing
import os
import signal
import threading
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.process import BaseProcess
from pathlib import Path

log = logging.getLogger(__name__)

#: Seconds a worker may hold a decision before the table goes on without it: the
#: strong level stops itself after about a second (a decision is handed on when a
#: worker is about to be free, so this is at most two decisions' time).
DECISION_TIMEOUT = 10.0
#: Seconds more for the first decision of a new pool: its worker starts first
#: (spawns, imports the engine) at low priority, and on a machine busy with other
#: work that took over 2 s in a test run beside two CPU hogs.  A slow start is not
#: a hang.
START_GRACE = 20.0
#: Seconds between looks at whether a queued decision has reached a worker.
CHECK_EVERY = 0.25
#: Seconds the workers have to finish the decision in hand when the bot stops,
#: before they are killed (a hung one must not keep Ctrl-C from ending the bot).
STOP_GRACE = 2.0
#: How much lower the workers' CPU priority is than the bot's: with every core
#: thinking, the event loop still gets a core the moment it has work.
WORKER_NICENESS = 10
#: Fresh pools a decision is tried on after its pool broke, before it is given up
#: (a decision that kills every worker it meets must not kill them forever).
RETRIES = 1
#: Where Linux shows the control groups (a container's CPU quota), and this
#: process's place in them.
CGROUP_ROOT = Path("/sys/fs/cgroup")
PROC_CGROUP = Path("/proc/self/cgroup")


def default_workers(cgroup_root: Path = CGROUP_ROOT, proc_cgroup: Path = PROC_CGROUP) -> int:
    """One worker per core this process may use: the cores it may run on, and no more
    than a CPU quota allows (`docker run --cpus 1.5` gives 2), since workers beyond
    the quota only take turns on it and each holds its memory."""
    try:
        cores = max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        cores = max(1, os.cpu_count() or 1)
    quota = cpu_quota(cgroup_root, proc_cgroup)
    return cores if quota is None else max(1, min(cores, math.ceil(quota)))


def cpu_quota(cgroup_root: Path = CGROUP_ROOT, proc_cgroup: Path = PROC_CGROUP) -> float | None:
    """The cores' worth of CPU time this process's control group may use (cgroup v2
    `cpu.max`, or v1 `cpu.cfs_quota_us` over `cpu.cfs_period_us`), the tightest limit
    on the way up to the root; None without a limit, or where none can be read."""
    try:
        lines = proc_cgroup.read_text().splitlines()
    except OSError:
        return None
    limits: list[float] = []
    for line in lines:
        ident, _, rest = line.partition(":")
        controllers, _, path = rest.partition(":")
        if ident == "0" and not controllers:
            limits += _limits(cgroup_root, path, _v2_limit)
        elif "cpu" in controllers.split(","):
            # mounted under its joint name ("cpu,cpuacct"), often linked as "cpu" too
            for mount in dict.fromkeys((controllers, "cpu")):
                limits += _limits(cgroup_root / mount, path, _v1_limit)
    return min(limits, default=None)


def _limits(mount: Path, path: str, read: Callable[[Path], float | None]) -> list[float]:
    """The limits found in the group at `path` under `mount` and in its parents (a
    container sees its own group as the root, so the root counts too)."""
    found = []
    parts = [p for p in path.split("/") if p]
    for depth in range(len(parts), -1, -1):
        limit = read(mount.joinpath(*parts[:depth]))
        if limit is not None:
            found.append(limit)
    return found


def _v2_limit(group: Path) -> float | None:
    try:
        quota, _, period = (group / "cpu.max").read_text().strip().partition(" ")
        return None if quota == "max" else int(quota) / int(period or "100000")
    except (OSError, ValueError, ZeroDivisionError):
        return None


def _v1_limit(group: Path) -> float | None:
    try:
        quota = int((group / "cpu.cfs_quota_us").read_text())
        period = int((group / "cpu.cfs_period_us").read_text())
    except (OSError, ValueError):
        return None
    return quota / period if quota > 0 and period > 0 else None


async def think_in_thread(decide: Callable[[], int]) -> int:
    """The decision on a thread of this process (`AI_WORKERS=0`)."""
    return await asyncio.to_thread(decide)


class AIWorkers:
    """The process's computer players: `run` is the service's `ai_runner`.

    `workers` processes at most, started as decisions need them; 0 thinks on a
    thread instead.  `close` stops them when the bot stops.
    """

    def __init__(
        self,
        workers: int,
        *,
        timeout: float = DECISION_TIMEOUT,
        start_grace: float = START_GRACE,
    ) -> None:
        self.workers = workers
        self.timeout = timeout
        self.start_grace = start_grace
        self._pool: ProcessPoolExecutor | None = None
        #: The pool that has answered a decision: its workers are up.
        self._started: ProcessPoolExecutor | None = None
        self._closed = False

    async def run(self, decide: Callable[[], int]) -> int:
        """The code `decide` returns, computed in a worker process (on a thread
        with no workers, or once closed).  A pool that broke is replaced and the
        decision made again, once; it raises what `decide` raised, `TimeoutError`
        for a hung worker, `BrokenProcessPool` if the new pool broke too."""
        if self.workers <= 0 or self._closed:
            return await think_in_thread(decide)
        retries = RETRIES
        while True:
            pool = self._current()
            limit = self.timeout + (0.0 if pool is self._started else self.start_grace)
            try:
                code = await self._result(pool.submit(decide), limit)
                self._started = pool
                return code
            except BrokenProcessPool:
                await self._replace(pool, "a worker process died")
                if retries == 0:
                    raise
                retries -= 1
            except TimeoutError:
                await self._replace(pool, f"a decision took over {limit:g} s")
                raise

    async def _result(self, future: Future[int], limit: float) -> int:
        """The decision's code.  Waiting in the queue has no limit (a queue moves
        while the workers work: a burst of tables is no reason to give up); held
        by a worker for `limit` seconds, the worker hangs: `TimeoutError`."""
        waiting = asyncio.wrap_future(future)
        loop = asyncio.get_running_loop()
        deadline: float | None = None
        try:
            while True:
                if deadline is None and future.running():
                    deadline = loop.time() + limit
                left = CHECK_EVERY if deadline is None else deadline - loop.time()
                if left <= 0:
                    raise TimeoutError
                done, _ = await asyncio.wait({waiting}, timeout=min(left, CHECK_EVERY))
                if done:
                    return waiting.result()
        finally:
            waiting.cancel()  # nothing once done; a decision still queued is dropped

    def pids(self) -> list[int]:
        """The worker processes running now (for tests and the benchmark)."""
        return [p.pid for p in _processes(self._pool) if p.pid is not None]

    def close(self, grace: float = STOP_GRACE) -> None:
        """Stop the workers; a decision asked for after this runs on a thread.  It
        blocks until they are gone, `grace` seconds at most: call it off the loop."""
        self._closed = True
        pool, self._pool, self._started = self._pool, None, None
        if pool is not None:
            _stop(pool, grace)

    def _current(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                self.workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_worker_started,
            )
        return self._pool

    async def _replace(self, pool: ProcessPoolExecutor, why: str) -> None:
        """Drop a broken or hung pool (the next decision starts a new one).  The
        decisions that were on it all come here: the first one warns, once."""
        if self._pool is not pool:
            return
        self._pool = self._started = None
        log.warning("the computer players' worker processes are replaced: %s", why)
        await asyncio.to_thread(_stop, pool, 0.0)


def _processes(pool: ProcessPoolExecutor | None) -> list[BaseProcess]:
    # the executor has no public list of its processes before Python 3.14
    return list((pool._processes or {}).values()) if pool is not None else []


def _stop(pool: ProcessPoolExecutor, grace: float) -> None:
    """Shut `pool` down, killing the workers still busy after `grace` seconds."""
    procs = _processes(pool)
    killer = threading.Timer(grace, _kill, (procs,))
    killer.daemon = True
    killer.start()
    try:
        pool.shutdown(wait=True, cancel_futures=True)
    finally:
        killer.cancel()


def _kill(procs: list[BaseProcess]) -> None:
    for p in procs:
        with contextlib.suppress(Exception):
            p.kill()


def _worker_started() -> None:
    """In each worker.  Ctrl-C in a terminal interrupts the whole process group: the
    bot stops its workers itself, and a worker interrupted on its own would print a
    traceback and break the pool.  The bot's own work comes first (`WORKER_NICENESS`).
    A worker whose bot was killed exits too: nobody would ever stop it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.nice(WORKER_NICENESS)
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_exit_with, args=(parent,), daemon=True).start()


def _exit_with(parent: BaseProcess) -> None:
    parent.join()
    os._exit(0)
