"""The REST server: the route table, request recording, authentication, rate-limit
buckets and injected failures, and body decoding (JSON or multipart).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from typing import TYPE_CHECKING, Any

from aiohttp import web

from tests.e2e.fakes.discord.calls import RecordedRequest, _Call, _Route
from tests.e2e.fakes.discord.errors import ApiError, _Abandoned, refusal
from tests.e2e.fakes.discord.failures import RESET, FailureInjection, _Bucket, _reset, _server_error
from tests.e2e.fakes.discord.protocol import _MAJOR_PARAMETERS, API_VERSION
from tests.e2e.fakes.discord.rest_channels import ChannelRoutes
from tests.e2e.fakes.discord.rest_commands import CommandRoutes
from tests.e2e.fakes.discord.rest_interactions import InteractionRoutes
from tests.e2e.fakes.discord.wire import _json_response

if TYPE_CHECKING:
    from tests.e2e.fakes.discord.calls import _Handler

_log = logging.getLogger(__name__)


class RestServer(ChannelRoutes, CommandRoutes, InteractionRoutes, FailureInjection):
    """Serves the REST API by dispatching each request to its route's handler."""

    def _register_routes(self) -> None:
        def add(
            method: str,
            template: str,
            handler: _Handler,
            *,
            auth: bool = True,
            bucketed: bool = True,
        ) -> None:
            # Templates hold only letters, "/", "@" and {placeholders}: no escaping needed.
            regex = re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", template)
            names = re.findall(r"\{(\w+)\}", template)
            # Discord buckets per route and "major parameter", as discord.py assumes.
            major = tuple(n for n in names if n in _MAJOR_PARAMETERS)
            self._routes.append(
                _Route(method, template, re.compile(f"^{regex}$"), handler, auth, bucketed, major)
            )

        add("GET", "/gateway", self._get_gateway, auth=False)
        add("GET", "/gateway/bot", self._get_gateway_bot)
        add("GET", "/users/@me", self._get_me)
        add("POST", "/users/@me/channels", self._create_dm)
        add("GET", "/users/{user_id}", self._get_user)
        add("GET", "/oauth2/applications/@me", self._get_application)
        add("GET", "/applications/@me", self._get_application)
        add("GET", "/applications/{application_id}/commands", self._get_commands)
        add("PUT", "/applications/{application_id}/commands", self._put_commands)
        add("POST", "/applications/{application_id}/commands", self._post_command)
        add("DELETE", "/applications/{application_id}/commands/{command_id}", self._delete_command)
        add("GET", "/applications/{application_id}/guilds/{guild_id}/commands", self._get_commands)
        add("PUT", "/applications/{application_id}/guilds/{guild_id}/commands", self._put_commands)
        add("POST", "/applications/{application_id}/guilds/{guild_id}/commands", self._post_command)
        add(
            "DELETE",
            "/applications/{application_id}/guilds/{guild_id}/commands/{command_id}",
            self._delete_command,
        )
        add("GET", "/guilds/{guild_id}", self._get_guild)
        add("GET", "/guilds/{guild_id}/channels", self._get_guild_channels)
        add("GET", "/guilds/{guild_id}/roles", self._get_guild_roles)
        add("GET", "/guilds/{guild_id}/members/{user_id}", self._get_member)
        add("GET", "/channels/{channel_id}", self._get_channel)
        add("GET", "/channels/{channel_id}/messages", self._get_channel_messages)
        add("POST", "/channels/{channel_id}/messages", self._post_channel_message)
        add("GET", "/channels/{channel_id}/messages/{message_id}", self._get_channel_message)
        add("PATCH", "/channels/{channel_id}/messages/{message_id}", self._patch_channel_message)
        add("DELETE", "/channels/{channel_id}/messages/{message_id}", self._delete_channel_message)
        add("POST", "/channels/{channel_id}/typing", self._typing)
        add(
            "POST",
            "/interactions/{interaction_id}/{token}/callback",
            self._interaction_callback,
            auth=False,
            bucketed=False,
        )
        add("POST", "/webhooks/{webhook_id}/{token}", self._execute_webhook, auth=False)
        add(
            "GET",
            "/webhooks/{webhook_id}/{token}/messages/{message_id}",
            self._get_webhook_message,
            auth=False,
        )
        add(
            "PATCH",
            "/webhooks/{webhook_id}/{token}/messages/{message_id}",
            self._patch_webhook_message,
            auth=False,
        )
        add(
            "DELETE",
            "/webhooks/{webhook_id}/{token}/messages/{message_id}",
            self._delete_webhook_message,
            auth=False,
        )

    def _route_for(self, method: str, record: RecordedRequest) -> tuple[_Route, dict[str, str]]:
        """The route for a request; unknown ones are recorded (see assert_healthy)."""
        other_method = False
        for route in self._routes:
            found = route.pattern.match(record.path)
            if found is None:
                continue
            if route.method == method:
                return route, found.groupdict()
            other_method = True
        self.unhandled.append(record)
        if other_method:
            raise ApiError(405, 0, "405: Method Not Allowed")
        raise ApiError(404, 0, "404: Not Found")

    async def _serve_rest(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["tail"]
        method = request.method
        record = RecordedRequest(
            method=method,
            path=path,
            route=None,
            query=dict(request.query),
            body=None,
            at=self._now(),
        )
        self.requests.append(record)
        try:
            response = await self._handle_rest(request, record)
        except ApiError as error:
            response = _json_response(error.status, error.body())
            record.code = error.code
        except _Abandoned:  # nobody is listening for an answer
            record.status = 0
            return web.Response(status=499)
        except Exception as error:  # a bug in the fake: fail fast and visibly
            self.internal_errors.append(error)
            _log.exception("fake Discord REST handler failed for %s %s", method, path)
            # Not a 5xx: discord.py retries those with multi-second sleeps.
            response = _json_response(400, {"message": f"fake Discord bug: {error!r}", "code": 0})
            record.code = 0
        record.status = response.status
        self._changed()
        return response

    async def _handle_rest(self, request: web.Request, record: RecordedRequest) -> web.Response:
        if request.match_info.get("version") != str(API_VERSION):
            raise ApiError(400, 50041, "Invalid API version provided.")
        body, files = await self._read_body(request)
        record.body = body
        if sum(len(content) for _, _, content, _ in files) > self.limits.max_upload:
            raise ApiError(413, 40005, "Request entity too large")
        route, params = self._route_for(request.method, record)
        record.route = route.template
        if route.auth and request.headers.get("Authorization") != f"Bot {self.token}":
            raise ApiError(401, 0, "401: Unauthorized")

        hold = next(
            (
                h
                for h in self._holds
                if h.method == request.method and h.route in (route.template, record.path)
            ),
            None,
        )
        if hold is not None:
            hold.waiting += 1
            hold.held += 1
            self._changed()
            try:
                await hold.gate.wait()
            finally:
                hold.waiting -= 1
            if hold.dropped:
                if request.transport is not None:
                    request.transport.abort()  # never arrived: no answer either
                raise _Abandoned
        injected = self._take_injected(request.method, route.template, record.path)
        if injected is not None:
            return self._too_many_requests(route, params, injected.retry_after, injected.is_global)
        failure = self._take_failure(request.method, route.template, record.path)
        if failure is not None and not failure.processed:
            if failure.code is not None:
                record.refused_on_purpose = True
                raise refusal(failure.code)
            if failure.status == RESET:
                return _reset(request)
            return _server_error(failure.status)

        headers: dict[str, str] = {}
        if route.bucketed:
            bucket_key = (route.template, tuple(params[name] for name in route.major))
            now = self._now()
            bucket = self._buckets.get(bucket_key)
            if bucket is None or now - bucket.started >= self.limits.bucket_window:
                bucket = self._buckets[bucket_key] = _Bucket(started=now)
            bucket.count += 1
            reset_after = max(bucket.started + self.limits.bucket_window - now, 0.001)
            if bucket.count > self.limits.bucket_size:
                return self._too_many_requests(route, params, reset_after, False)
            headers = self._ratelimit_headers(
                route, max(self.limits.bucket_size - bucket.count, 0), reset_after
            )

        call = _Call(params=params, query=request.query, body=body, files=files, request=request)
        response: web.Response = await route.handler(call)
        if failure is not None:  # it took effect; only the answer is lost
            return _server_error(failure.status)
        slowness = self._take_slowness(request.method, route.template, record.path)
        if slowness is not None:  # it took effect; its answer is on its way
            await asyncio.sleep(slowness.seconds)
        response.headers.update(headers)
        return response

    async def _read_body(
        self, request: web.Request
    ) -> tuple[Any, list[tuple[str, str, bytes, str]]]:
        files: list[tuple[str, str, bytes, str]] = []
        if request.content_type.startswith("multipart/"):
            form = await request.post()
            body: Any = None
            for name, value in form.items():
                if isinstance(value, web.FileField):
                    files.append((name, value.filename, value.file.read(), value.content_type))
                elif name == "payload_json":
                    body = json.loads(value if isinstance(value, str) else value.decode())
            rate = self.limits.upload_rate
            if rate and files:
                await asyncio.sleep(sum(len(f[2]) for f in files) / rate)
                transport = request.transport
                if transport is None or transport.is_closing():
                    # the bot gave up before its upload was through: Discord never got
                    # the whole request, so nothing of it happens
                    raise _Abandoned
            return body, files
        raw = await request.read()
        if not raw:
            return None, files
        try:
            return json.loads(raw), files
        except ValueError:
            raise ApiError(400, 50109, "The request body contains invalid JSON.") from None
