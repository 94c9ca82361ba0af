"""What a deal's result says, checked deal by deal on tables built from their log in
memory (no bot, no store): fast enough to read hundreds of results, so the rare ones
come up too (a talon closed before the opponent took a trick, a tie-break).  Each
expectation is taken from the play itself, not from the text under test."""

from __future__ import annotations

import hashlib
import random
from typing import Any

import pytest

from bot.i18n import cards_text, contract_name
from bot.table import Status, Table
from bot.views.faces import Style
from bot.views.result import deal_result_view
from bot.views.table import table_view
from engine import protocol as P
from engine.actions import Claim, CloseTalon, Double, Pass, PlayCard, Redeal, decode
from engine.results import DealResult

from .fakechat import users


def _table(game_id: str, n: int, options: dict[str, Any] | None = None) -> Table:
    """A started table of `n` people (Anna, Bert, …), as its log makes it."""
    table = Table(
        "t1",
        {
            "k": "create",
            "chat": "tg:-1",
            "platform": "tg",
            "game": game_id,
            "host": users(1)[0].key,
            "options": options or {},
        },
    )
    for seat, user in enumerate(users(n)):
        table.apply({"k": "join", "seat": seat, "user": user.key, "name": user.name})
    table.apply({"k": "start", "dealer": 0})
    return table


def _deal(table: Table, k: int) -> None:
    """Deal number `k`'s cards (each `k` its own seed)."""
    table.apply({"k": "deal", "seed": hashlib.sha256(str(k).encode()).hexdigest()[:32]})


def _move(
    table: Table, rng: random.Random, passing: bool = False, doubling: bool = False
) -> tuple[int, object]:
    """A random legal move of the seat to act, applied; its match seat and action.
    `passing`: a pass where one may pass, so that a normal game is played;
    `doubling`: a Kontra or Re where one may double, and a redeal where one may ask."""
    assert table.deal is not None
    seat = table.to_act()
    assert seat is not None
    codes = table.legal_codes()
    kinds = [type(decode(c, table.deal.contracts)) for c in codes]
    doubles = [c for c, kind in zip(codes, kinds, strict=True) if kind in (Double, Redeal)]
    passes = [c for c, kind in zip(codes, kinds, strict=True) if kind is Pass]
    if doubling and doubles:
        passes = doubles
    code = rng.choice(passes if (passing or doubling) and passes else codes)
    action = decode(code, table.deal.contracts)
    table.apply({"k": "act", "seat": seat, "code": code})
    return seat, action


def _result(table: Table) -> tuple[DealResult, list[str]]:
    assert table.deal is not None
    res = P.result(table.deal)
    view = deal_result_view(table, Style())
    assert res is not None and view is not None
    return res, view.message.text.splitlines()


_ZWEIER_CASES = {
    "margin",
    "closed margin",
    "wrong claim",
    "closed by 0, no trick",
    "closed by 1, no trick",
    "closed by 0, points",
    "closed by 1, points",
}


