"""Zweierschnapsen rules (RULES.md §1-2) pinned at their edges, found missing by a
mutation audit: each test names the rule it pins and works its numbers out by hand.

The deals are RULES.md §6 records replayed through `engine.record.replay_record`,
the engine's outside contract.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from engine import actions as A
from engine import protocol as P
from engine import zweier
from engine.cards import CARDS, Suit, index_of
from engine.errors import IllegalAction
from engine.events import (
    CardDrawn,
    CardPlayed,
    Claimed,
    MarriageDeclared,
    TalonClosed,
    TrickTaken,
    TrumpExchanged,
    redact_all,
)
from engine.record import replay_record
from engine.results import DealResult

#: The deal most zweier scenario records use: trumps are Spades (AS face up).
HANDS = [["JH", "JD", "QD", "KD", "TD"], ["AH", "TH", "KH", "QH", "AC"]]
TALON = ["AD", "TC", "KC", "QC", "JC", "TS", "KS", "QS", "JS", "AS"]


def _plays(text: str) -> list[dict[str, Any]]:
    """ "1:AC 0:JH 1:KH*" -> play actions; ``*`` declares the marriage."""
    out: list[dict[str, Any]] = []
    for item in text.split():
        seat, card = item.split(":")
        act: dict[str, Any] = {"seat": int(seat), "do": "play", "card": card.rstrip("*")}
        if card.endswith("*"):
            act["marriage"] = True
        out.append(act)
    return out


def _replay(
    actions: list[dict[str, Any]],
    options: dict[str, Any] | None = None,
    hands: list[list[str]] | None = None,
    talon: list[str] | None = None,
) -> dict[str, Any]:
    record: dict[str, Any] = {
        "game": "zweier",
        "deals": [
            {"dealer": 0, "hands": hands or HANDS, "talon": talon or TALON, "actions": actions}
        ],
    }
    if options is not None:
        record["options"] = options
    code, answer = replay_record(record)
    assert isinstance(answer, dict), answer
    assert code == 0, answer
    return answer


# Seat 1 reaches exactly 66 with the 9th trick (worked out by hand, trumps Spades):
#  T1 1:AC 0:JH -> s1 13  (draw s1 AD, s0 TC)    T2 1:KH 0:KD -> s1 21 (KC / QC)
#  T3 1:QH 0:QC -> s1 27  (JC / TS)              T4 1:TH 0:JD -> s1 39 (KS / QS)
#  T5 1:KC 0:TS -> s0 14 trumps (s0 draws JS, s1 the face-up AS; talon gone)
#  T6 0:TC 1:JC -> s0 26  T7 0:JS 1:AS -> s1 52  T8 1:AH 0:QS -> s0 40 (must trump)
#  T9 0:QD 1:AD -> s1 66 exactly, with 6 tricks; s0 has 40 and 3 tricks.
EXACTLY_66_SCRIPT = (
    "1:AC 0:JH 1:KH 0:KD 1:QH 0:QC 1:TH 0:JD 1:KC 0:TS 0:TC 1:JC 0:JS 1:AS 1:AH 0:QS 0:QD 1:AD"
)
EXACTLY_66 = _plays(EXACTLY_66_SCRIPT)


def test_manual_call_with_exactly_66_is_right() -> None:
    """RULES.md §2 "66 wins" and §1 claims: a claim with exactly 66 is a correct claim
    (not a wrong one); the loser has 40 >= 33 card points, so it scores 1 game point."""
    answer = _replay([*EXACTLY_66, {"seat": 1, "do": "claim"}], {"auto_claim": False})
    assert answer["deals"][0]["points"] == [0, 1]


def test_exactly_66_ends_the_deal_automatically() -> None:
    """RULES.md §1 auto-claim: the trick that brings a side to exactly 66 ends the deal
    (1 game point: the loser has 40)."""
    answer = _replay(EXACTLY_66)
    assert answer["deals"][0]["points"] == [0, 1]
    assert "open" not in answer["deals"][0]


# Seat 1 reaches exactly 66 with a marriage (found by random playouts, checked by
# hand; trumps Spades, the AS face up; the trick's winner draws first):
#  T1 1:KC 0:KD -> s1 8    T2 1:TC 0:QD -> s1 21   T3 1:AH 0:JS -> s0 13 (trumps)
#  T4 0:TH 1:JC -> s0 25   T5 0:AC 1:JD -> s0 38 (s1 draws the face-up AS)
#  T6 0:JH 1:QH -> s1 26 (must head), then 1:KS* declares 40 holding the QS: 66.
MARRIAGE_66 = (
    [["JS", "KD", "JH", "QD", "AC"], ["TC", "JC", "KC", "JD", "AH"]],
    ["KS", "TS", "QH", "TH", "AD", "QS", "KH", "QC", "TD", "AS"],
    "1:KC 0:KD 1:TC 0:QD 1:AH 0:JS 0:TH 1:JC 0:AC 1:JD 0:JH 1:QH 1:KS*",
)


def test_a_marriage_reaching_exactly_66_ends_the_deal_automatically() -> None:
    """RULES.md §1 auto-claim: the engine claims "straight after a marriage is declared
    if that side already has a trick" once it reaches 66 -- exactly 66 too; the led
    KS's trick is not played out.  The loser has 38 >= 33: 1 game point."""
    hands, talon, plays = MARRIAGE_66
    deal = _replay(_plays(plays), hands=hands, talon=talon)["deals"][0]
    assert deal["points"] == [0, 1]
    assert "open" not in deal


