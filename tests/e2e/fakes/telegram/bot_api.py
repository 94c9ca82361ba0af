"""The Bot API over HTTP: the method table, token checks, held and failed calls,
flood control, recording each call, and file downloads.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING

from aiohttp import web

if TYPE_CHECKING:
    pass
from typing import TYPE_CHECKING

from tests.e2e.fakes.telegram.api_chats import ChatsApi
from tests.e2e.fakes.telegram.errors import METHOD_NOT_FOUND, ApiError
from tests.e2e.fakes.telegram.failures import FailureInjection, _Injected
from tests.e2e.fakes.telegram.params import _read_params
from tests.e2e.fakes.telegram.protocol import _TOKEN_SHAPE
from tests.e2e.fakes.telegram.records import ApiCall
from tests.e2e.fakes.telegram.updates import Updates

if TYPE_CHECKING:
    from tests.e2e.fakes.telegram.protocol import MethodHandler, Params


class BotApi(ChatsApi, Updates, FailureInjection):
    """Serves ``/bot<token>/<method>`` and ``/file/bot<token>/<path>``."""

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

    async def _handle(self, request: web.Request) -> web.Response:
        token = request.match_info["token"]
        method_name = request.match_info["method"]
        canonical = method_name
        params: Params = {}
        spoiled: _Injected | None = None
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
            spoiled = self._apply_injected(canonical)
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
        if status != 200:
            spoiled = None  # refused: nothing carried out, an answer as usual
        how = spoiled.spoiled if spoiled is not None else None
        lose = how == "lost"
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
        if how == "garbled":  # done, but the answer is cut short: no JSON
            return web.Response(text=json.dumps(body)[:-1], content_type="application/json")
        if how == "without result":  # done, but the answer holds no result
            return web.json_response({"ok": True})
        if spoiled is not None and how == "wrong result":  # done, another result told
            return web.json_response({"ok": True, "result": spoiled.result})
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
