"""Messages as the fake stores them, with the buttons and select menus a simulated
user can press, and the revisions edits leave behind.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tests.e2e.fakes.discord.protocol import (
    _COMPONENT_BUTTON,
    _COMPONENT_CONTAINER,
    _COMPONENT_ROW,
    _COMPONENT_SECTION,
    _MESSAGE_DEFAULT,
    _SELECT_TYPES,
    MessageFlag,
)
from tests.e2e.fakes.discord.wire import _iso

if TYPE_CHECKING:
    from tests.e2e.fakes.discord.entities import FakeChannel, FakeUser
    from tests.e2e.fakes.discord.interaction import FakeInteraction
    from tests.e2e.fakes.discord.protocol import Json


@dataclass(frozen=True)
class FakeButton:
    """A button as a user sees it on a message."""

    label: str | None
    custom_id: str | None
    style: int
    disabled: bool
    url: str | None
    emoji: str | None
    row: int
    component_id: int | None


@dataclass(frozen=True)
class FakeSelectMenu:
    """A select menu as a user sees it; ``options`` are (label, value) pairs."""

    custom_id: str
    type: int
    placeholder: str | None
    options: tuple[tuple[str, str], ...]
    min_values: int
    max_values: int
    disabled: bool
    row: int
    component_id: int | None


@dataclass(frozen=True)
class MessageRevision:
    """A message's content before an edit (``FakeMessage.history``)."""

    content: str
    embeds: list[Json]
    components: list[Json]
    flags: int
    at: float


