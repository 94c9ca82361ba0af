"""What the parts of `TableService` share, declared once.

`TableService` (`bot.service`) is put together from mixins, one module per group of use
cases (`bot.lobbies`, `bot.closing`, `bot.forgetting`, `bot.preferences`, `bot.clocks`,
`bot.telling`, `bot.queries`, `bot.commits`), which use the state the service holds and
call each other's methods. Each mixin subclasses `ServiceShape`, so mypy checks every part against
this one declaration: an attribute used with the wrong type, a call to a method no part
has, and a real method that does not fit its stub here are errors.

Nothing here exists at runtime but the (empty) class: the attributes are annotations
only (`TableService.__init__` sets them) and the stubs are under `TYPE_CHECKING`, so
they can shadow no real method in the service's MRO.  This module imports no mixin at
runtime.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    import asyncio
    import contextlib
    from collections.abc import Awaitable, Callable, Coroutine, Iterable, Sequence

    from engine.events import Event

    from .clocks import Timers
    from .lobbies import Opening
    from .locks import KeyedLocks
    from .ports import ChatRef, Listener, Outcome, Timings, UserRef
    from .settings import ChatSettings
    from .store import Op, Store
    from .table import Entry, Table, Turn
    from .telling import End
    from .views import LobbyView, Message, ResultView, Style

_R = TypeVar("_R")


class ServiceShape:
    """The attributes and methods the parts of `TableService` share (a base of every
    mixin; `TableService` gets it through them)."""

    # --- state (set by `TableService.__init__`) ---------------------------------------
    _ai_runner: Callable[[Callable[[], int]], Awaitable[int]]
    _chat_locks: KeyedLocks[str]
    _claims: set[tuple[str, str]]
    _clock: Callable[[], float]
    _closed: bool
    _held: set[str]
    _moved: dict[str, str]
    _openings: set[Opening]
    _people: KeyedLocks[str]
    _player_locks: KeyedLocks[str]
    _rematch_locks: KeyedLocks[str]
    _reminded: dict[str, tuple[float | None, Turn]]
    _seed_source: Callable[[], str]
    _timers: dict[str, Timers]
    _untold: dict[str, list[End]]
    _waiting: dict[str, set[str]]
    ai_level: str
    listeners: list[Listener]
    store: Store
    tables: dict[str, Table]
    timings: Timings
    untold_closed: dict[str, Table]

    if TYPE_CHECKING:  # methods one part calls on another (defined in the part named)
        # bot.service
        async def _act(
            self, user: UserRef, payload: str, chat: ChatRef | None, is_admin: bool = False
        ) -> Outcome: ...

        async def _after_lobby_change(self, table: Table) -> None: ...

        def _choice(self, table: Table, seat: int) -> tuple[Callable[[], int], list[int]]: ...

        async def _closed_table(self, table: Table, kind: str) -> None: ...

        def _forget_table(self, table: Table) -> None: ...

        async def _load(self, table_id: str) -> Table: ...

        async def _notify(
            self,
            table: Table,
            kind: str,
            events: tuple[Event, ...] = (),
            *,
            user: str | None = None,
            result: ResultView | None = None,
            version: int | None = None,
        ) -> None: ...

        async def _outcome(self, user: UserRef, coro: Coroutine[Any, Any, Outcome]) -> Outcome: ...

        async def _play(self, table: Table, entries: list[Entry], kind: str = "action") -> None: ...

        async def _redraw(self, table: Table) -> None: ...

        def _spawn(self, coro: Awaitable[Any], name: str) -> None: ...

        async def _to_completion(self, coro: Coroutine[Any, Any, _R]) -> _R: ...

        def lock(self, table_id: str) -> asyncio.Lock: ...

        def locked(
            self, tables: Iterable[Table]
        ) -> contextlib.AbstractAsyncContextManager[list[Table]]: ...

        def table_of(self, chat: str, user: str) -> Table | None: ...

        def tables_in(self, chat: str) -> list[Table]: ...

        def still_open(self, tables: Iterable[Table]) -> list[Table]: ...

        # bot.commits
        async def _commit(
            self,
            table: Table,
            entries: list[Entry],
            then: Callable[[Table], list[Entry]] | None = None,
            *,
            ops: Sequence[Op] = (),
        ) -> tuple[Event, ...]: ...

        async def _commit_tables(
            self,
            changes: Sequence[tuple[Table, list[Entry]]],
            then: Callable[[Table], list[Entry]] | None = None,
            *,
            ops: Sequence[Op] = (),
        ) -> list[tuple[Event, ...]]: ...

        # bot.clocks
        def _arm(self, table: Table) -> None: ...

        def _cancel_timers(self, table_id: str) -> None: ...

        def _deadline(self, table: Table) -> float | None: ...

        # bot.closing
        async def _close_if_abandoned(self, table: Table) -> None: ...
        async def _close_tables(self, table_ids: list[str], reason: str) -> list[str]: ...

        # bot.preferences
        def _chat_held(self, chat: str) -> contextlib.AbstractAsyncContextManager[None]: ...

        async def _carry_chat(
            self, old: str, new: str, tables: list[Table], chat_lang: str | None
        ) -> None: ...

        async def remember(self, user: UserRef) -> None: ...

        def player_op(self, user: UserRef) -> Op: ...

        async def reply_lang(self, user: UserRef | None, chat: ChatRef | None = None) -> str: ...

        async def settings(self, chat: ChatRef) -> ChatSettings: ...

        # bot.telling
        async def _tell_closed(self, platform: str) -> None: ...

        async def _tell_deal_ends(self, table: Table) -> None: ...

        # bot.queries
        def _style(self, table: Table, user: UserRef | None = None) -> Style: ...

        def _final_hands(self, table: Table) -> tuple[tuple[str, str, Message], ...]: ...

        def lobby(self, table_id: str, lang: str | None = None) -> LobbyView | None: ...
