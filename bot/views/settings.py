"""What `/settings` shows, the same on every platform.

A setting never changed reads "default" with the value that means, and a name that
is almost right gets the one it misses, so an admin need not look anything up.
"""

from __future__ import annotations

import difflib

from engine.games import GAME_MODULES
from engine.games import game as game_spec

from .. import i18n
from ..i18n import t
from ..settings import ChatSettings, setting_key, shown_value


def settings_text(
    settings: ChatSettings,
    lang: str | None,
    *,
    turn_timeout: float,
    ai_level: str,
    key: str | None = None,
    servers: bool = False,
    example: str = "/settings dreier",
    chat_lang: str | None = None,
) -> str:
    """What `/settings` shows: every setting of the chat, the one named by `key`, or
    with a game's id as `key` that game's preset and rule options (Discord calls its
    chats `servers`; `example` is the platform's command for that, in `lang`).

    A setting never changed reads "default" with the value that means (the bot's own
    turn timeout and computer level, the game's rules), so an admin need not look
    them up.
    """
    lg = i18n.norm_lang(lang)
    title = t(lang, "settings.title.server" if servers else "settings.title")

    def line(k: str, v: str) -> str:
        return t(lang, "settings.line", key=k, value=v)

    def about(k: str) -> str | None:
        """What a chat-wide setting does (a rule option's meaning is in /rules)."""
        return t(lang, f"settings.about.{k}") if f"settings.about.{k}" in i18n.TEXTS["en"] else None

    if key is None:
        shown = _settings_shown(settings, lang, turn_timeout, ai_level, chat_lang)
        hint = t(lang, "settings.games", example=example)
        lines = [line(k, v) + (f" — {a}" if (a := about(k)) else "") for k, v in shown]
        return "\n".join([title, *lines, hint])
    want = setting_key(key)
    gid = i18n.game_named(want, tuple(GAME_MODULES))
    if gid is not None:
        rules = [
            (k, t(lang, "settings.default", value=shown_value(v, lg)) if d else shown_value(v, lg))
            for k, v, d in settings.game_lines(gid)
        ]
        # the presets to choose from, which the preset's line names only one of
        presets = ", ".join(i18n.preset_name(p, lg) for p in game_spec(gid).presets)
        hints = [t(lang, "settings.presets", game=gid, presets=presets)] if presets else []
        return "\n".join([title, *(line(k, v) for k, v in rules), *hints])
    found = setting_line(
        settings, lang, want, turn_timeout=turn_timeout, ai_level=ai_level, chat_lang=chat_lang
    )
    if found is not None:
        said = about(found[0])
        return "\n".join([title, line(*found), *([said] if said else [])])
    options = settings.options_named(want)
    if options:  # `/settings auto_claim`: an option, named without its game
        return t(lang, "settings.unknown_option", key=i18n.typed(key), keys=", ".join(options))
    # a typo ("turn_timout") gets the one it misses; anything else the names there are
    names = [k for k, _ in _settings_shown(settings, lang, turn_timeout, ai_level, chat_lang)]
    preset_keys = [f"preset.{g}" for g in GAME_MODULES]
    prefix = i18n.game_named(want.partition(".")[0], tuple(GAME_MODULES)) if "." in want else None
    if prefix is not None:  # "dreier.nonsense": that game's are the ones meant
        names = settings.option_names(prefix)  # its preset's line first
    close = difflib.get_close_matches(want, [*names, *preset_keys], n=1, cutoff=0.75)
    if close:
        return t(lang, "settings.unknown_close", key=i18n.typed(key), guess=close[0])
    if prefix is not None:
        return t(
            lang,
            "settings.unknown_in_game",
            key=i18n.typed(key),
            game=prefix,
            keys=", ".join(names),
        )
    return t(lang, "settings.unknown", key=i18n.typed(key), keys=", ".join(names))


def setting_line(
    settings: ChatSettings,
    lang: str | None,
    key: str,
    *,
    turn_timeout: float,
    ai_level: str,
    chat_lang: str | None = None,
) -> tuple[str, str] | None:
    """One setting as `/settings KEY` shows it, name and value (a preset or rule option
    never set as "default (…)" with what that means); None for no such setting.  The
    answer to a change says the same ("Saved: turn_timeout = 90 s")."""
    want = setting_key(key)
    for name, value in _settings_shown(settings, lang, turn_timeout, ai_level, chat_lang):
        if name == want:
            return name, value
    unset = settings.unset(want)
    if unset is None:
        return None
    name, value = unset
    return name, t(lang, "settings.default", value=shown_value(value, i18n.norm_lang(lang)))


def _settings_shown(
    settings: ChatSettings,
    lang: str | None,
    turn_timeout: float,
    ai_level: str,
    chat_lang: str | None = None,
) -> list[tuple[str, str]]:
    """The chat's settings (`ChatSettings.lines`) as `/settings` lists them: the bot's
    own timeout and computer level where the chat left them, a time with its unit
    ("turn_timeout = 4" could be minutes), switches in the chat's words."""
    lg = i18n.norm_lang(lang)
    defaults = {
        "turn_timeout": f"{turn_timeout:g} s",
        "ai_level": ai_level,
        # the chat's own (a Discord server's locale), else English
        "language": i18n.norm_lang(chat_lang),
    }
    out = []
    for name, value in settings.lines():
        if name in defaults and value == "default":
            value = t(lang, "settings.default", value=defaults[name])
        elif name == "turn_timeout":
            value = f"{value} s"
        elif name not in defaults:
            value = shown_value(value, lg)
        out.append((name, value))
    return out
