"""`python -m bot --health`: what Docker's HEALTHCHECK (or any supervisor) asks.

Healthy while a bot runs on the database and its event loop turns (it touches the
lock file it holds); not when none ever ran there, nor when the heartbeat stopped.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import time
from pathlib import Path

from bot import app, health
from bot.config import Config
from bot.service import TableService
from bot.store import Store, lock_path
from tests.app_logs import run_logged
from tests.test_run import PYTHON, clean_env, no_settings_in_the_environment

__all__ = ["no_settings_in_the_environment"]


async def test_a_running_bot_is_healthy_and_a_stopped_one_says_so(tmp_path: Path) -> None:
    db = tmp_path / "bot.sqlite3"
    assert health.check(db) == (False, f"no bot has run on {db} (no bot.sqlite3.lock)")
    seen: list[tuple[bool, str]] = []

    def loader(name: str) -> app.Serve:
        async def serve(service: TableService, cfg: Config, stop: asyncio.Event) -> None:
            os.utime(lock_path(db), (0, 0))  # as if the last beat were long ago
            await asyncio.sleep(0.3)  # the loop turns: it beats again meanwhile
            seen.append(health.check(db))
            stop.set()

        return serve

    cfg = Config(_env_file=None, database_path=db)  # type: ignore[call-arg]
    code, logs = await run_logged(cfg, timeout=5, loader=loader, heartbeat=0.05)
    assert code == 0, logs
    [(healthy, why)] = seen
    assert healthy, why
    # a clean stop says so at once
    assert health.check(db) == (False, f"the bot on {db} has stopped")


async def test_a_stuck_event_loop_is_not_healthy(tmp_path: Path) -> None:
    """The heartbeat comes from the bot's loop: a store that is open but whose owner
    stopped beating (a blocked loop) reads as stale."""
    db = tmp_path / "bot.sqlite3"
    store = await Store(db, exclusive=True).open()
    try:
        store.beat()
        assert health.check(db)[0]
        stuck_since = time.time() - health.STALE - 1
        os.utime(lock_path(db), (stuck_since, stuck_since))
        healthy, why = health.check(db)
        assert not healthy and "has not answered for" in why, why
    finally:
        await store.close()


def test_the_command_exits_1_and_says_why(tmp_path: Path) -> None:
    proc = subprocess.run(
        [PYTHON, "-m", "bot", "--health"],
        capture_output=True,
        text=True,
        env=clean_env(tmp_path),
        cwd=tmp_path,
        timeout=30,
    )
    assert proc.returncode == 1, proc
    assert proc.stdout.startswith("no bot has run on "), proc.stdout
