"""A faithful fake of the Telegram Bot API, and simulated users to drive it.

Why a fake server rather than mocks: the adapter under test talks to Telegram through the
real python-telegram-bot (PTB) library, and most Telegram bugs live in the wire contract
(64-byte ``callback_data``, "message is not modified", the bot that may not start a private
conversation, late callback answers, flood control, one ``getUpdates`` consumer). A local
HTTP server that speaks that contract lets the real library, the real handlers and the real
error paths run unmodified, offline, in well under a second per test.

Typical use (see ``tests/e2e/test_fake_telegram.py``)::

    async with FakeTelegram() as fake:
        app = fake.application_builder().build()      # ... add handlers ...
        alice = fake.create_user("Alice", username="alice")
        table = fake.create_group("Schnapsen", members=[alice])
        async with polling(app):
            alice.send(table, "/new")
            reply = await fake.wait_for_message(table)
            query = alice.press(reply, "Join")
            answer = await fake.wait_answer(query)

Everything a simulated user does is synchronous: it records state and queues an update,
exactly as Telegram does before the bot fetches it. Everything that waits on the bot is
``async`` and bounded (``wait_for`` wakes on every state change; no polling sleeps).
The error texts are the Bot API's own, so the adapter can match on them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import re
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, TypeVar

import aiohttp
from aiohttp import web

if TYPE_CHECKING:
    from telegram import Bot
    from telegram.ext import Application, ApplicationBuilder

__all__ = [
    "ApiCall",
    "ApiError",
    "Button",
    "CallbackAnswer",
    "FakeCallbackQuery",
    "FakeChat",
    "FakeDocument",
    "FakeMessage",
    "FakeTelegram",
    "FakeTopic",
    "FakeUser",
    "Hold",
    "Limits",
    "LogErrorGuard",
    "RateLimits",
    "Revision",
    "Upload",
    "WebhookConfig",
    "WebhookDelivery",
    "polling",
]

_T = TypeVar("_T")
JSONDict = dict[str, Any]
Params = dict[str, Any]

#: A well-formed token (``<bot id>:<35 characters>``); the bot id is its prefix.
DEFAULT_TOKEN = "7000000001:AAFakeTokenForSchnapsenEndToEndTests"
#: The bot's @username unless a test names another (commands may be addressed to it).
BOT_USERNAME = "schnapsen_test_bot"

# Error descriptions exactly as the Bot API words them, so adapter code matching on them
# behaves the same against the fake and against Telegram.
BUTTON_DATA_INVALID = "Bad Request: BUTTON_DATA_INVALID"
NOT_MODIFIED = (
    "Bad Request: message is not modified: specified new message content and reply markup "
    "are exactly the same as a current content and reply markup of the message"
)
CANT_INITIATE = "Forbidden: bot can't initiate conversation with a user"
BLOCKED_BY_USER = "Forbidden: bot was blocked by the user"
NOT_ENOUGH_RIGHTS = "Bad Request: not enough rights to send text messages to the chat"
QUERY_TOO_OLD = "Bad Request: query is too old and response timeout expired or query ID is invalid"
MESSAGE_TOO_LONG = "Bad Request: message is too long"
TEXT_EMPTY = "Bad Request: message text is empty"
CHAT_NOT_FOUND = "Bad Request: chat not found"
CHAT_WRITE_FORBIDDEN = "Bad Request: CHAT_WRITE_FORBIDDEN"
CHAT_RESTRICTED = "Bad Request: CHAT_RESTRICTED"
TOPIC_CLOSED = "Bad Request: TOPIC_CLOSED"
THREAD_NOT_FOUND = "Bad Request: message thread not found"
USER_NOT_FOUND = "Bad Request: user not found"
MESSAGE_TO_EDIT_NOT_FOUND = "Bad Request: message to edit not found"
MESSAGE_CANT_BE_EDITED = "Bad Request: message can't be edited"
MESSAGE_TO_DELETE_NOT_FOUND = "Bad Request: message to delete not found"
MESSAGE_CANT_BE_DELETED = "Bad Request: message can't be deleted"
GROUP_UPGRADED = "Bad Request: group chat was upgraded to a supergroup chat"
REPLIED_NOT_FOUND = "Bad Request: message to be replied not found"
NO_DOCUMENT = "Bad Request: there is no document in the request"
CAPTION_TOO_LONG = "Bad Request: message caption is too long"
WRONG_FILE_ID = "Bad Request: wrong file identifier/HTTP URL specified"
FILE_EMPTY = "Bad Request: file must be non-empty"
NO_TEXT_TO_EDIT = "Bad Request: there is no text in the message to edit"
NOT_ENOUGH_RIGHTS_DOCUMENTS = "Bad Request: not enough rights to send documents to the chat"
METHOD_NOT_FOUND = "Not Found: method not found"
CONFLICT_OTHER_POLLER = (
    "Conflict: terminated by other getUpdates request; "
    "make sure that only one bot instance is running"
)
CONFLICT_WEBHOOK_ACTIVE = (
    "Conflict: can't use getUpdates method while webhook is active; "
    "use deleteWebhook to delete the webhook first"
)


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
_BOT_COMMAND = re.compile(r"(?<![\w/@])/[A-Za-z0-9_]{1,64}(?:@[A-Za-z0-9_]{3,32})?(?![\w@/])")
_MENTION = re.compile(r"(?<![\w@])@[A-Za-z0-9_]{5,32}(?!\w)")
_URL = re.compile(r"https?://[^\s<>\"]+")

_WEBHOOK_SECRET = object()  # sentinel: send the secret the webhook was set with


# --------------------------------------------------------------------------- configuration


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


# ------------------------------------------------------------------------------ state model


class ApiError(Exception):
    """An error answer of the Bot API; raised inside method handlers, sent as JSON."""

    def __init__(
        self, error_code: int, description: str, parameters: JSONDict | None = None
    ) -> None:
        super().__init__(description)
        self.error_code = error_code
        self.description = description
        self.parameters = parameters

    def to_api(self) -> JSONDict:
        body: JSONDict = {
            "ok": False,
            "error_code": self.error_code,
            "description": self.description,
        }
        if self.parameters:
            body["parameters"] = self.parameters
        return body


def _bad_request(detail: str) -> ApiError:
    return ApiError(400, detail if detail.startswith("Bad Request") else f"Bad Request: {detail}")


def _too_many_requests(retry_after: int) -> ApiError:
    return ApiError(
        429, f"Too Many Requests: retry after {retry_after}", {"retry_after": retry_after}
    )


class Button(NamedTuple):
    """One inline button as a user sees it: its label and its ``callback_data`` (or URL)."""

    text: str
    data: str


@dataclass(frozen=True)
class Revision:
    """A message's content at one point in time; edits append the previous revision."""

    text: str
    entities: tuple[JSONDict, ...]
    reply_markup: JSONDict | None
    edit_date: int | None

    def keyboard(self) -> list[list[Button]]:
        return _keyboard_rows(self.reply_markup)


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


MemberStatus = Literal["creator", "administrator", "member", "restricted", "left", "kicked"]


@dataclass(eq=False, kw_only=True)
class FakeTopic:
    """A forum topic.  Its id is the message id of the service message that opened it,
    as in Telegram (the fake only reserves that id; it stores no such message)."""

    id: int
    name: str
    closed: bool = False


ChatType = Literal["private", "group", "supergroup", "channel"]


@dataclass(eq=False, kw_only=True)
class FakeChat:
    """A chat with its members and every message ever posted in it."""

    fake: FakeTelegram = field(repr=False)
    id: int
    type: ChatType
    title: str | None = None
    username: str | None = None
    user: FakeUser | None = None  # the other party of a private chat
    members: dict[int, MemberStatus] = field(default_factory=dict, repr=False)
    muted: set[int] = field(default_factory=set, repr=False)  # restricted: may not send
    #: The group's default permission to send messages; an admin turning it off mutes
    #: every member who is not an admin, the bot included, without telling the bot.
    members_may_send: bool = True
    messages: list[FakeMessage] = field(default_factory=list, repr=False)
    chat_actions: list[str] = field(default_factory=list, repr=False)
    next_message_id: int = field(default=1, repr=False)
    migrated_to: int | None = None  # a basic group upgraded to this supergroup
    #: Set by a test: every message the bot sends or edits here is refused with this
    #: 400 (e.g. `CHAT_WRITE_FORBIDDEN`, `TOPIC_CLOSED`), as Telegram refuses a group
    #: whose settings changed in ways no update tells the bot about.
    refuses_with: str | None = None
    #: A forum supergroup (topics on).  Its General topic has no id: a message sent
    #: without ``message_thread_id`` goes there, and one posted there carries none.
    is_forum: bool = False
    topics: dict[int, FakeTopic] = field(default_factory=dict, repr=False)
    general_closed: bool = False

    @property
    def is_group(self) -> bool:
        return self.type in ("group", "supergroup")

    @property
    def chat_instance(self) -> str:
        """Telegram's opaque per-chat id carried by callback queries."""
        return str((abs(self.id) * 2654435761) % (2**63))

    def to_api(self) -> JSONDict:
        data: JSONDict = {"id": self.id, "type": self.type}
        if self.type == "private" and self.user is not None:
            data.update({k: v for k, v in self.user.to_api().items() if k in _PRIVATE_CHAT_FIELDS})
        else:
            data["title"] = self.title or ""
            if self.username:
                data["username"] = self.username
            if self.is_forum:
                data["is_forum"] = True
        return data

    def full_info(self) -> JSONDict:
        """The ``ChatFullInfo`` shape of ``getChat`` (with the fields PTB 22 requires)."""
        data = self.to_api()
        data.update(
            accent_color_id=0,
            max_reaction_count=11,
            accepted_gift_types={
                "unlimited_gifts": False,
                "limited_gifts": False,
                "unique_gifts": False,
                "premium_subscription": False,
                "gifts_from_channels": False,
            },
        )
        return data

    # -- membership

    def status_of(self, user: FakeUser | int) -> MemberStatus:
        user_id = user if isinstance(user, int) else user.id
        if self.type == "private":
            return "member" if user_id in (self.id, self.fake.bot_user.id) else "left"
        return self.members.get(user_id, "left")

    def set_status(self, user: FakeUser, status: MemberStatus) -> None:
        self.fake._users.setdefault(user.id, user)
        self.members[user.id] = status
        self.fake._notify()

    def add_member(self, user: FakeUser, *, admin: bool = False) -> None:
        self.set_status(user, "administrator" if admin else "member")

    def remove_member(self, user: FakeUser) -> None:
        self.set_status(user, "left")

    def is_member(self, user: FakeUser | int) -> bool:
        return self.status_of(user) in ("creator", "administrator", "member", "restricted")

    def is_admin(self, user: FakeUser | int) -> bool:
        return self.status_of(user) in ("creator", "administrator")

    # -- forum topics

    def create_topic(self, name: str) -> int:
        """Open a topic in this forum; returns its id (``message_thread_id``)."""
        if not self.is_forum:
            raise ValueError(f"chat {self.id} is no forum: it has no topics")
        topic = FakeTopic(id=self.next_message_id, name=name)
        self.next_message_id += 1
        self.topics[topic.id] = topic
        self.fake._notify()
        return topic.id

    def close_topic(self, topic: int | None) -> None:
        """Close a topic (``None``: General), as an admin does: only admins may post
        there now; the bot, a mere member, gets 400 ``TOPIC_CLOSED``.  No update
        tells the bot."""
        self._set_closed(topic, closed=True)

    def reopen_topic(self, topic: int | None) -> None:
        self._set_closed(topic, closed=False)

    def _set_closed(self, topic: int | None, *, closed: bool) -> None:
        if not self.is_forum:
            raise ValueError(f"chat {self.id} is no forum: it has no topics")
        if topic is None:
            self.general_closed = closed
        else:
            self.topics[topic].closed = closed
        self.fake._notify()

    def may_post_in(self, user: FakeUser | int, topic: int | None) -> bool:
        """Whether `user` may post in `topic` (``None``: General) of this chat: a
        closed topic takes admins' posts only."""
        if not self.is_forum:
            return topic is None
        closed = self.general_closed if topic is None else self.topics[topic].closed
        return not closed or self.is_admin(user)

    def topic_messages(self, topic: int | None) -> list[FakeMessage]:
        """The bot's visible messages in `topic` (``None``: General, or a chat that is
        no forum)."""
        return [m for m in self.bot_messages() if m.message_thread_id == topic]

    # -- what a user sees

    def visible_messages(self) -> list[FakeMessage]:
        return [m for m in self.messages if not m.deleted]

    def bot_messages(self) -> list[FakeMessage]:
        return [m for m in self.visible_messages() if m.from_bot]

    def latest(self, *, from_bot: bool | None = True) -> FakeMessage | None:
        """The newest visible message (by default the newest one the bot posted)."""
        for message in reversed(self.messages):
            if not message.deleted and (from_bot is None or message.from_bot == from_bot):
                return message
        return None

    def message(self, message_id: int) -> FakeMessage:
        for message in self.messages:
            if message.message_id == message_id:
                return message
        raise KeyError(f"no message {message_id} in chat {self.id}")

    def transcript(self) -> str:
        """The chat as text, for failure messages."""
        lines = []
        for m in self.messages:
            flag = " (deleted)" if m.deleted else ""
            if m.message_thread_id is not None:
                flag += f" [topic {m.message_thread_id}]"
            doc = f" [document {m.document.file_name}]" if m.document is not None else ""
            lines.append(f"#{m.message_id} {m.sender.mention}{flag}:{doc} {m.text}")
            for row in m.keyboard():
                lines.append("    " + " | ".join(f"[{b.text} -> {b.data}]" for b in row))
        return "\n".join(lines)


