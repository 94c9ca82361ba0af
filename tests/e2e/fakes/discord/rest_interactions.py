"""REST routes that answer interactions: the callback and the webhook (followups,
original response), with the 3-second and 15-minute token rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aiohttp import web

from tests.e2e.fakes.discord.errors import (
    ApiError,
    _FormErrors,
    _invalid_webhook_token,
    _unknown_interaction,
    _unknown_message,
    _unknown_webhook,
)
from tests.e2e.fakes.discord.gateway import Gateway
from tests.e2e.fakes.discord.message_store import MessageStore
from tests.e2e.fakes.discord.protocol import (
    _ALLOWED_CALLBACKS,
    _MESSAGE_CHAT_INPUT,
    _MESSAGE_DEFAULT,
    CallbackType,
    InteractionKind,
    MessageFlag,
)
from tests.e2e.fakes.discord.wire import _json_response, _no_content, _truthy

if TYPE_CHECKING:
    from tests.e2e.fakes.discord.calls import _Call
    from tests.e2e.fakes.discord.interaction import FakeInteraction
    from tests.e2e.fakes.discord.messages import FakeMessage
    from tests.e2e.fakes.discord.protocol import Json


class InteractionRoutes(Gateway, MessageStore):
    """The interaction callback and webhook routes."""

    def _reject(self, interaction: FakeInteraction, error: ApiError) -> ApiError:
        interaction.rejections.append(error)
        return error

    async def _interaction_callback(self, call: _Call) -> web.Response:
        interaction = self._interactions.get(int(call.params["interaction_id"]))
        if interaction is None or interaction.token != call.params["token"]:
            raise _unknown_interaction()
        if interaction.callback_type is not None:
            raise self._reject(
                interaction, ApiError(400, 40060, "Interaction has already been acknowledged.")
            )
        if self._now() >= interaction.ack_deadline:
            raise self._reject(interaction, _unknown_interaction())
        body = call.body if isinstance(call.body, dict) else {}
        callback = body.get("type")
        data = body.get("data") or {}
        if callback not in _ALLOWED_CALLBACKS.get(interaction.kind, frozenset()):
            errors = _FormErrors()
            errors.add(
                ("type",), "INTERACTION_RESPONSE_TYPE_INVALID", "Invalid interaction response type"
            )
            raise self._reject(
                interaction, ApiError(400, 50035, "Invalid Form Body", errors=errors.tree)
            )

        # Everything up to claiming the acknowledgement is synchronous, so two
        # concurrent callbacks cannot both succeed (the second one gets 40060).
        ephemeral_for = (
            interaction.user if int(data.get("flags") or 0) & MessageFlag.EPHEMERAL else None
        )
        message_type = (
            _MESSAGE_CHAT_INPUT
            if interaction.kind == InteractionKind.APPLICATION_COMMAND
            else _MESSAGE_DEFAULT
        )
        message: FakeMessage | None = None
        try:
            if callback == CallbackType.CHANNEL_MESSAGE:
                message = self._store_message(
                    interaction.channel,
                    self.bot_user,
                    data,
                    call.files,
                    interaction=interaction,
                    ephemeral_for=ephemeral_for,
                    message_type=message_type,
                    errors_prefix=("data",),
                )
            elif callback == CallbackType.DEFERRED_CHANNEL_MESSAGE:
                message = self._store_message(
                    interaction.channel,
                    self.bot_user,
                    {},
                    [],
                    interaction=interaction,
                    ephemeral_for=ephemeral_for,
                    extra_flags=int(MessageFlag.LOADING),
                    message_type=message_type,
                    allow_empty=True,
                )
            elif callback == CallbackType.UPDATE_MESSAGE:
                assert interaction.message is not None
                message = interaction.message
                if message.deleted:
                    raise _unknown_message()
                self._edit_message(message, data, call.files, errors_prefix=("data",))
            elif callback == CallbackType.DEFERRED_UPDATE_MESSAGE:
                message = interaction.message
        except ApiError as error:
            raise self._reject(interaction, error) from None

        interaction.callback_type = int(callback)
        interaction.acknowledged_at = self._now()
        if callback == CallbackType.MODAL:
            interaction.modal = data
        elif callback == CallbackType.AUTOCOMPLETE_RESULT:
            interaction.autocomplete_choices = data.get("choices", [])
        elif message is not None:
            interaction.original = message

        if callback in (CallbackType.CHANNEL_MESSAGE, CallbackType.DEFERRED_CHANNEL_MESSAGE):
            assert message is not None
            await self._announce_create(message)
        elif callback == CallbackType.UPDATE_MESSAGE:
            assert message is not None
            await self._announce_update(message)
        self._changed()

        if not _truthy(call.query.get("with_response")):
            return _no_content()
        reply: Json = {"interaction": {"id": str(interaction.id), "type": interaction.kind}}
        if message is not None and callback != CallbackType.DEFERRED_UPDATE_MESSAGE:
            reply["interaction"].update(
                response_message_id=str(message.id),
                response_message_loading=message.loading,
                response_message_ephemeral=message.ephemeral,
            )
            reply["resource"] = {"type": int(callback), "message": message.payload()}
        return _json_response(200, reply)

    def _webhook_interaction(self, call: _Call) -> FakeInteraction:
        if int(call.params["webhook_id"]) != self.application_id:
            raise _unknown_webhook()
        interaction = self._interactions_by_token.get(call.params["token"])
        if interaction is None:
            raise _invalid_webhook_token()
        if interaction.token_expired:
            raise self._reject(interaction, _invalid_webhook_token())
        return interaction

    def _webhook_message(self, call: _Call, interaction: FakeInteraction) -> FakeMessage:
        """The message a webhook route names: @original, or one this interaction's
        webhook may reach. Other people's ephemeral messages are never reachable."""
        target = call.params["message_id"]
        if target == "@original":
            if interaction.callback_type is None:
                raise self._reject(interaction, _unknown_webhook())
            message = interaction.original
        else:
            message = self.messages.get(int(target)) if target.isdigit() else None
            if message is not None and not (
                message is interaction.original
                or message is interaction.message
                or message in interaction.followups
                or (
                    message.webhook_id == self.application_id
                    and not message.ephemeral
                    and message.channel is interaction.channel
                )
            ):
                message = None
        if message is None or message.deleted:
            raise self._reject(interaction, _unknown_message())
        return message

    async def _execute_webhook(self, call: _Call) -> web.Response:
        interaction = self._webhook_interaction(call)
        if interaction.callback_type is None:
            # Followups exist only after the interaction was acknowledged.
            raise self._reject(interaction, _unknown_webhook())
        body = call.body if isinstance(call.body, dict) else {}
        original = interaction.original
        try:
            if (
                interaction.callback_type == CallbackType.DEFERRED_CHANNEL_MESSAGE
                and original is not None
                and original.loading
                and not original.deleted
            ):
                # Discord's rule: the first followup after a "thinking" defer fills
                # in the deferred message instead of sending a new one (once that
                # message is deleted, a followup is a message of its own again).
                self._edit_message(original, body, call.files)
                await self._announce_update(original)
                message = original
            else:
                ephemeral_for = (
                    interaction.user
                    if int(body.get("flags") or 0) & MessageFlag.EPHEMERAL
                    else None
                )
                message = self._store_message(
                    interaction.channel,
                    self.bot_user,
                    body,
                    call.files,
                    interaction=interaction,
                    ephemeral_for=ephemeral_for,
                    message_type=(
                        _MESSAGE_CHAT_INPUT
                        if interaction.kind == InteractionKind.APPLICATION_COMMAND
                        else _MESSAGE_DEFAULT
                    ),
                )
                interaction.followups.append(message)
                await self._announce_create(message)
        except ApiError as error:
            raise self._reject(interaction, error) from None
        if _truthy(call.query.get("wait")):
            return _json_response(200, message.payload())
        return _no_content()

    async def _get_webhook_message(self, call: _Call) -> web.Response:
        interaction = self._webhook_interaction(call)
        return _json_response(200, self._webhook_message(call, interaction).payload())

    async def _patch_webhook_message(self, call: _Call) -> web.Response:
        interaction = self._webhook_interaction(call)
        message = self._webhook_message(call, interaction)
        try:
            self._edit_message(message, call.body, call.files)
        except ApiError as error:
            raise self._reject(interaction, error) from None
        await self._announce_update(message)
        return _json_response(200, message.payload())

    async def _delete_webhook_message(self, call: _Call) -> web.Response:
        interaction = self._webhook_interaction(call)
        message = self._webhook_message(call, interaction)
        message.deleted = True
        await self._announce_delete(message)
        return _no_content()
