"""A Discord server's first evening with the bot, as its players live it: what they
read in their private hands, on the table message and in the channel, and what a press
does once a message has gone quiet.  The real discord.py and core against the fake
Discord (`discord_world`: any ERROR log, leaked card or unanswered press fails a test).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from adapters.discord.texts import text
from bot.service import Timings
from tests.e2e.clocks import run_out
from tests.e2e.discord_harness import discord_world, is_current
from tests.e2e.fakes.discord.protocol import Limits
from tests.e2e.test_discord import current_ids, start_zweier, table_message

LIVE_ENDED = text("en", "live_ended", show_hand="Show my hand")


async def test_an_ephemeral_hand_says_when_it_stops_following_and_a_press_revives_it(
    tmp_path: Path,
) -> None:
    """Emil's DMs are closed, so he plays from an ephemeral hand, which the bot can
    edit only while its interaction token lasts (15 minutes).  When it stops following
    the game it says so, instead of showing a turn long past; a button on it that is out
    of date by then brings the hand up to date in place, and it is played from again."""
    async with discord_world(tmp_path, limits=Limits(token_lifetime=3.0)) as world:
        await world.start_bot(live_ttl=0.3)
        anna, emil = world["anna"], world["emil"]
        table_id, _ = await start_zweier(world, anna, emil)
        table = world.service.tables[table_id]
        assert table.seats[table.to_act() or 0].user == f"dc:{emil.id}"  # type: ignore[union-attr]

        hand = await (await world.fake.click(emil, table_message(world, table_id), "Show my hand"))
        await world.fake.wait_for(lambda: LIVE_ENDED in hand.content, timeout=2)
        assert current_ids(world, table_id, hand)  # still his turn: the buttons work

        # the table moves on without his hand following: Anna votes to close the table
        await world.slash(anna, "abort")
        await world.settle()
        assert not current_ids(world, table_id, hand) and LIVE_ENDED in hand.content
        old = next(b.custom_id for b in hand.buttons if b.custom_id)

        version = table.version
        assert table.deal_log is not None
        moves = len(table.deal_log.actions)
        press = await world.fake.click(emil, hand, old)
        assert await press.wait_acknowledged() == 7  # the hand itself, redrawn
        await world.settle()
        assert table.version == version  # an out-of-date button plays nothing
        assert not [m for m in press.responses if m.ephemeral and m is not hand]
        fresh = current_ids(world, table_id, hand)
        assert fresh and all(is_current(b, table) for b in fresh)

        await world.click(emil, hand, fresh[0])
        await world.settle()
        assert len(table.deal_log.actions) == moves + 1


async def test_taking_the_seat_back_with_closed_dms_shows_the_hand(tmp_path: Path) -> None:
    """Emil went quiet and the computer took his seat.  Back at the channel he presses
    "Take my seat back": as he gets no DMs, the answer is his hand, privately, to play
    from (not a silent acknowledgement that leaves him without cards)."""
    async with discord_world(tmp_path) as world:
        # Anna does not press either: once the computer has led for Emil her clock
        # runs, and if it ran out before Emil is back, computers would play the match
        # out from under him.  So the turns are long and the test ends Emil's at once
        # (with 3 s turns a take-back 3 s late found the table closed).
        timings = Timings(turn_timeout=30, reminder_before=0, missed_turns_limit=1, ai_delay=0)
        await world.start_bot(timings=timings)
        anna, emil = world["anna"], world["emil"]
        table_id, _ = await start_zweier(world, anna, emil)  # emil leads, and sleeps
        table = world.service.tables[table_id]
        seat = table.seat_of(f"dc:{emil.id}")
        assert seat is not None and table.to_act() == seat

        def replaced() -> bool:
            said = [m.content for m in world.fake.channel_messages(world.channel)]
            return any(emil.mention in c and "the computer takes the seat" in c for c in said)

        assert run_out(world.service, table_id, f"dc:{emil.id}")
        await world.fake.wait_for(replaced, timeout=20)
        await world.settle()
        back = await world.fake.click(emil, table_message(world, table_id), "Take my seat back")
        assert await back.wait_acknowledged() == 4
        [hand] = back.responses
        assert hand.ephemeral_for is emil
        assert hand.content.startswith(f"Your hand at table {table_id}")
        assert "Hand: " in hand.content  # his own cards (the fake checks they are his)
        seated = table.seats[seat]
        assert seated is not None and seated.ai is None


async def test_already_seated_elsewhere_says_which_table_and_where(tmp_path: Path) -> None:
    """One seat per player per server, in any of its channels: a refusal for that
    names the player's table and links its channel, so he can find the lobby he
    opened there (and leave it) instead of guessing."""
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        anna, bert, clara = world["anna"], world["bert"], world["clara"]
        elsewhere = world.outsider_channel
        first, lobby = await world.open_table(anna, "zweier", where=elsewhere)
        await world.click(bert, lobby, "Join")
        await world.settle()

        again = await world.slash(anna, "schnapsen new", game="dreier")
        assert again.ephemeral_for is anna
        assert again.content == (
            f"You already play at table {first} here. It plays in {elsewhere.mention}."
        )
        _, other = await world.open_table(clara, "dreier")
        join = await world.fake.click(bert, other, "Join")  # bert's client is German
        assert await join.wait_acknowledged() == 4
        [answer] = join.responses
        assert answer.ephemeral_for is bert
        assert answer.content == (
            f"Du spielst hier schon an Tisch {first}. Gespielt wird in {elsewhere.mention}."
        )


async def test_a_setting_value_without_its_key_is_not_taken_silently(tmp_path: Path) -> None:
    """`/settings value:de` names no setting: the admin is told so and how to name it,
    rather than shown the list as if the value had been saved."""
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        answer = await world.slash(world.moderator, "settings", value="de")
        assert answer.ephemeral_for is world.moderator
        assert answer.content.startswith("Which setting should be de? Name it too")
        listed = await world.slash(world.moderator, "settings", key="language")
        assert "language = default (en)" in listed.content


async def test_a_lobby_closed_before_the_start_says_so(tmp_path: Path) -> None:
    """Anna opens a table, Bert joins, Anna closes it again: the lobby left in the
    channel no longer says the host can start, nor when it closes."""
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        anna, bert = world["anna"], world["bert"]
        table_id, lobby = await world.open_table(anna, "zweier")
        await world.click(bert, lobby, "Join")
        await world.settle()
        assert "the host can start" in lobby.content
        await world.slash(anna, "abort")
        await world.settle()
        assert table_id not in world.service.tables
        assert "This table was closed." in lobby.content and "bert" in lobby.content
        assert "host can start" not in lobby.content and "lobby closes" not in lobby.content
        assert lobby.buttons == []


async def test_a_bot_stopped_while_an_ephemeral_hand_follows_the_game_stops_cleanly(
    tmp_path: Path,
) -> None:
    """The last edit an ephemeral hand gets when its time runs out must not come after
    the bot has closed its connection (an error in the log, a request on a closed
    session): stopping the bot calls it off."""
    async with discord_world(tmp_path, limits=Limits(token_lifetime=3.0)) as world:
        await world.start_bot(live_ttl=0.5)
        anna, emil = world["anna"], world["emil"]
        table_id, _ = await start_zweier(world, anna, emil)
        hand = await (await world.fake.click(emil, table_message(world, table_id), "Show my hand"))
        assert LIVE_ENDED not in hand.content
        await world.stop_bot()
        await asyncio.sleep(0.8)  # past the hand's time: nothing may be sent any more
        assert LIVE_ENDED not in hand.content
