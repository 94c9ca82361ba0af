"""The computer players think in worker processes (`bot.ai_workers`): tables play on
with them, decide as on a thread, survive a worker killed or hung, and leave no
process behind when the bot stops (Ctrl-C in a terminal included).

Starting a worker costs a fraction of a second, so the tests that only play share one
pool (`workers`); those that kill or stop workers have their own.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import os
import select
import signal
import subprocess
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from bot import app
from bot.ai_workers import RETRIES, WORKER_NICENESS, AIWorkers, cpu_quota, default_workers
from bot.config import Config
from bot.service import ChatRef, Outcome, TableService
from tests.test_run import CHOICES, PYTHON, Pty, clean_env

from .fakechat import Bot, FakeChat, Player, open_table, play_out, users

Runner = Callable[[Callable[[], int]], Awaitable[int]]
GAMES = ("zweier", "dreier", "bauern", "tausend")


@pytest.fixture(scope="module")
def workers() -> Iterator[AIWorkers]:
    pool = AIWorkers(2)
    yield pool
    pool.close()


def alive(pid: int) -> bool:
    """Whether a process runs (a zombie waiting for its parent does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry.name))
    return out


async def gone(pids: list[int], timeout: float = 5.0) -> bool:
    """Wait (bounded) until none of `pids` runs."""
    end = time.monotonic() + timeout
    while any(alive(p) for p in pids):
        if time.monotonic() > end:
            return False
        await asyncio.sleep(0.05)
    return True


