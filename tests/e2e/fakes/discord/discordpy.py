"""discord.py glue: pointing the library at the fake, running a client against it,
and failing a test on the errors discord.py only logs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, TypeVar

import discord
import discord.gateway
import discord.http
import yarl

if TYPE_CHECKING:
    from tests.e2e.fakes.discord.server import FakeDiscord


@contextlib.contextmanager
def patch_discord_endpoints(api_base: str, gateway_url: str) -> Iterator[None]:
    """Point discord.py at another server, restoring the originals afterwards.

    discord.py has no base-URL option: REST URLs come from the class attribute
    ``Route.BASE`` and the gateway from ``DiscordWebSocket.DEFAULT_GATEWAY``. Both are
    process-wide, so tests using this must not run concurrently in one process.
    """
    route_class = discord.http.Route
    websocket_class = discord.gateway.DiscordWebSocket
    saved_base, saved_gateway = route_class.BASE, websocket_class.DEFAULT_GATEWAY
    route_class.BASE = api_base
    websocket_class.DEFAULT_GATEWAY = yarl.URL(gateway_url)
    try:
        yield
    finally:
        route_class.BASE = saved_base
        websocket_class.DEFAULT_GATEWAY = saved_gateway


ClientT = TypeVar("ClientT", bound=discord.Client)


@contextlib.asynccontextmanager
async def running_client(
    client: ClientT, fake: FakeDiscord, *, timeout: float = 5.0
) -> AsyncIterator[ClientT]:
    """Log ``client`` in to ``fake``, connect it and wait for READY; close on exit.

    Uses ``login``/``connect`` rather than ``run``/``start`` so the test's event loop
    stays in charge; a client that dies while connecting fails here with its error.
    Give the client a low ``guild_ready_timeout`` (e.g. 0.05): READY is dispatched
    only after that long without a further GUILD_CREATE.
    """
    await client.login(fake.token)
    task = asyncio.create_task(client.connect(reconnect=True), name=f"discord-client-{id(client)}")
    try:
        ready = asyncio.create_task(client.wait_until_ready())
        done, _ = await asyncio.wait(
            {ready, task}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
        )
        if ready not in done:
            ready.cancel()
            if task in done:
                task.result()  # raises the client's error
                raise RuntimeError("discord client stopped before READY")
            raise TimeoutError(f"discord client not READY within {timeout}s")
        yield client
    finally:
        await client.close()
        done, _ = await asyncio.wait({task}, timeout=timeout)
        if not done:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
    error = None if task.cancelled() else task.exception()
    if error is not None:
        raise error


class ErrorLogGuard(logging.Handler):
    """Fails a test on any ERROR record from discord.py's loggers.

    Why: discord.py catches exceptions from event handlers, view callbacks and app
    commands and only logs them, so a broken handler otherwise shows up as a timeout
    far from its cause. Use as a context manager around the test (it raises on exit,
    with the tracebacks), or ``install``/``check``/``uninstall`` from a fixture.
    ``allow(pattern)`` tolerates records a test provokes on purpose (matched against
    the message and the traceback).
    """

    def __init__(self, *logger_names: str, level: int = logging.ERROR) -> None:
        super().__init__(level=level)
        self.logger_names = logger_names or ("discord",)
        self.records: list[logging.LogRecord] = []
        self._allowed: list[re.Pattern[str]] = []
        self.setFormatter(logging.Formatter("%(name)s %(levelname)s: %(message)s"))

    def allow(self, pattern: str) -> None:
        self._allowed.append(re.compile(pattern))

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if record.exc_info:
            text += "\n" + logging.Formatter().formatException(record.exc_info)
        if not any(pattern.search(text) for pattern in self._allowed):
            self.records.append(record)

    def install(self) -> None:
        for name in self.logger_names:
            logging.getLogger(name).addHandler(self)

    def uninstall(self) -> None:
        for name in self.logger_names:
            logging.getLogger(name).removeHandler(self)

    def check(self) -> None:
        if self.records:
            details = "\n\n".join(self.format(record) for record in self.records)
            raise AssertionError(f"{len(self.records)} error(s) logged by discord.py:\n{details}")

    def __enter__(self) -> ErrorLogGuard:
        self.install()
        return self

    def __exit__(self, exc_type: object, exc: object, traceback: object) -> None:
        self.uninstall()
        if exc_type is None:
            self.check()
