"""Random chat sessions against the core: hypothesis drives `TableService` the way
chats do and checks, after every step, what users count on.

Every example opens tables of every game in two Telegram groups and a Discord server
(whose locale is German), each chat's computers at a level of their own (random,
heuristic, strong: every level in every session), and mixes, in any order: /new,
lobby buttons pressed by anyone, the start, a seated player pressing a button he was
shown (a card, a bid, a page of his hand), the same press by another seat, by a
stranger or by somebody of the other platform (one has a Telegram user's id on
Discord), an old button pressed again, "Show my hand", "Take my seat back", votes to
close, /abort, /resign and its confirmation (pressed by its asker or another),
/forgetme with or without its question (its button pressed by its asker or another),
a rematch, a chat's language and other settings (its computers' level among them), a
player switching his table's language (`set_table_language`), the bot removed from a
chat, a turn's reminder and time-out firing, Telegram or Discord out of reach for a
while, a few of these at the same moment, and the bot stopping or crashing and
starting again on the same file.

What must hold after each step:

* nothing public (the channel's messages, the events announced, a refusal's text)
  shows a card still hidden, and a hand shows only what its seat may see (the same
  judge as `test_leaks`: the engine's public view);
* a button bound to a seat (a game action, a hand's menu, a resignation's
  confirmation) does nothing for anybody else: refused, the table as it was; a
  table of the other platform is unknown to the presser;
* what the chat shows is the table as it is: every message a player holds is the one
  the core would draw now (a change never goes unannounced), and every open table has
  its next step armed (a computer never stalls, a turn always has its clock);
* a computer plays the level its table was opened with (its chat's then), and each
  decision is asked at the table as it stands, with the seat's own view and the
  legal moves only, and answers one of them;
* a table speaks its chat's language (the Discord server's own until an admin sets
  one), a chat's switch reaches all its tables, a player's switch his table alone;
* a person is stored under his account's name (not a Discord server's nickname);
* /forgetme's question changes nothing; his deletion hands over his seats, nobody
  else's (not his namesake's on the other platform), and leaves nothing stored that
  names him;
* a stop or a crash loses nothing: every open table comes back with the same
  state and draws the same messages;
* no exception escapes and the core logs no error;
* a finished or closed match's stored record replays with the engine to its score.

Timers are driven by hand: the clock stands still and turns are long, so nothing fires
on its own but a computer's move (`ai_delay` 0); a reminder, a time-out or a lobby's
expiry fires when a step says so, exactly as its timer would (`_fire`).  Each step
waits until the core is idle, so no step races a timer.  The computer decides on the
loop (`think`), the strong level on a small budget (`STRONG_BUDGET`).
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

from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

import engine.ai
from bot.i18n import norm_lang, t
from bot.payload import decode as decode_payload
from bot.service import ChatRef, Outcome, TableService, TableUpdate, UserRef
from bot.table import Status, Table
from bot.views import Button, HandView, Message
from engine import protocol as P
from engine.ai import Budget
from engine.ai.strong import StrongPlayer
from engine.games import available, game
from engine.record import replay_record

from .fakechat import (
    STILL_NOW,
    STILL_TIMINGS,
    Bot,
    FakeChat,
    Player,
    Posted,
    Seeds,
    busy,
    ids,
    snapshot,
    stored_mentions,
)
from .test_leaks import Watch, _label_cards_in, _public_cards

_T = TypeVar("_T")

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
#: default budget thinks some 40 ms a move; this one some 2 ms).
STRONG_BUDGET = Budget(playouts=8, worlds=2, seconds=1.0)


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


class ChatSessions(RuleBasedStateMachine):
    """One bot on one SQLite file, its chats and their users; see the module."""

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
        bot = bot or self.bot
        loop = asyncio.get_running_loop()
        end = loop.time() + 20
        quiet = 0
        while quiet < 3:
            await asyncio.sleep(0 if quiet else 0.001)
            quiet = 0 if busy(bot.svc) else quiet + 1
            if loop.time() > end:
                raise AssertionError(f"the core did not settle: {bot.fc.describe()}")

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
        """Every button any chat was ever shown: (table, whose hand or None, button)."""
        out: list[tuple[str, str | None, Button]] = []
        for fc in [*self.old_chats, self.fc]:
            for post in fc.channel:
                out += [(post.table_id, None, b) for b in buttons(post.message)]
            for hv in fc.hand_history:
                out += [(hv.table_id, hv.user, b) for b in buttons(hv.message)]
        return out

    # --- steps: opening and lobbies -------------------------------------------------

    @initialize(levels=st.permutations(LEVELS))
    def computer_levels(self, levels: list[str]) -> None:
        """Each chat's computers play a level of their own (its admin's `ai_level`):
        every level in some chat, so every session meets each."""
        for chat, level in zip(CHATS, levels, strict=True):
            admin = ADMIN[chat.platform]
            out = self.run(self.svc.update_setting(chat, admin, "ai_level", level, is_admin=True))
            assert out.ok, out
            self.level_of[chat.key] = level

    @precondition(lambda self: len(self.svc.tables) < 3)
    @rule(game_id=st.sampled_from(GAMES), data=st.data())
    def open_table(self, game_id: str, data: st.DataObject) -> None:
        """/new in a chat, more often in one that has a table already (two tables of
        a chat: a language or an /abort meets both)."""
        busy = [c for c in self.chats if self.svc.tables_in(c.key)]
        chat = data.draw(st.sampled_from([*self.chats, *busy]), label="chat")
        host = data.draw(st.sampled_from(PEOPLE[chat.platform]), label="host")
        preset = data.draw(st.sampled_from([None, *game(game_id).presets]), label="preset")
        out = self.run(self.svc.create_table(chat, host, game_id, preset=preset))
        self.run(self.settle())
        self.check_outcome(host, out)
        if out.ok:
            assert out.table_id in self.svc.tables and out.lobby is not None
            assert self.svc.tables[out.table_id].host == host.key
        else:
            assert out.code in ("seated_elsewhere", "not_allowed_to_start", "rules_fixed"), out

    @precondition(lambda self: self.lobbies())
    @rule(data=st.data())
    def lobby_press(self, data: st.DataObject) -> None:
        """Anybody presses any button of a lobby, in its chat or (a forged one) in
        another; a refusal changes nothing."""
        table = data.draw(st.sampled_from(self.lobbies()), label="lobby")
        lobby = self.fc.lobbies[table.id]
        b = data.draw(st.sampled_from(buttons(lobby.message)), label="button")
        user = data.draw(st.sampled_from(EVERYONE), label="presser")
        chat = data.draw(st.sampled_from([CHAT_OF[table.chat], *self.chats]), label="chat")
        out, unchanged = self.run(self.press(user, b.payload, chat))
        if not out.ok or verb(b.payload) == "ru":
            assert unchanged, (out, b)
        if user.platform != table.platform:
            assert out.code == "unknown_table", out

    @precondition(lambda self: self.lobbies())
    @rule(data=st.data())
    def fill_and_start(self, data: st.DataObject) -> None:
        """Some people press Join, the host seats computers in the seats left and
        presses Start."""
        table = data.draw(st.sampled_from(self.lobbies()), label="lobby")
        host = BY_KEY[table.host]
        chat = CHAT_OF[table.chat]
        people = PEOPLE[table.platform]
        for user in data.draw(st.lists(st.sampled_from(people), max_size=3), label="joiners"):
            join = [b for b in buttons(self.fc.lobbies[table.id].message) if verb(b.payload) == "j"]
            if join:
                out, unchanged = self.run(self.press(user, join[0].payload, chat))
                assert out.ok or unchanged, out
        while not self.fc.lobbies[table.id].can_start:
            ai = next(
                b for b in buttons(self.fc.lobbies[table.id].message) if verb(b.payload) == "ai"
            )
            out, _ = self.run(self.press(host, ai.payload, CHAT_OF[table.chat]))
            assert out.ok, out
        start = next(
            b for b in buttons(self.fc.lobbies[table.id].message) if verb(b.payload) == "st"
        )
        out, _ = self.run(self.press(host, start.payload, CHAT_OF[table.chat]))
        assert out.ok, out
        assert table.id not in self.svc.tables or self.svc.tables[table.id].status != Status.LOBBY
        event(f"a table started on {table.platform}")

    @precondition(lambda self: self.lobbies())
    @rule(data=st.data())
    def lobby_expires(self, data: st.DataObject) -> None:
        if not self.seldom(data, 3):
            return
        table = data.draw(st.sampled_from(self.lobbies()), label="lobby")
        self.run(self.fire(table, "expire"))
        assert table.id not in self.svc.tables
        assert self.fc.kinds(table.id)[-1] == "aborted"

    # --- steps: playing -------------------------------------------------------------

    @precondition(lambda self: any(buttons(hv.message) for hv in self.hands()))
    @rule(data=st.data())
    def own_press(self, data: st.DataObject) -> None:
        """A seated player presses a button of his hand (or of the menu it opened):
        a current one does what it says."""
        hv = data.draw(
            st.sampled_from([h for h in self.hands() if buttons(h.message)]), label="hand"
        )
        b = data.draw(st.sampled_from(buttons(hv.message)), label="button")
        table = self.svc.tables[hv.table_id]
        current = decode_payload(b.payload).version == table.version
        out, unchanged = self.run(self.press(BY_KEY[hv.user], b.payload))
        event(f"own press: {verb(b.payload)} {out.code}")
        if out.hand is not None:
            self.menus[(hv.table_id, hv.user)] = out.hand
        else:
            self.menus.pop((hv.table_id, hv.user), None)
        if current and verb(b.payload) in VERSIONED:
            assert out.ok, (out, b, hv.message.text)
        if not out.ok:
            assert unchanged, out

    @precondition(lambda self: self.playing())
    @rule(data=st.data(), presses=st.integers(1, 40))
    def play_on(self, data: st.DataObject, presses: int) -> None:
        """The people at a table play on for a while, as `play_out` does."""
        table = data.draw(st.sampled_from(self.playing()), label="table")
        players = [Player(self.fc, BY_KEY[u]) for u in table.humans()]
        for _ in range(presses):
            if table.id not in self.svc.tables:
                break
            for pl in players:
                out = self.run(pl.take_turn(table.id))
                if out is not None:
                    assert out.ok, out
                    self.run(self.settle())
                    break
            else:
                break  # nobody's turn: a computer's that never comes, caught below
        self.menus.clear()

    @precondition(lambda self: self.hands())
    @rule(data=st.data())
    def foreign_press(self, data: st.DataObject) -> None:
        """Somebody presses a button of another's hand (it was forwarded, or forged):
        refused, nothing changes."""
        bound = [
            (hv, b)
            for hv in self.hands()
            for b in buttons(hv.message)
            if verb(b.payload) in SEAT_BOUND
        ]
        if not bound:
            return
        hv, b = data.draw(st.sampled_from(bound), label="button")
        others = [u for u in EVERYONE if u.key != hv.user]
        user = data.draw(st.sampled_from(others), label="presser")
        out, unchanged = self.run(self.press(user, b.payload))
        event(f"foreign press: {verb(b.payload)} {out.code}")
        assert not out.ok, (user.key, hv.user, b, out)
        assert unchanged, out
        if user.platform != self.svc.tables[hv.table_id].platform:
            assert out.code == "unknown_table", out

    @precondition(lambda self: self.playing())
    @rule(data=st.data())
    def stranger_press(self, data: st.DataObject) -> None:
        """One not seated presses any button of a running table (its message, a
        hand): only the rules answer him, nothing changes."""
        table = data.draw(st.sampled_from(self.playing()), label="table")
        shown = buttons(self.fc.tables[table.id].message)
        shown += [b for hv in self.hands() if hv.table_id == table.id for b in buttons(hv.message)]
        if not shown:
            return
        b = data.draw(st.sampled_from(shown), label="button")
        seated = set(table.humans())
        user = data.draw(
            st.sampled_from([u for u in EVERYONE if u.key not in seated]),
            label="presser",
        )
        out, unchanged = self.run(self.press(user, b.payload, CHAT_OF[table.chat]))
        event(f"stranger press: {verb(b.payload)} {out.code}")
        assert unchanged, (user.key, b, out)
        assert not out.ok or verb(b.payload) == "ru", (user.key, b, out)
        if user.platform != table.platform:
            assert out.code == "unknown_table", out

    @precondition(lambda self: self.svc.tables)
    @rule(data=st.data())
    def stale_press(self, data: st.DataObject) -> None:
        """A button drawn at an older version of the table is pressed by the one it
        was shown to (a hand's) or by a seated player (the channel's): a card, a bid
        or a menu is refused; nothing is ever pressed twice."""
        old = [
            (tid, owner, b)
            for tid, owner, b in self.old_buttons()
            if tid in self.svc.tables
            and decode_payload(b.payload).version < self.svc.tables[tid].version
        ]
        moves = [(tid, owner, b) for tid, owner, b in old if verb(b.payload) in VERSIONED]
        prefer_moves = data.draw(st.booleans(), label="a move")
        if moves and prefer_moves:
            old = moves
        if not old:
            return
        tid, owner, b = data.draw(st.sampled_from(old), label="button")
        table = self.svc.tables[tid]
        pressers = [owner] if owner is not None else table.humans()
        if not pressers:
            return
        user = BY_KEY.get(data.draw(st.sampled_from(pressers), label="presser"), STRANGER)
        out, unchanged = self.run(self.press(user, b.payload, CHAT_OF[table.chat]))
        event(f"stale press: {verb(b.payload)} {out.code}")
        if verb(b.payload) in VERSIONED:
            assert not out.ok, (b, out)
        if not out.ok:
            assert unchanged, out

    @precondition(lambda self: self.playing())
    @rule(data=st.data())
    def table_button(self, data: st.DataObject) -> None:
        """A seated player presses a button of the table message: Show my hand, Take
        my seat back, Close the table too, the rules."""
        table = data.draw(st.sampled_from(self.playing()), label="table")
        shown = buttons(self.fc.tables[table.id].message)
        if not shown or not table.humans():
            return
        b = data.draw(st.sampled_from(shown), label="button")
        user = BY_KEY[data.draw(st.sampled_from(table.humans()), label="presser")]
        out, unchanged = self.run(self.press(user, b.payload, CHAT_OF[table.chat]))
        if verb(b.payload) == "h":
            assert out.ok and out.hand is not None, out
        if not out.ok or verb(b.payload) in ("h", "ru"):
            assert unchanged, out

    @precondition(lambda self: self.playing())
    @rule(data=st.data(), what=st.sampled_from(["timeout", "timeout", "remind"]))
    def clock_runs_out(self, data: st.DataObject, what: str) -> None:
        """The person to act lets his reminder come, or his time run out: the
        computer plays for him."""
        table = data.draw(st.sampled_from(self.playing()), label="table")
        seat = table.to_act()
        assert seat is not None
        s = table.seats[seat]
        assert s is not None and s.user is not None
        version, seen = table.version, len(self.fc.updates)
        self.run(self.fire(table, what))
        if what == "remind":
            assert [(u.kind, u.user) for u in self.fc.updates[seen:]] == [("reminder", s.user)]
        else:
            assert table.id not in self.svc.tables or table.version > version
        self.menus.clear()

    @precondition(lambda self: self.playing())
    @rule(data=st.data())
    def walk_away(self, data: st.DataObject) -> None:
        """A player stops pressing: his turns run out until the computer takes his
        seat (the others play on meanwhile)."""
        table = data.draw(st.sampled_from(self.playing()), label="table")
        if not table.present():
            return
        walker = data.draw(st.sampled_from(table.present()), label="walker")
        others = [Player(self.fc, BY_KEY[u]) for u in table.humans() if u != walker]
        for _ in range(60):
            seat = table.to_act()
            s = table.seats[seat] if seat is not None else None
            if table.id not in self.svc.tables or s is None or walker not in table.present():
                break
            if s.user == walker:
                self.run(self.fire(table, "timeout"))
            elif not any(self.run(pl.take_turn(table.id)) for pl in others):
                break
            self.run(self.settle())
        self.menus.clear()

    @precondition(lambda self: self.svc.tables)
    @rule(data=st.data())
    def at_once(self, data: st.DataObject) -> None:
        """Two or three things happen at the same moment: players press what they
        see (a double tap, two players, a stranger), a timer fires.  Each is answered
        as if it came alone, before or after the others."""
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
        timers = [tb for tb in self.playing() if tb.to_act() is not None]
        if not shown:
            return
        presses = data.draw(
            st.lists(st.sampled_from(shown), min_size=1, max_size=3), label="presses"
        )
        fire = data.draw(st.sampled_from([None, *timers]), label="a timer")

        async def together() -> list[Outcome]:
            if fire is not None:
                self.svc._fire(fire.id, fire.version, "timeout")
            outs = await asyncio.gather(*(self.svc.act(u, b.payload, c) for u, b, c in presses))
            await self.settle()
            return list(outs)

        for (user, _, _), out in zip(presses, self.run(together()), strict=True):
            self.check_outcome(user, out)
        self.menus.clear()

    @precondition(lambda self: self.svc.tables)
    @rule(data=st.data())
    def outage(self, data: st.DataObject) -> None:
        """Telegram or Discord is out of reach for a while (`hold`, then `listen`): no
        person's clock there runs meanwhile, not even a time-out that fires as it goes."""
        playing = sorted({tb.platform for tb in self.playing()})
        platform = data.draw(st.sampled_from(playing or PLATFORMS), label="platform")
        before = self.run(self.drawn())

        async def hold() -> None:  # on the loop, as an adapter calls it
            self.svc.hold(platform)

        self.run(hold())
        turns = [tb for tb in self.playing() if tb.to_act() is not None and tb.platform == platform]
        if turns:
            table = data.draw(st.sampled_from(turns), label="table")
            self.run(self.fire(table, data.draw(st.sampled_from(["timeout", "remind"]))))
        assert self.run(self.drawn()) == before, "a person's turn moved while he could not press"
        self.run(self.serve(self.bot, platform))
        self.run(self.settle())
        assert self.run(self.drawn()) == before

    @precondition(lambda self: self.svc.tables)
    @rule(data=st.data())
    def chat_lost(self, data: st.DataObject) -> None:
        """The bot was removed from a chat: its tables close."""
        if not self.seldom(data, 4):
            return
        chat = data.draw(st.sampled_from(self.chats), label="chat")
        closed = self.run(self.svc.close_chat(chat, "group_lost"))
        self.run(self.settle())
        assert not self.svc.tables_in(chat.key)
        assert all(self.fc.kinds(tid)[-1] == "aborted" for tid in closed)

    # --- steps: closing -------------------------------------------------------------

    @precondition(lambda self: self.svc.tables)
    @rule(data=st.data(), is_admin=st.booleans())
    def abort(self, data: st.DataObject, is_admin: bool) -> None:
        """/abort typed in a chat (by a player: his vote; by an admin: any table)."""
        if not self.seldom(data, 2 if not is_admin else 4):
            return
        chat = data.draw(st.sampled_from(self.chats), label="chat")
        people = [*PEOPLE[chat.platform], STRANGERS[chat.platform]]
        user = data.draw(st.sampled_from(people), label="user")
        out = self.run(self.svc.abort(chat, user, is_admin=is_admin))
        self.run(self.settle())
        self.check_outcome(user, out)

    @precondition(lambda self: self.playing())
    @rule(data=st.data())
    def resign(self, data: st.DataObject) -> None:
        """/resign asks first; its button resigns for its asker only."""
        table = data.draw(st.sampled_from(self.playing()), label="table")
        if not table.humans():
            return
        user = BY_KEY[data.draw(st.sampled_from(table.humans()), label="asker")]
        out = self.run(self.svc.resign(CHAT_OF[table.chat], user, ask=True))
        assert out.ok and out.confirm is not None, out
        payload = out.confirm[1]
        presser = data.draw(st.sampled_from(EVERYONE), label="presser")
        out, unchanged = self.run(self.press(presser, payload, CHAT_OF[table.chat]))
        if presser.key == user.key:
            assert out.ok and out.code == "resigned", out
            assert table.id not in self.svc.tables
        else:
            assert not out.ok and unchanged, out
            if presser.platform != table.platform:
                expected = "unknown_table"
            elif table.seat_of(presser.key) is not None:
                expected = "not_your_button"
            else:
                expected = "not_seated"
            assert out.code == expected, out

    @precondition(lambda self: self.svc.tables)
    @rule(data=st.data())
    def forget(self, data: st.DataObject) -> None:
        """/forgetme, mostly of one seated somewhere: it asks first, changing nothing;
        its button (shown to him alone, in his private chat) deletes whoever presses
        it.  Or a command that does not ask."""
        if not self.seldom(data, 4):
            return
        seated = [BY_KEY[u] for tb in self.svc.tables.values() for u in tb.humans()]
        # one whose namesake on the other platform sits somewhere: not his seat to give up
        namesakes = [u for u in EVERYONE if any(o.id == u.id and o != u for o in seated)]
        user = data.draw(st.sampled_from([*seated, *namesakes, *EVERYONE]), label="user")
        ask = data.draw(st.sampled_from([True, True, False]), label="ask")
        if not ask:
            self.forgotten(user, lambda: self.svc.forget(user))
            return
        playing = any(tb.seat_of(user.key) is not None for tb in self.svc.tables.values())
        out, unchanged = self.run(self.change(user, lambda: self.svc.forget(user, ask=True)))
        assert out.ok and out.code == "confirm" and out.confirm is not None, out
        assert unchanged, out
        # the question says that his seats go to the computer, when he has any
        asked = "confirm.forget_playing" if playing else "confirm.forget"
        assert out.text == t(norm_lang(user.speaks), asked), (playing, out)
        payload = out.confirm[1]
        presser = data.draw(st.sampled_from([user, user, user, *EVERYONE]), label="presser")
        event(f"/forgetme asked, pressed by {'him' if presser == user else 'another'}")
        self.forgotten(presser, lambda: self.svc.act(presser, payload))

    def forgotten(self, user: UserRef, request: Callable[[], Awaitable[Outcome]]) -> None:
        """`user` deletes his data: his seats go, nobody else's (his namesake on the
        other platform keeps his), and nothing stored names him any more."""
        others = {
            tid: sorted(u for u in tb.humans() if u != user.key)
            for tid, tb in self.svc.tables.items()
        }
        seated = sum(tb.seat_of(user.key) is not None for tb in self.svc.tables.values())
        event(f"forgotten with {seated} seat(s)")
        out, _ = self.run(self.change(user, request))
        assert out.ok and out.code == "forgotten", out
        for tid, tb in self.svc.tables.items():
            assert tb.seat_of(user.key) is None and user.key not in tb.votes, (tid, user)
            assert tb.host != user.key, (tid, user)
            if tid in others:
                assert sorted(u for u in tb.humans()) == others[tid], (tid, user, others[tid])
        found = self.run(self.stored_of(user.key))
        assert not found, f"{user.key} forgotten, but the store holds {found}"
        self.names_checked.discard(user.key)  # stored again when he sits down again

    async def stored_of(self, key: str) -> list[str]:
        store = self.bot.store
        assert store is not None
        return await stored_mentions(store, key)

    @precondition(lambda self: any(f in self.ended for f in self.chat_of))
    @rule(data=st.data())
    def rematch(self, data: st.DataObject) -> None:
        rematches = [
            (u.table_id, u.result.rematch)
            for fc in [*self.old_chats, self.fc]
            for u in fc.updates
            if u.kind == "finished" and u.result is not None and u.result.rematch is not None
        ]
        if not rematches:
            return
        tid, b = data.draw(st.sampled_from(rematches), label="button")
        user = data.draw(st.sampled_from(EVERYONE), label="presser")
        chat = CHAT_OF[self.chat_of[tid]]
        out, unchanged = self.run(self.press(user, b.payload, chat))
        if not out.ok:
            assert unchanged, out
        if user.platform != chat.platform:
            assert out.code == "unknown_table", out

    @precondition(lambda self: self.svc.tables)
    @rule(lang=st.sampled_from(["de", "en"]), data=st.data())
    def language(self, lang: str, data: st.DataObject) -> None:
        """An admin switches the chat's language: its running tables too (a table
        one of its players switched follows it then); another chat's keep theirs."""
        if not self.seldom(data, 2):
            return
        chat = data.draw(st.sampled_from(self.chats), label="chat")
        admin = ADMIN[chat.platform]
        before = self.languages()
        out = self.run(self.svc.update_setting(chat, admin, "language", lang, is_admin=True))
        self.run(self.settle())
        assert out.ok, out
        switched = lang != self.lang_of[chat.key]
        self.lang_of[chat.key] = lang
        for tid, spoken in self.languages().items():
            if self.svc.tables[tid].chat == chat.key and switched:
                assert spoken == lang, (tid, spoken, lang)
            else:
                assert spoken == before.get(tid), (tid, spoken, before.get(tid))

    def languages(self) -> dict[str, str | None]:
        """The language each open table speaks."""
        return {tid: tb.settings.get("lang") for tid, tb in self.svc.tables.items()}

    @precondition(lambda self: self.svc.tables)
    @rule(lang=st.sampled_from(["de", "en", "de-AT", "fr"]), data=st.data())
    def table_language(self, lang: str, data: st.DataObject) -> None:
        """A player makes his table speak another language (`set_table_language`: the
        terminal resuming a game under another locale; one we lack is English): that
        table alone, redrawn.  Anybody not seated there is refused, nothing changed."""
        table = data.draw(st.sampled_from(list(self.svc.tables.values())), label="table")
        seated = [BY_KEY[u] for u in table.humans()]
        user = data.draw(st.sampled_from([*seated, *EVERYONE]), label="user")
        mine = table.seat_of(user.key) is not None
        before = self.languages()
        out, unchanged = self.run(
            self.change(user, lambda: self.svc.set_table_language(table.id, user, lang))
        )
        event(f"table language: {'seated' if mine else 'not seated'}")
        if mine:
            assert out.ok and out.table_id == table.id, out
            before[table.id] = norm_lang(lang)
        else:
            assert not out.ok and out.code == "no_table" and unchanged, out
        assert self.languages() == before

    @precondition(lambda self: self.svc.tables)
    @rule(setting=st.sampled_from(SETTINGS), data=st.data())
    def setting(self, setting: tuple[str, str], data: st.DataObject) -> None:
        """An admin changes a chat setting: tables opened afterwards follow it."""
        if not self.seldom(data, 2):
            return
        chat = data.draw(st.sampled_from(self.chats), label="chat")
        admin = ADMIN[chat.platform]
        out = self.run(self.svc.update_setting(chat, admin, *setting, is_admin=True))
        self.run(self.settle())
        assert out.ok, out
        key, value = setting
        if key == "ai_level":
            self.level_of[chat.key] = LEVELS[0] if value == "default" else value

    @precondition(lambda self: CHATS[1] in self.chats and self.svc.tables_in(CHATS[1].key))
    @rule()
    def chat_upgraded(self) -> None:
        """Telegram made the second group a supergroup, with a new id: its tables
        follow, and play on there.  The old group is gone for good (Telegram sends
        nothing of it again), so no step uses it after."""
        self.chats = [UPGRADED if c == CHATS[1] else c for c in self.chats]
        if CHATS[1].key in self.level_of:
            self.level_of[UPGRADED.key] = self.level_of[CHATS[1].key]
        self.lang_of[UPGRADED.key] = self.lang_of[CHATS[1].key]
        moved = self.run(self.svc.move_chat(CHATS[1], UPGRADED))
        self.run(self.settle())
        assert moved and all(self.svc.tables[tid].chat == UPGRADED.key for tid in moved)
        assert not self.svc.tables_in(CHATS[1].key)

    # --- steps: the bot stops --------------------------------------------------------

    @precondition(lambda self: self.svc.tables)
    @rule(crash=st.booleans(), data=st.data())
    def restart(self, crash: bool, data: st.DataObject) -> None:
        """Stop (or kill) the bot and start it on the same file: every open table is
        back as it was, drawing the same messages."""
        if not self.seldom(data, 3):
            return
        before = self.run(self.drawn())
        self.old_chats.append(self.fc)
        self.run(self.bot.crash() if crash else self.bot.stop())
        self.bot = self.run(self._start())
        after = self.run(self.drawn())
        event(f"restart with {len(after)} open table(s)")
        for tid in sorted(before.keys() | after.keys()):
            assert after.get(tid) == before.get(tid), f"table {tid} came back otherwise"

    async def drawn(self) -> dict[str, object]:
        """Every open table's state and every message it draws."""
        svc = self.svc
        out: dict[str, object] = {}
        for tid, table in sorted(svc.tables.items()):
            log = await self.bot.store.table_log(tid)  # type: ignore[union-attr]
            for e in log:
                e.pop("at", None)
            out[tid] = (
                table.version,
                str(table.status),
                table.host,
                [(s.user, s.name, s.ai, s.missed, s.forgot) if s else None for s in table.seats],
                sorted(table.votes),
                table.record(),
                table.legal_codes(),
                table.deadline,
                log,
                svc.lobby(tid),
                svc.table(tid),
                [svc.hand(tid, u, LANGS.get(u)) for u in table.humans()],
            )
        return out

    # --- invariants -----------------------------------------------------------------

    @invariant()
    def check_no_error_logged(self) -> None:
        bad = [f"{r.name}: {r.getMessage()}" for r in self.errors.records]
        assert not bad, "\n".join(bad)

    @invariant()
    def nothing_hidden_shown(self) -> None:
        assert not self.watch.problems, "\n".join(self.watch.problems[:5])
        for table in self.playing():
            tv = self.svc.table(table.id)
            assert tv is not None
            text = tv.message.text + "\n" + " ".join(b.label for b in buttons(tv.message))
            assert table.deal_log is not None
            self.watch.check_text("table", text, self.watch.hidden(table), table.deal_log.seed)
            assert not self.watch.problems, self.watch.problems[0]
            for user in table.humans():
                hv = self.svc.hand(table.id, user, LANGS.get(user))
                assert hv is not None and hv.user == user
                self.check_hand(hv)

    @invariant()
    def the_chat_shows_the_table(self) -> None:
        """Every message players hold is what the core draws now."""
        svc, fc = self.svc, self.fc
        for tid, table in svc.tables.items():
            if table.status == Status.LOBBY:
                assert fc.lobbies[tid] == svc.lobby(tid), f"lobby {tid} not redrawn"
                continue
            assert fc.tables[tid] == svc.table(tid), f"table {tid} not redrawn"
            for user in table.humans():
                assert fc.hands.get((tid, user)) == svc.hand(tid, user, LANGS.get(user)), (
                    f"{user}'s hand at {tid} not redrawn"
                )

    @invariant()
    def every_table_moves_on(self) -> None:
        """An open table waits for a person, and the clock of his turn runs (or its
        lobby's): a timer of its current version, for a timer of an older one does
        nothing."""
        for tid, table in self.svc.tables.items():
            assert not table.unsaved
            timers = self.svc._timers.get(tid)
            armed = {
                h._args[1:]  # (table, version, what)
                for h in (timers.handles if timers else [])
                if not h.cancelled()
            }
            if table.status == Status.LOBBY:
                assert (table.version, "expire") in armed, (tid, armed)
                continue
            seat = table.to_act()
            assert seat is not None, f"nobody to act at {tid}"
            s = table.seats[seat]
            assert s is not None and s.human_playing, self.describe()
            assert (table.version, "timeout") in armed, (tid, armed, self.describe())

    @invariant()
    def computers_play_their_level(self) -> None:
        """Every computer at a table plays the level the table was opened with (its
        chat's then), and each decision was asked and answered as `think` checks."""
        assert not self.ai_problems, "\n".join(self.ai_problems[:5])
        for tid, table in self.svc.tables.items():
            level = self.opened_with.get(tid)
            assert table.settings.get("ai_level") == level, (tid, table.settings, level)
            for s in table.seats:
                assert s is None or s.ai in (None, level), (tid, s, level)
        for level in sorted(self.thought):
            event(f"the {level} computer moved")
        self.thought.clear()

    @invariant()
    def tables_open_as_their_chat_says(self) -> None:
        """A table opened in a chat speaks its language: the one its admin set, else
        the platform's for it (the Discord server's German)."""
        assert not self.opening_problems, "\n".join(self.opening_problems[:5])

    @invariant()
    def the_store_agrees(self) -> None:
        """The open tables and their versions, and each seated person as the boards
        name him: his account's name (on Discord not a server's nickname), and his
        own language."""

        async def check() -> None:
            store = self.bot.store
            assert store is not None
            rows = await store.open_tables()
            assert sorted(r.id for r in rows) == sorted(self.svc.tables)
            for r in rows:
                assert r.version == self.svc.tables[r.id].version
            for table in self.svc.tables.values():
                for key in set(table.humans()) - self.names_checked:
                    user = BY_KEY[key]
                    stored = await store.player(key)
                    assert stored == (user.account_name or user.name, user.lang), (key, stored)
                    self.names_checked.add(key)

        self.run(check())

    @invariant()
    def records_replay(self) -> None:
        """A match that ended (or closed after a scored deal) replays to its score."""
        for tid, (summary, deals) in self.ended.items():
            if tid in self.checked_records:
                continue
            self.checked_records.add(tid)
            record = self.run(self.bot.store.game_record(tid))  # type: ignore[union-attr]
            if record is None:
                # closed before any deal was scored: no record (docs/records.md)
                assert not any(summary.get("scores", [])), (tid, summary)
                continue
            event(f"record replayed: {record['game']}")
            code, answer = replay_record(record)
            assert code == 0, (tid, answer)
            assert isinstance(answer, dict)
            assert answer["scores"] == list(summary["scores"]), (tid, answer, summary)
            assert len(record["deals"]) in (deals, deals - 1), (tid, deals)


def long_sessions(share: int) -> settings:
    """The profile loaded (tests/conftest.py: "ci" in CI, "dev" locally) with a
    `share`-th of its examples, each a long session."""
    profile = settings()
    return settings(
        profile,
        max_examples=max(2, profile.max_examples // share),
        stateful_step_count=60,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )


ChatSessions.TestCase.settings = long_sessions(2)
TestChatSessions = ChatSessions.TestCase
