"""The moments a seat changes hands show nobody else's cards.

A player walks away mid-deal (Dreierschnapsen: a talon, a discard); his turns time
out, the computer takes his seat and plays it from that seat's view, then he presses
"Take my seat back" and plays on.  Every public message, every hand message and
every log line (at DEBUG) is checked by `test_leaks.Watch` as it is made.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from bot.service import Timings

from .fakechat import Bot, Player, button, open_table, play_out, run_out, users
from .test_leaks import LogWatch, Watch

#: A second missed turn in a row gives the seat away.  The absent one's turns run out
#: at once (`run_out`); the turns are long, as those of the present players must not
#: run out (with 0.2 s turns for everybody a press 1 s late lost their seats too).
QUICK = Timings(
    turn_timeout=30.0, reminder_before=10.0, missed_turns_limit=2, ai_delay=0.0, lobby_expiry=600
)


async def play_without(
    bot: Bot, tid: str, present: list[Player], absent: Player, until: Callable[[], bool]
) -> None:
    """The present players take their turns; the absent one's time out."""
    while not until() and tid in bot.svc.tables:
        if not [p for p in present if await p.take_turn(tid) is not None]:
            run_out(bot.svc, tid, absent)
            seen = len(bot.fc.updates)

            def moved(seen: int = seen) -> bool:
                return until() or len(bot.fc.updates) != seen

            await bot.fc.wait(moved, timeout=3)


async def test_a_seat_taken_over_and_back_shows_no_other_hand(
    make_bot: Callable[..., Bot],
) -> None:
    root = logging.getLogger()
    level = root.level
    watch = Watch()
    log = LogWatch(watch)
    root.setLevel(logging.DEBUG)
    root.addHandler(log)
    bot = await make_bot(timings=QUICK).start()
    watch.service = bot.svc
    try:
        fc = bot.fc
        fc.on_update.append(lambda u: watch.on_update(fc.channel, u))
        anna, bert, cilli = (bot.player(u) for u in users(3))
        tid = await open_table(bot, "dreier", [anna, bert, cilli])
        table = bot.svc.tables[tid]
        seat = table.seat_of(cilli.key)
        assert seat is not None

        def replaced() -> bool:
            s = table.seats[seat]
            return s is not None and s.ai is not None

        def computer_moved_twice() -> bool:
            moves = [e for d in table.deals for st, e in d.actions if st == seat]
            return tid not in bot.svc.tables or (replaced() and len(moves) >= 4)

        # Cilli is away: her turns time out and the computer takes her seat
        await play_without(bot, tid, [anna, bert], cilli, computer_moved_twice)
        assert tid in bot.svc.tables and replaced()
        # she is back: her seat again, and everyone plays the match out
        assert (await cilli.press(button(fc.tables[tid].message, "tb"))).ok
        await play_out(fc, tid, [anna, bert, cilli])
    finally:
        root.removeHandler(log)
        root.setLevel(level)
        await bot.stop()
    assert "replaced" in fc.kinds(tid)
    assert watch.checked.get("hand", 0) > 20
    assert not watch.problems, "\n".join(watch.problems[:10])
