"""The adapter's life: its start-up (the command menu, polling or the webhook), its
serving until told to stop, and a clean stop that lets queued work land.

`Serving` is the part of `TelegramAdapter` that runs it; the state it runs is set up
by `TelegramAdapter.__init__`.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
from collections.abc import Callable
from typing import Any, Protocol
from urllib.parse import urlsplit

from aiohttp import web
from telegram import BotCommand, Update
from telegram.error import BadRequest, InvalidToken, NetworkError, TelegramError

from bot.ports import PlatformUnreachable, TokenRejected

from .refs import PLATFORM
from .shape import AdapterShape
from .texts import COMMANDS

log = logging.getLogger("adapters.telegram.adapter")


def _calm_last_poll(record: logging.LogRecord) -> bool:
    """PTB's stop asks Telegram once more which updates were read; out of reach (an
    outage, or another process polling with the token) it logs an ERROR with a long
    traceback for what is no error of a clean stop: the updates come again at the
    next start, where each is handled once (`mark_handled`).  One warning line says
    so instead."""
    if record.getMessage().startswith("Error while calling `get_updates` one more time"):
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        record.msg = (
            "Telegram was out of reach at the stop: the last updates may come again at "
            "the next start (each is handled once)"
        )
        record.args, record.exc_info, record.exc_text = (), None, None
    return True


#: On the logger itself, so every handler (and a test's capture) sees the calm line.
_UPDATER_LOG = logging.getLogger("telegram.ext.Updater")
if _calm_last_poll not in _UPDATER_LOG.filters:
    _UPDATER_LOG.addFilter(_calm_last_poll)

#: The updates the bot asks for: commands and service messages, button presses, and
#: changes of its own membership (removed from a group, blocked by a user).
UPDATES = ["message", "callback_query", "my_chat_member"]


class Stop(Protocol):
    async def wait(self) -> Any: ...


class Serving(AdapterShape):
    """`TelegramAdapter` started, served and stopped (see the module's docstring)."""

    async def run(self, stop: Stop, ready: Callable[[], None] | None = None) -> None:
        """Serve until `stop` is set; inside the caller's event loop.

        A wrong token is `TokenRejected`; no connection while starting (before the
        first poll or the webhook is set) is `PlatformUnreachable`, for the runner to
        try again.  Later outages are ridden out: polls are tried again (`PollRequest`)."""
        serving = False

        def started() -> None:
            nonlocal serving
            serving = True
            if ready is not None:
                ready()

        try:
            await self._serve(stop, started)
        except InvalidToken:  # its message holds the token: never passed on
            raise TokenRejected(
                "Telegram rejected TELEGRAM_TOKEN; copy the token again from @BotFather"
            ) from None
        except BadRequest as e:  # a NetworkError to PTB, but no outage: a setting
            if serving:
                raise
            setting = "TELEGRAM_WEBHOOK_URL / TELEGRAM_WEBHOOK_SECRET" if self.webhook_url else None
            raise TokenRejected(
                f"Telegram refused the start-up ({e.message})"
                + (f"; check {setting}" if setting else "")
            ) from None
        except NetworkError as e:
            if serving:
                raise
            raise PlatformUnreachable(f"{type(e).__name__}: {e}") from None

    async def _serve(self, stop: Stop, ready: Callable[[], None]) -> None:
        async with self.app:
            await self.updates.recall(self.app.bot.id)
            await self._restore()
            await self.service.listen(self, PLATFORM)
            try:
                await self._set_commands()
                await self.app.start()
                if self.webhook_url:
                    await self._start_webhook()
                    self._prober = self._spawn(self.reach.watch(self.outbox))
                else:
                    assert self.app.updater is not None
                    await self.app.updater.start_polling(
                        poll_interval=0,
                        timeout=int(self.poll_timeout),
                        allowed_updates=UPDATES,
                        error_callback=self.reach.poll_failed,
                    )
                log.info("telegram adapter running as @%s", self.app.bot.username)
                ready()
                await stop.wait()
            finally:
                if self._prober is not None:
                    self._prober.cancel()
                    self._prober = None
                for greeting in self._greetings:  # not worth holding up the shutdown
                    greeting.cancel()
                # no new updates; let presses in progress finish; then flush the output
                if self.app.updater is not None and self.app.updater.running:
                    if self._polls is not None:
                        self._polls.stopping()
                    await self.app.updater.stop()
                if self._webhook is not None:
                    await self._webhook.cleanup()
                    self._webhook = None
                if self.app.running:
                    await self.app.stop()
                with contextlib.suppress(ValueError):
                    self.service.listeners.remove(self)
                # a chat being moved, the tables of a lost group closing: let them land
                moving = [task for _, task in self._moves.values() if task is not None]
                moving += self._background
                if moving:
                    await asyncio.wait(moving, timeout=5.0)
                if not await self.outbox.drain(5.0):
                    log.warning("telegram outbox not empty at shutdown")
                await self.outbox.close()

    async def _set_commands(self) -> None:
        for lang, commands in COMMANDS.items():
            try:
                await self.app.bot.set_my_commands(
                    [BotCommand(c, d) for c, d in commands],
                    language_code=None if lang == "en" else lang,
                )
            except TelegramError as e:
                log.warning("could not set the command menu (%s): %s", lang, e)

    async def _start_webhook(self) -> None:
        """Receive updates over HTTP(S): check the secret, dedupe, queue for PTB."""
        assert self.webhook_url is not None
        path = urlsplit(self.webhook_url).path or "/"

        async def receive(request: web.Request) -> web.Response:
            got = request.headers.get("X-Telegram-Bot-Api-Secret-Token", "")
            if not hmac.compare_digest(got.encode(), (self.webhook_secret or "").encode()):
                return web.Response(status=403)
            try:
                data = await request.json()
                update = Update.de_json(data, self.app.bot)
            except Exception:
                return web.Response(status=400)
            await self.app.update_queue.put(update)  # duplicates stop at `_dedupe`
            return web.Response()

        server = web.Application()
        server.router.add_post(path, receive)
        runner = web.AppRunner(server, access_log=None)
        await runner.setup()
        await web.TCPSite(runner, self.webhook_listen, self.webhook_port).start()
        self._webhook = runner
        await self.app.bot.set_webhook(
            self.webhook_url,
            secret_token=self.webhook_secret,
            allowed_updates=UPDATES,
        )


def _derived_secret(token: str) -> str:
    """The webhook's secret when none is configured: nobody without the token can
    compute it, and every start of the same bot registers the same one."""
    return hmac.new(token.encode(), b"schnapsen webhook secret", "sha256").hexdigest()
