"""An in-memory adapter for testing the core the way a chat uses it.

`FakeChat` is a `Listener`: it records every `TableUpdate` and renders what a group
chat and each player's private chat would show (lobby, table message, hands,
results), exactly as an adapter would, from the views the service hands out.
`Player` presses only buttons it was shown.  Nothing here knows a game rule.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import sqlite3
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.payload import decode as decode_payload
from bot.service import ChatRef, Outcome, TableService, TableUpdate, Timings, UserRef
from bot.store import Store
from bot.table import Table
from bot.telling import TOLD_KINDS
from bot.views import Button, HandView, LobbyView, Message, TableView

#: Chooses a game action code for `seat` of `table` among `codes` (those on the buttons),
#: or None when what it wants is not on them: then the player turns the page.
Policy = Callable[[Table, int, list[int], random.Random], int | None]

#: Why a press may fail under a player who read his turn a moment earlier: a timer
#: or a computer seat moved first (the table's version moved on, his time ran out and
#: the computer played for him, or the match ended).
_OVERTAKEN = frozenset({"stale", "too_late", "unknown_table"})


def random_policy(table: Table, seat: int, codes: list[int], rng: random.Random) -> int:
    return rng.choice(codes)


class Seeds:
    """A deterministic `seed_source`: SHA-256 of a counter, as 32 hex digits.

    `n` is how many seeds were drawn; after a crash a test sets it to the number of
    draws the store kept (a seed drawn for a change that never committed is drawn
    again, as `secrets` would draw a fresh one).
    """

    def __init__(self, prefix: str = "s") -> None:
        self.prefix = prefix
        self.n = 0

    def __call__(self) -> str:
        self.n += 1
        return hashlib.sha256(f"{self.prefix}{self.n}".encode()).hexdigest()[:32]


def seeds(prefix: str = "s") -> Seeds:
    return Seeds(prefix)


def ids(prefix: str = "t") -> Callable[[], str]:
    """Deterministic table ids (base-36 friendly)."""
    n = 0

    def next_id() -> str:
        nonlocal n
        n += 1
        return f"{prefix}{n:06d}"

    return next_id


async def inline_ai(fn: Callable[[], int]) -> int:
    """Run the AI's choice on the loop (fast and deterministic for tests)."""
    return fn()


@dataclass
class Posted:
    """One message in the group chat (or an edit of one)."""

    table_id: str
    kind: str
    version: int
    message: Message


