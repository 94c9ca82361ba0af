"""What the results audit found, as a chat sees it: who walked away and who won, which
matches move ratings, the board's counts after an opponent's /forgetme, whose
contracts /stats counts, and the order of its games."""

from __future__ import annotations

import asyncio
import random
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from openskill.models import PlackettLuce

from bot import results as R
from bot.boards import leaderboard_text, stats_text
from bot.service import Timings
from bot.store import Store
from bot.table import Status, Table
from bot.views import match_summary_text
from engine.actions import Action, Bid, Discard, Give, Pass, Raise, Redeal, decode
from engine.cards import Card
from engine.match import Match

from .conftest import WALK
from .fakechat import (
    CHAT,
    Bot,
    Player,
    gathered,
    open_bauern_partners,
    open_table,
    play_out,
    run_out,
    seeds,
    users,
)
from .policies import finisher, heuristic
from .test_board_and_settings import until_replaced
from .test_expert_views import play_until


def _finals(bot: Bot) -> list[str]:
    """The match summaries the chat is shown, as they come."""
    return gathered(
        bot, lambda u: u.result.message.text if u.kind == "finished" and u.result else None
    )


async def _results(bot: Bot, tid: str) -> dict[str, tuple[int, int]]:
    """player -> (won, has a Bummerl) as stored for a match."""
    rows = await bot.store.fetchall(  # type: ignore[union-attr]
        "SELECT player, won, bummerl > 0 FROM results WHERE table_id = ?", (tid,)
    )
    return {p: (won, bummerl) for p, won, bummerl in rows}


async def _ratings(bot: Bot) -> list[tuple[str, str, int]]:
    rows = await bot.store.fetchall(  # type: ignore[union-attr]
        "SELECT scope, player, games FROM ratings ORDER BY scope, player"
    )
    return [(scope, player, games) for scope, player, games in rows]


# --- walking away ------------------------------------------------------------------------


async def test_when_one_of_each_bauern_pair_walks_away_both_sides_lose(
    make_bot: Callable[..., Bot],
) -> None:
    """Anna (team 1) and Bert (team 2) stop pressing, their partners Cilli and Done
    play the match out.  Each side has one who walked away while people still play:
    both sides lose, nobody is credited with what the computer made of his cards, and
    as neither beat the other no rating moves.  The summary says the same."""
    bot = await make_bot(timings=WALK, ai_level="heuristic").start()
    try:
        anna, bert, cilli, done = (bot.player(u) for u in users(4))
        finals = _finals(bot)
        tid = await open_table(bot, "bauern", [anna, bert, cilli, done])
        await play_out(bot.fc, tid, [cilli, done], walkers=[anna, bert])
        assert bot.fc.kinds(tid)[-1] == "finished"
        [final] = finals
        assert "so their side loses): Anna, Bert" in final
        assert "Winner" not in final, final
        # every side has a Bummerl at least, as every side lost, each named once
        took = next(x for x in final.splitlines() if x.startswith("Bummerl: "))
        one = r"(1|2 \(Schneider\))"
        assert re.fullmatch(f"Bummerl: Anna & Cilli: {one} · Bert & Done: {one}", took), took
        assert await _results(bot, tid) == {pl.key: (0, 1) for pl in (anna, bert, cilli, done)}
        assert await _ratings(bot) == []
        store = bot.store
        assert store is not None
        board = await leaderboard_text(store, CHAT.key, "en", games=["bauern"])
        assert board.endswith("No rated games yet: only matches against other people count.")
    finally:
        await bot.stop()


async def test_a_partner_who_stayed_closes_the_table_without_it_counting(
    make_bot: Callable[..., Bot],
) -> None:
    """Anna and Bert are partners against two computers; Anna walks away.  Closing
    the table then is the plain abort it always was: counting it against those who
    walked out would be Bert's loss too, whose side has one (`Table.walked_out`)."""
    bot = await make_bot(timings=WALK, ai_level="heuristic").start()
    try:
        a, b = users(2)
        anna, bert = bot.player(a), bot.player(b, heuristic)
        tid = await open_bauern_partners(bot, anna, bert)
        await until_replaced(bot, tid, anna, bert)
        table = bot.svc.tables[tid]
        assert not table.walked_out()
        out = await bot.svc.abort(CHAT, bert.user)
        assert out.ok and out.code != "ended" and bot.fc.kinds(tid)[-1] == "aborted", out
        assert await _results(bot, tid) == {}
    finally:
        await bot.stop()


