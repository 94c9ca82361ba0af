"""What a table does when players walk away and when the store fails under a press:
the loopholes and half-done changes an audit found, each pinned down."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from bot import results as R
from bot.payload import decode
from bot.service import ChatRef, Timings
from bot.store import Op, StoreError
from bot.table import Entry, Table

from .conftest import FAST, WALK
from .fakechat import CHAT, Bot, GatedAI, button, open_table, run_out, to_move, users
from .test_board_and_settings import _walked_away
from .test_store_failures import _anna_to_play, _start, held


async def test_one_who_walked_away_cannot_close_the_match_by_his_vote(
    make_bot: Callable[..., Bot],
) -> None:
    """Bert opened the table and stopped playing; the computer took his seat.  Were
    his vote counted, it would be the majority (Anna is the only other one playing,
    and his own vote was added): skipping his turns while losing would wipe the
    match.  He is told to take his seat back first; back, his vote is one of two."""
    bot = await make_bot(timings=WALK).start()
    try:
        anna, bert = (bot.player(u) for u in users(2))
        tid = await _walked_away(bot, bert, anna)
        out = await bot.svc.abort(CHAT, bert.user)
        assert not out.ok and out.code == "vote_when_away", out
        assert "Take my seat back" in (out.text or "")
        table = bot.svc.tables[tid]
        assert table.status.value == "playing" and not table.votes
        assert not [e for e in await bot.db.table_log(tid) if e["k"] in ("vote", "abort")]
        seat = table.seat_of(bert.key)
        assert seat is not None
        assert (await bert.press(button(bot.fc.tables[tid].message, "tb"))).ok
        out = await bot.svc.abort(CHAT, bert.user)
        assert out.ok and "1/2" in (out.text or "") and tid in bot.svc.tables, out
    finally:
        await bot.stop()


async def test_a_press_that_waited_behind_a_failed_write_finds_the_table_open(
    tmp_path: Path,
) -> None:
    """Anna's card does not go through (the database is locked by another program);
    impatient, she presses another card meanwhile.  The first is refused as not
    saved; the second, which waited for the first, must not be told the table is
    closed: it is played on the table as stored."""
    path = tmp_path / "bot.sqlite3"
    bot = await _start(path, write_retry=0.5)
    try:
        anna, tid = await _anna_to_play(bot)
        hand = anna.hand(tid)
        assert hand is not None
        cards = [b for b in hand.message.all_buttons() if decode(b.payload).is_game_action]
        with held(path) as other:
            first = asyncio.ensure_future(anna.press(cards[0]))
            await asyncio.sleep(0.05)
            second = asyncio.ensure_future(anna.press(cards[1]))
            r1 = await first
            other.execute("ROLLBACK")  # the other program lets go
            r2 = await second
        assert not r1.ok and r1.code == "not_saved"
        assert r2.ok, r2
        played = [e for e in await bot.db.table_log(tid) if e["k"] == "act"]
        assert played and played[-1]["code"] == decode(cards[1].payload).arg
    finally:
        await bot.stop()


async def test_forgetme_while_a_write_fails_takes_the_seat_too(tmp_path: Path) -> None:
    """Bert deletes his data while a move at his table cannot be saved: "deleted" must
    be true at the table as well — the computer in his seat, his name gone — not only
    in the stored log while he keeps playing (and scoring) under his account."""
    path = tmp_path / "bot.sqlite3"
    bot = await _start(path, write_retry=0.5)
    try:
        anna, bert = (bot.player(u) for u in users(2))
        tid = await open_table(bot, "zweier", [anna, bert])
        mover = to_move(bot.svc.tables[tid], [anna, bert])
        other = bert if mover is anna else anna
        card = mover.a_move(tid)
        with held(path) as h:
            press = asyncio.ensure_future(mover.press(card))
            await asyncio.sleep(0.05)
            forget = asyncio.ensure_future(bot.svc.forget(other.user))
            assert (await press).code == "not_saved"
            h.execute("ROLLBACK")
            assert (await forget).ok
        table = bot.svc.tables[tid]
        assert other.key not in table.humans()
        assert other.user.name not in [s.name for s in table.seats if s is not None]
        assert any(e["k"] == "forget" for e in await bot.db.table_log(tid))
    finally:
        await bot.stop()


async def test_a_join_while_his_data_is_deleted_stays_his_after_a_restart(
    make_bot: Callable[..., Bot], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bert plays in one group and, as he confirms /forgetme, presses Join in another:
    the Join lands while his deletion reads what to scrub, before his seat and rows
    go. Both go through and the lobby shows him: the stored join must say so too, or
    after a restart his seat belongs to "deleted", who then collects results."""
    other = ChatRef("tg", "-1002", "Other group")
    bot = await make_bot().start()
    try:
        anna, bert = (bot.player(u) for u in users(2))
        lobby = (await bot.svc.create_table(other, anna.user, "dreier")).table_id
        assert lobby is not None
        await open_table(bot, "zweier", [bert])  # Bert against the computer, in CHAT
        join = button(bot.fc.lobbies[lobby].message, "j")
        real = R.forget_ops
        pressed: list[Any] = []

        async def join_lands_first(*args: Any, **kwargs: Any) -> list[Op]:
            pressed.append(await bert.press(join))  # before the seats and the rows
            return await real(*args, **kwargs)

        monkeypatch.setattr(R, "forget_ops", join_lands_first)
        forgot = await bot.svc.forget(bert.user)
        [joined] = pressed
        assert forgot.ok and joined.ok, (forgot, joined)
        seats = [s.user if s else None for s in bot.svc.tables[lobby].seats]
        assert bert.key in seats
    finally:
        await bot.stop()
    bot = await make_bot().start()
    try:
        assert [s.user if s else None for s in bot.svc.tables[lobby].seats] == seats
    finally:
        await bot.stop()


