"""Turn timers with small timings: reminder, the computer plays for an absent player,
replacement after missed turns, and taking the seat back."""

from __future__ import annotations

import asyncio
import dataclasses
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.i18n import t
from bot.payload import decode
from bot.service import ChatRef, Timings
from bot.views import Button
from engine.actions import CloseTalon, ExchangeTrump, Pass, PlayCard
from engine.actions import decode as decode_action

from .fakechat import (
    CHAT,
    STILL_NOW,
    Bot,
    CommitCopies,
    GatedAI,
    Player,
    button,
    ids,
    open_table,
    play_out,
    run_out,
    seeds,
    to_move,
    until_discard_menu,
    until_gift,
    users,
    walks_away,
)
from .test_expert_views import prefer

TIMINGS = Timings(
    turn_timeout=0.3, reminder_before=0.2, missed_turns_limit=2, ai_delay=0.0, lobby_expiry=600
)
#: Turns a player who is there cannot miss on a busy machine: where one player is
#: away and the other plays, the away one's timers are fired by the test (`run_out`).
#: The short turns above, for everybody, ran out under the one who plays when his
#: press came late.
LONG = Timings(
    turn_timeout=30.0, reminder_before=10.0, missed_turns_limit=2, ai_delay=0.0, lobby_expiry=600
)


def _to_act(bot: Bot, tid: str) -> str | None:
    table = bot.svc.tables.get(tid)
    if table is None:
        return None
    seat = table.to_act()
    s = table.seats[seat] if seat is not None else None
    return s.user if s is not None else None


async def _log(bot: Bot, tid: str) -> list[dict[str, object]]:
    # the table changes in memory before its entries are stored, both under the
    # table's lock: taking the lock waits for a write in flight
    async with bot.svc.lock(tid):
        return await bot.store.table_log(tid)  # type: ignore[union-attr]


async def _play_others(
    bot: Bot, tid: str, present: Player, absent: Player, until: Callable[[], bool]
) -> None:
    """The present player plays whenever it is their turn; the absent one never: his
    turns run out at once."""
    while not until():
        if tid not in bot.svc.tables:
            return
        out = await present.take_turn(tid)  # if their hand message says it is their turn
        if out is not None:
            continue
        run_out(bot.svc, tid, absent)
        n = len(bot.fc.updates)

        def moved(n: int = n) -> bool:
            return until() or len(bot.fc.updates) != n

        await bot.fc.wait(moved, timeout=3)


def _table_text(bot: Bot, tid: str) -> str:
    shown = bot.svc.table(tid)
    assert shown is not None
    return shown.message.text


def _comebacks(bot: Bot, tid: str) -> list[str | None]:
    """Whom the chat was told is back and plays his seat again, in order."""
    return [u.user for u in bot.fc.updates if u.table_id == tid and u.kind == "back"]


