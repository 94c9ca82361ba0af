"""Killed at any commit: random sessions of every game, and a bot started on the
database exactly as a kill -9 would have left it after each of many commits.

A process killed at any instant leaves on disk the commits made before it and
nothing else (WAL with ``synchronous=FULL``: a transaction is there whole or not at
all).  So instead of abandoning a running bot in the process (its cancelled tasks
would still run their ``finally`` blocks), the session plays uninterrupted and the
store's writer copies the database (SQLite's backup, right after a ``COMMIT``, on
the writer's thread) at randomly chosen commits: each copy is the file a kill at that
moment leaves, whatever the loop was doing then (a computer thinking, a press half
handled, a change waiting in the writer's queue).  Between two writes of one request
is a commit like any other: what one request stores must not lean on a second
(/new, a join, /forgetme, a chat's language and a rematch's join are each one).

For each copy a new bot starts, as if after a while down (none, an hour, two), and
must bring back what users were told:
* every open table is exactly one the session had at that version once stored
  (seats, votes, deals, scores, deadline, and every message it draws): nothing
  reached in memory only comes back, and nothing comes back half (a lobby without
  its host);
* every person seated is stored under his name (boards and records name him);
* every change announced, or answered as done, before the kill is stored;
* every end stored before the kill (a deal's result, a match's end, a closed table)
  that its chat was not shown yet is shown once its platform serves, once, as the
  uninterrupted session showed it; and nothing else is told again: no end its chat
  confirmed, nothing the session never showed as an end;
* once its platform serves, every open table moves on (a person's turn has its
  clock, with at least the reminder's time; a lobby its expiry; a computer its
  move), and no error is logged;
* played to the end after the restart (killed once more now and then, and started
  again on that), every match counts once: one game record for each finished match,
  results for none other, and each rating's game count is the number of rated
  matches it stands on.

The draws are seeded and the kills land on the same commits each run.
`CRASH_HUNT_SESSIONS` (default 2), `CRASH_HUNT_KILLS` (restarts checked per session,
default 3), `CRASH_HUNT_STEPS` (default 25) run more locally; `CRASH_HUNT_SEED` names
the first session.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import random
from collections import Counter
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bot.payload import decode as decode_payload
from bot.service import ChatRef, Outcome, TableService, TableUpdate, UserRef
from bot.store import CLOSED, Store, TableChange
from bot.table import Status, Table
from bot.telling import TOLD_KINDS
from engine.games import available

from .fakechat import (
    STILL_NOW,
    STILL_TIMINGS,
    Bot,
    CommitCopies,
    Player,
    Seeds,
    busy,
    ids,
    inline_ai,
    until_idle,
)

SESSIONS = int(os.environ.get("CRASH_HUNT_SESSIONS", "2"))
KILLS = int(os.environ.get("CRASH_HUNT_KILLS", "3"))
FIRST_SEED = int(os.environ.get("CRASH_HUNT_SEED", "0"))
STEPS = int(os.environ.get("CRASH_HUNT_STEPS", "25"))
#: A person's moves at one table in a play-out before he resigns: a Thousand to 1000
#: points is long, and its end counts as any other.
PATIENCE = 40

CHATS = [ChatRef("tg", "-1001", "Stammtisch"), ChatRef("tg", "-1002", "Hinterzimmer")]
PEOPLE = [UserRef("tg", str(100 + i), n) for i, n in enumerate(["Anna", "Bert", "Cilli", "Done"])]
OURS = ("bot", "engine", "tests")
#: What the hunt checked, for a local run's report: restarts, tables brought back,
#: announcements and answers looked up, ends stored but not shown before the kill.
TALLY = {"restarts": 0, "tables": 0, "told": 0, "unshown": 0}


class _Errors(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.split(".")[0] in OURS:
            self.lines.append(f"{record.name}: {record.getMessage()}")


def fingerprint(svc: TableService, table: Table) -> tuple[object, ...]:
    """A table as users meet it: its state and every message it draws."""
    unsaved, table.unsaved = table.unsaved, False  # drawn as it is once stored
    try:
        return (
            table.version,
            str(table.status),
            table.chat,
            table.host,
            [
                (s.user, s.name, s.ai, s.missed, s.timed_out_at, s.forgot) if s else None
                for s in table.seats
            ],
            sorted(table.votes),
            dict(table.settings),
            table.record(),
            table.legal_codes(),
            table.deadline,
            svc.lobby(table.id),
            svc.table(table.id),
            [svc.hand(table.id, u) for u in table.humans()],
        )
    finally:
        table.unsaved = unsaved


#: What users had been told when a copy was taken: (table id, version, what) of each
#: announcement and each request answered "done".
Told = list[tuple[str, int, str]]
#: The ends a session showed (a deal's result, a match's end, a close), by (table id,
#: version, kind), without their events (no adapter reads them).
Ends = dict[tuple[str, int, str], TableUpdate]


@dataclass
class Recorder:
    """Watches one bot: copies its database at chosen commits (`CommitCopies`), with
    what users had been told by then, and keeps each table's fingerprint at every
    version it stored."""

    bot: Bot
    dir: Path
    rng: random.Random
    odds: float
    told: Told = field(default_factory=list)
    prints: dict[tuple[str, int], tuple[object, ...]] = field(default_factory=dict)
    ends: Ends = field(default_factory=dict)
    copies: CommitCopies | None = None
    #: Changes being stored that score a deal or close a table: a kill right after
    #: one, before the chat is shown it, is aimed at more often.
    ending: int = 0

    def __post_init__(self) -> None:
        store, svc = self.bot.db, self.bot.svc

        def pick(n: int, change: bool) -> bool:
            # a write that is not a table's change (a new table, a deletion, a
            # player's name) is most often one of several a request makes
            odds = (0.3 if self.ending else self.odds) if change else 0.5
            return self.rng.random() < odds

        # what was told so far was told of commits up to this one: the next cannot be
        # made while the writer's thread copies
        self.copies = CommitCopies(store, self.dir, pick, lambda: list(self.told))
        append = store.append

        async def append_and_print(table_id: str, *args: Any, **kwargs: Any) -> None:
            entries: Sequence[dict[str, Any]] = args[1]
            # a deal's end deals the next one in its change
            ends = kwargs["status"] in CLOSED or any(e["k"] == "deal" for e in entries)
            self.ending += ends
            try:
                await append(table_id, *args, **kwargs)
            finally:
                self.ending -= ends
            also: Sequence[TableChange] = kwargs.get("also", ())
            for tid in (table_id, *(c.table_id for c in also)):
                table = svc.tables.get(tid)
                if table is not None:
                    self.prints[(tid, table.version)] = fingerprint(svc, table)

        store.append = append_and_print  # type: ignore[method-assign]
        self.bot.fc.on_update.append(self.on_update)

    def on_update(self, update: TableUpdate) -> None:
        if update.kind != "reminder":
            self.told.append((update.table_id, update.version, update.kind))
        if update.kind in TOLD_KINDS:
            self.ends[(update.table_id, update.version, update.kind)] = _end(update)
        table = self.bot.svc.tables.get(update.table_id)
        if table is not None and not table.unsaved:
            # a new lobby is stored whole, not through `append`
            self.prints.setdefault((table.id, table.version), fingerprint(self.bot.svc, table))

    def answered(self, svc: TableService, out: Outcome) -> None:
        """A person was told his request went through: its change is stored."""
        if out.ok and out.table_id is not None:
            table = svc.tables.get(out.table_id)
            if table is not None and not table.unsaved:
                self.told.append((out.table_id, table.version, out.code or "ok"))


def _end(update: TableUpdate) -> TableUpdate:
    return dataclasses.replace(update, events=())


def make_bot(
    path: Path, seed_source: Seeds, level: str, table_ids: str = "t", now: float = STILL_NOW
) -> Bot:
    return Bot(
        path,
        STILL_TIMINGS,
        seed_source,
        ids(table_ids),
        clock=lambda: now,
        ai_level=level,
        ai_runner=inline_ai,
    )


async def settle(svc: TableService) -> None:
    """Until the core waits for a person (bounded: a stall fails)."""
    await until_idle(
        lambda: busy(svc), lambda: " ".join(f"{t.id} v{t.version}" for t in svc.tables.values())
    )


class Session:
    """Random requests of four people in two chats, every game, computers filling
    the seats nobody takes."""

    def __init__(self, bot: Bot, rng: random.Random, record: Recorder | None) -> None:
        self.bot = bot
        self.rng = rng
        self.record = record
        self.players = {u.key: Player(bot.fc, u) for u in PEOPLE}

    @property
    def svc(self) -> TableService:
        return self.bot.svc

    def chat_of(self, table_id: str) -> ChatRef:
        key = next(u.chat for u in self.bot.fc.updates if u.table_id == table_id)
        return next(c for c in CHATS if c.key == key)

    def free(self, chat: ChatRef) -> list[UserRef]:
        return [u for u in PEOPLE if self.svc.table_of(chat.key, u.key) is None]

    async def request(self, coro: Awaitable[Outcome]) -> Outcome:
        out = await coro
        if self.record is not None:
            self.record.answered(self.svc, out)
        return out

    async def press(self, user: UserRef, payload: str, chat: ChatRef | None = None) -> Outcome:
        return await self.request(self.svc.act(user, payload, chat))

    def button(self, table: Table, verb: str) -> str | None:
        """The payload of a button with this verb on the table's lobby or message."""
        view = (self.bot.fc.lobbies if table.status == Status.LOBBY else self.bot.fc.tables).get(
            table.id
        )
        for b in view.message.all_buttons() if view is not None else []:
            if decode_payload(b.payload).verb == verb:
                return b.payload
        return None

    async def open_table(self) -> None:
        chat = self.rng.choice(CHATS)
        free = self.free(chat)
        if not free:
            return
        host = self.rng.choice(free)
        out = await self.request(self.svc.create_table(chat, host, self.rng.choice(available())))
        if not out.ok or out.table_id is None:
            return
        table = self.svc.tables[out.table_id]
        others = [u for u in free if u != host]
        self.rng.shuffle(others)
        for u in others[: self.rng.randrange(table.players)]:
            if (p := self.button(table, "j")) is not None:
                await self.press(u, p, chat)
        if self.rng.random() < 0.85:
            await self.fill_and_start(table)

    async def fill_and_start(self, table: Table) -> None:
        host = next((u for u in PEOPLE if u.key == table.host), None)
        if host is None or table.seat_of(host.key) is None:
            return
        while not table.is_full() and (p := self.button(table, "ai")) is not None:
            if not (await self.press(host, p)).ok:
                return
        if (p := self.button(table, "st")) is not None:
            await self.press(host, p)

    def tables(self, status: Status) -> list[Table]:
        return [tb for tb in self.svc.tables.values() if tb.status == status]

    def persons_turn(self) -> list[tuple[Table, Player]]:
        out = []
        for tb in self.tables(Status.PLAYING):
            seat = tb.to_act()
            s = tb.seats[seat] if seat is not None else None
            if s is not None and s.human_playing and s.user in self.players:
                out.append((tb, self.players[s.user]))
        return out

    async def turns(self) -> None:
        for _ in range(self.rng.randrange(1, 12)):
            turns = self.persons_turn()
            if not turns:
                break
            # two players at two tables at once now and then
            picked = self.rng.sample(turns, min(len(turns), self.rng.choice([1, 1, 2])))
            outs = await asyncio.gather(*(pl.take_turn(tb.id) for tb, pl in picked))
            for out in outs:
                if out is not None and self.record is not None:
                    self.record.answered(self.svc, out)
            await settle(self.svc)

    async def step(self) -> None:
        rng = self.rng
        what = rng.choices(
            [
                "open",
                "turns",
                "timeout",
                "resign",
                "abort",
                "forget",
                "lobby",
                "rematch",
                "back",
                "language",
            ],
            [3, 30, 3, 1, 1, 0.5, 2, 1, 1, 1],
        )[0]
        playing = self.tables(Status.PLAYING)
        if what == "open" or not self.svc.tables:
            await self.open_table()
        elif what == "turns":
            await self.turns()
        elif what == "timeout":
            if turns := self.persons_turn():
                tb, _ = rng.choice(turns)
                self.svc._fire(tb.id, tb.version, "timeout")
        elif what in ("resign", "abort") and playing:
            tb = rng.choice(playing)
            humans = [u for u in PEOPLE if u.key in tb.humans()]
            if humans:
                u, chat = rng.choice(humans), self.chat_of(tb.id)
                closing = self.svc.resign if what == "resign" else self.svc.abort
                await self.request(closing(chat, u))
        elif what == "forget":
            await self.request(self.svc.forget(rng.choice(PEOPLE)))
        elif what == "lobby" and (lobbies := self.tables(Status.LOBBY)):
            tb = rng.choice(lobbies)
            seated = [u for u in PEOPLE if tb.seat_of(u.key) is not None]
            if rng.random() < 0.7:
                await self.fill_and_start(tb)
            elif seated and (p := self.button(tb, "l")) is not None:
                await self.press(rng.choice(seated), p)
        elif what == "rematch":
            posts = [p for p in self.bot.fc.channel if p.kind == "finished"]
            if posts:
                post = rng.choice(posts)
                for b in post.message.all_buttons():
                    if decode_payload(b.payload).verb == "re":
                        chat = self.chat_of(post.table_id)
                        await self.press(rng.choice(PEOPLE), b.payload, chat)
        elif what == "language":
            lang = rng.choice(["de", "en"])
            if rng.random() < 0.5 or not playing:
                # a chat's switch: its tables one by one, then the setting
                chat = rng.choice(CHATS)
                await self.request(
                    self.svc.update_setting(chat, PEOPLE[0], "language", lang, is_admin=True)
                )
            else:
                tb = rng.choice(playing)
                humans = [u for u in PEOPLE if u.key in tb.humans()]
                if humans:
                    await self.request(self.svc.set_table_language(tb.id, humans[0], lang))
        elif what == "back":
            away = [
                (tb, self.players[s.user].user)
                for tb in playing
                for s in tb.seats
                if s is not None and s.replaced and s.user in self.players
            ]
            if away:
                tb, user = rng.choice(away)
                if (p := self.button(tb, "tb")) is not None:
                    await self.press(user, p)
        await settle(self.svc)

    async def play_out(self) -> None:
        """Every open table to its end: lobbies started or left to expire, turns
        taken until a player tires and resigns."""
        moves: dict[str, int] = {}
        for _ in range(5000):
            if not self.svc.tables:
                return
            lobby = next(iter(self.tables(Status.LOBBY)), None)
            if lobby is not None:
                await self.fill_and_start(lobby)
                if lobby.status == Status.LOBBY:
                    self.svc._fire(lobby.id, lobby.version, "expire")
                await settle(self.svc)
                continue
            for tb, pl in self.persons_turn():
                moves[tb.id] = moves.get(tb.id, 0) + 1
                if moves[tb.id] > PATIENCE:
                    await self.request(self.svc.resign(self.chat_of(tb.id), pl.user))
                elif await pl.take_turn(tb.id) is None:
                    self.svc._fire(tb.id, tb.version, "timeout")
            await settle(self.svc)
        raise AssertionError(f"the tables did not end: {self.bot.fc.describe()}")


