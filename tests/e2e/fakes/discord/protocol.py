"""Discord's protocol numbers the fake speaks (API version, permission and intent
bits, message flags, interaction and callback kinds, component types) and the limits
it enforces, in one place so every part of the fake agrees on them.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

import discord
import discord.gateway
import discord.http

Json = dict[str, Any]


API_VERSION = 10


DISCORD_EPOCH_MS = 1_420_070_400_000


CDN = "https://cdn.discordapp.com"


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
