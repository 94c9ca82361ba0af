"""A bot run with LOG_LEVEL=DEBUG logs no hand.

Whoever reads the log (the host, a log service, a screenshot in a bug report) must
not learn a card still hidden: `bot.store` drops aiosqlite's statement parameters for
that reason.  The platform libraries log their traffic at DEBUG too: python-telegram-
bot every Bot API call with its parameters and every update it processes, discord.py
every REST request with its body and every gateway event — the private hand messages
and the buttons pressed on them.  Here the real adapters play a few moves behind the
log handler `python -m bot` installs (`bot.app.configure_logging`, at DEBUG), and every
line it writes is checked, as it is written, for the running deal's hidden cards and
seed.
"""

from __future__ import annotations

import io
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from pydantic import SecretStr

from adapters.telegram import Content, Handle, Outbox, Throttle
from bot import app
from bot.config import Config
from tests.bot.test_leaks import Watch
from tests.e2e.discord_harness import discord_world
from tests.e2e.fakes.telegram.ptb import LogErrorGuard
from tests.e2e.fakes.telegram.server import FakeTelegram
from tests.e2e.telegram_harness import (
    config_for,
    fake,
    log_guard,
    start_rig,
    started_match,
    stop_rig,
)

__all__ = ["fake", "log_guard"]

#: Loggers `configure_logging` sets a level of: put back after each test.
_TUNED = (
    "httpx",
    "httpcore",
    "aiosqlite",
    "telegram",
    "discord.http",
    "discord.gateway",
    "discord.webhook",
)


class CheckedLog(io.StringIO):
    """The log stream: each line is checked for hidden cards as it is written."""

    def __init__(self) -> None:
        super().__init__()
        self.watch = Watch()
        self.lines = 0

    def write(self, s: str) -> int:
        self.lines += s.count("\n")
        for hidden, seed in self.watch.secrets().values():
            self.watch.check_text("log", s, hidden, seed)
        return super().write(s)


@contextmanager
def debug_log(config: Config) -> Iterator[CheckedLog]:
    """`python -m bot`'s log handler at DEBUG, writing to a `CheckedLog`."""
    stream = CheckedLog()
    root = logging.getLogger()
    levels = {name: logging.getLogger(name).level for name in ("", *_TUNED)}
    handler = app.configure_logging(config, stream=stream)
    try:
        yield stream
    finally:
        root.removeHandler(handler)
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)


def _assert_clean(log: CheckedLog) -> None:
    assert log.lines > 20  # DEBUG lines were written, and checked
    assert log.watch.checked, "no line was logged while a deal ran"
    assert not log.watch.problems, "\n".join(p[:300] for p in log.watch.problems[:5])


async def test_a_telegram_bot_at_debug_logs_no_hand(fake: FakeTelegram, tmp_path: Path) -> None:
    db = tmp_path / "bot.sqlite3"
    with debug_log(config_for(fake, db, log_level="DEBUG")) as log:
        rig = await start_rig(fake, db)
        log.watch.service = rig.service
        try:
            await started_match(rig, fake, presses=3)
            await rig.adapter.outbox.drain()
        finally:
            await stop_rig(rig)
    _assert_clean(log)


async def test_a_hand_whose_answer_comes_back_garbled_is_not_logged(
    fake: FakeTelegram, tmp_path: Path, log_guard: LogErrorGuard
) -> None:
    """Telegram's answer to Anna's hand comes back unreadable (a 200 cut short):
    python-telegram-bot logs the body it could not read at ERROR, whatever the level,
    and that body is the message, her cards and all.  The log says an answer could
    not be read, not what it held."""
    log_guard.allow("Can not load invalid JSON data")
    anna = fake.create_user("Anna", started=True)
    with debug_log(config_for(fake, tmp_path / "bot.sqlite3")) as log:  # at INFO
        async with fake.make_bot() as bot:
            outbox = Outbox(bot, throttle=Throttle.off())
            fake.garble_answer_next("sendMessage")
            outbox.post(Handle(anna.id, "t1", None), Content("Your hand: A♥ K♠ 10♣"))
            assert await outbox.drain(5)
            await outbox.close()
    text = log.getvalue()
    # said, and how long the answer was, not what it held; the outbox's own line stays
    assert re.search(r"Can not load invalid JSON data \(\d+ characters; not logged", text), text
    assert f"telegram error on a post in chat {anna.id}: Invalid server response" in text, text
    assert "Your hand" not in text and "u2665" not in text and "♥" not in text, text
    assert [m.text for m in anna.private_chat.bot_messages()] == ["Your hand: A♥ K♠ 10♣"]


@pytest.mark.parametrize("method", ["sendMessage", "editMessageText", "deleteMessage"])
async def test_a_hand_whose_answer_holds_no_result_is_not_logged(
    fake: FakeTelegram, tmp_path: Path, log_guard: LogErrorGuard, method: str
) -> None:
    """Telegram's answer to a request about Anna's hand (posting it, showing her next
    hand, deleting it) is JSON that says ``ok`` but holds no ``result``, and
    python-telegram-bot raises a KeyError of its own: the log says, in one line, that
    the answer to that method in her chat could not be read; no traceback at ERROR,
    and none of her cards."""
    anna = fake.create_user("Anna", started=True)
    hand = Handle(anna.id, "t1", None)
    with debug_log(config_for(fake, tmp_path / "bot.sqlite3")) as log:  # at INFO
        async with fake.make_bot() as bot:
            outbox = Outbox(bot, throttle=Throttle.off())
            fake.answer_without_result_next(method)
            outbox.post(hand, Content("Your hand: A♥ K♠ 10♣"))
            assert await outbox.drain(5)
            outbox.edit(hand, Content("Your hand: A♥ 10♣"))
            assert await outbox.drain(5)
            outbox.delete(hand)
            assert await outbox.drain(5)
            await outbox.close()
    assert fake.calls_to(method)[0].status == 200  # carried out, whatever the answer
    text = log.getvalue()
    said = [line for line in text.splitlines() if method in line]
    assert len(said) == 1 and f"chat {anna.id}" in said[0] and "WARNING" in said[0], text
    assert "Traceback" not in text, text
    assert "Your hand" not in text and "u2665" not in text and "♥" not in text, text


async def test_a_discord_bot_at_debug_logs_no_hand(tmp_path: Path) -> None:
    async with discord_world(tmp_path) as world:
        token = SecretStr(world.fake.token)
        config = Config(_env_file=None, discord_token=token, log_level="DEBUG")  # type: ignore[call-arg]
        with debug_log(config) as log:
            await world.start_bot()
            log.watch.service = world.service
            table_id = await world.start_match(world["anna"], world["bert"])
            table = world.service.tables[table_id]
            assert table.deal_log is not None
            moves = table.deal_log.actions
            await world.play(table_id, until=lambda: len(moves) >= 3)
            await world.settle()
            await world.stop_bot()
    _assert_clean(log)
