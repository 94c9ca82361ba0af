"""Thousand rules of RULES.md §1/§5 that no scenario record or pinned test showed:
found by auditing the engine against the contract, each on a hand-built deal played
through the public protocol (or, for the match, hand-made deal results)."""

from __future__ import annotations

from typing import Any

import pytest

from engine import protocol as P
from engine.actions import Action, Bid, Give, Pass, PlayCard, Raise, action_from_json
from engine.cards import Card, index_of
from engine.record import replay_record
from engine.results import DealResult
from engine.tausend import TausendDeal, TausendMatch, TausendOptions, start_deal
from engine.tausend.rules import PRESETS, options


def _play(seat: int, card: str, marriage: bool = False) -> dict[str, Any]:
    return {"seat": seat, "do": "play", "card": card, **({"marriage": True} if marriage else {})}


#: Dealer 0; forehand 1 declares at 100 and gives JC to 2 and 9D to 0.  After his
#: Hearts marriage seat 2 wins a trick and declares Spades: Hearts are plain again.
#:  T1 1 AH  2 9S  0 TH -> 1: 21;   T2 1 KH* (100, trumps H)  2 JS  0 JH -> 1: 8
#:  T3 1 AC  2 TC  0 9D (no C, no trump) -> 1: 21;   T4 1 9C  2 JC  0 JD -> 2: 4
#:  T5 2 KS* (40, trumps S)  0 QD  1 QH: the old trump no longer wins -> 2: 10
#:  T6 2 QS 0 KD 1 KC -> 2: 11;  T7 2 AS 0 AD 1 9H -> 2: 22;  T8 2 TS 0 TD 1 QC -> 2: 23
#:  Declarer 50 + 100 = 150 >= 100: +100.  Seat 2: 70 + his marriage 40 = 110.
#:  Seat 0: no trick, a bolt.
TWO_MARRIAGES: dict[str, Any] = {
    "dealer": 0,
    "hands": [
        ["TH", "JH", "AD", "TD", "KD", "QD", "JD"],
        ["AH", "KH", "QH", "9H", "AC", "9C", "9D"],
        ["KS", "QS", "AS", "TS", "JS", "9S", "TC"],
    ],
    "talon": ["KC", "QC", "JC"],
    "actions": [
        {"seat": 1, "do": "bid", "value": 100},
        {"seat": 2, "do": "pass"},
        {"seat": 0, "do": "pass"},
        {"seat": 1, "do": "give", "card": "JC", "to": 2},
        {"seat": 1, "do": "give", "card": "9D", "to": 0},
        {"seat": 1, "do": "raise", "value": 100},
        *(_play(1, "AH"), _play(2, "9S"), _play(0, "TH")),
        *(_play(1, "KH", True), _play(2, "JS"), _play(0, "JH")),
        *(_play(1, "AC"), _play(2, "TC"), _play(0, "9D")),
        *(_play(1, "9C"), _play(2, "JC"), _play(0, "JD")),
        *(_play(2, "KS", True), _play(0, "QD"), _play(1, "QH")),
        *(_play(2, "QS"), _play(0, "KD"), _play(1, "KC")),
        *(_play(2, "AS"), _play(0, "AD"), _play(1, "9H")),
        *(_play(2, "TS"), _play(0, "TD"), _play(1, "QC")),
    ],
}


def _replay(deal: dict[str, Any]) -> tuple[int, Any]:
    return replay_record({"game": "tausend", "deals": [deal]})


def test_a_later_marriage_replaces_the_trumps_and_an_opponents_marriage_counts() -> None:
    """RULES.md §5 Play: a marriage makes its suit trumps *replacing any earlier trump*
    (QH no longer takes KS's trick; had Hearts stayed trumps seat 1 would lead the
    sixth trick and the record would be refused there), and any player with a trick
    may declare one: seat 2's Spades 40 counts in his rounded score (70 + 40 = 110)."""
    code, answer = _replay(TWO_MARRIAGES)
    assert code == 0, answer
    assert answer["scores"] == [0, 100, 110]
    assert answer["bolts"] == [1, 0, 0]


def test_each_trick_counts_one_for_its_winner() -> None:
    """The table shows how many tricks each took, and the result keeps it: in
    TWO_MARRIAGES seat 1 takes tricks 1-3 and seat 2 tricks 4-8, seat 0 none."""
    state = _played(TWO_MARRIAGES)
    result = P.result(state)
    assert result is not None
    assert P.view(state, 0).tricks_won == result.tricks == (0, 3, 5)