_PRIVATE_CHAT_FIELDS = frozenset({"first_name", "last_name", "username"})


@dataclass(frozen=True)
class Upload:
    """A file part of a multipart request, as the client uploaded it."""

    filename: str | None
    content_type: str
    data: bytes


@dataclass(frozen=True, kw_only=True)
class FakeDocument:
    """A file the bot sent as a document; ``data`` holds its bytes for tests to read."""

    file_id: str
    file_name: str | None
    mime_type: str | None
    data: bytes = field(repr=False)

    def to_api(self) -> JSONDict:
        data: JSONDict = {
            "file_id": self.file_id,
            "file_unique_id": f"U{self.file_id}",
            "file_size": len(self.data),
        }
        if self.file_name:
            data["file_name"] = self.file_name
        if self.mime_type:
            data["mime_type"] = self.mime_type
        return data


@dataclass(eq=False, kw_only=True)
class FakeMessage:
    """A message with its current content and the revisions it had before each edit.

    A document's caption is its ``text`` (and ``entities``), so waiting for a text and
    checking what a chat was shown cover captions too; `to_api` sends it as Telegram
    does, as ``caption`` beside ``document``."""

    chat: FakeChat
    message_id: int
    sender: FakeUser
    date: int
    text: str
    entities: tuple[JSONDict, ...] = ()
    reply_markup: JSONDict | None = None
    reply_to: FakeMessage | None = None
    edit_date: int | None = None
    history: list[Revision] = field(default_factory=list, repr=False)
    deleted: bool = False
    update_id: int | None = None  # the update that delivered it to the bot, if any
    document: FakeDocument | None = None
    #: The chat a message is sent on behalf of: the group itself for an admin who
    #: remains anonymous (then ``sender`` is Telegram's GroupAnonymousBot).
    sender_chat: FakeChat | None = None
    #: The forum topic it is in (None: not in a topic; a forum's General topic).
    message_thread_id: int | None = None

    @property
    def from_bot(self) -> bool:
        return self.sender.is_bot

    @property
    def current(self) -> Revision:
        return Revision(self.text, self.entities, self.reply_markup, self.edit_date)

    @property
    def revisions(self) -> list[Revision]:
        """Every revision, the original first and the current one last."""
        return [*self.history, self.current]

    def keyboard(self, *, revision: int | None = None) -> list[list[Button]]:
        """The inline keyboard as rows of ``Button(text, callback_data or url)``."""
        chosen = self.current if revision is None else self.revisions[revision]
        return chosen.keyboard()

    def buttons(self) -> list[Button]:
        return [button for row in self.keyboard() for button in row]

    def entity_texts(self, entity_type: str) -> list[str]:
        """The text covered by each entity of a type, e.g. ``"bold"`` or ``"bot_command"``."""
        return [
            _utf16_slice(self.text, e["offset"], e["length"])
            for e in self.entities
            if e["type"] == entity_type
        ]

    def to_api(self, *, with_reply: bool = True) -> JSONDict:
        data: JSONDict = {
            "message_id": self.message_id,
            "from": self.sender.to_api(),
            "chat": self.chat.to_api(),
            "date": self.date,
        }
        if self.message_thread_id is not None:
            data["message_thread_id"] = self.message_thread_id
            data["is_topic_message"] = True
        if self.sender_chat is not None:
            data["sender_chat"] = self.sender_chat.to_api()
        body, entities = ("caption", "caption_entities") if self.document else ("text", "entities")
        if self.document is not None:
            data["document"] = self.document.to_api()
        if self.text or self.document is None:
            data[body] = self.text
        if self.entities:
            data[entities] = [dict(e) for e in self.entities]
        if self.edit_date is not None:
            data["edit_date"] = self.edit_date
        if self.reply_markup is not None:
            data["reply_markup"] = json.loads(json.dumps(self.reply_markup))
        if with_reply and self.reply_to is not None:
            data["reply_to_message"] = self.reply_to.to_api(with_reply=False)
        return data


@dataclass(frozen=True)
class CallbackAnswer:
    """What the bot answered to a callback query (the toast or alert the user saw)."""

    text: str | None
    show_alert: bool
    url: str | None
    cache_time: int
    answered_at: float  # time.monotonic()
    delay: float  # seconds between the press and the answer


@dataclass(eq=False, kw_only=True)
class FakeCallbackQuery:
    """A button press, and what became of it."""

    id: str
    user: FakeUser
    message: FakeMessage
    data: str
    update_id: int
    pressed_at: float  # time.monotonic()
    answer: CallbackAnswer | None = None
    refused_answers: int = 0  # answers refused as duplicate or too late


@dataclass(frozen=True)
class ApiCall:
    """One request the bot made, with the fake's verdict."""

    method: str
    params: Params
    status: int
    result: Any
    description: str | None
    at: float  # time.monotonic()

    @property
    def ok(self) -> bool:
        return self.status == 200


@dataclass(frozen=True)
class WebhookConfig:
    url: str
    secret_token: str | None
    allowed_updates: tuple[str, ...] | None
    max_connections: int


@dataclass(frozen=True)
class WebhookDelivery:
    update_id: int
    status: int | None  # None when the connection failed
    error: str | None
    at: float


@dataclass(eq=False)
class _Pending:
    update: JSONDict
    replay: bool = False  # a forced duplicate: survives offset confirmation until delivered

    @property
    def update_id(self) -> int:
        return int(self.update["update_id"])

    @property
    def kind(self) -> str:
        return next(k for k in self.update if k != "update_id")


# --------------------------------------------------------------------------- text handling


def _utf16_len(text: str) -> int:
    """Telegram measures offsets and lengths in UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


def _utf16_slice(text: str, offset: int, length: int) -> str:
    raw = text.encode("utf-16-le")
    return raw[offset * 2 : (offset + length) * 2].decode("utf-16-le")


class _EntityParseError(Exception):
    def __init__(self, detail: str, byte_offset: int | None = None) -> None:
        where = f" at byte offset {byte_offset}" if byte_offset is not None else ""
        super().__init__(f"Bad Request: can't parse entities: {detail}{where}")


_HTML_TAGS = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "u": "underline",
    "ins": "underline",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "tg-spoiler": "spoiler",
    "span": "spoiler",
    "code": "code",
    "pre": "pre",
    "a": "text_link",
    "blockquote": "blockquote",
    "tg-emoji": "custom_emoji",
}


class _HtmlEntities(HTMLParser):
    """Turns Telegram's HTML subset into plain text plus entities, rejecting other tags."""

    def __init__(self, source: str) -> None:
        super().__init__(convert_charrefs=True)
        self.source = source
        self.parts: list[str] = []
        self.position = 0
        self.stack: list[tuple[str, int, dict[str, str | None]]] = []
        self.entities: list[JSONDict] = []

    def byte_offset(self) -> int:
        line, column = self.getpos()
        lines = self.source.split("\n")
        prefix = "\n".join(lines[: line - 1]) + ("\n" if line > 1 else "")
        return len((prefix + lines[line - 1][:column]).encode())

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        allowed = tag in _HTML_TAGS and not (
            tag == "span" and attributes.get("class") != "tg-spoiler"
        )
        if not allowed:
            raise _EntityParseError(f'Unsupported start tag "{tag}"', self.byte_offset())
        self.stack.append((tag, self.position, attributes))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        raise _EntityParseError(f'Unsupported start tag "{tag}"', self.byte_offset())

    def handle_endtag(self, tag: str) -> None:
        if not self.stack:
            raise _EntityParseError(f'Unexpected end tag "{tag}"', self.byte_offset())
        open_tag, start, attributes = self.stack.pop()
        if open_tag != tag:
            raise _EntityParseError(
                f"Unmatched end tag at byte offset {self.byte_offset()}, "
                f'expected "</{open_tag}>", found "</{tag}>"'
            )
        length = self.position - start
        if tag == "code" and self.stack and self.stack[-1][0] == "pre":
            language = (attributes.get("class") or "").removeprefix("language-")
            if language:
                self.stack[-1][2]["language"] = language
                return
        if length == 0:
            return
        entity: JSONDict = {"type": _HTML_TAGS[tag], "offset": start, "length": length}
        if tag == "a":
            entity["url"] = attributes.get("href") or ""
        elif tag == "pre" and attributes.get("language"):
            entity["language"] = attributes["language"]
        elif tag == "blockquote" and "expandable" in attributes:
            entity["type"] = "expandable_blockquote"
        elif tag == "tg-emoji":
            entity["custom_emoji_id"] = attributes.get("emoji-id") or ""
        self.entities.append(entity)

    def handle_data(self, data: str) -> None:
        self.parts.append(data)
        self.position += _utf16_len(data)


