"""Start the bot: every configured adapter, one event loop, one core, one store.

``python -m bot`` (and ``make run``) land here.  An adapter starts when its token is
set (`ADAPTERS`); with no token at all the local terminal table starts instead, so the
game runs on a fresh clone with nothing configured.

The adapter contract: each adapter package exposes

    async def serve(service: TableService, config: Config, stop: asyncio.Event) -> None

which runs until `stop` is set and then shuts down cleanly.  Adapters are imported
lazily by name, so the core never depends on a platform library it does not use (and
`bot` keeps importing no adapter, as the import contract in pyproject.toml requires).

Secrets: tokens are `SecretStr` in `Config`; on top of that every log line goes through
`RedactSecrets`, which blanks the configured secret strings and anything shaped like a
Telegram bot token (httpx logs request URLs, and Telegram puts the token in the URL).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import re
import signal
import sys
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import TextIO, cast

from .ai_workers import AIWorkers, default_workers
from .config import Config, load_config
from .health import BEAT, STOPPED
from .health import check as check_health
from .ports import NothingToServe, PlatformUnreachable, TokenRejected
from .service import TableService, Timings
from .store import Store, StoreError

log = logging.getLogger("bot.app")

#: adapter name → (the Config field holding its token, the module that serves it)
ADAPTERS: dict[str, tuple[str, str]] = {
    "discord": ("discord_token", "adapters.discord"),
    "telegram": ("telegram_token", "adapters.telegram"),
}
LOCAL = "local"
#: The adapter serving a table's platform (`Table.platform`), for tables waiting for it.
PLATFORM_OF = {"dc": "discord", "tg": "telegram"}
LOCAL_MODULE = "adapters.local"

#: In a terminal the only other players are computers: a short pause reads well, and
#: nobody is waiting for a slow human (both apply unless AI_DELAY / TURN_TIMEOUT are set).
LOCAL_AI_DELAY = 0.3
LOCAL_TURN_TIMEOUT = 3600.0
#: The terminal's one table thinks on a thread (unless AI_WORKERS is set): no other
#: table waits on the loop, and a worker's start would delay the first computer move.
LOCAL_AI_WORKERS = 0
#: Seconds the adapters have to shut down after SIGTERM before they are cancelled
#: (Docker sends SIGKILL 10 s after SIGTERM).
SHUTDOWN_GRACE = 8.0
#: Seconds between attempts to start an adapter whose platform could not be reached
#: (the last one repeats): a container that starts before its network, or during an
#: outage, comes up once the platform answers instead of exiting.
RETRY_DELAYS = (5.0, 10.0, 20.0, 40.0, 60.0)

REDACTED = "***"
# A Telegram bot token, "<bot id>:<35 characters>", also inside API URLs (".../bot<token>/").
_TELEGRAM_TOKEN = re.compile(r"(?<![0-9])[0-9]{5,}:[A-Za-z0-9_-]{30,}")
# A button's payload with its argument (`bot.payload`: "t1abc:5:a13", the card code
# 13): libraries name things after a button's id (discord.py its tasks, which asyncio
# prints when one is left pending), and the argument is a card of someone's hand.
_PAYLOAD_ARG = re.compile(r"(?<![0-9a-z])([0-9a-z]{1,12}:[0-9]{1,9}:[a-z]{1,3})[0-9]{1,8}\b")


#: An adapter's ``serve(service, config, stop)``.
Serve = Callable[[TableService, Config, asyncio.Event], Awaitable[None]]


Loader = Callable[[str], Serve]


# --- logging -----------------------------------------------------------------------------


def secrets_of(config: Config) -> list[str]:
    """Every secret string in the configuration (tokens, the webhook secret)."""
    out = []
    for value in (config.discord_token, config.telegram_token, config.telegram_webhook_secret):
        if value is not None:
            text = value.get_secret_value()
            if text.strip():
                out.append(text)
    return out


class RedactSecrets(logging.Filter):
    """Blank secrets in a record's message, arguments and traceback.

    Attached to the handlers (not to loggers, whose filters do not see records that
    propagate from child loggers), so it covers the libraries' loggers too.  The
    record is rewritten in place: every handler after this one sees the clean text.
    """

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        # longest first, so a secret that contains another is blanked whole
        self.secrets = sorted({s for s in secrets if s}, key=len, reverse=True)

    def redact(self, text: str) -> str:
        for s in self.secrets:
            text = text.replace(s, REDACTED)
        return _PAYLOAD_ARG.sub(r"\1…", _TELEGRAM_TOKEN.sub(REDACTED, text))

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a bad format string: keep what we have, without args
            message = str(record.msg)
        clean = self.redact(message)
        if clean != message or record.args:
            record.msg, record.args = clean, None
        if record.exc_info and record.exc_info[0] is not None:
            if not record.exc_text:
                record.exc_text = logging.Formatter().formatException(record.exc_info)
            record.exc_info = None  # formatters use the redacted exc_text from here on
        if record.exc_text:
            record.exc_text = self.redact(record.exc_text)
        if record.stack_info:
            record.stack_info = self.redact(record.stack_info)
        return True


class _Handler(logging.StreamHandler):  # type: ignore[type-arg]
    """Our stderr handler, so configuring again replaces it."""


def configure_logging(
    config: Config, *, stream: TextIO | None = None, quiet: bool = False
) -> logging.Handler:
    """One stderr handler at the configured level, with secrets redacted.

    `quiet` (the local terminal table) shows only warnings unless LOG_LEVEL was set,
    so log lines do not run through the game.  httpx logs every request URL at INFO,
    and Telegram's URLs hold the token: it speaks at WARNING unless we debug.
    """
    level = logging.getLevelName(config.log_level)
    if quiet and "log_level" not in config.model_fields_set:
        level = max(level, logging.WARNING)
    handler = _Handler(stream if stream is not None else sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(_no_unread_answer)  # before RedactSecrets, which formats the message
    handler.addFilter(RedactSecrets(secrets_of(config)))
    root = logging.getLogger()
    for old in list(root.handlers):
        if isinstance(old, _Handler):  # configured twice (tests): replace, not add
            root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    noisy = logging.DEBUG if level <= logging.DEBUG else logging.WARNING
    for name in ("httpx", "httpcore"):
        logging.getLogger(name).setLevel(max(noisy, level))
    logging.getLogger("aiosqlite").setLevel(max(logging.INFO, level))  # a line per query
    # The platform libraries log every request and event at DEBUG, bodies included:
    # hands sent privately would be in the log of anyone debugging the bot.
    for name in ("telegram", "discord.http", "discord.gateway", "discord.webhook"):
        logging.getLogger(name).setLevel(max(logging.INFO, level))
    handler.addFilter(_no_voice_warnings)
    return handler


#: How python-telegram-bot logs an answer it could not read as JSON, the answer whole.
_UNREAD_ANSWER = 'Can not load invalid JSON data: "%s"'


def _no_unread_answer(record: logging.LogRecord) -> bool:
    """python-telegram-bot logs an answer from Telegram that is no JSON (a 200 cut
    short on its way) whole, at ERROR: the answer to a player's hand is that message,
    his cards and all.  The line stays, saying how long the answer was, not what it
    held."""
    if record.name.startswith("telegram") and record.msg == _UNREAD_ANSWER and record.args:
        args = record.args if isinstance(record.args, tuple) else (record.args,)
        record.msg = (
            "Can not load invalid JSON data (%d characters; not logged: it may hold a hand)"
        )
        record.args = (len(str(args[0])),)
    return True


def _no_voice_warnings(record: logging.LogRecord) -> bool:
    """discord.py warns at every start that its voice extras are missing; this bot
    speaks no voice, so the two lines are noise in every log."""
    return not (
        record.name == "discord.client" and "voice will NOT be supported" in record.getMessage()
    )


# --- which adapters ----------------------------------------------------------------------


def adapters_for(config: Config) -> list[str]:
    """The adapters to start: those with a token, else the local terminal table."""
    chosen = [name for name, (field, _) in ADAPTERS.items() if getattr(config, field) is not None]
    return chosen or [LOCAL]


def timings_for(config: Config, adapters: list[str]) -> Timings:
    local_only = adapters == [LOCAL]
    explicit = config.model_fields_set
    ai_delay = config.ai_delay
    turn_timeout = config.turn_timeout
    if local_only and "ai_delay" not in explicit:
        ai_delay = LOCAL_AI_DELAY
    if local_only and "turn_timeout" not in explicit:
        turn_timeout = LOCAL_TURN_TIMEOUT
    return Timings(
        turn_timeout=turn_timeout,
        reminder_before=min(config.reminder_before, turn_timeout),
        missed_turns_limit=config.missed_turns_limit,
        ai_delay=ai_delay,
        lobby_expiry=config.lobby_expiry,
    )


def ai_workers_for(config: Config, adapters: list[str]) -> int:
    """How many processes the computer players think in (0: on a thread)."""
    if config.ai_workers is not None:
        return config.ai_workers
    return LOCAL_AI_WORKERS if adapters == [LOCAL] else default_workers()


def load_adapter(name: str) -> Serve:
    """The `serve` coroutine function of an adapter, imported on demand."""
    module_name = LOCAL_MODULE if name == LOCAL else ADAPTERS[name][1]
    module = importlib.import_module(module_name)
    serve = getattr(module, "serve", None)
    if not callable(serve):
        raise AdapterError(f"{module_name} has no serve(service, config, stop)")
    return cast(Serve, serve)


class AdapterError(RuntimeError):
    pass


# --- running -----------------------------------------------------------------------------


@dataclass
class App:
    """The running bot: what `run` builds, kept for tests and for a clean stop."""

    config: Config
    store: Store
    service: TableService
    stop: asyncio.Event
    adapters: list[str]
    workers: AIWorkers


async def run(
    config: Config,
    *,
    loader: Loader = load_adapter,
    stop: asyncio.Event | None = None,
    on_started: Callable[[App], None] | None = None,
    shutdown_grace: float = SHUTDOWN_GRACE,
    retry_delays: tuple[float, ...] = RETRY_DELAYS,
    heartbeat: float = BEAT,
) -> int:
    """Run the adapters until `stop` is set (SIGINT/SIGTERM) or they all end.

    Returns the exit code: 0 after a clean stop, 1 when an adapter could not start or
    failed (the others are then stopped too: half a bot is worse than a clear error).
    A platform that cannot be reached is not a failure: its adapter is started again
    after `retry_delays` while the others serve.
    """
    stop = stop or asyncio.Event()
    names = adapters_for(config)
    try:
        serves = [(name, loader(name)) for name in names]
    except Exception as e:  # an adapter's library is missing or broken
        log.error("could not load an adapter (%s): %s", ", ".join(names), e)
        return 1

    try:
        # exclusive: a second bot on this file (`make run` twice, a container and a
        # local run) would drive the same tables from its own memory; it is refused
        store = await Store(config.database_path, exclusive=True).open()
    except StoreError as e:  # a setting to fix, like any other bad setting
        log.error("DATABASE_PATH: %s", e)
        return 2
    workers = AIWorkers(ai_workers_for(config, names))
    service = TableService(
        store,
        timings=timings_for(config, names),
        ai_level=config.ai_level,
        ai_runner=workers.run,
    )
    loop = asyncio.get_running_loop()
    signals = _install_signals(loop, stop)
    beating = asyncio.create_task(_beat(store, heartbeat), name="heartbeat")
    try:
        await service.start()
        log.info("starting: %s (database %s)", ", ".join(names), config.database_path)
        _say_who_waits(service, names)
        if on_started is not None:
            on_started(App(config, store, service, stop, names, workers))
        tasks = [
            asyncio.create_task(_serve(name, serve, service, config, stop, retry_delays), name=name)
            for name, serve in serves
        ]
        code = await _supervise(tasks, stop, shutdown_grace)
    finally:
        beating.cancel()
        for sig in signals:
            loop.remove_signal_handler(sig)
        await service.stop()
        await asyncio.to_thread(workers.close)
        with contextlib.suppress(OSError):
            store.beat(at=STOPPED)  # a health check now says so at once
        await store.close()
    log.info("stopped")
    return code


async def _beat(store: Store, every: float) -> None:
    """The heartbeat `python -m bot --health` reads: from the event loop, so a loop
    that is stuck stops it."""
    while True:
        try:
            store.beat()
        except OSError as e:  # the disk: the database says so louder
            log.warning("heartbeat: %s", e.strerror or e)
        await asyncio.sleep(every)


def _say_who_waits(service: TableService, names: list[str]) -> None:
    """Tables of a platform this run does not serve (its token left out of .env, or a
    terminal run on the server's database) wait, their clocks stopped, until a run
    with its token: say so, or their groups' games look lost."""
    waiting = Counter(PLATFORM_OF.get(t.platform) for t in service.tables.values())
    for name, count in sorted((n, c) for n, c in waiting.items() if n is not None):
        if name not in names:
            log.warning(
                "%d %s table(s) wait for %s: they go on, with their turns' clocks "
                "stopped until then, when the bot runs with it again",
                count,
                name.capitalize(),
                ADAPTERS[name][0].upper(),
            )


async def _supervise(tasks: list[asyncio.Task[int]], stop: asyncio.Event, grace: float) -> int:
    """Wait for the adapters; once `stop` is set, give them `grace` seconds to finish.

    An adapter that fails sets `stop` for the others (its exit code: 1, or 2 for
    nothing to serve).  One that does not finish within the grace period after
    `stop` is cancelled, so a hung platform library cannot keep the process alive
    after SIGTERM.
    """
    code = 0
    pending: set[asyncio.Task[int]] = set(tasks)
    stopping = asyncio.ensure_future(stop.wait())
    try:
        while pending and not stop.is_set():
            done, _ = await asyncio.wait(
                pending | {stopping},
                return_when=asyncio.FIRST_COMPLETED,
            )
            for task in pending & done:
                pending.discard(task)
                if task.result():
                    code = max(code, task.result())
                    stop.set()  # one adapter failed: stop the others cleanly
        if pending:
            done, pending = await asyncio.wait(pending, timeout=grace)
            code = max([code] + [task.result() for task in done])
        if pending:
            names = ", ".join(sorted(task.get_name() for task in pending))
            log.warning("%s did not stop within %.0f s; cancelling", names, grace)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
    finally:
        stopping.cancel()
    return code


async def _serve(
    name: str,
    serve: Serve,
    service: TableService,
    config: Config,
    stop: asyncio.Event,
    retry_delays: tuple[float, ...] = RETRY_DELAYS,
) -> int:
    """Run one adapter; its exit code: 0, or (after logging why) 1 when it failed
    and 2 when it had nothing to serve.

    An unreachable platform is logged as one warning line per attempt and tried
    again until `stop`; so is a database that cannot be written (a full disk,
    another program holding it): what is stored stays, and the adapter (the terminal
    table, whose press failed) starts again and resumes it.  A rejected token is one
    error line (no traceback: it is a setting to fix, not a bug)."""
    attempt = 0
    while True:
        try:
            await serve(service, config, stop)
        except asyncio.CancelledError:
            raise
        except TokenRejected as e:
            log.error("%s: %s", name, e)
            return 1
        except NothingToServe as e:
            print(e, file=sys.stderr)  # the one line, whatever the log level
            return 2
        except (PlatformUnreachable, StoreError) as e:
            if stop.is_set():
                return 0
            delay = retry_delays[min(attempt, len(retry_delays) - 1)]
            attempt += 1
            if isinstance(e, PlatformUnreachable):
                log.warning(
                    "%s: cannot reach the platform (%s); trying again in %g s", name, e, delay
                )
            else:
                log.warning("%s: %s; starting it again in %g s", name, e, delay)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), delay)
            if stop.is_set():
                return 0
            continue
        except Exception:
            log.exception("the %s adapter failed", name)
            return 1
        return 0


