"""The errors the fake answers with, spelled as Discord spells them (status, JSON
error code, message), so discord.py raises what it would raise against Discord.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tests.e2e.fakes.discord.protocol import Permission

if TYPE_CHECKING:
    from tests.e2e.fakes.discord.entities import FakeChannel
    from tests.e2e.fakes.discord.protocol import Json


class _Abandoned(Exception):
    """A request the bot gave up on before Discord had all of it."""


class ApiError(Exception):
    """An error answer in Discord's JSON shape: ``{"message", "code", "errors"?}``."""

    def __init__(
        self,
        status: int,
        code: int,
        message: str,
        *,
        errors: Json | None = None,
    ) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors

    def body(self) -> Json:
        data: Json = {"message": self.message, "code": self.code}
        if self.errors:
            data["errors"] = self.errors
        return data


_OLD_EDITS_MESSAGE = (
    "Maximum number of edits to messages older than 1 hour reached. Try again later."
)


#: Discord's error answers by their JSON code, spelled as Discord spells them (status,
#: message): what `FakeDiscord.refuse` answers with.
REFUSALS: dict[int, tuple[int, str]] = {
    10003: (404, "Unknown Channel"),
    10008: (404, "Unknown Message"),
    30046: (400, _OLD_EDITS_MESSAGE),
    50001: (403, "Missing Access"),
    50006: (400, "Cannot send an empty message"),
    50007: (403, "Cannot send messages to this user"),
    50013: (403, "Missing Permissions"),
    50035: (400, "Invalid Form Body"),
}


def refusal(code: int) -> ApiError:
    """Discord's answer of this JSON error code (one of `REFUSALS`)."""
    status, message = REFUSALS[code]
    return ApiError(status, code, message)


def _unknown_interaction() -> ApiError:
    return ApiError(404, 10062, "Unknown interaction")


def _unknown_message() -> ApiError:
    return refusal(10008)


def _unknown_channel() -> ApiError:
    return refusal(10003)


def _send_right(channel: FakeChannel) -> int:
    """The right to post in a channel: in a thread it is "Send Messages in Threads",
    whatever "Send Messages" says (Discord's rule)."""
    return Permission.SEND_MESSAGES_IN_THREADS if channel.is_thread else Permission.SEND_MESSAGES


def _missing_access() -> ApiError:
    return refusal(50001)


def _unknown_webhook() -> ApiError:
    return ApiError(404, 10015, "Unknown Webhook")


def _invalid_webhook_token() -> ApiError:
    return ApiError(401, 50027, "Invalid Webhook Token")


class _FormErrors:
    """Collects field errors into Discord's nested ``errors`` tree (code 50035)."""

    def __init__(self) -> None:
        self.tree: Json = {}

    def add(self, path: Sequence[str | int], code: str, message: str) -> None:
        node = self.tree
        for part in path:
            node = node.setdefault(str(part), {})
        node.setdefault("_errors", []).append({"code": code, "message": message})

    def raise_if_any(self) -> None:
        if self.tree:
            raise ApiError(400, 50035, "Invalid Form Body", errors=self.tree)


class InteractionFailed(AssertionError):
    """The interaction got no response within its deadline: the user sees "This
    interaction failed" (or "The application did not respond")."""
