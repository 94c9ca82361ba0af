"""The table service: every use case of the bot, for every platform.

Adapters translate platform input into calls here and render what comes back; the
service owns the rules of tables (lobby, seats, start, abort, resign), turns and
timers, AI seats, durability and results.  Its one entry point for button presses is
`act(user, payload)`.

`TableService` is put together from mixins, one module per group of use cases, all
sharing the state this module holds: `bot.lobbies` (opening a table, its lobby, a
rematch), `bot.closing` (votes, aborts, resigning), `bot.forgetting` (/forgetme),
`bot.preferences` (/settings, the language of answers), `bot.clocks` (timers, the
computer's turns, platforms out of reach), `bot.telling` (ends a kill kept from the
chat, told after the restart), `bot.queries` (what adapters draw) and `bot.commits`
(storing a change). What they share, the state this class sets up and the
methods one part calls on another, is declared once in `bot.service_shape`, a base of
every mixin, so mypy checks each part against it.

How a change happens (under the table's lock): decide the log entries, apply them to
the in-memory table, commit them to the store (with the table's new version), and only
then tell the listeners.  If the commit fails the table is rebuilt from the store, so
memory never runs ahead of what is durable.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterable
from typing import Any, TypeVar

from engine import protocol as P
from engine.errors import IllegalAction
from engine.events import Event, redact_all

from .ai_seats import choose_action
from .ai_workers import think_in_thread
from .clocks import Clocks
from .closing import Closing
from .commits import Commits
from .forgetting import Forgetting
from .i18n import norm_lang, supported_lang, t
from .lobbies import Lobbies
from .locks import KeyedLocks
from .payload import MENU_VERBS, SELF, Payload, PayloadError
from .payload import decode as decode_payload
from .ports import ChatRef, Listener, Outcome, TableUpdate, Timings, UserRef
from .preferences import Preferences
from .queries import TableQueries, explain
from .refusals import refuse
from .store import Store, StoreError
from .table import Entry, Status, Table
from .telling import Telling
from .told import log_failure
from .views import ResultView, hand_view, menu_valid

log = logging.getLogger(__name__)

__all__ = ["ChatRef", "Listener", "Outcome", "TableService", "TableUpdate", "Timings", "UserRef"]

_R = TypeVar("_R")


class TableService(
    Lobbies, Closing, Forgetting, Preferences, Clocks, Telling, TableQueries, Commits
):
    def __init__(
        self,
        store: Store,
        *,
        timings: Timings | None = None,
        ai_level: str = "strong",
        seed_source: Callable[[], str] | None = None,
        clock: Callable[[], float] = time.time,
        ai_runner: Callable[[Callable[[], int]], Awaitable[int]] | None = None,
    ) -> None:
        self.store = store
        self.timings = timings or Timings()
        self.ai_level = ai_level
        self.tables = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._timers = {}
        #: Table id -> the turn its player to act was reminded of (its deadline and
        #: `Table.turn`): reminded once, however often a change re-arms its timers.
        self._reminded = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self.listeners = []
        self._seed_source = seed_source or (lambda: secrets.token_hex(16))
        self._clock = clock
        self._ai_runner = ai_runner or think_in_thread
        self._player_locks: KeyedLocks[str] = KeyedLocks()  # a player's rating
        # a finished match's rematch: two presses at once open one lobby, not two
        self._rematch_locks = KeyedLocks()
        # a person's /forgetme and the tables he opens, one after the other
        self._people = KeyedLocks()
        self._claims = set()
        #: The /new and Rematch requests under way (`Lobbies._opening`).
        self._openings = set()
        #: Chat key -> its settings' lock (`Preferences._chat_held`), kept while in use.
        self._chat_locks: KeyedLocks[str] = KeyedLocks()
        self._work: set[asyncio.Task[Any]] = set()
        self._closed = False
        #: Chat keys that changed (a Telegram group upgraded): old key -> new key.
        self._moved = {}
        #: Platform -> tables waiting for that platform's listener: every table after
        #: a restart, and a person's turn while the platform is out of reach.
        self._waiting = {}
        #: Platforms out of reach (`hold`): their persons' turns wait until `listen`.
        self._held = set()
        #: Table id -> its ends stored but not known to be shown, told at `listen`
        #: (`bot.telling`).
        self._untold = {}
        #: Closed tables whose end waits for `listen` to be told: adapters restore
        #: their messages with those of the open tables.
        self.untold_closed = {}

    # --- lifecycle --------------------------------------------------------------------

    async def start(self) -> None:
        """Rebuild every open table from its log and re-arm its timers; find the
        ends (a deal's, a table's close) the last run stored and never showed."""
        await self.store.drop_refs_of_closed_tables()
        for row in await self.store.open_tables():
            try:
                log_entries = await self.store.table_log(row.id)
                table, ends = self._replay(row.id, log_entries, row.told)
            except IllegalAction as e:
                # a move the rules refuse (a damaged file, a rule changed under a
                # running match): no restart of this bot will ever rebuild it
                await self._unrestorable(row.id, row.version, e)
                continue
            except Exception as e:
                # a failing read, or our code (a regression, an older version that
                # meets a newer log): a fixed or newer bot may rebuild it, so it stays
                # open; the type only, as any message may quote a card
                log.error(
                    "table %s could not be rebuilt (%s); it is tried at the next start",
                    row.id,
                    type(e).__name__,
                )
                continue
            table.deadline = row.deadline
            self.tables[table.id] = table
            if ends:
                self._untold[table.id] = ends
            # Every table waits until its platform serves again (`listen`): a person's
            # clock, or a reminder would go to nobody and the time run out; and what
            # needs no one (a computer's move, a lobby's expiry, closing a table its
            # people left), or its news would reach no chat — and a computer's move
            # would start the next person's clock while he cannot press.  So does one
            # its people left (the bot stopped before it could close it): the chat
            # is told when `listen` arms it and it closes.
            self._wait_for_platform(table)
        await self._restore_untold()
        log.info("table service started with %d open table(s)", len(self.tables))

    async def _unrestorable(self, table_id: str, version: int, error: Exception) -> None:
        """Close a table whose log no longer replays.  The log line names the table
        and what went wrong, never the error's words: the rules' describe the hand
        ("you must follow suit (H)")."""
        why = error.code if isinstance(error, IllegalAction) else type(error).__name__
        try:
            await self.store.close_unrestorable(table_id, version)
        except Exception as e:
            log.error(
                "table %s could not be rebuilt (%s) nor closed (%s); it is tried at the next start",
                table_id,
                why,
                type(e).__name__,
            )
            return
        log.error("table %s could not be rebuilt (%s); it is closed, its log kept", table_id, why)

    async def stop(self) -> None:
        """Stop timers and cancel work in progress (what is stored stays stored)."""
        self._closed = True
        for timers in self._timers.values():
            timers.cancel()
        tasks = [*self._tasks, *self._work]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def _to_completion(self, coro: Coroutine[Any, Any, _R]) -> _R:
        """Run a change to its end even if the caller is cancelled.

        An adapter's handler may be cancelled (a platform timeout, a dropped
        connection) while its press is being stored.  Half a change — stored but
        never announced, no timer armed for the next seat — would leave the table
        stalled until a restart, so once started, a change finishes.
        """
        task = asyncio.ensure_future(coro)
        self._work.add(task)
        task.add_done_callback(self._work_done)
        return await asyncio.shield(task)

    async def _outcome(self, user: UserRef, coro: Coroutine[Any, Any, Outcome]) -> Outcome:
        """`_to_completion` for a person's request: a change the database would not
        take (full disk, another program's lock, after the store's own retries) was
        undone whole by `_commit`, so the person is told it did not go through and can
        try again — not left with an unanswered button or a crashed terminal."""
        try:
            return await self._to_completion(coro)
        except StoreError:
            return refuse(norm_lang(user.speaks), "not_saved")

    def _work_done(self, task: asyncio.Task[Any]) -> None:
        self._work.discard(task)
        if not task.cancelled():
            task.exception()  # the caller has it, if still there; _commit logged it

    async def _load(self, table_id: str) -> Table:
        return Table.from_log(table_id, await self.store.table_log(table_id))

    def lock(self, table_id: str) -> asyncio.Lock:
        """The table's lock.  Only an open table keeps one: whoever comes for a table
        that closed while he awaited (the computer's move after the host resigned, a
        language change for a chat whose other table just ended) gets a lock of his
        own, finds the table gone and gives up.  Kept, that lock would stay for the
        life of the process, one per such table."""
        lk = self._locks.get(table_id)
        if lk is None:
            lk = asyncio.Lock()
            if table_id in self.tables:
                self._locks[table_id] = lk
        return lk

    @contextlib.asynccontextmanager
    async def locked(self, tables: Iterable[Table]) -> AsyncIterator[list[Table]]:
        """Hold several tables' locks, taken in one order (by id), as every holder of
        several takes them, so that two cannot deadlock; the tables in that order."""
        ordered = sorted(tables, key=lambda tb: tb.id)
        async with contextlib.AsyncExitStack() as held:
            for tb in ordered:
                await held.enter_async_context(self.lock(tb.id))
            yield ordered

    def _spawn(self, coro: Awaitable[Any], name: str) -> None:
        task: asyncio.Task[Any] = asyncio.ensure_future(coro)
        task.set_name(name)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        error = None if task.cancelled() else task.exception()
        if error is not None and not isinstance(error, StoreError):  # _commit said why
            log_failure(log, error, "background task %s failed", task.get_name())

    # --- a chat's tables --------------------------------------------------------------

    def tables_in(self, chat: str) -> list[Table]:
        return [tb for tb in self.tables.values() if tb.chat == chat]

    def still_open(self, tables: Iterable[Table]) -> list[Table]:
        """Those of `tables` still open: none closed (or read back anew) since they
        were looked up, before a lock was had."""
        return [tb for tb in tables if self.tables.get(tb.id) is tb]

    def table_of(self, chat: str, user: str) -> Table | None:
        for tb in self.tables_in(chat):
            if tb.seat_of(user) is not None:
                return tb
        return None

    # --- the one entry point for presses ----------------------------------------------

    async def act(
        self, user: UserRef, payload: str, chat: ChatRef | None = None, *, is_admin: bool = False
    ) -> Outcome:
        """Handle one button press.  Refusals change nothing and go to `user` only.

        `chat`: where the pressed message is, as the platform says (None: the
        adapter cannot tell, as at the terminal).  A client may send any payload
        from any message (Telegram's callback data, a Discord custom_id), so a Join
        counts only from the table's own chat: a stranger to the group cannot seat
        himself by forging one in his private chat.  `is_admin`: the presser
        administers `chat` (the adapter checked; only "Rematch" asks, where only admins
        may open tables)."""
        return await self._outcome(user, self._act(user, payload, chat, is_admin))

    async def _act(
        self, user: UserRef, payload: str, chat: ChatRef | None, is_admin: bool = False
    ) -> Outcome:
        lang = supported_lang(user.speaks) or await self.press_lang(payload, chat)
        try:
            p = decode_payload(payload)
        except PayloadError:
            return refuse(lang, "malformed")
        if p.table == SELF:  # the presser's own: /forgetme's confirmation
            return await self._forget(user)
        if p.verb == "re":  # its table is closed: the rematch reads it from the store
            return await self._rematch(user, p, chat, is_admin)
        table = self.tables.get(p.table)
        if table is None or user.platform != table.platform:
            return refuse(lang, "unknown_table")  # another platform's: not his to see
        if p.verb == "j" and chat is not None and chat.key != table.chat:
            return refuse(lang, "join_in_chat")
        async with self.lock(table.id):
            if self.tables.get(table.id) is not table:
                return refuse(lang, "unknown_table")
            if table.unsaved:  # its last change is not stored and not undone yet
                return refuse(lang, "not_saved")
            return await self._act_locked(table, user, p, lang)

    async def _act_locked(self, table: Table, user: UserRef, p: Payload, lang: str) -> Outcome:
        if p.is_game_action:
            return await self._game_action(table, user, p, lang)
        if p.verb in MENU_VERBS:
            return await self._menu(table, user, p, lang)
        handler = _TABLE_VERBS.get(p.verb)
        if handler is None:  # pragma: no cover - the codec only makes known verbs
            return refuse(lang, "malformed")
        return await handler(self, table, user, p, lang)

    async def _game_action(self, table: Table, user: UserRef, p: Payload, lang: str) -> Outcome:
        if table.status != Status.PLAYING or table.deal is None or table.deal_log is None:
            return refuse(lang, "not_playing")
        seat = table.seat_of(user.key)
        if seat is None:
            return refuse(lang, "not_seated")
        if p.version != table.version:
            # the computer moved for him since this button was sent (his time ran
            # out) and he has not played himself since: say so, not merely that the
            # button is old
            s = table.seats[seat]
            late = s is not None and s.missed > 0 and s.timed_out_at > p.version
            return refuse(lang, "too_late" if late else "stale")
        if table.to_act() != seat:
            return refuse(lang, "not_your_turn")
        assert p.arg is not None
        code = p.arg
        if code not in table.deal.legal():
            reason = explain(table, seat, code, lang)
            return Outcome(False, t(lang, "refuse.illegal", reason=reason), "illegal")
        entries: list[Entry] = []
        s = table.seats[seat]
        back = s is not None and s.replaced
        if back:
            entries.append({"k": "back", "seat": seat})  # acting takes the seat back
        entries.append({"k": "act", "seat": seat, "code": code, "by": "p"})
        await self._play(table, entries)
        if back and table.id in self.tables:
            await self._notify(table, "back", user=user.key)
        return Outcome(True, table_id=table.id)

    async def _menu(self, table: Table, user: UserRef, p: Payload, lang: str) -> Outcome:
        seat = table.seat_of(user.key)
        if seat is None:
            return refuse(lang, "not_seated")
        if p.version != table.version:
            return refuse(lang, "stale")
        assert p.arg is not None
        if table.to_act() != seat:
            return refuse(lang, "not_your_turn")
        if not menu_valid(table, seat, (p.verb, p.arg)):
            return refuse(lang, "malformed")
        what = table.computer_move(seat)
        if what is not None:
            # his hand says any of his buttons takes the seat back (or, his time run
            # out, plays the rest of the turn himself): a page of bids or a card
            # picked for a discard too, or the computer would act meanwhile and the
            # pick he makes next would come too late
            await self._commit(table, [{"k": "back", "seat": seat}])
            await self._notify(table, "action")
        if what == "ai":  # a seat the computer held, not a turn it was finishing
            await self._notify(table, "back", user=user.key)
        hv = hand_view(table, user.key, self._style(table, user), (p.verb, p.arg))
        return Outcome(True, table_id=table.id, hand=hv)

    # --- other table verbs (a lobby's: bot.lobbies; votes, resigning: bot.closing) ----

    async def _rules(self, table: Table, user: UserRef, p: Payload, lang: str) -> Outcome:
        from .rules_text import rules_summary

        return Outcome(True, rules_summary(table.game, lang, table.options_json), "rules")

    async def _show_hand(self, table: Table, user: UserRef, p: Payload, lang: str) -> Outcome:
        hv = hand_view(table, user.key, self._style(table, user))
        if hv is None:
            return refuse(lang, "not_seated")
        return Outcome(True, table_id=table.id, hand=hv, code="hand")

    async def _take_back(self, table: Table, user: UserRef, p: Payload, lang: str) -> Outcome:
        seat = table.seat_of(user.key)
        if seat is None:
            return refuse(lang, "not_seated")
        s = table.seats[seat]
        if s is None or s.ai is None:
            # the group's button is for another (Berti's seat is the computer's): say whose
            away = [x.name for x in table.seats if x is not None and x.user and x.replaced]
            if away:
                return refuse(lang, "not_replaced_others", names=", ".join(away))
            return refuse(lang, "not_replaced")
        await self._commit(table, [{"k": "back", "seat": seat}])
        await self._notify(table, "action")
        await self._notify(table, "back", user=user.key)
        return Outcome(True, table_id=table.id)

    # --- a chat that changed its id ---------------------------------------------------

    async def move_chat(self, old: ChatRef, new: ChatRef) -> list[str]:
        """The platform gave a chat a new id (a Telegram group upgraded to a
        supergroup): its open tables, settings, results and chat leaderboard move to
        the new key, in memory and in the store.  Returns the ids of the open tables
        moved; a second call for the same chat finds nothing left to move.  Where the
        new chat has settings of its own, the old chat's fill in what it never set, and
        the tables speak the language the two give together (`_carry_chat`)."""
        return await self._to_completion(self._move_chat(old.key, new.key, new.lang))

    async def _move_chat(self, old: str, new: str, chat_lang: str | None = None) -> list[str]:
        if old == new:
            return []
        # A table being opened in the old chat right now follows on its own (`_open`
        # reads this after storing it); one stored already is caught by the loop.
        self._moved[old] = new
        tables: list[Table] = []
        while True:
            # Both chats' settings locks (`_chat_held`): nothing is opened in either, and
            # no setting saved or switched, while the key changes; a /settings change
            # under way in the old chat is waited for and moves with it, a /new's table
            # follows (`_open`).  The tables' locks keep their commits out: a finished
            # match writes its results and chat rating under the key it reads.
            async with self._chat_locks.hold([old, new]), self.locked(self.tables_in(old)) as now:
                live = self.still_open(now)
                await self._carry_chat(old, new, live, chat_lang)
            tables += live
            if not self.tables_in(old):
                break
        moved = [tb.id for tb in self.still_open(tables)]
        if moved:
            log.info("moved %d open table(s) from chat %s to %s", len(moved), old, new)
        return moved

    async def _play(self, table: Table, entries: list[Entry], kind: str = "action") -> None:
        """Commit game entries (dealing the next deal when one ends), notify, re-arm."""
        deals_before = len(table.deal_points)
        result: list[ResultView | None] = [None]

        def next_deal(tb: Table) -> list[Entry]:
            if len(tb.deal_points) > deals_before or tb.status == Status.FINISHED:
                # the hands as this deal left them, before the next is dealt (a
                # restart draws a result it never showed the same way: `_replay`)
                result[0] = self._end_result(tb)
            if tb.status == Status.PLAYING and (tb.deal is None or result[0] is not None):
                return [{"k": "deal", "seed": self._seed_source()}]
            return []

        events = await self._commit(table, entries, then=next_deal)
        public = redact_all(events, None)
        if table.status == Status.FINISHED:
            await self._notify(table, "finished", public, result=result[0])
            self._forget_table(table)
            return
        if table.abandoned() is not None:
            # the last person's turns ran out with this move (or so the votes now
            # carry): the table closes with it, not after a picture that offers him
            # a seat back, nor a deal's result that counts for nothing.  The move is
            # stored: a close that fails to be is tried again (`_arm`), and whoever
            # made the move is not told it failed.
            with contextlib.suppress(StoreError):
                await self._close_if_abandoned(table)
            return
        if result[0] is not None:
            await self._notify(table, "deal_end", public, result=result[0])
            await self._notify(table, "started")
        else:
            await self._notify(table, kind, public)

    async def _after_lobby_change(self, table: Table) -> None:
        if table.status == Status.ABORTED:
            await self._closed_table(table, "aborted")
        else:
            await self._notify(table, "lobby")

    async def _redraw(self, table: Table) -> None:
        """Draw a table's messages again after a change that is not a move (a vote,
        its language): the buttons players hold carry the new version."""
        await self._notify(table, "action" if table.status == Status.PLAYING else "lobby")

    async def _closed_table(self, table: Table, kind: str) -> None:
        await self._notify(table, kind)
        self._forget_table(table)

    def _forget_table(self, table: Table) -> None:
        self._cancel_timers(table.id)
        self.tables.pop(table.id, None)
        self._locks.pop(table.id, None)
        for waiting in self._waiting.values():  # its platform may never come back
            waiting.discard(table.id)

    async def _notify(
        self,
        table: Table,
        kind: str,
        events: tuple[Event, ...] = (),
        *,
        user: str | None = None,
        result: ResultView | None = None,
        version: int | None = None,
    ) -> None:
        """`version`: of an end told again after a restart (the table moved on since)."""
        at = table.version if version is None else version
        update = TableUpdate(table.id, table.chat, table.platform, at, kind, events, user, result)
        for listener in list(self.listeners):
            try:
                await listener.table_update(update)
            except Exception:
                log.exception("a listener failed on table %s (%s)", table.id, kind)

    # --- the computer (its timers: bot.clocks) ----------------------------------------

    def _choice(self, table: Table, seat: int) -> tuple[Callable[[], int], list[int]]:
        """The computer's decision for `seat` (an AI seat, or a player who timed out),
        to run off the table's lock (it holds a view and the legal codes only, and
        pickles, for a worker process: `bot.ai_workers`), and those legal codes."""
        # here, not in bot.clocks with its caller: tests patch bot.service.choose_action
        assert table.deal is not None
        s = table.seats[seat]
        level = (s.ai if s is not None and s.ai else None) or table.settings.get(
            "ai_level", self.ai_level
        )
        dseat = table.deal_seat(seat)
        assert dseat is not None
        view = P.view(table.deal, dseat)
        legal = table.deal.legal()
        rng_seed = f"{table.id}:{table.version}"
        return functools.partial(choose_action, level, view, legal, rng_seed), legal


_TABLE_VERBS: dict[
    str, Callable[[TableService, Table, UserRef, Payload, str], Awaitable[Outcome]]
] = {
    "j": TableService._join,
    "l": TableService._leave,
    "ai": TableService._add_ai,
    "rm": TableService._remove_ai,
    "s": TableService._sit,
    "st": TableService._start,
    "ru": TableService._rules,
    "h": TableService._show_hand,
    "tb": TableService._take_back,
    "ab": TableService._vote_abort,
    "rs": TableService._resign_press,
}
