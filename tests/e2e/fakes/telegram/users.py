"""Simulated users: accounts that send messages, press buttons and block or start the
bot, each action queued as the update Telegram would deliver.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    pass
from typing import TYPE_CHECKING

from tests.e2e.fakes.telegram.keyboards import _callback_data, _find_button
from tests.e2e.fakes.telegram.text_entities import _auto_entities

if TYPE_CHECKING:
    from tests.e2e.fakes.telegram.chats import FakeChat
    from tests.e2e.fakes.telegram.messages import FakeCallbackQuery, FakeMessage
    from tests.e2e.fakes.telegram.protocol import JSONDict
    from tests.e2e.fakes.telegram.server import FakeTelegram


@dataclass(eq=False, kw_only=True)
class FakeUser:
    """A Telegram account. Simulated people act through its methods."""

    fake: FakeTelegram = field(repr=False)
    id: int
    first_name: str
    username: str | None = None
    last_name: str | None = None
    language_code: str | None = "en"
    is_bot: bool = False
    started_bot: bool = False
    blocked_bot: bool = False

    def to_api(self) -> JSONDict:
        data: JSONDict = {"id": self.id, "is_bot": self.is_bot, "first_name": self.first_name}
        if self.last_name:
            data["last_name"] = self.last_name
        if self.username:
            data["username"] = self.username
        if self.language_code and not self.is_bot:
            data["language_code"] = self.language_code
        return data

    @property
    def mention(self) -> str:
        return f"@{self.username}" if self.username else self.first_name

    @property
    def private_chat(self) -> FakeChat:
        """The one-to-one chat with the bot (it exists even before the user starts the bot)."""
        return self.fake.private_chat(self)

    def start_bot(self, payload: str | None = None) -> FakeMessage:
        """Press "Start" in the bot's profile, or open a ``t.me/<bot>?start=<payload>`` link.

        Telegram then sends ``/start`` (or ``/start <payload>``) to the bot, and from then
        on the bot may write to this user privately.
        """
        if self.blocked_bot:  # "Restart" in a blocked chat: unblocked, then /start
            self.blocked_bot = False
            self.fake._bot_member_changed(self.private_chat, self, "kicked", "member")
        text = "/start" if payload is None else f"/start {payload}"
        return self.send(self.private_chat, text)

    def block_bot(self) -> None:
        """Block the bot: its private messages, sends and edits alike, now fail with 403
        "bot was blocked by the user", and the bot gets a ``my_chat_member`` update
        (``member`` -> ``kicked``) as from Telegram."""
        self.blocked_bot = True
        self.fake._bot_member_changed(self.private_chat, self, "member", "kicked")

    def delete(self, message: FakeMessage) -> None:
        """Delete a message as this user can: one's own, any in a private chat, or any
        in a group one administers.  The bot is not told (Telegram sends no update);
        its later edits of the message fail with "message to edit not found"."""
        chat = message.chat
        if message.deleted:
            raise ValueError(f"message #{message.message_id} is deleted already")
        if message.sender is not self and chat.type != "private" and not chat.is_admin(self):
            raise ValueError(f"{self.mention} may not delete message #{message.message_id}")
        message.deleted = True
        self.fake._notify()

    def send(
        self,
        chat: FakeChat,
        text: str,
        *,
        reply_to: FakeMessage | None = None,
        anonymous: bool = False,
        topic: int | None = None,
    ) -> FakeMessage:
        """Type ``text`` into ``chat``. Commands get ``bot_command`` entities.

        ``topic``: the forum topic it is typed in (`FakeChat.create_topic`); the bot gets
        it with ``message_thread_id`` and ``is_topic_message``.  ``None`` in a forum is
        its General topic, whose messages carry neither.

        Whether the bot receives it follows Telegram's rules (privacy mode in groups, see
        ``FakeTelegram.privacy_mode``); ``message.update_id`` is ``None`` when it does not.
        ``anonymous``: an admin who chose "Remain anonymous" posts as the group (only
        admins may); the message names GroupAnonymousBot and carries ``sender_chat``.
        """
        if anonymous and not chat.is_admin(self):
            raise ValueError(f"{self.mention} is no admin of chat {chat.id}: cannot be anonymous")
        return self.fake._user_message(self, chat, text, reply_to, anonymous=anonymous, topic=topic)

    def edit(self, message: FakeMessage, text: str) -> int | None:
        """Edit one's own message to ``text``.  Telegram tells the bot with an
        ``edited_message`` update, if it would have received the message and asked for
        edits in ``allowed_updates`` (else the update is dropped, see `update` for its
        body).  Returns the update's id, or ``None`` when it would not receive it."""
        if message.sender is not self or message.deleted:
            raise ValueError(f"{self.mention} cannot edit message #{message.message_id}")
        fake = self.fake
        fake._apply_edit(message, text, tuple(_auto_entities(text)), message.reply_markup)
        if not fake._bot_receives(message):
            fake._notify()
            return None
        return fake.push_update({"edited_message": message.to_api()})

    def press(
        self, message: FakeMessage, button: str, *, revision: int | None = None
    ) -> FakeCallbackQuery:
        """Press an inline button, found by its ``callback_data`` or else by its label.

        ``revision`` picks the keyboard of an earlier revision of the message (0 is the
        original): a user pressing a keyboard that has been replaced since, as happens when
        two people press at the same moment. The query carries the message as it is now.
        """
        chosen = message.current if revision is None else message.revisions[revision]
        data = _find_button(chosen.keyboard(), button)
        if data not in _callback_data(chosen.reply_markup):
            raise ValueError(f"{button!r} is not a callback button; pressing it sends no query")
        return self.press_data(message, data)

    def press_data(self, message: FakeMessage, data: str) -> FakeCallbackQuery:
        """Send a callback query with arbitrary data, as a modified client could."""
        return self.fake._callback_query(self, message, data)
