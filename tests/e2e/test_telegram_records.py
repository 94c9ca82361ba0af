"""/record on Telegram: a finished match's game record as a document in its group.

The real adapter behind python-telegram-bot, against the fake Bot API (which takes
uploads and refuses what Telegram refuses), with a real SQLite store.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from adapters.telegram.content import Attachment, Content
from engine.__main__ import verify_text
from tests.e2e.fakes.telegram.ptb import LogErrorGuard
from tests.e2e.fakes.telegram.server import FakeTelegram
from tests.e2e.telegram_harness import (
    fake,
    finished_match,
    log_guard,
    make_players,
    start_rig,
    started_match,
    stop_rig,
    wait_for_document,
    warned,
)

__all__ = ["fake", "log_guard"]

#: The loggers the bot leaves at INFO: the adapter, the core, python-telegram-bot.
OURS = ("adapters", "bot", "telegram")


async def test_the_group_gets_the_record_of_its_finished_match(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players, table_id = await finished_match(rig, fake)
        anna, berti = players.users
        group = players.group

        berti.send(group, "/record")
        document = await wait_for_document(fake, group)
        assert document.document is not None
        assert document.document.file_name == f"schnapsen-zweier-{table_id}.json"
        record = json.loads(document.document.data)
        assert record == await rig.store.game_record(table_id)
        assert verify_text(document.document.data.decode())[0] == 0  # each deal from its seed
        caption = document.text
        assert caption.startswith(f"The record of table {table_id} — ")
        assert "Seats in the record (numbered from 0, as in the file): 0 Anna · 1 Berti." in caption
        assert f"python -m engine verify {document.document.file_name}" in caption

        anna.send(group, f"/record {table_id.upper()}")  # named, as someone may type it
        again = await wait_for_document(fake, group, after=document)
        assert again.document is not None and again.document.data == document.document.data

        anna.send(group, "/record zz9zz")
        refused = await fake.wait_for_message(group, after=again, contains="zz9zz")
        assert refused.text.startswith("No finished match zz9zz") and refused.document is None

        anna.send(anna.private_chat, "/record")  # no tables in the private chat
        await fake.wait_for_message(anna.private_chat, contains="Use this command in a group")
        assert len(fake.calls_to("sendDocument")) == 2

        menu = {lang: [c["command"] for c in fake.command_list(None, lang)] for lang in ("", "de")}
        assert all("record" in commands for commands in menu.values()), menu
    finally:
        await stop_rig(rig)


async def test_no_record_while_the_match_runs_nor_before_one_ended(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players, table_id = await started_match(rig, fake, presses=3)
        anna, berti = players.users
        group = players.group

        berti.send(group, "/record")
        await fake.wait_for_message(group, contains="No finished match here yet")
        anna.send(group, f"/record {table_id}")
        refused = await fake.wait_for_message(group, contains=f"No finished match {table_id}")
        await rig.adapter.outbox.drain()

        assert not fake.calls_to("sendDocument")
        assert refused.document is None
        # every group message, the refusals included, showed no card not yet played
        assert rig.witness.check_group(table_id, group) > 2
    finally:
        await stop_rig(rig)


async def test_the_record_rides_out_telegram_trouble(
    fake: FakeTelegram, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players, table_id = await finished_match(rig, fake)
        anna = players.users[0]
        group = players.group

        fake.fail_next("sendDocument", error_code=502)  # a hiccup: tried again
        anna.send(group, "/record")
        first = await wait_for_document(fake, group)
        assert first.document is not None and table_id in (first.document.file_name or "")

        fake.fail_next("sendDocument", error_code=400, description="Bad Request: file lost")
        anna.send(group, "/record")
        failed = await fake.wait_for_message(group, after=first, contains="went wrong")
        assert failed.text == "Something went wrong; please try again."
        # logged, without the token (httpx's request lines, which hold it, the bot
        # keeps quiet: bot/app.py)
        ours = [r.getMessage() for r in caplog.records if r.name.startswith(OURS)]
        assert [line for line in ours if "file lost" in line.lower()], "the refusal is logged"
        assert not [line for line in ours if fake.token in line]

        # a group that lets the bot write but not send files: the record is refused,
        # the group is not taken for lost (its tables would close)
        no_files = "Bad Request: not enough rights to send documents to the chat"
        fake.fail_next("sendDocument", error_code=400, description=no_files)
        anna.send(group, "/record")
        refused = await fake.wait_for_message(group, after=failed, contains="went wrong")
        asked = anna.send(group, "/help")
        await fake.wait_for_message(group, after=asked, contains="/new")
        assert group.id not in rig.adapter.lost
        failed = refused

        # a caption longer than Telegram takes: the document keeps its first line, the
        # whole text follows as a message
        caption = f"The record of table {table_id}\n" + "seats " * 250
        rig.adapter.outbox.send_file(group.id, Attachment("long.json", b"{}"), caption)
        long = await wait_for_document(fake, group, after=failed)
        assert long.text == f"The record of table {table_id}"
        full = await fake.wait_for_message(group, after=long)
        assert full.text == caption.strip()
    finally:
        await stop_rig(rig)


async def test_a_record_that_may_have_arrived_gets_no_try_again(
    fake: FakeTelegram, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The document reaches the group but Telegram's answer is lost on the way (as
    after a timeout), and the bot's second try is refused: the group has its record,
    and no "Something went wrong; please try again." below it, which would be wrong
    and bring a second copy.  The log says so in one warning line."""
    caplog.set_level(logging.INFO)
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players, table_id = await finished_match(rig, fake)
        anna = players.users[0]
        group = players.group

        fake.lose_answer_next("sendDocument")
        fake.fail_next("sendDocument", error_code=400, description="Bad Request: file lost")
        typed = anna.send(group, "/record")
        document = await wait_for_document(fake, group, after=typed)
        assert document.document is not None and table_id in (document.document.file_name or "")
        await fake.wait_for(lambda: len(fake.calls_to("sendDocument")) == 2, what="the retry")
        assert await rig.adapter.outbox.drain(5)

        after = [m.text for m in group.bot_messages() if m.message_id > typed.message_id]
        assert after == [document.text], after  # the record, and nothing else
        _one_warning_that_it_may_have_arrived(caplog, group.id)
    finally:
        await stop_rig(rig)