async def test_reminder_timeout_replacement_and_take_back(make_bot: Callable[..., Bot]) -> None:
    bot = await make_bot(timings=LONG).start()
    try:
        a, b = (bot.player(u) for u in users(2))
        tid = await open_table(bot, "zweier", [a, b])
        absent = a if _to_act(bot, tid) == a.key else b
        present = b if absent is a else a
        seat = bot.svc.tables[tid].seat_of(absent.key)
        assert seat is not None

        # 1. a reminder, then the computer plays the absent player's turn (the timers'
        # own callbacks, fired now: that they fire on time is the short-turn tests')
        bot.svc._fire(tid, bot.svc.tables[tid].version, "remind")
        await bot.fc.wait(lambda: "reminder" in bot.fc.kinds(tid), timeout=2)
        reminder = next(u for u in bot.fc.updates if u.kind == "reminder")
        assert reminder.user == absent.key
        assert run_out(bot.svc, tid, absent)
        await bot.fc.wait(
            lambda: bot.svc.tables[tid].seats[seat].missed == 1,  # type: ignore[union-attr]
            timeout=2,
        )
        log = await _log(bot, tid)
        # one move, or a close or a trump exchange and the card of that turn ("o")
        by = [e["by"] for e in log if e["k"] == "act"]
        assert by[0] == "t" and by[1:] in ([], ["o"])
        assert bot.svc.tables[tid].seats[seat].ai is None  # type: ignore[union-attr]

        # 2. a second missed turn in a row: the computer takes the seat
        await _play_others(bot, tid, present, absent, lambda: "replaced" in bot.fc.kinds(tid))
        replaced = [u for u in bot.fc.updates if u.kind == "replaced"]
        assert len(replaced) == 1 and replaced[0].user == absent.key
        table = bot.svc.tables[tid]
        s = table.seats[seat]
        assert s is not None and s.ai is not None and s.user == absent.key
        log = await _log(bot, tid)
        assert [e["k"] for e in log].count("replace") == 1
        # at his second missed turn, the limit: not a turn later
        missed = [e for e in log if e["k"] == "act" and e["seat"] == seat and e["by"] == "t"]
        assert len(missed) == 2
        tv = bot.fc.tables[tid]
        assert "(the computer plays)" in tv.message.text
        # his own hand says so too, and how to come back
        hv = bot.svc.hand(tid, absent.key)
        assert hv is not None
        assert "The computer plays your seat now." in hv.message.text
        assert "“Take my seat back”" in hv.message.text
        if not hv.your_turn:  # the button it names is on his hand, not only the table's
            assert button(hv.message, "tb").label == "Take my seat back"
            # and it is all he can press: no "choose one of your actions"
            assert "Press “Take my seat back” to play again yourself." in hv.message.text
        else:
            assert "Choose one of your actions, or “Take my seat back”" in hv.message.text
        # the other player, who is here, is told nothing of the kind
        mine = bot.svc.hand(tid, present.key)
        assert mine is not None and "The computer plays" not in mine.message.text
        assert not any(decode(b.payload).verb == "tb" for b in mine.message.all_buttons())
        take_back = button(tv.message, "tb")
        # the computer now plays that seat without waiting for a timeout
        moves = sum(1 for e in log if e["k"] == "act" and e["seat"] == seat)
        await _play_others(
            bot,
            tid,
            present,
            absent,
            lambda: (
                sum(1 for d in bot.svc.tables[tid].deals for st, _ in d.actions if st == seat)
                >= moves + 2
                or tid not in bot.svc.tables
            ),
        )
        assert tid in bot.svc.tables, "the match ended too soon for this test"
        log = await _log(bot, tid)
        assert any(e["k"] == "act" and e.get("by") == "ai" and e["seat"] == seat for e in log)

        # another player's press of that button is told whose it is
        other = await present.press(take_back)
        assert other.code == "not_replaced_others" and absent.user.name in (other.text or "")

        # 3. the player takes the seat back with the button of the table message
        out = await absent.press(take_back)
        assert out.ok, out
        s = bot.svc.tables[tid].seats[seat]
        assert s is not None and s.ai is None and s.missed == 0
        assert (await absent.press(take_back)).code == "not_replaced"
        back = bot.svc.hand(tid, absent.key)  # his hand is his own again
        assert back is not None and "The computer plays" not in back.message.text
        assert not any(decode(b.payload).verb == "tb" for b in back.message.all_buttons())
        assert not any(
            decode(b.payload).verb == "tb" for b in bot.fc.tables[tid].message.all_buttons()
        )

        # 4. missing one turn again does not replace them (the count starts over)
        await _play_others(
            bot,
            tid,
            present,
            absent,
            lambda: bot.svc.tables[tid].seats[seat].missed == 1,  # type: ignore[union-attr]
        )
        assert [u.kind for u in bot.fc.updates].count("replaced") == 1

        # 5. replaced again, then simply playing a card takes the seat back too
        await _play_others(
            bot,
            tid,
            present,
            absent,
            lambda: [u.kind for u in bot.fc.updates].count("replaced") == 2,
        )
        # the computer thinks long: the player is quicker (a copy: LONG stays as it is)
        bot.svc.timings = dataclasses.replace(bot.svc.timings, ai_delay=5.0)
        await _play_others(bot, tid, present, absent, lambda: _to_act(bot, tid) == absent.key)
        bot.svc._arm(bot.svc.tables[tid])  # re-arm with the long delay
        hv = absent.hand(tid)
        assert hv is not None and hv.your_turn
        took = await absent.take_turn(tid)
        assert took is not None and took.ok
        s = bot.svc.tables[tid].seats[seat] if tid in bot.svc.tables else None
        if s is not None:
            assert s.ai is None and s.missed == 0
        log = await _log(bot, tid)
        assert log[-1]["k"] in ("act", "deal") and any(e["k"] == "back" for e in log[-3:])
    finally:
        await bot.stop()


