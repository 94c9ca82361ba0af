"""A platform out of reach during a person's turn: the downtime is not his.  His
turn's clock stops until the platform answers again; his press made meanwhile counts,
and no computer move is made for him (nor is his seat given away)."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.service import Timings
from bot.table import Table
from tests.e2e.clocks import held, remind, run_out, ticking
from tests.e2e.discord_harness import discord_world
from tests.e2e.fakes.telegram.messages import FakeMessage
from tests.e2e.fakes.telegram.server import FakeTelegram
from tests.e2e.fakes.telegram.users import FakeUser
from tests.e2e.telegram_harness import (
    Players,
    Rig,
    fake,
    hand_message,
    log_guard,
    patience,
    start_rig,
    started_match,
    stop_rig,
    timings,
    webhook_config,
)
from tests.e2e.test_discord import current_ids, next_press, start_zweier

__all__ = ["fake", "log_guard"]  # fixtures


async def turn_in_hand(
    rig: Rig, fake: FakeTelegram
) -> tuple[Players, Table, FakeUser, FakeMessage]:
    """A started Zweier match, its table, the person to act and his hand with buttons."""
    players, table_id = await started_match(rig, fake)
    table = rig.table(table_id)
    assert table is not None
    seat = table.to_act()
    assert seat is not None
    actor = players.users[seat]
    hand = await fake.wait_for(
        lambda: m if (m := hand_message(actor, table_id)) and m.buttons() else None,
        what="buttons",
    )
    return players, table, actor, hand


async def until(check: Callable[[], object], what: str, timeout: float = 15.0) -> None:
    """Wait until `check()` holds: what the bot alone decides (no request reaches the
    fake while it is offline, so its `wait_for` would not look again)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not check():
        assert loop.time() < end, f"waited {timeout} s for {what}"
        await asyncio.sleep(0.02)


async def press_during_an_outage(
    rig: Rig, players: Players, table: Table, actor: FakeUser, hand: FakeMessage
) -> None:
    """Telegram out of reach until past the turn's deadline, the person to act pressing
    meanwhile: once it is back his press counts (no computer move for him, still his
    seat, no "missed" note), and then the clocks run again.

    The turns are long (`LONG`), so that no clock of the bot's runs out under the test
    on a loaded machine: his turn's reminder is sent by the test, once Telegram is out
    of reach (in webhook mode its send is what notices the outage), and his deadline is
    put in the past once the bot holds the clocks.  Back, he has the reminder's time
    (or half a turn), 10 s or 15 s, for his waiting press to be delivered; the next
    turn's clock runs then, and the test ends it (`run_out`)."""
    fake, service = rig.fake, rig.service
    await fake.go_offline()
    query = actor.press(hand, hand.buttons()[0].data)  # it waits at Telegram
    # its timer's callback, fired now: the reminder is sent (the callers' reminders
    # are on: with them off it sends nothing), and in webhook mode its failing to
    # connect is what notices the outage
    remind(service, table.id)
    await until(lambda: table.platform in service._held, "the outage to hold the clocks")
    assert table.deadline is not None
    table.deadline = time.time() - 1.0  # his turn ran out during the outage
    await fake.come_back()

    answer = await fake.wait_answer(query, timeout=15)
    assert not answer.show_alert, answer.text
    log = await rig.store.table_log(table.id)
    assert [e.get("by") for e in log if e["k"] == "act"][:1] == ["p"]
    assert all(s is not None and s.ai is None for s in table.seats)  # still his seat
    assert not any("missed" in m.text for m in players.group.bot_messages())
    # Telegram answers again: the clocks run (the next turn's timer is armed, not held),
    # and an absent player's turn times out
    await until(lambda: ticking(service, table.id), "the next turn's clock")
    seat = table.to_act()
    assert seat is not None
    assert run_out(service, table.id, f"tg:{players.users[seat].id}")
    await fake.wait_for(
        lambda: any(s is not None and s.ai is not None for s in table.seats), what="a timeout"
    )