async def test_a_table_opened_while_his_data_is_deleted_keeps_its_host(
    make_bot: Callable[..., Bot],
) -> None:
    """Bert types /new as his /forgetme runs: whichever goes first, what is stored
    agrees with what the chat saw — no table that comes back after a restart with a
    host called "deleted"."""
    other = ChatRef("tg", "-1002", "Other group")
    bot = await make_bot().start()
    try:
        bert = bot.player(users(2)[1])
        real = bot.db.create_table

        async def stored_then_slow(*args: Any, **kwargs: Any) -> str:
            # the table's row is stored (naming him its host); memory follows later
            table_id = await real(*args, **kwargs)
            await asyncio.sleep(0.2)
            return table_id

        async def forget_meanwhile() -> Any:
            await asyncio.sleep(0.05)
            return await bot.svc.forget(bert.user)

        bot.db.create_table = stored_then_slow  # type: ignore[method-assign]
        opened, _ = await asyncio.gather(
            bot.svc.create_table(other, bert.user, "dreier"), forget_meanwhile()
        )
        bot.db.create_table = real  # type: ignore[method-assign]
        assert opened.ok, opened
        seen = {t.id: (t.host, t.seat_of(bert.key)) for t in bot.svc.tables_in(other.key)}
    finally:
        await bot.stop()
    bot = await make_bot().start()
    try:
        after = {t.id: (t.host, t.seat_of(bert.key)) for t in bot.svc.tables_in(other.key)}
        assert after == seen and all(host != "deleted" for host, _ in after.values()), after
    finally:
        await bot.stop()


