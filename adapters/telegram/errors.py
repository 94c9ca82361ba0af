"""Which of Telegram's errors mean what for the outbox.

Why a module of its own: Telegram says the same thing in many words, and how the
outbox answers a failed request depends only on which kind it is:

- a 403, or a 400 that says the same in other words (`refuses`: a user Telegram
  knows no chat with, "chat not found"; a group that took the bot's right to post):
  the chat refuses the bot;
- a 400 for a forum topic closed or deleted (`refuses_topic`): that topic only;
- a network failure that never reached Telegram (`_unsent`: no connection): safe to
  try again, unlike a timeout or a lost answer;
- a 429 (`retry_seconds`): how long to wait, whichever type this PTB version gives;
- an answer PTB could not read (a bare `TelegramError`, or an `UnreadableAnswer`):
  the request may well have been carried out.
"""

from __future__ import annotations

import datetime as dtm
import warnings

import httpx
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter, TelegramError

#: How a 400 says the bot may not post in the chat at all, as a 403 would; real
#: Telegram uses all of these.  The bot can do nothing about any of them but wait to
#: be let in again, so one answer is enough: trying every message anew would only
#: fill the log while the table runs on unseen.
_REFUSALS = (
    "rights to send",  # "not enough rights to send text messages to the chat"
    "chat_write_forbidden",
    "chat_restricted",
    "chat not found",  # a user who never started the bot, a group the bot is not in
    "user is deactivated",
    "bot was blocked",
)


#: How a 400 refuses one forum topic, not the group: an admin closed or deleted it (a
#: closed General topic refuses what goes there, which carries no topic id).
_TOPIC_REFUSALS = ("topic_closed", "message thread not found")


def refuses_topic(error: TelegramError) -> bool:
    """Telegram refuses the bot a forum topic (a message sent to one): the group's
    other topics may still take it."""
    text = error.message.lower()
    return isinstance(error, BadRequest) and any(words in text for words in _TOPIC_REFUSALS)


def refuses(error: TelegramError) -> bool:
    """Telegram refuses the chat to the bot, not just one request ("message is not
    modified", "message to edit not found" and the like are about one message)."""
    if isinstance(error, Forbidden):
        return True
    text = error.message.lower()
    if "rights to send documents" in text:  # a group that takes text, not files
        return False
    return isinstance(error, BadRequest) and any(words in text for words in _REFUSALS)


def _unsent(error: NetworkError) -> bool:
    """The request never reached Telegram (no connection): trying again is safe."""
    cause = error.__cause__
    return isinstance(cause, httpx.ConnectError | httpx.ConnectTimeout | httpx.PoolTimeout)


def retry_seconds(error: RetryAfter) -> float:
    """`retry_after` in seconds, whichever type this PTB version gives it."""
    raw = getattr(error, "_retry_after", None)
    if isinstance(raw, dtm.timedelta):
        return raw.total_seconds()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = error.retry_after
    return value.total_seconds() if isinstance(value, dtm.timedelta) else float(value)


class UnreadableAnswer(TelegramError):
    """Telegram's answer to `method` was JSON but not in the Bot API's shape (``ok``
    with no ``result``, or a ``result`` of the wrong type, as a proxy on the way may
    leave it): PTB raised an error of its own (a KeyError, …), not a `TelegramError`.
    Like a garbled answer, it came after the call, which may well have been carried
    out.  Its message names the method and the error's type, never its text (which
    may quote the answer, a hand's cards and all)."""

    def __init__(self, method: str, error: Exception) -> None:
        super().__init__(
            f"an answer to {method} not in the Bot API's shape ({type(error).__name__})"
        )


def unread(error: TelegramError) -> bool:
    """Telegram's answer could not be read (a 2xx garbled, or not the Bot API's
    shape): the request may have been carried out."""
    return type(error) is TelegramError or isinstance(error, UnreadableAnswer)
