"""A faithful fake of Discord — REST API and gateway websocket — for end-to-end tests.

Why this exists: discord.py has no test mode, and dpytest knows nothing about
interactions, application commands or components. So the adapter is tested by pointing
the *real* discord.py library at this local server, which speaks Discord's HTTP and
gateway protocols closely enough that discord.py cannot tell the difference, and which
enforces the platform rules that shape the bot's design (see /work/shared/PLATFORMS.md):

* the first response to an interaction within 3 s (later: 404 / 10062), the interaction
  token valid for 15 min (later: 401 / 50027), a second acknowledgement 400 / 40060;
* DMs to a user who closed them (or shares no guild with the bot): 403 / 50007;
* ``custom_id`` of at most 100 characters, at most 5 action rows of at most 5 buttons,
  unique custom ids (400 / 50035 Invalid Form Body);
* edits of messages older than an hour are limited (400 / 30046);
* ephemeral messages are visible only to the interacting user and reachable only
  through the interaction's webhook token (channel routes answer 404 / 10008);
* files (multipart ``payload_json`` plus ``files[n]``) on messages, interaction
  responses, followups and edits, whose ``attachments`` array says which stay; more
  than the ``attachment_size_limit`` in one request is 413 / 40005;
* rate limits: sane ``X-RateLimit-*`` headers on every answer, and
  :meth:`FakeDiscord.rate_limit` makes the next K requests to a route answer 429;
* outages and lost access: :meth:`FakeDiscord.server_error` (5xx, optionally after the
  request took effect), :meth:`FakeDiscord.deny_bot` (a channel overwrite: 50001 /
  50013, and the interactions' ``app_permissions`` say so; ``allow_bot`` lifts it),
  :meth:`FakeDiscord.delete_channel` (10003 and CHANNEL_DELETE),
  :meth:`FakeDiscord.remove_bot` and :meth:`FakeDiscord.guild_outage` (GUILD_DELETE
  without / with ``unavailable``); a message sent with ``enforce_nonce`` twice is
  created once;
* the gateway going away: :meth:`FakeDiscord.drop_connections` (a close code),
  :meth:`FakeDiscord.kill_connections` (no close frame: 1006),
  :meth:`FakeDiscord.request_reconnect` (op 7), :meth:`FakeDiscord.invalidate_sessions`
  (op 9).

Simulated users drive the bot through :meth:`FakeDiscord.slash`,
:meth:`FakeDiscord.click` and :meth:`FakeDiscord.select`; tests read the resulting state
(channel messages, DMs, ephemeral replies, buttons) and wait for changes with
:meth:`FakeDiscord.wait_for`, which wakes on every state change instead of polling.

Typical use::

    async with FakeDiscord() as fake:
        guild = fake.add_guild("Wirtshaus")
        table = fake.add_text_channel(guild, "schnapsen")
        alice = fake.add_member(guild, fake.add_user("alice")).user
        with fake.patched(), ErrorLogGuard():
            async with running_client(bot, fake):
                message = await (await fake.slash(alice, table, "schnapsen new"))
                press = await fake.click(alice, message, "Join")
                await press.wait_acknowledged()
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import copy
import enum
import hashlib
import json
import logging
import math
import re
import secrets
import time
import zlib
from collections.abc import AsyncIterator, Callable, Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

import discord
import discord.gateway
import discord.http
import yarl
from aiohttp import WSMsgType, web

__all__ = [
    "API_VERSION",
    "ApiError",
    "ErrorLogGuard",
    "FakeButton",
    "FakeChannel",
    "FakeDiscord",
    "FakeGuild",
    "FakeInteraction",
    "FakeMember",
    "FakeMessage",
    "FakeRole",
    "FakeSelectMenu",
    "FakeUser",
    "Hold",
    "Intent",
    "InteractionFailed",
    "Limits",
    "MessageFlag",
    "MessageRevision",
    "Permission",
    "RecordedRequest",
    "patch_discord_endpoints",
    "running_client",
]

_log = logging.getLogger(__name__)

Json = dict[str, Any]
T = TypeVar("T")

API_VERSION = 10
DISCORD_EPOCH_MS = 1_420_070_400_000
CDN = "https://cdn.discordapp.com"


# --------------------------------------------------------------------------- constants


class Permission(enum.IntFlag):
    """The permission bits the fake reasons about (Discord's values)."""

    CREATE_INSTANT_INVITE = 1 << 0
    KICK_MEMBERS = 1 << 1
    BAN_MEMBERS = 1 << 2
    ADMINISTRATOR = 1 << 3
    MANAGE_CHANNELS = 1 << 4
    MANAGE_GUILD = 1 << 5
    ADD_REACTIONS = 1 << 6
    VIEW_CHANNEL = 1 << 10
    SEND_MESSAGES = 1 << 11
    MANAGE_MESSAGES = 1 << 13
    EMBED_LINKS = 1 << 14
    ATTACH_FILES = 1 << 15
    READ_MESSAGE_HISTORY = 1 << 16
    USE_EXTERNAL_EMOJIS = 1 << 18
    USE_APPLICATION_COMMANDS = 1 << 31
    SEND_MESSAGES_IN_THREADS = 1 << 38


ALL_PERMISSIONS = discord.Permissions.all().value
EVERYONE_PERMISSIONS = int(
    Permission.CREATE_INSTANT_INVITE
    | Permission.ADD_REACTIONS
    | Permission.VIEW_CHANNEL
    | Permission.SEND_MESSAGES
    | Permission.EMBED_LINKS
    | Permission.ATTACH_FILES
    | Permission.READ_MESSAGE_HISTORY
    | Permission.USE_EXTERNAL_EMOJIS
    | Permission.USE_APPLICATION_COMMANDS
    | Permission.SEND_MESSAGES_IN_THREADS
)
BOT_PERMISSIONS = EVERYONE_PERMISSIONS | int(Permission.MANAGE_MESSAGES)


class Intent(enum.IntFlag):
    """Gateway intents that change what the fake dispatches."""

    GUILDS = 1 << 0
    GUILD_MEMBERS = 1 << 1
    GUILD_PRESENCES = 1 << 8
    GUILD_MESSAGES = 1 << 9
    DIRECT_MESSAGES = 1 << 12
    MESSAGE_CONTENT = 1 << 15


PRIVILEGED_INTENTS = Intent.GUILD_MEMBERS | Intent.GUILD_PRESENCES | Intent.MESSAGE_CONTENT


class MessageFlag(enum.IntFlag):
    SUPPRESS_EMBEDS = 1 << 2
    EPHEMERAL = 1 << 6
    LOADING = 1 << 7
    SUPPRESS_NOTIFICATIONS = 1 << 12
    IS_COMPONENTS_V2 = 1 << 15


class InteractionKind(enum.IntEnum):
    PING = 1
    APPLICATION_COMMAND = 2
    MESSAGE_COMPONENT = 3
    AUTOCOMPLETE = 4
    MODAL_SUBMIT = 5


class CallbackType(enum.IntEnum):
    PONG = 1
    CHANNEL_MESSAGE = 4
    DEFERRED_CHANNEL_MESSAGE = 5
    DEFERRED_UPDATE_MESSAGE = 6
    UPDATE_MESSAGE = 7
    AUTOCOMPLETE_RESULT = 8
    MODAL = 9


_ALLOWED_CALLBACKS: dict[int, frozenset[int]] = {
    InteractionKind.APPLICATION_COMMAND: frozenset({4, 5, 9}),
    InteractionKind.MESSAGE_COMPONENT: frozenset({4, 5, 6, 7, 9}),
    InteractionKind.AUTOCOMPLETE: frozenset({8}),
    InteractionKind.MODAL_SUBMIT: frozenset({4, 5, 6, 7}),
}

_MAJOR_PARAMETERS = frozenset({"channel_id", "guild_id", "webhook_id", "token"})

_MESSAGE_DEFAULT = 0
_MESSAGE_REPLY = 19
_MESSAGE_CHAT_INPUT = 20

_CHANNEL_TEXT = 0
_CHANNEL_DM = 1
_CHANNEL_PUBLIC_THREAD = 11

_COMPONENT_ROW = 1
_COMPONENT_BUTTON = 2
_SELECT_TYPES = frozenset({3, 5, 6, 7, 8})
_COMPONENT_SECTION = 9
_COMPONENT_CONTAINER = 17
_BUTTON_LINK = 5
_BUTTON_PREMIUM = 6


class _Abandoned(Exception):
    """A request the bot gave up on before Discord had all of it."""


@dataclass(kw_only=True)
class Limits:
    """Platform limits and deadlines the fake enforces (Discord's values by default).

    Mutable on purpose: a test shrinks a deadline (``fake.limits.ack_deadline = 0.2``)
    before dispatching the interaction it is about. Deadlines are captured per
    interaction at dispatch time.
    """

    ack_deadline: float = 3.0
    """Seconds an interaction may wait for its first response (else 10062)."""
    token_lifetime: float = 15 * 60.0
    """Seconds the interaction token works for followups and edits (else 50027)."""
    old_message_age: float = 3600.0
    """Messages older than this count against ``old_message_edits``."""
    old_message_edits: int = 0
    """Edits of old messages allowed per channel per hour before 30046. Discord allows
    an undocumented handful; the fake defaults to strict so a design that keeps editing
    one table message for hours fails in tests instead of in production."""
    max_custom_id: int = 100
    max_label: int = 80
    max_action_rows: int = 5
    max_row_buttons: int = 5
    max_v2_components: int = 40
    max_content: int = 2000
    max_embeds: int = 10
    max_embed_total: int = 6000
    max_upload: int = 10 * 1024 * 1024
    """Bytes of files one request may upload (an interaction's
    ``attachment_size_limit``); more is refused with 413 / 40005."""
    upload_rate: float | None = None
    """Bytes per second a bot's uploads arrive at (None: at once): a slow uplink,
    under which a request with a large file takes its time to be answered."""
    bucket_size: int = 50
    """Requests per ``bucket_window`` per route bucket, as reported in X-RateLimit-*."""
    bucket_window: float = 1.0


# --------------------------------------------------------------------------- errors


class ApiError(Exception):
    """An error answer in Discord's JSON shape: ``{"message", "code", "errors"?}``."""

    def __init__(
        self,
        status: int,
        code: int,
        message: str,
        *,
        errors: Json | None = None,
    ) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors

    def body(self) -> Json:
        data: Json = {"message": self.message, "code": self.code}
        if self.errors:
            data["errors"] = self.errors
        return data


_OLD_EDITS_MESSAGE = (
    "Maximum number of edits to messages older than 1 hour reached. Try again later."
)


def _unknown_interaction() -> ApiError:
    return ApiError(404, 10062, "Unknown interaction")


def _unknown_message() -> ApiError:
    return ApiError(404, 10008, "Unknown Message")


def _unknown_channel() -> ApiError:
    return ApiError(404, 10003, "Unknown Channel")


def _send_right(channel: FakeChannel) -> int:
    """The right to post in a channel: in a thread it is "Send Messages in Threads",
    whatever "Send Messages" says (Discord's rule)."""
    return Permission.SEND_MESSAGES_IN_THREADS if channel.is_thread else Permission.SEND_MESSAGES


def _missing_access() -> ApiError:
    return ApiError(403, 50001, "Missing Access")


def _unknown_webhook() -> ApiError:
    return ApiError(404, 10015, "Unknown Webhook")


def _invalid_webhook_token() -> ApiError:
    return ApiError(401, 50027, "Invalid Webhook Token")


class _FormErrors:
    """Collects field errors into Discord's nested ``errors`` tree (code 50035)."""

    def __init__(self) -> None:
        self.tree: Json = {}

    def add(self, path: Sequence[str | int], code: str, message: str) -> None:
        node = self.tree
        for part in path:
            node = node.setdefault(str(part), {})
        node.setdefault("_errors", []).append({"code": code, "message": message})

    def raise_if_any(self) -> None:
        if self.tree:
            raise ApiError(400, 50035, "Invalid Form Body", errors=self.tree)


class InteractionFailed(AssertionError):
    """The interaction got no response within its deadline: the user sees "This
    interaction failed" (or "The application did not respond")."""


# --------------------------------------------------------------------------- helpers


class _Snowflakes:
    """Time-based ids like Discord's. discord.py derives creation times — and so an
    interaction's expiry — from them, so they must encode the real clock."""

    def __init__(self) -> None:
        self._last = 0
        self._past = 0

    def __call__(self, ago: float = 0.0) -> int:
        """A new id; `ago`: made that many seconds in the past (its low bits, the
        increment, from a range of their own so it is still unique)."""
        candidate = (int((time.time() - ago) * 1000) - DISCORD_EPOCH_MS) << 22
        if ago > 0:
            self._past += 1
            return candidate | 0x200000 | (self._past & 0x1FFFFF)
        if candidate <= self._last:
            candidate = self._last + 1
        self._last = candidate
        return candidate


def _iso(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, tz=UTC).isoformat()


def _json_response(
    status: int, data: Any, headers: Mapping[str, str] | None = None
) -> web.Response:
    """A JSON answer whose Content-Type is exactly ``application/json``: discord.py
    compares the header verbatim, so aiohttp's ``json_response`` (which appends
    ``; charset=utf-8``) would make every answer look like text and break login."""
    all_headers = {"Content-Type": "application/json", "Via": "1.1 google"}
    if headers:
        all_headers.update(headers)
    return web.Response(status=status, body=json.dumps(data).encode(), headers=all_headers)


def _no_content(headers: Mapping[str, str] | None = None) -> web.Response:
    """204 without a Content-Type, as Discord answers; with one, discord.py would try
    to parse the empty body as JSON."""
    all_headers = {"Via": "1.1 google"}
    if headers:
        all_headers.update(headers)
    return web.Response(status=204, headers=all_headers)


def _truthy(value: str | None) -> bool:
    return value is not None and value.lower() in {"1", "true"}


# --------------------------------------------------------------------------- entities


@dataclass(eq=False)
class FakeUser:
    """A Discord user; ``dms_closed`` makes DMs from the bot fail with 50007."""

    id: int
    username: str
    global_name: str | None = None
    bot: bool = False
    dms_closed: bool = False
    locale: str = "en-US"

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def payload(self) -> Json:
        data: Json = {
            "id": str(self.id),
            "username": self.username,
            "global_name": self.global_name,
            "discriminator": "0",
            "avatar": None,
            "public_flags": 0,
            "flags": 0,
            "banner": None,
            "accent_color": None,
            "avatar_decoration_data": None,
            "collectibles": None,
            "primary_guild": None,
        }
        if self.bot:
            data["bot"] = True
        return data


@dataclass(eq=False)
class FakeRole:
    id: int
    name: str
    permissions: int
    position: int = 0
    bot_id: int | None = None

    def payload(self) -> Json:
        data: Json = {
            "id": str(self.id),
            "name": self.name,
            "permissions": str(self.permissions),
            "position": self.position,
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "managed": self.bot_id is not None,
            "mentionable": False,
            "icon": None,
            "unicode_emoji": None,
            "flags": 0,
        }
        if self.bot_id is not None:
            data["tags"] = {"bot_id": str(self.bot_id)}
        return data


@dataclass(eq=False)
class FakeMember:
    user: FakeUser
    guild: FakeGuild
    roles: list[FakeRole] = field(default_factory=list)
    nick: str | None = None
    joined_at: float = field(default_factory=time.time)

    @property
    def permissions(self) -> int:
        """Guild-level permissions: @everyone plus roles; owner and admins get all."""
        if self.user is self.guild.owner:
            return ALL_PERMISSIONS
        value = self.guild.everyone.permissions
        for role in self.roles:
            value |= role.permissions
        if value & Permission.ADMINISTRATOR:
            return ALL_PERMISSIONS
        return value

    def has(self, permissions: int) -> bool:
        return self.permissions & permissions == permissions

    def payload(self, *, with_user: bool = True, with_permissions: bool = False) -> Json:
        data: Json = {
            "roles": [str(role.id) for role in self.roles],
            "nick": self.nick,
            "avatar": None,
            "banner": None,
            "joined_at": _iso(self.joined_at),
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "communication_disabled_until": None,
        }
        if with_user:
            data["user"] = self.user.payload()
        if with_permissions:
            data["permissions"] = str(self.permissions)
        return data


@dataclass(eq=False)
class FakeChannel:
    """A guild text channel, a public thread in one (``parent``), or a DM channel
    between the bot and ``recipient``."""

    id: int
    type: int
    name: str | None = None
    guild: FakeGuild | None = None
    recipient: FakeUser | None = None
    position: int = 0
    topic: str | None = None
    last_message_id: int | None = None
    denied: dict[int, int] = field(default_factory=dict)
    """Member overwrites: user id → the permission bits denied in this channel."""
    parent: FakeChannel | None = None
    owner: FakeUser | None = None
    created: float = 0.0

    @property
    def is_dm(self) -> bool:
        return self.type == _CHANNEL_DM

    @property
    def is_thread(self) -> bool:
        return self.parent is not None

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"

    def payload(self) -> Json:
        if self.is_dm:
            assert self.recipient is not None
            return {
                "id": str(self.id),
                "type": _CHANNEL_DM,
                "last_message_id": str(self.last_message_id) if self.last_message_id else None,
                "recipients": [self.recipient.payload()],
                "flags": 0,
            }
        assert self.guild is not None
        if self.parent is not None:
            assert self.owner is not None
            return {
                "id": str(self.id),
                "type": self.type,
                "guild_id": str(self.guild.id),
                "parent_id": str(self.parent.id),
                "owner_id": str(self.owner.id),
                "name": self.name,
                "last_message_id": str(self.last_message_id) if self.last_message_id else None,
                "rate_limit_per_user": 0,
                "message_count": 0,
                "member_count": 1,
                "thread_metadata": {
                    "archived": False,
                    "auto_archive_duration": 1440,
                    "archive_timestamp": _iso(self.created),
                    "locked": False,
                },
                "flags": 0,
            }
        return {
            "id": str(self.id),
            "type": self.type,
            "guild_id": str(self.guild.id),
            "name": self.name,
            "position": self.position,
            "permission_overwrites": [
                {"id": str(user_id), "type": 1, "allow": "0", "deny": str(deny)}
                for user_id, deny in self.denied.items()
            ],
            "parent_id": None,
            "topic": self.topic,
            "nsfw": False,
            "last_message_id": str(self.last_message_id) if self.last_message_id else None,
            "rate_limit_per_user": 0,
            "flags": 0,
        }


@dataclass(eq=False)
class FakeGuild:
    id: int
    name: str
    owner: FakeUser
    roles: list[FakeRole] = field(default_factory=list)
    members: dict[int, FakeMember] = field(default_factory=dict)
    channels: list[FakeChannel] = field(default_factory=list)
    locale: str = "en-US"
    created_at: float = field(default_factory=time.time)

    @property
    def everyone(self) -> FakeRole:
        return self.roles[0]

    def role(self, name: str) -> FakeRole | None:
        return next((role for role in self.roles if role.name == name), None)

    def member(self, user: FakeUser) -> FakeMember | None:
        return self.members.get(user.id)

    def payload(self) -> Json:
        """The REST form of a guild (GET /guilds/{id})."""
        return {
            "id": str(self.id),
            "name": self.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "owner_id": str(self.owner.id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "roles": [role.payload() for role in self.roles],
            "emojis": [],
            "stickers": [],
            "features": [],
            "mfa_level": 0,
            "application_id": None,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "max_members": 500_000,
            "vanity_url_code": None,
            "description": None,
            "banner": None,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": self.locale,
            "public_updates_channel_id": None,
            "safety_alerts_channel_id": None,
            "nsfw_level": 0,
            "premium_progress_bar_enabled": False,
        }


@dataclass(frozen=True)
class FakeButton:
    """A button as a user sees it on a message."""

    label: str | None
    custom_id: str | None
    style: int
    disabled: bool
    url: str | None
    emoji: str | None
    row: int
    component_id: int | None


@dataclass(frozen=True)
class FakeSelectMenu:
    """A select menu as a user sees it; ``options`` are (label, value) pairs."""

    custom_id: str
    type: int
    placeholder: str | None
    options: tuple[tuple[str, str], ...]
    min_values: int
    max_values: int
    disabled: bool
    row: int
    component_id: int | None


@dataclass(frozen=True)
class MessageRevision:
    """A message's content before an edit (``FakeMessage.history``)."""

    content: str
    embeds: list[Json]
    components: list[Json]
    flags: int
    at: float


@dataclass(eq=False)
class FakeMessage:
    """A stored message. ``ephemeral_for`` is the only user who can see it, if set."""

    id: int
    channel: FakeChannel
    author: FakeUser
    content: str = ""
    embeds: list[Json] = field(default_factory=list)
    components: list[Json] = field(default_factory=list)
    attachments: list[Json] = field(default_factory=list)
    files: dict[int, bytes] = field(default_factory=dict)
    flags: int = 0
    type: int = _MESSAGE_DEFAULT
    created_at: float = field(default_factory=time.time)
    edited_at: float | None = None
    deleted: bool = False
    ephemeral_for: FakeUser | None = None
    webhook_id: int | None = None
    application_id: int | None = None
    interaction: FakeInteraction | None = None
    """The interaction this message answers (original response or followup)."""
    interaction_metadata: Json | None = None
    mentions: list[FakeUser] = field(default_factory=list)
    pinged: list[FakeUser] = field(default_factory=list)
    """Those of `mentions` the message notified when sent: its `allowed_mentions`
    decide (an edit notifies nobody)."""
    history: list[MessageRevision] = field(default_factory=list)
    nonce: str | None = None

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & MessageFlag.EPHEMERAL)

    @property
    def loading(self) -> bool:
        """A deferred response ("Bot is thinking…") not yet filled in."""
        return bool(self.flags & MessageFlag.LOADING)

    def visible_to(self, user: FakeUser) -> bool:
        if self.deleted:
            return False
        if self.ephemeral_for is not None:
            return self.ephemeral_for is user
        if self.channel.is_dm:
            return self.channel.recipient is user
        assert self.channel.guild is not None
        return user.id in self.channel.guild.members

    @property
    def text(self) -> str:
        """Content plus the text of every embed, for assertions that do not care
        whether the bot rendered something as content or as an embed."""
        parts = [self.content]
        for embed in self.embeds:
            parts.extend(str(embed.get(key) or "") for key in ("title", "description"))
            for embed_field in embed.get("fields", []):
                parts.append(f"{embed_field.get('name', '')}: {embed_field.get('value', '')}")
            footer = embed.get("footer") or {}
            parts.append(str(footer.get("text") or ""))
        return "\n".join(part for part in parts if part)

    @property
    def rows(self) -> list[list[FakeButton]]:
        """The buttons, row by row (rows without buttons are left out)."""
        result: list[list[FakeButton]] = []
        for index, row in enumerate(_component_rows(self.components)):
            buttons = [
                _button_from(component, index)
                for component in row
                if component.get("type") == _COMPONENT_BUTTON
            ]
            if buttons:
                result.append(buttons)
        return result

    @property
    def buttons(self) -> list[FakeButton]:
        return [button for row in self.rows for button in row]

    @property
    def selects(self) -> list[FakeSelectMenu]:
        result: list[FakeSelectMenu] = []
        for index, row in enumerate(_component_rows(self.components)):
            for component in row:
                if component.get("type") in _SELECT_TYPES:
                    result.append(
                        FakeSelectMenu(
                            custom_id=component["custom_id"],
                            type=component["type"],
                            placeholder=component.get("placeholder"),
                            options=tuple(
                                (option["label"], option["value"])
                                for option in component.get("options", [])
                            ),
                            min_values=component.get("min_values", 1),
                            max_values=component.get("max_values", 1),
                            disabled=bool(component.get("disabled", False)),
                            row=index,
                            component_id=component.get("id"),
                        )
                    )
        return result

    def button(self, target: str) -> FakeButton:
        """The button whose custom_id, or else whose label, is ``target``."""
        by_id = [button for button in self.buttons if button.custom_id == target]
        if by_id:
            return by_id[0]
        by_label = [button for button in self.buttons if button.label == target]
        if len(by_label) == 1:
            return by_label[0]
        labels = [button.label or button.custom_id for button in self.buttons]
        if not by_label:
            raise LookupError(f"no button {target!r} on message {self.id}; it has {labels}")
        raise LookupError(f"several buttons labelled {target!r} on message {self.id}: {labels}")

    def payload(self) -> Json:
        data: Json = {
            "id": str(self.id),
            "channel_id": str(self.channel.id),
            "type": self.type,
            "content": self.content,
            "author": self.author.payload(),
            "timestamp": _iso(self.created_at),
            "edited_timestamp": _iso(self.edited_at) if self.edited_at is not None else None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [user.payload() for user in self.mentions],
            "mention_roles": [],
            "attachments": copy.deepcopy(self.attachments),
            "embeds": copy.deepcopy(self.embeds),
            "components": copy.deepcopy(self.components),
            "pinned": False,
            "flags": self.flags,
        }
        guild = self.channel.guild
        if guild is not None:
            data["guild_id"] = str(guild.id)
            member = guild.members.get(self.author.id)
            if member is not None and self.webhook_id is None:
                data["member"] = member.payload(with_user=False)
        if self.webhook_id is not None:
            data["webhook_id"] = str(self.webhook_id)
        if self.application_id is not None:
            data["application_id"] = str(self.application_id)
        if self.interaction_metadata is not None:
            data["interaction_metadata"] = copy.deepcopy(self.interaction_metadata)
        if self.nonce is not None:
            data["nonce"] = self.nonce
        return data

    def __repr__(self) -> str:
        return (
            f"<FakeMessage id={self.id} channel={self.channel.id} author={self.author.username!r}"
            f" content={self.content[:40]!r} flags={self.flags} buttons={len(self.buttons)}>"
        )


def _component_rows(components: Sequence[Json]) -> list[list[Json]]:
    """Action rows in display order, including rows nested in v2 containers and a
    section's button accessory (shown as a one-button row)."""
    rows: list[list[Json]] = []
    for component in components:
        kind = component.get("type")
        if kind == _COMPONENT_ROW:
            rows.append(list(component.get("components", [])))
        elif kind == _COMPONENT_SECTION:
            accessory = component.get("accessory")
            if accessory and accessory.get("type") == _COMPONENT_BUTTON:
                rows.append([accessory])
        elif kind == _COMPONENT_CONTAINER:
            rows.extend(_component_rows(component.get("components", [])))
    return rows


def _button_from(component: Json, row: int) -> FakeButton:
    emoji = component.get("emoji") or None
    return FakeButton(
        label=component.get("label"),
        custom_id=component.get("custom_id"),
        style=component.get("style", 1),
        disabled=bool(component.get("disabled", False)),
        url=component.get("url"),
        emoji=(emoji.get("name") if isinstance(emoji, dict) else None),
        row=row,
        component_id=component.get("id"),
    )


# --------------------------------------------------------------------------- interactions


@dataclass(eq=False)
class FakeInteraction:
    """One interaction a simulated user started, and everything the bot answered.

    ``await interaction`` waits for the response message (see :meth:`wait_original`).
    """

    id: int
    token: str
    kind: int
    user: FakeUser
    channel: FakeChannel
    data: Json
    payload: Json
    created: float
    """Monotonic clock (``loop.time()``) at dispatch."""
    ack_deadline: float
    token_deadline: float
    fake: FakeDiscord = field(repr=False)
    message: FakeMessage | None = None
    """The message whose component was used (component interactions)."""
    command_name: str | None = None
    callback_type: int | None = None
    acknowledged_at: float | None = None
    original: FakeMessage | None = None
    """The response message; for deferred/updated component responses, the clicked one."""
    followups: list[FakeMessage] = field(default_factory=list)
    modal: Json | None = None
    autocomplete_choices: list[Json] | None = None
    rejections: list[ApiError] = field(default_factory=list)
    """Errors the fake answered the bot's requests about this interaction with."""
    late: float = 0.0
    """Seconds between the press and its delivery to the bot (``click(late=...)``)."""

    @property
    def expired_on_arrival(self) -> bool:
        """It reached the bot after its window: no answer could be in time."""
        return self.created + self.late >= self.ack_deadline

    @property
    def guild(self) -> FakeGuild | None:
        return self.channel.guild

    @property
    def acknowledged(self) -> bool:
        return self.callback_type is not None

    @property
    def failed(self) -> bool:
        """True once the deadline passed without a response."""
        return self.callback_type is None and self.fake._now() >= self.ack_deadline

    @property
    def token_expired(self) -> bool:
        return self.fake._now() >= self.token_deadline

    def expire_token(self) -> None:
        """Its token runs out now (15 minutes after the interaction on Discord): from
        then on every edit or followup through it is refused with 401 / 50027."""
        self.token_deadline = self.fake._now()
        self.fake._changed()

    @property
    def responses(self) -> list[FakeMessage]:
        """The original response (if it is a message of its own) and the followups."""
        own = (
            [self.original]
            if self.original is not None and self.original is not self.message
            else []
        )
        return own + self.followups

    async def wait_acknowledged(self, timeout: float = 5.0) -> int:
        """Wait for the first response and return its callback type (4, 5, 6, 7, 8, 9).

        Raises :class:`InteractionFailed` once the acknowledgement deadline passes.
        """
        await self.fake.wait_for(
            lambda: self.acknowledged or self.failed,
            timeout=timeout,
            description=f"acknowledgement of interaction {self.id}",
        )
        if self.callback_type is None:
            raise InteractionFailed(
                f"interaction {self.id} ({self.command_name or self.data.get('custom_id')}) was"
                " not acknowledged in time: the user sees 'This interaction failed'"
            )
        return self.callback_type

    async def wait_original(self, timeout: float = 5.0) -> FakeMessage:
        """Wait for the response message, past a deferred "thinking…" state.

        For 4/5 that is the new message; for 6/7 the clicked message.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        await self.wait_acknowledged(timeout)

        def ready() -> FakeMessage | None:
            if self.original is not None and not self.original.loading:
                return self.original
            return None

        return await self.fake.wait_for(
            ready,
            timeout=max(deadline - loop.time(), 0.0),
            description=f"response message of interaction {self.id}",
        )

    async def wait_followups(self, count: int = 1, timeout: float = 5.0) -> list[FakeMessage]:
        """Wait until at least ``count`` followup messages exist."""
        await self.fake.wait_for(
            lambda: len(self.followups) >= count,
            timeout=timeout,
            description=f"{count} followups of interaction {self.id}",
        )
        return list(self.followups)

    def __await__(self) -> Generator[Any, None, FakeMessage]:
        return self.wait_original().__await__()

    def __repr__(self) -> str:
        what = self.command_name or self.data.get("custom_id")
        return (
            f"<FakeInteraction id={self.id} kind={self.kind} {what!r} user={self.user.username!r}"
            f" callback={self.callback_type}>"
        )


@dataclass
class RecordedRequest:
    """One REST request the bot made, with the answer's status and error code."""

    method: str
    path: str
    route: str | None
    query: dict[str, str]
    body: Any
    status: int = 0
    code: int | None = None
    at: float = 0.0


@dataclass
class _InjectedRateLimit:
    method: str
    route: str
    remaining: int
    retry_after: float
    is_global: bool


@dataclass
class _InjectedFailure:
    method: str
    route: str
    remaining: int
    status: int
    processed: bool


_Injected = TypeVar("_Injected", _InjectedRateLimit, _InjectedFailure)


def _take(queue: list[_Injected], method: str, template: str, path: str) -> _Injected | None:
    """The first injected answer still due for this request (and count it used)."""
    for injected in queue:
        if injected.method == method and injected.route in (template, path) and injected.remaining:
            injected.remaining -= 1
            return injected
    return None


#: `FakeDiscord.server_error`'s status for a connection cut before any answer.
RESET = 0


def _reset(request: web.Request) -> web.Response:
    """Cut the connection without an answer (a reset on the way)."""
    transport = request.transport
    if transport is not None:
        transport.abort()
    return web.Response(status=204)  # never arrives: the connection is gone


def _server_error(status: int) -> web.Response:
    reason = {500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable"}
    message = f"{status}: {reason.get(status, 'Server Error')}"
    return _json_response(status, {"message": message, "code": 0})


@dataclass(eq=False)
class Hold:
    """REST requests that wait, neither carried out nor answered, until `release`:
    the bot's message is on its way while people go on pressing (`FakeDiscord.hold`)."""

    fake: FakeDiscord = field(repr=False)
    method: str
    route: str
    waiting: int = 0  # requests held right now
    held: int = 0  # requests held so far
    gate: asyncio.Event = field(default_factory=asyncio.Event, repr=False)

    def release(self) -> None:
        """Let the held requests (and any later ones) through."""
        if self in self.fake._holds:
            self.fake._holds.remove(self)
        self.gate.set()
        self.fake._changed()

    async def wait_held(self, count: int = 1, timeout: float = 5.0) -> None:
        await self.fake.wait_for(
            lambda: self.held >= count,
            timeout=timeout,
            description=f"{count} held {self.method} {self.route}",
        )


@dataclass
class _Bucket:
    started: float
    count: int = 0


@dataclass
class _Call:
    """What a REST handler gets: path parameters, query and the decoded body."""

    params: dict[str, str]
    query: Mapping[str, str]
    body: Any
    files: list[tuple[str, str, bytes, str]]
    request: web.Request


_Handler = Callable[[_Call], Any]


@dataclass
class _Route:
    method: str
    template: str
    pattern: re.Pattern[str]
    handler: _Handler
    auth: bool
    bucketed: bool
    major: tuple[str, ...]


# --------------------------------------------------------------------------- gateway


class _GatewayConnection:
    """One websocket. Sends are serialised by ``lock`` because zlib-stream frames
    share one compressor and because sequence numbers must go out in order."""

    def __init__(self, ws: web.WebSocketResponse, compression: str | None) -> None:
        self.ws = ws
        self.requested_compression = compression
        # discord.py asks for zlib-stream (or zstd-stream when zstandard is installed).
        # Text frames are always accepted, so anything but zlib-stream is sent as text.
        self.compression = compression if compression == "zlib-stream" else None
        self._compressor = zlib.compressobj() if self.compression else None
        self.lock = asyncio.Lock()
        self.session: _GatewaySession | None = None
        self.heartbeats = 0
        self.closed_by_fake = False
        """aiohttp reports 1000 for every close the server starts, so the fake
        remembers that it closed the socket itself (a resumable drop)."""
        self.transport: asyncio.Transport | None = None

    async def send_locked(self, payload: Json) -> None:
        text = json.dumps(payload, separators=(",", ":"))
        try:
            if self._compressor is not None:
                data = self._compressor.compress(text.encode()) + self._compressor.flush(
                    zlib.Z_SYNC_FLUSH
                )
                await self.ws.send_bytes(data)
            else:
                await self.ws.send_str(text)
        except (ConnectionError, RuntimeError):
            _log.debug("gateway send on a closed socket dropped: %s", payload.get("t"))

    async def send(self, payload: Json) -> None:
        async with self.lock:
            await self.send_locked(payload)


@dataclass(eq=False)
class _GatewaySession:
    id: str
    shard: tuple[int, int] | None
    intents: int
    connection: _GatewayConnection | None = None
    seq: int = 0
    backlog: list[Json] = field(default_factory=list)
    resumes: int = 0

    def receives(self, guild_id: int | None) -> bool:
        """Guild events go to the guild's shard; DMs to shard 0 (Discord's rule)."""
        if self.shard is None:
            return True
        shard_id, count = self.shard
        return ((guild_id or 0) >> 22) % count == shard_id

    def frame(self, event: str, data: Json) -> Json:
        self.seq += 1
        payload: Json = {"op": 0, "t": event, "s": self.seq, "d": data}
        self.backlog.append(payload)
        del self.backlog[:-2000]
        return payload

    async def dispatch(self, event: str, data: Json) -> None:
        connection = self.connection
        if connection is None:
            self.frame(event, data)  # kept for a RESUME
            return
        async with connection.lock:
            payload = self.frame(event, data)
            if self.connection is connection:
                await connection.send_locked(payload)


# --------------------------------------------------------------------------- the fake


class FakeDiscord:
    """The fake Discord server plus the control API the tests use.

    Start it with ``async with FakeDiscord() as fake`` (or :meth:`start`/:meth:`stop`)
    and point discord.py at it with :meth:`patched`.
    """

    def __init__(
        self,
        *,
        token: str = "fake.bot.token",
        bot_name: str = "Schnapsen",
        limits: Limits | None = None,
        heartbeat_interval_ms: int = 41_250,
        recommended_shards: int = 1,
        allowed_privileged_intents: int = int(PRIVILEGED_INTENTS),
        host: str = "127.0.0.1",
    ) -> None:
        self.token = token
        self.limits = limits or Limits()
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.recommended_shards = recommended_shards
        self.allowed_privileged_intents = allowed_privileged_intents
        self.host = host
        self.port = 0

        self._snowflake = _Snowflakes()
        self.users: dict[int, FakeUser] = {}
        self.guilds: dict[int, FakeGuild] = {}
        self.channels: dict[int, FakeChannel] = {}
        self.messages: dict[int, FakeMessage] = {}
        self.interactions: list[FakeInteraction] = []
        self.requests: list[RecordedRequest] = []
        self.unhandled: list[RecordedRequest] = []
        self.internal_errors: list[BaseException] = []

        self.bot_user = self.add_user(bot_name, bot=True)
        self.application_id = self.bot_user.id
        self.application_owner = self.add_user(f"{bot_name} developer")
        self.application_flags = (1 << 13) | (1 << 15) | (1 << 19)

        self._global_commands: dict[str, Json] = {}
        self._guild_commands: dict[int, dict[str, Json]] = {}
        self._dm_channels: dict[int, FakeChannel] = {}
        self._interactions: dict[int, FakeInteraction] = {}
        self._interactions_by_token: dict[str, FakeInteraction] = {}
        self._sessions: dict[str, _GatewaySession] = {}
        self._connections: list[_GatewayConnection] = []
        self._stalled: dict[int, list[tuple[_GatewayConnection, Json]]] = {}
        self._buckets: dict[tuple[str, tuple[str, ...]], _Bucket] = {}
        self._injected: list[_InjectedRateLimit] = []
        self._failures: list[_InjectedFailure] = []
        self._holds: list[Hold] = []
        self._old_edits: dict[int, list[float]] = {}
        self._waiters: list[asyncio.Future[None]] = []
        self._timers: list[asyncio.TimerHandle] = []
        self._tasks: set[asyncio.Task[None]] = set()
        self._routes: list[_Route] = []
        self._runner: web.AppRunner | None = None
        self._register_routes()

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/api/v{version:[0-9]+}/{tail:.*}", self._serve_rest)
        app.router.add_get("/", self._serve_gateway)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, 0)
        await site.start()
        address = self._runner.addresses[0]
        self.port = int(address[1])

    async def stop(self) -> None:
        for hold in list(self._holds):
            hold.release()
        for timer in self._timers:
            timer.cancel()
        for connection in list(self._connections):
            connection.closed_by_fake = True
            with contextlib.suppress(Exception):
                await asyncio.wait_for(connection.ws.close(code=1001), 1.0)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeDiscord:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    @property
    def api_base(self) -> str:
        return f"http://{self.host}:{self.port}/api/v{API_VERSION}"

    @property
    def gateway_url(self) -> str:
        return f"ws://{self.host}:{self.port}/"

    def patched(self) -> contextlib.AbstractContextManager[None]:
        """Point discord.py (process-wide) at this server for the ``with`` block."""
        return patch_discord_endpoints(self.api_base, self.gateway_url)

    def assert_healthy(self) -> None:
        """Fail if the fake itself broke or the bot used a route the fake lacks —
        either would otherwise show up only as a confusing timeout."""
        problems = [f"fake internal error: {error!r}" for error in self.internal_errors]
        problems += [f"unhandled route: {r.method} {r.path}" for r in self.unhandled]
        if problems:
            raise AssertionError("\n".join(problems))

    # ------------------------------------------------------------------ world building

    def add_user(
        self,
        username: str,
        *,
        global_name: str | None = None,
        bot: bool = False,
        dms_closed: bool = False,
        locale: str = "en-US",
    ) -> FakeUser:
        user = FakeUser(
            id=self._snowflake(),
            username=username,
            global_name=global_name,
            bot=bot,
            dms_closed=dms_closed,
            locale=locale,
        )
        self.users[user.id] = user
        return user

    def add_guild(self, name: str, *, owner: FakeUser | None = None) -> FakeGuild:
        """A guild the bot is in (it gets a managed role with ordinary permissions).
        Guilds added while the bot is connected arrive as a GUILD_CREATE (a join)."""
        owner = owner or self.add_user(f"{name} owner")
        guild = FakeGuild(id=self._snowflake(), name=name, owner=owner)
        guild.roles.append(
            FakeRole(id=guild.id, name="@everyone", permissions=EVERYONE_PERMISSIONS)
        )
        bot_role = FakeRole(
            id=self._snowflake(),
            name=self.bot_user.username,
            permissions=BOT_PERMISSIONS,
            position=1,
            bot_id=self.bot_user.id,
        )
        guild.roles.append(bot_role)
        self.guilds[guild.id] = guild
        guild.members[owner.id] = FakeMember(user=owner, guild=guild)
        guild.members[self.bot_user.id] = FakeMember(
            user=self.bot_user, guild=guild, roles=[bot_role]
        )
        self._background(
            self._broadcast(
                "GUILD_CREATE",
                lambda s: self._guild_create_payload(guild, s, joined=True),
                guild.id,
            )
        )
        return guild

    def add_role(self, guild: FakeGuild, name: str, permissions: int) -> FakeRole:
        role = FakeRole(
            id=self._snowflake(), name=name, permissions=int(permissions), position=len(guild.roles)
        )
        guild.roles.append(role)
        return role

    def add_member(
        self,
        guild: FakeGuild,
        user: FakeUser,
        *,
        roles: Sequence[FakeRole] = (),
        manage_guild: bool = False,
        administrator: bool = False,
        nick: str | None = None,
    ) -> FakeMember:
        """Make ``user`` a member; ``manage_guild``/``administrator`` grant those
        permissions through a shared "Moderator"/"Admin" role."""
        member_roles = list(roles)
        if manage_guild:
            member_roles.append(
                guild.role("Moderator")
                or self.add_role(guild, "Moderator", Permission.MANAGE_GUILD)
            )
        if administrator:
            member_roles.append(
                guild.role("Admin") or self.add_role(guild, "Admin", Permission.ADMINISTRATOR)
            )
        member = FakeMember(user=user, guild=guild, roles=member_roles, nick=nick)
        guild.members[user.id] = member
        self._background(
            self._broadcast(
                "GUILD_MEMBER_ADD",
                lambda s: (
                    {**member.payload(), "guild_id": str(guild.id)}
                    if s.intents & Intent.GUILD_MEMBERS
                    else None
                ),
                guild.id,
            )
        )
        return member

    def add_text_channel(
        self, guild: FakeGuild, name: str, *, topic: str | None = None
    ) -> FakeChannel:
        channel = FakeChannel(
            id=self._snowflake(),
            type=_CHANNEL_TEXT,
            name=name,
            guild=guild,
            position=len(guild.channels),
            topic=topic,
        )
        guild.channels.append(channel)
        self.channels[channel.id] = channel
        self._background(self._broadcast("CHANNEL_CREATE", lambda s: channel.payload(), guild.id))
        return channel

    def add_thread(self, parent: FakeChannel, name: str, *, owner: FakeUser) -> FakeChannel:
        """A public thread in ``parent``, started by ``owner`` (THREAD_CREATE).  Its
        permissions are the parent's."""
        guild = parent.guild
        assert guild is not None and not parent.is_thread, "threads live in guild channels"
        thread = FakeChannel(
            id=self._snowflake(),
            type=_CHANNEL_PUBLIC_THREAD,
            name=name,
            guild=guild,
            parent=parent,
            owner=owner,
            created=time.time(),
        )
        self.channels[thread.id] = thread
        self._background(self._broadcast("THREAD_CREATE", lambda s: thread.payload(), guild.id))
        return thread

    def dm_channel(self, user: FakeUser, *, create: bool = False) -> FakeChannel | None:
        """The DM channel between the bot and ``user`` (opened by either side)."""
        channel = self._dm_channels.get(user.id)
        if channel is None and create:
            channel = FakeChannel(id=self._snowflake(), type=_CHANNEL_DM, recipient=user)
            self._dm_channels[user.id] = channel
            self.channels[channel.id] = channel
        return channel

    def shares_guild_with_bot(self, user: FakeUser) -> bool:
        return any(
            user.id in guild.members and self.bot_user.id in guild.members
            for guild in self.guilds.values()
        )

    def age_message(self, message: FakeMessage, seconds: float) -> None:
        """Pretend ``message`` was created ``seconds`` earlier (for the 30046 limit)."""
        message.created_at -= seconds

    def rate_limit(
        self,
        method: str,
        route: str,
        *,
        times: int = 1,
        retry_after: float = 0.05,
        is_global: bool = False,
    ) -> None:
        """Answer the next ``times`` requests to ``route`` with 429.

        ``route`` is a template as discord.py spells it
        (``"/channels/{channel_id}/messages"``) or a concrete path.
        """
        self._injected.append(
            _InjectedRateLimit(method.upper(), route, times, retry_after, is_global)
        )

    def server_error(
        self, method: str, route: str, *, status: int = 503, times: int = 1, processed: bool = False
    ) -> None:
        """Answer the next ``times`` requests to ``route`` with ``status`` (a 5xx), as a
        Discord outage does.  ``processed``: the request takes effect all the same and
        only the answer is lost (a gateway timeout behind which the message was sent).
        discord.py sleeps 1 s before retrying a 500, 502 or 504 itself; a 503 it raises.
        ``status=RESET``: no answer at all, the connection is cut (the bot's aiohttp
        raises a connection error, which discord.py does not turn into its own)."""
        self._failures.append(_InjectedFailure(method.upper(), route, times, status, processed))

    def hold(self, method: str, route: str) -> Hold:
        """Hold the bot's next requests to ``route`` (a template as discord.py spells
        it, or a concrete path) before they are carried out, until ``release()``:
        a message still on its way while users press on, as on a slow network."""
        hold = Hold(self, method.upper(), route)
        self._holds.append(hold)
        return hold

    def deny_bot(self, channel: FakeChannel, permissions: int) -> None:
        """A member overwrite that takes ``permissions`` from the bot in ``channel``
        (announced as CHANNEL_UPDATE).  Without VIEW_CHANNEL every channel route answers
        403 / 50001; without SEND_MESSAGES posting answers 403 / 50013 (the bot may
        still edit its own messages there), in the channel's threads without
        SEND_MESSAGES_IN_THREADS.  Interactions from there carry the reduced
        ``app_permissions``."""
        channel.denied[self.bot_user.id] = channel.denied.get(self.bot_user.id, 0) | permissions
        guild = channel.guild
        assert guild is not None, "overwrites exist in guild channels only"
        self._background(self._broadcast("CHANNEL_UPDATE", lambda s: channel.payload(), guild.id))

    def allow_bot(self, channel: FakeChannel, permissions: int) -> None:
        """An admin lifts what :meth:`deny_bot` took (announced as CHANNEL_UPDATE)."""
        denied = channel.denied.get(self.bot_user.id, 0) & ~permissions
        if denied:
            channel.denied[self.bot_user.id] = denied
        else:
            channel.denied.pop(self.bot_user.id, None)
        guild = channel.guild
        assert guild is not None, "overwrites exist in guild channels only"
        self._background(self._broadcast("CHANNEL_UPDATE", lambda s: channel.payload(), guild.id))

    async def delete_channel(self, channel: FakeChannel) -> None:
        """Someone deletes ``channel``: its messages go with it, its routes answer
        404 / 10003, and the bot is told by CHANNEL_DELETE (a thread: THREAD_DELETE,
        which carries only the ids)."""
        guild = channel.guild
        assert guild is not None, "only guild channels can be deleted"
        del self.channels[channel.id]
        for message in self.messages.values():
            if message.channel is channel:
                message.deleted = True
        if channel.parent is not None:
            data = {
                "id": str(channel.id),
                "guild_id": str(guild.id),
                "parent_id": str(channel.parent.id),
                "type": channel.type,
            }
            await self._broadcast("THREAD_DELETE", lambda s: data, guild.id)
        else:
            guild.channels.remove(channel)
            await self._broadcast("CHANNEL_DELETE", lambda s: channel.payload(), guild.id)
        self._changed()

    async def remove_bot(self, guild: FakeGuild) -> None:
        """The bot is kicked from ``guild``: GUILD_DELETE without ``unavailable``, and
        its channels answer 403 / 50001 from then on."""
        await self._broadcast("GUILD_DELETE", lambda s: {"id": str(guild.id)}, guild.id)
        del guild.members[self.bot_user.id]
        self._changed()

    async def guild_outage(self, guild: FakeGuild) -> None:
        """``guild`` becomes unavailable (a Discord outage, not a removal): GUILD_DELETE
        with ``unavailable: true``; :meth:`guild_recovered` ends it."""
        data = {"id": str(guild.id), "unavailable": True}
        await self._broadcast("GUILD_DELETE", lambda s: data, guild.id)
        self._changed()

    async def guild_recovered(self, guild: FakeGuild) -> None:
        """The end of :meth:`guild_outage`: the guild comes back by GUILD_CREATE."""
        await self._broadcast(
            "GUILD_CREATE", lambda s: self._guild_create_payload(guild, s), guild.id
        )
        self._changed()

    # ------------------------------------------------------------------ reading state

    def channel_messages(self, channel: FakeChannel) -> list[FakeMessage]:
        """What everyone in the channel sees (no ephemeral or deleted messages)."""
        return [
            m
            for m in self.messages.values()
            if m.channel is channel and not m.deleted and m.ephemeral_for is None
        ]

    def visible_messages(self, user: FakeUser, channel: FakeChannel) -> list[FakeMessage]:
        """What ``user`` sees in ``channel``, their own ephemeral messages included."""
        return [m for m in self.messages.values() if m.channel is channel and m.visible_to(user)]

    def dms(self, user: FakeUser) -> list[FakeMessage]:
        """Messages in the DM channel between the bot and ``user``."""
        channel = self._dm_channels.get(user.id)
        return [] if channel is None else self.channel_messages(channel)

    def ephemerals(self, user: FakeUser, channel: FakeChannel | None = None) -> list[FakeMessage]:
        return [
            m
            for m in self.messages.values()
            if m.ephemeral_for is user
            and not m.deleted
            and (channel is None or m.channel is channel)
        ]

    def latest(self, channel: FakeChannel) -> FakeMessage | None:
        messages = self.channel_messages(channel)
        return messages[-1] if messages else None

    def commands(self, guild: FakeGuild | None = None) -> list[Json]:
        """The application commands the bot synced (globally, or for ``guild``)."""
        store = self._global_commands if guild is None else self._guild_commands.get(guild.id, {})
        return copy.deepcopy(list(store.values()))

    @property
    def sessions(self) -> list[_GatewaySession]:
        """Identified gateway sessions that are currently connected."""
        return [s for s in self._sessions.values() if s.connection is not None]

    @property
    def connections(self) -> list[_GatewayConnection]:
        return list(self._connections)

    def requests_to(self, method: str, route: str) -> list[RecordedRequest]:
        method = method.upper()
        return [r for r in self.requests if r.method == method and route in (r.route, r.path)]

    async def wait_for(
        self,
        predicate: Callable[[], T | None],
        *,
        timeout: float = 5.0,
        description: str | None = None,
    ) -> T:
        """Wait until ``predicate()`` is truthy and return its value.

        Re-evaluated on every state change of the fake (requests, gateway events,
        deadlines passing), never by polling. This is a condition variable; it is not
        an :class:`asyncio.Condition` because changes are announced from synchronous
        code (timers, handlers mid-way) where a Condition's lock cannot be taken.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            result = predicate()
            if result:
                return result
            remaining = deadline - loop.time()
            if remaining <= 0:
                what = description or getattr(predicate, "__name__", "condition")
                raise TimeoutError(f"fake Discord: {what} not reached within {timeout:.1f}s")
            waiter: asyncio.Future[None] = loop.create_future()
            self._waiters.append(waiter)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(waiter, remaining)

    # ------------------------------------------------------------------ simulated users

    async def slash(
        self,
        user: FakeUser,
        channel: FakeChannel | None,
        command: str,
        /,
        **options: Any,
    ) -> FakeInteraction:
        """``user`` runs a slash command, e.g. ``slash(alice, table, "schnapsen new",
        points=7)``; subcommands (and groups) are space-separated, as Discord shows
        them. ``channel=None`` means the user's DM with the bot.

        Raises ``LookupError``/``ValueError``/``PermissionError`` for what the Discord
        client would not let the user send (unknown command, bad options, a command
        hidden by ``default_member_permissions`` or its contexts).
        """
        channel, data = self._command_data(user, channel, command, options)
        return await self._dispatch_interaction(
            kind=InteractionKind.APPLICATION_COMMAND,
            user=user,
            channel=channel,
            data=data,
            command_name=" ".join(command.lstrip("/").split()),
        )

    async def autocomplete(
        self,
        user: FakeUser,
        channel: FakeChannel | None,
        command: str,
        focused: str,
        /,
        **options: Any,
    ) -> list[Json]:
        """``user`` types into option ``focused`` of a slash command (its value so far
        in ``options``, the other options as filled): the choices the bot offers, as
        the Discord client would list them.  Raises as `slash` does for a command the
        client would not offer."""
        channel, data = self._command_data(user, channel, command, options)
        leaf: list[Json] = data["options"]
        while leaf and leaf[0].get("type") in (1, 2):  # down to the subcommand's options
            leaf = leaf[0]["options"]
        typed = next((o for o in leaf if o["name"] == focused), None)
        if typed is None:
            raise ValueError(f"/{command}: option {focused!r} must be typed into")
        typed["focused"] = True
        interaction = await self._dispatch_interaction(
            kind=InteractionKind.AUTOCOMPLETE, user=user, channel=channel, data=data
        )
        await self.wait_for(
            lambda: interaction.acknowledged or None, description="the autocomplete answer"
        )
        assert interaction.callback_type == CallbackType.AUTOCOMPLETE_RESULT, interaction
        return interaction.autocomplete_choices or []

    def _command_data(
        self, user: FakeUser, channel: FakeChannel | None, command: str, options: dict[str, Any]
    ) -> tuple[FakeChannel, Json]:
        """Where a slash command is run and its interaction's ``data``, checked as the
        Discord client checks what a user may send."""
        if channel is None:
            channel = self.dm_channel(user, create=True)
            assert channel is not None
        self._check_user_in_channel(user, channel)
        path = command.lstrip("/").split()
        if not path:
            raise ValueError("empty command")
        root = self._find_command(path[0], channel.guild)
        self._check_command_available(root, user, channel)

        chain: list[Json] = []
        definitions: list[Json] = root.get("options") or []
        for name in path[1:]:
            sub = next(
                (o for o in definitions if o.get("type") in (1, 2) and o["name"] == name), None
            )
            if sub is None:
                names = [o["name"] for o in definitions if o.get("type") in (1, 2)]
                raise LookupError(f"/{' '.join(path)}: no subcommand {name!r}; has {names}")
            chain.append(sub)
            definitions = sub.get("options") or []
        if any(o.get("type") in (1, 2) for o in definitions):
            names = [o["name"] for o in definitions]
            raise ValueError(f"/{' '.join(path)} needs a subcommand: one of {names}")

        leaf, resolved = self._command_options(definitions, options, channel)
        nested: list[Json] = leaf
        for sub in reversed(chain):
            nested = [{"name": sub["name"], "type": sub["type"], "options": nested}]
        data: Json = {"id": root["id"], "name": root["name"], "type": 1, "options": nested}
        if resolved:
            data["resolved"] = resolved
        if root.get("guild_id"):
            data["guild_id"] = root["guild_id"]
        return channel, data

    async def click(
        self,
        user: FakeUser,
        message: FakeMessage,
        target: str,
        *,
        forged: bool = False,
        late: float = 0.0,
    ) -> FakeInteraction:
        """``user`` presses the button whose custom_id or label is ``target``.

        Clicking an old message works as long as the button is still on it (that is
        what survives a restart). ``forged=True`` sends ``target`` as the custom_id
        even if no such button exists, as a tampered client would; the message in the
        interaction then carries the forged id in place of its first button.
        ``late``: the press reaches the bot that many seconds after the user made it
        (a lagging gateway, a bot whose loop was busy): its id, creation time and
        3-second window count from the press, so less of the window is left.
        """
        self._check_user_in_channel(user, message.channel)
        if not message.visible_to(user):
            raise PermissionError(f"{user.username} cannot see message {message.id}")
        message_payload = message.payload()
        component_id: int | None = None
        if forged:
            custom_id = target
            existing = next((b for b in message.buttons if b.custom_id == target), None)
            if existing is None:
                _forge_button(message_payload, custom_id)
            else:
                component_id = existing.component_id
        else:
            button = message.button(target)
            if button.disabled:
                raise ValueError(f"button {target!r} on message {message.id} is disabled")
            if button.custom_id is None:
                raise ValueError(f"button {target!r} is a link button; it opens {button.url}")
            custom_id = button.custom_id
            component_id = button.component_id
        data: Json = {"custom_id": custom_id, "component_type": _COMPONENT_BUTTON}
        if component_id is not None:
            data["id"] = component_id
        return await self._dispatch_interaction(
            kind=InteractionKind.MESSAGE_COMPONENT,
            user=user,
            channel=message.channel,
            data=data,
            message=message,
            message_payload=message_payload,
            late=late,
        )

    async def select(
        self,
        user: FakeUser,
        message: FakeMessage,
        target: str,
        values: Sequence[str],
    ) -> FakeInteraction:
        """``user`` picks ``values`` in the select menu with custom_id or placeholder
        ``target``."""
        self._check_user_in_channel(user, message.channel)
        if not message.visible_to(user):
            raise PermissionError(f"{user.username} cannot see message {message.id}")
        menus = [m for m in message.selects if target in (m.custom_id, m.placeholder)]
        if len(menus) != 1:
            raise LookupError(f"no single select menu {target!r} on message {message.id}")
        menu = menus[0]
        if menu.disabled:
            raise ValueError(f"select menu {target!r} is disabled")
        if not menu.min_values <= len(values) <= menu.max_values:
            raise ValueError(f"pick {menu.min_values}..{menu.max_values} values, not {len(values)}")
        known = {value for _, value in menu.options}
        if menu.type == 3 and not set(values) <= known:
            raise ValueError(f"values {sorted(set(values) - known)} are not options of {target!r}")
        data: Json = {
            "custom_id": menu.custom_id,
            "component_type": menu.type,
            "values": list(values),
        }
        if menu.component_id is not None:
            data["id"] = menu.component_id
        return await self._dispatch_interaction(
            kind=InteractionKind.MESSAGE_COMPONENT,
            user=user,
            channel=message.channel,
            data=data,
            message=message,
            message_payload=message.payload(),
        )

    async def post(self, user: FakeUser, channel: FakeChannel, content: str) -> FakeMessage:
        """``user`` writes an ordinary message (dispatched as MESSAGE_CREATE)."""
        self._check_user_in_channel(user, channel)
        message = self._store_message(channel, user, {"content": content}, [])
        await self._announce_create(message)
        return message

    async def request_reconnect(self) -> None:
        """Send op 7 RECONNECT on every connection; discord.py then resumes."""
        for connection in list(self._connections):
            await connection.send({"op": 7, "d": None, "s": None, "t": None})

    async def drop_connections(self, code: int = 4000) -> None:
        """Close every gateway connection with a resumable close code, as a network
        hiccup or a Discord restart would; events meanwhile are kept for RESUME."""
        for connection in list(self._connections):
            connection.closed_by_fake = True
            with contextlib.suppress(Exception):
                await asyncio.wait_for(
                    connection.ws.close(code=code, message=b"fake: dropped"), 5.0
                )

    async def shard_outage(self, shard_id: int) -> None:
        """Shard ``shard_id`` loses its connection (a resumable close) and cannot get
        it back: its RESUME waits unanswered, its events are kept, until
        :meth:`shard_recovered`.  The other shards stay connected."""
        self._stalled.setdefault(shard_id, [])
        for connection in list(self._connections):
            session = connection.session
            if session is not None and session.shard is not None and session.shard[0] == shard_id:
                connection.closed_by_fake = True
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(
                        connection.ws.close(code=4000, message=b"fake: shard outage"), 5.0
                    )

    async def shard_recovered(self, shard_id: int) -> None:
        """The end of :meth:`shard_outage`: the waiting RESUME is answered."""
        for connection, data in self._stalled.pop(shard_id, []):
            await self._resume(connection, data)

    async def kill_connections(self) -> None:
        """Cut every gateway connection without a close frame (the client sees 1006,
        as after a network failure); events meanwhile are kept for RESUME."""
        for connection in list(self._connections):
            connection.closed_by_fake = True
            if connection.transport is not None:
                connection.transport.abort()

    async def invalidate_sessions(self, *, resumable: bool = False) -> None:
        """Send op 9 INVALID SESSION on every connection.  Not resumable: the session
        is gone (a RESUME fails too) and the client must IDENTIFY anew; events meanwhile
        are lost, as on Discord."""
        for connection in list(self._connections):
            session = connection.session
            if session is not None and not resumable:
                self._sessions.pop(session.id, None)
                session.connection = None
                connection.session = None
            await connection.send({"op": 9, "d": resumable, "s": None, "t": None})

    # ------------------------------------------------------------------ internals: misc

    def _now(self) -> float:
        return time.monotonic()

    def _changed(self) -> None:
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)

    def _background(self, coroutine: Any) -> None:
        """Run a gateway announcement from synchronous world-building code."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            coroutine.close()
            return
        if not self._sessions:
            coroutine.close()
            return
        task = loop.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _check_user_in_channel(self, user: FakeUser, channel: FakeChannel) -> None:
        if channel.is_dm:
            if channel.recipient is not user:
                raise PermissionError(f"{user.username} is not in DM channel {channel.id}")
        else:
            assert channel.guild is not None
            if user.id not in channel.guild.members:
                raise PermissionError(f"{user.username} is not a member of {channel.guild.name}")

    def _find_command(self, name: str, guild: FakeGuild | None) -> Json:
        if guild is not None:
            command = self._guild_commands.get(guild.id, {}).get(name)
            if command is not None and command.get("type", 1) == 1:
                return command
        command = self._global_commands.get(name)
        if command is None or command.get("type", 1) != 1:
            known = sorted(self._global_commands) + sorted(
                self._guild_commands.get(guild.id, {}) if guild else []
            )
            raise LookupError(f"/{name} is not a synced command here; synced: {known}")
        return command

    def _check_command_available(self, command: Json, user: FakeUser, channel: FakeChannel) -> None:
        contexts = command.get("contexts")
        if channel.is_dm:
            if (contexts is not None and 1 not in contexts) or (
                contexts is None and command.get("dm_permission") is False
            ):
                raise PermissionError(f"/{command['name']} is not available in DMs")
            return
        if contexts is not None and 0 not in contexts:
            raise PermissionError(f"/{command['name']} is not available in guilds")
        required = command.get("default_member_permissions")
        assert channel.guild is not None
        member = channel.guild.members[user.id]
        if required is not None and not member.has(int(required)):
            raise PermissionError(
                f"/{command['name']} is hidden from {user.username}: needs permissions {required}"
            )

    def _command_options(
        self, definitions: Sequence[Json], given: Mapping[str, Any], channel: FakeChannel
    ) -> tuple[list[Json], Json]:
        by_name = {d["name"]: d for d in definitions}
        unknown = set(given) - set(by_name)
        if unknown:
            raise ValueError(
                f"unknown options {sorted(unknown)}; the command has {sorted(by_name)}"
            )
        missing = [d["name"] for d in definitions if d.get("required") and d["name"] not in given]
        if missing:
            raise ValueError(f"missing required options {missing}")
        options: list[Json] = []
        resolved: Json = {}
        for name, value in given.items():
            definition = by_name[name]
            kind = definition["type"]
            options.append(
                {
                    "name": name,
                    "type": kind,
                    "value": self._option_value(definition, value, resolved, channel),
                }
            )
        return options, resolved

    def _option_value(
        self, definition: Json, value: Any, resolved: Json, channel: FakeChannel
    ) -> Any:
        kind = definition["type"]
        name = definition["name"]
        guild = channel.guild
        if kind in (6, 9) and isinstance(value, FakeMember | FakeUser):
            user = value.user if isinstance(value, FakeMember) else value
            resolved.setdefault("users", {})[str(user.id)] = user.payload()
            member = guild.members.get(user.id) if guild else None
            if member is not None:
                resolved.setdefault("members", {})[str(user.id)] = member.payload(
                    with_user=False, with_permissions=True
                )
            return str(user.id)
        if kind in (8, 9) and isinstance(value, FakeRole):
            resolved.setdefault("roles", {})[str(value.id)] = value.payload()
            return str(value.id)
        if kind == 7 and isinstance(value, FakeChannel):
            resolved.setdefault("channels", {})[str(value.id)] = {
                "id": str(value.id),
                "name": value.name,
                "type": value.type,
                "permissions": str(ALL_PERMISSIONS),
            }
            return str(value.id)
        scalar_types: dict[int, tuple[type, ...]] = {
            3: (str,),
            4: (int,),
            5: (bool,),
            10: (int, float),
        }
        accepted = scalar_types.get(kind)
        if (
            accepted is None
            or not isinstance(value, accepted)
            or (kind != 5 and isinstance(value, bool))
        ):
            raise ValueError(f"option {name!r} (type {kind}) cannot take {value!r}")
        if isinstance(value, str) and not definition.get("min_length", 0) <= len(
            value
        ) <= definition.get("max_length", 6000):
            raise ValueError(f"option {name!r}: length of {value!r} out of range")
        if kind in (4, 10):
            low, high = definition.get("min_value"), definition.get("max_value")
            if (low is not None and value < low) or (high is not None and value > high):
                raise ValueError(f"option {name!r}: {value} outside {low}..{high}")
        choices = definition.get("choices")
        if choices and value not in [c["value"] for c in choices]:
            raise ValueError(f"option {name!r}: {value!r} is not one of the choices")
        return value

    async def _dispatch_interaction(
        self,
        *,
        kind: int,
        user: FakeUser,
        channel: FakeChannel,
        data: Json,
        message: FakeMessage | None = None,
        message_payload: Json | None = None,
        command_name: str | None = None,
        late: float = 0.0,
    ) -> FakeInteraction:
        interaction_id = self._snowflake(late)
        secret = secrets.token_urlsafe(48)
        token = (
            base64.urlsafe_b64encode(f"interaction:{interaction_id}:".encode()).decode().rstrip("=")
        )
        token += secret
        guild = channel.guild
        payload: Json = {
            "id": str(interaction_id),
            "application_id": str(self.application_id),
            "type": int(kind),
            "data": data,
            "channel_id": str(channel.id),
            "token": token,
            "version": 1,
            "locale": user.locale,
            "entitlements": [],
            "entitlement_sku_ids": [],
            "attachment_size_limit": self.limits.max_upload,
        }
        channel_payload = channel.payload()
        if guild is not None:
            member = guild.members[user.id]
            channel_payload["permissions"] = str(member.permissions)
            payload.update(
                guild_id=str(guild.id),
                guild={"id": str(guild.id), "locale": guild.locale, "features": []},
                guild_locale=guild.locale,
                member=member.payload(with_permissions=True),
                app_permissions=str(self._bot_permissions(channel)),
                authorizing_integration_owners={"0": str(guild.id)},
                context=0,
            )
        else:
            payload.update(
                user=user.payload(),
                app_permissions=str(BOT_PERMISSIONS),
                authorizing_integration_owners={"0": str(user.id)},
                context=1,
            )
        payload["channel"] = channel_payload
        if message_payload is not None:
            payload["message"] = message_payload

        created = self._now() - late
        interaction = FakeInteraction(
            id=interaction_id,
            token=token,
            kind=int(kind),
            user=user,
            channel=channel,
            data=data,
            payload=payload,
            created=created,
            ack_deadline=created + self.limits.ack_deadline,
            token_deadline=created + self.limits.token_lifetime,
            fake=self,
            message=message,
            command_name=command_name,
            late=late,
        )
        self.interactions.append(interaction)
        self._interactions[interaction_id] = interaction
        self._interactions_by_token[token] = interaction
        loop = asyncio.get_running_loop()
        # Deadlines passing are state changes too: wake waiters when they do.
        for deadline in (interaction.ack_deadline, interaction.token_deadline):
            delay = max(deadline - self._now(), 0.0) + 0.001
            self._timers.append(loop.call_later(delay, self._changed))
        await self._deliver(interaction)
        return interaction

    async def _deliver(self, interaction: FakeInteraction) -> None:
        guild = interaction.guild
        payload = interaction.payload
        await self._broadcast("INTERACTION_CREATE", lambda s: payload, guild.id if guild else None)
        self._changed()

    async def deliver_again(self, interaction: FakeInteraction) -> None:
        """Send an interaction's INTERACTION_CREATE once more (same id, same token),
        as Discord's gateway may after a RESUME that replays events the bot had
        received already: discord.py dispatches whatever arrives."""
        await self._deliver(interaction)

    # ------------------------------------------------------------------ internals: gateway

    async def _broadcast(
        self,
        event: str,
        make: Callable[[_GatewaySession], Json | None],
        guild_id: int | None,
    ) -> None:
        for session in list(self._sessions.values()):
            if not session.receives(guild_id):
                continue
            data = make(session)
            if data is not None:
                await session.dispatch(event, data)

    async def _serve_gateway(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(max_msg_size=0, autoping=True)
        await ws.prepare(request)
        connection = _GatewayConnection(ws, request.query.get("compress"))
        connection.transport = request.transport
        self._connections.append(connection)
        self._changed()
        try:
            if request.query.get("encoding", "json") != "json":
                await ws.close(code=4002, message=b"Error while decoding payload.")
                return ws
            await connection.send(
                {
                    "op": 10,
                    "d": {
                        "heartbeat_interval": self.heartbeat_interval_ms,
                        "_trace": ["fake-gateway"],
                    },
                    "s": None,
                    "t": None,
                }
            )
            async for message in ws:
                if message.type is not WSMsgType.TEXT:
                    await ws.close(code=4002, message=b"Error while decoding payload.")
                    break
                try:
                    await self._on_gateway_payload(connection, json.loads(message.data))
                except Exception as error:  # the fake is broken: make it visible
                    self.internal_errors.append(error)
                    _log.exception("fake gateway failed on %s", message.data[:200])
                    await ws.close(code=4000)
                    break
        finally:
            session = connection.session
            if session is not None and session.connection is connection:
                session.connection = None
                if ws.close_code in (1000, 1001) and not connection.closed_by_fake:
                    # A deliberate close invalidates the session (Discord's rule).
                    self._sessions.pop(session.id, None)
            self._connections.remove(connection)
            self._changed()
        return ws

    async def _on_gateway_payload(self, connection: _GatewayConnection, payload: Json) -> None:
        op = payload.get("op")
        data = payload.get("d")
        if op == 1:
            connection.heartbeats += 1
            await connection.send({"op": 11, "d": None, "s": None, "t": None})
        elif op == 2:
            await self._identify(connection, data or {})
        elif op == 6:
            await self._resume(connection, data or {})
        elif op == 8:
            await self._request_members(connection, data or {})
        elif op in (3, 4):
            pass  # presence and voice state updates: nothing to model
        else:
            await connection.ws.close(code=4001, message=b"Unknown opcode.")

    async def _identify(self, connection: _GatewayConnection, data: Json) -> None:
        if connection.session is not None:
            await connection.ws.close(code=4005, message=b"Already authenticated.")
            return
        if data.get("token") != self.token:
            await connection.ws.close(code=4004, message=b"Authentication failed.")
            return
        intents = data.get("intents")
        if not isinstance(intents, int):
            await connection.ws.close(code=4013, message=b"Invalid intent(s).")
            return
        if intents & PRIVILEGED_INTENTS & ~self.allowed_privileged_intents:
            await connection.ws.close(code=4014, message=b"Disallowed intent(s).")
            return
        shard_data = data.get("shard")
        shard = (int(shard_data[0]), int(shard_data[1])) if shard_data else None
        if shard is not None and not 0 <= shard[0] < shard[1]:
            await connection.ws.close(code=4010, message=b"Invalid shard.")
            return
        session = _GatewaySession(id=secrets.token_hex(16), shard=shard, intents=intents)
        guilds = [g for g in self.guilds.values() if session.receives(g.id)]
        ready: Json = {
            "v": API_VERSION,
            "user": self._bot_user_payload(),
            "guilds": [{"id": str(g.id), "unavailable": True} for g in guilds],
            "session_id": session.id,
            "session_type": "normal",
            "resume_gateway_url": self.gateway_url,
            "application": {"id": str(self.application_id), "flags": self.application_flags},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": [],
            "user_settings": {},
            "auth": {},
            "_trace": ["fake-gateway"],
        }
        if shard is not None:
            ready["shard"] = list(shard)
        async with connection.lock:
            connection.session = session
            session.connection = connection
            self._sessions[session.id] = session
            await connection.send_locked(session.frame("READY", ready))
            for guild in guilds:
                await connection.send_locked(
                    session.frame("GUILD_CREATE", self._guild_create_payload(guild, session))
                )
        self._changed()

    async def _resume(self, connection: _GatewayConnection, data: Json) -> None:
        session = self._sessions.get(str(data.get("session_id")))
        if session is None or data.get("token") != self.token or connection.session is not None:
            await connection.send({"op": 9, "d": False, "s": None, "t": None})
            return
        if session.shard is not None and session.shard[0] in self._stalled:
            self._stalled[session.shard[0]].append((connection, data))
            return
        since = int(data.get("seq") or 0)
        async with connection.lock:
            connection.session = session
            session.connection = connection
            session.resumes += 1
            for frame in session.backlog:
                if frame["s"] > since:
                    await connection.send_locked(frame)
            await connection.send_locked(session.frame("RESUMED", {"_trace": ["fake-gateway"]}))
        self._changed()

    async def _request_members(self, connection: _GatewayConnection, data: Json) -> None:
        guild = self.guilds.get(int(data.get("guild_id", 0)))
        session = connection.session
        if guild is None or session is None:
            return
        members = list(guild.members.values())
        user_ids = data.get("user_ids")
        if user_ids:
            wanted = {int(u) for u in user_ids}
            members = [m for m in members if m.user.id in wanted]
        query = data.get("query")
        if query:
            members = [m for m in members if m.user.username.lower().startswith(query.lower())]
        limit = int(data.get("limit") or 0)
        if limit:
            members = members[:limit]
        chunk: Json = {
            "guild_id": str(guild.id),
            "members": [m.payload() for m in members],
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [],
        }
        if data.get("nonce") is not None:
            chunk["nonce"] = data["nonce"]
        if data.get("presences"):
            chunk["presences"] = []
        await session.dispatch("GUILD_MEMBERS_CHUNK", chunk)

    def _guild_create_payload(
        self, guild: FakeGuild, session: _GatewaySession, *, joined: bool = False
    ) -> Json:
        """GUILD_CREATE. Without the GUILD_MEMBERS intent Discord sends only the bot's
        own member, so member_count differs from the member list — as in production.
        A guild the bot just joined has no ``unavailable`` key; discord.py tells a join
        from a guild becoming available by exactly that."""
        if session.intents & Intent.GUILD_MEMBERS:
            members = list(guild.members.values())
        else:
            members = [guild.members[self.bot_user.id]]
        bot_member = guild.members[self.bot_user.id]
        payload: Json = {
            **guild.payload(),
            "joined_at": _iso(bot_member.joined_at),
            "large": False,
            "lazy": True,
            "unavailable": False,
            "member_count": len(guild.members),
            "voice_states": [],
            "members": [m.payload() for m in members],
            "channels": [c.payload() for c in guild.channels],
            "threads": [
                c.payload() for c in self.channels.values() if c.guild is guild and c.is_thread
            ],
            "presences": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
            "embedded_activities": [],
            "incidents_data": None,
        }
        if joined:
            del payload["unavailable"]
        return payload

    def _message_event(self, message: FakeMessage, session: _GatewaySession) -> Json | None:
        """MESSAGE_CREATE/UPDATE for one session, honouring the message intents and
        blanking content without MESSAGE_CONTENT (except the bot's own messages, DMs
        and mentions of the bot, which Discord exempts)."""
        needed = Intent.DIRECT_MESSAGES if message.channel.is_dm else Intent.GUILD_MESSAGES
        if not session.intents & needed:
            return None
        data = message.payload()
        exempt = (
            message.author is self.bot_user
            or message.channel.is_dm
            or self.bot_user in message.mentions
        )
        if not session.intents & Intent.MESSAGE_CONTENT and not exempt:
            data.update(content="", embeds=[], attachments=[], components=[])
        return data

    async def _announce_create(self, message: FakeMessage) -> None:
        message.channel.last_message_id = message.id
        if message.ephemeral_for is None:
            guild_id = message.channel.guild.id if message.channel.guild else None
            await self._broadcast(
                "MESSAGE_CREATE", lambda s: self._message_event(message, s), guild_id
            )
        self._changed()

    async def _announce_update(self, message: FakeMessage) -> None:
        if message.ephemeral_for is None:
            guild_id = message.channel.guild.id if message.channel.guild else None
            await self._broadcast(
                "MESSAGE_UPDATE", lambda s: self._message_event(message, s), guild_id
            )
        self._changed()

    async def _announce_delete(self, message: FakeMessage) -> None:
        if message.ephemeral_for is None:
            guild = message.channel.guild
            data: Json = {"id": str(message.id), "channel_id": str(message.channel.id)}
            if guild is not None:
                data["guild_id"] = str(guild.id)
            needed = Intent.DIRECT_MESSAGES if message.channel.is_dm else Intent.GUILD_MESSAGES
            await self._broadcast(
                "MESSAGE_DELETE",
                lambda s: data if s.intents & needed else None,
                guild.id if guild else None,
            )
        self._changed()

    def _bot_user_payload(self) -> Json:
        return {
            **self.bot_user.payload(),
            "verified": True,
            "mfa_enabled": False,
            "locale": "en-US",
            "email": None,
        }

    # ------------------------------------------------------------------ internals: REST

    def _register_routes(self) -> None:
        def add(
            method: str,
            template: str,
            handler: _Handler,
            *,
            auth: bool = True,
            bucketed: bool = True,
        ) -> None:
            # Templates hold only letters, "/", "@" and {placeholders}: no escaping needed.
            regex = re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", template)
            names = re.findall(r"\{(\w+)\}", template)
            # Discord buckets per route and "major parameter", as discord.py assumes.
            major = tuple(n for n in names if n in _MAJOR_PARAMETERS)
            self._routes.append(
                _Route(method, template, re.compile(f"^{regex}$"), handler, auth, bucketed, major)
            )

        add("GET", "/gateway", self._get_gateway, auth=False)
        add("GET", "/gateway/bot", self._get_gateway_bot)
        add("GET", "/users/@me", self._get_me)
        add("POST", "/users/@me/channels", self._create_dm)
        add("GET", "/users/{user_id}", self._get_user)
        add("GET", "/oauth2/applications/@me", self._get_application)
        add("GET", "/applications/@me", self._get_application)
        add("GET", "/applications/{application_id}/commands", self._get_commands)
        add("PUT", "/applications/{application_id}/commands", self._put_commands)
        add("POST", "/applications/{application_id}/commands", self._post_command)
        add("DELETE", "/applications/{application_id}/commands/{command_id}", self._delete_command)
        add("GET", "/applications/{application_id}/guilds/{guild_id}/commands", self._get_commands)
        add("PUT", "/applications/{application_id}/guilds/{guild_id}/commands", self._put_commands)
        add("POST", "/applications/{application_id}/guilds/{guild_id}/commands", self._post_command)
        add(
            "DELETE",
            "/applications/{application_id}/guilds/{guild_id}/commands/{command_id}",
            self._delete_command,
        )
        add("GET", "/guilds/{guild_id}", self._get_guild)
        add("GET", "/guilds/{guild_id}/channels", self._get_guild_channels)
        add("GET", "/guilds/{guild_id}/roles", self._get_guild_roles)
        add("GET", "/guilds/{guild_id}/members/{user_id}", self._get_member)
        add("GET", "/channels/{channel_id}", self._get_channel)
        add("GET", "/channels/{channel_id}/messages", self._get_channel_messages)
        add("POST", "/channels/{channel_id}/messages", self._post_channel_message)
        add("GET", "/channels/{channel_id}/messages/{message_id}", self._get_channel_message)
        add("PATCH", "/channels/{channel_id}/messages/{message_id}", self._patch_channel_message)
        add("DELETE", "/channels/{channel_id}/messages/{message_id}", self._delete_channel_message)
        add("POST", "/channels/{channel_id}/typing", self._typing)
        add(
            "POST",
            "/interactions/{interaction_id}/{token}/callback",
            self._interaction_callback,
            auth=False,
            bucketed=False,
        )
        add("POST", "/webhooks/{webhook_id}/{token}", self._execute_webhook, auth=False)
        add(
            "GET",
            "/webhooks/{webhook_id}/{token}/messages/{message_id}",
            self._get_webhook_message,
            auth=False,
        )
        add(
            "PATCH",
            "/webhooks/{webhook_id}/{token}/messages/{message_id}",
            self._patch_webhook_message,
            auth=False,
        )
        add(
            "DELETE",
            "/webhooks/{webhook_id}/{token}/messages/{message_id}",
            self._delete_webhook_message,
            auth=False,
        )

    def _route_for(self, method: str, record: RecordedRequest) -> tuple[_Route, dict[str, str]]:
        """The route for a request; unknown ones are recorded (see assert_healthy)."""
        other_method = False
        for route in self._routes:
            found = route.pattern.match(record.path)
            if found is None:
                continue
            if route.method == method:
                return route, found.groupdict()
            other_method = True
        self.unhandled.append(record)
        if other_method:
            raise ApiError(405, 0, "405: Method Not Allowed")
        raise ApiError(404, 0, "404: Not Found")

    async def _serve_rest(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["tail"]
        method = request.method
        record = RecordedRequest(
            method=method,
            path=path,
            route=None,
            query=dict(request.query),
            body=None,
            at=self._now(),
        )
        self.requests.append(record)
        try:
            response = await self._handle_rest(request, record)
        except ApiError as error:
            response = _json_response(error.status, error.body())
            record.code = error.code
        except _Abandoned:  # nobody is listening for an answer
            record.status = 0
            return web.Response(status=499)
        except Exception as error:  # a bug in the fake: fail fast and visibly
            self.internal_errors.append(error)
            _log.exception("fake Discord REST handler failed for %s %s", method, path)
            # Not a 5xx: discord.py retries those with multi-second sleeps.
            response = _json_response(400, {"message": f"fake Discord bug: {error!r}", "code": 0})
            record.code = 0
        record.status = response.status
        self._changed()
        return response

    async def _handle_rest(self, request: web.Request, record: RecordedRequest) -> web.Response:
        if request.match_info.get("version") != str(API_VERSION):
            raise ApiError(400, 50041, "Invalid API version provided.")
        body, files = await self._read_body(request)
        record.body = body
        if sum(len(content) for _, _, content, _ in files) > self.limits.max_upload:
            raise ApiError(413, 40005, "Request entity too large")
        route, params = self._route_for(request.method, record)
        record.route = route.template
        if route.auth and request.headers.get("Authorization") != f"Bot {self.token}":
            raise ApiError(401, 0, "401: Unauthorized")

        hold = next(
            (
                h
                for h in self._holds
                if h.method == request.method and h.route in (route.template, record.path)
            ),
            None,
        )
        if hold is not None:
            hold.waiting += 1
            hold.held += 1
            self._changed()
            try:
                await hold.gate.wait()
            finally:
                hold.waiting -= 1
        injected = self._take_injected(request.method, route.template, record.path)
        if injected is not None:
            return self._too_many_requests(route, params, injected.retry_after, injected.is_global)
        failure = self._take_failure(request.method, route.template, record.path)
        if failure is not None and not failure.processed:
            if failure.status == RESET:
                return _reset(request)
            return _server_error(failure.status)

        headers: dict[str, str] = {}
        if route.bucketed:
            bucket_key = (route.template, tuple(params[name] for name in route.major))
            now = self._now()
            bucket = self._buckets.get(bucket_key)
            if bucket is None or now - bucket.started >= self.limits.bucket_window:
                bucket = self._buckets[bucket_key] = _Bucket(started=now)
            bucket.count += 1
            reset_after = max(bucket.started + self.limits.bucket_window - now, 0.001)
            if bucket.count > self.limits.bucket_size:
                return self._too_many_requests(route, params, reset_after, False)
            headers = self._ratelimit_headers(
                route, max(self.limits.bucket_size - bucket.count, 0), reset_after
            )

        call = _Call(params=params, query=request.query, body=body, files=files, request=request)
        response: web.Response = await route.handler(call)
        if failure is not None:  # it took effect; only the answer is lost
            return _server_error(failure.status)
        response.headers.update(headers)
        return response

    def _ratelimit_headers(
        self, route: _Route, remaining: int, reset_after: float
    ) -> dict[str, str]:
        return {
            "X-RateLimit-Limit": str(self.limits.bucket_size),
            "X-RateLimit-Remaining": str(remaining),
            "X-RateLimit-Reset": f"{time.time() + reset_after:.3f}",
            "X-RateLimit-Reset-After": f"{reset_after:.3f}",
            "X-RateLimit-Bucket": hashlib.sha1(route.template.encode()).hexdigest()[:32],
        }

    def _too_many_requests(
        self, route: _Route, params: dict[str, str], retry_after: float, is_global: bool
    ) -> web.Response:
        """A 429 as Discord sends it. The ``Via`` header matters: discord.py treats a
        429 without it as a Cloudflare ban and raises instead of retrying."""
        headers = self._ratelimit_headers(route, 0, retry_after)
        headers["Retry-After"] = str(math.ceil(retry_after))
        headers["X-RateLimit-Scope"] = "global" if is_global else "user"
        if is_global:
            headers["X-RateLimit-Global"] = "true"
        body: Json = {
            "message": "You are being rate limited.",
            "retry_after": retry_after,
            "global": is_global,
        }
        if is_global:
            body["code"] = 0
        return _json_response(429, body, headers)

    def _take_injected(self, method: str, template: str, path: str) -> _InjectedRateLimit | None:
        return _take(self._injected, method, template, path)

    def _take_failure(self, method: str, template: str, path: str) -> _InjectedFailure | None:
        return _take(self._failures, method, template, path)

    async def _read_body(
        self, request: web.Request
    ) -> tuple[Any, list[tuple[str, str, bytes, str]]]:
        files: list[tuple[str, str, bytes, str]] = []
        if request.content_type.startswith("multipart/"):
            form = await request.post()
            body: Any = None
            for name, value in form.items():
                if isinstance(value, web.FileField):
                    files.append((name, value.filename, value.file.read(), value.content_type))
                elif name == "payload_json":
                    body = json.loads(value if isinstance(value, str) else value.decode())
            rate = self.limits.upload_rate
            if rate and files:
                await asyncio.sleep(sum(len(f[2]) for f in files) / rate)
                transport = request.transport
                if transport is None or transport.is_closing():
                    # the bot gave up before its upload was through: Discord never got
                    # the whole request, so nothing of it happens
                    raise _Abandoned
            return body, files
        raw = await request.read()
        if not raw:
            return None, files
        try:
            return json.loads(raw), files
        except ValueError:
            raise ApiError(400, 50109, "The request body contains invalid JSON.") from None

    # ------------------------------------------------------------------ REST: messages

    def _validate_message(
        self, body: Json, *, errors: _FormErrors, prefix: tuple[str, ...] = ()
    ) -> None:
        limits = self.limits
        content = body.get("content")
        if content is not None and not isinstance(content, str):
            errors.add((*prefix, "content"), "BASE_TYPE_STRING", "Must be a string.")
        elif content is not None and len(content) > limits.max_content:
            errors.add(
                (*prefix, "content"),
                "BASE_TYPE_MAX_LENGTH",
                f"Must be {limits.max_content} or fewer in length.",
            )
        embeds = body.get("embeds")
        if embeds is not None:
            if len(embeds) > limits.max_embeds:
                errors.add(
                    (*prefix, "embeds"),
                    "BASE_TYPE_MAX_LENGTH",
                    f"Must be {limits.max_embeds} or fewer in length.",
                )
            total = 0
            for index, embed in enumerate(embeds):
                for key, limit in (("title", 256), ("description", 4096)):
                    text = embed.get(key) or ""
                    total += len(text)
                    if len(text) > limit:
                        errors.add(
                            (*prefix, "embeds", index, key),
                            "BASE_TYPE_MAX_LENGTH",
                            f"Must be {limit} or fewer in length.",
                        )
                fields = embed.get("fields") or []
                if len(fields) > 25:
                    errors.add(
                        (*prefix, "embeds", index, "fields"),
                        "BASE_TYPE_MAX_LENGTH",
                        "Must be 25 or fewer in length.",
                    )
                for embed_field in fields:
                    total += len(embed_field.get("name") or "") + len(
                        embed_field.get("value") or ""
                    )
            if total > limits.max_embed_total:
                errors.add(
                    (*prefix, "embeds"),
                    "MAX_EMBED_SIZE_EXCEEDED",
                    "Embed size exceeds maximum size of 6000",
                )
        components = body.get("components")
        if components is not None:
            v2 = bool((body.get("flags") or 0) & MessageFlag.IS_COMPONENTS_V2)
            self._validate_components(
                components, errors=errors, prefix=(*prefix, "components"), v2=v2
            )

    def _validate_components(
        self, components: Any, *, errors: _FormErrors, prefix: tuple[str | int, ...], v2: bool
    ) -> None:
        limits = self.limits
        if not isinstance(components, list):
            errors.add(prefix, "BASE_TYPE_ARRAY", "Must be an array.")
            return
        if not v2 and len(components) > limits.max_action_rows:
            errors.add(
                prefix,
                "BASE_TYPE_BAD_LENGTH",
                f"Must be between 0 and {limits.max_action_rows} in length.",
            )
        seen_ids: set[str] = set()
        count = 0

        def check_interactive(component: Json, path: tuple[str | int, ...]) -> None:
            custom_id = component.get("custom_id")
            kind = component.get("type")
            if kind == _COMPONENT_BUTTON:
                style = component.get("style")
                if style == _BUTTON_LINK:
                    if not component.get("url"):
                        errors.add((*path, "url"), "BASE_TYPE_REQUIRED", "This field is required")
                    if custom_id is not None:
                        errors.add(
                            (*path, "custom_id"),
                            "BUTTON_COMPONENT_CUSTOM_ID_NOT_ALLOWED",
                            "A custom id cannot be specified for this button style",
                        )
                    return
                if style == _BUTTON_PREMIUM:
                    return
                label = component.get("label")
                if label is not None and len(label) > limits.max_label:
                    errors.add(
                        (*path, "label"),
                        "BASE_TYPE_MAX_LENGTH",
                        f"Must be {limits.max_label} or fewer in length.",
                    )
                if label is None and not component.get("emoji"):
                    errors.add(
                        path,
                        "BUTTON_COMPONENT_LABEL_OR_EMOJI_REQUIRED",
                        "A label or emoji is required",
                    )
            if not isinstance(custom_id, str) or not custom_id:
                errors.add((*path, "custom_id"), "BASE_TYPE_REQUIRED", "This field is required")
                return
            if len(custom_id) > limits.max_custom_id:
                errors.add(
                    (*path, "custom_id"),
                    "BASE_TYPE_MAX_LENGTH",
                    f"Must be {limits.max_custom_id} or fewer in length.",
                )
            if custom_id in seen_ids:
                errors.add(
                    (*path, "custom_id"),
                    "COMPONENT_CUSTOM_ID_DUPLICATED",
                    "Component custom id cannot be duplicated",
                )
            seen_ids.add(custom_id)

        def walk(items: list[Json], path: tuple[str | int, ...], top: bool) -> None:
            nonlocal count
            for index, component in enumerate(items):
                here = (*path, index)
                count += 1
                kind = component.get("type")
                if kind == _COMPONENT_ROW:
                    children = component.get("components") or []
                    has_select = any(c.get("type") in _SELECT_TYPES for c in children)
                    width = len(children)
                    if not children or width > limits.max_row_buttons or (has_select and width > 1):
                        errors.add(
                            (*here, "components"),
                            "BASE_TYPE_BAD_LENGTH",
                            f"Must be between 1 and {limits.max_row_buttons} in length.",
                        )
                    for child_index, child in enumerate(children):
                        count += 1
                        check_interactive(child, (*here, "components", child_index))
                elif top and not v2:
                    errors.add(
                        (*here, "type"),
                        "UNION_TYPE_CHOICES",
                        'Value of field "type" must be one of (1,).',
                    )
                elif kind in _SELECT_TYPES or kind == _COMPONENT_BUTTON:
                    check_interactive(component, here)
                else:
                    accessory = component.get("accessory")
                    if isinstance(accessory, dict):
                        count += 1
                        check_interactive(accessory, (*here, "accessory"))
                    nested = component.get("components")
                    if isinstance(nested, list):
                        walk(nested, (*here, "components"), False)

        walk(components, prefix, True)
        if v2 and count > limits.max_v2_components:
            errors.add(
                prefix,
                "BASE_TYPE_BAD_LENGTH",
                f"Must be {limits.max_v2_components} or fewer in total.",
            )

    def _number_components(self, components: list[Json]) -> list[Json]:
        """Give every component a numeric ``id`` as Discord does, keeping given ones."""
        components = copy.deepcopy(components)
        taken: set[int] = set()
        every: list[Json] = []

        def collect(items: list[Json]) -> None:
            for component in items:
                every.append(component)
                if isinstance(component.get("id"), int):
                    taken.add(component["id"])
                accessory = component.get("accessory")
                if isinstance(accessory, dict):
                    collect([accessory])
                nested = component.get("components")
                if isinstance(nested, list):
                    collect(nested)

        collect(components)
        next_id = 1
        for component in every:
            if not isinstance(component.get("id"), int):
                while next_id in taken:
                    next_id += 1
                component["id"] = next_id
                taken.add(next_id)
        return components

    def _attachments(
        self,
        channel: FakeChannel,
        body: Json,
        files: list[tuple[str, str, bytes, str]],
        existing: Sequence[Json] = (),
        stored: dict[int, bytes] | None = None,
        *,
        ephemeral: bool = False,
    ) -> tuple[list[Json], dict[int, bytes]]:
        """New uploads (``files[n]`` fields) plus the kept existing attachments; the
        ``attachments`` array lists what stays (existing ids, and ``n`` for the new
        upload ``files[n]``, with its description).  Files of an ephemeral message are
        marked ``ephemeral`` (Discord deletes them with it)."""
        wanted = body.get("attachments")
        kept_ids = {str(a.get("id")) for a in wanted} if wanted is not None else None
        result = [a for a in existing if kept_ids is None or str(a["id"]) in kept_ids]
        kept = {str(a["id"]) for a in result}
        data = {key: content for key, content in (stored or {}).items() if str(key) in kept}
        for position, (field_name, filename, content, content_type) in enumerate(files):
            numbered = re.fullmatch(r"files\[(\d+)\]", field_name)
            index = numbered[1] if numbered else str(position)
            attachment_id = self._snowflake()
            url = f"{CDN}/attachments/{channel.id}/{attachment_id}/{filename}"
            attachment: Json = {
                "id": str(attachment_id),
                "filename": filename,
                "size": len(content),
                "url": url,
                "proxy_url": url,
                "content_type": content_type,
                "description": next(
                    (a.get("description") for a in (wanted or []) if str(a.get("id")) == index),
                    None,
                ),
            }
            if ephemeral:
                attachment["ephemeral"] = True
            result.append(attachment)
            data[attachment_id] = content
        return result, data

    def _mentions(self, content: str) -> list[FakeUser]:
        ids = {int(found) for found in re.findall(r"<@!?(\d+)>", content)}
        return [self.users[user_id] for user_id in ids if user_id in self.users]

    def _pinged(self, content: str, allowed: Json | None) -> list[FakeUser]:
        """Who a new message notifies: without `allowed_mentions` every user it
        mentions; with it, those its "parse" (``users``) or its "users" list allow."""
        mentioned = self._mentions(content)
        if not isinstance(allowed, dict):
            return mentioned
        if "users" in (allowed.get("parse") or []):
            return mentioned
        ids = {int(u) for u in allowed.get("users") or []}
        return [user for user in mentioned if user.id in ids]

    def _store_message(
        self,
        channel: FakeChannel,
        author: FakeUser,
        body: Json,
        files: list[tuple[str, str, bytes, str]],
        *,
        interaction: FakeInteraction | None = None,
        ephemeral_for: FakeUser | None = None,
        extra_flags: int = 0,
        message_type: int = _MESSAGE_DEFAULT,
        allow_empty: bool = False,
        errors_prefix: tuple[str, ...] = (),
    ) -> FakeMessage:
        """Validate a message body and store the message (synchronously, so callers
        can claim an interaction's acknowledgement before any await)."""
        if not isinstance(body, dict):
            raise ApiError(400, 50109, "The request body contains invalid JSON.")
        errors = _FormErrors()
        self._validate_message(body, errors=errors, prefix=errors_prefix)
        errors.raise_if_any()
        content = body.get("content") or ""
        embeds = [{"type": "rich", **embed} for embed in body.get("embeds") or []]
        components = self._number_components(body.get("components") or [])
        attachments, data = self._attachments(
            channel, body, files, ephemeral=ephemeral_for is not None
        )
        if (
            not allow_empty
            and not content.strip()
            and not embeds
            and not components
            and not attachments
            and not body.get("sticker_ids")
            and not body.get("poll")
        ):
            raise ApiError(400, 50006, "Cannot send an empty message")
        settable = (
            MessageFlag.SUPPRESS_EMBEDS
            | MessageFlag.SUPPRESS_NOTIFICATIONS
            | MessageFlag.IS_COMPONENTS_V2
        )
        flags = (int(body.get("flags") or 0) & settable) | extra_flags
        if ephemeral_for is not None:
            flags |= MessageFlag.EPHEMERAL
        message = FakeMessage(
            id=self._snowflake(),
            channel=channel,
            author=author,
            content=content,
            embeds=embeds,
            components=components,
            attachments=attachments,
            files=data,
            flags=int(flags),
            type=message_type,
            ephemeral_for=ephemeral_for,
            mentions=self._mentions(content),
            pinged=self._pinged(content, body.get("allowed_mentions")),
        )
        if interaction is not None:
            message.interaction = interaction
            message.webhook_id = self.application_id
            message.application_id = self.application_id
            message.interaction_metadata = self._interaction_metadata(interaction)
        self.messages[message.id] = message
        return message

    def _interaction_metadata(self, interaction: FakeInteraction) -> Json:
        metadata: Json = {
            "id": str(interaction.id),
            "type": interaction.kind,
            "user": interaction.user.payload(),
            "authorizing_integration_owners": interaction.payload["authorizing_integration_owners"],
        }
        if interaction.command_name:
            metadata["name"] = interaction.command_name
            metadata["command_type"] = 1
        if interaction.message is not None:
            metadata["interacted_message_id"] = str(interaction.message.id)
        if interaction.original is not None and interaction.original is not interaction.message:
            metadata["original_response_message_id"] = str(interaction.original.id)
        return metadata

    def _edit_message(
        self,
        message: FakeMessage,
        body: Any,
        files: list[tuple[str, str, bytes, str]],
        *,
        errors_prefix: tuple[str, ...] = (),
    ) -> None:
        """Validate and apply an edit (synchronously); records the old revision."""
        if not isinstance(body, dict):
            body = {}
        errors = _FormErrors()
        self._validate_message(body, errors=errors, prefix=errors_prefix)
        errors.raise_if_any()
        now_wall = time.time()
        if not message.ephemeral and now_wall - message.created_at > self.limits.old_message_age:
            window = [t for t in self._old_edits.get(message.channel.id, []) if now_wall - t < 3600]
            if len(window) >= self.limits.old_message_edits:
                raise ApiError(400, 30046, _OLD_EDITS_MESSAGE)
            window.append(now_wall)
            self._old_edits[message.channel.id] = window

        content = message.content
        if "content" in body:
            content = body["content"] or ""
        embeds = message.embeds
        if "embeds" in body:
            embeds = [{"type": "rich", **embed} for embed in body["embeds"] or []]
        components = message.components
        if "components" in body:
            components = self._number_components(body["components"] or [])
        attachments, data = message.attachments, message.files
        if files or "attachments" in body:
            attachments, data = self._attachments(
                message.channel,
                body,
                files,
                message.attachments,
                message.files,
                ephemeral=message.ephemeral,
            )
        if not content.strip() and not embeds and not components and not attachments:
            raise ApiError(400, 50006, "Cannot send an empty message")

        message.history.append(
            MessageRevision(
                content=message.content,
                embeds=copy.deepcopy(message.embeds),
                components=copy.deepcopy(message.components),
                flags=message.flags,
                at=message.edited_at or message.created_at,
            )
        )
        flags = message.flags
        if "flags" in body and body["flags"] is not None:
            flags = (flags & ~MessageFlag.SUPPRESS_EMBEDS) | (
                int(body["flags"]) & MessageFlag.SUPPRESS_EMBEDS
            )
            flags |= int(body["flags"]) & MessageFlag.IS_COMPONENTS_V2
        if message.loading:
            flags &= ~MessageFlag.LOADING  # filling in a deferred response is not an edit
        else:
            message.edited_at = now_wall
        message.flags = int(flags)
        message.content = content
        message.embeds = embeds
        message.components = components
        message.attachments = attachments
        message.files = data
        message.mentions = self._mentions(content)

    def _channel(self, call: _Call) -> FakeChannel:
        """The channel of a channel route, if the bot may see it."""
        channel = self.channels.get(int(call.params["channel_id"]))
        if channel is None:
            raise _unknown_channel()
        if not self._bot_member_has(channel, Permission.VIEW_CHANNEL):
            raise _missing_access()
        return channel

    def _channel_message(self, call: _Call) -> FakeMessage:
        """A message reachable through channel routes: ephemeral ones never are."""
        channel = self._channel(call)
        message = self.messages.get(int(call.params["message_id"]))
        if (
            message is None
            or message.channel is not channel
            or message.deleted
            or message.ephemeral
        ):
            raise _unknown_message()
        return message

    def _bot_permissions(self, channel: FakeChannel) -> int:
        """The bot's permissions in a guild channel: its roles', less the channel's
        overwrite for it (administrators are above overwrites); none once removed."""
        assert channel.guild is not None
        member = channel.guild.members.get(self.bot_user.id)
        if member is None:
            return 0
        value = member.permissions
        if not value & Permission.ADMINISTRATOR:
            where = channel.parent or channel  # a thread has its parent's overwrites
            value &= ~where.denied.get(self.bot_user.id, 0)
        return value

    def _bot_member_has(self, channel: FakeChannel, permissions: int) -> bool:
        if channel.guild is None:
            return True
        return self._bot_permissions(channel) & permissions == permissions

    def _sent_with_nonce(self, channel: FakeChannel, body: Any) -> FakeMessage | None:
        """The message the bot already sent with this nonce, if the request asks
        Discord to enforce it (it does so for a few minutes)."""
        if not isinstance(body, dict) or not body.get("enforce_nonce"):
            return None
        nonce = body.get("nonce")
        if nonce is None:
            return None
        for message in reversed(self.messages.values()):
            if (
                message.channel is channel
                and message.author is self.bot_user
                and message.nonce == str(nonce)
                and time.time() - message.created_at < 300
            ):
                return message
        return None

    async def _post_channel_message(self, call: _Call) -> web.Response:
        channel = self._channel(call)
        if channel.is_dm:
            assert channel.recipient is not None
            if channel.recipient.dms_closed or not self.shares_guild_with_bot(channel.recipient):
                raise ApiError(403, 50007, "Cannot send messages to this user")
        elif not self._bot_member_has(channel, Permission.VIEW_CHANNEL | _send_right(channel)):
            raise ApiError(403, 50013, "Missing Permissions")
        sent = self._sent_with_nonce(channel, call.body)
        if sent is not None:
            return _json_response(200, sent.payload())
        body = call.body if isinstance(call.body, dict) else {}
        message_type = _MESSAGE_REPLY if body.get("message_reference") else _MESSAGE_DEFAULT
        message = self._store_message(
            channel, self.bot_user, body, call.files, message_type=message_type
        )
        if body.get("nonce") is not None:
            message.nonce = str(body["nonce"])
        await self._announce_create(message)
        return _json_response(200, message.payload())

    async def _get_channel_messages(self, call: _Call) -> web.Response:
        channel = self._channel(call)
        limit = min(max(int(call.query.get("limit", "50")), 1), 100)
        messages = self.channel_messages(channel)
        if "before" in call.query:
            messages = [m for m in messages if m.id < int(call.query["before"])]
        if "after" in call.query:
            messages = [m for m in messages if m.id > int(call.query["after"])]
            messages = messages[:limit]
        else:
            messages = messages[-limit:]
        return _json_response(200, [m.payload() for m in reversed(messages)])

    async def _get_channel_message(self, call: _Call) -> web.Response:
        return _json_response(200, self._channel_message(call).payload())

    async def _patch_channel_message(self, call: _Call) -> web.Response:
        message = self._channel_message(call)
        if message.author is not self.bot_user:
            raise ApiError(403, 50005, "Cannot edit a message authored by another user")
        recipient = message.channel.recipient if message.channel.is_dm else None
        if recipient is not None and recipient.dms_closed:  # he closed them since
            raise ApiError(403, 50007, "Cannot send messages to this user")
        self._edit_message(message, call.body, call.files)
        await self._announce_update(message)
        return _json_response(200, message.payload())

    async def _delete_channel_message(self, call: _Call) -> web.Response:
        message = self._channel_message(call)
        if message.author is not self.bot_user and not self._bot_member_has(
            message.channel, Permission.MANAGE_MESSAGES
        ):
            raise ApiError(403, 50013, "Missing Permissions")
        message.deleted = True
        await self._announce_delete(message)
        return _no_content()

    async def _typing(self, call: _Call) -> web.Response:
        self._channel(call)
        return _no_content()

    async def _get_channel(self, call: _Call) -> web.Response:
        return _json_response(200, self._channel(call).payload())

    async def _create_dm(self, call: _Call) -> web.Response:
        body = call.body if isinstance(call.body, dict) else {}
        try:
            user = self.users[int(body.get("recipient_id", 0))]
        except (KeyError, TypeError, ValueError):
            raise ApiError(400, 50033, "Invalid Recipient(s)") from None
        channel = self.dm_channel(user, create=True)
        assert channel is not None
        return _json_response(200, channel.payload())

    # ------------------------------------------------------------------ REST: users, guilds

    async def _get_gateway(self, call: _Call) -> web.Response:
        return _json_response(200, {"url": self.gateway_url.rstrip("/")})

    async def _get_gateway_bot(self, call: _Call) -> web.Response:
        return _json_response(
            200,
            {
                "url": self.gateway_url.rstrip("/"),
                "shards": self.recommended_shards,
                "session_start_limit": {
                    "total": 1000,
                    "remaining": 999,
                    "reset_after": 86_400_000,
                    "max_concurrency": 1,
                },
            },
        )

    async def _get_me(self, call: _Call) -> web.Response:
        return _json_response(200, self._bot_user_payload())

    async def _get_user(self, call: _Call) -> web.Response:
        user = self.users.get(int(call.params["user_id"]))
        if user is None:
            raise ApiError(404, 10013, "Unknown User")
        return _json_response(200, user.payload())

    async def _get_application(self, call: _Call) -> web.Response:
        return _json_response(
            200,
            {
                "id": str(self.application_id),
                "name": self.bot_user.username,
                "icon": None,
                "description": "",
                "summary": "",
                "type": None,
                "rpc_origins": [],
                "bot_public": True,
                "bot_require_code_grant": False,
                "bot": self.bot_user.payload(),
                "owner": self.application_owner.payload(),
                "team": None,
                "verify_key": "0" * 64,
                "flags": self.application_flags,
                "tags": [],
                "redirect_uris": [],
                "interactions_endpoint_url": None,
                "approximate_guild_count": len(self.guilds),
                "integration_types_config": {"0": {}},
            },
        )

    def _guild(self, call: _Call) -> FakeGuild:
        guild = self.guilds.get(int(call.params["guild_id"]))
        if guild is None:
            raise ApiError(404, 10004, "Unknown Guild")
        return guild

    async def _get_guild(self, call: _Call) -> web.Response:
        guild = self._guild(call)
        data = guild.payload()
        if _truthy(call.query.get("with_counts")):
            data["approximate_member_count"] = len(guild.members)
            data["approximate_presence_count"] = 0
        return _json_response(200, data)

    async def _get_guild_channels(self, call: _Call) -> web.Response:
        return _json_response(200, [c.payload() for c in self._guild(call).channels])

    async def _get_guild_roles(self, call: _Call) -> web.Response:
        return _json_response(200, [r.payload() for r in self._guild(call).roles])

    async def _get_member(self, call: _Call) -> web.Response:
        member = self._guild(call).members.get(int(call.params["user_id"]))
        if member is None:
            raise ApiError(404, 10007, "Unknown Member")
        return _json_response(200, member.payload())

    # ------------------------------------------------------------------ REST: commands

    def _command_store(self, call: _Call) -> tuple[dict[str, Json], int | None]:
        if int(call.params["application_id"]) != self.application_id:
            raise ApiError(403, 50001, "Missing Access")
        if "guild_id" in call.params:
            guild = self._guild(call)
            return self._guild_commands.setdefault(guild.id, {}), guild.id
        return self._global_commands, None

    def _validate_command(
        self, definition: Any, errors: _FormErrors, path: tuple[str | int, ...]
    ) -> None:
        if not isinstance(definition, dict):
            errors.add(path, "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType")
            return
        kind = definition.get("type", 1)
        name = definition.get("name")
        if (
            not isinstance(name, str)
            or not re.fullmatch(r"[-_\w]{1,32}", name)
            or (kind == 1 and name != name.lower())
        ):
            errors.add(
                (*path, "name"), "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid"
            )
        description = definition.get("description") or ""
        if kind == 1 and not 1 <= len(description) <= 100:
            errors.add(
                (*path, "description"),
                "BASE_TYPE_BAD_LENGTH",
                "Must be between 1 and 100 in length.",
            )
        options = definition.get("options") or []
        if len(options) > 25:
            errors.add((*path, "options"), "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
        for index, option in enumerate(options):
            if option.get("type") in (1, 2) or "options" in option:
                self._validate_command({**option, "type": 1}, errors, (*path, "options", index))
            else:
                option_name = option.get("name")
                if not isinstance(option_name, str) or not re.fullmatch(
                    r"[-_\w]{1,32}", option_name
                ):
                    errors.add(
                        (*path, "options", index, "name"),
                        "APPLICATION_COMMAND_INVALID_NAME",
                        "Command name is invalid",
                    )

    def _stored_command(
        self, definition: Json, store: dict[str, Json], guild_id: int | None
    ) -> Json:
        previous = store.get(definition["name"])
        required = definition.get("default_member_permissions")
        command: Json = {
            "id": previous["id"] if previous else str(self._snowflake()),
            "application_id": str(self.application_id),
            "version": str(self._snowflake()),
            "type": definition.get("type", 1),
            "name": definition["name"],
            "name_localizations": definition.get("name_localizations"),
            "description": definition.get("description", ""),
            "description_localizations": definition.get("description_localizations"),
            "options": copy.deepcopy(definition.get("options") or []),
            "default_member_permissions": None if required is None else str(required),
            "dm_permission": definition.get("dm_permission", True),
            "contexts": definition.get("contexts"),
            "integration_types": definition.get("integration_types") or [0],
            "nsfw": definition.get("nsfw", False),
        }
        if guild_id is not None:
            command["guild_id"] = str(guild_id)
        return command

    async def _get_commands(self, call: _Call) -> web.Response:
        store, _ = self._command_store(call)
        return _json_response(200, list(store.values()))

    async def _put_commands(self, call: _Call) -> web.Response:
        store, guild_id = self._command_store(call)
        definitions = call.body if isinstance(call.body, list) else []
        errors = _FormErrors()
        if len(definitions) > 100:
            raise ApiError(400, 30032, "Maximum number of application commands reached (100)")
        for index, definition in enumerate(definitions):
            self._validate_command(definition, errors, (index,))
        errors.raise_if_any()
        new = {d["name"]: self._stored_command(d, store, guild_id) for d in definitions}
        store.clear()
        store.update(new)
        return _json_response(200, list(store.values()))

    async def _post_command(self, call: _Call) -> web.Response:
        store, guild_id = self._command_store(call)
        errors = _FormErrors()
        self._validate_command(call.body, errors, ())
        errors.raise_if_any()
        existed = call.body["name"] in store
        command = self._stored_command(call.body, store, guild_id)
        store[command["name"]] = command
        return _json_response(200 if existed else 201, command)

    async def _delete_command(self, call: _Call) -> web.Response:
        store, _ = self._command_store(call)
        name = next((n for n, c in store.items() if c["id"] == call.params["command_id"]), None)
        if name is None:
            raise ApiError(404, 10063, "Unknown application command")
        del store[name]
        return _no_content()

    # ------------------------------------------------------------------ REST: interactions

    def _reject(self, interaction: FakeInteraction, error: ApiError) -> ApiError:
        interaction.rejections.append(error)
        return error

    async def _interaction_callback(self, call: _Call) -> web.Response:
        interaction = self._interactions.get(int(call.params["interaction_id"]))
        if interaction is None or interaction.token != call.params["token"]:
            raise _unknown_interaction()
        if interaction.callback_type is not None:
            raise self._reject(
                interaction, ApiError(400, 40060, "Interaction has already been acknowledged.")
            )
        if self._now() >= interaction.ack_deadline:
            raise self._reject(interaction, _unknown_interaction())
        body = call.body if isinstance(call.body, dict) else {}
        callback = body.get("type")
        data = body.get("data") or {}
        if callback not in _ALLOWED_CALLBACKS.get(interaction.kind, frozenset()):
            errors = _FormErrors()
            errors.add(
                ("type",), "INTERACTION_RESPONSE_TYPE_INVALID", "Invalid interaction response type"
            )
            raise self._reject(
                interaction, ApiError(400, 50035, "Invalid Form Body", errors=errors.tree)
            )

        # Everything up to claiming the acknowledgement is synchronous, so two
        # concurrent callbacks cannot both succeed (the second one gets 40060).
        ephemeral_for = (
            interaction.user if int(data.get("flags") or 0) & MessageFlag.EPHEMERAL else None
        )
        message_type = (
            _MESSAGE_CHAT_INPUT
            if interaction.kind == InteractionKind.APPLICATION_COMMAND
            else _MESSAGE_DEFAULT
        )
        message: FakeMessage | None = None
        try:
            if callback == CallbackType.CHANNEL_MESSAGE:
                message = self._store_message(
                    interaction.channel,
                    self.bot_user,
                    data,
                    call.files,
                    interaction=interaction,
                    ephemeral_for=ephemeral_for,
                    message_type=message_type,
                    errors_prefix=("data",),
                )
            elif callback == CallbackType.DEFERRED_CHANNEL_MESSAGE:
                message = self._store_message(
                    interaction.channel,
                    self.bot_user,
                    {},
                    [],
                    interaction=interaction,
                    ephemeral_for=ephemeral_for,
                    extra_flags=int(MessageFlag.LOADING),
                    message_type=message_type,
                    allow_empty=True,
                )
            elif callback == CallbackType.UPDATE_MESSAGE:
                assert interaction.message is not None
                message = interaction.message
                if message.deleted:
                    raise _unknown_message()
                self._edit_message(message, data, call.files, errors_prefix=("data",))
            elif callback == CallbackType.DEFERRED_UPDATE_MESSAGE:
                message = interaction.message
        except ApiError as error:
            raise self._reject(interaction, error) from None

        interaction.callback_type = int(callback)
        interaction.acknowledged_at = self._now()
        if callback == CallbackType.MODAL:
            interaction.modal = data
        elif callback == CallbackType.AUTOCOMPLETE_RESULT:
            interaction.autocomplete_choices = data.get("choices", [])
        elif message is not None:
            interaction.original = message

        if callback in (CallbackType.CHANNEL_MESSAGE, CallbackType.DEFERRED_CHANNEL_MESSAGE):
            assert message is not None
            await self._announce_create(message)
        elif callback == CallbackType.UPDATE_MESSAGE:
            assert message is not None
            await self._announce_update(message)
        self._changed()

        if not _truthy(call.query.get("with_response")):
            return _no_content()
        reply: Json = {"interaction": {"id": str(interaction.id), "type": interaction.kind}}
        if message is not None and callback != CallbackType.DEFERRED_UPDATE_MESSAGE:
            reply["interaction"].update(
                response_message_id=str(message.id),
                response_message_loading=message.loading,
                response_message_ephemeral=message.ephemeral,
            )
            reply["resource"] = {"type": int(callback), "message": message.payload()}
        return _json_response(200, reply)

    def _webhook_interaction(self, call: _Call) -> FakeInteraction:
        if int(call.params["webhook_id"]) != self.application_id:
            raise _unknown_webhook()
        interaction = self._interactions_by_token.get(call.params["token"])
        if interaction is None:
            raise _invalid_webhook_token()
        if interaction.token_expired:
            raise self._reject(interaction, _invalid_webhook_token())
        return interaction

    def _webhook_message(self, call: _Call, interaction: FakeInteraction) -> FakeMessage:
        """The message a webhook route names: @original, or one this interaction's
        webhook may reach. Other people's ephemeral messages are never reachable."""
        target = call.params["message_id"]
        if target == "@original":
            if interaction.callback_type is None:
                raise self._reject(interaction, _unknown_webhook())
            message = interaction.original
        else:
            message = self.messages.get(int(target)) if target.isdigit() else None
            if message is not None and not (
                message is interaction.original
                or message is interaction.message
                or message in interaction.followups
                or (
                    message.webhook_id == self.application_id
                    and not message.ephemeral
                    and message.channel is interaction.channel
                )
            ):
                message = None
        if message is None or message.deleted:
            raise self._reject(interaction, _unknown_message())
        return message

    async def _execute_webhook(self, call: _Call) -> web.Response:
        interaction = self._webhook_interaction(call)
        if interaction.callback_type is None:
            # Followups exist only after the interaction was acknowledged.
            raise self._reject(interaction, _unknown_webhook())
        body = call.body if isinstance(call.body, dict) else {}
        original = interaction.original
        try:
            if (
                interaction.callback_type == CallbackType.DEFERRED_CHANNEL_MESSAGE
                and original is not None
                and original.loading
                and not original.deleted
            ):
                # Discord's rule: the first followup after a "thinking" defer fills
                # in the deferred message instead of sending a new one (once that
                # message is deleted, a followup is a message of its own again).
                self._edit_message(original, body, call.files)
                await self._announce_update(original)
                message = original
            else:
                ephemeral_for = (
                    interaction.user
                    if int(body.get("flags") or 0) & MessageFlag.EPHEMERAL
                    else None
                )
                message = self._store_message(
                    interaction.channel,
                    self.bot_user,
                    body,
                    call.files,
                    interaction=interaction,
                    ephemeral_for=ephemeral_for,
                    message_type=(
                        _MESSAGE_CHAT_INPUT
                        if interaction.kind == InteractionKind.APPLICATION_COMMAND
                        else _MESSAGE_DEFAULT
                    ),
                )
                interaction.followups.append(message)
                await self._announce_create(message)
        except ApiError as error:
            raise self._reject(interaction, error) from None
        if _truthy(call.query.get("wait")):
            return _json_response(200, message.payload())
        return _no_content()

    async def _get_webhook_message(self, call: _Call) -> web.Response:
        interaction = self._webhook_interaction(call)
        return _json_response(200, self._webhook_message(call, interaction).payload())

    async def _patch_webhook_message(self, call: _Call) -> web.Response:
        interaction = self._webhook_interaction(call)
        message = self._webhook_message(call, interaction)
        try:
            self._edit_message(message, call.body, call.files)
        except ApiError as error:
            raise self._reject(interaction, error) from None
        await self._announce_update(message)
        return _json_response(200, message.payload())

    async def _delete_webhook_message(self, call: _Call) -> web.Response:
        interaction = self._webhook_interaction(call)
        message = self._webhook_message(call, interaction)
        message.deleted = True
        await self._announce_delete(message)
        return _no_content()


def _forge_button(message_payload: Json, custom_id: str) -> None:
    """Put ``custom_id`` on the first button of a message payload (or add a button),
    as a tampered client claiming to have pressed it would."""
    for row in _component_rows(message_payload.get("components", [])):
        for component in row:
            if (
                component.get("type") == _COMPONENT_BUTTON
                and component.get("style") != _BUTTON_LINK
            ):
                component["custom_id"] = custom_id
                return
    message_payload.setdefault("components", []).append(
        {
            "type": _COMPONENT_ROW,
            "components": [
                {"type": _COMPONENT_BUTTON, "style": 1, "label": "?", "custom_id": custom_id}
            ],
        }
    )


# --------------------------------------------------------------------------- discord.py glue


@contextlib.contextmanager
def patch_discord_endpoints(api_base: str, gateway_url: str) -> Iterator[None]:
    """Point discord.py at another server, restoring the originals afterwards.

    discord.py has no base-URL option: REST URLs come from the class attribute
    ``Route.BASE`` and the gateway from ``DiscordWebSocket.DEFAULT_GATEWAY``. Both are
    process-wide, so tests using this must not run concurrently in one process.
    """
    route_class = discord.http.Route
    websocket_class = discord.gateway.DiscordWebSocket
    saved_base, saved_gateway = route_class.BASE, websocket_class.DEFAULT_GATEWAY
    route_class.BASE = api_base
    websocket_class.DEFAULT_GATEWAY = yarl.URL(gateway_url)
    try:
        yield
    finally:
        route_class.BASE = saved_base
        websocket_class.DEFAULT_GATEWAY = saved_gateway


ClientT = TypeVar("ClientT", bound=discord.Client)


@contextlib.asynccontextmanager
async def running_client(
    client: ClientT, fake: FakeDiscord, *, timeout: float = 5.0
) -> AsyncIterator[ClientT]:
    """Log ``client`` in to ``fake``, connect it and wait for READY; close on exit.

    Uses ``login``/``connect`` rather than ``run``/``start`` so the test's event loop
    stays in charge; a client that dies while connecting fails here with its error.
    Give the client a low ``guild_ready_timeout`` (e.g. 0.05): READY is dispatched
    only after that long without a further GUILD_CREATE.
    """
    await client.login(fake.token)
    task = asyncio.create_task(client.connect(reconnect=True), name=f"discord-client-{id(client)}")
    try:
        ready = asyncio.create_task(client.wait_until_ready())
        done, _ = await asyncio.wait(
            {ready, task}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
        )
        if ready not in done:
            ready.cancel()
            if task in done:
                task.result()  # raises the client's error
                raise RuntimeError("discord client stopped before READY")
            raise TimeoutError(f"discord client not READY within {timeout}s")
        yield client
    finally:
        await client.close()
        done, _ = await asyncio.wait({task}, timeout=timeout)
        if not done:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
    error = None if task.cancelled() else task.exception()
    if error is not None:
        raise error


class ErrorLogGuard(logging.Handler):
    """Fails a test on any ERROR record from discord.py's loggers.

    Why: discord.py catches exceptions from event handlers, view callbacks and app
    commands and only logs them, so a broken handler otherwise shows up as a timeout
    far from its cause. Use as a context manager around the test (it raises on exit,
    with the tracebacks), or ``install``/``check``/``uninstall`` from a fixture.
    ``allow(pattern)`` tolerates records a test provokes on purpose (matched against
    the message and the traceback).
    """

    def __init__(self, *logger_names: str, level: int = logging.ERROR) -> None:
        super().__init__(level=level)
        self.logger_names = logger_names or ("discord",)
        self.records: list[logging.LogRecord] = []
        self._allowed: list[re.Pattern[str]] = []
        self.setFormatter(logging.Formatter("%(name)s %(levelname)s: %(message)s"))

    def allow(self, pattern: str) -> None:
        self._allowed.append(re.compile(pattern))

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if record.exc_info:
            text += "\n" + logging.Formatter().formatException(record.exc_info)
        if not any(pattern.search(text) for pattern in self._allowed):
            self.records.append(record)

    def install(self) -> None:
        for name in self.logger_names:
            logging.getLogger(name).addHandler(self)

    def uninstall(self) -> None:
        for name in self.logger_names:
            logging.getLogger(name).removeHandler(self)

    def check(self) -> None:
        if self.records:
            details = "\n\n".join(self.format(record) for record in self.records)
            raise AssertionError(f"{len(self.records)} error(s) logged by discord.py:\n{details}")

    def __enter__(self) -> ErrorLogGuard:
        self.install()
        return self

    def __exit__(self, exc_type: object, exc: object, traceback: object) -> None:
        self.uninstall()
        if exc_type is None:
            self.check()
