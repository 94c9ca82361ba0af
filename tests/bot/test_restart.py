"""Durability: kill the bot anywhere, restart it on the same file, and the game goes
on exactly as if nothing happened; timers come back from the stored deadlines."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import random
import sqlite3
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import Any

import pytest

from bot import results as R
from bot.payload import decode
from bot.service import ChatRef, TableService, Timings
from bot.store import Store
from bot.table import Table
from engine import protocol as P
from engine.actions import decode as decode_action
from engine.errors import IllegalAction
from engine.games import available

from .fakechat import (
    CHAT,
    Bot,
    CommitCopies,
    FakeChat,
    Seeds,
    ids,
    inline_ai,
    open_table,
    play_out,
    restarts,
    seeds,
    stored_mentions,
    to_move,
    users,
)
from .policies import ai_for, near_the_barrel, policy_for
from .test_rematch import _finished_bauern_of_four


async def _durable(path: Path, table_id: str) -> dict[str, Any]:
    """What the store holds about a table, minus wall-clock times."""
    store = await Store(path).open()
    try:
        log = await store.table_log(table_id)
        for e in log:
            e.pop("at", None)
        row = await store.table_row(table_id)
        results = await store.fetchall(
            "SELECT player, seat, won, bummerl, schneider, score FROM results"
            " WHERE table_id = ? ORDER BY player",
            (table_id,),
        )
        ratings = await store.fetchall(
            "SELECT scope, game, player, mu, sigma, games FROM ratings ORDER BY scope, player"
        )
        contracts = await store.fetchall(
            "SELECT deal, player, contract, made FROM contracts WHERE table_id = ? ORDER BY deal",
            (table_id,),
        )
        return {
            "log": log,
            "status": row.status if row else None,
            "record": await store.game_record(table_id),
            "results": results,
            "ratings": ratings,
            "contracts": contracts,
        }
    finally:
        await store.close()


def _bot(path: Path, seed_source: Seeds, **kw: Any) -> Bot:
    timings = Timings(
        turn_timeout=60, reminder_before=10, missed_turns_limit=3, ai_delay=0.002, lobby_expiry=600
    )
    return Bot(path, timings, seed_source, ids(), ai_runner=inline_ai, **kw)


async def _reference(path: Path, game_id: str, monkeypatch: pytest.MonkeyPatch) -> str:
    bot = await _bot(path, seeds()).start()
    try:
        _patch_ai(monkeypatch, game_id, bot)
        humans = [bot.player(u, policy_for(game_id)) for u in users(2)]
        tid = await open_table(bot, game_id, humans)
        await play_out(bot.fc, tid, humans)
        return tid
    finally:
        await bot.stop()


def _patch_ai(monkeypatch: pytest.MonkeyPatch, game_id: str, bot: Bot) -> None:
    ai = ai_for(game_id, bot.svc)
    if ai is not None:
        monkeypatch.setattr("bot.service.choose_action", ai)


def _actions(bot: Bot, tid: str) -> int:
    table = bot.svc.tables.get(tid)
    return -1 if table is None else sum(len(d.actions) for d in table.deals)


async def _seeds_kept(path: Path, table_id: str) -> int:
    store = await Store(path).open()
    try:
        log = await store.table_log(table_id)
    finally:
        await store.close()
    return sum(1 for e in log if e["k"] in ("start", "deal"))


CASES = [
    ("zweier", 1, False),
    ("zweier", 3, True),
    ("dreier", 1, True),
    ("dreier", 2, False),
    ("bauern", 1, True),
    ("bauern", 3, False),
    # from 800 points a seat (`near_the_barrel`): two or three deals, killed in each
    # phase, on the barrel and as it is won
    ("tausend", 3, True),
]


@pytest.mark.parametrize(("game_id", "k", "mid_act"), CASES)
async def test_killed_every_k_actions_finishes_identically(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, game_id: str, k: int, mid_act: bool
) -> None:
    if game_id not in available():
        pytest.skip(f"{game_id} is not implemented yet")
    if game_id == "tausend":
        near_the_barrel(monkeypatch)
    ref_path = tmp_path / "reference.sqlite3"
    tid = await _reference(ref_path, game_id, monkeypatch)
    expected = await _durable(ref_path, tid)
    assert expected["status"] == "finished"

    path = tmp_path / "killed.sqlite3"
    seed_source = seeds()
    table_ids = ids()

    def make() -> Bot:
        b = _bot(path, seed_source)
        b.table_ids = table_ids
        return b

    bot = await make().start()
    try:
        kills = await _play_with_kills(bot, make, tid, game_id, k, mid_act, monkeypatch)
    finally:
        await bot.stop()
    assert kills >= 2
    got = await _durable(path, tid)
    assert got == expected


async def _play_with_kills(
    bot: Bot,
    make: Callable[[], Bot],
    tid: str,
    game_id: str,
    k: int,
    mid_act: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> int:
    path = bot.path
    seed_source = bot.seed_source
    assert isinstance(seed_source, Seeds)
    rng = random.Random(f"{game_id}{k}")
    _patch_ai(monkeypatch, game_id, bot)
    humans = [bot.player(u, policy_for(game_id)) for u in users(2)]
    assert await open_table(bot, game_id, humans) == tid
    kills = 0
    next_kill = k
    loop = asyncio.get_running_loop()
    end = loop.time() + 90
    try:
        while True:
            assert loop.time() < end, "the killed game did not finish"
            if tid not in bot.svc.tables:
                break
            done = _actions(bot, tid)
            if done >= next_kill:
                await bot.crash()
                kills += 1
                next_kill = done + k
                seed_source.n = await _seeds_kept(path, tid)
                bot = await make().start()
                _patch_ai(monkeypatch, game_id, bot)
                humans = [bot.player(pl.user, pl.policy) for pl in humans]
                continue
            pressed = False
            for pl in humans:
                hv = pl.hand(tid)
                if hv is None or not hv.your_turn:
                    continue
                pressed = True
                if mid_act and done + 1 >= next_kill and rng.random() < 0.7:
                    # die in the middle of this press: it may or may not have been stored
                    task = asyncio.ensure_future(pl.take_turn(tid))
                    for _ in range(rng.randrange(6)):
                        await asyncio.sleep(0)
                    task.cancel()  # the process dies: its handlers with it
                    await bot.crash()
                    with suppress(asyncio.CancelledError):
                        await task
                    kills += 1
                    next_kill = done + 1 + k
                    seed_source.n = await _seeds_kept(path, tid)
                    bot = await make().start()
                    _patch_ai(monkeypatch, game_id, bot)
                    humans = [bot.player(p.user, p.policy) for p in humans]
                else:
                    out = await pl.take_turn(tid)
                    assert out is not None and out.ok, out
                break
            if not pressed:
                # memory is ahead of the views while a change is being stored: wait
                # for the next update, not only for the next action
                seen = len(bot.fc.updates)

                def moved(b: Bot = bot, n: int = done, u: int = seen) -> bool:
                    return _actions(b, tid) != n or len(b.fc.updates) != u

                await bot.fc.wait(moved, timeout=10)
    finally:
        await bot.stop()  # the last one started
    return kills


async def test_a_new_table_comes_back_with_its_host_wherever_the_bot_was_killed(
    make_bot: Callable[..., Bot], tmp_path: Path
) -> None:
    """/new stored its host's name, then the table, then seated him: a bot killed in
    between came back with a lobby nobody sat at (never shown, not startable, beside
    his next /new until it expired), or kept the name of one who got no table, nor an
    answer.  Now the table comes with its host seated and named, or nothing does."""
    bot = await make_bot().start()
    copies = CommitCopies(bot.db, tmp_path)  # after each commit
    a = users(1)[0]
    tid = (await bot.svc.create_table(CHAT, a, "dreier")).table_id
    await bot.stop()
    async for n, killed in restarts(bot, copies):
        tables = killed.svc.tables
        named = await killed.db.player(a.key) is not None
        assert tid not in tables or tables[tid].seat_of(a.key) == 0, f"after commit {n}"
        assert (tid in tables) == named, f"after commit {n}: name stored {named}"
    assert tid in tables  # the last copy: /new was stored


async def test_a_joined_player_is_named_on_the_board_wherever_the_bot_was_killed(
    make_bot: Callable[..., Bot], tmp_path: Path
) -> None:
    """A join stored his seat, then his name: a bot killed between the two came
    back with a player the boards and records named by his platform id ("tg:101"),
    never by his name, as long as he played on at that table."""
    bot = await make_bot().start()
    anna, bert = users(2)
    tid = (await bot.svc.create_table(CHAT, anna, "zweier")).table_id
    assert tid is not None
    copies = CommitCopies(bot.db, tmp_path)  # after each commit from here
    assert (await bot.svc.act(bert, f"{tid}:{bot.svc.tables[tid].version}:j", CHAT)).ok
    await bot.stop()
    seated = None
    async for n, killed in restarts(bot, copies):
        seated = killed.svc.tables[tid].seat_of(bert.key)
        if seated is not None:
            assert await killed.db.player(bert.key) == ("Bert", None), f"after commit {n}"
    assert seated == 1  # the last copy: he joined


async def test_forgetme_is_all_done_or_not_done_wherever_the_bot_was_killed(
    make_bot: Callable[..., Bot], tmp_path: Path
) -> None:
    """/forgetme gave up Bert's seats table by table, then deleted his data: a bot
    killed in between came back with his match played on by the computer (or his
    seat in a lobby gone) and everything of him still stored, while he had no
    answer.  Now it is all of it or nothing, and nothing is safe to ask again."""
    other = ChatRef("tg", "-1002", "Other group")
    bot = await make_bot().start()
    anna, bert = (bot.player(u) for u in users(2))
    match = await open_table(bot, "zweier", [anna, bert])
    lobby = (await bot.svc.create_table(other, anna.user, "dreier")).table_id
    assert lobby is not None
    assert (await bot.svc.act(bert.user, f"{lobby}:{bot.svc.tables[lobby].version}:j", other)).ok
    copies = CommitCopies(bot.db, tmp_path)  # after each commit from here
    assert (await bot.svc.forget(bert.user)).ok
    await bot.stop()
    async for n, killed in restarts(bot, copies):
        tables = killed.svc.tables
        seated = [tid for tid in (match, lobby) if tables[tid].seat_of(bert.key) is not None]
        if seated:
            assert seated == [match, lobby], f"after commit {n}: seated at {seated} only"
            assert await killed.db.player(bert.key) is not None, f"after commit {n}"
        else:
            assert await stored_mentions(killed.db, bert.key) == [], f"after commit {n}"
    assert not seated  # the last copy: he is forgotten


async def test_a_chats_language_switch_is_whole_wherever_the_bot_was_killed(
    make_bot: Callable[..., Bot], tmp_path: Path
) -> None:
    """A chat's language switch stored its tables' one by one, then the chat's
    setting: a bot killed in between came back with one table in German, the other
    and every table opened next in English, and the admin without an answer."""
    bot = await make_bot().start()
    anna, bert = users(2)
    opened = [(await bot.svc.create_table(CHAT, u, "zweier")).table_id for u in (anna, bert)]
    tables = [tid for tid in opened if tid is not None]
    copies = CommitCopies(bot.db, tmp_path)  # after each commit from here
    assert (await bot.svc.update_setting(CHAT, anna, "language", "de", is_admin=True)).ok
    await bot.stop()
    assert copies.taken and len(tables) == 2
    async for n, killed in restarts(bot, copies):
        chat = (await killed.svc.settings(CHAT)).language or "en"
        speak = [killed.svc.tables[tid].settings.get("lang") for tid in tables]
        assert speak == [chat, chat], f"after commit {n}: chat {chat}, tables {speak}"
    assert chat == "de"  # the last copy: switched


async def test_a_rematch_join_is_in_his_old_seat_wherever_the_bot_was_killed(
    make_bot: Callable[..., Bot], tmp_path: Path
) -> None:
    """A rematch press stored the join in the first free seat, then the move to his
    old seat as seen from the host: a bot killed in between came back with Cilli
    beside Anna instead of across from her (Bauern's partners split), unanswered."""
    bot = await make_bot().start()
    (anna, _, cilli, _), payload = await _finished_bauern_of_four(bot)
    opened = await bot.svc.act(anna.user, payload, CHAT)
    assert opened.ok and opened.table_id is not None, opened
    tid = opened.table_id
    copies = CommitCopies(bot.db, tmp_path)  # after each commit from here
    assert (await bot.svc.act(cilli.user, payload, CHAT)).ok
    await bot.stop()
    async for n, killed in restarts(bot, copies):
        seat = killed.svc.tables[tid].seat_of(cilli.key)
        assert seat in (None, 2), f"after commit {n}: Cilli in seat {seat}"
    assert seat == 2  # the last copy: she joined, across from Anna


async def test_cancelled_press_still_completes(make_bot: Callable[..., Bot]) -> None:
    """A press whose caller is cancelled (an adapter's handler timed out) is stored,
    announced, and the computer's next move is scheduled — the table never stalls."""
    bot = await make_bot().start()
    try:
        a = bot.player(users(1)[0])
        tid = await open_table(bot, "zweier", [a])
        for _ in range(30):
            await bot.fc.wait(lambda: a.hand(tid) is not None and a.hand(tid).your_turn)  # type: ignore[union-attr]
            version = bot.svc.tables[tid].version
            updates = len(bot.fc.updates)
            hv = a.hand(tid)
            assert hv is not None
            payload = next(
                b.payload for b in hv.message.all_buttons() if decode(b.payload).is_game_action
            )
            task = asyncio.ensure_future(bot.svc.act(a.user, payload))
            await asyncio.sleep(0)  # the press is under way ...
            task.cancel()  # ... when its caller goes away
            with pytest.raises(asyncio.CancelledError):
                await task

            # the press went through anyway, was announced, and play goes on (the
            # computer's move included: the next wait for our turn needs it)
            def updated(n: int = updates) -> bool:
                return len(bot.fc.updates) > n

            await bot.fc.wait(updated)
            assert bot.svc.tables.get(tid) is None or bot.svc.tables[tid].version > version
            if tid not in bot.svc.tables:
                break
        await play_out(bot.fc, tid, [a])
        assert bot.fc.kinds(tid)[-1] == "finished"
    finally:
        await bot.stop()


async def test_turn_timer_rearmed_from_the_stored_deadline(make_bot: Callable[..., Bot]) -> None:
    now = [5000.0]
    timings = Timings(
        turn_timeout=30, reminder_before=10, missed_turns_limit=3, ai_delay=0, lobby_expiry=600
    )
    bot = await make_bot(timings=timings, clock=lambda: now[0]).start()
    a, b = (bot.player(u) for u in users(2))
    tid = await open_table(bot, "zweier", [a, b])
    table = bot.svc.tables[tid]
    seat = table.to_act()
    assert seat is not None
    mover = to_move(table, [a, b])
    deadline = table.deadline
    assert deadline == pytest.approx(now[0] + 30)
    row = await bot.store.table_row(tid)  # type: ignore[union-attr]
    assert row is not None and row.deadline == deadline
    await bot.stop()

    # back 19.9 s later: the reminder is 0.1 s away, the timeout 10.1 s
    now[0] += 19.9
    bot = await make_bot(timings=timings, clock=lambda: now[0]).start()
    try:
        assert bot.svc.tables[tid].deadline == deadline
        await bot.fc.wait(lambda: "reminder" in bot.fc.kinds(tid), timeout=2)
        reminder = next(u for u in bot.fc.updates if u.kind == "reminder")
        assert reminder.user == mover.key
        assert "action" not in bot.fc.kinds(tid)
    finally:
        await bot.stop()

    # back after the deadline passed while the bot was down: the downtime is not the
    # player's, he is reminded at once and gets the reminder's time (10 s) to move
    now[0] += 10.2
    bot = await make_bot(timings=timings, clock=lambda: now[0]).start()
    try:
        await bot.fc.wait(lambda: "reminder" in bot.fc.kinds(tid), timeout=2)
        assert bot.svc.tables[tid].deadline == pytest.approx(now[0] + 10)
        row = await bot.db.table_row(tid)
        assert row is not None and row.deadline == pytest.approx(now[0] + 10)
        await asyncio.sleep(0.2)
        assert "action" not in bot.fc.kinds(tid)
        held = bot.svc.tables[tid].seats[seat]
        assert held is not None and held.missed == 0
    finally:
        await bot.stop()

    # still away when that ran out: the computer plays for the absent player
    now[0] += 10.1
    short = dataclasses.replace(timings, reminder_before=0.2)
    bot = await make_bot(timings=short, clock=lambda: now[0]).start()
    try:
        await bot.fc.wait(lambda: "action" in bot.fc.kinds(tid), timeout=2)
        log = await bot.db.table_log(tid)
        timed_out = [e for e in log if e["k"] == "act" and e.get("by") == "t"]
        assert len(timed_out) == 1 and timed_out[0]["seat"] == seat
        table = bot.svc.tables[tid]
        missed = table.seats[seat]
        assert missed is not None and missed.missed == 1
    finally:
        await bot.stop()


async def test_ai_turn_resumes_after_restart(make_bot: Callable[..., Bot]) -> None:
    """A table whose computer seat was about to move when the bot died goes on."""
    timings = Timings(turn_timeout=30, reminder_before=10, ai_delay=30, lobby_expiry=600)
    bot = await make_bot(timings=timings).start()
    a = bot.player(users(1)[0])
    tid = await open_table(bot, "zweier", [a])
    table = bot.svc.tables[tid]
    if table.seats[table.to_act()].user == a.key:  # type: ignore[index,union-attr]
        assert (await a.take_turn(tid)) is not None
    version = bot.svc.tables[tid].version
    await bot.stop()
    fast = Timings(turn_timeout=30, reminder_before=10, ai_delay=0, lobby_expiry=600)
    bot = await make_bot(timings=fast).start()
    try:
        await bot.fc.wait(lambda: bot.svc.tables[tid].version > version, timeout=2)
    finally:
        await bot.stop()


async def test_ratings_of_matches_finishing_at_once(make_bot: Callable[..., Bot]) -> None:
    """One player's two matches (in two chats) ending at the same moment both count."""
    bot = await make_bot().start()
    try:
        a, b, c = (bot.player(u) for u in users(3))
        other = ChatRef("tg", "-1009", "Nebenan")
        t1 = await open_table(bot, "zweier", [a, b])
        t2 = await open_table(bot, "zweier", [a, c], chat=other)
        assert t1 != t2
        outs = await asyncio.gather(bot.svc.resign(CHAT, b.user), bot.svc.resign(other, c.user))
        assert all(o.ok for o in outs)
        rows = await bot.store.fetchall(  # type: ignore[union-attr]
            "SELECT games FROM ratings WHERE scope = 'global' AND player = ?", (a.key,)
        )
        assert rows == [(2,)]
        board = await R.leaderboard(bot.store, "zweier", "global")  # type: ignore[arg-type]
        assert board[0].player == a.key and board[0].games == 2 and board[0].won == 2
    finally:
        await bot.stop()


async def test_restart_keeps_lobbies_and_settings(make_bot: Callable[..., Bot]) -> None:
    bot = await make_bot().start()
    a, b = users(2)
    assert (await bot.svc.update_setting(CHAT, a, "language", "de", is_admin=True)).ok
    tid = (await bot.svc.create_table(CHAT, a, "dreier")).table_id
    assert tid is not None
    await bot.stop()
    bot = await make_bot().start()
    try:
        lobby = bot.svc.lobby(tid)
        assert lobby is not None and "Gastgeber" in lobby.message.text
        assert (await bot.svc.act(b, lobby.message.all_buttons()[0].payload)).ok
        assert bot.svc.tables[tid].seat_of(b.key) == 1
    finally:
        await bot.stop()


async def test_a_turn_waits_for_its_platform_after_a_restart(make_bot: Callable[..., Bot]) -> None:
    """The app starts the core before the adapters serve (a platform may even be out
    of reach for a while): a turn that ran out meanwhile is neither played by the
    computer nor reminded into the void; its clock starts when the platform listens."""
    now = [5000.0]
    timings = Timings(turn_timeout=30, reminder_before=10, ai_delay=0, lobby_expiry=600)
    bot = await make_bot(timings=timings, clock=lambda: now[0]).start()
    a, b = (bot.player(u) for u in users(2))
    tid = await open_table(bot, "zweier", [a, b])
    await bot.stop()
    now[0] += 40  # the deadline ran out while the bot was down

    store = await Store(bot.path).open()
    svc = TableService(store, timings=timings, ai_level="random", clock=lambda: now[0])
    try:
        await svc.start()  # as bot/app.py does, before any adapter serves
        chat = FakeChat(svc)
        svc.listeners.append(chat)  # an adapter that queues, not yet serving
        await asyncio.sleep(0.3)
        assert [u.kind for u in chat.updates] == []  # no move, no lost reminder
        now[0] += 120  # the platform stays out of reach for two minutes
        await svc.listen(chat, "tg")
        await chat.wait(lambda: "reminder" in chat.kinds(tid), timeout=2)
        assert svc.tables[tid].deadline == pytest.approx(now[0] + 10)
        assert "action" not in chat.kinds(tid)
    finally:
        await svc.stop()
        await store.close()


async def test_a_log_that_no_longer_replays_is_logged_without_the_hand(
    make_bot: Callable[..., Bot], caplog: pytest.LogCaptureFixture
) -> None:
    """A stored move the rules refuse on replay (a damaged file, a changed rule)
    closes that table at the restart, in the database too: it is not tried (and
    logged) again at every start, its old buttons say the table is closed, and its
    log is kept.  The log line says which table and the rules' code, not their
    words: those describe the player's hand ("you must follow suit (H)", "KS is not
    in your hand" for a card another seat holds)."""
    bot = await make_bot().start()
    a = bot.player(users(1)[0])
    tid = await open_table(bot, "zweier", [a])
    table = bot.svc.tables[tid]
    if table.seats[table.to_act()].user != a.key:  # type: ignore[index,union-attr]
        await bot.fc.wait(lambda: table.seats[table.to_act()].user == a.key, timeout=2)  # type: ignore[index,union-attr]
    old_button = a.a_move(tid)  # a button on his hand, pressed after the restart
    assert (await a.take_turn(tid)) is not None
    await bot.stop()
    store = await Store(bot.path).open()
    try:
        entries = await store.table_log(tid)
    finally:
        await store.close()
    at = max(i for i, e in enumerate(entries) if e["k"] == "act" and e["by"] == "p")
    before = Table.from_log(tid, entries[:at])
    assert before.deal is not None
    refused = next(c for c in range(64) if c not in before.deal.legal() and _refused(before, c))
    with sqlite3.connect(bot.path) as db:
        db.execute(
            "UPDATE table_log SET entry = json_set(entry, '$.code', ?)"
            " WHERE table_id = ? AND version = ?",
            (refused, tid, at + 1),
        )
    why = _refused(before, refused)
    assert why is not None
    caplog.set_level(logging.INFO)
    bot = await make_bot().start()
    try:
        assert tid not in bot.svc.tables
        [line] = [
            r.getMessage() for r in caplog.records if "could not be rebuilt" in r.getMessage()
        ]
        assert tid in line and why.code in line
        assert why.message not in caplog.text
        assert tid not in [row.id for row in await bot.svc.store.open_tables()]
        assert await bot.svc.store.message_refs(tid) == {}
        assert len(await bot.svc.store.table_log(tid)) == len(entries)  # nothing lost
        outcome = await bot.player(users(1)[0]).press(old_button)
        assert not outcome.ok and outcome.text == "That table is closed."
    finally:
        await bot.stop()
    caplog.clear()
    bot = await make_bot().start()  # the next start leaves it alone
    try:
        assert tid not in bot.svc.tables
        assert "could not be rebuilt" not in caplog.text
    finally:
        await bot.stop()


def _refused(table: Table, code: int) -> IllegalAction | None:
    """Why the rules refuse `code` from the seat to act, or None if they take it."""
    assert table.deal is not None
    seat = P.to_act(table.deal)
    assert seat is not None
    try:
        P.apply(table.deal, seat, decode_action(code, table.deal.contracts))
    except IllegalAction as e:
        return e
    except (ValueError, KeyError, IndexError):
        return None  # not an action at all
    return None


async def test_a_log_entry_this_bot_does_not_know_leaves_the_table_open(
    make_bot: Callable[..., Bot], caplog: pytest.LogCaptureFixture
) -> None:
    """An entry this version does not know (a newer bot's, after a rollback; or a
    bug) is no reason to close the table for good: it stays open for a bot that can
    rebuild it, and the log says so at each start, without the entry's words."""
    bot = await make_bot().start()
    a = bot.player(users(1)[0])
    tid = await open_table(bot, "zweier", [a])
    await bot.stop()
    with sqlite3.connect(bot.path) as db:
        db.execute(
            "INSERT INTO table_log (table_id, version, entry, at) SELECT table_id,"
            " MAX(version) + 1, ?, 0 FROM table_log WHERE table_id = ?",
            ('{"k": "a_later_kind", "card": "KS"}', tid),
        )
    caplog.set_level(logging.INFO)
    for _ in range(2):  # this start and the next
        caplog.clear()
        bot = await make_bot().start()
        try:
            assert tid not in bot.svc.tables
            assert tid in [row.id for row in await bot.svc.store.open_tables()]
            [line] = [r.getMessage() for r in caplog.records if tid in r.getMessage()]
        finally:
            await bot.stop()
        assert "tried at the next start" in line and "KS" not in caplog.text


async def test_a_table_of_a_lost_chat_stays_closed_after_a_restart(
    make_bot: Callable[..., Bot],
) -> None:
    """The bot was removed from the group mid-match: its table closes, and stays
    closed — back after a restart, the computer would play the absent players' turns
    in a chat nobody can see and score a match nobody saw."""
    bot = await make_bot().start()
    anna, bert = users(2)
    tid = await open_table(bot, "zweier", [bot.player(anna), bot.player(bert)])
    assert await bot.svc.close_chat(CHAT, "group_lost") == [tid]
    await bot.stop()
    bot = await make_bot().start()
    try:
        assert tid not in bot.svc.tables
        assert await bot.svc.close_chat(CHAT, "group_lost") == []
    finally:
        await bot.stop()
    assert (await _durable(make_bot().path, tid))["status"] == "aborted"