def _parse_html(source: str) -> tuple[str, list[JSONDict]]:
    stray = re.search(r"<(?![A-Za-z/])", source)
    if stray:
        raise _EntityParseError(
            "Unexpected end of name token", len(source[: stray.start()].encode())
        )
    parser = _HtmlEntities(source)
    parser.feed(source)
    parser.close()
    if parser.stack:
        raise _EntityParseError(
            f'Can\'t find end tag corresponding to start tag "{parser.stack[-1][0]}"'
        )
    return "".join(parser.parts), parser.entities


_MD_NAMES = {
    "bold": "Bold",
    "italic": "Italic",
    "underline": "Underline",
    "strikethrough": "Strikethrough",
    "spoiler": "Spoiler",
    "text_link": "TextUrl",
    "code": "Code",
    "pre": "Pre",
}
_MD2_RESERVED = frozenset("_*[]()~`>#+-=|{}.!")


def _parse_markdown(source: str, *, v2: bool) -> tuple[str, list[JSONDict]]:
    """MarkdownV2 (and legacy Markdown) as Telegram parses it, with its escaping rules.

    The point is to catch the classic bug of an unescaped ``.``, ``-`` or ``!`` in
    MarkdownV2, which Telegram refuses with 400 rather than sending.
    """
    out: list[str] = []
    position = 0
    stack: list[tuple[str, int, int]] = []  # (entity type, utf16 start, byte offset)
    entities: list[JSONDict] = []
    i = 0

    def byte_at(index: int) -> int:
        return len(source[:index].encode())

    def emit(text: str) -> None:
        nonlocal position
        out.append(text)
        position += _utf16_len(text)

    def close(kind: str, start: int) -> None:
        if position > start:
            entities.append({"type": kind, "offset": start, "length": position - start})

    while i < len(source):
        char = source[i]
        escapable = v2 or (i + 1 < len(source) and source[i + 1] in "_*`[")
        if char == "\\" and i + 1 < len(source) and escapable:
            emit(source[i + 1])
            i += 2
            continue
        if char == "`":
            fence = source.startswith("```", i)
            width = 3 if fence else 1
            end = i + width
            body: list[str] = []
            while end < len(source) and not source.startswith("`" * width, end):
                if v2 and source[end] == "\\" and end + 1 < len(source):
                    end += 1
                body.append(source[end])
                end += 1
            if end >= len(source):
                kind = "Pre" if fence else "Code"
                raise _EntityParseError(f"Can't find end of {kind} entity", byte_at(i))
            content = "".join(body)
            entity: JSONDict = {"type": "pre" if fence else "code", "offset": position}
            if fence:
                first_line, newline, rest = content.partition("\n")
                if newline and first_line and " " not in first_line:
                    entity["language"] = first_line
                    content = rest
            emit(content)
            entity["length"] = _utf16_len(content)
            if entity["length"]:
                entities.append(entity)
            i = end + width
            continue
        if char == "[":
            stack.append(("text_link", position, byte_at(i)))
            i += 1
            continue
        if char == "]" and stack and stack[-1][0] == "text_link":
            if not source.startswith("(", i + 1):
                raise _EntityParseError("Can't find end of a URL", byte_at(i))
            end = i + 2
            url: list[str] = []
            while end < len(source) and source[end] != ")":
                if source[end] == "\\" and end + 1 < len(source):
                    end += 1
                url.append(source[end])
                end += 1
            if end >= len(source):
                raise _EntityParseError("Can't find end of a URL", byte_at(i))
            _, start, _ = stack.pop()
            if position > start:
                entities.append(
                    {
                        "type": "text_link",
                        "offset": start,
                        "length": position - start,
                        "url": "".join(url),
                    }
                )
            i = end + 1
            continue
        marker = _markdown_marker(source, i, v2=v2)
        if marker is not None:
            kind, width = marker
            open_kinds = [entry[0] for entry in stack]
            if kind in open_kinds:
                if stack[-1][0] != kind:
                    name = _MD_NAMES[stack[-1][0]]
                    raise _EntityParseError(f"Can't find end of {name} entity", stack[-1][2])
                close(kind, stack.pop()[1])
            else:
                stack.append((kind, position, byte_at(i)))
            i += width
            continue
        if char == ">" and v2 and (i == 0 or source[i - 1] == "\n"):
            line_end = source.find("\n", i)
            line_end = len(source) if line_end < 0 else line_end
            start = position
            nested, nested_entities = _parse_markdown(source[i + 1 : line_end], v2=True)
            for e in nested_entities:
                entities.append({**e, "offset": e["offset"] + start})
            emit(nested)
            close("blockquote", start)
            i = line_end
            continue
        if v2 and char in _MD2_RESERVED:
            raise _EntityParseError(
                f"Character '{char}' is reserved and must be escaped with the preceding '\\'"
            )
        emit(char)
        i += 1
    if stack:
        kind, _, offset = stack[-1]
        raise _EntityParseError(f"Can't find end of {_MD_NAMES[kind]} entity", offset)
    return "".join(out), entities


def _markdown_marker(source: str, i: int, *, v2: bool) -> tuple[str, int] | None:
    if v2 and source.startswith("__", i):
        return "underline", 2
    if v2 and source.startswith("||", i):
        return "spoiler", 2
    char = source[i]
    if char == "*":
        return "bold", 1
    if char == "_":
        return "italic", 1
    if v2 and char == "~":
        return "strikethrough", 1
    return None


def _auto_entities(text: str) -> list[JSONDict]:
    """Entities Telegram detects by itself: commands, mentions and links."""
    found: list[JSONDict] = []
    for kind, pattern in (("bot_command", _BOT_COMMAND), ("mention", _MENTION), ("url", _URL)):
        for match in pattern.finditer(text):
            found.append(
                {
                    "type": kind,
                    "offset": _utf16_len(text[: match.start()]),
                    "length": _utf16_len(match.group()),
                }
            )
    return found


def _strip_text(text: str, entities: list[JSONDict]) -> tuple[str, list[JSONDict]]:
    """Telegram trims leading and trailing whitespace; entities shift and shrink with it."""
    stripped = text.strip()
    if stripped == text:
        return text, entities
    lead = _utf16_len(text[: len(text) - len(text.lstrip())])
    end = _utf16_len(stripped)
    kept = []
    for entity in entities:
        start = max(entity["offset"] - lead, 0)
        stop = min(entity["offset"] + entity["length"] - lead, end)
        if stop > start:
            kept.append({**entity, "offset": start, "length": stop - start})
    return stripped, kept


def _keyboard_rows(markup: JSONDict | None) -> list[list[Button]]:
    if not markup:
        return []
    rows: list[list[Button]] = []
    for row in markup.get("inline_keyboard", []):
        buttons = []
        for raw in row:
            # callback_data first, then url, then whatever other action the button has.
            actions = ["callback_data", "url", *sorted(_BUTTON_ACTIONS)]
            data = next((raw[k] for k in actions if k in raw), "")
            buttons.append(Button(str(raw.get("text", "")), str(data)))
        rows.append(buttons)
    return rows


def _callback_data(markup: JSONDict | None) -> set[str]:
    rows = (markup or {}).get("inline_keyboard", [])
    return {str(b["callback_data"]) for row in rows for b in row if "callback_data" in b}


def _find_button(rows: list[list[Button]], wanted: str) -> str:
    """The callback_data of a button named by its data or, failing that, its label."""
    buttons = [b for row in rows for b in row]
    for button in buttons:
        if button.data == wanted:
            return button.data
    labelled = [b for b in buttons if b.text == wanted]
    if len(labelled) > 1:
        raise ValueError(f"several buttons are labelled {wanted!r}: {labelled}")
    if not labelled:
        raise LookupError(f"no button {wanted!r} in keyboard {rows}")
    return labelled[0].data


# ---------------------------------------------------------------------------- flood control


@dataclass
class _Bucket:
    capacity: float
    rate: float  # tokens per second
    tokens: float
    stamp: float

    def wait(self, now: float) -> float:
        self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        return 0.0 if self.tokens >= 1 else (1 - self.tokens) / self.rate


class _FloodControl:
    """Token buckets per chat, per group and overall; see ``RateLimits``."""

    def __init__(self) -> None:
        self._buckets: dict[tuple[str, int, float, float], _Bucket] = {}

    def _bucket(self, kind: str, key: int, capacity: float, rate: float, now: float) -> _Bucket:
        ident = (kind, key, capacity, rate)
        if ident not in self._buckets:
            self._buckets[ident] = _Bucket(capacity, rate, capacity, now)
        return self._buckets[ident]

    def admit(self, limits: RateLimits, chat: FakeChat | None) -> tuple[int, list[_Bucket]]:
        """``(retry_after, [])`` when refused, else ``(0, buckets)`` to ``spend`` on success.

        Only requests that succeed are counted: a refused edit posts nothing.
        """
        now = time.monotonic()
        buckets = [self._bucket("global", 0, limits.global_burst, limits.global_per_second, now)]
        if chat is not None:
            buckets.append(
                self._bucket(
                    "chat", chat.id, limits.per_chat_burst, limits.per_chat_per_second, now
                )
            )
            if chat.is_group:
                per_minute = limits.per_group_per_minute
                buckets.append(self._bucket("group", chat.id, per_minute, per_minute / 60, now))
        wait = max(bucket.wait(now) for bucket in buckets)
        if wait > 0:
            return max(1, math.ceil(wait)), []
        return 0, buckets

    @staticmethod
    def spend(buckets: list[_Bucket]) -> None:
        for bucket in buckets:
            bucket.tokens -= 1


@dataclass
class _Injected:
    error: ApiError | None  # None: the call is carried out, its answer lost
    times: int


@dataclass(eq=False)
class Hold:
    """Requests to one method (in one chat, if given) that wait, neither carried out
    nor answered, until `release`: the bot is still sending while people go on
    pressing (see `FakeTelegram.hold`)."""

    fake: FakeTelegram = field(repr=False)
    method: str
    chat_id: int | None
    waiting: int = 0  # requests held right now
    held: int = 0  # requests held so far
    gate: asyncio.Event = field(default_factory=asyncio.Event, repr=False)
    dropped: bool = False  # the held requests never reached Telegram (`drop`)

    def covers(self, method: str, params: Params) -> bool:
        chat = params.get("chat_id")
        return method == self.method and self.chat_id in (None, chat)

    def release(self) -> None:
        """Let the held requests (and any later ones) through."""
        if self in self.fake._holds:
            self.fake._holds.remove(self)
        self.gate.set()
        self.fake._notify()

    def drop(self) -> None:
        """The held requests never reach Telegram: none is carried out, their
        connections are cut (later requests pass).  A bot killed while they were on
        their way: a held ``getUpdates`` then never confirms the updates before its
        ``offset``, and Telegram sends them again to the next poller."""
        self.dropped = True
        self.release()

    async def wait_held(self, count: int = 1, timeout: float = 5.0) -> None:
        """Wait until `count` requests have been held."""
        await self.fake.wait_for(
            lambda: self.held >= count, timeout, what=f"{count} held {self.method} request(s)"
        )