def test_a_zweier_result_says_who_closed_the_talon_and_counts_the_margin_from_then() -> None:
    """A closed deal is scored from the closing (RULES.md §2): the result names the
    closer and what his opponent had then (no trick, or his points), and a Schneider
    or Schwarz is one "at the closing"; a deal played out names its margin as such.
    A claim of 66 that proved wrong names the one who made it instead."""
    seen: set[str] = set()
    names = [u.name for u in users(2)]
    for k in range(300):
        table = _table("zweier", 2, {"auto_claim": k % 2 == 0})  # claims by hand, at times
        _deal(table, k)
        rng = random.Random(k)
        closing: tuple[int, int, int] | None = None  # closer, other's points, tricks
        last: tuple[int, object] = (0, None)
        while not table.deal_points:
            assert table.deal is not None
            before = table.deal.view(None)
            last = _move(table, rng)
            if isinstance(last[1], CloseTalon):
                other = 1 - last[0]
                closing = (last[0], before.points[other], before.tricks_won[other])
        res, lines = _result(table)
        first = lines[0]
        gained = max(res.points)
        margin = {2: "Schneider", 3: "Schwarz"}.get(gained) if res.reason == "reached_66" else None
        if margin is None:
            assert "Schneider" not in first and "Schwarz" not in first, first
        elif closing is not None:
            assert first.endswith(f", {margin} at the closing)"), first
            seen.add("closed margin")
        else:
            assert f"(66 reached, {margin}: the losing side" in first, first
            seen.add("margin")
        # every Zweier deal ends for its points, which the result names; only a
        # tie-break has a Bummerl of its own to say
        assert "Points: Anna: {} · Bert: {}".format(*res.card_points) in lines, lines
        assert not any(x.startswith("Tie-break") for x in lines), lines
        assert ("claimed 66 without having it" in first) == (res.reason == "wrong_claim")
        seat, action = last
        claimed = isinstance(action, Claim) or (isinstance(action, PlayCard) and action.claim)
        if res.reason == "wrong_claim":
            assert claimed
            assert first.endswith(f"— {names[seat]} claimed 66 without having it"), first
            seen.add("wrong claim")
        said = [line for line in lines if "closed the talon" in line]
        if closing is None or res.reason == "wrong_claim":
            assert said == [], lines
            continue
        closer, points, tricks = closing
        had = "no trick yet" if not tricks else f"{points} points"
        assert said == [f"{names[closer]} closed the talon when {names[1 - closer]} had {had}."]
        seen.add(f"closed by {closer}, " + ("no trick" if not tricks else "points"))
        if seen == _ZWEIER_CASES:
            break
    assert seen == _ZWEIER_CASES


def _tie_break(k: int, options: dict[str, Any] | None = None) -> Table:
    """A Dreier match Anna won with 24, Bert and Cilli tied at 9 for the Bummerl: its
    tie-break, a deal of two (deal seats 0 and 1, match seats 1 and 2), dealt as the
    `k`-th."""
    table = _table("dreier", 3, options)
    match: Any = table.match
    match.scores, match.tie_break, match.tie_bummerl = [24, 9, 9], (1, 2), 1
    _deal(table, k)
    return table


def test_a_dreier_tie_break_result_names_its_two_players_and_the_bummerl_s_taker() -> None:
    """Bert and Cilli tied for lowest play one deal of Zweierschnapsen: its result
    gives the game points of those two only, under their names (their seats in the
    deal are 0 and 1, in the match 1 and 2), and says who won it and who takes the
    Bummerl."""
    names = [u.name for u in users(3)]
    for k in range(6):
        table = _tie_break(k)
        assert table.deal_log is not None and table.deal_log.spec.seats == (1, 2)
        rng = random.Random(k)
        while not table.deal_points:
            _move(table, rng)
        res, lines = _result(table)
        bert, cilli = res.points
        assert lines[0].startswith(f"Deal 1 (the tie-break) over: Bert: {bert} · Cilli: {cilli} (")
        assert "Points: Bert: {} · Cilli: {}".format(*res.card_points) in lines, lines
        # Anna sits it out: she is named in the match's summary only
        assert not any("Anna" in x for x in lines if not x.startswith(("Game over!", "Winner:")))
        winner = 1 + res.winners[0]
        loser = 3 - winner
        said = f"Tie-break won by {names[winner]}: {names[loser]} takes the Bummerl."
        assert said in lines, lines


def test_a_dreier_tie_break_picture_names_who_led_the_trick_and_who_is_to_act() -> None:
    """Bert and Cilli, tied for lowest, play the tie-break: the table's picture shows
    the card led to a trick under the name of the one who led it, and the turn line
    names the one to act.  Their seats in the deal are 0 and 1, their match seats 1 and
    2: read unmapped, Bert's lead would show as Anna's and Cilli's as Bert's."""
    names = [u.name for u in users(3)]
    style = Style()
    led: set[str] = set()
    for k in range(4):
        table = _tie_break(k)
        rng = random.Random(k)
        while not table.deal_points:
            seat, action = _move(table, rng)
            assert table.deal is not None
            picture = table_view(table, style).message.text.splitlines()
            to_act = table.to_act()
            if not table.deal_points:
                assert to_act is not None and f"To act: {names[to_act]}" in picture, picture
            if not isinstance(action, PlayCard) or len(table.deal.view(None).trick) != 1:
                continue
            card = cards_text([action.card], "en", style.suits)
            trick = [x for x in picture if x.startswith("Trick:")]
            assert trick == [f"Trick: {names[seat]} {card}"], picture
            led.add(names[seat])
    assert led == {"Bert", "Cilli"}