def test_closer_loses_when_the_opponent_without_a_trick_reaches_66() -> None:
    """RULES.md §2 closed talon: if the closer fails, the opponent gets 2 game points,
    3 if he had no trick when the talon was closed -- also when the opponent ends the
    deal by reaching 66 himself (not only when the cards run out).

    Trumps Spades; seat 1 closes before the first trick (seat 0 has no trick yet):
    T1 1:JH 0:TH -> s0 12; T2 0:KH declaring 20 (counts: he has a trick) 1:JD -> s0 38;
    T3 0:AC 1:QD -> s0 52; T4 0:AH 1:KD -> s0 67, the closer failed: 3 game points."""
    actions = [
        {"seat": 1, "do": "close"},
        *_plays("1:JH 0:TH 0:KH* 1:JD 0:AC 1:QD 0:AH 1:KD"),
    ]
    answer = _replay(actions, hands=[HANDS[1], HANDS[0]])
    assert answer["deals"][0]["points"] == [3, 0]


# Worked out by hand (trumps Spades; draws: the trick's winner first):
#  T1 1:AH 0:KD -> s1 15   T2 1:QH* (20, counts) 0:QD -> s1 21+20   T3 1:TH 0:JD -> s1 33+20
#  T4 1:KC 0:TS -> s0 14 (trumps)   T5 0:TC 1:KH -> s0 28 (talon gone: s1 took the AS)
#  T6 0:JH 1:QS -> s1 38+20 (must trump)   T7 1:JC 0:QC -> s0 33   T8 0:KS 1:AS -> s1 53+20
LOSER_HAS_33 = "1:AH 0:KD 1:QH* 0:QD 1:TH 0:JD 1:KC 0:TS 0:TC 1:KH 0:JH 1:QS 1:JC 0:QC 0:KS 1:AS"
#  T1 1:AH 0:KD -> s1 15   T2 1:KH* (20) 0:TD -> s1 29+20   T3 1:KC 0:TC -> s0 14
#  T4 0:JD 1:QH -> s0 19   T5 0:JH 1:TH -> s1 41+20 (s0 draws the AS)
#  T6 1:JS 0:AS -> s0 32   T7 0:JC 1:AC -> s1 54+20
LOSER_HAS_32 = "1:AH 0:KD 1:KH* 0:TD 1:KC 0:TC 0:JD 1:QH 0:JH 1:TH 1:JS 0:AS 0:JC 1:AC"


@pytest.mark.parametrize(
    ("plays", "game_points"), [(LOSER_HAS_33, 1), (LOSER_HAS_32, 2)], ids=["33", "32"]
)
def test_game_points_scale_at_33(plays: str, game_points: int) -> None:
    """RULES.md §2: the winner scores 2 if the loser has under 33, else 1 -- a loser
    with exactly 33 card points (and a trick) costs 1, with 32 it costs 2."""
    answer = _replay(_plays(plays))
    assert answer["deals"][0]["points"] == [0, game_points]


# Seat 0 closes with seat 1 at exactly 33 (trumps Spades, QS face up):
#  T1 1:QD 0:TH -> s1 13   T2 1:KH* (20, counts: s1 33) 0:JS -> s0 6 (trumps)
#  s0 closes: s1 has 33 and a trick.   T3 0:AS 1:TS -> s0 27   T4 0:QC* (20) 1:AC -> s1 27
#  T5 1:KS 0:KD -> s1 35   T6 1:JC 0:KC -> s0 33   T7 0:TD 1:QH -> s0 46 + 20 = 66.
CLOSED_AT_33 = (
    [["AS", "KC", "JS", "TD", "TH"], ["QD", "JC", "KH", "QH", "TS"]],
    ["AC", "KD", "QC", "KS", "AH", "AD", "JD", "TC", "JH", "QS"],
    "1:QD 0:TH 1:KH* 0:JS 0:close 0:AS 1:TS 0:QC* 1:AC 1:KS 0:KD 1:JC 0:KC 0:TD 1:QH",
)
# Seat 0 closes with seat 1 at 32 (trumps Clubs, JC face up):
#  T1 1:JH 0:QS -> s1 5   T2 1:QD* (20) 0:KS -> s1 12 + 20   T3 1:AS 0:TC -> s0 21 (trumps)
#  s0 closes: s1 has 32 and two tricks.   T4 0:AC 1:QC -> s0 35   T5 0:JD 1:KD -> s1 18 + 20
#  T6 1:KH 0:AH -> s0 50   T7 0:TD 1:JS -> s0 62   T8 0:KC 1:TH -> s0 76.
CLOSED_AT_32 = (
    [["TD", "TC", "QS", "AH", "JD"], ["AS", "QD", "JS", "JH", "QC"]],
    ["KD", "KS", "KH", "KC", "AC", "TH", "TS", "AD", "QH", "JC"],
    "1:JH 0:QS 1:QD* 0:KS 1:AS 0:TC 0:close 0:AC 1:QC 0:JD 1:KD 1:KH 0:AH 0:TD 1:JS 0:KC 1:TH",
)


