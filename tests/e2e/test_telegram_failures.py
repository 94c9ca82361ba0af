"""Telegram failing the bot in the middle of a match, end to end.

Real python-telegram-bot against the fake Bot API: the group removes the bot or takes
its right to post, a player blocks it, someone deletes the bot's messages, Telegram is
out of reach for a while.  What matters is what the players see, what is recorded, and
that the bot neither retries in a loop nor fills its log.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from telegram.ext._utils import networkloop

from adapters.telegram.refs import PLATFORM
from bot.app import App
from bot.app import run as run_app
from bot.payload import decode as decode_payload
from bot.ports import ChatRef, Outcome, UserRef
from bot.views import started_lobby_text
from engine.__main__ import verify_text
from tests.bot.fakechat import until_idle, waits_at
from tests.bot.test_store_failures import _fail_once
from tests.e2e.clocks import remind, run_out
from tests.e2e.fakes.telegram.chats import FakeChat
from tests.e2e.fakes.telegram.errors import CHAT_NOT_FOUND, CHAT_RESTRICTED, CHAT_WRITE_FORBIDDEN
from tests.e2e.fakes.telegram.messages import FakeMessage
from tests.e2e.fakes.telegram.protocol import BOT_USERNAME
from tests.e2e.fakes.telegram.ptb import LogErrorGuard
from tests.e2e.fakes.telegram.server import FakeTelegram
from tests.e2e.fakes.telegram.users import FakeUser
from tests.e2e.telegram_harness import (
    Players,
    Rig,
    config_for,
    confirmed,
    deal_over,
    fake,
    hand_message,
    log_guard,
    make_players,
    open_table,
    play,
    press,
    start_rig,
    started_match,
    stop_rig,
    timings,
    warned,
)

__all__ = ["fake", "log_guard"]

BOT = BOT_USERNAME
CARD = re.compile(r"(?:10|A|K|Q|J|D|B|9)[♥♦♣♠]")


def table_messages(chat: FakeChat, table_id: str) -> list[FakeMessage]:
    """The chat's table messages of one table (one per deal)."""
    return [m for m in chat.bot_messages() if m.text.split("\n")[0].endswith(f"— {table_id}")]


def to_group(fake: FakeTelegram, group: FakeChat, since: int) -> list[tuple[str, int]]:
    """Requests to the group since call `since`: method and status."""
    return [(c.method, c.status) for c in fake.calls[since:] if c.params.get("chat_id") == group.id]


async def status_and_records(rig: Rig, table_id: str) -> tuple[str, int, int]:
    """The stored status of a table, and its rows in games and results."""
    [(status,)] = await rig.store.fetchall("SELECT status FROM tables WHERE id = ?", (table_id,))
    games = await rig.store.fetchall("SELECT 1 FROM games WHERE table_id = ?", (table_id,))
    results = await rig.store.fetchall("SELECT 1 FROM results WHERE table_id = ?", (table_id,))
    return str(status), len(games), len(results)


async def closed_for_the_group(rig: Rig, table_id: str, users: list[FakeUser]) -> None:
    """The table closed as an abort closes it, the players told privately, their hands
    without buttons, nothing recorded."""
    fake = rig.fake
    await fake.wait_for(lambda: rig.table(table_id) is None, what="the table to close")
    assert await rig.adapter.outbox.drain(5)
    assert rig.witness.kinds[-1] == "aborted"
    status, games, results = await status_and_records(rig, table_id)
    # no result; a record only of the deals scored before (RULES.md §6: checkable)
    assert (status, results) == ("aborted", 0) and games <= 1
    if games:
        record = await rig.store.game_record(table_id)
        assert record is not None and verify_text(json.dumps(record))[0] == 0
    for user in users:
        note = user.private_chat.bot_messages()[-1]
        assert note.text.startswith(f"Table {table_id} was closed: I can no longer post in")
        hands = [m for m in user.private_chat.bot_messages() if m.text.startswith("Your hand")]
        assert hands and not any(m.buttons() for m in hands)


async def back_in_the_group(rig: Rig, group: FakeChat, host: FakeUser) -> None:
    """A new table can be opened: the group is written to again."""
    last = group.latest()
    host.send(group, "/new zweier")
    await rig.fake.wait_for_message(group, after=last, contains=f"Host: {host.first_name}")


# ------------------------------------------------------------ the group drops the bot


@pytest.mark.parametrize("told", [True, False], ids=["my_chat_member", "only_403"])
async def test_a_group_that_removes_the_bot_mid_match_loses_its_table(
    fake: FakeTelegram, tmp_path: Path, caplog: pytest.LogCaptureFixture, told: bool
) -> None:
    """Kicked mid-match, the bot closes the table as an abort does (nothing scored),
    says so privately to the players, tries nothing more in the group and logs it
    once.  Left open, the computer would play the absent players' turns to the end
    and score a match nobody saw.  Added back, the bot serves the group again."""
    caplog.set_level(logging.INFO)
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players, table_id = await started_match(rig, fake, presses=2)
        anna, _ = players.users
        group = players.group
        assert await rig.adapter.outbox.drain(5)
        since = len(fake.calls)

        fake.set_bot_status(group, "kicked", by=anna, announce=told)
        if not told:  # the bot was down meanwhile: the next move's edit meets the 403
            await play(rig, table_id, players.users, until=lambda: False, limit=1)
        await closed_for_the_group(rig, table_id, players.users)

        sent = to_group(fake, group, since)
        assert sent == ([] if told else [("editMessageText", 403)])  # no retry, no storm
        assert [m for m in warned(caplog) if table_id in m] == warned(caplog)
        assert len(warned(caplog)) == 1 and str(group.id) in warned(caplog)[0]
        assert not [r for r in caplog.records if CARD.search(r.getMessage())]

        fake.set_bot_status(group, "member", by=anna, announce=told)
        await back_in_the_group(rig, group, anna)
    finally:
        await stop_rig(rig)


