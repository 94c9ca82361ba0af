"""The Discord side when Discord refuses one of the bot's requests with an error the
fake's own world does not bring about (`FakeDiscord.refuse`): a 400 for one message,
a 403 on a DM that does not say the player closed his DMs.  What the players see:
the match goes on, the refused message is given up alone (a refusal is not tried
again at once: it would only be refused again, and Discord shuts out a bot that makes
many refused requests), and the next change shows things as they are.

The refusals the world brings about itself (a deleted channel or message, a right
taken, closed DMs, a message too old to edit) are in test_discord_failures.py and
test_discord.py.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from adapters.discord import render
from tests.e2e.discord_harness import INTERACTION_CALLBACK, discord_world, is_ping
from tests.e2e.test_discord import current_ids, next_press, start_zweier
from tests.e2e.test_discord_failures import adapter_lines, anna_and_bert_at_zweier, press_once


async def test_an_edit_discord_refuses_as_a_bad_request_is_given_up_alone(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Discord refuses the edit of the table message for a move as a bad request (400
    50035 Invalid Form Body): that edit is given up — sent once, not again at once —
    with one warning naming the table; the table stays open, the hands show the move,
    and the next move's edit shows the table as it is then."""
    async with anna_and_bert_at_zweier(tmp_path, caplog) as (world, table_id):
        fake = world.fake
        [message] = world.table_messages(table_id)
        path = f"/channels/{world.channel.id}/messages/{message.id}"
        before = message.content
        fake.refuse("PATCH", path, 50035)
        await press_once(world, table_id)

        assert [(r.status, r.code) for r in fake.requests_to("PATCH", path)] == [(400, 50035)]
        assert message.content == before
        [line] = adapter_lines(caplog)
        assert table_id in line and "50035" in line
        await press_once(world, table_id)  # the hands got the move: the next one presses
        view = world.service.table(table_id)
        assert view is not None and message.content == render.content(view.message)
        assert [r.status for r in fake.requests_to("PATCH", path)] == [400, 200]
        assert len(adapter_lines(caplog)) == 1


async def test_a_dm_refused_for_another_reason_than_closed_dms_is_tried_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Discord refuses the posts of Anna's and Bert's first DM hands with a 403 that
    does not say their DMs are closed (50001 Missing Access, not 50007): that is not
    taken for closed DMs.  Nobody is told in the channel to play from "Show my hand";
    the one to act does so all the same, and his move posts both hands in their DMs,
    where the match goes on."""
    caplog.set_level(logging.INFO)
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        fake = world.fake
        anna, bert = world["anna"], world["bert"]
        for player in (anna, bert):
            dm = fake.dm_channel(player, create=True)
            assert dm is not None
            fake.refuse("POST", f"/channels/{dm.id}/messages", 50001)
        table_id, _ = await start_zweier(world, anna, bert)
        assert fake.dms(anna) == fake.dms(bert) == []
        assert [r.code for r in fake.requests if r.status >= 400] == [50001, 50001]
        lines = adapter_lines(caplog)
        assert len(lines) == 2 and all(table_id in line for line in lines)

        table = world.service.tables[table_id]
        seat = table.to_act()
        assert seat is not None
        sitting = table.seats[seat]
        assert sitting is not None
        first = anna if sitting.user == f"dc:{anna.id}" else bert
        await world.click(first, world.table_messages(table_id)[-1], "Show my hand")
        [shown] = fake.ephemerals(first)
        await world.click(first, shown, current_ids(world, table_id, shown)[0])
        await world.settle()

        user, hand = await next_press(world, table_id)
        assert hand in fake.dms(user)
        for player in (anna, bert):  # his hand, posted with this move
            assert [m for m in fake.dms(player) if table_id in m.content and not is_ping(m)]
        told = [m for m in fake.channel_messages(world.channel) if "<@" in m.content]
        assert told == []  # no "I cannot send you direct messages" for either
        await press_once(world, table_id)


@pytest.mark.parametrize("status", [400, 503])
async def test_a_note_discord_does_not_take_does_not_hold_up_what_follows_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, status: int
) -> None:
    """Discord does not take the channel's note of a deal's result: it refuses it as
    a bad request (400 50035), or fails it with a 503 at every try.  The note is given
    up — a refusal at once, a failure after its last try — with one warning naming the
    table, and what the channel's queue holds behind it goes on: the next deal's table
    is posted, in one request, and played on."""
    async with anna_and_bert_at_zweier(tmp_path, caplog, retry_delays=(0.05,)) as (
        world,
        table_id,
    ):
        fake = world.fake
        posts = f"/channels/{world.channel.id}/messages"
        # the next post there: the deal's result
        if status == 400:
            fake.refuse("POST", posts, 50035)
        else:
            fake.server_error("POST", posts, status=503, times=2)
        seen = len(fake.requests)
        await world.play(table_id, until=lambda: len(world.table_messages(table_id)) == 2)
        await world.settle()

        *notes, deal_2 = [r for r in fake.requests[seen:] if (r.method, r.path) == ("POST", posts)]
        assert [r.status for r in notes] == ([400] if status == 400 else [503, 503])
        assert all("Deal 1 over" in r.body["content"] for r in notes)
        assert deal_2.status == 200 and "Deal 2" in deal_2.body["content"]
        assert not [m for m in fake.channel_messages(world.channel) if "Deal 1 over" in m.content]
        [line] = adapter_lines(caplog)
        assert table_id in line and f"{status} " in line
        await press_once(world, table_id)


@pytest.mark.parametrize("first_try", ["refused", "failed"])
async def test_a_press_whose_answer_discord_refuses_is_not_tried_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, first_try: str
) -> None:
    """Discord refuses the bot's answer to a press as a bad request (400 50035), as it
    refuses every try of the same answer — at the first try, or at the second after a
    503: it is not tried again while Discord's 3 seconds last (Discord shuts out a bot
    that makes many refused requests), nor taken for an answer that got through.  The
    move counts, once; one warning says the press could not be answered, and the game
    goes on."""
    async with anna_and_bert_at_zweier(tmp_path, caplog) as (world, table_id):
        fake = world.fake
        table = world.service.tables[table_id]
        version = table.version
        user, hand = await next_press(world, table_id)
        if first_try == "failed":
            fake.server_error("POST", INTERACTION_CALLBACK, status=503)
        refusals = fake.refuse("POST", INTERACTION_CALLBACK, 50035, times=10)
        press = await fake.click(user, hand, current_ids(world, table_id, hand)[0])

        def tries() -> list[tuple[int, int | None]]:
            answers = fake.requests_to("POST", INTERACTION_CALLBACK)
            return [(r.status, r.code) for r in answers if str(press.id) in r.path and r.status]

        await fake.wait_for(tries, description="the answer refused")
        await world.settle()
        refusals.end()

        failed = [(503, None)] if first_try == "failed" else []
        assert tries() == [*failed, (400, 50035)]
        assert table.version == version + 1
        [line] = adapter_lines(caplog)
        assert "could not answer a press" in line
        await press_once(world, table_id)
