"""A kill -9 after the change that scores a deal or ends a match, before its chat was
shown it: the restart shows it, as the uninterrupted run did, until a chat confirms it.

Before, the result was stored and counted on the leaderboard, and never shown: no
match summary, no Rematch button, a table message whose buttons only got refusals; a
deal's result was skipped and the next deal drawn over it.
"""

from __future__ import annotations

import dataclasses
import logging
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.service import TableUpdate
from bot.telling import TOLD_KINDS

from .fakechat import CHAT, Bot, CommitCopies, ids, open_table, play_out, seeds, users


def _killed_after(copies: CommitCopies, table_id: str, status: str, version: int) -> Path:
    """The copy of the store right after the commit that left the table at `status`
    and `version`: what a kill -9 before its chat was shown the change leaves."""
    for _, path, _ in copies.taken:
        conn = sqlite3.connect(path)
        try:
            row = conn.execute(
                "SELECT status, version FROM tables WHERE id = ?", (table_id,)
            ).fetchone()
        finally:
            conn.close()
        if row == (status, version):
            return path
    raise AssertionError(f"no copy has table {table_id} {status} at version {version}")


async def _ends_after_restart(
    bot: Bot, path: Path, table_id: str, *, confirms: bool
) -> list[TableUpdate]:
    """What a bot started on `path` tells its chat of the table once it serves
    (without the events, which no adapter reads)."""
    again = Bot(path, bot.timings, seeds("after"), ids("r"), confirms=confirms)
    await again.start()
    try:
        return [
            dataclasses.replace(u, events=()) for u in again.fc.updates if u.table_id == table_id
        ]
    finally:
        await again.stop()


async def _played_match(
    make_bot: Callable[..., Bot], tmp_path: Path
) -> tuple[Bot, str, CommitCopies, list[TableUpdate]]:
    """Anna and Bert play a Zweier match to its end, the store copied after every
    commit; the ends their chat was told."""
    bot = await make_bot().start()
    copies = CommitCopies(bot.db, tmp_path)
    players = [bot.player(u) for u in users(2)]
    tid = await open_table(bot, "zweier", players)
    await play_out(bot.fc, tid, players)
    ends = [
        dataclasses.replace(u, events=())
        for u in bot.fc.updates
        if u.table_id == tid and u.kind in TOLD_KINDS
    ]
    await bot.stop()
    return bot, tid, copies, ends


async def test_a_match_end_a_kill_kept_from_the_chat_is_shown_after_the_restart(
    make_bot: Callable[..., Bot], tmp_path: Path
) -> None:
    bot, tid, copies, ends = await _played_match(make_bot, tmp_path)
    finished = ends[-1]
    assert finished.kind == "finished" and finished.result is not None
    # the kill: right after the commit that ended the match, before the chat had it
    killed = _killed_after(copies, tid, "finished", finished.version)
    for _ in range(2):  # told again at each start until a chat confirms it
        assert await _ends_after_restart(bot, killed, tid, confirms=False) == [finished]
    assert await _ends_after_restart(bot, killed, tid, confirms=True) == [finished]
    assert await _ends_after_restart(bot, killed, tid, confirms=True) == []
    conn = sqlite3.connect(killed)
    try:
        counted = conn.execute("SELECT COUNT(*) FROM games WHERE table_id = ?", (tid,)).fetchone()
        ratings = conn.execute("SELECT DISTINCT games FROM ratings").fetchall()
        refs = conn.execute(
            "SELECT COUNT(*) FROM message_refs WHERE table_id = ?", (tid,)
        ).fetchone()
    finally:
        conn.close()
    assert counted == (1,) and ratings == [(1,)]  # the match counts once
    assert refs == (0,)


async def test_a_deal_end_a_kill_kept_from_the_chat_is_shown_before_the_next_deal(
    make_bot: Callable[..., Bot], tmp_path: Path
) -> None:
    bot, tid, copies, ends = await _played_match(make_bot, tmp_path)
    first = ends[0]
    assert first.kind == "deal_end" and first.result is not None and first.result.deal_no == 1
    killed = _killed_after(copies, tid, "playing", first.version)
    for _ in range(2):
        told = await _ends_after_restart(bot, killed, tid, confirms=False)
        # its result, then the next deal drawn anew, as after any deal's end
        assert told[0] == first and [u.kind for u in told] == ["deal_end", "started"]
    told = await _ends_after_restart(bot, killed, tid, confirms=True)
    assert told[0] == first and [u.kind for u in told] == ["deal_end", "started"]
    assert await _ends_after_restart(bot, killed, tid, confirms=True) == []