@pytest.mark.parametrize(
    ("deal", "game_points"), [(CLOSED_AT_33, 1), (CLOSED_AT_32, 2)], ids=["33", "32"]
)
def test_closer_scale_uses_the_opponents_points_at_closing(
    deal: tuple[list[list[str]], list[str], str], game_points: int
) -> None:
    """RULES.md §2 closed talon: a closer who reaches 66 is scaled by the opponent's
    points and tricks when the talon was closed: 1 game point if they were 33 or more,
    2 if under 33 (the opponent took further points after closing in both deals)."""
    hands, talon, script = deal
    answer = _replay(_record_actions(script), hands=hands, talon=talon)
    assert answer["deals"][0]["points"] == [game_points, 0]


def _state_after(
    actions: Sequence[tuple[int, A.Action]],
    hands: list[list[str]] = HANDS,
    talon: list[str] = TALON,
    opts: zweier.ZweierOptions | None = None,
    dealer: int = 0,
) -> P.DealCore:
    state: P.DealCore = zweier.start_deal(
        opts or zweier.options(),
        dealer,
        hands=[[index_of(c) for c in h] for h in hands],
        talon=[index_of(c) for c in talon],
    )
    for seat, action in actions:
        state, _ = P.apply(state, seat, action)
    return state


def test_the_exchanged_face_up_trump_stays_known_to_the_opponent() -> None:
    """RULES.md §2 exchange, done face up at the table: the opponent's view knows the
    exchanger holds the former face-up trump (engine.zweier: `shown`), and both the
    exchange and a following close are announced."""
    hands = [["JH", "JD", "AD", "KD", "TD"], ["QD", "TH", "KH", "QH", "JS"]]
    talon = ["AH", "TC", "KC", "QC", "JC", "TS", "KS", "QS", "AC", "AS"]
    state = _state_after([(1, A.ExchangeTrump())], hands, talon)
    assert (1, CARDS[index_of("AS")]) in P.view(state, 0).known
    # the swap itself: the Jack lies face up under the talon, the Ace is in hand
    view = P.view(state, 1)
    assert view.trump_card == CARDS[index_of("JS")]
    assert sorted(c.id for c in view.hand) == sorted(["QD", "TH", "KH", "QH", "AS"])
    # and the table is told of it, as it happens; of closing too (RULES.md §2)
    state, events = P.apply(_state_after([], hands, talon), 1, A.ExchangeTrump())
    exchanged = TrumpExchanged(1, CARDS[index_of("JS")], CARDS[index_of("AS")])
    assert redact_all(events, 0) == (exchanged,)
    _, events = P.apply(state, 1, A.CloseTalon())
    assert redact_all(events, 0) == (TalonClosed(1),)


def test_who_drew_the_face_up_trump_stays_known() -> None:
    """RULES.md §2 drawing: the last card drawn is the face-up trump, taken in sight
    of both; the winner's view knows the other seat holds it (here seat 1 the AS)."""
    plays = [
        (int(p["seat"]), A.PlayCard(CARDS[index_of(p["card"])]))
        for p in _plays("1:AH 0:KD 1:QH 0:QD 1:TH 0:JD 1:KC 0:TS 0:TC 1:KH")
    ]
    state = _state_after(plays)
    assert dict(P.view(state, 0).extra)["closed_by"] is None
    assert P.view(state, 0).trump_card is None  # the talon is gone
    assert (1, CARDS[index_of("AS")]) in P.view(state, 0).known


def _play(seat: int, card: str, marriage: bool = False) -> tuple[int, A.Action]:
    return seat, A.PlayCard(CARDS[index_of(card)], marriage=marriage)


#: Seat 1 (forehand) holds both trump marriage cards and the hearts one (trumps Spades).
MARRIAGES = (
    [["JH", "JD", "QD", "KD", "TD"], ["AH", "KS", "QS", "KH", "QH"]],
    ["AD", "TC", "KC", "QC", "JC", "TH", "TS", "JS", "AC", "AS"],
)


def test_a_trump_marriage_counts_40_and_a_plain_one_20() -> None:
    """RULES.md §1 marriage: 20, 40 in trumps.  T1 1:AH 0:JD -> s1 13; s1 leads QS
    declaring 40 -> 53 (his partner card KS shown), 0:JH -> s1 58;
    s1 leads KH declaring 20 -> 78, out at once; s0 has no trick: 3 game points."""
    hands, talon = MARRIAGES
    state = _state_after([_play(1, "AH"), _play(0, "JD"), _play(1, "QS", True)], hands, talon)
    view = P.view(state, 0)
    assert view.points == (0, 53)
    assert view.marriages == ((1, Suit.SPADES, 40),)
    assert (1, CARDS[index_of("KS")]) in view.known  # the marriage is shown
    state, _ = P.apply(state, 0, A.PlayCard(CARDS[index_of("JH")]))
    state, _ = P.apply(state, 1, A.PlayCard(CARDS[index_of("KH")], marriage=True))
    result = P.result(state)
    assert result is not None
    assert (result.points, result.card_points) == ((0, 3), (0, 78))


