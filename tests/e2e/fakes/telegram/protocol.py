"""The Bot API's names and shapes the fake relies on (the default token, which
methods send or edit, which parameters stay strings) and the limits it enforces.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    pass


JSONDict = dict[str, Any]


Params = dict[str, Any]


MethodHandler = Callable[[Params], Awaitable[Any]]


#: A well-formed token (``<bot id>:<35 characters>``); the bot id is its prefix.
DEFAULT_TOKEN = "7000000001:AAFakeTokenForSchnapsenEndToEndTests"


#: The bot's @username unless a test names another (commands may be addressed to it).
BOT_USERNAME = "schnapsen_test_bot"


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: Parameters that PTB (and the Bot API) send as plain strings; everything else in a form
#: body is a JSON value. Without this list a text of "123" would be decoded as a number.
STRING_PARAMS = _names(
    "text caption parse_mode callback_query_id url secret_token language_code "
    "inline_message_id action business_connection_id message_effect_id ip_address file_id "
    "name title description short_description custom_title emoji"
)


#: Methods that post or change a message: what Telegram's flood control counts.
SENDING_METHODS = _names(
    "sendMessage sendPhoto sendDocument sendAudio sendVideo sendAnimation sendVoice "
    "sendVideoNote sendSticker sendLocation sendVenue sendContact sendPoll sendDice "
    "sendMediaGroup copyMessage forwardMessage"
)


EDITING_METHODS = frozenset(
    {"editMessageText", "editMessageReplyMarkup", "editMessageCaption", "editMessageMedia"}
)


#: Update types sent only when asked for in ``allowed_updates`` (Bot API default).
_OPT_IN_UPDATES = frozenset({"chat_member", "message_reaction", "message_reaction_count"})


_CHAT_ACTIONS = _names(
    "typing upload_photo record_video upload_video record_voice upload_voice "
    "upload_document choose_sticker find_location record_video_note upload_video_note"
)


_BUTTON_ACTIONS = _names(
    "url callback_data web_app login_url switch_inline_query "
    "switch_inline_query_current_chat switch_inline_query_chosen_chat copy_text "
    "callback_game pay"
)


_TOKEN_SHAPE = re.compile(r"^\d+:[A-Za-z0-9_-]{30,}$")


_COMMAND_NAME = re.compile(r"^[a-z0-9_]{1,32}$")


_SECRET_TOKEN = re.compile(r"^[A-Za-z0-9_-]{1,256}$")


_WEBHOOK_SECRET = object()  # sentinel: send the secret the webhook was set with


@dataclass(frozen=True, kw_only=True)
class RateLimits:
    """Telegram's flood control as token buckets (about 1 msg/s per chat, tolerating a short
    burst; 20 per minute per group; 30 per second overall).

    A request that would overdraw any bucket is refused with 429 and ``retry_after`` set to
    the seconds until it would pass; only successful requests are counted. Edits count too
    (an assumption on the safe side), so a long scripted game in one group will meet the
    20-per-minute budget: such tests pass ``Limits(rate=None)`` or a larger budget, and
    tests of the bot's flood handling keep the defaults or ``fail_next``.
    """

    per_chat_per_second: float = 1.0
    per_chat_burst: int = 3
    per_group_per_minute: int = 20
    global_per_second: float = 30.0
    global_burst: int = 30
    methods: frozenset[str] = SENDING_METHODS | EDITING_METHODS


@dataclass(frozen=True, kw_only=True)
class Limits:
    """Every limit the fake enforces, in one place so a test can shrink or relax them.

    ``rate=None`` disables flood control. Assign a modified copy to ``FakeTelegram.limits``
    at any time, e.g. ``fake.limits = replace(fake.limits, callback_answer_timeout=0.1)``.
    """

    callback_answer_timeout: float = 10.0
    max_text_length: int = 4096
    max_caption_length: int = 1024
    max_callback_data_bytes: int = 64
    max_callback_answer_length: int = 200
    max_commands: int = 100
    rate: RateLimits | None = field(default_factory=RateLimits)
