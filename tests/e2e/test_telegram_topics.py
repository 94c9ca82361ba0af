"""Forum supergroups: a table opened in a topic lives in that topic.

In a forum (a supergroup with topics on) Telegram puts a message sent without
``message_thread_id`` into the General topic, which may be closed.  A command typed in
a topic comes with ``message_thread_id`` and ``is_topic_message``: its answer, and a
table it opens (lobby, table messages, notes, results), belong in that topic, after a
restart too.  The players' hands stay in their private chats.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from adapters.telegram import Content, Handle, Outbox, Throttle
from adapters.telegram.content import Attachment
from bot.payload import PayloadError
from bot.payload import decode as decode_payload
from tests.e2e.fakes.telegram.chats import FakeChat
from tests.e2e.fakes.telegram.messages import FakeMessage
from tests.e2e.fakes.telegram.server import FakeTelegram
from tests.e2e.fakes.telegram.users import FakeUser
from tests.e2e.telegram_harness import (
    Players,
    Rig,
    deal_over,
    fake,
    hand_message,
    joined,
    log_guard,
    play,
    press,
    start_rig,
    stop_rig,
)

__all__ = ["fake", "log_guard"]


def forum_players(fake: FakeTelegram, names: list[str]) -> Players:
    """Users in a new forum supergroup created by the first, all started the bot."""
    users = [fake.create_user(n, username=n.lower(), started=True) for n in names]
    group = fake.create_group("Card room", members=users, creator=users[0], forum=True)
    return Players(group, users)


async def open_in_topic(
    rig: Rig, group: FakeChat, topic: int | None, host: FakeUser, *guests: FakeUser
) -> tuple[str, FakeMessage]:
    """`/new zweier` typed by `host` in `topic`, `guests` join; the table id and lobby."""
    fake = rig.fake
    typed = host.send(group, "/new zweier", topic=topic)
    lobby = await fake.wait_for(
        lambda: next(
            (
                m
                for m in group.bot_messages()
                if m.message_id > typed.message_id and "Host:" in m.text
            ),
            None,
        ),
        what="a lobby\n" + group.transcript(),
    )
    table_id = tables_named(lobby).pop()
    for user in guests:
        assert not (await press(fake, user, lobby, "Join")).show_alert
        await fake.wait_for(joined(user, lobby), what="the join")
    return table_id, lobby


async def stopped_in_a_topic(
    fake: FakeTelegram, db: Path, presses: int
) -> tuple[Players, int, str, FakeMessage]:
    """Anna and Berti's match opened in a topic, `presses` presses in, and the bot
    stopped (to be started again on `db`): the players, the topic, the table, its
    lobby."""
    rig = await start_rig(fake, db)
    players = forum_players(fake, ["Anna", "Berti"])
    anna, berti = players.users
    topic = players.group.create_topic("Schnapsen")
    table_id, lobby = await open_in_topic(rig, players.group, topic, anna, berti)
    assert not (await press(fake, anna, lobby, "Start")).show_alert
    await play(rig, table_id, players.users, until=lambda: False, limit=presses)
    await rig.adapter.outbox.drain()
    await stop_rig(rig)
    return players, topic, table_id, lobby


async def two_topics(
    rig: Rig, *, first_in_general: bool = False
) -> tuple[Players, tuple[int | None, int], tuple[str, FakeMessage], tuple[str, FakeMessage]]:
    """One forum, two topics (the first the General one, if so asked), a lobby in
    each (one seat per player per group: Anna and Berti in the first, Carl and Dora
    in the second): the players, the topics, each table with its lobby."""
    players = forum_players(rig.fake, ["Anna", "Berti", "Carl", "Dora"])
    group = players.group
    anna, berti, carl, dora = players.users
    first = None if first_in_general else group.create_topic("Table one")
    second = group.create_topic("Table two")
    one = await open_in_topic(rig, group, first, anna, berti)
    two = await open_in_topic(rig, group, second, carl, dora)
    return players, (first, second), one, two


@contextlib.asynccontextmanager
async def one_topic_closed(
    fake: FakeTelegram,
) -> AsyncIterator[tuple[FakeChat, int, int, Outbox, list[tuple[int, int | None]]]]:
    """A forum with two topics, the first closed, and an outbox to it (no throttle)
    that lists each topic it was told was refused."""
    group = fake.create_group("Schnapsen", forum=True)
    one, two = group.create_topic("Table 1"), group.create_topic("Table 2")
    group.close_topic(one)
    async with fake.make_bot() as bot:
        told: list[tuple[int, int | None]] = []
        outbox = Outbox(
            bot,
            throttle=Throttle.off(),
            on_topic_refused=lambda chat, thread: told.append((chat, thread)),
        )
        yield group, one, two, outbox, told


def tables_named(message: FakeMessage) -> set[str]:
    """The tables a message's buttons (in any revision) or its first line name."""
    found = set()
    for rev in message.revisions:
        for row in rev.keyboard():
            for button in row:
                try:
                    found.add(decode_payload(button.data).table)
                except PayloadError:
                    continue
    return found


