"""A Telegram group upgraded to a supergroup, end to end.

Telegram gives the supergroup a new chat id: every request naming the old id fails with
400 and ``parameters.migrate_to_chat_id`` (PTB: `ChatMigrated`), and two service
messages tell the bot (``migrate_to_chat_id`` in the old group, ``migrate_from_chat_id``
in the new one).  The table running in the group, the chat's settings and its
leaderboard must follow it, whichever of the two the bot meets first.
"""

from __future__ import annotations

import json
from pathlib import Path

import aiohttp
import pytest
from telegram.error import ChatMigrated

from adapters.telegram import Content, Handle, Outbox, Throttle
from adapters.telegram.content import Btn
from tests.e2e.fakes.telegram.chats import FakeChat
from tests.e2e.fakes.telegram.errors import GROUP_UPGRADED
from tests.e2e.fakes.telegram.messages import FakeMessage
from tests.e2e.fakes.telegram.server import FakeTelegram
from tests.e2e.telegram_harness import (
    Players,
    Rig,
    config_for,
    confirmed,
    fake,
    log_guard,
    make_players,
    open_table,
    play,
    press,
    start_rig,
    stop_rig,
)

__all__ = ["fake", "log_guard"]


def table_messages(chat: FakeChat, table_id: str) -> list[FakeMessage]:
    """The chat's table messages of one table (one per deal)."""
    return [m for m in chat.bot_messages() if m.text.split("\n")[0].endswith(f"— {table_id}")]


def shows_now(rig: Rig, chat: FakeChat, table_id: str) -> FakeMessage | None:
    """The chat's newest table message, if it shows the table as it is now."""
    view = rig.service.table(table_id)
    shown = table_messages(chat, table_id)
    if view is None or not shown or shown[-1].text != view.message.text:
        return None
    return shown[-1]


async def count(rig: Rig, sql: str, *params: object) -> int:
    rows = await rig.store.fetchall(sql, params)
    return int(rows[0][0])


async def two_tricks_in_a_group(rig: Rig, fake: FakeTelegram) -> tuple[Players, str]:
    """Anna and Berti in a plain group (not a supergroup yet), a Zweier match of
    theirs started there and two cards played, everything sent."""
    players = make_players(fake, ["Anna", "Berti"], supergroup=False)
    table_id, lobby = await open_table(rig, players, "/new zweier")
    assert not (await press(fake, players.users[0], lobby, "Start")).show_alert
    await play(rig, table_id, players.users, until=lambda: False, limit=2)
    await rig.adapter.outbox.drain()
    return players, table_id


async def test_the_fake_answers_for_an_upgraded_group_as_telegram_does(
    fake: FakeTelegram,
) -> None:
    anna = fake.create_user("Anna")
    group = fake.create_group("Schnapsen", members=[anna], creator=anna, supergroup=False)
    async with fake.make_bot() as bot:
        await bot.send_message(group.id, "before")
        supergroup = fake.migrate_group(group)
        assert supergroup.type == "supergroup" and str(supergroup.id).startswith("-100")
        assert supergroup.is_member(anna) and supergroup.is_admin(anna)
        # the real API's error body, word for word
        url = f"{fake.base_url}{fake.token}/sendMessage"
        async with (
            aiohttp.ClientSession() as http,
            http.post(url, data={"chat_id": str(group.id), "text": "after"}) as response,
        ):
            assert response.status == 400
            assert json.loads(await response.text()) == {
                "ok": False,
                "error_code": 400,
                "description": GROUP_UPGRADED,
                "parameters": {"migrate_to_chat_id": supergroup.id},
            }
        with pytest.raises(ChatMigrated) as raised:
            await bot.edit_message_text("edited", group.id, group.bot_messages()[0].message_id)
        assert raised.value.new_chat_id == supergroup.id
        await bot.send_message(supergroup.id, "in the supergroup")
    # the bot "joins" the supergroup, then the two service messages, as updates
    joined = fake.updates[-3]["my_chat_member"]
    assert joined["chat"]["id"] == supergroup.id and joined["from"]["id"] == anna.id
    assert joined["old_chat_member"]["status"] == "left"
    assert joined["new_chat_member"]["status"] == "member"
    old_side, new_side = (u["message"] for u in fake.updates[-2:])
    assert old_side["chat"] == {"id": group.id, "type": "group", "title": "Schnapsen"}
    assert old_side["migrate_to_chat_id"] == supergroup.id
    assert old_side["from"]["id"] == anna.id
    assert new_side["chat"]["id"] == supergroup.id and new_side["chat"]["type"] == "supergroup"
    assert new_side["migrate_from_chat_id"] == group.id
    # the old group keeps its history and takes no new messages
    assert [m.text for m in group.bot_messages()] == ["before"]
    with pytest.raises(ValueError, match="upgraded"):
        anna.send(group, "/help")


