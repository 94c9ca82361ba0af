"""'Rematch' on Discord: the button under a match's summary opens the same game again
in its channel, and the other player's press seats him there."""

from __future__ import annotations

from pathlib import Path

from .discord_harness import discord_world
from .test_discord import start_zweier


async def test_rematch_opens_a_lobby_in_the_channel_and_the_other_player_joins_it(
    tmp_path: Path,
) -> None:
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        anna, bert = world["anna"], world["bert"]
        table_id, _ = await start_zweier(world, anna, bert)
        question = await world.slash(anna, "resign")
        await world.click(anna, question, "Resign")
        await world.settle()
        summary = world.fake.channel_messages(world.channel)[-1]
        assert "Winner: bert" in summary.content
        assert [b.label for b in summary.buttons] == ["Rematch"]

        # clara did not play: she is told how to open her own, with Discord's command
        await world.click(world["clara"], summary, "Rematch")
        await world.settle()
        [refused] = world.fake.ephemerals(world["clara"])
        assert refused.content.endswith("/schnapsen new opens a table of your own."), refused
        await world.click(bert, summary, "Rematch")
        await world.settle()
        [new] = [t for t in world.service.tables.values() if t.rematch_of == table_id]
        lobby = world.fake.channel_messages(world.channel)[-1]
        assert lobby.channel is world.channel and not lobby.ephemeral_for
        assert f"A rematch of table {table_id}: same game, same rules." in lobby.content
        assert "Host: bert" in lobby.content
        assert "Join" in [b.label for b in lobby.buttons]
        assert new.host == f"dc:{bert.id}"

        # Anna's press of the same button seats her in that lobby: no second one
        await world.click(anna, summary, "Rematch")
        await world.settle()
        assert [t.id for t in world.service.tables.values() if t.rematch_of == table_id] == [new.id]
        assert new.seat_of(f"dc:{anna.id}") is not None
        assert "2. anna" in lobby.content  # the lobby message shows her seated
        await world.click(bert, lobby, "Start")
        await world.settle()
        assert new.status.value == "playing"
        assert world.table_messages(new.id), "the rematch's table was not posted"


async def test_where_only_admins_open_tables_a_moderator_s_rematch_opens(
    tmp_path: Path,
) -> None:
    """With `starters admins` Rematch opens a table as /schnapsen new does: the
    player who may manage the server opens it (Discord says so in the press), the
    other player's press is refused in /new's words."""
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        moderator, bert = world.moderator, world["bert"]
        table_id, _ = await start_zweier(world, moderator, bert)
        saved = await world.slash(moderator, "settings", key="starters", value="admins")
        assert saved.content.startswith("Saved: starters = admins")
        question = await world.slash(moderator, "resign")
        await world.click(moderator, question, "Resign")
        await world.settle()
        summary = world.fake.channel_messages(world.channel)[-1]
        assert [b.label for b in summary.buttons] == ["Rematch"]

        await world.click(bert, summary, "Rematch")
        await world.settle()
        refused = world.fake.ephemerals(bert)[-1]
        assert refused.content == "Hier dürfen nur Admins Tische eröffnen."  # his client: de
        assert not [t for t in world.service.tables.values() if t.rematch_of == table_id]
        await world.click(moderator, summary, "Rematch")
        await world.settle()
        [new] = [t for t in world.service.tables.values() if t.rematch_of == table_id]
        assert new.host == f"dc:{moderator.id}"