def test_the_cut_ritual_is_said_before_a_deal_of_three_not_before_the_tie_break() -> None:
    """`dreier.cut_ritual`: middlehand cuts or knocks before each Dreier deal; the
    tie-break is a deal of two, with no middlehand, so its picture says neither."""

    def cut_lines(table: Table) -> list[str]:
        picture = table_view(table, Style()).message.text.splitlines()
        return [x for x in picture if x.endswith((" cuts the pack.", " knocks: no cut."))]

    for k in range(4):
        dreier = _table("dreier", 3, {"dreier.cut_ritual": True})
        _deal(dreier, k)
        assert len(cut_lines(dreier)) == 1
        tie_break = _tie_break(k, {"dreier.cut_ritual": True})
        assert cut_lines(tie_break) == []


@pytest.mark.parametrize("doubling", [False, True])
@pytest.mark.parametrize(("game_id", "n"), [("dreier", 3), ("bauern", 4)])
def test_a_normal_game_won_by_schneider_or_schwarz_says_so(
    game_id: str, n: int, doubling: bool
) -> None:
    """A normal game won by 66 is worth 1, 2 when the losing side has under 33 points
    (Schneider), 3 when it has no trick (Schwarz): "+2" beside "66 reached" would
    look like a miscount, so the result names the margin, and only then.  A Dreier
    game without the talon is worth one more, which is no margin; nor is a doubling:
    "+16" for a doubled game (×8) is a Schneider, "+8" none."""
    seen: set[str | None] = set()
    for k in range(60):
        table = _table(game_id, n)
        _deal(table, k)
        rng = random.Random(k)
        while not table.deal_points:
            _move(table, rng, passing=True, doubling=doubling)
        res, lines = _result(table)
        if res.reason != "reached_66" or res.contract != "normal":
            continue
        assert (res.multiplier > 1) == doubling, lines[0]
        losers = [s for s in range(n) if s not in res.winners]
        if not sum(res.tricks[s] for s in losers):
            margin: str | None = "Schwarz: the losing side without a trick"
        elif sum(res.card_points[s] for s in losers) < 33:
            margin = "Schneider: the losing side under 33"
        else:
            margin = None
        said = lines[0].split(" (66 reached", 1)[1].split(")", 1)[0]
        assert said == (f", {margin}" if margin else ""), lines[0]
        seen.add(margin)
    assert len(seen) > 1, seen


