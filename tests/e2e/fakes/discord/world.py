"""Building the fake world (guilds, roles, members, channels, permissions, outages)
and reading it back (messages a user sees, commands, sessions, requests).
"""

from __future__ import annotations

import copy
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from tests.e2e.fakes.discord.entities import FakeChannel, FakeGuild, FakeMember, FakeRole
from tests.e2e.fakes.discord.gateway import Gateway
from tests.e2e.fakes.discord.protocol import (
    _CHANNEL_DM,
    _CHANNEL_PUBLIC_THREAD,
    _CHANNEL_TEXT,
    BOT_PERMISSIONS,
    EVERYONE_PERMISSIONS,
    Intent,
    Permission,
)

if TYPE_CHECKING:
    from tests.e2e.fakes.discord.calls import RecordedRequest
    from tests.e2e.fakes.discord.entities import FakeUser
    from tests.e2e.fakes.discord.gateway import _GatewayConnection, _GatewaySession
    from tests.e2e.fakes.discord.messages import FakeMessage
    from tests.e2e.fakes.discord.protocol import Json


class World(Gateway):
    """The tests' control API over guilds, channels and permissions, and their view of it."""

    def add_guild(self, name: str, *, owner: FakeUser | None = None) -> FakeGuild:
        """A guild the bot is in (it gets a managed role with ordinary permissions).
        Guilds added while the bot is connected arrive as a GUILD_CREATE (a join)."""
        owner = owner or self.add_user(f"{name} owner")
        guild = FakeGuild(id=self._snowflake(), name=name, owner=owner)
        guild.roles.append(
            FakeRole(id=guild.id, name="@everyone", permissions=EVERYONE_PERMISSIONS)
        )
        bot_role = FakeRole(
            id=self._snowflake(),
            name=self.bot_user.username,
            permissions=BOT_PERMISSIONS,
            position=1,
            bot_id=self.bot_user.id,
        )
        guild.roles.append(bot_role)
        self.guilds[guild.id] = guild
        guild.members[owner.id] = FakeMember(user=owner, guild=guild)
        guild.members[self.bot_user.id] = FakeMember(
            user=self.bot_user, guild=guild, roles=[bot_role]
        )
        self._background(
            self._broadcast(
                "GUILD_CREATE",
                lambda s: self._guild_create_payload(guild, s, joined=True),
                guild.id,
            )
        )
        return guild

    def add_role(self, guild: FakeGuild, name: str, permissions: int) -> FakeRole:
        role = FakeRole(
            id=self._snowflake(), name=name, permissions=int(permissions), position=len(guild.roles)
        )
        guild.roles.append(role)
        return role

    def add_member(
        self,
        guild: FakeGuild,
        user: FakeUser,
        *,
        roles: Sequence[FakeRole] = (),
        manage_guild: bool = False,
        administrator: bool = False,
        nick: str | None = None,
    ) -> FakeMember:
        """Make ``user`` a member; ``manage_guild``/``administrator`` grant those
        permissions through a shared "Moderator"/"Admin" role."""
        member_roles = list(roles)
        if manage_guild:
            member_roles.append(
                guild.role("Moderator")
                or self.add_role(guild, "Moderator", Permission.MANAGE_GUILD)
            )
        if administrator:
            member_roles.append(
                guild.role("Admin") or self.add_role(guild, "Admin", Permission.ADMINISTRATOR)
            )
        member = FakeMember(user=user, guild=guild, roles=member_roles, nick=nick)
        guild.members[user.id] = member
        self._background(
            self._broadcast(
                "GUILD_MEMBER_ADD",
                lambda s: (
                    {**member.payload(), "guild_id": str(guild.id)}
                    if s.intents & Intent.GUILD_MEMBERS
                    else None
                ),
                guild.id,
            )
        )
        return member

    def add_text_channel(
        self, guild: FakeGuild, name: str, *, topic: str | None = None
    ) -> FakeChannel:
        channel = FakeChannel(
            id=self._snowflake(),
            type=_CHANNEL_TEXT,
            name=name,
            guild=guild,
            position=len(guild.channels),
            topic=topic,
        )
        guild.channels.append(channel)
        self.channels[channel.id] = channel
        self._background(self._broadcast("CHANNEL_CREATE", lambda s: channel.payload(), guild.id))
        return channel

    def add_thread(self, parent: FakeChannel, name: str, *, owner: FakeUser) -> FakeChannel:
        """A public thread in ``parent``, started by ``owner`` (THREAD_CREATE).  Its
        permissions are the parent's."""
        guild = parent.guild
        assert guild is not None and not parent.is_thread, "threads live in guild channels"
        thread = FakeChannel(
            id=self._snowflake(),
            type=_CHANNEL_PUBLIC_THREAD,
            name=name,
            guild=guild,
            parent=parent,
            owner=owner,
            created=time.time(),
        )
        self.channels[thread.id] = thread
        self._background(self._broadcast("THREAD_CREATE", lambda s: thread.payload(), guild.id))
        return thread

    def dm_channel(self, user: FakeUser, *, create: bool = False) -> FakeChannel | None:
        """The DM channel between the bot and ``user`` (opened by either side)."""
        channel = self._dm_channels.get(user.id)
        if channel is None and create:
            channel = FakeChannel(id=self._snowflake(), type=_CHANNEL_DM, recipient=user)
            self._dm_channels[user.id] = channel
            self.channels[channel.id] = channel
        return channel

    def shares_guild_with_bot(self, user: FakeUser) -> bool:
        return any(
            user.id in guild.members and self.bot_user.id in guild.members
            for guild in self.guilds.values()
        )

    def age_message(self, message: FakeMessage, seconds: float) -> None:
        """Pretend ``message`` was created ``seconds`` earlier (for the 30046 limit)."""
        message.created_at -= seconds

    def deny_bot(self, channel: FakeChannel, permissions: int) -> None:
        """A member overwrite that takes ``permissions`` from the bot in ``channel``
        (announced as CHANNEL_UPDATE).  Without VIEW_CHANNEL every channel route answers
        403 / 50001; without SEND_MESSAGES posting answers 403 / 50013 (the bot may
        still edit its own messages there), in the channel's threads without
        SEND_MESSAGES_IN_THREADS.  Interactions from there carry the reduced
        ``app_permissions``."""
        channel.denied[self.bot_user.id] = channel.denied.get(self.bot_user.id, 0) | permissions
        guild = channel.guild
        assert guild is not None, "overwrites exist in guild channels only"
        self._background(self._broadcast("CHANNEL_UPDATE", lambda s: channel.payload(), guild.id))

    def allow_bot(self, channel: FakeChannel, permissions: int) -> None:
        """An admin lifts what :meth:`deny_bot` took (announced as CHANNEL_UPDATE)."""
        denied = channel.denied.get(self.bot_user.id, 0) & ~permissions
        if denied:
            channel.denied[self.bot_user.id] = denied
        else:
            channel.denied.pop(self.bot_user.id, None)
        guild = channel.guild
        assert guild is not None, "overwrites exist in guild channels only"
        self._background(self._broadcast("CHANNEL_UPDATE", lambda s: channel.payload(), guild.id))

    async def delete_channel(self, channel: FakeChannel) -> None:
        """Someone deletes ``channel``: its messages go with it, its routes answer
        404 / 10003, and the bot is told by CHANNEL_DELETE (a thread: THREAD_DELETE,
        which carries only the ids)."""
        guild = channel.guild
        assert guild is not None, "only guild channels can be deleted"
        del self.channels[channel.id]
        for message in self.messages.values():
            if message.channel is channel:
                message.deleted = True
        if channel.parent is not None:
            data = {
                "id": str(channel.id),
                "guild_id": str(guild.id),
                "parent_id": str(channel.parent.id),
                "type": channel.type,
            }
            await self._broadcast("THREAD_DELETE", lambda s: data, guild.id)
        else:
            guild.channels.remove(channel)
            await self._broadcast("CHANNEL_DELETE", lambda s: channel.payload(), guild.id)
        self._changed()

    async def remove_bot(self, guild: FakeGuild) -> None:
        """The bot is kicked from ``guild``: GUILD_DELETE without ``unavailable``, and
        its channels answer 403 / 50001 from then on."""
        await self._broadcast("GUILD_DELETE", lambda s: {"id": str(guild.id)}, guild.id)
        del guild.members[self.bot_user.id]
        self._changed()

    async def guild_outage(self, guild: FakeGuild) -> None:
        """``guild`` becomes unavailable (a Discord outage, not a removal): GUILD_DELETE
        with ``unavailable: true``; :meth:`guild_recovered` ends it."""
        data = {"id": str(guild.id), "unavailable": True}
        await self._broadcast("GUILD_DELETE", lambda s: data, guild.id)
        self._changed()

    async def guild_recovered(self, guild: FakeGuild) -> None:
        """The end of :meth:`guild_outage`: the guild comes back by GUILD_CREATE."""
        await self._broadcast(
            "GUILD_CREATE", lambda s: self._guild_create_payload(guild, s), guild.id
        )
        self._changed()

    def _bot_permissions(self, channel: FakeChannel) -> int:
        """The bot's permissions in a guild channel: its roles', less the channel's
        overwrite for it (administrators are above overwrites); none once removed."""
        assert channel.guild is not None
        member = channel.guild.members.get(self.bot_user.id)
        if member is None:
            return 0
        value = member.permissions
        if not value & Permission.ADMINISTRATOR:
            where = channel.parent or channel  # a thread has its parent's overwrites
            value &= ~where.denied.get(self.bot_user.id, 0)
        return value

    def _bot_member_has(self, channel: FakeChannel, permissions: int) -> bool:
        if channel.guild is None:
            return True
        return self._bot_permissions(channel) & permissions == permissions

    def channel_messages(self, channel: FakeChannel) -> list[FakeMessage]:
        """What everyone in the channel sees (no ephemeral or deleted messages)."""
        return [
            m
            for m in self.messages.values()
            if m.channel is channel and not m.deleted and m.ephemeral_for is None
        ]

    def visible_messages(self, user: FakeUser, channel: FakeChannel) -> list[FakeMessage]:
        """What ``user`` sees in ``channel``, their own ephemeral messages included."""
        return [m for m in self.messages.values() if m.channel is channel and m.visible_to(user)]

    def dms(self, user: FakeUser) -> list[FakeMessage]:
        """Messages in the DM channel between the bot and ``user``."""
        channel = self._dm_channels.get(user.id)
        return [] if channel is None else self.channel_messages(channel)

    def ephemerals(self, user: FakeUser, channel: FakeChannel | None = None) -> list[FakeMessage]:
        return [
            m
            for m in self.messages.values()
            if m.ephemeral_for is user
            and not m.deleted
            and (channel is None or m.channel is channel)
        ]

    def latest(self, channel: FakeChannel) -> FakeMessage | None:
        messages = self.channel_messages(channel)
        return messages[-1] if messages else None

    def commands(self, guild: FakeGuild | None = None) -> list[Json]:
        """The application commands the bot synced (globally, or for ``guild``)."""
        store = self._global_commands if guild is None else self._guild_commands.get(guild.id, {})
        return copy.deepcopy(list(store.values()))

    @property
    def sessions(self) -> list[_GatewaySession]:
        """Identified gateway sessions that are currently connected."""
        return [s for s in self._sessions.values() if s.connection is not None]

    @property
    def connections(self) -> list[_GatewayConnection]:
        return list(self._connections)

    def requests_to(self, method: str, route: str) -> list[RecordedRequest]:
        method = method.upper()
        return [r for r in self.requests if r.method == method and route in (r.route, r.path)]
