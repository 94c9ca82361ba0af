"""'Rematch' on Telegram: the button under a match's summary opens the same game again
where the summary is (its forum topic too), and the other player's press seats him."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.fakes.telegram.messages import FakeMessage
from tests.e2e.fakes.telegram.server import FakeTelegram
from tests.e2e.telegram_harness import (
    Players,
    cillis_lobby,
    confirmed,
    fake,
    log_guard,
    press,
    start_rig,
    started_match,
    stop_rig,
)
from tests.e2e.test_telegram_topics import forum_players, open_in_topic

__all__ = ["fake", "log_guard"]


async def berti_resigns(fake: FakeTelegram, players: Players) -> FakeMessage:
    """Berti resigns the running match in the group; the summary (its Rematch button)."""
    berti = players.users[1]
    await confirmed(fake, berti, players.group, "/resign")
    return await fake.wait_for_message(players.group, contains="Berti resigned.")


async def test_rematch_opens_in_the_matchs_topic_and_the_other_player_joins_it(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players = forum_players(fake, ["Anna", "Berti", "Cilli"])
        anna, berti, cilli = players.users
        group = players.group
        topic = group.create_topic("Schnapsen")
        table_id, lobby = await open_in_topic(rig, group, topic, anna, berti)
        assert not (await press(fake, anna, lobby, "Start")).show_alert
        await confirmed(fake, anna, group, "/resign")
        summary = await fake.wait_for_message(group, contains="Anna resigned.")
        assert summary.message_thread_id == topic
        assert [b.text for b in summary.buttons()] == ["Rematch"]

        # Cilli did not play: she is told to open her own table, nothing opens
        refused = await press(fake, cilli, summary, "Rematch")
        assert refused.show_alert and f"Only the players of table {table_id}" in (
            refused.text or ""
        )
        answer = await press(fake, berti, summary, "Rematch")
        assert not answer.show_alert, answer.text
        rematch = await fake.wait_for_message(group, contains=f"A rematch of table {table_id}")
        assert rematch.message_thread_id == topic, group.transcript()
        assert "Host: Berti" in rematch.text
        [new] = [t for t in rig.adapter.service.tables.values() if t.rematch_of == table_id]

        # Anna (who blocked the bot meanwhile) presses too: that seats her there, no
        # second lobby, and she is given the link to the private chat, as by Join
        anna.block_bot()
        await fake.wait_for(lambda: rig.adapter.unreachable, what="the block heard")
        answer = await press(fake, anna, summary, "Rematch")
        assert answer.url and answer.url.endswith(f"?start={new.id}"), answer
        await fake.wait_for(lambda: "Anna" in rematch.text, what="Anna in the lobby")
        assert [t.id for t in rig.adapter.service.tables.values() if t.rematch_of == table_id] == [
            new.id
        ]
        anna.start_bot(new.id)  # she follows the link
        await fake.wait_for(lambda: not rig.adapter.unreachable, what="the unblock heard")
        assert not (await press(fake, berti, rematch, "Start")).show_alert
        await fake.wait_for(lambda: new.status.value == "playing", what="the rematch started")
    finally:
        await stop_rig(rig)


@pytest.mark.parametrize(
    ("status", "description", "said"),
    [
        (500, None, "try again"),
        (403, "Forbidden: bot is not a member", "admin"),
    ],
    ids=["server_error", "refused"],
)
async def test_an_admins_rematch_when_telegram_does_not_say_whether_he_is_one(
    fake: FakeTelegram, tmp_path: Path, status: int, description: str | None, said: str
) -> None:
    """Only admins open tables in Anna's group, and she is its creator.  Her Rematch
    while getChatMember fails is answered as /new answers then (try again; make the
    bot an admin), not "Only admins can open tables here."; once Telegram answers, it
    opens."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players, table_id = await started_match(rig, fake)
        anna = players.users[0]
        group = players.group
        # Cilli's lobby, opened while anyone could, waits in the group: it does not
        # make Anna's Rematch a join that needs no admin (she is asked about, and it opens)
        await cillis_lobby(fake, group)
        asked = anna.send(group, "/settings starters admins")
        await fake.wait_for_message(group, after=asked, contains="starters = admins")
        summary = await berti_resigns(fake, players)
        fake.fail_next("getChatMember", error_code=status, description=description)
        answer = await press(fake, anna, summary, "Rematch")
        assert answer.show_alert and said in (answer.text or ""), answer
        assert "Only admins can open tables here." not in (answer.text or "")
        assert not [t for t in rig.adapter.service.tables.values() if t.rematch_of]
        answer = await press(fake, anna, summary, "Rematch")
        assert not answer.show_alert, answer
        rematch = await fake.wait_for_message(group, contains=f"A rematch of table {table_id}")

        # Berti, no admin, presses it too: joining the lobby Anna opened needs no
        # admin, so Telegram is not asked (nor could its failing to say refuse him)
        fake.fail_next("getChatMember", error_code=status, description=description)
        asked_before = len(fake.calls_to("getChatMember"))
        answer = await press(fake, players.users[1], summary, "Rematch")
        assert not answer.show_alert, answer
        await fake.wait_for(lambda: "Berti" in rematch.text, what="Berti in the rematch lobby")
        assert len(fake.calls_to("getChatMember")) == asked_before
    finally:
        await stop_rig(rig)


