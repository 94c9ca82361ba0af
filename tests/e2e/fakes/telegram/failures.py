"""Injected errors, lost answers and held requests (and flood control, see
``flood_control.py``): the ways a test makes Telegram misbehave on purpose.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from tests.e2e.fakes.telegram.chats import FakeChat
from tests.e2e.fakes.telegram.errors import _DEFAULT_DESCRIPTIONS, ApiError, _too_many_requests
from tests.e2e.fakes.telegram.state import FakeTelegramState

if TYPE_CHECKING:
    from tests.e2e.fakes.telegram.flood_control import _Bucket
    from tests.e2e.fakes.telegram.protocol import Params


#: What becomes of the answer to a call carried out: "lost" (the connection cut, no
#: answer), "garbled" (a 200 whose body is cut short, no JSON), "without result" (a
#: 200 whose JSON says ``ok`` but holds no ``result``) or "wrong result" (``ok``, and
#: a ``result`` of the wrong type: `_Injected.result`).
Spoiled = Literal["lost", "garbled", "without result", "wrong result"]


@dataclass
class _Injected:
    error: ApiError | None  # None: the call is carried out, its answer `spoiled`
    times: int
    spoiled: Spoiled = "lost"
    result: object = None  # what a "wrong result" answer holds instead of the real one


@dataclass(eq=False)
class Hold:
    """Requests to one method (in one chat, if given) that wait, neither carried out
    nor answered, until `release`: the bot is still sending while people go on
    pressing (see `FakeTelegram.hold`)."""

    fake: FakeTelegramState = field(repr=False)
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


class FailureInjection(FakeTelegramState):
    """Injected failures and flood control: the control calls and their bookkeeping."""

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
        self._spoil_next(method, _Injected(None, times))

    def garble_answer_next(self, method: str, times: int = 1) -> None:
        """Carry out the next ``times`` calls of ``method`` but answer 200 with the
        answer cut short, no JSON (a proxy on the way, an answer broken in transit):
        PTB raises a bare ``TelegramError`` ("Invalid server response"), and the bot
        cannot tell whether it arrived (it did).  PTB logs the body at ERROR
        ("Can not load invalid JSON data"): a test `allow`s that on its log guard.
        The call is recorded with status 200.  Queued in turn with `fail_next` and
        `lose_answer_next`."""
        self._spoil_next(method, _Injected(None, times, "garbled"))

    def answer_without_result_next(self, method: str, times: int = 1) -> None:
        """Carry out the next ``times`` calls of ``method`` but answer 200 with
        ``{"ok": true}`` and no ``result``: JSON, but not in the Bot API's shape (a
        proxy or gateway on the way that rewrites answers).  PTB raises no
        ``TelegramError`` but a ``KeyError`` of its own, and the bot cannot tell
        whether it arrived (it did).  The call is recorded with status 200 and its
        result.  Queued in turn with `fail_next` and the other spoiled answers."""
        self._spoil_next(method, _Injected(None, times, "without result"))

    def answer_with_wrong_result_next(self, method: str, result: object, times: int = 1) -> None:
        """Carry out the next ``times`` calls of ``method`` but answer 200 with
        ``{"ok": true, "result": result}``, a `result` of the wrong type (``"oops"``,
        a list where the Bot API gives an object): JSON in the Bot API's envelope, its
        content not (a gateway on the way that rewrites answers).  PTB raises no
        ``TelegramError`` but whatever reading it raises (an ``AttributeError``, a
        ``TypeError``), and the bot cannot tell whether it arrived (it did).  The
        call is recorded with status 200 and its real result.  Queued in turn with
        `fail_next` and the other spoiled answers."""
        self._spoil_next(method, _Injected(None, times, "wrong result", result))

    def _spoil_next(self, method: str, injected: _Injected) -> None:
        """Queue `injected` for the next calls of `method`, behind those queued."""
        canonical = self._methods[method.lower()][0]
        self._injected.setdefault(canonical, []).append(injected)

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

    def _apply_injected(self, method: str) -> _Injected | None:
        """Raise the error injected for this call, if any; else what becomes of the
        answer of a call carried out (`lose_answer_next`, `garble_answer_next`,
        `answer_without_result_next`, `answer_with_wrong_result_next`), or None:
        answered as usual."""
        queue = self._injected.get(method)
        if not queue:
            return None
        injected = queue[0]
        injected.times -= 1
        if injected.times <= 0:
            queue.pop(0)
        if injected.error is None:
            return injected
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
