"""What a simulated user's message or button press turns into: the stored message,
whether the bot receives it (privacy mode), and the queued update.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    pass
from typing import TYPE_CHECKING

from tests.e2e.fakes.telegram.api_messages import MessagesApi
from tests.e2e.fakes.telegram.messages import FakeCallbackQuery
from tests.e2e.fakes.telegram.text_entities import _auto_entities, _utf16_slice

if TYPE_CHECKING:
    from tests.e2e.fakes.telegram.chats import FakeChat
    from tests.e2e.fakes.telegram.messages import FakeMessage
    from tests.e2e.fakes.telegram.users import FakeUser


class SimulatedUsers(MessagesApi):
    """The fake's side of what users do (see :class:`FakeUser`)."""

    def _user_message(
        self,
        user: FakeUser,
        chat: FakeChat,
        text: str,
        reply_to: FakeMessage | None,
        *,
        anonymous: bool = False,
        topic: int | None = None,
    ) -> FakeMessage:
        if topic is not None and topic not in chat.topics:
            raise ValueError(f"chat {chat.id} has no topic {topic}")
        if not chat.may_post_in(user, topic):
            raise ValueError(f"{user.mention} may not post in closed topic {topic}")
        if not chat.is_member(user):
            raise ValueError(f"{user.mention} is not a member of chat {chat.id}")
        if chat.migrated_to is not None:
            raise ValueError(f"chat {chat.id} was upgraded to supergroup {chat.migrated_to}")
        if not text:
            raise ValueError("a Telegram message cannot be empty")
        sender = self.anonymous_admin if anonymous else user
        message = self._store_message(chat, sender, text, tuple(_auto_entities(text)), None)
        message.reply_to = reply_to
        message.message_thread_id = topic
        if anonymous:
            message.sender_chat = chat
        if chat.type == "private":
            user.started_bot = True
        if self._bot_receives(message):
            message.update_id = self.push_update({"message": message.to_api()})
        self._notify()
        return message

    def _bot_receives(self, message: FakeMessage) -> bool:
        """Telegram's delivery rules for the bot, privacy mode included."""
        chat = message.chat
        if chat.type == "private":
            return True
        if not chat.is_member(self.bot_user):
            return False
        commands = [e for e in message.entities if e["type"] == "bot_command"]
        if commands and commands[0]["offset"] == 0:
            command = _utf16_slice(message.text, 0, commands[0]["length"])
            _, at, addressee = command.partition("@")
            return not at or addressee.lower() == (self.bot_user.username or "").lower()
        if not self.privacy_mode or chat.is_admin(self.bot_user):
            return True
        return message.reply_to is not None and message.reply_to.from_bot

    def _callback_query(self, user: FakeUser, message: FakeMessage, data: str) -> FakeCallbackQuery:
        if message.deleted:
            raise ValueError(f"message #{message.message_id} was deleted; nothing to press")
        if not message.from_bot:
            raise ValueError("only the bot's own messages carry callback buttons")
        if not message.chat.is_member(user):
            raise ValueError(f"{user.mention} is not a member of chat {message.chat.id}")
        query_id = str(self._next_query_id)
        self._next_query_id += 7919
        payload = {
            "callback_query": {
                "id": query_id,
                "from": user.to_api(),
                "message": message.to_api(),
                "chat_instance": message.chat.chat_instance,
                "data": data,
            }
        }
        update_id = self.push_update(payload)
        query = FakeCallbackQuery(
            id=query_id,
            user=user,
            message=message,
            data=data,
            update_id=update_id,
            pressed_at=time.monotonic(),
        )
        self.queries[query_id] = query
        return query
