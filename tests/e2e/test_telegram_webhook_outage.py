"""Telegram out of reach in webhook mode: no poll fails, so the outbox's requests that
cannot connect are what stops the persons' turns' clocks.  A press made once Telegram
is back counts, though the turn's original time ran out meanwhile."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from tests.e2e.fakes.telegram_api import FakeTelegram
from tests.e2e.telegram_harness import (
    config_for,
    fake,
    hand_message,
    log_guard,
    start_rig,
    started_match,
    stop_rig,
    timings,
)
from tests.e2e.test_telegram import free_port

__all__ = ["fake", "log_guard"]  # fixtures


async def test_a_telegram_outage_in_webhook_mode_does_not_run_out_a_persons_turn(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    # the reminder, sent while Telegram is out of reach, is what notices the outage
    quick = timings(turn_timeout=3.5, reminder_before=0.75, missed_turns_limit=1)
    port = free_port()
    db = tmp_path / "bot.sqlite3"
    config = config_for(
        fake,
        db,
        telegram_webhook_url=f"http://127.0.0.1:{port}/tg/hook",
        telegram_webhook_listen="127.0.0.1",
        telegram_webhook_port=port,
    )
    rig = await start_rig(fake, db, config=config, timing=quick)
    try:
        assert fake.webhook is not None
        players, table_id = await started_match(rig, fake)
        table = rig.table(table_id)
        assert table is not None
        seat = table.to_act()
        assert seat is not None
        actor = players.users[seat]
        hand = await fake.wait_for(
            lambda: (m := hand_message(actor, table_id)) and m.buttons() and m, what="buttons"
        )

        await fake.go_offline()
        assert table.deadline is not None
        await asyncio.sleep(table.deadline - time.time() + 0.5)  # past the turn's timeout
        await fake.come_back()

        answer = await fake.wait_answer(actor.press(hand, hand.buttons()[0].data), timeout=15)
        assert not answer.show_alert, answer.text  # his press counted
        log = await rig.store.table_log(table_id)
        assert [e.get("by") for e in log if e["k"] == "act"][:1] == ["p"]
        s = table.seats[seat]
        assert s is not None and s.ai is None  # still his seat
        assert not any("missed" in m.text for m in players.group.bot_messages())

        # Telegram answers again: the clocks run, an absent player's turn times out
        other = table.seats[1 - seat]
        await fake.wait_for(lambda: other is not None and other.ai is not None, what="timeout")
    finally:
        await stop_rig(rig)