async def test_a_group_that_says_twice_it_removed_the_bot_is_closed_and_logged_once(
    fake: FakeTelegram, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Kicked while the table's edit was on its way: Telegram says so twice, by the
    update and by refusing that edit (403).  The table closes once, the players are
    told once, and the log has one line about it, not one per way of saying it."""
    caplog.set_level(logging.INFO)
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players, table_id = await started_match(rig, fake, presses=2)
        anna, _ = players.users
        group = players.group
        assert await rig.adapter.outbox.drain(5)
        on_its_way = fake.hold("editMessageText", chat=group)
        since = len(fake.calls)
        await play(rig, table_id, players.users, until=lambda: False, limit=1)
        await on_its_way.wait_held()
        fake.set_bot_status(group, "kicked", by=anna)
        await fake.wait_for(lambda: rig.table(table_id) is None, what="the table to close")
        on_its_way.release()
        await fake.wait_for(
            lambda: ("editMessageText", 403) in to_group(fake, group, since), what="the 403"
        )
        await closed_for_the_group(rig, table_id, players.users)
        await until_idle(lambda: bool(rig.adapter._background), lambda: "a close still running")
        assert len(warned(caplog)) == 1 and table_id in warned(caplog)[0], warned(caplog)
        for user in players.users:
            notes = [m for m in user.private_chat.bot_messages() if "was closed:" in m.text]
            assert len(notes) == 1, [m.text for m in notes]
    finally:
        await stop_rig(rig)


async def test_a_group_whose_tables_the_store_would_not_close_is_tried_again(
    fake: FakeTelegram,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    log_guard: LogErrorGuard,
) -> None:
    """Kicked mid-match while the database is locked, the bot cannot close the table
    and says so in the log; the next message for the group is the next try: the
    move's edit is refused (403), and this time the table closes as an abort does,
    the players told privately.  Added back, the bot serves the group again: the
    group is not left shut out for good by a close that failed."""
    caplog.set_level(logging.INFO)
    log_guard.allow("database is locked")
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players, table_id = await started_match(rig, fake, presses=2)
        anna, _ = players.users
        group = players.group
        assert await rig.adapter.outbox.drain(5)
        _fail_once(monkeypatch, rig.store, "append")  # the close's write
        fake.set_bot_status(group, "kicked", by=anna)
        await fake.wait_for(
            lambda: any("could not close the tables" in m for m in warned(caplog)),
            what="the close that failed",
        )
        assert rig.table(table_id) is not None
        since = len(fake.calls)

        await play(rig, table_id, players.users, until=lambda: False, limit=1)
        await closed_for_the_group(rig, table_id, players.users)
        assert to_group(fake, group, since) == [("editMessageText", 403)]

        fake.set_bot_status(group, "member", by=anna)
        await back_in_the_group(rig, group, anna)
    finally:
        await stop_rig(rig)


async def test_a_lobby_being_opened_as_the_group_removes_the_bot_closes_unseen(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """Anna types /new as the group removes the bot: the lobby, being stored at that
    moment, closes with the group's tables (she is told privately, nothing more is
    sent to the group) instead of waiting there for players until it expires."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players = make_players(fake, ["Anna", "Berti"])
        anna, berti = players.users
        group = players.group
        store = rig.service.store
        real, stored, reached = store.create_table, asyncio.Event(), asyncio.Event()

        async def held(*args: Any, **kwargs: Any) -> str:
            reached.set()
            await stored.wait()
            return await real(*args, **kwargs)

        store.create_table = held  # type: ignore[method-assign]
        anna.send(group, "/new zweier")
        await asyncio.wait_for(reached.wait(), 10)
        since = len(fake.calls)
        fake.set_bot_status(group, "kicked", by=berti)
        # the group's tables are closed, or their close waits for the lobby
        await until_idle(
            lambda: (
                group.id not in rig.adapter.lost
                or any(
                    "_close_" in (at := waits_at(w)) and "acquire:" not in at
                    for w in rig.service._work
                )
            ),
            lambda: " | ".join(waits_at(w) for w in rig.service._work),
        )
        stored.set()
        await fake.wait_for(
            lambda: any("was closed" in m.text for m in anna.private_chat.bot_messages()),
            what="Anna told her lobby closed",
        )
        note = anna.private_chat.bot_messages()[-1].text
        assert note.startswith("Table ") and "I can no longer post in" in note
        table_id = note.split()[1]
        assert rig.table(table_id) is None and not rig.service.tables
        assert (await status_and_records(rig, table_id)) == ("aborted", 0, 0)
        assert await rig.adapter.outbox.drain(5)
        assert to_group(fake, group, since) == []  # nothing posted where nobody is
    finally:
        await stop_rig(rig)