@pytest.mark.parametrize(
    ("before", "counted"), [([], False), ([_play(1, "AH"), _play(0, "JD")], True)]
)
def test_a_declared_marriage_is_announced_with_its_shown_card(
    before: list[tuple[int, A.Action]], counted: bool
) -> None:
    """RULES.md §1 marriage: the player on lead leads the Q and shows the K; the table
    hears the lead, the 40 in trumps, the shown card, and whether the points count yet
    (only once he has a trick: not at the first lead, yes after T1 1:AH 0:JD)."""
    hands, talon = MARRIAGES
    state = _state_after(before, hands, talon)
    _, events = P.apply(state, 1, A.PlayCard(CARDS[index_of("QS")], marriage=True))
    ks = CARDS[index_of("KS")]
    assert redact_all(events, 0) == (
        CardPlayed(1, CARDS[index_of("QS")], True),
        MarriageDeclared(1, Suit.SPADES, 40, counted, ks),
    )


def test_a_marriage_declared_before_a_trick_waits() -> None:
    """RULES.md §1 marriage: points count once the side has a trick.  Forehand leads
    QH declaring 20 at the first trick: nobody's points move, the 20 waits; T1 0:JD
    -> s1 5 + 20 = 25."""
    hands, talon = MARRIAGES
    state = _state_after([_play(1, "QH", True)], hands, talon)
    view = P.view(state, 0)
    assert view.points == (0, 0)
    assert dict(view.extra)["pending_marriage_points"] == (0, 20)
    state, _ = P.apply(state, 0, A.PlayCard(CARDS[index_of("JD")]))
    assert P.view(state, 0).points == (0, 25)


# Nobody claims (auto_claim off); seat 1 passes 66 at T7 (74) without claiming and
# takes the last trick: 95 to 25, seat 0 with two tricks.
#  T1 1:TH 0:KD 14  T2 1:AH 0:JD 13  T3 1:AC 0:TD 21  T4 1:KH 0:JH 6 -> s1 54
#  T5 1:QH 0:TS -> s0 13  T6 0:JS 1:KS -> s1 60  T7 1:AD 0:QD -> 74  T8 1:AS 0:QS -> 88
#  T9 1:JC 0:TC -> s0 25  T10 0:QC 1:KC -> s1 95.
LAST_TRICK_OUT = (
    "1:TH 0:KD 1:AH 0:JD 1:AC 0:TD 1:KH 0:JH 1:QH 0:TS 0:JS 1:KS 1:AD 0:QD 1:AS 0:QS "
    "1:JC 0:TC 0:QC 1:KC"
)


def test_stichzwang_once_the_talon_is_used_up_without_closing() -> None:
    """RULES.md §2: no duty to follow until the talon is closed *or empty*.  Nobody
    closed; after T5 seat 1 drew the face-up AS and the talon is gone.  Seat 0 leads
    the JS: seat 1 (AD KC JC KS AS) must follow and head it with KS or AS; AD is refused.
    T1 1:TH 0:KD  T2 1:AH 0:JD  T3 1:AC 0:TD  T4 1:KH 0:JH (s1 draws AD KC JC KS)
    T5 1:QH 0:TS -> s0, who draws JS; s1 takes the AS."""
    plays = [_play(int(p["seat"]), p["card"]) for p in _plays(LAST_TRICK_OUT)[:10]]
    state = _state_after(plays)
    assert P.view(state, None).talon_size == 0
    assert dict(P.view(state, 0).extra)["closed_by"] is None
    state, _ = P.apply(state, 0, A.PlayCard(CARDS[index_of("JS")]))
    played = {a.card.id for a in P.legal_actions(state) if isinstance(a, A.PlayCard)}
    assert played == {"KS", "AS"}
    with pytest.raises(IllegalAction) as refused:
        P.apply(state, 1, A.PlayCard(CARDS[index_of("AD")]))
    assert refused.value.code == "must_follow_suit"


def test_no_exchange_once_the_talon_is_closed() -> None:
    """RULES.md §2: the trump Jack is exchanged only while the talon is open.  Seat 1
    holds the JS (AS face up) and closes first: the exchange is refused."""
    hands = [["JH", "JD", "AD", "KD", "TD"], ["QD", "TH", "KH", "QH", "JS"]]
    talon = ["AH", "TC", "KC", "QC", "JC", "TS", "KS", "QS", "AC", "AS"]
    actions = [{"seat": 1, "do": "close"}, {"seat": 1, "do": "exchange"}]
    deal = {"dealer": 0, "hands": hands, "talon": talon, "actions": actions}
    record: dict[str, Any] = {"game": "zweier", "deals": [deal]}
    code, answer = replay_record(record)
    assert code == 1 and isinstance(answer, dict)
    assert (answer["action"], answer["error"]) == (1, "exchange_not_allowed")


