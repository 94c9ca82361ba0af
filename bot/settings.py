"""Per-chat settings that admins choose, as one validated value.

Settings are stored as JSON per chat.  `ChatSettings.with_value` is the one place that
reads a setting from a chat command (``/settings turn_timeout 90``), so both platforms
accept the same keys and give the same errors.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.errors import OptionError
from engine.games import GAME_MODULES, UnknownGame, game
from engine.options import option_id, option_ids, options_to_json

from .i18n import (
    LANGUAGES,
    SUIT_STYLES,
    game_named,
    norm_lang,
    option_error,
    preset_named,
    t,
    typed,
)

AI_LEVELS = ("random", "heuristic", "strong")
STARTERS = ("anyone", "admins")
#: Whose rules a new table plays: "open" the chat's settings, which a host may change
#: for his table (`/new dreier all_contracts`); "fixed" always the chat's, so every
#: match here counts on one board under the same rules (a club's house rules).
RULES = ("open", "fixed")
#: What the table message shows of the tricks while a deal runs: "table" as at a card
#: table (the last trick and each side's first trick, RULES.md §3; counting is the
#: players' job), "open" every trick and the running card points (a learners' table).
TRICKS = ("table", "open")


#: The value that takes any setting back to its default.
DEFAULT = "default"
#: The words that take a setting back to its default: German's /settings shows
#: "Standard (…)" where English shows "default (…)", and either is understood.
RESET_WORDS = frozenset({DEFAULT, "standard"})


class SettingError(ValueError):
    """A refused setting.  `code` names its text (``setting.<code>`` in `bot.i18n`) and
    `values` fill it, so an admin reads it in the chat's language; ``str()`` is the
    English text.  An engine's `OptionError` among the values is worded by its code."""

    def __init__(self, code: str, **values: object) -> None:
        self.code = code
        self.values = values
        super().__init__(self.text(None))

    def text(self, lang: str | None) -> str:
        values = {
            k: option_error(lang, v)
            if isinstance(v, OptionError)
            else typed(v)
            if k in ("key", "value") and isinstance(v, str)
            else v
            for k, v in self.values.items()
        }
        return t(lang, f"setting.{self.code}", **values)