@pytest.mark.parametrize(
    "how",
    [
        "group_permissions",
        "bot_restricted",
        # the same refusal in Telegram's other words
        CHAT_WRITE_FORBIDDEN,
        CHAT_RESTRICTED,
        CHAT_NOT_FOUND,
    ],
    ids=[
        "group_permissions",
        "bot_restricted",
        "write_forbidden",
        "restricted",
        "chat_not_found",
    ],
)
async def test_a_group_that_takes_the_right_to_post_loses_its_table(
    fake: FakeTelegram, tmp_path: Path, caplog: pytest.LogCaptureFixture, how: str
) -> None:
    """A 400 "not enough rights to send text messages" ends the table like a removal: one
    refused request (or none, when Telegram says so first), not one per move while
    the match runs on where nobody sees it.  So do the 400s that say the same in other
    words ("CHAT_WRITE_FORBIDDEN", ...).  (A closed forum topic closes that topic's
    tables only: test_telegram_topics.py.)"""
    worded = how not in ("group_permissions", "bot_restricted")
    caplog.set_level(logging.INFO)
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players, table_id = await started_match(rig, fake)
        anna, _ = players.users
        group = players.group
        assert await rig.adapter.outbox.drain(5)
        since = len(fake.calls)

        if how == "group_permissions":  # no update tells the bot: it meets the 400
            group.members_may_send = False
            await play(rig, table_id, players.users, until=deal_over(rig, table_id))
        elif worded:
            group.refuses_with = how
            await play(rig, table_id, players.users, until=lambda: False, limit=1)
        else:
            fake.set_bot_status(group, "restricted", by=anna, may_send=False)
        await closed_for_the_group(rig, table_id, players.users)

        refused = [s for _, s in to_group(fake, group, since) if s != 200]
        assert refused == ([] if how == "bot_restricted" else [400])
        assert len(warned(caplog)) == 1 and table_id in warned(caplog)[0]

        if how == "group_permissions":
            group.members_may_send = True  # the admin gives it back: no update either
        elif worded:
            group.refuses_with = None  # likewise
        else:
            fake.set_bot_status(group, "member", by=anna)
        await back_in_the_group(rig, group, anna)
    finally:
        await stop_rig(rig)


# ------------------------------------------------------------ a player blocks the bot