def test_last_trick_winner_with_66_unclaimed_is_scored_as_out() -> None:
    """docs/rules/zweier.md (claims off): after the last trick its winner's claim is
    made for him when he has 66, so he scores by the loser's count (25: 2 game
    points), not the 1 point of the last-trick rule, which is for nobody at 66."""
    answer = _replay(_plays(LAST_TRICK_OUT), {"auto_claim": False})
    assert answer["deals"][0]["points"] == [0, 2]


def test_the_match_ends_at_exactly_7_game_points() -> None:
    """RULES.md §2: a Bummerl is 7 game points.  3 + 3 + 1 ends the match at once;
    the loser has a game point, so one Bummerl."""
    match = zweier.new_match(zweier.options(), 0)
    for points in ((3, 0), (0, 1), (3, 0)):
        spec = match.next_deal()
        assert spec is not None
        winner = 0 if points[0] else 1
        match.add_result(spec, DealResult(points=points, winners=(winner,), reason="reached_66"))
    assert not match.finished and match.scores == [6, 1]
    spec = match.next_deal()
    assert spec is not None
    match.add_result(spec, DealResult(points=(1, 0), winners=(0,), reason="last_trick"))
    assert match.finished and match.next_deal() is None
    assert match.summary() == {"scores": [7, 1], "bummerl": [0, 1], "finished": True}


def _script(script: str) -> list[tuple[int, A.Action]]:
    """ "1:QD 0:close 0:AS" -> (seat, action) pairs; ``*`` declares the marriage."""
    out: list[tuple[int, A.Action]] = []
    for item in script.split():
        seat, what = item.split(":")
        if what == "close":
            out.append((int(seat), A.CloseTalon()))
        else:
            out.append(_play(int(seat), what.rstrip("*"), what.endswith("*")))
    return out


def _record_actions(script: str) -> list[dict[str, Any]]:
    """ "1:QD 0:close 0:AS" -> record actions for `_replay`."""
    out: list[dict[str, Any]] = []
    for item in script.split():
        if item.endswith(":close"):
            out.append({"seat": int(item[0]), "do": "close"})
        else:
            out.extend(_plays(item))
    return out


def _cards_offered(state: P.DealCore) -> set[str]:
    return {a.card.id for a in P.legal_actions(state) if isinstance(a, A.PlayCard)}


def test_stichzwang_and_no_second_close_after_the_dealer_closes() -> None:
    """RULES.md §2 closing: "From then on Stichzwang applies" -- whichever seat closed,
    seat 0 (the dealer) included -- and the talon, once closed, is not closed again.
    CLOSED_AT_33: seat 0 closes after T2 with the talon still open and leads the AS;
    seat 1 (QH AC JC TS KS) must follow with a spade.  Then seat 0 leads QC declaring
    20: seat 1 (QH AC JC KS) must head the Queen, so only the AC."""
    hands, talon, script = CLOSED_AT_33
    steps = _script(script)
    state = _state_after(steps[:5], hands, talon)  # ... 0:close
    assert P.view(state, None).talon_size > 2  # closed, not used up
    assert A.CloseTalon() not in P.legal_actions(state)
    state = _state_after(steps[:6], hands, talon)  # 0:AS
    assert _cards_offered(state) == {"TS", "KS"}
    with pytest.raises(IllegalAction) as refused:
        P.apply(state, 1, A.PlayCard(CARDS[index_of("QH")]))
    assert refused.value.code == "must_follow_suit"
    state = _state_after(steps[:8], hands, talon)  # 1:TS, 0:QC*
    assert _cards_offered(state) == {"AC"}
    assert A.CloseTalon() not in P.legal_actions(_state_after(steps[:9], hands, talon))


@pytest.mark.parametrize("card", ["KS", "QS"])
def test_leading_either_card_of_the_trump_marriage_declares_40(card: str) -> None:
    """RULES.md §1 marriage: declared by leading "the K or Q while holding the other";
    the trump marriage is 40 whichever of the two is led.  T1 1:AH 0:JD -> s1 13, then
    s1 leads the King or the Queen of Spades (trumps) declaring: 13 + 40 = 53."""
    hands, talon = MARRIAGES
    state = _state_after([_play(1, "AH"), _play(0, "JD"), _play(1, card, True)], hands, talon)
    view = P.view(state, 0)
    assert view.marriages == ((1, Suit.SPADES, 40),)
    assert view.points == (0, 53)
    partner = "QS" if card == "KS" else "KS"
    assert (1, CARDS[index_of(partner)]) in view.known


def test_the_talon_count_includes_the_face_up_trump() -> None:
    """RULES.md §2: the talon is the 9 face-down cards with the turned-up trump under
    them ("face-up card included" when counting it).  With the AH turned up the table
    shows 10 cards, 8 after the first trick's two draws."""
    hands = [["JH", "JD", "QD", "KD", "TD"], ["AS", "TH", "KH", "QH", "AC"]]
    talon = ["AD", "TC", "KC", "QC", "JC", "TS", "KS", "QS", "JS", "AH"]
    state = _state_after([], hands, talon)
    assert P.view(state, None).talon_size == 10
    assert P.view(state, None).trump_card == CARDS[index_of("AH")]
    state = _state_after([_play(1, "AC"), _play(0, "JH")], hands, talon)
    assert P.view(state, 0).talon_size == 8


