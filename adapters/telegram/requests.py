"""Asking Telegram: one queued op as its Bot API call, and what answers tell of reach.

Why a module of its own: which request each kind of op makes, and what a message's
handle records once Telegram took it, do not depend on the queue around them; nor
does telling from an answer (or its absence) whether Telegram is within reach.  The
`outbox` decides when a request is made, and what a failure means for its chat.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from telegram import Bot, ReplyParameters
from telegram.error import BadRequest, NetworkError, TelegramError, TimedOut

from .content import Content, Handle, fit
from .errors import UnreadableAnswer, _unsent
from .ops import Op

T = TypeVar("T")


async def _answer(method: str, call: Awaitable[T]) -> T:
    """Await the Bot API `call` to `method`.  PTB says a refusal, a failure to reach
    Telegram and an answer that is no JSON as a `TelegramError`; what else it raises
    comes from reading an answer in the wrong shape (``ok`` but no ``result``), so it
    is raised as `UnreadableAnswer`: the call may have been carried out."""
    try:
        return await call
    except TelegramError:
        raise
    except Exception as e:
        raise UnreadableAnswer(method, e) from e


async def request(
    bot: Bot,
    chat_id: int,
    op: Op,
    on_posted: Callable[[Handle], Awaitable[None]] | None,
) -> None:
    """Make `op`'s request in chat `chat_id`, and note on its handle what the message
    shows now; `on_posted`: told of a message posted for a handle with a slot."""
    handle = op.handle
    # a forum topic's message says so at every post; edits need no topic
    thread = handle.thread if handle is not None else op.thread
    if op.kind == "document":
        assert op.file is not None and op.content is not None
        await _answer(
            "sendDocument",
            bot.send_document(
                chat_id,
                op.file.data,
                filename=op.file.filename,
                caption=op.content.text or None,
                reply_markup=op.content.markup(),
                message_thread_id=thread,
            ),
        )
        return
    if op.kind in ("post", "send"):
        content = op.content if op.content is not None else Content("…")
        target = op.reply_to.message_id if op.reply_to is not None else None
        message = await _answer(
            "sendMessage",
            bot.send_message(
                chat_id,
                fit(content.text),
                reply_markup=content.markup(),
                message_thread_id=thread,
                reply_parameters=(
                    ReplyParameters(target, allow_sending_without_reply=True)
                    if target is not None
                    else None
                ),
            ),
        )
        if handle is not None:
            handle.message_id = message.message_id
            handle.shown = content
            if handle.slot is not None and on_posted is not None:
                await on_posted(handle)
        return
    assert handle is not None and handle.message_id is not None
    if op.kind == "delete":
        await _answer("deleteMessage", bot.delete_message(chat_id, handle.message_id))
        handle.message_id = None
        return
    if op.kind == "strip":
        await _answer(
            "editMessageReplyMarkup",
            bot.edit_message_reply_markup(chat_id, handle.message_id, reply_markup=None),
        )
        if handle.shown is not None:
            handle.shown = handle.shown.bare()
        return
    assert op.content is not None
    await _answer(
        "editMessageText",
        bot.edit_message_text(
            fit(op.content.text), chat_id, handle.message_id, reply_markup=op.content.markup()
        ),
    )
    handle.shown = op.content


class Contact:
    """Whether Telegram is within reach, as the answers to requests tell, and when
    the last request ended; `on_reach` hears of a change only."""

    def __init__(self, on_reach: Callable[[bool], None] | None) -> None:
        self.on_reach = on_reach
        self.reachable = True  # the last request that could tell got through (or none yet)
        #: When the last request to Telegram ended (answered or not): how long the bot
        #: has gone without news of whether Telegram is within reach.
        self.at = time.monotonic()

    async def noting(
        self, request: Awaitable[object], *, timeout_unreachable: bool = False
    ) -> None:
        """Await `request`, noting whether Telegram is within reach: any answer (a
        refusal too) says it is, a request that could not connect says it is not, and
        a timeout or a dropped answer says neither (unless `timeout_unreachable`)."""
        try:
            await request
        except BadRequest:  # a NetworkError to PTB, but Telegram's answer
            self._reach(True)
            raise
        except NetworkError as e:
            if _unsent(e) or (timeout_unreachable and isinstance(e, TimedOut)):
                self._reach(False)
            raise
        except TelegramError:
            self._reach(True)
            raise
        else:
            self._reach(True)
        finally:
            self.at = time.monotonic()

    def _reach(self, reachable: bool) -> None:
        """Tell `on_reach` of a change only: an outage fails many requests, every 5 s."""
        if reachable == self.reachable:
            return
        self.reachable = reachable
        if self.on_reach is not None:
            self.on_reach(reachable)
