"""The fake's state and the helpers every part of it needs (its addresses, change
notification and bounded waits); the concerns are mixins over this base.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar, cast

import aiohttp
from aiohttp import web

if TYPE_CHECKING:
    pass
from typing import TYPE_CHECKING

from tests.e2e.fakes.telegram.flood_control import _FloodControl
from tests.e2e.fakes.telegram.protocol import BOT_USERNAME, DEFAULT_TOKEN, Limits
from tests.e2e.fakes.telegram.users import FakeUser

if TYPE_CHECKING:
    from tests.e2e.fakes.telegram.chats import FakeChat
    from tests.e2e.fakes.telegram.failures import Hold, _Injected
    from tests.e2e.fakes.telegram.messages import FakeCallbackQuery, FakeDocument
    from tests.e2e.fakes.telegram.protocol import JSONDict, MethodHandler
    from tests.e2e.fakes.telegram.ptb import LogErrorGuard
    from tests.e2e.fakes.telegram.records import ApiCall, WebhookConfig, WebhookDelivery, _Pending
    from tests.e2e.fakes.telegram.server import FakeTelegram


_T = TypeVar("_T")
#: Seconds between looks at a `wait_for` predicate the fake was not told changed: one
#: over the bot's own state (the core's held platforms) changes without a request,
#: and such a wait slept to its deadline, passing on its last look only.
RECHECK = 0.25


class FakeTelegramState:
    """Everything the fake knows, shared by the mixins that make up :class:`FakeTelegram`."""

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
            fake=self._fake,
            id=int(token.split(":", 1)[0]),
            first_name=bot_name,
            username=bot_username,
            language_code=None,
            is_bot=True,
        )
        #: What Telegram names as the sender of an anonymous admin's messages.
        self.anonymous_admin = FakeUser(
            fake=self._fake,
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

    @property
    def offline(self) -> bool:
        return self._site is None

    def _notify(self) -> None:
        """Wake every waiter: ``wait_*``, long polls and the webhook sender."""
        self.version += 1
        changed, self._changed = self._changed, asyncio.Event()
        changed.set()

    async def wait_for(
        self, predicate: Callable[[], _T | None], timeout: float = 5.0, *, what: str = ""
    ) -> _T:
        """Wait until ``predicate()`` is truthy and return its value.

        Re-evaluated on every state change (a request, a simulated user's action, a log
        error), and every `RECHECK` seconds for a change outside the fake. Raises ``TimeoutError`` with recent calls for context,
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
                await asyncio.wait_for(changed.wait(), min(remaining, RECHECK))

    def _timeout_report(self, what: str, timeout: float) -> str:
        recent = "\n".join(
            f"  {c.method} -> {c.status} {c.description or ''}"
            for c in self.calls[-10:]
            if c.method != "getUpdates"
        )
        return f"waited {timeout}s for {what}\nrecent calls (without getUpdates):\n{recent}"

    @property
    def _fake(self) -> FakeTelegram:
        """Users, chats and holds call back into the whole fake, though its parts make them."""
        return cast("FakeTelegram", self)

    def _method_table(self) -> dict[str, MethodHandler]:
        """The Bot API methods are listed by :class:`BotApi`, which sees every handler."""
        raise NotImplementedError
