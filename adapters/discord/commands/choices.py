"""What the commands offer to choose: the games, and the presets as typed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str

from bot.i18n import game_name, preset_name
from engine.games import available, game

if TYPE_CHECKING:
    from ..adapter import DiscordAdapter


def game_choices() -> list[app_commands.Choice[str]]:
    return [
        app_commands.Choice(name=locale_str(game_name(g, "en"), game=g), value=g)
        for g in available()
    ]


def presets_of(
    adapter: DiscordAdapter, interaction: discord.Interaction[Any], current: str
) -> list[app_commands.Choice[str]]:
    """The presets of the game chosen, else of his table's game (/rules' preset
    is of that game), else of every game; as typed."""
    chosen = interaction.namespace.game
    table = adapter.service.table_of(adapter.chat(interaction).key, f"dc:{interaction.user.id}")
    if not (isinstance(chosen, str) and chosen) and table is not None:
        chosen = table.game
    ids = [chosen] if isinstance(chosen, str) and chosen else available()
    lang = adapter.user(interaction).lang or adapter.chat(interaction).lang
    part = current.strip().casefold()  # "All" finds all_contracts, "alle" alle Spiele
    shown = {p: preset_name(p, lang)[:100] for g in ids for p in game(g).presets}
    return [
        app_commands.Choice(name=name, value=p)
        for p, name in sorted(shown.items(), key=lambda item: item[1].casefold())
        if part in name.casefold()
    ][:25]
