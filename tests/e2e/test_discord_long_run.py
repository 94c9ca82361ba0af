"""A Discord bot that runs for months: what it keeps per table and per user must not
pile up.  A closed table leaves nothing behind in the adapter, however its close went
(a database that fails, a table aborted while its lobby was still being shown), and
what the adapter remembers per user is bounded without a player noticing.  The real
discord.py and core against the fake Discord (`discord_world`).
"""

from __future__ import annotations

from collections.abc import Container, Iterable
from pathlib import Path

import pytest

import adapters.discord.adapter as adapter_module
from bot.ports import ChatRef, UserRef
from bot.store import StoreError
from bot.table import Status
from tests.e2e.discord_harness import INTERACTION_CALLBACK, World, discord_world, table_of


def kept_of(world: World, table_id: str) -> list[str]:
    """What the adapter still holds of a table (names of the maps that know it)."""
    adapter = world.adapter
    per_table: dict[str, Container[str]] = {
        "_channels": adapter._channels,
        "_refs": adapter._refs,
        "_in_dm": adapter._in_dm,
        "_lost": adapter._lost,
    }
    per_slot: dict[str, Iterable[tuple[str, ...]]] = {
        "_outboxes": adapter._outboxes,
        "_shown": adapter._shown,
        "_live": adapter._live,
        "_dm_noted": adapter._dm_noted,
        # whose turn each hand shows, when each turn ended, the reminders standing
        "_turn_pings._turns": adapter._turn_pings._turns,
        "_turn_pings._over": adapter._turn_pings._over,
        "_reminded": adapter._reminded,
        "_reminded_at": adapter._reminded_at,
    }
    return [name for name, held in per_table.items() if table_id in held] + [
        name for name, held in per_slot.items() if any(key[0] == table_id for key in held)
    ]


async def test_a_table_whose_refs_cannot_be_dropped_leaves_nothing_in_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The database fails as a finished table is forgotten: its rows stay until the
    next start (which drops them), but its channel, messages, queues and Emil's
    ephemeral hand with its timer go all the same."""
    async with discord_world(tmp_path) as world:
        bot = await world.start_bot()
        anna, emil = world["anna"], world["emil"]  # Emil's DMs are closed
        table_id = await world.start_match(anna, emil)
        emil_key = f"dc:{emil.id}"
        await world.play(table_id, until=lambda: (table_id, emil_key) in bot.adapter._live)
        live = bot.adapter._live[(table_id, emil_key)]
        assert kept_of(world, table_id)

        async def failing(table: str) -> None:
            raise StoreError("database is locked")

        monkeypatch.setattr(bot.store, "drop_message_refs", failing)
        await world.resign(anna)
        await world.settle()

        assert table_id not in world.service.tables
        assert kept_of(world, table_id) == []
        assert live.timer is not None and live.timer.cancelled()


async def test_a_table_aborted_while_its_lobby_is_sent_leaves_nothing(tmp_path: Path) -> None:
    """The table closes while the reply to /schnapsen new is on its way: its close was
    not shown (the adapter did not know the table yet), so the lobby it registers then
    loses its buttons at once and nothing of the table stays, in memory or stored."""
    async with discord_world(tmp_path) as world:
        bot = await world.start_bot()
        anna = world["anna"]
        reply = world.fake.hold("POST", INTERACTION_CALLBACK)
        asked = await world.fake.slash(anna, world.channel, "schnapsen new", game="zweier")
        await reply.wait_held()
        [table_id] = list(world.service.tables)
        await world.service.close_tables([table_id], "expired")
        reply.release()
        lobby = await asked
        await world.fake.wait_for(
            lambda: table_of(lobby) is None, description="the lobby to lose its buttons"
        )
        await world.settle()

        assert kept_of(world, table_id) == []
        assert await bot.store.message_refs(table_id) == {}


async def test_a_table_started_while_its_lobby_is_sent_is_shown_when_it_arrives(
    tmp_path: Path,
) -> None:
    """Join and Start go through while the reply to /schnapsen new is on its way (a
    slow answer: the lobby is there for people, not yet for the bot): the start was
    not shown (the adapter did not know the table yet), so the table and the hands
    come once the reply is through, instead of never."""
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        anna, bert = world["anna"], world["bert"]
        guild = world.channel.guild
        assert guild is not None
        chat = ChatRef("dc", str(guild.id))
        reply = world.fake.hold("POST", INTERACTION_CALLBACK)
        asked = await world.fake.slash(anna, world.channel, "schnapsen new", game="zweier")
        await reply.wait_held()
        [table_id] = list(world.service.tables)
        for who, verb in ((bert, "j"), (anna, "st")):
            person = UserRef("dc", str(who.id), who.username)
            version = world.service.tables[table_id].version
            assert (await world.service.act(person, f"{table_id}:{version}:{verb}", chat)).ok
        assert world.service.tables[table_id].status == Status.PLAYING
        reply.release()
        await asked
        await world.fake.wait_for(
            lambda: (
                bool(world.table_messages(table_id))
                and all(world.hand_message(u, table_id) for u in (anna, bert))
            ),
            description="the table and both hands",
        )
        await world.settle()


async def test_with_few_users_kept_players_still_get_their_hands_in_their_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only one user's DM channel and locale are kept: hands still reach both players
    (a forgotten DM channel is opened again), and Bert's stay German although Otto,
    who does not play, came by in between."""
    monkeypatch.setattr(adapter_module, "USERS_KEPT", 1)
    async with discord_world(tmp_path) as world:
        bot = await world.start_bot()
        anna, bert, otto = world["anna"], world["bert"], world["otto"]
        table_id = await world.start_match(anna, bert)
        await world.slash(otto, "help")
        await world.play(table_id, until=lambda: len(world.table_messages(table_id)) >= 2)
        await world.settle()

        for player, words in ((anna, f"table {table_id}"), (bert, f"Tisch {table_id}")):
            hands = [m for m in world.fake.dms(player) if table_id in m.content]
            assert len(hands) == 2  # the first deal's and the second's
            assert words in hands[-1].content
        assert len(bot.adapter._dm_channels) <= 1
        assert f"dc:{otto.id}" not in bot.adapter._langs