async def check_restart(
    kill: tuple[int, Path, Told],
    prints: dict[tuple[str, int], tuple[object, ...]],
    ends: Ends,
    seed: str,
    level: str,
    errors: _Errors,
    depth: int = 1,
) -> list[str]:
    """Start a bot on what the kill left, after a while down; what it brings back,
    and how it plays on (killed again, now and then, while it does)."""
    problems: list[str] = []
    commit, path, told = kill
    where = f"seed {seed}, killed after commit {commit}"
    TALLY["restarts"] += 1
    rng = random.Random(where)
    now = STILL_NOW + rng.choice([0.0, 0.0, 3595.0, 7200.0])  # how long the bot was down
    # a seed drawn again after the kill is a fresh one, as `secrets` would draw
    bot = make_bot(path, Seeds(f"after{commit}-"), level, f"r{depth}", now)
    await bot.start(serve=False)
    try:
        svc = bot.svc
        TALLY["tables"] += len(svc.tables)
        TALLY["told"] += len(told)
        for tid, table in sorted(svc.tables.items()):
            want = prints.get((tid, table.version))
            got = fingerprint(svc, table)
            if want is None:
                problems.append(
                    f"{where}: table {tid} came back at version {table.version}, a state "
                    f"no stored change of the session left it in: {got[:5]}"
                )
            elif got != want:
                diff = [i for i, (a, b) in enumerate(zip(got, want, strict=True)) if a != b]
                problems.append(f"{where}: table {tid} v{table.version} came back otherwise {diff}")
        for table in svc.tables.values():
            for key in table.humans():
                if await bot.db.player(key) is None:
                    problems.append(f"{where}: {key} sits at {table.id}, his name not stored")
        for tid, version, kind in told:
            row = await bot.db.table_row(tid)
            if row is None or row.version < version:
                problems.append(f"{where}: {kind} of {tid} v{version} was told but is not stored")
        stored: Ends = {}  # the session's ends the kill kept
        # the version each table had at the kill: an end up to it is one told again
        kept = {tid: v for tid, v in await bot.db.fetchall("SELECT id, version FROM tables")}
        # how far each table's chat confirmed its ends: none of those is told again
        confirmed = dict(await bot.db.fetchall("SELECT table_id, version FROM table_told"))
        for (tid, version, kind), end in ends.items():
            row = await bot.db.table_row(tid)
            if row is not None and row.version >= version:
                stored[(tid, version, kind)] = end
        await bot.serve()
        await settle(svc)
        retold = [_end(u) for u in bot.fc.updates if u.kind in TOLD_KINDS]
        times = Counter((u.table_id, u.version, u.kind) for u in retold)
        problems += [f"{where}: {k} was shown {n} times" for k, n in times.items() if n > 1]
        shown = set(told)
        for tid, version, kind in stored:
            if (tid, version, kind) in shown:
                continue
            TALLY["unshown"] += 1
            if not times[(tid, version, kind)]:
                problems.append(f"{where}: {kind} of {tid} v{version} is stored, never shown")
        for u in retold:
            was = stored.get((u.table_id, u.version, u.kind))
            if was is None and u.version <= kept.get(u.table_id, 0):
                # told again, yet never an end (a redeal, a close nobody was told of)
                problems.append(f"{where}: {u.kind} of {u.table_id} v{u.version} never was")
            elif u.version <= confirmed.get(u.table_id, 0):
                problems.append(f"{where}: {u.kind} of {u.table_id} v{u.version} shown again")
            elif was is not None and u != was:
                problems.append(f"{where}: {u.kind} of {u.table_id} v{u.version} shown otherwise")
        for tid, table in svc.tables.items():
            timers = svc._timers.get(tid)
            armed = {h._args[1:] for h in (timers.handles if timers else []) if not h.cancelled()}
            want_timer = "expire" if table.status == Status.LOBBY else "timeout"
            if (table.version, want_timer) not in armed:
                problems.append(f"{where}: table {tid} has no {want_timer} armed: {armed}")
            if table.status == Status.PLAYING and (table.deadline or 0) < now + 10:
                problems.append(f"{where}: table {tid}'s turn has {table.deadline} at {now}")
        again = None
        if depth < 2:
            copies = path.parent / f"after-{commit}"
            copies.mkdir()
            again = Recorder(bot, copies, random.Random(f"kills {where}"), odds=0.01)
        if again is not None:
            for table in svc.tables.values():  # as the platform's return left them
                again.prints[(table.id, table.version)] = fingerprint(svc, table)
            # shown before the next kill: before the last, or again at this restart
            again.told += [*told, *((u.table_id, u.version, u.kind) for u in retold)]
        await Session(bot, rng, again).play_out()
        problems += await ledger_problems(bot.db, where)
    finally:
        await bot.stop()
    problems += [f"{where}: logged {line}" for line in errors.lines]
    errors.lines.clear()
    if again is not None and again.copies is not None and again.copies.taken:
        later = rng.choice(again.copies.taken)
        seen = {**prints, **again.prints}
        branch = {**stored, **again.ends}  # the ends of this run, not the first's after the kill
        problems += await check_restart(
            later, seen, branch, f"{seed}/{commit}", level, errors, depth + 1
        )
    return problems


