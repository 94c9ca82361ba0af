"""Per-chat settings that admins choose, as one validated value.

Settings are stored as JSON per chat.  `ChatSettings.with_value` is the one place that
reads a setting from a chat command (``/settings turn_timeout 90``), so both platforms
accept the same keys and give the same errors.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from engine.errors import OptionError
from engine.games import GAME_MODULES, UnknownGame, game
from engine.options import option_ids

from .i18n import LANGUAGES, SUIT_STYLES

AI_LEVELS = ("random", "heuristic", "strong")
STARTERS = ("anyone", "admins")
#: What the table message shows of the tricks while a deal runs: "table" as at a card
#: table (the last trick and each side's first trick, RULES.md §3; counting is the
#: players' job), "open" every trick and the running card points (a learners' table).
TRICKS = ("table", "open")


class SettingError(ValueError):
    pass


@dataclass(frozen=True)
class ChatSettings:
    language: str = "en"
    suits: str = "french"
    starters: str = "anyone"
    turn_timeout: int = 0  # seconds; 0 = the bot's default
    ai_level: str = ""  # "" = the bot's default
    tricks: str = "table"
    presets: dict[str, str] = field(default_factory=dict)
    options: dict[str, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ChatSettings:
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def lines(self) -> list[tuple[str, str]]:
        out = [
            ("language", self.language),
            ("suits", self.suits),
            ("starters", self.starters),
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

    def with_value(self, key: str, value: str) -> ChatSettings:
        """A copy with one setting changed; `SettingError` explains a bad key or value."""
        key = key.strip()
        value = value.strip()
        if key == "language":
            return dataclasses.replace(self, language=_choice(key, value.lower(), LANGUAGES))
        if key == "suits":
            return dataclasses.replace(self, suits=_choice(key, value.lower(), SUIT_STYLES))
        if key == "starters":
            return dataclasses.replace(self, starters=_choice(key, value.lower(), STARTERS))
        if key == "tricks":
            return dataclasses.replace(self, tricks=_choice(key, value.lower(), TRICKS))
        if key == "ai_level":
            return dataclasses.replace(self, ai_level=_choice(key, value.lower(), AI_LEVELS))
        if key == "turn_timeout":
            try:
                seconds = int(value)
            except ValueError:
                raise SettingError("turn_timeout must be a number of seconds") from None
            if not 10 <= seconds <= 3600:
                raise SettingError("turn_timeout must be between 10 and 3600 seconds")
            return dataclasses.replace(self, turn_timeout=seconds)
        if key.startswith("preset."):
            gid = key.split(".", 1)[1]
            spec = _game(gid)
            if value not in spec.presets:
                raise SettingError(
                    f"unknown preset {value!r} for {gid} (presets: {', '.join(spec.presets)})"
                )
            return dataclasses.replace(self, presets={**self.presets, gid: value})
        gid = key.split(".", 1)[0]
        if gid in GAME_MODULES and "." in key:
            spec = _game(gid)
            rest = key.split(".", 1)[1]
            ids = option_ids(spec.options_type, gid)
            opt = key if key in ids else rest
            if opt not in ids:
                raise SettingError(f"unknown option {key!r} (options of {gid}: {', '.join(ids)})")
            parsed = _value(value)
            merged = {**self.options.get(gid, {}), opt: parsed}
            try:
                spec.parse_options(merged)
            except OptionError as e:
                raise SettingError(str(e)) from None
            return dataclasses.replace(self, options={**self.options, gid: merged})
        raise SettingError(
            f"unknown setting {key!r} (settings: language, suits, starters, turn_timeout, "
            "ai_level, tricks, preset.<game>, <game>.<option>)"
        )


def _game(gid: str) -> Any:
    try:
        return game(gid)
    except UnknownGame as e:
        raise SettingError(str(e)) from None


def _choice(key: str, value: str, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise SettingError(f"{key} must be one of {', '.join(allowed)}")
    return value


def _value(text: str) -> Any:
    low = text.lower()
    if low in ("true", "on", "yes", "1"):
        return True
    if low in ("false", "off", "no", "0"):
        return False
    try:
        return int(text)
    except ValueError:
        return text


def _fmt(v: Any) -> str:
    if isinstance(v, bool):
        return "on" if v else "off"
    return str(v)
