"""Reading the fake's state back and waiting, bounded, for the bot's messages,
edits, calls and callback answers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    pass
from typing import TYPE_CHECKING

from tests.e2e.fakes.telegram.messages import FakeCallbackQuery, FakeMessage
from tests.e2e.fakes.telegram.params import _scope_key
from tests.e2e.fakes.telegram.state import FakeTelegramState

if TYPE_CHECKING:
    from tests.e2e.fakes.telegram.chats import FakeChat
    from tests.e2e.fakes.telegram.messages import CallbackAnswer
    from tests.e2e.fakes.telegram.protocol import JSONDict
    from tests.e2e.fakes.telegram.records import ApiCall


class Reading(FakeTelegramState):
    """What the tests read and await."""

    def calls_to(self, method: str) -> list[ApiCall]:
        return [call for call in self.calls if call.method.lower() == method.lower()]

    def command_list(
        self, scope: JSONDict | None = None, language_code: str = ""
    ) -> list[JSONDict]:
        """The commands the bot set for a scope and language (``setMyCommands``)."""
        return self.commands.get((_scope_key(scope), language_code), [])

    def answer_to(self, query: FakeCallbackQuery | str) -> CallbackAnswer | None:
        return self._query(query).answer

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

    def _query(self, query: FakeCallbackQuery | str) -> FakeCallbackQuery:
        return query if isinstance(query, FakeCallbackQuery) else self.queries[query]