async def test_where_anyone_opens_tables_a_rematch_does_not_ask_who_is_an_admin(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """In a group where anyone may open tables, Rematch opens at once: whether the
    presser is an admin does not matter, so Telegram failing to say changes nothing."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players, table_id = await started_match(rig, fake)
        anna = players.users[0]
        summary = await berti_resigns(fake, players)
        fake.fail_next("getChatMember", error_code=500)
        answer = await press(fake, anna, summary, "Rematch")
        assert not answer.show_alert, answer
        await fake.wait_for_message(players.group, contains=f"A rematch of table {table_id}")
    finally:
        await stop_rig(rig)


async def test_a_rematch_opened_after_a_restart_greets_its_host_privately(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """The bot restarted after the match (it no longer knows who opened its private
    chat): Anna's Rematch greets her privately, as /new would, which is how she (and
    the lobby) learn whether her cards can reach her."""
    db = tmp_path / "bot.sqlite3"
    rig = await start_rig(fake, db)
    try:
        players, _ = await started_match(rig, fake)
        anna = players.users[0]
        summary = await berti_resigns(fake, players)
        await stop_rig(rig)
        rig = await start_rig(fake, db)
        assert not (await press(fake, anna, summary, "Rematch")).show_alert
        [new] = [t for t in rig.service.tables.values() if t.rematch_of]
        await fake.wait_for_message(anna.private_chat, contains=f"You joined table {new.id}.")
    finally:
        await stop_rig(rig)


async def test_a_blocked_player_pressing_rematch_again_gets_the_link_again(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """Anna blocked the bot; Rematch seats her at Berti's rematch with the link to the
    private chat.  She dismisses it and presses again: the link again, as Join gives
    it again, not a dead end."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players, table_id = await started_match(rig, fake)
        anna, berti = players.users
        group = players.group
        await confirmed(fake, anna, group, "/resign")
        summary = await fake.wait_for_message(group, contains="Anna resigned.")
        assert not (await press(fake, berti, summary, "Rematch")).show_alert
        await fake.wait_for_message(group, contains=f"A rematch of table {table_id}")
        anna.block_bot()
        await fake.wait_for(lambda: rig.adapter.unreachable, what="the block heard")
        for _ in range(2):
            answer = await press(fake, anna, summary, "Rematch")
            assert answer.url and "?start=" in answer.url, answer
        # her seat's greeting was tried once: the second press (refused, seated
        # already) tries nothing more with the chat she blocked
        refused = [
            c
            for c in fake.calls_to("sendMessage")
            if c.params.get("chat_id") == anna.id and c.status == 403
        ]
        assert len(refused) == 1, refused
    finally:
        await stop_rig(rig)


async def test_a_refusal_longer_than_an_alert_follows_whole_in_the_private_chat(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """Anna fixed her group's house rules after the match, so its Rematch is refused
    with the house rules named in full and the way to play them: more than the 200
    characters an alert holds.  The alert says where the rest is, and the private
    chat has all of it, the way out at its end included.  After a restart the bot
    does not know she opened the private chat: the alert holds what fits, cut."""
    db = tmp_path / "bot.sqlite3"
    rig = await start_rig(fake, db)
    try:
        players, _ = await started_match(rig, fake)
        anna = players.users[0]
        group = players.group
        for setting, saved in [
            ("zweier auto_claim off", "zweier.auto_claim = off"),
            ("zweier schneider off", "zweier.schneider = off"),
            ("rules fixed", "rules = fixed"),
        ]:
            asked = anna.send(group, f"/settings {setting}")
            await fake.wait_for_message(group, after=asked, contains=saved)
        summary = await berti_resigns(fake, players)
        before = len(anna.private_chat.bot_messages())
        answer = await press(fake, anna, summary, "Rematch")
        text = answer.text or ""
        assert answer.show_alert and len(text) <= 200, answer
        assert text.startswith("Tables here play the house rules") and text.endswith(
            "… (all of it in our private chat)"
        ), text
        whole = await fake.wait_for(
            lambda: [
                m
                for m in anna.private_chat.bot_messages()[before:]
                if m.text.startswith("Tables here play the house rules")
            ],
            what="the whole refusal in the private chat",
        )
        assert len(whole[0].text) > 200 and whole[0].text.endswith("(set rules to open)."), whole
        assert not [t for t in rig.adapter.service.tables.values() if t.rematch_of]

        # pressed again, and the answer comes too late for Telegram: the whole refusal
        # follows privately once, not its cut alert as well
        before = len(anna.private_chat.bot_messages())
        fake.fail_next(
            "answerCallbackQuery", error_code=400, description="Bad Request: query is too old"
        )
        anna.press(summary, "Rematch")
        await fake.wait_for(
            lambda: len(anna.private_chat.bot_messages()) > before, what="the refusal privately"
        )
        await rig.adapter.outbox.drain()  # anything more on its way is there too
        texts = [m.text for m in anna.private_chat.bot_messages()[before:]]
        assert texts == [whole[0].text], texts

        await stop_rig(rig)
        rig = await start_rig(fake, db)
        answer = await press(fake, anna, summary, "Rematch")
        assert answer.show_alert and answer.text == whole[0].text[:199] + "…", answer
    finally:
        await stop_rig(rig)
