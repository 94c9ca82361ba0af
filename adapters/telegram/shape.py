"""What the parts of `TelegramAdapter` share: its state, and the methods one part calls
on another.

The adapter is built from mixins (`Serving`, `Handling`, `Commands`, `Presses`,
`GroupMembership`, `Migration`, `TableMessages`, `Hands`, `Ends`, `Restore`) over
the state `TelegramAdapter.__init__` sets up.
`AdapterShape` is the one declaration of that state and of those calls: every part
subclasses it, so `mypy --strict` checks each part's use against it, and each real
method against its stub.  It adds nothing at run time: the attributes are bare
annotations, the stubs exist only for the type checker, and this module imports
none of the parts (nor anything else) when the program runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import asyncio
    import contextlib
    from collections.abc import Coroutine
    from typing import Any

    from aiohttp import web
    from telegram import CallbackQuery, MaybeInaccessibleMessage, Update
    from telegram import Message as TgMessage
    from telegram import User as TgUser
    from telegram.ext import Application

    from adapters.recent import Recent
    from bot.locks import KeyedLocks
    from bot.service import ChatRef, TableService, TableUpdate, UserRef
    from bot.turn_pings import TurnPings
    from bot.views import HandView, ResultView

    from .content import Content
    from .outbox import Outbox
    from .reach import PollRequest, Reach
    from .tables import TableState
    from .updates import HandledUpdates


class AdapterShape:
    """The state and cross-part methods of `TelegramAdapter`, for its parts to share.

    The attributes are set up by `TelegramAdapter.__init__` (see there for what each
    holds); each stub names the part that defines the method."""

    service: TableService
    app: Application[Any, Any, Any, Any, Any, Any]
    outbox: Outbox
    updates: HandledUpdates
    turn_pings: TurnPings
    answer_budget: float
    greet_after: float
    poll_timeout: float
    webhook_url: str | None
    webhook_secret: str | None
    webhook_listen: str
    webhook_port: int
    reach: Reach
    states: dict[str, TableState]
    langs: Recent[str, str]
    reachable: Recent[int, bool]
    unreachable: set[int]
    lost: set[int]
    _losing_topics: set[tuple[int, int | None]]
    _let_in: Recent[int, int]
    _lobby_locks: dict[str, asyncio.Lock]
    _opening: dict[tuple[str, str], int]
    _opening_locks: KeyedLocks[tuple[str, str]]
    _moves: dict[int, tuple[int, asyncio.Task[None] | None]]
    _greetings: set[asyncio.Task[None]]
    _background: set[asyncio.Task[None]]
    _polls: PollRequest | None
    _webhook: web.AppRunner | None
    _prober: asyncio.Task[None] | None

    if TYPE_CHECKING:  # one part calls these on another; never defined at run time
        # adapter (`TelegramAdapter`)
        @property
        def private_link(self) -> str: ...
        def deep_link(self, table_id: str) -> str: ...
        def _spawn(self, work: Coroutine[Any, Any, None]) -> asyncio.Task[None]: ...
        def _user(self, tg_user: TgUser) -> UserRef: ...
        def _chat(self, message: MaybeInaccessibleMessage) -> ChatRef: ...

        # commands (`Commands`)
        async def _is_admin(self, message: TgMessage, user: UserRef) -> bool | None: ...
        def _help(self, lang: str | None, *, in_group: bool) -> str: ...

        # presses (`Presses`)
        async def _answer(
            self,
            query: CallbackQuery,
            text: str | None = None,
            *,
            alert: bool = False,
            url: str | None = None,
            late: bool = True,
        ) -> None: ...
        def _opening_in(
            self, chat: ChatRef, user: UserRef, message: TgMessage
        ) -> contextlib.AbstractAsyncContextManager[None]: ...
        async def _greet_host(self, user: UserRef, table_id: str) -> None: ...

        # membership (`GroupMembership`)
        def _on_refused(self, chat_id: int) -> None: ...
        def _lets_in(self, uid: int, update_id: int) -> None: ...
        def _regain(self, chat_id: int) -> None: ...

        # migration (`Migration`)
        def _moved_here(self, chat_id: int) -> bool: ...
        async def _moving(self, update: Update) -> None: ...

        # tables (`TableMessages`)
        async def table_update(self, update: TableUpdate) -> None: ...
        def _state(self, table_id: str, chat: str) -> TableState: ...
        def _to_group(self, st: TableState, content: Content) -> None: ...
        def _show_lobby(self, table_id: str, st: TableState) -> None: ...
        def _show_table(self, table_id: str, st: TableState) -> None: ...
        def _unreachable(self, user: str) -> bool: ...
        def _table_lang(self, table_id: str) -> str: ...
        def _seat_name(self, table_id: str, user: str) -> str: ...

        # hands (`Hands`)
        def _show_hand(
            self,
            table_id: str,
            st: TableState,
            user: str,
            view: HandView | None = None,
            *,
            asked: bool = False,
        ) -> None: ...
        def _unping(self, st: TableState, user: str) -> None: ...
        def _warn(self, table_id: str, st: TableState, user: str) -> None: ...
        def _remind(self, table_id: str, st: TableState, user: str) -> None: ...

        # ends (`Ends`)
        def _settle(
            self,
            table_id: str,
            st: TableState,
            key: str,
            result: ResultView | None,
            **values: Any,
        ) -> None: ...
        def _confirm(self, table_id: str, st: TableState, version: int) -> None: ...
        def _close(self, table_id: str, st: TableState, version: int) -> None: ...

        # restore (`Restore`)
        async def _restore(self) -> None: ...
        def _refresh(self, table_id: str) -> None: ...
