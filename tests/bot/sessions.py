"""What the random chat sessions of `test_fuzz_service` (and `test_fuzz_store_failures`)
share: the people and chats they draw from, and `SessionMachine`, the bot on one
SQLite file that their steps drive: the loop it runs on, each request settled and its
answer checked, and what the chats show.

The steps are in `session_play`, `session_commands` and `session_platforms`; what must
hold after each, and the machine made of them, in `test_fuzz_service`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
import shutil
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, ClassVar, TypeVar
from unittest import mock

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant

import engine.ai
from bot.i18n import norm_lang
from bot.payload import decode as decode_payload
from bot.service import ChatRef, Outcome, TableService, TableUpdate, UserRef
from bot.table import Status, Table
from bot.views import Button, HandView, Message
from engine import protocol as P
from engine.ai import Budget
from engine.ai.strong import StrongPlayer
from engine.games import available

from .fakechat import (
    STILL_NOW,
    STILL_TIMINGS,
    Bot,
    FakeChat,
    Posted,
    Seeds,
    ids,
    snapshot,
    until_idle,
)
from .test_leaks import Watch, _label_cards_in, _public_cards

_T = TypeVar("_T")
_S = TypeVar("_S", bound=tuple[Any, ...])

GAMES = available()
#: Telegram's people.
USERS = [
    UserRef("tg", "100", "Anna"),
    UserRef("tg", "101", "Bert"),
    UserRef("tg", "102", "Cilli", "de"),
    UserRef("tg", "103", "Done"),
]
#: Discord's, each under a server nickname with his account's name beside it (what
#: boards and records show).  The first has Anna's Telegram id: another person here,
#: to whom no table of Telegram's belongs, nor hers to him.
DC_USERS = [
    UserRef("dc", "100", "Anni", account_name="anna"),
    UserRef("dc", "104", "Ernst", "de", account_name="ernst.k"),
    UserRef("dc", "105", "Fritzi", account_name="fritzi"),
]
PEOPLE = {"tg": USERS, "dc": DC_USERS}
#: Never open or join anything: a stranger to every table, one on each platform.
STRANGERS = {"tg": UserRef("tg", "199", "Zoe"), "dc": UserRef("dc", "199", "Zoe")}
STRANGER = STRANGERS["tg"]
EVERYONE = [*USERS, *DC_USERS, *STRANGERS.values()]
BY_KEY = {u.key: u for u in EVERYONE}
LANGS = {u.key: u.lang for u in EVERYONE if u.lang}
#: A Discord server whose preferred locale is German: its tables speak German until an
#: admin sets `language`.
DISCORD = ChatRef("dc", "5001", "Wirtshaus", lang="de")
CHATS = [ChatRef("tg", "-1001", "Stammtisch"), ChatRef("tg", "-1002", "Hinterzimmer"), DISCORD]
#: What the second chat becomes when Telegram upgrades it to a supergroup.
UPGRADED = ChatRef("tg", "-1003", "Hinterzimmer")
CHAT_OF = {c.key: c for c in [*CHATS, UPGRADED]}
#: Who administers each platform's chats (changes settings as an admin).
ADMIN = {"tg": USERS[0], "dc": DC_USERS[0]}
PLATFORMS = sorted(PEOPLE)
#: Chat settings an admin may change while tables are open (for tables opened later).
SETTINGS = [
    ("ai_level", "random"),
    ("ai_level", "heuristic"),
    ("ai_level", "strong"),
    ("ai_level", "default"),
    ("suits", "german"),
    ("suits", "french"),
    ("tricks", "open"),
    ("tricks", "table"),
    ("rules", "fixed"),
    ("rules", "open"),
    ("starters", "admins"),
    ("starters", "anyone"),
]

#: The computer's levels (a chat's `ai_level`); the bot's own is the first.
LEVELS = ["random", "heuristic", "strong"]
#: The strong level's effort here: its own search, on a few playouts and worlds (the
#: default budget thinks some 40 ms a move; this one some 2 ms).  Its hard stop is far
#: off: the counts alone decide, so a session replays move for move (hypothesis runs
#: an example again and must see the same session); on a loaded machine a decision
#: took over a second, its search cut short at a point of the clock's choosing.
STRONG_BUDGET = Budget(playouts=8, worlds=2, seconds=600.0)


#: Buttons bound to one seat: nobody else may press them to any effect.
SEAT_BOUND = frozenset({"a", "pg", "dp", "gv", "rs"})
#: Of those, the ones a newer version of the table makes void.
VERSIONED = frozenset({"a", "pg", "dp", "gv"})

#: Loggers of the project: an ERROR of theirs during random play is a bug.
OURS = ("bot", "engine", "adapters", "tests")


class ErrorLog(logging.Handler):
    """The project's log records at ERROR and above, kept for the invariant."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.split(".")[0] in OURS:
            self.records.append(record)


