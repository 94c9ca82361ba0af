"""The fake's state and the few helpers every part of it needs (the clock, change
notification and waiting for it, background announcements); the concerns are mixins
over this base.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from aiohttp import web

from tests.e2e.fakes.discord.entities import FakeUser
from tests.e2e.fakes.discord.protocol import API_VERSION, PRIVILEGED_INTENTS, Limits
from tests.e2e.fakes.discord.wire import _Snowflakes

if TYPE_CHECKING:
    from tests.e2e.fakes.discord.calls import RecordedRequest, _Route
    from tests.e2e.fakes.discord.entities import FakeChannel, FakeGuild
    from tests.e2e.fakes.discord.failures import (
        Hold,
        InjectedFailure,
        _Bucket,
        _InjectedRateLimit,
        _InjectedSlowness,
    )
    from tests.e2e.fakes.discord.gateway import _GatewayConnection, _GatewaySession
    from tests.e2e.fakes.discord.interaction import FakeInteraction
    from tests.e2e.fakes.discord.messages import FakeMessage
    from tests.e2e.fakes.discord.protocol import Json


T = TypeVar("T")
#: Seconds between looks at a `wait_for` predicate the fake was not told changed: one
#: over the bot's own state (its guild cache, the core) changes without a request,
#: and such a wait slept to its deadline, passing on its last look only.
RECHECK = 0.25


class FakeDiscordState:
    """Everything the fake knows, shared by the mixins that make up :class:`FakeDiscord`."""

    def __init__(
        self,
        *,
        token: str = "fake.bot.token",
        bot_name: str = "Schnapsen",
        limits: Limits | None = None,
        heartbeat_interval_ms: int = 41_250,
        recommended_shards: int = 1,
        allowed_privileged_intents: int = int(PRIVILEGED_INTENTS),
        host: str = "127.0.0.1",
    ) -> None:
        self.token = token
        self.limits = limits or Limits()
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.recommended_shards = recommended_shards
        self.allowed_privileged_intents = allowed_privileged_intents
        self.host = host
        self.port = 0

        self._snowflake = _Snowflakes()
        self.users: dict[int, FakeUser] = {}
        self.guilds: dict[int, FakeGuild] = {}
        self.channels: dict[int, FakeChannel] = {}
        self.messages: dict[int, FakeMessage] = {}
        self.interactions: list[FakeInteraction] = []
        self.requests: list[RecordedRequest] = []
        self.unhandled: list[RecordedRequest] = []
        self.internal_errors: list[BaseException] = []

        self.bot_user = self.add_user(bot_name, bot=True)
        self.application_id = self.bot_user.id
        self.application_owner = self.add_user(f"{bot_name} developer")
        self.application_flags = (1 << 13) | (1 << 15) | (1 << 19)

        self._global_commands: dict[str, Json] = {}
        self._guild_commands: dict[int, dict[str, Json]] = {}
        self._dm_channels: dict[int, FakeChannel] = {}
        self._interactions: dict[int, FakeInteraction] = {}
        self._interactions_by_token: dict[str, FakeInteraction] = {}
        self._sessions: dict[str, _GatewaySession] = {}
        self._connections: list[_GatewayConnection] = []
        self._stalled: dict[int, list[tuple[_GatewayConnection, Json]]] = {}
        self._buckets: dict[tuple[str, tuple[str, ...]], _Bucket] = {}
        self._injected: list[_InjectedRateLimit] = []
        self._failures: list[InjectedFailure] = []
        self._slow: list[_InjectedSlowness] = []
        self._holds: list[Hold] = []
        self._old_edits: dict[int, list[float]] = {}
        self._waiters: list[asyncio.Future[None]] = []
        self._timers: list[asyncio.TimerHandle] = []
        self._tasks: set[asyncio.Task[None]] = set()
        self._routes: list[_Route] = []
        self._runner: web.AppRunner | None = None
        self._register_routes()

    @property
    def api_base(self) -> str:
        return f"http://{self.host}:{self.port}/api/v{API_VERSION}"

    @property
    def gateway_url(self) -> str:
        return f"ws://{self.host}:{self.port}/"

    def add_user(
        self,
        username: str,
        *,
        global_name: str | None = None,
        bot: bool = False,
        dms_closed: bool = False,
        locale: str = "en-US",
    ) -> FakeUser:
        user = FakeUser(
            id=self._snowflake(),
            username=username,
            global_name=global_name,
            bot=bot,
            dms_closed=dms_closed,
            locale=locale,
        )
        self.users[user.id] = user
        return user

    async def wait_for(
        self,
        predicate: Callable[[], T | None],
        *,
        timeout: float = 5.0,
        description: str | None = None,
    ) -> T:
        """Wait until ``predicate()`` is truthy and return its value.

        Re-evaluated on every state change of the fake (requests, gateway events,
        deadlines passing), and every `RECHECK` seconds for a change outside it. This
        is a condition variable; it is not an :class:`asyncio.Condition` because
        changes are announced from synchronous code (timers, handlers mid-way) where a
        Condition's lock cannot be taken.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            result = predicate()
            if result:
                return result
            remaining = deadline - loop.time()
            if remaining <= 0:
                what = description or getattr(predicate, "__name__", "condition")
                raise TimeoutError(f"fake Discord: {what} not reached within {timeout:.1f}s")
            waiter: asyncio.Future[None] = loop.create_future()
            self._waiters.append(waiter)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(waiter, min(remaining, RECHECK))

    def _now(self) -> float:
        return time.monotonic()

    def _changed(self) -> None:
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    def _background(self, coroutine: Any) -> None:
        """Run a gateway announcement from synchronous world-building code."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            coroutine.close()
            return
        if not self._sessions:
            coroutine.close()
            return
        task = loop.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _register_routes(self) -> None:
        """The REST routes are declared by :class:`RestServer`, which sees every handler."""
        raise NotImplementedError
