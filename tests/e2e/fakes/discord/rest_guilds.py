"""REST routes for the gateway address, users, the application and guilds."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aiohttp import web

from tests.e2e.fakes.discord.errors import ApiError
from tests.e2e.fakes.discord.gateway import Gateway
from tests.e2e.fakes.discord.wire import _json_response, _truthy

if TYPE_CHECKING:
    from tests.e2e.fakes.discord.calls import _Call
    from tests.e2e.fakes.discord.entities import FakeGuild


class GuildRoutes(Gateway):
    """The gateway, user, application and guild routes."""

    async def _get_gateway(self, call: _Call) -> web.Response:
        return _json_response(200, {"url": self.gateway_url.rstrip("/")})

    async def _get_gateway_bot(self, call: _Call) -> web.Response:
        return _json_response(
            200,
            {
                "url": self.gateway_url.rstrip("/"),
                "shards": self.recommended_shards,
                "session_start_limit": {
                    "total": 1000,
                    "remaining": 999,
                    "reset_after": 86_400_000,
                    "max_concurrency": 1,
                },
            },
        )

    async def _get_me(self, call: _Call) -> web.Response:
        return _json_response(200, self._bot_user_payload())

    async def _get_user(self, call: _Call) -> web.Response:
        user = self.users.get(int(call.params["user_id"]))
        if user is None:
            raise ApiError(404, 10013, "Unknown User")
        return _json_response(200, user.payload())

    async def _get_application(self, call: _Call) -> web.Response:
        return _json_response(
            200,
            {
                "id": str(self.application_id),
                "name": self.bot_user.username,
                "icon": None,
                "description": "",
                "summary": "",
                "type": None,
                "rpc_origins": [],
                "bot_public": True,
                "bot_require_code_grant": False,
                "bot": self.bot_user.payload(),
                "owner": self.application_owner.payload(),
                "team": None,
                "verify_key": "0" * 64,
                "flags": self.application_flags,
                "tags": [],
                "redirect_uris": [],
                "interactions_endpoint_url": None,
                "approximate_guild_count": len(self.guilds),
                "integration_types_config": {"0": {}},
            },
        )

    def _guild(self, call: _Call) -> FakeGuild:
        guild = self.guilds.get(int(call.params["guild_id"]))
        if guild is None:
            raise ApiError(404, 10004, "Unknown Guild")
        return guild

    async def _get_guild(self, call: _Call) -> web.Response:
        guild = self._guild(call)
        data = guild.payload()
        if _truthy(call.query.get("with_counts")):
            data["approximate_member_count"] = len(guild.members)
            data["approximate_presence_count"] = 0
        return _json_response(200, data)

    async def _get_guild_channels(self, call: _Call) -> web.Response:
        return _json_response(200, [c.payload() for c in self._guild(call).channels])

    async def _get_guild_roles(self, call: _Call) -> web.Response:
        return _json_response(200, [r.payload() for r in self._guild(call).roles])

    async def _get_member(self, call: _Call) -> web.Response:
        member = self._guild(call).members.get(int(call.params["user_id"]))
        if member is None:
            raise ApiError(404, 10007, "Unknown Member")
        return _json_response(200, member.payload())
