"""/record <table> on Discord: a named match goes to who sat at it, or to who asks in
the channel it was played in, and to nobody else.

A Discord chat is a whole server: its matches include those of private channels, and
a table id can be passed on beyond them.  Whoever may not have a match gets the answer
for an unknown id, word for word, so that asking does not even confirm it exists.  The
real discord.py client against the fake Discord, the real core on a SQLite file.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.e2e.discord_harness import World, discord_world
from tests.e2e.fakes.discord.entities import FakeChannel, FakeUser
from tests.e2e.fakes.discord.messages import FakeMessage
from tests.e2e.test_discord import start_zweier
from tests.e2e.test_discord_records import finished_zweier, record, record_file

#: A table id no table has (ids are 7 base-36 characters).
NO_SUCH = "zzzzzzz"


async def refused(world: World, user: FakeUser, where: FakeChannel, table_id: str) -> None:
    """`user` asking in `where` for `table_id` hears what he would for an id no table
    has, and gets no file."""
    unknown = await record(world, user, where, table=NO_SUCH)
    answer = await record(world, user, where, table=table_id)
    assert answer.attachments == []
    assert answer.content == unknown.content.replace(NO_SUCH, table_id)


def named(answer: FakeMessage, table_id: str) -> bool:
    """The answer is the file of `table_id`'s record."""
    name, _ = record_file(answer)
    return name == f"schnapsen-zweier-{table_id}.json"


async def test_a_player_gets_his_match_anywhere(tmp_path: Path) -> None:
    """In another channel of the server or in his DM with the bot, by its id; without
    an id (as before), the server's newest match he played, from any of its channels."""
    async with discord_world(tmp_path) as world:
        anna, bert, table_id = await finished_zweier(world)
        other = world.outsider_channel  # a channel of the server the match was not in
        assert named(await record(world, anna, other, table=table_id), table_id)
        dm = world.fake.dm_channel(bert, create=True)
        assert dm is not None
        assert named(await record(world, bert, dm, table=table_id), table_id)
        assert named(await record(world, anna, other), table_id)


async def test_a_non_player_gets_a_match_only_where_it_was_played(tmp_path: Path) -> None:
    """Clara did not play: in the match's channel its id gets her its record; asking
    elsewhere (a channel she may not see, a thread, her DM with the bot) she is not
    even told the match exists.  Without an id (as before) she gets none, not even in
    the channel: a server's newest match may be one of a channel she does not see."""
    async with discord_world(tmp_path) as world:
        _, _, table_id = await finished_zweier(world)
        clara = world["clara"]
        assert named(await record(world, clara, world.channel, table=table_id), table_id)
        await refused(world, clara, world.outsider_channel, table_id)
        thread = world.fake.add_thread(world.outsider_channel, "Plausch", owner=clara)
        await refused(world, clara, thread, table_id)
        dm = world.fake.dm_channel(clara, create=True)
        assert dm is not None
        await refused(world, clara, dm, table_id)
        for where in (world.channel, world.outsider_channel):
            none = await record(world, clara, where)
            assert none.attachments == []
            assert none.content.startswith("You have no finished match")


async def test_matches_from_before_the_upgrade(tmp_path: Path) -> None:
    """A database of the version before places were kept: a match finished then goes
    to its players only (nobody knows any more where it was played); a table still
    open at the upgrade knows its channel (the bot kept it to post there)."""
    async with discord_world(tmp_path) as world:
        anna, bert, old_id = await finished_zweier(world)
        running_id, _ = await start_zweier(world, anna, bert)
        await world.settle()
        await world.stop_bot()
        conn = sqlite3.connect(world.db, isolation_level=None)
        try:
            conn.execute("DROP TABLE table_places")
            conn.execute("PRAGMA user_version=6")
        finally:
            conn.close()

        await world.start_bot()
        await world.play(running_id)
        await world.settle()
        clara = world["clara"]
        await refused(world, clara, world.channel, old_id)
        assert named(await record(world, bert, world.outsider_channel, table=old_id), old_id)
        assert named(await record(world, clara, world.channel, table=running_id), running_id)
        await refused(world, clara, world.outsider_channel, running_id)
