"""A faithful fake of Discord — REST API and gateway websocket — for end-to-end tests.

Why this exists: discord.py has no test mode, and dpytest knows nothing about
interactions, application commands or components. So the adapter is tested by pointing
the *real* discord.py library at this local server, which speaks Discord's HTTP and
gateway protocols closely enough that discord.py cannot tell the difference, and which
enforces the platform rules that shape the bot's design (see /work/shared/PLATFORMS.md):

* the first response to an interaction within 3 s (later: 404 / 10062), the interaction
  token valid for 15 min (later: 401 / 50027), a second acknowledgement 400 / 40060;
* DMs to a user who closed them (or shares no guild with the bot): 403 / 50007;
* ``custom_id`` of at most 100 characters, at most 5 action rows of at most 5 buttons,
  unique custom ids (400 / 50035 Invalid Form Body);
* edits of messages older than an hour are limited (400 / 30046);
* ephemeral messages are visible only to the interacting user and reachable only
  through the interaction's webhook token (channel routes answer 404 / 10008);
* files (multipart ``payload_json`` plus ``files[n]``) on messages, interaction
  responses, followups and edits, whose ``attachments`` array says which stay; more
  than the ``attachment_size_limit`` in one request is 413 / 40005;
* rate limits: sane ``X-RateLimit-*`` headers on every answer, and
  :meth:`FakeDiscord.rate_limit` makes the next K requests to a route answer 429;
* outages and lost access: :meth:`FakeDiscord.server_error` (5xx, optionally after the
  request took effect), :meth:`FakeDiscord.slow` (taken at once, answered late),
  :meth:`FakeDiscord.deny_bot` (a channel overwrite: 50001 /
  50013, and the interactions' ``app_permissions`` say so; ``allow_bot`` lifts it),
  :meth:`FakeDiscord.delete_channel` (10003 and CHANNEL_DELETE),
  :meth:`FakeDiscord.remove_bot` and :meth:`FakeDiscord.guild_outage` (GUILD_DELETE
  without / with ``unavailable``); a message sent with ``enforce_nonce`` twice is
  created once;
* the gateway going away: :meth:`FakeDiscord.drop_connections` (a close code),
  :meth:`FakeDiscord.kill_connections` (no close frame: 1006),
  :meth:`FakeDiscord.request_reconnect` (op 7), :meth:`FakeDiscord.invalidate_sessions`
  (op 9).

Simulated users drive the bot through :meth:`FakeDiscord.slash`,
:meth:`FakeDiscord.click` and :meth:`FakeDiscord.select`; tests read the resulting state
(channel messages, DMs, ephemeral replies, buttons) and wait for changes with
:meth:`FakeDiscord.wait_for`, which wakes on every state change instead of polling.

Typical use::

    async with FakeDiscord() as fake:
        guild = fake.add_guild("Wirtshaus")
        table = fake.add_text_channel(guild, "schnapsen")
        alice = fake.add_member(guild, fake.add_user("alice")).user
        with fake.patched(), ErrorLogGuard():
            async with running_client(bot, fake):
                message = await (await fake.slash(alice, table, "schnapsen new"))
                press = await fake.click(alice, message, "Join")
                await press.wait_acknowledged()
"""

from __future__ import annotations

import asyncio
import contextlib

from aiohttp import web

from tests.e2e.fakes.discord.discordpy import patch_discord_endpoints
from tests.e2e.fakes.discord.rest import RestServer
from tests.e2e.fakes.discord.simulated_users import SimulatedUsers


class FakeDiscord(RestServer, SimulatedUsers):
    """The fake Discord server plus the control API the tests use.

    Start it with ``async with FakeDiscord() as fake`` (or :meth:`start`/:meth:`stop`)
    and point discord.py at it with :meth:`patched`.
    """

    async def start(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/api/v{version:[0-9]+}/{tail:.*}", self._serve_rest)
        app.router.add_get("/", self._serve_gateway)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, 0)
        await site.start()
        address = self._runner.addresses[0]
        self.port = int(address[1])

    async def stop(self) -> None:
        for hold in list(self._holds):
            hold.release()
        for timer in self._timers:
            timer.cancel()
        for connection in list(self._connections):
            connection.closed_by_fake = True
            with contextlib.suppress(Exception):
                await asyncio.wait_for(connection.ws.close(code=1001), 1.0)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeDiscord:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    def patched(self) -> contextlib.AbstractContextManager[None]:
        """Point discord.py (process-wide) at this server for the ``with`` block."""
        return patch_discord_endpoints(self.api_base, self.gateway_url)

    def assert_healthy(self) -> None:
        """Fail if the fake itself broke or the bot used a route the fake lacks —
        either would otherwise show up only as a confusing timeout."""
        problems = [f"fake internal error: {error!r}" for error in self.internal_errors]
        problems += [f"unhandled route: {r.method} {r.path}" for r in self.unhandled]
        if problems:
            raise AssertionError("\n".join(problems))
