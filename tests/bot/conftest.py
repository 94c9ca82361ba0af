"""Fixtures for the core's tests: a restartable bot on a real SQLite file."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from bot.service import Timings

from .fakechat import Bot, ids, seeds

FAST = Timings(
    turn_timeout=30.0, reminder_before=10.0, missed_turns_limit=3, ai_delay=0.0, lobby_expiry=600.0
)

#: One missed turn and the computer takes the seat: who never presses walks away at
#: his first turn, which the test runs out at once (fakechat's `run_out`, or
#: `play_out(walkers=...)`).  The turns are as long as FAST's: a short turn for
#: everybody (it was 1 s) ran out under those who stay when a press came late on a
#: busy machine, and the table closed under the test.
WALK = Timings(
    turn_timeout=30.0, reminder_before=10.0, missed_turns_limit=1, ai_delay=0.0, lobby_expiry=600.0
)


@pytest.fixture
def make_bot(tmp_path: Path) -> Callable[..., Bot]:
    """A factory for `Bot`s on one database file (call again to 'restart')."""
    seed_source = seeds()
    table_ids = ids()

    def make(**kw: object) -> Bot:
        kw.setdefault("timings", FAST)
        kw.setdefault("seed_source", seed_source)
        kw.setdefault("table_ids", table_ids)
        return Bot(tmp_path / "bot.sqlite3", **kw)  # type: ignore[arg-type]

    return make


@pytest.fixture
async def bot(make_bot: Callable[..., Bot]) -> AsyncIterator[Bot]:
    b = await make_bot().start()
    try:
        yield b
    finally:
        await b.stop()
