"""The commands at a table: `/schnapsen new`, /abort and /resign."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str

from ..texts import text
from .choices import presets_of

if TYPE_CHECKING:
    from ..adapter import DiscordAdapter


def _missing_text(lang: str | None, missing: list[str]) -> str:
    """The refusal of `/schnapsen new` naming the permissions as Discord's settings
    do, so that an admin finds them there."""
    names = [text(lang, f"perm.{name}") for name in missing]
    if len(names) == 1:
        return text(lang, "missing_permission", permissions=names[0])
    listed = ", ".join(names[:-1]) + text(lang, "perm.and") + names[-1]
    return text(lang, "missing_permissions", permissions=listed)


def schnapsen(adapter: DiscordAdapter, games: list[app_commands.Choice[str]]) -> app_commands.Group:
    service = adapter.service

    group = app_commands.Group(
        name=locale_str("schnapsen"), description=locale_str("Play Schnapsen")
    )

    @group.command(name=locale_str("new"), description=locale_str("Open a table in this channel"))
    @app_commands.rename(game=locale_str("game"), preset=locale_str("preset"))
    @app_commands.describe(
        game=locale_str("The game to play"), preset=locale_str("A set of house rules")
    )
    @app_commands.choices(game=games)
    async def new(
        interaction: discord.Interaction[Any], game: str, preset: str | None = None
    ) -> None:
        user = await adapter.who(interaction)
        if missing := adapter.missing_permissions(interaction):
            # said before any table exists: one opened here would close at its first
            # edit or post, telling its players the bot lost a channel it never had
            await adapter.reply(interaction, _missing_text(user.speaks, missing))
            return
        chat = adapter.chat(interaction)
        is_admin = interaction.guild_id is None or interaction.permissions.manage_guild
        outcome = await adapter.within_budget(
            interaction,
            service.create_table(chat, user, game, preset=preset, is_admin=is_admin),
            ephemeral=False,
            thinking=True,
        )
        if not outcome.ok or outcome.table_id is None or outcome.lobby is None:
            await adapter.reply(
                interaction, adapter.said(interaction, user, outcome) or text(user.speaks, "failed")
            )
            return
        await adapter.opened(interaction, outcome.table_id, outcome.lobby.message)

    @new.autocomplete("preset")
    async def preset_names(
        interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        return presets_of(adapter, interaction, current)

    return group


def add_abort(tree: app_commands.CommandTree[Any], adapter: DiscordAdapter) -> None:
    service = adapter.service

    @tree.command(
        name=locale_str("abort"),
        description=locale_str("Close your table (host) or vote to close it"),
    )
    @app_commands.rename(table=locale_str("table"))
    @app_commands.describe(
        table=locale_str("Admins: the id of a table to close (from its table message)")
    )
    async def abort(interaction: discord.Interaction[Any], table: str | None = None) -> None:
        user = await adapter.who(interaction)
        # members who may manage the server close any table of it (abandoned, spam)
        is_admin = interaction.guild_id is not None and interaction.permissions.manage_guild
        chat = adapter.chat(interaction)
        if table is None and is_admin and service.table_of(chat.key, user.key) is None:
            # The chat is the whole server: a bare /abort means this channel's table,
            # never the only one of the server in some other channel.
            here, elsewhere = adapter.tables_by_channel(chat, interaction.channel_id)
            if len(here) == 1:
                table = here[0]
            elif not here and elsewhere:
                await adapter.reply(
                    interaction, text(user.speaks, "abort_where", tables=", ".join(elsewhere))
                )
                return
        outcome = await adapter.within_budget(
            interaction, service.abort(chat, user, is_admin=is_admin, table_id=table)
        )
        if outcome.ok and outcome.text is None and outcome.table_id is not None:
            await adapter.reply(interaction, text(user.speaks, "aborted", table=outcome.table_id))
            return
        await adapter.reply(interaction, outcome.text or text(user.speaks, "done"))


def add_resign(tree: app_commands.CommandTree[Any], adapter: DiscordAdapter) -> None:
    service = adapter.service

    @tree.command(name=locale_str("resign"), description=locale_str("Give up your running match"))
    async def resign(interaction: discord.Interaction[Any]) -> None:
        user = await adapter.who(interaction)
        outcome = await adapter.within_budget(
            interaction, service.resign(adapter.chat(interaction), user, ask=True)
        )
        await adapter.ask(interaction, outcome, user)
