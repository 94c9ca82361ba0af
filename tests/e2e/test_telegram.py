"""The Telegram adapter end to end: real python-telegram-bot against the fake Bot API."""

from __future__ import annotations

import time
from pathlib import Path

from tests.e2e.fakes.telegram_api import FakeTelegram
from tests.e2e.test_telegram_harness import (
    fake,
    log_guard,
    make_players,
    open_table,
    play,
    press,
    start_rig,
    stop_rig,
)

__all__ = ["fake", "log_guard"]


async def test_zweier_match_by_buttons(fake: FakeTelegram, tmp_path: Path) -> None:
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players = make_players(fake, ["Anna", "Berti"])
        table_id, lobby = await open_table(rig, players, "/new zweier")
        answer = await press(fake, players.users[0], lobby, "Start")
        assert not answer.show_alert, answer.text
        began = time.monotonic()
        presses = await play(rig, table_id, players.users, until=lambda: rig.table(table_id) is None)
        print("presses", presses, time.monotonic() - began)
        await rig.adapter.outbox.drain()
        assert rig.witness.check_group(table_id, players.group) > 0
        print(players.group.transcript()[-2000:])
    finally:
        await stop_rig(rig)