async def ledger_problems(store: Store, where: str) -> list[str]:
    """Every finished match counted once, nothing else counted."""
    problems = []
    rows = await store.fetchall(
        "SELECT t.id, t.status, (SELECT count(*) FROM games g WHERE g.table_id = t.id),"
        " (SELECT count(*) FROM results r WHERE r.table_id = t.id) FROM tables t"
    )
    for tid, status, games, results in rows:
        if status == "finished" and games != 1:
            problems.append(f"{where}: finished {tid} has {games} records, {results} results")
        if status != "finished" and results:
            problems.append(f"{where}: {status} {tid} has {results} results")
    bad = await store.fetchall(
        "SELECT scope, game, player, games, (SELECT count(*) FROM rated_results q"
        " JOIN results r ON r.table_id = q.table_id AND r.player = q.player"
        " WHERE q.player = ratings.player AND r.game = ratings.game"
        " AND (ratings.scope = 'global' OR r.chat = ratings.scope)) AS n"
        " FROM ratings WHERE games != n"
    )
    problems += [f"{where}: rating {row[:3]} counts {row[3]} games of {row[4]}" for row in bad]
    return problems


async def hunt(seed: int, dir: Path, kills: int) -> list[str]:
    rng = random.Random(seed)
    level = rng.choice(["random", "heuristic"])
    errors = _Errors()
    logging.getLogger().addHandler(errors)
    try:
        bot = make_bot(dir / "bot.sqlite3", Seeds(f"s{seed}-"), level)
        await bot.start()
        record = Recorder(bot, dir, random.Random(f"kills{seed}"), odds=0.03)
        session = Session(bot, rng, record)
        try:
            for _ in range(STEPS):
                await session.step()
            await session.play_out()
        finally:
            await bot.stop()
        problems = [f"seed {seed} (uninterrupted): logged {line}" for line in errors.lines]
        async with Store(dir / "bot.sqlite3") as store:
            problems += await ledger_problems(store, f"seed {seed} (uninterrupted)")
        errors.lines.clear()
        assert record.copies is not None
        taken = record.copies.taken
        picked = random.Random(f"picked{seed}").sample(taken, min(kills, len(taken)))
        for kill in sorted(picked, key=lambda k: k[0]):
            problems += await check_restart(
                kill, record.prints, record.ends, str(seed), level, errors
            )
        return problems
    finally:
        logging.getLogger().removeHandler(errors)


@pytest.mark.parametrize("seed", range(FIRST_SEED, FIRST_SEED + SESSIONS))
async def test_a_bot_killed_after_any_commit_comes_back_as_told(tmp_path: Path, seed: int) -> None:
    problems = await hunt(seed, tmp_path, KILLS)
    assert not problems, "\n".join(problems[:10])