async def test_a_partner_who_walked_away_loses_the_match_for_his_side(
    make_bot: Callable[..., Bot],
) -> None:
    """Anna and Bert are partners against two computers; Anna walks away, Bert plays
    on, and by the cards their side wins.  Her side loses, like a resignation,
    whatever the computer made of her cards: neither is recorded a winner, and the
    summary names the computers."""
    bot = await make_bot(timings=WALK, ai_level="heuristic", seed_source=seeds("pb2")).start()
    try:
        a, b = users(2)
        anna, bert = bot.player(a), bot.player(b, heuristic)
        finals = _finals(bot)
        for _ in range(5):  # matches, until the cards give the Bummerl to the computers
            tid = await open_bauern_partners(bot, anna, bert)
            table = bot.svc.tables[tid]
            await play_out(bot.fc, tid, [bert], walkers=[anna])
            assert table.match is not None and bot.fc.kinds(tid)[-1] == "finished"
            if table.match.summary()["bummerl"][1]:
                break
        else:
            raise AssertionError("the computers never lost by the cards")
        final = finals[-1]
        assert "so their side loses): Anna\n" in final
        assert final.rstrip().endswith("Winner: Computer 1, Computer 2"), final
        assert await _results(bot, tid) == {anna.key: (0, 1), bert.key: (0, 1)}
        store = bot.store
        assert store is not None
        for pl, name in ((anna, "Anna"), (bert, "Bert")):
            text = await stats_text(store, pl.key, name, CHAT.key, "en")
            assert "0 won" in text and "Bummerl received" in text, text
            assert f"{len(finals)} played, 0 won" in text, text
    finally:
        await bot.stop()


# --- ratings compare people only ------------------------------------------------------


async def test_two_friends_who_both_beat_the_computer_gain_no_rating(
    make_bot: Callable[..., Bot],
) -> None:
    """Anna and Bert play Dreier with a weak computer, which takes the Bummerl: both
    won, but neither beat the other, and beating a computer cannot be farmed: no
    rating moves and the board has no rated game.  /stats counts the wins."""
    bot = await make_bot(ai_level="random").start()
    try:
        anna, bert = (bot.player(u, heuristic) for u in users(2))
        for _ in range(10):  # matches, until the computer takes the Bummerl
            tid = await open_table(bot, "dreier", [anna, bert])
            await play_out(bot.fc, tid, [anna, bert])
            if await _results(bot, tid) == {anna.key: (1, 0), bert.key: (1, 0)}:
                break
        else:
            raise AssertionError("the computer never took the Bummerl")
        store = bot.store
        assert store is not None
        assert await _ratings(bot) == []
        board = await leaderboard_text(store, CHAT.key, "en", games=["dreier"])
        assert board.endswith("No rated games yet: only matches against other people count.")
        stats = await stats_text(store, anna.key, "Anna", CHAT.key, "en")
        assert "not rated" in stats
    finally:
        await bot.stop()


async def test_a_computer_at_the_table_takes_no_part_in_the_rating(bot: Bot) -> None:
    """Anna, Bert and a computer at Dreier; Bert resigns.  Anna beat Bert, and that
    is all the rating learns: the same update as a match of the two alone, not one
    where a computer of the default rating also finished level with Anna."""
    anna, bert = users(2)
    await open_table(bot, "dreier", [bot.player(anna), bot.player(bert)])
    assert (await bot.svc.resign(CHAT, bert)).ok
    model = PlackettLuce()
    [[won], [lost]] = model.rate([[model.rating()], [model.rating()]], ranks=[0, 1])
    store = bot.store
    assert store is not None
    for scope in ("global", CHAT.key):
        board = await R.leaderboard(store, "dreier", scope)
        assert [(e.name, e.won, e.games) for e in board] == [("Anna", 1, 1), ("Bert", 0, 1)]
        assert [(round(e.mu, 6), round(e.sigma, 6)) for e in board] == [
            (round(won.mu, 6), round(won.sigma, 6)),
            (round(lost.mu, 6), round(lost.sigma, 6)),
        ]