#: Turns long enough for a loaded machine, with a reminder (and so the grace after
#: an outage) a third of a turn before the end: the test ends what it needs at once.
LONG = 30.0


@pytest.mark.parametrize("mode", ["polling", "webhook"])
async def test_a_telegram_outage_does_not_run_out_a_persons_turn(
    fake: FakeTelegram, tmp_path: Path, mode: str
) -> None:
    """Polling: the first failed poll notices the outage.  Webhook: no poll fails, so
    the reminder's send that cannot connect notices it.  The press made during it
    waits at Telegram."""
    quick = timings(turn_timeout=LONG, reminder_before=LONG / 3, missed_turns_limit=1)
    db = tmp_path / "bot.sqlite3"
    config = webhook_config(fake, db) if mode == "webhook" else None
    rig = await start_rig(fake, db, config=config, timing=quick)
    try:
        assert (fake.webhook is not None) == (mode == "webhook")
        players, table, actor, hand = await turn_in_hand(rig, fake)
        await press_during_an_outage(rig, players, table, actor, hand)
    finally:
        await stop_rig(rig)


async def ran_out(rig: Rig, table: Table) -> None:
    """Once the clocks are held (the outage noticed, or this fails), his turn's time
    runs out: the test puts his deadline in the past."""
    await held(rig.service, table.platform, timeout=10)
    assert table.deadline is not None
    table.deadline = time.time() - 1.0


async def back_with_time_to_move(
    rig: Rig, players: Players, table: Table, actor: FakeUser, hand: FakeMessage
) -> None:
    """Telegram answers again after an outage his turn's time ran out in (`ran_out`):
    the first thing he hears is a reminder with the reminder's time left (nothing else
    is sent: the bot alone must notice it is back); still his seat, no computer move
    for him, no "missed" note, and his press then counts."""
    fake, service = rig.fake, rig.service
    version = table.version
    reminder = await fake.wait_for_message(
        actor.private_chat, contains="it is your turn", timeout=15
    )
    left = re.search(r"\((\d+) s left\)", reminder.text)
    assert left is not None and int(left.group(1)) >= LONG / 3 - 2, reminder.text
    assert reminder.reply_to is hand  # on his hand, in his private chat
    assert table.version == version  # no computer move was made for him
    assert all(s is not None and s.ai is None for s in table.seats)  # still his seat
    assert not any("your turn" in m.text for m in players.group.bot_messages())
    answer = await fake.wait_answer(actor.press(hand, hand.buttons()[0].data))
    assert not answer.show_alert, answer.text
    log = await rig.store.table_log(table.id)
    assert [e.get("by") for e in log if e["k"] == "act"] == ["p"]  # his, not a timeout's
    assert not any("missed" in m.text for m in players.group.bot_messages())
    await until(lambda: ticking(service, table.id), "the next turn's clock")  # running again


async def quiet_webhook_rig(fake: FakeTelegram, tmp_path: Path) -> Rig:
    """A webhook-mode bot whose outbox probes Telegram after 0.3 s without a request,
    with turns long enough that only an unnoticed outage could run one out."""
    quick = timings(turn_timeout=LONG, reminder_before=LONG / 3, missed_turns_limit=1)
    db = tmp_path / "bot.sqlite3"
    config = webhook_config(fake, db)
    return await start_rig(fake, db, config=config, timing=quick, probe_after=0.3)


@pytest.mark.parametrize("first_answer", ["plain", "without_result"])
async def test_a_webhook_outage_at_a_quiet_table_does_not_run_out_a_persons_turn(
    fake: FakeTelegram, tmp_path: Path, first_answer: str
) -> None:
    """Webhook mode, nothing to send (no reminder due, nobody pressing): only the
    outbox's probe (a getMe that cannot connect) notices the outage, and its answer
    the end.  Without it his turn would run out, and his seat go to the computer.

    "without_result": a probe's getMe before the outage is answered ``{"ok": true}``
    with no ``result`` (python-telegram-bot raises a KeyError of its own); the
    probing goes on all the same."""
    rig = await quiet_webhook_rig(fake, tmp_path)
    try:
        players, table, actor, hand = await turn_in_hand(rig, fake)
        assert await rig.adapter.outbox.drain()  # quiet: nothing left to send
        if first_answer == "without_result":
            asked = len(fake.calls_to("getMe"))
            fake.answer_without_result_next("getMe")
            await fake.wait_for(lambda: len(fake.calls_to("getMe")) > asked, what="a probe")
        await fake.go_offline()
        await ran_out(rig, table)
        await fake.come_back()
        await back_with_time_to_move(rig, players, table, actor, hand)
    finally:
        await stop_rig(rig)