# ------------------------------------------------------------------------------- log guard


class LogErrorGuard(logging.Handler):
    """Collects ERROR records from the ``telegram`` loggers so no failure hides.

    PTB catches exceptions raised by handlers and only logs them; a test waiting for the
    handler's reply would then just time out. With the guard attached to a fake
    (``fake.attach(guard)``), every ``wait_*`` raises at once with the logged traceback,
    and leaving the ``with`` block raises if any unexpected record was collected.
    """

    def __init__(self, *loggers: str, level: int = logging.ERROR) -> None:
        super().__init__(level)
        self.logger_names = loggers or ("telegram",)
        self.records: list[logging.LogRecord] = []
        self._allowed: list[str] = []
        self._listeners: list[Callable[[], object]] = []

    def __enter__(self) -> LogErrorGuard:
        for name in self.logger_names:
            logging.getLogger(name).addHandler(self)
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        for name in self.logger_names:
            logging.getLogger(name).removeHandler(self)
        if exc_type is None:
            self.check()

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)
        for listener in self._listeners:
            listener()

    def add_listener(self, listener: Callable[[], object]) -> None:
        self._listeners.append(listener)

    def allow(self, substring: str) -> None:
        """Expect records whose message or exception contains ``substring``."""
        self._allowed.append(substring)

    def unexpected(self) -> list[logging.LogRecord]:
        return [r for r in self.records if not any(a in _describe(r) for a in self._allowed)]

    def take(self) -> list[logging.LogRecord]:
        """Return and forget the records so far (for tests that provoke an error on purpose)."""
        records, self.records = self.records, []
        return records

    def check(self) -> None:
        unexpected = self.unexpected()
        if unexpected:
            details = "\n\n".join(_describe(r) for r in unexpected)
            raise AssertionError(f"ERROR logged by the Telegram library:\n{details}")


def _describe(record: logging.LogRecord) -> str:
    text = f"{record.name}: {record.getMessage()}"
    if record.exc_info:
        text += "\n" + logging.Formatter().formatException(record.exc_info)
    return text


# ----------------------------------------------------------------------------- the server

MethodHandler = Callable[[Params], Awaitable[Any]]


