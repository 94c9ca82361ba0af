"""The table service: every use case of the bot, for every platform.

Adapters translate platform input into calls here and render what comes back; the
service owns the rules of tables (lobby, seats, start, abort, resign), turns and
timers, AI seats, durability and results.  Its one entry point for button presses is
`act(user, payload)`.

How a change happens (under the table's lock): decide the log entries, apply them to
the in-memory table, commit them to the store (with the table's new version), and only
then tell the listeners.  If the commit fails the table is rebuilt from the store, so
memory never runs ahead of what is durable.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import logging
import random
import secrets
import sqlite3
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from engine import protocol as P
from engine.actions import Action, decode
from engine.errors import IllegalAction, OptionError
from engine.events import Event, redact_all
from engine.games import GAME_MODULES, UnknownGame, game
from engine.protocol import GameSpec

from . import results as R
from .ai_seats import choose_action
from .ai_workers import think_in_thread
from .i18n import (
    LANGUAGES,
    TEXTS,
    game_key,
    game_name,
    norm_lang,
    option_error,
    preset_name,
    preset_named,
    supported_lang,
    t,
    typed,
)
from .locks import KeyedLocks
from .payload import MENU_VERBS, SELF, Payload, PayloadError, self_verb, table_verb
from .payload import decode as decode_payload
from .payload import parsed as parsed_payload
from .ports import ChatRef, Listener, Outcome, TableUpdate, Timings, UserRef
from .settings import (
    ChatSettings,
    SettingError,
    chat_language,
    rule_options,
    setting_key,
    shown_value,
)
from .store import Store, StoreError
from .table import Entry, Status, Table, seat_count
from .views import (
    HandView,
    LobbyView,
    Message,
    ResultView,
    Style,
    TableView,
    deal_result_view,
    hand_view,
    lobby_view,
    menu_valid,
    setting_line,
    table_view,
)

log = logging.getLogger(__name__)

__all__ = ["ChatRef", "Listener", "Outcome", "TableService", "TableUpdate", "Timings", "UserRef"]

_R = TypeVar("_R")

#: Seconds after a change that could not be stored before the table's timers try again.
RETRY_AFTER_FAILED_WRITE = 1.0


@dataclass
class _Timers:
    handles: list[asyncio.TimerHandle] = field(default_factory=list)

    def cancel(self) -> None:
        for h in self.handles:
            h.cancel()
        self.handles.clear()


def _table_style(table: Table, lang: str) -> Style:
    """How a table is written for a reader of `lang`: its card pictures and how much
    of the tricks it shows are the table's settings."""
    return Style(lang, table.settings.get("suits", "french"), table.settings.get("tricks", "table"))


def _computer_name(table: Table) -> str:
    """ "Computer n" with the lowest n no seat is called: names must tell the seats
    apart (a computer removed and another added must not give two "Computer 2")."""
    taken = {s.name for s in table.seats if s is not None}
    n = 1
    while (name := t(table.settings.get("lang"), "ai.name", n=n)) in taken:
        n += 1
    return name


def _rated_clause(table: Table, seat: int, lang: str) -> str:
    """ ", and it counts on the leaderboard" where resigning costs rating: a person
    plays on another side (against computers alone no match is rated)."""
    side = table.side(seat)
    playing = set(table.present())  # one who walked away loses too: no rating then
    rated = any(
        s is not None and s.user in playing and table.side(i) != side
        for i, s in enumerate(table.seats)
    )
    return t(lang, "resign.rated") if rated else ""


def _refuse(lang: str | None, key: str, **kw: Any) -> Outcome:
    return Outcome(False, t(lang, f"refuse.{key}", **kw), key)