# --- the board after an opponent's /forgetme ----------------------------------------------


async def _conceded(bot: Bot, winner: Player, loser: Player) -> None:
    await open_table(bot, "zweier", [winner, loser])
    assert (await bot.svc.resign(CHAT, loser.user)).ok


async def test_an_opponents_forgetme_leaves_the_board_rows_of_the_others(bot: Bot) -> None:
    """Anna beat Bert twice and Cilli once; Bert deletes his data.  Anna's rating still
    stands on three matches, and her board row still says so (it said 1/1 won)."""
    anna, bert, cilli = (bot.player(u) for u in users(3))
    await _conceded(bot, anna, bert)
    await _conceded(bot, anna, bert)
    await _conceded(bot, anna, cilli)
    assert (await bot.svc.forget(bert.user)).ok
    store = bot.store
    assert store is not None
    for scope in (CHAT.key, "global"):
        text = await leaderboard_text(store, scope, "en", games=["zweier"])
        assert text.splitlines()[1:] == [
            "1. Anna — rating 8.8, 3/3 won, 0 Bummerl",
            "2. Cilli — rating -1.4, 0/1 won, 2 Bummerl",  # conceded at nil: Schneider
        ], text
    assert ("global", anna.key, 3) in await _ratings(bot)


async def test_a_database_from_before_the_rated_marks_keeps_its_board(tmp_path: Path) -> None:
    """A database of schema 7 (no marks of the rated matches) is upgraded: the board
    counts the matches it counted before (people on two sides), and from then on an
    opponent's /forgetme takes none of them off."""
    path = tmp_path / "old.sqlite3"
    await (await Store(path).open()).close()
    with sqlite3.connect(path) as db:
        db.execute("DROP TABLE rated_results")
        result = "INSERT INTO results VALUES (?, 'tg:-1001', 'zweier', ?, ?, ?, ?, 0, 0, 1.0)"
        db.execute(result, ("met", "tg:100", 0, 1, 0))  # Anna beat Bert
        db.execute(result, ("met", "tg:101", 1, 0, 1))
        db.execute(result, ("alone", "tg:100", 0, 1, 0))  # Anna beat a computer
        rating = "INSERT INTO ratings VALUES (?, 'zweier', ?, ?, 8.0, 1)"
        for scope in ("global", "tg:-1001"):
            db.execute(rating, (scope, "tg:100", 28.0))
            db.execute(rating, (scope, "tg:101", 22.0))
        db.execute("PRAGMA user_version=7")
    db.close()
    store = await Store(path).open()
    try:
        board = await R.leaderboard(store, "zweier", "tg:-1001")
        assert [(e.player, e.won, e.games) for e in board] == [
            ("tg:100", 1, 1),
            ("tg:101", 0, 1),
        ]
        await store.write(ops=await R.forget_ops(store, "tg:101"))
        board = await R.leaderboard(store, "zweier", "global")
        assert [(e.player, e.won, e.games) for e in board] == [("tg:100", 1, 1)]
    finally:
        await store.close()


# --- /stats -------------------------------------------------------------------------------


async def test_stats_do_not_credit_contracts_the_computer_declared_for_one(
    make_bot: Callable[..., Bot],
) -> None:
    """Anna never presses at a Dreier table: the computer takes her seat and declares
    for it.  Those contracts are not hers: her /stats shows none.  Bert and Cilli, who
    declared their own, have theirs."""
    bot = await make_bot(timings=WALK, ai_level="heuristic").start()
    try:
        anna, bert, cilli = (bot.player(u, heuristic) for u in users(3))
        for _ in range(5):  # matches, until the computer declared in Anna's seat
            tid = await open_table(bot, "dreier", [anna, bert, cilli])
            table = bot.svc.tables[tid]
            await play_out(bot.fc, tid, [bert, cilli], walkers=[anna])
            assert table.match is not None and bot.fc.kinds(tid)[-1] == "finished"
            declared = [
                table.deals[k].spec.seats[r.declarer]
                for k, r in enumerate(table.match.results)
                if r.contract and r.declarer is not None
            ]
            if table.seat_of(anna.key) in declared:
                break
        else:
            raise AssertionError("the computer never declared in Anna's seat")
        store = bot.store
        assert store is not None
        text = await stats_text(store, anna.key, "Anna", CHAT.key, "en")
        assert "contracts" not in text, text
        # the contracts of this match counted: those Bert and Cilli declared
        theirs = [
            s.user
            for seat in declared
            if (s := table.seats[seat]) is not None and s.user in (bert.key, cilli.key)
        ]
        rows = await store.fetchall("SELECT player FROM contracts WHERE table_id = ?", (tid,))
        assert sorted(p for (p,) in rows) == sorted(theirs)
    finally:
        await bot.stop()


