"""The table's reducer (`Table.apply`) on its own: what it refuses, even when the
service's checks before it were bypassed, and gaps mutation testing of `bot.table`
found no test looking at.  A real store throughout; nothing waits on a timer."""

from __future__ import annotations

import copy
from collections.abc import Callable

import pytest

from bot.table import Table
from engine.actions import Give, PlayCard, decode
from engine.errors import IllegalAction
from engine.events import CardPlayed
from engine.record import replay_record

from .fakechat import CHAT, Bot, open_table, users
from .test_match import _heuristic_match
from .test_result_texts import _deal, _table


async def test_a_move_reaching_a_resigned_match_is_refused_by_the_table(bot: Bot) -> None:
    """Anna resigns while Bert's move is on its way (the clocks' re-check would drop a
    computer's; this is the reducer's own guard behind it).  The move is refused as a
    stale one is, and the finished match keeps its record as it was at the
    resignation: nothing stored after it, nothing drawn, and the closed table is not
    read back as if open; a log with such a move never replays."""
    anna, bert = (bot.player(u) for u in users(2))
    tid = await open_table(bot, "zweier", [anna, bert])
    table = bot.svc.tables[tid]
    seat = table.to_act()
    assert seat is not None
    move = {"k": "act", "seat": seat, "code": table.legal_codes()[0], "by": "ai"}
    assert (await bot.svc.resign(CHAT, anna.user)).ok
    stored = await bot.db.table_log(tid)
    assert stored[-1]["k"] == "resign"

    told = len(bot.fc.updates)
    with pytest.raises(IllegalAction):
        await bot.svc._commit(table, [move])
    assert tid not in bot.svc.tables  # not read back as if still open
    assert bot.fc.updates[told:] == []  # nor drawn again
    assert await bot.db.table_log(tid) == stored
    row = await bot.db.table_row(tid)
    assert row is not None and row.status == "finished"
    with pytest.raises(IllegalAction):
        Table.from_log(tid, [*stored, move])


async def test_a_dreier_tie_break_is_recorded_as_the_two_player_deal_it_was(
    make_bot: Callable[..., Bot],
) -> None:
    """The finished Dreier match's record names the tie-break deal's game and its two
    seats, and no other deal's: the record a player downloads replays to the result
    the chat showed (the same seeds as the tie-break test in test_match)."""
    bot, tid, _ = await _heuristic_match(make_bot, "dreier", "tb15")
    try:
        found = await bot.db.finished_game(None, tid)
        assert found is not None
        deals = found.record["deals"]
        games = [d.get("game") for d in deals]
        assert games == [None] * (len(deals) - 1) + ["zweier"], games
        assert len(deals[-1]["seats"]) == 2 and "seats" not in deals[0]
        code, _ = replay_record(found.record)
        assert code == 0
    finally:
        await bot.stop()


def _act(table: Table, by: str, code: int | None = None) -> None:
    """A move of the seat to act (its first legal one unless `code`), made by `by`:
    "p" the person, "t" the computer when his time ran out, "o" the rest of that turn."""
    seat = table.to_act()
    assert seat is not None
    code = table.legal_codes()[0] if code is None else code
    table.apply({"k": "act", "seat": seat, "code": code, "by": by})


def test_thousand_gifts_that_ran_out_are_one_missed_turn() -> None:
    """The declarer's time runs out as he is to give his two cards: the computer gives
    them, raises or not and leads for him, and that is one missed turn, with no clock
    of his between (`playing_out`); three missed turns for one turn took his seat."""
    table = _table("tausend", 3)
    _deal(table, 0)
    assert table.deal_log is not None
    while not any(isinstance(decode(c), Give) for c in table.legal_codes()):
        _act(table, "p", table.legal_codes()[-1])
    declarer = table.to_act()
    assert declarer is not None
    _act(table, "t")
    steps = 1
    while table.playing_out == declarer:
        assert table.to_act() == declarer
        _act(table, "o")
        steps += 1
    s = table.seats[declarer]
    assert s is not None and s.missed == 1
    assert steps == 4  # two gifts, the raise or not, the first card
    assert isinstance(table.deal_log.actions[-1][1], PlayCard)
    assert table.to_act() != declarer


def test_a_trick_won_on_a_timed_out_card_leaves_the_next_lead_to_him() -> None:
    """His time ran out on the second card of a trick, and that card won it: the next
    trick is his own turn, with his clock, not played for him too."""
    table = _table("zweier", 2)
    _deal(table, 0)
    found, timed_out = None, -1
    while found is None:
        seat = table.to_act()
        assert seat is not None and table.deal is not None, "no trick won by its second card"
        second = bool(table.deal.view(0).trick)
        for code in table.legal_codes() if second else ():
            trial = copy.deepcopy(table)
            _act(trial, "t", code)
            if trial.to_act() == seat:  # the second card of a trick, and it wins
                found, timed_out = trial, seat
                break
        _act(table, "p")
    assert found.deal_log is not None
    assert isinstance(found.deal_log.actions[-1][1], PlayCard)
    assert found.playing_out is None
    s = found.seats[timed_out]
    assert s is not None and s.missed == 1


@pytest.mark.parametrize("n", [2, 4])
async def test_a_thousand_table_has_a_seat_for_each_player_its_option_sets(
    bot: Bot, n: int
) -> None:
    """Thousand's `players` option, not the game's usual three, is the number of
    seats: two people fill a two-player table and start it, with no computer at a
    third seat that would sit out every deal; four people all find a seat, and every
    seat is dealt in (the four-player dealer sits out inside the deal)."""
    players = [bot.player(u) for u in users(n)]
    tid = await open_table(bot, "tausend", players, options={"tausend.players": n})
    table = bot.svc.tables[tid]
    assert [s.user if s is not None else None for s in table.seats] == [p.key for p in players]
    assert table.deal_log is not None and table.deal_log.spec.seats == tuple(range(n))


async def test_a_move_s_update_carries_what_it_did_for_everyone(bot: Bot) -> None:
    """The update each move sends the adapters carries the public events it caused
    (`TableUpdate.events`): every card played is there.  Were they lost on the way
    from the table's reducer, the leak checks over them (test_leaks) would pass
    without looking at anything."""
    players = [bot.player(u) for u in users(2)]
    tid = await open_table(bot, "zweier", players)
    told = len(bot.fc.updates)
    for _ in range(6):
        for p in players:
            await p.take_turn(tid)
    log = bot.svc.tables[tid].deal_log
    assert log is not None
    played = [a.card for _, a in log.actions if isinstance(a, PlayCard)]
    events = [e for u in bot.fc.updates[told:] for e in u.events if isinstance(e, CardPlayed)]
    assert len(played) >= 4 and [e.card for e in events] == played
