"""Whole games on the fake Discord, played only by pressing the buttons players got.

The real discord.py client and the real core (SQLite file in tmp_path) run against
the fake; every channel message is checked for hidden cards as it is written
(`CheckedFake`), and any ERROR log fails the test (`discord_world`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.games import available
from tests.e2e.discord_harness import World, assert_closed_cleanly, discord_world
from tests.e2e.fakes.discord.entities import FakeUser
from tests.e2e.fakes.discord.messages import FakeMessage


async def seat_everyone(
    world: World, lobby: FakeMessage, host: FakeUser, guests: list[FakeUser], ai: int = 0
) -> None:
    for guest in guests:
        await world.click(guest, lobby, "Join")
        await world.settle()
    for _ in range(ai):
        await world.click(host, lobby, "Add computer")
        await world.settle()
    await world.click(host, lobby, "Start")
    await world.settle()


async def test_dreierschnapsen_whole_match(tmp_path: Path) -> None:
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        anna, bert, clara = world["anna"], world["bert"], world["clara"]
        table_id, lobby = await world.open_table(anna, "dreier")
        await seat_everyone(world, lobby, anna, [bert, clara])

        presses = await world.play(table_id)
        await world.settle()

        assert presses > 20
        assert table_id not in world.service.tables
        deals = world.table_messages(table_id)
        results = [m for m in world.fake.channel_messages(world.channel) if " over: " in m.content]
        assert len(deals) == len(results) >= 1
        assert "Game over!" in results[-1].content
        assert_closed_cleanly(world, table_id)
        assert await world.service.store.message_refs(table_id) == {}
        # every deal's table message keeps its final picture: contract and tricks
        assert all("Tricks played:" in m.content or "Redeal" in m.content for m in deals)
        # Bert's Discord speaks German: so do his hands
        assert all("Deine Karten" in m.content for m in world.fake.dms(bert))
        assert world.fake.checked > presses and world.fake.hands_checked > presses
        record = await world.service.store.game_record(table_id)
        assert record is not None and len(record["deals"]) == len(deals)


async def test_bauernschnapsen_whole_deal(tmp_path: Path) -> None:
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        anna, bert, clara, dora = (world[n] for n in ("anna", "bert", "clara", "dora"))
        table_id, lobby = await world.open_table(anna, "bauern")
        assert "Team 1" in lobby.content and "Team 2" in lobby.content
        await seat_everyone(world, lobby, anna, [bert, clara, dora])

        table = world.service.tables[table_id]
        await world.play(table_id, until=lambda: len(table.deal_points) >= 1)
        await world.settle()

        [result] = [
            m for m in world.fake.channel_messages(world.channel) if "Deal 1 over" in m.content
        ]
        assert "Seed of deal 1" in result.content
        first, second = world.table_messages(table_id)[:2]
        assert first.buttons == []  # deal 1 is over: its message keeps the final picture
        assert "Deal 1" in first.content and "Deal 2" in second.content
        assert [b.label for b in second.buttons] == ["Show my hand"]
        for player in (anna, bert, clara, dora):
            hands = world.fake.dms(player)
            assert len(hands) == 2  # one per deal
            assert hands[0].buttons == []

        # in a running match the host's abort is a vote: three of four close the
        # table; the channel says so and no button is left
        for voter in (anna, bert):
            reply = await world.slash(voter, "abort")
            assert reply.ephemeral_for is voter
        await world.settle()
        assert table_id in world.service.tables
        assert (
            "Votes to close the table: 2 of the 3 needed"
            in world.table_messages(table_id)[-1].content
        )
        await world.slash(clara, "abort")
        await world.settle()
        assert table_id not in world.service.tables
        assert (
            "its players voted to close it"
            in world.fake.channel_messages(world.channel)[-1].content
        )
        # the table as it was left: no vote still asked for, nobody to act
        last = world.table_messages(table_id)[-1].content
        assert "Votes to close" not in last and "To act" not in last, last
        assert last.endswith("This table was closed."), last  # not a game still running
        assert_closed_cleanly(world, table_id)
        assert all(m.buttons == [] for p in (anna, bert, clara, dora) for m in world.fake.dms(p))


@pytest.mark.skipif("tausend" not in available(), reason="Thousand is not in the engine yet")
async def test_thousand_deal_with_computer_players(tmp_path: Path) -> None:
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        anna = world["anna"]
        table_id, lobby = await world.open_table(anna, "tausend")
        await seat_everyone(world, lobby, anna, [], ai=2)
        assert "computer" in lobby.content

        table = world.service.tables[table_id]
        presses = await world.play(table_id, until=lambda: len(table.deal_points) >= 1)
        await world.settle()

        assert presses >= 1
        assert any("Deal 1 over" in m.content for m in world.fake.channel_messages(world.channel))
        assert len(world.fake.dms(anna)) == 2
        assert world.table_messages(table_id)[0].buttons == []


async def test_with_closed_dms_a_vote_to_close_is_not_answered_with_the_hand(
    tmp_path: Path,
) -> None:
    """Emil's DMs are closed, so "Take my seat back" answers with his hand; his press
    on "Close the table too" does not: it is a vote, answered as anyone's."""
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        anna, bert, clara, emil = (world[n] for n in ("anna", "bert", "clara", "emil"))
        table_id, lobby = await world.open_table(anna, "bauern")
        await seat_everyone(world, lobby, anna, [bert, clara, emil])
        await world.slash(anna, "abort")
        await world.settle()
        table_message = world.table_messages(table_id)[-1]
        vote = await world.click(emil, table_message, "Close the table too (1/3)")
        await world.settle()
        assert table_id in world.service.tables
        [answer] = vote.responses
        assert answer.ephemeral_for is emil
        assert answer.content.startswith("Your vote to close the table is counted (2/3)")
        assert not [m for m in world.fake.ephemerals(emil) if "Hand: " in m.content]
