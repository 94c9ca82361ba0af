"""How the Discord side keeps its messages up to date when things change faster than
Discord takes edits: the real discord.py and core against the fake Discord
(`discord_world`).  What the players see: every message ends up showing the table as
it is, with as few requests as that takes (each edit counts against the channel's
rate limit, and the next move's edit waits behind it).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.discord import render
from bot.table import Status, Table
from tests.e2e.discord_harness import World, discord_world, reads_as
from tests.e2e.test_discord import current_ids, start_zweier
from tests.e2e.test_discord_failures import adapter_lines


async def move(world: World, table_id: str) -> None:
    """The player to act presses his first current button, as soon as his hand shows
    it (whatever the channel's messages are waiting for); the move is made."""
    table = world.service.tables[table_id]
    version = table.version
    user, hand = await world.fake.wait_for(
        lambda: world.pressable(table_id), description="a hand to play"
    )
    await world.click(user, hand, current_ids(world, table_id, hand)[0])
    await world.fake.wait_for(lambda: table.version > version, description="the move")


async def anna_and_bert_after(world: World, moves: int) -> tuple[str, Table]:
    """Anna and Bert's Zweier, `moves` cards into its first deal, all of it shown."""
    await world.start_bot()
    table_id, _ = await start_zweier(world, world["anna"], world["bert"])
    for _ in range(moves):
        await move(world, table_id)
    await world.settle()
    return table_id, world.service.tables[table_id]


async def test_a_burst_of_moves_is_one_edit_of_the_table_message(tmp_path: Path) -> None:
    """Discord is slow to take the edit of the table message for the first move; the
    players make three more meanwhile.  The table message is edited once more, not
    once a move, and shows the table as the last move left it."""
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        fake = world.fake
        table_id, _ = await start_zweier(world, world["anna"], world["bert"])
        [message] = world.table_messages(table_id)
        path = f"/channels/{world.channel.id}/messages/{message.id}"
        slow = fake.hold("PATCH", path)
        await move(world, table_id)
        await slow.wait_held()
        for _ in range(3):
            await move(world, table_id)
        slow.release()
        await world.settle()

        view = world.service.table(table_id)
        assert view is not None and message.buttons  # the custom ids: the last version's
        assert reads_as(message, view.message)
        assert len(fake.requests_to("PATCH", path)) == 2


async def test_a_new_deal_costs_one_post_of_each_of_its_messages(tmp_path: Path) -> None:
    """Anna and Bert's match starts: the table message and each DM hand are made with
    one request each.  A post carried out is not sent again (with its nonce it would
    be no second message, but a request more against the channel's rate limit, that
    the first move's edit would wait behind)."""
    async with discord_world(tmp_path) as world:
        anna, bert = world["anna"], world["bert"]
        table_id, _ = await anna_and_bert_after(world, 0)
        fake = world.fake
        channels = [world.channel, fake.dm_channel(anna), fake.dm_channel(bert)]
        for channel in channels:
            assert channel is not None
            made = [m for m in fake.channel_messages(channel) if m.interaction is None]
            assert made, channel  # the lobby answers /schnapsen new: not a post
            assert len(fake.requests_to("POST", f"/channels/{channel.id}/messages")) == len(made)
        assert len(world.table_messages(table_id)) == 1


async def test_a_deal_played_out_behind_a_slow_edit_ends_on_its_last_picture(
    tmp_path: Path,
) -> None:
    """Discord is slow to take the edit of the table message for the deal's first
    move, and the players play the deal out meanwhile.  The edits the moves queued
    give way to the deal's last picture: the message goes from the first move
    straight to the deal as it ended, without buttons (two edits, never the next
    deal's table in the old message), and the next deal's table is a new message."""
    async with discord_world(tmp_path) as world:
        bot = await world.start_bot()
        fake = world.fake
        table_id, _ = await start_zweier(world, world["anna"], world["bert"])
        table = world.service.tables[table_id]
        [first] = world.table_messages(table_id)
        path = f"/channels/{world.channel.id}/messages/{first.id}"
        slow = fake.hold("PATCH", path)
        await move(world, table_id)
        await slow.wait_held()
        while not table.deal_points:
            await move(world, table_id)
        slow.release()
        await world.settle()

        [end] = [u for u in bot.recorder.updates if u.kind == "deal_end"]
        assert end.result is not None and end.result.table is not None
        assert first.content == render.content(end.result.table.message)
        assert first.buttons == []
        assert len(fake.requests_to("PATCH", path)) == 2
        [_, second] = world.table_messages(table_id)
        view = world.service.table(table_id)
        assert view is not None and second.content == render.content(view.message)


@pytest.mark.parametrize("moves", [0, 2], ids=["as_posted", "as_edited"])
async def test_a_change_that_leaves_a_hand_as_it_is_costs_no_edit_of_it(
    tmp_path: Path, moves: int
) -> None:
    """The deal has just been dealt, or Anna and Bert have each played a card; then
    the one who waits asks to close the table (/abort, a vote the other must
    second).  The table changes (a new version), but the voter's DM hand shows what
    it showed when it was posted or last edited: no edit of it goes to Discord (each
    one counts against the DM channel's rate limit, and the edit his next turn needs
    would wait behind it)."""
    async with discord_world(tmp_path) as world:
        fake = world.fake
        anna, bert = world["anna"], world["bert"]
        table_id, table = await anna_and_bert_after(world, moves)
        voter = bert if table.to_act() == table.seat_of(f"dc:{anna.id}") else anna
        hand = world.hand_message(voter, table_id)
        assert hand is not None
        path = f"/channels/{hand.channel.id}/messages/{hand.id}"
        edits = len(fake.requests_to("PATCH", path))
        version = table.version
        await world.slash(voter, "abort")
        await world.settle()
        assert table.version > version
        assert len(fake.requests_to("PATCH", path)) == edits


async def test_dms_closed_mid_deal_cost_one_refused_edit_and_one_note(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Bert closes his DMs after the deal's first move.  The next edit of his DM hand
    is refused (50007), and that is the only refusal of the deal: the bot stops
    sending to his DMs until the next deal tries again (Discord shuts out a bot that
    makes many refused requests), tells
    him once in the channel, without his cards, to play from "Show my hand", and he
    plays the deal out from there.  Closed DMs are his choice, not a failure: no
    warning is logged."""
    async with discord_world(tmp_path) as world:
        fake = world.fake
        bert = world["bert"]
        table_id, table = await anna_and_bert_after(world, 1)
        hand = world.hand_message(bert, table_id)
        assert hand is not None
        bert.dms_closed = True
        await world.play(table_id, until=lambda: bool(table.deal_points))
        await world.settle()

        path = f"/channels/{hand.channel.id}/messages/{hand.id}"
        refused = [(r.method, r.path) for r in fake.requests if r.code == 50007]
        assert refused[0] == ("PATCH", path)
        assert len(refused) == len(table.deals)  # and one try each deal: its hand's post
        [note] = [m for m in fake.channel_messages(world.channel) if bert.mention in m.content]
        assert "Show my hand" in note.content
        assert adapter_lines(caplog) == []


async def test_the_table_is_posted_while_the_lobby_s_last_edit_is_on_its_way(
    tmp_path: Path,
) -> None:
    """Anna starts the match while Discord is slow to take the lobby's last edit (who
    sat down, without buttons): the table message does not wait behind it, it is
    posted and the first move made meanwhile; then the lobby shows who sat down."""
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        fake = world.fake
        anna, bert = world["anna"], world["bert"]
        table_id, lobby = await world.open_table(anna, "zweier")
        await world.click(bert, lobby, "Join")
        await world.settle()
        slow = fake.hold("PATCH", f"/channels/{world.channel.id}/messages/{lobby.id}")
        await world.click(anna, lobby, "Start")
        await slow.wait_held()
        await fake.wait_for(lambda: world.table_messages(table_id), description="the table message")
        await move(world, table_id)
        assert slow.waiting == 1  # the lobby's edit is still on its way
        slow.release()
        await world.settle()
        assert lobby.buttons == [] and "bert" in lobby.content


async def test_a_lobby_edit_tried_again_after_the_start_is_not_sent(tmp_path: Path) -> None:
    """The lobby's edit for Bert's join meets a 503, and Anna starts the match before
    it is tried again.  The retry sends nothing: a lobby with its Join and Start
    buttons, back for a moment after the start, would only invite presses refused
    as stale.  The lobby's one edit after the 503 is its last: who sat down, no
    buttons."""
    async with discord_world(tmp_path) as world:
        await world.start_bot(retry_delays=(0.05,))
        fake = world.fake
        anna, bert = world["anna"], world["bert"]
        table_id, lobby = await world.open_table(anna, "zweier")
        path = f"/channels/{world.channel.id}/messages/{lobby.id}"
        fake.server_error("PATCH", path, status=503)
        slow = fake.hold("PATCH", path)
        await world.click(bert, lobby, "Join")
        await slow.wait_held()
        await world.click(anna, lobby, "Start")  # from the lobby as she sees it
        assert world.service.tables[table_id].status == Status.PLAYING
        slow.release()
        await world.settle()

        assert [r.status for r in fake.requests_to("PATCH", path)] == [503, 200]
        assert lobby.buttons == [] and "bert" in lobby.content
