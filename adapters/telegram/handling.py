"""Every update's way through the handlers: dropped if it was handled before, held
while its chat moves to a supergroup, taken as a sign that a lost group lets the
bot post again; and answered when a handler fails.

`Handling` is the part of `TelegramAdapter` that does it; `TelegramAdapter` wires
it around the other parts' handlers (`_add_handlers`).
"""

from __future__ import annotations

import logging

from telegram import Update
from telegram.ext import ApplicationHandlerStop, ContextTypes

from bot.told import log_failure

from .content import Content
from .refs import topic_of
from .shape import AdapterShape
from .texts import tt

log = logging.getLogger("adapters.telegram.adapter")


class Handling(AdapterShape):
    """`TelegramAdapter`'s first and last word on each update (see the module's
    docstring)."""

    async def _on_error(self, update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        """A handler failed (a bug, or a request the core could not finish): one ERROR
        with the traceback but not the update, whose button data may hold a discard's
        cards; and the person who pressed or typed gets an answer, instead of a button
        that spins until Telegram gives up or a command that is silently ignored."""
        log_failure(log, context.error, "handling a Telegram update failed")
        if not isinstance(update, Update) or update.effective_user is None:
            return
        user = self._user(update.effective_user)
        message = update.effective_message
        chat = self._chat(message) if message is not None else None
        data = update.callback_query.data if update.callback_query is not None else None
        try:  # the chat's or table's language; a failing store must not stop the answer
            lang = (await self.service.reader(user, chat, data)).speaks
        except Exception:  # the answer matters more than its language
            lang = user.lang
        if update.callback_query is not None:
            await self._answer(update.callback_query, tt(lang, "failed"), alert=True)
        elif update.effective_chat is not None and update.effective_message is not None:
            thread = topic_of(update.effective_message)
            self.outbox.send(update.effective_chat.id, Content(tt(lang, "failed")), thread=thread)

    async def _dedupe(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Before any handler: drop an update seen before, hold one from a chat being
        moved, and take a message from a group the bot had lost as a sign that it may
        post there again."""
        if not self.updates.first_time(update.update_id):
            raise ApplicationHandlerStop
        await self._moving(update)
        if update.message is not None and update.message.chat.id < 0:
            self._regain(update.message.chat.id)
