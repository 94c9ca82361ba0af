"""Telegram updates that come twice, or late: after a hard kill, and out of order; and
what a hard kill kept from the chats.

python-telegram-bot confirms the updates of one poll with the ``offset`` of the next
(or at a clean stop); a webhook delivery counts once its answer is out.  A bot killed
(SIGKILL, power loss) in between gets them again after the restart.  Here a real bot
process handles a batch whose confirming poll is still on its way (`Hold.drop`: it
never arrives), is killed, and a new bot starts on the same database.  A webhook may
also bring an update after newer ones (`FakeTelegram.deliver_late`).  A bot killed
while the end of a match, or a deal's result, was stored but its messages still on
their way shows it after the restart.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import logging
import sqlite3
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from telegram.ext import Updater
from telegram.request import HTTPXRequest

from bot.payload import PayloadError
from bot.payload import decode as decode_payload
from bot.store import StoreError
from bot.table import Table
from tests.e2e.fakes.telegram.chats import FakeChat
from tests.e2e.fakes.telegram.messages import FakeMessage
from tests.e2e.fakes.telegram.protocol import DEFAULT_TOKEN, Limits
from tests.e2e.fakes.telegram.ptb import LogErrorGuard
from tests.e2e.fakes.telegram.server import FakeTelegram
from tests.e2e.fakes.telegram.users import FakeUser
from tests.e2e.processes import sigkill
from tests.e2e.telegram_harness import (
    PATIENCE,
    Players,
    asked,
    fake,
    hand_message,
    log_guard,
    make_players,
    open_table,
    press,
    start_rig,
    stop_rig,
    webhook_config,
)
from tests.test_run import PYTHON, clean_env

__all__ = ["fake", "log_guard"]


#: ``python -m bot`` whose requests (but its polls, which have their own timeout) wait
#: up to `PATIENCE` for the fake's answer, as the in-process rigs' do
#: (`telegram_harness.patience`): a request a test holds until the kill would
#: otherwise time out after PTB's 5 s when the steps in between take longer on a
#: loaded machine, and the bot answer it as failed (Anna's held admin check: "Telegram
#: did not tell me whether you are an admin here") though nothing went wrong.  Its
#: outbox keeps no pace, as the rigs' (`start_rig`: `Throttle.off`) do not: at one
#: edit a second to each hand, playing a deal to its last card took 11 s of waiting
#: (the pace has tests of its own, test_telegram.py's `test_real_rate_limits`).
PATIENT_BOT = f"""
import runpy
from telegram.ext import ApplicationBuilder
from adapters.telegram import queues

build = ApplicationBuilder.build
ApplicationBuilder.build = lambda self: build(self.read_timeout({PATIENCE}))
queues.Throttle = queues.Throttle.off
runpy.run_module("bot", run_name="__main__", alter_sys=True)
"""


async def _bot_process(fake: FakeTelegram, tmp_path: Path) -> asyncio.subprocess.Process:
    """``python -m bot`` (`PATIENT_BOT`) against the fake, polling, on
    ``tmp_path/bot.sqlite3``."""
    env = clean_env(tmp_path, TELEGRAM_TOKEN=fake.token, TELEGRAM_API_URL=fake.base_url)
    return await asyncio.create_subprocess_exec(
        PYTHON,
        "-c",
        PATIENT_BOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        cwd=tmp_path,
    )


def _rows(db: Path, sql: str) -> list[tuple[Any, ...]]:
    """Rows of `sql` in the bot's store, read beside the running bot (none while the
    table is not made yet)."""
    conn = sqlite3.connect(db)
    try:
        return conn.execute(sql).fetchall()
    except sqlite3.OperationalError:  # not made yet
        return []
    finally:
        conn.close()


def _handled(db: Path) -> set[int]:
    """The update ids the bot's store holds as handled."""
    return {r[0] for r in _rows(db, "SELECT update_id FROM handled_updates")}