async def _deals_until(
    bot: Bot, tid: str, deals: int, players: list[Player], walker: Player | None = None
) -> None:
    """The players press until `deals` deals of the match are scored; the turns of
    `walker` run out at once (the computer moves for him)."""
    table = bot.svc.tables[tid]
    end = asyncio.get_running_loop().time() + 30  # a hang's bound, not the deal's
    while tid in bot.svc.tables and len(table.deal_points) < deals:
        assert asyncio.get_running_loop().time() < end, "the deal never ended"
        if walker is None or not run_out(bot.svc, tid, walker):
            for p in players:
                # its turn at the table, not only on a hand message the computer overtook
                if table.to_act() == table.seat_of(p.key) and await p.take_turn(tid):
                    break
        await asyncio.sleep(0.01)


async def test_stats_do_not_credit_a_contract_the_computer_declared_before_one_came_back(
    make_bot: Callable[..., Bot],
) -> None:
    """Anna's time runs out at each of her turns of a Dreier match's second deal: the
    computer moves for her.  Then she presses herself again, and Bert resigns.  The
    contract the computer declared in her seat is not hers although her seat looks
    like hers at the end (who declared is what the log says, not how the seat ended);
    every other contract counts for its declarer, made or failed as it went."""
    patient = Timings(
        turn_timeout=30.0,
        reminder_before=10.0,
        missed_turns_limit=100,  # the computer never takes her seat for good
        ai_delay=0.0,
        lobby_expiry=600.0,
    )
    bot = await make_bot(timings=patient, ai_level="heuristic").start()
    try:
        anna, bert, cilli = (bot.player(u, heuristic) for u in users(3))
        for _ in range(10):  # matches, until the computer declared in Anna's second deal
            tid = await open_table(bot, "dreier", [anna, bert, cilli])
            table = bot.svc.tables[tid]
            assert table.match is not None
            await _deals_until(bot, tid, 1, [anna, bert, cilli])
            if tid in bot.svc.tables:
                await _deals_until(bot, tid, 2, [bert, cilli], walker=anna)
            if tid not in bot.svc.tables:
                continue  # a match over in its first deals
            r = table.match.results[1]
            seats = table.deals[1].spec.seats
            if (
                r.contract
                and r.declarer is not None
                and seats[r.declarer] == table.seat_of(anna.key)
            ):
                break
            assert (await bot.svc.resign(CHAT, bert.user)).ok
        else:
            raise AssertionError("the computer never declared in Anna's second deal")
        await _deals_until(bot, tid, 3, [anna, bert, cilli])  # she is back
        seat = table.seats[table.seat_of(anna.key) or 0]
        assert seat is not None and seat.missed == 0 and seat.ai is None
        if tid in bot.svc.tables:  # else the match ended with that deal
            assert (await bot.svc.resign(CHAT, bert.user)).ok
        store = bot.store
        assert store is not None
        rows = await store.fetchall(
            "SELECT deal, player, contract, made FROM contracts WHERE table_id = ?", (tid,)
        )
        owners = [table.seats[i] for i in range(3)]
        expected = [
            (k, owner.user, r.contract, int(r.declarer in r.winners))
            for k, r in enumerate(table.match.results)
            if k != 1
            and r.contract is not None
            and r.declarer is not None
            and (owner := owners[table.deals[k].spec.seats[r.declarer]]) is not None
        ]
        assert sorted(rows) == sorted(expected), (rows, table.match.results)
    finally:
        await bot.stop()