def outside(group: FakeChat, topic: int | None) -> list[str]:
    """The bot's messages in `group` that are not in `topic`, as text (for asserts)."""
    return [
        f"[{m.message_thread_id}] {m.text}"
        for m in group.bot_messages()
        if m.message_thread_id != topic
    ]


async def test_a_match_opened_in_a_topic_stays_in_it(fake: FakeTelegram, tmp_path: Path) -> None:
    """Lobby, table messages, every deal's result and the match's end: all in the
    topic /new was typed in, nothing in General."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players = forum_players(fake, ["Anna", "Berti"])
        group = players.group
        anna, berti = players.users
        topic = group.create_topic("Schnapsen")
        table_id, lobby = await open_in_topic(rig, group, topic, anna, berti)
        assert lobby.message_thread_id == topic
        assert not (await press(fake, anna, lobby, "Start")).show_alert
        await play(rig, table_id, players.users, until=lambda: rig.table(table_id) is None)
        await rig.adapter.outbox.drain()

        posts = group.topic_messages(topic)
        assert outside(group, topic) == []
        deals = rig.witness.kinds.count("deal_end") + 1
        assert len(posts) >= 1 + 2 * deals, group.transcript()  # lobby, tables, results
        assert "Game over!" in posts[-1].text
        for user in players.users:  # the hands are private, as ever
            hand = hand_message(user, table_id)
            assert hand is not None and hand.message_thread_id is None
        rig.witness.check_group(table_id, group)
    finally:
        await stop_rig(rig)


async def test_command_replies_go_to_the_topic_they_came_from(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """/help, /rules, /leaderboard and refusals (an unknown game, /settings by one who
    is no admin) answer in the topic typed in; typed in General, in General."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players = forum_players(fake, ["Anna", "Berti"])
        group = players.group
        anna, berti = players.users
        cards, chat = group.create_topic("Cards"), group.create_topic("Chat")
        asked: list[tuple[FakeUser, str, int | None, str]] = [
            (anna, "/help", cards, "/new"),
            (berti, "/rules zweier", chat, "Schnapsen (2 players)"),
            (anna, "/leaderboard", cards, ""),
            (berti, "/new xyz", chat, "xyz"),
            (berti, "/settings", cards, ""),
            (anna, "/help", None, "/new"),
        ]
        for user, command, topic, expected in asked:
            typed = user.send(group, command, topic=topic)
            reply = await fake.wait_for_message(group, after=typed, contains=expected or None)
            await rig.adapter.outbox.drain()
            replies = [m for m in group.bot_messages() if m.message_id > typed.message_id]
            assert [m.message_thread_id for m in replies] == [topic] * len(replies), (
                f"{command} in topic {topic}:\n{group.transcript()}"
            )
            assert reply in replies
    finally:
        await stop_rig(rig)


