"""When a turn rings (`bot.turn_pings`), on a clock the test moves."""

from __future__ import annotations

from bot.turn_pings import TurnPings

KEY = ("t1", "tg:1")


def test_a_turn_rings_only_after_a_wait_and_never_for_a_new_hand() -> None:
    now = [0.0]
    pings = TurnPings(8.0, clock=lambda: now[0])
    assert pings.shown(KEY, True, new=True) is None  # the deal's new hand rings itself
    now[0] = 2.0
    assert pings.shown(KEY, False, new=False) == "unping"  # he moved
    now[0] = 5.0  # the computer answered in 3 s: he is watching
    assert pings.shown(KEY, True, new=False) is None
    assert pings.shown(KEY, True, new=False) is None  # still his turn: nothing new
    assert pings.shown(KEY, False, new=False) == "unping"
    now[0] = 20.0  # two people thought for 15 s
    assert pings.shown(KEY, True, new=False) == "ping"
    pings.forget("t1")
    now[0] = 40.0
    assert pings.shown(KEY, True, new=False) is None  # a closed table's past is gone


def test_the_ping_says_which_table_and_how_long() -> None:
    pings = TurnPings()
    assert pings.text("en", "t1", 42) == "Your turn at table t1 (42 s)."
    assert pings.text("de", "t1", 0) == "Du bist dran am Tisch t1."


def test_the_first_turn_of_a_deal_after_the_move_that_ended_the_last_does_not_ring() -> None:
    """His move ended the deal (no hand showed his turn ending); 2 s later the next
    deal's first turn is his: he has just moved, it must not ring."""
    now = [0.0]
    pings = TurnPings(8.0, clock=lambda: now[0])
    pings.shown(KEY, True, new=True)
    now[0] = 1.0
    pings.shown(KEY, False, new=False)
    now[0] = 30.0
    assert pings.shown(KEY, True, new=False) == "ping"  # his turn, after a long wait
    now[0] = 31.0
    pings.new_hands("t1")  # his card ended the deal; the next one's hands are new
    assert pings.shown(KEY, False, new=True) is None
    now[0] = 33.0
    assert pings.shown(KEY, True, new=False) is None


def test_a_new_hand_that_could_not_be_sent_rings_only_after_a_wait() -> None:
    """A new hand rings by itself; one that could not be sent (closed DMs) leaves the
    adapter to ring, by the same 8 s rule."""
    now = [0.0]
    pings = TurnPings(8.0, clock=lambda: now[0])
    assert not pings.waited(KEY)  # the first deal: he has just pressed Start
    pings.shown(KEY, True, new=True)
    now[0] = 1.0
    pings.shown(KEY, False, new=False)
    now[0] = 5.0
    assert not pings.waited(KEY)
    now[0] = 9.0
    assert pings.waited(KEY)
