"""The fake Telegram Bot API, proven against the real python-telegram-bot library.

A tiny throwaway bot (``/start``, ``/new`` with an inline keyboard, a callback handler
that answers and edits) runs with real long polling against ``FakeTelegram``; other tests
drive the fake through a bare PTB ``Bot`` to show that each enforced limit surfaces as
the exception PTB raises against Telegram itself.
"""

from __future__ import annotations

import asyncio
import datetime as dtm
import re
import socket
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from telegram import (
    Bot,
    BotCommand,
    BotCommandScopeAllGroupChats,
    ChatMemberAdministrator,
    ChatMemberOwner,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    MenuButtonCommands,
    Update,
)
from telegram.error import (
    BadRequest,
    Conflict,
    Forbidden,
    InvalidToken,
    RetryAfter,
    TelegramError,
)
from telegram.ext import Application, CallbackQueryHandler, CommandHandler, ContextTypes

from tests.e2e.fakes.telegram.errors import (
    BUTTON_DATA_INVALID,
    CANT_INITIATE,
    CAPTION_TOO_LONG,
    CONFLICT_OTHER_POLLER,
    CONFLICT_WEBHOOK_ACTIVE,
    MESSAGE_TOO_LONG,
    NO_DOCUMENT,
    NO_TEXT_TO_EDIT,
    NOT_ENOUGH_RIGHTS_DOCUMENTS,
    NOT_MODIFIED,
    QUERY_TOO_OLD,
    THREAD_NOT_FOUND,
    TOPIC_CLOSED,
    WRONG_FILE_ID,
)
from tests.e2e.fakes.telegram.keyboards import Button
from tests.e2e.fakes.telegram.messages import Upload
from tests.e2e.fakes.telegram.protocol import Limits, RateLimits
from tests.e2e.fakes.telegram.ptb import LogErrorGuard, polling
from tests.e2e.fakes.telegram.server import FakeTelegram

App = Application[Any, Any, Any, Any, Any, Any]
SECRET = "s3cret-Token_1"


# ------------------------------------------------------------------ the throwaway bot


def join_keyboard(seats: int) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [
            [InlineKeyboardButton(f"Join ({seats} seated)", callback_data=f"t1:{seats}:join")],
            [InlineKeyboardButton("Rules", url="https://example.org/rules")],
        ]
    )


async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    assert update.effective_message is not None
    payload = " ".join(context.args or []) or "none"
    await update.effective_message.reply_text(f"Welcome! payload={payload}")


