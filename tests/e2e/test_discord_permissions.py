"""What the bot may do in a channel, before a table opens there.

The lobby of `/schnapsen new` is the command's reply, which Discord delivers whatever
the bot may do in the channel; the table's later edits and posts are not.  So the
bot looks at the permissions Discord sends with the command (``app_permissions``)
and refuses, naming what is missing, rather than open a table that dies at the first
Join or at the Start.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.discord_harness import World, discord_world
from tests.e2e.fakes.discord.entities import FakeUser
from tests.e2e.fakes.discord.messages import FakeMessage
from tests.e2e.fakes.discord.protocol import Limits, Permission


async def new_table(world: World, user: FakeUser, where: Any = None) -> FakeMessage:
    """`/schnapsen new game:zweier`: the answer the user sees."""
    return await world.slash(user, "schnapsen new", where=where, game="zweier")


@pytest.mark.parametrize(
    ("denied", "english", "german"),
    [
        (Permission.SEND_MESSAGES, "“Send Messages”", "„Nachrichten senden“"),
        (Permission.VIEW_CHANNEL, "“View Channel”", "„Kanal ansehen“"),
    ],
    ids=["no_send", "no_view"],
)
async def test_no_table_opens_where_the_bot_may_not_show_it(
    tmp_path: Path, denied: Permission, english: str, german: str
) -> None:
    """Without the right to post (the Start's table message) or to see the channel
    (the first Join's lobby edit), `/schnapsen new` is refused to the host alone, in
    his language, naming the permission an admin has to grant; no table opens, so
    nobody joins one that closes at once, and nobody gets a DM that the bot "cannot
    post there any more".  Granted, the same command opens a table."""
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        fake = world.fake
        anna, bert = world["anna"], world["bert"]
        fake.deny_bot(world.channel, denied)

        answer = await new_table(world, anna)
        assert answer.ephemeral_for is anna and answer.buttons == []
        assert answer.content.startswith("I cannot open a table here")
        assert f"the {english} permission" in answer.content
        german_answer = await new_table(world, bert)  # bert's client is German
        assert german_answer.ephemeral_for is bert
        assert german_answer.content.startswith("Ich kann hier keinen Tisch eröffnen")
        assert f"die Berechtigung {german}" in german_answer.content

        await world.settle()
        assert world.service.tables == {}
        assert fake.channel_messages(world.channel) == []
        assert fake.dms(anna) == [] and fake.dms(bert) == []
        assert world.refused_requests() == []

        fake.allow_bot(world.channel, denied)
        table_id = await world.start_match(anna, bert)
        assert table_id in world.service.tables
        assert world.table_messages(table_id)


async def test_every_missing_permission_is_named_at_once(tmp_path: Path) -> None:
    """An admin fixes the channel once, not one refusal at a time."""
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        world.fake.deny_bot(world.channel, Permission.VIEW_CHANNEL | Permission.SEND_MESSAGES)
        answer = await new_table(world, world["anna"])
        assert "the permissions “View Channel” and “Send Messages” in this channel" in (
            answer.content
        )
        german = await new_table(world, world["bert"])
        assert "die Berechtigungen „Kanal ansehen“ und „Nachrichten senden“" in german.content
        assert world.service.tables == {}


async def test_in_a_thread_the_right_to_post_in_threads_decides(tmp_path: Path) -> None:
    """In a thread Discord lets the bot post by "Send Messages in Threads", not by
    "Send Messages": without the former a table in the thread is refused (and one in
    the channel still opens); without the latter only, the table plays in the thread."""
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        fake = world.fake
        anna, bert, clara, dora = world["anna"], world["bert"], world["clara"], world["dora"]
        thread = fake.add_thread(world.channel, "Revanche", owner=anna)

        fake.deny_bot(world.channel, Permission.SEND_MESSAGES_IN_THREADS)
        answer = await new_table(world, anna, thread)
        assert answer.ephemeral_for is anna
        assert "the “Send Messages in Threads” permission" in answer.content
        assert world.service.tables == {}
        in_channel = await world.start_match(clara, dora)
        assert world.table_messages(in_channel)

        fake.allow_bot(world.channel, Permission.SEND_MESSAGES_IN_THREADS)
        fake.deny_bot(world.channel, Permission.SEND_MESSAGES)
        table_id = await world.start_match(anna, bert, where=thread)
        assert table_id in world.service.tables
        assert any(table_id in m.content for m in fake.channel_messages(thread))
        assert world.refused_requests() == []


async def test_a_slow_settings_read_is_deferred_within_the_deadline(tmp_path: Path) -> None:
    """`/settings` alone reads the server's settings from the database: a read slower
    than Discord's window is deferred first (else "The application did not respond"),
    and the settings follow."""
    async with discord_world(tmp_path, limits=Limits(ack_deadline=1.0)) as world:
        await world.start_bot(ack_budget=0.1)
        store = world.service.store
        read = store.chat_settings

        async def slow_read(chat: str) -> dict[str, Any]:
            await asyncio.sleep(1.5)  # longer than Discord's window
            return await read(chat)

        store.chat_settings = slow_read  # type: ignore[method-assign]
        asked = await world.fake.slash(world.moderator, world.channel, "settings")
        assert await asked.wait_acknowledged() == 5  # deferred: "thinking…"
        answer = await asked  # the "thinking…" filled in
        assert answer.ephemeral_for is world.moderator
        assert "language = default (en)" in answer.content
        assert not asked.failed and world.refusals(asked) == []
