"""Real bot processes when things go wrong: two started on one database, and one
killed with SIGKILL in the middle of a game."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
from pathlib import Path

from pydantic import SecretStr

from bot import app
from bot.config import Config
from bot.ports import ChatRef, UserRef
from bot.service import TableService
from bot.store import Store, StoreError
from tests.app_logs import run_logged
from tests.test_run import CHOICES, PYTHON, Pty, clean_env, no_settings_in_the_environment, pty_run

__all__ = ["no_settings_in_the_environment", "pty_run"]


def _hand(term: Pty) -> str:
    """The hand the terminal showed last."""
    hands = re.findall(r"Hand: (.*)", term.text)
    assert hands, term.text
    return str(hands[-1])


def test_a_second_bot_on_one_database_is_refused_until_the_first_is_killed(
    tmp_path: Path, pty_run: list[Pty]
) -> None:
    """`make run` twice (or a container and a local run on one file): the second
    stops at once with one line naming DATABASE_PATH and exit code 2, while the first
    plays on.  The lock is the kernel's: when the first is killed with SIGKILL in the
    middle of a game, the next start gets the file, and the game, as it was."""
    env = clean_env(tmp_path)
    first = Pty([PYTHON, "-m", "bot"], env, cwd=tmp_path)
    pty_run.append(first)
    first.expect(r"Choose a game.*\n> ", timeout=20)

    second = subprocess.run(
        [PYTHON, "-m", "bot"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        env=env,
        cwd=tmp_path,
        timeout=20,
    )
    lines = [line for line in second.stderr.decode().splitlines() if line.strip()]
    assert second.returncode == 2, second.stderr.decode()
    assert len(lines) == 1 and "DATABASE_PATH" in lines[0], lines
    assert env["DATABASE_PATH"] in lines[0] and "in use by another running bot" in lines[0]
    assert second.stdout == b""

    first.send("zweier")  # the first one was not disturbed
    first.expect(CHOICES, timeout=10)
    first.send("1")  # a card: the game is under way when it is killed
    first.expect(CHOICES, timeout=10)
    hand = _hand(first)
    os.kill(first.proc.pid, signal.SIGKILL)
    assert first.wait(timeout=5) == -signal.SIGKILL

    again = Pty([PYTHON, "-m", "bot"], env, cwd=tmp_path)
    pty_run.append(again)
    again.expect(r"is still open", timeout=20)
    again.send("")  # Enter: continue the game
    again.expect(CHOICES, timeout=10)
    assert _hand(again) == hand  # the killed game, as it stood
    again.send("q")
    again.expect(r"your game is kept", timeout=5)
    assert again.wait(timeout=10) == 0


async def test_an_adapter_stopped_by_the_database_starts_again(tmp_path: Path) -> None:
    """A `StoreError` that reaches an adapter (a write the store could not make even
    after trying again, outside the person's requests the core answers with
    `not_saved`) is the database, not a bug: one warning line, and the adapter starts
    again (resuming the stored game) instead of the whole bot stopping."""
    starts: list[str] = []

    def loader(name: str) -> app.Serve:
        async def serve(service: TableService, cfg: Config, stop: asyncio.Event) -> None:
            starts.append(name)
            if len(starts) == 1:
                raise StoreError("cannot write to the database x: database or disk is full")
            stop.set()

        return serve

    cfg = Config(_env_file=None, database_path=tmp_path / "bot.sqlite3")  # type: ignore[call-arg]
    code, logs = await run_logged(cfg, timeout=5, loader=loader, retry_delays=(0.01,))
    assert code == 0 and starts == ["local", "local"], logs
    assert "local: cannot write to the database x: database or disk is full; starting it" in logs
    assert "Traceback" not in logs


async def test_tables_of_a_platform_without_its_token_are_said_to_wait(tmp_path: Path) -> None:
    """A Telegram group's table stored, and the bot started without TELEGRAM_TOKEN (a
    test run in the terminal on the server's database, a token left out of .env): the
    operator is told the table waits for the token, not left to think it was lost."""
    db = tmp_path / "bot.sqlite3"
    store = await Store(db).open()
    service = TableService(store)
    await service.start()
    host = UserRef("tg", "1", "Anna")
    opened = await service.create_table(ChatRef("tg", "-100", "Cards"), host, "zweier")
    assert opened.ok, opened.text
    await service.stop()
    await store.close()

    def loader(name: str) -> app.Serve:
        async def serve(service: TableService, cfg: Config, stop: asyncio.Event) -> None:
            stop.set()

        return serve

    local = Config(_env_file=None, database_path=db)  # type: ignore[call-arg]
    code, logs = await run_logged(local, timeout=5, loader=loader)
    assert code == 0, logs
    assert "1 Telegram table(s) wait for TELEGRAM_TOKEN" in logs, logs
    assert "Discord" not in logs, logs
    served = Config(_env_file=None, database_path=db, telegram_token=SecretStr("1:" + "x" * 35))  # type: ignore[call-arg]
    code, logs = await run_logged(served, timeout=5, loader=loader)
    assert code == 0 and "wait for" not in logs, logs