def test_no_duty_to_trump_before_closing_with_the_trump_ace_face_up() -> None:
    """RULES.md §2: "Until the talon is closed or empty: no duty to follow or beat" --
    whichever card lies face up, the AH (card 0) too.  Seat 1 leads the AC; seat 0
    (JH JD QD KD TD) has no Club and holds the trump JH, yet may play any card."""
    hands = [["JH", "JD", "QD", "KD", "TD"], ["AS", "TH", "KH", "QH", "AC"]]
    talon = ["AD", "TC", "KC", "QC", "JC", "TS", "KS", "QS", "JS", "AH"]
    state = _state_after([_play(1, "AC")], hands, talon)
    assert _cards_offered(state) == {"JH", "JD", "QD", "KD", "TD"}


def test_a_dealer_who_closes_and_takes_the_last_trick_with_65_loses_2() -> None:
    """RULES.md §2 closed talon: "If he fails, the opponent gets 2 game points" -- also
    when the closer is the dealer (seat 0) and takes the last trick himself; the last
    trick's 1 point is for deals nobody closed.  Trumps Hearts (JH face up); seat 0
    closes after T2, seat 1 then has a trick; seat 0 ends on 65 with the last trick."""
    hands = [["QH", "AD", "TC", "KH", "QS"], ["QD", "JD", "KS", "JS", "TH"]]
    talon = ["TS", "AH", "JC", "AS", "AC", "KD", "TD", "KC", "QC", "JH"]
    steps = _script("1:TH 0:KH 1:QD 0:AD 0:close 0:QH 1:TS 0:JC 1:AS 0:QS 1:KS 1:JD 0:AH 0:TC 1:JS")
    state = _state_after(steps, hands, talon)
    result = P.result(state)
    assert result is not None
    assert (result.points, result.card_points[0]) == ((0, 2), 65)
    assert P.view(state, None).last_trick_winner == 0
    # the result says who closed (the table's explanation of the score) and the tricks
    assert result.detail("closed_by") == 0
    assert result.tricks == (5, 2)


def test_a_closer_reaching_exactly_66_with_the_last_trick_wins_without_claiming() -> None:
    """RULES.md §2 closed talon, claims off: "the closer must reach 66" -- exactly 66
    with the last trick is enough (docs/rules/zweier.md: the last trick's winner's
    claim is made for him), scaled by the opponent at closing: 21 points and two
    tricks, so 2 game points.  Trumps Spades (AS face up); seat 0 closes after T3."""
    hands = [["JS", "KD", "JH", "QD", "AC"], ["TC", "JC", "KC", "JD", "AH"]]
    talon = ["KS", "TS", "QH", "TH", "AD", "QS", "KH", "QC", "TD", "AS"]
    script = (
        "1:KC 0:KD 1:TC 0:QD 1:AH 0:JS 0:close 0:TH 1:QH 0:TS 1:KS 0:JH 1:QS 1:JD 0:AD 0:AC 1:JC"
    )
    answer = _replay(_record_actions(script), {"auto_claim": False}, hands, talon)
    assert answer["deals"][0]["points"] == [2, 0]


WRONG_CLAIM = (
    [["QC", "KH", "JD", "KS", "TH"], ["QH", "TD", "KD", "QD", "KC"]],
    ["JC", "AS", "QS", "JS", "TC", "AD", "JH", "TS", "AH", "AC"],
    "1:TD 0:KS 1:QH 0:JD 1:KD 0:AS 1:JC 0:QC",
)


def test_a_wrong_claim_with_one_trick_costs_the_minimum_of_2() -> None:
    """RULES.md §1 claims: a wrong claim gives the other side "the points the claim
    would have won (at least 2 in `zweier`, 3 if the claimer had no trick)".  Trumps
    Clubs (AC face up); seat 0 claims with one trick and 5 points against 34 and three
    tricks: the claim would have won 1, so seat 1 gets 2 -- not 3, seat 0 has a trick.
    T1 1:TD 0:KS -> s1 14   T2 1:QH 0:JD -> s1 19   T3 1:KD 0:AS -> s1 34
    T4 1:JC 0:QC -> s0 5."""
    hands, talon, script = WRONG_CLAIM
    actions = [*_plays(script), {"seat": 0, "do": "claim"}]
    answer = _replay(actions, {"auto_claim": False}, hands, talon)
    assert answer["deals"][0]["points"] == [0, 2]


def test_a_wrong_claim_is_told_with_what_it_cost() -> None:
    """RULES.md §1 claims: the table hears that seat 0's claim was wrong and that it
    cost him 2 game points (the deal of the test above)."""
    hands, talon, script = WRONG_CLAIM
    state = _state_after(_script(script), hands, talon, zweier.options({"auto_claim": False}))
    _, events = P.apply(state, 0, A.Claim())
    assert Claimed(0, False, 2) in events