async def test_a_restart_mid_match_keeps_posting_in_the_topic(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """The topic is kept with the table's message references: after a restart the
    table's messages, one posted anew (an admin deleted it) and the deal's result
    too, still go to the topic."""
    db = tmp_path / "bot.sqlite3"
    players, topic, table_id, lobby = await stopped_in_a_topic(fake, db, presses=3)
    group = players.group
    anna = players.users[0]

    rig = await start_rig(fake, db)
    try:
        table_message = next(m for m in reversed(group.bot_messages()) if m is not lobby)
        assert table_id in tables_named(table_message)
        anna.delete(table_message)  # the next change posts it anew
        last = group.messages[-1].message_id
        await play(rig, table_id, players.users, until=deal_over(rig, table_id))
        await rig.adapter.outbox.drain()
        fresh = [m for m in group.bot_messages() if m.message_id > last]
        assert any(table_id in tables_named(m) for m in fresh), group.transcript()
        assert any("Game over!" in m.text or "Deal" in m.text for m in fresh)
        assert outside(group, topic) == []
    finally:
        await stop_rig(rig)


async def test_two_tables_in_two_topics_stay_apart(fake: FakeTelegram, tmp_path: Path) -> None:
    """One group, two topics, a table in each (a player has one seat per group, so
    four players): each table's messages go to its own topic only."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players, (first, second), (one, lobby_one), (two, lobby_two) = await two_topics(rig)
        group = players.group
        anna, berti, carl, dora = players.users
        assert not (await press(fake, carl, lobby_two, "Start")).show_alert
        assert not (await press(fake, anna, lobby_one, "Start")).show_alert
        await play(rig, two, [carl, dora], until=lambda: False, limit=3)
        await play(rig, one, [anna, berti], until=deal_over(rig, one))
        await play(rig, two, [carl, dora], until=lambda: False, limit=2)
        await rig.adapter.outbox.drain()

        assert group.topic_messages(None) == [], group.transcript()
        for topic, mine, other in ((first, one, two), (second, two, one)):
            posts = group.topic_messages(topic)
            assert any(mine in tables_named(m) for m in posts)
            for m in posts:
                assert other not in tables_named(m) and other not in m.text, group.transcript()
        # table one's deal ended: its result is in its topic; in the other, the results
        # of table two's own deals only (none, unless a random deal ended within its
        # 5 presses, about one run in 460)
        assert any(not tables_named(m) for m in group.topic_messages(first))
        results = [m for m in group.topic_messages(second) if not tables_named(m)]
        scored = [u for u in rig.witness.updates if u.table_id == two and u.result is not None]
        assert len(results) == len(scored), group.transcript()
    finally:
        await stop_rig(rig)


@pytest.mark.parametrize("general", [False, True], ids=["topic", "general"])
async def test_a_closed_topic_closes_its_table_only(
    fake: FakeTelegram, tmp_path: Path, general: bool
) -> None:
    """An admin closes one table's topic (or the General topic, where a /new typed
    outside any topic put its table): that table closes, its players told privately
    why (nobody can read it there), while the table in the other topic of the same
    group plays on there.  Reopened and closed again, the topic closes its new table
    too."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players, (first, second), (one, lobby_one), (two, lobby_two) = await two_topics(
            rig, first_in_general=general
        )
        group = players.group
        anna, berti, carl, dora = players.users
        assert not (await press(fake, anna, lobby_one, "Start")).show_alert
        assert not (await press(fake, carl, lobby_two, "Start")).show_alert
        await rig.adapter.outbox.drain()

        group.close_topic(first)
        await play(rig, one, [anna, berti], until=lambda: rig.table(one) is None, limit=40)
        for user in (anna, berti):
            await fake.wait_for_message(
                user.private_chat, contains=f"Table {one} was closed: its topic"
            )
        assert rig.table(two) is not None
        last = group.messages[-1].message_id

        def scored() -> bool:  # table two's first deal (table one's may have ended too)
            table = rig.table(two)
            return table is None or len(table.deal_points) > 0

        await play(rig, two, [carl, dora], until=scored)
        await rig.adapter.outbox.drain()
        fresh = [m for m in group.bot_messages() if m.message_id > last]
        assert fresh and all(m.message_thread_id == second for m in fresh), group.transcript()
        assert rig.table(two) is not None

        # reopened, the topic gets a new table; closed again, that one closes too
        group.reopen_topic(first)
        again, lobby = await open_in_topic(rig, group, first, anna, berti)
        assert not (await press(fake, anna, lobby, "Start")).show_alert
        group.close_topic(first)
        await play(rig, again, [anna, berti], until=lambda: rig.table(again) is None, limit=40)
        await fake.wait_for_message(
            anna.private_chat, contains=f"Table {again} was closed: its topic"
        )
    finally:
        await stop_rig(rig)


