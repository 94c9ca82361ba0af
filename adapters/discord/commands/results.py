"""The commands about results: /leaderboard, /stats, /record (a finished match's
record, as a file to check), and /forgetme, which deletes a player's."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str

from bot.boards import leaderboard_text, stats_text
from bot.records import record_reply

if TYPE_CHECKING:
    from ..adapter import DiscordAdapter


def add_leaderboard(
    tree: app_commands.CommandTree[Any],
    adapter: DiscordAdapter,
    games: list[app_commands.Choice[str]],
) -> None:
    store = adapter.service.store

    @tree.command(name=locale_str("leaderboard"), description=locale_str("The best players"))
    @app_commands.rename(
        game=locale_str("game"), scope=locale_str("scope"), page=locale_str("page")
    )
    @app_commands.describe(
        game=locale_str("The game (all games if left out)"),
        scope=locale_str("This server or everywhere"),
        page=locale_str("Which ten places (1: the best ten)"),
    )
    @app_commands.choices(
        game=games,
        scope=[
            app_commands.Choice(name=locale_str("This server"), value="server"),
            app_commands.Choice(name=locale_str("Everywhere"), value="global"),
        ],
    )
    async def leaderboard(
        interaction: discord.Interaction[Any],
        game: str | None = None,
        scope: str = "server",
        page: app_commands.Range[int, 1, 1000] = 1,
    ) -> None:
        user = await adapter.who(interaction)
        # a DM has no server, and no rated match is played there (people at one table
        # are in a server): its board is the global one, as for /stats
        server = scope != "global" and interaction.guild_id is not None
        where = adapter.chat(interaction).key if server else "global"
        board = leaderboard_text(
            store,
            where,
            user.speaks,
            games=[game] if game else (),
            player=user.key,
            servers=True,
            page=page,
        )
        body = await adapter.within_budget(interaction, board, ephemeral=False, thinking=True)
        await adapter.reply(interaction, body, ephemeral=False)


def add_stats(tree: app_commands.CommandTree[Any], adapter: DiscordAdapter) -> None:
    store = adapter.service.store

    @tree.command(name=locale_str("stats"), description=locale_str("Statistics of a player"))
    @app_commands.rename(user=locale_str("user"), scope=locale_str("scope"))
    @app_commands.describe(
        user=locale_str("Whose statistics (you if left out)"),
        scope=locale_str("This server or everywhere"),
    )
    @app_commands.choices(
        scope=[
            app_commands.Choice(name=locale_str("This server"), value="server"),
            app_commands.Choice(name=locale_str("Everywhere"), value="global"),
        ],
    )
    async def stats(
        interaction: discord.Interaction[Any],
        user: discord.User | discord.Member | None = None,
        scope: str = "server",
    ) -> None:
        lang = (await adapter.who(interaction)).speaks
        who = user or interaction.user
        # like /leaderboard: this server's games unless asked for all (a public reply
        # must not show what someone played on other servers); a DM has no server
        server = scope != "global" and interaction.guild_id is not None
        where = adapter.chat(interaction).key if server else "global"

        lines = stats_text(store, f"dc:{who.id}", who.display_name, where, lang)
        body = await adapter.within_budget(interaction, lines, ephemeral=False, thinking=True)
        await adapter.reply(interaction, body, ephemeral=False)


def add_record(tree: app_commands.CommandTree[Any], adapter: DiscordAdapter) -> None:
    store = adapter.service.store

    @tree.command(
        name=locale_str("record"),
        description=locale_str("The record of a finished match, as a file to check"),
    )
    @app_commands.rename(table=locale_str("table"))
    @app_commands.describe(
        table=locale_str("The id of a finished table (the newest one here if left out)")
    )
    async def record(interaction: discord.Interaction[Any], table: str | None = None) -> None:
        # the chat /leaderboard counts in (the server, or this DM); only the asker gets
        # it, as only he asked.  A server's matches include those of channels he cannot
        # see: without a table id the newest he played, with one only a match he played
        # or one played in this channel (a table id may be passed on beyond a private
        # channel)
        user = await adapter.who(interaction)
        chat = adapter.chat(interaction).key
        found = await adapter.within_budget(
            interaction,
            record_reply(
                store,
                chat,
                user.speaks,
                table,
                player=user.key,
                place=str(interaction.channel_id),
                private=interaction.guild_id is None,
            ),
        )
        await adapter.reply(interaction, found.text, file=found.file)


def add_forgetme(tree: app_commands.CommandTree[Any], adapter: DiscordAdapter) -> None:
    service = adapter.service

    @tree.command(
        name=locale_str("forgetme"), description=locale_str("Delete your data (results, ratings)")
    )
    async def forgetme(interaction: discord.Interaction[Any]) -> None:
        user = await adapter.who(interaction)
        # a question, answered to him alone: its button deletes (`DiscordAdapter.press`)
        await adapter.ask(interaction, await service.forget(user, ask=True), user)
