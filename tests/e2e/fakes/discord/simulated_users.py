"""Simulated users: slash commands, autocomplete, button presses, select menus and
plain messages, turned into the interactions and events Discord would deliver.
"""

from __future__ import annotations

import asyncio
import base64
import secrets
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from tests.e2e.fakes.discord.entities import FakeChannel, FakeMember, FakeRole, FakeUser
from tests.e2e.fakes.discord.interaction import FakeInteraction
from tests.e2e.fakes.discord.message_store import MessageStore
from tests.e2e.fakes.discord.messages import _component_rows
from tests.e2e.fakes.discord.protocol import (
    _BUTTON_LINK,
    _COMPONENT_BUTTON,
    _COMPONENT_ROW,
    ALL_PERMISSIONS,
    BOT_PERMISSIONS,
    CallbackType,
    InteractionKind,
)
from tests.e2e.fakes.discord.world import World

if TYPE_CHECKING:
    from tests.e2e.fakes.discord.entities import FakeGuild
    from tests.e2e.fakes.discord.messages import FakeMessage
    from tests.e2e.fakes.discord.protocol import Json


class SimulatedUsers(World, MessageStore):
    """What people do in the fake, as the tests script it."""

    async def slash(
        self,
        user: FakeUser,
        channel: FakeChannel | None,
        command: str,
        /,
        **options: Any,
    ) -> FakeInteraction:
        """``user`` runs a slash command, e.g. ``slash(alice, table, "schnapsen new",
        points=7)``; subcommands (and groups) are space-separated, as Discord shows
        them. ``channel=None`` means the user's DM with the bot.

        Raises ``LookupError``/``ValueError``/``PermissionError`` for what the Discord
        client would not let the user send (unknown command, bad options, a command
        hidden by ``default_member_permissions`` or its contexts).
        """
        channel, data = self._command_data(user, channel, command, options)
        return await self._dispatch_interaction(
            kind=InteractionKind.APPLICATION_COMMAND,
            user=user,
            channel=channel,
            data=data,
            command_name=" ".join(command.lstrip("/").split()),
        )

    async def autocomplete(
        self,
        user: FakeUser,
        channel: FakeChannel | None,
        command: str,
        focused: str,
        /,
        **options: Any,
    ) -> list[Json]:
        """``user`` types into option ``focused`` of a slash command (its value so far
        in ``options``, the other options as filled): the choices the bot offers, as
        the Discord client would list them.  Raises as `slash` does for a command the
        client would not offer."""
        channel, data = self._command_data(user, channel, command, options)
        leaf: list[Json] = data["options"]
        while leaf and leaf[0].get("type") in (1, 2):  # down to the subcommand's options
            leaf = leaf[0]["options"]
        typed = next((o for o in leaf if o["name"] == focused), None)
        if typed is None:
            raise ValueError(f"/{command}: option {focused!r} must be typed into")
        typed["focused"] = True
        interaction = await self._dispatch_interaction(
            kind=InteractionKind.AUTOCOMPLETE, user=user, channel=channel, data=data
        )
        await self.wait_for(
            lambda: interaction.acknowledged or None, description="the autocomplete answer"
        )
        assert interaction.callback_type == CallbackType.AUTOCOMPLETE_RESULT, interaction
        return interaction.autocomplete_choices or []

    def _command_data(
        self, user: FakeUser, channel: FakeChannel | None, command: str, options: dict[str, Any]
    ) -> tuple[FakeChannel, Json]:
        """Where a slash command is run and its interaction's ``data``, checked as the
        Discord client checks what a user may send."""
        if channel is None:
            channel = self.dm_channel(user, create=True)
            assert channel is not None
        self._check_user_in_channel(user, channel)
        path = command.lstrip("/").split()
        if not path:
            raise ValueError("empty command")
        root = self._find_command(path[0], channel.guild)
        self._check_command_available(root, user, channel)

        chain: list[Json] = []
        definitions: list[Json] = root.get("options") or []
        for name in path[1:]:
            sub = next(
                (o for o in definitions if o.get("type") in (1, 2) and o["name"] == name), None
            )
            if sub is None:
                names = [o["name"] for o in definitions if o.get("type") in (1, 2)]
                raise LookupError(f"/{' '.join(path)}: no subcommand {name!r}; has {names}")
            chain.append(sub)
            definitions = sub.get("options") or []
        if any(o.get("type") in (1, 2) for o in definitions):
            names = [o["name"] for o in definitions]
            raise ValueError(f"/{' '.join(path)} needs a subcommand: one of {names}")

        leaf, resolved = self._command_options(definitions, options, channel)
        nested: list[Json] = leaf
        for sub in reversed(chain):
            nested = [{"name": sub["name"], "type": sub["type"], "options": nested}]
        data: Json = {"id": root["id"], "name": root["name"], "type": 1, "options": nested}
        if resolved:
            data["resolved"] = resolved
        if root.get("guild_id"):
            data["guild_id"] = root["guild_id"]
        return channel, data

    async def click(
        self,
        user: FakeUser,
        message: FakeMessage,
        target: str,
        *,
        forged: bool = False,
        late: float = 0.0,
    ) -> FakeInteraction:
        """``user`` presses the button whose custom_id or label is ``target``.

        Clicking an old message works as long as the button is still on it (that is
        what survives a restart). ``forged=True`` sends ``target`` as the custom_id
        even if no such button exists, as a tampered client would; the message in the
        interaction then carries the forged id in place of its first button.
        ``late``: the press reaches the bot that many seconds after the user made it
        (a lagging gateway, a bot whose loop was busy): its id, creation time and
        3-second window count from the press, so less of the window is left.
        """
        self._check_user_in_channel(user, message.channel)
        if not message.visible_to(user):
            raise PermissionError(f"{user.username} cannot see message {message.id}")
        message_payload = message.payload()
        component_id: int | None = None
        if forged:
            custom_id = target
            existing = next((b for b in message.buttons if b.custom_id == target), None)
            if existing is None:
                _forge_button(message_payload, custom_id)
            else:
                component_id = existing.component_id
        else:
            button = message.button(target)
            if button.disabled:
                raise ValueError(f"button {target!r} on message {message.id} is disabled")
            if button.custom_id is None:
                raise ValueError(f"button {target!r} is a link button; it opens {button.url}")
            custom_id = button.custom_id
            component_id = button.component_id
        data: Json = {"custom_id": custom_id, "component_type": _COMPONENT_BUTTON}
        if component_id is not None:
            data["id"] = component_id
        return await self._dispatch_interaction(
            kind=InteractionKind.MESSAGE_COMPONENT,
            user=user,
            channel=message.channel,
            data=data,
            message=message,
            message_payload=message_payload,
            late=late,
        )

    async def select(
        self,
        user: FakeUser,
        message: FakeMessage,
        target: str,
        values: Sequence[str],
    ) -> FakeInteraction:
        """``user`` picks ``values`` in the select menu with custom_id or placeholder
        ``target``."""
        self._check_user_in_channel(user, message.channel)
        if not message.visible_to(user):
            raise PermissionError(f"{user.username} cannot see message {message.id}")
        menus = [m for m in message.selects if target in (m.custom_id, m.placeholder)]
        if len(menus) != 1:
            raise LookupError(f"no single select menu {target!r} on message {message.id}")
        menu = menus[0]
        if menu.disabled:
            raise ValueError(f"select menu {target!r} is disabled")
        if not menu.min_values <= len(values) <= menu.max_values:
            raise ValueError(f"pick {menu.min_values}..{menu.max_values} values, not {len(values)}")
        known = {value for _, value in menu.options}
        if menu.type == 3 and not set(values) <= known:
            raise ValueError(f"values {sorted(set(values) - known)} are not options of {target!r}")
        data: Json = {
            "custom_id": menu.custom_id,
            "component_type": menu.type,
            "values": list(values),
        }
        if menu.component_id is not None:
            data["id"] = menu.component_id
        return await self._dispatch_interaction(
            kind=InteractionKind.MESSAGE_COMPONENT,
            user=user,
            channel=message.channel,
            data=data,
            message=message,
            message_payload=message.payload(),
        )

    async def post(self, user: FakeUser, channel: FakeChannel, content: str) -> FakeMessage:
        """``user`` writes an ordinary message (dispatched as MESSAGE_CREATE)."""
        self._check_user_in_channel(user, channel)
        message = self._store_message(channel, user, {"content": content}, [])
        await self._announce_create(message)
        return message

    def _check_user_in_channel(self, user: FakeUser, channel: FakeChannel) -> None:
        if channel.is_dm:
            if channel.recipient is not user:
                raise PermissionError(f"{user.username} is not in DM channel {channel.id}")
        else:
            assert channel.guild is not None
            if user.id not in channel.guild.members:
                raise PermissionError(f"{user.username} is not a member of {channel.guild.name}")

    def _find_command(self, name: str, guild: FakeGuild | None) -> Json:
        if guild is not None:
            command = self._guild_commands.get(guild.id, {}).get(name)
            if command is not None and command.get("type", 1) == 1:
                return command
        command = self._global_commands.get(name)
        if command is None or command.get("type", 1) != 1:
            known = sorted(self._global_commands) + sorted(
                self._guild_commands.get(guild.id, {}) if guild else []
            )
            raise LookupError(f"/{name} is not a synced command here; synced: {known}")
        return command

    def _check_command_available(self, command: Json, user: FakeUser, channel: FakeChannel) -> None:
        contexts = command.get("contexts")
        if channel.is_dm:
            if (contexts is not None and 1 not in contexts) or (
                contexts is None and command.get("dm_permission") is False
            ):
                raise PermissionError(f"/{command['name']} is not available in DMs")
            return
        if contexts is not None and 0 not in contexts:
            raise PermissionError(f"/{command['name']} is not available in guilds")
        required = command.get("default_member_permissions")
        assert channel.guild is not None
        member = channel.guild.members[user.id]
        if required is not None and not member.has(int(required)):
            raise PermissionError(
                f"/{command['name']} is hidden from {user.username}: needs permissions {required}"
            )

    def _command_options(
        self, definitions: Sequence[Json], given: Mapping[str, Any], channel: FakeChannel
    ) -> tuple[list[Json], Json]:
        by_name = {d["name"]: d for d in definitions}
        unknown = set(given) - set(by_name)
        if unknown:
            raise ValueError(
                f"unknown options {sorted(unknown)}; the command has {sorted(by_name)}"
            )
        missing = [d["name"] for d in definitions if d.get("required") and d["name"] not in given]
        if missing:
            raise ValueError(f"missing required options {missing}")
        options: list[Json] = []
        resolved: Json = {}
        for name, value in given.items():
            definition = by_name[name]
            kind = definition["type"]
            options.append(
                {
                    "name": name,
                    "type": kind,
                    "value": self._option_value(definition, value, resolved, channel),
                }
            )
        return options, resolved

    def _option_value(
        self, definition: Json, value: Any, resolved: Json, channel: FakeChannel
    ) -> Any:
        kind = definition["type"]
        name = definition["name"]
        guild = channel.guild
        if kind in (6, 9) and isinstance(value, FakeMember | FakeUser):
            user = value.user if isinstance(value, FakeMember) else value
            resolved.setdefault("users", {})[str(user.id)] = user.payload()
            member = guild.members.get(user.id) if guild else None
            if member is not None:
                resolved.setdefault("members", {})[str(user.id)] = member.payload(
                    with_user=False, with_permissions=True
                )
            return str(user.id)
        if kind in (8, 9) and isinstance(value, FakeRole):
            resolved.setdefault("roles", {})[str(value.id)] = value.payload()
            return str(value.id)
        if kind == 7 and isinstance(value, FakeChannel):
            resolved.setdefault("channels", {})[str(value.id)] = {
                "id": str(value.id),
                "name": value.name,
                "type": value.type,
                "permissions": str(ALL_PERMISSIONS),
            }
            return str(value.id)
        scalar_types: dict[int, tuple[type, ...]] = {
            3: (str,),
            4: (int,),
            5: (bool,),
            10: (int, float),
        }
        accepted = scalar_types.get(kind)
        if (
            accepted is None
            or not isinstance(value, accepted)
            or (kind != 5 and isinstance(value, bool))
        ):
            raise ValueError(f"option {name!r} (type {kind}) cannot take {value!r}")
        if isinstance(value, str) and not definition.get("min_length", 0) <= len(
            value
        ) <= definition.get("max_length", 6000):
            raise ValueError(f"option {name!r}: length of {value!r} out of range")
        if kind in (4, 10):
            low, high = definition.get("min_value"), definition.get("max_value")
            if (low is not None and value < low) or (high is not None and value > high):
                raise ValueError(f"option {name!r}: {value} outside {low}..{high}")
        choices = definition.get("choices")
        if choices and value not in [c["value"] for c in choices]:
            raise ValueError(f"option {name!r}: {value!r} is not one of the choices")
        return value

    async def _dispatch_interaction(
        self,
        *,
        kind: int,
        user: FakeUser,
        channel: FakeChannel,
        data: Json,
        message: FakeMessage | None = None,
        message_payload: Json | None = None,
        command_name: str | None = None,
        late: float = 0.0,
    ) -> FakeInteraction:
        interaction_id = self._snowflake(late)
        secret = secrets.token_urlsafe(48)
        token = (
            base64.urlsafe_b64encode(f"interaction:{interaction_id}:".encode()).decode().rstrip("=")
        )
        token += secret
        guild = channel.guild
        payload: Json = {
            "id": str(interaction_id),
            "application_id": str(self.application_id),
            "type": int(kind),
            "data": data,
            "channel_id": str(channel.id),
            "token": token,
            "version": 1,
            "locale": user.locale,
            "entitlements": [],
            "entitlement_sku_ids": [],
            "attachment_size_limit": self.limits.max_upload,
        }
        channel_payload = channel.payload()
        if guild is not None:
            member = guild.members[user.id]
            channel_payload["permissions"] = str(member.permissions)
            payload.update(
                guild_id=str(guild.id),
                guild={"id": str(guild.id), "locale": guild.locale, "features": []},
                guild_locale=guild.locale,
                member=member.payload(with_permissions=True),
                app_permissions=str(self._bot_permissions(channel)),
                authorizing_integration_owners={"0": str(guild.id)},
                context=0,
            )
        else:
            payload.update(
                user=user.payload(),
                app_permissions=str(BOT_PERMISSIONS),
                authorizing_integration_owners={"0": str(user.id)},
                context=1,
            )
        payload["channel"] = channel_payload
        if message_payload is not None:
            payload["message"] = message_payload

        created = self._now() - late
        interaction = FakeInteraction(
            id=interaction_id,
            token=token,
            kind=int(kind),
            user=user,
            channel=channel,
            data=data,
            payload=payload,
            created=created,
            ack_deadline=created + self.limits.ack_deadline,
            token_deadline=created + self.limits.token_lifetime,
            fake=self,
            message=message,
            command_name=command_name,
            late=late,
        )
        self.interactions.append(interaction)
        self._interactions[interaction_id] = interaction
        self._interactions_by_token[token] = interaction
        loop = asyncio.get_running_loop()
        # Deadlines passing are state changes too: wake waiters when they do.
        for deadline in (interaction.ack_deadline, interaction.token_deadline):
            delay = max(deadline - self._now(), 0.0) + 0.001
            self._timers.append(loop.call_later(delay, self._changed))
        await self._deliver(interaction)
        return interaction

    async def _deliver(self, interaction: FakeInteraction) -> None:
        guild = interaction.guild
        payload = interaction.payload
        await self._broadcast("INTERACTION_CREATE", lambda s: payload, guild.id if guild else None)
        self._changed()

    async def deliver_again(self, interaction: FakeInteraction) -> None:
        """Send an interaction's INTERACTION_CREATE once more (same id, same token),
        as Discord's gateway may after a RESUME that replays events the bot had
        received already: discord.py dispatches whatever arrives."""
        await self._deliver(interaction)


def _forge_button(message_payload: Json, custom_id: str) -> None:
    """Put ``custom_id`` on the first button of a message payload (or add a button),
    as a tampered client claiming to have pressed it would."""
    for row in _component_rows(message_payload.get("components", [])):
        for component in row:
            if (
                component.get("type") == _COMPONENT_BUTTON
                and component.get("style") != _BUTTON_LINK
            ):
                component["custom_id"] = custom_id
                return
    message_payload.setdefault("components", []).append(
        {
            "type": _COMPONENT_ROW,
            "components": [
                {"type": _COMPONENT_BUTTON, "style": 1, "label": "?", "custom_id": custom_id}
            ],
        }
    )
