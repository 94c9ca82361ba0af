"""A bot that runs for months: what it keeps per user and per chat stays bounded,
and whatever it let go of is learnt again without a user noticing.

The idle times and caps are shrunk (constructor parameters) instead of waited out.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from adapters.telegram import Content, Handle, Outbox, Throttle
from bot.payload import decode as decode_payload
from tests.e2e.fakes.telegram.server import FakeTelegram
from tests.e2e.fakes.telegram.users import FakeUser
from tests.e2e.telegram_harness import (
    fake,
    log_guard,
    make_players,
    open_table,
    press,
    start_rig,
    stop_rig,
)

__all__ = ["fake", "log_guard"]


async def held_none(outbox: Outbox) -> None:
    """Wait for the outbox to let go of every idle chat (no Telegram request tells),
    and for their workers to end: one left running for a chat let go of would stay
    for good, a task for every user the bot ever wrote to."""

    def workers() -> list[asyncio.Task[object]]:
        return [t for t in asyncio.all_tasks() if t.get_name().startswith("tg-outbox:")]

    await until(lambda: outbox.held == 0 and not workers())


async def until(predicate: Callable[[], bool], timeout: float = 5.0) -> None:
    async with asyncio.timeout(timeout):
        while not predicate():
            await asyncio.sleep(0.01)


async def test_idle_private_chats_leave_the_outbox_and_still_get_messages(
    fake: FakeTelegram,
) -> None:
    users = [fake.create_user(f"U{i}", started=True) for i in range(40)]
    blocker = users[1]
    async with fake.make_bot() as bot:
        outbox = Outbox(bot, throttle=Throttle.off(), idle_after=0.02)
        hand = Handle(users[0].id, "t1", None)
        outbox.post(hand, Content("hand 1"))
        blocker.block_bot()
        for user in users:
            outbox.send(user.id, Content(f"hello {user.first_name}"))
        assert await outbox.drain(5)
        assert outbox.blocked(blocker.id)  # the 403 was heard
        await held_none(outbox)
        await outbox.paced(users[2].id)  # a request made outside the queue (a greeting)
        await held_none(outbox)  # leaves nothing behind either

        # a chat dropped is still known to refuse the bot: nothing is tried there
        requests = outbox.stats.requests
        outbox.send(blocker.id, Content("not tried"))
        assert await outbox.drain(5)
        assert outbox.blocked(blocker.id) and outbox.stats.requests == requests

        # a dropped chat gets later messages, in order; its message is edited in
        # place, a burst of edits merged, and an edit to what it shows costs nothing
        outbox.edit(hand, Content("hand 1"))
        assert outbox.held == 0
        outbox.edit(hand, Content("hand 2"))
        outbox.edit(hand, Content("hand 3"))
        outbox.send(users[0].id, Content("after"))
        assert await outbox.drain(5)
        chat = users[0].private_chat
        assert [m.text for m in chat.bot_messages()] == ["hand 3", "hello U0", "after"]
        assert [r.text for r in chat.bot_messages()[0].revisions] == ["hand 1", "hand 3"]
        assert outbox.stats.requests == requests + 2
        await outbox.close()


async def test_a_chat_let_go_of_while_blocked_gets_messages_once_it_lets_the_bot_in(
    fake: FakeTelegram,
) -> None:
    """Berti blocked the bot; the outbox let go of his idle chat and kept only that it
    refuses the bot.  When he lets the bot in again (his /start unblocks the chat),
    what is sent to him arrives: a block remembered past its end would drop every
    message to him for good."""
    berti = fake.create_user("Berti", started=True)
    async with fake.make_bot() as bot:
        outbox = Outbox(bot, throttle=Throttle.off(), idle_after=0.02)
        berti.block_bot()
        outbox.send(berti.id, Content("refused"))
        assert await outbox.drain(5)
        assert outbox.blocked(berti.id)
        await held_none(outbox)
        assert outbox.blocked(berti.id)  # remembered without its queue

        berti.start_bot()
        outbox.unblock(berti.id)
        assert not outbox.blocked(berti.id)
        outbox.send(berti.id, Content("welcome back"))
        assert await outbox.drain(5)
        assert [m.text for m in berti.private_chat.bot_messages()] == ["welcome back"]
        await outbox.close()


async def test_the_adapter_forgets_old_users_but_still_greets_and_speaks_to_them(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    rig = await start_rig(fake, tmp_path / "bot.sqlite3", remember_users=3, outbox_idle=0.02)
    try:
        berti = fake.create_user("Berti", started=False, language_code="de")
        anna = fake.create_user("Anna", started=True)
        group = fake.create_group("Schnapsen", members=[anna, berti], creator=anna)
        berti.start_bot()
        await fake.wait_for_message(berti.private_chat, contains="Servus Berti")
        crowd = [fake.create_user(f"U{i}", started=False) for i in range(6)]
        for user in crowd:
            user.start_bot()

            def greeted(u: FakeUser = user) -> bool:
                return bool(u.private_chat.bot_messages())

            await fake.wait_for(greeted)
        adapter = rig.adapter
        assert len(adapter.langs) <= 3 and len(adapter.reachable) <= 3
        await held_none(adapter.outbox)

        # Berti is forgotten: joining, he is greeted again (no refusal), in German
        before = len(berti.private_chat.bot_messages())
        anna.send(group, "/new zweier")
        lobby = await fake.wait_for_message(group, contains="Host:")
        answer = await press(fake, berti, lobby, "Join")
        assert not answer.show_alert and answer.url is None, answer.text
        await fake.wait_for(lambda: len(berti.private_chat.bot_messages()) > before)
        table_id = decode_payload(lobby.buttons()[0].data).table
        assert not (await press(fake, anna, lobby, "Start")).show_alert
        await fake.wait_for_message(berti.private_chat, contains=f"Tisch {table_id}")
    finally:
        await stop_rig(rig)


async def test_a_user_who_cannot_be_written_to_is_forgotten_with_his_last_table(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players = make_players(fake, ["Anna", "Berti"])
        anna, berti = players.users
        berti.started_bot = False
        host = players.users[0]
        for _ in range(2):
            host.send(players.group, "/new zweier")
            lobby = await fake.wait_for_message(
                players.group, contains="Host:", after=players.group.latest()
            )
            answer = await press(fake, berti, lobby, "Join")
            assert answer.url is not None  # the link to open the private chat
            # Start waits for him: being unreachable is remembered while it matters
            assert (await press(fake, anna, lobby, "Start")).show_alert
            assert berti.id in rig.adapter.unreachable
            anna.send(players.group, "/abort")
            await until(lambda: berti.id not in rig.adapter.unreachable)
    finally:
        await stop_rig(rig)


async def test_a_finished_group_move_keeps_only_the_ids(fake: FakeTelegram, tmp_path: Path) -> None:
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players = make_players(fake, ["Anna", "Berti"], supergroup=False)
        table_id, _ = await open_table(rig, players, "/new zweier")
        old = players.group.id
        supergroup = fake.migrate_group(players.group)
        await fake.wait_for_message(supergroup, contains="Host:")
        moves = rig.adapter._moves
        await until(lambda: moves.get(old) == (supergroup.id, None))
        # the old id still leads to the new chat
        players.users[0].send(supergroup, "/abort")
        await fake.wait_for(lambda: rig.table(table_id) is None, what="the table closed")
    finally:
        await stop_rig(rig)