async def test_a_thousand_redeal_is_no_failed_contract_in_stats(bot: Bot) -> None:
    """A Thousand deal redealt after the bidding (two 9s in the stock) counts for
    nothing (RULES.md §5): the declarer's /stats must not show it as a contract he
    failed."""

    def claims(table: Table, seat: int, codes: list[int], rng: random.Random) -> int:
        assert table.deal is not None
        acts = {c: decode(c, table.deal.contracts) for c in codes}
        return next((c for c, a in acts.items() if isinstance(a, Redeal)), None) or finisher(
            table, seat, codes, rng
        )

    def redealt(match: Any) -> list[int]:
        return [
            k
            for k, r in enumerate(match.results)
            if r.reason == "redeal" and r.declarer is not None
        ]

    players = [bot.player(u, claims) for u in users(3)]
    for _ in range(5):  # matches, until a settled declarer claims a redeal
        tid = await open_table(bot, "tausend", players)
        running = bot.svc.tables[tid].match
        assert running is not None
        match: Match = running

        def redeal_seen(m: Match = match) -> bool:
            return bool(redealt(m))

        await play_until(bot, tid, players, redeal_seen)
        if tid in bot.svc.tables:
            break
    else:
        raise AssertionError("no redeal after the bidding in five matches")
    [k, *_] = redealt(match)
    assert (await bot.svc.resign(CHAT, players[0].user)).ok
    assert bot.store is not None
    rows = await bot.store.fetchall("SELECT deal FROM contracts WHERE table_id = ?", (tid,))
    # every deal played out is a contract its declarer made or failed; the redeal is not
    played = [j for j, r in enumerate(match.results) if r.reason in ("made", "failed")]
    assert sorted(d for (d,) in rows) == played and k not in played, (k, rows)


def test_a_contract_is_credited_by_the_move_that_last_fixed_it() -> None:
    """/stats credits a contract to a person only if he made its declaring move himself
    (the computer may have made others of his moves after his time ran out).  That is
    the move that last fixed the contract: a Thousand declarer's raise above his bid,
    or a Dreier declarer's higher contract named with his discard.  Keeping the bid
    (a raise to the same value, a discard naming nothing) leaves it his winning bid,
    and a deal everybody passed was left to forehand by his pass."""
    two = Card.parse("9H 9D")
    Moves = list[tuple[int, Action]]
    auction: Moves = [(0, Bid(value=100)), (1, Bid(value=110)), (2, Pass()), (0, Pass())]
    gave: Moves = [(1, Give(two[0], 0)), (1, Give(two[1], 2))]
    assert R._declaring_move([*auction, *gave, (1, Raise(110))], 1) == 1
    assert R._declaring_move([*auction, *gave, (1, Raise(130))], 1) == 6
    dreier: Moves = [(1, Pass()), (2, Bid(contract="normal")), (0, Pass()), (1, Pass())]
    assert R._declaring_move([*dreier, (2, Discard(two))], 2) == 1
    assert R._declaring_move([*dreier, (2, Discard(two, "schnapser"))], 2) == 4
    all_passed: Moves = [(1, Pass()), (2, Pass()), (0, Pass()), (1, Discard(two))]
    assert R._declaring_move(all_passed, 1) == 0


async def test_stats_list_the_games_in_the_boards_order(bot: Bot) -> None:
    """/stats names the games in the order the boards and /rules do (Schnapsen for
    two first), not by their ids' alphabet (bauern, dreier, ..., zweier)."""
    anna = users(1)[0]
    for game in ("tausend", "zweier", "bauern"):
        await open_table(bot, game, [bot.player(anna)])
        assert (await bot.svc.resign(CHAT, anna)).ok
    store = bot.store
    assert store is not None
    text = await stats_text(store, anna.key, "Anna", CHAT.key, "en")
    assert [line.split(":")[0] for line in text.splitlines()[1:]] == [
        "Schnapsen (2 players)",
        "Bauernschnapsen (4 players)",
        "Thousand (Russian Schnapsen)",
    ], text


