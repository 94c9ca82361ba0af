"""Configuration from the environment and `.env`, validated once at start-up.

Every setting is listed in `.env.example`.  Tokens are `SecretStr`s, so they never
show up in a repr, a log line or an error message.  A bad value stops the bot with one
clear line and exit code 2 (`load_config`).
"""

from __future__ import annotations

import difflib
import re
import sys
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

#: The longest a time setting may be, in seconds.
WEEK = 7 * 24 * 3600


class Config(BaseSettings):
    model_config = SettingsConfigDict(
        env_file=".env", env_file_encoding="utf-8", extra="ignore", case_sensitive=False
    )

    # platforms: an adapter starts when its token is set
    discord_token: SecretStr | None = None
    discord_shard_count: int | None = Field(default=None, ge=1)
    discord_shard_ids: list[int] | None = None
    telegram_token: SecretStr | None = None
    telegram_api_url: str = "https://api.telegram.org/bot"
    telegram_webhook_url: str | None = None
    telegram_webhook_secret: SecretStr | None = None
    telegram_webhook_listen: str = "0.0.0.0"
    telegram_webhook_port: int = Field(default=8443, ge=1, le=65535)

    # the core
    database_path: Path = Path("data/schnapsen.sqlite3")
    # Times are finite and at most a week ("inf" parses as a float, and a lobby
    # closing "never" broke every new table): a longer wait is no use at a table.
    turn_timeout: float = Field(default=60.0, gt=0, le=WEEK, allow_inf_nan=False)
    reminder_before: float = Field(default=20.0, ge=0, le=WEEK, allow_inf_nan=False)
    missed_turns_limit: int = Field(default=3, ge=1)
    ai_delay: float = Field(default=1.0, ge=0, le=60, allow_inf_nan=False)
    lobby_expiry: float = Field(default=900.0, gt=0, le=WEEK, allow_inf_nan=False)
    ai_level: Literal["random", "heuristic", "strong"] = "strong"
    ai_workers: int | None = Field(default=None, ge=0)  # None: one per core
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"

    @field_validator(
        "discord_token", "telegram_token", "telegram_webhook_secret", "ai_workers", mode="before"
    )
    @classmethod
    def _empty_is_none(cls, v: object) -> object:
        return None if isinstance(v, str) and not v.strip() else v

    @field_validator("database_path", mode="before")
    @classmethod
    def _home(cls, v: object) -> object:
        # "~/x.sqlite3" as a shell would read it: else a folder named "~" appears
        # in the working folder (one a later `rm -rf ~` mistakes for home)
        if not isinstance(v, str):
            return v
        try:
            return Path(v.strip()).expanduser()
        except RuntimeError:  # "~nobody-known/x", or no home folder to be found
            raise ValueError("starts with a ~ whose home folder is unknown") from None

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper(cls, v: object) -> object:
        return v.upper() if isinstance(v, str) else v

    @field_validator("ai_level", mode="before")
    @classmethod
    def _lower(cls, v: object) -> object:
        return v.strip().lower() if isinstance(v, str) else v

    @field_validator("discord_shard_ids", mode="before")
    @classmethod
    def _shard_ids(cls, v: object) -> object:
        if isinstance(v, int):  # one id ("0") arrives already read as a number
            return [v]
        if isinstance(v, str):
            v = v.strip()
            if not v:
                return None
            if not v.startswith("["):
                try:
                    return [int(x) for x in v.split(",") if x.strip()]
                except ValueError:
                    raise ValueError("must be shard numbers separated by commas") from None
        return v

    # A placeholder ("your-token-here") would be sent to the platform, and offline
    # the bot would try again for ever; a token's shape is known, so say so at once.
    @field_validator("telegram_token")
    @classmethod
    def _telegram_token(cls, v: SecretStr | None) -> SecretStr | None:
        if v is not None and not _TELEGRAM_TOKEN.fullmatch(v.get_secret_value().strip()):
            raise ValueError("is not a bot token: @BotFather gives one like 123456789:AAH…")
        return None if v is None else SecretStr(v.get_secret_value().strip())

    @field_validator("discord_token")
    @classmethod
    def _discord_token(cls, v: SecretStr | None) -> SecretStr | None:
        if v is not None and not _DISCORD_TOKEN.fullmatch(v.get_secret_value().strip()):
            raise ValueError(
                "is not a bot token: the Developer Portal gives one of three parts "
                "joined by dots (Bot → Reset Token)"
            )
        return None if v is None else SecretStr(v.get_secret_value().strip())

    @field_validator("telegram_webhook_url")
    @classmethod
    def _webhook_url(cls, v: str | None) -> str | None:
        if v is None or not v.strip():
            return None
        parts = urlsplit(v.strip())
        if parts.scheme not in ("https", "http") or not parts.netloc:
            raise ValueError("must be the public https:// address Telegram should call")
        return v.strip()

    @field_validator("telegram_webhook_secret")
    @classmethod
    def _webhook_secret(cls, v: SecretStr | None) -> SecretStr | None:
        # Telegram's rule for secret_token; checked here, not at Telegram's 400 later
        if v is not None and not _SECRET.fullmatch(v.get_secret_value()):
            raise ValueError("must be 1-256 characters: letters, digits, _ and -")
        return v

    @model_validator(mode="after")
    def _together(self) -> Config:
        ids = self.discord_shard_ids
        if ids is not None:
            if self.discord_shard_count is None:
                raise ValueError("DISCORD_SHARD_IDS needs DISCORD_SHARD_COUNT (the total)")
            bad = [i for i in ids if not 0 <= i < self.discord_shard_count]
            if bad or len(set(ids)) != len(ids):
                raise ValueError(
                    "DISCORD_SHARD_IDS must be different numbers from 0 to "
                    f"DISCORD_SHARD_COUNT - 1 ({self.discord_shard_count - 1})"
                )
        # Without a token and a TURN_TIMEOUT the terminal table has an hour a move
        # (bot.app): the 60 s default is no limit for the reminder there.
        chat = self.discord_token is not None or self.telegram_token is not None
        if (chat or "turn_timeout" in self.model_fields_set) and (
            self.reminder_before >= self.turn_timeout
        ):
            if "reminder_before" not in self.model_fields_set:
                # TURN_TIMEOUT=10 alone: the default reminder (20 s) cannot come
                # before the end; it comes with a third of the time left, as by default
                self.reminder_before = self.turn_timeout / 3
            else:
                raise ValueError(
                    f"REMINDER_BEFORE ({self.reminder_before:g} s) must be shorter than "
                    f"TURN_TIMEOUT ({self.turn_timeout:g} s)"
                )
        return self