async def test_a_player_who_blocks_the_bot_is_asked_back_and_plays_on(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """The group is told (once) how to let the bot write again, his turn times out to
    the computer as anyone's, and after Start he has his hand back and plays on."""
    # 30 s turns: his reminder goes and his turn runs out when the test says so (the
    # timers' own callbacks, fired early); 1.5 s turns raced the other's presses and
    # his own press once he was back
    quick = timings(turn_timeout=30.0, reminder_before=10.0)
    rig = await start_rig(fake, tmp_path / "bot.sqlite3", timing=quick)
    try:
        players, table_id = await started_match(rig, fake)
        group = players.group
        table = rig.table(table_id)
        assert table is not None and table.to_act() is not None
        seat = table.to_act()
        blocker = players.users[seat or 0]
        other = players.users[1 - (seat or 0)]
        await fake.wait_for(lambda: hand_message(blocker, table_id), what="his hand")

        blocker.block_bot()
        assert remind(rig.service, table_id)  # its DM is refused
        link = f"https://t.me/{BOT}?start={table_id}"
        note = await fake.wait_for_message(group, contains=link)
        assert note.text.startswith(f"{blocker.first_name}, I cannot send you your cards")
        # known not to be reached now: a reminder of his turn is said in the group
        assert remind(rig.service, table_id)
        await fake.wait_for_message(group, contains=f"{blocker.first_name}, it is your turn")
        # his turn runs out (fired again if the table changed meanwhile: a timer fired
        # at an older version is dropped, as a real one is)
        end = asyncio.get_running_loop().time() + 10
        while run_out(rig.service, table_id, f"tg:{blocker.id}"):
            assert asyncio.get_running_loop().time() < end, "his turn did not time out"
            await asyncio.sleep(0.1)
        log = await rig.store.table_log(table_id)
        assert any(e.get("by") == "t" and e.get("seat") == seat for e in log)
        refused = [c for c in fake.calls if c.status == 403]
        assert len(refused) <= 1  # no retries: nothing more is tried until he is back

        welcome = blocker.start_bot(payload=table_id)
        await fake.wait_for_message(blocker.private_chat, after=welcome, contains="Your hand")

        def his_turn() -> bool:
            tb = rig.table(table_id)
            return tb is not None and tb.to_act() == seat

        await play(rig, table_id, [other], until=his_turn)
        hand = await fake.wait_for(
            lambda: (
                m
                if (m := hand_message(blocker, table_id))
                and m.message_id > welcome.message_id
                and any(decode_payload(b.data).version == table.version for b in m.buttons())
                else None
            ),
            what="his hand with buttons",
        )
        version = table.version
        answer = await press(fake, blocker, hand, hand.buttons()[0].data)
        assert not answer.show_alert, answer.text
        await fake.wait_for(lambda: table.version > version, what="his move")
        log = await rig.store.table_log(table_id)
        assert [e.get("by") for e in log if e["k"] == "act"][-1:] == ["p"]  # his, no timeout
        assert [m.text for m in group.bot_messages()].count(note.text) == 1
    finally:
        await stop_rig(rig)


# ------------------------------------------------------------ answers out of shape


@pytest.mark.parametrize(
    ("method", "result"),
    [("sendMessage", "oops"), ("editMessageText", ["oops"])],
    ids=["post_answered_oops", "edit_answered_a_list"],
)
async def test_a_message_whose_answer_holds_a_result_of_the_wrong_type_arrived_and_play_goes_on(
    fake: FakeTelegram,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    method: str,
    result: object,
) -> None:
    """Telegram carries out a post (the table, a hand) or an edit (the lobby's last
    words) at the match's start, but a gateway on the way answers with a ``result``
    of the wrong type, which python-telegram-bot cannot read (no `TelegramError`):
    the message is there, nobody reads "please try again", the players play on
    with the newest table and hands in front of them (a post whose message id the
    bot never learnt comes anew), and the log has one warning naming the request,
    no traceback, no card."""
    caplog.set_level(logging.INFO)
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players = make_players(fake, ["Anna", "Berti"])
        group = players.group
        table_id, lobby = await open_table(rig, players, "/new zweier")
        since = len(fake.calls)
        fake.answer_with_wrong_result_next(method, result)
        assert not (await press(fake, players.users[0], lobby, "Start")).show_alert
        await play(rig, table_id, players.users, until=lambda: False, limit=2)
        assert await rig.adapter.outbox.drain(5)

        spoiled = next(c for c in fake.calls[since:] if c.method == method)
        assert spoiled.status == 200  # carried out, whatever the answer said
        chats = [group, *(u.private_chat for u in players.users)]
        assert not [m.text for c in chats for m in c.bot_messages() if "try again" in m.text]
        view = rig.service.table(table_id)
        assert view is not None and table_messages(group, table_id)[-1].text == view.message.text
        assert "has already started" in lobby.text and not lobby.buttons(), lobby.text
        rig.witness.check_group(table_id, group)
        await play(rig, table_id, players.users, until=lambda: False, limit=1)

        said = warned(caplog)
        assert len(said) == 1 and "not in the Bot API's shape" in said[0], said
        assert method in said[0] and "chat " in said[0], said
        assert not [r for r in caplog.records if r.exc_info or CARD.search(r.getMessage())]
    finally:
        await stop_rig(rig)


def unreadable_answer_next(fake: FakeTelegram, log_guard: LogErrorGuard, spoil: str) -> None:
    """The next ``sendMessage`` is carried out, but its answer cannot be read: cut short
    (PTB logs that at ERROR, allowed here) or holding a result of the wrong type.
    Either way the bot never learns the message's id."""
    if spoil == "garbled":
        log_guard.allow("Can not load invalid JSON data")
        fake.garble_answer_next("sendMessage")
    else:
        fake.answer_with_wrong_result_next("sendMessage", "oops")


STALE = "That button is out of date — use the newest message."
CLOSED = "That table is closed."


@pytest.mark.parametrize("spoil", ["garbled", "wrong_result"])
async def test_buttons_left_on_a_table_and_a_hand_posted_again_after_an_unreadable_answer(
    fake: FakeTelegram, tmp_path: Path, log_guard: LogErrorGuard, spoil: str
) -> None:
    """Telegram posts the group's table message and the first player's hand at the
    start, but its answers cannot be read: the bot never learns their ids, so their
    next change posts each anew, and the first copies keep their buttons (no request
    can reach a message whose id nobody knows).  A move pressed on the old hand while
    it is current counts, once: pressed again there it is out of date, and so says
    the answer.  The old table's "Show my hand" shows his current hand, as the new
    one's would; once the table is closed, both old copies say it is closed, and
    nothing more is played."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        everyone = make_players(fake, ["Cilli", "Anna", "Berti"])
        cilli, *seated = everyone.users  # Cilli, the group's creator, does not play
        group = everyone.group
        players = Players(group, seated)
        table_id, lobby = await open_table(rig, players, "/new zweier")
        held = {u.id: fake.hold("sendMessage", chat=u.private_chat) for u in seated}
        unreadable_answer_next(fake, log_guard, spoil)  # the table's post: the one not held
        assert not (await press(fake, seated[0], lobby, "Start")).show_alert
        old_table = await fake.wait_for(
            lambda: next(iter(table_messages(group, table_id)), None), what="the table"
        )
        table = rig.table(table_id)
        assert table is not None
        actor = players.users[table.to_act() or 0]
        other = next(u for u in players.users if u is not actor)
        unreadable_answer_next(fake, log_guard, spoil)  # his hand's post, first in his chat
        held[actor.id].release()
        old_hand = await fake.wait_for(lambda: hand_message(actor, table_id), what="his hand")
        held[other.id].release()
        assert await rig.adapter.outbox.drain(5)

        # "Show my hand" asks Telegram to show it: posted anew, the old copy as it was
        answer = await press(fake, actor, old_table, "Show my hand")
        assert (answer.text, answer.show_alert) == ("Your hand is in our private chat.", False)
        new_hand = await fake.wait_for(
            lambda: m if (m := hand_message(actor, table_id)) is not old_hand else None,
            what="his hand posted anew",
        )
        assert new_hand.keyboard() == old_hand.keyboard()  # both current: either counts
        version = table.version
        move = next(b.data for b in old_hand.buttons() if decode_payload(b.data).verb == "a")
        assert not (await press(fake, actor, old_hand, move)).show_alert
        await fake.wait_for(lambda: table.version > version, what="his move")
        assert await rig.adapter.outbox.drain(5)
        answer = await press(fake, actor, old_hand, move)  # the old copy, pressed again
        assert (answer.text, answer.show_alert) == (STALE, True)
        assert table.version == version + 1
        log = await rig.store.table_log(table_id)
        assert len([e for e in log if e["k"] == "act"]) == 1  # played once

        # the move posted the table anew; the first copy kept the start and its buttons
        new_table = table_messages(group, table_id)[-1]
        view = rig.service.table(table_id)
        assert view is not None and new_table is not old_table
        assert new_table.text == view.message.text != old_table.text
        assert [b.text for b in old_table.buttons()] == [b.text for b in new_table.buttons()]
        answer = await press(fake, other, old_table, "Show my hand")
        assert (answer.text, answer.show_alert) == ("Your hand is in our private chat.", False)
        assert table.version == version + 1

        cilli.send(group, "/abort")
        await fake.wait_for_message(group, contains="an admin closed it", after=new_table)
        assert await rig.adapter.outbox.drain(5)
        assert new_table.buttons() == [] and new_hand.buttons() == []
        for user, message, button in (
            (actor, old_hand, move),
            (other, old_table, "Show my hand"),
        ):
            answer = await press(fake, user, message, button)
            assert (answer.text, answer.show_alert) == (CLOSED, True)
        assert len([e for e in await rig.store.table_log(table_id) if e["k"] == "act"]) == 1
        rig.witness.check_group(table_id, group)
    finally:
        await stop_rig(rig)


async def test_buttons_left_on_a_lobby_posted_again_after_an_unreadable_answer(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """Telegram posts Anna's lobby but its answer cannot be read: Berti's Join there
    seats him and posts the lobby anew, the first copy keeping Anna alone and its
    buttons.  Her Start there starts the match (the table is full, whichever copy she
    reads it in); after that its buttons only say the game has started, and once
    the table is closed, that it is closed: nobody is seated or started twice."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        anna, berti, cilli = (fake.create_user(n, started=True) for n in ("Anna", "Berti", "Cilli"))
        group = fake.create_group("Schnapsen", members=[anna, berti, cilli], creator=cilli)
        greeting = fake.hold("sendMessage", chat=anna.private_chat)
        fake.answer_with_wrong_result_next("sendMessage", "oops")  # the lobby's post
        anna.send(group, "/new zweier")
        old = await fake.wait_for_message(group, contains="Host: Anna")
        greeting.release()
        table_id = decode_payload(old.buttons()[0].data).table
        assert [c.status for c in fake.calls_to("sendMessage")] == [200]  # that post

        answer = await press(fake, berti, old, "Join")
        assert not answer.show_alert, answer.text
        new = await fake.wait_for(
            lambda: next((m for m in group.bot_messages() if "Berti" in m.text), None),
            what="the lobby posted anew",
        )
        assert new is not old and "Berti" not in old.text
        assert "Start" in [b.text for b in old.buttons()]
        assert not (await press(fake, anna, old, "Start")).show_alert
        for user in (anna, berti):
            await fake.wait_for_message(user.private_chat, contains=f"hand at table {table_id}")
        assert await rig.adapter.outbox.drain(5)
        table = rig.table(table_id)
        assert table is not None and table.deals
        version = table.version
        assert "has already started" in new.text and new.buttons() == []
        assert "Start" in [b.text for b in old.buttons()]  # no id to take them off with
        for user, button in ((cilli, "Join"), (anna, "Start")):
            answer = await press(fake, user, old, button)
            assert (answer.text, answer.show_alert) == ("The game has already started.", True)
        assert table.version == version and table.seat_of(f"{PLATFORM}:{cilli.id}") is None

        cilli.send(group, "/abort")  # the group's creator
        await fake.wait_for_message(group, contains="an admin closed it", after=new)
        answer = await press(fake, cilli, old, "Join")
        assert (answer.text, answer.show_alert) == (CLOSED, True)
        assert not rig.service.tables_in(f"{PLATFORM}:{group.id}")
    finally:
        await stop_rig(rig)


@pytest.mark.parametrize("end", ["deal_over", "resigned"])
@pytest.mark.parametrize("restarted", [False, True], ids=["same_run", "after_a_kill"])
async def test_a_lobby_whose_start_edit_failed_loses_its_buttons_by_the_match_s_end(
    fake: FakeTelegram, tmp_path: Path, restarted: bool, end: str
) -> None:
    """The lobby's last edit at Anna's Start is refused (a kill at that moment leaves
    it so too: the restarted bot redraws the table and the hands, not a lobby whose
    text it never drew), so the lobby still offers Join and Start, which say only
    that the game has started.  The next deal's start shows its last words without
    buttons; a match that ends before that, Berti resigning in the first deal, takes
    its buttons off at its end, as an abort does: a lobby that offers Start after the
    match would say nothing true.  (A restarted bot that never knew its last words
    keeps the text it shows.)  The table messages end without buttons either way."""
    db = tmp_path / "bot.sqlite3"
    rig = await start_rig(fake, db)
    try:
        players = make_players(fake, ["Anna", "Berti"])
        anna, berti = players.users
        group = players.group
        table_id, lobby = await open_table(rig, players, "/new zweier")
        offered = lobby.text
        fake.fail_next("editMessageText", error_code=400, description="Bad Request: odd")
        assert not (await press(fake, anna, lobby, "Start")).show_alert
        assert await rig.adapter.outbox.drain(5)
        if restarted:
            await stop_rig(rig)
            rig = await start_rig(fake, db)
            assert await rig.adapter.outbox.drain(5)
        assert lobby.text == offered and "Start" in [b.text for b in lobby.buttons()]
        for user, button in ((berti, "Join"), (anna, "Start")):
            answer = await press(fake, user, lobby, button)
            assert (answer.text, answer.show_alert) == ("The game has already started.", True)

        view = rig.service.lobby(table_id)
        assert view is not None  # its last words, as a lobby that never failed shows them
        last_words = started_lobby_text(view.message.text, "en", rig.service.timings.lobby_expiry)
        assert "has already started" in last_words, last_words
        if end == "deal_over":
            await play(rig, table_id, players.users, until=deal_over(rig, table_id))
        else:
            await confirmed(fake, berti, group, "/resign")
            await fake.wait_for(lambda: rig.table(table_id) is None, what="the match's end")
        assert await rig.adapter.outbox.drain(5)
        assert lobby.buttons() == [], lobby.keyboard()
        assert lobby.text == (offered if restarted and end == "resigned" else last_words)
        if end == "resigned":
            assert all(m.buttons() == [] for m in table_messages(group, table_id))
    finally:
        await stop_rig(rig)


# ------------------------------------------------------------ messages deleted


async def test_deleted_table_and_hand_messages_are_posted_again(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """A group admin deletes the table message, a player his hand message: each comes
    back as a new message (the store points at it, for a restart), "Show my hand"
    brings a deleted hand back at once, and the game goes on."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players, table_id = await started_match(rig, fake, presses=1)
        anna, _ = players.users
        group = players.group
        assert await rig.adapter.outbox.drain(5)
        table = rig.table(table_id)
        assert table is not None

        [first] = table_messages(group, table_id)
        anna.delete(first)  # the group's creator cleans up
        await play(rig, table_id, players.users, until=lambda: False, limit=1)
        view = rig.service.table(table_id)
        assert view is not None
        again = await fake.wait_for(
            lambda: next((m for m in table_messages(group, table_id) if m is not first), None),
            what="the table message posted again",
        )
        await fake.wait_for(lambda: again.text == view.message.text, what="the current table")
        assert await rig.adapter.outbox.drain(5)  # the hands' edits too, not only the table's

        actor = players.users[table.to_act() or 0]
        gone = hand_message(actor, table_id)
        assert gone is not None and gone.buttons()
        actor.delete(gone)
        answer = await press(fake, actor, again, "Show my hand")
        assert answer.text == "Your hand is in our private chat." and not answer.show_alert
        hand = await fake.wait_for(
            lambda: m if (m := hand_message(actor, table_id)) is not gone else None,
            what="a new hand",
        )
        assert hand.buttons() and hand.text == gone.text
        version = table.version
        answer = await press(fake, actor, hand, hand.buttons()[0].data)
        assert not answer.show_alert, answer.text
        await fake.wait_for(lambda: table.version > version, what="the move")

        assert await rig.adapter.outbox.drain(5)
        refs = await rig.store.message_refs(table_id)
        assert refs["table"] == f"{group.id}/{again.message_id}"
        assert refs[f"hand:tg:{actor.id}"] == f"{actor.id}/{hand.message_id}"
        await play(rig, table_id, players.users, until=lambda: rig.table(table_id) is None)
        assert await rig.adapter.outbox.drain(5)
        assert "Game over!" in group.bot_messages()[-1].text
        rig.witness.check_group(table_id, group)
    finally:
        await stop_rig(rig)


# ------------------------------------------------------------ Telegram out of reach


async def test_presses_made_while_telegram_is_out_of_reach_count_once(
    fake: FakeTelegram, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Presses wait at Telegram during the outage and arrive after it: a double press
    moves once, an update delivered again is dropped.  The failed polls are one
    warning line each, not an ERROR with a traceback."""
    caplog.set_level(logging.INFO)
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players, table_id = await started_match(rig, fake)
        table = rig.table(table_id)
        assert table is not None
        actor = players.users[table.to_act() or 0]
        hand = await fake.wait_for(
            lambda: m if (m := hand_message(actor, table_id)) and m.buttons() else None,
            what="buttons",
        )
        assert await rig.adapter.outbox.drain(5)
        version = table.version

        await fake.go_offline()
        card = hand.buttons()[0].data
        first, second = actor.press(hand, card), actor.press(hand, card)
        await asyncio.sleep(1.0)  # the outage: the bot's polls fail meanwhile
        assert table.version == version
        await fake.come_back()

        answers = await asyncio.gather(
            fake.wait_answer(first, timeout=10), fake.wait_answer(second, timeout=10)
        )
        assert sorted(a.show_alert for a in answers) == [False, True]
        await fake.wait_for(lambda: table.version > version, what="the move")
        fake.replay(first.update_id)  # its getUpdates answer was lost: sent again
        await play(rig, table_id, players.users, until=lambda: False, limit=1)
        assert first.refused_answers == 0  # the repeat never reached a handler
        polls = [m for m in warned(caplog) if m.startswith("cannot fetch updates")]
        assert polls and len(polls) == len(warned(caplog))
    finally:
        await stop_rig(rig)


async def test_what_happens_while_telegram_is_out_of_reach_arrives_in_order(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """The computer plays its moves while Telegram cannot be reached, up to Anna's
    turn, whose clock then waits: when Telegram answers again, the group's table shows
    every move made meanwhile, in order, none dropped, and Anna's press counts.  A
    request that could not connect uses up none of the outbox's attempts (two here,
    so the outage outlasts them).  (A table everybody walked away from closes, so no
    longer does the computer play a whole match out for nobody.)"""
    gate = asyncio.Event()
    gate.set()

    async def held_ai(choose: Callable[[], int]) -> int:
        await gate.wait()  # closed: the computer thinks until the outage
        return choose()

    quick = timings(turn_timeout=30, reminder_before=0, missed_turns_limit=3)
    rig = await start_rig(fake, tmp_path / "bot.sqlite3", timing=quick, ai_runner=held_ai)
    try:
        rig.adapter.outbox.max_attempts = 2
        players = make_players(fake, ["Anna"])
        anna = players.users[0]
        group = players.group
        table_id, lobby = await open_table(rig, players, "/new zweier")
        revisions = len(lobby.revisions)
        assert not (await press(fake, anna, lobby, "Add computer")).show_alert
        await fake.wait_for_edit(lobby, revisions=revisions)
        gate.clear()
        assert not (await press(fake, anna, lobby, "Start")).show_alert
        table = rig.table(table_id)
        assert table is not None
        seat = table.seat_of(f"tg:{anna.id}")

        def computer_to_act() -> bool:
            return table.to_act() not in (None, seat)

        # Anna plays until the computer is to move (it thinks until the outage)
        await play(rig, table_id, [anna], until=computer_to_act)
        await fake.wait_for(lambda: table_messages(group, table_id), what="the table")
        assert await rig.adapter.outbox.drain(5)
        shown = table.version

        await fake.go_offline()
        gate.set()  # the computer moves while Telegram cannot be reached
        await fake.wait_for(lambda: table.version > shown and not computer_to_act(), what="moves")
        # the move is stored before it is told: wait until it is (the witness hears it
        # just before the adapter)
        await fake.wait_for(
            lambda: any(u.version == table.version for u in rig.witness.updates),
            what="the moves told",
        )
        await fake.wait_for(lambda: rig.adapter.outbox.stats.unreachable > 0, what="a try")
        await fake.come_back()
        assert await rig.adapter.outbox.drain(10)

        # the group's table is the table as it stands, the moves made offline in it
        # (waited for: the witness hears a move a moment before the adapter queues it,
        # so on a busy machine the last edit may follow the drain)
        # (the group's edits are throttled to one in 3 s, more on a loaded machine)
        def as_it_stands() -> bool:
            shown_text, view_text = shown_and_view()
            return shown_text == view_text

        def shown_and_view() -> tuple[str, str]:
            view = rig.service.table(table_id, "en")
            assert view is not None
            return table_messages(group, table_id)[-1].text, view.message.text

        try:
            await fake.wait_for(lambda: as_it_stands() or None, 20, what="the table as it stands")
        except TimeoutError as e:
            shown_text, view_text = shown_and_view()
            raise AssertionError(
                f"{e}\nthe group's table:\n{shown_text}\nthe table as it stands:\n{view_text}"
            ) from e
        assert rig.adapter.outbox.stats.failed == 0  # nothing given up

        version = table.version
        if table.to_act() == seat:  # her turn waited for her: her press counts
            await play(rig, table_id, [anna], until=lambda: False, limit=1)
            assert table.version > version
        rig.witness.check_group(table_id, group)
    finally:
        await stop_rig(rig)


async def test_a_press_the_bot_fails_on_is_answered_and_the_next_one_works(
    fake: FakeTelegram, log_guard: LogErrorGuard, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fault while handling a press (injected: the core raises once): the presser
    gets an alert instead of a button that spins until Telegram gives up, the log has
    one ERROR that does not quote the button's data, and pressing again works."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players = make_players(fake, ["Anna", "Berti"])
        table_id, lobby = await open_table(rig, players, "/new zweier")
        real_act = rig.service.act
        faults = ["injected fault"]

        async def act_failing_once(
            user: UserRef, payload: str, chat: ChatRef | None = None
        ) -> Outcome:
            if faults:
                raise RuntimeError(faults.pop())
            return await real_act(user, payload, chat)

        monkeypatch.setattr(rig.service, "act", act_failing_once)
        log_guard.allow("injected fault")
        answer = await press(fake, players.users[0], lobby, "Start")
        assert answer.show_alert and answer.text == "Something went wrong; please try again."
        table = rig.table(table_id)
        assert table is not None and str(table.status) == "lobby"
        assert not (await press(fake, players.users[0], lobby, "Start")).show_alert
        table = rig.table(table_id)
        assert table is not None and str(table.status) == "playing"
        faulted = [r for r in log_guard.records if r.exc_info]
        assert len(faulted) == 1
        assert table_id not in faulted[0].getMessage()  # nor the rest of the button's data
    finally:
        await stop_rig(rig)


@pytest.mark.parametrize("late", [False, True])
async def test_a_press_whose_change_fails_with_a_bug_is_logged_once(
    fake: FakeTelegram,
    log_guard: LogErrorGuard,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    late: bool,
) -> None:
    """Storing a press's change fails with a bug (injected: the store's append raises
    once, not as the database would): the presser is told (by the alert, or privately
    when the press was answered before the core finished), and the operator reads one
    ERROR with the traceback, the core's that says the table is read back, not a
    second one for the press with the same traceback (that is a DEBUG line); pressing
    again works."""
    budget: dict[str, Any] = {"answer_budget": 0.0} if late else {}
    rig = await start_rig(fake, tmp_path / "bot.sqlite3", **budget)
    try:
        players = make_players(fake, ["Anna", "Berti"])
        anna = players.users[0]
        table_id, lobby = await open_table(rig, players, "/new zweier")
        _fail_once(monkeypatch, rig.store, "append", error=RuntimeError("injected fault"))
        log_guard.allow("injected fault")
        caplog.set_level(logging.DEBUG, logger="adapters.telegram.adapter")
        notes = len(anna.private_chat.messages)
        answer = await press(fake, anna, lobby, "Start")
        failed = "Something went wrong; please try again."
        if late:
            assert not answer.show_alert
            await fake.wait_for(
                lambda: failed in [m.text for m in anna.private_chat.messages[notes:]] or None,
                10,
                what="the failure told privately",
            )
        else:
            assert answer.show_alert and answer.text == failed
        [error] = log_guard.records
        assert error.getMessage().startswith(f"could not store a change of table {table_id}")
        assert error.exc_info is not None and error.exc_info[0] is RuntimeError
        said = "a button press failed" if late else "handling a Telegram update failed"
        [press_line] = [r for r in caplog.records if r.getMessage() == said]
        assert press_line.levelno == logging.DEBUG and press_line.exc_info is None
        assert not (await press(fake, anna, lobby, "Start")).show_alert
        await fake.wait_for(
            lambda: str(getattr(rig.table(table_id), "status", "")) == "playing" or None,
            10,
            what="the match started",
        )
    finally:
        await stop_rig(rig)


async def test_a_stop_while_telegram_is_out_of_reach_logs_one_calm_line(
    fake: FakeTelegram, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """PTB's stop confirms the last updates with one more poll; out of reach, it
    logged an ERROR with a long traceback for a clean stop.  One warning says what it
    means instead."""
    caplog.set_level(logging.INFO)
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        await started_match(rig, fake)
        await fake.go_offline()
    finally:
        await stop_rig(rig)
    await fake.come_back()
    updater = [r for r in caplog.records if r.name == "telegram.ext.Updater"]
    assert [r.levelname for r in updater if r.levelno >= logging.WARNING] == ["WARNING"]
    [calm] = [r for r in updater if r.levelno >= logging.WARNING]
    assert calm.getMessage().startswith("Telegram was out of reach at the stop")
    assert calm.exc_info is None and calm.exc_text is None


class _LateInAnOutage:
    """The `asyncio` of PTB's retry loop, late in an outage: the wait between two
    failed polls at its longest (PTB's waits grow by half up to 30 s)."""

    def __getattr__(self, name: str) -> Any:
        return getattr(asyncio, name)

    @staticmethod
    async def sleep(delay: float) -> None:
        await asyncio.sleep(30.0 if delay else 0.0)


async def test_a_stop_late_in_an_outage_ends_within_the_runners_grace(
    fake: FakeTelegram,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """SIGTERM after a minute without Telegram: the stop waited out PTB's wait
    before the next poll (up to 30 s), longer than the runner's grace (8 s; Docker
    kills after 10), so the runner cancelled the shutdown halfway.  The stop now
    ends the wait, and the bot stops cleanly in time."""
    monkeypatch.setattr(networkloop, "asyncio", _LateInAnOutage())
    stop = asyncio.Event()
    started: list[App] = []
    task = asyncio.create_task(
        run_app(config_for(fake, tmp_path / "bot.sqlite3"), stop=stop, on_started=started.append)
    )
    try:
        await fake.wait_for(lambda: fake.in_flight.get("getUpdates"), what="a long poll")
        await fake.go_offline()
        await fake.wait_for(lambda: PLATFORM in started[0].service._held, what="a failed poll")
    finally:
        stop.set()
        code = await asyncio.wait_for(task, 60)
    assert code == 0
    assert not [m for m in warned(caplog) if "did not stop" in m]