@dataclass(eq=False)
class FakeMessage:
    """A stored message. ``ephemeral_for`` is the only user who can see it, if set."""

    id: int
    channel: FakeChannel
    author: FakeUser
    content: str = ""
    embeds: list[Json] = field(default_factory=list)
    components: list[Json] = field(default_factory=list)
    attachments: list[Json] = field(default_factory=list)
    files: dict[int, bytes] = field(default_factory=dict)
    flags: int = 0
    type: int = _MESSAGE_DEFAULT
    created_at: float = field(default_factory=time.time)
    edited_at: float | None = None
    deleted: bool = False
    ephemeral_for: FakeUser | None = None
    webhook_id: int | None = None
    application_id: int | None = None
    interaction: FakeInteraction | None = None
    """The interaction this message answers (original response or followup)."""
    interaction_metadata: Json | None = None
    mentions: list[FakeUser] = field(default_factory=list)
    pinged: list[FakeUser] = field(default_factory=list)
    """Those the message notified when sent: of `mentions`, of the roles it mentions,
    or everybody for "@everyone"; its `allowed_mentions` decide (an edit notifies
    nobody)."""
    history: list[MessageRevision] = field(default_factory=list)
    nonce: str | None = None

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & MessageFlag.EPHEMERAL)

    @property
    def loading(self) -> bool:
        """A deferred response ("Bot is thinking…") not yet filled in."""
        return bool(self.flags & MessageFlag.LOADING)

    def visible_to(self, user: FakeUser) -> bool:
        if self.deleted:
            return False
        if self.ephemeral_for is not None:
            return self.ephemeral_for is user
        if self.channel.is_dm:
            return self.channel.recipient is user
        assert self.channel.guild is not None
        return user.id in self.channel.guild.members

    @property
    def text(self) -> str:
        """Content plus the text of every embed, for assertions that do not care
        whether the bot rendered something as content or as an embed."""
        parts = [self.content]
        for embed in self.embeds:
            parts.extend(str(embed.get(key) or "") for key in ("title", "description"))
            for embed_field in embed.get("fields", []):
                parts.append(f"{embed_field.get('name', '')}: {embed_field.get('value', '')}")
            footer = embed.get("footer") or {}
            parts.append(str(footer.get("text") or ""))
        return "\n".join(part for part in parts if part)

    @property
    def rows(self) -> list[list[FakeButton]]:
        """The buttons, row by row (rows without buttons are left out)."""
        result: list[list[FakeButton]] = []
        for index, row in enumerate(_component_rows(self.components)):
            buttons = [
                _button_from(component, index)
                for component in row
                if component.get("type") == _COMPONENT_BUTTON
            ]
            if buttons:
                result.append(buttons)
        return result

    @property
    def buttons(self) -> list[FakeButton]:
        return [button for row in self.rows for button in row]

    @property
    def selects(self) -> list[FakeSelectMenu]:
        result: list[FakeSelectMenu] = []
        for index, row in enumerate(_component_rows(self.components)):
            for component in row:
                if component.get("type") in _SELECT_TYPES:
                    result.append(
                        FakeSelectMenu(
                            custom_id=component["custom_id"],
                            type=component["type"],
                            placeholder=component.get("placeholder"),
                            options=tuple(
                                (option["label"], option["value"])
                                for option in component.get("options", [])
                            ),
                            min_values=component.get("min_values", 1),
                            max_values=component.get("max_values", 1),
                            disabled=bool(component.get("disabled", False)),
                            row=index,
                            component_id=component.get("id"),
                        )
                    )
        return result

    def button(self, target: str) -> FakeButton:
        """The button whose custom_id, or else whose label, is ``target``."""
        by_id = [button for button in self.buttons if button.custom_id == target]
        if by_id:
            return by_id[0]
        by_label = [button for button in self.buttons if button.label == target]
        if len(by_label) == 1:
            return by_label[0]
        labels = [button.label or button.custom_id for button in self.buttons]
        if not by_label:
            raise LookupError(f"no button {target!r} on message {self.id}; it has {labels}")
        raise LookupError(f"several buttons labelled {target!r} on message {self.id}: {labels}")

    def payload(self) -> Json:
        data: Json = {
            "id": str(self.id),
            "channel_id": str(self.channel.id),
            "type": self.type,
            "content": self.content,
            "author": self.author.payload(),
            "timestamp": _iso(self.created_at),
            "edited_timestamp": _iso(self.edited_at) if self.edited_at is not None else None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [user.payload() for user in self.mentions],
            "mention_roles": [],
            "attachments": copy.deepcopy(self.attachments),
            "embeds": copy.deepcopy(self.embeds),
            "components": copy.deepcopy(self.components),
            "pinned": False,
            "flags": self.flags,
        }
        guild = self.channel.guild
        if guild is not None:
            data["guild_id"] = str(guild.id)
            member = guild.members.get(self.author.id)
            if member is not None and self.webhook_id is None:
                data["member"] = member.payload(with_user=False)
        if self.webhook_id is not None:
            data["webhook_id"] = str(self.webhook_id)
        if self.application_id is not None:
            data["application_id"] = str(self.application_id)
        if self.interaction_metadata is not None:
            data["interaction_metadata"] = copy.deepcopy(self.interaction_metadata)
        if self.nonce is not None:
            data["nonce"] = self.nonce
        return data

    def __repr__(self) -> str:
        return (
            f"<FakeMessage id={self.id} channel={self.channel.id} author={self.author.username!r}"
            f" content={self.content[:40]!r} flags={self.flags} buttons={len(self.buttons)}>"
        )


def _component_rows(components: Sequence[Json]) -> list[list[Json]]:
    """Action rows in display order, including rows nested in v2 containers and a
    section's button accessory (shown as a one-button row)."""
    rows: list[list[Json]] = []
    for component in components:
        kind = component.get("type")
        if kind == _COMPONENT_ROW:
            rows.append(list(component.get("components", [])))
        elif kind == _COMPONENT_SECTION:
            accessory = component.get("accessory")
            if accessory and accessory.get("type") == _COMPONENT_BUTTON:
                rows.append([accessory])
        elif kind == _COMPONENT_CONTAINER:
            rows.extend(_component_rows(component.get("components", [])))
    return rows


def _button_from(component: Json, row: int) -> FakeButton:
    emoji = component.get("emoji") or None
    return FakeButton(
        label=component.get("label"),
        custom_id=component.get("custom_id"),
        style=component.get("style", 1),
        disabled=bool(component.get("disabled", False)),
        url=component.get("url"),
        emoji=(emoji.get("name") if isinstance(emoji, dict) else None),
        row=row,
        component_id=component.get("id"),
    )
