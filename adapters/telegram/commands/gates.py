"""What every command goes through before its work, and the replies they share.

A command is a method taking its message, who typed it, the chat and its words
(`command`, `group_command`); the gate before it answers an anonymous admin, and a
group's command typed in the private chat.  Where only admins may do a thing,
Telegram is asked whether the user is one (`_is_admin`); when it does not say, he is
asked to try again.  One that asks first (/resign, /forgetme) answers with a question
and the one button that does it (`_ask`).
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeAlias, TypeVar

from telegram import Message as TgMessage
from telegram import Update
from telegram.error import BadRequest, Forbidden, TelegramError
from telegram.ext import ContextTypes

from bot.service import ChatRef, Outcome, UserRef

from ..content import Btn, Content, Handle, parts
from ..refs import topic_of
from ..shape import AdapterShape
from ..texts import tt

#: The adapter's one logger, whichever of its modules speaks.
log = logging.getLogger("adapters.telegram.adapter")

#: getChatMember's refusals that mean "no member of this chat" (so no admin): any other
#: refusal says nothing about the user.
_NO_MEMBER = re.compile(r"user not found|participant_id_invalid|user_not_participant", re.I)


class AdminUnknowable(Exception):
    """Telegram refuses to say who administers the chat (not for an outage)."""


_C = TypeVar("_C", bound="CommandGates")
#: A command's work, given its message, who typed it, the chat and the command's words.
_Body: TypeAlias = Callable[[_C, TgMessage, UserRef, ChatRef, list[str]], Coroutine[Any, Any, None]]
#: What PTB calls for a command.
_Handler: TypeAlias = Callable[[_C, Update, ContextTypes.DEFAULT_TYPE], Coroutine[Any, Any, None]]
_Gate: TypeAlias = Callable[[_C, Update], Awaitable[tuple[TgMessage, UserRef] | None]]


def _handler(body: _Body[_C], gate: _Gate[_C]) -> _Handler[_C]:
    @functools.wraps(body)
    async def handle(self: _C, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        got = await gate(self, update)
        if got is None:  # answered already (an anonymous admin, a group's command typed privately)
            return
        message, user = got
        await body(self, message, user, self._chat(message), context.args or [])

    return handle


def command(body: _Body[_C]) -> _Handler[_C]:
    """A command for any chat (`CommandGates._incoming`)."""
    return _handler(body, lambda self, update: self._incoming(update))


def group_command(body: _Body[_C]) -> _Handler[_C]:
    """A command about a group's tables (`CommandGates._in_group`)."""
    return _handler(body, lambda self, update: self._in_group(update))


class CommandGates(AdapterShape):
    """The gates before every command, and the replies the commands share."""

    async def _reply(self, message: TgMessage, text: str) -> None:
        """Answer in the message's chat (and forum topic); a text longer than one
        message goes on in the next (`parts`, as Discord's replies do), in order."""
        for part in parts(text):
            self.outbox.send(message.chat.id, Content(part), thread=topic_of(message))

    async def _is_admin(self, message: TgMessage, user: UserRef) -> bool | None:
        """Whether `user` administers the message's chat; None when Telegram did not
        say (flood control, an outage, an answer that never came): an admin told he
        is none would believe it, so the caller asks him to try again instead."""
        if message.chat.type == "private":
            return True
        try:
            chat_id = self.outbox.current_chat(message.chat.id)
            member = await self.app.bot.get_chat_member(chat_id, int(user.id))
        except (BadRequest, Forbidden) as e:
            if isinstance(e, BadRequest) and _NO_MEMBER.search(e.message):
                return False  # Telegram's answer: he is no member
            log.warning("getChatMember refused (%s): admins are refused until it works", e)
            raise AdminUnknowable from None
        except TelegramError as e:
            log.info("getChatMember failed: %s", e)
            return None
        return member.status in ("creator", "administrator")

    async def _admin_or_retry(
        self, message: TgMessage, user: UserRef, *, refused_is_no: bool = False
    ) -> bool | None:
        """`_is_admin`, having told the user what to do when Telegram did not say: try
        again after an outage; make the bot an admin when Telegram refuses to tell it
        (its API promises the answer only to admins).  `refused_is_no`: a refusal
        counts as "no admin" (/abort naming a table: a player's vote needs none)."""
        try:
            is_admin = await self._is_admin(message, user)
        except AdminUnknowable:
            if refused_is_no:
                return False
            await self._reply(message, tt(user.speaks, "admin_refused"))
            return None
        if is_admin is None:
            await self._reply(message, tt(user.speaks, "admin_unknown"))
        return is_admin

    async def _incoming(self, update: Update) -> tuple[TgMessage, UserRef] | None:
        message = update.effective_message
        if message is None or update.effective_user is None:
            return None
        chat = self._chat(message)
        if message.sender_chat is not None:
            # An admin who remains anonymous (or one posting as a channel): Telegram
            # names the group's stand-in bot, not the person, so he could be neither
            # seated nor sent a hand.  His buttons are his own: presses name him.
            lang = await self.service.reply_lang(None, chat)
            self.outbox.send(
                message.chat.id, Content(tt(lang, "anonymous")), thread=topic_of(message)
            )
            return None
        return message, await self.service.reader(self._user(update.effective_user), chat)

    async def _in_group(self, update: Update) -> tuple[TgMessage, UserRef] | None:
        """A command about a group's tables; typed in the private chat, where no
        table is, it gets the answer to type it in the group."""
        got = await self._incoming(update)
        if got is not None and got[0].chat.type == "private":
            await self._reply(got[0], tt(got[1].speaks, "group_only"))
            return None
        return got

    async def _ask(self, message: TgMessage, outcome: Outcome) -> None:
        """The core's answer to a command that asks first (/resign, /forgetme): the
        question with the one button that does it, or the refusal.  A question about
        a table loses its button when the table closes, pressed or not."""
        if outcome.confirm is None:
            if outcome.text:
                await self._reply(message, outcome.text)
            return
        label, data = outcome.confirm
        content = Content(outcome.text or "", ((Btn(label, data=data),),))
        tid = outcome.table_id
        st = self.states.get(tid) if tid is not None else None
        if tid is None or st is None:
            self.outbox.send(message.chat.id, content, thread=topic_of(message))
            return
        handle = Handle(message.chat.id, tid, None, thread=topic_of(message))
        st.questions.append(handle)
        self.outbox.post(handle, content)
