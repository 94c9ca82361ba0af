"""The slash commands, each a call on the core and a reply.

English names, with German names and descriptions for Discord clients set to German
(`Translator`, from `texts.GERMAN`).  Replies are in the user's client language, or the server's where we lack his.

One module per kind of command: `tables` (/schnapsen new, /abort, /resign), `results`
(/leaderboard, /stats, /record, /forgetme), `settings`, `help` (/rules, /help);
`choices` holds the games and presets they offer.  `install` adds them in the order
Discord lists them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str

from bot.i18n import game_name

from ..texts import GERMAN
from .choices import game_choices
from .help import add_help, add_rules
from .results import add_forgetme, add_leaderboard, add_record, add_stats
from .settings import add_settings
from .tables import add_abort, add_resign, schnapsen

if TYPE_CHECKING:
    from ..adapter import DiscordAdapter


class Translator(app_commands.Translator):
    """German for the command names, descriptions and choices (Discord's ``de``)."""

    async def translate(
        self,
        string: locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        if locale is not discord.Locale.german:
            return None
        game_id = string.extras.get("game")
        if isinstance(game_id, str):
            return game_name(game_id, "de")
        return GERMAN.get(string.message)


def install(tree: app_commands.CommandTree[Any], adapter: DiscordAdapter) -> None:
    """Add every command to `tree` (called once, from `setup_hook`), in the order
    the sync sends them to Discord."""
    games = game_choices()
    tree.error(adapter.command_failed)
    tree.add_command(schnapsen(adapter, games))
    add_leaderboard(tree, adapter, games)
    add_stats(tree, adapter)
    add_record(tree, adapter)
    add_rules(tree, adapter, games)
    add_settings(tree, adapter)
    add_abort(tree, adapter)
    add_resign(tree, adapter)
    add_forgetme(tree, adapter)
    add_help(tree, adapter)