class FakeTelegram:
    """The fake Bot API server: state, HTTP endpoints and the control API for tests.

    The bot is one account (``bot_user``) whose id is the token's prefix. ``privacy_mode``
    mirrors BotFather's setting: in groups where the bot is not an admin, it receives only
    commands (``/cmd`` or ``/cmd@<bot>``) and replies to its own messages.
    """

    def __init__(
        self,
        *,
        token: str = DEFAULT_TOKEN,
        bot_username: str = BOT_USERNAME,
        bot_name: str = "Schnapsen",
        privacy_mode: bool = True,
        limits: Limits | None = None,
        webhook_retry_delay: float = 0.05,
        unstarted_chat_not_found: bool = False,
    ) -> None:
        self.token = token
        #: How a message to a user who never started the bot is refused: 403 "bot
        #: can't initiate conversation" by default, or (True) the 400 "chat not found"
        #: real Telegram often gives for a user the bot has no chat with.
        self.unstarted_chat_not_found = unstarted_chat_not_found
        self.limits = limits if limits is not None else Limits()
        self.privacy_mode = privacy_mode
        self.webhook_retry_delay = webhook_retry_delay
        self.bot_user = FakeUser(
            fake=self,
            id=int(token.split(":", 1)[0]),
            first_name=bot_name,
            username=bot_username,
            language_code=None,
            is_bot=True,
        )
        #: What Telegram names as the sender of an anonymous admin's messages.
        self.anonymous_admin = FakeUser(
            fake=self,
            id=1087968824,
            first_name="Group",
            username="GroupAnonymousBot",
            language_code=None,
            is_bot=True,
        )
        self.calls: list[ApiCall] = []
        self.updates: list[JSONDict] = []  # every update ever produced, in order
        self.queries: dict[str, FakeCallbackQuery] = {}
        self.commands: dict[tuple[str, str], list[JSONDict]] = {}
        self.menu_buttons: dict[int | None, JSONDict] = {}
        self.bot_texts: dict[tuple[str, str], str] = {}  # (name|description|..., language)
        self.files: dict[str, bytes] = {}
        self._documents: dict[str, FakeDocument] = {}  # by file_id
        self._file_paths: dict[str, str] = {}
        self.webhook: WebhookConfig | None = None
        self.webhook_deliveries: list[WebhookDelivery] = []
        self.last_webhook_error: tuple[int, str] | None = None
        self.in_flight: dict[str, int] = {}  # requests being answered, e.g. a long poll
        self.version = 0  # bumps on every state change

        self._users: dict[int, FakeUser] = {self.bot_user.id: self.bot_user}
        self._chats: dict[int, FakeChat] = {}
        self._pending: list[_Pending] = []
        self._allowed_updates: tuple[str, ...] = ()
        self._poll_generation = 0
        self._next_update_id = 100_000_001
        self._next_user_id = 10_000_001
        self._next_group_id = 4_000_000_001
        self._next_query_id = 5_300_000_000_000_000_001
        self._changed = asyncio.Event()
        self._closing = False
        self._flood = _FloodControl()
        self._injected: dict[str, list[_Injected]] = {}
        self._holds: list[Hold] = []
        self._guards: list[LogErrorGuard] = []
        self._runner: web.AppRunner | None = None
        self._site: web.SockSite | None = None
        self._session: aiohttp.ClientSession | None = None
        self._webhook_task: asyncio.Task[None] | None = None
        self.port = 0
        self._methods: dict[str, tuple[str, MethodHandler]] = {}
        for name, handler in self._method_table().items():
            self._methods[name.lower()] = (name, handler)

    # ---------------------------------------------------------------- lifecycle

    async def __aenter__(self) -> FakeTelegram:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    async def start(self, port: int = 0) -> None:
        """Listen on 127.0.0.1 on `port`, or a free one (``self.port``)."""
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("*", "/bot{token}/{method}", self._handle)
        app.router.add_get("/file/bot{token}/{path:.+}", self._handle_file)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        await self._listen(port)
        self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10))

    async def _listen(self, port: int) -> None:
        assert self._runner is not None
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # the same port again
        sock.bind(("127.0.0.1", port))
        self.port = sock.getsockname()[1]
        self._site = web.SockSite(self._runner, sock)
        await self._site.start()

    async def stop(self) -> None:
        """Release long polls and held requests at once, stop webhook delivery, close
        the server."""
        self._closing = True
        for hold in list(self._holds):
            hold.release()
        self._notify()
        if self._webhook_task is not None:
            self._webhook_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._webhook_task
        if self._session is not None:
            await self._session.close()
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        """For ``ApplicationBuilder().base_url(...)``: PTB appends ``<token>/<method>``."""
        return f"{self.url}/bot"

    @property
    def base_file_url(self) -> str:
        """For ``ApplicationBuilder().base_file_url(...)``: files registered by ``add_file``."""
        return f"{self.url}/file/bot"

    def application_builder(self) -> ApplicationBuilder[Any, Any, Any, Any, Any, Any]:
        """A PTB ``ApplicationBuilder`` already pointed at this fake."""
        from telegram.ext import ApplicationBuilder

        return (
            ApplicationBuilder()
            .token(self.token)
            .base_url(self.base_url)
            .base_file_url(self.base_file_url)
        )

    def make_bot(self, token: str | None = None) -> Bot:
        """A bare PTB ``Bot`` for this fake (e.g. a second, competing instance)."""
        from telegram import Bot

        return Bot(token or self.token, base_url=self.base_url, base_file_url=self.base_file_url)

    def attach(self, guard: LogErrorGuard) -> None:
        """Make every ``wait_*`` fail fast when ``guard`` sees an ERROR log record."""
        loop = asyncio.get_running_loop()
        self._guards.append(guard)
        # Log records may come from any thread; hop onto the loop before waking waiters.
        guard.add_listener(lambda: loop.call_soon_threadsafe(self._notify))

    # ---------------------------------------------------------------- world building

    def create_user(
        self,
        first_name: str,
        *,
        username: str | None = None,
        last_name: str | None = None,
        language_code: str | None = "en",
        started: bool = False,
    ) -> FakeUser:
        """A new account; ``started=True`` as if it had pressed Start earlier (no update)."""
        user = FakeUser(
            fake=self,
            id=self._next_user_id,
            first_name=first_name,
            username=username,
            last_name=last_name,
            language_code=language_code,
            started_bot=started,
        )
        self._next_user_id += 1
        self._users[user.id] = user
        self._notify()
        return user

    def create_group(
        self,
        title: str,
        *,
        members: Iterable[FakeUser] = (),
        admins: Iterable[FakeUser] = (),
        creator: FakeUser | None = None,
        supergroup: bool = True,
        username: str | None = None,
        bot_status: MemberStatus = "member",
        forum: bool = False,
    ) -> FakeChat:
        """A group with the bot already in it (as ``bot_status``); admins are also members.
        ``forum``: a supergroup with topics on (`FakeChat.create_topic`)."""
        if forum and not supergroup:
            raise ValueError("only a supergroup can be a forum")
        # Supergroup ids look like -100xxxxxxxxxx, basic group ids are small negatives.
        offset = 1_000_000_000_000 if supergroup else 0
        chat_id = -(offset + self._next_group_id)
        self._next_group_id += 1
        chat = FakeChat(
            fake=self,
            id=chat_id,
            type="supergroup" if supergroup else "group",
            title=title,
            username=username if supergroup else None,
            is_forum=forum,
        )
        chat.members[self.bot_user.id] = bot_status
        if creator is not None:
            chat.members[creator.id] = "creator"
        for user in members:
            chat.members.setdefault(user.id, "member")
        for user in admins:
            chat.members[user.id] = "administrator"
        self._chats[chat.id] = chat
        self._notify()
        return chat

    def migrate_group(
        self,
        chat: FakeChat,
        *,
        by: FakeUser | None = None,
        service_messages: bool = True,
        join_first: bool = True,
    ) -> FakeChat:
        """Upgrade a basic group to a supergroup, as Telegram does: the supergroup is a
        new chat with a new id (``-100...``) and the same members; from now on every
        request naming the old id fails with 400 and ``parameters.migrate_to_chat_id``
        (PTB raises ``ChatMigrated``); the old group keeps its history but takes no new
        messages.  Two service messages reach the bot, whatever its privacy mode: one
        in the old group with ``migrate_to_chat_id``, one in the supergroup with
        ``migrate_from_chat_id``, both from the member who upgraded (``by``, else the
        creator).  And, as Telegram does (tdlib/telegram-bot-api#266), a
        ``my_chat_member`` update for the supergroup in which the bot goes from
        ``left`` to its status in the group, as if just added: before the service
        messages, or after them with ``join_first=False``.  ``service_messages=False``
        leaves all three out (a bot that was down for longer than Telegram keeps
        updates learns of the move only from the 400s).  Returns the supergroup."""
        if chat.type != "group" or chat.migrated_to is not None:
            raise ValueError(f"chat {chat.id} is not a basic group that can be upgraded")
        actor = by
        if actor is None:
            creator = next((u for u, st in chat.members.items() if st == "creator"), None)
            actor = self._users[creator] if creator is not None else self.bot_user
        new = FakeChat(
            fake=self,
            id=-(1_000_000_000_000 + self._next_group_id),
            type="supergroup",
            title=chat.title,
        )
        self._next_group_id += 1
        new.members = dict(chat.members)
        self._chats[new.id] = new
        chat.migrated_to = new.id
        bot_status = chat.status_of(self.bot_user)
        joins = service_messages and new.is_member(self.bot_user)
        if joins and join_first:
            self._bot_member_changed(new, actor, "left", bot_status)
        for where, field_name, other in (
            (chat, "migrate_to_chat_id", new.id),
            (new, "migrate_from_chat_id", chat.id),
        ):
            service: JSONDict = {
                "message_id": where.next_message_id,
                "from": actor.to_api(),
                "chat": where.to_api(),
                "date": int(time.time()),
                field_name: other,
            }
            where.next_message_id += 1
            if service_messages and where.is_member(self.bot_user):
                self.push_update({"message": service})
        if joins and not join_first:
            self._bot_member_changed(new, actor, "left", bot_status)
        self._notify()
        return new

    def set_bot_status(
        self,
        chat: FakeChat,
        status: MemberStatus,
        *,
        by: FakeUser | None = None,
        may_send: bool = True,
        announce: bool = True,
    ) -> int | None:
        """Change the bot's membership of a group as an admin (``by``) does: remove it
        (``"kicked"``: every later request to the chat fails with 403 "bot was kicked
        from the ... chat"; ``"left"``: "bot is not a member of the ... chat"), add it
        back (``"member"``), or restrict it (``"restricted"`` with ``may_send=False``:
        new messages fail with 400 "not enough rights to send text messages to the
        chat", edits still pass).  The bot gets a ``my_chat_member`` update, as from
        Telegram (``announce=False``: none, as for a bot that was down longer than
        Telegram keeps updates); returns its ``update_id``."""
        if not chat.is_group:
            raise ValueError("use block_bot / start_bot for a private chat")
        old = chat.status_of(self.bot_user)
        old_muted = self.bot_user.id in chat.muted
        chat.members[self.bot_user.id] = status
        if status == "restricted" and not may_send:
            chat.muted.add(self.bot_user.id)
        else:
            chat.muted.discard(self.bot_user.id)
        actor = by or next(
            (self._users[u] for u, st in chat.members.items() if st == "creator"), self.bot_user
        )
        if not announce:
            self._notify()
            return None
        return self._bot_member_changed(
            chat, actor, old, status, old_may_send=not old_muted, may_send=may_send
        )

    def _bot_member_changed(
        self,
        chat: FakeChat,
        actor: FakeUser,
        old: MemberStatus,
        new: MemberStatus,
        *,
        old_may_send: bool = True,
        may_send: bool = True,
    ) -> int:
        """Queue the ``my_chat_member`` update (a ``ChatMemberUpdated``) for a change of
        the bot's own status in `chat`."""
        bot = self.bot_user
        return self.push_update(
            {
                "my_chat_member": {
                    "chat": chat.to_api(),
                    "from": actor.to_api(),
                    "date": int(time.time()),
                    "old_chat_member": _member_api(bot, old, may_send=old_may_send),
                    "new_chat_member": _member_api(bot, new, may_send=may_send),
                }
            }
        )

    # ---------------------------------------------------------------- outages

    async def go_offline(self) -> None:
        """Telegram out of reach: new connections are refused and open ones (kept
        alive by the bot's HTTP client, a long poll waiting) are cut, and no webhook
        is delivered.  Users go on pressing and typing meanwhile: their updates wait
        here, as at Telegram."""
        if self._site is None or self._runner is None:
            raise RuntimeError("the fake is not running")
        await self._site.stop()
        self._site = None
        server = self._runner.server
        for handler in server.connections if server is not None else []:
            if handler.transport is not None:
                handler.transport.abort()
        self._notify()

    async def come_back(self) -> None:
        """Reachable again, on the same port."""
        if self._site is not None:
            return
        await self._listen(self.port)
        self._notify()

    @property
    def offline(self) -> bool:
        return self._site is None

    def private_chat(self, user: FakeUser) -> FakeChat:
        if user.id not in self._chats:
            self._chats[user.id] = FakeChat(fake=self, id=user.id, type="private", user=user)
        return self._chats[user.id]

    def chat(self, chat_id: int) -> FakeChat:
        return self._chats[chat_id]

    def user(self, user_id: int) -> FakeUser:
        return self._users[user_id]

    def add_file(self, content: bytes, *, file_path: str | None = None) -> str:
        """Register a downloadable file; returns its ``file_id`` for ``getFile``."""
        file_id = f"FILE{len(self.files) + 1:06d}"
        self.files[file_id] = content
        self._file_paths[file_id] = file_path or f"documents/file_{len(self.files)}"
        return file_id

    # ---------------------------------------------------------------- updates

    def push_update(self, payload: JSONDict) -> int:
        """Queue a raw update of any type (``{"my_chat_member": {...}}``); returns its id."""
        update = {"update_id": self._next_update_id, **payload}
        self._next_update_id += 1
        self.updates.append(update)
        self._pending.append(_Pending(update))
        self._notify()
        return int(update["update_id"])

    def update(self, update_id: int) -> JSONDict:
        for update in self.updates:
            if update["update_id"] == update_id:
                return update
        raise KeyError(update_id)

    def replay(self, update_id: int) -> None:
        """Deliver an already delivered update once more, with the same ``update_id``.

        Telegram does this after a webhook answered non-2xx or a poller died before
        confirming; a correct bot deduplicates by ``update_id``.
        """
        self._pending.append(_Pending(json.loads(json.dumps(self.update(update_id))), True))
        self._notify()

    def deliver_late(self, update_id: int) -> None:
        """Deliver a queued update after those queued now, as Telegram may with a
        webhook: it sends up to ``max_connections`` updates at once, and a slow
        delivery (or one tried again) arrives after newer ones.  The bot can put
        them back in order by ``update_id``."""
        entry = next((p for p in self._pending if p.update_id == update_id), None)
        if entry is None:
            raise KeyError(f"update {update_id} is not waiting to be delivered")
        self._pending.remove(entry)
        self._pending.append(entry)
        self._notify()

    @property
    def pending_update_count(self) -> int:
        return len(self._pending)

    # ---------------------------------------------------------------- failure injection

    def fail_next(
        self,
        method: str,
        times: int = 1,
        *,
        error_code: int = 429,
        retry_after: int = 1,
        description: str | None = None,
    ) -> None:
        """Make the next ``times`` calls of ``method`` fail (by default with flood control)."""
        if error_code == 429:
            error = _too_many_requests(retry_after)
            if description:
                error.description = description
        else:
            error = ApiError(error_code, description or _DEFAULT_DESCRIPTIONS.get(error_code, ""))
        canonical = self._methods[method.lower()][0]
        self._injected.setdefault(canonical, []).append(_Injected(error, times))

    def lose_answer_next(self, method: str, times: int = 1) -> None:
        """Carry out the next ``times`` calls of ``method`` (a message is sent, a
        document arrives) but cut the connection instead of answering, as a network
        that drops Telegram's answer does: the bot cannot tell whether it arrived
        (PTB raises ``NetworkError``).  The call is recorded with status 0.  Queued
        in turn with `fail_next`: ``lose_answer_next(m)`` then ``fail_next(m, ...)``
        loses the first answer and refuses the second call."""
        canonical = self._methods[method.lower()][0]
        self._injected.setdefault(canonical, []).append(_Injected(None, times))

    def hold(self, method: str, *, chat: FakeChat | int | None = None) -> Hold:
        """Hold the bot's requests to ``method`` (in ``chat`` only, if given) before
        they are carried out, until ``release()``: what the bot sends is on its way
        while users press on, as on a slow network.  Deterministic: a test presses
        once ``wait_held`` says the request is held."""
        canonical = self._methods[method.lower()][0]
        chat_id = chat.id if isinstance(chat, FakeChat) else chat
        hold = Hold(self, canonical, chat_id)
        self._holds.append(hold)
        return hold

    # ---------------------------------------------------------------- reading state

    def calls_to(self, method: str) -> list[ApiCall]:
        return [call for call in self.calls if call.method.lower() == method.lower()]

    def command_list(
        self, scope: JSONDict | None = None, language_code: str = ""
    ) -> list[JSONDict]:
        """The commands the bot set for a scope and language (``setMyCommands``)."""
        return self.commands.get((_scope_key(scope), language_code), [])

    def answer_to(self, query: FakeCallbackQuery | str) -> CallbackAnswer | None:
        return self._query(query).answer

    # ---------------------------------------------------------------- bounded waits

    async def wait_for(
        self, predicate: Callable[[], _T | None], timeout: float = 5.0, *, what: str = ""
    ) -> _T:
        """Wait until ``predicate()`` is truthy and return its value.

        Re-evaluated on every state change (a request, a simulated user's action, a log
        error); never sleeps blindly. Raises ``TimeoutError`` with recent calls for context,
        or ``AssertionError`` as soon as an attached ``LogErrorGuard`` sees an ERROR.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            changed = self._changed
            for guard in self._guards:
                guard.check()
            value = predicate()
            if value:
                return value
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(self._timeout_report(what or repr(predicate), timeout))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), remaining)

    async def wait_answer(
        self, query: FakeCallbackQuery | str, timeout: float = 5.0
    ) -> CallbackAnswer:
        """Wait for the bot's ``answerCallbackQuery`` to a press."""
        found = self._query(query)
        return await self.wait_for(
            lambda: found.answer, timeout, what=f"an answer to callback query {found.id}"
        )

    async def wait_for_message(
        self,
        chat: FakeChat,
        *,
        after: FakeMessage | int | None = None,
        contains: str | None = None,
        timeout: float = 5.0,
    ) -> FakeMessage:
        """Wait for a new bot message in ``chat`` (newer than ``after``, containing text)."""
        if isinstance(after, FakeMessage):
            after = after.message_id
        floor = after or 0

        def match() -> FakeMessage | None:
            for message in chat.bot_messages():
                fresh = message.message_id > floor
                if fresh and (contains is None or contains in message.text):
                    return message
            return None

        what = f"a bot message in chat {chat.id} after #{floor} containing {contains!r}"
        return await self.wait_for(match, timeout, what=what + "\n" + chat.transcript())

    async def wait_for_edit(
        self, message: FakeMessage, *, revisions: int | None = None, timeout: float = 5.0
    ) -> FakeMessage:
        """Wait until ``message`` has more than ``revisions`` revisions (default: now)."""
        floor = len(message.revisions) if revisions is None else revisions
        return await self.wait_for(
            lambda: message if len(message.revisions) > floor else None,
            timeout,
            what=f"an edit of message #{message.message_id}",
        )

    async def wait_for_call(
        self,
        method: str,
        *,
        where: Callable[[ApiCall], bool] | None = None,
        since: int = 0,
        timeout: float = 5.0,
    ) -> ApiCall:
        """Wait for a request to ``method`` (among ``calls[since:]``) matching ``where``."""

        def match() -> ApiCall | None:
            for call in self.calls[since:]:
                if call.method.lower() == method.lower() and (where is None or where(call)):
                    return call
            return None

        return await self.wait_for(match, timeout, what=f"a call to {method}")

    def _timeout_report(self, what: str, timeout: float) -> str:
        recent = "\n".join(
            f"  {c.method} -> {c.status} {c.description or ''}"
            for c in self.calls[-10:]
            if c.method != "getUpdates"
        )
        return f"waited {timeout}s for {what}\nrecent calls (without getUpdates):\n{recent}"

    # ---------------------------------------------------------------- simulated users

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

    def _query(self, query: FakeCallbackQuery | str) -> FakeCallbackQuery:
        return query if isinstance(query, FakeCallbackQuery) else self.queries[query]

    def _store_message(
        self,
        chat: FakeChat,
        sender: FakeUser,
        text: str,
        entities: tuple[JSONDict, ...],
        reply_markup: JSONDict | None,
    ) -> FakeMessage:
        message = FakeMessage(
            chat=chat,
            message_id=chat.next_message_id,
            sender=sender,
            date=int(time.time()),
            text=text,
            entities=entities,
            reply_markup=reply_markup,
        )
        chat.next_message_id += 1
        chat.messages.append(message)
        return message

    def _notify(self) -> None:
        """Wake every waiter: ``wait_*``, long polls and the webhook sender."""
        self.version += 1
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    # ---------------------------------------------------------------- HTTP plumbing

    async def _handle(self, request: web.Request) -> web.Response:
        token = request.match_info["token"]
        method_name = request.match_info["method"]
        canonical = method_name
        params: Params = {}
        lose = False
        try:
            params = await _read_params(request)
            self._check_token(token)
            if method_name.lower() not in self._methods:
                raise ApiError(404, METHOD_NOT_FOUND)
            canonical, handler = self._methods[method_name.lower()]
            if not await self._wait_if_held(canonical, params):
                if request.transport is not None:
                    request.transport.abort()  # never arrived: no answer either
                return web.Response(status=502)
            lose = self._apply_injected(canonical)
            buckets = self._apply_flood_control(canonical, params)
            self.in_flight[canonical] = self.in_flight.get(canonical, 0) + 1
            self._notify()
            try:
                result = await handler(params)
            finally:
                self.in_flight[canonical] -= 1
            self._flood.spend(buckets)
        except ApiError as error:
            status, body = error.error_code, error.to_api()
        else:
            status, body = 200, {"ok": True, "result": result}
        lose = lose and status == 200
        if lose:
            status = 0
        self.calls.append(
            ApiCall(
                method=canonical,
                params=params,
                status=status,
                result=body.get("result"),
                description=body.get("description"),
                at=time.monotonic(),
            )
        )
        self._notify()
        if lose and request.transport is not None:
            request.transport.abort()  # done, but the answer never leaves
        return web.json_response(body, status=status or 200)

    async def _handle_file(self, request: web.Request) -> web.Response:
        if request.match_info["token"] != self.token:
            return web.json_response(
                {"ok": False, "error_code": 401, "description": "Unauthorized"}, status=401
            )
        path = request.match_info["path"]
        for file_id, file_path in self._file_paths.items():
            if file_path == path:
                return web.Response(body=self.files[file_id])
        return web.json_response(
            {"ok": False, "error_code": 404, "description": "Not Found"}, status=404
        )

    def _check_token(self, token: str) -> None:
        if token == self.token:
            return
        if not _TOKEN_SHAPE.match(token):
            raise ApiError(404, "Not Found")
        raise ApiError(401, "Unauthorized")

    async def _wait_if_held(self, method: str, params: Params) -> bool:
        """Wait while a `Hold` covers the request; False when it was dropped."""
        hold = next((h for h in self._holds if h.covers(method, params)), None)
        if hold is None:
            return True
        hold.waiting += 1
        hold.held += 1
        self._notify()
        try:
            await hold.gate.wait()
        finally:
            hold.waiting -= 1
        return not hold.dropped

    def _apply_injected(self, method: str) -> bool:
        """Raise the error injected for this call, if any; True: carry it out but
        lose the answer (`lose_answer_next`)."""
        queue = self._injected.get(method)
        if not queue:
            return False
        injected = queue[0]
        injected.times -= 1
        if injected.times <= 0:
            queue.pop(0)
        if injected.error is None:
            return True
        raise injected.error

    def _apply_flood_control(self, method: str, params: Params) -> list[_Bucket]:
        rate = self.limits.rate
        if rate is None or method not in rate.methods:
            return []
        chat_id = params.get("chat_id")
        chat = self._chats.get(chat_id) if isinstance(chat_id, int) else None
        retry_after, buckets = self._flood.admit(rate, chat)
        if retry_after:
            raise _too_many_requests(retry_after)
        return buckets

    # ---------------------------------------------------------------- Bot API methods

    def _method_table(self) -> dict[str, MethodHandler]:
        return {
            "getMe": self._get_me,
            "logOut": self._true,
            "close": self._true,
            "getUpdates": self._get_updates,
            "setWebhook": self._set_webhook,
            "deleteWebhook": self._delete_webhook,
            "getWebhookInfo": self._get_webhook_info,
            "sendMessage": self._send_message,
            "sendDocument": self._send_document,
            "editMessageText": self._edit_message_text,
            "editMessageReplyMarkup": self._edit_message_reply_markup,
            "deleteMessage": self._delete_message,
            "answerCallbackQuery": self._answer_callback_query,
            "setMyCommands": self._set_my_commands,
            "getMyCommands": self._get_my_commands,
            "deleteMyCommands": self._delete_my_commands,
            "sendChatAction": self._send_chat_action,
            "getChat": self._get_chat,
            "getChatMember": self._get_chat_member,
            "getChatAdministrators": self._get_chat_administrators,
            "getChatMemberCount": self._get_chat_member_count,
            "setChatMenuButton": self._set_chat_menu_button,
            "getChatMenuButton": self._get_chat_menu_button,
            "getFile": self._get_file,
            "setMyName": self._bot_text_setter("name"),
            "getMyName": self._bot_text_getter("name"),
            "setMyDescription": self._bot_text_setter("description"),
            "getMyDescription": self._bot_text_getter("description"),
            "setMyShortDescription": self._bot_text_setter("short_description"),
            "getMyShortDescription": self._bot_text_getter("short_description"),
        }

    async def _true(self, params: Params) -> bool:
        return True

    async def _get_me(self, params: Params) -> JSONDict:
        return {
            **self.bot_user.to_api(),
            "can_join_groups": True,
            "can_read_all_group_messages": not self.privacy_mode,
            "supports_inline_queries": False,
            "can_connect_to_business": False,
            "has_main_web_app": False,
        }

    # -- receiving updates

    async def _get_updates(self, params: Params) -> list[JSONDict]:
        """Long polling with Telegram's semantics.

        ``offset`` confirms (forgets) every earlier update; a newer ``getUpdates`` request
        terminates a pending one with 409, which is how two running instances notice each
        other; the call returns as soon as an update is queued.
        """
        if self.webhook is not None:
            raise ApiError(409, CONFLICT_WEBHOOK_ACTIVE)
        offset = _as_int(params.get("offset", 0), "offset")
        limit = min(max(_as_int(params.get("limit", 100), "limit"), 1), 100)
        timeout = max(float(params.get("timeout", 0) or 0), 0.0)
        if params.get("allowed_updates") is not None:
            self._allowed_updates = tuple(params["allowed_updates"])
        self._confirm(offset)
        self._poll_generation += 1
        generation = self._poll_generation
        self._notify()  # wakes (and so terminates) an earlier poll
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            if generation != self._poll_generation:
                raise ApiError(409, CONFLICT_OTHER_POLLER)
            if self.webhook is not None:
                raise ApiError(409, CONFLICT_WEBHOOK_ACTIVE)
            batch = self._deliverable(limit)
            remaining = deadline - loop.time()
            if batch or remaining <= 0 or self._closing:
                for entry in batch:
                    entry.replay = False
                return [entry.update for entry in batch]
            changed = self._changed
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), remaining)

    def _confirm(self, offset: int) -> None:
        if offset > 0:
            self._pending = [p for p in self._pending if p.replay or p.update_id >= offset]
        elif offset < 0:
            self._pending = self._pending[offset:]

    def _deliverable(self, limit: int) -> list[_Pending]:
        """The next updates of the types the bot asked for; others are dropped."""
        allowed = self._allowed_updates
        if self.webhook is not None and self.webhook.allowed_updates is not None:
            allowed = self.webhook.allowed_updates
        wanted: list[_Pending] = []
        for entry in list(self._pending):
            unwanted = entry.kind not in allowed if allowed else entry.kind in _OPT_IN_UPDATES
            if unwanted:
                self._pending.remove(entry)
                continue
            wanted.append(entry)
            if len(wanted) == limit:
                break
        return wanted

    # -- webhooks

    async def _set_webhook(self, params: Params) -> bool:
        url = str(params.get("url", ""))
        if not url:
            return await self._delete_webhook(params)
        if not url.startswith(("http://", "https://")):
            raise _bad_request("bad webhook: HTTPS url must be provided for webhook")
        secret = params.get("secret_token")
        if secret is not None and not _SECRET_TOKEN.match(str(secret)):
            raise _bad_request("secret token contains unallowed characters")
        if params.get("drop_pending_updates"):
            self._pending.clear()
        allowed = params.get("allowed_updates")
        self.webhook = WebhookConfig(
            url=url,
            secret_token=None if secret is None else str(secret),
            allowed_updates=None if allowed is None else tuple(allowed),
            max_connections=_as_int(params.get("max_connections", 40), "max_connections"),
        )
        self.last_webhook_error = None
        if self._webhook_task is None or self._webhook_task.done():
            self._webhook_task = asyncio.create_task(self._webhook_sender())
        return True

    async def _delete_webhook(self, params: Params) -> bool:
        self.webhook = None
        if params.get("drop_pending_updates"):
            self._pending.clear()
        return True

    async def _get_webhook_info(self, params: Params) -> JSONDict:
        info: JSONDict = {
            "url": "",
            "has_custom_certificate": False,
            "pending_update_count": len(self._pending),
        }
        if self.webhook is not None:
            info["url"] = self.webhook.url
            info["max_connections"] = self.webhook.max_connections
            if self.webhook.allowed_updates is not None:
                info["allowed_updates"] = list(self.webhook.allowed_updates)
            if self.last_webhook_error is not None:
                info["last_error_date"], info["last_error_message"] = self.last_webhook_error
        return info

    async def _webhook_sender(self) -> None:
        """Deliver queued updates one by one, re-delivering until the bot answers 2xx.
        Offline (`go_offline`), nothing is delivered: the bot and Telegram cannot reach
        each other either way, and the updates wait here."""
        while self.webhook is not None and not self._closing:
            changed = self._changed
            batch = [] if self.offline else self._deliverable(1)
            if not batch:
                await changed.wait()
                continue
            entry = batch[0]
            status = await self.deliver_webhook(entry.update)
            if status is not None and 200 <= status < 300:
                if entry in self._pending:
                    self._pending.remove(entry)
                self._notify()
            else:
                await asyncio.sleep(self.webhook_retry_delay)

    async def deliver_webhook(
        self, update: JSONDict | int, *, secret: object = _WEBHOOK_SECRET
    ) -> int | None:
        """POST one update to the webhook once, outside the queue; returns the HTTP status.

        Pass an ``update_id`` to send a past update again (a duplicate), or ``secret=`` to
        send a wrong or missing ``X-Telegram-Bot-Api-Secret-Token``.
        """
        if self.webhook is None or self._session is None:
            raise RuntimeError("no webhook is set")
        payload = self.update(update) if isinstance(update, int) else update
        token = self.webhook.secret_token if secret is _WEBHOOK_SECRET else secret
        headers = {"X-Telegram-Bot-Api-Secret-Token": str(token)} if token else {}
        status: int | None = None
        error: str | None = None
        try:
            async with self._session.post(self.webhook.url, json=payload, headers=headers) as r:
                status = r.status
                if not 200 <= status < 300:
                    error = f"Wrong response from the webhook: {status} {r.reason}"
        except (aiohttp.ClientError, OSError, TimeoutError) as exc:
            error = f"Connection failed: {exc!r}"
        if error is not None:
            self.last_webhook_error = (int(time.time()), error)
        self.webhook_deliveries.append(
            WebhookDelivery(int(payload["update_id"]), status, error, time.monotonic())
        )
        self._notify()
        return status

    # -- messages

    def _resolve_chat(self, params: Params) -> FakeChat:
        chat_id = params.get("chat_id")
        if chat_id is None or chat_id == "":
            raise _bad_request("chat_id is empty")
        if isinstance(chat_id, str) and chat_id.startswith("@"):
            for chat in self._chats.values():
                if chat.username and chat.username.lower() == chat_id[1:].lower():
                    return chat
            raise _bad_request(CHAT_NOT_FOUND)
        numeric = _as_int(chat_id, "chat_id")
        user = self._users.get(numeric)
        if numeric not in self._chats and user is not None and not user.is_bot:
            return self.private_chat(user)  # a private chat exists for every known user
        found = self._chats.get(numeric)
        if found is None:
            raise _bad_request(CHAT_NOT_FOUND)
        if found.migrated_to is not None:
            raise ApiError(400, GROUP_UPGRADED, {"migrate_to_chat_id": found.migrated_to})
        return found

    def _check_can_post(self, chat: FakeChat) -> None:
        """403 where the bot may not write at all (a private chat it may not start or
        was blocked in, a group it is not in), or the 400s that say the same (see
        `unstarted_chat_not_found`, `FakeChat.refuses_with`).  A bot restricted in a
        group (muted) may still edit its messages there; only new ones are refused,
        with 400."""
        if chat.type == "private":
            assert chat.user is not None
            if chat.user.blocked_bot:
                raise ApiError(403, BLOCKED_BY_USER)
            if not chat.user.started_bot and self.unstarted_chat_not_found:
                raise _bad_request(CHAT_NOT_FOUND)
            if not chat.user.started_bot:
                raise ApiError(403, CANT_INITIATE)
            return
        status = chat.status_of(self.bot_user)
        kind = "supergroup" if chat.type == "supergroup" else "group"
        if status == "kicked":
            raise ApiError(403, f"Forbidden: bot was kicked from the {kind} chat")
        if status == "left":
            raise ApiError(403, f"Forbidden: bot is not a member of the {kind} chat")
        if chat.refuses_with is not None:
            raise _bad_request(chat.refuses_with)

    def _render(self, params: Params) -> tuple[str, tuple[JSONDict, ...]]:
        """Parse ``text`` with its ``parse_mode`` or ``entities`` and apply the length rule."""
        raw = params.get("text")
        if raw is None or raw == "":
            raise _bad_request(TEXT_EMPTY)
        text, entities = self._parse(str(raw), params.get("parse_mode"), params.get("entities"))
        if not text:
            raise _bad_request(TEXT_EMPTY)
        if _utf16_len(text) > self.limits.max_text_length:
            raise _bad_request(MESSAGE_TOO_LONG)
        return text, entities

    def _render_caption(self, params: Params) -> tuple[str, tuple[JSONDict, ...]]:
        """A media caption: optional, parsed like a text, at most 1024 characters."""
        raw = params.get("caption")
        if raw is None or raw == "":
            return "", ()
        given = params.get("caption_entities")
        text, entities = self._parse(str(raw), params.get("parse_mode"), given)
        if _utf16_len(text) > self.limits.max_caption_length:
            raise _bad_request(CAPTION_TOO_LONG)
        return text, entities

    @staticmethod
    def _parse(raw: str, parse_mode: Any, given: Any) -> tuple[str, tuple[JSONDict, ...]]:
        """Text and entities as Telegram stores them: marked-up text parsed (or the
        entities given taken as they are), trimmed, commands, mentions and links found."""
        try:
            if given:
                text, entities = raw, [dict(e) for e in given]
            elif parse_mode in (None, ""):
                text, entities = raw, []
            elif str(parse_mode).lower() == "html":
                text, entities = _parse_html(raw)
            elif str(parse_mode).lower() == "markdownv2":
                text, entities = _parse_markdown(raw, v2=True)
            elif str(parse_mode).lower() == "markdown":
                text, entities = _parse_markdown(raw, v2=False)
            else:
                raise _bad_request(f"unsupported parse_mode {parse_mode!r}")
        except _EntityParseError as error:
            raise _bad_request(str(error)) from error
        text, entities = _strip_text(text, entities)
        if not given:
            taken = {(e["offset"], e["length"]) for e in entities}
            entities += [e for e in _auto_entities(text) if (e["offset"], e["length"]) not in taken]
        entities.sort(key=lambda e: (e["offset"], -e["length"]))
        return text, tuple(entities)

    def _inline_markup(self, params: Params) -> JSONDict | None:
        """Validate ``reply_markup``; only inline keyboards are stored on the message."""
        markup = params.get("reply_markup")
        if markup in (None, ""):
            return None
        if not isinstance(markup, dict):
            raise _bad_request("can't parse reply keyboard markup JSON object")
        if "inline_keyboard" not in markup:
            return None  # reply keyboards, ForceReply and ReplyKeyboardRemove are not echoed
        rows = markup["inline_keyboard"]
        if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
            raise _bad_request(
                'field "inline_keyboard" of the InlineKeyboardMarkup must be an Array of Arrays'
            )
        for row in rows:
            for button in row:
                self._check_button(button)
        return {"inline_keyboard": rows}

    def _check_button(self, button: Any) -> None:
        if not isinstance(button, dict) or not isinstance(button.get("text"), str):
            raise _bad_request(
                'can\'t parse inline keyboard button: Field "text" must be of type String'
            )
        actions = [k for k in _BUTTON_ACTIONS if k in button]
        if not actions:
            raise _bad_request(
                "can't parse inline keyboard button: "
                "Text buttons are unallowed in the inline keyboard"
            )
        if "callback_data" in button:
            data = button["callback_data"]
            size = len(str(data).encode())
            if not isinstance(data, str) or not 1 <= size <= self.limits.max_callback_data_bytes:
                raise _bad_request(BUTTON_DATA_INVALID)
        if "url" in button and not str(button["url"]).strip():
            raise _bad_request("BUTTON_URL_INVALID")

    async def _send_message(self, params: Params) -> JSONDict:
        chat = self._resolve_chat(params)
        text, entities = self._render(params)
        markup = self._inline_markup(params)
        self._check_can_post(chat)
        muted = self.bot_user.id in chat.muted or not chat.members_may_send
        if chat.is_group and muted and not chat.is_admin(self.bot_user):
            raise _bad_request(NOT_ENOUGH_RIGHTS)
        topic = self._topic(chat, params)
        reply_to = self._reply_target(chat, params)
        message = self._store_message(chat, self.bot_user, text, entities, markup)
        message.reply_to = reply_to
        message.message_thread_id = topic
        return message.to_api()

    async def _send_document(self, params: Params) -> JSONDict:
        """A document: a file uploaded with the request (multipart), or the ``file_id``
        of one Telegram has; with an optional caption of at most 1024 characters."""
        chat = self._resolve_chat(params)
        document = self._document(params.get("document"))
        caption, entities = self._render_caption(params)
        markup = self._inline_markup(params)
        self._check_can_post(chat)
        muted = self.bot_user.id in chat.muted or not chat.members_may_send
        if chat.is_group and muted and not chat.is_admin(self.bot_user):
            raise _bad_request(NOT_ENOUGH_RIGHTS_DOCUMENTS)
        topic = self._topic(chat, params)
        reply_to = self._reply_target(chat, params)
        message = self._store_message(chat, self.bot_user, caption, entities, markup)
        message.reply_to = reply_to
        message.message_thread_id = topic
        message.document = document
        return message.to_api()

    def _topic(self, chat: FakeChat, params: Params) -> int | None:
        """The forum topic a new message goes to: ``message_thread_id``, or General
        without one.  A topic the chat does not have is 400 "message thread not found"
        (the fake knows no reply threads outside forums); a closed one (General too)
        400 ``TOPIC_CLOSED`` unless the bot is an admin."""
        raw = params.get("message_thread_id")
        topic = None if raw in (None, "") else _as_int(raw, "message_thread_id")
        if topic is not None and topic not in chat.topics:
            raise _bad_request(THREAD_NOT_FOUND)
        if chat.is_forum and not chat.may_post_in(self.bot_user, topic):
            raise _bad_request(TOPIC_CLOSED)
        return topic

    def _document(self, value: Any) -> FakeDocument:
        if isinstance(value, Upload):
            if not value.data:
                raise _bad_request(FILE_EMPTY)
            file_id = self.add_file(value.data)
            document = FakeDocument(
                file_id=file_id,
                file_name=value.filename,
                mime_type=value.content_type,
                data=value.data,
            )
            self._documents[file_id] = document
            return document
        if value is None or value == "":
            raise _bad_request(NO_DOCUMENT)
        file_id = str(value)
        if file_id not in self.files:  # a URL would be fetched: none is reachable here
            raise _bad_request(WRONG_FILE_ID)
        known = self._documents.get(file_id)
        if known is not None:  # sent again by its file_id: the same name and type
            return known
        return FakeDocument(
            file_id=file_id, file_name=None, mime_type=None, data=self.files[file_id]
        )

    def _reply_target(self, chat: FakeChat, params: Params) -> FakeMessage | None:
        reply = params.get("reply_parameters") or {}
        message_id = reply.get("message_id", params.get("reply_to_message_id"))
        if message_id is None:
            return None
        try:
            target = chat.message(_as_int(message_id, "message_id"))
        except KeyError:
            target = None
        if target is None or target.deleted:
            if reply.get("allow_sending_without_reply") or params.get(
                "allow_sending_without_reply"
            ):
                return None
            raise _bad_request(REPLIED_NOT_FOUND)
        return target

    def _editable(self, params: Params) -> FakeMessage:
        if params.get("inline_message_id"):
            raise _bad_request("MESSAGE_ID_INVALID")
        chat = self._resolve_chat(params)
        self._check_can_post(chat)  # a bot blocked or removed edits nothing there either
        try:
            message = chat.message(_as_int(params.get("message_id"), "message_id"))
        except KeyError:
            raise _bad_request(MESSAGE_TO_EDIT_NOT_FOUND) from None
        if message.deleted:
            raise _bad_request(MESSAGE_TO_EDIT_NOT_FOUND)
        if not message.from_bot:
            raise _bad_request(MESSAGE_CANT_BE_EDITED)
        return message

    def _apply_edit(
        self,
        message: FakeMessage,
        text: str,
        entities: tuple[JSONDict, ...],
        markup: JSONDict | None,
    ) -> JSONDict:
        if (text, entities, markup) == (message.text, message.entities, message.reply_markup):
            raise _bad_request(NOT_MODIFIED)
        message.history.append(message.current)
        message.text, message.entities, message.reply_markup = text, entities, markup
        message.edit_date = int(time.time())
        return message.to_api()

    async def _edit_message_text(self, params: Params) -> JSONDict:
        """Like Telegram, an edit without ``reply_markup`` removes the inline keyboard."""
        message = self._editable(params)
        if message.document is not None:
            raise _bad_request(NO_TEXT_TO_EDIT)
        text, entities = self._render(params)
        return self._apply_edit(message, text, entities, self._inline_markup(params))

    async def _edit_message_reply_markup(self, params: Params) -> JSONDict:
        message = self._editable(params)
        markup = self._inline_markup(params)
        return self._apply_edit(message, message.text, message.entities, markup)

    async def _delete_message(self, params: Params) -> bool:
        chat = self._resolve_chat(params)
        try:
            message = chat.message(_as_int(params.get("message_id"), "message_id"))
        except KeyError:
            raise _bad_request(MESSAGE_TO_DELETE_NOT_FOUND) from None
        if message.deleted:
            raise _bad_request(MESSAGE_TO_DELETE_NOT_FOUND)
        may_delete = message.from_bot or chat.type == "private" or chat.is_admin(self.bot_user)
        if not may_delete:
            raise _bad_request(MESSAGE_CANT_BE_DELETED)
        message.deleted = True
        return True

    async def _answer_callback_query(self, params: Params) -> bool:
        """Once per query, within ``limits.callback_answer_timeout`` of the press."""
        query = self.queries.get(str(params.get("callback_query_id", "")))
        if query is None:
            raise _bad_request(QUERY_TOO_OLD)
        now = time.monotonic()
        late = now - query.pressed_at > self.limits.callback_answer_timeout
        if query.answer is not None or late:
            query.refused_answers += 1
            raise _bad_request(QUERY_TOO_OLD)
        text = params.get("text")
        if text is not None and len(str(text)) > self.limits.max_callback_answer_length:
            raise _bad_request("MESSAGE_TOO_LONG")
        query.answer = CallbackAnswer(
            text=None if text is None else str(text),
            show_alert=bool(params.get("show_alert", False)),
            url=params.get("url"),
            cache_time=_as_int(params.get("cache_time", 0), "cache_time"),
            answered_at=now,
            delay=now - query.pressed_at,
        )
        return True

    # -- commands, chats, members

    async def _set_my_commands(self, params: Params) -> bool:
        commands = params.get("commands")
        if not isinstance(commands, list):
            raise _bad_request('parameter "commands" is required')
        if len(commands) > self.limits.max_commands:
            raise _bad_request("BOT_COMMANDS_TOO_MUCH")
        for command in commands:
            if not _COMMAND_NAME.match(str(command.get("command", "")).lower()):
                raise _bad_request("BOT_COMMAND_INVALID")
            if not 1 <= len(str(command.get("description", ""))) <= 256:
                raise _bad_request("BOT_COMMAND_DESCRIPTION_INVALID")
        key = (_scope_key(params.get("scope")), str(params.get("language_code") or ""))
        self.commands[key] = [
            {"command": str(c["command"]).lower(), "description": str(c["description"])}
            for c in commands
        ]
        return True

    async def _get_my_commands(self, params: Params) -> list[JSONDict]:
        return self.command_list(params.get("scope"), str(params.get("language_code") or ""))

    async def _delete_my_commands(self, params: Params) -> bool:
        key = (_scope_key(params.get("scope")), str(params.get("language_code") or ""))
        self.commands.pop(key, None)
        return True

    async def _send_chat_action(self, params: Params) -> bool:
        chat = self._resolve_chat(params)
        action = str(params.get("action", ""))
        if action not in _CHAT_ACTIONS:
            raise _bad_request("wrong type of the chat action specified")
        self._check_can_post(chat)
        chat.chat_actions.append(action)
        return True

    def _visible_chat(self, params: Params) -> FakeChat:
        chat = self._resolve_chat(params)
        if chat.type == "private":
            assert chat.user is not None
            if not chat.user.started_bot:
                raise _bad_request(CHAT_NOT_FOUND)
        elif chat.status_of(self.bot_user) in ("left", "kicked"):
            raise _bad_request(CHAT_NOT_FOUND)
        return chat

    async def _get_chat(self, params: Params) -> JSONDict:
        return self._visible_chat(params).full_info()

    async def _get_chat_member(self, params: Params) -> JSONDict:
        chat = self._visible_chat(params)
        user = self._users.get(_as_int(params.get("user_id"), "user_id"))
        if user is None:
            raise _bad_request(USER_NOT_FOUND)
        return _member_api(user, chat.status_of(user), may_send=user.id not in chat.muted)

    async def _get_chat_administrators(self, params: Params) -> list[JSONDict]:
        chat = self._visible_chat(params)
        if chat.type == "private":
            raise _bad_request("there are no administrators in the private chat")
        return [
            _member_api(self._users[user_id], status)
            for user_id, status in chat.members.items()
            if status in ("creator", "administrator")
        ]

    async def _get_chat_member_count(self, params: Params) -> int:
        chat = self._visible_chat(params)
        if chat.type == "private":
            return 2
        return sum(1 for user_id in chat.members if chat.is_member(user_id))

    async def _set_chat_menu_button(self, params: Params) -> bool:
        chat_id = params.get("chat_id")
        key = None if chat_id is None else self._resolve_chat(params).id
        self.menu_buttons[key] = params.get("menu_button") or {"type": "default"}
        return True

    async def _get_chat_menu_button(self, params: Params) -> JSONDict:
        chat_id = params.get("chat_id")
        key = None if chat_id is None else self._resolve_chat(params).id
        return self.menu_buttons.get(key, self.menu_buttons.get(None, {"type": "commands"}))

    async def _get_file(self, params: Params) -> JSONDict:
        file_id = str(params.get("file_id", ""))
        if file_id not in self.files:
            raise _bad_request("invalid file_id")
        return {
            "file_id": file_id,
            "file_unique_id": f"U{file_id}",
            "file_size": len(self.files[file_id]),
            "file_path": self._file_paths[file_id],
        }

    def _bot_text_setter(self, kind: str) -> MethodHandler:
        async def setter(params: Params) -> bool:
            self.bot_texts[(kind, str(params.get("language_code") or ""))] = str(
                params.get(kind) or ""
            )
            return True

        return setter

    def _bot_text_getter(self, kind: str) -> MethodHandler:
        async def getter(params: Params) -> JSONDict:
            language = str(params.get("language_code") or "")
            return {kind: self.bot_texts.get((kind, language), "")}

        return getter


