"""The store when things go wrong: a database written by an older bot, and writes
that fail in the middle of a game because another program holds the database.

Everything runs on real SQLite files; "another program" is a second connection that
holds the write lock (``BEGIN EXCLUSIVE``) for as long as the test wants.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from bot import commits
from bot import results as R
from bot.service import ChatRef, TableService, TableUpdate, Timings
from bot.store import Store, StoreError, migrations
from bot.store.tables import _base36
from bot.table import Entry, Table
from bot.views.faces import Button

from .conftest import FAST
from .fakechat import (
    CHAT,
    Bot,
    FakeChat,
    Player,
    button,
    ids,
    inline_ai,
    open_table,
    play_out,
    seeds,
    stored_mentions,
    users,
)

# --- upgrading -------------------------------------------------------------------------


async def test_a_database_of_the_first_schema_is_upgraded_and_nothing_is_lost(
    tmp_path: Path,
) -> None:
    """A bot from before migration 0002 left a running table, a finished match with
    its results and ratings, and a chat's settings; the current bot opens that file,
    migrates it, resumes the table and shows the same leaderboard."""
    played = tmp_path / "played.sqlite3"
    bot = await Bot(played, FAST, seeds(), ids()).start()
    try:
        a, b, c = users(3)
        assert (await bot.svc.update_setting(CHAT, a, "language", "de", is_admin=True)).ok
        await open_table(bot, "zweier", [bot.player(a), bot.player(b)])
        assert (await bot.svc.resign(CHAT, b)).ok  # a finished match: results, ratings
        carla = bot.player(c)
        running = await open_table(bot, "zweier", [carla])
        for _ in range(3):
            await bot.fc.wait(lambda: _my_turn(carla, running))
            assert (await carla.take_turn(running)) is not None
        await bot.fc.wait(lambda: _my_turn(carla, running))
        version = bot.svc.tables[running].version
        board = await _boards(bot.svc.store)
        settings = await bot.svc.store.chat_settings(CHAT.key)
    finally:
        await bot.stop()

    old = tmp_path / "old.sqlite3"
    _first_schema_copy(old, played)

    bot = await Bot(old, FAST, seeds("after"), ids("u")).start()
    try:
        store = bot.svc.store
        assert await store.schema_version() == migrations()[-1][0]
        assert bot.svc.tables[running].version == version  # resumed where it stood
        assert await _boards(store) == board
        assert await store.chat_settings(CHAT.key) == settings
        await store.set_message_ref(running, "table", "-1001/7")  # the new table works
        assert await store.message_refs(running) == {"table": "-1001/7"}
        carla = bot.player(c)
        bot.fc.resync()
        await play_out(bot.fc, running, [carla])
        assert (await store.table_row(running)).status == "finished"  # type: ignore[union-attr]
    finally:
        await bot.stop()


def _my_turn(player: Player, table_id: str) -> bool:
    hv = player.hand(table_id)
    return hv is not None and hv.your_turn


async def _boards(store: Store) -> list[Any]:
    return [
        await R.leaderboard(store, "zweier", "global"),
        await R.leaderboard(store, "zweier", CHAT.key),
        await store.fetchall("SELECT * FROM results ORDER BY player"),
        await store.fetchall("SELECT * FROM games"),
    ]


def _first_schema_copy(old: Path, played: Path) -> None:
    """`old` as the first bot wrote it: migration 0001 only, holding the rows of
    `played` (whose tables 0001 created with the same columns)."""
    (number, _, sql), *later = migrations()
    assert number == 1 and later, "there is a migration after 0001 to test"
    conn = sqlite3.connect(old, isolation_level=None)
    try:
        conn.executescript(sql)
        conn.execute("PRAGMA user_version=1")
        conn.execute("ATTACH DATABASE ? AS played", (str(played),))
        for name in (
            "players",
            "chats",
            "tables",
            "table_log",
            "games",
            "results",
            "contracts",
            "ratings",
        ):
            conn.execute(f"INSERT INTO {name} SELECT * FROM played.{name}")
        conn.execute("DETACH DATABASE played")
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        assert "message_refs" not in names
    finally:
        conn.close()


# --- writes that fail mid-game -----------------------------------------------------------

#: The computer waits a little, so that the test can take the database away before it
#: moves.
TIMINGS = Timings(
    turn_timeout=30, reminder_before=10, missed_turns_limit=3, ai_delay=0.2, lobby_expiry=600
)


async def _start(path: Path, *, write_retry: float, timings: Timings = TIMINGS) -> Bot:
    """A bot whose store waits 50 ms for another program's lock at each attempt and
    tries a write again for `write_retry` seconds."""
    bot = Bot(path, timings, seeds(), ids())
    bot.store = await Store(
        path, table_ids=bot.table_ids, busy_timeout=0.05, write_retry=write_retry
    ).open()
    bot.service = TableService(
        bot.store,
        timings=timings,
        ai_level="random",
        seed_source=bot.seed_source,
        ai_runner=inline_ai,
    )
    bot.chat = FakeChat(bot.service)
    bot.service.listeners.append(bot.chat)
    await bot.service.start()
    await bot.service.listen(bot.chat, "tg")
    return bot


@contextmanager
def held(path: Path) -> Iterator[sqlite3.Connection]:
    """Another program holds the database's write lock until the block ends."""
    other = sqlite3.connect(path, isolation_level=None)
    try:
        other.execute("BEGIN EXCLUSIVE")
        yield other
    finally:
        if other.in_transaction:
            other.execute("ROLLBACK")
        other.close()


