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
from engine.cards import CARDS, index_of
from engine.record import replay_record

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
EXACTLY_66 = _plays(
    "1:AC 0:JH 1:KH 0:KD 1:QH 0:QC 1:TH 0:JD 1:KC 0:TS 0:TC 1:JC 0:JS 1:AS 1:AH 0:QS 0:QD 1:AD"
)


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
    actions: list[dict[str, Any]] = []
    for item in script.split():
        if item.endswith(":close"):
            actions.append({"seat": int(item[0]), "do": "close"})
        else:
            actions.extend(_plays(item))
    answer = _replay(actions, hands=hands, talon=talon)
    assert answer["deals"][0]["points"] == [game_points, 0]


def _state_after(
    actions: Sequence[tuple[int, A.Action]],
    hands: list[list[str]] = HANDS,
    talon: list[str] = TALON,
) -> P.DealCore:
    state: P.DealCore = zweier.start_deal(
        zweier.options(),
        0,
        hands=[[index_of(c) for c in h] for h in hands],
        talon=[index_of(c) for c in talon],
    )
    for seat, action in actions:
        state, _ = P.apply(state, seat, action)
    return state


def test_the_exchanged_face_up_trump_stays_known_to_the_opponent() -> None:
    """RULES.md §2 exchange, done face up at the table: the opponent's view knows the
    exchanger holds the former face-up trump (engine.zweier: `shown`)."""
    hands = [["JH", "JD", "AD", "KD", "TD"], ["QD", "TH", "KH", "QH", "JS"]]
    talon = ["AH", "TC", "KC", "QC", "JC", "TS", "KS", "QS", "AC", "AS"]
    state = _state_after([(1, A.ExchangeTrump())], hands, talon)
    assert (1, CARDS[index_of("AS")]) in P.view(state, 0).known
    # the swap itself: the Jack lies face up under the talon, the Ace is in hand
    view = P.view(state, 1)
    assert view.trump_card == CARDS[index_of("JS")]
    assert sorted(c.id for c in view.hand) == sorted(["QD", "TH", "KH", "QH", "AS"])


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
