"""The fake's world: users, roles, members, channels and guilds, each able to
render itself as the JSON payload Discord sends.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tests.e2e.fakes.discord.protocol import _CHANNEL_DM, ALL_PERMISSIONS, Permission
from tests.e2e.fakes.discord.wire import _iso

if TYPE_CHECKING:
    from tests.e2e.fakes.discord.protocol import Json


@dataclass(eq=False)
class FakeUser:
    """A Discord user; ``dms_closed`` makes DMs from the bot fail with 50007."""

    id: int
    username: str
    global_name: str | None = None
    bot: bool = False
    dms_closed: bool = False
    locale: str = "en-US"

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def payload(self) -> Json:
        data: Json = {
            "id": str(self.id),
            "username": self.username,
            "global_name": self.global_name,
            "discriminator": "0",
            "avatar": None,
            "public_flags": 0,
            "flags": 0,
            "banner": None,
            "accent_color": None,
            "avatar_decoration_data": None,
            "collectibles": None,
            "primary_guild": None,
        }
        if self.bot:
            data["bot"] = True
        return data


@dataclass(eq=False)
class FakeRole:
    id: int
    name: str
    permissions: int
    position: int = 0
    bot_id: int | None = None

    def payload(self) -> Json:
        data: Json = {
            "id": str(self.id),
            "name": self.name,
            "permissions": str(self.permissions),
            "position": self.position,
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "managed": self.bot_id is not None,
            "mentionable": False,
            "icon": None,
            "unicode_emoji": None,
            "flags": 0,
        }
        if self.bot_id is not None:
            data["tags"] = {"bot_id": str(self.bot_id)}
        return data


@dataclass(eq=False)
class FakeMember:
    user: FakeUser
    guild: FakeGuild
    roles: list[FakeRole] = field(default_factory=list)
    nick: str | None = None
    joined_at: float = field(default_factory=time.time)

    @property
    def permissions(self) -> int:
        """Guild-level permissions: @everyone plus roles; owner and admins get all."""
        if self.user is self.guild.owner:
            return ALL_PERMISSIONS
        value = self.guild.everyone.permissions
        for role in self.roles:
            value |= role.permissions
        if value & Permission.ADMINISTRATOR:
            return ALL_PERMISSIONS
        return value

    def has(self, permissions: int) -> bool:
        return self.permissions & permissions == permissions

    def payload(self, *, with_user: bool = True, with_permissions: bool = False) -> Json:
        data: Json = {
            "roles": [str(role.id) for role in self.roles],
            "nick": self.nick,
            "avatar": None,
            "banner": None,
            "joined_at": _iso(self.joined_at),
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "communication_disabled_until": None,
        }
        if with_user:
            data["user"] = self.user.payload()
        if with_permissions:
            data["permissions"] = str(self.permissions)
        return data


@dataclass(eq=False)
class FakeChannel:
    """A guild text channel, a public thread in one (``parent``), or a DM channel
    between the bot and ``recipient``."""

    id: int
    type: int
    name: str | None = None
    guild: FakeGuild | None = None
    recipient: FakeUser | None = None
    position: int = 0
    topic: str | None = None
    last_message_id: int | None = None
    denied: dict[int, int] = field(default_factory=dict)
    """Member overwrites: user id → the permission bits denied in this channel."""
    parent: FakeChannel | None = None
    owner: FakeUser | None = None
    created: float = 0.0

    @property
    def is_dm(self) -> bool:
        return self.type == _CHANNEL_DM

    @property
    def is_thread(self) -> bool:
        return self.parent is not None

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"

    def payload(self) -> Json:
        if self.is_dm:
            assert self.recipient is not None
            return {
                "id": str(self.id),
                "type": _CHANNEL_DM,
                "last_message_id": str(self.last_message_id) if self.last_message_id else None,
                "recipients": [self.recipient.payload()],
                "flags": 0,
            }
        assert self.guild is not None
        if self.parent is not None:
            assert self.owner is not None
            return {
                "id": str(self.id),
                "type": self.type,
                "guild_id": str(self.guild.id),
                "parent_id": str(self.parent.id),
                "owner_id": str(self.owner.id),
                "name": self.name,
                "last_message_id": str(self.last_message_id) if self.last_message_id else None,
                "rate_limit_per_user": 0,
                "message_count": 0,
                "member_count": 1,
                "thread_metadata": {
                    "archived": False,
                    "auto_archive_duration": 1440,
                    "archive_timestamp": _iso(self.created),
                    "locked": False,
                },
                "flags": 0,
            }
        return {
            "id": str(self.id),
            "type": self.type,
            "guild_id": str(self.guild.id),
            "name": self.name,
            "position": self.position,
            "permission_overwrites": [
                {"id": str(user_id), "type": 1, "allow": "0", "deny": str(deny)}
                for user_id, deny in self.denied.items()
            ],
            "parent_id": None,
            "topic": self.topic,
            "nsfw": False,
            "last_message_id": str(self.last_message_id) if self.last_message_id else None,
            "rate_limit_per_user": 0,
            "flags": 0,
        }


@dataclass(eq=False)
class FakeGuild:
    id: int
    name: str
    owner: FakeUser
    roles: list[FakeRole] = field(default_factory=list)
    members: dict[int, FakeMember] = field(default_factory=dict)
    channels: list[FakeChannel] = field(default_factory=list)
    locale: str = "en-US"
    created_at: float = field(default_factory=time.time)

    @property
    def everyone(self) -> FakeRole:
        return self.roles[0]

    def role(self, name: str) -> FakeRole | None:
        return next((role for role in self.roles if role.name == name), None)

    def member(self, user: FakeUser) -> FakeMember | None:
        return self.members.get(user.id)

    def payload(self) -> Json:
        """The REST form of a guild (GET /guilds/{id})."""
        return {
            "id": str(self.id),
            "name": self.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "owner_id": str(self.owner.id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "roles": [role.payload() for role in self.roles],
            "emojis": [],
            "stickers": [],
            "features": [],
            "mfa_level": 0,
            "application_id": None,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "max_members": 500_000,
            "vanity_url_code": None,
            "description": None,
            "banner": None,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": self.locale,
            "public_updates_channel_id": None,
            "safety_alerts_channel_id": None,
            "nsfw_level": 0,
            "premium_progress_bar_enabled": False,
        }