@dataclass(frozen=True)
class ChatSettings:
    language: str = ""  # "": the chat's own (a Discord server's locale), else English
    suits: str = "french"
    starters: str = "anyone"
    rules: str = "open"
    turn_timeout: int = 0  # seconds; 0 = the bot's default
    ai_level: str = ""  # "" = the bot's default
    tricks: str = "table"
    presets: dict[str, str] = field(default_factory=dict)
    options: dict[str, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ChatSettings:
        """The stored settings, less what this version no longer has: a game, a
        preset or a rule option an update took out would otherwise make every /new
        of that game fail, and /settings could not even reset it (it names only what
        exists).  They stay in the store all the same (`kept_unread`): a newer version's
        settings, read by this one after a rollback, are there again after the update."""
        known = {f.name for f in dataclasses.fields(cls)}
        fields = {k: v for k, v in data.items() if k in known}
        presets = fields.get("presets")
        if isinstance(presets, dict):
            fields["presets"] = {
                g: p for g, p in presets.items() if g in GAME_MODULES and p in game(g).presets
            }
        options = fields.get("options")
        if isinstance(options, dict):
            kept: dict[str, Any] = {}
            for g, opts in options.items():
                if g not in GAME_MODULES or not isinstance(opts, dict):
                    continue
                ids = set(option_ids(game(g).options_type, g))
                if mine := {k: v for k, v in opts.items() if k in ids}:
                    kept[g] = mine
            fields["options"] = kept
        return cls(**fields)

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def lines(self) -> list[tuple[str, str]]:
        out = [
            ("language", self.language or "default"),
            ("suits", self.suits),
            ("starters", self.starters),
            ("rules", self.rules),
            ("turn_timeout", str(self.turn_timeout or "default")),
            ("ai_level", self.ai_level or "default"),
            ("tricks", self.tricks),
        ]
        out += [(f"preset.{g}", p) for g, p in sorted(self.presets.items())]
        for g, opts in sorted(self.options.items()):
            out += [
                (f"{g}.{k}" if not k.startswith(g + ".") else k, _fmt(v)) for k, v in opts.items()
            ]
        return out

    def game_lines(self, gid: str) -> list[tuple[str, str, bool]]:
        """A game's rule settings: its preset and every option, each with the value a
        new table gets here, and whether the chat left it at the default (the game's
        standard rules, or what the chat's preset sets)."""
        spec = game(gid)
        preset = self.presets.get(gid, "standard")
        out = [(f"preset.{gid}", preset, gid not in self.presets)]
        defaults = preset_options(gid, preset)
        chosen = self.options.get(gid, {})
        for opt in option_ids(spec.options_type, gid):
            name = opt if opt.startswith(gid + ".") else f"{gid}.{opt}"
            out.append((name, _fmt(chosen.get(opt, defaults[opt])), opt not in chosen))
        return out

    def unset(self, key: str) -> tuple[str, str] | None:
        """A preset or rule option this chat never set (`/settings dreier.plauderer`):
        its key and what "default" means there; None for anything else."""
        key = setting_key(key)
        head, _, rest = key.partition(".")
        gid = rest if head == "preset" else head
        if gid not in GAME_MODULES:
            return None
        for name, value, default in self.game_lines(gid):
            if default and name in (key, f"{gid}.{key}"):
                return name, value
        return None

    def with_value(self, key: str, value: str) -> ChatSettings:
        """A copy with one setting changed; `SettingError` explains a bad key or value.

        The value ``default`` takes a setting back to where it was never set (the
        bot's turn timeout and AI level, the game's own rules): without it an admin who
        tried a preset or an option could never undo it."""
        key = setting_key(key)
        value = value.strip()
        reset = value.lower() in RESET_WORDS
        if key in _CHOICES:
            allowed = _CHOICES[key]
            if not reset and value.lower() not in allowed:
                raise SettingError("choice", key=key, allowed=", ".join(allowed))
            chosen: dict[str, Any] = {key: _FIELD_DEFAULTS[key] if reset else value.lower()}
            return dataclasses.replace(self, **chosen)
        if key == "turn_timeout":
            if reset:
                return dataclasses.replace(self, turn_timeout=0)
            try:
                seconds = int(value)
            except ValueError:
                seconds = 0
            if not 10 <= seconds <= 3600:
                raise SettingError("timeout")
            return dataclasses.replace(self, turn_timeout=seconds)
        if key.startswith("preset."):
            gid = key.split(".", 1)[1]
            spec = _game(gid)
            presets = dict(self.presets)
            if value.lower() == DEFAULT:
                presets.pop(gid, None)
            elif (picked := preset_named(value, tuple(spec.presets))) is not None:
                presets[gid] = picked  # "standard" may be a preset's own name
            elif reset:
                presets.pop(gid, None)
            else:
                raise SettingError("preset", value=value, game=gid, presets=", ".join(spec.presets))
            return dataclasses.replace(self, presets=presets)
        gid = key.split(".", 1)[0]
        if gid in GAME_MODULES and "." in key:
            spec = _game(gid)
            ids = option_ids(spec.options_type, gid)
            opt = key if key in ids else key.split(".", 1)[1]
            if opt not in ids:
                # the options as /settings names them, each with its game
                keys = ChatSettings().option_names(gid)
                listed = ", ".join(k for k in keys if not k.startswith("preset."))
                raise SettingError("option", key=key, game=gid, options=listed)
            merged = {k: v for k, v in self.options.get(gid, {}).items() if k != opt}
            if not reset:
                merged[opt] = rule_options(gid, {opt: value})[opt]
                try:
                    spec.parse_options(merged)
                except OptionError as e:
                    raise SettingError("rule", error=e) from None
            options = {g: o for g, o in self.options.items() if g != gid}
            if merged:
                options[gid] = merged
            return dataclasses.replace(self, options=options)
        named = self.options_named(key)
        if named:  # `auto_claim off`: an option, named without its game
            raise SettingError("unknown_option", key=key, keys=", ".join(named))
        raise SettingError("unknown", key=key)

    def option_names(self, gid: str) -> list[str]:
        """A game's rule options as /settings names them (``dreier.plauderer``)."""
        return [name for name, _, _ in self.game_lines(gid)]

    def options_named(self, key: str) -> list[str]:
        """The games' options that `key`, named without its game, may mean
        (``auto_claim``: ``zweier.auto_claim``, ``dreier.auto_claim``, …)."""
        return [f"{g}.{key}" for g in GAME_MODULES if f"{g}.{key}" in self.option_names(g)]


def kept_unread(saved: dict[str, Any], stored: dict[str, Any]) -> dict[str, Any]:
    """`saved` (a change made here), with what `stored` holds that this version does
    not read: a setting, a game, a preset or a rule option of a newer version (the bot
    rolled back) or of an older one.  Nothing a chat chose is lost by going back and
    forth; what this version reads is as `saved` says, a reset included."""
    out = {k: v for k, v in stored.items() if k not in saved} | saved
    presets = dict(saved.get("presets") or {})
    old_presets = stored.get("presets")
    if isinstance(old_presets, dict):
        for g, p in old_presets.items():
            if g not in presets and not (g in GAME_MODULES and p in game(g).presets):
                presets[g] = p
    options = {g: dict(o) for g, o in (saved.get("options") or {}).items()}
    old_options = stored.get("options")
    if isinstance(old_options, dict):
        for g, opts in old_options.items():
            if not isinstance(opts, dict):
                continue
            ids = set(option_ids(game(g).options_type, g)) if g in GAME_MODULES else set()
            if unread := {k: v for k, v in opts.items() if k not in ids}:
                options[g] = unread | options.get(g, {})
    return out | {"presets": presets, "options": options}


def merged_settings(newer: dict[str, Any], older: dict[str, Any]) -> dict[str, Any]:
    """The settings of two chats that became one (a Telegram group upgraded to a
    supergroup whose admin set something there before the bot noticed): `newer`'s
    (the supergroup's) win key by key, and `older` (the group's) fills in what
    `newer` never set — a setting at its default, a game without a preset, a rule
    option not chosen, per game.  Settings this version does not read come along the
    same way (`kept_unread`).  A default cannot be told from a reset to it in the
    store: the group's choice fills that in too."""
    out = dict(older) | {
        k: v for k, v in newer.items() if k not in _FIELD_DEFAULTS or v != _FIELD_DEFAULTS[k]
    }
    presets, old_presets = newer.get("presets"), older.get("presets")
    if isinstance(presets, dict) and isinstance(old_presets, dict):
        out["presets"] = old_presets | presets
    options, old_options = newer.get("options"), older.get("options")
    if isinstance(options, dict) and isinstance(old_options, dict):
        merged = dict(old_options) | options
        for g, opts in options.items():
            old_opts = old_options.get(g)
            if isinstance(opts, dict) and isinstance(old_opts, dict):
                merged[g] = old_opts | opts
        out["options"] = merged
    return out


#: The settings chosen from a list, and what each allows (ai_level: besides the default).
_CHOICES: dict[str, tuple[str, ...]] = {
    "language": LANGUAGES,
    "suits": SUIT_STYLES,
    "starters": STARTERS,
    "rules": RULES,
    "tricks": TRICKS,
    "ai_level": AI_LEVELS,
}
_FIELD_DEFAULTS: dict[str, Any] = {f.name: f.default for f in dataclasses.fields(ChatSettings)}


def setting_key(key: str) -> str:
    """A setting's key as typed, with a game named as `/new` and `/rules` take it
    ("preset.thousand", "1000.players" for "preset.tausend", "tausend.players")."""
    key = key.strip().lower()
    head, dot, rest = key.partition(".")
    if head == "preset" and rest:
        return f"preset.{game_named(rest, tuple(GAME_MODULES)) or rest}"
    if dot and head not in GAME_MODULES:
        gid = game_named(head, tuple(GAME_MODULES))
        if gid is not None:
            return f"{gid}.{rest}"
    return key


def _game(gid: str) -> Any:
    try:
        return game(gid)
    except UnknownGame:
        raise SettingError("game", game=gid, games=", ".join(GAME_MODULES)) from None


def rule_options(gid: str, raw: Mapping[str, Any]) -> dict[str, Any]:
    """Rule options as a host or an admin types them: a name with or without its
    game's prefix (``assenbettler`` for ``dreier.assenbettler``, as the lobby shows
    it), in any case; a switch as on/off, yes/no, true/false or 1/0, a number as
    digits.  Typed values and names no game knows pass on for the engine to refuse in
    its own words."""
    try:
        spec = game(gid)
    except UnknownGame:
        return dict(raw)
    fields = {option_id(gid, f.name): f for f in dataclasses.fields(spec.options_type)}
    out: dict[str, Any] = {}
    for key, value in raw.items():
        name = key.strip().lower()
        if name not in fields:
            # `dreier.assenbettler` typed as the lobby shows it, and `zweier.auto_claim`
            # as `/settings zweier` lists a shared option
            for other in (f"{gid}.{name}", name.removeprefix(gid + ".")):
                if other in fields:
                    name = other
                    break
        field_ = fields.get(name)
        if field_ is not None and isinstance(value, str):
            value = _typed(value, field_.default)
        out[name] = value
    return out


#: A switch's words, German ones too (a German chat's admin may well type "aus").
_SWITCH = {
    **dict.fromkeys(("on", "yes", "true", "1", "an", "ein", "ja"), True),
    **dict.fromkeys(("off", "no", "false", "0", "aus", "nein"), False),
}


def _typed(text: str, default: Any) -> Any:
    """`text` as a value of the kind `default` is (bool before int: a bool is an int)."""
    low = text.strip().lower()
    if isinstance(default, bool):
        return _SWITCH.get(low, text)
    if isinstance(default, int):
        try:
            return int(low)
        except ValueError:
            return text
    return low


def preset_options(gid: str, preset: str | None) -> dict[str, object]:
    """Every rule option of a game, by id, as `preset` sets it (None: the standard
    rules): what "default" means for an option the chat or the host left alone."""
    spec = game(gid)
    return options_to_json(
        spec.parse_options(dict(spec.presets.get(preset or "standard", {}))), gid
    )


#: "on" and "off" in each language's words, the German ones read back by `_SWITCH`.
_SWITCH_WORDS = {"de": {"on": "an", "off": "aus"}}


def chat_language(settings: ChatSettings, chat_lang: str | None) -> str:
    """The language a chat's tables speak: the admins' choice, else the platform's
    language for the chat (a German Discord server gets German tables without an
    admin finding /settings), else English."""
    return settings.language or norm_lang(chat_lang)


def shown_value(value: object, lang: str = "en") -> str:
    """A setting's value as an admin may type it back: a switch is on/off (an/aus in
    German), anything else as it is."""
    if isinstance(value, bool):
        value = "on" if value else "off"
    return _SWITCH_WORDS.get(lang, {}).get(str(value), str(value))


def _fmt(v: Any) -> str:
    return shown_value(v)


def setting_words(args: list[str], *, change: bool = False) -> list[str]:
    """`/settings` words as key and value, however they were typed (on Telegram as
    words, on Discord split across its two fields): ``key value``,
    ``key=value`` and ``key = value`` (as `/new` takes options), ``<game> <option>
    <value>`` and ``<game> option=value``; ``<game> <option>`` looks the option up,
    and ``<game> <preset>`` names the game's preset (one key, one value).  `change`:
    the words are a change (Discord's value field was filled), so ``<game> <word>``
    is its preset even where an option has that name too."""
    args = [a for a in args if a != "="]
    if args and "=" in args[0] and len(args) <= 2:
        key, _, value = args[0].partition("=")
        return [key, *([value] if value else []), *args[1:]]
    gid = game_named(args[0], tuple(GAME_MODULES)) if args and "." not in args[0] else None
    if gid is None or len(args) < 2:
        return args
    # "<game> alle Spiele": the rest names one of its presets, by its id or its name
    # for players; but an option first: four options share a preset's name (dreier
    # carinthian), and looking one up must not change the chat's preset
    named = preset_named(" ".join(args[1:]), tuple(game(gid).presets))
    if named is not None and (change or named not in _option_words(gid)):
        return [f"preset.{gid}", named]
    option, _, value = args[1].partition("=")
    if value:
        return [f"{gid}.{option}", value, *args[2:]]
    if len(args) >= 3:
        return [f"{gid}.{args[1]}", *args[2:]]
    return [f"{gid}.{args[1].lower()}"]


def _option_words(gid: str) -> set[str]:
    """A game's rule options by the word after the game (``carinthian``)."""
    return {k.split(".", 1)[1] for k in ChatSettings().option_names(gid) if "." in k}
