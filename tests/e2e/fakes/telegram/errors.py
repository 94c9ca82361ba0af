"""The Bot API's errors, worded exactly as Telegram words them."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    pass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tests.e2e.fakes.telegram.protocol import JSONDict


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


_DEFAULT_DESCRIPTIONS = {
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    409: "Conflict",
    500: "Internal Server Error",
    502: "Bad Gateway",
}


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
