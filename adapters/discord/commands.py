"""The slash commands, each a call on the core and a reply.

English names, with German names and descriptions for Discord clients set to German
(`Translator`, from `texts.GERMAN`).  Replies are in the user's client language, or the server's where we lack his.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str

from bot.boards import leaderboard_text, stats_text
from bot.i18n import game_name, game_named, preset_name, t, typed
from bot.records import record_reply
from bot.rules_text import asked_rules, rules_summary
from bot.settings import ChatSettings, chat_language, setting_words
from bot.views import settings_text
from engine.games import available, game

from .texts import GERMAN, text

if TYPE_CHECKING:
    from .adapter import DiscordAdapter


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


def _game_choices() -> list[app_commands.Choice[str]]:
    return [
        app_commands.Choice(name=locale_str(game_name(g, "en"), game=g), value=g)
        for g in available()
    ]


def _missing_text(lang: str | None, missing: list[str]) -> str:
    """The refusal of `/schnapsen new` naming the permissions as Discord's settings
    do, so that an admin finds them there."""
    names = [text(lang, f"perm.{name}") for name in missing]
    if len(names) == 1:
        return text(lang, "missing_permission", permissions=names[0])
    listed = ", ".join(names[:-1]) + text(lang, "perm.and") + names[-1]
    return text(lang, "missing_permissions", permissions=listed)


def install(tree: app_commands.CommandTree[Any], adapter: DiscordAdapter) -> None:
    """Add every command to `tree` (called once, from `setup_hook`)."""
    service = adapter.service
    store = service.store
    games = _game_choices()
    tree.error(adapter.command_failed)

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
        return presets_of(interaction, current)

    def presets_of(
        interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        """The presets of the game chosen, else of his table's game (/rules' preset
        is of that game), else of every game; as typed."""
        chosen = interaction.namespace.game
        table = service.table_of(adapter.chat(interaction).key, f"dc:{interaction.user.id}")
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

    tree.add_command(group)

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
        return presets_of(interaction, current)

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

    @tree.command(name=locale_str("resign"), description=locale_str("Give up your running match"))
    async def resign(interaction: discord.Interaction[Any]) -> None:
        user = await adapter.who(interaction)
        outcome = await adapter.within_budget(
            interaction, service.resign(adapter.chat(interaction), user, ask=True)
        )
        await adapter.ask(interaction, outcome, user)

    @tree.command(
        name=locale_str("forgetme"), description=locale_str("Delete your data (results, ratings)")
    )
    async def forgetme(interaction: discord.Interaction[Any]) -> None:
        user = await adapter.who(interaction)
        # a question, answered to him alone: its button deletes (`DiscordAdapter.press`)
        await adapter.ask(interaction, await service.forget(user, ask=True), user)

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