@pytest.mark.parametrize("barrel", [1, 2])
def test_a_thousand_result_names_each_fine_and_the_barrel_and_what_is_rounded(barrel: int) -> None:
    """One player sits on the barrel, everyone has two bolts: a third costs 120, doubled
    in the golden round (RULES.md §5), and the result says whose and how much.  The
    points of the one on the barrel count for nothing there, so the line on rounding
    speaks of the others' points only when one of theirs is no multiple of 5.  Bert
    opens the bidding and declares (the others pass): on the barrel himself, or with
    Cilli there, whose odd points then need no rounding."""
    names = [u.name for u in users(3)]
    seen: set[str] = set()
    for k in range(40):
        golden = k % 2 == 0
        table = _table("tausend", 3, {"tausend.golden_round": golden})
        match: Any = table.match
        match.scores[barrel], match.on_barrel[barrel], match.bolts = 880, True, [2, 2, 2]
        match.climbed.append(barrel)
        _deal(table, k)
        rng = random.Random(k)
        while not table.deal_points:
            _move(table, rng, passing=True)
        res, lines = _result(table)
        if res.reason == "redeal":
            continue
        value = res.detail("value")
        assert isinstance(value, int)
        frozen = res.points[barrel] != 0 and not (res.declarer == barrel and value > 120)
        said = f"{names[barrel]} is on the barrel: only a bid above 120 counts there."
        assert (said in lines) == frozen, lines
        bolts = res.detail("bolts")
        assert isinstance(bolts, tuple)
        for seat, n in enumerate(bolts):
            fine = f"{names[seat]}: the third bolt, fined −{240 if golden else 120}."
            assert (fine in lines) == (n > 0), lines
            seen |= {f"fine{240 if golden else 120}"} if n else set()
        counted = [s for s in range(3) if s != res.declarer and not (s == barrel and frozen)]
        odd = any(res.card_points[s] % 5 for s in counted)
        rounded = "The others score their points rounded to 5 (62 → 60, 63 → 65)."
        assert (rounded in lines) == odd, lines
        seen |= {f"frozen, rounded {odd}"} if frozen else set()
        if frozen and not odd and res.card_points[barrel] % 5:
            seen.add("frozen odd points not rounded")  # a defender's, on the barrel
        if frozen and not odd and res.declarer is not None and res.card_points[res.declarer] % 5:
            seen.add("the declarer's odd points not rounded")
    assert {"fine120", "fine240", "frozen, rounded True", "frozen, rounded False"} <= seen, seen
    if barrel == 2:
        assert {"frozen odd points not rounded", "the declarer's odd points not rounded"} <= seen


def _play_out(table: Table, rng: random.Random, passing: bool = False) -> None:
    """Random legal moves until the deal under way ends."""
    k = len(table.deals)
    while len(table.deal_points) < k:
        _move(table, rng, passing)


@pytest.mark.parametrize(
    ("ending", "said"),
    [
        ({"k": "resign", "seat": 1}, "the match ended with a resignation"),
        ({"k": "end"}, "the table was closed"),
    ],
)
def test_a_deal_cut_short_by_the_match_s_end_says_so_and_only_then_gives_its_seed(
    ending: dict[str, Any], said: str
) -> None:
    """While the second deal runs there is no result, so its seed stays secret; a
    resignation or a closed table then ends the match in the middle of it: the result
    says which, gives that deal's seed (not the first's), the match's summary (for a
    closed table: that the early end counts) and the rematch button."""
    table = _table("zweier", 2)
    _deal(table, 0)
    rng = random.Random(0)
    _play_out(table, rng)
    _deal(table, 1)
    for _ in range(3):
        _move(table, rng)
    assert deal_result_view(table, Style()) is None
    table.apply(ending)
    view = deal_result_view(table, Style())
    assert view is not None
    lines = view.message.text.splitlines()
    assert lines[:2] == [
        f"Deal 2 was not played out: {said}.",
        f"Seed of deal 2: {table.deals[1].seed}",
    ], lines
    assert lines[2].startswith("Game over!"), lines
    counts = "Ended early: those still playing closed the table after the others walked away"
    assert any(x.startswith(counts) for x in lines) == (ending["k"] == "end"), lines
    assert view.seed == table.deals[1].seed != table.deals[0].seed
    assert view.rematch is not None and view.rematch.label == "Rematch"


def test_each_deal_s_result_ends_with_its_seed_and_the_last_with_the_summary_and_rematch() -> None:
    """A Zweier match played out deal by deal: every result names what each player
    scored, and its line after the points gives that deal's seed; the match's summary and the "Rematch" button come only
    under the result of the deal that ended it."""
    anna, bert = (u.name for u in users(2))
    table = _table("zweier", 2)
    rng = random.Random(1)
    over = False
    k = 0
    while not over:
        k += 1
        _deal(table, k)
        _play_out(table, rng)
        view = deal_result_view(table, Style())
        assert view is not None
        text = view.message.text
        a, b = table.deal_points[-1]
        assert text.startswith(f"Deal {k} over: {anna} {a:+d} · {bert} {b:+d} ("), text
        seed = f"\nSeed of deal {k}: {table.deals[-1].seed}"
        over = table.status == Status.FINISHED
        assert text.endswith(seed) != over, text
        assert (seed + "\nGame over! ") in text if over else "Game over!" not in text, text
        assert (view.rematch is not None) == over, k
        assert view.shown().buttons == (((view.rematch,),) if over else ()), k
    assert k > 1


