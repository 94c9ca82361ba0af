"""The Discord side when something outside the bot fails mid-match: the gateway
connection drops, the bot loses its channel (permissions, deletion, removal from the
server), Discord answers 5xx.  The real discord.py and core against the fake Discord
(`discord_world`: any ERROR log, leaked card or unanswered press fails a test).

Covered elsewhere (test_discord.py): 429s waited out, an uneditable table message
posted anew, ephemeral hands left alone once their token expires.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import discord
import pytest

from adapters.discord import adapter as adapter_module
from adapters.discord import outbox as outbox_module
from adapters.discord import render
from adapters.discord.texts import text
from bot import results as R
from bot.i18n import LANGUAGES, card_label, t
from bot.service import Timings
from bot.store import StoreError
from engine.cards import CARDS
from tests.bot.test_store_failures import _fail_once
from tests.e2e.clocks import HeldPauses, held, long_turns, remind, run_out
from tests.e2e.discord_harness import (
    INTERACTION_CALLBACK,
    World,
    discord_world,
    reads_as,
    table_of,
)
from tests.e2e.fakes.discord.entities import FakeUser
from tests.e2e.fakes.discord.failures import RESET, InjectedFailure
from tests.e2e.fakes.discord.interaction import FakeInteraction
from tests.e2e.fakes.discord.messages import FakeMessage
from tests.e2e.fakes.discord.protocol import Limits, Permission
from tests.e2e.test_discord import (
    assert_refused_in_private,
    current_ids,
    new_table_with_no_such_preset,
    next_press,
    start_zweier,
)

MESSAGES = "/channels/{channel_id}/messages"
EDITS = "/channels/{channel_id}/messages/{message_id}"
CARD_LABELS = {
    card_label(c, lang, suits)
    for lang in LANGUAGES
    for c in CARDS
    for suits in ("french", "german")
}


def adapter_lines(caplog: pytest.LogCaptureFixture, level: int = logging.WARNING) -> list[str]:
    """What the adapter and the core logged at `level` or above; never a card."""
    lines = [
        r.getMessage()
        for r in caplog.records
        if r.name.startswith(("adapters", "bot")) and r.levelno >= level
    ]
    for line in lines:
        assert not any(label in line for label in CARD_LABELS), line
    return lines


def told(world: World, user: FakeUser, table_id: str) -> list[str]:
    """The DMs that tell this player their table was closed."""
    said = (f"Table {table_id} was closed", f"Tisch {table_id} wurde geschlossen")
    return [m.content for m in world.fake.dms(user) if m.content.startswith(said)]


async def closed_for_nothing(world: World, table_id: str) -> None:
    """Anna and Bert were told by DM that their table in the world's channel closed,
    each in their own language (Bert's Discord speaks German, the table English), and
    nothing of its match counts (Anna's /stats has no game)."""
    anna = world["anna"]
    for player in (anna, world["bert"]):
        [note] = told(world, player, table_id)
        assert world.channel.mention in note
    assert "Nothing of the match counts for anybody" in told(world, anna, table_id)[0]
    assert "Von der Partie wird nichts gewertet" in told(world, world["bert"], table_id)[0]
    stats = await world.slash(anna, "stats")
    assert stats.content == "anna has no finished games yet."


async def press_once(world: World, table_id: str) -> None:
    """The player to act presses their first current button; it counts."""
    version = world.service.tables[table_id].version
    user, hand = await next_press(world, table_id)
    await world.click(user, hand, current_ids(world, table_id, hand)[0])
    await world.settle()
    assert world.service.tables[table_id].version > version


async def press_against_503s(
    world: World, times: int
) -> tuple[FakeInteraction, str, Callable[[], bool], InjectedFailure]:
    """A started Zweier match whose player to act presses while Discord answers 503 to
    the next `times` answers of a press: the press, its table, a check that the move
    was made exactly once, and the outage."""
    await world.start_bot()
    table_id, _ = await start_zweier(world, world["anna"], world["bert"])
    table = world.service.tables[table_id]
    assert table.deal_log is not None
    log, version, moves = table.deal_log, table.version, len(table.deal_log.actions)
    user, hand = await next_press(world, table_id)
    outage = world.fake.server_error("POST", INTERACTION_CALLBACK, status=503, times=times)
    press = await world.fake.click(user, hand, current_ids(world, table_id, hand)[0])
    return (
        press,
        table_id,
        lambda: table.version == version + 1 and len(log.actions) == moves + 1,
        outage,
    )


# --------------------------------------------------------------------------- the gateway


async def test_a_stop_while_discord_reconnects_is_a_stop_not_a_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A SIGTERM while discord.py reconnects (its connection just cut): closing the
    client under its reconnect ends discord.py's connect in an error of its own (2.7.1
    dispatches "disconnect" after `close` took its loop away), seen by a random-session
    hunt.  That is the stop asked for: the adapter ends cleanly, not with "the discord
    adapter failed" and exit code 1.  The error is raised here as discord.py raises it
    then, since the moment of the close inside its reconnect cannot be hit on purpose."""
    real = discord.Client.connect

    async def connect(self: discord.Client, *, reconnect: bool = True) -> None:
        await real(self, reconnect=reconnect)
        if self.is_closed():
            raise AttributeError("'_MissingSentinel' object has no attribute 'create_task'")

    monkeypatch.setattr(discord.Client, "connect", connect)
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        await world.fake.kill_connections()
        await world.stop_bot()  # raises what the adapter's run raised


@pytest.mark.parametrize("trouble", ["close_4000", "no_close_frame", "op7", "op9"])
async def test_a_match_goes_on_through_gateway_trouble(tmp_path: Path, trouble: str) -> None:
    """The connection drops (a close code, a cut without one), Discord asks for a
    reconnect (op 7) or invalidates the session (op 9): discord.py resumes or
    identifies anew, and the match goes on — the press made while the connection was
    down counts once, nothing is shown twice."""
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        fake = world.fake
        anna, bert = world["anna"], world["bert"]
        table_id, _ = await start_zweier(world, anna, bert)
        await press_once(world, table_id)
        [session] = fake.sessions
        if trouble == "close_4000":
            await fake.drop_connections(4000)
        elif trouble == "no_close_frame":
            await fake.kill_connections()
        elif trouble == "op7":
            await fake.request_reconnect()
        else:
            await fake.invalidate_sessions(resumable=False)

        if trouble == "op9":  # the events of the gap are lost: press once it is back
            # discord.py waits 5 s before identifying again (Discord's identify limit)
            await fake.wait_for(
                lambda: fake.sessions and fake.sessions != [session],
                timeout=10,
                description="a new gateway session",
            )
        else:  # pressed while it may still be down: delivered on RESUME
            await press_once(world, table_id)
            await fake.wait_for(
                lambda: session.resumes == 1 and session.connection is not None,
                description="the session to resume",
            )
            assert fake.sessions == [session]
        await press_once(world, table_id)

        table = world.service.tables[table_id]
        await world.play(table_id, until=lambda: len(table.deal_points) >= 1)
        await world.settle()
        deals = len(table.deals)
        assert len(world.table_messages(table_id)) == deals
        assert len(fake.dms(anna)) == len(fake.dms(bert)) == deals
        over = [m for m in fake.channel_messages(world.channel) if "Deal 1 over" in m.content]
        assert len(over) == 1


async def test_one_shard_back_does_not_restart_the_clocks_of_another_still_down(
    tmp_path: Path,
) -> None:
    """Two shards, both lose their connection; the one without the table's server
    resumes first.  The turn at the table, whose presses still cannot reach the bot,
    keeps waiting (no reminder, no computer move); once its shard is back too the
    player is reminded at once and his press counts."""
    # 30 s turns: his turn runs out while the shards are down because the test puts
    # his deadline in the past and fires its timers (no reminder, no move then); with
    # 2 s turns, a reminder 1 s in, the outage had to begin within 1 s of his turn
    quick = Timings(turn_timeout=30.0, reminder_before=10.0, missed_turns_limit=1, ai_delay=0)
    async with discord_world(tmp_path) as world:
        await world.start_bot(timings=quick, config={"discord_shard_count": 2}, identify_wait=False)
        fake = world.fake
        await fake.wait_for(lambda: len(fake.sessions) == 2, description="both shards")
        table_id, _ = await start_zweier(world, world["anna"], world["bert"])
        table = world.service.tables[table_id]
        user, hand = await next_press(world, table_id)
        version = table.version
        ours = (world.guild.id >> 22) % 2  # Discord's rule: the server's shard
        other = 1 - ours
        await fake.shard_outage(ours)
        await fake.shard_outage(other)
        await held(world.service, table.platform)
        assert table.deadline is not None
        table.deadline = time.time() - 1.0  # the turn's time runs out meanwhile

        await fake.shard_recovered(other)
        await fake.wait_for(
            lambda: [s.shard for s in fake.sessions] == [(other, 2)],
            description="the other shard to resume",
        )
        # his reminder and his timeout come due (their timers' callbacks, fired now),
        # and a clock started again would remind him at once
        remind(world.service, table_id)
        run_out(world.service, table_id, f"dc:{user.id}")
        await asyncio.sleep(0.5)
        await world.settle()
        assert table.version == version
        assert not reminders(world, user)

        # once back, the player has the reminder's time to press: 10 s
        await fake.shard_recovered(ours)
        await fake.wait_for(lambda: reminders(world, user), description="the reminder")
        await world.click(user, hand, current_ids(world, table_id, hand)[0])
        await world.settle()
        assert table.version > version
        acts = [e for e in await world.service.store.table_log(table_id) if e["k"] == "act"]
        assert [e.get("by") for e in acts] == ["p"]  # his press, not a timeout
        assert all(s is not None and s.ai is None for s in table.seats)


def reminders(world: World, user: FakeUser) -> list[FakeMessage]:
    return [m for m in world.fake.channel_messages(world.channel) if user.mention in m.content]


# --------------------------------------------------------------------------- losing the channel


@asynccontextmanager
async def anna_and_bert_at_zweier(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, **adapter_options: Any
) -> AsyncIterator[tuple[World, str]]:
    """A running bot whose adapter lines are caught, and Anna and Bert's Zweier match
    started in the world's channel: where each way of losing that channel begins."""
    caplog.set_level(logging.INFO)
    async with discord_world(tmp_path) as world:
        await world.start_bot(**adapter_options)
        table_id, _ = await start_zweier(world, world["anna"], world["bert"])
        yield world, table_id


def hands_without_buttons(world: World) -> None:
    """Anna's and Bert's hands in their DMs have lost their buttons."""
    for player in (world["anna"], world["bert"]):
        assert all(m.buttons == [] for m in world.fake.dms(player))


@pytest.mark.parametrize("denied", ["send", "view"])
async def test_a_channel_the_bot_may_no_longer_use_closes_its_table(
    tmp_path: Path, denied: str, caplog: pytest.LogCaptureFixture
) -> None:
    """An admin takes the bot's right to post (50013) or to see the channel (50001)
    mid-match: the first refusal closes the table like an abort — one request refused,
    one log line, no turn played on by the computer for nobody; the players are told by
    DM, their hands lose their buttons, and nothing is recorded."""
    async with anna_and_bert_at_zweier(tmp_path, caplog) as (world, table_id):
        fake = world.fake
        await press_once(world, table_id)
        seen = len(fake.requests)
        if denied == "send":  # its own messages it may still edit: the next post fails
            fake.deny_bot(world.channel, Permission.SEND_MESSAGES)
        else:
            fake.deny_bot(world.channel, Permission.VIEW_CHANNEL)
        await world.play(table_id)
        await world.settle()

        assert table_id not in world.service.tables
        refused = [r for r in fake.requests[seen:] if r.status == 403]
        assert [r.code for r in refused] == [50013 if denied == "send" else 50001]
        after = fake.requests[fake.requests.index(refused[0]) + 1 :]
        assert not [r for r in after if r.path.startswith(f"/channels/{world.channel.id}/")]
        [line] = adapter_lines(caplog)
        assert table_id in line and str(world.channel.id) in line
        await closed_for_nothing(world, table_id)
        hands_without_buttons(world)


async def test_what_waits_for_a_channel_its_first_refusal_lost_is_not_tried(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A table is closed (by a server manager) while the edit of its message for the
    last move is slow to go through, and meanwhile the bot loses the right to see the
    channel.  That edit is refused, and what waits behind it for the channel (the
    table's last picture, the note that it was closed) is dropped untried: one refused
    request, not one for each (Discord shuts out a bot that makes too many refused
    requests); the players' hands still lose their buttons."""
    async with anna_and_bert_at_zweier(tmp_path, caplog) as (world, table_id):
        fake = world.fake
        [message] = world.table_messages(table_id)
        user, hand = await next_press(world, table_id)
        seen = len(fake.requests)
        slow = fake.hold("PATCH", f"/channels/{world.channel.id}/messages/{message.id}")
        await world.click(user, hand, current_ids(world, table_id, hand)[0])
        await slow.wait_held()
        assert await world.service.close_tables([table_id], "admin") == [table_id]
        fake.deny_bot(world.channel, Permission.VIEW_CHANNEL)
        slow.release()
        await world.settle()

        refused = [r for r in fake.requests[seen:] if r.status == 403]
        assert [(r.method, r.path, r.code) for r in refused] == [
            ("PATCH", f"/channels/{world.channel.id}/messages/{message.id}", 50001)
        ]
        [line] = adapter_lines(caplog)  # once, though its table was closed already
        assert str(world.channel.id) in line
        hands_without_buttons(world)


@pytest.mark.parametrize("failure", ["store", "bug"])
async def test_a_lost_channel_whose_closing_failed_is_closed_at_its_next_refusal(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch, failure: str
) -> None:
    """The bot loses the right to see the table's channel just when the store fails
    (or the closing meets a bug): the table cannot be closed then.  One line says so,
    a warning for the store, an ERROR with the traceback for a bug.  It is not given
    up on: the channel's next refusal (the next move's edit) closes it, its players
    are told, and nothing counts."""
    async with anna_and_bert_at_zweier(tmp_path, caplog) as (world, table_id):
        service = world.service
        await press_once(world, table_id)
        real = service.close_tables
        tries: list[list[str]] = []

        async def failing_once(table_ids: list[str], reason: str) -> list[str]:
            tries.append(list(table_ids))
            if len(tries) == 1:
                if failure == "bug":
                    raise RuntimeError("injected fault")
                raise StoreError("disk I/O error")
            return await real(table_ids, reason)

        if failure == "bug":
            assert world.guard is not None
            world.guard.allow("injected fault")
        monkeypatch.setattr(service, "close_tables", failing_once)
        world.fake.deny_bot(world.channel, Permission.VIEW_CHANNEL)
        await press_once(world, table_id)  # its edit is refused; the closing fails
        assert tries == [[table_id]] and table_id in service.tables
        [line] = adapter_lines(caplog)
        if failure == "bug":
            assert "closing table(s)" in line and table_id in line and "failed" in line
            [record] = [r for r in caplog.records if r.levelno >= logging.ERROR]
            assert record.exc_info is not None and "injected fault" in str(record.exc_info[1])
        else:
            assert "could not close" in line and table_id in line and "disk I/O error" in line
        user, hand = await next_press(world, table_id)  # its edit is refused again
        await world.click(user, hand, current_ids(world, table_id, hand)[0])
        await world.settle()
        assert tries == [[table_id], [table_id]]
        assert table_id not in service.tables
        await closed_for_nothing(world, table_id)


async def test_a_deleted_channel_closes_its_tables_there_only(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The table's channel is deleted (CHANNEL_DELETE): its table closes at once, with
    one log line and a DM to each player, and nothing is sent to the dead channel; a
    table in another channel of the server plays on.  A channel without a table
    deleted before is no concern of the bot's: nothing closes, nothing is logged."""
    caplog.set_level(logging.INFO)
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        fake = world.fake
        anna, bert, clara, dora = world["anna"], world["bert"], world["clara"], world["dora"]
        table_id, _ = await start_zweier(world, anna, bert)
        other = await world.start_match(clara, dora, where=world.outsider_channel)
        await press_once(world, table_id)
        seen = len(fake.requests)
        chat = fake.add_text_channel(world.guild, "plaudern")
        await fake.wait_for(
            lambda: world.adapter.client.get_channel(chat.id), description="the new channel"
        )
        await fake.delete_channel(chat)
        await fake.delete_channel(world.channel)
        await fake.wait_for(lambda: table_id not in world.service.tables)
        await world.settle()

        assert [r for r in fake.requests[seen:] if r.status >= 400] == []
        [line] = adapter_lines(caplog)
        assert "was deleted" in line and table_id in line and other not in line
        assert told(world, anna, table_id) and told(world, bert, table_id)
        assert other in world.service.tables
        await press_once(world, other)


async def test_a_deleted_thread_closes_its_table_at_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A table opened in a thread plays there; the thread is deleted (THREAD_DELETE):
    the table closes at once, as for a deleted channel, not at its next request; the
    table in the thread's channel plays on."""
    caplog.set_level(logging.INFO)
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        fake = world.fake
        anna, bert, clara, dora = world["anna"], world["bert"], world["clara"], world["dora"]
        thread = fake.add_thread(world.channel, "Revanche", owner=anna)
        table_id = await world.start_match(anna, bert, where=thread)
        other = await world.start_match(clara, dora)
        assert any(table_id in m.content for m in fake.channel_messages(thread))
        await press_once(world, table_id)
        seen = len(fake.requests)
        await fake.delete_channel(thread)
        await fake.wait_for(lambda: table_id not in world.service.tables)
        await world.settle()

        assert [r for r in fake.requests[seen:] if r.status >= 400] == []
        [line] = adapter_lines(caplog)
        assert f"channel {thread.id} was deleted" in line and table_id in line
        for player in (anna, bert):
            [note] = told(world, player, table_id)
            assert thread.mention in note
        assert other in world.service.tables
        await press_once(world, other)
        stats = await world.slash(anna, "stats")
        assert stats.content == "anna has no finished games yet."


async def test_a_channel_deleted_while_the_bot_was_down_closes_its_table_at_start(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """No CHANNEL_DELETE reaches a bot that is down: at start, the first request to
    the table's channel (404 / 10003) closes the table instead."""
    async with anna_and_bert_at_zweier(tmp_path, caplog) as (world, table_id):
        fake = world.fake
        await world.stop_bot()
        await fake.delete_channel(world.channel)
        seen = len(fake.requests)
        await world.start_bot()
        await fake.wait_for(lambda: table_id not in world.service.tables)
        await world.settle()

        assert [r.code for r in fake.requests[seen:] if r.status >= 400] == [10003]
        [line] = adapter_lines(caplog)
        assert "refused the bot (404 10003)" in line and table_id in line
        assert told(world, world["anna"], table_id) and told(world, world["bert"], table_id)


async def test_removed_from_the_server_its_tables_close_but_not_in_an_outage(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """GUILD_DELETE: a server that becomes unavailable (an outage) keeps its tables;
    one that removed the bot loses them, once, with one log line."""
    caplog.set_level(logging.INFO)
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        fake = world.fake
        anna, bert, clara, dora = world["anna"], world["bert"], world["clara"], world["dora"]
        beisl = fake.add_guild("Beisl")
        karten = fake.add_text_channel(beisl, "karten")
        for user in (clara, dora):
            fake.add_member(beisl, user)
        table_id, _ = await start_zweier(world, anna, bert)
        other = await world.start_match(clara, dora, where=karten)
        await fake.guild_outage(beisl)
        await fake.remove_bot(world.guild)  # gateway events arrive in order
        await fake.wait_for(lambda: table_id not in world.service.tables)
        await world.settle()

        assert other in world.service.tables
        [line] = adapter_lines(caplog)
        assert f"removed from server {world.guild.id}" in line and table_id in line
        await fake.guild_recovered(beisl)
        await press_once(world, other)


# --------------------------------------------------------------------------- 5xx


async def test_server_errors_are_tried_again_and_lose_nothing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Discord answers 503 to edits (discord.py gives up on a 503 at once), 502 once
    (discord.py waits a second and tries again itself), and loses the answer to a post
    it made: the table message and the hands end up showing the current state, the
    next player can move, and no message is shown twice."""
    caplog.set_level(logging.INFO)
    async with discord_world(tmp_path) as world:
        # four tries an op, as the bot's own delays give: the three 503s below may all
        # fall on one edit (the hands' lanes late on a loaded machine), and three
        # tries would then give it up
        await world.start_bot(retry_delays=(0.05, 0.05, 0.05))
        fake = world.fake
        anna, bert = world["anna"], world["bert"]
        table_id, _ = await start_zweier(world, anna, bert)
        fake.server_error("PATCH", EDITS, status=503, times=3)
        await press_once(world, table_id)
        table = world.service.tables[table_id]
        view = world.service.table(table_id)
        assert view is not None
        assert world.table_messages(table_id)[-1].content == render.content(view.message)
        assert world.next_move(table_id) is not None  # a hand with current buttons

        fake.server_error("PATCH", EDITS, status=502, times=1)
        fake.server_error("POST", MESSAGES, status=503, times=1, processed=True)
        await world.play(table_id, until=lambda: len(table.deal_points) >= 1)
        await world.settle()
        assert [r.status for r in fake.requests if r.status >= 500] == [503, 503, 503, 502, 503]
        deals = len(table.deals)
        assert len(world.table_messages(table_id)) == deals
        assert len(fake.dms(anna)) == len(fake.dms(bert)) == deals
        over = [m for m in fake.channel_messages(world.channel) if "Deal 1 over" in m.content]
        assert len(over) == 1
        assert adapter_lines(caplog) == []  # retried quietly


async def test_a_table_edit_discord_fails_is_tried_again_after_each_pause_with_the_newest_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Discord answers 503 twice to the edit of the table message after a move: the
    bot pauses before each new try, as long as its delays say (an outage is given
    time to pass, not met with three tries in a moment), tries nothing during a
    pause, and a move made during the first pause goes out in the next try (the
    table as it is then), with no edit more after it."""
    pauses = HeldPauses()
    monkeypatch.setattr(outbox_module, "asyncio", pauses)
    async with discord_world(tmp_path) as world:
        await world.start_bot(retry_delays=(2.0, 5.0))
        fake = world.fake
        table_id, _ = await start_zweier(world, world["anna"], world["bert"])
        long_turns(world.service, table_id)
        [message] = world.table_messages(table_id)
        edits = f"/channels/{world.channel.id}/messages/{message.id}"
        fake.server_error("PATCH", edits, status=503, times=2)
        table = world.service.tables[table_id]
        user, hand = await next_press(world, table_id)
        await world.click(user, hand, current_ids(world, table_id, hand)[0])
        first = await pauses.paused()
        assert [r.status for r in fake.requests_to("PATCH", edits)] == [503]

        version = table.version
        user, hand = await fake.wait_for(  # the channel's outbox is busy: not `next_press`
            lambda: world.pressable(table_id), description="a hand to play"
        )
        await world.click(user, hand, current_ids(world, table_id, hand)[0])
        assert table.version > version
        first.set()
        second = await pauses.paused()
        assert [r.status for r in fake.requests_to("PATCH", edits)] == [503, 503]
        second.set()
        await world.settle()

        assert pauses.seconds == [2.0, 5.0]
        assert [r.status for r in fake.requests_to("PATCH", edits)] == [503, 503, 200]
        view = world.service.table(table_id)
        assert view is not None and reads_as(message, view.message)


async def test_a_table_edit_discord_fails_on_every_try_is_given_up_and_the_queue_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Discord answers 503 to both tries the bot makes of the table message's edit
    after a move: it is given up with one warning naming the table and the message
    (no card), and the edit a move made during the pause queued behind it still goes
    out: the table shows that move, without waiting for a change more."""
    pauses = HeldPauses()
    monkeypatch.setattr(outbox_module, "asyncio", pauses)
    async with discord_world(tmp_path) as world:
        await world.start_bot(retry_delays=(2.0,))
        fake = world.fake
        table_id, _ = await start_zweier(world, world["anna"], world["bert"])
        long_turns(world.service, table_id)
        [message] = world.table_messages(table_id)
        edits = f"/channels/{world.channel.id}/messages/{message.id}"
        fake.server_error("PATCH", edits, status=503, times=2)
        table = world.service.tables[table_id]
        user, hand = await next_press(world, table_id)
        await world.click(user, hand, current_ids(world, table_id, hand)[0])
        pause = await pauses.paused()
        version = table.version
        user, hand = await fake.wait_for(  # the channel's outbox is busy: not `next_press`
            lambda: world.pressable(table_id), description="a hand to play"
        )
        await world.click(user, hand, current_ids(world, table_id, hand)[0])
        assert table.version > version
        pause.set()
        await world.settle()

        assert pauses.seconds == [2.0]
        assert [r.status for r in fake.requests_to("PATCH", edits)] == [503, 503, 200]
        view = world.service.table(table_id)
        assert view is not None and reads_as(message, view.message)
        [line] = adapter_lines(caplog)
        assert line.startswith(f"table {table_id}: could not edit table: 503"), line


@pytest.mark.parametrize("answer", ["given", "too_late", "refused"])
async def test_a_hand_whose_edit_was_given_up_is_redrawn_when_its_old_button_is_pressed(
    tmp_path: Path, answer: str
) -> None:
    """Discord answers 503 to every try of the edit that gives the player to act his
    new buttons (a close vote moved the table on), so his DM hand keeps the old ones.
    Pressing one is refused as out of date (or, when the press reached the bot too
    late to be answered or Discord refused every answer, he saw "This interaction
    failed"), and his hand is drawn again: he plays on, instead of pressing buttons
    that are all refused until his time runs out (only his own move would change the
    table)."""
    late = Limits(ack_deadline=1.5) if answer == "too_late" else None  # pressed 2 s before
    async with discord_world(tmp_path, limits=late) as world:
        await world.start_bot(retry_delays=(0.05,))
        anna, bert = world["anna"], world["bert"]
        table_id, _ = await start_zweier(world, anna, bert)
        long_turns(world.service, table_id)
        user, hand = await next_press(world, table_id)
        [card, *_] = current_ids(world, table_id, hand)
        world.fake.server_error(
            "PATCH", f"/channels/{hand.channel.id}/messages/{hand.id}", status=503, times=2
        )
        await world.slash(bert if user is anna else anna, "abort")  # a vote: a new version
        await world.settle()
        assert current_ids(world, table_id, hand) == []  # his hand's edit was given up

        if answer == "refused":
            world.fake.server_error("POST", INTERACTION_CALLBACK, status=503, times=50)
        pressed = await world.fake.click(user, hand, card, late=2.0 if late else 0.0)
        if answer == "given":
            await pressed.wait_acknowledged()
        else:
            await world.fake.wait_for(lambda: pressed.failed, description="no answer")
        await world.settle()
        refusal = [t(user.locale, "refuse.stale")] if answer == "given" else []
        assert [r.content for r in pressed.responses] == refusal
        await world.fake.wait_for(  # drawn again: he can play on
            lambda: current_ids(world, table_id, hand) or None, description="his hand redrawn"
        )


@pytest.mark.parametrize("posted", ["table", "hands"])
async def test_a_post_made_despite_a_503_and_tried_again_shows_the_table_as_it_is_now(
    tmp_path: Path, posted: str
) -> None:
    """The table message of a new deal (or each DM hand) reaches Discord but the bot
    is answered 503; before it tries again, the table changes: a player moves (or the
    one who waits asks to close it, which leaves the other's hand reading the same,
    with the buttons of the table's new version).  The retry keeps the post's nonce,
    so Discord gives back the message as first sent: each must end up showing the
    table as it is, not the deal's first picture, nor buttons only refused as stale."""
    async with discord_world(tmp_path) as world:
        await world.start_bot(retry_delays=(0.5,))
        fake = world.fake
        anna, bert = world["anna"], world["bert"]
        table_id, lobby = await world.open_table(anna, "zweier")
        await world.click(bert, lobby, "Join")
        await world.settle()
        long_turns(world.service, table_id)
        channels = (
            [world.channel]
            if posted == "table"
            else [fake.dm_channel(user, create=True) for user in (anna, bert)]
        )
        paths = [f"/channels/{c.id}/messages" for c in channels if c is not None]
        for path in paths:
            fake.server_error("POST", path, status=503, processed=True)
        first_tries = [fake.hold("POST", path) for path in paths]
        await world.click(anna, lobby, "Start")
        for first_try in first_tries:
            await first_try.wait_held()
        # the retry waits until the table has changed: held before the first try is
        # answered, as the retry may come before a loaded machine's test goes on
        retries = [fake.hold("POST", path) for path in paths]
        for first_try in first_tries:
            first_try.release()
        await fake.wait_for(
            lambda: all(
                any(r.status == 503 for r in fake.requests_to("POST", path)) for path in paths
            ),
            description="the posts to be answered 503",
        )
        [first] = world.table_messages(table_id)
        hands = [world.hand_message(user, table_id) for user in (anna, bert)]
        table = world.service.tables[table_id]

        # the channel's outbox is busy: not `next_press`
        user, hand = await fake.wait_for(
            lambda: world.pressable(table_id), description="a hand to play"
        )
        version = table.version
        if posted == "table":
            await world.click(user, hand, current_ids(world, table_id, hand)[0])
        else:
            await world.slash(bert if user is anna else anna, "abort")
        await fake.wait_for(lambda: table.version > version, description="the change")
        for retry in retries:
            await retry.wait_held()
            retry.release()
        await world.settle()

        view = world.service.table(table_id)
        assert view is not None
        assert world.table_messages(table_id) == [first]  # made once
        assert reads_as(first, view.message)
        for player in (anna, bert):
            made = world.hand_message(player, table_id)
            shown = world.service.hand(table_id, f"dc:{player.id}", player.locale)
            assert made is not None and shown is not None
            assert reads_as(made, shown.message)
        if posted == "hands":
            assert [world.hand_message(p, table_id) for p in (anna, bert)] == hands  # made once


async def test_a_press_whose_answer_discord_refuses_is_answered_again(tmp_path: Path) -> None:
    """Discord answers 503 to the first two answers of a press (discord.py would try
    again only after 1 s and then 3 s, past Discord's 3 seconds): the adapter tries
    again sooner, the player does not see "This interaction failed", and the move is
    made once.  The third try is the one Discord takes; on a loaded machine its answer
    may come back after the adapter stopped waiting for it (it is then still on its
    way here), which the player does not see: what counts is that Discord took it and
    no try followed it."""
    async with discord_world(tmp_path) as world:
        press, table_id, made_once, _ = await press_against_503s(world, times=2)
        await press.wait_acknowledged()
        await world.settle()

        assert press.callback_type == 6  # acknowledged: the change shows in the messages
        tries = [
            r
            for r in world.fake.requests_to("POST", INTERACTION_CALLBACK)
            if str(press.id) in r.path
        ]
        assert [r.status for r in tries[:2]] == [503, 503] and len(tries) == 3
        assert press.rejections == []  # answered once
        assert made_once()
        assert world.next_move(table_id) is not None


async def test_a_last_try_discord_answers_slowly_counts_as_answered(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The first two answers of a press are cut on the way (no answer), the third is
    taken by Discord at once but its answer comes back a second late, well inside
    Discord's 3 seconds.  No try can follow the last one, so the adapter waits for its
    answer to the end of the window: the press counts as answered, with no warning
    that it could not be, and the presser's hand is not drawn again for nothing."""
    caplog.set_level(logging.INFO)
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        fake = world.fake
        table_id, _ = await start_zweier(world, world["anna"], world["bert"])
        user, hand = await next_press(world, table_id)
        drawn = len(hand.history)
        fake.server_error("POST", INTERACTION_CALLBACK, status=RESET, times=2)
        fake.slow("POST", INTERACTION_CALLBACK, seconds=1.0)
        press = await fake.click(user, hand, current_ids(world, table_id, hand)[0])
        await press.wait_acknowledged()
        await world.settle()

        tries = [
            r for r in fake.requests_to("POST", INTERACTION_CALLBACK) if str(press.id) in r.path
        ]
        assert len(tries) == 3 and press.rejections == []  # answered once, by the third
        assert adapter_lines(caplog) == []
        shown = [r.content for r in hand.history[drawn:]] + [hand.content]
        assert len(shown) == len(set(shown))  # every edit showed something new


async def test_an_answer_that_reached_discord_but_was_lost_counts_as_given(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Discord shows the hand a "Show my hand" press asked for but its answer to the
    bot is lost (503): the next try is refused as already acknowledged (40060), which
    means it got through — the hand is not shown twice, and it follows the game."""
    async with anna_and_bert_at_zweier(tmp_path, caplog) as (world, table_id):
        fake, anna = world.fake, world["anna"]
        fake.server_error("POST", INTERACTION_CALLBACK, status=503, times=1, processed=True)
        shown = await world.click(anna, world.table_messages(table_id)[-1], "Show my hand")
        await fake.wait_for(lambda: shown.rejections, description="the next try refused")
        [hand] = [m for m in fake.ephemerals(anna) if m.content.startswith("Your hand")]
        assert shown.original is hand and [e.code for e in shown.rejections] == [40060]
        before = hand.content
        await press_once(world, table_id)
        await world.settle()

        live = world.service.hand(table_id, f"dc:{anna.id}")
        assert live is not None and hand.content == render.content(live.message) != before
        assert adapter_lines(caplog) == []


async def test_a_hand_asked_for_whose_deferral_was_lost_still_comes(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Anna presses "Show my hand" while the bot is slow, so it acknowledges first;
    Discord takes that acknowledgement but its answer to the bot is lost (503), and
    the next try is refused as already acknowledged (40060).  The bot takes it as
    done: her hand follows as the acknowledgement's follow-up, seen by her alone,
    instead of a second acknowledgement Discord would refuse too, which left her
    with nothing."""
    async with anna_and_bert_at_zweier(tmp_path, caplog, ack_budget=0) as (world, table_id):
        fake, anna = world.fake, world["anna"]
        fake.server_error("POST", INTERACTION_CALLBACK, status=503, times=1, processed=True)
        shown = await fake.click(anna, world.table_messages(table_id)[-1], "Show my hand")
        [hand] = await shown.wait_followups()
        await world.settle()

        assert hand.ephemeral_for is anna
        assert hand.content.startswith(f"Your hand at table {table_id}")
        assert [e.code for e in shown.rejections] == [40060]  # the one retry, no more
        assert adapter_lines(caplog) == []


async def test_a_press_discord_cannot_be_answered_for_still_counts_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Every try of the answer fails (503) until Discord's 3 seconds are over (the
    adapter's and discord.py's own, whose number depends on how fast the machine is):
    the player sees "This interaction failed", but the move counts once, the hands and
    the table message show it, and the game goes on; one warning, no error."""
    caplog.set_level(logging.INFO)
    async with discord_world(tmp_path) as world:
        press, table_id, made_once, outage = await press_against_503s(world, times=10)
        fake = world.fake
        await fake.wait_for(lambda: press.failed, description="the press to fail")
        await world.settle()
        outage.end()

        assert made_once()
        view = world.service.table(table_id)
        assert view is not None
        assert world.table_messages(table_id)[-1].content == render.content(view.message)
        for player in (world["anna"], world["bert"]):
            shown = world.service.hand(table_id, f"dc:{player.id}", player.locale)
            assert shown is not None
            assert fake.dms(player)[-1].content == render.content(shown.message)
        [line] = adapter_lines(caplog)
        assert "could not answer a press" in line
        await press_once(world, table_id)


async def test_no_answer_is_tried_after_discords_3_seconds(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A press reaches the bot 2.4 s after it was made and Discord answers 503 to its
    first answer (a "thinking…": the 2 s the bot gives a press are gone).  What is
    left of Discord's 3 seconds is too short for another try, so the bot makes none
    after the window, which Discord could only refuse (10062; a bot piling up refused
    requests is shut out).  The move counts once, one warning."""
    caplog.set_level(logging.INFO)
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        table_id, _ = await start_zweier(world, world["anna"], world["bert"])
        table = world.service.tables[table_id]
        assert table.deal_log is not None
        moves = len(table.deal_log.actions)
        user, hand = await next_press(world, table_id)
        world.fake.server_error("POST", INTERACTION_CALLBACK, status=503, times=1)
        press = await world.fake.click(user, hand, current_ids(world, table_id, hand)[0], late=2.4)
        await world.fake.wait_for(lambda: press.failed, description="the press to fail")
        await world.settle()

        tries = [
            r.status
            for r in world.fake.requests_to("POST", INTERACTION_CALLBACK)
            if str(press.id) in r.path
        ]
        assert tries == [503] and press.rejections == []
        assert len(table.deal_log.actions) == moves + 1
        [line] = adapter_lines(caplog)
        assert "could not be acknowledged" in line


async def test_a_lobby_whose_answer_was_lost_is_shown_once(tmp_path: Path) -> None:
    """`/schnapsen new` answered with the lobby, the answer to the bot lost (503): the
    retry is refused (40060), the adapter asks Discord which message it made, and keeps
    that one up to date instead of posting a second lobby."""
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        fake = world.fake
        anna, bert = world["anna"], world["bert"]
        fake.server_error("POST", INTERACTION_CALLBACK, status=503, times=1, processed=True)
        opened = await fake.slash(anna, world.channel, "schnapsen new", game="zweier")
        lobby = await opened
        await fake.wait_for(lambda: opened.rejections, description="the retry refused")
        table_id = table_of(lobby)
        assert table_id is not None
        await world.click(bert, lobby, "Join")
        await fake.wait_for(lambda: "bert" in lobby.content, description="the lobby edited")
        await world.settle()

        assert [m for m in fake.channel_messages(world.channel) if table_id in m.content] == [lobby]


async def test_a_command_discord_cannot_be_answered_for_is_one_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Every try of a command's answer fails (503) while Discord's 3 seconds last: the
    user sees "The application did not respond", the log has one warning (not
    discord.py's ERROR with a traceback, as for a bug), and the next command is
    answered."""
    caplog.set_level(logging.INFO)
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        fake = world.fake
        outage = fake.server_error("POST", INTERACTION_CALLBACK, status=503, times=10)
        asked = await fake.slash(world["anna"], world.channel, "leaderboard")
        await fake.wait_for(lambda: asked.failed, description="the command to fail")
        await world.settle()
        outage.end()
        [line] = adapter_lines(caplog)
        assert "could not answer /leaderboard" in line
        board = await world.slash(world["anna"], "leaderboard")
        assert board.content.startswith("No rated games")


async def test_a_thinking_answer_a_moderator_deleted_first_still_leaves_a_private_refusal(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Anna's slow `/schnapsen new` is refused; a moderator deletes its public
    "thinking…" just before the bot does, so Discord refuses the bot's delete (404
    10008 Unknown Message).  Anna still gets the refusal, seen by her alone (the
    thinking message is gone all the same), and one warning says the thinking answer
    could not be removed: the command is not taken for failed."""
    async with discord_world(tmp_path) as world:
        await world.start_bot(ack_budget=0)  # every answer is deferred first
        delete = world.fake.hold("DELETE", "/webhooks/{webhook_id}/{token}/messages/{message_id}")
        refused = await new_table_with_no_such_preset(world, world["anna"])
        await delete.wait_held()
        assert refused.original is not None
        refused.original.deleted = True  # the moderator
        delete.release()

        await assert_refused_in_private(world, refused)
        [line] = adapter_lines(caplog)
        assert "thinking answer could not be removed" in line and "10008" in line
        assert not refused.failed


@pytest.mark.parametrize("failure", ["cut twice", "cut always", "refused"])
async def test_a_refusal_whose_thinking_answer_cannot_be_deleted_is_never_public(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, failure: str
) -> None:
    """Anna's slow `/schnapsen new` is refused; the bot's delete of its public
    "thinking…" fails.  Its connection cut twice (Discord never got it; aiohttp
    tries a cut DELETE again once by itself): the bot tries again, and Anna gets the
    refusal seen by her alone.  Cut every time, or refused (403, not 10008: the
    message is still there): the refusal is not sent at all, as Discord would fill
    the thinking message in with it, for the whole channel to read what she tried;
    one warning says the command could not be answered."""
    async with discord_world(tmp_path) as world:
        await world.start_bot(ack_budget=0)  # every answer is deferred first
        delete = "/webhooks/{webhook_id}/{token}/messages/{message_id}"
        if failure == "refused":
            world.fake.refuse("DELETE", delete, 50013)
        else:
            times = 2 if failure == "cut twice" else 50
            world.fake.server_error("DELETE", delete, status=RESET, times=times)
        refused = await new_table_with_no_such_preset(world, world["anna"])
        if failure == "cut twice":
            await assert_refused_in_private(world, refused)
            assert refused.original is not None and refused.original.deleted
            assert adapter_lines(caplog) == []
            return
        await world.fake.wait_for(lambda: adapter_lines(caplog) or None, description="the warning")
        await world.settle()
        assert refused.followups == []
        public = [m.content for m in world.fake.channel_messages(world.channel)]
        assert not any("Unknown preset" in c for c in public), public
        [line] = adapter_lines(caplog)
        assert "could not answer /schnapsen new" in line and "thinking" in line, line


async def test_a_stop_lets_a_command_answer_on_its_way_arrive(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The bot is stopped (a deploy) while it answers /leaderboard: its "thinking…"
    is on its way, the board is still to follow.  The stop waits for the answer, as
    for a press, so the user gets his board.  Closed under it, the board met a closed
    connection: no answer, and an ERROR with a traceback at a normal shutdown."""
    caplog.set_level(logging.INFO)
    async with discord_world(tmp_path) as world:
        await world.start_bot(ack_budget=0)  # deferred first: two requests to answer
        reply = world.fake.hold("POST", INTERACTION_CALLBACK)
        asked = await world.fake.slash(world["anna"], world.channel, "leaderboard")
        await reply.wait_held()
        client = world.adapter.client
        stopping = asyncio.create_task(world.stop_bot())
        # the answer goes on once the stop waits for it, or (not waiting) has closed
        await world.fake.wait_for(
            lambda: (
                client.is_closed()
                or any("being answered" in r.getMessage() for r in caplog.records)
            ),
            description="the stop under way",
        )
        reply.release()
        await stopping
        board = await asked
        assert board.content.startswith("No rated games")
        assert adapter_lines(caplog) == []


async def test_a_stop_while_discord_does_not_answer_an_edit_gives_it_up(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bot is stopped (a deploy) while Discord holds the edit of the table message
    for a move, answering nothing: the stop waits for it its drain time only, then
    gives it up and the bot stops.  It is not taken for a failed try and sent again,
    which Discord would hold too: the stop would wait for it for good."""
    monkeypatch.setattr(adapter_module, "DRAIN_TIMEOUT", 0.4)
    async with anna_and_bert_at_zweier(tmp_path, caplog) as (world, table_id):
        [message] = world.table_messages(table_id)
        slow = world.fake.hold("PATCH", f"/channels/{world.channel.id}/messages/{message.id}")
        user, hand = await next_press(world, table_id)
        await world.click(user, hand, current_ids(world, table_id, hand)[0])
        await slow.wait_held()
        stopping = asyncio.create_task(world.stop_bot())
        try:
            await world.fake.wait_for(stopping.done, description="the bot to stop")
        finally:
            slow.release()  # what the stop gave up goes through: nothing waits on it
            await stopping
        assert slow.held == 1
        assert adapter_lines(caplog) == []


async def test_a_command_the_bot_fails_on_is_answered(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fault while handling a command (injected: the leaderboard query raises once):
    the user is told, privately, instead of "The application did not respond"; the log
    has one ERROR with the traceback; asking again works."""
    async with discord_world(tmp_path) as world:
        assert world.guard is not None
        world.guard.allow("injected fault")
        await world.start_bot()
        real = R.leaderboard
        faults = ["injected fault"]

        async def failing_once(*args: Any, **kwargs: Any) -> Any:
            if faults:
                raise RuntimeError(faults.pop())
            return await real(*args, **kwargs)

        monkeypatch.setattr(R, "leaderboard", failing_once)
        caplog.set_level(logging.INFO)
        answer = await world.slash(world["anna"], "leaderboard")
        assert answer.content == "Something went wrong; please try again."
        assert answer.ephemeral
        faulted = [r for r in caplog.records if r.exc_info and r.levelno >= logging.ERROR]
        assert len(faulted) == 1 and "leaderboard" in faulted[0].getMessage()
        board = await world.slash(world["anna"], "leaderboard")
        assert board.content.startswith("No rated games")
        # one whose client language we lack reads it in the server's, as all else
        world.guild.locale = "de"
        francois = world.fake.add_user("francois", locale="fr")
        world.fake.add_member(world.guild, francois)
        faults.append("injected fault")
        answer = await world.slash(francois, "leaderboard")
        assert answer.content == text("de", "failed"), answer.content


async def test_a_press_the_bot_fails_on_is_answered(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fault while handling a button press (injected: the core's act raises once):
    the presser is told, privately, instead of "This interaction failed"; the log has
    one ERROR with the traceback; pressing again works."""
    async with discord_world(tmp_path) as world:
        assert world.guard is not None
        world.guard.allow("injected fault")
        await world.start_bot()
        anna, bert = world["anna"], world["bert"]
        table_id, _ = await start_zweier(world, anna, bert)
        act = world.service.act
        faults = ["injected fault"]

        async def failing_once(*args: Any, **kwargs: Any) -> Any:
            if faults:
                raise RuntimeError(faults.pop())
            return await act(*args, **kwargs)

        monkeypatch.setattr(world.service, "act", failing_once)
        caplog.set_level(logging.INFO)
        message = world.table_messages(table_id)[-1]
        answer = await (await world.fake.click(anna, message, "Show my hand"))
        assert answer.content == "Something went wrong; please try again."
        assert answer.ephemeral_for is anna
        faulted = [r for r in caplog.records if r.exc_info and r.levelno >= logging.ERROR]
        assert len(faulted) == 1 and "a press" in faulted[0].getMessage()
        hand = await (await world.fake.click(anna, message, "Show my hand"))
        assert hand.content.startswith(f"Your hand at table {table_id}")


async def test_a_press_whose_change_fails_with_a_bug_is_logged_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Storing a card played fails with a bug (injected: the store's append raises
    once, not as the database would): the presser is told, and the log has one ERROR
    with the traceback, the core's that says the table is read back, not a second one
    for the press with the same traceback; pressing again works."""
    async with discord_world(tmp_path) as world:
        assert world.guard is not None
        world.guard.allow("injected fault")
        await world.start_bot()
        table_id, _ = await start_zweier(world, world["anna"], world["bert"])
        store = world.service.store
        _fail_once(monkeypatch, store, "append", error=RuntimeError("injected fault"))
        caplog.set_level(logging.INFO)
        user, hand = await next_press(world, table_id)
        press = await world.fake.click(user, hand, current_ids(world, table_id, hand)[0])
        answer = await press
        assert answer.content == text(user.locale[:2], "failed")  # in his language
        [error] = [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert error.getMessage().startswith(f"could not store a change of table {table_id}")
        assert error.exc_info is not None and error.exc_info[0] is RuntimeError
        await press_once(world, table_id)


async def test_a_command_whose_change_fails_with_a_bug_is_logged_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """/abort of her lobby fails with a bug while it is stored (injected: the store's
    append raises once): Anna is told, and the log has one ERROR with the traceback,
    the core's, not a second one for the command with the same traceback; asking again
    works."""
    async with discord_world(tmp_path) as world:
        assert world.guard is not None
        world.guard.allow("injected fault")
        await world.start_bot()
        anna = world["anna"]
        table_id, _ = await world.open_table(anna, "zweier")
        _fail_once(monkeypatch, world.service.store, "append", error=RuntimeError("injected fault"))
        caplog.set_level(logging.INFO)
        answer = await world.slash(anna, "abort")
        assert answer.content == "Something went wrong; please try again."
        [error] = [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert error.getMessage().startswith(f"could not store a change of table {table_id}")
        assert error.exc_info is not None and error.exc_info[0] is RuntimeError
        await world.slash(anna, "abort")
        assert table_id not in world.service.tables


async def test_a_change_the_bot_fails_to_show_is_given_up_once_and_the_next_one_shown(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fault while drawing the table message for a move (injected: the core's table
    view raises for that version of the table): the log has one ERROR with the
    traceback, naming the table — the edit is given up, not tried again (a fault
    would only recur) — and the hands show the move all the same; the next move's
    edit shows the table as it is then."""
    async with discord_world(tmp_path) as world:
        assert world.guard is not None
        world.guard.allow("injected fault")
        await world.start_bot()
        table_id, _ = await start_zweier(world, world["anna"], world["bert"])
        table = world.service.tables[table_id]
        [message] = world.table_messages(table_id)
        before = message.content
        view = world.service.table
        faulty = table.version + 1  # the version the next move makes

        def failing(*args: Any, **kwargs: Any) -> Any:
            if table.version == faulty:
                raise RuntimeError("injected fault")
            return view(*args, **kwargs)

        monkeypatch.setattr(world.service, "table", failing)
        caplog.set_level(logging.INFO)
        await press_once(world, table_id)
        assert message.content == before
        faulted = [r for r in caplog.records if r.exc_info and r.levelno >= logging.ERROR]
        assert len(faulted) == 1 and table_id in faulted[0].getMessage()

        await press_once(world, table_id)
        shown = view(table_id)
        assert shown is not None and message.content == render.content(shown.message)
