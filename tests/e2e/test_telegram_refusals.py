"""Telegram refusing the bot in words other than a 403, end to end.

Real Telegram often answers a message to a user who never started the bot with 400
"chat not found" rather than 403: a hand that meets it is asked for in the group, as
for a 403.  (The start link at Join, and a group's 400s such as "CHAT_WRITE_FORBIDDEN",
are tested beside their 403 forms in test_telegram.py and test_telegram_failures.py.)
And a Telegram that does not answer whether someone is an admin must not make an
admin "no admin".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.payload import decode as decode_payload
from bot.ports import ChatRef
from tests.e2e.fakes.telegram.protocol import BOT_USERNAME
from tests.e2e.fakes.telegram.server import FakeTelegram
from tests.e2e.telegram_harness import (
    fake,
    lobby_with_a_stranger,
    log_guard,
    make_players,
    open_table,
    press,
    start_rig,
    stop_rig,
)

__all__ = ["fake", "log_guard"]

BOT = BOT_USERNAME
TRY_AGAIN = "please try again in a moment"


# ------------------------------------------------------- a user Telegram has no chat with


async def test_a_hand_refused_with_chat_not_found_is_asked_for_in_the_group(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """His greeting met flood control, so the match started without knowing; his hand
    then meets "chat not found".  The group is told once how to let the bot write,
    "Show my hand" gives him the link instead of pointing at a chat with no hand in
    it, and after Start he has his hand."""
    fake.unstarted_chat_not_found = True
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players, lobby, table_id = await lobby_with_a_stranger(fake)
        (anna, berti), group = players.users, players.group
        assert await rig.adapter.outbox.drain(5)

        fake.fail_next("sendMessage", error_code=429, retry_after=1)  # his greeting
        assert not (await press(fake, berti, lobby, "Join")).url
        assert [c.params["chat_id"] for c in fake.calls_to("sendMessage") if c.status == 429] == [
            berti.id
        ]
        assert not (await press(fake, anna, lobby, "Start")).show_alert

        link = f"https://t.me/{BOT}?start={table_id}"
        note = await fake.wait_for_message(group, contains=link)
        assert note.text.startswith("Berti, I cannot send you your cards")
        table_message = next(m for m in group.bot_messages() if "Show my hand" in str(m.buttons()))
        answer = await press(fake, berti, table_message, "Show my hand")
        assert answer.url == link
        refused = [c for c in fake.calls if c.params.get("chat_id") == berti.id and c.status == 400]
        assert len(refused) == 1  # nothing more is tried until he is back

        welcome = berti.start_bot(payload=table_id)
        await fake.wait_for_message(berti.private_chat, after=welcome, contains="Your hand")
        assert [m.text for m in group.bot_messages()].count(note.text) == 1
    finally:
        await stop_rig(rig)


# ------------------------------------------------------- is he an admin? no answer


@pytest.mark.parametrize(
    ("status", "description"),
    [(400, "Bad Request: not enough rights"), (403, "Forbidden: bot is not a member")],
    ids=["bad_request", "forbidden"],
)
async def test_an_admin_is_told_to_make_the_bot_admin_when_telegram_will_not_say(
    fake: FakeTelegram, tmp_path: Path, status: int, description: str
) -> None:
    """Telegram refusing getChatMember (its API promises the answer only to admins)
    says nothing about the user: the group's creator is not told he is no admin but
    how to fix it, and nothing is changed.  A non-member's "user not found" is still
    a plain no."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players = make_players(fake, ["Anna", "Berti"])
        anna, group = players.users[0], players.group
        fake.fail_next("getChatMember", error_code=status, description=description)
        asked = anna.send(group, "/settings turn_timeout 90")
        reply = await fake.wait_for_message(group, after=asked)
        assert "making me an admin of the group" in reply.text, reply.text
        assert "Only admins" not in reply.text
        settings = await rig.service.settings(ChatRef("tg", str(group.id)))
        assert settings.turn_timeout != 90
        fake.fail_next("getChatMember", error_code=400, description="Bad Request: user not found")
        asked = anna.send(group, "/settings turn_timeout 90")
        reply = await fake.wait_for_message(group, after=asked)
        assert reply.text == "Only admins can change the settings."
        # a player naming his own table in /abort needs no admin: his vote counts
        berti = players.users[1]
        table_id, lobby = await open_table(rig, players, "/new zweier")
        assert not (await press(fake, anna, lobby, "Start")).show_alert
        fake.fail_next("getChatMember", error_code=status, description=description)
        asked = berti.send(group, f"/abort {table_id}")
        reply = await fake.wait_for_message(group, after=asked, contains="Your vote")
        assert reply.text.startswith("Your vote to close the table is counted (1/2)"), reply.text
    finally:
        await stop_rig(rig)


@pytest.mark.parametrize("status", [429, 500], ids=["flood_control", "server_error"])
async def test_an_admin_is_asked_to_try_again_when_telegram_does_not_say(
    fake: FakeTelegram, tmp_path: Path, status: int
) -> None:
    """getChatMember failing is no "you are no admin": the admin is asked to try
    again, nothing is done, and the next try works."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players = make_players(fake, ["Anna", "Berti"])
        anna, berti = players.users
        group = players.group

        fake.fail_next("getChatMember", error_code=status, retry_after=1)
        asked = anna.send(group, "/settings turn_timeout 90")  # a change asks Telegram
        reply = await fake.wait_for_message(group, after=asked)
        assert TRY_AGAIN in reply.text and "Only admins" not in reply.text
        again = anna.send(group, "/settings turn_timeout 90")
        await fake.wait_for_message(group, after=again, contains="Saved: turn_timeout = 90")

        berti.send(group, "/new zweier")
        lobby = await fake.wait_for_message(group, contains="Host: Berti")
        table_id = decode_payload(lobby.buttons()[0].data).table
        fake.fail_next("getChatMember", error_code=status, retry_after=1)
        asked = anna.send(group, f"/abort {table_id}")
        reply = await fake.wait_for_message(group, after=asked)
        assert TRY_AGAIN in reply.text
        assert rig.table(table_id) is not None
        anna.send(group, f"/abort {table_id}")
        await fake.wait_for_message(group, contains="an admin closed it", after=lobby)
        assert rig.table(table_id) is None
    finally:
        await stop_rig(rig)
