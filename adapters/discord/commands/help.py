"""What the bot answers those who ask how: /rules and /help."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str

from bot.i18n import game_name, t
from bot.rules_text import asked_rules, rules_summary
from bot.settings import chat_language
from engine.games import available

from ..texts import text
from .choices import presets_of

if TYPE_CHECKING:
    from ..adapter import DiscordAdapter


def add_rules(
    tree: app_commands.CommandTree[Any],
    adapter: DiscordAdapter,
    games: list[app_commands.Choice[str]],
) -> None:
    service = adapter.service

    @tree.command(name=locale_str("rules"), description=locale_str("The rules of a game"))
    @app_commands.rename(game=locale_str("game"), preset=locale_str("preset"))
    @app_commands.describe(
        game=locale_str("The game (your table's if left out)"),
        preset=locale_str("A set of house rules"),
    )
    @app_commands.choices(game=games)
    async def rules(
        interaction: discord.Interaction[Any], game: str | None = None, preset: str | None = None
    ) -> None:
        user = await adapter.who(interaction)
        table = service.table_of(adapter.chat(interaction).key, user.key)
        if game is None and preset is not None:
            # a preset of the game at his table, else of no game named: say so
            game = table.game if table is not None else None
            if game is None:
                await adapter.reply(interaction, text(user.speaks, "rules_preset_game"))
                return
        if game is not None:
            # as /schnapsen new would open it: the preset's rules, or its name refused
            body = asked_rules(game, [preset] if preset else [], {}, user.speaks)
        else:
            if table is not None:
                body = rules_summary(table.game, user.speaks, table.options_json)
            else:
                # the overview leaves the contract lists out: four games must fit one
                # Discord message (2,000 characters); /rules GAME shows them
                body = "\n\n".join(
                    rules_summary(g, user.speaks, contracts=False) for g in available()
                )
        await adapter.reply(interaction, body)

    @rules.autocomplete("preset")
    async def rules_preset_names(
        interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        return presets_of(adapter, interaction, current)


def add_help(tree: app_commands.CommandTree[Any], adapter: DiscordAdapter) -> None:
    service = adapter.service

    @tree.command(name=locale_str("help"), description=locale_str("How to play with this bot"))
    async def help_(interaction: discord.Interaction[Any]) -> None:
        lang = (await adapter.who(interaction)).speaks
        # the id as `game:` takes it, in brackets of its own: "Schnapsen (2 players)"
        names = ", ".join(f"{game_name(g, lang)} [{g}]" for g in available())
        # the buttons as the channel's messages label them (its language, which may
        # not be the reader's)
        chat = adapter.chat(interaction)
        shown = chat_language(await service.settings(chat), chat.lang)
        buttons = {k: t(shown, f"button.{k}") for k in ("join", "start", "add_ai", "show_hand")}
        await adapter.reply(interaction, text(lang, "help", games=names, **buttons))
