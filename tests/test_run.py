"""Starting the bot: `make run`, configuration errors, signals, adapters, secret logs.

The processes started here get a temporary database and no tokens in their
environment; empty token variables also override any token a developer's `.env` holds
(the environment wins over `.env`), so no test ever talks to Discord or Telegram.
"""

from __future__ import annotations

import asyncio
import io
import itertools
import logging
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot import app
from bot.config import Config
from bot.ports import PlatformUnreachable, TokenRejected
from bot.service import TableService
from tests.app_logs import run_logged

ROOT = Path(__file__).resolve().parents[1]
PY = ROOT / ".venv" / "bin" / "python"
PYTHON = str(PY) if PY.exists() else sys.executable
#: The prompt after a hand's numbered choices, however many rows they take (a hand
#: with marriages, the trump exchange and closing the talon wraps to three).
CHOICES = r"Your choices:\n(?:.*\n)+?> "

FAKE_TELEGRAM = "123456789:AAFakeTokenForTestsOnly_abcdefghijklmnop"
FAKE_DISCORD = "MTIzNDU2Nzg5.FakeDiscord.TokenForTestsOnly-xyz"
FAKE_SECRET = "webhook-secret-for-tests-only"
#: Seconds the tests wait for a bot's process: for its start (make, the interpreter,
#: the imports) and its end, and for each prompt of the terminal table.  Ample for a
#: loaded 2-core machine: a wait only lasts that long when something is wrong.
START_WAIT = 60.0
PROMPT_WAIT = 30.0


@pytest.fixture(autouse=True)
def no_settings_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """A developer's exported settings (AI_DELAY, a token, ...) must not leak in."""
    names = {n.upper() for n in Config.model_fields}
    for key in list(os.environ):
        if key.upper() in names:
            monkeypatch.delenv(key)