async def test_a_press_after_the_computer_played_for_you_says_so(
    make_bot: Callable[..., Bot],
) -> None:
    """A card pressed just after the turn ran out is refused as too late (the computer
    played for him), not merely as an old button; once he has played a turn himself,
    an old button is only out of date."""
    # long turns, the late one's run out by the test: with 1 s turns the other's ran
    # out too when his presses came late
    timings = dataclasses.replace(LONG, missed_turns_limit=3)
    bot = await make_bot(timings=timings).start()
    try:
        a, b = (bot.player(u) for u in users(2))
        tid = await open_table(bot, "zweier", [a, b])
        absent = a if _to_act(bot, tid) == a.key else b
        present = b if absent is a else a
        seat = bot.svc.tables[tid].seat_of(absent.key)
        hv = absent.hand(tid)  # his turn: he is slow
        assert seat is not None and hv is not None and hv.your_turn
        late_card = hv.message.all_buttons()[0]
        assert run_out(bot.svc, tid, absent)
        await bot.fc.wait(
            lambda: bot.svc.tables[tid].seats[seat].missed == 1,  # type: ignore[union-attr]
            timeout=3,
        )
        out = await absent.press(late_card)
        assert not out.ok and out.code == "too_late"
        assert out.text is not None and "the computer played for you" in out.text

        # his turn again, still with a missed turn against him: a button sent after
        # the computer's move that something else made old (here the other player's
        # abort vote) is out of date, not too late
        while _to_act(bot, tid) != absent.key:
            assert await present.take_turn(tid) is not None
        hv = absent.hand(tid)
        assert hv is not None and hv.your_turn
        fresh_card = hv.message.all_buttons()[0]
        assert (await bot.svc.abort(CHAT, present.user)).ok  # one vote of two: no abort
        assert bot.svc.tables[tid].seats[seat].missed == 1  # type: ignore[union-attr]
        out = await absent.press(fresh_card)
        assert not out.ok and out.code == "stale"

        # back at the table, he plays his next turn himself: his old button is just old
        while _to_act(bot, tid) != absent.key:
            assert await present.take_turn(tid) is not None
        assert await absent.take_turn(tid) is not None
        out = await absent.press(late_card)
        assert not out.ok and out.code == "stale"
    finally:
        await bot.stop()


async def test_computer_seats_move_after_their_delay(make_bot: Callable[..., Bot]) -> None:
    timings = Timings(turn_timeout=30, reminder_before=10, ai_delay=0.3, lobby_expiry=600)
    bot = await make_bot(timings=timings).start()
    try:
        a = bot.player(users(1)[0])
        # the time from before the computer's delay began (the start, or her move), to
        # its move: a time taken after, as the table's version was, could be late
        # enough on a busy machine that the computer had moved already
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        tid = await open_table(bot, "zweier", [a])
        table = bot.svc.tables[tid]
        computer = next(i for i, s in enumerate(table.seats) if s is not None and s.ai)

        def computer_moved() -> bool:
            log = table.deal_log
            return log is not None and any(seat == computer for seat, _ in log.actions)

        if not computer_moved() and _to_act(bot, tid) == a.key:
            t0 = loop.time()
            assert await a.take_turn(tid) is not None
        await bot.fc.wait(computer_moved, timeout=2)
        assert loop.time() - t0 >= 0.15
    finally:
        await bot.stop()


async def test_no_timer_for_a_finished_or_aborted_table(make_bot: Callable[..., Bot]) -> None:
    # turns shorter than the wait below; missing them never costs a seat, so the
    # votes count however many ran out before they came (two cost the host's seat,
    # and with it his vote, when the votes came late)
    bot = await make_bot(timings=dataclasses.replace(TIMINGS, missed_turns_limit=1000)).start()
    try:
        a, b = (bot.player(u) for u in users(2))
        tid = await open_table(bot, "zweier", [a, b])
        assert (await bot.svc.abort(CHAT, b.user)).ok  # a vote, then the host's: closed
        assert (await bot.svc.abort(CHAT, a.user)).ok
        assert tid not in bot.svc.tables
        n = len(bot.fc.updates)
        await asyncio.sleep(0.5)  # longer than a turn: nothing fires
        assert len(bot.fc.updates) == n
        assert tid not in bot.svc._timers
    finally:
        await bot.stop()


async def test_lobby_expires_after_changes(make_bot: Callable[..., Bot]) -> None:
    """Every change re-arms the timers: a lobby someone joined still expires."""
    timings = Timings(turn_timeout=30, reminder_before=10, ai_delay=0, lobby_expiry=0.3)
    bot = await make_bot(timings=timings).start()
    try:
        a, b = (bot.player(u) for u in users(2))
        tid = (await bot.svc.create_table(CHAT, a.user, "dreier")).table_id
        assert tid is not None
        assert (await b.press(button(bot.fc.lobbies[tid].message, "j"))).ok
        assert (await a.press(button(bot.fc.lobbies[tid].message, "ai"))).ok
        await bot.fc.wait(lambda: tid not in bot.svc.tables, timeout=2)
        assert bot.fc.kinds(tid)[-1] == "aborted"
    finally:
        await bot.stop()


