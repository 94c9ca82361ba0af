"""/record on Discord: a finished match's game record as a file, for the asker only.

The real discord.py client against the fake Discord, the real core on a SQLite file
(`discord_world`, which also fails the test on any hidden card in a channel message).
"""

from __future__ import annotations

import json
from pathlib import Path

from adapters.discord.render import MAX_CONTENT, parts
from bot.i18n import LANGUAGES, SUIT_STYLES, card_label
from engine.__main__ import verify_text
from tests.e2e.discord_harness import (
    INTERACTION_CALLBACK,
    World,
    discord_world,
    secret_cards,
)
from tests.e2e.fakes.discord.entities import FakeChannel, FakeUser
from tests.e2e.fakes.discord.messages import FakeMessage
from tests.e2e.test_discord import start_zweier


async def record(
    world: World, user: FakeUser, where: FakeChannel | None = None, **options: str
) -> FakeMessage:
    """/record, its answer checked to be for the asker alone, and the channel quiet."""
    channel = where or world.channel
    public = len(world.fake.channel_messages(channel))
    interaction = await world.fake.slash(user, channel, "record", **options)
    answer = await interaction
    assert answer.ephemeral_for is user and interaction.followups == []
    assert len(world.fake.channel_messages(channel)) == public
    return answer


def record_file(answer: FakeMessage) -> tuple[str, bytes]:
    [attachment] = answer.attachments
    return attachment["filename"], answer.files[int(attachment["id"])]


async def finished_zweier(world: World) -> tuple[FakeUser, FakeUser, str]:
    """Anna and Bert play a Zweier match to its end: a record to ask for."""
    await world.start_bot()
    anna, bert = world["anna"], world["bert"]
    table_id, _ = await start_zweier(world, anna, bert)
    await world.play(table_id)
    await world.settle()
    return anna, bert, table_id


async def test_a_finished_match_s_record_comes_as_a_file_to_check(tmp_path: Path) -> None:
    async with discord_world(tmp_path) as world:
        anna, bert, table_id = await finished_zweier(world)

        answer = await record(world, anna)
        name, data = record_file(answer)
        assert name == f"schnapsen-zweier-{table_id}.json"
        stored = await world.service.store.game_record(table_id)
        assert stored is not None and json.loads(data) == stored
        assert verify_text(data.decode())[0] == 0
        # each deal of the file is one whose seed the channel published after it
        published = "\n".join(m.content for m in world.fake.channel_messages(world.channel))
        assert stored["deals"] and all(d["seed"] in published for d in stored["deals"])
        assert answer.content.startswith(f"The record of table {table_id}")
        assert "0 anna · 1 bert" in answer.content
        assert f"python -m engine verify {name}" in answer.content

        # Clara did not play: a server's newest match may be one of a channel she does
        # not see, so without an id she gets none; the id shown in the channel works
        clara = world["clara"]
        assert (await record(world, clara)).content.startswith("You have no finished match")
        assert record_file(await record(world, clara, table=table_id)) == (name, data)

        # Bert's client speaks German; from a thread of the server, by the table's id
        thread = world.fake.add_thread(world.channel, "Revanche", owner=bert)
        german = await record(world, bert, thread, table=table_id)
        assert german.content.startswith(f"Das Protokoll von Tisch {table_id}")
        assert record_file(german) == (name, data)

        # a DM with the bot is a chat of its own: the server's matches are not in it
        dm = await record(world, anna, world.fake.dm_channel(anna, create=True))
        assert dm.attachments == [] and dm.content.startswith("You have no finished match")


async def test_no_record_of_an_unknown_table_or_of_a_running_match(tmp_path: Path) -> None:
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        anna, bert, clara = world["anna"], world["bert"], world["clara"]
        none = await record(world, clara)
        assert none.attachments == [] and none.content.startswith("You have no finished match")
        unknown = await record(world, clara, table="nosuch")
        assert unknown.attachments == []
        assert unknown.content.startswith("No finished match nosuch here")

        table_id, _ = await start_zweier(world, anna, bert)
        table = world.service.tables[table_id]
        await world.play(table_id, until=lambda: len(table.deal_points) >= 1)
        await world.settle()
        for asker in (anna, clara):  # a player of the match or not: nothing yet
            running = await record(world, asker, table=table_id)
            assert running.attachments == []
            assert running.content.startswith(f"No finished match {table_id}")
            hidden = secret_cards(table.deals[-1])
            shown = [
                label
                for card in hidden
                for lang in LANGUAGES
                for style in SUIT_STYLES
                if (label := card_label(card, lang, style)) in running.content
            ]
            assert hidden and shown == []


def test_a_caption_longer_than_a_message_is_sent_whole() -> None:
    """Discord takes 2,000 characters a message: a longer reply goes on in the next
    one, cut at a line end, instead of losing its end."""
    caption = "\n".join(f"line {n}: " + "x" * 90 for n in range(60))
    pieces = parts(caption)
    assert len(pieces) > 1 and all(len(p) <= MAX_CONTENT for p in pieces)
    assert "\n".join(pieces) == caption
    assert parts("y" * (MAX_CONTENT + 5)) == ["y" * MAX_CONTENT, "yyyyy"]


async def test_a_match_played_in_a_dm_has_its_record_there(tmp_path: Path) -> None:
    """A DM with the bot is a chat of its own, as for /leaderboard: its match's record
    is asked for there, and a server does not hand it out."""
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        anna = world["anna"]
        dm = world.fake.dm_channel(anna, create=True)
        table_id, lobby = await world.open_table(anna, "zweier", where=dm)
        await world.click(anna, lobby, "Add computer")
        await world.click(anna, lobby, "Start")
        await world.settle()
        await world.play(table_id)
        await world.settle()

        world.adapter.ack_budget = 0  # as if the store were slow: deferred, then filled in
        answer = await record(world, anna, dm)
        assert world.fake.interactions[-1].callback_type == 5
        name, data = record_file(answer)
        assert name.endswith(f"{table_id}.json") and verify_text(data.decode())[0] == 0
        assert "0 anna · 1 computer" in answer.content

        # the answer reached Discord but its reply to the bot was lost (503): the retry
        # is refused as done (40060), and the answer, redone as an edit in case a cut
        # try left it without its file, has the one file
        world.adapter.ack_budget = 2.0
        world.fake.server_error("POST", INTERACTION_CALLBACK, status=503, processed=True)
        again = await record(world, anna, dm)
        interaction = world.fake.interactions[-1]
        await world.fake.wait_for(lambda: bool(again.history), description="the answer redone")
        assert [e.code for e in interaction.rejections] == [40060]
        assert record_file(again) == (name, data) and again.content == answer.content
        refused = await record(world, anna, table=table_id)
        assert refused.attachments == [] and table_id in refused.content


async def test_a_record_arrives_over_a_slow_uplink(tmp_path: Path) -> None:
    """Uploading a long match's record takes longer than a first answer may: the
    command is acknowledged first and the file follows, so it still arrives (and is
    sent once)."""
    async with discord_world(tmp_path) as world:
        anna, _, table_id = await finished_zweier(world)
        stored = await world.service.store.game_record(table_id)
        assert stored is not None
        size = len(json.dumps(stored, indent=1))
        world.fake.limits.upload_rate = size / 1.5  # one and a half seconds a try
        answer = await record(world, anna)
        name, data = record_file(answer)
        assert json.loads(data) == stored and name.endswith(f"{table_id}.json")
