"""Messages with their revisions and documents, and callback queries with the bot's
answers.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    pass
from typing import TYPE_CHECKING

from tests.e2e.fakes.telegram.keyboards import _keyboard_rows
from tests.e2e.fakes.telegram.text_entities import _utf16_slice

if TYPE_CHECKING:
    from tests.e2e.fakes.telegram.chats import FakeChat
    from tests.e2e.fakes.telegram.keyboards import Button
    from tests.e2e.fakes.telegram.protocol import JSONDict
    from tests.e2e.fakes.telegram.users import FakeUser


@dataclass(frozen=True)
class Revision:
    """A message's content at one point in time; edits append the previous revision."""

    text: str
    entities: tuple[JSONDict, ...]
    reply_markup: JSONDict | None
    edit_date: int | None

    def keyboard(self) -> list[list[Button]]:
        return _keyboard_rows(self.reply_markup)


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