def test_a_bauern_result_names_each_team_once_with_its_share() -> None:
    """Partners share what a deal gave: the first line names the two teams, each with
    its players and its points, not four seats ("+3 · +3" would read as 6)."""
    a_, b_, c_, d_ = (u.name for u in users(4))
    table = _table("bauern", 4)
    _deal(table, 0)
    _play_out(table, random.Random(0))
    res, lines = _result(table)
    a, b = res.points[0], res.points[1]
    assert res.points[2:] == (a, b)
    assert lines[0].startswith(
        f"Deal 1 over: Team 1 ({a_} & {c_}) {a:+d} · Team 2 ({b_} & {d_}) {b:+d} ("
    ), lines[0]


@pytest.mark.parametrize(
    ("game_id", "n", "options"),
    [
        ("dreier", 3, {}),
        ("bauern", 4, {}),
        ("tausend", 3, {}),
        ("tausend", 4, {"tausend.players": 4}),
    ],
)
def test_a_deal_s_points_are_named_by_the_sides_that_score_them(
    game_id: str, n: int, options: dict[str, Any]
) -> None:
    """A result's "Points:" adds up what a side scores together, so that nobody must
    add to check "66 reached": Bauern's partners as their team ("Anna & Cilli: 70"),
    Dreier's declarer against the two others together; at Thousand, where each plays
    for himself, every seat alone, with four the dealer too (who sits out with the
    stock's points), not as if partners."""
    names = [u.name for u in users(n)]
    seen = 0
    for k in range(200):
        table = _table(game_id, n, options)
        _deal(table, k)
        _play_out(table, random.Random(k), passing=k % 2 == 0)
        res, lines = _result(table)
        said = [x for x in lines if x.startswith("Points: ")]
        if not said:
            continue
        assert table.deal_log is not None
        seats, points = table.deal_log.spec.seats, res.card_points
        if game_id == "bauern":
            sides: list[tuple[int, ...]] = [(0, 2), (1, 3)]
        elif game_id == "dreier" and res.declarer is not None:
            sides = [(res.declarer,), tuple(s for s in range(3) if s != res.declarer)]
        else:
            sides = [(s,) for s in range(len(points))]
        assert len(points) == n, points
        parts = [
            " & ".join(names[seats[s]] for s in side) + f": {sum(points[s] for s in side)}"
            for side in sides
        ]
        assert said == ["Points: " + " · ".join(parts)], lines
        seen += 1
        if seen == 5:
            break
    assert seen == 5, seen


_TARGETS = {"zweier": 7, "dreier": 24, "bauern": 24, "tausend": 1000}


@pytest.mark.parametrize(
    ("game_id", "n"), [("zweier", 2), ("dreier", 3), ("bauern", 4), ("tausend", 3)]
)
def test_the_score_says_where_the_match_ends_and_its_end_who_has_bummerl_and_who_won(
    game_id: str, n: int
) -> None:
    """The table's score line names the points that end the match ("to 7", "to 24",
    Thousand's "to 1000"), or "Game over!" comes without warning; each player (Bauern:
    each team, once) has his own number after it.  The match's last result then sums
    it up the same way, with who took the Bummerl (two at nil: a Schneider) and who
    won: those without one.  Thousand, which random play never ends, is read after
    its first deal."""
    names = [u.name for u in users(n)]
    sides = [(0, 2), (1, 3)] if game_id == "bauern" else [(s,) for s in range(n)]
    who = [" & ".join(names[s] for s in side) for side in sides]
    team = [f"Team {i + 1} ({x})" for i, x in enumerate(who)] if game_id == "bauern" else who
    for m in range(2):
        table = _table(game_id, n)
        rng = random.Random(m)
        for k in range(100):
            _deal(table, k)
            _play_out(table, rng, passing=True)
            assert table.match is not None
            scores = table.match.summary()["scores"]
            said = f"Score (to {_TARGETS[game_id]}): " + " · ".join(
                f"{team[i]}: {scores[side[0]]}" for i, side in enumerate(sides)
            )
            picture = table_view(table, Style()).message.text.splitlines()
            assert said.replace("Score", "Score after this deal") in picture, picture
            if table.status == Status.FINISHED or game_id == "tausend":
                break
        if game_id == "tausend":
            continue
        assert table.status == Status.FINISHED and table.match is not None
        _, lines = _result(table)
        bummerl = [table.match.summary()["bummerl"][side[0]] for side in sides]
        took = [
            f"{name}: {b}" + (" (Schneider)" if b == 2 else "")
            for name, b in zip(who, bummerl, strict=True)
            if b
        ]
        won = [names[s] for side, b in zip(sides, bummerl, strict=True) if not b for s in side]
        assert lines[-3:] == [
            f"Game over! {said}",
            "Bummerl: " + " · ".join(took),
            "Winner: " + ", ".join(sorted(won, key=names.index)),
        ], lines