def _one_warning_that_it_may_have_arrived(caplog: pytest.LogCaptureFixture, chat: int) -> None:
    """The adapter said in one warning line that the document in `chat` failed and why
    no "please try again" follows (before: a second line for that)."""
    said = warned(caplog, under=("adapters",))
    assert len(said) == 1, said
    assert f"a document in chat {chat}: " in said[0] and "may have arrived" in said[0], said


@pytest.mark.parametrize("spoil", ["garble_answer_next", "answer_without_result_next"])
async def test_a_record_whose_answer_cannot_be_read_is_neither_sent_again_nor_said_failed(
    fake: FakeTelegram,
    tmp_path: Path,
    log_guard: LogErrorGuard,
    caplog: pytest.LogCaptureFixture,
    spoil: str,
) -> None:
    """The document reaches the group but Telegram's answer comes back unreadable, as
    a proxy on the way may leave it (a 200 cut short, or JSON that says ``ok`` with no
    ``result``): the group has its record once, not a second copy, and no "Something
    went wrong; please try again." below it; the group's next message goes out.  The
    log says so in one warning line."""
    caplog.set_level(logging.INFO)
    log_guard.allow("Can not load invalid JSON data")  # PTB's own line about the answer
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        group = make_players(fake, ["Anna"]).group
        failed = Content("Something went wrong; please try again.")
        getattr(fake, spoil)("sendDocument")
        rig.adapter.outbox.send_file(
            group.id, Attachment("record.json", b"{}"), "The record", fallback=failed
        )
        rig.adapter.outbox.send(group.id, Content("Deal 1"))
        assert await rig.adapter.outbox.drain(5)
        assert [c.status for c in fake.calls_to("sendDocument")] == [200]
        sent = group.bot_messages()
        assert [m.text for m in sent] == ["The record", "Deal 1"]
        assert sent[0].document is not None
        _one_warning_that_it_may_have_arrived(caplog, group.id)
    finally:
        await stop_rig(rig)


async def test_a_record_refused_with_an_error_of_no_known_kind_gets_try_again(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """Telegram refuses the document with an error the bot has no rule for (a 409,
    which python-telegram-bot raises as a `Conflict`): nothing arrived, so whoever
    asked reads "Something went wrong; please try again." rather than nothing."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        group = make_players(fake, ["Anna"]).group
        failed = Content("Something went wrong; please try again.")
        fake.fail_next("sendDocument", error_code=409)
        rig.adapter.outbox.send_file(
            group.id, Attachment("record.json", b"{}"), "The record", fallback=failed
        )
        assert await rig.adapter.outbox.drain(5)
        assert [m.text for m in group.bot_messages()] == [failed.text]
    finally:
        await stop_rig(rig)


async def test_a_long_caption_follows_only_a_document_that_arrived(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """A caption too long for Telegram follows the document as a message; when
    Telegram refuses the document, the group reads only that it should try again,
    not a long text about a file it never got."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        group = make_players(fake, ["Anna"]).group
        caption = "The record of table abc12\n" + "seats " * 250
        failed = Content("Something went wrong; please try again.")

        fake.fail_next("sendDocument", error_code=400, description="Bad Request: file lost")
        rig.adapter.outbox.send_file(
            group.id, Attachment("long.json", b"{}"), caption, fallback=failed
        )
        assert await rig.adapter.outbox.drain(5)
        assert [m.text for m in group.bot_messages()] == [failed.text]

        rig.adapter.outbox.send_file(
            group.id, Attachment("long.json", b"{}"), caption, fallback=failed
        )
        assert await rig.adapter.outbox.drain(5)
        sent = group.bot_messages()[1:]
        assert [m.text for m in sent] == ["The record of table abc12", caption.strip()]
        assert sent[0].document is not None and sent[1].document is None
    finally:
        await stop_rig(rig)