async def test_ends_of_a_database_from_before_the_told_marks_are_not_told_again(
    make_bot: Callable[..., Bot], tmp_path: Path
) -> None:
    """A database the previous version wrote (schema 8: no marks of what its chats
    were shown), its last commit a finished match or a scored deal: after the upgrade
    the bot tells none of it again.  That version showed those ends long ago (or lost
    them for good): a restart must not post old results and summaries in every chat."""
    bot, tid, copies, ends = await _played_match(make_bot, tmp_path)
    for end in (ends[0], ends[-1]):
        status = "finished" if end.kind == "finished" else "playing"
        old = tmp_path / f"old-{end.kind}.sqlite3"
        old.write_bytes(_killed_after(copies, tid, status, end.version).read_bytes())
        conn = sqlite3.connect(old)
        try:
            conn.execute("DROP TABLE table_told")
            conn.execute("PRAGMA user_version=8")
            conn.commit()
        finally:
            conn.close()
        told = await _ends_after_restart(bot, old, tid, confirms=True)
        assert [u for u in told if u.kind in TOLD_KINDS] == []


def _refs(path: Path, table_id: str) -> int:
    conn = sqlite3.connect(path)
    try:
        row = conn.execute(
            "SELECT COUNT(*) FROM message_refs WHERE table_id = ?", (table_id,)
        ).fetchone()
    finally:
        conn.close()
    return int(row[0])


