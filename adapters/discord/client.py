"""The discord.py client: what it hands to the adapter.

Plain or auto-sharded, the client only passes discord.py's events on to its
`DiscordAdapter` (``client.schnapsen``): interactions, lost channels and servers, the
gateway dropping and coming back.  Kept apart so the adapter reads as what it does
with them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

if TYPE_CHECKING:
    from .adapter import DiscordAdapter


def intents() -> discord.Intents:
    """Interactions need no intent; guilds keep the channel cache.  Nothing privileged."""
    return discord.Intents(guilds=True)


class _Hooks(discord.Client):
    """What our client adds to discord.py's (plain or auto-sharded) client.

    A base of both, before discord.py's class: its ``on_*`` events, found by
    attribute lookup, come before `discord.Client`'s, and its ``super().__init__``
    is the plain or the auto-sharded client's."""

    schnapsen: DiscordAdapter

    def __init__(self, adapter: DiscordAdapter, **options: Any) -> None:
        super().__init__(
            intents=intents(), allowed_mentions=discord.AllowedMentions.none(), **options
        )
        self.schnapsen = adapter
        self.tree: app_commands.CommandTree[Any] = _Tree(self)

    async def setup_hook(self) -> None:
        await self.schnapsen.setup()

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        await self.schnapsen.on_interaction(interaction)

    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        self.schnapsen.channel_lost(channel.id, "was deleted")

    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        """A table opened in a thread plays there.  Raw: a thread not in discord.py's
        cache is announced too; discord.py also sends it for the cached threads of a
        deleted channel."""
        self.schnapsen.channel_lost(payload.thread_id, "was deleted")

    async def on_guild_remove(self, guild: discord.Guild) -> None:
        """The bot was removed from the server (an outage is `on_guild_unavailable`)."""
        self.schnapsen.server_lost(guild.id)


class _Tree(app_commands.CommandTree[Any]):
    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        """A command delivered a second time (a replay after a resume) is not run
        again: it would open a second table, or answer twice (40060)."""
        adapter: DiscordAdapter = self.client.schnapsen
        return adapter.first_delivery(interaction)

    async def _call(self, interaction: discord.Interaction[Any]) -> None:
        """Every command, with its answer and an error's, counts as being handled: a
        stop waits for it as for a press.  Closed under it, the answer's next request
        met a closed connection: no answer, and an ERROR at a normal shutdown.
        (discord.py's one call around a command and its error handler.)"""
        adapter: DiscordAdapter = self.client.schnapsen
        async with adapter.handling():
            await super()._call(interaction)


class SchnapsenClient(_Hooks, discord.Client):
    async def on_ready(self) -> None:
        self.schnapsen.ready.set()
        await self.schnapsen.gateway_back()

    async def on_disconnect(self) -> None:
        self.schnapsen.gateway_lost()

    async def on_resumed(self) -> None:
        await self.schnapsen.gateway_back()


class ShardedSchnapsenClient(_Hooks, discord.AutoShardedClient):
    """Each shard drops and comes back on its own: the turns wait while any is down
    (a server's presses come through its shard only).  discord.py's shard-less
    `on_disconnect` / `on_resumed` fire for every shard, and `on_ready` after a lone
    shard identified anew not at all, so the shard events decide."""

    async def on_ready(self) -> None:
        self.schnapsen.ready.set()

    async def on_shard_disconnect(self, shard_id: int) -> None:
        self.schnapsen.gateway_lost(shard_id)

    async def on_shard_ready(self, shard_id: int) -> None:
        await self.schnapsen.gateway_back(shard_id)

    async def on_shard_resumed(self, shard_id: int) -> None:
        await self.schnapsen.gateway_back(shard_id)


AnyClient = SchnapsenClient | ShardedSchnapsenClient
