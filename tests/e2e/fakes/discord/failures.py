"""Rate limits, injected 429s, 5xx answers and refusals, cut connections and held
requests: the ways a test makes Discord misbehave on purpose.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from aiohttp import web

from tests.e2e.fakes.discord.errors import REFUSALS
from tests.e2e.fakes.discord.state import FakeDiscordState
from tests.e2e.fakes.discord.wire import _json_response

if TYPE_CHECKING:
    from tests.e2e.fakes.discord.calls import _Route
    from tests.e2e.fakes.discord.protocol import Json


@dataclass
class _InjectedRateLimit:
    method: str
    route: str
    remaining: int
    retry_after: float
    is_global: bool


@dataclass
class InjectedFailure:
    """A Discord outage on one route (`FakeDiscord.server_error`), or Discord refusing
    its requests (`FakeDiscord.refuse`)."""

    method: str
    route: str
    remaining: int
    status: int
    processed: bool
    #: A refusal's JSON error code (its status and message are Discord's for it).
    code: int | None = None

    def end(self) -> None:
        """The outage is over: the requests it has not failed yet pass.  For an outage
        that lasts until the bot gave up, however many tries that took."""
        self.remaining = 0


@dataclass
class _InjectedSlowness:
    method: str
    route: str
    remaining: int
    seconds: float


_Injected = TypeVar("_Injected", _InjectedRateLimit, InjectedFailure, _InjectedSlowness)


def _take(queue: list[_Injected], method: str, template: str, path: str) -> _Injected | None:
    """The first injected answer still due for this request (and count it used)."""
    for injected in queue:
        if injected.method == method and injected.route in (template, path) and injected.remaining:
            injected.remaining -= 1
            return injected
    return None


#: `FakeDiscord.server_error`'s status for a connection cut before any answer.
RESET = 0


def _reset(request: web.Request) -> web.Response:
    """Cut the connection without an answer (a reset on the way)."""
    transport = request.transport
    if transport is not None:
        transport.abort()
    return web.Response(status=204)  # never arrives: the connection is gone


def _server_error(status: int) -> web.Response:
    reason = {500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable"}
    message = f"{status}: {reason.get(status, 'Server Error')}"
    return _json_response(status, {"message": message, "code": 0})


@dataclass(eq=False)
class Hold:
    """REST requests that wait, neither carried out nor answered, until `release`:
    the bot's message is on its way while people go on pressing (`FakeDiscord.hold`)."""

    fake: FakeDiscordState = field(repr=False)
    method: str
    route: str
    waiting: int = 0  # requests held right now
    held: int = 0  # requests held so far
    gate: asyncio.Event = field(default_factory=asyncio.Event, repr=False)
    dropped: bool = False  # the held requests never reached Discord (`drop`)

    def release(self) -> None:
        """Let the held requests (and any later ones) through."""
        if self in self.fake._holds:
            self.fake._holds.remove(self)
        self.gate.set()
        self.fake._changed()

    def drop(self) -> None:
        """The held requests never reach Discord: none is carried out, their
        connections are cut (later requests pass).  A bot killed while its message
        was on its way: the edit or post it had begun never happens."""
        self.dropped = True
        self.release()

    async def wait_held(self, count: int = 1, timeout: float = 5.0) -> None:
        await self.fake.wait_for(
            lambda: self.held >= count,
            timeout=timeout,
            description=f"{count} held {self.method} {self.route}",
        )


@dataclass
class _Bucket:
    started: float
    count: int = 0