def clean_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """The environment for a bot process: no tokens, a temporary database."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")
        and not k.startswith(("DISCORD_", "TELEGRAM_", "PYTEST_"))
    }
    env.update(
        DISCORD_TOKEN="",
        TELEGRAM_TOKEN="",
        DATABASE_PATH=str(tmp_path / "bot.sqlite3"),
        AI_LEVEL="random",
        AI_DELAY="0.05",
        TURN_TIMEOUT="3600",
        LOG_LEVEL="WARNING",
        LANG="C.UTF-8",
        USER="tester",
        PYTHONPATH=str(ROOT),
        TERM="dumb",
    )
    env.update(extra)
    return env


def run_bot(
    tmp_path: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    """`python -m bot` in `tmp_path` with no input, to its end: what a start that
    stops at once (a bad setting, no terminal) prints and returns."""
    return subprocess.run(
        [PYTHON, "-m", "bot"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        env=clean_env(tmp_path) if env is None else env,
        cwd=tmp_path,
        timeout=START_WAIT,
    )


# --- `make run` with no token: the local table, through a pseudo-terminal ----------------


class Pty:
    """A child process on a pseudo-terminal, read with bounded waits."""

    def __init__(self, cmd: list[str], env: dict[str, str], cwd: Path) -> None:
        self.master, slave = os.openpty()
        self.proc = subprocess.Popen(
            cmd, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=cwd, start_new_session=True
        )
        os.close(slave)
        self.text = ""
        self.mark = 0  # `expect` looks at the output after this point

    def expect(self, pattern: str, timeout: float) -> re.Match[str]:
        """Wait (at most `timeout` seconds) for `pattern` in the output after `mark`."""
        end = time.monotonic() + timeout
        rx = re.compile(pattern)
        while True:
            m = rx.search(self.text, self.mark)
            if m is not None:
                self.mark = m.end()
                return m
            left = end - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no {pattern!r} within {timeout} s; output:\n{self.text}")
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                try:
                    data = os.read(self.master, 65536)
                except OSError:  # the child closed the terminal
                    data = b""
                if not data:
                    raise AssertionError(f"output ended before {pattern!r}:\n{self.text}")
                self.text += data.decode("utf-8", "replace").replace("\r\n", "\n")

    def send(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def wait(self, timeout: float) -> int:
        return self.proc.wait(timeout)

    def close(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(5)
        os.close(self.master)


@pytest.fixture
def pty_run(tmp_path: Path) -> Iterator[list[Pty]]:
    started: list[Pty] = []
    yield started
    for p in started:
        p.close()


def make_run_command(tmp_path: Path) -> list[str]:
    """`make run` in the repository, as a newcomer types it.

    After `make test` the install stamps are fresh and make only runs the run recipe.
    When pyproject.toml changed since the last install, the test does not reinstall
    the shared virtualenv itself: RUN_STAMP then names a fresh file, so make still goes
    through the Makefile's run target (`.venv/bin/python -m bot`) and nothing else.
    """
    make = shutil.which("make")
    if make is None:  # pragma: no cover - make is part of the two-command promise
        pytest.skip("make is not installed")
    if not PY.exists():  # pragma: no cover - `make test` creates it before the tests
        pytest.skip("no .venv: `make run` would create it (run `make test` first)")
    cmd = [make, "-s", "-C", str(ROOT), "run"]
    stamp_fresh = subprocess.run(
        [make, "-s", "-q", "-C", str(ROOT), ".venv/.run-stamp"],
        capture_output=True,
        env=clean_env(tmp_path),
    )
    if stamp_fresh.returncode != 0:
        stamp = tmp_path / "run-stamp"
        stamp.touch()
        cmd.append(f"RUN_STAMP={stamp}")
    return cmd


def test_make_run_without_a_token_plays_the_local_table_to_the_first_trick(
    tmp_path: Path, pty_run: list[Pty]
) -> None:
    term = Pty(make_run_command(tmp_path), clean_env(tmp_path), cwd=tmp_path)
    pty_run.append(term)
    term.expect(r"a table in your terminal", timeout=START_WAIT)  # make + interpreter start-up
    term.expect(r"Choose a game.*\n> ", timeout=PROMPT_WAIT)
    term.send("zweier")
    term.expect(r"you and 1 computer player", timeout=PROMPT_WAIT)
    for _ in range(6):
        m = term.expect(rf"Last trick: .*→|{CHOICES}", timeout=PROMPT_WAIT)
        if m.group(0).startswith("Last trick"):
            break
        term.send("1")  # the first choice: a card
    else:
        raise AssertionError(f"no completed trick after 6 cards:\n{term.text}")
    assert "Hand:" in term.text
    term.send("q")
    term.expect(r"your game is kept", timeout=PROMPT_WAIT)
    assert term.wait(timeout=PROMPT_WAIT) == 0
    assert (tmp_path / "bot.sqlite3").exists()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_the_bot_cleanly(tmp_path: Path, sig: signal.Signals) -> None:
    proc = subprocess.Popen(
        [PYTHON, "-m", "bot"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=clean_env(tmp_path),
        cwd=tmp_path,
    )
    try:
        assert proc.stdout is not None and proc.stdin is not None
        os.set_blocking(proc.stdout.fileno(), False)
        out = b""
        end = time.monotonic() + START_WAIT
        while b"Choose a game" not in out:
            assert time.monotonic() < end, out.decode()
            select.select([proc.stdout], [], [], 0.5)
            out += proc.stdout.read() or b""
        proc.stdin.write(b"zweier\n")
        proc.stdin.flush()
        while b"Your hand" not in out:
            assert time.monotonic() < end, out.decode()
            select.select([proc.stdout], [], [], 0.5)
            out += proc.stdout.read() or b""
        proc.send_signal(sig)
        assert proc.wait(timeout=PROMPT_WAIT) == 0
        assert proc.stderr is not None
        assert proc.stderr.read() == b""
        out += proc.stdout.read() or b""
        assert out.rstrip().endswith(b"run the bot again to continue it.")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)


#: `python -m bot` with Ctrl-C arriving while it imports `bot.app` (the libraries load
#: for a second or two on a cold start): the interrupt raised at that import.
CTRL_C_AT_IMPORT = """
import runpy, sys

class CtrlC:
    def find_spec(self, name, path=None, target=None):
        if name == "bot.app":
            raise KeyboardInterrupt
        return None