def test_a_right_claim_is_told_with_its_game_points() -> None:
    """RULES.md §1 claims (auto_claim off): the table hears that the claim was right
    and what it won -- EXACTLY_66 then `claim`: right, 1 game point (the loser has 40)."""
    state = _state_after(_script(EXACTLY_66_SCRIPT), opts=zweier.options({"auto_claim": False}))
    state, events = P.apply(state, 1, A.Claim())
    assert Claimed(1, True, 1) in events


def test_the_table_sees_the_last_trick_and_who_took_it() -> None:
    """RULES.md §1: "Winner of a trick leads to the next" -- the table shows the trick
    just taken, who led what, and who took it.  T1 1:AC 0:JH -> seat 1; and a trick
    seat 0 led."""
    state = _state_after([_play(1, "AC"), _play(0, "JH")])
    view = P.view(state, None)
    played = ((1, CARDS[index_of("AC")]), (0, CARDS[index_of("JH")]))
    assert (view.last_trick, view.last_trick_winner) == (played, 1)
    assert view.tricks == (played,)
    assert view.players == 2
    # a trick seat 0 led (T6 of LAST_TRICK_OUT: 0:JS 1:KS), taken by seat 1
    state = _state_after(_script(LAST_TRICK_OUT)[:12])
    view = P.view(state, None)
    played = ((0, CARDS[index_of("JS")]), (1, CARDS[index_of("KS")]))
    assert (view.last_trick, view.last_trick_winner) == (played, 1)


def test_only_the_face_up_trump_is_drawn_in_sight_of_the_table() -> None:
    """RULES.md §2: after each trick its winner draws first, then the other -- both
    face down, except the last card, the turned-up trump, which everyone sees taken.
    T1 1:AC 0:JH: the table sees the JH played and seat 1 take the trick; seat 1 draws
    AD, seat 0 TC, and the group sees neither card."""
    state = _state_after([_play(1, "AC")])
    _, events = P.apply(state, 0, A.PlayCard(CARDS[index_of("JH")]))
    ac, jh = CARDS[index_of("AC")], CARDS[index_of("JH")]
    assert redact_all(events, None) == (
        CardPlayed(0, jh),
        TrickTaken(1, ((1, ac), (0, jh)), 13),  # RULES.md §1: 11 + 2 card points
        CardDrawn(1, None),
        CardDrawn(0, None),
    )
    plays = [_play(int(p["seat"]), p["card"]) for p in _plays(LAST_TRICK_OUT)[:9]]
    state = _state_after(plays)
    _, events = P.apply(state, 0, A.PlayCard(CARDS[index_of("TS")]))  # T5: s0 draws JS
    drawn = [e for e in redact_all(events, None) if isinstance(e, CardDrawn)]
    assert drawn == [CardDrawn(0, None), CardDrawn(1, CARDS[index_of("AS")], True)]


def test_an_opponent_reaching_66_after_a_close_ends_it_as_the_closer_failing() -> None:
    """RULES.md §2 closed talon: "the closer must reach 66"; the opponent reaching it
    first is the closer failing, and the result says so (the table tells the players
    why the deal ended), not a plain 66.  The deal of
    test_closer_loses_when_the_opponent_without_a_trick_reaches_66."""
    steps = [(1, A.CloseTalon()), *_script("1:JH 0:TH 0:KH* 1:JD 0:AC 1:QD 0:AH 1:KD")]
    state = _state_after(steps, [HANDS[1], HANDS[0]])
    result = P.result(state)
    assert result is not None
    assert (result.points, result.reason) == ((3, 0), "closer_failed")


def test_the_opponent_of_a_dealer_who_closed_reaching_66_is_the_closer_failing() -> None:
    """RULES.md §2 closed talon, the closer being the dealer (seat 0): seat 0 closes
    after T3, when seat 1 has two tricks; seat 1 then reaches 66 first (75): the closer
    failed, seat 1 gets 2 game points.  Trumps Spades (TS face up)."""
    hands = [["KC", "KH", "KD", "AS", "TH"], ["QS", "QH", "QD", "JH", "KS"]]
    talon = ["AD", "AH", "JD", "JC", "TD", "TC", "QC", "JS", "AC", "TS"]
    steps = _script("1:QS* 0:KC 1:QD 0:AH 1:AD 0:AS 0:close 0:KD 1:JD 0:TD 1:KS")
    state = _state_after(steps, hands, talon)
    result = P.result(state)
    assert result is not None
    assert (result.points, result.reason) == ((0, 2), "closer_failed")


def test_an_automatic_66_is_no_claim() -> None:
    """RULES.md §1: with auto_claim the engine ends the deal at 66 by itself -- the
    result says 66 was reached, and no player is told of a claim he did not make."""
    state = _state_after([_play(int(a["seat"]), a["card"]) for a in EXACTLY_66[:-1]])
    state, events = P.apply(state, 1, A.PlayCard(CARDS[index_of(EXACTLY_66[-1]["card"])]))
    result = P.result(state)
    assert result is not None and result.reason == "reached_66"
    assert not [e for e in events if isinstance(e, Claimed)]
    assert P.legal_actions(state) == ()  # §1 "Ending a deal": nothing more to play