_SECRET = re.compile(r"[A-Za-z0-9_-]{1,256}")
_TELEGRAM_TOKEN = re.compile(r"[0-9]+:[A-Za-z0-9_-]+")
_DISCORD_TOKEN = re.compile(r"[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+){2,}")


class ConfigError(Exception):
    pass


def describe(error: ValidationError) -> str:
    """One line naming each bad setting, without echoing values (they may be secrets)."""
    parts = []
    for e in error.errors():
        name = ".".join(str(x) for x in e["loc"]).upper()
        msg = e["msg"].removeprefix("Value error, ")  # our own checks say it all
        parts.append(f"{name}: {msg}" if name else msg)
    return "bad configuration: " + "; ".join(parts)


def load_config(env_file: str | None = ".env") -> Config:
    """Read the configuration, or print one clear line and exit with code 2."""
    if env_file is not None and Path(env_file).exists() and not Path(env_file).is_file():
        # Docker makes a folder of a bind-mounted file that did not exist; the
        # settings library would skip it and run on the defaults without a word
        what = "a folder" if Path(env_file).is_dir() else "no regular file"
        print(f"bad configuration: {env_file} is {what}, not a file of settings", file=sys.stderr)
        raise SystemExit(2)
    try:
        config = Config(_env_file=env_file)  # type: ignore[call-arg]
        for line in unknown_keys(env_file):
            print(line, file=sys.stderr)
        return config
    except OSError as e:  # e.g. chmod 600 by another user: say so, not a traceback
        print(
            f"bad configuration: cannot read {env_file} ({e.strerror or e});"
            " the user running the bot must be able to read it",
            file=sys.stderr,
        )
        raise SystemExit(2) from None
    except ValidationError as e:
        print(describe(e), file=sys.stderr)
        raise SystemExit(2) from None
    except UnicodeDecodeError as e:  # the bytes may be part of a token: not shown
        print(
            f"bad configuration: {env_file} is not UTF-8 text (byte {e.start + 1} is not);"
            " save it as UTF-8",
            file=sys.stderr,
        )
        raise SystemExit(2) from None


def unknown_keys(env_file: str | None) -> list[str]:
    """A warning for each setting in `env_file` the bot does not read, with the one
    meant if the name is close (`TURN_TIMOUT`): a misspelt setting is ignored, and
    the bot would run on its default without a word.  Only the file: the
    environment holds many variables of other programs.  Only lines shaped
    ``NAME=value`` are read, and only the name is ever printed: a token wrapped onto
    a line of its own is no name to echo."""
    if env_file is None or not Path(env_file).is_file():
        return []
    known = [name.upper() for name in Config.model_fields]
    out = []
    text = Path(env_file).read_text(encoding="utf-8-sig")
    for match in _ASSIGNMENT.finditer(text):
        name = match.group(1).upper()
        if name not in known:
            close = difflib.get_close_matches(name, known, n=1, cutoff=0.75)
            hint = f"; did you mean {close[0]}?" if close else ""
            out.append(f"warning: {env_file} sets {name}, which is no setting (ignored){hint}")
    return out


_ASSIGNMENT = re.compile(r"^[ \t]*(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)[ \t]*=", re.MULTILINE)
