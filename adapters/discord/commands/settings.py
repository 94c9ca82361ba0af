"""/settings: a server's settings shown, or changed by those who may manage it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str

from bot.i18n import game_named, typed
from bot.settings import ChatSettings, setting_words
from bot.views import settings_text
from engine.games import available

from ..texts import text

if TYPE_CHECKING:
    from ..adapter import DiscordAdapter


def add_settings(tree: app_commands.CommandTree[Any], adapter: DiscordAdapter) -> None:
    service = adapter.service

    @tree.command(
        name=locale_str("settings"),
        description=locale_str("Show or change this server's settings"),
    )
    @app_commands.rename(key=locale_str("key"), value=locale_str("value"))
    @app_commands.describe(
        key=locale_str("The setting, e.g. language, suits, turn_timeout"),
        value=locale_str("Its new value"),
    )
    @app_commands.default_permissions(manage_guild=True)
    @app_commands.guild_only()
    async def settings(
        interaction: discord.Interaction[Any], key: str | None = None, value: str | None = None
    ) -> None:
        user = await adapter.who(interaction)
        chat = adapter.chat(interaction)
        if key is None and value is not None:
            # a value alone changes nothing: say so rather than list the settings as if
            # it had been taken
            said = text(user.speaks, "setting_without_key", value=typed(value))
            await adapter.reply(interaction, said)
            return
        # the words as Telegram's /settings reads them: "key:zweier value:manual_claims"
        # is Zweier's preset, "key:turn_timeout=90" a value, as typed there
        words = _fields_as_words(key or "", value or "")
        if len(words) >= 2:
            outcome = await adapter.within_budget(
                interaction,
                service.update_setting(
                    chat,
                    user,
                    words[0],
                    " ".join(words[1:]),
                    is_admin=interaction.permissions.manage_guild,
                ),
            )
            await adapter.reply(interaction, outcome.text or text(user.speaks, "done"))
            return
        if value is not None:
            # a value given is a change, but these words name one setting only
            # ("key:dreier value:plauderer"): which value, rather than only showing it
            await adapter.reply(
                interaction, text(user.speaks, "setting_without_value", key=typed(words[0]))
            )
            return
        key = words[0] if words else key
        current = await adapter.within_budget(interaction, service.settings(chat))
        shown = settings_text(
            current,
            user.speaks,
            turn_timeout=service.timings.turn_timeout,
            ai_level=service.ai_level,
            key=key,
            servers=True,
            example=text(user.speaks, "settings_game"),
            chat_lang=chat.lang,
        )
        await adapter.reply(interaction, shown)


def _fields_as_words(key: str, value: str) -> list[str]:
    """Discord's /settings fields as `setting_words` reads Telegram's words, except
    that a filled value field is one value and a change: a preset by its name for
    players ("key:dreier value:Alle Spiele"), or else a word that is neither an option
    nor a preset of the game, refused as its preset ("unknown preset 'kaerntner'")."""
    gid = game_named(key.strip(), available()) if key.strip() else None
    words = setting_words(key.split() + value.split(), change=bool(value))
    options = ChatSettings().option_names(gid) if gid is not None else []
    if gid is not None and value and words[0] not in options:
        return [f"preset.{gid}", value]
    return words