async def test_a_forgetme_the_store_does_not_take_gives_up_nothing(bot: Bot) -> None:
    """Bert's seat and his rows go in one write: when deleting his rows cannot be
    stored he is told it did not go through and keeps his seat (not a seat given up
    for nothing, his data kept). Sent again, it does both."""
    anna, bert = (bot.player(u) for u in users(2))
    tid = await open_table(bot, "zweier", [anna, bert])
    real = bot.db.write

    async def no_deletes(**kw: Any) -> None:
        if any("DELETE FROM players" in sql for sql, _ in kw.get("ops", [])):
            raise StoreError("disk I/O error")
        await real(**kw)

    bot.db.write = no_deletes  # type: ignore[method-assign]
    out = await bot.svc.forget(bert.user)
    bot.db.write = real  # type: ignore[method-assign]
    assert not out.ok and out.code == "not_saved", out
    assert bot.svc.tables[tid].seat_of(bert.key) is not None
    assert await bot.db.player(bert.key) is not None
    again = await bot.svc.forget(bert.user)
    assert again.ok and await bot.db.player(bert.key) is None
    assert bot.svc.tables[tid].seat_of(bert.key) is None


async def test_after_a_restart_no_computer_moves_before_the_platform_serves(
    make_bot: Callable[..., Bot],
) -> None:
    """The bot restarts with a computer to move and Telegram still out of reach.  Were
    the computer to move, Anna's turn would come and her clock run while she cannot
    press (and its reminder go to nobody): the table waits for the platform, then
    goes on, her turn with its full time."""
    # Anna's turns are long (a short one ran out under her presses on a busy
    # machine); the bot's clock, not the test's wait, passes her whole turn meanwhile
    timings = dataclasses.replace(FAST, ai_delay=0.05)
    now = [1_000_000.0]
    bot = await make_bot(timings=timings, clock=lambda: now[0]).start()
    anna = bot.player(users(1)[0])
    tid = await open_table(bot, "zweier", [anna])
    table = bot.svc.tables[tid]
    while (seat := table.to_act()) is not None and table.seats[seat].user is not None:  # type: ignore[union-attr]
        assert await anna.take_turn(tid) is not None
    before = await bot.db.table_log(tid)
    await bot.crash()
    bot = await make_bot(timings=timings, clock=lambda: now[0]).start(serve=False)
    try:
        await asyncio.sleep(0.5)  # ten times the computer's delay
        now[0] += 2 * timings.turn_timeout  # and more than Anna's whole turn
        assert await bot.db.table_log(tid) == before
        await bot.serve()
        loop = asyncio.get_running_loop()
        end = loop.time() + 10
        table = bot.svc.tables[tid]
        while (seat := table.to_act()) is None or table.seats[seat].user is None:  # type: ignore[union-attr]
            assert loop.time() < end, "the computer did not move once the platform served"
            await asyncio.sleep(0.02)
        assert not [e for e in await bot.db.table_log(tid) if e.get("by") == "t"]
    finally:
        await bot.stop()


