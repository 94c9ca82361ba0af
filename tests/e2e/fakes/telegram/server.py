"""A faithful fake of the Telegram Bot API, and simulated users to drive it.

Why a fake server rather than mocks: the adapter under test talks to Telegram through the
real python-telegram-bot (PTB) library, and most Telegram bugs live in the wire contract
(64-byte ``callback_data``, "message is not modified", the bot that may not start a private
conversation, late callback answers, flood control, one ``getUpdates`` consumer). A local
HTTP server that speaks that contract lets the real library, the real handlers and the real
error paths run unmodified, offline, in well under a second per test.

Typical use (see ``tests/e2e/test_fake_telegram.py``)::

    async with FakeTelegram() as fake:
        app = fake.application_builder().build()      # ... add handlers ...
        alice = fake.create_user("Alice", username="alice")
        table = fake.create_group("Schnapsen", members=[alice])
        async with polling(app):
            alice.send(table, "/new")
            reply = await fake.wait_for_message(table)
            query = alice.press(reply, "Join")
            answer = await fake.wait_answer(query)

Everything a simulated user does is synchronous: it records state and queues an update,
exactly as Telegram does before the bot fetches it. Everything that waits on the bot is
``async`` and bounded (``wait_for`` wakes on every state change; no polling sleeps).
The error texts are the Bot API's own, so the adapter can match on them.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from typing import TYPE_CHECKING, Any

import aiohttp
from aiohttp import web

if TYPE_CHECKING:
    from telegram import Bot
    from telegram.ext import ApplicationBuilder
from typing import TYPE_CHECKING

from tests.e2e.fakes.telegram.bot_api import BotApi
from tests.e2e.fakes.telegram.simulated_users import SimulatedUsers

if TYPE_CHECKING:
    from tests.e2e.fakes.telegram.ptb import LogErrorGuard


class FakeTelegram(BotApi, SimulatedUsers):
    """The fake Bot API server: state, HTTP endpoints and the control API for tests.

    The bot is one account (``bot_user``) whose id is the token's prefix. ``privacy_mode``
    mirrors BotFather's setting: in groups where the bot is not an admin, it receives only
    commands (``/cmd`` or ``/cmd@<bot>``) and replies to its own messages.
    """

    async def __aenter__(self) -> FakeTelegram:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    async def start(self, port: int = 0) -> None:
        """Listen on 127.0.0.1 on `port`, or a free one (``self.port``)."""
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/bot{token}/{method}", self._handle)
        app.router.add_get("/file/bot{token}/{path:.+}", self._handle_file)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        await self._listen(port)
        self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10))

    async def _listen(self, port: int) -> None:
        assert self._runner is not None
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # the same port again
        sock.bind(("127.0.0.1", port))
        self.port = sock.getsockname()[1]
        self._site = web.SockSite(self._runner, sock)
        await self._site.start()

    async def stop(self) -> None:
        """Release long polls and held requests at once, stop webhook delivery, close
        the server."""
        self._closing = True
        for hold in list(self._holds):
            hold.release()
        self._notify()
        if self._webhook_task is not None:
            self._webhook_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._webhook_task
        if self._session is not None:
            await self._session.close()
        if self._runner is not None:
            await self._runner.cleanup()

    def application_builder(self) -> ApplicationBuilder[Any, Any, Any, Any, Any, Any]:
        """A PTB ``ApplicationBuilder`` already pointed at this fake."""
        from telegram.ext import ApplicationBuilder

        return (
            ApplicationBuilder()
            .token(self.token)
            .base_url(self.base_url)
            .base_file_url(self.base_file_url)
        )

    def make_bot(self, token: str | None = None) -> Bot:
        """A bare PTB ``Bot`` for this fake (e.g. a second, competing instance)."""
        from telegram import Bot

        return Bot(token or self.token, base_url=self.base_url, base_file_url=self.base_file_url)

    def attach(self, guard: LogErrorGuard) -> None:
        """Make every ``wait_*`` fail fast when ``guard`` sees an ERROR log record."""
        loop = asyncio.get_running_loop()
        self._guards.append(guard)
        # Log records may come from any thread; hop onto the loop before waking waiters.
        guard.add_listener(lambda: loop.call_soon_threadsafe(self._notify))

    async def go_offline(self) -> None:
        """Telegram out of reach: new connections are refused and open ones (kept
        alive by the bot's HTTP client, a long poll waiting) are cut, and no webhook
        is delivered.  Users go on pressing and typing meanwhile: their updates wait
        here, as at Telegram."""
        if self._site is None or self._runner is None:
            raise RuntimeError("the fake is not running")
        await self._site.stop()
        self._site = None
        server = self._runner.server
        for handler in server.connections if server is not None else []:
            if handler.transport is not None:
                handler.transport.abort()
        self._notify()

    async def come_back(self) -> None:
        """Reachable again, on the same port."""
        if self._site is not None:
            return
        await self._listen(self.port)
        self._notify()