@dataclass
class FakeChat:
    service: TableService
    langs: dict[str, str] = field(default_factory=dict)  # user key -> language
    updates: list[TableUpdate] = field(default_factory=list)
    channel: list[Posted] = field(default_factory=list)
    hands: dict[tuple[str, str], HandView] = field(default_factory=dict)
    hand_history: list[HandView] = field(default_factory=list)
    lobbies: dict[str, LobbyView] = field(default_factory=dict)
    tables: dict[str, TableView] = field(default_factory=dict)
    #: Called with every update, under the table's lock, after it was rendered.
    on_update: list[Callable[[TableUpdate], None]] = field(default_factory=list)
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    #: Whether it confirms an end shown (`TableService.delivered`), as an adapter
    #: does once its outbox sent it; False: a chat whose sending a kill cut short.
    confirms: bool = True

    async def table_update(self, update: TableUpdate) -> None:
        self.updates.append(update)
        svc = self.service
        tid = update.table_id
        if update.kind == "lobby":
            lv = svc.lobby(tid)
            if lv is not None:
                self.lobbies[tid] = lv
                self.channel.append(Posted(tid, "lobby", update.version, lv.message))
        elif update.kind in ("started", "action"):
            tv = svc.table(tid)
            if tv is not None:
                self.tables[tid] = tv
                self.channel.append(Posted(tid, update.kind, update.version, tv.message))
            for user in svc.seat_users(tid):
                hv = svc.hand(tid, user, self.langs.get(user))
                if hv is not None:
                    self.hands[(tid, user)] = hv
                    self.hand_history.append(hv)
        elif update.kind in ("deal_end", "finished"):
            assert update.result is not None
            self.channel.append(Posted(tid, update.kind, update.version, update.result.message))
            if update.kind == "finished":
                for key in [k for k in self.hands if k[0] == tid]:
                    del self.hands[key]
        elif update.kind == "aborted":
            for key in [k for k in self.hands if k[0] == tid]:
                del self.hands[key]
        for check in self.on_update:
            check(update)
        if self.confirms and update.kind in TOLD_KINDS:
            await svc.delivered(tid, update.version)  # shown at once: nothing queued
        self.changed.set()

    def resync(self) -> None:
        """Render every open table again, as an adapter does after a restart."""
        for tid, table in self.service.tables.items():
            if str(table.status) == "lobby":
                lv = self.service.lobby(tid)
                if lv is not None:
                    self.lobbies[tid] = lv
                continue
            tv = self.service.table(tid)
            if tv is not None:
                self.tables[tid] = tv
            for user in self.service.seat_users(tid):
                hv = self.service.hand(tid, user, self.langs.get(user))
                if hv is not None:
                    self.hands[(tid, user)] = hv

    def describe(self) -> str:
        """Where each open table stands (for a failure message)."""
        out = []
        svc = self.service
        loop = asyncio.get_running_loop()
        for tid, t in svc.tables.items():
            timers = svc._timers.get(tid)
            pending = [round(h.when() - loop.time(), 3) for h in (timers.handles if timers else [])]
            seats = [(s.user, s.ai, s.missed) if s else None for s in t.seats]
            hands = {u: hv.your_turn for (x, u), hv in self.hands.items() if x == tid}
            out.append(
                f"{tid} v{t.version} {t.status} to_act={t.to_act()} seats={seats} "
                f"timers_in={pending} tasks={len(svc._tasks)} work={len(svc._work)} "
                f"hands_your_turn={hands} last={self.kinds(tid)[-3:]}"
            )
        running = [f"{task.get_name()} at {waits_at(task)}" for task in [*svc._tasks, *svc._work]]
        return "; ".join([*(out or ["no open table"]), *sorted(running)])

    def kinds(self, table_id: str) -> list[str]:
        return [u.kind for u in self.updates if u.table_id == table_id]

    async def wait(self, pred: Callable[[], bool], timeout: float = 5.0) -> None:
        """Wait (bounded) until `pred()` holds; fails the test on timeout."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        await asyncio.sleep(0)  # let the service run even when pred() holds already
        while not pred():
            left = end - loop.time()
            if left <= 0:
                raise AssertionError(f"timed out waiting for the table: {self.describe()}")
            self.changed.clear()
            with suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), min(left, 0.05))


async def walks_away(bot: Bot, table_id: str, player: Player) -> None:
    """His turns ran out: the computer takes his seat and the chat is told, as the
    clock does it (at once, not after the timeouts)."""
    table = bot.svc.tables[table_id]
    seat = table.seat_of(player.key)
    async with bot.svc.lock(table_id):
        await bot.svc._commit(table, [{"k": "replace", "seat": seat, "level": "random"}])
        await bot.svc._notify(table, "replaced", user=player.key)


def to_act(bot: Bot, table_id: str, players: list[Player]) -> tuple[Player, HandView]:
    """The one of `players` whose turn it is at the table, and his hand, which says so
    (a turn with no button would leave the table stuck)."""
    table = bot.svc.tables[table_id]
    seat = table.to_act()
    assert seat is not None, f"nobody is to act at {table_id}"
    player = next(p for p in players if table.seat_of(p.key) == seat)
    hand = player.hand(table_id)
    assert hand is not None and hand.your_turn, f"{player.key}'s hand does not show his turn"
    return player, hand


def button(message: Message, payload_verb: str) -> Button:
    """The button of a message whose payload has this verb (e.g. ``"j"``, ``"st"``)."""
    for b in message.all_buttons():
        p = decode_payload(b.payload)
        verb = p.verb + ("" if p.arg is None or p.verb == "a" else str(p.arg))
        if verb == payload_verb or p.verb == payload_verb:
            return b
    raise AssertionError(f"no {payload_verb!r} button in {message.text!r}")


@dataclass
class Player:
    """A simulated person: presses buttons they were shown, nothing else."""

    chat: FakeChat
    user: UserRef
    policy: Policy = random_policy
    presses: int = 0

    @property
    def key(self) -> str:
        return self.user.key

    async def press(self, b: Button) -> Outcome:
        self.presses += 1
        return await self.chat.service.act(self.user, b.payload)

    def hand(self, table_id: str) -> HandView | None:
        return self.chat.hands.get((table_id, self.key))

    def a_move(self, table_id: str) -> Button:
        """The first game action his hand offers (a card, a bid): his turn has come."""
        hand = self.hand(table_id)
        assert hand is not None, "no hand"
        return next(
            b for b in hand.message.all_buttons() if decode_payload(b.payload).is_game_action
        )

    async def take_turn(self, table_id: str) -> Outcome | None:
        """If the hand view says it is our turn, press one of its buttons.

        Menus (pages, discard picking) change nothing at the table; follow them to a
        game action.  The choice is seeded by table id, version and user, so a game
        is a function of its seeds.
        """
        hv = self.hand(table_id)
        table = self.chat.service.tables.get(table_id)
        if hv is None or table is None or not hv.your_turn:
            return None
        rng = random.Random(f"{table_id}:{table.version}:{self.key}")
        message = hv.message
        opened: set[str] = set()
        # the choices of every page seen so far, as a person remembers them: a bid
        # seen two pages back is pressed from there (a menu changes no version)
        actions: dict[int, Button] = {}
        for _ in range(12):
            menus: list[Button] = []
            for b in message.all_buttons():
                p = decode_payload(b.payload)
                if p.is_game_action:
                    assert p.arg is not None
                    actions[p.arg] = b
                elif p.verb == "pg" or (p.verb in ("dp", "gv") and p.arg):
                    menus.append(b)  # forward only: "pick again" would walk in circles
            # a page not seen yet first: "Back" and "More" would walk in circles too
            menus = [b for b in menus if b.payload not in opened] or menus
            if actions and (not menus or rng.random() < 0.8):
                code = self.policy(table, hv.seat, sorted(actions), rng)
                if code is None and not menus:
                    code = rng.choice(sorted(actions))  # wanted nothing offered
                if code is not None:
                    return await self.press(actions[code])
            assert menus, f"a turn without buttons: {message.text!r}"
            pick = rng.choice(menus)
            opened.add(pick.payload)
            out = await self.press(pick)
            if not out.ok and out.code in _OVERTAKEN:
                return out  # a timer or a computer moved first: the turn is gone
            assert out.ok and out.hand is not None, out
            message = out.hand.message
        raise AssertionError("menus lead nowhere")


class GatedAI:
    """An `ai_runner` that holds every decision until `gate` is set: `thinking` says
    the computer has begun one (a turn's timeout fired, say), so a test can act while
    it thinks."""

    def __init__(self) -> None:
        self.thinking = asyncio.Event()
        self.gate = asyncio.Event()

    async def __call__(self, choose: Callable[[], int]) -> int:
        self.thinking.set()
        await self.gate.wait()
        return choose()


def to_move(table: Table, players: list[Player]) -> Player:
    """Which of `players` is to act at `table`."""
    seat = table.to_act()
    assert seat is not None
    return next(p for p in players if table.seat_of(p.key) == seat)


def run_out(service: TableService, table_id: str, player: Player) -> bool:
    """If it is `player`'s turn at the table, his time runs out now, as when his turn's
    timer ends (the timer's own callback, fired early): the computer moves for him and
    counts the missed turn.  This is how a test lets a person walk away while the turns
    of those who stay are long: a short turn for everybody races their presses, and
    on a slow machine their clock ends first.  False when it is not his turn."""
    table = service.tables.get(table_id)
    if table is None or table.deadline is None:
        return False
    seat = table.to_act()
    if seat is None or table.seat_of(player.key) != seat:
        return False
    service._fire(table_id, table.version, "timeout")
    return True


#: Seconds a table may stand still (no move, nothing told) before `play_out` calls
#: it stuck: a hang's bound, not the match's.  A whole match had one (60 s): a
#: Thousand match takes 14 s on a loaded machine and over 60 s on a starved one.
STALL = 30.0
#: Changes (moves, messages) a match may make before `play_out` calls it endless: a
#: whole Thousand match makes up to 2,400.
MATCH_STEPS = 20_000
#: Looks in a row (each waits half a second for a change) at a table nobody can move:
#: nothing is under way in the core or due before `STALL` (`_under_way`), or it is
#: a player's own turn and his hand does not offer it (`_unoffered`: only his clock
#: would move the table, a turn each `turn_timeout`, and `STALL` never comes).
#: Waiting for either only puts the failure off, or hangs the test.
IDLE_LOOKS = 4


async def play_out(
    chat: FakeChat,
    table_id: str,
    players: list[Player],
    *,
    after_press: Callable[[Outcome], Awaitable[None]] | None = None,
    walkers: list[Player] | None = None,
    until: Callable[[], bool] | None = None,
) -> None:
    """Let the players take their turns (AI seats move on their own) until the table
    is gone from the service (finished or aborted), or `until()` holds.  The turns
    of `walkers`, who never press, run out at once (`run_out`).  Bounded in steps,
    not in time: it fails when the table stands still for `STALL` seconds or runs on
    for `MATCH_STEPS` changes, however slowly the machine plays it, and at once when
    nobody can move it (`IDLE_LOOKS`)."""
    loop = asyncio.get_running_loop()
    svc = chat.service
    steps = idle = 0
    seen: tuple[int, int] | None = None
    still_since = loop.time()
    while table_id in svc.tables and not (until is not None and until()):
        now = (svc.tables[table_id].version, len(chat.updates))
        if now != seen:
            seen, still_since, steps, idle = now, loop.time(), steps + 1, 0
        assert steps <= MATCH_STEPS, f"the match did not end in {MATCH_STEPS} steps"
        if loop.time() - still_since > STALL:
            raise AssertionError(f"the table stood still for {STALL:g} s: {chat.describe()}")
        if idle >= IDLE_LOOKS:
            unoffered = _unoffered(chat, table_id, players)
            why = (
                f"{unoffered.key}'s turn, and his hand does not offer it"
                if unoffered
                else "no press, no computer's move, nothing under way but its clocks"
            )
            raise AssertionError(f"nobody can move the table ({why}): {chat.describe()}")
        pressed = False
        for pl in players:
            out = await pl.take_turn(table_id)
            if out is not None:
                # a turn overtaken by a timer or a computer: stale, or the match over
                assert (
                    out.ok
                    or out.code in ("stale", "too_late")
                    or (out.code == "unknown_table" and table_id not in svc.tables)
                ), out
                pressed = True
                if after_press is not None:
                    await after_press(out)
                break
        if not pressed:
            chat.changed.clear()
            if table_id not in svc.tables:
                break
            for walker in walkers or ():
                run_out(svc, table_id, walker)
            with suppress(TimeoutError):
                await asyncio.wait_for(chat.changed.wait(), 0.5)
            moving = walkers or _under_way(svc, table_id, still_since + STALL)
            unoffered = _unoffered(chat, table_id, players)
            idle = idle + 1 if unoffered or not moving else 0


def _unoffered(chat: FakeChat, table_id: str, players: list[Player]) -> Player | None:
    """The one of `players` whose own turn it is (he plays his seat, and the computer
    is not finishing a turn of his that ran out) but whose hand does not offer it: the
    table waits for a press that cannot come, and only his clock would move it."""
    table = chat.service.tables.get(table_id)
    seat = table.to_act() if table is not None else None
    if table is None or seat is None:
        return None
    s = table.seats[seat]
    if s is None or not s.human_playing or table.playing_out == seat:
        return None
    pl = next((p for p in players if p.key == s.user), None)
    hv = pl.hand(table_id) if pl is not None else None
    return pl if pl is not None and (hv is None or not hv.your_turn) else None


def _under_way(svc: TableService, table_id: str, before: float) -> bool:
    """Whether the core may still move the table without a press: a task (a timer
    fired, a computer thinking), a change not yet stored, or a timer of the table
    that fires before the loop time `before` (a timer just past its time counts: the
    loop may not have run it yet).  A computer to move moves `ai_delay` after its
    turn began: a timer later than that is not its move but a clock (its seat's turn
    left to a turn timeout moves the table once each `turn_timeout`)."""
    table = svc.tables.get(table_id)
    if table is None or svc._tasks or svc._work or table.unsaved:
        return True
    now = asyncio.get_running_loop().time()
    seat = table.to_act()
    s = table.seats[seat] if seat is not None else None
    if s is not None and (not s.human_playing or table.playing_out == seat):
        before = min(before, now + svc.timings.ai_delay + 1.0)
    timers = svc._timers.get(table_id)
    handles = timers.handles if timers else []
    return any(not h.cancelled() and now - 1.0 < h.when() < before for h in handles)


#: For random sessions (tests/bot/test_fuzz_*.py, test_crash_hunt.py): nothing fires on
#: its own but a computer's move; the clock stands still at `STILL_NOW` and a turn is
#: an hour long, so a session fires reminders, time-outs and expiries itself.
STILL_NOW = 1_700_000_000.0
STILL_TIMINGS = Timings(
    turn_timeout=3600.0,
    reminder_before=10.0,
    missed_turns_limit=2,
    ai_delay=0.0,
    lobby_expiry=3600.0,
)


def busy(svc: TableService) -> bool:
    """Something is under way without a press: a change, a computer to move, a table
    to close (a random session waits until none is)."""
    if svc._tasks or svc._work:
        return True
    for table in svc.tables.values():
        if table.unsaved or table.abandoned() is not None:
            return True
        seat = table.to_act()  # None unless the table is playing
        if seat is not None:
            s = table.seats[seat]
            if s is None or not s.human_playing:
                return True
    return False


def waits_at(task: asyncio.Task[Any]) -> str:
    """Where a pending task waits: its chain of awaits, outermost first, as
    ``function:line`` (a lock, the store's writer, a computer's decision), through
    the generator of an ``asynccontextmanager`` being entered (`KeyedLocks.hold`)."""
    at = []
    coro: Any = task.get_coro()
    while coro is not None:
        frame = _first(coro, "cr_frame", "gi_frame", "ag_frame")
        if frame is not None:
            at.append(f"{frame.f_code.co_name}:{frame.f_lineno}")
        entered = None
        if frame is not None and frame.f_code.co_name == "__aenter__":
            # an asynccontextmanager's: the anext() it awaits hides its generator
            entered = getattr(frame.f_locals.get("self"), "gen", None)
        coro = entered or _first(coro, "cr_await", "gi_yieldfrom", "ag_await")
    return " > ".join(at) or "(running)"


def _first(obj: Any, *names: str) -> Any:
    return next((v for name in names if (v := getattr(obj, name, None)) is not None), None)


async def until_idle(
    busy_now: Callable[[], bool], stalled: Callable[[], str], seconds: float = 20.0
) -> None:
    """Let the loop run until `busy_now()` is false three turns in a row (bounded: a
    stall fails with what `stalled()` says).  Only a core still busy once the loop's
    `seconds` are up has stalled: on a loaded machine the wait itself can outlast
    them, and failing a core that is idle by then made a random session fail on one
    run and pass on its replay.  The failure says how often the loop looked and its
    longest pause between two looks: a pause of seconds is a starved process or a
    long computation on the loop, many looks a core waiting for what never comes."""
    loop = asyncio.get_running_loop()
    start = last = loop.time()
    end = start + seconds
    quiet = looks = 0
    longest = 0.0
    while quiet < 3:
        await asyncio.sleep(0 if quiet else 0.001)
        now = loop.time()
        longest, last, looks = max(longest, now - last), now, looks + 1
        if not busy_now():
            quiet += 1
        elif now < end:
            quiet = 0
        else:
            raise AssertionError(
                f"the core did not settle in {now - start:.1f} s ({looks} looks, the "
                f"longest pause {longest:.1f} s): {stalled()}"
            )


async def while_opening(
    bot: Bot,
    opening: Awaitable[Outcome],
    meanwhile: Callable[[], Awaitable[Any]],
    held: str = "create_table",
) -> tuple[Outcome, Any]:
    """`opening` (a /new, a Rematch, a /settings change) with its store call `held`
    (its table's write, or a read before it) held back while `meanwhile()` runs, until
    that is done or waits for a lock (the new table not yet among its chat's); then
    the call goes on.  Only the opening's call (the first) is held: a /new in
    `meanwhile` is stored as ever.  Both answers, without any timing."""
    real, stored, reached = getattr(bot.db, held), asyncio.Event(), asyncio.Event()

    async def holding(*args: Any, **kwargs: Any) -> Any:
        if not reached.is_set():
            reached.set()
            await stored.wait()
        return await real(*args, **kwargs)

    setattr(bot.db, held, holding)
    try:
        opened = asyncio.ensure_future(opening)
        await reached.wait()
        other = asyncio.ensure_future(meanwhile())
        await until_idle(
            lambda: not other.done() and not any("acquire:" in waits_at(w) for w in bot.svc._work),
            lambda: " | ".join(waits_at(w) for w in bot.svc._work),
        )
        stored.set()
        return await opened, await other
    finally:
        setattr(bot.db, held, real)


@dataclass
class Bot:
    """A service on a store, with a fake chat attached; restartable on the same file."""

    path: Path
    timings: Timings
    seed_source: Callable[[], str]
    table_ids: Callable[[], str]
    clock: Callable[[], float] | None = None
    ai_level: str = "random"
    ai_runner: Callable[[Callable[[], int]], Awaitable[int]] | None = inline_ai
    langs: dict[str, str] = field(default_factory=dict)
    #: More arguments for the `Store` (its `busy_timeout`, `write_retry`)
    store_options: dict[str, Any] = field(default_factory=dict)
    store: Store | None = None
    service: TableService | None = None
    chat: FakeChat | None = None
    #: The chat's `FakeChat.confirms`.
    confirms: bool = True

    async def start(self, *, serve: bool = True) -> Bot:
        """`serve=False`: the platform is out of reach after the start (no `listen`
        until the test calls `serve`)."""
        self.store = await Store(self.path, table_ids=self.table_ids, **self.store_options).open()
        kw: dict[str, Any] = {}
        if self.clock is not None:
            kw["clock"] = self.clock
        if self.ai_runner is not None:
            kw["ai_runner"] = self.ai_runner
        self.service = TableService(
            self.store,
            timings=self.timings,
            ai_level=self.ai_level,
            seed_source=self.seed_source,
            **kw,
        )
        self.chat = FakeChat(self.service, self.langs, confirms=self.confirms)
        self.service.listeners.append(self.chat)
        await self.service.start()
        self.chat.resync()
        if serve:
            await self.serve()
        return self

    async def serve(self) -> None:
        assert self.service is not None and self.chat is not None
        await self.service.listen(self.chat, "tg")  # as an adapter does once it serves

    async def settle(self) -> None:
        """Let the core run until it waits for a person (bounded: a stall fails)."""
        await until_idle(lambda: busy(self.svc), self.fc.describe)

    async def stop(self) -> None:
        if self.service is not None:
            await self.service.stop()
        if self.store is not None:
            await self.store.close()
        self.service = self.store = self.chat = None

    async def crash(self) -> None:
        """Die like a killed process: work in progress is cancelled and writes not
        yet committed are lost (a batch already on the writer thread commits or not,
        atomically)."""
        store = self.store
        if store is not None:
            store._closing = True
        if self.service is not None:
            self.service.listeners.clear()
            await self.service.stop()
        if store is not None:
            await store.close(drain=False)
        self.service = self.store = self.chat = None

    @property
    def svc(self) -> TableService:
        assert self.service is not None
        return self.service

    @property
    def fc(self) -> FakeChat:
        assert self.chat is not None
        return self.chat

    @property
    def db(self) -> Store:
        """The open store (between `start` and `stop`)."""
        assert self.store is not None
        return self.store

    def player(self, user: UserRef, policy: Policy = random_policy) -> Player:
        return Player(self.fc, user, policy)


@dataclass
class CommitCopies:
    """Copies of a store's database, each taken right after one of its commits (on
    the writer's thread, before anything else is written): the file a kill -9 at that
    moment leaves, whatever the loop was doing (a commit is on the disk whole or not
    at all).  Start a `Bot` on a copy to see what a restart after that kill finds.

    `pick(n, change)`: copy after the n-th commit (`change`: it holds table changes
    only, no other write); `note()`: what to keep with the copy, read at that moment.
    """

    store: Store
    dir: Path
    pick: Callable[[int, bool], bool] = lambda n, change: True
    note: Callable[[], Any] = lambda: None
    #: (commit number, copy, note), oldest first
    taken: list[tuple[int, Path, Any]] = field(default_factory=list)
    commits: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        attempt = self.store._attempt

        def attempt_and_copy(conn: sqlite3.Connection, batch: list[Any]) -> None:
            attempt(conn, batch)
            with self._lock:
                self.commits += 1
                if not self.pick(self.commits, all(w.table_rows for w in batch)):
                    return
                path = self.dir / f"commit-{self.commits:04d}.sqlite3"
                copy = sqlite3.connect(path)
                try:
                    conn.backup(copy)
                finally:
                    copy.close()
                self.taken.append((self.commits, path, self.note()))

        self.store._attempt = attempt_and_copy  # type: ignore[method-assign]


@asynccontextmanager
async def running(bot: Bot) -> Any:
    await bot.start()
    try:
        yield bot
    finally:
        await bot.stop()


def users(n: int, platform: str = "tg", lang: str | None = None) -> list[UserRef]:
    names = ["Anna", "Bert", "Cilli", "Done", "Ernst"]
    return [UserRef(platform, str(100 + i), names[i], lang) for i in range(n)]


CHAT = ChatRef("tg", "-1001", "Stammtisch")


def all_texts(messages: Iterator[Message]) -> str:
    return "\n".join(m.text for m in messages)


def gathered(bot: Bot, pick: Callable[[TableUpdate], str | None]) -> list[str]:
    """What `pick` takes from each update the chat is told of, as they come."""
    out: list[str] = []

    def seen(u: TableUpdate) -> None:
        if (got := pick(u)) is not None:
            out.append(got)

    bot.fc.on_update.append(seen)
    return out


async def open_table(
    bot: Bot,
    game: str,
    players: list[Player],
    *,
    options: dict[str, Any] | None = None,
    chat: ChatRef = CHAT,
    start: bool = True,
) -> str:
    """The first player opens a lobby, the others press Join, the host fills the rest
    with computer seats and presses Start — all through buttons of the lobby view."""
    host = players[0]
    out = await bot.svc.create_table(chat, host.user, game, options=options)
    assert out.ok and out.table_id is not None, out
    tid = out.table_id
    for pl in players[1:]:
        res = await pl.press(button(bot.fc.lobbies[tid].message, "j"))
        assert res.ok, res
    await seat_computers(bot, tid, host)
    if start:
        res = await host.press(button(bot.fc.lobbies[tid].message, "st"))
        assert res.ok, res
    return tid


async def seat_computers(bot: Bot, table_id: str, host: Player) -> None:
    """The host fills the lobby's free seats with computers (its "Add computer"
    button) until it can start: one press a seat at most, then it fails, where
    pressing on would loop for ever."""
    for _ in bot.svc.tables[table_id].seats:
        if bot.fc.lobbies[table_id].can_start:
            return
        res = await host.press(button(bot.fc.lobbies[table_id].message, "ai"))
        assert res.ok, res
    assert bot.fc.lobbies[table_id].can_start, f"seats filled, no start: {bot.fc.describe()}"


async def open_bauern_partners(bot: Bot, host: Player, partner: Player) -> str:
    """A started Bauern table where `partner` sits across from `host` (seat 3, the
    same team) and computers hold the other team's seats."""
    tid = (await bot.svc.create_table(CHAT, host.user, "bauern")).table_id
    assert tid is not None
    assert (await partner.press(button(bot.fc.lobbies[tid].message, "j"))).ok
    assert (await partner.press(button(bot.fc.lobbies[tid].message, "s2"))).ok
    for _ in range(2):
        assert (await host.press(button(bot.fc.lobbies[tid].message, "ai"))).ok
    assert (await host.press(button(bot.fc.lobbies[tid].message, "st"))).ok
    return tid


async def snapshot(bot: Bot, table_id: str) -> tuple[object, ...]:
    """Everything a refused press must leave as it was: memory, log and store row."""
    table = bot.svc.tables[table_id]
    log = await bot.db.table_log(table_id)
    row = await bot.db.table_row(table_id)
    seats = [(s.user, s.name, s.ai, s.missed) if s else None for s in table.seats]
    return (
        table.version,
        len(log),
        str(table.status),
        table.host,
        seats,
        sorted(table.votes),
        table.record(),
        table.deal.legal() if table.deal is not None else None,
        row,
        len(bot.fc.updates),
    )


async def until_discard_menu(
    bot: Bot, game_id: str, options: dict[str, object] | None, n: int
) -> tuple[str, Player] | None:
    """A table of `game_id` whose seat to act is picking cards to discard (the first
    of up to 20 tables, each played until one does), and the player at that seat."""
    for _ in range(20):  # tables, each played until a discard menu shows
        players = [bot.player(u) for u in users(n)]
        tid = await open_table(bot, game_id, players, options=options)
        for _ in range(MATCH_STEPS):  # turns, until the match ends
            if tid not in bot.svc.tables:
                break
            for pl in players:
                hv = pl.hand(tid)
                if hv is not None and any(
                    decode_payload(b.payload).verb == "dp" for b in hv.message.all_buttons()
                ):
                    return tid, pl
            assert any([await p.take_turn(tid) is not None for p in players])
    return None


async def until_gift(bot: Bot, table_id: str, players: list[Player], turns: int) -> Player:
    """Plays Thousand's turns (each player's policy) until a hand shows its owner
    giving his cards away, at most `turns` rounds of turns; that player, the
    declarer."""
    for _ in range(turns):
        for p in players:
            hv = p.hand(table_id)
            if hv is not None and hv.your_turn and hv.view is not None and hv.view.phase == "give":
                return p
        assert any([await p.take_turn(table_id) is not None for p in players])
    raise AssertionError(f"no gift in {turns} turns")


async def stored_mentions(store: Store, key: str) -> list[str]:
    """Where the store still names the person `key` (after /forgetme: nowhere): a row
    of his, or his key anywhere in a table log entry, a game record or a message
    slot."""
    queries = {
        "players": "SELECT count(*) FROM players WHERE key = ?",
        "results": "SELECT count(*) FROM results WHERE player = ?",
        "rated_results": "SELECT count(*) FROM rated_results WHERE player = ?",
        "contracts": "SELECT count(*) FROM contracts WHERE player = ?",
        "ratings": "SELECT count(*) FROM ratings WHERE player = ?",
        "table_log": "SELECT count(*) FROM table_log WHERE instr(entry, ?)",
        "games": "SELECT count(*) FROM games WHERE instr(record, ?)",
        "message_refs": "SELECT count(*) FROM message_refs WHERE instr(slot, ?)",
    }
    found = []
    for name, sql in queries.items():
        ((n,),) = await store.fetchall(sql, (key,))
        if n:
            found.append(f"{n} in {name}")
    return found


async def restarts(bot: Bot, copies: CommitCopies) -> AsyncIterator[tuple[int, Bot]]:
    """A bot started on each copy `copies` took, oldest first, with `bot`'s timings:
    what a restart after a kill -9 at that commit finds.  Each is stopped before the
    next starts."""
    assert copies.taken
    for n, path, _ in copies.taken:
        killed = await Bot(path, bot.timings, seeds(), ids("r")).start()
        try:
            yield n, killed
        finally:
            await killed.stop()