async def test_a_lobby_nobody_touched_expires(make_bot: Callable[..., Bot]) -> None:
    """A lobby opened and left alone closes after its time too, not only one a
    change re-armed: else it would wait in its chat, and seat its host, for ever."""
    timings = Timings(turn_timeout=30, reminder_before=10, ai_delay=0, lobby_expiry=0.3)
    bot = await make_bot(timings=timings).start()
    try:
        a = bot.player(users(1)[0])
        tid = (await bot.svc.create_table(CHAT, a.user, "dreier")).table_id
        assert tid is not None
        await bot.fc.wait(lambda: tid not in bot.svc.tables, timeout=30)
        assert bot.fc.kinds(tid)[-1] == "aborted"
    finally:
        await bot.stop()


async def test_turn_times_out_after_a_vote(make_bot: Callable[..., Bot]) -> None:
    """A vote to abort (a change that is not a move) neither stops the turn timer
    nor gives the player to act more time."""
    # the bot's clock, not the test's wait, brings the turn near its end: with 2 s
    # turns a vote 2 s late came after the timeout (racing it); now the turn cannot
    # run out before the vote, and after it only the half second left remains
    timings = Timings(
        turn_timeout=30.0, reminder_before=10.0, missed_turns_limit=2, ai_delay=0, lobby_expiry=600
    )
    now = [1_000_000.0]
    bot = await make_bot(timings=timings, clock=lambda: now[0]).start()
    try:
        a, b, c = (bot.player(u) for u in users(3))
        tid = await open_table(bot, "dreier", [a, b, c])
        deadline = bot.svc.tables[tid].deadline
        assert deadline is not None
        now[0] = deadline - 0.5
        mover = _to_act(bot, tid)
        host = bot.svc.tables[tid].host
        voter = next(p for p in (a, b, c) if p.key not in (mover, host))
        assert (await bot.svc.abort(CHAT, voter.user)).ok
        assert tid in bot.svc.tables and bot.svc.tables[tid].deadline == deadline
        voted = bot.svc.tables[tid].version
        # moved, and stored (the log is read from the store)
        await bot.fc.wait(
            lambda: (tb := bot.svc.tables[tid]).version > voted and not tb.unsaved, timeout=6
        )
        log = await _log(bot, tid)
        assert any(e["k"] == "act" and e.get("by") == "t" for e in log)
    finally:
        await bot.stop()


async def test_presses_are_answered_while_the_computer_thinks(
    make_bot: Callable[..., Bot],
) -> None:
    # the computer thinks until the test lets it (not 1 s, with the press to be
    # answered in 0.5 s by the clock: a busy machine can take that long for a press)
    gated = GatedAI()
    bot = await make_bot(ai_runner=gated).start()
    try:
        a = bot.player(users(1)[0])
        tid = await open_table(bot, "zweier", [a])
        if _to_act(bot, tid) == a.key:
            assert (await a.take_turn(tid)) is not None
        await asyncio.wait_for(gated.thinking.wait(), 2)
        version = bot.svc.tables[tid].version
        # answered while the computer thinks: a press that waited for it would wait
        # for good
        out = await asyncio.wait_for(a.press(button(bot.fc.tables[tid].message, "h")), 10)
        # "hand": asked for (Telegram then posts it anew if he deleted it)
        assert out.ok and out.code == "hand" and out.hand is not None
        assert bot.svc.tables[tid].version == version
        gated.gate.set()
        await bot.fc.wait(lambda: bot.svc.tables[tid].version > version, timeout=2)
    finally:
        await bot.stop()


async def test_reminder_before_zero_sends_no_reminder(make_bot: Callable[..., Bot]) -> None:
    """REMINDER_BEFORE=0 means no reminders: not one at the deadline itself, where it
    would only race the timeout (and, sent to a platform out of reach, stop its
    clocks after the computer had been asked to move)."""
    timings = Timings(
        turn_timeout=0.3, reminder_before=0.0, missed_turns_limit=3, ai_delay=0, lobby_expiry=600
    )
    bot = await make_bot(timings=timings).start()
    try:
        a, b = (bot.player(u) for u in users(2))
        tid = await open_table(bot, "zweier", [a, b])
        await bot.fc.wait(lambda: "action" in bot.fc.kinds(tid), timeout=2)
        await asyncio.sleep(0.1)  # a reminder fired with the timeout would be out by now
        assert "reminder" not in bot.fc.kinds(tid)
        log = await _log(bot, tid)
        assert [e.get("by") for e in log if e["k"] == "act"][:1] == ["t"]
    finally:
        await bot.stop()