@pytest.mark.parametrize("how", ["write_fails", "killed"])
async def test_a_table_its_last_person_left_closes_even_if_closing_failed(
    make_bot: Callable[..., Bot], how: str
) -> None:
    """Anna, alone against the computer, walks away: the computer takes her seat and
    the table must close (no match played out for nobody, no loss recorded for her).
    Closing is a write of its own: when it fails (the disk full) or the bot is killed
    just before it, the table still closes — on the retry, or at the restart."""
    timings = Timings(
        turn_timeout=0.2, reminder_before=0.1, missed_turns_limit=1, ai_delay=0.0, lobby_expiry=600
    )
    bot = await make_bot(timings=timings).start()
    store, svc = bot.store, bot.svc
    assert store is not None and svc is not None
    aborts: list[list[Entry]] = []
    real_append, real_commit = store.append, svc._commit
    killed = asyncio.Event()

    async def append(
        table_id: str, first_version: int, entries: Sequence[Entry], **kw: Any
    ) -> None:
        if any(e["k"] == "abort" for e in entries) and not aborts:
            aborts.append(list(entries))
            raise StoreError("cannot write to the database: database or disk is full")
        await real_append(table_id, first_version, entries, **kw)

    async def commit(table: Table, entries: list[Entry], then: Any = None, **kw: Any) -> Any:
        if any(e["k"] == "abort" for e in entries):
            killed.set()
            await asyncio.sleep(3600)  # the process dies here
        return await real_commit(table, entries, then, **kw)

    if how == "write_fails":
        store.append = append  # type: ignore[method-assign]
    else:
        svc._commit = commit  # type: ignore[method-assign]
    try:
        anna = bot.player(users(1)[0])
        tid = await open_table(bot, "zweier", [anna])
        loop = asyncio.get_running_loop()
        end = loop.time() + 20
        if how == "killed":
            await asyncio.wait_for(killed.wait(), 10)
            await bot.crash()
            bot = await make_bot(timings=timings).start(serve=False)
            await asyncio.sleep(0.3)  # closed now, the news would reach no chat
            assert tid in bot.svc.tables and bot.fc.kinds(tid) == []
            await bot.serve()
        while tid in bot.svc.tables:
            assert loop.time() < end, "the table its person left did not close"
            await asyncio.sleep(0.05)
        assert bot.store is not None
        log = await bot.store.table_log(tid)
        assert log[-1]["k"] == "abort" and log[-1]["reason"] == "walked_away"
        assert not [e for e in log if e["k"] == "act" and e["by"] == "ai"]
        assert await bot.store.fetchall("SELECT * FROM results WHERE table_id = ?", (tid,)) == []
        assert bot.fc.kinds(tid)[-1] == "aborted"
        if how == "write_fails":
            assert aborts
    finally:
        await bot.stop()


async def test_a_lobby_that_expired_while_the_bot_was_down_closes_where_it_is_seen(
    make_bot: Callable[..., Bot],
) -> None:
    """A lobby's time ran out while the bot was down.  Closed at the restart, before
    the platform serves, the news would reach no chat: its message would keep
    inviting people to a table that is gone.  It closes once the platform serves,
    and the chat is told."""
    timings = dataclasses.replace(FAST, lobby_expiry=0.5)
    bot = await make_bot(timings=timings).start()
    anna = bot.player(users(1)[0])
    out = await bot.svc.create_table(CHAT, anna.user, "zweier")
    assert out.ok and out.table_id is not None
    tid = out.table_id
    await bot.crash()
    await asyncio.sleep(0.6)
    bot = await make_bot(timings=timings).start(serve=False)
    try:
        await asyncio.sleep(0.2)
        assert tid in bot.svc.tables and bot.fc.kinds(tid) == []
        await bot.serve()
        loop = asyncio.get_running_loop()
        end = loop.time() + 5
        while tid in bot.svc.tables:
            assert loop.time() < end, "the expired lobby did not close"
            await asyncio.sleep(0.02)
        assert bot.fc.kinds(tid) == ["aborted"]
    finally:
        await bot.stop()


async def test_votes_that_carried_as_one_walked_away_close_the_table_after_a_restart(
    make_bot: Callable[..., Bot],
) -> None:
    """Anna voted to close the table (1 of the 2 needed); Bert then walked away, so
    her vote is the majority of those still playing.  The bot is killed before it
    closes the table: after the restart it closes, counted against Bert who walked
    out, once the chat can be told."""
    bot = await make_bot(timings=WALK).start()
    svc = bot.svc
    real_commit = svc._commit
    killed = asyncio.Event()

    async def commit(table: Table, entries: list[Entry], then: Any = None, **kw: Any) -> Any:
        if any(e["k"] == "end" for e in entries):
            killed.set()
            await asyncio.sleep(3600)  # the process dies here
        return await real_commit(table, entries, then, **kw)

    svc._commit = commit  # type: ignore[method-assign]
    anna, bert = (bot.player(u) for u in users(2))
    tid = await open_table(bot, "zweier", [bert, anna])  # Bert hosts: Anna's is a vote
    assert (await svc.abort(CHAT, anna.user)).ok
    loop = asyncio.get_running_loop()
    end = loop.time() + 20
    while not killed.is_set():  # Anna plays on, Bert does not
        assert loop.time() < end, "Bert's seat was never taken over"
        run_out(svc, tid, bert)
        await anna.take_turn(tid)
        await asyncio.sleep(0.02)
    await bot.crash()
    bot = await make_bot(timings=WALK).start(serve=False)
    try:
        await asyncio.sleep(0.3)
        assert tid in bot.svc.tables and bot.fc.kinds(tid) == []
        await bot.serve()
        while tid in bot.svc.tables:
            assert loop.time() < end + 10, "the table did not close"
            await asyncio.sleep(0.02)
        assert bot.fc.kinds(tid) == ["finished"] and bot.store is not None
        log = await bot.store.table_log(tid)
        assert log[-1]["k"] == "end" and log[-1]["reason"] == "walked_away"
        rows = await bot.store.fetchall(
            "SELECT player, won FROM results WHERE table_id = ?", (tid,)
        )
        assert dict(rows) == {anna.key: 1, bert.key: 0}
    finally:
        await bot.stop()


