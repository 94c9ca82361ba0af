"""The Telegram adapter end to end: real python-telegram-bot against the fake Bot API.

Whole games live in `test_telegram_games.py`; this file covers one Schnapsen match,
the commands, and the failure cases: a user who never started the bot, a restart in
the middle of a deal, presses by strangers, double presses, forged payloads, flood
control (forced 429s and the real limits) and webhook delivery.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from pathlib import Path

import pytest
from pydantic import SecretStr

from adapters.telegram import Handle, Outbox
from adapters.telegram.ops import ChatQueue
from bot import results as R
from bot.config import Config
from bot.payload import decode as decode_payload
from bot.store import StoreError
from tests.app_logs import retry_warnings, run_logged, the_one_error
from tests.e2e.clocks import HeldPauses, remind, run_out
from tests.e2e.fakes.telegram.chats import FakeChat
from tests.e2e.fakes.telegram.errors import _bad_request
from tests.e2e.fakes.telegram.failures import Hold
from tests.e2e.fakes.telegram.messages import FakeMessage
from tests.e2e.fakes.telegram.protocol import BOT_USERNAME, Limits, RateLimits
from tests.e2e.fakes.telegram.server import FakeTelegram
from tests.e2e.fakes.telegram.users import FakeUser
from tests.e2e.telegram_harness import (
    Players,
    asked,
    cillis_lobby,
    config_for,
    confirmed,
    data_deleted,
    fake,
    free_port,
    hand_message,
    joined,
    lobby_with_a_stranger,
    log_guard,
    make_players,
    open_table,
    play,
    press,
    seeds,
    start_rig,
    started_match,
    stop_rig,
    timings,
    warned,
    webhook_config,
)

__all__ = ["fake", "log_guard"]

BOT = BOT_USERNAME


def table_messages(chat_messages: list, table_id: str) -> list:  # type: ignore[type-arg]
    return [m for m in chat_messages if m.text.split("\n")[0].endswith(f"— {table_id}")]


async def test_zweier_match_by_buttons(fake: FakeTelegram, tmp_path: Path) -> None:
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players = make_players(fake, ["Anna", "Berti"])
        anna, berti = players.users
        table_id, lobby = await open_table(rig, players, "/new zweier")
        assert not (await press(fake, anna, lobby, "Start")).show_alert
        await play(rig, table_id, players.users, until=lambda: rig.table(table_id) is None)
        await rig.adapter.outbox.drain()

        deals = rig.witness.kinds.count("deal_end") + 1
        group = players.group
        # one table message per deal, edited in place, ending without buttons
        tables = table_messages(group.bot_messages(), table_id)
        assert len(tables) == deals
        assert all(len(m.revisions) > 1 and not m.buttons() for m in tables)
        results = [m for m in group.bot_messages() if " over: " in m.text]
        assert len(results) == deals and "Game over!" in results[-1].text
        # the lobby is history once the game starts: no buttons, and it says so
        # instead of "the host can start" for the rest of the match
        assert lobby.buttons() == []
        assert "the host can start" not in lobby.text and "within 15 minutes" not in lobby.text
        assert lobby.text.endswith("The game has already started.") and "Berti" in lobby.text
        assert "2. Berti" in lobby.text.splitlines(), lobby.text  # each seat on its line
        # one private hand message per deal and player, edited as the deal went on
        for user in players.users:
            hands = [m for m in user.private_chat.bot_messages() if m.text.startswith("Your hand")]
            assert len(hands) == deals
            assert max(len(m.revisions) for m in hands) > 3
        assert rig.witness.check_group(table_id, group) > deals

        # the finished match shows on the leaderboard and in the statistics
        anna.send(group, "/leaderboard zweier")
        board = await fake.wait_for_message(group, contains="Leaderboard")
        assert "Anna" in board.text and "Berti" in board.text
        berti.send(group, "/stats")
        stats = await fake.wait_for_message(group, contains="Statistics for Berti")
        assert "1 played" in stats.text
    finally:
        await stop_rig(rig)


async def test_commands(fake: FakeTelegram, tmp_path: Path) -> None:
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players = make_players(fake, ["Anna", "Berti"])
        anna, berti = players.users
        group = players.group
        # the command menu in English (default) and German
        english = [c["command"] for c in fake.command_list()]
        assert english[:2] == ["new", "leaderboard"] and "forgetme" in english
        assert fake.command_list(None, "de")[0]["description"].startswith("Tisch eröffnen")

        anna.send(group, "/help")
        await fake.wait_for_message(group, contains="Open a table: /new")
        anna.send(group, "/rules dreier")
        rules = await fake.wait_for_message(group, contains="declarer plays alone")
        anna.send(group, "/rules Talonschnapsen")  # another name of the game
        await fake.wait_for_message(group, contains="declarer plays alone", after=rules)
        anna.send(anna.private_chat, "/new zweier")
        await fake.wait_for_message(anna.private_chat, contains="Use this command in a group")
        anna.send(group, "/new skat")
        await fake.wait_for_message(group, contains="Unknown game skat")
        anna.send(group, "/stats")
        await fake.wait_for_message(group, contains="Anna has no finished games yet")

        # /settings: anyone may look; changes are for admins, checked with getChatMember
        berti.send(group, "/settings dreier")
        shown = await fake.wait_for_message(group, contains="preset.dreier = ")
        assert "Presets to choose from (preset.dreier): standard, all contracts" in shown.text
        assert not fake.calls_to("getChatMember")  # looking asks Telegram nothing
        berti.send(group, "/settings dreier plauderer on")
        await fake.wait_for_message(group, contains="Only admins can change the settings")
        anna.send(group, "/settings dreier plauderer on")  # as /settings dreier.plauderer on
        await fake.wait_for_message(group, contains="Saved: dreier.plauderer = on")
        anna.send(group, "/settings thousand.players=2")  # the game by another name, as /new
        await fake.wait_for_message(group, contains="Saved: tausend.players = 2")
        anna.send(group, "/settings turn_timeout")  # one setting, its default spelled out
        one = await fake.wait_for_message(group, contains="turn_timeout = ")
        assert one.text.splitlines()[1:] == [
            "turn_timeout = default (600 s)",
            "seconds for a move (10–3600); then the computer plays it",  # what it does
        ], one.text
        anna.send(group, "/settings language de")
        await fake.wait_for_message(group, contains="Saved: language = de")
        assert fake.calls_to("getChatMember")

        # the table now speaks German in the group; /abort by the host closes it
        anna.send(group, "/new zweier")
        lobby = await fake.wait_for_message(group, contains="Gastgeber")
        assert [b.text for b in lobby.buttons()][:2] == ["Mitspielen", "Aufstehen"]
        answer = await press(fake, berti, lobby, "Mitspielen")
        assert answer.show_alert is False
        berti.send(group, "/abort")  # no vote before the start: the host closes a lobby
        await fake.wait_for_message(group, contains="only the host (Anna) can close")
        anna.send(group, "/abort")
        await fake.wait_for_message(group, contains=" wurde geschlossen: ")
        await rig.adapter.outbox.drain()
        assert lobby.buttons() == []
        question = await confirmed(fake, berti, berti.private_chat, "/forgetme")
        await data_deleted(fake, question)
    finally:
        await stop_rig(rig)


@pytest.mark.parametrize("refusal", [403, 400], ids=["forbidden", "chat_not_found"])
async def test_user_who_never_started_the_bot(
    fake: FakeTelegram, tmp_path: Path, refusal: int
) -> None:
    """Telegram answers a message to him with 403, or often with 400 "chat not
    found": either way he is sent the start link, and the table waits for him."""
    fake.unstarted_chat_not_found = refusal == 400
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players, lobby, table_id = await lobby_with_a_stranger(fake)
        (anna, berti), group = players.users, players.group
        # Start with a seat still free is the core's refusal, not the wait for Berti
        answer = await press(fake, anna, lobby, "Start")
        assert answer.show_alert and answer.text == "Every seat must be taken before the start."

        # Join works, but the answer opens the private chat with a deep link
        answer = await press(fake, berti, lobby, "Join")
        link = f"https://t.me/{BOT}?start={table_id}"
        assert answer.url == link and "press Start" in (answer.text or "")
        await fake.wait_for(lambda: link in lobby.text, what="the lobby naming Berti")
        assert "Berti" in lobby.text.split("⚠")[1]
        # only Join brings the link: his other presses are answered as they are
        answer = await press(fake, berti, lobby, "Start")
        assert answer.show_alert and "Only the host (Anna)" in (answer.text or "")
        assert answer.url is None

        # the table waits: Start is refused for the host only, as an alert
        answer = await press(fake, anna, lobby, "Start")
        assert answer.show_alert and "Berti" in (answer.text or "")
        assert rig.table(table_id) is not None and str(rig.table(table_id).status) == "lobby"  # type: ignore[union-attr]

        # Berti follows the link: the lobby clears, the game starts, his hand arrives
        berti.start_bot(payload=table_id)
        await fake.wait_for_message(berti.private_chat, contains=f"You sit at table {table_id}")
        await fake.wait_for(lambda: link not in lobby.text, what="the lobby note to go")
        answer = await press(fake, anna, lobby, "Start")
        assert not answer.show_alert, answer.text
        hand = await fake.wait_for_message(berti.private_chat, contains="Your hand")
        assert hand.text.startswith("Your hand at table")
        refused = [c for c in fake.calls_to("sendMessage") if c.status == refusal]
        assert len(refused) == 1  # one probe, never a retry loop
        assert not any("Hand:" in m.text for m in group.messages)
    finally:
        await stop_rig(rig)