def failures(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The service's lines for a computer that could not decide (it played at random)."""
    return [r.getMessage() for r in caplog.records if "failed to choose" in r.getMessage()]


def replaced(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if "worker processes are replaced" in r.getMessage()]


def _more(made: list[Any], n: int) -> bool:
    return len(made) >= n


Made = list[tuple[Callable[[], int], int, float]]


def recording(run: Runner, made: Made) -> Runner:
    """`run`, keeping each decision the service asked for, the code it got and the
    seconds it waited."""

    async def record(decide: Callable[[], int]) -> int:
        t0 = time.perf_counter()
        code = await run(decide)
        made.append((decide, code, time.perf_counter() - t0))
        return code

    return record


async def play_until(
    chat: FakeChat, tid: str, humans: list[Player], done: Callable[[], bool]
) -> None:
    """The people take their turns, the computers theirs, until `done()` (bounded)."""
    end = time.monotonic() + 30
    while not done():
        assert time.monotonic() < end, chat.describe()
        if not any([await p.take_turn(tid) is not None for p in humans]):
            chat.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(chat.changed.wait(), 0.5)


async def test_a_table_plays_out_with_its_computers_in_workers(
    make_bot: Callable[..., Bot], workers: AIWorkers, caplog: pytest.LogCaptureFixture
) -> None:
    bot = await make_bot(ai_runner=workers.run, ai_level="heuristic").start()
    try:
        human = bot.player(users(1)[0])
        tid = await open_table(bot, "dreier", [human])

        async def decided(_: Outcome) -> None:
            # at his next turn: a decision given up fails the test then, not after a
            # match whose every computer's move waited out the hang limit
            assert failures(caplog) == []

        await play_out(bot.fc, tid, [human], after_press=decided)
        assert bot.fc.kinds(tid)[-1] == "finished"
        assert workers.pids()  # they thought in worker processes ...
        assert failures(caplog) == []  # ... every time, never falling back to random play
        # at a lower priority than the bot's, which answers presses first
        nice = min(19, os.getpriority(os.PRIO_PROCESS, 0) + WORKER_NICENESS)
        assert {os.getpriority(os.PRIO_PROCESS, pid) for pid in workers.pids()} == {nice}
    finally:
        await bot.stop()


async def test_a_worker_decides_what_a_thread_decides(
    make_bot: Callable[..., Bot], workers: AIWorkers
) -> None:
    """A table replays identically: the computer's choice is a function of the
    table's seed, wherever it is computed (every game's view crosses to the worker).
    The heuristic level: the strong one also stops at a wall-clock limit, so on a
    loaded machine its choice may legitimately differ, in a thread as in a worker."""
    made: Made = []
    bot = await make_bot(ai_runner=recording(workers.run, made), ai_level="heuristic").start()
    try:
        for i, game_id in enumerate(GAMES):
            human = bot.player(users(1)[0])
            chat = ChatRef("tg", f"-100{i}", game_id)
            tid = await open_table(bot, game_id, [human], chat=chat)
            await play_until(bot.fc, tid, [human], partial(_more, made, len(made) + 4))
        compared = set()
        for decide, code, _ in made:
            assert decide() == code
            compared.add(decide.args[1].game)  # type: ignore[attr-defined]
        assert compared == set(GAMES)
    finally:
        await bot.stop()


async def test_a_worker_killed_while_thinking_does_not_stall_the_table(
    make_bot: Callable[..., Bot], caplog: pytest.LogCaptureFixture
) -> None:
    """Killed (by hand, or out of memory) while it decides: the decision is made on
    new workers, and so is every later one; one warning each time, no hand in it."""
    own = AIWorkers(1)
    killed: list[int] = []

    async def killing(decide: Callable[[], int]) -> int:
        if len(killed) < 2:
            deciding = asyncio.ensure_future(own.run(decide))
            await asyncio.sleep(0)  # handed to a worker
            for pid in own.pids():
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
            return await deciding
        return await own.run(decide)

    bot = await make_bot(ai_runner=killing, ai_level="heuristic").start()
    try:
        human = bot.player(users(1)[0])
        tid = await open_table(bot, "zweier", [human])
        await play_out(bot.fc, tid, [human])
        assert bot.fc.kinds(tid)[-1] == "finished"
        assert len(killed) == 2 and await gone(killed)
        assert failures(caplog) == []  # the computer decided every move itself
        warnings = [(r.levelno, r.getMessage()) for r in replaced(caplog)]
        line = "the computer players' worker processes are replaced: a worker process died"
        assert warnings == [(logging.WARNING, line)] * 2  # that, and nothing of a hand
    finally:
        await bot.stop()
        own.close()


async def test_decisions_on_a_pool_that_broke_are_made_again_with_one_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Two tables' decisions on the pool when its worker dies: each is made again on
    one new pool, which the second does not throw away in turn, and the log says it
    once."""
    own = AIWorkers(1)
    killed: list[int] = []
    try:
        await own.run(int)  # the worker is up
        think: Any = partial(time.sleep, 0.05)  # a 50 ms decision (its code is None)
        deciding = asyncio.gather(own.run(think), own.run(think))
        await asyncio.sleep(0)  # handed to the pool
        killed.extend(own.pids())
        for pid in killed:
            os.kill(pid, signal.SIGKILL)
        codes: list[Any] = list(await deciding)
        assert codes == [None, None]  # each made, once
        assert len(replaced(caplog)) == 1
        assert own.pids() and not set(own.pids()) & set(killed)
    finally:
        own.close()


async def test_a_decision_that_kills_every_worker_is_given_up(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A decision whose every try kills its worker (a bug that crashes the process):
    tried again on one fresh pool, then given up (the service plays at random), not
    tried for ever with a new pool each time; the next decision is made."""
    own = AIWorkers(1)
    try:
        with pytest.raises(BrokenProcessPool):
            # bounded: given up after RETRIES pools, not after a minute of new ones
            await asyncio.wait_for(own.run(partial(os._exit, 1)), 60)
        assert len(replaced(caplog)) == 1 + RETRIES
        assert await own.run(int) == 0
    finally:
        own.close()


async def test_a_hung_worker_does_not_stall_the_table(
    make_bot: Callable[..., Bot], caplog: pytest.LogCaptureFixture
) -> None:
    """A worker that stops answering: the table goes on without its decision (the
    computer plays at random, once), the hung worker is killed, new ones decide."""
    own = AIWorkers(1, timeout=2.0)
    made: Made = []
    stopped: list[int] = []
    await own.run(int)  # int() is 0 at once: the worker is up, the next hold is a hang

    async def hanging(decide: Callable[[], int]) -> int:
        if not stopped:
            deciding = asyncio.ensure_future(own.run(decide))
            await asyncio.sleep(0)
            stopped.extend(own.pids())
            for pid in stopped:
                os.kill(pid, signal.SIGSTOP)
            return await deciding
        return await own.run(decide)

    bot = await make_bot(ai_runner=recording(hanging, made), ai_level="heuristic").start()
    try:
        human = bot.player(users(1)[0])
        tid = await open_table(bot, "zweier", [human])
        await play_until(bot.fc, tid, [human], lambda: len(made) >= 2)
        assert stopped and await gone(stopped)
        assert len(failures(caplog)) == 1 and "TimeoutError" in failures(caplog)[0]
        # given up after the hang limit: its pool had started, no start's grace on top
        assert [r.getMessage() for r in replaced(caplog)] == [
            "the computer players' worker processes are replaced: a decision took over 2 s"
        ]
        assert own.pids() and not set(own.pids()) & set(stopped)
    finally:
        await bot.stop()
        own.close()
        for pid in stopped:  # only if the test failed before they were killed
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


async def test_a_new_pool_that_starts_slowly_is_not_taken_for_a_hung_one(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A new pool's worker starts first (spawns, imports the engine) at low priority,
    which on a busy machine takes seconds: its first decision gets `start_grace` on
    top of the hang limit.  Here the starting worker is frozen for three times the
    limit, and the decision is still made, with no warning."""
    own = AIWorkers(1, timeout=0.5, start_grace=30.0)
    frozen: list[int] = []
    try:
        first = asyncio.ensure_future(own.run(int))
        while not own.pids():
            await asyncio.sleep(0.01)
        frozen.extend(own.pids())
        for pid in frozen:
            os.kill(pid, signal.SIGSTOP)
        await asyncio.sleep(1.5)
        for pid in frozen:
            os.kill(pid, signal.SIGCONT)
        assert await first == 0  # int(): the decision made
        assert replaced(caplog) == [] and own.pids() == frozen
    finally:
        for pid in frozen:  # only if the test failed while they were stopped
            if alive(pid):
                os.kill(pid, signal.SIGCONT)
        own.close()


async def test_a_burst_of_decisions_waits_its_turn(caplog: pytest.LogCaptureFixture) -> None:
    """Decisions queued behind other tables' (a burst after a restart) are each made
    by a worker, however long the queue: only a worker that holds one too long
    counts as hung."""
    own = AIWorkers(1, timeout=0.5)
    think: Any = partial(time.sleep, 0.05)  # a 50 ms decision (its code is None)
    try:
        await own.run(int)  # the worker is up
        assert await asyncio.gather(*(own.run(think) for _ in range(16))) == [None] * 16
        assert replaced(caplog) == []
    finally:
        own.close()


async def test_without_workers_the_computer_decides_on_a_thread() -> None:
    """`AI_WORKERS=0` (the terminal's default), or workers stopped with the bot: the
    decision is made on a thread, off the loop and in no process, and the move it
    picks is the one played (not a random one for a missing answer)."""
    threads: list[int] = []

    def decide() -> int:
        threads.append(threading.get_ident())
        return 7

    assert await AIWorkers(0).run(decide) == 7
    stopped = AIWorkers(2)
    stopped.close()
    assert await stopped.run(decide) == 7
    assert stopped.pids() == []  # no pool started after the stop
    assert len(threads) == 2 and threading.get_ident() not in threads


def test_the_loop_lag_bench_runs() -> None:
    """`bench/loop_lag.py`, whose figures docs/bot.md quotes, keeps running (a tiny run:
    its keys, and figures that add up; not its timings)."""
    root = Path(__file__).resolve().parents[2]
    args = ["--tables", "2", "--decisions", "2", "--workers", "1"]
    done = subprocess.run(
        [PYTHON, "bench/loop_lag.py", *args], cwd=root, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    res = json.loads(done.stdout.strip().splitlines()[-1])
    assert [(r["mode"], r["tables"]) for r in res["runs"]] == [
        ("idle", 0),
        ("threads", 2),
        ("processes", 2),
    ]
    assert all(r["changed"] <= 4 and r["lag_p50_ms"] <= r["lag_max_ms"] for r in res["runs"])
    assert len(res["worker_rss_mb"]) == 1 and res["startup"]["pool_first_ms"] > 0


def config(tmp_path: Path, **kw: Any) -> Config:
    kw.setdefault("database_path", tmp_path / "bot.sqlite3")
    return Config(_env_file=None, **kw)  # type: ignore[call-arg]


def test_the_local_table_thinks_on_a_thread_unless_configured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One terminal table gains nothing from workers, and would wait for the first
    one to start; a chat bot gets one per core."""
    monkeypatch.delenv("AI_WORKERS", raising=False)
    assert app.ai_workers_for(config(tmp_path), ["local"]) == 0
    assert app.ai_workers_for(config(tmp_path, ai_workers=2), ["local"]) == 2
    assert app.ai_workers_for(config(tmp_path), ["telegram"]) == default_workers()
    assert app.ai_workers_for(config(tmp_path, ai_workers=0), ["telegram"]) == 0
    monkeypatch.setenv("AI_WORKERS", "")  # blank: the default
    assert Config(_env_file=None).ai_workers is None  # type: ignore[call-arg]


def cgroups(tmp_path: Path, membership: str, files: dict[str, str]) -> tuple[Path, Path]:
    """A control-group tree as Linux shows it: `files` under the mount, and this
    process's `membership` (the text of /proc/self/cgroup)."""
    root = tmp_path / "cgroup"
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    proc = tmp_path / "proc-self-cgroup"
    proc.write_text(membership)
    return root, proc


CORES = len(os.sched_getaffinity(0))


@pytest.mark.parametrize(
    ("membership", "files", "quota"),
    [
        # docker run --cpus 1 on cgroup v2: the container's group is the root.
        ("0::/\n", {"cpu.max": "100000 100000\n"}, 1.0),
        # --cpus 1.5: two workers share one and a half cores.
        ("0::/\n", {"cpu.max": "150000 100000\n"}, 1.5),
        # No limit.
        ("0::/\n", {"cpu.max": "max 100000\n"}, None),
        # A systemd slice limits the service's parent group.
        (
            "0::/system.slice/bot.service\n",
            {
                "system.slice/cpu.max": "50000 100000\n",
                "system.slice/bot.service/cpu.max": "max 100000\n",
            },
            0.5,
        ),
        # cgroup v1 in a container: the host's path does not exist inside it, the
        # container's own group is mounted at the root of the controller.
        (
            "4:cpu,cpuacct:/docker/0123abcd\n1:name=systemd:/docker/0123abcd\n",
            {
                "cpu,cpuacct/cpu.cfs_quota_us": "100000\n",
                "cpu,cpuacct/cpu.cfs_period_us": "100000\n",
            },
            1.0,
        ),
        # cgroup v1 without a quota (-1), as on this machine.
        (
            "3:cpu:/\n",
            {"cpu/cpu.cfs_quota_us": "-1\n", "cpu/cpu.cfs_period_us": "100000\n"},
            None,
        ),
        # Nothing readable (no /sys/fs/cgroup): no limit known.
        ("0::/\n", {}, None),
    ],
)
def test_a_cpu_quota_limits_the_workers(
    tmp_path: Path, membership: str, files: dict[str, str], quota: float | None
) -> None:
    """Workers beyond a container's CPU quota only take turns on it, each holding its
    memory: the default is one per core the quota allows, rounded up, and never more
    than the cores the process may run on."""
    root, proc = cgroups(tmp_path, membership, files)
    assert cpu_quota(root, proc) == quota
    expected = CORES if quota is None else min(CORES, math.ceil(quota))
    assert default_workers(root, proc) == expected


def test_no_cgroup_file_means_one_worker_per_core(tmp_path: Path) -> None:
    assert cpu_quota(tmp_path / "none", tmp_path / "none") is None
    assert default_workers(tmp_path / "none", tmp_path / "none") == CORES


async def test_stopping_the_bot_stops_its_workers(tmp_path: Path) -> None:
    seen: list[int] = []
    started: list[app.App] = []

    def loader(name: str) -> app.Serve:
        async def serve(service: TableService, cfg: Config, stop: asyncio.Event) -> None:
            chat = FakeChat(service)
            service.listeners.append(chat)
            await service.listen(chat, "tg")
            human = Player(chat, users(1)[0])
            shim: Any = SimpleNamespace(svc=service, fc=chat)
            tid = await open_table(shim, "dreier", [human])
            await play_until(chat, tid, [human], lambda: started[0].workers.pids() != [])
            seen.extend(started[0].workers.pids())
            stop.set()
            await stop.wait()

        return serve

    cfg = config(tmp_path, ai_workers=2, ai_level="heuristic", ai_delay=0.0)
    code = await asyncio.wait_for(app.run(cfg, loader=loader, on_started=started.append), 20)
    assert code == 0
    assert seen and not any(alive(pid) for pid in seen)


@pytest.mark.parametrize("how", ["ctrl-c", "killed"])
def test_no_worker_outlives_the_bot(tmp_path: Path, how: str) -> None:
    """Ctrl-C interrupts every process of the terminal's foreground group: the
    workers leave the stopping to the bot (no traceback of theirs).  A bot killed
    outright (`kill -9`, out of memory) cannot stop them: they go by themselves."""
    term = Pty([PYTHON, "-m", "bot"], clean_env(tmp_path, AI_WORKERS="1"), cwd=tmp_path)
    workers: list[int] = []
    try:
        term.expect(r"Choose a game.*\n> ", timeout=15)
        term.send("zweier")
        term.expect(CHOICES, timeout=5)
        for _ in range(6):  # cards, until the computer has moved: its worker runs
            workers = [p for p in children(term.proc.pid) if b"spawn_main" in _cmdline(p)]
            if workers:
                break
            term.send("1")
            term.expect(CHOICES, timeout=5)
        assert workers, term.text
        if how == "ctrl-c":
            os.killpg(term.proc.pid, signal.SIGINT)  # what the terminal does
            term.expect(r"run the bot again to continue it", timeout=10)
            assert term.wait(timeout=10) == 0
            text = term.text + _rest(term)
            assert "Traceback" not in text and "KeyboardInterrupt" not in text
        else:
            term.proc.kill()
            term.wait(timeout=10)
        assert asyncio.run(gone(workers))
    finally:
        term.close()
        for pid in workers:  # only if the test failed while they ran
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


def _rest(term: Pty) -> str:
    """What the terminal shows after the last `expect`, up to the end."""
    data = b""
    while select.select([term.master], [], [], 1.0)[0]:
        try:
            chunk = os.read(term.master, 65536)
        except OSError:  # every process of the terminal has closed it
            break
        if not chunk:
            break
        data += chunk
    return data.decode("utf-8", "replace")


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""