@pytest.mark.parametrize("walked", [True, False])
async def test_a_thousand_won_by_the_computer_for_one_who_walked_away_is_not_his(
    bot: Bot, walked: bool
) -> None:
    """Anna walked away at Thousand and the computer in her seat reached 1000.  The
    results count her side as lost (`standings`); the summary must say the same,
    not "Anna reaches 1000 and wins" above a Winner line naming the others.  Had
    she played it herself, the line naming her is the whole verdict: no Winner line
    repeats it."""
    anna, bert = (bot.player(u) for u in users(2))
    tid = await open_table(bot, "tausend", [anna, bert])
    table = bot.svc.tables[tid]
    seat = table.seat_of(anna.key)
    assert seat is not None and table.match is not None
    s = table.seats[seat]
    assert s is not None
    if walked:
        s.ai = "strong"  # she walked away
    match: Any = table.match
    match.scores[seat] = 1000
    match.winner, match.finished = seat, True
    table.status = Status.FINISHED
    text = match_summary_text(table, bot.svc.style_for(tid))
    if not walked:
        assert "Anna reaches 1000 and wins." in text.splitlines(), text
        assert not any(x.startswith("Winner") for x in text.splitlines()), text
        return
    assert "Anna reaches 1000 and wins." not in text, text
    assert "Anna's seat reaches 1000, played by the computer" in text, text
    won = [st.seat for st in R.standings(table) if st.won]
    assert seat not in won
    winners = next(x for x in text.splitlines() if x.startswith("Winner: "))
    assert "Anna" not in winners and "Bert" in winners, text


async def test_forgetme_in_the_middle_of_a_match_is_leaving_it(bot: Bot) -> None:
    """Bert is losing and, instead of resigning, deletes his data: his seat plays on
    as the computer.  Had the computer then won, Anna's /stats would show a lost
    match and a Bummerl for a match Bert walked out of.  Leaving by /forgetme is
    leaving: Anna wins, whatever the computer makes of Bert's seat."""
    anna, bert = (bot.player(u) for u in users(2))
    tid = await open_table(bot, "zweier", [anna, bert])
    for _ in range(3):
        for p in (anna, bert):
            await p.take_turn(tid)
    assert (await bot.svc.forget(bert.user)).ok
    table = bot.svc.tables[tid]
    await play_out(bot.fc, tid, [anna])
    assert table.status == Status.FINISHED
    [row] = [r for r in R.standings(table) if r.player == anna.key]
    assert row.won and row.bummerl == 0, R.standings(table)
    # and had the computer taken the match from her in Bert's seat:
    assert table.match is not None
    seat = next(i for i, s in enumerate(table.seats) if s is not None and s.user == anna.key)
    scores, bummerl = [7, 7], [0, 0]
    scores[seat], bummerl[seat] = 3, 1
    table.match.summary = lambda: {"scores": scores, "bummerl": bummerl}  # type: ignore[method-assign]
    [row] = [r for r in R.standings(table) if r.player == anna.key]
    assert row.won and row.bummerl == 0, R.standings(table)
    store = bot.store
    assert store is not None
    rows = await store.fetchall(
        "SELECT player, won, bummerl FROM results WHERE table_id = ?", (tid,)
    )
    assert rows == [(anna.key, 1, 0)], rows


async def test_a_thousand_resignation_leaves_one_winner_by_the_scores(bot: Bot) -> None:
    """Thousand has one winner, the first to 1000.  When Cilli resigns after a deal,
    the best score of those who stayed wins; the other stayer lost (however far
    behind he was, he is no winner), placed ahead of Cilli."""
    anna, bert, cilli = (bot.player(u, heuristic) for u in users(3))
    tid = await open_table(bot, "tausend", [anna, bert, cilli])
    table = bot.svc.tables[tid]
    await play_until(bot, tid, [anna, bert, cilli], lambda: bool(table.deal_points))
    assert (await bot.svc.resign(CHAT, cilli.user)).ok
    rows = {r.player: r for r in R.standings(table)}
    stay = [rows[p.key] for p in (anna, bert)]
    best = max(r.score for r in stay)
    assert [r.won for r in stay] == [r.score == best for r in stay], rows
    assert not rows[cilli.key].won
    assert all(rows[cilli.key].place > r.place for r in stay), rows
    if stay[0].score != stay[1].score:  # one winner, one loser among those who stayed
        assert sorted(r.place for r in stay) == [0, 1], rows
