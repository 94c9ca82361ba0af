"""The outbox's pace (`adapters.telegram.throttle`), on a clock of the test's own.

Telegram's flood control as the fake applies it is the yardstick: requests sent at
the outbox's pace, as fast as it lets them go, must never be refused (429), and must
not wait longer than Telegram's limits make them.  Time is virtual: `_pace` sleeps
on the test's clock, which moves only when it does, so nothing here waits.
"""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import cast

import pytest
from telegram import Bot

from adapters.telegram import Outbox, Throttle, queues
from adapters.telegram.throttle import _Bucket
from tests.e2e.fakes.telegram import flood_control
from tests.e2e.fakes.telegram.chats import FakeChat
from tests.e2e.fakes.telegram.protocol import RateLimits
from tests.e2e.fakes.telegram.server import FakeTelegram
from tests.e2e.telegram_harness import fake, log_guard

__all__ = ["fake", "log_guard"]


class Clock:
    """Virtual seconds: read by the outbox and the fake, moved by `_pace`'s sleeps."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        assert seconds > 0, "a wait of nothing is no wait"
        self.now += seconds + 1e-9  # and the request then takes a moment to arrive


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """The outbox's pace and the fake's flood control on one virtual clock."""
    clock = Clock()
    monkeypatch.setattr(queues, "time", SimpleNamespace(monotonic=clock))
    # the queues' asyncio but its sleep (their Events stay real ones)
    monkeypatch.setattr(
        queues, "asyncio", SimpleNamespace(**{**vars(asyncio), "sleep": clock.sleep})
    )
    monkeypatch.setattr(flood_control, "time", SimpleNamespace(monotonic=clock))
    return clock


async def sent_at_pace(
    clock: Clock, chats: list[FakeChat], rounds: int, throttle: Throttle | None = None
) -> list[float]:
    """`rounds` requests to each chat in turn, each as soon as the outbox's pace (the
    default one) lets it go; Telegram's flood control (the fake's, with Telegram's
    limits) must admit every one.  Returns when each went."""
    outbox = Outbox(cast(Bot, None), throttle=throttle or Throttle())
    flood = flood_control._FloodControl()
    limits = RateLimits()
    times = []
    for n in range(rounds):
        for chat in chats:
            await outbox._pace(outbox._chat(chat.id))
            retry_after, buckets = flood.admit(limits, chat)
            assert retry_after == 0, f"request {n} to chat {chat.id} at {clock.now - 1000:.2f} s"
            flood.spend(buckets)
            times.append(clock.now - 1000.0)
    return times


async def test_a_private_chat_gets_two_at_once_then_one_a_second(
    fake: FakeTelegram, clock: Clock
) -> None:
    """Telegram takes about a message a second in one chat: the outbox sends a
    burst of two, then one a second, for as long as there is something to send."""
    user = fake.create_user("Anna", started=True)
    times = await sent_at_pace(clock, [user.private_chat], 300)
    assert times[:4] == pytest.approx([0.0, 0.0, 1.0, 2.0])
    assert times[-1] == pytest.approx(298.0)


async def test_a_group_gets_twenty_a_minute_after_a_burst(fake: FakeTelegram, clock: Clock) -> None:
    """Telegram takes 20 messages a minute in a group: the chat's own pace (two at
    once, then one a second) until the group's ten spare ones are spent, then one
    every three seconds, for half an hour too."""
    group = fake.create_group("Schnapsen")
    times = await sent_at_pace(clock, [group], 610)
    assert times[:3] == pytest.approx([0.0, 0.0, 1.0])
    assert times[11:16] == pytest.approx([10.0, 11.0, 12.0, 15.0, 18.0])
    assert times[-1] == pytest.approx((610 - 10) * 3.0)


async def test_many_chats_share_thirty_a_second(fake: FakeTelegram, clock: Clock) -> None:
    """Telegram takes about 30 messages a second from one bot: a hundred private
    chats with something to send get 30 at once, then 30 a second between them."""
    chats = [fake.create_user(f"U{i}", started=True).private_chat for i in range(100)]
    times = await sent_at_pace(clock, chats, 4)
    assert times[29:31] == pytest.approx([0.0, 1 / 30])
    assert times[-1] == pytest.approx((400 - 30) / 30)


async def test_without_a_pace_nothing_waits(fake: FakeTelegram, clock: Clock) -> None:
    """`Throttle.off()` (tests of other things) sends at once, whatever the count."""
    outbox = Outbox(cast(Bot, None), throttle=Throttle.off())
    group = outbox._chat(fake.create_group("Schnapsen").id)
    for _ in range(100):
        await outbox._pace(group)
    assert clock.now == 1000.0


def test_a_bucket_refills_at_its_rate_up_to_its_capacity() -> None:
    """A bucket of 2 refilled at 0.5 a second: two go at once, the third waits its
    2 s, one taken on credit waits for that one too; refilled, it is full (`full`:
    a chat's queue may be forgotten) exactly when it is back to 2, and it never
    holds more however long it waited."""
    b = _Bucket(capacity=2, rate=0.5, tokens=2, stamp=10.0)
    assert [b.reserve(10.0), b.reserve(10.0), b.reserve(10.0)] == [0.0, 0.0, 2.0]
    assert b.reserve(11.0) == pytest.approx(3.0)  # 0.5 refilled, 2 owed: 1.5 short
    assert not b.full(17.9) and b.full(18.0)  # -1.5 + 0.5 * 7 = 2
    assert b.reserve(100.0) == 0.0  # capped at 2, not 43: one left
    assert b.reserve(101.0) == 0.0  # 1.5 then: one taken, half a token left, no wait
    assert b.reserve(101.0) == pytest.approx(1.0)  # -0.5: a second to refill


async def test_a_chat_is_let_go_of_only_once_its_pace_has_refilled(
    fake: FakeTelegram, clock: Clock
) -> None:
    """An idle chat's queue is dropped to save memory, but not while its pace still
    holds back what comes next: a queue made anew starts full, and would let a burst
    through that Telegram refuses.  Two went at once, the third a second later: the
    chat is kept until its bucket is full again, two seconds after that."""
    user = fake.create_user("Anna", started=True)
    outbox = Outbox(cast(Bot, None))
    chat = outbox._chat(user.id)
    for _ in range(3):
        await outbox._pace(chat)
    assert not outbox._forget_idle(chat) and outbox.held == 1
    clock.now += 1.9
    assert not outbox._forget_idle(chat) and outbox.held == 1
    clock.now += 0.1
    assert outbox._forget_idle(chat) and outbox.held == 0
