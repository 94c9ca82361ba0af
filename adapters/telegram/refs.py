"""How the core names Telegram's people and where a message was written.

Every part of the adapter turns a Telegram user into the core's `UserRef` (keys
``tg:<id>``) and back, and answers in the forum topic a message came from: these
few lines are shared by all of them.
"""

from __future__ import annotations

from telegram import Message as TgMessage
from telegram import User as TgUser

from bot.i18n import supported_lang
from bot.service import UserRef

PLATFORM = "tg"


def user_ref(user: TgUser) -> UserRef:
    """The person, with his app's language where we speak it (else none:
    `TableService.reader` gives him the chat's or the table's)."""
    return UserRef(PLATFORM, str(user.id), user.full_name, supported_lang(user.language_code))


def user_id(user_key: str) -> int:
    return int(user_key.split(":", 1)[1])


def topic_of(message: TgMessage) -> int | None:
    """The forum topic a message was sent in; None outside one, and in a forum's
    General topic (a message sent with no topic goes there)."""
    return message.message_thread_id if message.is_topic_message else None