async def new_table(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    assert update.effective_message is not None
    await update.effective_message.reply_text(
        "<b>Table open</b> — press Join", parse_mode="HTML", reply_markup=join_keyboard(0)
    )


async def press(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Answer at once, then edit; a press on a stale keyboard may change nothing."""
    query = update.callback_query
    assert query is not None and query.data is not None
    if query.data == "boom":
        raise RuntimeError("boom: a handler bug")
    seats = int(query.data.split(":")[1]) + 1
    await query.answer(f"{query.from_user.first_name} joined")
    try:
        await query.edit_message_text(f"{seats} seated", reply_markup=join_keyboard(seats))
    except BadRequest as error:
        if "not modified" not in error.message:
            raise


def build_bot(fake: FakeTelegram) -> App:
    application = fake.application_builder().build()
    application.add_handler(CommandHandler("start", start))
    application.add_handler(CommandHandler("new", new_table))
    application.add_handler(CallbackQueryHandler(press))
    return application


# --------------------------------------------------------------------------- fixtures


@pytest.fixture
def log_guard() -> Iterator[LogErrorGuard]:
    """Fail the test on any ERROR from the ``telegram`` loggers (handler crashes included)."""
    with LogErrorGuard("telegram") as guard:
        yield guard


@pytest.fixture
async def fake(log_guard: LogErrorGuard) -> AsyncIterator[FakeTelegram]:
    async with FakeTelegram() as server:
        server.attach(log_guard)
        yield server


@pytest.fixture
async def bot_app(fake: FakeTelegram) -> AsyncIterator[App]:
    application = build_bot(fake)
    async with polling(application):
        yield application


@pytest.fixture
async def ptb_bot(fake: FakeTelegram) -> AsyncIterator[Bot]:
    """A bare PTB Bot (no polling) for checking limits call by call."""
    async with fake.make_bot() as bot:
        yield bot


def as_raised(description: str, error: type[TelegramError] = BadRequest) -> str:
    """The regex for a Bot API description as PTB words it ("Bad Request: x" -> "X")."""
    return re.escape(error(description).message)


def keyboard(data: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton("Go", callback_data=data)]])


# ------------------------------------------------------------------- through the bot


async def test_group_command_reaches_handler(fake: FakeTelegram, bot_app: App) -> None:
    alice = fake.create_user("Alice", username="alice")
    group = fake.create_group("Schnapsen table", members=[alice])

    sent = alice.send(group, "/new")
    assert sent.entities == ({"type": "bot_command", "offset": 0, "length": 4},)
    reply = await fake.wait_for_message(group, contains="Table open")

    assert reply.text == "Table open — press Join"
    assert reply.entity_texts("bold") == ["Table open"]
    assert reply.reply_to is sent
    assert reply.keyboard() == [
        [Button("Join (0 seated)", "t1:0:join")],
        [Button("Rules", "https://example.org/rules")],
    ]
    addressed = alice.send(group, f"/new@{fake.bot_user.username}")
    assert addressed.entity_texts("bot_command") == [f"/new@{fake.bot_user.username}"]
    second = await fake.wait_for_message(group, after=reply)
    assert second.reply_to is addressed
    assert [c.method for c in fake.calls[:2]] == ["getMe", "deleteWebhook"]


async def test_group_messages_follow_privacy_mode(fake: FakeTelegram, bot_app: App) -> None:
    alice = fake.create_user("Alice")
    group = fake.create_group("Schnapsen table", members=[alice])
    assert alice.send(group, "just chatting").update_id is None
    assert alice.send(group, "/new@some_other_bot").update_id is None
    assert alice.send(group, "/new").update_id is not None
    await fake.wait_for_message(group)


async def test_button_press_reaches_callback_handler(fake: FakeTelegram, bot_app: App) -> None:
    alice = fake.create_user("Alice")
    bob = fake.create_user("Bob")
    group = fake.create_group("Schnapsen table", members=[alice, bob])
    alice.send(group, "/new")
    table = await fake.wait_for_message(group)

    query = alice.press(table, "Join (0 seated)")
    answer = await fake.wait_answer(query)
    assert (answer.text, answer.show_alert) == ("Alice joined", False)
    await fake.wait_for_edit(table, revisions=1)
    assert table.text == "1 seated"
    assert table.keyboard()[0] == [Button("Join (1 seated)", "t1:1:join")]
    with pytest.raises(ValueError, match="not a callback button"):
        alice.press(table, "Rules")
    assert [r.text for r in table.revisions] == ["Table open — press Join", "1 seated"]

    # Bob presses the keyboard as it was before Alice's press: the bot gets the old data
    # with the message as it is now, and its identical edit is refused as "not modified".
    stale = bob.press(table, "t1:0:join", revision=0)
    assert (await fake.wait_answer(stale)).text == "Bob joined"
    callback = fake.update(stale.update_id)["callback_query"]
    assert callback["data"] == "t1:0:join"
    assert callback["message"]["text"] == "1 seated"
    assert callback["message"]["reply_markup"] == table.reply_markup
    assert callback["chat_instance"] == group.chat_instance
    edit = await fake.wait_for_call("editMessageText", where=lambda c: not c.ok)
    assert (edit.status, edit.description) == (400, NOT_MODIFIED)
    assert len(table.revisions) == 2


async def test_handler_crash_fails_fast_instead_of_timing_out(
    fake: FakeTelegram, bot_app: App, log_guard: LogErrorGuard
) -> None:
    alice = fake.create_user("Alice")
    group = fake.create_group("Schnapsen table", members=[alice])
    alice.send(group, "/new")
    table = await fake.wait_for_message(group)

    began = time.monotonic()
    forged = alice.press_data(table, "boom")
    # at once, not at the wait's end: a bound far from the work's milliseconds and
    # from the deadline alike, so a slow machine meets neither
    with pytest.raises(AssertionError, match="boom: a handler bug"):
        await fake.wait_answer(forged, timeout=60)
    assert time.monotonic() - began < 30
    assert len(log_guard.take()) == 1  # seen; the fixture's final check now passes


async def test_private_chat_needs_start_bot(fake: FakeTelegram, bot_app: App) -> None:
    alice = fake.create_user("Alice")
    with pytest.raises(Forbidden, match=as_raised(CANT_INITIATE, Forbidden)):
        await bot_app.bot.send_message(alice.id, "Your hand: ...")

    started = alice.start_bot(payload="table-42")
    assert started.text == "/start table-42"
    welcome = await fake.wait_for_message(alice.private_chat)
    assert welcome.text == "Welcome! payload=table-42"
    await bot_app.bot.send_message(alice.id, "Your hand: ...")
    latest = alice.private_chat.latest()
    assert latest is not None and latest.text == "Your hand: ..."

    alice.block_bot()
    with pytest.raises(Forbidden, match="blocked by the user"):
        await bot_app.bot.send_message(alice.id, "Your hand: ...")


# ----------------------------------------------------------------- limits, call by call


async def test_callback_data_is_limited_to_64_bytes(fake: FakeTelegram, ptb_bot: Bot) -> None:
    group = fake.create_group("Schnapsen table")
    await ptb_bot.send_message(group.id, "fits", reply_markup=keyboard("é" * 32))  # 64 bytes
    with pytest.raises(BadRequest, match=as_raised(BUTTON_DATA_INVALID)):
        await ptb_bot.send_message(group.id, "too long", reply_markup=keyboard("x" * 65))
    assert [m.text for m in group.visible_messages()] == ["fits"]


async def test_forum_topics(fake: FakeTelegram, bot_app: App, ptb_bot: Bot) -> None:
    """A command typed in a topic reaches PTB as a topic message of a forum, and PTB's
    own reply goes back to that topic; a message sent without a topic is General's; a
    topic the forum lacks is "message thread not found"; a closed one, General too,
    is TOPIC_CLOSED for the bot, which is no admin."""
    fake.limits = replace(fake.limits, rate=None)  # many sends to one chat, no pause
    alice = fake.create_user("Alice", username="alice")
    forum = fake.create_group("Card room", members=[alice], forum=True)
    topic = forum.create_topic("Schnapsen")
    typed = alice.send(forum, "/new", topic=topic)
    assert typed.update_id is not None
    update = fake.update(typed.update_id)["message"]
    assert update["message_thread_id"] == topic and update["is_topic_message"] is True
    assert update["chat"]["is_forum"] is True
    reply = await fake.wait_for_message(forum, contains="Table open")
    assert reply.message_thread_id == topic and forum.topic_messages(topic) == [reply]
    general = await ptb_bot.send_message(forum.id, "in General")
    assert general.message_thread_id is None and not general.is_topic_message
    assert forum.topic_messages(None) == [forum.message(general.message_id)]
    with pytest.raises(BadRequest, match=as_raised(THREAD_NOT_FOUND)):
        await ptb_bot.send_message(forum.id, "nowhere", message_thread_id=topic + 100)
    plain = fake.create_group("No forum")
    with pytest.raises(BadRequest, match=as_raised(THREAD_NOT_FOUND)):
        await ptb_bot.send_message(plain.id, "nowhere", message_thread_id=topic)
    forum.close_topic(topic)
    forum.close_topic(None)
    for thread in (topic, None):
        with pytest.raises(BadRequest, match=as_raised(TOPIC_CLOSED)):
            await ptb_bot.send_message(forum.id, "closed", message_thread_id=thread)
    # edits need no topic, and a closed topic's messages may still be edited
    await ptb_bot.edit_message_text("edited", forum.id, reply.message_id)
    assert reply.text == "edited" and reply.message_thread_id == topic
    forum.reopen_topic(topic)
    sent = await ptb_bot.send_message(forum.id, "open again", message_thread_id=topic)
    assert sent.message_thread_id == topic and sent.is_topic_message


async def test_identical_edit_is_not_modified(fake: FakeTelegram, ptb_bot: Bot) -> None:
    group = fake.create_group("Schnapsen table")
    sent = await ptb_bot.send_message(group.id, "Trump: hearts", reply_markup=keyboard("a"))
    with pytest.raises(BadRequest, match=as_raised(NOT_MODIFIED)):
        await ptb_bot.edit_message_text(
            "Trump: hearts", group.id, sent.message_id, reply_markup=keyboard("a")
        )
    # Like Telegram, an edit without reply_markup is a change: it drops the keyboard.
    await ptb_bot.edit_message_text("Trump: hearts", group.id, sent.message_id)
    message = group.message(sent.message_id)
    assert message.keyboard() == [] and message.keyboard(revision=0) == [[Button("Go", "a")]]
    with pytest.raises(BadRequest, match=as_raised(MESSAGE_TOO_LONG)):
        await ptb_bot.send_message(group.id, "x" * 4097)


async def test_documents_are_uploaded_and_checked_like_telegram(
    fake: FakeTelegram, ptb_bot: Bot
) -> None:
    """sendDocument as PTB uploads it (multipart), with the refusals Telegram gives."""
    fake.limits = replace(fake.limits, rate=None)
    alice = fake.create_user("Alice")
    group = fake.create_group("Schnapsen table", members=[alice])
    sent = await ptb_bot.send_document(
        group.id, b'{"deals": []}', filename="record.json", caption="The record: /record"
    )
    assert sent.document is not None and sent.document.file_name == "record.json"
    assert sent.caption == "The record: /record" and sent.text is None
    message = group.message(sent.message_id)
    assert message.document is not None and message.document.data == b'{"deals": []}'
    assert message.document.mime_type == "application/json"
    assert message.entity_texts("bot_command") == ["/record"]  # the caption's entities
    upload = fake.calls_to("sendDocument")[-1].params["document"]
    assert isinstance(upload, Upload) and upload.filename == "record.json"

    again = await ptb_bot.send_document(group.id, sent.document.file_id)  # no caption
    assert again.document is not None and again.document.file_name == "record.json"
    assert again.caption is None

    await ptb_bot.send_document(group.id, b"x", filename="a.txt", caption="é" * 1024)
    refusals: list[tuple[str, dict[str, Any]]] = [
        (CAPTION_TOO_LONG, dict(document=b"x", filename="a.txt", caption="x" * 1025)),
        (CAPTION_TOO_LONG, dict(document=b"x", filename="a.txt", caption="🂡" * 513)),
        (WRONG_FILE_ID, dict(document="no-such-file")),
    ]
    for description, kwargs in refusals:
        with pytest.raises(BadRequest, match=as_raised(description)):
            await ptb_bot.send_document(group.id, **kwargs)
    with pytest.raises(BadRequest, match=as_raised(NO_TEXT_TO_EDIT)):
        await ptb_bot.edit_message_text("changed", group.id, sent.message_id)
    group.members_may_send = False
    with pytest.raises(BadRequest, match=as_raised(NOT_ENOUGH_RIGHTS_DOCUMENTS)):
        await ptb_bot.send_document(group.id, b"x", filename="a.txt")
    assert len([m for m in group.messages if m.document is not None]) == 3

    url = f"{fake.base_url}{fake.token}/sendDocument"
    form = {"chat_id": str(group.id), "caption": "hi"}  # PTB itself needs a document
    async with aiohttp.ClientSession() as session, session.post(url, data=form) as r:
        assert r.status == 400 and (await r.json())["description"] == NO_DOCUMENT


async def test_callback_answers_once_and_in_time(fake: FakeTelegram, ptb_bot: Bot) -> None:
    alice = fake.create_user("Alice")
    group = fake.create_group("Schnapsen table", members=[alice])
    sent = await ptb_bot.send_message(group.id, "Play", reply_markup=keyboard("play"))
    message = group.message(sent.message_id)

    query = alice.press(message, "Go")
    assert await ptb_bot.answer_callback_query(query.id, text="ok")
    with pytest.raises(BadRequest, match=as_raised(QUERY_TOO_OLD)):
        await ptb_bot.answer_callback_query(query.id)
    assert query.answer is not None and query.refused_answers == 1

    fake.limits = replace(fake.limits, callback_answer_timeout=0.0)
    late = alice.press(message, "play")
    with pytest.raises(BadRequest) as caught:
        await ptb_bot.answer_callback_query(late.id)
    assert caught.value.message == BadRequest(QUERY_TOO_OLD).message
    assert late.answer is None


async def test_forced_429_surfaces_as_retry_after(
    fake: FakeTelegram, ptb_bot: Bot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PTB_TIMEDELTA", "1")  # retry_after as a timedelta, no deprecation
    group = fake.create_group("Schnapsen table")
    fake.fail_next("sendMessage", times=2, retry_after=7)
    for _ in range(2):
        with pytest.raises(RetryAfter) as caught:
            await ptb_bot.send_message(group.id, "hello")
        assert caught.value.retry_after == dtm.timedelta(seconds=7)
    await ptb_bot.send_message(group.id, "hello")
    assert [c.status for c in fake.calls_to("sendMessage")] == [429, 429, 200]


async def test_a_garbled_answer_surfaces_as_a_bare_telegram_error_after_the_call_was_made(
    fake: FakeTelegram, ptb_bot: Bot, log_guard: LogErrorGuard
) -> None:
    """A 200 whose body is no JSON: PTB raises a plain TelegramError (no subclass the
    bot could read a remedy from), though the message was posted; the next call is
    answered as usual."""
    log_guard.allow("Can not load invalid JSON data")  # PTB logs the body it could not read
    group = fake.create_group("Schnapsen table")
    fake.garble_answer_next("sendMessage")
    with pytest.raises(TelegramError) as caught:
        await ptb_bot.send_message(group.id, "hello")
    assert type(caught.value) is TelegramError
    await ptb_bot.send_message(group.id, "again")
    assert [m.text for m in group.bot_messages()] == ["hello", "again"]
    assert [c.status for c in fake.calls_to("sendMessage")] == [200, 200]


@pytest.mark.parametrize("result", ["oops", ["oops"]], ids=["a_string", "a_list"])
async def test_a_result_of_the_wrong_type_surfaces_as_no_telegram_error_after_the_call_was_made(
    fake: FakeTelegram, ptb_bot: Bot, result: object
) -> None:
    """``ok`` and a ``result`` that is no message: PTB raises what reading it raised
    (no `TelegramError`), though the message was posted, with its real result on
    record; the next call is answered as usual."""
    group = fake.create_group("Schnapsen table")
    fake.answer_with_wrong_result_next("sendMessage", result)
    with pytest.raises((AttributeError, TypeError)):
        await ptb_bot.send_message(group.id, "hello")
    again = await ptb_bot.send_message(group.id, "again")
    assert [m.text for m in group.bot_messages()] == ["hello", "again"]
    first, second = fake.calls_to("sendMessage")
    assert (first.status, second.status) == (200, 200)
    assert first.result["text"] == "hello" and again.message_id == first.result["message_id"] + 1


async def test_flood_control_per_chat(
    fake: FakeTelegram, ptb_bot: Bot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PTB_TIMEDELTA", "1")
    fake.limits = replace(fake.limits, rate=RateLimits(per_chat_burst=2, per_chat_per_second=0.5))
    busy = fake.create_group("Busy table")
    quiet = fake.create_group("Quiet table")
    await ptb_bot.send_message(busy.id, "one")
    await ptb_bot.send_message(busy.id, "two")
    with pytest.raises(RetryAfter) as caught:
        await ptb_bot.send_message(busy.id, "three")
    assert caught.value.retry_after == dtm.timedelta(seconds=2)
    await ptb_bot.send_message(quiet.id, "elsewhere is fine")

    fake.limits = Limits(rate=None)
    for n in range(10):
        await ptb_bot.send_message(busy.id, f"unlimited {n}")


async def test_second_get_updates_consumer_conflicts(fake: FakeTelegram) -> None:
    async with fake.make_bot() as first, fake.make_bot() as second:
        polling_task = asyncio.create_task(first.get_updates(timeout=5))
        await fake.wait_for(lambda: fake.in_flight.get("getUpdates"), what="a long poll")
        assert await second.get_updates(timeout=0) == ()
        with pytest.raises(Conflict, match=as_raised(CONFLICT_OTHER_POLLER, Conflict)):
            await asyncio.wait_for(polling_task, 2)
    failed = [c for c in fake.calls_to("getUpdates") if c.status == 409]
    assert [c.description for c in failed] == [CONFLICT_OTHER_POLLER]


async def test_api_surface_for_commands_and_admins(fake: FakeTelegram, ptb_bot: Bot) -> None:
    alice = fake.create_user("Alice")
    bob = fake.create_user("Bob")
    group = fake.create_group("Schnapsen table", members=[bob], creator=alice)

    me = await ptb_bot.get_me()
    assert (me.username, me.can_join_groups) == (fake.bot_user.username, True)
    assert me.can_read_all_group_messages is False

    scope = BotCommandScopeAllGroupChats()
    await ptb_bot.set_my_commands(
        [BotCommand("new", "Neuer Tisch")], scope=scope, language_code="de"
    )
    await ptb_bot.set_my_commands([BotCommand("new", "Open a table")])
    assert fake.command_list(scope.to_dict(), "de") == [
        {"command": "new", "description": "Neuer Tisch"}
    ]
    default = await ptb_bot.get_my_commands()
    assert [(c.command, c.description) for c in default] == [("new", "Open a table")]
    with pytest.raises(BadRequest, match=as_raised("Bad Request: BOT_COMMAND_INVALID")):
        await ptb_bot.set_my_commands([BotCommand("New-Game", "bad name")])

    admins = await ptb_bot.get_chat_administrators(group.id)
    assert [type(a) for a in admins] == [ChatMemberOwner]
    group.add_member(bob, admin=True)
    member = await ptb_bot.get_chat_member(group.id, bob.id)
    assert isinstance(member, ChatMemberAdministrator)
    assert (await ptb_bot.get_chat(group.id)).title == "Schnapsen table"

    assert await ptb_bot.set_chat_menu_button(menu_button=MenuButtonCommands())
    assert fake.menu_buttons[None] == {"type": "commands"}
    assert await ptb_bot.send_chat_action(group.id, "typing")
    assert group.chat_actions == ["typing"]
    sent = await ptb_bot.send_message(group.id, "*Trump:* hearts\\!", parse_mode="MarkdownV2")
    assert group.message(sent.message_id).entity_texts("bold") == ["Trump:"]
    with pytest.raises(BadRequest, match=r"(?i)character '!' is reserved"):
        await ptb_bot.send_message(group.id, "*Trump:* hearts!", parse_mode="MarkdownV2")
    assert await ptb_bot.delete_message(group.id, sent.message_id)
    assert group.visible_messages() == []
    assert fake.calls_to("deleteMessage")[0].params == {
        "chat_id": group.id,
        "message_id": sent.message_id,
    }


async def test_get_updates_offsets_and_allowed_updates(fake: FakeTelegram, ptb_bot: Bot) -> None:
    alice = fake.create_user("Alice")
    group = fake.create_group("Schnapsen table", members=[alice])
    alice.start_bot()
    alice.send(group, "/new")
    updates = await ptb_bot.get_updates(timeout=0)
    assert [u.effective_message.text for u in updates if u.effective_message] == ["/start", "/new"]
    confirmed = updates[-1].update_id + 1
    assert await ptb_bot.get_updates(offset=confirmed, timeout=0) == ()
    fake.replay(updates[0].update_id)  # Telegram delivering an update a second time
    again = await ptb_bot.get_updates(offset=confirmed, timeout=0)
    assert [u.update_id for u in again] == [updates[0].update_id]

    sent = await ptb_bot.send_message(group.id, "Play", reply_markup=keyboard("play"))
    alice.send(group, "/new")
    query = alice.press(group.message(sent.message_id), "play")
    only_presses = await ptb_bot.get_updates(timeout=0, allowed_updates=["callback_query"])
    assert [u.callback_query.id for u in only_presses if u.callback_query] == [query.id]
    assert fake.pending_update_count == 1  # the /new was dropped, the press not yet confirmed


async def test_raw_http_contract(fake: FakeTelegram) -> None:
    """Tokens, unknown methods and every body encoding, below the level of PTB."""
    with pytest.raises(InvalidToken):
        async with fake.make_bot("7000000001:" + "x" * 35):
            pass
    group = fake.create_group("Schnapsen table")
    url = f"{fake.base_url}{fake.token}"
    async with aiohttp.ClientSession() as session:
        async with session.post(f"{url}/sendCarrierPigeon") as response:
            assert response.status == 404
            assert await response.json() == {
                "ok": False,
                "error_code": 404,
                "description": "Not Found: method not found",
            }
        async with session.get(f"{fake.base_url}not-a-token/getMe") as response:
            assert response.status == 404
        async with session.post(f"{url}/sendMessage", json={"chat_id": 1, "text": "hi"}) as r:
            assert r.status == 400
            assert (await r.json())["description"] == "Bad Request: chat not found"
        form = aiohttp.FormData()
        form.add_field("chat_id", str(group.id))
        form.add_field("text", "42")
        form.add_field("document", b"bytes", filename="hand.txt")
        async with session.post(f"{url}/sendMessage", data=form) as response:
            assert (await response.json())["result"]["text"] == "42"
        async with session.get(f"{url}/getChat", params={"chat_id": str(group.id)}) as r:
            assert (await r.json())["result"]["title"] == "Schnapsen table"
    assert fake.calls_to("sendMessage")[-1].params["text"] == "42"  # stays a string


# --------------------------------------------------------------------------- webhooks


async def test_webhook_delivery_with_secret_header(fake: FakeTelegram) -> None:
    """Telegram re-delivers on non-2xx and may deliver twice: the receiver dedupes."""
    application = fake.application_builder().updater(None).build()
    handled: list[int] = []

    async def on_new(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        handled.append(update.update_id)
        assert update.effective_message is not None
        await update.effective_message.reply_text("via webhook")

    application.add_handler(CommandHandler("new", on_new))
    seen: set[int] = set()
    failures_left = 1

    async def receive(request: web.Request) -> web.Response:
        nonlocal failures_left
        if request.headers.get("X-Telegram-Bot-Api-Secret-Token") != SECRET:
            return web.Response(status=403)
        if failures_left:
            failures_left -= 1
            return web.Response(status=500)
        data = await request.json()
        if data["update_id"] not in seen:
            seen.add(data["update_id"])
            await application.update_queue.put(Update.de_json(data, application.bot))
        return web.Response()

    receiver = web.Application()
    receiver.router.add_post("/hook", receive)
    runner = web.AppRunner(receiver)
    await runner.setup()
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    await web.SockSite(runner, sock).start()
    hook_url = f"http://127.0.0.1:{sock.getsockname()[1]}/hook"
    try:
        async with application:
            await application.start()
            await application.bot.set_webhook(hook_url, secret_token=SECRET)
            alice = fake.create_user("Alice")
            group = fake.create_group("Schnapsen table", members=[alice])
            sent = alice.send(group, "/new")
            assert sent.update_id is not None
            await fake.wait_for_message(group, contains="via webhook")
            assert [d.status for d in fake.webhook_deliveries] == [500, 200]
            info = await application.bot.get_webhook_info()
            assert info.url == hook_url and info.pending_update_count == 0
            assert "500" in (info.last_error_message or "")

            assert await fake.deliver_webhook(sent.update_id) == 200  # a duplicate
            assert await fake.deliver_webhook(sent.update_id, secret="wrong") == 403
            fake.replay(sent.update_id)  # a duplicate through the queue
            await fake.wait_for(lambda: len(fake.webhook_deliveries) == 5)
            assert handled == [sent.update_id]

            with pytest.raises(Conflict, match=as_raised(CONFLICT_WEBHOOK_ACTIVE, Conflict)):
                await application.bot.get_updates()
            await application.stop()
    finally:
        await runner.cleanup()