def _stored_version(path: Path, table_id: str) -> int:
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("SELECT version FROM tables WHERE id=?", (table_id,)).fetchone()[0])
    finally:
        conn.close()


async def _anna_to_play(bot: Bot) -> tuple[Player, str]:
    """Anna at a Zweierschnapsen table against the computer, her turn come."""
    anna = bot.player(users(1)[0])
    tid = await open_table(bot, "zweier", [anna])
    await bot.fc.wait(lambda: _my_turn(anna, tid))
    return anna, tid


async def _until_logged(
    caplog: pytest.LogCaptureFixture, text: str, unless: asyncio.Future[Any] | None = None
) -> None:
    """Wait (bounded) for a log line with `text`, or until `unless` is done."""
    for _ in range(500):
        if any(text in r.getMessage() for r in caplog.records):
            return
        if unless is not None and unless.done():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never logged: {text!r}")


async def test_a_move_held_up_past_the_busy_timeout_is_tried_again_and_goes_through(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "bot.sqlite3"
    bot = await _start(path, write_retry=30)
    try:
        anna, tid = await _anna_to_play(bot)
        version = bot.svc.tables[tid].version
        with held(path), caplog.at_level(logging.WARNING, logger="bot.store"):
            press = asyncio.ensure_future(anna.take_turn(tid))
            await _until_logged(caplog, "(database is locked); trying again", unless=press)
            assert not press.done()  # waiting, not refused
        out = await asyncio.wait_for(press, 10)  # the program let go of the database
        assert out is not None and out.ok, out
        assert _stored_version(path, tid) > version
    finally:
        await bot.stop()


async def test_a_move_that_cannot_be_stored_is_refused_whole_and_can_be_made_again(
    tmp_path: Path,
) -> None:
    """The database stays held longer than the store tries: the press is refused with
    a message saying so, nothing of it stays in memory (a restart would rewind it),
    and the same button works once the database is back."""
    path = tmp_path / "bot.sqlite3"
    bot = await _start(path, write_retry=0.2)
    try:
        anna, tid = await _anna_to_play(bot)
        before = bot.svc.tables[tid]
        version, deadline, hand = before.version, before.deadline, anna.hand(tid)
        card = anna.a_move(tid)
        with held(path):
            refused = await anna.press(card)
            assert not refused.ok and refused.code == "not_saved"
            assert refused.text is not None and "could not save" in refused.text
            table = bot.svc.tables[tid]
            assert table.version == version == _stored_version(path, tid)
            assert table.deadline == deadline  # the turn's time is what it was
            assert anna.hand(tid) == hand  # drawn again as it was: nothing changed
        out = await anna.press(card)
        assert out.ok, out
        assert _stored_version(path, tid) > version
    finally:
        await bot.stop()


async def test_a_database_that_turned_read_only_refuses_the_move_with_a_message(
    tmp_path: Path,
) -> None:
    """The disk is remounted read-only under the bot (SQLite then refuses every write
    with SQLITE_READONLY): the press is answered "could not save", not an exception
    the adapter would have to report, and works once the database is writable again."""
    path = tmp_path / "bot.sqlite3"
    bot = await _start(path, write_retry=30)
    try:
        anna, tid = await _anna_to_play(bot)
        version = bot.svc.tables[tid].version
        card = anna.a_move(tid)
        writer = bot.store._wconn  # type: ignore[union-attr]
        assert writer is not None
        writer.execute("PRAGMA query_only = ON")  # what a read-only file system does
        try:
            refused = await asyncio.wait_for(anna.press(card), 10)  # not the 30 s retry
            assert not refused.ok and refused.code == "not_saved", refused
            assert bot.svc.tables[tid].version == version == _stored_version(path, tid)
            new = await bot.svc.create_table(CHAT, users(2)[1], "zweier")
            assert not new.ok and new.code == "not_saved", new
        finally:
            writer.execute("PRAGMA query_only = OFF")
        out = await anna.press(card)
        assert out.ok, out
        assert _stored_version(path, tid) > version
    finally:
        await bot.stop()


async def test_a_turn_whose_move_could_not_be_stored_still_times_out(tmp_path: Path) -> None:
    """After the failed press the player walks away: his turn's clock still runs,
    and the computer plays for him when it runs out."""
    path = tmp_path / "bot.sqlite3"
    short = Timings(turn_timeout=1, reminder_before=0.5, ai_delay=0.2, lobby_expiry=600)
    bot = await _start(path, write_retry=0.2, timings=short)
    try:
        anna, tid = await _anna_to_play(bot)
        version = bot.svc.tables[tid].version
        with held(path):
            refused = await anna.take_turn(tid)
        assert refused is not None and refused.code == "not_saved"
        # the computer's move for her, stored (not only made in memory)
        await bot.fc.wait(lambda: _stored_version(path, tid) > version, timeout=5)
        log = await bot.svc.store.table_log(tid)
        assert any(e["k"] == "act" and e["by"] == "t" for e in log)  # timed out
    finally:
        await bot.stop()


async def test_a_computer_move_that_cannot_be_stored_is_made_once_the_database_is_back(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "bot.sqlite3"
    bot = await _start(path, write_retry=0.2)
    try:
        anna = bot.player(users(1)[0])
        tid = await open_table(bot, "zweier", [anna])
        for _ in range(20):
            await bot.fc.wait(lambda: _my_turn(anna, tid))
            assert (await anna.take_turn(tid)) is not None
            version = bot.svc.tables[tid].version
            if _my_turn(anna, tid):
                continue  # she won the trick and leads again
            with held(path), caplog.at_level(logging.ERROR, logger="bot.service"):
                if bot.svc.tables[tid].version != version:
                    continue  # the computer moved before the database was taken
                await _until_logged(caplog, f"could not store a change of table {tid}")

                # memory goes back to what is stored (no move half made)
                def restored(v: int = version) -> bool:
                    return bot.svc.tables[tid].version == v

                await bot.fc.wait(restored)
            break
        else:
            raise AssertionError("the computer never had a turn")
        # the computer's move is made, and the turn comes back to Anna
        await bot.fc.wait(lambda: _my_turn(anna, tid) or tid not in bot.svc.tables, timeout=5)
        assert _stored_version(path, tid) > version
    finally:
        await bot.stop()


@pytest.mark.parametrize("tables", [1, 2])
async def test_a_write_the_database_rejects_costs_the_moves_committed_with_it_nothing(
    tmp_path: Path, tables: int
) -> None:
    """Moves of several tables are committed together (group commit).  One the
    database rejects (a version already stored: a stale write) fails alone, its
    waiter told so; the moves queued beside it are stored, each once, as if it had
    never been there, and the store takes the next move.  Beside one move or more:
    a batch of two is as much a batch as a bigger one."""
    store = await Store(tmp_path / "bot.sqlite3", table_ids=ids()).open()
    try:
        tids = [
            await store.create_table(CHAT.key, "zweier", {"k": "create"}) for _ in range(tables)
        ]
        moves: list[tuple[str, dict[str, Any]]] = [
            *((tid, {"k": "move", "n": n}) for n, tid in enumerate(tids)),
            (tids[-1], {"k": "stale"}),
        ]
        got = await asyncio.gather(
            *(
                store.append(tid, 2, [entry], status="playing", deadline=None)
                for tid, entry in moves
            ),
            return_exceptions=True,
        )
        assert got[:-1] == [None] * tables, got
        assert isinstance(got[-1], sqlite3.IntegrityError), got
        for n, tid in enumerate(tids):
            assert await store.table_log(tid) == [{"k": "create"}, {"k": "move", "n": n}]
            row = await store.table_row(tid)
            assert row is not None and (row.status, row.version) == ("playing", 2)
        await store.append(tids[0], 3, [{"k": "next"}], status="playing", deadline=None)
        assert (await store.table_log(tids[0]))[-1] == {"k": "next"}
    finally:
        await store.close()


async def test_a_second_exclusive_store_on_one_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bot.sqlite3"
    first = await Store(path, exclusive=True).open()
    try:
        with pytest.raises(StoreError, match="in use by another running bot"):
            await Store(path, exclusive=True).open()
        assert await first.schema_version() == migrations()[-1][0]  # the first works on
    finally:
        await first.close()
    again = await Store(path, exclusive=True).open()  # closed: the file is free again
    await again.close()


async def test_a_database_of_a_newer_bot_is_refused_not_misread(tmp_path: Path) -> None:
    """Rolled back to an older version, the bot must not run on tables it does not
    know: it says which version the file has, and leaves the file as it is.  Asked
    again (the operator retries), it gives the same answer, not "another bot": the
    refused start let go of the file's lock."""
    path = tmp_path / "bot.sqlite3"
    newest = migrations()[-1][0]
    store = await Store(path).open()
    await store.close()
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(f"PRAGMA user_version={newest + 1}")
    conn.close()
    for _ in range(2):
        with pytest.raises(StoreError) as refused:
            await Store(path, exclusive=True).open()
        # the migration's own words, not wrapped in a guess about the file's folder
        assert str(refused.value).startswith(
            f"the database {path} has schema version {newest + 1}, newer than"
        ), refused.value
    conn = sqlite3.connect(path, isolation_level=None)
    assert conn.execute("PRAGMA user_version").fetchone() == (newest + 1,)
    conn.close()


async def test_contracts_of_matches_that_never_finished_leave_stats_on_upgrade(
    tmp_path: Path,
) -> None:
    """Before migration 0003 a match closed by vote left its declared contracts in
    /stats; the upgrade drops them and keeps those of finished matches."""
    path = tmp_path / "old.sqlite3"
    await (await Store(path).open()).close()
    insert = (
        "INSERT INTO contracts (table_id, deal, chat, game, player, contract, made)"
        " VALUES (?, 0, 'tg:-1', 'dreier', 'tg:1', 'normal', 1)"
    )
    with sqlite3.connect(path) as db:
        db.execute("INSERT INTO games VALUES ('done', 'tg:-1', 'dreier', '{}', 1.0)")
        db.execute(insert, ("done",))
        db.execute(insert, ("aborted",))
        db.execute("PRAGMA user_version=2")
    db.close()
    async with Store(path) as store:
        rows = await store.fetchall("SELECT table_id FROM contracts")
        assert rows == [("done",)]


def _fail_once(
    monkeypatch: pytest.MonkeyPatch,
    store: object,
    method: str,
    at: int = 1,
    error: Exception | None = None,
) -> None:
    """`store.method` fails once (at its `at`-th call) as a locked database would (or
    with `error`, a bug), then works again: the moment between two writes of one press
    that cannot be held open from outside.  (Any object's method: the service's, for a
    bug before any write; a query, such as `TableService.hand`, that is not async.)"""
    real = getattr(store, method)
    calls = 0

    def count() -> None:
        nonlocal calls
        calls += 1
        if calls == at:
            raise error or StoreError("cannot write to the database: database is locked")

    async def failing(*args: Any, **kwargs: Any) -> Any:
        count()
        return await real(*args, **kwargs)

    def failing_query(*args: Any, **kwargs: Any) -> Any:
        count()
        return real(*args, **kwargs)

    query = not inspect.iscoroutinefunction(real)
    monkeypatch.setattr(store, method, failing_query if query else failing)


async def test_an_end_shown_whose_mark_the_store_refuses_leaves_play_going_on(
    bot: Bot, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The write noting that the chat was shown a deal's end fails (a locked
    database): the chat saw it all the same and the match plays on to its end; one
    warning names the table (at worst a restart shows that end again), and nothing
    is raised into the sending."""
    anna, bert = (bot.player(u) for u in users(2))
    tid = await open_table(bot, "zweier", [anna, bert])
    assert bot.store is not None
    _fail_once(monkeypatch, bot.store, "set_told")
    caplog.set_level(logging.WARNING, logger="bot")
    await play_out(bot.fc, tid, [anna, bert])
    assert bot.fc.kinds(tid)[-1] == "finished"
    [line] = [r.getMessage() for r in caplog.records if "its end was shown" in r.getMessage()]
    assert line.startswith(f"table {tid}: could not store")


async def _a_move_neither_stored_nor_read_back(
    bot: Bot, monkeypatch: pytest.MonkeyPatch
) -> tuple[Player, str, int, Button]:
    """Anna's move whose write fails, and so does reading her table back (a disk
    error): her press is told it was not saved.  Anna, the table, its stored version
    and the move she pressed."""
    anna, tid = await _anna_to_play(bot)
    version = bot.svc.tables[tid].version
    _fail_once(monkeypatch, bot.svc.store, "append")
    _fail_once(monkeypatch, bot.svc.store, "table_log")
    card = anna.a_move(tid)
    refused = await anna.press(card)
    assert not refused.ok and refused.code == "not_saved", refused
    return anna, tid, version, card


async def test_a_join_the_store_does_not_take_stores_neither_seat_nor_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bert's seat and his name (what boards and records call him) are one write:
    when it fails he is told so and neither is stored; pressed again, both are."""
    bot = await _start(tmp_path / "bot.sqlite3", write_retry=0.2)
    try:
        anna, bert = (bot.player(u) for u in users(2))
        tid = (await bot.svc.create_table(CHAT, anna.user, "zweier")).table_id
        assert tid is not None
        assert bot.store is not None
        _fail_once(monkeypatch, bot.store, "append")
        out = await bert.press(button(bot.fc.lobbies[tid].message, "j"))
        assert not out.ok and out.code == "not_saved", out
        assert bot.svc.tables[tid].seat_of(bert.key) is None
        assert await bot.store.player(bert.key) is None
        assert (await bert.press(button(bot.fc.lobbies[tid].message, "j"))).ok
        assert [e["k"] for e in await bot.store.table_log(tid)] == ["create", "join", "join"]
        assert await bot.store.player(bert.key) == ("Bert", None)
        assert "Bert" in bot.fc.lobbies[tid].message.text
    finally:
        await bot.stop()


async def test_a_new_table_the_store_does_not_take_leaves_nothing_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The table and its host's seat are one write: when it fails he is told so, no
    lobby stays behind in the chat or the store (only an admin could have closed
    it), and he can open one again at once."""
    bot = await _start(tmp_path / "bot.sqlite3", write_retry=0.2)
    try:
        anna = users(1)[0]
        assert bot.store is not None
        _fail_once(monkeypatch, bot.store, "create_table")
        out = await bot.svc.create_table(CHAT, anna, "zweier")
        assert not out.ok and out.code == "not_saved", out
        assert bot.svc.tables_in(CHAT.key) == []
        assert bot.fc.updates == []  # no lobby drawn: a chat would keep it for good
        assert await bot.store.open_tables() == []
        again = await bot.svc.create_table(CHAT, anna, "zweier")
        assert again.ok and [tb.id for tb in bot.svc.tables_in(CHAT.key)] == [again.table_id]
    finally:
        await bot.stop()


async def test_a_language_switch_the_store_does_not_take_is_refused_and_can_be_asked_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An admin switches the chat's language; the change of its two tables and of its
    setting cannot be stored.  He is told it was not saved (an answer, not an
    exception the adapter reports as a crash), no table speaks the new language
    alone, and asking again switches the chat and both its tables."""
    bot = await _start(tmp_path / "bot.sqlite3", write_retry=0.2)
    try:
        anna, bert = users(2)
        opened = [(await bot.svc.create_table(CHAT, u, "zweier")).table_id for u in (anna, bert)]
        tables = [tid for tid in opened if tid is not None]
        assert len(tables) == 2
        _fail_once(monkeypatch, bot.svc.store, "append")
        out = await bot.svc.update_setting(CHAT, anna, "language", "de", is_admin=True)
        assert not out.ok and out.code == "not_saved", out
        assert (await bot.svc.settings(CHAT)).language != "de"
        assert [bot.svc.tables[tid].settings.get("lang") for tid in tables] == ["en", "en"]
        again = await bot.svc.update_setting(CHAT, anna, "language", "de", is_admin=True)
        assert again.ok, again
        assert (await bot.svc.settings(CHAT)).language == "de"
        assert [bot.svc.tables[tid].settings.get("lang") for tid in tables] == ["de", "de"]
    finally:
        await bot.stop()


async def test_a_move_to_a_supergroup_the_store_does_not_take_moves_and_switches_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A match runs in English in the group; the supergroup it became has German set
    by its admin.  The move, with the table's switch to German, cannot be stored:
    the table stays in the group speaking English, in memory and in the store, not
    moved without its switch.  Made again (Telegram says it again), the move takes
    the table along, speaking German."""
    new = ChatRef("tg", "-1009", "Supergroup")
    bot = await _start(tmp_path / "bot.sqlite3", write_retry=0.2)
    try:
        store = bot.svc.store
        a, b = (bot.player(u) for u in users(2))
        tid = await open_table(bot, "zweier", [a, b])
        assert (await bot.svc.update_setting(new, a.user, "language", "de", is_admin=True)).ok
        _fail_once(monkeypatch, store, "append")
        with pytest.raises(StoreError):
            await bot.svc.move_chat(CHAT, new)
        table = bot.svc.tables[tid]
        assert (table.chat, table.settings["lang"]) == (CHAT.key, "en")
        stored = "SELECT chat FROM tables WHERE id = ?"
        assert await store.fetchall(stored, (tid,)) == [(CHAT.key,)]
        assert (await store.table_log(tid))[-1]["k"] != "lang"
        assert await bot.svc.move_chat(CHAT, new) == [tid]
        table = bot.svc.tables[tid]
        assert (table.chat, table.settings["lang"]) == (new.key, "de")
        assert await store.fetchall(stored, (tid,)) == [(new.key,)]
    finally:
        await bot.stop()


async def test_a_forgetme_the_store_does_not_take_leaves_every_seat_and_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Anna sits at tables in two chats; her /forgetme cannot be stored.  Both seats
    and her data go in one write: she is told it did not go through, and both lobbies
    still show her (not one seat given up for nothing); asked again, it gives up both
    and deletes her."""
    bot = await _start(tmp_path / "bot.sqlite3", write_retry=0.2)
    try:
        anna = users(1)[0]
        other = ChatRef("tg", "-1002", "Hinterzimmer")
        tables = [(await bot.svc.create_table(c, anna, "zweier")).table_id for c in (CHAT, other)]
        assert None not in tables
        _fail_once(monkeypatch, bot.svc.store, "append")
        out = await bot.svc.forget(anna)
        assert not out.ok and out.code == "not_saved", out
        seated = [tid for tid, tb in bot.svc.tables.items() if tb.seat_of(anna.key) is not None]
        assert sorted(seated) == sorted(t for t in tables if t is not None)
        assert await bot.svc.store.player(anna.key) is not None
        again = await bot.svc.forget(anna)
        assert again.ok and again.code == "forgotten", again
        assert not any(tb.seat_of(anna.key) is not None for tb in bot.svc.tables.values())
        assert await stored_mentions(bot.svc.store, anna.key) == []
    finally:
        await bot.stop()


async def test_a_move_waiting_for_the_database_is_shown_nowhere_until_it_is_stored(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """While a press waits for a database another program holds, whatever is drawn of
    the table (an edit sent meanwhile, a hand asked for in private) shows it as
    stored, not with Anna's card on it: the write may fail, and the card go back to
    her hidden hand after the whole channel saw it played.  When it does fail, the
    table is drawn again as stored."""
    path = tmp_path / "bot.sqlite3"
    bot = await _start(path, write_retry=0.5)
    try:
        anna, tid = await _anna_to_play(bot)
        table_before = bot.svc.table(tid)
        hand_before = bot.svc.hand(tid, anna.user.key)
        assert table_before is not None and hand_before is not None
        drawn = len(bot.fc.updates)
        with held(path), caplog.at_level(logging.WARNING, logger="bot.store"):
            press = asyncio.ensure_future(anna.take_turn(tid))
            await _until_logged(caplog, "trying again", unless=press)
            assert not press.done()
            # the card is on the table in memory, and stored nowhere yet
            table = bot.svc.table(tid)
            hand = bot.svc.hand(tid, anna.user.key)
            assert table is None or table.message.text == table_before.message.text
            assert hand is None or hand.message.text == hand_before.message.text
            refused = await asyncio.wait_for(press, 10)
        assert refused is not None and refused.code == "not_saved"
        table_after = bot.svc.table(tid)
        assert table_after is not None and table_after.message == table_before.message
        redrawn = [u for u in bot.fc.updates[drawn:] if u.table_id == tid]
        assert redrawn and redrawn[-1].version == bot.svc.tables[tid].version
        out = await anna.take_turn(tid)  # the database is back: the move goes through
        assert out is not None and out.ok, out
    finally:
        await bot.stop()


async def test_a_table_the_store_cannot_read_back_stays_open_and_comes_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write fails and so does reading the table back (a disk error): the table
    stays open, a press meanwhile is told it was not saved (not that the table is
    closed), and once the store answers again the table is as stored and plays on."""
    path = tmp_path / "bot.sqlite3"
    bot = await _start(path, write_retry=0.1)
    try:
        anna, tid, version, card = await _a_move_neither_stored_nor_read_back(bot, monkeypatch)
        assert tid in bot.svc.tables
        again = await anna.press(card)
        assert not again.ok and again.code == "not_saved", again
        await bot.fc.wait(lambda: not bot.svc.tables[tid].unsaved, timeout=5)
        assert bot.svc.tables[tid].version == version == _stored_version(path, tid)
        out = await anna.take_turn(tid)
        assert out is not None and out.ok, out
    finally:
        await bot.stop()


async def test_a_language_change_is_not_stored_on_top_of_a_move_that_was_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Anna's move could not be stored, nor her table read back, and before it is
    tried again the admin switches the chat to German.  Stored on top, the switch
    would leave a hole where her move was and the table would go on in memory with
    that move made, one a restart forgets: the admin is told it was not saved, the
    table stays as stored and Anna's press is still not taken."""
    monkeypatch.setattr(commits, "RETRY_AFTER_FAILED_WRITE", 3600.0)  # no reload meanwhile
    path = tmp_path / "bot.sqlite3"
    bot = await _start(path, write_retry=0.1)
    try:
        anna, tid, version, card = await _a_move_neither_stored_nor_read_back(bot, monkeypatch)
        out = await bot.svc.update_setting(CHAT, anna.user, "language", "de", is_admin=True)
        assert not out.ok and out.code == "not_saved", out
        assert _stored_version(path, tid) == version
        again = await anna.press(card)
        assert not again.ok and again.code == "not_saved", again
    finally:
        await bot.stop()


@pytest.mark.parametrize("read_back", ["at once", "after a failed try"])
async def test_a_lobby_edit_rendered_while_a_join_was_failing_is_drawn_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, read_back: str
) -> None:
    """Anna's new lobby waits in the adapter's queue and is rendered while Bert's
    join is being written: the table is not stored then, so it draws nothing.  The
    join fails, and the lobby must be drawn as stored once it is read back (at once,
    or after the pause when the store could not give it back at first), or the chat
    shows no lobby for Bert to join until the next change."""
    monkeypatch.setattr(commits, "RETRY_AFTER_FAILED_WRITE", 0.01)
    bot = await _start(tmp_path / "bot.sqlite3", write_retry=0.1)
    try:
        anna, bert = (bot.player(u) for u in users(2))
        render = bot.fc.table_update
        queued: list[TableUpdate] = []

        async def queue(update: TableUpdate) -> None:
            queued.append(update)

        monkeypatch.setattr(bot.fc, "table_update", queue)
        tid = (await bot.svc.create_table(CHAT, anna.user, "zweier")).table_id
        assert tid is not None and queued
        monkeypatch.setattr(bot.fc, "table_update", render)
        lobby = bot.svc.lobby(tid)
        assert lobby is not None
        store = bot.svc.store

        async def failing(*args: Any, **kwargs: Any) -> None:
            for update in queued:  # sent now, while the join is not stored
                await render(update)
            assert tid not in bot.fc.lobbies  # nothing could be drawn
            raise StoreError("cannot write to the database: database is locked")

        monkeypatch.setattr(store, "append", failing)
        if read_back != "at once":
            _fail_once(monkeypatch, store, "table_log")
        out = await bert.press(button(lobby.message, "j"))
        assert not out.ok and out.code == "not_saved", out
        await bot.fc.wait(lambda: tid in bot.fc.lobbies)
        shown = bot.fc.lobbies[tid].message.text
        assert "Anna" in shown and "Bert" not in shown, shown
    finally:
        await bot.stop()


async def test_a_table_whose_log_no_longer_replays_after_a_failed_write_is_closed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failed write, and the table's stored log no longer rebuilds it (a bug): the
    table is closed as it would be at a start, so a press is told so, not told "not
    saved, try again" for ever at a table that can never be saved again."""
    bot = await _start(tmp_path / "bot.sqlite3", write_retry=0.1)
    try:
        anna, tid = await _anna_to_play(bot)
        _fail_once(monkeypatch, bot.svc.store, "append")

        def broken(cls: type[Table], table_id: str, entries: list[Entry]) -> Table:
            raise ValueError("unknown table log entry")

        monkeypatch.setattr(Table, "from_log", classmethod(broken))
        card = anna.a_move(tid)
        refused = await anna.press(card)
        assert not refused.ok and refused.code == "not_saved", refused
        again = await anna.press(card)
        assert not again.ok and again.code == "unknown_table", again
    finally:
        await bot.stop()


async def test_a_second_bot_given_a_symlink_to_the_database_is_refused(tmp_path: Path) -> None:
    """Another name for the same file is the same database: two bots on it would play
    the same tables from two memories."""
    path = tmp_path / "bot.sqlite3"
    link = tmp_path / "other-name.sqlite3"
    first = await Store(path, exclusive=True).open()
    try:
        link.symlink_to(path)
        with pytest.raises(StoreError, match="in use by another running bot"):
            await Store(link, exclusive=True).open()
    finally:
        await first.close()


async def test_a_table_id_the_store_draws_is_seven_lowercase_base36_characters(
    tmp_path: Path,
) -> None:
    """Ids are shown in every table message and typed back (/abort, /record): seven
    characters of 0-9 and a-z, as the button payloads' length budget assumes, and
    each a number of its own (the tests elsewhere draw theirs from a counter)."""
    store = await Store(tmp_path / "bot.sqlite3").open()
    try:
        drawn = [await store.create_table(CHAT.key, "zweier", {"k": "create"}) for _ in range(50)]
    finally:
        await store.close()
    assert len(set(drawn)) == 50
    assert all(re.fullmatch(r"[0-9a-z]{7}", tid) for tid in drawn), drawn
    for n in (0, 35, 36, 123_456_789, 36**7 - 1):
        assert int(_base36(n), 36) == n
    assert _base36(36**7 - 1) == "zzzzzzz"


async def test_handled_updates_are_kept_per_source_within_their_window_across_a_restart(
    tmp_path: Path,
) -> None:
    """Telegram sends again the updates it was not told were received: those a bot
    handled before a restart must read back as handled (or a press is applied twice),
    for each bot token apart, the newest `keep` ids of each, and none older than
    the platform keeps an update."""
    path = tmp_path / "bot.sqlite3"
    async with Store(path) as store:
        for update_id in (10, 11, 12, 13):
            await store.mark_handled("tg:a", update_id, keep=2)
        await store.mark_handled("tg:a", 12, keep=2)  # handled again: nothing changes
        await store.mark_handled("tg:b", 5, keep=2)
    async with Store(path) as store:
        assert await store.handled_updates("tg:a") == [12, 13]
        assert await store.handled_updates("tg:b") == [5]
        await store.forget_handled_updates(before=0)  # all stored since: none go
        assert await store.handled_updates("tg:a") == [12, 13]
        await store.forget_handled_updates(before=time.time() + 1)
        assert await store.handled_updates("tg:a") == await store.handled_updates("tg:b") == []


async def _queued_refs(store: Store, table_id: str, n: int) -> list[asyncio.Task[None]]:
    """`n` writes queued behind each other, none committed yet when this returns."""
    tasks = [
        asyncio.create_task(store.set_message_ref(table_id, f"slot{i}", f"-1001/{i}"))
        for i in range(n)
    ]
    await asyncio.sleep(0)  # each has queued its write and waits for the commit
    return tasks


async def test_writes_queued_at_a_shutdown_are_committed_before_the_store_closes(
    tmp_path: Path,
) -> None:
    """A stop (SIGTERM, /shutdown) while presses wait for their commit: each is in the
    file after the restart, as each player was told."""
    path = tmp_path / "bot.sqlite3"
    store = await Store(path).open()
    table_id = await store.create_table(CHAT.key, "zweier", {"k": "create"})
    tasks = await _queued_refs(store, table_id, 20)
    await store.close()
    await asyncio.gather(*tasks)  # every waiter was told it is stored
    # a press or a read arriving during the shutdown is refused as the store's error,
    # which the adapters answer, not as a crash of its handler
    with pytest.raises(StoreError):
        await store.set_message_ref(table_id, "late", "-1001/99")  # nobody would commit it
    with pytest.raises(StoreError):
        await store.message_refs(table_id)
    with pytest.raises(StoreError):
        await store.schema_version()
    async with Store(path) as store:
        assert len(await store.message_refs(table_id)) == 20


async def test_writes_cut_off_by_a_hard_stop_are_refused_and_those_said_stored_are(
    tmp_path: Path,
) -> None:
    """Going down hard (`drain=False`) no waiter hangs, and what each was answered is
    what the file holds after the restart."""
    path = tmp_path / "bot.sqlite3"
    store = await Store(path).open()
    table_id = await store.create_table(CHAT.key, "zweier", {"k": "create"})
    tasks = await _queued_refs(store, table_id, 20)
    await store.close(drain=False)
    answers = await asyncio.gather(*tasks, return_exceptions=True)
    assert all(a is None or isinstance(a, StoreError) for a in answers), answers
    stored = {f"slot{i}" for i, a in enumerate(answers) if a is None}
    assert len(stored) < 20  # those still queued were not committed
    async with Store(path) as store:
        assert set(await store.message_refs(table_id)) == stored


async def test_a_write_being_committed_at_a_hard_stop_is_answered_not_left_waiting(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Going down hard while a batch is on the writer's thread (another program holds
    the file, so it is being tried again): its waiter hears that it was not stored,
    as the file shows after the restart, instead of waiting for ever."""
    path = tmp_path / "bot.sqlite3"
    store = await Store(path, busy_timeout=0.05, write_retry=600).open()
    table_id = await store.create_table(CHAT.key, "zweier", {"k": "create"})
    with held(path), caplog.at_level(logging.WARNING, logger="bot.store"):
        press = asyncio.create_task(store.set_message_ref(table_id, "table", "-1001/7"))
        await _until_logged(caplog, "(database is locked); trying again", unless=press)
        await store.close(drain=False)
    with pytest.raises(StoreError):
        await asyncio.wait_for(press, 60)  # only a waiter nobody answers waits this long
    async with Store(path) as store:
        assert await store.message_refs(table_id) == {}


async def test_a_press_arriving_while_the_store_closes_is_refused_not_left_waiting(
    tmp_path: Path,
) -> None:
    """A press landing in the middle of a stop (the writer already told to end, the
    store not yet closed) is refused with the store's error, which the adapters
    answer, instead of being queued for a writer that will never take it."""
    path = tmp_path / "bot.sqlite3"
    store = await Store(path).open()
    table_id = await store.create_table(CHAT.key, "zweier", {"k": "create"})
    closing = asyncio.create_task(store.close())
    await asyncio.sleep(0)  # the stop has begun: the writer is ending
    late = asyncio.create_task(store.set_message_ref(table_id, "late", "-1001/9"))
    await closing
    with pytest.raises(StoreError):
        await asyncio.wait_for(late, 60)  # only a waiter nobody answers waits this long
    async with Store(path) as store:
        assert await store.message_refs(table_id) == {}


async def test_a_stopped_bots_database_file_alone_holds_every_write(tmp_path: Path) -> None:
    """Only a running bot keeps its newest moves in the log beside the file (README,
    Backups): once it has stopped, the file alone, copied without that log, holds
    every write it was told is stored."""
    path = tmp_path / "bot.sqlite3"
    store = await Store(path).open()
    table_id = await store.create_table(CHAT.key, "zweier", {"k": "create"})
    await asyncio.gather(*await _queued_refs(store, table_id, 20))
    await store.close()
    copy = tmp_path / "copy.sqlite3"
    shutil.copyfile(path, copy)
    async with Store(copy) as restored:
        assert len(await restored.message_refs(table_id)) == 20


async def test_a_first_start_creates_the_database_and_the_folders_it_is_in(
    tmp_path: Path,
) -> None:
    """A first start (a fresh checkout, a new volume): the data folder, however deep,
    need not exist yet; the bot makes it rather than refusing to start."""
    path = tmp_path / "data" / "bot" / "bot.sqlite3"
    async with Store(path, exclusive=True) as store:
        table_id = await store.create_table(CHAT.key, "zweier", {"k": "create"})
    async with Store(path) as store:
        assert await store.table_log(table_id) == [{"k": "create"}]


async def test_a_file_that_is_no_database_is_said_so_without_blaming_its_folder(
    tmp_path: Path,
) -> None:
    """The operator reads the hint to know what to fix: a folder that is fine must
    not be named as the fault when the file itself is no database."""
    path = tmp_path / "bot.sqlite3"
    path.write_text("these are my notes, not a database\n")
    with pytest.raises(StoreError) as refused:
        await Store(path, exclusive=True).open()
    message = str(refused.value)
    assert str(path) in message and message.endswith("file is not a database"), message
    path.unlink()  # the refusal kept nothing of the file: a new one opens
    await (await Store(path, exclusive=True).open()).close()


#: A program that opens a store, writes, closes it and ends, the store still held (as
#: a bot's service holds it until its process ends).
_OPEN_AND_CLOSE = """
import asyncio, sys
from bot.store import Store

async def main() -> Store:
    store = await Store(sys.argv[1], exclusive=True).open()
    await store.set_message_ref("t", "table", "-1001/7")
    await store.close()
    return store

HELD = asyncio.run(main())
print("closed", flush=True)
"""


def test_a_process_that_closed_its_store_ends(tmp_path: Path) -> None:
    """A stop (SIGTERM, docker stop) ends the process once the store is closed: a
    connection left open keeps a thread the interpreter waits for, for ever, and the
    platform kills the bot instead (its clean-stop mark never written)."""
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", _OPEN_AND_CLOSE, str(tmp_path / "bot.sqlite3")],
        capture_output=True,
        env={**os.environ, "PYTHONPATH": str(root)},
        timeout=60,  # only a process that never ends waits this long
    )
    assert done.returncode == 0 and done.stdout == b"closed\n", done.stderr.decode()


async def test_a_write_whose_waiter_gave_up_costs_the_writes_batched_with_it_nothing(
    tmp_path: Path,
) -> None:
    """A press cancelled while its write waits (its handler timed out, its chat went
    away) shares a commit with other tables' presses: those are still stored and
    answered, and the store takes writes after it."""
    path = tmp_path / "bot.sqlite3"
    async with Store(path) as store:
        table_id = await store.create_table(CHAT.key, "zweier", {"k": "create"})
        tasks = await _queued_refs(store, table_id, 3)
        tasks[0].cancel()
        await asyncio.gather(*tasks[1:])
        await store.set_message_ref(table_id, "after", "-1001/99")
    async with Store(path) as store:
        assert {"slot1", "slot2", "after"} <= set(await store.message_refs(table_id))