async def test_a_start_says_how_many_ends_wait_for_their_platform(
    make_bot: Callable[..., Bot], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A platform that does not serve (its token removed) kept its untold ends, their
    tables and message refs, at every start without a word to the operator: a start
    now says how many wait, per platform, and nothing of whose they are; and with
    none waiting, says nothing of them."""
    bot, tid, copies, ends = await _played_match(make_bot, tmp_path)
    killed = _killed_after(copies, tid, "finished", ends[-1].version)
    caplog.set_level(logging.INFO, logger="bot")
    for path, waiting in (
        (killed, ["ends to tell when their platform serves: tg 1"]),
        (bot.path, []),
    ):
        caplog.clear()
        again = Bot(path, bot.timings, seeds("after"), ids("r"))
        await again.start(serve=False)  # the platform does not come back
        try:
            lines = [r.getMessage() for r in caplog.records]
            assert [line for line in lines if line.startswith("ends to tell")] == waiting
            said = "\n".join(lines)
            assert not any(u.name in said for u in users(2))
        finally:
            await again.stop()


async def test_an_end_untold_for_over_a_week_is_given_up(
    make_bot: Callable[..., Bot], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """An end its platform never took (the bot run a week without that platform):
    it was rebuilt, and its message refs kept, at every start for ever.  Within a
    week it is told when the platform serves; after that it is given up, its refs
    dropped, with one line for the operator."""
    bot, tid, copies, ends = await _played_match(make_bot, tmp_path)
    killed = _killed_after(copies, tid, "finished", ends[-1].version)
    conn = sqlite3.connect(killed)
    try:
        conn.execute(
            "INSERT INTO message_refs (table_id, slot, ref, updated) VALUES (?, 'table', '1', 0)",
            (tid,),
        )
        conn.commit()
    finally:
        conn.close()

    async def told_at(days: float) -> list[str]:
        later = time.time() + days * 24 * 3600
        # told, but never confirmed (its platform fails it): left to the next start
        again = Bot(
            killed, bot.timings, seeds("after"), ids("r"), clock=lambda: later, confirms=False
        )
        await again.start()
        try:
            assert again.chat is not None
            return [u.kind for u in again.chat.updates if u.table_id == tid]
        finally:
            await again.stop()

    assert await told_at(6) == ["finished"]
    assert _refs(killed, tid) == 1
    caplog.set_level(logging.INFO, logger="bot")
    assert await told_at(7.1) == []  # a week, not a day or an hour more
    assert _refs(killed, tid) == 0
    given_up = [r.getMessage() for r in caplog.records if "given up" in r.getMessage()]
    assert given_up == ["ends of closed tables not told within 7 days, given up: tg 1"]
    caplog.clear()
    assert await told_at(9) == []
    assert not [r for r in caplog.records if "given up" in r.getMessage()]


async def test_a_deal_end_shows_each_person_his_own_last_cards(
    make_bot: Callable[..., Bot], tmp_path: Path
) -> None:
    """A deal's end carries each person's hand as the deal left it (`result.hands`),
    which the adapters show in his hand message instead of the last "Your turn.";
    and only his: nobody is given another's cards.  Told again after a kill, it is
    the same."""
    bot, tid, copies, ends = await _played_match(make_bot, tmp_path)
    first = ends[0]
    assert first.result is not None
    held: dict[str, set[str]] = {}
    for user in users(2):
        hand = first.result.hand_of(user.key, "en")
        assert hand is not None, user.name
        assert hand.text.startswith(f"Your hand at table {tid}")
        [cards] = [line for line in hand.text.splitlines() if line.startswith("Hand: ")]
        held[user.key] = set(cards.removeprefix("Hand: ").split())
    anna, bert = held.values()
    assert anna and bert and not anna & bert
    killed = _killed_after(copies, tid, "playing", first.version)
    told = await _ends_after_restart(bot, killed, tid, confirms=True)
    assert told[0] == first


async def test_an_untold_end_waits_for_its_own_platform_then_frees_its_players(
    make_bot: Callable[..., Bot], tmp_path: Path
) -> None:
    """After the kill, Discord serves first: the Telegram table's summary waits for
    Telegram (told to Discord's adapter it would be lost for good), and once told
    the closed table is gone, so its players may open the next one in that chat."""
    bot, tid, copies, ends = await _played_match(make_bot, tmp_path)
    killed = _killed_after(copies, tid, "finished", ends[-1].version)
    again = Bot(killed, bot.timings, seeds("after"), ids("r"))
    await again.start(serve=False)
    try:
        assert again.service is not None and again.chat is not None
        await again.service.listen(again.chat, "dc")
        assert [u.kind for u in again.chat.updates if u.table_id == tid] == []
        await again.serve()
        assert [u.kind for u in again.chat.updates if u.table_id == tid] == ["finished"]
        assert tid not in again.service.tables
        anna = users(2)[0]
        assert (await again.service.create_table(CHAT, anna, "zweier")).ok
    finally:
        await again.stop()


async def test_a_closing_a_kill_kept_from_the_chat_is_shown_after_the_restart(
    make_bot: Callable[..., Bot], tmp_path: Path
) -> None:
    """Anna and Bert voted their match closed, and the bot was killed before the chat
    was shown it: the restart says it closed (its message no longer offering moves
    that only get refusals), once."""
    bot = await make_bot().start()
    copies = CommitCopies(bot.db, tmp_path)
    anna, bert = (bot.player(u) for u in users(2))
    tid = await open_table(bot, "zweier", [anna, bert])
    for p in (anna, bert):
        assert (await bot.svc.abort(CHAT, p.user)).ok
    [closed] = [u for u in bot.fc.updates if u.table_id == tid and u.kind == "aborted"]
    await bot.stop()
    killed = _killed_after(copies, tid, "aborted", closed.version)
    told = await _ends_after_restart(bot, killed, tid, confirms=True)
    assert [(u.kind, u.version) for u in told] == [("aborted", closed.version)]
    assert await _ends_after_restart(bot, killed, tid, confirms=True) == []


async def test_an_untold_end_whose_log_no_longer_replays_does_not_stop_the_start(
    make_bot: Callable[..., Bot], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The kill kept a match's end from its chat, and its log no longer rebuilds it
    (an entry of a newer bot after a rollback, a damaged file): the bot starts and
    serves all the same, its players free to open the next table; one line names
    the table and the error's type, not its words; and the next start leaves it
    alone instead of logging it again each time."""
    bot, tid, copies, ends = await _played_match(make_bot, tmp_path)
    killed = _killed_after(copies, tid, "finished", ends[-1].version)
    with sqlite3.connect(killed) as db:
        db.execute(
            "INSERT INTO table_log (table_id, version, entry, at) SELECT table_id,"
            " MAX(version) + 1, ?, 0 FROM table_log WHERE table_id = ?",
            ('{"k": "a_later_kind", "card": "KS"}', tid),
        )
    caplog.set_level(logging.INFO, logger="bot")
    assert await _ends_after_restart(bot, killed, tid, confirms=True) == []
    [line] = [r.getMessage() for r in caplog.records if tid in r.getMessage()]
    assert "cannot be shown again (ValueError)" in line
    assert "a_later_kind" not in caplog.text and "KS" not in caplog.text
    caplog.clear()
    again = await Bot(killed, bot.timings, seeds("after"), ids("r")).start()
    try:
        assert tid not in caplog.text
        assert (await again.svc.create_table(CHAT, users(2)[0], "zweier")).ok
    finally:
        await again.stop()