def test_a_winner_from_nil_past_two_at_23_gives_each_of_them_a_retourschneider() -> None:
    """RULES.md §3 Score: Anna and Cilli stand at 23, Bert at 0; a deal that brings
    Bert to 24 while they score nothing gives each of them 4 Bummerl, a
    Retourschneider, and the match's summary and the table's last picture say so by
    name: "4" alone would read as four matches lost."""
    for k in range(300):
        table = _table("dreier", 3)
        match: Any = table.match
        match.scores = [23, 0, 23]
        _deal(table, k)
        rng = random.Random(k)
        while not table.deal_points:
            _move(table, rng, doubling=True)
        res, lines = _result(table)
        anna, bert, cilli = res.points
        if not (bert >= 24 and anna == cilli == 0):
            continue
        said = "Bummerl: Anna: 4 (Retourschneider) · Cilli: 4 (Retourschneider)"
        assert lines[-2:] == [said, "Winner: Bert"], lines
        picture = table_view(table, Style()).message.text.splitlines()
        assert [x for x in picture if x.startswith("Bummerl")] == [said], picture
        return
    pytest.fail("no deal of 300 brought Bert from 0 to 24 alone")


@pytest.mark.parametrize("everyone", [False, True])
def test_a_match_the_computer_finished_names_who_walked_away_unless_everyone_did(
    everyone: bool,
) -> None:
    """One who walked away (the computer took his seat and finished) loses, and the
    summary says so, naming him, above a winner the scores alone would not explain.
    When the last person walked away too, nobody is left playing: the scores decide,
    so nobody is named as having walked away and the winner is the one ahead."""
    names = [u.name for u in users(2)]
    table = _table("zweier", 2)
    for seat in (0, 1) if everyone else (0,):
        table.apply({"k": "replace", "seat": seat, "level": "random"})
    rng = random.Random(0)
    for k in range(100):
        _deal(table, k)
        _play_out(table, rng)
        if table.status == Status.FINISHED:
            break
    assert table.match is not None
    scores = table.match.summary()["scores"]
    _, lines = _result(table)
    walked = [x for x in lines if x.startswith("Walked away")]
    winner = lines[-1]
    if everyone:
        assert walked == [], lines
        assert winner == f"Winner: {names[scores.index(max(scores))]}", lines
    else:
        assert walked == [
            f"Walked away (the computer finished for them, so their side loses): {names[0]}"
        ]
        assert winner == f"Winner: {names[1]}", lines


@pytest.mark.parametrize(("game_id", "n"), [("zweier", 2), ("tausend", 3)])
def test_a_resigned_match_s_last_picture_names_a_bummerl_only_where_there_are_some(
    game_id: str, n: int
) -> None:
    """Bert resigns after the first deal: the table's last picture gives him the
    Bummerl of the match he conceded, but not at Thousand, which has none (one
    player reaches 1000); a Bummerl there would be a word of another game."""
    table = _table(game_id, n)
    _deal(table, 0)
    _play_out(table, random.Random(0))
    table.apply({"k": "resign", "seat": 1})
    assert table.status == Status.FINISHED
    picture = table_view(table, Style()).message.text.splitlines()
    said = [x for x in picture if x.startswith("Bummerl")]
    assert said == ([] if game_id == "tausend" else [f"Bummerl: {users(n)[1].name}: 1"]), picture