def test_an_action_after_the_last_trick_is_deal_over() -> None:
    """RULES.md §1 Ending a deal: an action after the deal's end is refused with
    `deal_over` (a Thousand deal ends with its last trick)."""
    late = {**TWO_MARRIAGES, "actions": [*TWO_MARRIAGES["actions"], _play(1, "AH")]}
    code, answer = _replay(late)
    assert code == 1, answer
    assert (answer["action"], answer["error"]) == (len(TWO_MARRIAGES["actions"]), "deal_over")


def _played(deal: dict[str, Any]) -> TausendDeal:
    """`deal` (hands, talon, actions as in a record) dealt by seat 0 and played
    through the engine itself, not replayed."""
    state = start_deal(
        TausendOptions(),
        0,
        hands=[[index_of(c) for c in h] for h in deal["hands"]],
        talon=[index_of(c) for c in deal["talon"]],
    )
    for a in deal["actions"]:
        state, _ = P.apply(state, a["seat"], action_from_json(a))
    return state


def test_every_seat_sees_the_auction_in_order() -> None:
    """RULES.md §5 Bidding: the bids and passes are said aloud, so every seat's view
    keeps them in order after the auction -- forehand's 100 and the two passes of
    TWO_MARRIAGES, while the declarer gives."""
    state = _played({**TWO_MARRIAGES, "actions": TWO_MARRIAGES["actions"][:3]})
    for seat in (0, 2, None):
        assert P.view(state, seat).bids == ((1, Bid(value=100)), (2, Pass()), (0, Pass()))


def test_a_marriage_may_be_declared_by_leading_the_queen() -> None:
    """RULES.md §5 Play: a player on lead with a trick may lead the K *or Q* of a
    marriage he holds and declare it -- in TWO_MARRIAGES seat 1, having taken the
    first trick, leads QH instead of KH: Hearts become trumps and he scores 100."""
    state = _played({**TWO_MARRIAGES, "actions": TWO_MARRIAGES["actions"][:9]})
    state, _ = P.apply(state, 1, PlayCard(Card.from_id("QH"), True))
    view = P.view(state, None)
    assert view.trump is not None and view.trump.letter == "H"
    assert view.marriages == ((1, view.trump, 100),)


def _cards(text: str) -> list[int]:
    return [index_of(c) for c in text.split()]


def test_a_player_who_must_trump_need_not_beat_the_trump_in_the_trick() -> None:
    """RULES.md §1/§5: Thousand is "follow suit, else trump, else any" with no duty to
    beat -- also when the trick already holds a trump: seat 1, void in Spades, may
    play any Club, under-trumping seat 0's TC with QC or 9C, not only over-trump with
    AC (which Stichzwang would demand).  TC then takes the trick over the led AS."""
    state: TausendDeal = start_deal(
        TausendOptions(),
        0,
        hands=[
            _cards("JC TC KH QH JH 9H TD"),
            _cards("AH TH AC KC QC 9C KD"),
            _cards("AD AS TS KS QS JS 9S"),
        ],
        talon=_cards("QD JD 9D"),
    )
    c = Card.from_id
    moves: list[tuple[int, Action]] = [
        (1, Bid(value=100)),
        (2, Pass()),
        (0, Pass()),
        (1, Give(c("9D"), 2)),
        (1, Give(c("JD"), 0)),
        (1, Raise(100)),
        # T1: AH wins;  T2: the Clubs marriage, trumps C;  T3: seat 2's AD takes KD.
        *((1, PlayCard(c("AH"))), (2, PlayCard(c("9S"))), (0, PlayCard(c("9H")))),
        *((1, PlayCard(c("KC"), True)), (2, PlayCard(c("JS"))), (0, PlayCard(c("JC")))),
        *((1, PlayCard(c("KD"))), (2, PlayCard(c("AD"))), (0, PlayCard(c("JD")))),
        (2, PlayCard(c("AS"))),
    ]
    for seat, action in moves:
        state, _ = P.apply(state, seat, action)
    assert set(P.legal_actions(state)) == {PlayCard(c("TC"))}  # void in Spades: trump
    state, _ = P.apply(state, 0, PlayCard(c("TC")))
    assert set(P.legal_actions(state)) == {PlayCard(c(x)) for x in ("AC", "QC", "9C")}
    state, _ = P.apply(state, 1, PlayCard(c("9C")))
    view = P.view(state, None)
    assert view.last_trick_winner == 0 and P.to_act(state) == 0


# --- the match ---------------------------------------------------------------------------


def _result(points: tuple[int, ...], declarer: int, value: int, made: bool) -> DealResult:
    return DealResult(
        points=points,
        winners=(declarer,),
        reason="made" if made else "failed",
        contract="bid",
        declarer=declarer,
        details=(
            ("value", value),
            ("made", made),
            ("golden", False),
            ("bolts", (0,) * len(points)),
        ),
    )