_DEFAULT_DESCRIPTIONS = {
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    409: "Conflict",
    500: "Internal Server Error",
    502: "Bad Gateway",
}


def _member_api(user: FakeUser, status: MemberStatus, *, may_send: bool = True) -> JSONDict:
    """A ``ChatMember`` object; administrators get every right (a fake has no finer grain),
    a restricted member all but sending messages when `may_send` is false."""
    data: JSONDict = {"status": status, "user": user.to_api()}
    if status == "creator":
        data["is_anonymous"] = False
    elif status == "administrator":
        data.update(
            can_be_edited=False,
            is_anonymous=False,
            can_manage_chat=True,
            can_delete_messages=True,
            can_manage_video_chats=True,
            can_restrict_members=True,
            can_promote_members=False,
            can_change_info=True,
            can_invite_users=True,
            can_post_stories=False,
            can_edit_stories=False,
            can_delete_stories=False,
            can_pin_messages=True,
        )
    elif status == "kicked":
        data["until_date"] = 0
    elif status == "restricted":
        data.update(
            is_member=True,
            can_send_messages=may_send,
            can_send_audios=True,
            can_send_documents=True,
            can_send_photos=True,
            can_send_videos=True,
            can_send_video_notes=True,
            can_send_voice_notes=True,
            can_send_polls=True,
            can_send_other_messages=True,
            can_add_web_page_previews=True,
            can_change_info=False,
            can_invite_users=True,
            can_pin_messages=False,
            can_manage_topics=False,
            can_edit_tag=False,  # Bot API 9.x: PTB 22.8 requires these two
            can_react_to_messages=True,
            until_date=0,
        )
    return data


