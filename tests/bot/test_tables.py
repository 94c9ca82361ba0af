"""Lobby and table commands: expiry, host, abort, votes, resign, seats, AI seats,
several tables per chat, /forgetme, per-chat settings and languages."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
import re
from collections.abc import Callable

import pytest

from bot import results as R
from bot.i18n import TEXTS
from bot.payload import decode, game_action, table_verb
from bot.service import ChatRef, Outcome, TableUpdate, Timings, UserRef
from bot.table import Status, Table
from bot.views import Button, ResultView
from engine import protocol as P
from engine.actions import Action, Bid, Claim, CloseTalon, Double, Pass, encode
from engine.actions import decode as decode_action
from engine.games import available

from .conftest import FAST
from .fakechat import (
    CHAT,
    Bot,
    Player,
    Policy,
    button,
    open_bauern_partners,
    open_table,
    play_out,
    snapshot,
    stored_mentions,
    users,
    walks_away,
    while_opening,
)

OTHER_CHAT = ChatRef("tg", "-1002", "Anderswo")


def _verbs(bot: Bot, tid: str) -> list[str]:
    return [decode(b.payload).verb for b in bot.fc.lobbies[tid].message.all_buttons()]


# --- lobby ---------------------------------------------------------------------------


async def test_lobby_expires(make_bot: Callable[..., Bot]) -> None:
    timings = Timings(turn_timeout=30, reminder_before=10, ai_delay=0, lobby_expiry=0.2)
    bot = await make_bot(timings=timings).start()
    try:
        a = bot.player(users(1)[0])
        out = await bot.svc.create_table(CHAT, a.user, "zweier")
        tid = out.table_id
        assert tid is not None and tid in bot.svc.tables
        await bot.fc.wait(lambda: tid not in bot.svc.tables, timeout=3)
        assert bot.fc.kinds(tid)[-1] == "aborted"
        row = await bot.store.table_row(tid)  # type: ignore[union-attr]
        assert row is not None and row.status == "aborted"
        assert bot.svc.table_of(CHAT.key, a.key) is None
        # the host may open a new table right away
        assert (await bot.svc.create_table(CHAT, a.user, "zweier")).ok
    finally:
        await bot.stop()


async def test_lobby_expiry_survives_a_restart(make_bot: Callable[..., Bot]) -> None:
    now = [1000.0]
    timings = Timings(turn_timeout=30, reminder_before=10, ai_delay=0, lobby_expiry=60)
    bot = await make_bot(timings=timings, clock=lambda: now[0]).start()
    a = users(1)[0]
    tid = (await bot.svc.create_table(CHAT, a, "zweier")).table_id
    assert tid is not None
    await bot.stop()
    now[0] += 59.9  # the restart happens just before the lobby would close
    bot = await make_bot(timings=timings, clock=lambda: now[0]).start()
    try:
        assert tid in bot.svc.tables
        await bot.fc.wait(lambda: tid not in bot.svc.tables, timeout=2)
        assert bot.fc.kinds(tid) == ["aborted"]
    finally:
        await bot.stop()


async def test_host_leaves_and_hands_over(bot: Bot) -> None:
    a, b, c = (bot.player(u) for u in users(3))
    tid = (await bot.svc.create_table(CHAT, a.user, "dreier")).table_id
    assert tid is not None
    assert (await b.press(button(bot.fc.lobbies[tid].message, "j"))).ok
    assert bot.svc.tables[tid].host == a.key
    assert (await a.press(button(bot.fc.lobbies[tid].message, "l"))).ok
    table = bot.svc.tables[tid]
    assert table.host == b.key and table.seat_of(a.key) is None
    assert "Bert" in bot.fc.lobbies[tid].message.text.splitlines()[1]
    # the old host is an outsider now; the new host runs the table
    out = await a.press(button(bot.fc.lobbies[tid].message, "st"))
    assert out.code == "not_seated" or out.code == "not_host"
    assert (await c.press(button(bot.fc.lobbies[tid].message, "j"))).ok
    out = await c.press(button(bot.fc.lobbies[tid].message, "st"))
    assert out.code == "not_host" and "Bert" in (out.text or "")
    assert (await b.press(button(bot.fc.lobbies[tid].message, "ai"))).ok
    assert (await b.press(button(bot.fc.lobbies[tid].message, "st"))).ok
    assert bot.svc.tables[tid].status == Status.PLAYING


async def test_last_human_leaving_closes_the_lobby(bot: Bot) -> None:
    a = bot.player(users(1)[0])
    tid = await open_table(bot, "zweier", [a], start=False)  # a + a computer
    assert (await a.press(button(bot.fc.lobbies[tid].message, "l"))).ok
    assert tid not in bot.svc.tables and bot.fc.kinds(tid)[-1] == "aborted"


async def test_start_needs_the_host_and_a_full_table(bot: Bot) -> None:
    a, b = (bot.player(u) for u in users(2))
    out = await bot.svc.create_table(CHAT, a.user, "dreier")
    tid = out.table_id
    assert tid is not None
    assert (await b.press(button(bot.fc.lobbies[tid].message, "j"))).ok
    before = await snapshot(bot, tid)
    assert (await a.press(button(bot.fc.lobbies[tid].message, "st"))).code == "not_full"
    assert (await b.press(button(bot.fc.lobbies[tid].message, "st"))).code == "not_host"
    assert (await b.press(button(bot.fc.lobbies[tid].message, "j"))).code == "already_seated"
    assert await snapshot(bot, tid) == before


async def test_computer_seats_keep_names_that_tell_them_apart(bot: Bot) -> None:
    """Two computers, the first removed, another added: the seats still read
    Computer 1 and Computer 2 (not two "Computer 2"), and each remove button names
    the computer it removes as the seat list does."""
    a = bot.player(users(1)[0])
    tid = (await bot.svc.create_table(CHAT, a.user, "dreier")).table_id
    assert tid is not None
    for _ in range(2):
        assert (await a.press(button(bot.fc.lobbies[tid].message, "ai"))).ok
    lobby = bot.fc.lobbies[tid]
    assert [s.name for s in lobby.seats if s and s.is_ai] == ["Computer 1", "Computer 2"]
    remove = button(lobby.message, "rm1")
    assert remove.label == "Remove Computer 1"
    assert (await a.press(remove)).ok
    assert (await a.press(button(bot.fc.lobbies[tid].message, "ai"))).ok
    lobby = bot.fc.lobbies[tid]
    names = [s.name for s in lobby.seats if s]
    assert sorted(names[1:]) == ["Computer 1", "Computer 2"]
    labels = {b.label for b in lobby.message.all_buttons()}
    assert {"Remove Computer 1", "Remove Computer 2"} <= labels


async def test_a_computer_in_the_first_seat_goes_and_a_second_tap_is_answered(bot: Bot) -> None:
    """At Bauern Anna moved to seat 2, so her computer sits in seat 0: its Remove removes it.
    A second tap of the same button finds the seat empty and says so (not an
    error, and nobody else's seat); so does a forged one past the last seat."""
    a = bot.player(users(1)[0])
    tid = (await bot.svc.create_table(CHAT, a.user, "bauern")).table_id
    assert tid is not None
    assert (await a.press(button(bot.fc.lobbies[tid].message, "s2"))).ok
    assert (await a.press(button(bot.fc.lobbies[tid].message, "ai"))).ok
    table = bot.svc.tables[tid]
    assert table.seats[0] is not None and table.seats[0].is_computer
    remove = button(bot.fc.lobbies[tid].message, "rm0")
    assert (await a.press(remove)).ok
    assert table.seats[0] is None and table.seat_of(a.key) == 2
    again = await a.press(remove)
    assert not again.ok and again.code == "no_ai_seat", again
    # a forged one past the last seat is answered alike
    forged = await a.press(Button("x", table_verb(tid, table.version, "rm", 4)))
    assert not forged.ok and forged.code == "no_ai_seat", forged
    assert table.seat_of(a.key) == 2


async def test_a_free_first_seat_pressed_by_one_not_seated_seats_him_there(bot: Bot) -> None:
    """At Bauern Anna moved to seat 2; Bert presses the free seat 0 (his team's
    choice) and sits there, greeted as a join; seated, he may move back to it."""
    a, b = (bot.player(u) for u in users(2))
    tid = (await bot.svc.create_table(CHAT, a.user, "bauern")).table_id
    assert tid is not None
    assert (await a.press(button(bot.fc.lobbies[tid].message, "s2"))).ok
    out = await b.press(button(bot.fc.lobbies[tid].message, "s0"))
    assert out.ok and out.code == "joined", out
    assert bot.svc.tables[tid].seat_of(b.key) == 0
    # seated, he may move away and back to it; a forged seat past the last is taken
    for to in (1, 0):
        assert (await b.press(button(bot.fc.lobbies[tid].message, f"s{to}"))).ok
        assert bot.svc.tables[tid].seat_of(b.key) == to
    forged = await b.press(Button("x", table_verb(tid, bot.svc.tables[tid].version, "s", 4)))
    assert not forged.ok and forged.code == "seat_taken", forged


async def test_the_lobby_s_leave_and_join_do_nothing_once_the_match_runs(bot: Bot) -> None:
    """The lobby's message keeps its buttons in the chat's history: its Leave, pressed
    by a player once the match runs, must not empty his seat mid-deal, nor its Join
    seat anyone; and Leave from one who never sat there changes nothing either."""
    a, b, c = (bot.player(u) for u in users(3))
    tid = (await bot.svc.create_table(CHAT, a.user, "zweier")).table_id
    assert tid is not None
    lobby = bot.fc.lobbies[tid].message
    outsider = await c.press(button(lobby, "l"))
    assert not outsider.ok and outsider.code == "not_seated", outsider
    assert (await b.press(button(lobby, "j"))).ok
    assert (await a.press(button(bot.fc.lobbies[tid].message, "st"))).ok
    table = bot.svc.tables[tid]
    left = await b.press(button(lobby, "l"))
    assert not left.ok and left.code == "not_in_lobby", left
    joined = await c.press(button(lobby, "j"))
    assert not joined.ok and joined.code == "not_in_lobby", joined
    assert [s.user if s else None for s in table.seats] == [a.key, b.key]


async def test_a_double_tap_on_add_computer_seats_one(bot: Bot) -> None:
    """Add computer tapped twice on the same lobby message (a slow chat): one
    computer, not two taking the seat a friend was about to join."""
    a = bot.player(users(1)[0])
    tid = (await bot.svc.create_table(CHAT, a.user, "dreier")).table_id
    assert tid is not None
    add = button(bot.fc.lobbies[tid].message, "ai")
    assert (await a.press(add)).ok
    again = await a.press(add)
    assert not again.ok and again.code == "stale", again
    assert sum(1 for s in bot.svc.tables[tid].seats if s is not None and s.is_computer) == 1


async def test_add_and_remove_computer_seats(bot: Bot) -> None:
    a, b = (bot.player(u) for u in users(2))
    tid = (await bot.svc.create_table(CHAT, a.user, "bauern")).table_id
    assert tid is not None
    for _ in range(3):
        assert (await a.press(button(bot.fc.lobbies[tid].message, "ai"))).ok
    lobby = bot.fc.lobbies[tid]
    assert lobby.can_start and sum(1 for s in lobby.seats if s and s.is_ai) == 3
    assert (await a.press(button(lobby.message, "ai"))).code == "table_full"
    assert (await b.press(button(lobby.message, "j"))).code == "table_full"
    # an outsider cannot touch the computers; a seated player can
    # (the table is full: Join would not seat him, so he is not sent to it)
    assert (await b.press(button(lobby.message, "rm1"))).code == "not_seated"
    assert (await a.press(button(lobby.message, "rm2"))).ok
    lobby = bot.fc.lobbies[tid]
    assert lobby.seats[2] is None and not lobby.can_start
    assert "rm2" not in [
        decode(x.payload).verb + str(decode(x.payload).arg) for x in lobby.message.all_buttons()
    ]
    out = await a.press(Button("x", table_verb(tid, bot.svc.tables[tid].version, "rm", 0)))
    assert out.code == "no_ai_seat"  # seat 0 is a person
    assert (await b.press(button(lobby.message, "j"))).ok
    assert bot.svc.tables[tid].seats[2].user == b.key  # type: ignore[union-attr]
    # a person in the lobby: only the host may send him away (say he never started
    # the bot and so blocks the start)
    c = bot.player(users(3)[2])
    remove_b = button(bot.fc.lobbies[tid].message, "rm2")
    assert remove_b.label == "Remove Bert"
    assert (await b.press(button(bot.fc.lobbies[tid].message, "rm1"))).ok  # a computer
    assert (await c.press(button(bot.fc.lobbies[tid].message, "j"))).ok
    remove_a = Button("x", table_verb(tid, bot.svc.tables[tid].version, "rm", 0))
    assert (await c.press(remove_a)).code == "no_ai_seat"
    remove_b = button(bot.fc.lobbies[tid].message, "rm2")
    assert (await c.press(remove_b)).code == "not_host"
    assert (await a.press(remove_b)).ok
    assert bot.svc.tables[tid].seat_of(b.key) is None
    assert (await b.press(button(bot.fc.lobbies[tid].message, "j"))).ok  # may come back
    assert (await a.press(button(bot.fc.lobbies[tid].message, "st"))).ok
    # no lobby buttons once the game runs
    out = await a.press(button(lobby.message, "rm1"))
    assert out.code == "not_in_lobby"


async def test_an_old_remove_button_does_not_remove_who_sits_there_now(bot: Bot) -> None:
    """The host's "Remove Bert" from an older lobby message must not remove Cilli,
    who took Bert's seat since (group edits lag behind on Telegram)."""
    a, b, c = (bot.player(u) for u in users(3))
    tid = (await bot.svc.create_table(CHAT, a.user, "dreier")).table_id
    assert tid is not None
    assert (await b.press(button(bot.fc.lobbies[tid].message, "j"))).ok
    remove_bert = button(bot.fc.lobbies[tid].message, "rm1")
    assert remove_bert.label == "Remove Bert"
    assert (await b.press(button(bot.fc.lobbies[tid].message, "l"))).ok
    assert (await c.press(button(bot.fc.lobbies[tid].message, "j"))).ok
    assert bot.svc.tables[tid].seat_of(c.key) == 1
    assert (await a.press(remove_bert)).code == "stale"
    assert bot.svc.tables[tid].seat_of(c.key) == 1


@pytest.mark.skipif("bauern" not in available(), reason="Bauernschnapsen not implemented")
async def test_choose_seat_for_bauern_teams(bot: Bot) -> None:
    a, b, c, d = (bot.player(u) for u in users(4))
    tid = (await bot.svc.create_table(CHAT, a.user, "bauern")).table_id
    assert tid is not None
    assert (await b.press(button(bot.fc.lobbies[tid].message, "j"))).ok  # seat 1: team 2
    lobby = bot.fc.lobbies[tid]
    assert [s.team if s else None for s in lobby.seats] == [1, 2, None, None]
    # every seat, taken or free, says its team: partners sit across, 1 2 1 2
    lines = lobby.message.text.splitlines()
    teams = [x.rsplit(" · ", 1)[-1] for x in lines if x[:2] in ("1.", "2.", "3.", "4.")]
    assert teams == ["Team 1", "Team 2", "Team 1", "Team 2"], lobby.message.text
    # each seat's button is named as its line numbers it: "Sit in seat 3" sits at 3.
    sits = [button(lobby.message, f"s{i}").label for i in range(4)]
    assert sits == [f"Sit in seat {n}" for n in (1, 2, 3, 4)], sits
    # b wants to play with a: seat 3 (index 2) is a's partner
    assert (await b.press(button(lobby.message, "s2"))).ok
    table = bot.svc.tables[tid]
    assert table.seat_of(b.key) == 2 and table.seats[1] is None
    lobby = bot.fc.lobbies[tid]
    # before joining: a taken seat is refused (nothing joined), a free one seats him
    assert (await c.press(button(lobby.message, "s0"))).code == "seat_taken"
    assert bot.svc.tables[tid].seat_of(c.key) is None
    picked = await c.press(button(lobby.message, "s3"))
    assert picked.ok and picked.code == "joined"
    assert bot.svc.tables[tid].seat_of(c.key) == 3
    assert (await c.press(button(bot.fc.lobbies[tid].message, "s1"))).ok  # then moves
    lobby = bot.fc.lobbies[tid]
    assert bot.svc.tables[tid].seat_of(c.key) == 1
    before = await snapshot(bot, tid)
    assert (await c.press(button(lobby.message, "s0"))).code == "seat_taken"
    assert (await c.press(button(lobby.message, "s1"))).code == "seat_taken"  # own seat
    assert await snapshot(bot, tid) == before
    assert (await d.press(button(bot.fc.lobbies[tid].message, "j"))).ok
    assert bot.svc.tables[tid].seat_of(d.key) == 3
    assert (await a.press(button(bot.fc.lobbies[tid].message, "st"))).ok
    assert (await d.press(button(bot.fc.lobbies[tid].message, "s1"))).code == "not_in_lobby"
    await play_out(bot.fc, tid, [a, b, c, d])
    rows = dict(
        await bot.store.fetchall(  # type: ignore[union-attr]
            "SELECT player, won FROM results WHERE table_id = ?", (tid,)
        )
    )
    assert rows[a.key] == rows[b.key] and rows[c.key] == rows[d.key]
    assert rows[a.key] != rows[c.key]


# --- several tables, one seat per chat ------------------------------------------------


async def test_several_tables_per_chat_one_seat_each(bot: Bot) -> None:
    a, b, c = (bot.player(u) for u in users(3))
    t1 = (await bot.svc.create_table(CHAT, a.user, "zweier")).table_id
    t2 = (await bot.svc.create_table(CHAT, b.user, "zweier")).table_id
    assert t1 and t2 and t1 != t2
    assert {t.id for t in bot.svc.tables_in(CHAT.key)} == {t1, t2}
    refused = await a.press(button(bot.fc.lobbies[t2].message, "j"))
    assert refused.code == "seated_elsewhere"
    assert refused.text == f"You already play at table {t1} here."  # which one: his
    assert (await bot.svc.create_table(CHAT, a.user, "dreier")).code == "seated_elsewhere"
    # another chat is another matter
    assert (await bot.svc.create_table(OTHER_CHAT, a.user, "zweier")).ok
    assert (await c.press(button(bot.fc.lobbies[t2].message, "j"))).ok
    assert (await b.press(button(bot.fc.lobbies[t2].message, "st"))).ok
    assert (await a.press(button(bot.fc.lobbies[t1].message, "ai"))).ok
    assert (await a.press(button(bot.fc.lobbies[t1].message, "st"))).ok
    await asyncio.gather(play_out(bot.fc, t1, [a]), play_out(bot.fc, t2, [b, c]))
    assert bot.fc.kinds(t1)[-1] == bot.fc.kinds(t2)[-1] == "finished"


async def test_concurrent_claims_of_a_seat_in_one_chat(bot: Bot) -> None:
    """One seat per player per chat holds under concurrent presses too."""
    a, b, c = (bot.player(u) for u in users(3))
    t1 = (await bot.svc.create_table(CHAT, a.user, "dreier")).table_id
    t2 = (await bot.svc.create_table(CHAT, b.user, "dreier")).table_id
    assert t1 and t2
    outs = await asyncio.gather(
        c.press(button(bot.fc.lobbies[t1].message, "j")),
        c.press(button(bot.fc.lobbies[t2].message, "j")),
        bot.svc.create_table(CHAT, c.user, "zweier"),
    )
    assert sorted(o.ok for o in outs) == [False, False, True], outs
    seats = [t for t in bot.svc.tables_in(CHAT.key) if t.seat_of(c.key) is not None]
    assert len(seats) == 1


async def test_a_join_while_his_own_table_is_being_opened_is_refused_with_why(bot: Bot) -> None:
    """He opened a table and, before it was stored, pressed Join at another lobby of
    the chat: one seat per chat refuses it, saying so (the table he is opening is in
    no list yet, and the refusal must not look it up)."""
    a, c = (bot.player(u) for u in users(2))
    t1 = (await bot.svc.create_table(CHAT, a.user, "dreier")).table_id
    assert t1 is not None
    # his opening waits after its claim, as it does behind his running /forgetme
    async with bot.svc._people.hold([c.key]):
        opening = asyncio.ensure_future(bot.svc.create_table(CHAT, c.user, "zweier"))
        # until the opening holds his seat and waits (it reads the store first: on a
        # loaded machine that takes longer than any fixed number of loop turns)
        await bot.fc.wait(lambda: (CHAT.key, c.key) in bot.svc._claims)
        out = await c.press(button(bot.fc.lobbies[t1].message, "j"))
    assert (await opening).ok
    assert not out.ok and out.code == "seated_elsewhere", out
    assert bot.svc.tables[t1].seat_of(c.key) is None


# --- abort, votes, resign ---------------------------------------------------------------


async def test_host_aborts_a_running_game(bot: Bot) -> None:
    a, b = (bot.player(u) for u in users(2))
    tid = await open_table(bot, "zweier", [a, b])
    assert (await bot.svc.abort(CHAT, b.user)).ok  # a vote, not enough alone (1 of 2)
    assert tid in bot.svc.tables and bot.svc.tables[tid].votes == {b.key}
    assert (await bot.svc.abort(CHAT, a.user)).ok
    assert tid not in bot.svc.tables and bot.fc.kinds(tid)[-1] == "aborted"
    row = await bot.store.table_row(tid)  # type: ignore[union-attr]
    assert row is not None and row.status == "aborted"
    assert await bot.store.game_record(tid) is None  # type: ignore[union-attr]
    assert await R.leaderboard(bot.store, "zweier", "global") == []  # type: ignore[arg-type]
    assert (await bot.svc.abort(CHAT, a.user)).code == "no_table"


async def test_majority_vote_aborts(bot: Bot) -> None:
    a, b, c = (bot.player(u) for u in users(3))
    tid = await open_table(bot, "dreier", [a, b, c])
    out = await bot.svc.abort(CHAT, b.user)
    assert out.ok and out.text is not None and "1/2" in out.text
    version = bot.svc.tables[tid].version
    out = await bot.svc.abort(CHAT, b.user)  # voting twice counts once
    assert out.ok and tid in bot.svc.tables and "1/2" in (out.text or "")
    # and stores nothing: no new version, so nobody's buttons went stale meanwhile
    assert bot.svc.tables[tid].version == version
    assert (
        await bot.svc.act(UserRef("tg", "5", "X"), table_verb(tid, 1, "ab"))
    ).code == "not_seated"
    # a button drawn in this deal, if not the newest, still counts
    out = await c.press(Button("", table_verb(tid, bot.svc.tables[tid].deal_from, "ab")))
    assert out.ok
    assert tid not in bot.svc.tables and bot.fc.kinds(tid)[-1] == "aborted"
    # the vote survives nothing: the table is closed for good
    assert (await bot.svc.abort(CHAT, a.user)).code == "no_table"


async def test_a_vote_keeps_every_button_current_and_shows_in_the_channel(bot: Bot) -> None:
    """A vote is a new version of the table: the player to act can still press the
    buttons he is shown, and the table message tells everyone about the vote."""
    a, b, c = (bot.player(u) for u in users(3))
    tid = await open_table(bot, "dreier", [a, b, c])
    table = bot.svc.tables[tid]
    mover = next(p for p in (a, b, c) if p.key == table.humans()[table.to_act() or 0])
    voter = next(p for p in (a, b, c) if p is not mover and p.key != table.host)
    assert (await bot.svc.abort(CHAT, voter.user)).ok
    assert "Votes to close the table: 1 of the 2 needed" in bot.fc.tables[tid].message.text
    out = await mover.take_turn(tid)
    assert out is not None and out.ok, out
    # the others agree by a press on the table message, not only by finding /abort
    agree = button(bot.fc.tables[tid].message, "ab")
    assert agree.label == "Close the table too (1/2)"
    third = next(p for p in (a, b, c) if p is not voter and p.key != table.host)
    assert (await third.press(agree)).ok
    assert tid not in bot.svc.tables and bot.fc.kinds(tid)[-1] == "aborted"


async def test_the_host_cannot_close_a_running_match_alone(bot: Bot) -> None:
    """Once the match runs, the host's abort is one vote: a losing host cannot wipe
    the scored deals off the record (he may resign); alone with computers he may."""
    a, b = (bot.player(u) for u in users(2))
    tid = await open_table(bot, "zweier", [a, b])
    await play_out(bot.fc, tid, [a, b], until=lambda: bool(bot.svc.tables[tid].deal_points))
    out = await bot.svc.abort(CHAT, a.user)
    assert out.ok and "1/2" in (out.text or "")
    assert tid in bot.svc.tables
    solo = bot.player(users(3)[2])
    other = ChatRef("tg", "-1003", "Solo")
    tid2 = await open_table(bot, "zweier", [solo], chat=other)
    assert (await bot.svc.abort(other, solo.user)).ok
    assert tid2 not in bot.svc.tables


async def test_the_host_closes_his_lobby_at_once_though_others_joined(bot: Bot) -> None:
    """Before the start /abort is the host's to close his lobby, not a vote: Bert
    joined, and Anna's abort closes it at once, the chat told it closed and why
    (the close message says "the host closed it" from the reason stored)."""
    anna, bert = (bot.player(u) for u in users(2))
    tid = await open_table(bot, "zweier", [anna, bert], start=False)
    out = await bot.svc.abort(CHAT, anna.user)
    assert out.ok and tid not in bot.svc.tables and bot.fc.kinds(tid)[-1] == "aborted", out
    assert (await bot.db.table_log(tid))[-1] == {"k": "abort", "reason": "host"}


async def test_a_host_left_alone_by_one_who_walked_away_closes_the_match_counted(
    bot: Bot,
) -> None:
    """Bert walks away from Anna's table (the computer takes his seat): her /abort,
    as the only one still playing, is not the host's plain close that would wipe
    the match off the record — it ends counted, Bert, who left, losing."""
    anna, bert = (bot.player(u) for u in users(2))
    tid = await open_table(bot, "zweier", [anna, bert])
    await walks_away(bot, tid, bert)
    out = await bot.svc.abort(CHAT, anna.user)
    assert out.code == "ended" and bot.fc.kinds(tid)[-1] == "finished", out
    rows = await bot.db.fetchall("SELECT player, won FROM results WHERE table_id = ?", (tid,))
    assert dict(rows) == {anna.key: 1, bert.key: 0}


async def test_the_last_human_forgetting_himself_closes_the_table(bot: Bot) -> None:
    """With nobody left, the computers do not play on in the chat to the match's end."""
    a = bot.player(users(1)[0])
    tid = await open_table(bot, "zweier", [a])  # Anna and a computer
    assert (await bot.svc.forget(a.user)).ok
    assert tid not in bot.svc.tables and bot.fc.kinds(tid)[-1] == "aborted"
    row = await bot.store.table_row(tid)  # type: ignore[union-attr]
    assert row is not None and row.status == "aborted"


async def test_a_chat_admin_closes_a_table_he_does_not_sit_at(bot: Bot) -> None:
    """An abandoned game or a spam lobby: the chat's admin closes it, naming it when
    the chat has several (in capitals or with spaces, as typed); anyone else without
    a seat is refused."""
    a, b, c, d = (bot.player(u) for u in users(4))
    t1 = await open_table(bot, "zweier", [a, b])
    t2 = await open_table(bot, "zweier", [c], start=False)
    admin = UserRef("tg", "999", "Admin")
    assert (await bot.svc.abort(CHAT, d.user)).code == "no_table"
    named = await bot.svc.abort(CHAT, d.user, table_id=t1)
    assert (
        named.code == "no_table_named"
        and named.text == f"You are not playing at a table {t1} here."
    )
    out = await bot.svc.abort(CHAT, admin, is_admin=True)
    assert not out.ok and out.code == "which_table"  # nothing closed: he must choose
    assert f"{t1}, {t2}" in (out.text or ""), out.text
    out = await bot.svc.abort(OTHER_CHAT, admin, is_admin=True, table_id=t1)
    assert out.code == "no_such_table" and "(open here: —)" in (out.text or "")
    # a typo names the tables there are, to an admin (a server's tables may be in
    # channels others cannot see)
    out = await bot.svc.abort(CHAT, admin, is_admin=True, table_id="t0typo")
    assert out.code == "no_such_table" and f"{t1}, {t2}" in (out.text or ""), out.text
    out = await bot.svc.abort(CHAT, d.user, table_id="t0typo")
    assert out.code == "no_table_named" and t1 not in (out.text or "")
    # as a phone keyboard or a copy from the message may give it: capitals, spaces
    typed = f" {t1.upper()} "
    assert (await bot.svc.abort(CHAT, admin, is_admin=True, table_id=typed)).ok
    assert t1 not in bot.svc.tables and bot.svc.tables[t2].status == Status.LOBBY
    assert bot.svc.tables.get(t1) is None and bot.fc.kinds(t1)[-1] == "aborted"
    assert (await bot.db.table_log(t1))[-1] == {"k": "abort", "reason": "admin"}  # said why
    assert (await bot.svc.abort(CHAT, admin, is_admin=True)).ok  # the only one left
    assert t2 not in bot.svc.tables


async def test_a_close_sent_twice_at_once_closes_the_table_once(bot: Bot) -> None:
    """/abort sent twice in a hurry (a double tap, a client sending it again), or the
    bot losing the group twice over (removed, and its rights gone with it): the
    second finds the table closed, and the chat is told of the close once, not a
    second "closed" over it."""
    a, b, c = (bot.player(u) for u in users(3))
    lobby = await open_table(bot, "zweier", [a], start=False)
    outs = await asyncio.gather(bot.svc.abort(CHAT, a.user), bot.svc.abort(CHAT, a.user))
    assert sorted((o.ok, o.code) for o in outs) == [(False, "no_table"), (True, "ok")]
    running = await open_table(bot, "zweier", [b, c])
    closed = await asyncio.gather(*(bot.svc.close_chat(CHAT, "group_lost") for _ in range(2)))
    assert sorted(closed) == [[], [running]]
    for tid, why in ((lobby, "host"), (running, "group_lost")):
        assert bot.fc.kinds(tid).count("aborted") == 1
        entries = await bot.db.table_log(tid)
        assert [e["k"] for e in entries].count("abort") == 1
        # the reason says what the players are told: a lost group's, privately
        assert entries[-1] == {"k": "abort", "reason": why}


async def test_a_lobby_being_opened_as_the_group_is_lost_closes_with_the_group(bot: Bot) -> None:
    """Bert types /new as the group removes the bot, and its tables close while his
    lobby is being stored: his lobby closes with them, not left open until it expires
    in a group the bot is no longer in.  Cora's /new in another group at such a moment
    opens as ever."""
    anna, bert, cora = users(3)
    waiting = await open_table(bot, "zweier", [bot.player(anna)], start=False)
    opened, closed = await while_opening(
        bot,
        bot.svc.create_table(CHAT, bert, "zweier"),
        lambda: bot.svc.close_chat(CHAT, "group_lost"),
    )
    tid = opened.table_id
    assert opened.ok and tid is not None
    assert closed == [waiting] and not bot.svc.tables_in(CHAT.key)
    assert bot.svc.table_of(CHAT.key, bert.key) is None
    assert bot.fc.kinds(tid)[-1] == "aborted"
    assert (await bot.db.table_log(tid))[-1] == {"k": "abort", "reason": "group_lost"}
    assert not bot.svc._openings  # nothing of the /new kept once it is through
    opened, closed = await while_opening(
        bot,
        bot.svc.create_table(OTHER_CHAT, cora, "zweier"),
        lambda: bot.svc.close_chat(CHAT, "group_lost"),
    )
    assert opened.ok and closed == [] and opened.table_id is not None
    assert bot.svc.tables[opened.table_id].status == Status.LOBBY


async def test_votes_survive_a_restart(make_bot: Callable[..., Bot]) -> None:
    bot = await make_bot().start()
    a, b, c = users(3)
    players = [bot.player(u) for u in (a, b, c)]
    tid = await open_table(bot, "dreier", players)
    assert (await bot.svc.abort(CHAT, b)).ok
    await bot.stop()
    bot = await make_bot().start()
    try:
        assert bot.svc.tables[tid].votes == {b.key}
        assert (await bot.svc.abort(CHAT, c)).ok
        assert tid not in bot.svc.tables
    finally:
        await bot.stop()


async def test_a_vote_to_close_lasts_the_deal_it_was_cast_in(bot: Bot) -> None:
    """Bert asks to close at 0:0 and Anna plays on; deals later, when the score has
    turned, her single /abort must not close the match on his old vote."""
    a, b = (bot.player(u) for u in users(2))
    tid = await open_table(bot, "zweier", [a, b])
    out = await bot.svc.abort(CHAT, b.user)
    assert out.ok and "until this deal ends" in (out.text or "")
    assert bot.svc.tables[tid].votes == {b.key}
    await play_out(bot.fc, tid, [a, b], until=lambda: bool(bot.svc.tables[tid].deal_points))
    table = bot.svc.tables[tid]
    assert table.votes == set()
    assert "Votes to close" not in bot.fc.tables[tid].message.text
    out = await bot.svc.abort(CHAT, a.user)  # the host's abort in a match: one vote
    assert out.ok and tid in bot.svc.tables and "(1/2)" in (out.text or "")


async def test_an_agree_button_from_the_deal_before_opens_no_vote(bot: Bot) -> None:
    """Anna asks to close; Bert's "Close the table too (1/2)" lands just after the
    deal's last card: her vote lapsed with that deal, and his press must not open a
    new one on its own. He is told so; in the new deal a vote cast now counts."""
    anna, bert = (bot.player(u) for u in users(2))
    tid = await open_table(bot, "zweier", [anna, bert])
    assert (await bot.svc.abort(CHAT, anna.user)).ok
    agree = button(bot.fc.tables[tid].message, "ab")
    await play_out(bot.fc, tid, [anna, bert], until=lambda: len(bot.svc.tables[tid].deals) > 1)
    table = bot.svc.tables[tid]
    out = await bert.press(agree)
    assert not out.ok and out.code == "vote_lapsed", out
    assert "ended with its deal; in the new deal /abort asks again" in (out.text or "")
    assert table.votes == set() and "Votes to close" not in bot.fc.tables[tid].message.text
    assert (await bot.svc.abort(CHAT, bert.user)).ok
    assert table.votes == {bert.key}


@pytest.mark.parametrize("deals_first", [0, 1])
async def test_resign_ends_the_match(bot: Bot, deals_first: int) -> None:
    a, b = (bot.player(u) for u in users(2))
    tid = await open_table(bot, "zweier", [a, b])
    await play_out(
        bot.fc, tid, [a, b], until=lambda: len(bot.svc.tables[tid].deal_points) >= deals_first
    )
    assert (await bot.svc.resign(CHAT, a.user)).ok
    assert tid not in bot.svc.tables
    kinds = bot.fc.kinds(tid)
    assert kinds[-1] == "finished"
    final = bot.fc.updates[-1]
    assert final.result is not None and final.result.finished
    assert "Anna" in final.result.message.text
    rows = dict(
        await bot.store.fetchall(  # type: ignore[union-attr]
            "SELECT player, won FROM results WHERE table_id = ?", (tid,)
        )
    )
    assert rows == {a.key: 0, b.key: 1}
    board = await R.leaderboard(bot.store, "zweier", CHAT.key)  # type: ignore[arg-type]
    assert [e.player for e in board] == [b.key, a.key]
    assert (await bot.svc.resign(CHAT, a.user)).code == "no_table"


async def test_resign_asks_first_and_only_the_asker_can_confirm(bot: Bot) -> None:
    """/resign typed is a question whose button is bound to the asker's seat: the
    question changes nothing, the opponent cannot press it (on Telegram the group
    sees it), and after the match it is spent."""
    a, b = (bot.player(u) for u in users(2))
    tid = await open_table(bot, "zweier", [a, b])
    before = await snapshot(bot, tid)
    asked = await bot.svc.resign(CHAT, a.user, ask=True)
    assert asked.ok and asked.code == "confirm" and asked.confirm is not None
    assert (
        asked.text
        == f"Resign the match at table {tid}? You lose it, and it counts on the leaderboard."
    )
    label, payload = asked.confirm
    assert label == "Resign" and await snapshot(bot, tid) == before
    refused = await bot.svc.act(b.user, payload, CHAT)
    assert refused.code == "not_your_button" and await snapshot(bot, tid) == before
    await a.take_turn(tid) if bot.svc.tables[tid].to_act() == 0 else await b.take_turn(tid)
    done = await bot.svc.act(a.user, payload, CHAT)  # a move since: still his question
    assert done.ok and done.code == "resigned" and tid not in bot.svc.tables
    assert bot.fc.kinds(tid)[-1] == "finished"
    assert (await bot.svc.act(a.user, payload, CHAT)).code == "unknown_table"


async def test_resigning_against_computers_alone_is_not_said_to_count(bot: Bot) -> None:
    """Against computers no match is rated: the question and the answer say only
    that he loses (with a person on the other side they say it counts, above)."""
    anna = bot.player(users(1)[0])
    tid = await open_table(bot, "zweier", [anna])
    asked = await bot.svc.resign(CHAT, anna.user, ask=True)
    assert asked.text == f"Resign the match at table {tid}? You lose it.", asked.text
    done = await bot.svc.resign(CHAT, anna.user)
    assert done.ok and done.text == "You resigned: you lose the match.", done.text


async def test_resigning_when_the_other_person_walked_away_is_not_said_to_count(
    bot: Bot,
) -> None:
    """Bert walked away (the computer plays his seat): he loses too, so nobody's
    rating moves, and Anna's resignation is not said to count; with Bert back it is."""
    anna, bert = (bot.player(u) for u in users(2))
    tid = await open_table(bot, "zweier", [anna, bert])
    table = bot.svc.tables[tid]
    seat = table.seat_of(bert.key)
    await walks_away(bot, tid, bert)
    asked = await bot.svc.resign(CHAT, anna.user, ask=True)
    assert asked.text == f"Resign the match at table {tid}? You lose it.", asked.text
    await bot.svc._commit(table, [{"k": "back", "seat": seat}])
    asked = await bot.svc.resign(CHAT, anna.user, ask=True)
    assert (asked.text or "").endswith("You lose it, and it counts on the leaderboard.")


async def test_forgetme_asks_first(bot: Bot) -> None:
    a, b = (bot.player(u) for u in users(2))
    tid = await open_table(bot, "zweier", [a, b])
    asked = await bot.svc.forget(a.user, ask=True)
    assert asked.code == "confirm" and asked.confirm is not None
    assert "the computer takes your seat" in (asked.text or "")
    assert bot.svc.tables[tid].seat_of(a.key) is not None  # nothing done yet
    done = await bot.svc.act(a.user, asked.confirm[1], CHAT)
    assert done.code == "forgotten" and bot.svc.tables[tid].seat_of(a.key) is None
    asked = await bot.svc.forget(a.user, ask=True)  # seated nowhere now
    assert asked.text == "Delete your data: results, ratings and settings? It cannot be undone."


async def test_resign_in_the_lobby_is_refused(bot: Bot) -> None:
    a = bot.player(users(1)[0])
    tid = await open_table(bot, "zweier", [a], start=False)
    before = await snapshot(bot, tid)
    out = await bot.svc.resign(CHAT, a.user)
    assert out.code == "resign_in_lobby" and "press Leave" in (out.text or "")
    # typed, it is refused at once: no "Resign?" question whose button only refuses
    asked = await bot.svc.resign(CHAT, a.user, ask=True)
    assert asked.code == "resign_in_lobby" and asked.confirm is None
    assert await snapshot(bot, tid) == before


@pytest.mark.skipif("bauern" not in available(), reason="Bauernschnapsen not implemented")
async def test_resign_at_bauern_loses_for_the_team(bot: Bot) -> None:
    a, b = (bot.player(u) for u in users(2))
    tid = await open_bauern_partners(bot, a, b)
    asked = await bot.svc.resign(CHAT, b.user, ask=True)
    assert "It is lost for your team" in (asked.text or "")  # the other games: "You lose it"
    resigned = await bot.svc.resign(CHAT, b.user)
    assert resigned.ok and "the match is lost for your team" in (resigned.text or "")
    rows = dict(
        await bot.store.fetchall(  # type: ignore[union-attr]
            "SELECT player, won FROM results WHERE table_id = ?", (tid,)
        )
    )
    assert rows == {a.key: 0, b.key: 0}


# --- /forgetme --------------------------------------------------------------------------


async def test_forget_me_deletes_data_and_the_table_goes_on(make_bot: Callable[..., Bot]) -> None:
    bot = await make_bot().start()
    a, b = (bot.player(u) for u in users(2))
    # a finished game first, so there is something to delete
    tid0 = await open_table(bot, "zweier", [a, b])
    await play_out(bot.fc, tid0, [a, b])
    assert await R.player_stats(bot.store, a.key)  # type: ignore[arg-type]
    await bot.store.set_message_ref(tid0, f"hand:{a.key}", "dm/1")  # type: ignore[union-attr]

    tid = await open_table(bot, "zweier", [a, b])
    for _ in range(3):
        for pl in (a, b):
            await pl.take_turn(tid)
    out = await bot.svc.forget(a.user)
    assert out.ok and out.text
    table = bot.svc.tables[tid]
    assert table.seat_of(a.key) is None and a.key not in bot.svc.seat_users(tid)
    assert table.host != a.key
    seat = next(s for s in table.seats if s is not None and s.user is None)
    assert seat.ai is not None and seat.name != a.user.name
    store = bot.store
    assert store is not None
    assert await store.player(a.key) is None
    assert await R.player_stats(store, a.key) == []
    assert await stored_mentions(store, a.key) == []
    names = await store.fetchall("SELECT entry FROM table_log")
    assert not any(a.user.name in e for (e,) in names)
    # the table plays on (the computer for a) and finishes; b's game counts
    await play_out(bot.fc, tid, [b])
    assert bot.fc.kinds(tid)[-1] == "finished"
    rows = await store.fetchall("SELECT player FROM results WHERE table_id = ?", (tid,))
    assert rows == [(b.key,)]
    await bot.stop()
    # and a restart rebuilds everything from the scrubbed logs
    bot = await make_bot().start()
    try:
        assert bot.svc.tables == {}
    finally:
        await bot.stop()


async def test_forget_me_mid_game_then_restart(make_bot: Callable[..., Bot]) -> None:
    bot = await make_bot().start()
    a, b = (bot.player(u) for u in users(2))
    tid = await open_table(bot, "zweier", [a, b])
    await bot.svc.forget(a.user)
    before = bot.svc.tables[tid]
    seats = [(s.user, s.name, s.ai) for s in before.seats if s]
    version = before.version
    await bot.stop()
    bot = await make_bot().start()
    try:
        table = bot.svc.tables[tid]
        assert table.version == version
        assert [(s.user, s.name, s.ai) for s in table.seats if s] == seats
        b = bot.player(b.user)
        await play_out(bot.fc, tid, [b])
        assert bot.fc.kinds(tid)[-1] == "finished"
    finally:
        await bot.stop()


async def test_forget_me_in_a_lobby(bot: Bot) -> None:
    a, b = (bot.player(u) for u in users(2))
    tid = (await bot.svc.create_table(CHAT, a.user, "dreier")).table_id
    assert tid is not None
    assert (await b.press(button(bot.fc.lobbies[tid].message, "j"))).ok
    assert (await bot.svc.forget(a.user)).ok
    table = bot.svc.tables[tid]
    assert table.host == b.key and table.seat_of(a.key) is None


# --- settings and languages --------------------------------------------------------------


async def test_settings_admins_only_and_validated(bot: Bot) -> None:
    a = users(1)[0]
    s0 = await bot.svc.settings(CHAT)
    assert (
        await bot.svc.update_setting(CHAT, a, "language", "de", is_admin=False)
    ).code == "not_admin"
    for key, value in [
        ("language", "xx"),
        ("suits", "italian"),
        ("starters", "nobody"),
        ("ai_level", "genius"),
        ("turn_timeout", "5"),
        ("turn_timeout", "abc"),
        ("turn_timeout", "99999"),
        ("nonsense", "1"),
        ("preset.zweier", "nope"),
        ("preset.nogame", "standard"),
        ("zweier.nope", "on"),
        ("zweier.auto_claim", "banana"),
    ]:
        out = await bot.svc.update_setting(CHAT, a, key, value, is_admin=True)
        assert not out.ok and out.code == "bad_setting", (key, value, out)
    assert await bot.svc.settings(CHAT) == s0
    for key, value in [
        ("language", "de"),
        ("suits", "german"),
        ("turn_timeout", "45"),
        ("ai_level", "random"),
        ("zweier.auto_claim", "off"),
        ("preset.dreier", "standard"),
    ]:
        out = await bot.svc.update_setting(CHAT, a, key, value, is_admin=True)
        assert out.ok, (key, value, out)
    s = await bot.svc.settings(CHAT)
    assert (s.language, s.suits, s.turn_timeout, s.ai_level) == ("de", "german", 45, "random")
    assert s.options == {"zweier": {"auto_claim": False}} and s.presets == {"dreier": "standard"}
    # other chats are untouched
    assert await bot.svc.settings(OTHER_CHAT) == s0
    # a new table takes the chat's settings
    tid = (await bot.svc.create_table(CHAT, a, "zweier")).table_id
    assert tid is not None
    table = bot.svc.tables[tid]
    assert table.settings["turn_timeout"] == 45 and table.settings["suits"] == "german"
    assert table.options.auto_claim is False


async def test_only_admins_may_open_tables_when_set(bot: Bot) -> None:
    a = users(1)[0]
    assert (await bot.svc.update_setting(CHAT, a, "starters", "admins", is_admin=True)).ok
    assert (await bot.svc.create_table(CHAT, a, "zweier")).code == "not_allowed_to_start"
    assert (await bot.svc.create_table(CHAT, a, "zweier", is_admin=True)).ok


async def test_house_rules_refuse_a_table_that_would_change_them(bot: Bot) -> None:
    """`rules fixed`: every table of the chat plays its rules, so its board compares
    like with like; a host may still name them again."""
    a, b, c = users(3)
    admin = dict(is_admin=True)
    assert (await bot.svc.update_setting(CHAT, a, "dreier.plauderer", "on", **admin)).ok
    assert (await bot.svc.update_setting(CHAT, a, "rules", "fixed", **admin)).ok
    out = await bot.svc.create_table(CHAT, a, "dreier", preset="all_contracts")
    assert out.code == "rules_fixed"
    assert (out.text or "").startswith(
        "Tables here play the house rules for Dreierschnapsen (3 players): plauderer=on."
        " Open one without a preset or options to play them;"
    ), out.text
    out = await bot.svc.create_table(CHAT, a, "dreier", options={"plauderer": "off"})
    assert out.code == "rules_fixed"
    assert bot.svc.tables == {}
    # the chat's own rules, named or not, open a table with them
    out = await bot.svc.create_table(CHAT, a, "dreier", options={"plauderer": "on"})
    assert out.ok and out.table_id is not None
    assert bot.svc.tables[out.table_id].options.plauderer is True
    assert (await bot.svc.create_table(CHAT, b, "zweier")).ok
    # a house preset with a tweak: naming the preset again is the house rules
    house = {"preset.dreier": "all_contracts", "dreier.plauderer": "off"}
    for key, value in house.items():
        assert (await bot.svc.update_setting(CHAT, a, key, value, **admin)).ok
    e = users(5)[4]
    out = await bot.svc.create_table(CHAT, e, "dreier", preset="All_Contracts")
    assert out.ok and out.table_id is not None, out.text
    assert bot.svc.tables[out.table_id].options.plauderer is False
    # another chat's hosts still choose
    assert (await bot.svc.create_table(OTHER_CHAT, c, "dreier", preset="all_contracts")).ok
    # open again: a host's choice is taken
    assert (await bot.svc.update_setting(CHAT, a, "rules", "open", **admin)).ok
    d = users(4)[3]
    assert (await bot.svc.create_table(CHAT, d, "dreier", preset="all_contracts")).ok


async def test_bad_games_presets_and_options_are_refused(bot: Bot) -> None:
    a = users(1)[0]
    assert (await bot.svc.create_table(CHAT, a, "poker")).code == "unknown_game"
    assert (await bot.svc.create_table(CHAT, a, "zweier", preset="nope")).code == "unknown_preset"
    out = await bot.svc.create_table(CHAT, a, "zweier", options={"auto_claim": "x"})
    assert out.code == "bad_options"
    assert bot.svc.tables == {}


async def test_german_user_gets_german_texts(make_bot: Callable[..., Bot]) -> None:
    de = UserRef("tg", "7", "Resi", "de-AT")
    en = UserRef("tg", "8", "Bob", "en")
    bot = await make_bot(langs={de.key: "de"}).start()
    try:
        tid = (await bot.svc.create_table(CHAT, de, "zweier")).table_id
        assert tid is not None
        lobby_de = bot.svc.lobby(tid, "de")
        assert lobby_de is not None
        assert "Mitspielen" in [b.label for b in lobby_de.message.all_buttons()]
        assert "Gastgeber" in lobby_de.message.text
        assert (await bot.svc.act(en, button(lobby_de.message, "j").payload)).ok
        assert (await bot.svc.act(de, button(lobby_de.message, "st").payload)).ok
        hv = bot.fc.hands[(tid, de.key)]
        assert "Deine Karten" in hv.message.text
        hv_en = bot.fc.hands[(tid, en.key)]
        assert "Your hand" in hv_en.message.text
        # refusals in the presser's language
        other = hv_en if not hv_en.your_turn else hv
        who = en if other is hv_en else de
        mover = de if who is en else en
        mover_hv = hv if mover is de else hv_en
        out = await bot.svc.act(who, mover_hv.message.all_buttons()[0].payload)
        assert out.code == "not_your_turn"
        assert out.text == TEXTS["de" if who is de else "en"]["refuse.not_your_turn"]
        tv = bot.svc.table(tid, "de")
        assert tv is not None and "Stand (bis 7):" in tv.message.text
        assert "Meine Karten" in [b.label for b in tv.message.all_buttons()]
    finally:
        await bot.stop()


async def test_german_suits(bot: Bot) -> None:
    a, b = users(2)
    assert (await bot.svc.update_setting(CHAT, a, "suits", "german", is_admin=True)).ok
    assert (await bot.svc.update_setting(CHAT, a, "language", "de", is_admin=True)).ok
    players = [bot.player(u) for u in (a, b)]
    tid = await open_table(bot, "zweier", players)
    hv = players[0].hand(tid)
    assert hv is not None and hv.view is not None
    text = hv.message.text
    for suit in ("♥", "♦", "♣", "♠"):
        assert suit not in text
    assert any(w in text for w in ("Ass", "Zehner", "König", "Ober", "Unter"))
    tv = bot.svc.table(tid)
    assert tv is not None
    assert any(w in tv.message.text for w in ("Herz", "Schelle", "Eichel", "Laub"))
    assert "Trumpf" in tv.message.text


def test_every_german_text_has_an_english_original_with_the_same_fields() -> None:
    import string

    fmt = string.Formatter()
    for key, de in TEXTS["de"].items():
        assert key in TEXTS["en"], key
        fields_de = {f for _, f, _, _ in fmt.parse(de) if f}
        fields_en = {f for _, f, _, _ in fmt.parse(TEXTS["en"][key]) if f}
        assert fields_de == fields_en, key


async def test_chat_settings_are_json_in_the_store(bot: Bot) -> None:
    a = users(1)[0]
    assert (await bot.svc.update_setting(CHAT, a, "turn_timeout", "30", is_admin=True)).ok
    raw = await bot.store.fetchall("SELECT settings FROM chats WHERE key = ?", (CHAT.key,))  # type: ignore[union-attr]
    assert json.loads(raw[0][0])["turn_timeout"] == 30


def test_fast_timings_are_sane() -> None:
    assert FAST.ai_delay == 0


async def test_two_players_forget_me_at_one_table_then_restart(
    make_bot: Callable[..., Bot],
) -> None:
    bot = await make_bot().start()
    a, b, c = (bot.player(u) for u in users(3))
    tid = await open_table(bot, "dreier", [a, b, c])
    assert (await bot.svc.abort(CHAT, b.user)).ok  # a vote that leaves with b
    await bot.svc.forget(b.user)
    await bot.svc.forget(c.user)
    table = bot.svc.tables[tid]
    seats = [(s.user, s.name, s.ai) for s in table.seats if s]
    assert table.votes == set()
    version = table.version
    await bot.stop()
    bot = await make_bot().start()
    try:
        table = bot.svc.tables[tid]
        assert table.version == version
        assert [(s.user, s.name, s.ai) for s in table.seats if s] == seats
        assert table.votes == set()
        await play_out(bot.fc, tid, [bot.player(a.user)])
        assert bot.fc.kinds(tid)[-1] == "finished"
    finally:
        await bot.stop()


async def test_concurrent_settings_changes_both_count(bot: Bot) -> None:
    a = users(1)[0]
    outs = await asyncio.gather(
        bot.svc.update_setting(CHAT, a, "language", "de", is_admin=True),
        bot.svc.update_setting(CHAT, a, "suits", "german", is_admin=True),
        bot.svc.update_setting(CHAT, a, "turn_timeout", "40", is_admin=True),
    )
    assert all(o.ok for o in outs)
    s = await bot.svc.settings(CHAT)
    assert (s.language, s.suits, s.turn_timeout) == ("de", "german", 40)


async def test_a_new_being_stored_in_one_group_holds_up_no_other_group(bot: Bot) -> None:
    """Anna's /new in one group is still being stored (a slow disk): meanwhile, in
    another group, Bert's /new opens and Cora's /settings change (German) is saved
    and reaches his lobby — one group's write keeps no other group waiting.  Then
    Anna's table opens, and no lock of either group is kept."""
    anna, bert, cora = users(3)

    async def in_the_other_group() -> tuple[Outcome, Outcome, bool]:
        opened = await bot.svc.create_table(OTHER_CHAT, bert, "zweier")
        saved = await bot.svc.update_setting(OTHER_CHAT, cora, "language", "de", is_admin=True)
        return opened, saved, not bot.svc.tables_in(CHAT.key)

    hers, (his, saved, hers_still_stored) = await while_opening(
        bot, bot.svc.create_table(CHAT, anna, "zweier"), in_the_other_group
    )
    assert his.ok and saved.ok and hers_still_stored, (his, saved)
    assert his.table_id is not None and bot.svc.tables[his.table_id].settings["lang"] == "de"
    assert hers.ok and hers.table_id is not None
    assert bot.svc.tables[hers.table_id].chat == CHAT.key
    assert bot.svc.tables[hers.table_id].settings["lang"] == "en"
    assert len(bot.svc._chat_locks) == 0


async def test_a_table_being_stored_as_its_group_moves_speaks_what_the_new_group_set(
    bot: Bot,
) -> None:
    """Bert's /new is being stored when the group becomes a supergroup, and the
    supergroup's admin sets German at once: the table lands in the supergroup (in
    memory and in the store) and speaks German there, as the supergroup does — the
    switch waits for it rather than going over the supergroup's tables without it."""
    new = ChatRef("tg", "-1009", "Supergroup")
    admin, bert = users(2)
    moves: list[asyncio.Future[list[str]]] = []

    async def move_then_set() -> Outcome:
        # the core's move itself: `move_chat`'s task would wait for the /new's lock,
        # and while_opening lets the /new go on once a task of the core waits for one
        moves.append(asyncio.ensure_future(bot.svc._move_chat(CHAT.key, new.key)))
        await asyncio.sleep(0)  # the move is known (it waits for the /new)
        assert bot.svc._moved == {CHAT.key: new.key}
        return await bot.svc.update_setting(new, admin, "language", "de", is_admin=True)

    opened, saved = await while_opening(
        bot, bot.svc.create_table(CHAT, bert, "zweier"), move_then_set
    )
    await moves[0]
    tid = opened.table_id
    assert opened.ok and saved.ok and tid is not None, (opened, saved)
    [(stored,)] = await bot.store.fetchall(  # type: ignore[union-attr]
        "SELECT chat FROM tables WHERE id = ?", (tid,)
    )
    assert stored == bot.svc.tables[tid].chat == new.key
    assert bot.svc.tables[tid].settings["lang"] == "de"
    assert (await bot.db.table_log(tid))[-1] == {"k": "lang", "lang": "de"}


async def test_a_setting_being_saved_as_its_group_moves_is_kept_in_the_new_group(
    bot: Bot,
) -> None:
    """An admin's /settings change in the group is under way (the group's settings
    being read) when the group becomes a supergroup: the move waits for it, and the
    supergroup has the change — not the old group's key, which nobody types in."""
    new = ChatRef("tg", "-1009", "Supergroup")
    [admin] = users(1, lang="en")  # answered in his own language: the one read is the change's
    saved, moved = await while_opening(
        bot,
        bot.svc.update_setting(CHAT, admin, "turn_timeout", "40", is_admin=True),
        lambda: bot.svc.move_chat(CHAT, new),
        held="chat_settings",
    )
    assert saved.ok and moved == [], saved
    assert (await bot.svc.settings(new)).turn_timeout == 40
    assert await bot.db.chat_settings(CHAT.key) == {}


async def test_a_table_moved_to_a_supergroup_speaks_the_language_its_admin_set(
    make_bot: Callable[..., Bot],
) -> None:
    """A match runs in English in the group; it becomes a supergroup, whose admin sets
    German there before the bot learns of the move.  The supergroup keeps its newer
    settings, and the table that moved in speaks German from its next message on, as
    every table there does; a restart, which rebuilds it from its log, keeps it so."""
    new = ChatRef("tg", "-1009", "Supergroup")
    bot = await make_bot().start()
    try:
        a, b = (bot.player(u) for u in users(2))
        tid = await open_table(bot, "zweier", [a, b])
        assert bot.fc.tables[tid].message.text.splitlines()[1].startswith("Deal 1")
        assert (await bot.svc.update_setting(new, a.user, "language", "de", is_admin=True)).ok
        assert await bot.svc.move_chat(CHAT, new) == [tid]
        assert bot.fc.tables[tid].message.text.splitlines()[1].startswith("Runde 1")
        assert (await bot.svc.settings(new)).language == "de"
    finally:
        await bot.stop()
    bot = await make_bot().start()
    try:
        view = bot.svc.table(tid)
        assert view is not None and view.message.text.splitlines()[1].startswith("Runde 1")
        assert bot.svc.tables[tid].chat == new.key
    finally:
        await bot.stop()


async def test_a_table_moved_to_a_supergroup_without_settings_keeps_its_language(
    bot: Bot,
) -> None:
    """The group speaks German (its admin set it) and a match runs there; it becomes a
    supergroup nobody has set anything in yet: the group's settings move along, and
    the table goes on in German, not switched to a default."""
    new = ChatRef("tg", "-1009", "Supergroup")
    a, b = (bot.player(u) for u in users(2))
    assert (await bot.svc.update_setting(CHAT, a.user, "language", "de", is_admin=True)).ok
    tid = await open_table(bot, "zweier", [a, b])
    assert await bot.svc.move_chat(CHAT, new) == [tid]
    assert bot.svc.tables[tid].settings["lang"] == "de"
    assert bot.fc.tables[tid].message.text.splitlines()[1].startswith("Runde 1")
    assert (await bot.svc.settings(new)).language == "de"


async def test_a_group_s_settings_fill_in_what_its_supergroup_never_set(
    make_bot: Callable[..., Bot],
) -> None:
    """The group set German, a 120 s turn, the Dreier's all-contracts preset and its
    Plauderer; a match runs there in German.  It becomes a supergroup whose admin,
    before the bot learns of the move, lets only admins start tables, gives the
    Bauern a preset, the Dreier its Zehnergang and the Zweier no Schneider.  After the move the supergroup
    has all of it, not just its own: the table goes on in German, and a restart
    keeps the settings and the table's language.  A second move changes nothing."""
    new = ChatRef("tg", "-1009", "Supergroup")
    bot = await make_bot().start()
    try:
        a, b = (bot.player(u) for u in users(2))
        for key, value in (
            ("language", "de"),
            ("turn_timeout", "120"),
            ("preset.dreier", "all_contracts"),
            ("dreier.plauderer", "on"),
        ):
            assert (await bot.svc.update_setting(CHAT, a.user, key, value, is_admin=True)).ok
        tid = await open_table(bot, "zweier", [a, b])
        for key, value in (
            ("starters", "admins"),
            ("preset.bauern", "no_bettler"),
            ("dreier.zehnergang", "on"),
            ("zweier.schneider", "off"),
        ):
            assert (await bot.svc.update_setting(new, a.user, key, value, is_admin=True)).ok
        assert await bot.svc.move_chat(CHAT, new) == [tid]
        assert bot.fc.tables[tid].message.text.splitlines()[1].startswith("Runde 1")
        merged = await bot.db.chat_settings(new.key)
        assert await bot.svc.move_chat(CHAT, new) == []
        assert await bot.db.chat_settings(new.key) == merged
        assert await bot.db.chat_settings(CHAT.key) == {}
    finally:
        await bot.stop()
    bot = await make_bot().start()
    try:
        s = await bot.svc.settings(new)
        assert (s.language, s.turn_timeout, s.starters) == ("de", 120, "admins")
        assert s.presets == {"dreier": "all_contracts", "bauern": "no_bettler"}
        assert s.options == {
            "dreier": {"dreier.plauderer": True, "dreier.zehnergang": True},
            "zweier": {"zweier.schneider": False},
        }
        view = bot.svc.table(tid)
        assert view is not None and view.message.text.splitlines()[1].startswith("Runde 1")
    finally:
        await bot.stop()


async def test_a_setting_both_chats_made_is_the_supergroup_s(bot: Bot) -> None:
    """The group set German and a 120 s turn, its supergroup's admin English, a 60 s
    turn and the Dreier's carinthian preset where the group had all contracts: after
    the move each is the supergroup's, and the group's table switches to English."""
    new = ChatRef("tg", "-1009", "Supergroup")
    a, b = (bot.player(u) for u in users(2))
    for chat, settings in (
        (CHAT, (("language", "de"), ("turn_timeout", "120"), ("preset.dreier", "all_contracts"))),
        (new, (("language", "en"), ("turn_timeout", "60"), ("preset.dreier", "carinthian"))),
    ):
        for key, value in settings:
            assert (await bot.svc.update_setting(chat, a.user, key, value, is_admin=True)).ok
        if chat == CHAT:
            tid = await open_table(bot, "zweier", [a, b])
            assert bot.fc.tables[tid].message.text.splitlines()[1].startswith("Runde 1")
    assert await bot.svc.move_chat(CHAT, new) == [tid]
    s = await bot.svc.settings(new)
    assert (s.language, s.turn_timeout, s.presets) == ("en", 60, {"dreier": "carinthian"})
    assert bot.svc.tables[tid].settings["lang"] == "en"
    assert bot.fc.tables[tid].message.text.splitlines()[1].startswith("Deal 1")


async def test_a_table_being_stored_as_its_group_moves_speaks_what_the_new_group_had_set(
    bot: Bot,
) -> None:
    """The supergroup's admin set German there before the bot learnt that the group
    had become it, and Bert's /new in the group is being stored as the move comes:
    his table lands in the supergroup speaking German from its first message, as
    the tables the move takes along do."""
    new = ChatRef("tg", "-1009", "Supergroup")
    admin, bert = users(2)
    assert (await bot.svc.update_setting(new, admin, "language", "de", is_admin=True)).ok
    opened, moved = await while_opening(
        bot, bot.svc.create_table(CHAT, bert, "zweier"), lambda: bot.svc.move_chat(CHAT, new)
    )
    tid = opened.table_id
    assert opened.ok and moved == [] and tid is not None, (opened, moved)
    assert bot.svc.tables[tid].chat == new.key
    assert bot.svc.tables[tid].settings["lang"] == "de"
    german = bot.svc.lobby(tid, "de")
    assert german is not None and bot.fc.lobbies[tid].message.text == german.message.text
    assert (await bot.db.table_log(tid))[-1] == {"k": "lang", "lang": "de"}


@pytest.mark.parametrize("delay", [0, 0.0005, 0.001, 0.002, 0.005, 0.01])
async def test_a_table_opened_while_its_chat_moves_ends_up_in_the_new_chat(
    bot: Bot, delay: float
) -> None:
    """A /new sent just before a Telegram group became a supergroup: wherever the
    move overtakes the opening, the table ends up in the new chat, in memory and in
    the store, and commands typed there find it."""
    new = ChatRef("tg", "-1009", "Supergroup")
    a = bot.player(users(1)[0])
    opening = asyncio.ensure_future(bot.svc.create_table(CHAT, a.user, "zweier"))
    await asyncio.sleep(delay)
    await bot.svc.move_chat(CHAT, new)
    tid = (await opening).table_id
    assert tid is not None
    [(stored,)] = await bot.store.fetchall(  # type: ignore[union-attr]
        "SELECT chat FROM tables WHERE id = ?", (tid,)
    )
    assert stored == bot.svc.tables[tid].chat == new.key
    table = bot.svc.table_of(new.key, a.key)
    assert table is not None and table.id == tid


async def test_a_table_whose_chat_moved_is_in_the_new_chat_after_a_restart(
    make_bot: Callable[..., Bot],
) -> None:
    """A Telegram group became a supergroup while a match ran there; after a restart
    the table is rebuilt from its log in the supergroup, where /resign finds it, and
    its result is counted on the supergroup's board — not in the old group, which
    no longer exists.  The move names the table it moved (the adapter posts the
    messages of one it does not show yet in the supergroup), a second one none."""
    new = ChatRef("tg", "-1009", "Supergroup")
    bot = await make_bot().start()
    try:
        a, b = (bot.player(u) for u in users(2))
        tid = await open_table(bot, "zweier", [a, b])
        assert await bot.svc.move_chat(CHAT, new) == [tid]
        assert await bot.svc.move_chat(CHAT, new) == []
    finally:
        await bot.stop()
    bot = await make_bot().start()
    try:
        assert bot.svc.tables[tid].chat == new.key
        assert (await bot.svc.resign(new, b.user)).ok
        board = await R.leaderboard(bot.store, "zweier", new.key)  # type: ignore[arg-type]
        assert [e.player for e in board] == [a.key, b.key]
        assert await R.leaderboard(bot.store, "zweier", CHAT.key) == []  # type: ignore[arg-type]
    finally:
        await bot.stop()


async def test_a_chat_move_takes_that_chat_s_history_and_no_other_chat_s(bot: Bot) -> None:
    """The group that became a supergroup takes its settings, finished matches (the
    newest is what /record hands out there), their results and contracts along; the
    bot's other chat keeps its own, and its open table's log still names it, so a
    restart rebuilds that table where it is played."""
    store = bot.store
    assert store is not None
    new = ChatRef("tg", "-1009", "Supergroup")
    a, b, c, d = users(4)
    for chat, (winner, loser) in ((CHAT, (a, b)), (OTHER_CHAT, (c, d))):
        assert (await bot.svc.update_setting(chat, winner, "turn_timeout", "40", is_admin=True)).ok
        await open_table(bot, "zweier", [bot.player(winner), bot.player(loser)], chat=chat)
        assert (await bot.svc.resign(chat, loser)).ok
    assert (await bot.svc.update_setting(OTHER_CHAT, c, "language", "de", is_admin=True)).ok
    await store.write(
        ops=[
            (
                "INSERT INTO contracts (table_id, deal, chat, game, player, contract, made)"
                " VALUES (?, 1, ?, 'dreier', ?, 'normal', 1)",
                (f"x{chat.key}", chat.key, a.key),
            )
            for chat in (CHAT, OTHER_CHAT)
        ]
    )
    running = await open_table(bot, "zweier", [bot.player(users(5)[4])], chat=OTHER_CHAT)
    before = {key: await store.finished_game(key) for key in (CHAT.key, OTHER_CHAT.key)}
    settings = {key: await store.chat_settings(key) for key in (CHAT.key, OTHER_CHAT.key)}
    assert settings[CHAT.key] != settings[OTHER_CHAT.key]
    await bot.svc.move_chat(CHAT, new)
    moved, was = await store.finished_game(new.key), before[CHAT.key]
    assert moved is not None and was is not None and moved.table_id == was.table_id
    assert await store.finished_game(CHAT.key) is None
    assert await store.finished_game(OTHER_CHAT.key) == before[OTHER_CHAT.key]
    assert await store.chat_settings(new.key) == settings[CHAT.key]
    assert await store.chat_settings(OTHER_CHAT.key) == settings[OTHER_CHAT.key]
    assert await store.chat_settings(CHAT.key) == {}
    for table in ("results", "contracts"):
        chats = await store.fetchall(f"SELECT DISTINCT chat FROM {table} ORDER BY chat")
        assert chats == sorted([(OTHER_CHAT.key,), (new.key,)]), table
    assert (await store.table_log(running))[0]["chat"] == OTHER_CHAT.key


async def test_a_chat_move_noticed_late_merges_the_leaderboard(bot: Bot) -> None:
    """Players rated in the old group and already in the supergroup (the bot learnt
    of the upgrade late) keep one rating each: the longer history's, with the games
    of both; nothing stays behind under the old key."""
    store = bot.store
    assert store is not None
    new = ChatRef("tg", "-1009", "Supergroup")
    rows = [
        (CHAT.key, "tg:1", 30.0, 5.0, 5),  # rated in both: the old history is longer
        (new.key, "tg:1", 20.0, 7.0, 2),
        (CHAT.key, "tg:2", 26.0, 6.0, 1),  # in both: the new history is longer
        (new.key, "tg:2", 24.0, 6.5, 3),
        (CHAT.key, "tg:3", 25.0, 8.0, 4),  # only in the old group
    ]
    await store.write(
        ops=[
            (
                "INSERT INTO ratings (scope, game, player, mu, sigma, games)"
                " VALUES (?, 'zweier', ?, ?, ?, ?)",
                row,
            )
            for row in rows
        ]
    )
    await bot.svc.move_chat(CHAT, new)
    await bot.svc.move_chat(CHAT, new)  # twice: nothing more happens
    got = await store.fetchall(
        "SELECT scope, player, mu, sigma, games FROM ratings ORDER BY scope, player"
    )
    assert got == [
        (new.key, "tg:1", 30.0, 5.0, 7),
        (new.key, "tg:2", 24.0, 6.5, 4),
        (new.key, "tg:3", 25.0, 8.0, 4),
    ]


async def test_a_chat_moved_to_its_own_key_keeps_its_leaderboard(bot: Bot) -> None:
    """A move that names the same chat twice (a platform repeating itself) changes
    nothing: the chat's board keeps its ratings and game counts, not merged with
    themselves (doubled, or deleted as a duplicate)."""
    a, b = (bot.player(u) for u in users(2))
    await open_table(bot, "zweier", [a, b])
    assert (await bot.svc.resign(CHAT, b.user)).ok
    before = await bot.store.fetchall(  # type: ignore[union-attr]
        "SELECT player, mu, sigma, games FROM ratings WHERE scope = ? ORDER BY player",
        (CHAT.key,),
    )
    assert len(before) == 2
    assert await bot.svc.move_chat(CHAT, CHAT) == []
    after = await bot.store.fetchall(  # type: ignore[union-attr]
        "SELECT player, mu, sigma, games FROM ratings WHERE scope = ? ORDER BY player",
        (CHAT.key,),
    )
    assert after == before


async def test_a_new_chat_language_reaches_the_running_tables(bot: Bot) -> None:
    """An admin switching the chat to German does not wait for the next table: the
    running one speaks German from its next message on, and the change is kept."""
    a, b = (bot.player(u) for u in users(2))
    tid = await open_table(bot, "zweier", [a, b])
    assert bot.fc.tables[tid].message.text.splitlines()[1].startswith("Deal 1")
    assert (await bot.svc.update_setting(CHAT, a.user, "language", "de", is_admin=True)).ok
    assert bot.fc.tables[tid].message.text.splitlines()[1].startswith("Runde 1")
    log = await bot.store.table_log(tid)  # type: ignore[union-attr]
    assert log[-1] == {"k": "lang", "lang": "de"}


def test_every_preset_has_a_name_in_every_language() -> None:
    from bot.i18n import PRESET_NAMES
    from engine.games import game

    for gid in available():
        for preset in game(gid).presets:
            for lang in ("en", "de"):
                assert preset in PRESET_NAMES[lang], (gid, preset, lang)


async def test_the_lobby_names_its_house_rules_in_words(bot: Bot) -> None:
    """ "Rules: manual_claims" is an id for admins; players read what it means."""
    a = bot.player(users(1)[0])
    out = await bot.svc.create_table(CHAT, a.user, "zweier", preset="manual_claims")
    assert out.ok and out.table_id is not None, out
    assert "Rules: claims by hand (manual_claims)" in bot.fc.lobbies[out.table_id].message.text


async def test_dreier_count_down_shows_what_each_still_needs(bot: Bot) -> None:
    """With `dreier.count_down` the table counts from 24 down, as some Stammtische
    keep the score: every player starts at 24 and the line says so."""
    players = [bot.player(u) for u in users(1)]
    tid = await open_table(bot, "dreier", players, options={"dreier.count_down": True})
    tv = bot.svc.table(tid)
    assert tv is not None
    [line] = [ln for ln in tv.message.text.splitlines() if ln.startswith("Score")]
    assert line.startswith("Score, counting down from 24:") and line.count(" 24") == 1 + 3
    tv_de = bot.svc.table(tid, "de")
    assert tv_de is not None and "Stand, von 24 abwärts:" in tv_de.message.text
    plain = await open_table(bot, "dreier", [bot.player(users(2)[1])])
    tv = bot.svc.table(plain)
    assert (
        tv is not None
        and "Score (to 24): " in tv.message.text
        and "counting down" not in tv.message.text
    )


async def test_dreier_cut_ritual_shows_middlehand_cutting_or_knocking(bot: Bot) -> None:
    """`dreier.cut_ritual`: each deal's table says whether middlehand (two seats after
    the dealer) cut the pack or knocked, the same on every look at that deal."""
    players = [bot.player(u) for u in users(1)]
    tid = await open_table(bot, "dreier", players, options={"dreier.cut_ritual": True})
    table = bot.svc.tables[tid]
    assert table.deal_log is not None
    tv = bot.svc.table(tid)
    assert tv is not None
    middlehand = table.seats[(table.deal_log.spec.dealer + 2) % 3]
    assert middlehand is not None
    said = [ln for ln in tv.message.text.splitlines() if ln.startswith(middlehand.name + " ")]
    assert said in ([f"{middlehand.name} cuts the pack."], [f"{middlehand.name} knocks: no cut."])
    again = bot.svc.table(tid)
    assert again is not None and said[0] in again.message.text
    plain = await open_table(bot, "dreier", [bot.player(users(2)[1])])
    tv = bot.svc.table(plain)
    assert tv is not None and "cuts the pack" not in tv.message.text
    assert "no cut" not in tv.message.text


async def test_the_lobby_names_every_rule_that_differs_from_its_preset(bot: Bot) -> None:
    """The lobby's "Rules:" line is the rules in force: the preset, and each option
    the chat or the host set apart from it, so a preset's name never hides one; an
    option by its name in the chat's words, not the id admins type."""
    host = users(5)
    await bot.svc.update_setting(CHAT, host[0], "zweier.auto_claim", "off", is_admin=True)

    async def rules(
        i: int, game: str, preset: str | None, options: dict[str, object] | None
    ) -> list[str]:
        chat = CHAT if i == 0 else ChatRef("tg", str(-500 - i), "elsewhere")
        out = await bot.svc.create_table(chat, host[i], game, preset=preset, options=options)
        assert out.table_id is not None, out
        lobby = bot.svc.lobby(out.table_id)
        assert lobby is not None
        return [ln for ln in lobby.message.text.splitlines() if ln.startswith("Rules:")]

    assert await rules(0, "zweier", None, None) == ["Rules: standard + automatic claims off"]
    assert await rules(1, "zweier", "manual_claims", {"auto_claim": True}) == [
        "Rules: claims by hand (manual_claims) + automatic claims on"
    ]
    assert await rules(2, "dreier", "all_contracts", None) == [
        "Rules: all contracts (all_contracts)"
    ]
    assert await rules(3, "zweier", None, None) == []  # the standard rules: no line
    # two set apart: both named, one after the other
    two: dict[str, object] = {"auto_claim": False, "zweier.schneider": False}
    assert await rules(4, "zweier", None, two) == [
        "Rules: standard + automatic claims off, Schneider off"
    ]


def _forehand(table: Table) -> int | None:
    """The running deal's forehand, as a deal seat (None where the game names none)."""
    assert table.deal is not None
    forehand = dict(P.view(table.deal, None).extra).get("forehand")
    assert forehand is None or isinstance(forehand, int)
    return forehand


def _prefer(*tokens: str) -> Policy:
    """A policy that takes the first of `tokens` it may (a contract id, "double",
    "pass"; "F:" for forehand only, "O:" for the others), else any move but a double."""

    def choose(table: Table, seat: int, codes: list[int], rng: random.Random) -> int:
        assert table.deal is not None
        acts = {c: decode_action(c, table.deal.contracts) for c in codes}
        forehand = _forehand(table)
        mine = table.deal_seat(seat)
        for token in tokens:
            who, _, what = token.rpartition(":")
            if (who == "F" and mine != forehand) or (who == "O" and mine == forehand):
                continue
            for c, a in acts.items():
                if (
                    (what == "double" and isinstance(a, Double))
                    or (what == "pass" and isinstance(a, Pass))
                    or (isinstance(a, Bid) and a.contract == what)
                ):
                    return c
        return rng.choice([c for c, a in acts.items() if not isinstance(a, Double)] or codes)

    return choose


async def test_a_kontra_a_later_bid_wiped_is_neither_listed_nor_counted(bot: Bot) -> None:
    """Bauern with `kontra_beats_bettler`: a Kontra said against a Bettler in the
    auction falls when a higher contract is bid.  The table lists only the doubles that
    stand, one per doubling of the deal, named Kontra, Rekontra, Subkontra in turn, and
    the next double is asked for by the next of those names."""
    seen: list[str] = []

    def look(update: TableUpdate) -> None:
        view = bot.svc.table(update.table_id)
        if view is not None and update.kind == "action":
            seen.append(view.message.text)

    bot.fc.on_update.append(look)
    players = [bot.player(u, _prefer("F:bettler", "O:double", "O:gang", "pass")) for u in users(4)]
    tid = await open_table(bot, "bauern", players, options={"bauern.kontra_beats_bettler": True})
    await play_out(bot.fc, tid, players)
    names = ["Kontra", "Rekontra", "Subkontra"]
    gang = next(i for i, text in enumerate(seen) if "Contract: Gang" in text)
    assert any("Kontra: " in text for text in seen[:gang])  # said in the auction, then wiped
    for text in seen:
        contract = next((ln for ln in text.splitlines() if ln.startswith("Contract:")), "")
        times = int(contract.rsplit("(×", 1)[1].rstrip(")")) if "(×" in contract else 1
        said = next((ln for ln in text.splitlines() if ln.startswith("Kontra: ")), "")
        doubles = [part.split(":")[0] for part in said.split(" · ")] if said else []
        if contract:  # (in the auction the Kontra stands until a higher bid)
            assert doubles == names[: times.bit_length() - 1], text
        asked = re.search(r"to say (\w+) or pass", text)
        if asked:
            assert asked.group(1) == names[len(doubles)], text


async def test_a_bettler_that_fell_to_a_kontra_is_not_called_raised(bot: Bot) -> None:
    """`kontra_beats_bettler`: a Kontra against a Bettler leaves its bidder a normal
    game at ×2.  Nothing was raised (the normal game ranks below the Bettler): the
    contract line says the Bettler fell to a Kontra."""
    seen: list[str] = []
    bot.fc.on_update.append(
        lambda u: seen.append(v.message.text) if (v := bot.svc.table(u.table_id)) else None
    )
    players = [bot.player(u, _prefer("bettler", "double", "pass")) for u in users(4)]
    tid = await open_table(bot, "bauern", players, options={"bauern.kontra_beats_bettler": True})
    await play_out(bot.fc, tid, players)
    contracts = {ln for text in seen for ln in text.splitlines() if ln.startswith("Contract:")}
    assert any("Normal game (1–3) (the Bettler fell to a Kontra) by" in ln for ln in contracts)
    assert not any("raised from" in ln for ln in contracts)


def _partner_s_bettler(table: Table, seat: int, codes: list[int], rng: random.Random) -> int | None:
    """Bauern: forehand bids the normal game, his partner a Bettler over it, and the
    other team says Kontra when it may, else passes."""
    forehand = _forehand(table)
    mine = table.deal_seat(seat)
    assert forehand is not None and mine is not None
    tokens = {0: ("normal",), 2: ("bettler",)}.get((mine - forehand) % 4, ("double", "pass"))
    return _prefer(*tokens)(table, seat, codes, rng)


@pytest.mark.parametrize(
    "policy",
    [_prefer("bettler", "double", "pass"), _partner_s_bettler],
    ids=["forehand-s-bettler", "partner-s-bettler"],
)
async def test_after_a_kontra_in_the_auction_the_hands_name_the_normal_game_as_the_bid(
    bot: Bot, policy: Policy
) -> None:
    """`kontra_beats_bettler`: once an opponent said Kontra, the Bettler (forehand's
    or his partner's) is void and forehand holds the normal game at ×2: that is what
    the others still bid against, and their hands (on Telegram in another chat than
    the table) must say so, and name forehand as its holder, not show the dead
    Bettler as the highest bid."""
    highs: list[tuple[bool, str]] = []  # (a Kontra stands in the auction, the line)
    holders: set[str] = set()  # forehand's name where a Kontra stood

    def look(update: TableUpdate) -> None:
        table = bot.svc.tables.get(update.table_id)
        view = bot.svc.table(update.table_id)
        if table is None or view is None or "Contract:" in view.message.text:
            return
        kontra = any(ln.startswith("Kontra: ") for ln in view.message.text.splitlines())
        for seat in table.seats:
            hand = bot.svc.hand(update.table_id, seat.user, "en") if seat and seat.user else None
            for line in hand.message.text.splitlines() if hand is not None else ():
                if line.startswith("Highest bid:"):
                    highs.append((kontra, line))
        if kontra and table.deal is not None and table.deal_log is not None:
            forehand = _forehand(table)
            assert forehand is not None
            player = table.seats[table.deal_log.spec.seats[forehand]]
            assert player is not None and player.user is not None
            holders.add(next(p.user.name for p in players if p.key == player.user))

    bot.fc.on_update.append(look)
    players = [bot.player(u, policy) for u in users(4)]
    tid = await open_table(bot, "bauern", players, options={"bauern.kontra_beats_bettler": True})
    await play_out(bot.fc, tid, players)
    after = [line for kontra, line in highs if kontra]
    assert after, "no hand was shown a bid after the Kontra"
    for line in after:
        assert line.startswith(
            "Highest bid: Normal game (1–3) ×2 (the Bettler fell to a Kontra), by "
        ), line
    named = {line.rpartition(", by ")[2] for line in after}
    assert named == holders, (named, holders)
    assert any(line.startswith("Highest bid: Bettler") for kontra, line in highs if not kontra)


@pytest.mark.parametrize("game", ["bauern", "dreier"])
async def test_the_last_table_and_the_summary_name_the_same_bummerl(bot: Bot, game: str) -> None:
    """When the match ends, the table's last picture and the match summary name the
    same Bummerl: Bauern's once per team, as the table names its teams, and after a
    walk-away the Bummerl the results count, not the engine's per seat."""
    finals: list[ResultView] = []
    bot.fc.on_update.append(
        lambda u: finals.append(u.result) if u.kind == "finished" and u.result else None
    )
    people = users(4 if game == "bauern" else 3)
    players = [bot.player(u) for u in people]
    tid = await open_table(bot, game, players)
    await play_out(bot.fc, tid, players)
    [final] = finals
    assert final.table is not None
    on_table = [ln for ln in final.table.message.text.splitlines() if ln.startswith("Bummerl:")]
    in_summary = [ln for ln in final.message.text.splitlines() if ln.startswith("Bummerl:")]
    assert on_table and on_table == in_summary, (final.table.message.text, final.message.text)
    if game == "bauern":
        assert " & " in on_table[0]


@pytest.mark.parametrize("close_first", [False, True], ids=["open", "closed-talon"])
async def test_a_wrong_claim_names_the_claimer(bot: Bot, close_first: bool) -> None:
    """Zweier with manual claims: "+3 (wrong claim)" beside the other player's name
    does not say who claimed; the result names him.  A talon closed before the claim
    did not decide the deal, so the result does not explain it by the closing."""
    players = [Player(bot.fc, u) for u in users(2)]
    tid = await open_table(bot, "zweier", players, options={"auto_claim": False})
    table = bot.svc.tables[tid]
    by_seat = {table.seat_of(p.key): p for p in players}
    results: list[ResultView] = []
    bot.fc.on_update.append(
        lambda u: results.append(u.result) if u.kind == "deal_end" and u.result else None
    )

    async def move(action: Action) -> str:
        seat = table.to_act()
        assert seat is not None and table.deal is not None
        code = encode(action, table.deal.contracts)
        out = await bot.svc.act(by_seat[seat].user, game_action(tid, table.version, code))
        assert out.ok, out
        return by_seat[seat].user.name

    if close_first:
        await move(CloseTalon())
    claimer = await move(Claim())  # at the first lead: no trick, no points
    await asyncio.sleep(0)
    [result] = results
    text = result.message.text
    assert "(wrong claim)" in text
    assert f"{claimer} claimed 66 without having it" in text, text
    assert "closed the talon" not in text, text


@pytest.mark.parametrize(
    ("caller_first", "carinthian", "hint"),
    [
        (True, False, "you play the normal game and take the talon."),
        (True, True, "you play the normal game (the talon stays aside)."),  # no talon there
        (False, False, None),
    ],
)
async def test_caller_first_says_what_forehand_s_pass_means(
    bot: Bot, caller_first: bool, carinthian: bool, hint: str | None
) -> None:
    """`dreier.caller_first`: forehand announces or passes first, and his "Pass" keeps
    the normal game if nobody bids after him (docs/rules/dreier.md): a button that
    reads as dropping out says so in his hand, and only in his, and only before he
    spoke: the others' "Pass" after his drops out.  Without the option his "Pass" is
    no such thing, and nobody is told so."""
    players = [Player(bot.fc, u) for u in users(3)]
    options = {"dreier.caller_first": caller_first, "dreier.carinthian": carinthian}
    tid = await open_table(bot, "dreier", players, options=options)
    table = bot.svc.tables[tid]
    assert table.deal is not None
    while table.deal.view(None).phase != "bidding":  # forehand names trumps first
        seat = table.to_act()
        assert seat is not None
        code = table.deal.legal()[0]
        user = next(p.user for p in players if table.seat_of(p.key) == seat)
        assert (await bot.svc.act(user, game_action(tid, table.version, code))).ok
    start = "Announce a contract now, or pass: "

    def hinted() -> list[int | None]:
        """The seats whose hand gives forehand's hint, and check its words."""
        seats = []
        for p in players:
            hand = bot.svc.hand(tid, p.key, "en")
            assert hand is not None
            lines = [x for x in hand.message.text.splitlines() if x.startswith(start)]
            if lines:
                assert lines == [start + "if nobody bids after you, " + str(hint)], lines
                seats.append(table.seat_of(p.key))
        return seats

    forehand = table.to_act()
    assert hinted() == ([forehand] if caller_first else [])
    user = next(p.user for p in players if table.seat_of(p.key) == forehand)
    code = encode(Pass(), table.deal.contracts)  # without the option he must bid
    code = code if code in table.deal.legal() else table.deal.legal()[0]
    assert (await bot.svc.act(user, game_action(tid, table.version, code))).ok
    assert table.to_act() not in (None, forehand)
    assert hinted() == []


async def test_a_lobby_names_the_computers_level_in_its_language(bot: Bot) -> None:
    """German lobbies read "spielt stark", not the id an admin types ("strong")."""
    a = bot.player(users(1)[0])
    tid = (await bot.svc.create_table(CHAT, a.user, "zweier")).table_id
    assert tid is not None
    assert (await a.press(button(bot.fc.lobbies[tid].message, "ai"))).ok
    de, en = bot.svc.lobby(tid, "de"), bot.svc.lobby(tid, "en")
    assert de is not None and en is not None
    level = bot.svc.tables[tid].seats[1].ai  # type: ignore[union-attr]
    german = {"random": "zufällig", "heuristic": "regelbasiert", "strong": "stark"}[str(level)]
    assert f"(Computer, spielt {german})" in de.message.text, de.message.text
    assert f"(computer, level {level})" in en.message.text, en.message.text


async def test_an_onlooker_is_sent_to_join_only_where_join_would_seat_him(bot: Bot) -> None:
    a, b = (bot.player(u) for u in users(2))
    tid = (await bot.svc.create_table(CHAT, a.user, "dreier")).table_id
    assert tid is not None
    assert (await a.press(button(bot.fc.lobbies[tid].message, "ai"))).ok
    refused = await b.press(button(bot.fc.lobbies[tid].message, "ai"))
    assert refused.code == "lobby_players_only" and "press “Join”" in (refused.text or "")
    # a German reader of an English lobby is told the button as the lobby labels it
    german = await bot.svc.act(
        dataclasses.replace(b.user, lang="de"),
        button(bot.fc.lobbies[tid].message, "ai").payload,
        CHAT,
    )
    assert "drück zuerst „Join“" in (german.text or ""), german
    assert (await b.press(button(bot.fc.lobbies[tid].message, "j"))).ok  # and it does


async def test_a_lobbys_remove_buttons_follow_the_seats(bot: Bot) -> None:
    """One row of "Remove" buttons in seat order (the computers' row came first)."""
    a, b = (bot.player(u) for u in users(2))
    tid = (await bot.svc.create_table(CHAT, a.user, "dreier")).table_id
    assert tid is not None
    assert (await b.press(button(bot.fc.lobbies[tid].message, "j"))).ok
    assert (await a.press(button(bot.fc.lobbies[tid].message, "ai"))).ok
    rows = [
        [x.label for x in row if x.label.startswith("Remove")]
        for row in bot.fc.lobbies[tid].message.buttons
    ]
    assert [r for r in rows if r] == [["Remove Bert", "Remove Computer 1"]], rows