async def test_short_chat_timeout_still_reminds(make_bot: Callable[..., Bot]) -> None:
    """A turn shorter than the reminder lead time is reminded half-way, and so is the
    next one (on this clock every turn has the same deadline: a turn is reminded
    once, but that is no reason to skip the next)."""
    timings = Timings(
        turn_timeout=0.4, reminder_before=5.0, missed_turns_limit=3, ai_delay=0, lobby_expiry=600
    )
    # The bot's clock stands still: the turn's deadline is taken before the start is
    # written and its timers armed after, so with the wall clock a write slower than
    # half the turn (a loaded machine) had the reminder's time pass before it was
    # armed, and no reminder came.  The timers' own delays still run in real time.
    bot = await make_bot(timings=timings, clock=lambda: STILL_NOW).start()
    try:
        a, b = (bot.player(u) for u in users(2))
        tid = await open_table(bot, "zweier", [a, b])
        mover = _to_act(bot, tid)
        await bot.fc.wait(lambda: "action" in bot.fc.kinds(tid), timeout=2)
        kinds = bot.fc.kinds(tid)
        assert "reminder" in kinds and kinds.index("reminder") < kinds.index("action")
        assert next(u.user for u in bot.fc.updates if u.kind == "reminder") == mover
        await bot.fc.wait(lambda: bot.fc.kinds(tid).count("reminder") == 2, timeout=3)
        reminded = [u.user for u in bot.fc.updates if u.kind == "reminder"]
        assert reminded == [mover, next(p.key for p in (a, b) if p.key != mover)]
    finally:
        await bot.stop()