def _scope_key(scope: Any) -> str:
    return json.dumps(scope or {"type": "default"}, sort_keys=True)


def _as_int(value: Any, name: str) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise _bad_request(f"invalid {name} specified") from None


async def _read_params(request: web.Request) -> Params:
    """Accept query strings, form bodies, multipart bodies and JSON bodies, as Telegram does.

    Form values are JSON-encoded except plain strings; names in ``STRING_PARAMS`` are never
    decoded, so a text of ``"42"`` stays a string.
    """
    raw: dict[str, Any] = dict(request.query)
    if request.method == "POST" and request.body_exists:
        if request.content_type == "application/json":
            try:
                body = await request.json()
            except json.JSONDecodeError:
                raise _bad_request("invalid JSON in request body") from None
            if isinstance(body, dict):
                raw.update(body)
        else:
            form = await request.post()
            for key, value in form.items():
                if isinstance(value, web.FileField):
                    raw[key] = Upload(value.filename, value.content_type, value.file.read())
                elif isinstance(value, bytes | bytearray):
                    raw[key] = bytes(value).decode(errors="replace")
                else:
                    raw[key] = value
    return {key: _decode_value(key, value) for key, value in raw.items()}


def _decode_value(name: str, value: Any) -> Any:
    if not isinstance(value, str) or name in STRING_PARAMS:
        return value
    try:
        return json.loads(value)
    except ValueError:
        return value


# ------------------------------------------------------------------------ PTB convenience


@contextlib.asynccontextmanager
async def polling(application: Application[Any, Any, Any, Any, Any, Any]) -> AsyncIterator[None]:
    """Run a PTB Application with long polling inside the test's event loop.

    ``run_polling`` would own the loop and install signal handlers; this is the documented
    manual sequence (initialize, start, start_polling; then stop in reverse), with a 1 s
    long-poll timeout so shutdown is quick.
    """
    updater = application.updater
    if updater is None:
        raise ValueError("the application was built without an updater")
    async with application:
        await application.start()
        await updater.start_polling(poll_interval=0, timeout=1)
        try:
            yield
        finally:
            await updater.stop()
            await application.stop()