async def test_restart_mid_deal_keeps_messages_and_refuses_stale_buttons(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """The deals are fixed: a random one ended with the 4th press about once in
    3,000 runs, and the restart came between deals (no old keyboard in the new hand
    messages to press)."""
    db = tmp_path / "bot.sqlite3"
    deals = seeds("restart mid deal")  # the first deal goes on past the 7 presses here
    rig = await start_rig(fake, db, seed_source=deals)
    players = make_players(fake, ["Anna", "Berti"])
    table_id, lobby = await open_table(rig, players, "/new zweier")
    assert not (await press(fake, players.users[0], lobby, "Start")).show_alert
    await play(rig, table_id, players.users, until=lambda: False, limit=4)
    table = rig.table(table_id)
    assert table is not None
    deal_no, version = len(table.deals), table.version
    revealed = dict(rig.witness.revealed)
    await rig.adapter.outbox.drain()
    await stop_rig(rig)

    # a new service and a new Application on the same database file, via serve()
    rig = await start_rig(fake, db, config=config_for(fake, db), seed_source=deals)
    try:
        rig.witness.revealed.update(revealed)
        table = rig.table(table_id)
        assert table is not None and table.version == version
        stale = None
        for user in players.users:
            message = hand_message(user, table_id)
            assert message is not None
            for n, rev in enumerate(message.revisions):
                buttons = [b for row in rev.keyboard() for b in row]
                if buttons and decode_payload(buttons[0].data).version < version:
                    stale = (user, message, n, buttons[0].data)
        assert stale is not None, "an old keyboard to press"
        user, message, n, data = stale
        answer = await fake.wait_answer(user.press(message, data, revision=n))
        assert answer.show_alert and "out of date" in (answer.text or "")

        # the game goes on, in the same table and hand messages
        before = {u.first_name: hand_message(u, table_id) for u in players.users}
        group_tables = len(table_messages(players.group.bot_messages(), table_id))
        await play(rig, table_id, players.users, until=lambda: False, limit=3)
        assert len(rig.table(table_id).deals) == deal_no  # type: ignore[union-attr]
        for u in players.users:
            assert hand_message(u, table_id) is before[u.first_name]
        assert len(table_messages(players.group.bot_messages(), table_id)) >= group_tables
        await play(rig, table_id, players.users, until=lambda: rig.table(table_id) is None)
        await rig.adapter.outbox.drain()
        rig.witness.check_group(table_id, players.group)
        assert "Game over!" in players.group.bot_messages()[-1].text
    finally:
        await stop_rig(rig)


async def test_settings_understands_a_game_s_option_however_it_is_typed(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """`/settings dreier plauderer` looks the option up (for anyone: looking needs no
    admin), `dreier plauderer=off` and `dreier.plauderer = off` change it, `dreier
    <preset>` names the preset, and an option without its game gets the keys to type."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players = make_players(fake, ["Anna", "Berti"])
        (anna, berti), group = players.users, players.group

        async def said(user: FakeUser, text: str) -> str:
            typed = user.send(group, text)
            return (await fake.wait_for_message(group, after=typed)).text

        looked = await said(berti, "/settings dreier plauderer")
        assert looked.endswith("dreier.plauderer = default (off)"), looked
        assert await said(anna, "/settings dreier plauderer=on") == "Saved: dreier.plauderer = on"
        assert await said(anna, "/settings dreier.plauderer = off") == (
            "Saved: dreier.plauderer = off"
        )
        assert await said(anna, "/settings dreier standard") == "Saved: preset.dreier = standard"
        # carinthian is an option and a preset: named after its game, the option is
        # looked up, and the chat's preset stays
        looked = await said(berti, "/settings dreier carinthian")
        assert looked.endswith("dreier.carinthian = default (off)"), looked
        assert (await said(berti, "/settings preset.dreier")).endswith("= standard")
        hint = await said(anna, "/settings auto_claim off")
        assert "(zweier.auto_claim, dreier.auto_claim, bauern.auto_claim)" in hint, hint
        assert await said(berti, "/settings dreier plauderer off") == (
            "Only admins can change the settings."
        )
    finally:
        await stop_rig(rig)


async def test_resign_and_forgetme_ask_first(fake: FakeTelegram, tmp_path: Path) -> None:
    """/resign in the group is a question with one button: Berti pressing Anna's is
    refused and the match runs on; Anna's press resigns, and the button goes.
    /forgetme in the group deletes nothing: it points to the private chat, where the
    question's button is Berti's alone."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players, table_id = await started_match(rig, fake)
        anna, berti = players.users
        question = await asked(fake, anna, players.group, "/resign")
        assert question.text.startswith(f"Resign the match at table {table_id}?")
        assert [b.text for b in question.buttons()] == ["Resign"]
        answer = await press(fake, berti, question, "Resign")
        assert (
            answer.show_alert and answer.text == "That button is for the player who typed /resign."
        )
        assert rig.table(table_id) is not None
        answer = await press(fake, anna, question, "Resign")
        assert not answer.show_alert and (answer.text or "").startswith("You resigned")
        await fake.wait_for_message(players.group, contains="Anna resigned.")
        await rig.adapter.outbox.drain()
        assert question.buttons() == [] and rig.table(table_id) is None
        # the group's question keeps its words: "You resigned" was Anna's answer alone
        assert question.text.startswith(f"Resign the match at table {table_id}?")

        typed = berti.send(players.group, "/forgetme")
        said = await fake.wait_for_message(players.group, after=typed)
        assert said.text.startswith("To delete your data, send /forgetme in our private chat")
        assert said.buttons() == []
        forget = await asked(fake, berti, berti.private_chat, "/forgetme")
        answer = await press(fake, berti, forget, forget.buttons()[0].text)
        # the question becomes the answer: the press's own says nothing more
        assert not answer.show_alert and answer.text is None, answer
        await fake.wait_for_message(berti.private_chat, contains="Your data is deleted:")
    finally:
        await stop_rig(rig)


async def test_an_unpressed_resign_question_loses_its_button_when_the_match_ends(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players, _ = await started_match(rig, fake)
        anna, berti = players.users
        question = await asked(fake, anna, players.group, "/resign")
        await confirmed(fake, berti, players.group, "/resign")  # Berti resigns first
        await fake.wait_for_message(players.group, contains="Berti resigned.")
        await rig.adapter.outbox.drain()
        assert question.buttons() == [] and question.text.startswith("Resign the match")
        # a forget button pressed in the group (forwarded there) deletes nothing
        answer = await fake.wait_answer(anna.press_data(question, "me:0:fg"))
        assert answer.show_alert and "send /forgetme in our private chat" in (answer.text or "")
    finally:
        await stop_rig(rig)


async def test_refused_presses(fake: FakeTelegram, tmp_path: Path) -> None:
    # a busy table's early answer would come only after 30 s: every answer waited for
    # here (5 s at most) is the press's own
    rig = await start_rig(fake, tmp_path / "bot.sqlite3", answer_budget=30.0)
    try:
        players = make_players(fake, ["Anna", "Berti"])
        anna = players.users[0]
        cilli = fake.create_user("Cilli", started=True)
        players.group.add_member(cilli)
        table_id, lobby = await open_table(rig, players, "/new zweier")

        answer = await press(fake, cilli, lobby, "Start")  # not the host
        assert answer.show_alert and "Only the host (Anna)" in (answer.text or "")
        assert not (await press(fake, anna, lobby, "Start")).show_alert
        group_table = await fake.wait_for_message(players.group, contains="Deal 1")

        # a stranger presses the table's button
        answer = await press(fake, cilli, group_table, "Show my hand")
        assert answer.show_alert and answer.text == "You are not playing at this table."

        # forged payloads: foreign, too long, a game action out of turn
        for data in ("hello", f"{table_id}:1:zz", "x" * 100):
            answer = await fake.wait_answer(anna.press_data(group_table, data))
            assert answer.show_alert and answer.text == "That button is not one of mine."
        table = rig.table(table_id)
        assert table is not None
        waiting = players.users[1 - (table.to_act() or 0)]
        hand = await fake.wait_for(lambda: hand_message(waiting, table_id), what="a hand")
        forged = f"{table_id}:{table.version}:a0"
        answer = await fake.wait_answer(waiting.press_data(hand, forged))
        assert answer.show_alert and answer.text == "It is not your turn."

        # a double press: both answered (each its own answer, in 5 s; not "in 1 s",
        # which a busy machine could miss), the second one refused
        actor = players.users[table.to_act() or 0]
        hand = await fake.wait_for(
            lambda: m if (m := hand_message(actor, table_id)) and m.buttons() else None,
            what="buttons",
        )
        button = hand.buttons()[0]
        version = table.version
        first, second = actor.press(hand, button.data), actor.press(hand, button.data)
        answers = await asyncio.gather(fake.wait_answer(first), fake.wait_answer(second))
        assert sorted(a.show_alert for a in answers) == [False, True]
        assert any("out of date" in (a.text or "") for a in answers)
        await fake.wait_for(lambda: table.version > version, what="the one move")
        assert table.version == version + 1

        # "Show my hand" in the group edits the private hand message, nothing else
        private = hand_message(anna, table_id)
        answer = await press(fake, anna, group_table, "Show my hand")
        assert answer.text == "Your hand is in our private chat." and not answer.show_alert
        assert hand_message(anna, table_id) is private
        assert all(q.answer is not None for q in fake.queries.values())

        # /resign ends the match for everyone; the table's buttons go
        await confirmed(fake, anna, players.group, "/resign")
        summary = await fake.wait_for_message(players.group, contains="Anna resigned.")
        assert "Game over!" in summary.text
        await rig.adapter.outbox.drain()
        assert group_table.buttons() == [] and rig.table(table_id) is None
    finally:
        await stop_rig(rig)


async def test_flood_control_429_is_honoured(
    fake: FakeTelegram, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PTB_TIMEDELTA", "1")  # PTB's own RetryAfter warns otherwise
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players = make_players(fake, ["Anna", "Berti"])
        table_id, lobby = await open_table(rig, players, "/new zweier")
        since = len(fake.calls)
        fake.fail_next("editMessageText", times=1, retry_after=1)
        answer = await press(fake, players.users[0], lobby, "Start")
        assert not answer.show_alert
        await play(rig, table_id, players.users, until=lambda: False, limit=3)
        assert await rig.adapter.outbox.drain(5)
        edits = [c for c in fake.calls[since:] if c.method == "editMessageText"]
        assert edits[0].status == 429 and all(c.status == 200 for c in edits[1:])
        # answered before the wait was over (the edit tried again), not after it: no
        # bound of 0.5 s from the press, which a busy machine could miss
        assert answer.answered_at < edits[1].at
        assert rig.adapter.outbox.stats.retry_after == 1
        # nothing was dropped: the lobby and the table show the final state
        assert lobby.buttons() == []
        view = rig.service.table(table_id)
        assert view is not None
        shown = table_messages(players.group.bot_messages(), table_id)[-1]
        assert shown.text == view.message.text
    finally:
        await stop_rig(rig)


async def test_real_rate_limits(fake: FakeTelegram, tmp_path: Path) -> None:
    """With Telegram's limits and the adapter's default pace: no 429, and changes made
    while the group's edit is on its way are coalesced into the next one."""
    fake.limits = replace(fake.limits, rate=RateLimits())
    from adapters.telegram import Throttle

    rig = await start_rig(fake, tmp_path / "bot.sqlite3", throttle=Throttle())
    try:
        players = make_players(fake, ["Anna", "Berti"])
        table_id, lobby = await open_table(rig, players, "/new zweier")
        assert not (await press(fake, players.users[0], lobby, "Start")).show_alert
        # the group's table edits wait on their way while the six moves are made (a
        # pace of one message a second would do the same, were the players quicker
        # than the answers of a loaded machine)
        slow = fake.hold("editMessageText", chat=players.group)
        presses = await play(rig, table_id, players.users, until=lambda: False, limit=6)
        slow.release()
        assert await rig.adapter.outbox.drain(10)
        assert not [c for c in fake.calls if c.status == 429]
        view = rig.service.table(table_id)
        assert view is not None
        shown = table_messages(players.group.bot_messages(), table_id)[-1]
        assert shown.text == view.message.text  # the newest state, nothing dropped
        group_edits = [
            c for c in fake.calls_to("editMessageText") if c.params["chat_id"] == players.group.id
        ]
        assert len(group_edits) < presses + 2  # coalesced: fewer edits than changes
    finally:
        await stop_rig(rig)
        fake.limits = Limits(rate=None)


async def test_webhook_mode_dedupes_updates(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "bot.sqlite3"
    config = webhook_config(fake, db, telegram_webhook_secret="s3cret-Token_1")
    rig = await start_rig(fake, db, config=config)
    try:
        assert fake.webhook is not None and fake.webhook.secret_token == "s3cret-Token_1"
        players = make_players(fake, ["Anna", "Berti"])
        anna = players.users[0]
        sent = anna.send(players.group, "/new zweier")
        lobby = await fake.wait_for_message(players.group, contains="Host:")
        assert sent.update_id is not None
        assert await fake.deliver_webhook(sent.update_id) == 200  # Telegram repeats itself
        assert await fake.deliver_webhook(sent.update_id, secret="wrong") == 403
        answer = await press(fake, players.users[1], lobby, "Join")
        assert not answer.show_alert
        await rig.adapter.outbox.drain()
        # the repeated /new was dropped: no "already at a table" reply, one lobby
        assert [m.message_id for m in players.group.bot_messages()] == [lobby.message_id]
    finally:
        await stop_rig(rig)
    assert fake.webhook is not None  # the webhook stays set for the next start


async def test_a_webhook_without_a_secret_gets_one(fake: FakeTelegram, tmp_path: Path) -> None:
    """TELEGRAM_WEBHOOK_SECRET left out: the bot derives one from its token and
    registers it, so an update posted to its port by anyone but Telegram (in any
    user's name) gets 403; the next start registers the same one, so what Telegram
    retries across a restart is taken."""
    db = tmp_path / "bot.sqlite3"
    config = webhook_config(fake, db)
    rig = await start_rig(fake, db, config=config)
    await stop_rig(rig)
    assert fake.webhook is not None
    first = fake.webhook.secret_token
    rig = await start_rig(fake, db, config=config)
    try:
        assert fake.webhook is not None and len(fake.webhook.secret_token or "") >= 32
        assert fake.webhook.secret_token == first
        players = make_players(fake, ["Anna", "Berti"])
        sent = players.users[0].send(players.group, "/new zweier")
        await fake.wait_for_message(players.group, contains="Host:")
        assert sent.update_id is not None
        assert await fake.deliver_webhook(sent.update_id, secret=None) == 403
        assert await fake.deliver_webhook(sent.update_id, secret="") == 403
        assert await fake.deliver_webhook(sent.update_id) == 200  # Telegram's own
    finally:
        await stop_rig(rig)


async def test_reminder_and_computer_takes_the_seat(fake: FakeTelegram, tmp_path: Path) -> None:
    # the other player presses nothing either: after the computer's move his clock
    # runs, and the take-back must come before it ends (a table all walked away from
    # closes).  So the turns are long, and the test sends the sleeper's reminder and
    # ends his turn itself (with 2 s turns a take-back 2 s late found the table closed)
    quick = timings(turn_timeout=30.0, reminder_before=10.0, missed_turns_limit=1)
    rig = await start_rig(fake, tmp_path / "bot.sqlite3", timing=quick)
    try:
        players, table_id = await started_match(rig, fake)
        table = rig.table(table_id)
        assert table is not None and table.to_act() is not None
        sleeper = players.users[table.to_act() or 0]
        # the reminder comes privately, then the computer plays and the group is told
        assert remind(rig.service, table_id)
        await fake.wait_for_message(sleeper.private_chat, contains="it is your turn")
        assert run_out(rig.service, table_id, f"tg:{sleeper.id}")
        note = await fake.wait_for_message(players.group, contains="missed a turn")
        assert sleeper.first_name in note.text
        group_table = await fake.wait_for(
            lambda: next(
                (
                    m
                    for m in table_messages(players.group.bot_messages(), table_id)
                    if any(b.text == "Take my seat back" for b in m.buttons())
                ),
                None,
            ),
            what="the take-back button",
        )
        answer = await press(fake, sleeper, group_table, "Take my seat back")
        assert not answer.show_alert, answer.text
        # the group that read he was replaced reads that he is back
        back = await fake.wait_for_message(players.group, contains="is back and plays the seat")
        assert sleeper.first_name in back.text
    finally:
        await stop_rig(rig)


async def test_presses_are_answered_while_the_computer_thinks(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """The table lock is held while the computer thinks: answer first, act later."""
    thinking = asyncio.Event()
    gate = asyncio.Event()
    gate.set()

    # the computer thinks until the test lets it (not 1 s, with the answer to come in
    # 0.6 s by the clock: a busy machine can take that long for a press)
    async def slow_ai(choose: Callable[[], int]) -> int:
        thinking.set()
        await gate.wait()
        return choose()

    # the press's own answer, not the early one of a busy table (after 10 s)
    rig = await start_rig(fake, tmp_path / "bot.sqlite3", answer_budget=10.0, ai_runner=slow_ai)
    try:
        players = make_players(fake, ["Anna"])
        anna = players.users[0]
        table_id, lobby = await open_table(rig, players, "/new zweier")
        revisions = len(lobby.revisions)
        assert not (await press(fake, anna, lobby, "Add computer")).show_alert
        await fake.wait_for_edit(lobby, revisions=revisions)
        thinking.clear()
        gate.clear()
        assert not (await press(fake, anna, lobby, "Start")).show_alert
        group_table = await fake.wait_for_message(players.group, contains="Deal 1")
        table = rig.table(table_id)
        assert table is not None
        if table.to_act() == 0:  # Anna leads: play a card so the computer must think
            await play(rig, table_id, players.users, until=lambda: False, limit=1)
        await asyncio.wait_for(thinking.wait(), 5)
        version = table.version
        # answered while the computer thinks: a press that waited for it would wait
        # for good
        answer = await press(fake, anna, group_table, "Show my hand")
        assert answer.text == "Your hand is in our private chat." and not answer.show_alert
        assert table.version == version
        gate.set()
        await fake.wait_for(lambda: table.to_act() == 0, what="the computer's move")
    finally:
        await stop_rig(rig)


async def open_a_table(fake: FakeTelegram, game: str) -> None:
    """Once the bot polls, Anna opens a table in her group and sees its lobby."""
    await fake.wait_for(lambda: fake.in_flight.get("getUpdates"), what="a long poll")
    players = make_players(fake, ["Anna"])
    players.users[0].send(players.group, f"/new {game}")
    await fake.wait_for_message(players.group, contains="Host: Anna")


async def test_app_runner_serves_telegram(fake: FakeTelegram, tmp_path: Path) -> None:
    """`python -m bot`'s runner loads `adapters.telegram` and stops it within its grace."""
    from bot.app import SHUTDOWN_GRACE
    from bot.app import run as run_app

    stop = asyncio.Event()
    config = config_for(fake, tmp_path / "bot.sqlite3")
    task = asyncio.create_task(run_app(config, stop=stop))
    try:
        await open_a_table(fake, "dreier")
    finally:
        stop.set()
        loop = asyncio.get_running_loop()
        began = loop.time()
        assert await asyncio.wait_for(task, SHUTDOWN_GRACE + 2) == 0
        assert loop.time() - began < SHUTDOWN_GRACE


async def _until(check: Callable[[], bool], what: str, timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not check():
        assert loop.time() < end, f"timed out waiting for {what}"
        await asyncio.sleep(0.02)


async def test_telegram_out_of_reach_at_start_is_tried_until_it_answers(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A bot started before its network (or during an outage) waits and comes up,
    with one warning line per attempt, instead of exiting with a traceback."""
    from bot.app import SHUTDOWN_GRACE
    from bot.app import run as run_app

    port = free_port()  # a port where nothing listens yet
    fake = FakeTelegram(limits=Limits(rate=None))
    config = replace_url(config_for(fake, tmp_path / "bot.sqlite3"), f"http://127.0.0.1:{port}/bot")
    caplog.set_level(logging.WARNING, logger="bot.app")
    stop = asyncio.Event()
    task = asyncio.create_task(run_app(config, stop=stop, retry_delays=(0.1, 0.2)))
    try:
        await _until(lambda: caplog.text.count("cannot reach the platform") >= 2, "two attempts")
        assert not task.done()  # still trying, not exited
        await fake.start(port)
        await open_a_table(fake, "zweier")
    finally:
        stop.set()
        code = await asyncio.wait_for(task, SHUTDOWN_GRACE + 2)
        await fake.stop()
    assert code == 0
    tries = retry_warnings(caplog.records)
    assert tries[0].startswith("telegram: cannot reach the platform (NetworkError: ")
    assert "trying again in 0.1 s" in tries[0]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_a_wrong_telegram_token_stops_the_bot_with_one_clear_line(tmp_path: Path) -> None:
    """The log as `python -m bot` writes it (redacting handler, DEBUG so the HTTP
    library logs its URLs too): one error line naming the setting, no traceback."""
    wrong = "7000000001:" + "W" * 35  # well formed, but not the bot's
    async with FakeTelegram(limits=Limits(rate=None)) as fake:
        config = config_for(fake, tmp_path / "bot.sqlite3", log_level="DEBUG").model_copy(
            update={"telegram_token": SecretStr(wrong)}
        )
        code, logs = await run_logged(config, retry_delays=(0.1,))
    assert the_one_error(code, logs).endswith(
        "telegram: Telegram rejected TELEGRAM_TOKEN; copy the token again from @BotFather"
    )
    assert "cannot reach" not in logs  # a wrong token is not retried
    assert "getMe" in logs and wrong.split(":")[1] not in logs


async def test_a_webhook_telegram_refuses_stops_the_bot_with_one_clear_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Telegram answering setWebhook with 400 (say the host does not resolve) is a
    setting to fix, not an outage: one error line naming the settings, no retries."""
    async with FakeTelegram(limits=Limits(rate=None)) as fake:

        async def refuse(params: object) -> bool:
            raise _bad_request("Bad webhook: Failed to resolve host: Name or service not known")

        monkeypatch.setitem(fake._methods, "setwebhook", ("setWebhook", refuse))
        config = config_for(
            fake,
            tmp_path / "bot.sqlite3",
            telegram_webhook_url="https://nowhere.invalid/tg/hook",
            telegram_webhook_listen="127.0.0.1",
            telegram_webhook_port=free_port(),
        )
        code, logs = await run_logged(config, retry_delays=(0.1,))
    assert the_one_error(code, logs).endswith(
        "telegram: Telegram refused the start-up (Bad webhook: failed to resolve host: "
        "name or service not known); check TELEGRAM_WEBHOOK_URL / TELEGRAM_WEBHOOK_SECRET"
    )
    assert "cannot reach" not in logs


def replace_url(config: Config, url: str) -> Config:
    return config.model_copy(update={"telegram_api_url": url})


def held_pace(
    outbox: Outbox, monkeypatch: pytest.MonkeyPatch
) -> tuple[asyncio.Event, asyncio.Event]:
    """From now on the outbox's requests wait for their slot in the pace until
    `go_on` is set; `waiting` is set once one waits (the worker holds its op then,
    not sending it: what an edit made meanwhile does to it is what a test looks at)."""
    waiting, go_on = asyncio.Event(), asyncio.Event()
    pace = outbox._pace

    async def held(chat: ChatQueue) -> None:
        waiting.set()
        await go_on.wait()
        await pace(chat)

    monkeypatch.setattr(outbox, "_pace", held)
    return waiting, go_on


async def edit_behind_one_on_its_way(
    fake: FakeTelegram, outbox: Outbox, handle: Handle, shown: str, on_its_way: str, behind: str
) -> Hold:
    """The message is posted showing `shown`; Telegram's answer to its edit to
    `on_its_way` is held (the returned hold), and the edit to `behind` waits in the
    queue behind it: where the races of an edit on its way begin."""
    from adapters.telegram import Content

    outbox.post(handle, Content(shown))
    assert await outbox.drain(5)
    held = fake.hold("editMessageText", chat=handle.chat_id)
    outbox.edit(handle, Content(on_its_way))
    await held.wait_held()
    outbox.edit(handle, Content(behind))
    return held


@contextlib.asynccontextmanager
async def one_message_posted(
    fake: FakeTelegram, text: str
) -> AsyncIterator[tuple[FakeChat, Outbox, Handle]]:
    """A group, a bot's outbox keeping no pace, and a message of table t1 posted
    there showing `text`; the outbox is closed at the end."""
    from adapters.telegram import Content, Throttle

    group = fake.create_group("Schnapsen")
    async with fake.make_bot() as bot:
        outbox = Outbox(bot, throttle=Throttle.off())
        handle = Handle(group.id, "t1", None)
        outbox.post(handle, Content(text))
        assert await outbox.drain(5)
        yield group, outbox, handle
        await outbox.close()


async def test_outbox_coalesces_edits_and_keeps_order(fake: FakeTelegram) -> None:
    """Ten quick edits of one message under a 1/s pace: one post, one edit, newest text."""
    from adapters.telegram import Content, Handle, Outbox, Throttle

    group = fake.create_group("Schnapsen")
    async with fake.make_bot() as bot:
        # a group's own pace (20 a minute) made fast: the worker idles out only once
        # every pace of its chat has refilled, which that one takes 6 s to
        pace = Throttle(per_chat_burst=1, per_group_per_minute=600.0)
        outbox = Outbox(bot, throttle=pace, idle_after=0.05)
        handle = Handle(group.id, "t1", None)
        outbox.post(handle, Content("move 0"))
        for n in range(1, 10):
            outbox.edit(handle, Content(f"move {n}"))
        outbox.send(group.id, Content("result"))
        assert await outbox.drain(5)
        sent = group.bot_messages()
        assert [m.text for m in sent] == ["move 9", "result"]
        assert outbox.stats.requests == 2 and outbox.stats.coalesced == 9
        outbox.edit(handle, Content("move 9"))  # what it shows already: no request

        # its worker idles out: waited for, not slept on (it ends once the chat's
        # 1/s pace has refilled, later on a loaded machine), or the edit below would
        # go to the worker still there and test nothing
        def ended() -> bool:
            chat = outbox._chats.get(group.id)
            return chat is None or chat.task is None or chat.task.done()

        await fake.wait_for(ended, what="the idle worker to end")
        outbox.edit(handle, Content("final"))
        assert await outbox.drain(5)
        assert sent[0].text == "final" and outbox.stats.requests == 3
        await outbox.close()


async def test_an_edit_made_while_a_failed_edit_waits_to_retry_leaves_the_newest_text(
    fake: FakeTelegram, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Telegram cuts an edit on its way (an outage) while the next edit of the same
    message waits behind it; a third edit comes while the cut one waits to be tried
    again.  The message ends showing the third, not the second: after an outage the
    group's table (and a player's hand, buttons and all) showed a move behind until
    the next move."""
    from adapters.telegram import Content, Handle, Outbox, Throttle

    group = fake.create_group("Schnapsen")
    async with fake.make_bot() as bot:
        outbox = Outbox(bot, throttle=Throttle.off())
        handle = Handle(group.id, "t1", None)
        # the edit to "move 2" waits behind the one to "move 1", on its way
        held = await edit_behind_one_on_its_way(fake, outbox, handle, "move 0", "move 1", "move 2")

        # the retry of the cut edit waits for its slot in the pace until we say
        waiting, go_on = held_pace(outbox, monkeypatch)
        held.drop()  # cut on its way: tried again
        await asyncio.wait_for(waiting.wait(), 5)
        outbox.edit(handle, Content("move 3"))
        go_on.set()
        assert await outbox.drain(5)
        assert group.bot_messages()[-1].text == "move 3"
        await outbox.close()


async def test_edits_queued_behind_a_refused_edit_go_out_merged_once_the_429_wait_is_over(
    fake: FakeTelegram, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Flood control refuses an edit while two newer edits of the same message wait
    behind it: after the wait one edit shows the newest, not the refused one alone
    (the table a move behind) nor it and then the others (more requests into a limit
    just hit), and a message queued after them still comes last."""
    from adapters.telegram import Content, Handle, Outbox, Throttle

    monkeypatch.setenv("PTB_TIMEDELTA", "1")  # PTB's own RetryAfter warns otherwise

    group = fake.create_group("Schnapsen")
    async with fake.make_bot() as bot:
        outbox = Outbox(bot, throttle=Throttle.off())
        lobby, handle = Handle(group.id, "t1", None), Handle(group.id, "t1", None)
        outbox.post(lobby, Content("lobby"))
        outbox.post(handle, Content("move 0"))
        assert await outbox.drain(5)
        held = fake.hold("editMessageText", chat=group)
        outbox.edit(handle, Content("move 1"))
        await held.wait_held()
        outbox.edit(handle, Content("move 2"))  # the first is on its way: these wait
        outbox.edit(handle, Content("move 3"))
        outbox.edit(lobby, Content("lobby, started"))  # another message's: its own edit
        outbox.send(group.id, Content("result"))
        fake.fail_next("editMessageText", retry_after=1)
        waiting, go_on = held_pace(outbox, monkeypatch)
        held.release()
        # the refused edit, waited out and holding move 3, waits for its slot: one
        # more move goes into it too, not into an edit of its own after the others
        await asyncio.wait_for(waiting.wait(), 5)
        outbox.edit(handle, Content("move 4"))
        go_on.set()
        assert await outbox.drain(5)
        edits = fake.calls_to("editMessageText")
        assert [(c.status, c.params["text"]) for c in edits] == [
            (429, "move 1"),
            (200, "move 4"),
            (200, "lobby, started"),
        ]
        assert [m.text for m in group.bot_messages()] == ["lobby, started", "move 4", "result"]
        assert outbox.stats.coalesced == 3  # move 3 into move 2, that into 1, and move 4
        await outbox.close()


async def test_a_message_made_history_loses_its_buttons_and_keeps_its_newest_text(
    fake: FakeTelegram, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Freezing a message (a lobby whose match started, a table after its deal) takes
    its buttons off with the edit still waiting for it, not in a request of its own;
    a message of the last run (its ref restored, what it shows unknown) loses its
    buttons and keeps its text, and an edit made while that is refused by flood
    control shows once the wait is over, not lost to the buttons' removal."""
    from adapters.telegram import Content, Handle, Outbox, Throttle
    from adapters.telegram.content import Btn

    monkeypatch.setenv("PTB_TIMEDELTA", "1")  # PTB's own RetryAfter warns otherwise
    group = fake.create_group("Schnapsen")
    buttons = ((Btn("Join", data="t1:1:j"),),)
    async with fake.make_bot() as bot:
        outbox = Outbox(bot, throttle=Throttle.off())
        lobby, old = Handle(group.id, "t1", None), Handle(group.id, "t0", None)
        outbox.post(old, Content("last run's table", buttons))
        outbox.post(lobby, Content("lobby", buttons))
        assert await outbox.drain(5)
        requests = outbox.stats.requests
        outbox.edit(lobby, Content("lobby, started", buttons))
        outbox.freeze(lobby)
        assert await outbox.drain(5)
        assert outbox.stats.requests == requests + 1
        shown = group.bot_messages()[1]
        assert shown.text == "lobby, started" and shown.buttons() == []

        restored = Handle(group.id, "t0", None, message_id=old.message_id)
        outbox.freeze(restored)
        assert await outbox.drain(5)
        shown = group.bot_messages()[0]
        assert shown.text == "last run's table" and shown.buttons() == []
        held = fake.hold("editMessageReplyMarkup", chat=group)
        outbox.freeze(restored)
        await held.wait_held()
        outbox.edit(restored, Content("last run's table, closed"))
        fake.fail_next("editMessageReplyMarkup", retry_after=1)
        held.release()
        assert await outbox.drain(5)
        shown = group.bot_messages()[0]
        assert shown.text == "last run's table, closed" and shown.buttons() == []
        # and edited before its buttons' removal even went out: the edit it becomes
        again = Handle(group.id, "t0", None, message_id=old.message_id)
        outbox.freeze(again)
        outbox.edit(again, Content("last run's table, gone"))
        assert await outbox.drain(5)
        assert group.bot_messages()[0].text == "last run's table, gone"
        await outbox.close()


async def test_a_restored_message_frozen_twice_while_flood_control_holds_it_loses_its_buttons_once(
    fake: FakeTelegram, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A table of the last run (its ref restored, what it shows unknown) is frozen, and
    frozen again while the removal of its buttons is on its way; flood control refuses
    that removal.  After the wait the buttons come off in one request: not left on,
    nor taken off twice (one more request into a limit just hit).  Then, frozen and
    edited again while an admin deletes it, and refused again: the newest text is
    posted anew, not lost."""
    from adapters.telegram import Content, Handle, Outbox, Throttle
    from adapters.telegram.content import Btn

    monkeypatch.setenv("PTB_TIMEDELTA", "1")  # PTB's own RetryAfter warns otherwise
    anna = fake.create_user("Anna", started=True)
    group = fake.create_group("Schnapsen", admins=[anna])
    async with fake.make_bot() as bot:
        outbox = Outbox(bot, throttle=Throttle.off())
        old = Handle(group.id, "t0", None)
        outbox.post(old, Content("last run's table", ((Btn("Play", data="t0:3:a0"),),)))
        assert await outbox.drain(5)
        restored = Handle(group.id, "t0", None, message_id=old.message_id)
        held = fake.hold("editMessageReplyMarkup", chat=group)
        outbox.freeze(restored)
        await held.wait_held()
        outbox.freeze(restored)
        fake.fail_next("editMessageReplyMarkup", retry_after=1)
        held.release()
        assert await outbox.drain(5)
        assert [c.status for c in fake.calls_to("editMessageReplyMarkup")] == [429, 200]
        [shown] = group.bot_messages()
        assert shown.text == "last run's table" and shown.buttons() == []

        held = fake.hold("editMessageReplyMarkup", chat=group)
        outbox.freeze(restored)
        await held.wait_held()
        outbox.edit(restored, Content("last run's table, closed"))
        anna.delete(shown)
        fake.fail_next("editMessageReplyMarkup", retry_after=1)
        held.release()
        assert await outbox.drain(5)
        assert [m.text for m in group.bot_messages()] == ["last run's table, closed"]
        await outbox.close()


async def test_messages_gone_already_are_not_posted_anew_to_lose_buttons_nor_failed_to_delete(
    fake: FakeTelegram,
) -> None:
    """An admin deleted the last run's table message, and Anna her turn's ping.  Taking
    the buttons off the table (its ref restored, its text unknown) asks Telegram once
    and posts nothing in its place (there is nothing to take them off: a new message
    would be a stray "…"); deleting the ping asks once and counts nothing failed; and
    the next message goes out."""
    from adapters.telegram import Content, Handle, Outbox, Throttle
    from adapters.telegram.content import Btn

    anna = fake.create_user("Anna", started=True)
    group = fake.create_group("Schnapsen", admins=[anna])
    async with fake.make_bot() as bot:
        outbox = Outbox(bot, throttle=Throttle.off())
        table, ping = Handle(group.id, "t0", None), Handle(anna.id, "t0", None)
        outbox.post(table, Content("last run's table", ((Btn("Play", data="t0:3:a0"),),)))
        outbox.post(ping, Content("Anna, your turn"))
        assert await outbox.drain(5)
        anna.delete(group.bot_messages()[0])
        anna.delete(anna.private_chat.bot_messages()[0])

        restored = Handle(group.id, "t0", None, message_id=table.message_id)
        outbox.freeze(restored)
        outbox.delete(ping)
        outbox.send(group.id, Content("Deal 1 over"))
        assert await outbox.drain(5)
        assert [m.text for m in group.bot_messages()] == ["Deal 1 over"]
        assert anna.private_chat.bot_messages() == []
        assert [c.status for c in fake.calls_to("editMessageReplyMarkup")] == [400]
        assert [c.status for c in fake.calls_to("deleteMessage")] == [400]
        assert outbox.stats.failed == 0
        await outbox.close()


async def test_a_table_telegram_will_not_edit_any_more_is_posted_anew(fake: FakeTelegram) -> None:
    """Telegram refuses to edit the table's message ("message can't be edited", as for
    one too old): the move is shown in a new message, not lost, and the next edit goes
    to that one."""
    from adapters.telegram import Content

    async with one_message_posted(fake, "deal 1") as (group, outbox, table):
        refusal = "Bad Request: message can't be edited"
        fake.fail_next("editMessageText", error_code=400, description=refusal)
        outbox.edit(table, Content("deal 1, trick 2"))
        assert await outbox.drain(5)
        outbox.edit(table, Content("deal 1, trick 3"))
        assert await outbox.drain(5)
        assert [m.text for m in group.bot_messages()] == ["deal 1", "deal 1, trick 3"]
        assert outbox.stats.failed == 0


async def test_a_move_made_while_a_deleted_table_waits_to_be_posted_anew_goes_into_that_post(
    fake: FakeTelegram, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An admin deleted the table's message while its next move's edit was on its
    way: Telegram answers "message to edit not found", so the table is posted anew,
    and another move comes while that post waits for its slot in the pace.  One new
    message shows the newer move: not a post of the older one with an edit right
    behind it, one request more into the group's limits."""
    from adapters.telegram import Content, Throttle

    anna = fake.create_user("Anna", started=True)
    group = fake.create_group("Schnapsen", admins=[anna])
    async with fake.make_bot() as bot:
        outbox = Outbox(bot, throttle=Throttle.off())
        table = Handle(group.id, "t1", None)
        outbox.post(table, Content("deal 1"))
        assert await outbox.drain(5)
        held = fake.hold("editMessageText", chat=group)
        outbox.edit(table, Content("deal 1, trick 2"))
        await held.wait_held()
        anna.delete(group.bot_messages()[0])
        waiting, go_on = held_pace(outbox, monkeypatch)
        held.release()
        await asyncio.wait_for(waiting.wait(), 5)  # refused; the new post waits its turn
        outbox.edit(table, Content("deal 1, trick 3"))
        go_on.set()
        assert await outbox.drain(5)
        assert [m.text for m in group.bot_messages()] == ["deal 1, trick 3"]
        assert len(fake.calls_to("sendMessage")) == 2
        assert [c.status for c in fake.calls_to("editMessageText")] == [400]
        await outbox.close()


async def test_a_message_telegram_keeps_failing_on_is_given_up_and_its_chat_goes_on(
    fake: FakeTelegram,
) -> None:
    """Telegram answering a bad gateway to every try of one message (the request may
    have arrived, so each try uses one of `max_attempts`): once they are used up it is
    given up, and what was queued behind it goes out, not held up for ever.  One it
    refuses outright is given up at once, with nothing in its place."""
    from adapters.telegram import Content, Outbox, Throttle

    group = fake.create_group("Schnapsen")
    async with fake.make_bot() as bot:
        outbox = Outbox(bot, throttle=Throttle.off(), max_attempts=2)
        fake.fail_next("sendMessage", times=3, error_code=502)
        outbox.send(group.id, Content("deal 1 over"))
        outbox.send(group.id, Content("deal 2"))
        assert await outbox.drain(5)
        assert [c.status for c in fake.calls_to("sendMessage")] == [502, 502, 502, 200]
        assert [m.text for m in group.bot_messages()] == ["deal 2"]
        assert outbox.stats.failed == 1

        # refused for a reason of its own (not the chat's): given up at once, and
        # nothing sent in its place, having no fallback
        fake.fail_next("sendMessage", error_code=400, description="Bad Request: can't parse")
        outbox.send(group.id, Content("deal 2 over"))
        outbox.send(group.id, Content("deal 3"))
        assert await outbox.drain(5)
        assert [m.text for m in group.bot_messages()] == ["deal 2", "deal 3"]
        assert outbox.stats.failed == 2
        await outbox.close()


async def test_an_edit_whose_answer_is_lost_is_tried_again_later_each_time_with_the_newest_text(
    fake: FakeTelegram, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Telegram's answer to an edit of the table is lost on the way (it may have
    arrived), then it answers Bad Gateway twice: the bot pauses before each new try,
    twice as long each time (a network in trouble is not hammered), and a move made
    during the first pause goes out in the next try, not after one more try of the
    old table (a request more, the old table shown again for a moment)."""
    from adapters.telegram import Content, Throttle, sending

    pauses = HeldPauses()
    monkeypatch.setattr(sending, "asyncio", pauses)
    group = fake.create_group("Schnapsen")
    async with fake.make_bot() as bot:
        outbox = Outbox(bot, throttle=Throttle.off())
        handle = Handle(group.id, "t1", None)
        outbox.post(handle, Content("move 0"))
        assert await outbox.drain(5)
        fake.lose_answer_next("editMessageText")
        fake.fail_next("editMessageText", times=2, error_code=502)
        outbox.edit(handle, Content("move 1"))
        first = await pauses.paused()
        outbox.edit(handle, Content("move 2"))
        first.set()
        (await pauses.paused()).set()
        (await pauses.paused()).set()
        assert await outbox.drain(5)
        edits = fake.calls_to("editMessageText")
        assert [(c.params["text"], c.status) for c in edits] == [
            ("move 1", 0),
            *[("move 2", 502)] * 2,
            ("move 2", 200),
        ]
        assert pauses.seconds == [0.4, 0.8, 1.6]
        assert group.bot_messages()[-1].text == "move 2" and outbox.stats.failed == 0
        await outbox.close()


async def test_a_message_sent_in_an_outage_uses_up_its_attempts_only_on_tries_that_arrived(
    fake: FakeTelegram, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Telegram is out of reach for five tries of a deal's result (no connection: it
    never arrived), then answers Bad Gateway twice (each may have arrived): the bot
    pauses longer before each try, up to 5 s (an outage of an hour is asked about
    every 5 s, neither hammered nor given up), the tries that never connected use up
    none of its two attempts, and the two that arrived use them up: it is given up
    then, not tried on as if the outage had cost nothing, nor at the first Bad
    Gateway; the next message goes out."""
    from adapters.telegram import Content, Throttle, sending

    pauses = HeldPauses()
    monkeypatch.setattr(sending, "asyncio", pauses)
    group = fake.create_group("Schnapsen")
    async with fake.make_bot() as bot:
        outbox = Outbox(bot, throttle=Throttle.off(), max_attempts=2)
        await fake.go_offline()
        fake.fail_next("sendMessage", times=2, error_code=502)  # the first that arrive
        outbox.send(group.id, Content("Deal 1 over"))
        outbox.send(group.id, Content("Deal 2"))
        for _ in range(4):
            (await pauses.paused()).set()
        last = await pauses.paused()
        await fake.come_back()
        last.set()
        (await pauses.paused()).set()
        assert await outbox.drain(5)
        assert [c.status for c in fake.calls_to("sendMessage")] == [502, 502, 200]
        assert [m.text for m in group.bot_messages()] == ["Deal 2"]
        assert pauses.seconds == [0.4, 0.8, 1.6, 3.2, 5.0, 5.0]
        assert (outbox.stats.unreachable, outbox.stats.failed) == (5, 1)
        await outbox.close()


async def test_a_record_telegram_keeps_failing_on_is_given_up_without_try_again_in_one_line(
    fake: FakeTelegram, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Telegram answers Bad Gateway to both tries of a record (each may have
    arrived): it is given up, and the group reads no "please try again" (the record
    may well be there), only its next message; the log says so in one warning."""
    from adapters.telegram import Content, Throttle, sending
    from adapters.telegram.content import Attachment

    caplog.set_level(logging.INFO)
    pauses = HeldPauses()
    monkeypatch.setattr(sending, "asyncio", pauses)
    group = fake.create_group("Schnapsen")
    async with fake.make_bot() as bot:
        outbox = Outbox(bot, throttle=Throttle.off(), max_attempts=2)
        fake.fail_next("sendDocument", times=2, error_code=502)
        failed = Content("Something went wrong; please try again.")
        outbox.send_file(group.id, Attachment("r.json", b"{}"), "The record", fallback=failed)
        outbox.send(group.id, Content("Deal 1"))
        (await pauses.paused()).set()
        assert await outbox.drain(5)
        assert [c.status for c in fake.calls_to("sendDocument")] == [502, 502]
        assert [m.text for m in group.bot_messages()] == ["Deal 1"]
        [said] = warned(caplog, under=("adapters",))
        assert said.startswith(f"giving up a document in chat {group.id}: "), said
        assert said.endswith("it may have arrived, so no fallback"), said
        await outbox.close()


async def test_a_message_telegram_answers_with_an_error_of_no_known_kind_is_given_up_at_once(
    fake: FakeTelegram, caplog: pytest.LogCaptureFixture
) -> None:
    """Telegram answering Anna's hand with an error PTB knows no remedy for (a 409
    Conflict: no network trouble, no flood control, no refusal of the chat): that one
    try is all it costs, it is not sent again; one warning says which message in which
    chat and why (not what it says: no card), and the chat's next message goes out."""
    from adapters.telegram import Content, Outbox, Throttle

    caplog.set_level(logging.WARNING, logger="adapters.telegram")
    chat = fake.create_user("Anna", started=True).private_chat
    async with fake.make_bot() as bot:
        outbox = Outbox(bot, throttle=Throttle.off())
        fake.fail_next("sendMessage", error_code=409, description="Conflict: odd")
        outbox.send(chat.id, Content("Your hand: A♥ 10♠"))
        outbox.send(chat.id, Content("Your turn"))
        assert await outbox.drain(5)
        assert [c.status for c in fake.calls_to("sendMessage")] == [409, 200]
        assert [m.text for m in chat.bot_messages()] == ["Your turn"]
        assert outbox.stats.failed == 1
        [warning] = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
        assert f"a send in chat {chat.id}" in warning and "Conflict: odd" in warning, warning
        assert "♥" not in warning and "♠" not in warning, warning
        await outbox.close()


async def test_a_lobby_changed_back_while_its_edit_is_on_its_way_ends_as_changed_back(
    fake: FakeTelegram, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Berti joins and leaves again while the lobby's edit showing him is on its way:
    the lobby ends showing the seat free, though that is what it showed before, not
    Berti in a seat he left.  And a lobby changed while its first post waits for its
    slot is posted as it is then, in one request."""
    from adapters.telegram import Content, Handle, Outbox, Throttle

    group = fake.create_group("Schnapsen")
    async with fake.make_bot() as bot:
        outbox = Outbox(bot, throttle=Throttle.off())
        lobby = Handle(group.id, "t1", None)
        free, berti = "1. Anna 2. (free)", "1. Anna 2. Berti"
        held = await edit_behind_one_on_its_way(fake, outbox, lobby, free, berti, free)
        held.release()
        assert await outbox.drain(5)
        assert group.bot_messages()[0].text == "1. Anna 2. (free)"

        waiting, go_on = held_pace(outbox, monkeypatch)
        second = Handle(group.id, "t2", None)
        outbox.post(second, Content("1. Carl 2. (free)"))
        await asyncio.wait_for(waiting.wait(), 5)
        outbox.edit(second, Content("1. Carl 2. Dora"))
        go_on.set()
        assert await outbox.drain(5)
        assert group.bot_messages()[1].text == "1. Carl 2. Dora"
        assert len(fake.calls_to("sendMessage")) == 2 and len(fake.calls_to("editMessageText")) == 2
        await outbox.close()


async def test_a_user_who_blocked_the_bot_gets_one_refused_request_and_no_old_hand_later(
    fake: FakeTelegram,
) -> None:
    """Carl blocked the bot, and the bot does not know yet: his hand's post is refused
    (403), and what waits behind it for his chat (a note) is dropped untried, not
    refused once more, telling the adapter again.  Once he lets the bot in again,
    freezing the hand that never arrived posts nothing: not a stale copy of his old
    hand above the new one."""
    from adapters.telegram import Content, Handle, Outbox, Throttle

    carl = fake.create_user("Carl", started=True)
    carl.block_bot()
    async with fake.make_bot() as bot:
        told: list[int] = []
        outbox = Outbox(bot, throttle=Throttle.off(), on_refused=told.append)
        hand = Handle(carl.id, "t1", None)
        outbox.post(hand, Content("your hand: A♥ K♥"))
        outbox.send(carl.id, Content("Deal 1 over"))
        assert await outbox.drain(5)
        assert [c.status for c in fake.calls_to("sendMessage")] == [403]
        assert told == [carl.id] and outbox.blocked(carl.id) and hand.dead

        carl.start_bot()
        outbox.unblock(carl.id)
        outbox.freeze(hand)
        outbox.send(carl.id, Content("Welcome back"))
        assert await outbox.drain(5)
        assert [m.text for m in carl.private_chat.bot_messages()] == ["Welcome back"]
        await outbox.close()


async def test_a_chat_shut_out_while_its_message_waits_out_flood_control_gets_no_retry(
    fake: FakeTelegram, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Carl blocks the bot while his hand waits out a 429 (the adapter learns it from
    Telegram's update and `block`s his chat): the hand is not tried again after the
    wait, a request Telegram would refuse anyway, and it is marked dead, so letting
    him in again posts no stale copy of it.  Nor is a one-off message (a deal's
    result) waiting out a 429 when he blocks the bot again."""
    from adapters.telegram import Content, Handle, Outbox, Throttle

    monkeypatch.setenv("PTB_TIMEDELTA", "1")  # PTB's own RetryAfter warns otherwise
    carl = fake.create_user("Carl", started=True)
    async with fake.make_bot() as bot:
        told: list[int] = []
        outbox = Outbox(bot, throttle=Throttle.off(), on_refused=told.append)
        hand = Handle(carl.id, "t1", None)
        fake.fail_next("sendMessage", retry_after=1)
        outbox.post(hand, Content("your hand: A♥ K♥"))
        await fake.wait_for(lambda: outbox.stats.retry_after == 1, what="the 429")
        carl.block_bot()
        outbox.block(carl.id)
        assert await outbox.drain(5)
        assert [c.status for c in fake.calls_to("sendMessage")] == [429]
        assert told == [] and hand.dead

        carl.start_bot()
        outbox.unblock(carl.id)
        outbox.freeze(hand)
        assert await outbox.drain(5)
        assert carl.private_chat.bot_messages() == []

        fake.fail_next("sendMessage", retry_after=1)
        outbox.send(carl.id, Content("Deal 1 over"))
        await fake.wait_for(lambda: outbox.stats.retry_after == 2, what="the second 429")
        carl.block_bot()
        outbox.block(carl.id)
        assert await outbox.drain(5)
        assert [c.status for c in fake.calls_to("sendMessage")] == [429, 429]
        assert told == []
        await outbox.close()


async def test_a_group_upgraded_while_its_message_waits_out_flood_control_gets_it_there(
    fake: FakeTelegram, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The group becomes a supergroup while the deal's result waits out a 429, and the
    adapter hears of it (the service message: `migrate`): the result goes to the
    supergroup, with no request to the old group first (Telegram would refuse it,
    one request more into a limit just hit)."""
    from adapters.telegram import Content, Outbox, Throttle

    monkeypatch.setenv("PTB_TIMEDELTA", "1")  # PTB's own RetryAfter warns otherwise
    group = fake.create_group("Schnapsen", supergroup=False)
    async with fake.make_bot() as bot:
        outbox = Outbox(bot, throttle=Throttle.off())
        fake.fail_next("sendMessage", retry_after=1)
        outbox.send(group.id, Content("Deal 1 over"))
        await fake.wait_for(lambda: outbox.stats.retry_after == 1, what="the 429")
        supergroup = fake.migrate_group(group, service_messages=False)
        outbox.migrate(group.id, supergroup.id)
        assert await outbox.drain(5)
        sent = fake.calls_to("sendMessage")
        assert [(c.status, c.params["chat_id"]) for c in sent] == [
            (429, group.id),
            (200, supergroup.id),
        ]
        assert [m.text for m in supergroup.bot_messages()] == ["Deal 1 over"]
        await outbox.close()


async def test_a_ping_whose_post_never_went_through_is_not_deleted(fake: FakeTelegram) -> None:
    """A turn's ping Telegram refused (for a reason of its own) is deleted once the
    player moved: nothing is asked of Telegram (there is no message), and no error
    is logged; the chat's next message goes out."""
    from adapters.telegram import Content, Handle, Outbox, Throttle

    anna = fake.create_user("Anna", started=True)
    async with fake.make_bot() as bot:
        outbox = Outbox(bot, throttle=Throttle.off())
        ping = Handle(anna.id, "t1", None)
        fake.fail_next("sendMessage", error_code=400, description="Bad Request: can't parse")
        outbox.post(ping, Content("Your turn"))
        outbox.delete(ping)
        outbox.send(anna.id, Content("Deal 1 over"))
        assert await outbox.drain(5)
        assert fake.calls_to("deleteMessage") == []
        assert [m.text for m in anna.private_chat.bot_messages()] == ["Deal 1 over"]
        await outbox.close()


async def test_a_message_telegram_says_shows_its_text_already_is_not_edited_to_it_again(
    fake: FakeTelegram,
) -> None:
    """The lobby of the last run (its ref restored, what it shows unknown) is edited
    to what it shows already: Telegram answers "message is not modified", and from
    then on the bot knows it shows that; the same text again costs no request
    (every press redraws the lobby: a request each would run into the limits)."""
    from adapters.telegram import Content

    async with one_message_posted(fake, "1. Anna 2. (free)") as (group, outbox, lobby):
        restored = Handle(group.id, "t1", None, message_id=lobby.message_id)
        outbox.edit(restored, Content("1. Anna 2. (free)"))
        assert await outbox.drain(5)
        outbox.edit(restored, Content("1. Anna 2. (free)"))
        assert await outbox.drain(5)
        assert len(fake.calls_to("editMessageText")) == 1
        assert outbox.stats.not_modified == 1 and outbox.stats.failed == 0


async def test_an_abort_vote_leaves_the_hand_buttons_working(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """A guest's /abort is a vote; the player to act can still press the buttons of
    his hand message afterwards (they are drawn again), and the group sees the vote."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players = make_players(fake, ["Anna", "Berti"])
        anna, berti = players.users
        table_id, lobby = await open_table(rig, players, "/new zweier")
        assert not (await press(fake, anna, lobby, "Start")).show_alert
        await fake.wait_for_message(players.group, contains="Deal 1")
        table = rig.table(table_id)
        assert table is not None
        actor = players.users[table.to_act() or 0]
        berti.send(players.group, "/abort")  # a vote: 1 of 2
        await fake.wait_for_message(players.group, contains="1 of the 2 needed")
        hand = await fake.wait_for(
            lambda: (
                m
                if (m := hand_message(actor, table_id))
                and m.buttons()
                and decode_payload(m.buttons()[0].data).version == table.version
                else None
            ),
            what="the hand drawn again after the vote",
        )
        answer = await press(fake, actor, hand, hand.buttons()[0].data)
        assert not answer.show_alert, answer.text

        # Anna agrees: the table closes, and its message shows it as it was left,
        # nobody "to act" and no vote still asked for
        anna.send(players.group, "/abort")
        await fake.wait_for_message(players.group, contains=" was closed: ")
        assert await rig.adapter.outbox.drain(5)
        [shown] = [
            m for m in table_messages(players.group.bot_messages(), table_id) if "Deal 1" in m.text
        ]
        assert shown.buttons() == []
        assert "To act" not in shown.text and "Votes to close" not in shown.text, shown.text
    finally:
        await stop_rig(rig)


async def test_the_reminder_says_how_long_is_really_left(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """With a chat's turn timeout of 10 s the reminder comes half-way and says 5 s,
    not the bot-wide reminder time."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players = make_players(fake, ["Anna", "Berti"])
        anna, _ = players.users
        anna.send(players.group, "/settings turn_timeout 10")
        await fake.wait_for_message(players.group, contains="turn_timeout")
        table_id, lobby = await open_table(rig, players, "/new zweier")
        assert not (await press(fake, anna, lobby, "Start")).show_alert
        table = rig.table(table_id)
        assert table is not None and table.to_act() is not None
        sleeper = players.users[table.to_act() or 0]
        note = await fake.wait_for_message(
            sleeper.private_chat, contains="it is your turn", timeout=15
        )
        said = re.search(r"\((\d+) s left\)", note.text)
        assert said is not None and 3 <= int(said.group(1)) <= 5, note.text  # 20 before
    finally:
        await stop_rig(rig)


@pytest.mark.parametrize("answer", ["as_usual", "out_of_shape"])
async def test_a_lobby_the_last_run_left_with_its_buttons_loses_them_when_its_table_closes(
    fake: FakeTelegram, tmp_path: Path, caplog: pytest.LogCaptureFixture, answer: str
) -> None:
    """Berti and Cilli's match started, but the lobby's last edit never made it (a
    refusal here; a kill leaves it so too), so the lobby still offers Join and Start.
    The restarted bot redraws the table and the hands, not that lobby, whose text it
    never drew.  When Anna, the group's admin, closes the table, the lobby's buttons
    come off and its text stays (editMessageReplyMarkup), also when Telegram's
    answer to that comes back out of shape: one warning saying so, no traceback, and
    the group reads that the table closed."""
    caplog.set_level(logging.INFO)
    db = tmp_path / "bot.sqlite3"
    rig = await start_rig(fake, db)
    players = make_players(fake, ["Anna", "Berti", "Cilli"])
    anna, *seated = players.users
    group = players.group
    try:
        table_id, lobby = await open_table(rig, Players(group, seated), "/new zweier")
        fake.fail_next("editMessageText", error_code=400, description="Bad Request: odd")
        assert not (await press(fake, seated[0], lobby, "Start")).show_alert
        assert await rig.adapter.outbox.drain(5)
    finally:
        await stop_rig(rig)
    offered = lobby.text
    assert "Start" in [b.text for b in lobby.buttons()], lobby.keyboard()

    rig = await start_rig(fake, db)
    try:
        assert await rig.adapter.outbox.drain(5)
        assert lobby.buttons() and lobby.text == offered  # not this run's to redraw
        caplog.clear()
        if answer == "out_of_shape":
            fake.answer_with_wrong_result_next("editMessageReplyMarkup", "oops")
        anna.send(group, "/abort")
        await fake.wait_for_message(group, contains="an admin closed it", after=lobby)
        assert await rig.adapter.outbox.drain(5)
        assert rig.table(table_id) is None
        assert lobby.buttons() == [] and lobby.text == offered
        assert [c.status for c in fake.calls_to("editMessageReplyMarkup")] == [200]
        said = [m for m in warned(caplog) if "editMessageReplyMarkup" in m]
        assert len(said) == (answer == "out_of_shape"), said
        assert all(f"a strip in chat {group.id}: " in m for m in said), said
        assert not [r for r in caplog.records if r.exc_info]
    finally:
        await stop_rig(rig)


async def test_a_lobby_and_a_table_the_last_run_left_behind_are_redrawn_by_the_restart(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """Berti's Join, and later a card, each changed a group message whose edit
    Telegram refused (a kill at that moment leaves it so too): the lobby still says
    Anna waits alone, the table shows the deal before the card.  The restarted bot
    draws both as they are, so the players read the table they play at."""
    db = tmp_path / "bot.sqlite3"
    players = make_players(fake, ["Anna", "Berti"])
    anna, berti = players.users
    group = players.group
    rig = await start_rig(fake, db)
    try:
        anna.send(group, "/new zweier")
        lobby = await fake.wait_for_message(group, contains="Host: Anna")
        assert await rig.adapter.outbox.drain(5)
        group.refuses_with = "Bad Request: odd"  # the group's messages, for a moment
        assert not (await press(fake, berti, lobby, "Join")).show_alert
        assert await rig.adapter.outbox.drain(5)
        group.refuses_with = None
        assert "Berti" not in lobby.text
    finally:
        await stop_rig(rig)

    rig = await start_rig(fake, db)
    try:
        await fake.wait_for(lambda: "Berti" in lobby.text, what="the lobby as it is")
        table_id = decode_payload(lobby.buttons()[0].data).table
        assert not (await press(fake, anna, lobby, "Start")).show_alert
        assert await rig.adapter.outbox.drain(5)
        [board] = table_messages(group.bot_messages(), table_id)
        group.refuses_with = "Bad Request: odd"
        await play(rig, table_id, players.users, until=lambda: False, limit=1)
        assert await rig.adapter.outbox.drain(5)
        group.refuses_with = None
        view = rig.service.table(table_id)
        assert view is not None and board.text != view.message.text
    finally:
        await stop_rig(rig)

    rig = await start_rig(fake, db)
    try:
        await fake.wait_for(lambda: board.text == view.message.text, what="the table as it is")
        assert table_messages(group.bot_messages(), table_id) == [board]
    finally:
        await stop_rig(rig)


async def test_a_group_admin_closes_a_table_he_does_not_sit_at(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """/abort from the group's creator closes a lobby he does not sit at (checked with
    getChatMember); from another member without a seat it is refused."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players = make_players(fake, ["Anna", "Berti", "Cilli"])
        anna, berti, cilli = players.users
        berti.send(players.group, "/new zweier")
        lobby = await fake.wait_for_message(players.group, contains="Host: Berti")
        cilli.send(players.group, "/abort")
        await fake.wait_for_message(players.group, contains="There is no table of yours")
        assert rig.service.tables_in(f"tg:{players.group.id}")
        anna.send(players.group, "/abort")
        await fake.wait_for_message(players.group, contains="an admin closed it", after=lobby)
        assert not rig.service.tables_in(f"tg:{players.group.id}")
    finally:
        await stop_rig(rig)


async def test_hands_of_a_table_an_admin_closes_before_any_move_say_it_closed(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """Anna, the group's creator, closes Berti and Cilli's match right after its
    deal: their hand messages, posted and never changed, lose their cards and buttons
    and say the table was closed, not keep a hand nobody can play."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players = make_players(fake, ["Anna", "Berti", "Cilli"])
        anna, *seated = players.users
        table_id, lobby = await open_table(rig, Players(players.group, seated), "/new zweier")
        assert not (await press(fake, seated[0], lobby, "Start")).show_alert
        for user in seated:
            await fake.wait_for_message(user.private_chat, contains=f"hand at table {table_id}")
        anna.send(players.group, "/abort")
        await fake.wait_for_message(players.group, contains="an admin closed it", after=lobby)
        assert await rig.adapter.outbox.drain(5)
        for user in seated:
            hand = hand_message(user, table_id)
            assert hand is not None and hand.buttons() == []
            lines = hand.text.split("\n")  # the title and the note: no cards
            assert lines[0].startswith("Your hand at table"), hand.text
            assert lines[1:] == ["This table was closed."], hand.text
    finally:
        await stop_rig(rig)


async def test_an_anonymous_admin_is_told_to_post_as_himself(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """An admin who remains anonymous posts as the group: Telegram names its stand-in
    bot (GroupAnonymousBot), not him.  Seated as that, nobody could send him a hand, so
    his /new opens nothing and he is told why and what to change."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players = make_players(fake, ["Anna", "Berti"])
        anna, _ = players.users
        anna.send(players.group, "/new zweier", anonymous=True)
        await fake.wait_for_message(players.group, contains="You are posting anonymously")
        assert not rig.service.tables_in(f"tg:{players.group.id}")
        anna.send(players.group, "/new zweier")
        await fake.wait_for_message(players.group, contains="Host: Anna")
    finally:
        await stop_rig(rig)


async def test_the_rules_button_says_where_the_rest_is_when_they_do_not_fit(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """Dreierschnapsen's rules are longer than an alert (200 characters).  For one the
    bot cannot write to privately (yet, or any more: he blocked it) the alert says
    where the rest is; for one who started the bot they go to the private chat whole."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players = make_players(fake, ["Anna", "Berti", "Cilli"], started=False)
        anna, berti, _ = players.users
        _, lobby = await open_table(rig, players, "/new dreier")
        cut = await press(fake, berti, lobby, "Rules")
        assert cut.show_alert and cut.text is not None and len(cut.text) <= 200
        assert cut.text.endswith("… (all: /rules in the group)")
        # cut where a sentence ends, not in the middle of the contracts' list
        assert cut.text.removesuffix("… (all: /rules in the group)").endswith(".")
        berti.send(berti.private_chat, "/start")
        await fake.wait_for_message(berti.private_chat)
        whole = await press(fake, berti, lobby, "Rules")
        assert whole.text == "The rules are in our private chat."
        sent = await fake.wait_for_message(berti.private_chat, contains=cut.text[:60])
        assert len(sent.text) > 200
        # the table waits for the two the bot still cannot write to, named apart
        answer = await press(fake, anna, lobby, "Start")
        assert answer.show_alert and "Anna, Cilli" in (answer.text or ""), answer.text
        # Berti blocks the bot: the rules cannot follow privately any more, so the
        # alert says where they are again, not that they went to a chat they cannot
        berti.block_bot()
        await fake.wait_for(
            lambda: re.search(r"Waiting for .*Berti", lobby.text), what="the lobby naming him"
        )
        again = await press(fake, berti, lobby, "Rules")
        assert (again.text, again.show_alert) == (cut.text, True)
    finally:
        await stop_rig(rig)


async def test_new_takes_one_preset_and_options_however_spaced(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """`/new dreier all_contracts count_down` names two presets: the bot says so
    instead of opening a table without the second; `name = value` with spaces and in
    capitals is an option like `name=value`, and the lobby lists it."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players = make_players(fake, ["Anna", "Berti"])
        anna = players.users[0]
        anna.send(players.group, "/new dreier all_contracts count_down")
        refused = await fake.wait_for_message(players.group, contains="One preset at a time")
        assert "all_contracts, count_down" in refused.text
        assert rig.service.tables == {}
        anna.send(players.group, "/new Dreier All_Contracts Dreier.Assenbettler = off")
        lobby = await fake.wait_for_message(players.group, contains="Host:")
        assert "Rules: all contracts (all_contracts) + Assenbettler off" in lobby.text
        [table] = rig.service.tables.values()
        assert table.options_json["dreier.assenbettler"] is False
        assert table.options_json["dreier.zehnergang"] is True  # from the preset
    finally:
        await stop_rig(rig)


async def test_a_start_link_followed_before_joining_says_to_press_join(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """Berti taps the lobby's link before Join: no cards will come until he joins,
    so the welcome says where, not that his cards will come."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players, _lobby, table_id = await lobby_with_a_stranger(fake)
        berti = players.users[1]
        berti.start_bot(payload=table_id)
        said = await fake.wait_for_message(berti.private_chat, contains="Hello Berti")
        assert said.text == (
            f"Hello Berti! To play at table {table_id}, press Join under its lobby in the "
            "group; your cards and your buttons will then come here."
        )
    finally:
        await stop_rig(rig)


@pytest.mark.parametrize("store_fails", [False, True], ids=["deleted", "store_failed"])
async def test_a_forgetme_mid_match_leaves_no_live_looking_hand(
    fake: FakeTelegram, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, store_fails: bool
) -> None:
    """Berti deletes his data mid-deal: the computer plays his seat, and his hand
    message says so without buttons, not "Your turn." with buttons that no longer
    answer to him.  When the database fails, nothing of it is done: he is told to try
    again, and keeps his seat and his live hand."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players, table_id = await started_match(rig, fake, presses=2)
        berti = players.users[1]
        # a lobby in the group Berti does not sit at: nothing of it is his to drop
        await cillis_lobby(fake, players.group)
        hand = hand_message(berti, table_id)
        assert hand is not None
        await rig.adapter.outbox.drain()
        if store_fails:

            async def failing(*args: object, **kwargs: object) -> None:
                raise StoreError("disk full")

            monkeypatch.setattr(R, "forget_ops", failing)
        question = await asked(fake, berti, berti.private_chat, "/forgetme")
        shown = (hand.text, hand.buttons())
        answer = await press(fake, berti, question, "Delete my data")
        table = rig.table(table_id)
        assert table is not None
        if store_fails:
            assert answer.show_alert and "did not go through" in (answer.text or ""), answer
            await rig.adapter.outbox.drain()
            assert table.seat_of(f"tg:{berti.id}") is not None
            assert (hand.text, hand.buttons()) == shown
            return
        await data_deleted(fake, question)
        assert table.seat_of(f"tg:{berti.id}") is None
        assert f"tg:{berti.id}" not in rig.adapter.langs  # nor his app's language
        await fake.wait_for(
            lambda: hand.text.endswith("the computer plays your seat to the end.") or None,
            what="the hand to say he left",
        )
        assert hand.buttons() == [] and hand.text.startswith("Your hand at table")
        # his cards go from it too: its title, then why it stopped, nothing else
        title = shown[0].split("\n", 1)[0]
        assert hand.text == (
            f"{title}\nYour data was deleted: you left this table, and the computer plays "
            "your seat to the end."
        ), hand.text
    finally:
        await stop_rig(rig)


async def test_a_reader_whose_language_we_lack_reads_the_groups(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """The group speaks German.  Fran's app is French and Carl's names no language:
    both are answered in German — the core's refusals, the adapter's own answers and
    a button's alert alike — not in English, and not in a mix of the two.  Eve's app
    is English: her answers stay English; an anonymous admin's warning is German."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        anna = fake.create_user("Anna", username="anna", language_code="de")
        fran = fake.create_user("Fran", username="fran", language_code="fr")
        carl = fake.create_user("Carl", username="carl", language_code=None)
        eve = fake.create_user("Eve", username="eve", language_code="en")
        group = fake.create_group("Stammtisch", members=[anna, fran, carl, eve], creator=anna)
        anna.send(group, "/settings language de")
        await fake.wait_for_message(group, contains="language = de")
        for user in (fran, carl):
            typed = user.send(group, "/new xyz")
            await fake.wait_for_message(group, contains="Unbekanntes Spiel xyz", after=typed)
            typed = user.send(group, "/settings turn_timeout 90")  # not an admin
            said = await fake.wait_for_message(group, after=typed)
            assert "Only admins" not in said.text and "Admin" in said.text, said.text
        typed = carl.send(group, "/help")
        said = await fake.wait_for_message(group, after=typed)
        assert "/new" in said.text and " the " not in said.text, said.text
        typed = eve.send(group, "/new xyz")
        await fake.wait_for_message(group, contains="Unknown game xyz", after=typed)
        # /start in the private chat, which has no language: the table's for Fran
        anna.send(group, "/new zweier")
        lobby = await fake.wait_for_message(group, contains="Gastgeber")
        assert not (await press(fake, fran, lobby, "Mitspielen")).show_alert
        typed = fran.send(fran.private_chat, "/start")
        said = await fake.wait_for_message(fran.private_chat, after=typed, contains="Tisch")
        assert said.text.startswith("Du sitzt an Tisch"), said.text
        typed = anna.send(group, "/abort")
        await fake.wait_for_message(group, contains="geschlossen", after=typed)
        typed = anna.send(group, "/new zweier", anonymous=True)
        await fake.wait_for_message(group, contains="Du schreibst anonym", after=typed)
        typed = anna.send(group, "/new zweier")
        lobby = await fake.wait_for_message(group, contains="Gastgeber", after=typed)
        answer = await press(fake, fran, lobby, "Start")  # only the host starts
        assert answer.show_alert and "Gastgeber" in (answer.text or ""), answer.text
        # the adapter's own alert too: a /forgetme button forwarded to the group
        answer = await fake.wait_answer(carl.press_data(lobby, "me:0:fg"))
        assert answer.show_alert and (answer.text or "").startswith("Deine Daten"), answer
    finally:
        await stop_rig(rig)


async def test_a_reader_without_a_language_keeps_the_tables_in_his_private_chat(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """Carl's app names no language and the group plays in German. His hand comes
    in German to the private chat, which has no language of its own: a gift's card
    picked there ("… geben…") redraws it in German too ("Wer bekommt …?"). And none
    of it is stored as his own language."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        users = [
            fake.create_user(n, username=n.lower(), language_code=None, started=True)
            for n in ("Carl", "Dora", "Emil")
        ]
        group = fake.create_group("Stammtisch", members=users, creator=users[0])
        users[0].send(group, "/settings language de")
        await fake.wait_for_message(group, contains="language = de")
        users[0].send(group, "/new tausend")
        lobby = await fake.wait_for_message(group, contains="Gastgeber")
        for user in users[1:]:
            assert not (await press(fake, user, lobby, "Mitspielen")).show_alert
            await fake.wait_for(joined(user, lobby), what="joined")
        assert not (await press(fake, users[0], lobby, "Start")).show_alert

        def hands() -> list[tuple[FakeUser, FakeMessage]]:
            return [
                (u, m)
                for u in users
                for m in u.private_chat.bot_messages()[-1:]
                if m.buttons() and m.text.startswith("Deine Karten")
            ]

        for _ in range(6):  # the bidding (the first choice: 100, then passes), then a gift
            await fake.wait_for(lambda: hands() or None, what="a hand with buttons")
            giving = [(u, m) for u, m in hands() if m.buttons()[0].text.endswith("geben…")]
            if giving:
                break
            user, hand = hands()[0]
            pressed = [b.data for b in hand.buttons()]
            assert not (await press(fake, user, hand, hand.buttons()[0].text)).show_alert

            def redrawn(hand: FakeMessage = hand, pressed: list[str] = pressed) -> bool:
                return [b.data for b in hand.buttons()] != pressed

            # his hand redrawn (its buttons gone or new), not pressed again while its
            # edit is on its way (a 0.3 s sleep lost to an edit 1 s late)
            await fake.wait_for(lambda: redrawn() or None, what="his hand redrawn")
        [(user, hand)] = giving
        pick = hand.buttons()[0].text
        answer = await press(fake, user, hand, pick)
        assert not answer.show_alert, answer.text
        card = pick.removesuffix(" geben…")
        await fake.wait_for(lambda: f"Wer bekommt {card}?" in hand.text or None, what="to whom")
        assert hand.text.startswith("Deine Karten") and "Your" not in hand.text, hand.text
        stored = await rig.service.store.player(f"tg:{user.id}")
        assert stored is not None and stored[1] is None, stored  # not stored as his own
    finally:
        await stop_rig(rig)


async def test_german_command_names_are_answered_too(fake: FakeTelegram, tmp_path: Path) -> None:
    """A German player types /neu, /regeln, /hilfe, /abbrechen — the names Discord
    shows him — and they do what /new, /rules, /help and /abort do; the German help
    lists them."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        anna = fake.create_user("Anna", username="anna", language_code="de")
        group = fake.create_group("Stammtisch", members=[anna], creator=anna)
        anna.send(group, "/einstellungen language de")
        await fake.wait_for_message(group, contains="language = de")
        typed = anna.send(group, "/neu zweier")
        lobby = await fake.wait_for_message(group, contains="Gastgeber: Anna", after=typed)
        typed = anna.send(group, "/regeln dreier")
        await fake.wait_for_message(group, contains="Dreierschnapsen", after=typed)
        typed = anna.send(group, "/hilfe")
        said = await fake.wait_for_message(group, after=typed)
        assert "Die Befehle gehen auch auf Deutsch: /neu, /rangliste," in said.text, said.text
        typed = anna.send(group, "/abbrechen")
        await fake.wait_for_message(group, contains="geschlossen", after=typed)
        assert not rig.service.tables_in(f"tg:{group.id}")
        del lobby
    finally:
        await stop_rig(rig)