async def test_a_running_table_follows_its_group_into_the_supergroup(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """The service messages come first: the table message is posted anew in the
    supergroup, play goes on there, settings and the leaderboard came along, and
    /resign typed in the supergroup finds the table."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players = make_players(fake, ["Anna", "Berti"], supergroup=False)
        anna, berti = players.users
        group = players.group
        anna.send(group, "/settings starters admins")
        await fake.wait_for_message(group, contains="Saved: starters = admins")

        # a first match, conceded at once: results and chat ratings under the group's id
        first, lobby = await open_table(rig, players, "/new zweier")
        assert not (await press(fake, anna, lobby, "Start")).show_alert
        await fake.wait_for(lambda: table_messages(group, first), what="the first table")
        await confirmed(fake, berti, group, "/resign")
        done = await fake.wait_for_message(group, contains="Berti resigned.")

        # the second match is under way when the group is upgraded
        table_id, lobby = await open_table(rig, players, "/new zweier", after=done)
        assert not (await press(fake, anna, lobby, "Start")).show_alert
        await play(rig, table_id, players.users, until=lambda: False, limit=2)
        await rig.adapter.outbox.drain()
        left_behind = [(m.message_id, len(m.revisions)) for m in group.messages]

        supergroup = fake.migrate_group(group)
        new_key = f"tg:{supergroup.id}"
        moved = await fake.wait_for(
            lambda: shows_now(rig, supergroup, table_id), what="the table in the supergroup"
        )
        assert moved.buttons(), "the table message keeps its buttons"
        assert rig.adapter.outbox.stats.migrated == 0  # told by the service messages
        await fake.wait_for(
            lambda: (tb := rig.table(table_id)) is not None and tb.chat == new_key,
            what="the table to move",
        )

        # play goes on in the supergroup; the old group gets nothing more
        await play(rig, table_id, players.users, until=lambda: False, limit=4)
        await rig.adapter.outbox.drain()
        assert shows_now(rig, supergroup, table_id) is not None
        assert [(m.message_id, len(m.revisions)) for m in group.messages] == left_behind

        # the settings made in the group apply in the supergroup
        berti.send(supergroup, "/new zweier")
        await fake.wait_for_message(supergroup, contains="Only admins can open tables here.")
        anna.send(supergroup, "/settings")
        await fake.wait_for_message(supergroup, contains="starters = admins")

        # /resign typed in the supergroup finds the table; the result lands there
        await confirmed(fake, anna, supergroup, "/resign")
        summary = await fake.wait_for_message(supergroup, contains="Anna resigned.")
        assert "Game over!" in summary.text
        assert rig.table(table_id) is None
        await rig.adapter.outbox.drain()
        assert table_messages(supergroup, table_id)[-1].buttons() == []

        # both matches count on the supergroup's leaderboard (one won each)
        anna.send(supergroup, "/leaderboard zweier")
        board = await fake.wait_for_message(supergroup, contains="Leaderboard")
        assert board.text.count("1/2 won") == 2, board.text
        assert rig.witness.check_group(table_id, supergroup) > 1  # only this table there

        # nothing is left under the old id in the store
        old_key = f"tg:{group.id}"
        for sql in (
            "SELECT COUNT(*) FROM tables WHERE chat = ?",
            "SELECT COUNT(*) FROM chats WHERE key = ?",
            "SELECT COUNT(*) FROM games WHERE chat = ?",
            "SELECT COUNT(*) FROM results WHERE chat = ?",
            "SELECT COUNT(*) FROM ratings WHERE scope = ?",
        ):
            assert await count(rig, sql, old_key) == 0, sql
            assert await count(rig, sql, new_key) > 0, sql
        for (entry,) in await rig.store.fetchall(
            "SELECT entry FROM table_log WHERE version = 1 AND table_id IN (?, ?)",
            (first, table_id),
        ):
            assert json.loads(entry)["chat"] == new_key
    finally:
        await stop_rig(rig)


async def test_a_refused_request_moves_the_table_and_survives_a_restart(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """No service messages (the bot was away too long): the bot learns of the upgrade
    from Telegram's 400 on its next edit, re-sends to the supergroup, and a restart
    rebuilds the table there; /abort votes typed in the supergroup close it."""
    db = tmp_path / "bot.sqlite3"
    rig = await start_rig(fake, db)
    players, table_id = await two_tricks_in_a_group(rig, fake)
    anna, berti = players.users
    group = players.group

    supergroup = fake.migrate_group(group, service_messages=False)
    new_key = f"tg:{supergroup.id}"
    since = len(fake.calls)
    await play(rig, table_id, players.users, until=lambda: False, limit=1)
    await fake.wait_for(lambda: shows_now(rig, supergroup, table_id), what="the re-sent table")
    refused = [c for c in fake.calls[since:] if c.status == 400]
    assert refused and all(c.description == GROUP_UPGRADED for c in refused)
    assert refused[0].params["chat_id"] == group.id
    await fake.wait_for(
        lambda: (tb := rig.table(table_id)) is not None and tb.chat == new_key,
        what="the table to move",
    )
    await rig.adapter.outbox.drain()
    assert rig.adapter.outbox.stats.migrated >= 1
    refs = await rig.store.message_refs(table_id)
    assert refs["table"].startswith(f"{supergroup.id}/"), refs
    assert not any(ref.startswith(f"{group.id}/") for ref in refs.values()), refs
    revealed = dict(rig.witness.revealed)
    await stop_rig(rig)

    rig = await start_rig(fake, db, config=config_for(fake, db))
    try:
        rig.witness.revealed.update(revealed)
        table = rig.table(table_id)
        assert table is not None and table.chat == new_key
        posts = len(table_messages(supergroup, table_id))
        await play(rig, table_id, players.users, until=lambda: False, limit=2)
        await rig.adapter.outbox.drain()
        assert shows_now(rig, supergroup, table_id) is not None
        if len(table.deals) == 1:  # the same message, edited
            assert len(table_messages(supergroup, table_id)) == posts

        berti.send(supergroup, "/abort")
        await fake.wait_for_message(supergroup, contains="Your vote to close the table is counted")
        anna.send(supergroup, "/abort")
        await fake.wait_for_message(supergroup, contains=" was closed: ")
        assert rig.table(table_id) is None
        rig.witness.check_group(table_id, supergroup)
    finally:
        await stop_rig(rig)


async def test_a_table_moved_late_speaks_what_the_supergroup_set_meanwhile(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """The bot learns of the upgrade late (no service messages), and Anna has set
    German in the supergroup before it did: her settings there stay, and the match
    moved in from the group speaks German there, as every table of the supergroup
    does (the message re-sent there in English as Telegram refused the edit is
    edited in German), and its buttons go on."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players, table_id = await two_tricks_in_a_group(rig, fake)
        anna, _ = players.users
        group = players.group
        assert table_messages(group, table_id)[-1].text.splitlines()[1].startswith("Deal")

        supergroup = fake.migrate_group(group, service_messages=False)
        anna.send(supergroup, "/settings language de")
        await fake.wait_for_message(supergroup, contains="language = de")
        await play(rig, table_id, players.users, until=lambda: False, limit=1)
        await fake.wait_for(
            lambda: (tb := rig.table(table_id)) is not None and tb.chat == f"tg:{supergroup.id}",
            what="the table to move",
        )
        await rig.adapter.outbox.drain()
        shown = await fake.wait_for(
            lambda: shows_now(rig, supergroup, table_id), what="the table in the supergroup"
        )
        assert shown.text.splitlines()[1].startswith("Runde"), shown.text
        assert [b.text for b in shown.buttons()] == ["Meine Karten"]
    finally:
        await stop_rig(rig)


async def test_the_outbox_moves_a_chats_queue_to_the_supergroup(fake: FakeTelegram) -> None:
    """What was queued for the old id is sent to the new one, in order; edits of
    messages left behind in the old group are dropped unless brought along."""
    group = fake.create_group("Schnapsen", supergroup=False)
    async with fake.make_bot() as bot:
        moves: list[tuple[int, int]] = []
        outbox = Outbox(
            bot, throttle=Throttle.off(), on_migrated=lambda old, new: moves.append((old, new))
        )
        table = Handle(group.id, "t1", None)
        lobby = Handle(group.id, "t1", None)
        outbox.post(lobby, Content("lobby", ((Btn("Join", data="t1:1:j"),),)))
        outbox.post(table, Content("deal 1", ((Btn("Play", data="t1:3:a0"),),)))
        score = Handle(group.id, "t1", None)
        outbox.post(score, Content("score 0:0"))
        assert await outbox.drain(5)

        supergroup = fake.migrate_group(group, service_messages=False)
        outbox.edit(table, Content("deal 1, trick 2"))  # refused: the group moved
        outbox.freeze(lobby)  # history, left behind
        outbox.send(group.id, Content("Deal 1 over: seed 00ff"))
        fresh = Handle(group.id, "t1", None)  # the next deal's table, never posted
        outbox.post(fresh, Content("deal 2"))
        assert await outbox.drain(5)
        assert moves == [(group.id, supergroup.id)]
        assert outbox.current_chat(group.id) == supergroup.id
        assert [m.text for m in supergroup.bot_messages()] == ["Deal 1 over: seed 00ff", "deal 2"]
        assert fresh.chat_id == supergroup.id and table.dead
        # a message the move left behind, edited once the move is known: nothing is
        # sent for it, in either chat
        outbox.edit(score, Content("score 1:0"))
        assert await outbox.drain(5)
        assert score.dead and len(supergroup.bot_messages()) == 2
        left = Handle(group.id, "t1", None, message_id=lobby.message_id)  # the last run's
        gone = Handle(group.id, "t1", None, message_id=table.message_id)
        outbox.freeze(left)
        outbox.delete(gone)  # nor is one deleted there
        assert await outbox.drain(5)
        assert left.dead and all(len(m.revisions) == 1 for m in supergroup.bot_messages())
        assert gone.dead and len(supergroup.bot_messages()) == 2

        # brought along, a message is posted anew; the old id now means the new chat
        assert outbox.rehome(table) and not outbox.rehome(table)
        outbox.edit(table, Content("deal 1, final"))
        outbox.send(group.id, Content("later"))
        assert await outbox.drain(5)
        texts = [m.text for m in supergroup.bot_messages()]
        assert texts[2:] == ["deal 1, final", "later"]
        assert table.message_id == supergroup.bot_messages()[2].message_id
        # a message first posted after the move for the old id is the new chat's: its
        # later edits show there, it is not dropped as one left behind
        late = Handle(group.id, "t1", None)
        outbox.post(late, Content("deal 3"))
        assert await outbox.drain(5)
        outbox.edit(late, Content("deal 3, trick 2"))
        assert await outbox.drain(5)
        assert supergroup.bot_messages()[-1].text == "deal 3, trick 2" and not late.dead
        # the old group is as it was
        assert [m.text for m in group.bot_messages()] == ["lobby", "deal 1", "score 0:0"]
        assert all(len(m.revisions) == 1 for m in group.bot_messages())
        assert outbox.stats.migrated == 1 and outbox.stats.failed == 0
        await outbox.close()


async def test_a_message_refused_because_the_group_moved_arrives_in_the_supergroup_once(
    fake: FakeTelegram,
) -> None:
    """The group became a supergroup and the bot has not heard yet: the deal's result
    is refused at the old id (400, `ChatMigrated`) and goes to the supergroup, once,
    before what was queued behind it; not a second copy of it after that."""
    group = fake.create_group("Schnapsen", supergroup=False)
    async with fake.make_bot() as bot:
        outbox = Outbox(bot, throttle=Throttle.off())
        supergroup = fake.migrate_group(group, service_messages=False)
        outbox.send(group.id, Content("Deal 1 over"))
        outbox.send(group.id, Content("Deal 2"))
        assert await outbox.drain(5)
        sent = [(c.status, c.params["chat_id"]) for c in fake.calls_to("sendMessage")]
        assert sent == [(400, group.id), (200, supergroup.id), (200, supergroup.id)]
        assert [m.text for m in supergroup.bot_messages()] == ["Deal 1 over", "Deal 2"]
        assert outbox.stats.migrated == 1
        await outbox.close()


@pytest.mark.parametrize("join_first", [True, False], ids=["joined-first", "joined-last"])
async def test_an_upgraded_group_is_not_greeted_again(
    fake: FakeTelegram, tmp_path: Path, join_first: bool
) -> None:
    """Telegram tells of the upgrade with the bot "joining" the supergroup as if just
    added (before or after the service messages): the players in the middle of a
    match see no second "how to begin" help, while a group that really just added
    the bot gets it."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3", greet_after=0.3)
    try:
        players = make_players(fake, ["Anna", "Berti"], supergroup=False)
        anna = players.users[0]
        table_id, lobby = await open_table(rig, players, "/new zweier")
        assert not (await press(fake, anna, lobby, "Start")).show_alert
        await fake.wait_for(lambda: table_messages(players.group, table_id), what="the table")

        supergroup = fake.migrate_group(players.group, join_first=join_first)
        await fake.wait_for(lambda: shows_now(rig, supergroup, table_id), what="the move")
        typed = anna.send(supergroup, "/rules zweier")  # after the bot "joined"
        await fake.wait_for_message(supergroup, after=typed, contains="Schnapsen")

        # a group that adds the bot now is greeted, after the supergroup would have been
        fresh = fake.create_group("Fresh", members=[anna], creator=anna, bot_status="left")
        fake.set_bot_status(fresh, "member", by=anna)
        hello = await fake.wait_for_message(fresh, contains="/new <game>")
        assert await rig.adapter.outbox.drain(5)

        for chat in (players.group, supergroup):
            helps = [m.text for m in chat.bot_messages() if m.text == hello.text]
            assert not helps, chat.transcript()
        assert rig.table(table_id) is not None  # the match goes on
    finally:
        await stop_rig(rig)