async def _until(done: Callable[[], bool], failure: Callable[[], str]) -> None:
    for _ in range(200):
        if done():
            return
        await asyncio.sleep(0.025)
    raise AssertionError(failure())


async def _until_handled(db: Path, ids: set[int]) -> None:
    """Wait until the bot has stored `ids` as handled: the moment a kill no longer
    makes it handle them again."""
    await _until(
        lambda: ids <= _handled(db),
        lambda: f"updates {sorted(ids - _handled(db))} were never stored as handled",
    )


async def _until_lobbies_kept(db: Path, count: int) -> None:
    """Wait until `count` lobby messages are stored as the tables' own: a lobby whose
    message a kill beat to the store is posted afresh at the restart (the bot cannot
    edit a message it does not know), which is not a repeated update."""
    await _until(
        lambda: len(_rows(db, "SELECT 1 FROM message_refs WHERE slot='lobby'")) >= count,
        lambda: "the lobby messages were never stored",
    )


def _texts(chat: FakeChat) -> list[str]:
    return [m.text for m in chat.bot_messages()]


def _buttons_of(message: FakeMessage, table_id: str) -> list[str]:
    """The labels of the message's buttons for `table_id`."""
    out = []
    for button in message.buttons():
        with contextlib.suppress(PayloadError):
            if decode_payload(button.data).table == table_id:
                out.append(button.text)
    return out


async def _match_started(
    fake: FakeTelegram, players: Players
) -> tuple[str, FakeMessage, list[FakeMessage]]:
    """Anna opens a Zweier match in the group, Berti joins, she starts it: its id,
    the table message and their hands."""
    anna, berti = players.users
    group = players.group
    anna.send(group, "/new zweier")
    lobby = await fake.wait_for_message(group, contains="Host:", timeout=20)
    [table_id] = {decode_payload(b.data).table for b in lobby.buttons()}
    assert not (await press(fake, berti, lobby, "Join")).show_alert
    await fake.wait_for(lambda: "Berti" in lobby.text, what="Berti in the lobby")
    assert not (await press(fake, anna, lobby, "Start")).show_alert
    hands = []
    for user in (anna, berti):

        def dealt(user: FakeUser = user) -> FakeMessage | None:
            return hand_message(user, table_id)

        hands.append(await fake.wait_for(dealt, what="a hand", timeout=10))
    board = await fake.wait_for(
        lambda: next(
            (m for m in group.bot_messages() if m is not lobby and _buttons_of(m, table_id)),
            None,
        ),
        what="the table message",
    )
    return table_id, board, hands


@dataclass
class _KilledEnd:
    """A match whose end a kill kept from the chats: Berti resigned, the end was
    stored and counted, and the bot was killed while its last messages (the group's
    and the hands' edits) were held on their way."""

    db: Path
    table_id: str
    players: Players
    question: FakeMessage  # the /resign question, the last message before the end
    board: FakeMessage
    hands: list[FakeMessage]


async def _killed_as_the_end_went_out(fake: FakeTelegram, tmp_path: Path) -> _KilledEnd:
    db = tmp_path / "bot.sqlite3"
    players = make_players(fake, ["Anna", "Berti"])
    anna, berti = players.users
    group = players.group
    proc = await _bot_process(fake, tmp_path)
    try:
        table_id, board, hands = await _match_started(fake, players)
        question = await asked(fake, berti, group, "/resign")
        held = [
            fake.hold("editMessageText", chat=c)
            for c in (group, *(u.private_chat for u in (anna, berti)))
        ]
        [confirm] = question.buttons()
        assert not (await press(fake, berti, question, confirm.text)).show_alert
        await _until(
            lambda: (
                _rows(db, f"SELECT status FROM tables WHERE id = '{table_id}'") == [("finished",)]
            ),
            lambda: "the match was never stored as ended",
        )
        for hold in held:
            await hold.wait_held()
    finally:
        await sigkill(proc)
    # as the kill left them: the table's buttons, his cards for the one to play
    assert _buttons_of(board, table_id) and any(_buttons_of(h, table_id) for h in hands)
    assert not any("Berti resigned." in text for text in _texts(group))
    for hold in held:
        hold.drop()
    return _KilledEnd(db, table_id, players, question, board, hands)