sys.meta_path.insert(0, CtrlC())
runpy.run_module("bot", run_name="__main__", alter_sys=True)
"""


def test_ctrl_c_while_the_bot_starts_is_a_quiet_exit(tmp_path: Path) -> None:
    """A person who presses Ctrl-C right after `make run` sees no traceback."""
    done = subprocess.run(
        [PYTHON, "-c", CTRL_C_AT_IMPORT],
        env=clean_env(tmp_path),
        cwd=ROOT,
        capture_output=True,
        timeout=START_WAIT,
    )
    assert (done.returncode, done.stderr.decode()) == (130, "")


def test_no_input_ends_the_local_table_with_a_hint(tmp_path: Path) -> None:
    """No keyboard (stdin is /dev/null, as under `docker run` without -i): the hint
    alone, not a game menu and a prompt nobody can answer first; and exit code 2,
    a setting to fix, so that `docker ps` or a service manager does not report the
    bot that did nothing as a clean stop."""
    done = run_bot(tmp_path)
    assert done.returncode == 2
    err = done.stderr.decode()
    assert err.count("\n") == 1 and "DISCORD_TOKEN or TELEGRAM_TOKEN" in err
    assert "Choose a game" not in done.stdout.decode() and "> " not in done.stdout.decode()


def test_an_empty_pipe_is_no_input_either(tmp_path: Path) -> None:
    """`printf '' | python -m bot`: no line at all comes, as with /dev/null: the hint
    and exit code 2, not a clean stop."""
    done = subprocess.run(
        [PYTHON, "-m", "bot"],
        input=b"",
        capture_output=True,
        env=clean_env(tmp_path),
        cwd=tmp_path,
        timeout=START_WAIT,
    )
    assert done.returncode == 2
    assert "DISCORD_TOKEN or TELEGRAM_TOKEN" in done.stderr.decode()


def test_output_closed_early_ends_quietly(tmp_path: Path) -> None:
    """`python -m bot | head -3`: once nobody reads, the bot ends as on Ctrl-C (exit
    code 0, the game kept), without a traceback about the broken pipe."""
    read, write = os.pipe()
    with subprocess.Popen(
        [PYTHON, "-m", "bot"],
        stdin=subprocess.PIPE,
        stdout=write,
        stderr=subprocess.PIPE,
        env=clean_env(tmp_path),
        cwd=tmp_path,
    ) as proc:
        os.close(write)
        with os.fdopen(read, "rb") as out:
            out.read(10)  # the banner has begun: then nobody reads any more
        assert proc.stdin is not None and proc.stderr is not None
        proc.stdin.write(b"zweier\n")
        proc.stdin.close()
        err = proc.stderr.read().decode()
        assert proc.wait(timeout=START_WAIT) == 0, err
    assert "Traceback" not in err and "Broken pipe" not in err, err


# --- configuration errors ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("setting", "value"),
    [
        ("TURN_TIMEOUT", "abc"),
        ("AI_LEVEL", "genius"),
        ("TELEGRAM_WEBHOOK_PORT", "70000"),
        # floats that are no time: each once started a bot whose every table failed
        ("LOBBY_EXPIRY", "inf"),
        ("TURN_TIMEOUT", "1e400"),
        ("AI_DELAY", "nan"),
    ],
)
def test_bad_config_is_one_line_on_stderr_and_exit_code_2(
    tmp_path: Path, setting: str, value: str
) -> None:
    done = run_bot(tmp_path, clean_env(tmp_path, **{setting: value}))
    assert done.returncode == 2
    err = done.stderr.decode()
    assert err.count("\n") == 1 and err.endswith("\n"), err
    assert err.startswith("bad configuration: ") and setting in err
    assert done.stdout == b""


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({"DISCORD_SHARD_IDS": "0,1"}, "DISCORD_SHARD_COUNT"),
        ({"DISCORD_SHARD_COUNT": "2", "DISCORD_SHARD_IDS": "0,5"}, "DISCORD_SHARD_IDS"),
        ({"DISCORD_SHARD_COUNT": "2", "DISCORD_SHARD_IDS": "one"}, "DISCORD_SHARD_IDS"),
        ({"TELEGRAM_WEBHOOK_URL": "notaurl"}, "TELEGRAM_WEBHOOK_URL"),
        ({"TELEGRAM_WEBHOOK_SECRET": "not allowed!"}, "TELEGRAM_WEBHOOK_SECRET"),
        ({"TURN_TIMEOUT": "10", "REMINDER_BEFORE": "100"}, "REMINDER_BEFORE"),
        # placeholders left in .env: refused at once, not sent (or retried offline)
        ({"TELEGRAM_TOKEN": "your-token-here"}, "TELEGRAM_TOKEN"),
        ({"DISCORD_TOKEN": "your-token-here"}, "DISCORD_TOKEN"),
    ],
)
def test_settings_that_do_not_fit_together_are_one_line_and_exit_code_2(
    tmp_path: Path, env: dict[str, str], named: str
) -> None:
    """Checked at start, with the setting named, instead of a traceback (or retries
    for ever) once a platform refuses them."""
    done = run_bot(tmp_path, clean_env(tmp_path, **env))
    err = done.stderr.decode()
    assert done.returncode == 2 and err.count("\n") == 1 and named in err, err
    assert "not allowed!" not in err and "your-token" not in err  # never echoed


def test_a_short_turn_timeout_alone_brings_the_reminder_forward(tmp_path: Path) -> None:
    """TURN_TIMEOUT=10 without a REMINDER_BEFORE: the default reminder (20 s) would
    come before the turn; it comes with a third of the time left instead of refusing a
    setting the user never made."""
    from bot.config import load_config

    env = clean_env(tmp_path, TURN_TIMEOUT="9", TELEGRAM_TOKEN=FAKE_TELEGRAM)
    with pytest.MonkeyPatch.context() as mp:
        for k, v in env.items():
            mp.setenv(k, v)
        mp.delenv("REMINDER_BEFORE", raising=False)
        config = load_config(None)
    assert (config.turn_timeout, config.reminder_before) == (9.0, 3.0)


@pytest.mark.parametrize("token", [False, True])
def test_a_long_reminder_is_refused_only_where_turns_are_a_minute(
    tmp_path: Path, token: bool
) -> None:
    """REMINDER_BEFORE=100 with the default TURN_TIMEOUT: the chat bot's minute a move
    is shorter, so with a token it is refused; the terminal table (no token) has an
    hour a move, and starts."""
    from bot.config import load_config

    env = clean_env(tmp_path, REMINDER_BEFORE="100")
    del env["TURN_TIMEOUT"]  # the default, not set
    if token:
        env["TELEGRAM_TOKEN"] = FAKE_TELEGRAM
    with pytest.MonkeyPatch.context() as mp:
        for k, v in env.items():
            mp.setenv(k, v)
        mp.delenv("TURN_TIMEOUT", raising=False)
        if token:
            with pytest.raises(SystemExit) as stop:
                load_config(None)
            assert stop.value.code == 2
        else:
            assert load_config(None).reminder_before == 100


def test_settings_read_as_typed_whatever_the_case(tmp_path: Path) -> None:
    """AI_LEVEL=Strong, LOG_LEVEL=debug and a token with a stray space are what they
    say (a .env written by hand)."""
    from bot.config import load_config

    env = clean_env(
        tmp_path, AI_LEVEL=" Strong", LOG_LEVEL="debug", TELEGRAM_TOKEN=f" {FAKE_TELEGRAM} "
    )
    with pytest.MonkeyPatch.context() as mp:
        for k, v in env.items():
            mp.setenv(k, v)
        config = load_config(None)
    assert (config.ai_level, config.log_level) == ("strong", "DEBUG")
    assert config.telegram_token is not None
    assert config.telegram_token.get_secret_value() == FAKE_TELEGRAM


def test_one_discord_shard_id_is_a_list_of_one(tmp_path: Path) -> None:
    from bot.config import load_config

    env = clean_env(tmp_path, DISCORD_SHARD_COUNT="2", DISCORD_SHARD_IDS="1")
    with pytest.MonkeyPatch.context() as mp:
        for k, v in env.items():
            mp.setenv(k, v)
        assert load_config(None).discord_shard_ids == [1]


@pytest.mark.parametrize("kind", ["not_a_database", "a_folder"])
def test_a_database_path_that_cannot_be_used_is_one_line_and_exit_code_2(
    tmp_path: Path, kind: str
) -> None:
    """A file that is no SQLite database (once, the bot hung there for good), or a
    folder: one error line naming DATABASE_PATH, exit code 2, at once."""
    path = tmp_path / "data"
    if kind == "a_folder":
        path.mkdir()
    else:
        path.write_text("these are my notes, not a database\n")
    done = run_bot(tmp_path, {**clean_env(tmp_path), "DATABASE_PATH": str(path)})
    assert done.returncode == 2
    lines = [line for line in done.stderr.decode().splitlines() if line.strip()]
    assert len(lines) == 1 and "DATABASE_PATH" in lines[0] and str(path) in lines[0], lines
    assert "Traceback" not in done.stderr.decode()


def test_a_database_folder_that_is_a_file_is_named(tmp_path: Path) -> None:
    (tmp_path / "notes").write_text("a file, not a folder\n")
    path = tmp_path / "notes" / "bot.sqlite3"
    done = run_bot(tmp_path, {**clean_env(tmp_path), "DATABASE_PATH": str(path)})
    err = done.stderr.decode()
    assert done.returncode == 2 and err.count("\n") == 1, err
    assert f"({tmp_path / 'notes'} is a file, not a folder)" in err


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into any folder")
def test_a_database_folder_the_bot_cannot_write_is_named(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir(mode=0o555)
    done = run_bot(tmp_path, {**clean_env(tmp_path), "DATABASE_PATH": str(folder / "b.sqlite3")})
    err = done.stderr.decode()
    assert done.returncode == 2 and f"the folder {folder} is not writable by uid" in err, err


def test_a_database_path_from_home_is_read_as_the_shell_would(tmp_path: Path) -> None:
    """`~/x.sqlite3` is the home folder's, not a new folder named "~" here (which a
    later `rm -rf ~` would take for the home folder)."""
    from bot.config import load_config

    home = tmp_path / "home"
    env = clean_env(tmp_path, DATABASE_PATH="~/games/bot.sqlite3", HOME=str(home))
    with pytest.MonkeyPatch.context() as mp:
        for k, v in env.items():
            mp.setenv(k, v)
        assert load_config(None).database_path == home / "games" / "bot.sqlite3"


def test_a_dotenv_folder_is_one_line_and_exit_code_2(tmp_path: Path) -> None:
    """Docker bind-mounts a missing .env as a folder; read as no settings, the bot
    would start without its tokens and not say why."""
    (tmp_path / ".env").mkdir()
    done = run_bot(tmp_path)
    err = done.stderr.decode()
    assert (
        done.returncode == 2
        and err == "bad configuration: .env is a folder, not a file of settings\n"
    )


@pytest.mark.skipif(os.geteuid() == 0, reason="root may read any file")
def test_an_unreadable_dotenv_is_one_line_and_exit_code_2(tmp_path: Path) -> None:
    """Tokens kept in a .env only root may read, the bot started as another user: one
    line naming the file, not a traceback."""
    (tmp_path / ".env").write_text("TURN_TIMEOUT=30\n")
    (tmp_path / ".env").chmod(0)
    done = run_bot(tmp_path)
    err = done.stderr.decode()
    assert done.returncode == 2 and err.count("\n") == 1, err
    assert err.startswith("bad configuration: cannot read .env") and "Traceback" not in err


def test_a_misspelt_setting_in_dotenv_is_named(tmp_path: Path) -> None:
    """`TURN_TIMOUT=30` would leave the turns at their default without a word."""
    from bot.config import unknown_keys

    env = tmp_path / ".env"
    # a token wrapped onto a line of its own is no setting's name: never echoed
    env.write_text(
        f"TURN_TIMOUT=30\nturn_timeout=45\nTELEGRAM_TOKEN=\n{FAKE_TELEGRAM}\n"
        f"{FAKE_DISCORD}\nexport MY_NOTE=1\n"
    )
    assert unknown_keys(str(env)) == [
        f"warning: {env} sets TURN_TIMOUT, which is no setting (ignored); did you mean TURN_TIMEOUT?",
        f"warning: {env} sets MY_NOTE, which is no setting (ignored)",
    ]


def test_a_bad_dotenv_never_echoes_its_tokens(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(
        f"TELEGRAM_TOKEN={FAKE_TELEGRAM}\nDISCORD_TOKEN={FAKE_DISCORD}\nMISSED_TURNS_LIMIT=0\n"
    )
    env = clean_env(tmp_path)
    del env["TELEGRAM_TOKEN"], env["DISCORD_TOKEN"]  # taken from the .env file
    done = subprocess.run(
        [PYTHON, "-m", "bot"], capture_output=True, env=env, cwd=tmp_path, timeout=START_WAIT
    )
    assert done.returncode == 2
    err = done.stderr.decode()
    assert "MISSED_TURNS_LIMIT" in err and err.count("\n") == 1
    for secret in (FAKE_TELEGRAM, FAKE_DISCORD, FAKE_TELEGRAM.split(":")[1]):
        assert secret not in err


def test_a_dotenv_that_is_not_utf8_is_one_line_and_exit_code_2(tmp_path: Path) -> None:
    """Saved in another encoding (or damaged): one line saying so, not a traceback, and
    not the bytes (they may be part of a token)."""
    (tmp_path / ".env").write_bytes(b"TURN_TIMEOUT=30\nTELEGRAM_TOKEN=12\xff\xfe34\n")
    done = run_bot(tmp_path)
    err = done.stderr.decode()
    assert done.returncode == 2 and err.count("\n") == 1, err
    assert err.startswith("bad configuration: .env is not UTF-8") and "Traceback" not in err


def test_env_example_lists_every_setting_with_a_comment() -> None:
    lines = (ROOT / ".env.example").read_text().splitlines()
    for name in Config.model_fields:
        key = name.upper()
        at = [i for i, line in enumerate(lines) if re.match(rf"^(# )?{key}=", line)]
        assert len(at) == 1, f"{key} is not (once) in .env.example"
        before = lines[at[0] - 1]
        assert before.startswith("# ") and not re.match(r"^# [A-Z_]+=", before), key
    # Copied as it is, .env.example is a valid configuration: the local table.
    config = Config(_env_file=str(ROOT / ".env.example"))  # type: ignore[call-arg]
    assert app.adapters_for(config) == ["local"]


# --- adapters and timings ------------------------------------------------------------------


def config(tmp_path: Path, **kw: Any) -> Config:
    kw.setdefault("database_path", tmp_path / "bot.sqlite3")
    return Config(_env_file=None, **kw)  # type: ignore[call-arg]


def test_the_adapters_follow_the_tokens(tmp_path: Path) -> None:
    assert app.adapters_for(config(tmp_path)) == ["local"]
    assert app.adapters_for(config(tmp_path, telegram_token=FAKE_TELEGRAM)) == ["telegram"]
    both = config(tmp_path, telegram_token=FAKE_TELEGRAM, discord_token=FAKE_DISCORD)
    assert sorted(app.adapters_for(both)) == ["discord", "telegram"]
    assert app.adapters_for(config(tmp_path, telegram_token="  ")) == ["local"]


def test_local_play_is_quick_unless_configured(tmp_path: Path) -> None:
    local = app.timings_for(config(tmp_path), ["local"])
    assert local.ai_delay == app.LOCAL_AI_DELAY == 0.3
    assert local.turn_timeout == app.LOCAL_TURN_TIMEOUT
    set_ = app.timings_for(config(tmp_path, ai_delay=0.0, turn_timeout=30), ["local"])
    assert (set_.ai_delay, set_.turn_timeout) == (0.0, 30)
    chat = app.timings_for(config(tmp_path, lobby_expiry=60, missed_turns_limit=2), ["telegram"])
    assert (chat.ai_delay, chat.turn_timeout, chat.reminder_before) == (1.0, 60.0, 20.0)
    assert (chat.lobby_expiry, chat.missed_turns_limit) == (60, 2)


def test_the_local_adapter_keeps_the_contract() -> None:
    serve = app.load_adapter("local")
    assert asyncio.iscoroutinefunction(serve)
    import inspect

    assert list(inspect.signature(serve).parameters) == ["service", "config", "stop"]


async def test_run_starts_the_adapters_and_stops_them_cleanly(tmp_path: Path) -> None:
    seen: list[tuple[str, TableService, bool]] = []

    def loader(name: str) -> app.Serve:
        async def serve(service: TableService, cfg: Config, stop: asyncio.Event) -> None:
            seen.append((name, service, service.store is not None))
            await stop.wait()
            seen.append((name, service, True))

        return serve

    started: list[app.App] = []

    def on_started(a: app.App) -> None:
        started.append(a)
        asyncio.get_running_loop().call_later(0.05, a.stop.set)

    cfg = config(tmp_path, telegram_token=FAKE_TELEGRAM, discord_token=FAKE_DISCORD, ai_delay=0.5)
    code = await asyncio.wait_for(app.run(cfg, loader=loader, on_started=on_started), 5)
    assert code == 0
    assert sorted(n for n, _, _ in seen) == ["discord", "discord", "telegram", "telegram"]
    (a,) = started
    assert a.service.timings.ai_delay == 0.5 and a.service.ai_level == "strong"
    assert a.store._db is None  # closed
    assert (tmp_path / "bot.sqlite3").exists()


async def test_an_adapter_that_ignores_stop_is_cancelled_after_the_grace(
    tmp_path: Path,
) -> None:
    cancelled: list[str] = []

    def loader(name: str) -> app.Serve:
        async def serve(service: TableService, cfg: Config, stop: asyncio.Event) -> None:
            if name == "discord":
                return  # ends at once: the other one keeps running
            try:
                await asyncio.sleep(3600)  # never looks at `stop`
            except asyncio.CancelledError:
                cancelled.append(name)
                raise

        return serve

    def on_started(a: app.App) -> None:
        asyncio.get_running_loop().call_later(0.05, a.stop.set)

    cfg = config(tmp_path, telegram_token=FAKE_TELEGRAM, discord_token=FAKE_DISCORD)
    buf = io.StringIO()
    handler = app.configure_logging(cfg, stream=buf)
    try:
        run = app.run(cfg, loader=loader, on_started=on_started, shutdown_grace=0.1)
        code = await asyncio.wait_for(run, 5)
    finally:
        logging.getLogger().removeHandler(handler)
    assert code == 0
    assert cancelled == ["telegram"]
    assert "telegram did not stop within" in buf.getvalue()


async def test_an_unreachable_platform_is_tried_again_while_the_others_serve(
    tmp_path: Path,
) -> None:
    loop = asyncio.get_running_loop()
    attempts: list[float] = []
    served: list[str] = []

    def loader(name: str) -> app.Serve:
        async def serve(service: TableService, cfg: Config, stop: asyncio.Event) -> None:
            if name == "telegram":
                attempts.append(loop.time())
                raise PlatformUnreachable("ConnectError: no route to host")
            served.append(name)
            await stop.wait()

        return serve

    def on_started(a: app.App) -> None:
        loop.call_later(0.6, a.stop.set)

    cfg = config(tmp_path, telegram_token=FAKE_TELEGRAM, discord_token=FAKE_DISCORD)
    run = app.run(cfg, loader=loader, on_started=on_started, retry_delays=(0.05, 0.1))
    assert await asyncio.wait_for(run, 5) == 0
    assert served == ["discord"]  # never stopped by the other one's trouble
    assert len(attempts) >= 3
    gaps = [b - a for a, b in itertools.pairwise(attempts)]
    assert gaps[0] >= 0.04 and all(g >= 0.09 for g in gaps[1:])  # the delays, then the last


async def test_stop_while_waiting_to_try_a_platform_again_is_a_clean_exit(
    tmp_path: Path,
) -> None:
    def loader(name: str) -> app.Serve:
        async def serve(service: TableService, cfg: Config, stop: asyncio.Event) -> None:
            raise PlatformUnreachable("TimedOut: Timed out")

        return serve

    def on_started(a: app.App) -> None:
        asyncio.get_running_loop().call_later(0.1, a.stop.set)

    cfg = config(tmp_path, telegram_token=FAKE_TELEGRAM)
    run = app.run(cfg, loader=loader, on_started=on_started, retry_delays=(3600.0,))
    assert await asyncio.wait_for(run, 5) == 0  # not an hour


async def test_a_rejected_token_is_not_tried_again(tmp_path: Path) -> None:
    calls: list[str] = []

    def loader(name: str) -> app.Serve:
        async def serve(service: TableService, cfg: Config, stop: asyncio.Event) -> None:
            calls.append(name)
            raise TokenRejected("Telegram rejected TELEGRAM_TOKEN")

        return serve

    cfg = config(tmp_path, telegram_token=FAKE_TELEGRAM)
    assert await asyncio.wait_for(app.run(cfg, loader=loader, retry_delays=(0.01,)), 5) == 1
    assert calls == ["telegram"]


async def test_a_missing_adapter_is_exit_code_1(tmp_path: Path) -> None:
    def loader(name: str) -> app.Serve:
        raise ModuleNotFoundError(f"No module named 'adapters.{name}'")

    buf = io.StringIO()
    handler = app.configure_logging(config(tmp_path), stream=buf)
    try:
        code = await app.run(config(tmp_path, telegram_token=FAKE_TELEGRAM), loader=loader)
    finally:
        logging.getLogger().removeHandler(handler)
    assert code == 1
    assert "could not load an adapter (telegram)" in buf.getvalue()


# --- secrets never reach the logs ----------------------------------------------------------


async def test_tokens_never_appear_in_logs(tmp_path: Path) -> None:
    """Adapters (stubbed here) and their libraries log the tokens every way they can."""

    def loader(name: str) -> app.Serve:
        async def telegram(service: TableService, cfg: Config, stop: asyncio.Event) -> None:
            httpx = logging.getLogger("httpx")
            url = f"https://api.telegram.org/bot{FAKE_TELEGRAM}/getUpdates"
            httpx.info('HTTP Request: POST %s "HTTP/1.1 200 OK"', url)
            httpx.warning('HTTP Request: POST %s "HTTP/1.1 502 Bad Gateway"', url)
            logging.getLogger("telegram.ext.Application").debug("token %s", FAKE_TELEGRAM)
            logging.getLogger("adapters.telegram").info(f"webhook secret {FAKE_SECRET}")
            try:
                raise ConnectionError(f"cannot reach {url}")
            except ConnectionError:
                logging.getLogger("adapters.telegram").exception("polling failed")
            await stop.wait()

        async def discord(service: TableService, cfg: Config, stop: asyncio.Event) -> None:
            logging.getLogger("discord.http").debug("login with %r", FAKE_DISCORD)
            await asyncio.sleep(0.01)
            raise RuntimeError(f"improper token {FAKE_DISCORD}")  # the app logs the traceback

        return telegram if name == "telegram" else discord

    cfg = config(
        tmp_path,
        telegram_token=FAKE_TELEGRAM,
        discord_token=FAKE_DISCORD,
        telegram_webhook_secret=FAKE_SECRET,
        log_level="DEBUG",
    )
    code, logs = await run_logged(cfg, timeout=5, loader=loader)
    assert code == 1  # the failing adapter stops the bot
    assert "the discord adapter failed" in logs and "Traceback" in logs
    assert "https://api.telegram.org/bot***/getUpdates" in logs
    assert "improper token ***" in logs
    assert "polling failed" in logs and "cannot reach" in logs
    for secret in (FAKE_TELEGRAM, FAKE_DISCORD, FAKE_SECRET, FAKE_TELEGRAM.split(":")[1]):
        assert secret not in logs
    assert "HTTP/1.1 200 OK" in logs  # at DEBUG, httpx's request lines are kept (redacted)


def test_httpx_request_lines_are_quiet_unless_debugging(tmp_path: Path) -> None:
    buf = io.StringIO()
    root = logging.getLogger()
    level = root.level
    handler = app.configure_logging(config(tmp_path, log_level="INFO"), stream=buf)
    try:
        logging.getLogger("httpx").info("HTTP Request: POST https://api.telegram.org/botX/getMe")
        logging.getLogger("bot.test").info("kept")
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
    assert "getMe" not in buf.getvalue() and "kept" in buf.getvalue()


def test_the_filter_redacts_telegram_shaped_tokens_it_was_not_told_about() -> None:
    f = app.RedactSecrets(["other-secret"])
    record = logging.LogRecord(
        "x",
        logging.INFO,
        __file__,
        1,
        "url %s and %s",
        ("/bot987654321:" + "A" * 35, "other-secret"),
        None,
    )
    assert f.filter(record)
    assert record.getMessage() == "url /bot*** and ***"


async def test_the_real_telegram_adapter_at_debug_never_logs_its_token(tmp_path: Path) -> None:
    """`python -m bot` with a Telegram token, against the fake Bot API on 127.0.0.1.

    python-telegram-bot and httpx log every request URL, and Telegram's URLs hold the
    token. At LOG_LEVEL=DEBUG the process talks to the fake server, answers a command,
    stops on SIGTERM, and its whole log has the token only as ``***``. The token's
    secret half is too short to look like a Telegram token, so the redaction of the
    configured secret is what is tested, not the pattern.
    """
    from tests.e2e.fakes.telegram.server import FakeTelegram

    token = "7000000002:not-a-real-token-42"
    async with FakeTelegram(token=token) as fake:
        env = clean_env(
            tmp_path,
            TELEGRAM_TOKEN=token,
            TELEGRAM_API_URL=fake.base_url,
            LOG_LEVEL="DEBUG",
            TURN_TIMEOUT="60",
        )
        proc = await asyncio.create_subprocess_exec(
            PYTHON,
            "-m",
            "bot",
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=tmp_path,
        )
        try:
            alice = fake.create_user("Alice")
            group = fake.create_group("Schnapsen", members=[alice])
            sent = alice.send(group, "/help")
            await fake.wait_for_message(group, after=sent, timeout=20)
            proc.send_signal(signal.SIGTERM)
            out, err = await asyncio.wait_for(proc.communicate(), 10)
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
    logs = err.decode()
    assert proc.returncode == 0, logs[-3000:]
    assert "getUpdates" in logs and "/bot***/" in logs  # request URLs are logged...
    assert token not in logs and token.split(":")[1] not in logs  # ...without the token
    assert out == b""


def test_help_says_what_the_bot_does_and_where_the_settings_are(tmp_path: Path) -> None:
    done = subprocess.run(
        [PYTHON, "-m", "bot", "--help"],
        capture_output=True,
        env=clean_env(tmp_path),
        timeout=START_WAIT,
    )
    out = done.stdout.decode()
    assert done.returncode == 0 and "usage: python -m bot" in out and ".env.example" in out
    assert "LANG=de_AT.UTF-8 make run" in out  # how the terminal speaks German
    wrong = subprocess.run(
        [PYTHON, "-m", "bot", "--tokn"],
        capture_output=True,
        env=clean_env(tmp_path),
        timeout=START_WAIT,
    )
    assert wrong.returncode == 2 and b"usage: python -m bot" in wrong.stderr
    assert wrong.stderr.startswith(b"python -m bot: unknown argument '--tokn'\n")


def test_discord_voice_warnings_are_not_logged(tmp_path: Path) -> None:
    """discord.py's "PyNaCl is not installed, voice will NOT be supported" at every
    start is noise for a bot without voice; its other warnings still show."""
    stream = io.StringIO()
    handler = app.configure_logging(config(tmp_path), stream=stream)
    try:
        voice = logging.getLogger("discord.client")
        voice.warning("PyNaCl is not installed, voice will NOT be supported")
        voice.warning("a real problem")
    finally:
        logging.getLogger().removeHandler(handler)
    assert "voice" not in stream.getvalue() and "a real problem" in stream.getvalue()


def test_the_filter_drops_a_button_payload_s_card_but_keeps_the_rest() -> None:
    """A library may name something after a button's id (discord.py: its tasks, which
    asyncio prints when one is left pending at shutdown); the argument of a payload is
    a card code of someone's hand, the table, version and verb stay readable."""
    f = app.RedactSecrets()
    record = logging.LogRecord(
        "asyncio",
        logging.ERROR,
        __file__,
        1,
        "Task was destroyed but it is pending! name=%r at 12:30:45",
        ("discord-ui-dynamic-item-PayloadButton-s:t1abc9z:17:a13",),
        None,
    )
    assert f.filter(record)
    assert record.getMessage() == (
        "Task was destroyed but it is pending! "
        "name='discord-ui-dynamic-item-PayloadButton-s:t1abc9z:17:a…' at 12:30:45"
    )