def _sitting(match: TausendMatch, *seats: int) -> None:
    for s in seats:
        match.scores[s] = 880
        match.on_barrel[s] = True
        match.climbed.append(s)


def test_a_player_reaching_880_in_the_winning_deal_is_fixed_at_880() -> None:
    """RULES.md §5 Barrel: a player reaching 880 is fixed at 880 -- in the deal that
    wins the game too.  Seat 0 makes 190 on the barrel (1000); seat 1, at 870, takes
    20: his final score is 880, not 890 (the losers are ranked by it)."""
    m = TausendMatch(TausendOptions(), 0)
    m.scores = [0, 870, 300]
    _sitting(m, 0)
    spec = m.next_deal()
    assert spec is not None
    change = m.add_result(spec, _result((190, 20, 5), 0, 190, True))
    assert m.finished and m.winner == 0
    assert m.scores == [1000, 880, 305]
    assert change == (120, 10, 5)
    assert m.bummerl == [0, 1, 1]


def test_the_winning_deal_crowds_nobody_and_pushes_nobody_off() -> None:
    """RULES.md §5 Barrel: crowding and pushing off make room on the barrel for the
    attempts to come; after the deal that wins the game none come.  Three players:
    two losers reaching 880 together are fixed at 880, not dropped to 760.  Four:
    seat 2 sits on the barrel when seat 1 wins from it and seats 0 and 3 reach 880;
    seat 2 keeps his 880 (not 760, nor 0 at a third fall)."""
    m = TausendMatch(TausendOptions(), 0)
    m.scores = [0, 870, 875]
    _sitting(m, 0)
    spec = m.next_deal()
    assert spec is not None
    m.add_result(spec, _result((130, 20, 10), 0, 130, True))
    assert m.finished and m.scores == [1000, 880, 880]
    assert m.notes == [(0, "barrel_won"), (1, "barrel_climbed"), (2, "barrel_climbed")]

    m = TausendMatch(TausendOptions(players=4), 0)
    m.scores = [870, 0, 0, 860]
    _sitting(m, 2, 1)  # seat 2 climbed first
    m.falls[2] = 2
    spec = m.next_deal()
    assert spec is not None and spec.dealer == 0  # seat 0 sits out and scores the stock
    m.add_result(spec, _result((15, 130, 5, 20), 1, 130, True))
    assert m.finished and m.scores == [880, 1000, 880, 880]
    assert ("barrel_pushed_off" not in {w for _, w in m.notes}) and m.falls[2] == 2


@pytest.mark.parametrize("fine", [120, 125])
def test_the_barrel_fine_option_sets_the_push_off_and_the_crowding(fine: int) -> None:
    """RULES.md §5 Barrel: a second player reaching 880 pushes the first off, and two
    reaching it together both drop back, each by the barrel fine -- 120, or 125 with
    `tausend.barrel_fine` (every value of the option must work)."""
    m = TausendMatch(TausendOptions(barrel_fine=fine), 0)
    m.scores = [0, 860, 100]
    _sitting(m, 0)
    spec = m.next_deal()
    assert spec is not None
    m.add_result(spec, _result((0, 150, 5), 1, 150, True))
    assert m.scores == [880 - fine, 880, 105]
    assert m.notes == [(1, "barrel_climbed"), (0, "barrel_pushed_off")]
    assert (m.on_barrel, m.falls) == ([False, True, False], [1, 0, 0])

    m = TausendMatch(TausendOptions(barrel_fine=fine), 0)
    m.scores = [870, 860, 100]
    spec = m.next_deal()
    assert spec is not None
    m.add_result(spec, _result((20, 150, 5), 1, 150, True))
    assert m.scores == [880 - fine, 880 - fine, 105]
    assert m.notes == [(0, "barrel_crowded"), (1, "barrel_crowded")]
    assert m.on_barrel == [False, False, False]


def test_with_four_players_a_third_climber_pushes_the_earliest_sitter_off() -> None:
    """RULES.md §5 Barrel: with 4 players two may sit on the barrel; the next to reach
    880 pushes the first of them off (880 - 120), the later sitter stays."""
    m = TausendMatch(TausendOptions(players=4), 0)
    m.scores = [0, 0, 860, 100]
    _sitting(m, 1, 0)  # seat 1 climbed first
    spec = m.next_deal()
    assert spec is not None and spec.dealer == 0  # seat 0 sits out this deal
    m.add_result(spec, _result((0, 5, 150, 20), 2, 150, True))
    assert m.scores == [880, 760, 880, 120]
    assert m.on_barrel == [True, False, True, False]
    assert m.climbed == [0, 2]