async def test_a_failing_computer_does_not_stall_the_table(
    make_bot: Callable[..., Bot], monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    calls = [0]

    def broken(level: str, view: object, legal: list[int], seed: str) -> int:
        calls[0] += 1
        if calls[0] % 2:
            raise ValueError("the hand AH TH KH leaks into this message")
        return 99999  # not a legal code

    monkeypatch.setattr("bot.service.choose_action", broken)
    bot = await make_bot().start()
    try:
        a = bot.player(users(1)[0])
        tid = await open_table(bot, "zweier", [a])
        await play_out(bot.fc, tid, [a])
        assert bot.fc.kinds(tid)[-1] == "finished" and calls[0] > 4
        failures = [r for r in caplog.records if "failed to choose" in r.getMessage()]
        assert failures and not any("AH" in r.getMessage() for r in failures)
    finally:
        await bot.stop()


async def test_a_replaced_player_picking_a_discard_takes_his_seat_back(
    make_bot: Callable[..., Bot],
) -> None:
    """His hand says any of his actions takes the seat back.  At a discard the first
    presses only pick cards (a menu), so they must take it back too: else the computer
    discards meanwhile and his next press is refused as out of date."""
    timings = Timings(turn_timeout=30, reminder_before=10, missed_turns_limit=3, ai_delay=0.4)
    bot = await make_bot(timings=timings, ai_level="random").start()
    try:
        found = await until_discard_menu(bot, "dreier", None, 3)
        assert found is not None
        tid, player = found
        table = bot.svc.tables[tid]
        seat = table.seat_of(player.key)
        assert seat is not None
        await walks_away(bot, tid, player)
        hand = bot.svc.hand(tid, player.key)  # "The computer plays your seat now. ..."
        assert hand is not None and "Take my seat back" in hand.message.text
        pick = next(b for b in hand.message.all_buttons() if decode(b.payload).verb == "dp")
        out = await player.press(pick)
        assert out.ok and out.hand is not None, out
        held = table.seats[seat]
        assert held is not None and held.ai is None, "the pick did not take the seat back"
        assert _comebacks(bot, tid) == [player.key]  # the chat is told
        # and its table message is drawn anew: its buttons carry the new version
        assert [p.version for p in bot.fc.channel if p.table_id == tid][-1] == table.version
        await asyncio.sleep(3 * timings.ai_delay)  # no computer discards for him
        assert table.to_act() == seat
        more = next(b for b in out.hand.message.all_buttons() if decode(b.payload).verb == "dp")
        assert (await player.press(more)).ok
    finally:
        await bot.stop()


async def test_the_lobby_names_the_level_its_computers_play(bot: Bot) -> None:
    """/settings shows the chat's level for tables opened from now on; a table keeps
    the one it was opened with.  The lobby says which one its computers play."""
    host = bot.player(users(1)[0])
    assert (
        await bot.svc.update_setting(CHAT, host.user, "ai_level", "heuristic", is_admin=True)
    ).ok
    out = await bot.svc.create_table(CHAT, host.user, "zweier")
    assert out.ok and out.table_id is not None and out.lobby is not None
    assert (await host.press(button(out.lobby.message, "ai"))).ok
    assert (await bot.svc.update_setting(CHAT, host.user, "ai_level", "random", is_admin=True)).ok
    lobby = bot.svc.lobby(out.table_id)
    assert lobby is not None
    assert "2. Computer 1 (computer, level heuristic)" in lobby.message.text.splitlines()


async def test_the_chat_is_told_when_a_replaced_player_plays_again(
    make_bot: Callable[..., Bot],
) -> None:
    """The computer took his seat; he comes back by playing a card, and again with
    "Take my seat back": each time the chat is told he is back, and at no other
    move."""
    # the computer thinks long: his presses come first
    timings = dataclasses.replace(LONG, ai_delay=30.0)
    bot = await make_bot(timings=timings).start()
    try:
        players = [bot.player(u) for u in users(2)]
        tid = await open_table(bot, "zweier", players)
        mover = to_move(bot.svc.tables[tid], players)
        await walks_away(bot, tid, mover)
        hand = bot.svc.hand(tid, mover.key)  # drawn anew: the seat changed hands
        assert hand is not None and hand.your_turn
        card = next(b for b in hand.message.all_buttons() if decode(b.payload).is_game_action)
        assert "(the computer plays)" in _table_text(bot, tid)
        assert (await mover.press(card)).ok
        assert _comebacks(bot, tid) == [mover.key]
        assert "(the computer plays)" not in _table_text(bot, tid)  # his seat again
        nxt = to_move(bot.svc.tables[tid], players)  # nobody came back here
        assert (await nxt.press(nxt.a_move(tid))).ok
        assert _comebacks(bot, tid) == [mover.key]
        await walks_away(bot, tid, mover)
        shown = bot.svc.table(tid)
        assert shown is not None
        assert (await mover.press(button(shown.message, "tb"))).ok
        assert _comebacks(bot, tid) == [mover.key, mover.key]
        table = bot.svc.tables[tid]  # its table message is drawn anew, for the new version
        assert [p.version for p in bot.fc.channel if p.table_id == tid][-1] == table.version
    finally:
        await bot.stop()


async def test_take_back_pressed_by_one_who_plays_names_everyone_away(
    make_bot: Callable[..., Bot],
) -> None:
    """Anna and Bert walked away from a Dreier table; Cilli, still playing, presses
    the table's "Take my seat back": she is told whose button it is, both of them."""
    bot = await make_bot(timings=dataclasses.replace(LONG, ai_delay=30.0)).start()
    try:
        anna, bert, cilli = (bot.player(u) for u in users(3))
        tid = await open_table(bot, "dreier", [anna, bert, cilli])
        for player in (anna, bert):
            await walks_away(bot, tid, player)
        shown = bot.svc.table(tid)
        assert shown is not None
        out = await cilli.press(button(shown.message, "tb"))
        assert out.code == "not_replaced_others", out
        assert out.text == (
            "Your seat is not played by the computer: this button is for Anna, Bert."
        )
    finally:
        await bot.stop()


async def test_the_computer_plays_a_timed_out_turn_at_the_chat_s_level(
    make_bot: Callable[..., Bot], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The chat asked for the heuristic computer (the bot's own default is random):
    a person's turn that ran out is played at that level, as its computer seats are."""
    levels: list[str] = []

    def recording(level: str, view: object, legal: list[int], seed: str) -> int:
        levels.append(level)
        return legal[0]

    monkeypatch.setattr("bot.service.choose_action", recording)
    # one missed turn takes his seat: the computer that keeps it plays at that level too
    timings = dataclasses.replace(LONG, missed_turns_limit=1)
    bot = await make_bot(timings=timings, ai_level="random").start()
    try:
        a, b = (bot.player(u) for u in users(2))
        assert (
            await bot.svc.update_setting(CHAT, a.user, "ai_level", "heuristic", is_admin=True)
        ).ok
        tid = await open_table(bot, "zweier", [a, b])
        absent = to_move(bot.svc.tables[tid], [a, b])
        seat = bot.svc.tables[tid].seat_of(absent.key)
        assert seat is not None and run_out(bot.svc, tid, absent)
        await bot.fc.wait(lambda: "replaced" in bot.fc.kinds(tid))
        assert levels[0] == "heuristic"
        s = bot.svc.tables[tid].seats[seat]
        assert s is not None and s.ai == "heuristic"
    finally:
        await bot.stop()


def _keeps_the_turn_first(level: str, view: object, legal: list[int], seed: str) -> int:
    """A computer that closes the talon (or exchanges the trump Jack) whenever it may:
    a move that leaves the turn with the one who made it."""
    for code in legal:
        if isinstance(decode_action(code), CloseTalon | ExchangeTrump):
            return code
    return legal[0]


def _acts_by(db: Path) -> list[str]:
    """Who made each move the database at `db` holds ("t", "o", "p", "ai")."""
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute(
            "SELECT json_extract(entry, '$.by') FROM table_log"
            " WHERE json_extract(entry, '$.k') = 'act' ORDER BY version"
        ).fetchall()
    finally:
        conn.close()
    return [by for (by,) in rows]


async def test_a_timed_out_turn_is_played_to_its_end_and_missed_once(
    make_bot: Callable[..., Bot], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """His time ran out on lead and the computer closed the talon for him: a move that
    keeps the turn.  It plays the card of that turn too, at once, and it is one turn
    missed; it does not hand the turn back with a new clock to run out again and count
    a second missed turn (three such turns and his seat was gone after one trick).
    A kill between the two moves loses nothing: the restarted bot, back an hour later,
    plays the card, and does not remind him of a turn that is no longer his to play
    (it had no clock: a stored one would look run out by the downtime)."""
    monkeypatch.setattr("bot.service.choose_action", _keeps_the_turn_first)
    bot = await make_bot(timings=dataclasses.replace(LONG, missed_turns_limit=3)).start()
    copies = CommitCopies(bot.db, tmp_path)
    try:
        a, b = (bot.player(u) for u in users(2))
        tid = await open_table(bot, "zweier", [a, b])
        absent = to_move(bot.svc.tables[tid], [a, b])
        present = b if absent is a else a
        seat = bot.svc.tables[tid].seat_of(absent.key)
        hv = absent.hand(tid)
        assert seat is not None and hv is not None and hv.your_turn
        late_card = hv.message.all_buttons()[0]
        drawn = len(bot.fc.hand_history)
        assert run_out(bot.svc, tid, absent)  # the only timer of his that runs out
        await bot.fc.wait(lambda: _to_act(bot, tid) == present.key, timeout=5)
        # his hand between the close and the card says the computer is finishing
        # his turn; the card ended it; the other player's hand never says so
        await bot.fc.wait(lambda: (h := absent.hand(tid)) is not None and not h.your_turn)
        line = t("en", "hand.playing_out")
        said = [h for h in bot.fc.hand_history[drawn:] if line in h.message.text]
        assert [h.user for h in said] == [absent.key], bot.fc.hand_history[drawn:]
        assert said[0].your_turn and said[0].message.all_buttons()
        hv = absent.hand(tid)
        assert hv is not None and line not in hv.message.text
        log = await _log(bot, tid)
        assert [(e["seat"], e["by"]) for e in log if e["k"] == "act"] == [(seat, "t"), (seat, "o")]
        table = bot.svc.tables[tid]
        (_, closed), (_, card) = table.deals[0].actions
        assert isinstance(closed, CloseTalon) and isinstance(card, PlayCard)
        s = table.seats[seat]
        assert s is not None and s.missed == 1 and s.ai is None
        assert table.deadline is not None  # the other player's turn, on his clock
        assert [u.kind for u in bot.fc.updates].count("replaced") == 0
        out = await absent.press(late_card)  # the computer played that turn for him
        assert not out.ok and out.code == "too_late"
    finally:
        await bot.stop()
    # the kill: right after the close was stored, before the card
    killed = next(path for _, path, _ in copies.taken if _acts_by(path) == ["t"])
    later = time.time() + 3600.0
    again = await Bot(killed, bot.timings, seeds("after"), ids("r"), clock=lambda: later).start()
    try:
        await again.fc.wait(lambda: _to_act(again, tid) == present.key, timeout=5)
        assert _acts_by(killed) == ["t", "o"]
        assert "reminder" not in again.fc.kinds(tid)
        s = again.svc.tables[tid].seats[seat]
        assert s is not None and s.missed == 1 and s.ai is None
    finally:
        await again.stop()


async def _timed_out_before_the_final_bid(bot: Bot) -> tuple[str, Player, Button] | None:
    """A Thousand table whose declarer's time ran out on his second gift: the computer
    gave it for him and is to state the final bid for him next.  Its id, the declarer,
    and the "More…" button of the final bids his hand shows then (the bidding passed
    at its opening, and a marriage in his hand: more final bids than a page holds);
    None when no table of 10 came to that."""
    for k in range(10):  # each in a chat of its own: a person sits at one table a chat
        tid, declarer = await _second_gift_timed_out(bot, ChatRef("tg", f"-2{k}", "Stube"))
        hv = declarer.hand(tid)
        assert hv is not None
        more = [b for b in hv.message.all_buttons() if decode(b.payload).verb == "pg"]
        if more:
            return tid, declarer, more[0]
    return None


async def _second_gift_timed_out(bot: Bot, chat: ChatRef) -> tuple[str, Player]:
    """A Thousand table in `chat` played (passing where one may) until its declarer
    is to give his cards; he gives the first, and his time runs out on the second.
    Returns once his hand shows the table the computer's gift for him left."""
    players = [bot.player(u, policy=prefer(lambda a: isinstance(a, Pass))) for u in users(3)]
    tid = await open_table(bot, "tausend", players, chat=chat)
    table = bot.svc.tables[tid]
    declarer = await until_gift(bot, tid, players, 20)
    hv = declarer.hand(tid)
    assert hv is not None
    gifts = [b for b in hv.message.all_buttons() if decode(b.payload).verb == "gv"]
    if gifts:  # his first (a card, then who gets it; the second is one press)
        picked = await declarer.press(gifts[0])
        assert picked.ok and picked.hand is not None, picked
        assert (await declarer.press(picked.hand.message.all_buttons()[0])).ok
    assert run_out(bot.svc, tid, declarer)

    def drawn() -> bool:  # each of his buttons of the table's version
        hv = declarer.hand(tid)
        shown = hv.message.all_buttons() if hv is not None else ()
        return bool(shown) and all(decode(b.payload).version == table.version for b in shown)

    await bot.fc.wait(drawn)
    assert table.playing_out == table.seat_of(declarer.key)
    return tid, declarer


async def test_his_press_during_the_play_out_plays_the_rest_of_the_turn_himself(
    make_bot: Callable[..., Bot],
) -> None:
    """The Thousand declarer's time ran out on his second gift: the computer gave it,
    and is to state the final bid for him after `ai_delay`.  His hand says so, and that
    he may still choose: he turns to the next page of final bids, which takes the turn
    back (his clock runs again: the computer does not move under the page he reads,
    and his pick there is not refused as too late), and the bid he picks is his own,
    with no turn missed."""
    bot = await make_bot(timings=dataclasses.replace(LONG, ai_delay=3600.0)).start()
    try:
        found = await _timed_out_before_the_final_bid(bot)
        assert found is not None, "no final bid of more than a page in 10 tables"
        tid, declarer, more = found
        table = bot.svc.tables[tid]
        seat = table.seat_of(declarer.key)
        hv = declarer.hand(tid)
        assert seat is not None and hv is not None and hv.your_turn
        assert t("en", "hand.playing_out") in hv.message.text, hv.message.text
        assert bot.svc.seconds_left(tid) == 0  # no clock: the computer's move is next
        page = await declarer.press(more)
        assert page.ok and page.hand is not None, page
        assert table.playing_out is None and bot.svc.seconds_left(tid) > 0
        assert "back" not in bot.fc.kinds(tid)  # no seat was the computer's to take back
        assert t("en", "hand.playing_out") not in page.hand.message.text
        bid = next(b for b in page.hand.message.all_buttons() if decode(b.payload).is_game_action)
        out = await declarer.press(bid)
        assert out.ok, out
        log = await _log(bot, tid)
        assert [e["by"] for e in log if e["k"] == "act"][-2:] == ["t", "p"]
        s = table.seats[seat]
        assert s is not None and s.missed == 0 and s.ai is None
    finally:
        await bot.stop()


async def test_the_last_person_replaced_is_told_the_table_closed_and_nothing_after(
    make_bot: Callable[..., Bot],
) -> None:
    """Anna plays alone against the computer and misses her last allowed turn: the
    computer would take her seat, so the table closes (no match played out for
    nobody).  The chat is told it closed, last: not, after that, that the computer
    now plays her seat of a table that is gone."""
    bot = await make_bot(timings=dataclasses.replace(LONG, missed_turns_limit=1)).start()
    try:
        anna = bot.player(users(1)[0])
        tid = await open_table(bot, "zweier", [anna])
        await bot.fc.wait(lambda: _to_act(bot, tid) == anna.key, timeout=5)
        assert run_out(bot.svc, tid, anna)
        await bot.fc.wait(lambda: tid not in bot.svc.tables and not bot.svc._tasks, timeout=5)
        kinds = bot.fc.kinds(tid)
        assert kinds[-1] == "aborted" and "replaced" not in kinds
    finally:
        await bot.stop()