def _install_signals(loop: asyncio.AbstractEventLoop, stop: asyncio.Event) -> list[int]:
    installed: list[int] = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, stop.set)
            installed.append(sig)
    return installed


USAGE = """usage: python -m bot            (or: make run)
       python -m bot --health   (exit 0 when a bot runs on DATABASE_PATH and answers)

Starts the Schnapsen bot: Discord and/or Telegram when DISCORD_TOKEN / TELEGRAM_TOKEN
are set, otherwise a card table in this terminal against computer players.  Settings
come from the environment and from a .env file in the current folder; .env.example
lists every one with a comment.  Ctrl-C or SIGTERM stops it; open games are kept.
The terminal table speaks the locale's language (LC_ALL, LC_MESSAGES or LANG):
German with, e.g., LANG=de_AT.UTF-8 make run.
"""


def main(argv: list[str] | None = None) -> int:
    """``python -m bot``: load the configuration (exit 2 when bad), then run."""
    args = sys.argv[1:] if argv is None else argv
    if args == ["--health"]:
        healthy, why = check_health(load_config().database_path)
        print(why)
        return 0 if healthy else 1
    if args:  # it takes no other arguments: settings are environment variables
        known = args in (["-h"], ["--help"])
        if not known:
            # which word it did not take (a setting given as an option, a typo)
            print(f"python -m bot: unknown argument {' '.join(args)!r}", file=sys.stderr)
        print(USAGE, end="", file=sys.stdout if known else sys.stderr)
        return 0 if known else 2
    config = load_config()
    names = adapters_for(config)
    configure_logging(config, quiet=names == [LOCAL])
    try:
        return asyncio.run(run(config))
    except KeyboardInterrupt:  # Ctrl-C before the signal handlers were in place
        return 130