class FailureInjection(FakeDiscordState):
    """Rate limits and injected failures: the control calls and their REST bookkeeping."""

    def rate_limit(
        self,
        method: str,
        route: str,
        *,
        times: int = 1,
        retry_after: float = 0.05,
        is_global: bool = False,
    ) -> None:
        """Answer the next ``times`` requests to ``route`` with 429.

        ``route`` is a template as discord.py spells it
        (``"/channels/{channel_id}/messages"``) or a concrete path.
        """
        self._injected.append(
            _InjectedRateLimit(method.upper(), route, times, retry_after, is_global)
        )

    def server_error(
        self, method: str, route: str, *, status: int = 503, times: int = 1, processed: bool = False
    ) -> InjectedFailure:
        """Answer the next ``times`` requests to ``route`` with ``status`` (a 5xx), as a
        Discord outage does.  ``processed``: the request takes effect all the same and
        only the answer is lost (a gateway timeout behind which the message was sent).
        discord.py sleeps before retrying a 500, 502 or 504 itself and raises a 503 at
        once, except on the webhook routes that answer interactions (the callback,
        followups, edits of the original): there it sleeps 1 s, then 3 s, and tries any
        5xx again.
        ``status=RESET``: no answer at all, the connection is cut (the bot's aiohttp
        raises a connection error, which discord.py does not turn into its own)."""
        failure = InjectedFailure(method.upper(), route, times, status, processed)
        self._failures.append(failure)
        return failure

    def refuse(self, method: str, route: str, code: int, *, times: int = 1) -> InjectedFailure:
        """Answer the next ``times`` requests to ``route`` with Discord's error of that
        JSON ``code`` (one of `errors.REFUSALS`), none carried out: ``refuse("PATCH",
        f"/channels/{cid}/messages/{mid}", 10008)`` answers the next edit of that
        message 404 ``{"message": "Unknown Message", "code": 10008}``.  For refusals
        the fake's world does not bring about by itself (a 400 for one message, a 403
        on a DM that is not about closed DMs); ``end()`` stops one given a large
        ``times`` ("every post to that channel")."""
        status, _ = REFUSALS[code]
        failure = InjectedFailure(method.upper(), route, times, status, False, code)
        self._failures.append(failure)
        return failure

    def slow(self, method: str, route: str, *, seconds: float, times: int = 1) -> None:
        """Answer the next ``times`` requests to ``route`` that take effect ``seconds``
        late: Discord carries each out at once, its answer is slow on the way back (a
        bot that stops waiting for it has been answered all the same)."""
        self._slow.append(_InjectedSlowness(method.upper(), route, times, seconds))

    def hold(self, method: str, route: str) -> Hold:
        """Hold the bot's next requests to ``route`` (a template as discord.py spells
        it, or a concrete path) before they are carried out, until ``release()``:
        a message still on its way while users press on, as on a slow network."""
        hold = Hold(self, method.upper(), route)
        self._holds.append(hold)
        return hold

    def _ratelimit_headers(
        self, route: _Route, remaining: int, reset_after: float
    ) -> dict[str, str]:
        return {
            "X-RateLimit-Limit": str(self.limits.bucket_size),
            "X-RateLimit-Remaining": str(remaining),
            "X-RateLimit-Reset": f"{time.time() + reset_after:.3f}",
            "X-RateLimit-Reset-After": f"{reset_after:.3f}",
            "X-RateLimit-Bucket": hashlib.sha1(route.template.encode()).hexdigest()[:32],
        }

    def _too_many_requests(
        self, route: _Route, params: dict[str, str], retry_after: float, is_global: bool
    ) -> web.Response:
        """A 429 as Discord sends it. The ``Via`` header matters: discord.py treats a
        429 without it as a Cloudflare ban and raises instead of retrying."""
        headers = self._ratelimit_headers(route, 0, retry_after)
        headers["Retry-After"] = str(math.ceil(retry_after))
        headers["X-RateLimit-Scope"] = "global" if is_global else "user"
        if is_global:
            headers["X-RateLimit-Global"] = "true"
        body: Json = {
            "message": "You are being rate limited.",
            "retry_after": retry_after,
            "global": is_global,
        }
        if is_global:
            body["code"] = 0
        return _json_response(429, body, headers)

    def _take_injected(self, method: str, template: str, path: str) -> _InjectedRateLimit | None:
        return _take(self._injected, method, template, path)

    def _take_failure(self, method: str, template: str, path: str) -> InjectedFailure | None:
        return _take(self._failures, method, template, path)

    def _take_slowness(self, method: str, template: str, path: str) -> _InjectedSlowness | None:
        return _take(self._slow, method, template, path)