async def test_what_waits_for_a_closed_topic_is_dropped_and_told_once(fake: FakeTelegram) -> None:
    """A table's topic closed: its post is refused, the note queued behind it for the
    same topic is not tried (each try another refusal, each telling the adapter
    again), the table's messages get nothing more, and the other topic's message goes
    out."""
    async with one_topic_closed(fake) as (group, one, two, outbox, told):
        table, hand = (
            Handle(group.id, "t1", None, thread=one),
            Handle(group.id, "t1", None, thread=one),
        )
        outbox.post(table, Content("deal 1"))
        outbox.post(hand, Content("your hand"))
        outbox.send(group.id, Content("deal 1 over"), thread=one)
        outbox.send(group.id, Content("the other table's note"), thread=two)
        assert await outbox.drain(5)
        assert told == [(group.id, one)]
        assert [m.text for m in group.bot_messages()] == ["the other table's note"]
        outbox.edit(table, Content("deal 1, trick 2"))
        outbox.edit(hand, Content("your hand, trick 2"))
        assert await outbox.drain(5)
        assert table.dead and hand.dead
        assert len(fake.calls_to("sendMessage")) == 2 and len(told) == 1
        await outbox.close()


async def test_a_record_refused_by_its_closed_topic_brings_no_try_again_there(
    fake: FakeTelegram,
) -> None:
    """The record asked for in a table's topic meets the topic closed: no "please try
    again" follows it there (the topic takes nothing: one more refusal, telling the
    adapter again), and the other topic's message goes out."""
    async with one_topic_closed(fake) as (group, one, two, outbox, told):
        failed = Content("Something went wrong; please try again.")
        record = Attachment("record.json", b"{}")
        outbox.send_file(group.id, record, "The record", fallback=failed, thread=one)
        outbox.send(group.id, Content("the other table's note"), thread=two)
        assert await outbox.drain(5)
        assert told == [(group.id, one)]
        assert [c.status for c in fake.calls_to("sendDocument")] == [400]
        assert [c.params.get("message_thread_id") for c in fake.calls_to("sendMessage")] == [two]
        assert [m.text for m in group.bot_messages()] == ["the other table's note"]
        await outbox.close()


async def test_a_second_new_does_not_move_the_first_table_out_of_its_topic(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """Anna types /new twice at once, in two topics: one table opens, its lobby in the
    topic its /new came from, the other /new is refused in its own topic, and
    nothing lands in General (whose closing would close the group's tables)."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players = forum_players(fake, ["Anna", "Berti"])
        group = players.group
        anna = players.users[0]
        first, second = group.create_topic("One"), group.create_topic("Two")
        anna.send(group, "/new zweier", topic=first)
        anna.send(group, "/new zweier", topic=second)
        await fake.wait_for(
            lambda: any("already" in m.text for m in group.bot_messages()), what="the refusal"
        )
        await rig.adapter.outbox.drain()
        [lobby] = [m for m in group.bot_messages() if "Host:" in m.text]
        [refusal] = [m for m in group.bot_messages() if "already" in m.text]
        assert {lobby.message_thread_id, refusal.message_thread_id} == {first, second}
        assert group.topic_messages(None) == [], group.transcript()

        # that table closed, her next /new from General opens there: neither topic an
        # earlier /new of hers came from still holds on to her
        table_id = decode_payload(lobby.buttons()[0].data).table
        anna.send(group, "/abort", topic=lobby.message_thread_id)
        await fake.wait_for(lambda: rig.table(table_id) is None, what="the table to close")
        typed = anna.send(group, "/new zweier")
        again = await fake.wait_for_message(group, after=typed, contains="Host:")
        assert again.message_thread_id is None, group.transcript()
    finally:
        await stop_rig(rig)


async def test_after_a_restart_a_hand_posted_anew_goes_to_the_private_chat(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """The topic belongs to the group's messages: a hand the player deleted, posted
    anew after a restart, reaches his private chat (which has no topics)."""
    db = tmp_path / "bot.sqlite3"
    players, _, table_id, _ = await stopped_in_a_topic(fake, db, presses=2)
    group = players.group
    anna = players.users[0]

    rig = await start_rig(fake, db)
    try:
        await rig.adapter.outbox.drain()
        old = hand_message(anna, table_id)
        assert old is not None
        anna.delete(old)
        since = len(fake.calls)
        table_message = next(
            m for m in reversed(group.bot_messages()) if "Show my hand" in str(m.buttons())
        )
        await press(fake, anna, table_message, "Show my hand")
        await fake.wait_for(
            lambda: (h := hand_message(anna, table_id)) is not None and h is not old,
            what="the hand posted anew",
        )
        await rig.adapter.outbox.drain()
        refused = [c.method for c in fake.calls[since:] if c.status >= 400]
        assert refused in ([], ["editMessageText"]), refused  # the deleted one's edit
    finally:
        await stop_rig(rig)