def test_the_second_seat_winning_the_match_gives_the_first_the_bummerl() -> None:
    """RULES.md §2: a Bummerl is 7 game points -- the loser takes it whichever seat
    wins; seat 1 reaches 7 (3 + 3 + 1) while seat 0 has 2: seat 0 gets one Bummerl."""
    match = zweier.new_match(zweier.options(), 0)
    for points in ((0, 3), (2, 0), (0, 3), (0, 1)):
        spec = match.next_deal()
        assert spec is not None
        winner = 0 if points[0] else 1
        match.add_result(spec, DealResult(points=points, winners=(winner,), reason="reached_66"))
    assert match.summary() == {"scores": [2, 7], "bummerl": [1, 0], "finished": True}


def test_the_dealers_shown_marriage_partner_is_known_to_the_table() -> None:
    """RULES.md §1 marriage: the declarer "shows" the other card -- also when the
    declarer is seat 0 (the dealer).  CLOSED_AT_33: seat 0 leads QC declaring 20; seat
    1 and the channel know seat 0 holds the KC; seat 0's view lists only seat 1's
    shown QH (of the KH declared at T2), not his own card."""
    hands, talon, script = CLOSED_AT_33
    state = _state_after(_script(script)[:8], hands, talon)  # ... 0:QC*
    kc = (0, CARDS[index_of("KC")])
    assert kc in P.view(state, 1).known and kc in P.view(state, None).known
    assert P.view(state, 0).known == ((1, CARDS[index_of("QH")]),)


def test_the_view_tells_whose_turn_it_is_and_the_hand_sizes() -> None:
    """RULES.md §2: forehand leads, then the other follows.  After 1:AC seat 0 (the
    dealer) is to act with 5 cards to seat 1's 4; once the deal is over (EXACTLY_66)
    nobody is."""
    view = P.view(_state_after([_play(1, "AC")]), None)
    assert (view.phase, view.to_act, view.hand_sizes) == ("play", 0, (5, 4))
    view = P.view(_state_after(_script(EXACTLY_66_SCRIPT)), 1)
    assert (view.phase, view.to_act) == ("over", None)


def test_the_game_seats_two_and_its_manual_claims_preset_turns_auto_claim_off() -> None:
    """RULES.md: `zweier` is for 2 players; §1 claims: `auto_claim` is on by default;
    docs/rules/zweier.md names the presets a table picks from: `standard` (defaults)
    and `manual_claims`."""
    assert zweier.GAME.players == 2
    presets = zweier.GAME.presets
    assert zweier.options(presets["standard"]).auto_claim is True
    assert zweier.options(presets["manual_claims"]).auto_claim is False


def test_the_view_shows_the_led_card_tricks_won_and_a_closed_talon() -> None:
    """What the table sees (RULES.md §1-2): the card led so far (here the AH, card 0),
    the tricks each seat won, and whether the talon is closed -- closed by seat 0 in
    CLOSED_AT_33, after T2; seat 0 then took T3 (0:AS 1:TS) too."""
    hands, talon = MARRIAGES
    view = P.view(_state_after([_play(1, "AH")], hands, talon), None)
    assert (view.trick, view.tricks_won, view.talon_closed) == (
        ((1, CARDS[index_of("AH")]),),
        (0, 0),
        False,
    )
    hands, talon, script = CLOSED_AT_33
    view = P.view(_state_after(_script(script)[:7], hands, talon), None)  # ... 1:TS
    assert (view.trick, view.tricks_won, view.talon_closed) == ((), (2, 1), True)


def test_a_close_by_seat_0_shows_its_snapshot_and_only_the_closer_may_act() -> None:
    """RULES.md §2 closed talon: the closer's game points are scaled by the opponent's
    points and tricks when he closed -- the table sees that snapshot.  CLOSED_AT_33:
    seat 0 closes with seat 1 at 33 (13 + the counted 20) and one trick; seat 1's 20
    no longer waits.  Seat 0 is still to lead: only his view offers actions."""
    hands, talon, script = CLOSED_AT_33
    state = _state_after(_script(script)[:5], hands, talon)  # ... 0:close
    extra = dict(P.view(state, None).extra)
    assert (extra["closed_by"], extra["closing_snapshot"]) == (0, (33, 1))
    assert extra["pending_marriage_points"] == (0, 0)
    assert P.view(state, 0).legal and P.view(state, 1).legal == P.view(state, None).legal == ()


def test_a_forehands_marriage_keeps_waiting_when_he_loses_the_first_trick() -> None:
    """RULES.md §1 marriage: declared before a trick, the points wait until the side
    wins one.  Seat 1 deals, so seat 0 leads first: QH declaring 20 (holding the KH);
    seat 1 takes it with the AH.  Seat 0's 20 still waits, seat 1 has 14 points."""
    hands = [["QH", "KH", "JD", "QD", "KD"], ["AH", "TH", "AC", "TC", "KC"]]
    talon = ["JH", "AD", "TD", "QC", "JC", "TS", "KS", "QS", "JS", "AS"]
    state = _state_after([_play(0, "QH", True), _play(1, "AH")], hands, talon, dealer=1)
    view = P.view(state, None)
    assert (view.points, view.tricks_won) == ((0, 14), (0, 1))
    assert dict(view.extra)["pending_marriage_points"] == (20, 0)
