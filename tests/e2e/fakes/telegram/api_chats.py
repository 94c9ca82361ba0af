"""Bot API methods for the bot itself, its commands, chats, members, menu buttons,
files and profile texts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    pass
from typing import TYPE_CHECKING

from tests.e2e.fakes.telegram.api_messages import MessagesApi
from tests.e2e.fakes.telegram.chats import _member_api
from tests.e2e.fakes.telegram.errors import CHAT_NOT_FOUND, USER_NOT_FOUND, _bad_request
from tests.e2e.fakes.telegram.params import _as_int, _scope_key
from tests.e2e.fakes.telegram.protocol import _CHAT_ACTIONS, _COMMAND_NAME
from tests.e2e.fakes.telegram.reading import Reading

if TYPE_CHECKING:
    from tests.e2e.fakes.telegram.chats import FakeChat
    from tests.e2e.fakes.telegram.protocol import JSONDict, MethodHandler, Params


class ChatsApi(MessagesApi, Reading):
    """The bot, command, chat, member, menu-button, file and profile-text methods."""

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