def test_the_winning_deal_ends_the_match_and_tells_of_a_loser_at_exactly_880() -> None:
    """RULES.md §5 Barrel: only the declarer on the barrel who makes a bid above 120
    wins the game -- the match is over, no deal follows; a loser who reaches exactly
    880 in that deal is fixed there and told so (the table explains every score's
    move).  Seat 0 makes 150 from the barrel; seat 1 goes from 860 to 880."""
    m = TausendMatch(TausendOptions(), 0)
    m.scores = [0, 860, 300]
    _sitting(m, 0)
    spec = m.next_deal()
    assert spec is not None
    m.add_result(spec, _result((150, 20, 5), 0, 150, True))
    assert m.finished and m.scores == [1000, 880, 305]
    assert m.notes == [(0, "barrel_won"), (1, "barrel_climbed")]
    assert m.next_deal() is None


def test_a_sitter_is_told_of_each_deal_on_the_barrel_and_of_the_third() -> None:
    """RULES.md §5 Barrel: a player on the barrel is fixed at 880 -- another's
    contract scores him nothing -- and "He has three deals; failing them: -120 (back
    to 760)".  Each deal's notes tell only that deal's moves of the scores: seat 0
    sits on the barrel; deal 1 he takes 20 (frozen), deal 2 nothing happens to him,
    deal 3 is his third and he drops to 760."""
    m = TausendMatch(TausendOptions(), 0)
    m.scores = [880, 0, 0]
    _sitting(m, 0)
    deals = [
        ((20, 120, 10), [(0, "barrel_frozen")], [880, 120, 10]),
        ((0, 5, 100), [], [880, 125, 110]),
        ((0, -100, 30), [(0, "barrel_attempts")], [760, 25, 140]),
    ]
    for k, (points, notes, scores) in enumerate(deals):
        spec = m.next_deal()
        assert spec is not None and spec.deal_no == k
        declarer = max(range(3), key=lambda s: abs(points[s]))
        value = abs(points[declarer])
        m.add_result(spec, _result(points, declarer, value, points[declarer] > 0))
        assert (m.notes, m.scores) == (notes, scores)
    assert m.on_barrel == [False, False, False] and m.falls == [1, 0, 0]


def test_a_failed_contract_is_won_by_the_opponents() -> None:
    """RULES.md §5 Score: "declarer with >= bid (tricks + marriages) scores +bid, else
    -bid"; the others score their own points.  The deal of TWO_MARRIAGES, but seat 1
    raises to 160 (he holds the Hearts marriage): his 150 fall short, he scores -160
    and the deal is won by seats 0 and 2."""
    deal = dict(TWO_MARRIAGES)
    deal["actions"] = [
        {"seat": 1, "do": "raise", "value": 160} if a["do"] == "raise" else a
        for a in TWO_MARRIAGES["actions"]
    ]
    result = P.result(_played(deal))
    assert result is not None
    assert (result.reason, sorted(result.winners)) == ("failed", [0, 2])
    assert result.points == (0, -160, 110)


@pytest.mark.parametrize(("falls", "score"), [(0, 750), (2, 0)])
def test_failing_a_bid_on_the_barrel_and_the_third_fall_are_told(falls: int, score: int) -> None:
    """RULES.md §5 Barrel: "failing such a bid puts him at 880 - bid"; "Falling off the
    barrel for the third time resets that player to 0".  Seat 0 on the barrel bids 130
    and fails: 750, or 0 if it is his third fall -- and the table is told which."""
    m = TausendMatch(TausendOptions(), 0)
    _sitting(m, 0)
    m.falls[0] = falls
    spec = m.next_deal()
    assert spec is not None
    m.add_result(spec, _result((-130, 60, 40), 0, 130, False))
    assert m.scores[0] == score and not m.on_barrel[0]
    reset = [(0, "barrel_reset")] if falls == 2 else []
    assert m.notes == [(0, "barrel_failed"), *reset]


@pytest.mark.parametrize(("players", "fine"), [(5, 120), (1, 120), (3, 130)])
def test_options_outside_the_rules_are_refused_on_construction(players: int, fine: int) -> None:
    """RULES.md §5 Options: 2, 3 or 4 players, a barrel fine of 120 or 125 -- an
    options object with anything else cannot be made, even without the parser."""
    with pytest.raises(ValueError):
        TausendOptions(players=players, barrel_fine=fine)


def test_each_preset_sets_the_options_it_names() -> None:
    """RULES.md §5 Options: a table picks a rule set by name, and each named set turns
    on what its name says and nothing else."""
    assert {name: options(raw) for name, raw in PRESETS.items()} == {
        "standard": TausendOptions(),
        "golden": TausendOptions(golden_round=True),
        "blind": TausendOptions(blind_bid=True),
        "fine_125": TausendOptions(barrel_fine=125),
        "two_players": TausendOptions(players=2),
        "four_players": TausendOptions(players=4),
    }
