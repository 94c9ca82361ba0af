"""Creating and editing messages as Discord validates them (content, components,
attachments, mentions), shared by the channel, interaction and webhook routes.
"""

from __future__ import annotations

import copy
import re
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tests.e2e.fakes.discord.errors import ApiError, _FormErrors, refusal
from tests.e2e.fakes.discord.messages import FakeMessage, MessageRevision
from tests.e2e.fakes.discord.protocol import (
    _BUTTON_LINK,
    _BUTTON_PREMIUM,
    _COMPONENT_BUTTON,
    _COMPONENT_ROW,
    _MESSAGE_DEFAULT,
    _SELECT_TYPES,
    CDN,
    MessageFlag,
)
from tests.e2e.fakes.discord.state import FakeDiscordState

if TYPE_CHECKING:
    from tests.e2e.fakes.discord.entities import FakeChannel, FakeUser
    from tests.e2e.fakes.discord.interaction import FakeInteraction
    from tests.e2e.fakes.discord.protocol import Json


class MessageStore(FakeDiscordState):
    """Validation and storage of the messages the bot sends and edits."""

    def _validate_message(
        self, body: Json, *, errors: _FormErrors, prefix: tuple[str, ...] = ()
    ) -> None:
        limits = self.limits
        content = body.get("content")
        if content is not None and not isinstance(content, str):
            errors.add((*prefix, "content"), "BASE_TYPE_STRING", "Must be a string.")
        elif content is not None and len(content) > limits.max_content:
            errors.add(
                (*prefix, "content"),
                "BASE_TYPE_MAX_LENGTH",
                f"Must be {limits.max_content} or fewer in length.",
            )
        embeds = body.get("embeds")
        if embeds is not None:
            if len(embeds) > limits.max_embeds:
                errors.add(
                    (*prefix, "embeds"),
                    "BASE_TYPE_MAX_LENGTH",
                    f"Must be {limits.max_embeds} or fewer in length.",
                )
            total = 0
            for index, embed in enumerate(embeds):
                for key, limit in (("title", 256), ("description", 4096)):
                    text = embed.get(key) or ""
                    total += len(text)
                    if len(text) > limit:
                        errors.add(
                            (*prefix, "embeds", index, key),
                            "BASE_TYPE_MAX_LENGTH",
                            f"Must be {limit} or fewer in length.",
                        )
                fields = embed.get("fields") or []
                if len(fields) > 25:
                    errors.add(
                        (*prefix, "embeds", index, "fields"),
                        "BASE_TYPE_MAX_LENGTH",
                        "Must be 25 or fewer in length.",
                    )
                for embed_field in fields:
                    total += len(embed_field.get("name") or "") + len(
                        embed_field.get("value") or ""
                    )
            if total > limits.max_embed_total:
                errors.add(
                    (*prefix, "embeds"),
                    "MAX_EMBED_SIZE_EXCEEDED",
                    "Embed size exceeds maximum size of 6000",
                )
        components = body.get("components")
        if components is not None:
            v2 = bool((body.get("flags") or 0) & MessageFlag.IS_COMPONENTS_V2)
            self._validate_components(
                components, errors=errors, prefix=(*prefix, "components"), v2=v2
            )

    def _validate_components(
        self, components: Any, *, errors: _FormErrors, prefix: tuple[str | int, ...], v2: bool
    ) -> None:
        limits = self.limits
        if not isinstance(components, list):
            errors.add(prefix, "BASE_TYPE_ARRAY", "Must be an array.")
            return
        if not v2 and len(components) > limits.max_action_rows:
            errors.add(
                prefix,
                "BASE_TYPE_BAD_LENGTH",
                f"Must be between 0 and {limits.max_action_rows} in length.",
            )
        seen_ids: set[str] = set()
        count = 0

        def check_interactive(component: Json, path: tuple[str | int, ...]) -> None:
            custom_id = component.get("custom_id")
            kind = component.get("type")
            if kind == _COMPONENT_BUTTON:
                style = component.get("style")
                if style == _BUTTON_LINK:
                    if not component.get("url"):
                        errors.add((*path, "url"), "BASE_TYPE_REQUIRED", "This field is required")
                    if custom_id is not None:
                        errors.add(
                            (*path, "custom_id"),
                            "BUTTON_COMPONENT_CUSTOM_ID_NOT_ALLOWED",
                            "A custom id cannot be specified for this button style",
                        )
                    return
                if style == _BUTTON_PREMIUM:
                    return
                label = component.get("label")
                if label is not None and len(label) > limits.max_label:
                    errors.add(
                        (*path, "label"),
                        "BASE_TYPE_MAX_LENGTH",
                        f"Must be {limits.max_label} or fewer in length.",
                    )
                if label is None and not component.get("emoji"):
                    errors.add(
                        path,
                        "BUTTON_COMPONENT_LABEL_OR_EMOJI_REQUIRED",
                        "A label or emoji is required",
                    )
            if not isinstance(custom_id, str) or not custom_id:
                errors.add((*path, "custom_id"), "BASE_TYPE_REQUIRED", "This field is required")
                return
            if len(custom_id) > limits.max_custom_id:
                errors.add(
                    (*path, "custom_id"),
                    "BASE_TYPE_MAX_LENGTH",
                    f"Must be {limits.max_custom_id} or fewer in length.",
                )
            if custom_id in seen_ids:
                errors.add(
                    (*path, "custom_id"),
                    "COMPONENT_CUSTOM_ID_DUPLICATED",
                    "Component custom id cannot be duplicated",
                )
            seen_ids.add(custom_id)

        def walk(items: list[Json], path: tuple[str | int, ...], top: bool) -> None:
            nonlocal count
            for index, component in enumerate(items):
                here = (*path, index)
                count += 1
                kind = component.get("type")
                if kind == _COMPONENT_ROW:
                    children = component.get("components") or []
                    has_select = any(c.get("type") in _SELECT_TYPES for c in children)
                    width = len(children)
                    if not children or width > limits.max_row_buttons or (has_select and width > 1):
                        errors.add(
                            (*here, "components"),
                            "BASE_TYPE_BAD_LENGTH",
                            f"Must be between 1 and {limits.max_row_buttons} in length.",
                        )
                    for child_index, child in enumerate(children):
                        count += 1
                        check_interactive(child, (*here, "components", child_index))
                elif top and not v2:
                    errors.add(
                        (*here, "type"),
                        "UNION_TYPE_CHOICES",
                        'Value of field "type" must be one of (1,).',
                    )
                elif kind in _SELECT_TYPES or kind == _COMPONENT_BUTTON:
                    check_interactive(component, here)
                else:
                    accessory = component.get("accessory")
                    if isinstance(accessory, dict):
                        count += 1
                        check_interactive(accessory, (*here, "accessory"))
                    nested = component.get("components")
                    if isinstance(nested, list):
                        walk(nested, (*here, "components"), False)

        walk(components, prefix, True)
        if v2 and count > limits.max_v2_components:
            errors.add(
                prefix,
                "BASE_TYPE_BAD_LENGTH",
                f"Must be {limits.max_v2_components} or fewer in total.",
            )

    def _number_components(self, components: list[Json]) -> list[Json]:
        """Give every component a numeric ``id`` as Discord does, keeping given ones."""
        components = copy.deepcopy(components)
        taken: set[int] = set()
        every: list[Json] = []

        def collect(items: list[Json]) -> None:
            for component in items:
                every.append(component)
                if isinstance(component.get("id"), int):
                    taken.add(component["id"])
                accessory = component.get("accessory")
                if isinstance(accessory, dict):
                    collect([accessory])
                nested = component.get("components")
                if isinstance(nested, list):
                    collect(nested)

        collect(components)
        next_id = 1
        for component in every:
            if not isinstance(component.get("id"), int):
                while next_id in taken:
                    next_id += 1
                component["id"] = next_id
                taken.add(next_id)
        return components

    def _attachments(
        self,
        channel: FakeChannel,
        body: Json,
        files: list[tuple[str, str, bytes, str]],
        existing: Sequence[Json] = (),
        stored: dict[int, bytes] | None = None,
        *,
        ephemeral: bool = False,
    ) -> tuple[list[Json], dict[int, bytes]]:
        """New uploads (``files[n]`` fields) plus the kept existing attachments; the
        ``attachments`` array lists what stays (existing ids, and ``n`` for the new
        upload ``files[n]``, with its description).  Files of an ephemeral message are
        marked ``ephemeral`` (Discord deletes them with it)."""
        wanted = body.get("attachments")
        kept_ids = {str(a.get("id")) for a in wanted} if wanted is not None else None
        result = [a for a in existing if kept_ids is None or str(a["id"]) in kept_ids]
        kept = {str(a["id"]) for a in result}
        data = {key: content for key, content in (stored or {}).items() if str(key) in kept}
        for position, (field_name, filename, content, content_type) in enumerate(files):
            numbered = re.fullmatch(r"files\[(\d+)\]", field_name)
            index = numbered[1] if numbered else str(position)
            attachment_id = self._snowflake()
            url = f"{CDN}/attachments/{channel.id}/{attachment_id}/{filename}"
            attachment: Json = {
                "id": str(attachment_id),
                "filename": filename,
                "size": len(content),
                "url": url,
                "proxy_url": url,
                "content_type": content_type,
                "description": next(
                    (a.get("description") for a in (wanted or []) if str(a.get("id")) == index),
                    None,
                ),
            }
            if ephemeral:
                attachment["ephemeral"] = True
            result.append(attachment)
            data[attachment_id] = content
        return result, data

    def _mentions(self, content: str) -> list[FakeUser]:
        ids = {int(found) for found in re.findall(r"<@!?(\d+)>", content)}
        return [self.users[user_id] for user_id in ids if user_id in self.users]

    def _pinged(self, channel: FakeChannel, content: str, allowed: Json | None) -> list[FakeUser]:
        """Who a new message notifies: the users it mentions, the members of the roles
        it mentions, and for "@everyone" or "@here" the whole server.  Without
        `allowed_mentions` all of them; with it, those its "parse" (``users``,
        ``roles``, ``everyone``) or its "users" and "roles" lists allow.  A player's
        nickname may read as any of these (Discord takes it as typed)."""
        users = self._mentions(content)
        roles = {int(found) for found in re.findall(r"<@&(\d+)>", content)}
        everyone = "@everyone" in content or "@here" in content
        if isinstance(allowed, dict):
            parse = allowed.get("parse") or []
            if "users" not in parse:
                ids = {int(u) for u in allowed.get("users") or []}
                users = [user for user in users if user.id in ids]
            if "roles" not in parse:
                roles &= {int(r) for r in allowed.get("roles") or []}
            everyone = everyone and "everyone" in parse
        pinged = {user.id: user for user in users}
        members = channel.guild.members.values() if channel.guild is not None else ()
        for member in members:
            if everyone or roles & {role.id for role in member.roles}:
                pinged.setdefault(member.user.id, member.user)
        return list(pinged.values())

    def _store_message(
        self,
        channel: FakeChannel,
        author: FakeUser,
        body: Json,
        files: list[tuple[str, str, bytes, str]],
        *,
        interaction: FakeInteraction | None = None,
        ephemeral_for: FakeUser | None = None,
        extra_flags: int = 0,
        message_type: int = _MESSAGE_DEFAULT,
        allow_empty: bool = False,
        errors_prefix: tuple[str, ...] = (),
    ) -> FakeMessage:
        """Validate a message body and store the message (synchronously, so callers
        can claim an interaction's acknowledgement before any await)."""
        if not isinstance(body, dict):
            raise ApiError(400, 50109, "The request body contains invalid JSON.")
        errors = _FormErrors()
        self._validate_message(body, errors=errors, prefix=errors_prefix)
        errors.raise_if_any()
        content = body.get("content") or ""
        embeds = [{"type": "rich", **embed} for embed in body.get("embeds") or []]
        components = self._number_components(body.get("components") or [])
        attachments, data = self._attachments(
            channel, body, files, ephemeral=ephemeral_for is not None
        )
        if (
            not allow_empty
            and not content.strip()
            and not embeds
            and not components
            and not attachments
            and not body.get("sticker_ids")
            and not body.get("poll")
        ):
            raise refusal(50006)
        settable = (
            MessageFlag.SUPPRESS_EMBEDS
            | MessageFlag.SUPPRESS_NOTIFICATIONS
            | MessageFlag.IS_COMPONENTS_V2
        )
        flags = (int(body.get("flags") or 0) & settable) | extra_flags
        if ephemeral_for is not None:
            flags |= MessageFlag.EPHEMERAL
        message = FakeMessage(
            id=self._snowflake(),
            channel=channel,
            author=author,
            content=content,
            embeds=embeds,
            components=components,
            attachments=attachments,
            files=data,
            flags=int(flags),
            type=message_type,
            ephemeral_for=ephemeral_for,
            mentions=self._mentions(content),
            pinged=self._pinged(channel, content, body.get("allowed_mentions")),
        )
        if interaction is not None:
            message.interaction = interaction
            message.webhook_id = self.application_id
            message.application_id = self.application_id
            message.interaction_metadata = self._interaction_metadata(interaction)
        self.messages[message.id] = message
        return message

    def _interaction_metadata(self, interaction: FakeInteraction) -> Json:
        metadata: Json = {
            "id": str(interaction.id),
            "type": interaction.kind,
            "user": interaction.user.payload(),
            "authorizing_integration_owners": interaction.payload["authorizing_integration_owners"],
        }
        if interaction.command_name:
            metadata["name"] = interaction.command_name
            metadata["command_type"] = 1
        if interaction.message is not None:
            metadata["interacted_message_id"] = str(interaction.message.id)
        if interaction.original is not None and interaction.original is not interaction.message:
            metadata["original_response_message_id"] = str(interaction.original.id)
        return metadata

    def _edit_message(
        self,
        message: FakeMessage,
        body: Any,
        files: list[tuple[str, str, bytes, str]],
        *,
        errors_prefix: tuple[str, ...] = (),
    ) -> None:
        """Validate and apply an edit (synchronously); records the old revision."""
        if not isinstance(body, dict):
            body = {}
        errors = _FormErrors()
        self._validate_message(body, errors=errors, prefix=errors_prefix)
        errors.raise_if_any()
        now_wall = time.time()
        if not message.ephemeral and now_wall - message.created_at > self.limits.old_message_age:
            window = [t for t in self._old_edits.get(message.channel.id, []) if now_wall - t < 3600]
            if len(window) >= self.limits.old_message_edits:
                raise refusal(30046)
            window.append(now_wall)
            self._old_edits[message.channel.id] = window

        content = message.content
        if "content" in body:
            content = body["content"] or ""
        embeds = message.embeds
        if "embeds" in body:
            embeds = [{"type": "rich", **embed} for embed in body["embeds"] or []]
        components = message.components
        if "components" in body:
            components = self._number_components(body["components"] or [])
        attachments, data = message.attachments, message.files
        if files or "attachments" in body:
            attachments, data = self._attachments(
                message.channel,
                body,
                files,
                message.attachments,
                message.files,
                ephemeral=message.ephemeral,
            )
        if not content.strip() and not embeds and not components and not attachments:
            raise refusal(50006)

        message.history.append(
            MessageRevision(
                content=message.content,
                embeds=copy.deepcopy(message.embeds),
                components=copy.deepcopy(message.components),
                flags=message.flags,
                at=message.edited_at or message.created_at,
            )
        )
        flags = message.flags
        if "flags" in body and body["flags"] is not None:
            flags = (flags & ~MessageFlag.SUPPRESS_EMBEDS) | (
                int(body["flags"]) & MessageFlag.SUPPRESS_EMBEDS
            )
            flags |= int(body["flags"]) & MessageFlag.IS_COMPONENTS_V2
        if message.loading:
            flags &= ~MessageFlag.LOADING  # filling in a deferred response is not an edit
        else:
            message.edited_at = now_wall
        message.flags = int(flags)
        message.content = content
        message.embeds = embeds
        message.components = components
        message.attachments = attachments
        message.files = data
        message.mentions = self._mentions(content)