class TableService:
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
        self.tables: dict[str, Table] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._timers: dict[str, _Timers] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self.listeners: list[Listener] = []
        self._seed_source = seed_source or (lambda: secrets.token_hex(16))
        self._clock = clock
        self._ai_runner = ai_runner or think_in_thread
        self._player_locks: KeyedLocks[str] = KeyedLocks()  # a player's rating
        # a finished match's rematch: two presses at once open one lobby, not two
        self._rematch_locks: KeyedLocks[str] = KeyedLocks()
        # a person's /forgetme and the tables he opens, one after the other
        self._people: KeyedLocks[str] = KeyedLocks()
        self._claims: set[tuple[str, str]] = set()
        self._settings_lock = asyncio.Lock()
        self._work: set[asyncio.Task[Any]] = set()
        self._closed = False
        #: Chat keys that changed (a Telegram group upgraded): old key -> new key.
        self._moved: dict[str, str] = {}
        #: Platform -> tables waiting for that platform's listener: every table after
        #: a restart, and a person's turn while the platform is out of reach.
        self._waiting: dict[str, set[str]] = {}
        #: Platforms out of reach (`hold`): their persons' turns wait until `listen`.
        self._held: set[str] = set()

    # --- lifecycle -------------------------------------------------------------------

    async def start(self) -> None:
        """Rebuild every open table from its log and re-arm its timers."""
        await self.store.drop_refs_of_closed_tables()
        for row in await self.store.open_tables():
            try:
                table = Table.from_log(row.id, await self.store.table_log(row.id))
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
            # Every table waits until its platform serves again (`listen`): a person's
            # clock, or a reminder would go to nobody and the time run out; and what
            # needs no one (a computer's move, a lobby's expiry, closing a table its
            # people left), or its news would reach no chat — and a computer's move
            # would start the next person's clock while he cannot press.  So does one
            # its people left (the bot stopped before it could close it): the chat
            # is told when `listen` arms it and it closes.
            self._wait_for_platform(table)
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

    async def listen(self, listener: Listener, platform: str) -> None:
        """Add an adapter's listener once it can deliver, and arm the tables of its
        platform that waited since the restart (or a person's turn since `hold`).  The downtime is not the
        player's: a turn that ran out, or nearly, while the bot was down or the
        platform unreachable gets the reminder's time from now, stored, and the
        reminder goes out at once."""
        if listener not in self.listeners:
            self.listeners.append(listener)
        self._held.discard(platform)
        for table_id in sorted(self._waiting.pop(platform, ())):
            table = self.tables.get(table_id)
            if table is None:
                continue
            async with self.lock(table_id):
                if self.tables.get(table_id) is not table:
                    continue
                grace = self._after_downtime(table)
                if grace is not None:
                    try:
                        await self.store.set_deadline(table.id, grace)
                    except Exception:
                        log.exception("table %s: could not store the new deadline", table_id)
                    table.deadline = grace
                self._arm(table)
                if grace is not None and self._remind_window(table) > 0:
                    self._fire(table.id, table.version, "remind")

    def hold(self, platform: str) -> None:
        """Stop the clocks of the persons' turns of a platform that cannot be reached
        (its outage, or the bot's network down), until `listen` starts them again with
        the grace of a restart.  A press that cannot reach the bot is not the player's
        fault: without this his turn would time out, his late press be refused, and
        his seat go to the computer.  Computer turns and lobby expiry go on."""
        self._held.add(platform)
        for table in list(self.tables.values()):
            if table.platform == platform and table.deadline is not None:
                self._arm(table)  # a person's turn: it waits, armed by `listen`

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
            return _refuse(norm_lang(user.speaks), "not_saved")

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

    def _spawn(self, coro: Awaitable[Any], name: str) -> None:
        task: asyncio.Task[Any] = asyncio.ensure_future(coro)
        task.set_name(name)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        error = None if task.cancelled() else task.exception()
        if error is not None and not isinstance(error, StoreError):  # _commit said why
            log.error("background task %s failed", task.get_name(), exc_info=error)

    # --- settings and users ----------------------------------------------------------

    async def settings(self, chat: ChatRef) -> ChatSettings:
        return ChatSettings.from_json(await self.store.chat_settings(chat.key))

    async def update_setting(
        self, chat: ChatRef, user: UserRef, key: str, value: str, *, is_admin: bool
    ) -> Outcome:
        lang = await self.reply_lang(user, chat)
        if not is_admin:
            return _refuse(lang, "not_admin")
        async with self._settings_lock:  # read-modify-write: two admins lose nothing
            current = await self.settings(chat)
            try:
                updated = current.with_value(key, value)
            except SettingError as e:
                return _refuse(lang, "bad_setting", error=e.text(lang))
            await self.store.save_chat_settings(chat.key, updated.to_json())
        speaks = chat_language(updated, chat.lang)
        if speaks != chat_language(current, chat.lang):
            # the chat's tables speak its language: the running ones switch now too
            for table in self.tables_in(chat.key):
                await self._speak(table, speaks)
        # what is now in force, as /settings shows it ("ai_level = heuristic" for
        # "Heuristic", "turn_timeout = 90 s", "preset.dreier = default (standard)")
        found = setting_line(
            updated,
            lang,
            setting_key(key),  # "thousand.players" was saved as "tausend.players"
            turn_timeout=self.timings.turn_timeout,
            ai_level=self.ai_level,
            chat_lang=chat.lang,
        )
        name, now = found if found is not None else (key, value)
        text = t(lang, "settings.saved", key=name, value=now)
        open_now = len(self.tables_in(chat.key))
        if open_now and setting_key(key) != "language":
            # a table keeps what it was opened with (its record says so); only the
            # language follows the chat
            text += "\n" + t(lang, "settings.saved_later", n=open_now)
        return Outcome(True, text)

    async def reply_lang(self, user: UserRef | None, chat: ChatRef | None = None) -> str:
        """The language to answer `user` in: his own where we speak it, else the
        chat's (a reader without one, or with one we lack, reads the chat's)."""
        if user is not None and (own := supported_lang(user.speaks)) is not None:
            return own
        if chat is not None:
            return chat_language(await self.settings(chat), chat.lang)
        return "en"

    async def reader(
        self, user: UserRef, chat: ChatRef | None, pressed: str | None = None
    ) -> UserRef:
        """`user` as answers address him: in his own language where we speak it, else
        (`UserRef.reads`, never stored as his) in the chat's for a command typed there,
        or for a press (`pressed`, its payload) in its table's — a hand's buttons are
        in a private chat or DM, which has no language of its own."""
        if user.speaks:
            return user
        if pressed is None:
            reads = await self.reply_lang(None, chat)
        else:
            reads = await self.press_lang(pressed, chat)
        return dataclasses.replace(user, reads=reads)

    async def press_lang(self, payload: str, chat: ChatRef | None) -> str:
        """The language a press is answered in for one whose own we lack: its table's
        (a hand's buttons are pressed in a private chat, which has none of its own),
        else its chat's."""
        p = parsed_payload(payload)
        table = self.tables.get(p.table) if p is not None else None
        if table is not None:
            return str(table.settings.get("lang", "en"))
        return await self.reply_lang(None, chat)

    async def remember(self, user: UserRef) -> None:
        await self.store.save_player(
            user.key, user.account_name or user.name, supported_lang(user.lang)
        )

    # --- creating tables -------------------------------------------------------------

    def tables_in(self, chat: str) -> list[Table]:
        return [tb for tb in self.tables.values() if tb.chat == chat]

    def table_of(self, chat: str, user: str) -> Table | None:
        for tb in self.tables_in(chat):
            if tb.seat_of(user) is not None:
                return tb
        return None

    def _seated_elsewhere(self, lang: str, chat: str, user: str) -> Outcome:
        """One seat per player per chat: the refusal names the table he has."""
        table = self.table_of(chat, user)
        if table is None:  # the one he is opening right now
            return _refuse(lang, "seated_elsewhere")
        text = t(lang, "refuse.seated_elsewhere_at", table=table.id)
        return Outcome(False, text, "seated_elsewhere")

    def _seated_in(self, chat: str, user: str) -> bool:
        """One seat per player per chat: a seat, or a table being opened right now."""
        return (chat, user) in self._claims or self.table_of(chat, user) is not None

    async def create_table(
        self,
        chat: ChatRef,
        host: UserRef,
        game_id: str,
        *,
        preset: str | None = None,
        options: dict[str, Any] | None = None,
        is_admin: bool = False,
    ) -> Outcome:
        """Open a lobby in `chat` with `host` in the first seat."""
        return await self._outcome(
            host, self._create_table(chat, host, game_id, preset, options, is_admin)
        )

    async def _create_table(
        self,
        chat: ChatRef,
        host: UserRef,
        game_id: str,
        preset: str | None,
        options: dict[str, Any] | None,
        is_admin: bool,
        rematch: Table | None = None,
    ) -> Outcome:
        lang = await self.reply_lang(host, chat)
        settings = await self.settings(chat)
        if settings.starters == "admins" and not is_admin:
            return _refuse(lang, "not_allowed_to_start")
        try:
            spec = game(game_id)
        except UnknownGame:
            # "/new auto_claim=off": an option where the game belongs
            why = "game_first" if "=" in game_id else "unknown_game"
            return _refuse(lang, why, game=typed(game_id), games=", ".join(GAME_MODULES))
        # A preset the host names wins over the chat's single options; the chat's own
        # default preset is the base its options refine.
        named = preset is not None
        # a preset's id as typed ("All_Contracts"), as /settings takes it, or its name
        # for players ("Alle Spiele")
        if preset is not None:
            preset = preset_named(preset, tuple(spec.presets)) or (preset.strip().lower() or None)
        preset = preset or settings.presets.get(game_id)
        if preset and preset not in spec.presets:
            return _refuse(
                lang,
                "unknown_preset",
                preset=typed(preset),
                presets=", ".join(spec.presets) or "—",
            )
        chosen = spec.presets[preset] if preset else {}
        chat_options = settings.options.get(game_id, {})
        raw: dict[str, Any] = {**chat_options, **chosen} if named else {**chosen, **chat_options}
        raw.update(rule_options(game_id, options or {}))
        try:
            opts = spec.parse_options(raw)
        except OptionError as e:
            return _refuse(lang, "bad_options", error=option_error(lang, e))
        if settings.rules == "fixed" and (named or options):
            # house rules: a table plays the chat's, whatever the host names; naming
            # the house preset again is the house rules (its options refine it then)
            house = settings.presets.get(game_id)
            base = {**(spec.presets[house] if house else {}), **chat_options}
            if preset == house:
                raw = {**base, **rule_options(game_id, options or {})}
                try:
                    opts = spec.parse_options(raw)
                except OptionError as e:
                    return _refuse(lang, "bad_options", error=option_error(lang, e))
            if opts != spec.parse_options(base):
                # what the house rules are, and the way to play them: on Discord the
                # members cannot see /settings, so "see the settings" would not do
                lg = norm_lang(lang)
                named_rules = [preset_name(house, lg)] if house else []
                named_rules += [
                    f"{k.removeprefix(game_id + '.')}={shown_value(v, lg)}"
                    for k, v in chat_options.items()
                ]
                house_text = ", ".join(named_rules) or t(lang, "rules.game_standard")
                return _refuse(lang, "rules_fixed", game=game_name(game_id, lang), house=house_text)
        if self._seated_in(chat.key, host.key):
            return self._seated_elsewhere(lang, chat.key, host.key)
        # Opening a table awaits the store before the host is seated: hold the claim
        # so a concurrent join or open by the same person in this chat is refused.
        claim = (chat.key, host.key)
        self._claims.add(claim)
        try:
            # not while his /forgetme runs: the table's row names him as its host
            # before the table is in memory, where the deletion would look for it
            async with self._people.hold([host.key]):
                return await self._open(
                    chat, host, game_id, spec, opts, raw, preset, settings, rematch
                )
        finally:
            self._claims.discard(claim)

    async def _open(
        self,
        chat: ChatRef,
        host: UserRef,
        game_id: str,
        spec: GameSpec,
        opts: Any,
        raw: dict[str, Any],
        preset: str | None,
        settings: ChatSettings,
        rematch: Table | None = None,
    ) -> Outcome:
        await self.remember(host)
        create: Entry = {
            "k": "create",
            "chat": chat.key,
            "platform": chat.platform,
            "game": game_id,
            "options": raw,
            "preset": preset,
            "host": host.key,
            "at": self._clock(),
            # the chat's name as the platform gave it: hands name it, for a player may
            # sit at tables in several chats and get all his hands in one private chat
            "place": chat.title,
            "settings": {
                "turn_timeout": settings.turn_timeout or self.timings.turn_timeout,
                "ai_level": settings.ai_level or self.ai_level,
                "lang": chat_language(settings, chat.lang),
                "suits": settings.suits,
                "tricks": settings.tricks,
            },
        }
        if rematch is not None:
            create["rematch"] = rematch.id
        table_id = await self.store.create_table(chat.key, game_id, create)
        table = Table(table_id, create)
        moved_to = self._moved.get(chat.key)
        if moved_to is not None:
            # the chat changed its id while this table was being stored: follow it
            await self.store.move_chat(chat.key, moved_to)
            table.chat = moved_to
        assert seat_count(spec, opts) == table.players
        self.tables[table_id] = table
        async with self.lock(table_id):
            entries: list[Entry] = [{"k": "join", "seat": 0, "user": host.key, "name": host.name}]
            if rematch is not None and rematch.players == table.players:
                # the match's computers come back too (the people join again), where
                # they sat as seen from the host: Bauern's partners stay partners
                level = table.settings.get("ai_level", self.ai_level)
                me = rematch.seat_of(host.key) or 0
                for i, s in enumerate(rematch.seats):
                    seat = (i - me) % table.players
                    if s is not None and s.is_computer and seat:
                        entries.append({"k": "ai", "seat": seat, "name": s.name, "level": level})
            try:
                await self._commit(table, entries)
            except StoreError:
                # The host was told it failed: no empty lobby may stay behind (nobody
                # could close it but an admin).  If even that cannot be stored, the
                # lobby expires as any unstarted one does.
                with contextlib.suppress(StoreError):
                    stored = self.tables.get(table_id)
                    if stored is not None:
                        await self._commit(stored, [{"k": "abort", "reason": "empty"}])
                        self._forget_table(stored)
                raise
            await self._notify(table, "lobby")
        return Outcome(True, table_id=table_id, lobby=self.lobby(table_id))

    # --- the one entry point for presses ---------------------------------------------

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
            return _refuse(lang, "malformed")
        if p.table == SELF:  # the presser's own: /forgetme's confirmation
            return await self._forget(user)
        if p.verb == "re":  # its table is closed: the rematch reads it from the store
            return await self._rematch(user, p, chat, is_admin)
        table = self.tables.get(p.table)
        if table is None or user.platform != table.platform:
            return _refuse(lang, "unknown_table")  # another platform's: not his to see
        if p.verb == "j" and chat is not None and chat.key != table.chat:
            return _refuse(lang, "join_in_chat")
        async with self.lock(table.id):
            if self.tables.get(table.id) is not table:
                return _refuse(lang, "unknown_table")
            if table.unsaved:  # its last change is not stored and not undone yet
                return _refuse(lang, "not_saved")
            return await self._act_locked(table, user, p, lang)

    async def _act_locked(self, table: Table, user: UserRef, p: Payload, lang: str) -> Outcome:
        if p.is_game_action:
            return await self._game_action(table, user, p, lang)
        if p.verb in MENU_VERBS:
            return await self._menu(table, user, p, lang)
        handler = _TABLE_VERBS.get(p.verb)
        if handler is None:  # pragma: no cover - the codec only makes known verbs
            return _refuse(lang, "malformed")
        return await handler(self, table, user, p, lang)

    async def _game_action(self, table: Table, user: UserRef, p: Payload, lang: str) -> Outcome:
        if table.status != Status.PLAYING or table.deal is None or table.deal_log is None:
            return _refuse(lang, "not_playing")
        seat = table.seat_of(user.key)
        if seat is None:
            return _refuse(lang, "not_seated")
        if p.version != table.version:
            # the computer moved for him since this button was sent (his time ran
            # out) and he has not played himself since: say so, not merely that the
            # button is old
            s = table.seats[seat]
            late = s is not None and s.missed > 0 and s.timed_out_at > p.version
            return _refuse(lang, "too_late" if late else "stale")
        if table.to_act() != seat:
            return _refuse(lang, "not_your_turn")
        assert p.arg is not None
        code = p.arg
        if code not in table.deal.legal():
            reason = _explain(table, seat, code, lang)
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

    async def _rematch(
        self, user: UserRef, p: Payload, chat: ChatRef | None, is_admin: bool
    ) -> Outcome:
        """ "Rematch" under a finished match: a lobby for the same game and rules in the
        same chat, its computers seated again, the presser its host; a press of another
        of its players while that lobby is open seats him there instead of opening a
        second one.  Only its players may ask (anyone may /new), and only from its
        chat: the button is public on Telegram, its payload easily sent elsewhere."""
        lang = await self.reply_lang(user, chat)
        row = await self.store.table_row(p.table)
        if row is None or row.status != Status.FINISHED.value:
            return _refuse(lang, "unknown_table")
        if not row.chat.startswith(user.platform + ":"):
            return _refuse(lang, "unknown_table")  # another platform's: not his to see
        if chat is None or chat.key != row.chat:
            return _refuse(lang, "rematch_in_chat")
        old = Table.from_log(row.id, await self.store.table_log(row.id))
        mine = old.seat_of(user.key)
        if mine is None:
            return _refuse(lang, "rematch_players_only", table=old.id)
        async with self._rematch_locks.hold([old.id]):
            waiting = next(
                (
                    tb
                    for tb in self.tables_in(chat.key)
                    if tb.rematch_of == old.id and tb.status == Status.LOBBY
                ),
                None,
            )
            if waiting is not None:
                if waiting.seat_of(user.key) is not None:
                    # which table: a Telegram player who cannot get his hand gets the
                    # link to the private chat again, as on Join
                    seated = _refuse(lang, "already_seated")
                    return dataclasses.replace(seated, table_id=waiting.id)
                joined = await self._act(user, table_verb(waiting.id, waiting.version, "j"), chat)
                # then his old seat as seen from where its host sits now, if free:
                # Bauern's partners sit together again, whoever presses first
                was, now = old.seat_of(waiting.host), waiting.seat_of(waiting.host)
                if joined.ok and was is not None and now is not None:
                    seat = (now + mine - was) % waiting.players
                    if waiting.seat_of(user.key) != seat and waiting.seats[seat] is None:
                        sit = table_verb(waiting.id, waiting.version, "s", seat)
                        # the join is stored and stands: a sit that is not is no failure
                        with contextlib.suppress(StoreError):
                            await self._act(user, sit, chat)
                return joined
            # the match's own options, every one of them: a chat's defaults changed
            # since must not change the rules (or the seats) of its rematch
            options = dict(old.options_json)
            opened = await self._create_table(
                chat, user, old.game, old.preset, options, is_admin, old
            )
            # the adapter shows the new lobby, as after /new
            return dataclasses.replace(opened, code="rematch") if opened.ok else opened

    async def _menu(self, table: Table, user: UserRef, p: Payload, lang: str) -> Outcome:
        seat = table.seat_of(user.key)
        if seat is None:
            return _refuse(lang, "not_seated")
        if p.version != table.version:
            return _refuse(lang, "stale")
        assert p.arg is not None
        if table.to_act() != seat:
            return _refuse(lang, "not_your_turn")
        if not menu_valid(table, seat, (p.verb, p.arg)):
            return _refuse(lang, "malformed")
        s = table.seats[seat]
        if s is not None and s.replaced:
            # his hand says any of his buttons takes the seat back: a page of bids or
            # a card picked for a discard too, or the computer would act meanwhile
            await self._commit(table, [{"k": "back", "seat": seat}])
            await self._notify(table, "action")
            await self._notify(table, "back", user=user.key)
        hv = hand_view(table, user.key, self._style(table, user), (p.verb, p.arg))
        return Outcome(True, table_id=table.id, hand=hv)

    # --- table verbs -------------------------------------------------------------------

    async def _join(
        self, table: Table, user: UserRef, p: Payload, lang: str, at: int | None = None
    ) -> Outcome:
        """Join, in the first free seat or at `at` (a free Bauern seat pressed)."""
        if table.status != Status.LOBBY:
            return _refuse(lang, "not_in_lobby")
        if table.seat_of(user.key) is not None:
            return _refuse(lang, "already_seated")
        if self._seated_in(table.chat, user.key):
            return self._seated_elsewhere(lang, table.chat, user.key)
        free = [i for i, s in enumerate(table.seats) if s is None]
        if not free:
            return _refuse(lang, "table_full")
        seat = free[0] if at is None else at
        if seat not in free:
            return _refuse(lang, "seat_taken")
        # no await between the checks above and the seat taken in memory (`_commit`
        # applies before it stores), so two joins in one chat cannot both pass
        await self._commit(
            table, [{"k": "join", "seat": seat, "user": user.key, "name": user.name}]
        )
        try:
            await self.remember(user)
        except StoreError:  # the seat is stored (with his name): the join stands
            log.warning("could not store a joining player's name and language")
        await self._notify(table, "lobby")
        return Outcome(True, table_id=table.id)

    async def _leave(self, table: Table, user: UserRef, p: Payload, lang: str) -> Outcome:
        seat = table.seat_of(user.key)
        if seat is None:
            return _refuse(lang, "not_seated")
        if table.status != Status.LOBBY:
            return _refuse(lang, "not_in_lobby")
        entries: list[Entry] = [{"k": "leave", "seat": seat}]
        remaining = [u for u in table.humans() if u != user.key]
        if not remaining:
            entries.append({"k": "abort", "reason": "empty"})
        elif table.host == user.key:
            entries.append({"k": "host", "user": remaining[0]})
        await self._commit(table, entries)
        await self._after_lobby_change(table)
        return Outcome(True, table_id=table.id)

    def _onlooker(self, table: Table, user: UserRef, lang: str) -> Outcome:
        """A lobby's onlooker pressing what its players may: told to Join first where
        Join would seat him, else only that he does not play here."""
        if table.is_full() or self._seated_in(table.chat, user.key):
            return _refuse(lang, "not_seated")
        # the button as the lobby labels it, in the table's language (not the reader's)
        join = t(table.settings.get("lang"), "button.join")
        return _refuse(lang, "lobby_players_only", join=join)

    async def _add_ai(self, table: Table, user: UserRef, p: Payload, lang: str) -> Outcome:
        if table.status != Status.LOBBY:
            return _refuse(lang, "not_in_lobby")
        if table.seat_of(user.key) is None:
            return self._onlooker(table, user, lang)
        if p.version != table.version:  # a double tap: the first one seated a computer
            return _refuse(lang, "stale")
        free = [i for i, s in enumerate(table.seats) if s is None]
        if not free:
            return _refuse(lang, "table_full")
        name = _computer_name(table)
        level = table.settings.get("ai_level", self.ai_level)
        await self._commit(table, [{"k": "ai", "seat": free[0], "name": name, "level": level}])
        await self._notify(table, "lobby")
        return Outcome(True, table_id=table.id)

    async def _remove_ai(self, table: Table, user: UserRef, p: Payload, lang: str) -> Outcome:
        if table.status != Status.LOBBY:
            return _refuse(lang, "not_in_lobby")
        if table.seat_of(user.key) is None:
            return self._onlooker(table, user, lang)
        seat = p.arg if p.arg is not None else -1
        if not (0 <= seat < table.players) or (s := table.seats[seat]) is None:
            return _refuse(lang, "no_ai_seat")
        if s.user is not None:
            # a person: only the host may send him away (one who never started the
            # bot on Telegram, or who went away, would otherwise block the start) —
            # and only from a current lobby: the seat may have changed hands since
            if p.version != table.version:
                return _refuse(lang, "stale")
            if s.user == table.host:
                return _refuse(lang, "no_ai_seat")  # the host leaves with Leave
            if user.key != table.host:
                return _refuse(lang, "not_host", host=table.host_name() or "?")
        await self._commit(table, [{"k": "leave", "seat": seat}])
        await self._notify(table, "lobby")
        return Outcome(True, table_id=table.id)

    async def _sit(self, table: Table, user: UserRef, p: Payload, lang: str) -> Outcome:
        if table.status != Status.LOBBY:
            return _refuse(lang, "not_in_lobby")
        seat = table.seat_of(user.key)
        to = p.arg if p.arg is not None else -1
        if seat is None:
            # a free seat pressed by one not yet at the table: he joins in that seat
            # (as Join would seat him, greeted alike: the adapters see "joined")
            if not 0 <= to < table.players:
                return _refuse(lang, "seat_taken")
            joined = await self._join(table, user, p, lang, at=to)
            return dataclasses.replace(joined, code="joined") if joined.ok else joined
        if not 0 <= to < table.players or table.seats[to] is not None:
            return _refuse(lang, "seat_taken")
        await self._commit(table, [{"k": "sit", "from": seat, "to": to}])
        await self._notify(table, "lobby")
        return Outcome(True, table_id=table.id)

    async def _start(self, table: Table, user: UserRef, p: Payload, lang: str) -> Outcome:
        if table.status != Status.LOBBY:
            return _refuse(lang, "not_in_lobby")
        if user.key != table.host:
            return _refuse(lang, "not_host", host=table.host_name() or "?")
        if not table.is_full():
            return _refuse(lang, "not_full")
        # The first dealer is drawn like a seed (from `secrets` unless a test injects a
        # deterministic source), so a table's whole history follows from its seeds.
        dealer = int(self._seed_source(), 16) % table.players
        await self._play(table, [{"k": "start", "dealer": dealer}], kind="started")
        return Outcome(True, table_id=table.id)

    async def _rules(self, table: Table, user: UserRef, p: Payload, lang: str) -> Outcome:
        from .rules_text import rules_summary

        return Outcome(True, rules_summary(table.game, lang, table.options_json), "rules")

    async def _show_hand(self, table: Table, user: UserRef, p: Payload, lang: str) -> Outcome:
        hv = hand_view(table, user.key, self._style(table, user))
        if hv is None:
            return _refuse(lang, "not_seated")
        return Outcome(True, table_id=table.id, hand=hv, code="hand")

    async def _take_back(self, table: Table, user: UserRef, p: Payload, lang: str) -> Outcome:
        seat = table.seat_of(user.key)
        if seat is None:
            return _refuse(lang, "not_seated")
        s = table.seats[seat]
        if s is None or s.ai is None:
            # the group's button is for another (Berti's seat is the computer's): say whose
            away = [x.name for x in table.seats if x is not None and x.user and x.replaced]
            if away:
                return _refuse(lang, "not_replaced_others", names=", ".join(away))
            return _refuse(lang, "not_replaced")
        await self._commit(table, [{"k": "back", "seat": seat}])
        await self._notify(table, "action")
        await self._notify(table, "back", user=user.key)
        return Outcome(True, table_id=table.id)

    async def _vote_abort(self, table: Table, user: UserRef, p: Payload, lang: str) -> Outcome:
        if table.seat_of(user.key) is None:
            return _refuse(lang, "not_seated")
        if table.status == Status.LOBBY:
            # before the start the host closes a lobby, and anyone else may leave it;
            # a vote kept from there would count in the match (one more would close it)
            return Outcome(
                False,
                t(lang, "refuse.vote_in_lobby", host=table.host_name() or "—"),
                "vote_in_lobby",
            )
        if p.version < table.deal_from:
            # "Close the table too" pressed as the deal it was drawn in ended: that
            # vote lapsed with its deal, and a press must not open a new one alone
            return _refuse(lang, "vote_lapsed")
        if user.key not in table.present():
            # one who walked away does not vote (he might be the only one left to
            # count): a losing player could skip his turns and wipe the match
            return _refuse(lang, "vote_when_away")
        votes = len(table.abort_votes() | {user.key})
        needed = table.votes_needed()
        if user.key in table.votes:  # pressed again: counted already, nothing to store
            return Outcome(True, t(lang, "ok.voted", votes=votes, needed=needed), table_id=table.id)
        entries: list[Entry] = [{"k": "vote", "user": user.key}]
        if votes >= needed and table.walked_out():
            return await self._end_walked_out(table, entries, lang)
        if votes >= needed:
            entries.append({"k": "abort", "reason": "vote"})
        await self._commit(table, entries)
        if table.status == Status.ABORTED:
            await self._closed_table(table, "aborted")
            return Outcome(True, table_id=table.id)
        # The vote is a new version of the table: every message is drawn again, so
        # the buttons players see stay current and the channel sees the vote.
        await self._redraw(table)
        return Outcome(True, t(lang, "ok.voted", votes=votes, needed=needed), table_id=table.id)

    async def _end_walked_out(
        self, table: Table, entries: list[Entry], lang: str | None = None
    ) -> Outcome:
        """Those still playing close a match others walked out of: it ends counted,
        the walkers' sides losing (`Table.walked_out`)."""
        await self._play(table, [*entries, {"k": "end", "reason": "walked_away"}])
        said = t(lang, "ok.ended_walked_away", table=table.id) if lang else None
        return Outcome(True, said, "ended", table.id)

    # --- commands without a payload --------------------------------------------------

    async def abort(
        self,
        chat: ChatRef,
        user: UserRef,
        *,
        is_admin: bool = False,
        table_id: str | None = None,
    ) -> Outcome:
        """The host closes his table in the lobby, or when he is its only human still
        playing; in a running match with other humans his abort is a vote like
        anyone's, so a host who is losing cannot wipe the match off the record
        (`/resign` concedes).  Those whose seats the computer took over do not vote.

        A chat's admin (the adapter checked) closes any table of the chat he does not
        sit at — an abandoned game, a spam lobby — naming it by `table_id` when the
        chat has several."""
        return await self._outcome(user, self._abort(chat, user, is_admin, table_id))

    async def _abort(
        self, chat: ChatRef, user: UserRef, is_admin: bool, table_id: str | None
    ) -> Outcome:
        lang = await self.reply_lang(user, chat)
        in_chat = self.tables_in(chat.key)
        if table_id is not None:
            table_id = table_id.strip().lower()  # ids are lowercase base 36, as typed
        if table_id:
            table = next((tb for tb in in_chat if tb.id == table_id), None)
            if table is None and is_admin:  # a typo: say which tables there are
                # (to an admin only: a server's tables may be in channels others
                # cannot see)
                ids = ", ".join(tb.id for tb in in_chat) or "—"
                return _refuse(lang, "no_such_table", table=table_id, tables=ids)
        else:
            table = self.table_of(chat.key, user.key)
            if table is None and is_admin and len(in_chat) > 1:
                ids = ", ".join(tb.id for tb in in_chat)
                return Outcome(False, t(lang, "refuse.which_table", tables=ids), "which_table")
            if table is None and is_admin and in_chat:
                table = in_chat[0]
        # a table he named is named in the refusal (whether there is one he does not
        # play at is not said: a server's tables may be in channels he cannot see)
        none = (
            _refuse(lang, "no_table_named", table=typed(table_id))
            if table_id
            else _refuse(lang, "no_table")
        )
        if table is None:
            return none
        async with self.lock(table.id):
            if self.tables.get(table.id) is not table:
                return none  # it closed meanwhile
            if table.seat_of(user.key) is None:
                if not is_admin:
                    return none  # or they left meanwhile
                await self._commit(table, [{"k": "abort", "reason": "admin"}])
                await self._closed_table(table, "aborted")
                return Outcome(True, table_id=table.id)
            alone = table.present() == [user.key]
            if alone and table.walked_out():
                return await self._end_walked_out(table, [], lang)
            if table.host == user.key and (table.status == Status.LOBBY or alone):
                await self._commit(table, [{"k": "abort", "reason": "host"}])
                await self._closed_table(table, "aborted")
                return Outcome(True, table_id=table.id)
            return await self._vote_abort(table, user, Payload(table.id, table.version, "ab"), lang)

    async def close_chat(self, chat: ChatRef, reason: str) -> list[str]:
        """The platform took the chat from the bot (removed from a group, no longer
        allowed to post there): its open tables close as an abort closes them, with
        `reason`, for nobody could see them or stop them any more — left open, the
        computer would play the absent players' turns to the end and score a match
        nobody saw.  Returns the ids closed; a second call finds nothing."""
        return await self.close_tables([tb.id for tb in self.tables_in(chat.key)], reason)

    async def close_tables(self, table_ids: Iterable[str], reason: str) -> list[str]:
        """`close_chat` for some of a chat's tables (a Discord server keeps its other
        channels when the bot loses one)."""
        return await self._to_completion(self._close_tables(sorted(table_ids), reason))

    async def _close_tables(self, table_ids: list[str], reason: str) -> list[str]:
        closed: list[str] = []
        for table in [tb for tid in table_ids if (tb := self.tables.get(tid)) is not None]:
            async with self.lock(table.id):
                if self.tables.get(table.id) is not table:
                    continue  # it closed meanwhile
                await self._commit(table, [{"k": "abort", "reason": reason}])
                await self._closed_table(table, "aborted")
                closed.append(table.id)
        return closed

    async def set_table_language(self, table_id: str, user: UserRef, lang: str) -> Outcome:
        """A player at the table makes it speak `lang` from now on (its table and
        result messages): the terminal resuming a game under another locale."""
        return await self._outcome(user, self._set_table_language(table_id, user, lang))

    async def _set_table_language(self, table_id: str, user: UserRef, lang: str) -> Outcome:
        lang = norm_lang(lang)
        table = self.tables.get(table_id)
        if table is None or table.seat_of(user.key) is None:
            return _refuse(lang, "no_table")
        await self._speak(table, lang)
        return Outcome(True, table_id=table.id)

    async def _speak(self, table: Table, lang: str) -> None:
        """Make a table speak `lang` from its next message on (a `lang` log entry)."""
        async with self.lock(table.id):
            if self.tables.get(table.id) is not table or table.settings.get("lang") == lang:
                return
            await self._commit(table, [{"k": "lang", "lang": lang}])
            await self._redraw(table)

    async def resign(self, chat: ChatRef, user: UserRef, *, ask: bool = False) -> Outcome:
        """Concede the match: the resigner (and partner) lose it; the others win.

        `ask`: only ask first (/resign typed, where a slip would cost a match): the
        answer's `confirm` button, bound to his seat, resigns (`_resign_press`)."""
        return await self._outcome(user, self._resign(chat, user, ask))

    async def _resign(self, chat: ChatRef, user: UserRef, ask: bool) -> Outcome:
        lang = await self.reply_lang(user, chat)
        table = self.table_of(chat.key, user.key)
        if table is None:
            return _refuse(lang, "no_table")
        async with self.lock(table.id):
            seat = table.seat_of(user.key)
            if self.tables.get(table.id) is not table or seat is None:
                return _refuse(lang, "no_table")  # it closed, or they left, meanwhile
            if ask:
                refused = _not_resignable(table, lang)
                if refused is not None:
                    return refused
                label = t(lang, "button.resign")
                payload = table_verb(table.id, table.version, "rs", seat)
                return Outcome(
                    True,
                    t(
                        lang,
                        game_key("confirm.resign", table.game),
                        table=table.id,
                        rated=_rated_clause(table, seat, lang),
                    ),
                    "confirm",
                    table.id,
                    confirm=(label, payload),
                )
            return await self._resign_seat(table, seat, lang)

    async def _resign_press(self, table: Table, user: UserRef, p: Payload, lang: str) -> Outcome:
        """The confirmation of /resign: valid while that match runs, for its asker
        only (on Telegram the group sees the button too)."""
        seat = table.seat_of(user.key)
        if seat is None:
            return _refuse(lang, "not_seated")
        if p.arg != seat:
            return _refuse(lang, "not_your_button")
        return await self._resign_seat(table, seat, lang)

    async def _resign_seat(self, table: Table, seat: int, lang: str) -> Outcome:
        refused = _not_resignable(table, lang)
        if refused is not None:
            return refused
        rated = _rated_clause(table, seat, lang)  # before the table is scored and gone
        await self._play(table, [{"k": "resign", "seat": seat}])
        said = t(lang, game_key("ok.resigned", table.game), rated=rated)
        return Outcome(True, said, "resigned", table.id)

    async def forget(self, user: UserRef, *, ask: bool = False) -> Outcome:
        """Delete a user's data; seats they hold are played on by the computer.

        `ask`: only ask first; the answer's `confirm` button deletes (whoever presses
        it deletes his own: adapters show it to the asker alone)."""
        if ask:
            lang = norm_lang(user.speaks)
            playing = sum(1 for tb in self.tables.values() if tb.seat_of(user.key) is not None)
            key = "confirm.forget_playing" if playing else "confirm.forget"
            confirm = (t(lang, "button.forget"), self_verb("fg"))
            return Outcome(True, t(lang, key), "confirm", confirm=confirm)
        return await self._outcome(user, self._forget(user))

    async def _forget(self, user: UserRef) -> Outcome:
        async with self._people.hold([user.key]):
            return await self._forget_now(user)

    async def _forget_now(self, user: UserRef) -> Outcome:
        lang = norm_lang(user.speaks)
        handed = False  # a seat of his given up and stored
        for table in list(self.tables.values()):
            if table.seat_of(user.key) is None:
                continue
            async with self.lock(table.id):
                seat = table.seat_of(user.key)
                if self.tables.get(table.id) is not table or seat is None:
                    continue  # it closed, or he left, while an earlier table was stored
                if table.status == Status.LOBBY:
                    entries: list[Entry] = [{"k": "leave", "seat": seat}]
                    rest = [u for u in table.humans() if u != user.key]
                    if not rest:
                        entries.append({"k": "abort", "reason": "empty"})
                    elif table.host == user.key:
                        entries.append({"k": "host", "user": rest[0]})
                    await self._commit(table, entries)
                    handed = True
                    await self._after_lobby_change(table)
                else:
                    name = _computer_name(table)
                    level = table.settings.get("ai_level", self.ai_level)
                    entries = [
                        {
                            "k": "forget",
                            "seat": seat,
                            "user": user.key,
                            "name": name,
                            "level": level,
                        }
                    ]
                    # those still playing: one the computer replaced walked away
                    rest = [u for u in table.present() if u != user.key]
                    if not rest:
                        # nobody is left to play or to stop it: close, do not let
                        # computers play on in the chat to the end of the match
                        entries.append({"k": "abort", "reason": "empty"})
                    elif table.host == user.key:
                        entries.append({"k": "host", "user": rest[0]})
                    await self._commit(table, entries)
                    handed = True
                    if table.status == Status.ABORTED:
                        await self._closed_table(table, "aborted")
                    else:
                        await self._notify(table, "action")

        def seated_now() -> set[str]:
            return {tb.id for tb in self.tables.values() if tb.seat_of(user.key) is not None}

        try:
            await R.forget_player(self.store, user.key, seated_now)
        except StoreError:
            if not handed:
                raise  # nothing changed: "that did not go through", as for any press
            # his seats are handed over and stored (and stay so): only the deletion
            # failed, which a second /forgetme does, and he must know which it was
            return Outcome(False, t(lang, "forget.partly"), "not_saved")
        return Outcome(True, t(lang, "forget.done"), "forgotten")

    # --- views for adapters ----------------------------------------------------------

    def _style(self, table: Table, user: UserRef | None = None) -> Style:
        own = supported_lang(user.lang) if user is not None else None
        lang = own or table.settings.get("lang", "en")
        return _table_style(table, lang)

    def _final_hands(self, table: Table) -> tuple[tuple[str, str, Message], ...]:
        out = []
        for user in table.humans():
            for lang in LANGUAGES:
                hand = hand_view(table, user, _table_style(table, lang))
                if hand is not None:
                    out.append((user, lang, hand.message))
        return tuple(out)

    def style_for(self, table_id: str, user_lang: str | None = None) -> Style:
        table = self.tables[table_id]
        lang = supported_lang(user_lang) or table.settings.get("lang", "en")
        return _table_style(table, lang)

    def _drawable(self, table_id: str) -> Table | None:
        """The table to draw, or None: gone, or changed in memory and not stored yet
        (`Table.unsaved`).  An adapter that draws outside the table's lock (a queued
        edit rendered when it is sent, a private /start) then draws nothing, and the
        change's own update, or the reload's after a failed write, draws it."""
        table = self.tables.get(table_id)
        return None if table is None or table.unsaved else table

    def lobby(self, table_id: str, lang: str | None = None) -> LobbyView | None:
        table = self._drawable(table_id)
        if table is None:
            return None
        return lobby_view(
            table, self.style_for(table_id, lang), int(self.timings.lobby_expiry // 60)
        )

    def table(self, table_id: str, lang: str | None = None) -> TableView | None:
        table = self._drawable(table_id)
        return None if table is None else table_view(table, self.style_for(table_id, lang))

    def hand(self, table_id: str, user: str, lang: str | None = None) -> HandView | None:
        table = self._drawable(table_id)
        if table is None:
            return None
        return hand_view(table, user, self.style_for(table_id, lang))

    def why_not(self, table_id: str, user: str, code: int, lang: str | None = None) -> str | None:
        """Why the rules refuse `user` the action `code` now, in his words, as the
        refusal of a pressed button would say it, without pressing (the terminal's
        typed card); None when they allow it or it is not his turn."""
        table = self.tables.get(table_id)
        seat = table.seat_of(user) if table is not None else None
        if table is None or table.deal is None or seat is None or table.to_act() != seat:
            return None
        if code in table.deal.legal():
            return None
        return _explain(table, seat, code, norm_lang(lang))

    def his_turn(self, table_id: str, user: str) -> bool:
        """Whether it is `user`'s turn and he plays it himself (not the computer for
        him, after his turns ran out): what makes a turn ring (`bot.turn_pings`),
        read from the table, with no hand drawn for it."""
        table = self.tables.get(table_id)
        if table is None or user not in table.present():
            return False
        seat = table.seat_of(user)
        return seat is not None and table.to_act() == seat

    def seat_users(self, table_id: str) -> list[str]:
        table = self.tables.get(table_id)
        return [] if table is None else table.humans()

    # --- a chat that changed its id --------------------------------------------------

    async def move_chat(self, old: ChatRef, new: ChatRef) -> list[str]:
        """The platform gave a chat a new id (a Telegram group upgraded to a
        supergroup): its open tables, settings, results and chat leaderboard move to
        the new key, in memory and in the store.  Returns the ids of the open tables
        moved; a second call for the same chat finds nothing left to move."""
        return await self._to_completion(self._move_chat(old.key, new.key))

    async def _move_chat(self, old: str, new: str) -> list[str]:
        if old == new:
            return []
        # A table being opened in the old chat right now follows on its own (`_open`
        # reads this after storing it); one stored already is caught by the loop.
        self._moved[old] = new
        tables: list[Table] = []
        while True:
            # The tables' locks keep their commits out while the key changes: a
            # finished match writes its results and chat rating under the key it reads.
            async with self._settings_lock, contextlib.AsyncExitStack() as held:
                now = sorted(self.tables_in(old), key=lambda tb: tb.id)
                for tb in now:
                    await held.enter_async_context(self.lock(tb.id))
                await self.store.move_chat(old, new)
                for tb in now:
                    tb.chat = new
            tables += now
            if not self.tables_in(old):
                break
        moved = [tb.id for tb in tables if self.tables.get(tb.id) is tb]
        if moved:
            log.info("moved %d open table(s) from chat %s to %s", len(moved), old, new)
        return moved

    # --- the heart: committing changes -------------------------------------------------

    async def _commit(
        self,
        table: Table,
        entries: list[Entry],
        then: Callable[[Table], list[Entry]] | None = None,
    ) -> tuple[Event, ...]:
        """Apply entries in memory, then make them durable; rebuild on failure.

        `then` may add follow-up entries after seeing the applied state (the next
        deal's seed when a deal ended); they are applied and stored in the same
        transaction, so a crash can never leave a scored deal without its successor.
        """
        if table.unsaved:  # a failed write's table not read back yet: nothing to build on
            raise StoreError(f"table {table.id} is not read back from the store yet")
        first = table.version + 1
        status_before = table.status
        turn_before = _turn_key(table)
        events: list[Event] = []
        entries = list(entries)
        try:
            table.unsaved = True
            for e in entries:
                events.extend(table.apply(e))
            if then is not None:
                more = then(table)
                for e in more:
                    events.extend(table.apply(e))
                entries.extend(more)
            if table.deadline is None or _turn_key(table) != turn_before:
                # a new turn gets a new deadline; a vote or a seat change elsewhere
                # does not give the player to act more time
                table.deadline = self._deadline(table)
            finishing = status_before != Status.FINISHED and table.status == Status.FINISHED
            # A finished match reads its players' ratings and writes new ones: matches
            # sharing a player go one at a time, each durable before the next reads,
            # or two matches of one player ending at once would lose an update.
            players = table.humans() if finishing else []
            async with self._player_locks.hold(players):
                ops = await R.result_ops(self, table, status_before)
                await self.store.append(
                    table.id,
                    first,
                    entries,
                    status=str(table.status),
                    deadline=table.deadline,
                    ops=ops,
                )
            table.unsaved = False
            # Every change re-arms the table's timers: they are keyed to its version,
            # so a timer of an older version (a join, a vote since) would do nothing.
            if table.status in (Status.LOBBY, Status.PLAYING):
                self._arm(table)
            else:
                self._cancel_timers(table.id)
        except Exception as e:
            # the database, not a bug (a full disk, another program's lock): one line
            known = isinstance(e, StoreError)
            log.error(
                "could not store a change of table %s (%s); reloading it",
                table.id,
                e if known else type(e).__name__,
                exc_info=not known,
            )
            if await self._reload(table.id) and first > 2:
                # what was drawn outside the lock meanwhile was skipped: draw the
                # table as stored (not one whose host could not even be seated: it
                # was never shown, and its opener closes it)
                await self._notify(table, "lobby" if table.status == Status.LOBBY else "action")
            raise
        except asyncio.CancelledError:
            # cancelled while the write was under way (a stop): whether it went in,
            # only the store can say; read the table back rather than leave it unsaved
            if table.unsaved and not self._closed:
                self._spawn(self._reload_later(table.id), f"reload {table.id}")
            raise
        return tuple(events)

    async def _reload(self, table_id: str) -> bool:
        """After a change that could not be stored: the table as stored (memory is
        never ahead of the disk), with its turn's deadline, and its timers armed
        again after a pause.  A computer's move, a timeout or an expiry whose change
        failed is tried again then, instead of the table stalling until a restart;
        the pause keeps a failing disk from being hammered.

        If the store cannot even be read, the table stays as it is, unsaved (nothing
        drawn from it, no change built on it: a press is told it was not saved), and
        the reading is tried again after the pause.  False then."""
        try:
            table = await self._load(table_id)
            row = await self.store.table_row(table_id)
        except (StoreError, sqlite3.Error, OSError) as e:
            log.error(
                "could not read table %s back from the store (%s); trying again",
                table_id,
                type(e).__name__,
            )
            self._spawn(self._reload_later(table_id), f"reload {table_id}")
            return False
        except Exception as e:  # its log no longer replays (a bug): as at a start
            log.error("table %s cannot be rebuilt from its log (%s)", table_id, type(e).__name__)
            self.tables.pop(table_id, None)
            self._cancel_timers(table_id)
            return False
        table.deadline = row.deadline if row is not None else None
        current = self.tables.get(table_id)
        if current is not None:
            current.reset_to(table)  # those waiting for its lock hold this object
            table = current
        else:  # pragma: no cover - a failed change keeps its table open
            self.tables[table_id] = table

        def retry() -> None:
            if self.tables.get(table_id) is table:
                self._arm(table)

        timers = self._timers.setdefault(table_id, _Timers())  # those armed still count
        loop = asyncio.get_running_loop()
        timers.handles.append(loop.call_later(RETRY_AFTER_FAILED_WRITE, retry))
        return True

    async def _reload_later(self, table_id: str) -> None:
        """`_reload` once more, after the pause, for a table the store could not
        give back; then it is drawn as stored."""
        await asyncio.sleep(RETRY_AFTER_FAILED_WRITE)
        async with self.lock(table_id):
            table = self.tables.get(table_id)
            if self._closed or table is None or not table.unsaved:
                return
            if await self._reload(table_id):
                kind = "lobby" if table.status == Status.LOBBY else "action"
                await self._notify(table, kind)

    def _after_downtime(self, table: Table) -> float | None:
        """A new deadline for a turn that ran out, or nearly, while the bot was down
        (None: the stored one stands).  The downtime is not the player's: he gets a
        reminder at once and the reminder's time to move, not an instant computer
        move and a missed turn counted against him."""
        if table.deadline is None:
            return None
        # Without reminders the reminder's time is nothing: half a turn instead, or the
        # timeout would fire the moment the platform is back.
        timeout = float(table.settings.get("turn_timeout", self.timings.turn_timeout))
        least = self._clock() + (self._remind_window(table) or timeout / 2)
        return least if table.deadline < least else None

    def _remind_window(self, table: Table) -> float:
        """How long before the deadline the player is reminded: `reminder_before`, or
        half of a chat's shorter turn timeout."""
        timeout = float(table.settings.get("turn_timeout", self.timings.turn_timeout))
        return min(self.timings.reminder_before, timeout / 2)

    def seconds_left(self, table_id: str) -> int:
        """Whole seconds until the turn at a table times out (0 without a deadline):
        what a reminder tells the player, by the core's clock."""
        table = self.tables.get(table_id)
        if table is None or table.deadline is None:
            return 0
        return max(0, round(table.deadline - self._clock()))

    def _deadline(self, table: Table) -> float | None:
        seat = table.to_act()
        if seat is None:
            return None
        s = table.seats[seat]
        if s is None or not s.human_playing:
            return None
        return self._clock() + float(table.settings.get("turn_timeout", self.timings.turn_timeout))

    async def _play(self, table: Table, entries: list[Entry], kind: str = "action") -> None:
        """Commit game entries (dealing the next deal when one ends), notify, re-arm."""
        deals_before = len(table.deal_points)
        result: list[ResultView | None] = [None]

        def next_deal(tb: Table) -> list[Entry]:
            if len(tb.deal_points) > deals_before or tb.status == Status.FINISHED:
                result[0] = deal_result_view(tb, self._style(tb))
                if result[0] is not None:
                    # the hands as this deal left them, before the next is dealt
                    result[0] = dataclasses.replace(result[0], hands=self._final_hands(tb))
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
    ) -> None:
        update = TableUpdate(
            table.id, table.chat, table.platform, table.version, kind, events, user, result
        )
        for listener in list(self.listeners):
            try:
                await listener.table_update(update)
            except Exception:
                log.exception("a listener failed on table %s (%s)", table.id, kind)

    # --- timers and the computer -----------------------------------------------------

    def _cancel_timers(self, table_id: str) -> None:
        timers = self._timers.pop(table_id, None)
        if timers is not None:
            timers.cancel()

    def _arm(self, table: Table) -> None:
        """Schedule what happens next at this table without a human pressing."""
        if self._closed:
            return
        self._cancel_timers(table.id)
        timers = self._timers[table.id] = _Timers()
        loop = asyncio.get_running_loop()
        version = table.version
        if table.status == Status.LOBBY:
            at = table.created_at + self.timings.lobby_expiry
            delay = max(0.0, at - self._clock())
            timers.handles.append(loop.call_later(delay, self._fire, table.id, version, "expire"))
            return
        if table.abandoned() is not None:
            # its people left, or voted it closed, and closing it did not happen then
            # (the write failed, or the bot stopped in between): it closes now
            timers.handles.append(loop.call_later(0, self._fire, table.id, version, "close"))
            return
        seat = table.to_act()
        if seat is None:
            return
        s = table.seats[seat]
        if s is None:
            return
        if not s.human_playing:
            timers.handles.append(
                loop.call_later(self.timings.ai_delay, self._fire, table.id, version, "ai")
            )
            return
        if self._held_turn(table):
            return
        timeout = float(table.settings.get("turn_timeout", self.timings.turn_timeout))
        deadline = table.deadline or (self._clock() + timeout)
        now = self._clock()
        # a chat's short turn timeout still gets its reminder, half-way through; one
        # due now was sent already (or is sent by `listen`, after a restart)
        window = self._remind_window(table)
        remind_at = deadline - window
        if window > 0 and remind_at > now + 0.001:  # 0: no reminders
            timers.handles.append(
                loop.call_later(remind_at - now, self._fire, table.id, version, "remind")
            )
        timers.handles.append(
            loop.call_later(max(0.0, deadline - now), self._fire, table.id, version, "timeout")
        )

    def _fire(self, table_id: str, version: int, what: str) -> None:
        self._spawn(self._on_timer(table_id, version, what), f"{what}:{table_id}")

    async def _on_timer(self, table_id: str, version: int, what: str) -> None:
        table = self.tables.get(table_id)
        if table is None:
            return
        async with self.lock(table_id):
            if self.tables.get(table_id) is not table or table.version != version:
                return
            if what == "expire":
                if table.status == Status.LOBBY:
                    await self._commit(table, [{"k": "abort", "reason": "expired"}])
                    await self._closed_table(table, "aborted")
                return
            if what == "close":
                await self._close_if_abandoned(table)
                return
            if what != "ai" and self._held_turn(table):
                return
            seat = table.to_act()
            if seat is None:
                return
            s = table.seats[seat]
            if what == "remind":
                if s is not None and s.user is not None:
                    await self._notify(table, "reminder", user=s.user)
                return
            choice, legal = self._choice(table, seat)
        # The computer thinks without holding the table: presses (a hand to show, a
        # seat to take back, an abort) are answered meanwhile.  Its choice is a
        # function of the table id and version, so if anything changed, it is dropped
        # and the timers re-armed by that change decide again.
        try:
            code = await self._ai_runner(choice)
        except Exception as e:  # the table must not stall on an AI bug
            # the type only: a message could name the cards of the seat's hand
            log.error(
                "the computer failed to choose at table %s (%s); it plays at random",
                table_id,
                type(e).__name__,
            )
            code = -1
        if code not in legal:
            code = random.Random(f"{table_id}:{version}").choice(legal)
        async with self.lock(table_id):
            if self.tables.get(table_id) is not table or table.version != version:
                return
            if what == "timeout" and self._held_turn(table):
                return  # the platform went while the computer thought for him
            # the seat as it is now: a failed write meanwhile rebuilt the table in
            # place, at the same version, with seats of its own
            s = table.seats[seat]
            entries: list[Entry] = []
            if what == "timeout":
                entries.append({"k": "act", "seat": seat, "code": code, "by": "t"})
                assert s is not None
                if s.missed + 1 >= self.timings.missed_turns_limit and s.user is not None:
                    level = table.settings.get("ai_level", self.ai_level)
                    entries.append({"k": "replace", "seat": seat, "level": level})
            else:
                entries.append({"k": "act", "seat": seat, "code": code, "by": "ai"})
            await self._play(table, entries)
            replaced = what == "timeout" and s is not None and s.ai is not None
            if replaced and s is not None and s.user is not None and table.id in self.tables:
                await self._notify(table, "replaced", user=s.user)

    async def close_if_abandoned(self, table_id: str) -> bool:
        """Close a running match its people left now, not on its timer (the terminal
        table settles it before asking its player about his open game); whether the
        table is closed."""
        table = self.tables.get(table_id)
        if table is not None:
            async with self.lock(table_id):
                if self.tables.get(table_id) is table:
                    await self._close_if_abandoned(table)
        return table_id not in self.tables

    async def _close_if_abandoned(self, table: Table) -> None:
        """Close a running match its people left (`Table.abandoned`), under its lock."""
        reason = table.abandoned()
        if reason == "vote" and table.walked_out():
            # the votes carry now that one walked away: his side loses
            await self._end_walked_out(table, [])
        elif reason is not None:
            await self._commit(table, [{"k": "abort", "reason": reason}])
            await self._closed_table(table, "aborted")

    def _held_turn(self, table: Table) -> bool:
        """A person's turn whose platform is out of reach (`hold`), to arm or whose
        timer fired as it went: it waits with the others for `listen` instead of
        running out."""
        if table.platform not in self._held:
            return False
        self._wait_for_platform(table)
        return True

    def _wait_for_platform(self, table: Table) -> None:
        self._waiting.setdefault(table.platform, set()).add(table.id)

    def _choice(self, table: Table, seat: int) -> tuple[Callable[[], int], list[int]]:
        """The computer's decision for `seat` (an AI seat, or a player who timed out),
        to run off the table's lock (it holds a view and the legal codes only, and
        pickles, for a worker process: `bot.ai_workers`), and those legal codes."""
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


def _turn_key(table: Table) -> tuple[int, int, int | None, bool]:
    """What makes a new turn: a deal, an action, the seat to act, who plays it."""
    seat = table.to_act()
    s = table.seats[seat] if seat is not None else None
    actions = len(table.deal_log.actions) if table.deal_log is not None else -1
    return (len(table.deals), actions, seat, s is not None and s.human_playing)


def _explain(table: Table, seat: int, code: int, lang: str) -> str:
    """Why the rules refuse `code`: in the player's words where the refusal is one a
    player meets (following suit), else the engine's own."""
    assert table.deal is not None
    dseat = table.deal_seat(seat)
    try:
        action: Action = decode(code, table.deal.contracts)
    except (ValueError, IndexError):
        return "unknown action"
    try:
        P.apply(table.deal, dseat if dseat is not None else seat, action)
    except IllegalAction as e:
        key = f"illegal.{e.code}"
        return t(lang, key) if key in TEXTS["en"] else e.message
    return "not allowed now"  # pragma: no cover


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


def _not_resignable(table: Table, lang: str) -> Outcome | None:
    if table.status == Status.LOBBY:
        return _refuse(lang, "resign_in_lobby")
    if table.status != Status.PLAYING:
        return _refuse(lang, "not_playing")
    return None
