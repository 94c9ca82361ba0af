"""Bot API methods for messages: send, document, edit, delete, answer a callback
query, with Telegram's checks on rights, topics, replies, text and keyboards.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    pass
from typing import TYPE_CHECKING

from tests.e2e.fakes.telegram.errors import (
    BLOCKED_BY_USER,
    BUTTON_DATA_INVALID,
    CANT_INITIATE,
    CAPTION_TOO_LONG,
    CHAT_NOT_FOUND,
    FILE_EMPTY,
    GROUP_UPGRADED,
    MESSAGE_CANT_BE_DELETED,
    MESSAGE_CANT_BE_EDITED,
    MESSAGE_TO_DELETE_NOT_FOUND,
    MESSAGE_TO_EDIT_NOT_FOUND,
    MESSAGE_TOO_LONG,
    NO_DOCUMENT,
    NO_TEXT_TO_EDIT,
    NOT_ENOUGH_RIGHTS,
    NOT_ENOUGH_RIGHTS_DOCUMENTS,
    NOT_MODIFIED,
    QUERY_TOO_OLD,
    REPLIED_NOT_FOUND,
    TEXT_EMPTY,
    THREAD_NOT_FOUND,
    TOPIC_CLOSED,
    WRONG_FILE_ID,
    ApiError,
    _bad_request,
)
from tests.e2e.fakes.telegram.messages import CallbackAnswer, FakeDocument, FakeMessage, Upload
from tests.e2e.fakes.telegram.params import _as_int
from tests.e2e.fakes.telegram.protocol import _BUTTON_ACTIONS
from tests.e2e.fakes.telegram.text_entities import (
    _auto_entities,
    _EntityParseError,
    _parse_html,
    _parse_markdown,
    _strip_text,
    _utf16_len,
)
from tests.e2e.fakes.telegram.world import World

if TYPE_CHECKING:
    from tests.e2e.fakes.telegram.chats import FakeChat
    from tests.e2e.fakes.telegram.protocol import JSONDict, Params
    from tests.e2e.fakes.telegram.users import FakeUser


class MessagesApi(World):
    """The message methods and the message store they share with simulated users."""

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