def verb(payload: str) -> str:
    return decode_payload(payload).verb


def buttons(message: Message | None) -> list[Button]:
    return [] if message is None else message.all_buttons()


class DealWatch(Watch):
    """`Watch`, with a deal's result judged as what it is: the end of a deal, whose
    every card may be named then (its stock, the cards laid away: docs/bot.md, "Fair
    deals").  The next deal is dealt from the same deck by then, so `Watch` would take
    those for the new deal's hidden cards; only the new deal's seed must not show."""

    def on_update(self, chat_posts: list[Posted], update: TableUpdate) -> None:
        if update.kind == "deal_end" and self.service is not None:
            table = self.service.tables.get(update.table_id)
            seed = table.deal_log.seed if table is not None and table.deal_log else None
            for post in chat_posts[self.seen_posts :]:
                self.check_text("deal's result", post.message.text, set(), seed)
            self.seen_posts = len(chat_posts)
            update = dataclasses.replace(update, result=None)
        super().on_update(chat_posts, update)


class SessionMachine(RuleBasedStateMachine):
    """One bot on one SQLite file, its chats and their users, without steps: the
    classes built on it add them (see `test_fuzz_service`)."""

    #: More arguments for the bot's `Store` (a subclass's shorter waits for a lock)
    STORE_OPTIONS: ClassVar[dict[str, Any]] = {}

    def __init__(self) -> None:
        super().__init__()
        self.loop = asyncio.new_event_loop()
        self.dir = Path(tempfile.mkdtemp(prefix="fuzz-service-"))
        self.seeds = Seeds()
        self.table_ids = ids()
        self.errors = ErrorLog()
        logging.getLogger().addHandler(self.errors)
        self.watch = DealWatch()
        #: The chats of the bots before a restart: their old buttons stay pressable.
        self.old_chats: list[FakeChat] = []
        #: Table id -> (game summary, deals played) when it finished or closed.
        self.ended: dict[str, tuple[dict[str, Any], int]] = {}
        self.checked_records: set[str] = set()
        #: (table id, user key) -> the hand menu an outcome showed him last
        self.menus: dict[tuple[str, str], HandView] = {}
        #: Table id -> its chat, for the tables that finished (a rematch is pressed there)
        self.chat_of: dict[str, str] = {}
        #: The chats people write in (the second one's id changes when upgraded)
        self.chats = list(CHATS)
        #: Chat key -> the computer level its new tables get (its `ai_level`)
        self.level_of: dict[str, str] = {}
        #: Table id -> the computer level it was opened with
        self.opened_with: dict[str, str] = {}
        #: Chat key -> the language its tables speak (its admin's, else the platform's)
        self.lang_of = {c.key: norm_lang(c.lang) for c in CHATS}
        #: What a table was seen opened with against its chat's settings
        self.opening_problems: list[str] = []
        #: The people whose stored name and language were checked (once each)
        self.names_checked: set[str] = set()
        #: What the computer was seen doing wrong (`think`), and the levels that moved
        self.ai_problems: list[str] = []
        self.thought: set[str] = set()
        self.bot = self.run(self._start())

    # --- running the loop -----------------------------------------------------------

    def run(self, coro: Awaitable[_T]) -> _T:
        return self.loop.run_until_complete(coro)

    def teardown(self) -> None:
        try:
            self.run(self.bot.stop())
            self.loop.run_until_complete(self.loop.shutdown_asyncgens())
        finally:
            self.loop.close()
            logging.getLogger().removeHandler(self.errors)
            shutil.rmtree(self.dir, ignore_errors=True)
        self.check_no_error_logged()

    async def _start(self) -> Bot:
        bot = Bot(
            self.dir / "bot.sqlite3",
            STILL_TIMINGS,
            self.seeds,
            self.table_ids,
            clock=lambda: STILL_NOW,
            ai_level=LEVELS[0],
            ai_runner=None,
            langs=dict(LANGS),
            store_options=dict(self.STORE_OPTIONS),
        )
        bot.ai_runner = functools.partial(self.think, bot)
        await bot.start()  # serves Telegram
        await self.serve(bot, "dc")
        self.watch.service = bot.svc
        self.watch.seen_posts = 0
        fc = bot.fc
        fc.on_update.append(lambda u: self.watch.on_update(fc.channel, u))
        fc.on_update.append(self._on_update)
        await self.settle(bot)
        return bot

    async def think(self, bot: Bot, choose: Callable[[], int]) -> int:
        """The computer's decision, made on the loop (as `inline_ai` makes it) and
        checked: asked at the table as it is, on the turn of the seat it plays, with
        that seat's view and the legal moves only, at the level the table was opened
        with; and answering one of those moves.  The strong level thinks on
        `STRONG_BUDGET`."""
        assert isinstance(choose, functools.partial), choose
        level, view, legal, seed = choose.args
        tid, _, version = seed.rpartition(":")
        table = bot.svc.tables.get(tid)
        where = f"the {level} computer at {tid} (v{version})"
        if table is None or table.version != int(version) or table.deal is None:
            self.ai_problems.append(f"{where} was asked about a table not as it is")
        else:
            seat = table.to_act()
            dseat = table.deal_seat(seat) if seat is not None else None
            if dseat is None or view != P.view(table.deal, dseat):
                self.ai_problems.append(f"{where} was shown another view than its seat's")
            if legal != table.deal.legal():
                self.ai_problems.append(f"{where} was offered {legal}, not the legal moves")
            opened = self.opened_with.get(tid)
            if level != opened:
                self.ai_problems.append(f"{where}: its table was opened at level {opened}")
        self.thought.add(level)
        strong = functools.partial(StrongPlayer, budget=STRONG_BUDGET)
        with mock.patch.dict(engine.ai.LEVELS, {"strong": strong}):
            code: int = choose()
        if code not in legal:
            self.ai_problems.append(f"{where} chose {code}, not one of {legal}")
        return code

    @staticmethod
    async def serve(bot: Bot, platform: str) -> None:
        """An adapter of `platform` serves (again): the fake chat hears its tables."""
        await bot.svc.listen(bot.fc, platform)

    def _on_update(self, update: Any) -> None:
        """A table's opening, with the chat's computer level then; a match's end, as
        the table stood (it is gone from the service after)."""
        if update.kind == "lobby" and update.table_id not in self.opened_with:
            self.opened_with[update.table_id] = self.level_of.get(update.chat, LEVELS[0])
            opened = self.bot.svc.tables[update.table_id]
            lang = self.lang_of[update.chat]
            if opened.settings.get("lang") != lang:
                self.opening_problems.append(
                    f"{opened.id} opened in {update.chat} speaks {opened.settings.get('lang')}, "
                    f"not the chat's {lang}"
                )
        if update.kind not in ("finished", "aborted"):
            return
        table = self.bot.svc.tables.get(update.table_id)
        assert table is not None, f"{update.kind} of a table already gone"
        self.chat_of[table.id] = table.chat
        if table.match is not None:
            self.ended[table.id] = (table.match.summary(), len(table.deals))

    def describe(self) -> str:
        """Where each open table stands, for a failure's message."""

        async def describe() -> str:
            return self.fc.describe()

        return self.run(describe())

    @property
    def svc(self) -> TableService:
        return self.bot.svc

    @property
    def fc(self) -> FakeChat:
        return self.bot.fc

    async def settle(self, bot: Bot | None = None) -> None:
        """Let the core run until it waits for a person (bounded: a stall fails)."""
        await (bot or self.bot).settle()

    async def fire(self, table: Table, what: str) -> None:
        """A timer of the table's current version fires (on the loop, as it would)."""
        self.svc._fire(table.id, table.version, what)
        await self.settle()

    async def snapshots(self) -> dict[str, tuple[object, ...]]:
        return {tid: await snapshot(self.bot, tid) for tid in sorted(self.svc.tables)}

    async def press(
        self, user: UserRef, payload: str, chat: ChatRef | None = None
    ) -> tuple[Outcome, bool]:
        """Press and settle; returns the outcome and whether nothing changed."""
        return await self.change(user, lambda: self.svc.act(user, payload, chat))

    async def change(
        self, user: UserRef, request: Callable[[], Awaitable[Outcome]]
    ) -> tuple[Outcome, bool]:
        """A person's request (a press, a command), settled; returns the outcome and
        whether nothing changed."""
        before = await self.snapshots()
        out = await request()
        await self.settle()
        unchanged = before == await self.snapshots()
        self.check_outcome(user, out)
        return out, unchanged

    def check_outcome(self, user: UserRef, out: Outcome) -> None:
        """An answer goes to its presser alone, but it must not name a card hidden
        from him, and a hand it opens is his own."""
        if out.hand is not None:
            assert out.hand.user == user.key, f"{user.key} was shown {out.hand.user}'s hand"
            self.check_hand(out.hand)
        if out.text:
            for table in self.svc.tables.values():
                hidden = self.watch.hidden(table)
                seat = table.seat_of(user.key)
                if table.deal is not None and seat is not None:
                    dseat = table.deal_seat(seat)
                    if dseat is not None:
                        hidden -= set(P.view(table.deal, dseat).hand)
                # only the cards the presser could not know count
                leaked = _label_cards_in(out.text, hidden)
                assert not leaked, f"the answer to {user.key} names {leaked}: {out.text!r}"

    def check_hand(self, hv: HandView) -> None:
        """A hand shows its own seat's cards and what the table has shown, no other."""
        table = self.svc.tables.get(hv.table_id)
        if table is None or table.deal is None or table.status != Status.PLAYING:
            return
        dseat = table.deal_seat(hv.seat)
        if dseat is None:
            return
        view = P.view(table.deal, dseat)
        if hv.view is not None and hv.view != view:
            # drawn before moves made since (answered while other presses went
            # on): the table has moved on, and the hands drawn meanwhile were judged
            return
        hidden = self.watch.hidden(table)
        allowed = _public_cards(view) | self.watch.revealed[table.id][1]
        text = hv.message.text + "\n" + " ".join(b.label for b in buttons(hv.message))
        extra = _label_cards_in(text, hidden - allowed)
        assert not extra, f"{hv.user}'s hand shows {sorted(c.id for c in extra)}"

    @staticmethod
    def seldom(data: st.DataObject, odds: int) -> bool:
        """Whether a step that changes much (closing tables, a restart) happens this
        time: one in `odds`, so that games get played between them."""
        return data.draw(st.integers(0, odds - 1), label="seldom") == 0

    # --- what is on the screens -----------------------------------------------------

    def lobbies(self) -> list[Table]:
        return [tb for tb in self.svc.tables.values() if tb.status == Status.LOBBY]

    def playing(self) -> list[Table]:
        return [tb for tb in self.svc.tables.values() if tb.status == Status.PLAYING]

    def hands(self) -> list[HandView]:
        """Every seated person's current hand message (and the menu he opened)."""
        out = []
        for table in self.playing():
            for user in table.humans():
                menu = self.menus.get((table.id, user))
                hv = self.fc.hands.get((table.id, user))
                if menu is not None and any(
                    decode_payload(b.payload).version == table.version
                    for b in buttons(menu.message)
                ):
                    out.append(menu)
                elif hv is not None:
                    out.append(hv)
        return out

    def old_buttons(self) -> list[tuple[str, str | None, Button]]:
        """Every button any chat was ever shown: (table, whose hand or None, button),
        table by table (`by_table`)."""
        out: list[tuple[str, str | None, Button]] = []
        for fc in [*self.old_chats, self.fc]:
            for post in fc.channel:
                out += [(post.table_id, None, b) for b in buttons(post.message)]
            for hv in fc.hand_history:
                out += [(hv.table_id, hv.user, b) for b in buttons(hv.message)]
        return by_table(out)

    def rematches(self) -> list[tuple[str, Button]]:
        """The Rematch button of every match that finished: (table, button), table by
        table (`by_table`)."""
        return by_table(
            [
                (u.table_id, u.result.rematch)
                for fc in [*self.old_chats, self.fc]
                for u in fc.updates
                if u.kind == "finished" and u.result is not None and u.result.rematch is not None
            ]
        )

    def upgrading(self) -> None:
        """Telegram makes the second group a supergroup: people write in the new one,
        whose computers and language are the old one's."""
        self.chats = [UPGRADED if c == CHATS[1] else c for c in self.chats]
        if CHATS[1].key in self.level_of:
            self.level_of[UPGRADED.key] = self.level_of[CHATS[1].key]
        self.lang_of[UPGRADED.key] = self.lang_of[CHATS[1].key]

    def pressable(self) -> list[tuple[UserRef, Button, ChatRef]]:
        """What people may press now, in its chat: a lobby's buttons (anybody of its
        platform), a running table's (its players), each hand's and menu's (its own)."""
        shown: list[tuple[UserRef, Button, ChatRef]] = []
        for table in self.svc.tables.values():
            chat = CHAT_OF[table.chat]
            if table.status == Status.LOBBY:
                for b in buttons(self.fc.lobbies[table.id].message):
                    people = [*PEOPLE[table.platform], STRANGERS[table.platform]]
                    shown += [(u, b, chat) for u in people]
            else:
                for b in buttons(self.fc.tables[table.id].message):
                    shown += [(BY_KEY[u], b, chat) for u in table.humans() if u in BY_KEY]
        shown += [
            (BY_KEY[hv.user], b, CHAT_OF[self.svc.tables[hv.table_id].chat])
            for hv in self.hands()
            for b in buttons(hv.message)
        ]
        return shown

    def turns(self) -> list[Table]:
        """The running tables waiting for a person: his clock may run out now."""
        return [tb for tb in self.playing() if tb.to_act() is not None]

    async def together(
        self,
        typed: list[Callable[[], Awaitable[Outcome]]],
        presses: list[tuple[UserRef, Button, ChatRef]],
        timeout: Table | None,
        *,
        in_turns: bool = False,
    ) -> list[Outcome]:
        """Commands typed and buttons pressed at the same moment, a turn's time-out
        firing with them (on the loop, as its timer would); their answers, settled:
        the commands' first.  `in_turns`: the store's writes one at a time (`turns`)."""
        if timeout is not None:
            self.svc._fire(timeout.id, timeout.version, "timeout")
        gathered = asyncio.gather(
            *(request() for request in typed),
            *(self.svc.act(u, b.payload, c) for u, b, c in presses),
        )
        if in_turns:
            await self.turns_of_writes(gathered)
        outs = await gathered
        await self.settle()
        return list(outs)

    async def turns_of_writes(self, gathered: asyncio.Future[Any]) -> None:
        """Until `gathered` is done, the store's writes wait, and the first one asked
        for goes in once nothing else is under way (no read, no write): requests at
        the same moment interleave alike on every run (their reads go in order, on
        one connection), where the writer's thread and the reader's racing would let
        them interleave otherwise on a replay, and hypothesis see another session.
        Each still runs until it must wait for its write (or a lock), the others
        meanwhile."""
        store = self.bot.store
        assert store is not None
        real_write, ro = store.write, store.ro
        real_read: Callable[..., Awaitable[Any]] = ro._execute
        held: list[asyncio.Future[None]] = []
        going = [0]  # reads and writes under way

        async def held_write(**kw: Any) -> None:
            turn = asyncio.get_running_loop().create_future()
            held.append(turn)
            await turn
            going[0] += 1
            try:
                await real_write(**kw)
            finally:
                going[0] -= 1

        async def read(fn: Callable[..., Any], *args: Any, **kw: Any) -> Any:
            going[0] += 1
            try:
                return await real_read(fn, *args, **kw)
            finally:
                going[0] -= 1

        loop = asyncio.get_running_loop()
        store.write = held_write  # type: ignore[method-assign]
        ro._execute = read  # type: ignore[method-assign]
        try:
            stuck = loop.time() + 20.0
            while not gathered.done():
                await until_idle(lambda: going[0] > 0, self.fc.describe)
                if held:
                    held.pop(0).set_result(None)
                    stuck = loop.time() + 20.0
                else:  # its answer on its way, or all wait for locks: a deadlock
                    assert loop.time() < stuck, f"no write and no answer: {self.fc.describe()}"
                    await asyncio.sleep(0.001)
        finally:
            store.write = real_write  # type: ignore[method-assign]
            ro._execute = real_read  # type: ignore[method-assign]
            for turn in held:
                turn.set_result(None)

    @invariant()
    def check_no_error_logged(self) -> None:
        bad = [f"{r.name}: {r.getMessage()}" for r in self.errors.records]
        assert not bad, "\n".join(bad)


def by_table(shown: list[_S]) -> list[_S]:
    """What the chats showed (table id first), table by table, each table's in the
    order it was shown.  Two tables that move at the same time (presses at once, the
    computers of several tables) post in an order the store's threads decide; a step
    drawing from the list in the order of the posts would press another button when
    hypothesis runs the same session again."""
    return sorted(shown, key=lambda item: item[0])


def long_sessions(share: int) -> settings:
    """The profile loaded (tests/conftest.py: "ci" in CI, "dev" locally) with a
    `share`-th of its examples, each a long session (longer if the profile's steps are
    more: the "deep" one's)."""
    profile = settings()
    return settings(
        profile,
        max_examples=max(2, profile.max_examples // share),
        stateful_step_count=max(60, profile.stateful_step_count),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
