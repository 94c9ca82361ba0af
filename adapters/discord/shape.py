"""What the `DiscordAdapter`'s parts share, declared once.

The adapter is a class made of mixins (`users`, `tables`, `listener`, `answers`,
`presses`, `hands`, `pings`, `outbox`, `losses`), each of which uses the adapter's
state and calls methods of the others.  `AdapterShape` is their one base: it
declares that state with its types and, for mypy only, a stub of every method one
part calls on another, so that mypy checks each part's use against it, and each real
method (an override of its stub) against its stub.  At run time it holds nothing: a stub there would hide the method it
stands for.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import discord

from adapters.recent import Recent
from bot.service import ChatRef, Outcome, TableService, TableUpdate, UserRef
from bot.turn_pings import TurnPings
from bot.views import HandView, Message

from . import render

if TYPE_CHECKING:
    from bot.table import Table

    from .client import AnyClient
    from .hands import _Live
    from .outbox import Op, _Outbox


class AdapterShape:
    """The state the `DiscordAdapter` sets up in ``__init__``, and the methods its parts
    call on each other (stubs, for mypy only)."""

    service: TableService
    client: AnyClient
    #: Seconds the core may take before a press or command is deferred.
    ack_budget: float
    #: Interactions whose first answer was cut after `ACK_TRY` and tried again: a slow
    #: answer may still have reached Discord, and then the retry meets 40060 (kept by
    #: id so that a test tells that refusal from an interaction answered twice; the
    #: last ones only, as for deliveries).
    answers_cut: Recent[int, None]
    #: How long an ephemeral hand is followed (its interaction token's life).
    live_ttl: float
    #: Seconds between the tries of a message Discord failed to take.
    retry_delays: tuple[float, ...]

    # --- where each table's messages are, and their queues (`outbox`) ----------------
    _channels: dict[str, int]  # table → the channel it plays in
    _in_dm: set[str]  # tables played in a DM (`DiscordAdapter._plays_in`)
    _refs: dict[str, dict[str, tuple[int, int]]]  # table → slot → message
    _shown: dict[tuple[str, str], render.Fingerprint]
    #: Per table: the channel's queue (lobby, table, notes: key "") and one per
    #: player's hand ("hand:<user>", "live:<user>"), each worked by its own task.
    _outboxes: dict[tuple[str, str], _Outbox]

    # --- the players and their hands (`hands`) -----------------------------------------
    #: The ephemeral hands still followed, by (table, user).
    _live: dict[tuple[str, str], _Live]
    #: User key → Discord locale: a player's, kept while seated, sets his hands'
    #: language; anyone else's is set again by their next interaction.
    _langs: Recent[str, str]
    _dm_channels: Recent[str, int]  # a miss: create_dm again
    #: Players whose DMs refused a hand: they play through "Show my hand".
    _dm_closed: Recent[str, None]
    #: (table, user) whose closed DMs the table's channel was told of.
    _dm_noted: set[tuple[str, str]]

    # --- turn pings (`pings`) ----------------------------------------------------------
    #: Turns that come after a wait ring by DM (`bot.turn_pings`); the DM ping of
    #: each (table, user) that shows, until he moves: (channel, message).
    _turn_pings: TurnPings
    _pings: dict[tuple[str, str], tuple[int, int]]
    #: The (table, user) whose standing ping is the channel's reminder: a DM ping
    #: that queued behind a slow edit of his hand meanwhile does not replace it.
    _reminded: set[tuple[str, str]]
    # the table's moves (deals, moves in its deal) when a player was reminded: any
    # move since was his, and ended the turn the reminder spoke of
    _reminded_at: dict[tuple[str, str], tuple[int, int]]
    #: One ping, reminder or delete of one (table, user) at a time: the reminder
    #: goes in the channel's queue, his pings in his own, and two sent at once
    #: would leave one standing for good.
    _ping_locks: dict[tuple[str, str], asyncio.Lock]

    # --- what was lost (`losses`) ------------------------------------------------------
    _lost: set[str]  # tables whose channel the bot may not use any more
    _closers: set[asyncio.Task[None]]  # closing them
    _down: set[int]  # shards without a gateway connection

    if TYPE_CHECKING:  # for mypy: each defined once, by the adapter or one of its parts
        # --- `adapter` -----------------------------------------------------------------

        def first_delivery(self, interaction: discord.Interaction[Any]) -> bool: ...

        def handling(self) -> contextlib.AbstractAsyncContextManager[None]: ...

        def _if_idle(self) -> None: ...

        # --- `users` -------------------------------------------------------------------

        def user(self, interaction: discord.Interaction[Any]) -> UserRef: ...

        async def who(
            self, interaction: discord.Interaction[Any], pressed: str | None = None
        ) -> UserRef: ...

        @staticmethod
        def chat(interaction: discord.Interaction[Any]) -> ChatRef: ...

        def forget_user(self, user: str) -> None: ...

        # --- `tables` ------------------------------------------------------------------

        async def opened(
            self, interaction: discord.Interaction[Any], table_id: str, lobby: Message
        ) -> None: ...

        async def _forget(self, table_id: str) -> None: ...

        # --- `listener` ----------------------------------------------------------------

        async def table_update(self, update: TableUpdate) -> None: ...

        def _table_lang(self, table_id: str) -> str | None: ...

        def _started(self, table_id: str, humans: list[str]) -> None: ...

        # --- `hands` -------------------------------------------------------------------

        def _with_hand(
            self, outcome: Outcome, table_id: str, user: UserRef, payload: str
        ) -> Outcome: ...

        async def _show_hand(
            self,
            interaction: discord.Interaction[Any],
            user: UserRef,
            hand: HandView,
            on_hand: bool,
            ephemeral_hand: bool,
        ) -> None: ...

        def _go_live(
            self,
            table_id: str,
            user: str,
            edit: Callable[[str, discord.ui.View | None], Awaitable[Any]],
        ) -> None: ...

        def _refresh_hand(self, table_id: str, user: str) -> None: ...

        async def _tell(self, user: str, op: Op) -> None: ...

        async def _final_live(self, table_id: str, user: str, msg: Message | None) -> None: ...

        async def _edit_live(self, table_id: str, user: str) -> None: ...

        async def _dm(self, user: str) -> int | None: ...

        async def _dms_closed(self, table_id: str, user: str) -> None: ...

        def _drop_live(self, key: tuple[str, str]) -> _Live | None: ...

        def _hand_note(
            self, table_id: str, user: str, table: Table | None, key: str
        ) -> Message: ...

        def _last_hands(self, table_id: str, humans: list[str]) -> None: ...

        def _left_hands(self, table_id: str, humans: list[str], table: Table | None) -> None: ...

        # --- `pings` -------------------------------------------------------------------

        def _ring(self, table_id: str, user: str, *, new: bool) -> None: ...

        def _moves(self, table_id: str) -> tuple[int, int] | None: ...

        def _unping_all(self, table_id: str, humans: list[str]) -> None: ...

        def _add_ping(self, table_id: str, user: str) -> None: ...

        async def _ping(self, table_id: str, op: Op) -> None: ...

        async def _remind(self, table_id: str, op: Op) -> None: ...

        async def _unping_op(self, table_id: str, user: str) -> None: ...

        # --- `outbox` ------------------------------------------------------------------

        def _add(self, table_id: str, op: Op) -> None: ...

        def _told(self, table_id: str, users: list[str], version: int) -> None: ...

        def _render(self, table_id: str, slot: str) -> Message | None: ...

        async def _send_note(self, table_id: str, op: Op) -> discord.Message: ...

        def _channel(self, channel_id: int) -> discord.PartialMessageable: ...

        async def _remember(
            self, table_id: str, slot: str, channel_id: int, message_id: int, msg: Message
        ) -> None: ...

        # --- `losses` ------------------------------------------------------------------

        def channel_lost(self, channel_id: int, why: str) -> None: ...
