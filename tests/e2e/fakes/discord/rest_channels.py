"""REST routes for channels and their messages (send, read, edit, delete, typing,
opening a DM).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from aiohttp import web

from tests.e2e.fakes.discord.errors import (
    ApiError,
    _missing_access,
    _send_right,
    _unknown_channel,
    _unknown_message,
    refusal,
)
from tests.e2e.fakes.discord.message_store import MessageStore
from tests.e2e.fakes.discord.protocol import _MESSAGE_DEFAULT, _MESSAGE_REPLY, Permission
from tests.e2e.fakes.discord.wire import _json_response, _no_content
from tests.e2e.fakes.discord.world import World

if TYPE_CHECKING:
    from tests.e2e.fakes.discord.calls import _Call
    from tests.e2e.fakes.discord.entities import FakeChannel
    from tests.e2e.fakes.discord.messages import FakeMessage


class ChannelRoutes(World, MessageStore):
    """The channel and channel-message routes."""

    def _channel(self, call: _Call) -> FakeChannel:
        """The channel of a channel route, if the bot may see it."""
        channel = self.channels.get(int(call.params["channel_id"]))
        if channel is None:
            raise _unknown_channel()
        if not self._bot_member_has(channel, Permission.VIEW_CHANNEL):
            raise _missing_access()
        return channel

    def _channel_message(self, call: _Call) -> FakeMessage:
        """A message reachable through channel routes: ephemeral ones never are."""
        channel = self._channel(call)
        message = self.messages.get(int(call.params["message_id"]))
        if (
            message is None
            or message.channel is not channel
            or message.deleted
            or message.ephemeral
        ):
            raise _unknown_message()
        return message

    def _sent_with_nonce(self, channel: FakeChannel, body: Any) -> FakeMessage | None:
        """The message the bot already sent with this nonce, if the request asks
        Discord to enforce it (it does so for a few minutes)."""
        if not isinstance(body, dict) or not body.get("enforce_nonce"):
            return None
        nonce = body.get("nonce")
        if nonce is None:
            return None
        for message in reversed(self.messages.values()):
            if (
                message.channel is channel
                and message.author is self.bot_user
                and message.nonce == str(nonce)
                and time.time() - message.created_at < 300
            ):
                return message
        return None

    async def _post_channel_message(self, call: _Call) -> web.Response:
        channel = self._channel(call)
        if channel.is_dm:
            assert channel.recipient is not None
            if channel.recipient.dms_closed or not self.shares_guild_with_bot(channel.recipient):
                raise refusal(50007)
        elif not self._bot_member_has(channel, Permission.VIEW_CHANNEL | _send_right(channel)):
            raise refusal(50013)
        sent = self._sent_with_nonce(channel, call.body)
        if sent is not None:
            return _json_response(200, sent.payload())
        body = call.body if isinstance(call.body, dict) else {}
        message_type = _MESSAGE_REPLY if body.get("message_reference") else _MESSAGE_DEFAULT
        message = self._store_message(
            channel, self.bot_user, body, call.files, message_type=message_type
        )
        if body.get("nonce") is not None:
            message.nonce = str(body["nonce"])
        await self._announce_create(message)
        return _json_response(200, message.payload())

    async def _get_channel_messages(self, call: _Call) -> web.Response:
        channel = self._channel(call)
        limit = min(max(int(call.query.get("limit", "50")), 1), 100)
        messages = self.channel_messages(channel)
        if "before" in call.query:
            messages = [m for m in messages if m.id < int(call.query["before"])]
        if "after" in call.query:
            messages = [m for m in messages if m.id > int(call.query["after"])]
            messages = messages[:limit]
        else:
            messages = messages[-limit:]
        return _json_response(200, [m.payload() for m in reversed(messages)])

    async def _get_channel_message(self, call: _Call) -> web.Response:
        return _json_response(200, self._channel_message(call).payload())

    async def _patch_channel_message(self, call: _Call) -> web.Response:
        message = self._channel_message(call)
        if message.author is not self.bot_user:
            raise ApiError(403, 50005, "Cannot edit a message authored by another user")
        recipient = message.channel.recipient if message.channel.is_dm else None
        if recipient is not None and recipient.dms_closed:  # he closed them since
            raise refusal(50007)
        self._edit_message(message, call.body, call.files)
        await self._announce_update(message)
        return _json_response(200, message.payload())

    async def _delete_channel_message(self, call: _Call) -> web.Response:
        message = self._channel_message(call)
        if message.author is not self.bot_user and not self._bot_member_has(
            message.channel, Permission.MANAGE_MESSAGES
        ):
            raise refusal(50013)
        message.deleted = True
        await self._announce_delete(message)
        return _no_content()

    async def _typing(self, call: _Call) -> web.Response:
        self._channel(call)
        return _no_content()

    async def _get_channel(self, call: _Call) -> web.Response:
        return _json_response(200, self._channel(call).payload())

    async def _create_dm(self, call: _Call) -> web.Response:
        body = call.body if isinstance(call.body, dict) else {}
        try:
            user = self.users[int(body.get("recipient_id", 0))]
        except (KeyError, TypeError, ValueError):
            raise ApiError(400, 50033, "Invalid Recipient(s)") from None
        channel = self.dm_channel(user, create=True)
        assert channel is not None
        return _json_response(200, channel.payload())