async def test_a_network_swallowing_requests_at_a_quiet_table_does_not_run_out_a_turn(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """Webhook mode, nothing to send, and Telegram's answers do not come (the
    requests go out and vanish; a send would not know whether it arrived, so it says
    nothing of reach): the probe's getMe, small and instant when Telegram is there,
    timing out is the sign.  The bot's answers are awaited for a moment only here
    (the fake holds getMe: it times out at once)."""
    rig = await quiet_webhook_rig(fake, tmp_path)
    try:
        players, table, actor, hand = await turn_in_hand(rig, fake)
        assert await rig.adapter.outbox.drain()  # quiet: nothing left to send
        patience(rig.adapter, 0.3)
        swallowed = fake.hold("getMe")
        await ran_out(rig, table)
        patience(rig.adapter)  # the next probe waits for its answer, held until...
        swallowed.release()  # ...the network carries answers again
        await back_with_time_to_move(rig, players, table, actor, hand)
    finally:
        await stop_rig(rig)


async def test_a_discord_gateway_outage_does_not_run_out_a_persons_turn(tmp_path: Path) -> None:
    """Discord ends the session (op 9): discord.py waits before it identifies again,
    longer than the turn's timeout here; the player to act presses once it is back."""
    # discord.py waits 5 s before it identifies again; his turn's time runs out
    # meanwhile because the test puts his deadline in the past once the clocks are
    # held (30 s turns: with 2.5 s ones the outage had to begin within 2.5 s of his
    # turn, and the next turn's timeout come within the 5 s the test waited for it)
    quick = Timings(turn_timeout=30.0, reminder_before=10.0, missed_turns_limit=1, ai_delay=0)
    async with discord_world(tmp_path) as world:
        await world.start_bot(timings=quick)
        fake = world.fake
        table_id, _ = await start_zweier(world, world["anna"], world["bert"])
        table = world.service.tables[table_id]
        user, hand = await next_press(world, table_id)
        [session] = fake.sessions
        version = table.version

        await fake.invalidate_sessions(resumable=False)
        await held(world.service, table.platform)
        assert table.deadline is not None
        table.deadline = time.time() - 1.0  # the turn's time runs out meanwhile
        # once back, the player has the reminder's time to press: 10 s
        await fake.wait_for(
            lambda: fake.sessions and fake.sessions != [session],
            timeout=10,
            description="a new gateway session",
        )
        assert table.version == version  # no computer move was made for him
        await fake.wait_for(
            lambda: table.deadline is not None and table.deadline > time.time(),
            description="his turn's grace",
        )
        await world.click(user, hand, current_ids(world, table_id, hand)[0])
        await world.settle()
        assert table.version > version  # his press counted
        acts = [e for e in await world.service.store.table_log(table_id) if e["k"] == "act"]
        assert [e.get("by") for e in acts] == ["p"]  # his, not a timeout's
        assert all(s is not None and s.ai is None for s in table.seats)
        # connected again: the clocks run (the next turn's timer is armed, not held),
        # and an absent player's turn times out (the test ends it: its timer's callback)
        service = world.service
        await until(lambda: ticking(service, table.id), "the next turn's clock")
        seat = table.to_act()
        absent = table.seats[seat] if seat is not None else None
        assert absent is not None and absent.user is not None
        assert run_out(service, table_id, absent.user)
        await fake.wait_for(
            lambda: any(s is not None and s.ai is not None for s in table.seats),
            description="a timeout",
        )