async def test_a_timeout_after_a_failed_press_still_hands_the_seat_over(
    make_bot: Callable[..., Bot],
) -> None:
    """Anna's time ran out and the computer thinks for her; meanwhile her own late
    press cannot be saved (the disk is full), which rebuilds the table from the store.
    The timeout's move must then act on the table as rebuilt: the computer takes her
    seat (her missed turn was the last allowed) and the chat is told so."""
    timings = Timings(
        turn_timeout=0.5, reminder_before=0.0, missed_turns_limit=1, ai_delay=0.0, lobby_expiry=600
    )
    gated = GatedAI()
    bot = await make_bot(timings=timings, ai_runner=gated).start()
    try:
        anna, bert = (bot.player(u) for u in users(2))
        tid = await open_table(bot, "zweier", [anna, bert])
        seat = bot.svc.tables[tid].to_act()
        assert seat is not None
        mover = to_move(bot.svc.tables[tid], [anna, bert])
        await asyncio.wait_for(gated.thinking.wait(), 5)  # the timeout fired
        assert bot.store is not None
        real = bot.store.append

        async def full(*args: Any, **kw: Any) -> Any:
            raise StoreError("cannot write to the database: database or disk is full")

        bot.store.append = full  # type: ignore[method-assign]
        assert (await mover.press(mover.a_move(tid))).code == "not_saved"
        bot.store.append = real  # type: ignore[method-assign]
        gated.gate.set()
        loop = asyncio.get_running_loop()
        end = loop.time() + 5
        while "replaced" not in bot.fc.kinds(tid):
            assert loop.time() < end, bot.fc.kinds(tid)
            await asyncio.sleep(0.02)
        s = bot.svc.tables[tid].seats[seat]
        assert s is not None and s.ai is not None
    finally:
        await bot.stop()


async def test_an_abort_before_the_start_is_no_vote_that_counts_in_the_match(
    make_bot: Callable[..., Bot],
) -> None:
    """Bert types /abort in the lobby of Anna's Dreier table.  Only the host closes a
    lobby; had his word been kept as a vote, Cilli's one vote in the match would
    have made the majority of three and wiped the match.  He is told what he can do
    instead, and the match needs two votes."""
    bot = await make_bot().start()
    try:
        anna, bert, cilli = (bot.player(u) for u in users(3))
        tid = await open_table(bot, "dreier", [anna, bert, cilli], start=False)
        out = await bot.svc.abort(CHAT, bert.user)
        assert not out.ok and out.code == "vote_in_lobby", out
        assert "only the host (Anna)" in (out.text or "") and "Leave" in (out.text or "")
        assert (await anna.press(button(bot.fc.lobbies[tid].message, "st"))).ok
        out = await bot.svc.abort(CHAT, cilli.user)
        assert out.ok and "1/2" in (out.text or ""), out
        assert bot.svc.tables[tid].status.value == "playing"
    finally:
        await bot.stop()