async def test_a_match_end_a_hard_kill_kept_from_the_chat_is_shown_after_the_restart(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """Before, the restart showed nothing of the end a kill kept from the chats: no
    summary, no Rematch, the table message and the hands with buttons that only got
    refusals.  Now the restart shows the end once, as the run that was killed would
    have, its Rematch works, and it is not shown again at the next start."""
    k = await _killed_as_the_end_went_out(fake, tmp_path)
    anna, berti = k.players.users
    group = k.players.group
    rig = await start_rig(fake, k.db)
    try:
        summary = await fake.wait_for_message(group, after=k.question, contains="Berti resigned.")
        assert [b.text for b in summary.buttons()] == ["Rematch"]
        # its Rematch works as the killed run's would have: a lobby, him in it once
        assert not (await press(fake, berti, summary, "Rematch")).show_alert
        rematch = await fake.wait_for_message(group, after=summary, contains="A rematch of")
        assert (await press(fake, berti, summary, "Rematch")).show_alert  # seated already
        assert not (await press(fake, anna, summary, "Rematch")).show_alert
        await fake.wait_for(lambda: "Anna" in rematch.text, what="Anna in the rematch")
        await rig.adapter.outbox.drain()
    finally:
        await stop_rig(rig)
    assert not _buttons_of(k.board, k.table_id)  # the table as it was left, without buttons
    for hand in k.hands:
        assert not hand.buttons() and "over" in hand.text
    rig = await start_rig(fake, k.db)  # once shown, it is not shown again
    await stop_rig(rig)
    shown = [text for text in _texts(group) if "Berti resigned." in text]
    assert len(shown) == 1
    assert _rows(k.db, f"SELECT COUNT(*) FROM games WHERE table_id = '{k.table_id}'") == [(1,)]
    assert _rows(k.db, f"SELECT slot FROM message_refs WHERE table_id = '{k.table_id}'") == []


async def test_an_end_whose_group_removed_the_bot_meanwhile_is_tried_once(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """The group removed the bot while it was down: the end the kill kept from it
    meets one refusal at the restart, the players' hands are settled all the same,
    and the next start tries the dead group no more (an end never confirmed would
    spend requests on it at every start, for ever)."""
    k = await _killed_as_the_end_went_out(fake, tmp_path)
    anna, _ = k.players.users
    group = k.players.group
    fake.set_bot_status(group, "kicked", by=anna, announce=False)
    since = len(fake.calls)
    rig = await start_rig(fake, k.db)
    try:
        await fake.wait_for(
            lambda: all("over" in hand.text for hand in k.hands), what="the hands settled"
        )
        await rig.adapter.outbox.drain()
    finally:
        await stop_rig(rig)
    assert _to(fake, group, since) == [("editMessageText", 403)]
    assert _rows(k.db, f"SELECT slot FROM message_refs WHERE table_id = '{k.table_id}'") == []
    since = len(fake.calls)
    rig = await start_rig(fake, k.db)
    await stop_rig(rig)
    assert _to(fake, group, since) == []
    assert all(not _to(fake, user.private_chat, since) for user in k.players.users)


def _stored(db: Path, table_id: str) -> Table:
    """The table as the bot's store holds it (read beside the running bot)."""
    rows = _rows(db, f"SELECT entry FROM table_log WHERE table_id = '{table_id}' ORDER BY version")
    return Table.from_log(table_id, [json.loads(r[0]) for r in rows])


def _scores(table: Table, seat: int, code: int) -> bool:
    """Whether `seat` playing `code` ends the deal (on a copy of the table)."""
    after = copy.deepcopy(table)
    after.apply({"k": "act", "seat": seat, "code": code, "by": "p"})
    return len(after.deal_points) > len(table.deal_points)


def _moves(user: FakeUser, table_id: str, version: int) -> list[tuple[FakeMessage, int]]:
    """The game moves his hand offers at `version`: its message and each move's code."""
    message = hand_message(user, table_id)
    if message is None:
        return []
    out = []
    for button in message.buttons():
        with contextlib.suppress(PayloadError):
            p = decode_payload(button.data)
            if p.table == table_id and p.version == version and p.is_game_action:
                assert p.arg is not None
                out.append((message, p.arg))
    return out


async def _to_act(fake: FakeTelegram, db: Path, table_id: str, players: Players) -> _Turn:
    """Whose turn it is, once his hand offers the moves of the table's stored version."""
    table = _stored(db, table_id)
    seat = table.to_act()
    assert seat is not None
    user = next(u for u in players.users if table.seat_of(f"tg:{u.id}") == seat)
    moves = await fake.wait_for(  # his hand's edits keep Telegram's pace: one a second
        lambda: _moves(user, table_id, table.version),
        timeout=20,
        what=f"{user.first_name}'s moves of v{table.version}",
    )
    return _Turn(table, seat, user, moves)


@dataclass
class _Turn:
    table: Table
    seat: int
    user: FakeUser
    moves: list[tuple[FakeMessage, int]]

    def data(self, code: int) -> str:
        return f"{self.table.id}:{self.table.version}:a{code}"


async def _up_to_the_deals_last_move(
    fake: FakeTelegram, db: Path, table_id: str, players: Players
) -> tuple[FakeUser, FakeMessage, str]:
    """Play deal 1 on (the first move offered) until a move would end it: whose it
    is, his hand and the move's button, not pressed."""
    for _ in range(60):  # a Zweier deal has 20 cards to play, and a few other moves
        turn = await _to_act(fake, db, table_id, players)
        for message, code in turn.moves:
            if _scores(turn.table, turn.seat, code):
                return turn.user, message, turn.data(code)
        message, code = turn.moves[0]
        assert not (await press(fake, turn.user, message, turn.data(code))).show_alert
        version = turn.table.version
        await _until(
            lambda: _stored(db, table_id).version > version,  # noqa: B023 (awaited here)
            lambda: "the move was never stored",
        )
    raise AssertionError("deal 1 never came to an end")


async def test_a_deal_result_a_hard_kill_kept_from_the_group_comes_before_the_next_deal(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """A card ended deal 1 (and dealt deal 2), and the bot was killed while the
    result's messages were on their way.  After the restart the group gets deal 1's
    result, once, before deal 2's table, and the hands are deal 2's, their buttons
    live: the match goes on as the killed run would have gone on."""
    db = tmp_path / "bot.sqlite3"
    players = make_players(fake, ["Anna", "Berti"])
    group = players.group
    chats = (group, *(u.private_chat for u in players.users))
    proc = await _bot_process(fake, tmp_path)
    try:
        table_id, board, _ = await _match_started(fake, players)
        user, hand, last = await _up_to_the_deals_last_move(fake, db, table_id, players)
        held = [fake.hold(m, chat=c) for m in ("editMessageText", "sendMessage") for c in chats]
        assert not (await press(fake, user, hand, last)).show_alert
        await _until(
            lambda: len(_stored(db, table_id).deals) == 2, lambda: "deal 2 was never dealt"
        )
        await held[0].wait_held(timeout=30)  # the group's table, edited to the deal's end
    finally:
        await sigkill(proc)
    for hold in held:
        hold.drop()
    assert not any("Deal 1 over" in text for text in _texts(group))
    before = max(m.message_id for m in group.bot_messages())

    rig = await start_rig(fake, db)
    try:
        result = await fake.wait_for_message(group, after=before, contains="Deal 1 over")
        deal_2 = await fake.wait_for(
            lambda: next(
                (
                    m
                    for m in group.bot_messages()
                    if "Deal 2 — " in m.text and _buttons_of(m, table_id)
                ),
                None,
            ),
            what="deal 2's table",
        )
        assert result.message_id < deal_2.message_id
        for user in players.users:  # deal 1's hands say it is over, without buttons
            await fake.wait_for_message(user.private_chat, contains="Deal 1 is over")
        turn = await _to_act(fake, db, table_id, players)  # deal 2's hand, its moves live
        assert len(turn.table.deals) == 2
        version = turn.table.version
        hand, code = turn.moves[0]
        assert not (await press(fake, turn.user, hand, turn.data(code))).show_alert
        await fake.wait_for(
            lambda: (tb := rig.table(table_id)) is not None and tb.version > version,
            what="the move of deal 2 played",
        )
        await rig.adapter.outbox.drain()
    finally:
        await stop_rig(rig)
    assert not _buttons_of(board, table_id)  # deal 1's table, as it ended
    rig = await start_rig(fake, db)  # once shown, it is not shown again
    await stop_rig(rig)
    assert sum("Deal 1 over" in text for text in _texts(group)) == 1


def _to(fake: FakeTelegram, chat: FakeChat, since: int) -> list[tuple[str, int]]:
    """Requests to `chat` since call `since`: method and status."""
    return [(c.method, c.status) for c in fake.calls[since:] if c.params.get("chat_id") == chat.id]


async def test_a_hard_kill_neither_repeats_nor_loses_what_users_did(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """Berti's Join and Carl's /new were handled before the kill, Anna's /settings was
    still waiting for Telegram (the admin check).  After the restart Telegram sends all
    three again: the two handled ones change nothing and say nothing (before, Carl got
    "You already play at another table here" and Berti a private "You already have a
    seat"), and Anna's setting is saved and answered, once."""
    db = tmp_path / "bot.sqlite3"
    anna, berti, carl = (
        fake.create_user(name, username=name.lower(), started=True)
        for name in ("Anna", "Berti", "Carl")
    )
    group = fake.create_group("Schnapsen", members=[anna, berti], creator=anna)
    other = fake.create_group("Stammtisch", members=[carl], creator=carl)
    proc = await _bot_process(fake, tmp_path)
    try:
        anna.send(group, "/new zweier")
        lobby = await fake.wait_for_message(group, contains="Host:", timeout=20)

        await fake.wait_for(lambda: fake.in_flight.get("getUpdates"), what="a long poll")
        polls = fake.hold("getUpdates")  # the next one, which would confirm its batch
        admin_check = fake.hold("getChatMember")
        join = berti.press(lobby, "Join")
        new = carl.send(other, "/new zweier")
        anna.send(group, "/settings suits german")
        assert not (await fake.wait_answer(join, timeout=10)).show_alert
        carl_lobby = await fake.wait_for_message(other, contains="Host:", timeout=10)
        await fake.wait_for(lambda: "Berti" in lobby.text, what="Berti in the lobby")
        await admin_check.wait_held()
        await polls.wait_held()
        assert new.update_id is not None
        await _until_handled(db, {join.update_id, new.update_id})
        await _until_lobbies_kept(db, 2)
        seen = {u.id: _texts(u.private_chat) for u in (anna, berti, carl)}
    finally:
        await sigkill(proc)
    assert fake.pending_update_count == 3  # never confirmed: Telegram sends them again
    polls.drop()
    admin_check.drop()

    rig = await start_rig(fake, db)
    try:
        await fake.wait_for_message(group, after=lobby, contains="Saved: suits = german")
    finally:
        await stop_rig(rig)  # every update handled, everything sent
    assert fake.pending_update_count == 0
    assert _texts(other) == [carl_lobby.text]
    saved = [t.split("\n")[0] for t in _texts(group) if t.startswith("Saved")]
    assert saved == ["Saved: suits = german"]  # once, though the update came twice
    assert {u.id: _texts(u.private_chat) for u in (anna, berti, carl)} == seen
    assert lobby.text.count("Berti") == 1

    errors = (await proc.stderr.read()).decode() if proc.stderr else ""
    assert "ERROR" not in errors and "Traceback" not in errors, errors


async def test_a_block_delivered_after_the_users_restart_is_no_block(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """With a webhook, Telegram may deliver updates out of order.  Berti blocks the
    bot and lets it in again (Restart, which sends /start); the block arrives last.
    He is not taken for blocked (before, the late block swallowed his welcome, the
    lobby asked him to open the private chat, and Anna's Start was refused): he is
    welcomed, the deal starts and he gets his hand."""
    db = tmp_path / "bot.sqlite3"
    rig = await start_rig(fake, db, config=webhook_config(fake, db))
    try:
        players = make_players(fake, ["Anna", "Berti"])
        anna, berti = players.users
        table_id, lobby = await open_table(rig, players, "/new zweier")
        berti.block_bot()
        block = int(fake.updates[-1]["update_id"])
        welcome = berti.start_bot(payload=table_id)
        fake.deliver_late(block)
        await fake.wait_for_message(berti.private_chat, after=welcome, contains=table_id)
        await _until_handled(db, {block})

        answer = await press(fake, anna, lobby, "Start")
        assert not answer.show_alert, answer.text
        await fake.wait_for(lambda: hand_message(berti, table_id), what="Berti's hand")
        assert "start a private chat" not in lobby.text
    finally:
        await stop_rig(rig)


async def test_a_new_bot_token_on_the_same_database_answers_its_first_updates(
    log_guard: LogErrorGuard, tmp_path: Path
) -> None:
    """The updates handled are kept per bot: a new bot (another token) on the same
    database counts its update ids anew, and the first ones must not be taken for
    the old bot's."""
    db = tmp_path / "bot.sqlite3"
    bot_id, secret = DEFAULT_TOKEN.split(":")
    ids = []
    for token in (DEFAULT_TOKEN, f"{int(bot_id) + 1}:{secret}"):
        async with FakeTelegram(token=token, limits=Limits(rate=None)) as telegram:
            telegram.attach(log_guard)
            rig = await start_rig(telegram, db)
            try:
                players = make_players(telegram, ["Anna"])
                sent = players.users[0].send(players.group, "/help")
                await telegram.wait_for_message(players.group, contains="/new")
                assert sent.update_id is not None
                ids.append(sent.update_id)
                await _until_handled(db, {sent.update_id})
            finally:
                await stop_rig(rig)
    assert ids[0] == ids[1]  # the same id, from another bot


async def test_a_press_answered_before_it_is_done_counts_as_handled_once_done(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """A press waiting behind another is answered at once and acts later (Berti's
    Join waits while Carl's, before it, is still greeting Carl privately): it counts
    as handled only once it has acted, or a kill in between would lose it (Telegram's
    second sending would be dropped)."""
    db = tmp_path / "bot.sqlite3"
    rig = await start_rig(fake, db, answer_budget=0.2)
    try:
        players = make_players(fake, ["Anna", "Berti", "Carl"])
        anna, berti, carl = players.users
        anna.send(players.group, "/new dreier")
        lobby = await fake.wait_for_message(players.group, contains="Host:")
        greeting = fake.hold("sendMessage", chat=carl.private_chat)
        carl.press(lobby, "Join")
        await greeting.wait_held()
        join = berti.press(lobby, "Join")
        assert not (await fake.wait_answer(join)).show_alert  # answered, not yet done
        later = anna.send(players.group, "/help")
        assert later.update_id is not None
        await _until_handled(db, {later.update_id})
        assert join.update_id not in _handled(db)
        greeting.release()
        await _until_handled(db, {join.update_id})
        # The lobby is redrawn after the join is done, by its own request: a slow
        # Telegram shows Berti a moment later.
        await fake.wait_for(lambda: "Berti" in lobby.text, what="Berti in the lobby")
    finally:
        await stop_rig(rig)


async def test_a_store_that_cannot_note_an_update_handled_costs_one_warning_and_nothing_else(
    fake: FakeTelegram,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The database fails as the bot notes that Anna's /help was handled: she has her
    answer all the same, the operator reads one warning naming the update and the
    error (a kill now might bring that update once more), no error, and once the
    database is back the next command is answered and noted as before."""
    db = tmp_path / "bot.sqlite3"
    rig = await start_rig(fake, db)
    try:
        players = make_players(fake, ["Anna"])
        anna = players.users[0]

        async def failing(*args: object, **kwargs: object) -> None:
            raise StoreError("disk full")

        monkeypatch.setattr(rig.store, "mark_handled", failing)
        with caplog.at_level(logging.WARNING, logger="adapters.telegram"):
            sent = anna.send(players.group, "/help")
            answer = await fake.wait_for_message(players.group, contains="/new")
            await fake.wait_for(lambda: caplog.records, what="the warning")
        # the rig's start logs at INFO when an earlier test left a logger at INFO
        shown = [
            (r.levelname, r.getMessage()) for r in caplog.records if r.levelno >= logging.WARNING
        ]
        assert shown == [
            ("WARNING", f"could not store that update {sent.update_id} was handled: disk full")
        ]
        monkeypatch.undo()
        again = anna.send(players.group, "/help")
        await fake.wait_for_message(players.group, after=answer, contains="/new")
        assert again.update_id is not None
        await _until_handled(db, {again.update_id})
        assert sent.update_id not in _handled(db)
    finally:
        await stop_rig(rig)


async def test_a_stop_as_a_poll_brings_updates_logs_no_error_and_handles_them_once(
    fake: FakeTelegram, log_guard: LogErrorGuard, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long poll's answer (Anna's /new) lands just as the bot is told to stop, as a
    SIGTERM or restart can meet it.  PTB logged "Updater stopped unexpectedly" at
    CRITICAL for it, which operators read as a broken bot.  Now the stop is silent,
    and the /new, which Telegram sends again since it was never confirmed, is
    answered once, after the restart."""
    db = tmp_path / "bot.sqlite3"
    players = make_players(fake, ["Anna"])
    landed, stopping = asyncio.Event(), asyncio.Event()
    real_request, real_stop = HTTPXRequest.do_request, Updater.stop

    async def late_answer(self: HTTPXRequest, url: str, *args: Any, **kw: Any) -> tuple[int, bytes]:
        """The network: the poll that brings the /new is answered with the stop."""
        code, body = await real_request(self, url, *args, **kw)
        if url.endswith("/getUpdates") and b"/new zweier" in body and not landed.is_set():
            landed.set()
            await stopping.wait()
        return code, body

    async def told_to_stop(self: Updater) -> None:
        """The answer is let through as the updater is told to stop: it reaches PTB
        after the updater counts as stopped, before PTB's stop cancels the poll."""
        stopping.set()
        await real_stop(self)

    monkeypatch.setattr(HTTPXRequest, "do_request", late_answer)
    monkeypatch.setattr(Updater, "stop", told_to_stop)
    rig = await start_rig(fake, db)  # after the patches: the first poll is late too
    try:
        players.users[0].send(players.group, "/new zweier")
        await asyncio.wait_for(landed.wait(), 5)
    finally:
        await stop_rig(rig)
    assert [r.getMessage() for r in log_guard.records] == []  # no ERROR, no CRITICAL
    assert not any("Host:" in t for t in _texts(players.group))  # not handled yet
    assert fake.pending_update_count == 1  # nor confirmed: Telegram sends it again

    rig = await start_rig(fake, db)
    try:
        await fake.wait_for_message(players.group, contains="Host:")
    finally:
        await stop_rig(rig)
    assert fake.pending_update_count == 0
    assert sum("Host:" in t for t in _texts(players.group)) == 1