_REDEAL_WHY = {
    "four_nines": "four 9s in the hand",
    "stock_nines": "two 9s in the stock",
    "given_nine": "four 9s with the card given",
}


@pytest.mark.parametrize(
    ("game_id", "n", "options", "cases"),
    [
        ("dreier", 3, {}, {"contract", "without talon", "doubled", "three jacks"}),
        ("bauern", 4, {}, {"contract", "doubled"}),
        ("tausend", 3, {"tausend.blind_bid": True}, {"contract", "doubled", "redeal", "bolt"}),
        ("tausend", 2, {"tausend.players": 2}, {"contract", "face-down stock", "redeal", "bolt"}),
    ],
)
def test_a_result_names_the_contract_whose_it_was_and_the_thousand_extras(
    game_id: str, n: int, options: dict[str, Any], cases: set[str]
) -> None:
    """The result is read alone, far below the bidding: after the reason it names the
    contract (at Thousand with the bid's value), "without the talon" where so bid, the
    declarer, and the doubling (Kontra, a blind bid) as "(×n)"; a Thousand redeal names
    who claimed it and for which nines instead, a Dreier one (three jacks) nothing.  At Thousand each seat without a trick
    is told of its bolt, and with two players the face-down stock's cards, points and
    taker are listed, as nowhere else."""
    names = [u.name for u in users(n)]
    seen: set[str] = set()
    for k in range(300):
        table = _table(game_id, n, options)
        _deal(table, k)
        rng = random.Random(k)
        while not table.deal_points:
            _move(table, rng, passing=k % 3 == 0, doubling=k % 3 == 1)
        res, lines = _result(table)
        assert table.deal_log is not None
        seats = table.deal_log.spec.seats
        first = lines[0]
        claimed = res.detail("redeal_by")
        if res.reason == "redeal" and claimed is None:
            # Dreier: three jacks, dealt again before any contract was made
            assert first.endswith("(redeal)"), first
            seen.add("three jacks")
        elif res.reason == "redeal":
            assert isinstance(claimed, int)
            why = _REDEAL_WHY[str(res.detail("redeal_reason"))]
            assert first.endswith(f"(redeal) — claimed by {names[seats[claimed]]}: {why}"), first
            seen.add("redeal")
        else:
            assert res.contract is not None and res.declarer is not None
            said = contract_name(res.contract, "en")
            if game_id == "tausend":
                said += f" {res.detail('value')}"
            if res.detail("without_talon"):
                said += " without the talon"
                seen.add("without talon")
            said += f" by {names[seats[res.declarer]]}"
            if res.multiplier > 1:
                said += f" (×{res.multiplier})"
                seen.add("doubled")
            assert first.endswith(f" — {said}"), (first, said)
            seen.add("contract")
        bolts = res.detail("bolts") or (0,) * n
        assert isinstance(bolts, tuple)
        for seat, b in enumerate(bolts):
            bolt = [x for x in lines if x.startswith(f"{names[seat]} took no trick: ")]
            assert bolt == ([f"{names[seat]} took no trick: a bolt."] if b else []), lines
            seen |= {"bolt"} if b else set()
        pile = res.detail("face_down_stock")
        stock = [x for x in lines if x.startswith("Face-down stock")]
        if n == 2 and res.reason != "redeal":
            assert isinstance(pile, tuple) and len(pile) == 6
            last = res.detail("last_trick")
            assert isinstance(last, int)
            cards = cards_text(pile, "en", Style().suits)
            points = sum(c.points for c in pile)
            assert stock == [
                f"Face-down stock, laid-away cards included: {cards} — {points} points"
                f" to {names[seats[last]]} (last trick)"
            ], lines
            seen.add("face-down stock")
        else:
            assert stock == [], lines
        if seen == cases:
            break
    assert seen == cases
