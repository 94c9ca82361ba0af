"""A turn that comes after a wait rings on Discord too: a DM reply to the hand.

Editing a DM hand makes no sound, and the reminder (a mention in the channel) comes
only shortly before the time runs out.  So a turn that comes after the player has
waited brings a short reply to his DM hand, deleted once he has moved.
"""

from __future__ import annotations

from pathlib import Path

from tests.e2e.discord_harness import World, discord_world, is_ping
from tests.e2e.fakes.discord_api import FakeMessage, FakeUser


def pings(world: World, user: FakeUser, table_id: str) -> list[FakeMessage]:
    """Every ping sent to `user` for this table, deleted ones included."""
    return [
        m
        for m in world.fake.messages.values()
        if m.channel.is_dm and m.channel.recipient is user and is_ping(m) and table_id in m.content
    ]


async def test_a_turn_after_a_wait_rings_by_dm_and_goes_after_the_move(
    tmp_path: Path,
) -> None:
    async with discord_world(tmp_path) as world:
        await world.start_bot(ping_after=0.0)
        anna, bert = world["anna"], world["bert"]
        table_id = await world.start_match(anna, bert)
        for _ in range(12):
            table = world.service.tables.get(table_id)
            if table is None:
                break
            moved = table.version
            await world.play(
                table_id,
                until=lambda v=moved: (
                    (tb := world.service.tables.get(table_id)) is None or tb.version > v
                ),
            )
            await world.settle()
            table = world.service.tables.get(table_id)
            to_act = table.to_act() if table is not None else None
            for seat, user in enumerate((anna, bert)):
                shown = [m for m in pings(world, user, table_id) if not m.deleted]
                # one ping at most, for the one to act, in his DMs
                assert len(shown) <= (1 if seat == to_act else 0), [m.content for m in shown]
        sent = [m for user in (anna, bert) for m in pings(world, user, table_id)]
        assert sent, "no turn came with a ping"
        assert any(m.deleted for m in sent), "no ping went after its move"
        assert all(m.content.endswith(" s).") for m in sent), [m.content for m in sent]


async def test_quick_turns_do_not_ring_by_dm(tmp_path: Path) -> None:
    async with discord_world(tmp_path) as world:
        await world.start_bot(ping_after=3600.0)
        anna, bert = world["anna"], world["bert"]
        table_id = await world.start_match(anna, bert)
        start = world.service.tables[table_id].version

        def twelve_moves_on() -> bool:
            table = world.service.tables.get(table_id)
            return table is None or table.version >= start + 12

        await world.play(table_id, until=twelve_moves_on)
        await world.settle()
        assert not [m for user in (anna, bert) for m in pings(world, user, table_id)]
