"""Dreierschnapsen rules (RULES.md §3) pinned at their edges, found missing by a
mutation audit: each test names the rule it pins."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from engine import dreier
from engine import protocol as P
from engine.actions import Action, Claim, Discard, PlayCard, action_from_json
from engine.cards import CARDS, Card, Suit, index_of
from engine.errors import IllegalAction
from engine.events import Claimed, MarriageDeclared
from engine.record import replay_record
from engine.results import DealResult

from .props import played_through

#: Hands of the dreier scenario records by role: forehand, middlehand, dealer.
FOREHAND = ["AH", "KC", "QC", "JC", "KD", "QD"]
MIDDLEHAND = ["TH", "KH", "QH", "JH", "AD", "TD"]
DEALER = ["AC", "TC", "AS", "TS", "KS", "QS"]
TALON = ["JD", "JS"]


def _replay(dealer: int, actions: list[tuple[str, dict[str, Any]]]) -> tuple[int, Any]:
    """One deal dealt by `dealer`; actions by role ("fh", "mh", "dl")."""
    seat = {"fh": (dealer + 1) % 3, "mh": (dealer + 2) % 3, "dl": dealer}
    hands: list[list[str]] = [[], [], []]
    hands[seat["fh"]], hands[seat["mh"]], hands[seat["dl"]] = FOREHAND, MIDDLEHAND, DEALER
    acts = [{"seat": seat[role], **act} for role, act in actions]
    record = {
        "game": "dreier",
        "deals": [{"dealer": dealer, "hands": hands, "talon": TALON, "actions": acts}],
    }
    return replay_record(record)


def _result(points: tuple[int, ...], winners: tuple[int, ...] = ()) -> DealResult:
    return DealResult(points=points, winners=winners, reason="made")


def _played(
    hands: list[list[str]],
    talon: Sequence[str],
    actions: list[dict[str, Any]],
    options: dreier.DreierOptions | None = None,
) -> tuple[P.DealCore, list[tuple[Any, ...]]]:
    """Dealer 0's deal of these cards played through `actions` (as a record writes
    them): the state after, and each action's events."""
    state: P.DealCore = dreier.start_deal(
        options or dreier.DreierOptions(),
        0,
        hands=[[index_of(c) for c in h] for h in hands],
        talon=[index_of(c) for c in talon],
    )
    return played_through(state, actions)


TRUMP_H = ("fh", {"do": "trump", "suit": "H"})


@pytest.mark.parametrize("dealer", [0, 1, 2])
def test_equal_bid_needs_priority_for_every_dealer(dealer: int) -> None:
    """RULES.md §3 Bidding: priority is forehand > middlehand > dealer, counted from
    whoever deals -- middlehand may not bid forehand's Bettler again (bid_too_low)."""
    code, answer = _replay(
        dealer,
        [
            TRUMP_H,
            ("fh", {"do": "bid", "contract": "bettler"}),
            ("mh", {"do": "bid", "contract": "bettler"}),
        ],
    )
    assert code == 1 and answer["error"] == "bid_too_low", answer


@pytest.mark.parametrize("dealer", [0, 1, 2])
def test_forehand_holds_an_equal_bid_for_every_dealer(dealer: int) -> None:
    """RULES.md §3 Bidding (holding): forehand may bid middlehand's Bettler again, his
    priority making it rank higher, whoever deals."""
    code, answer = _replay(
        dealer,
        [
            TRUMP_H,
            ("fh", {"do": "bid", "contract": "normal"}),
            ("mh", {"do": "bid", "contract": "bettler"}),
            ("dl", {"do": "pass"}),
            ("fh", {"do": "bid", "contract": "bettler"}),
        ],
    )
    assert code == 0, answer
    assert answer["deals"][0]["open"] is True


def test_farbenringerl_needs_the_ace_of_the_suit_too() -> None:
    """RULES.md §3: Farbenringerl needs 5 cards of one suit when named; middlehand's
    T K Q J of Hearts without the Ace are not enough (contract_not_allowed)."""
    code, answer = _replay(
        0,
        [
            TRUMP_H,
            ("fh", {"do": "bid", "contract": "normal"}),
            ("mh", {"do": "bid", "contract": "farbenringerl"}),
        ],
    )
    assert code == 1 and answer["error"] == "contract_not_allowed", answer


def test_tie_break_deal_scores_only_its_two_players_and_the_loser_takes_the_bummerl() -> None:
    """RULES.md §3 Score / §6 tie-break: two players tied for lowest play one deal of
    zweier; its loser (not its winner) gets the Bummerl (2 at 0: Schneider).  The
    deal's points are reported per match seat, the third player's being 0, and the
    scores stand."""
    m = dreier.new_match(dreier.DreierOptions(), first_dealer=2)
    spec = m.next_deal()
    assert spec is not None
    m.add_result(spec, _result((0, 24, 0)))
    tie = m.next_deal()
    assert tie is not None and tie.game == "zweier" and tie.seats == (0, 2)
    # deal seat 1 (match seat 2) wins the tie-break deal with 2 game points
    assert m.add_result(tie, _result((0, 2), winners=(1,))) == (0, 0, 2)
    assert m.finished and m.next_deal() is None
    assert m.bummerl == [2, 0, 0]
    assert m.scores == [0, 24, 0]


def test_tie_break_dealer_is_the_next_seat_when_the_rotation_dealer_is_out() -> None:
    """docs/rules/dreier.md (tie-break): the rotation's next dealer deals the zweier
    tie-break if he plays it, else the next seat clockwise -- seat 2 is out, so seat 0
    (clockwise after 2) deals."""
    m = dreier.new_match(dreier.DreierOptions(), first_dealer=1)
    spec = m.next_deal()
    assert spec is not None and spec.dealer == 1
    m.add_result(spec, _result((0, 0, 24)))  # seats 0 and 1 tie at 0; seat 2 would deal
    tie = m.next_deal()
    assert tie is not None and tie.game == "zweier" and tie.seats == (0, 1)
    assert tie.dealer == 0


@pytest.mark.parametrize("out", [0, 1, 2])
def test_the_player_out_of_the_tie_break_scores_nothing_in_it(out: int) -> None:
    """RULES.md §3 Score / §6 tie-break: the two tied for lowest play the zweier deal;
    the third player is out of it, so its points are 0 for him whichever seat he is,
    and its loser takes the Bummerl.  `out` reaches 24, the two others tie at 0; deal
    seat 0 wins the tie-break with 3."""
    m = dreier.new_match(dreier.DreierOptions(), first_dealer=0)
    spec = m.next_deal()
    assert spec is not None
    m.add_result(spec, _result(tuple(24 if s == out else 0 for s in range(3))))
    tie = m.next_deal()
    assert tie is not None and tie.game == "zweier" and out not in tie.seats
    assert tie.deal_no == 1  # the match's second deal (the records number its deals)
    points = m.add_result(tie, _result((3, 0), winners=(0,)))
    assert points[out] == 0 and points[tie.seats[0]] == 3 and points[tie.seats[1]] == 0
    assert m.bummerl == [2 if s == tie.seats[1] else 0 for s in range(3)]


@pytest.mark.parametrize("winner", [0, 1, 2])
def test_retourschneider_for_every_winner(winner: int) -> None:
    """RULES.md §3 Score: if the two others stood at 23 each and the winner came from
    0, each of them gets 4 Bummerl (Retourschneider) -- whichever seat the winner is."""
    m = dreier.new_match(dreier.DreierOptions(), first_dealer=0)
    m.scores = [0 if s == winner else 23 for s in range(3)]
    spec = m.next_deal()
    assert spec is not None
    points = tuple(24 if s == winner else 0 for s in range(3))
    m.add_result(spec, _result(points, winners=(winner,)))
    assert m.finished
    assert m.bummerl == [0 if s == winner else 4 for s in range(3)]


def test_a_deal_needs_a_seed_or_cards() -> None:
    """engine.dreier.start_deal: without a seed and without explicit cards there is
    no deal (ValueError), rather than a deal of nothing -- hands without a talon are
    not explicit cards either."""
    with pytest.raises(ValueError, match="seed"):
        dreier.start_deal(dreier.DreierOptions(), 0)
    hands = [[index_of(c) for c in h] for h in KQ_HANDS]
    with pytest.raises(ValueError, match="seed"):
        dreier.start_deal(dreier.DreierOptions(), 0, hands=hands)


def test_no_retourschneider_when_another_player_scored_in_the_last_deal() -> None:
    """docs/rules/dreier.md (the match), RULES.md §3 Score: Retourschneider needs both
    others at 23 *before and after* the last deal.  Seat 1 at 23 declares and loses a
    24-point contract: both defenders score 24, seat 0 from 0 and seat 2 from 23 (to 47)
    -- no Retourschneider; the lowest player (seat 1, 23) gets one Bummerl."""
    m = dreier.new_match(dreier.DreierOptions(), first_dealer=0)
    m.scores = [0, 23, 23]
    spec = m.next_deal()
    assert spec is not None
    m.add_result(spec, _result((24, 0, 24), winners=(0, 2)))
    assert m.finished
    assert m.scores == [24, 23, 47]
    assert m.bummerl == [0, 1, 0]


# The defenders reach exactly 66 with the 4th trick (worked out by hand, trumps Clubs;
# seat 1 declares the normal game, discards AS QS; seat 2 doubles, the declarer passes):
#  T1 1:QC 2:AC 0:TH -> defenders 24    T2 2:KC 0:JD 1:JC -> 32
#  T3 2:JS 0:TS 1:KS -> 48 (seat 0 heads with TS)    T4 0:AD 1:KD 2:QD -> 66 exactly.
EXACTLY_66_HANDS = [
    ["JH", "AD", "AH", "TH", "TS", "JD"],
    ["KH", "JC", "QS", "KD", "QC", "TD"],
    ["AC", "QH", "KC", "JS", "QD", "TC"],
]
EXACTLY_66_ACTIONS: list[dict[str, Any]] = [
    {"seat": 1, "do": "trump", "suit": "C"},
    {"seat": 1, "do": "bid", "contract": "normal"},
    {"seat": 2, "do": "pass"},
    {"seat": 0, "do": "pass"},
    {"seat": 1, "do": "discard", "cards": ["AS", "QS"]},
    {"seat": 2, "do": "double"},
    {"seat": 1, "do": "pass"},
    *(
        {"seat": int(p[0]), "do": "play", "card": p[2:]}
        for p in [
            "1:QC",
            "2:AC",
            "0:TH",
            "2:KC",
            "0:JD",
            "1:JC",
            "2:JS",
            "0:TS",
            "1:KS",
            "0:AD",
            "1:KD",
            "2:QD",
        ]
    ),
]


@pytest.mark.parametrize("auto_claim", [True, False])
def test_defenders_with_exactly_66_win(auto_claim: bool) -> None:
    """RULES.md §3 Play / §1 claims: the side that reaches 66 wins -- exactly 66 is
    enough, claimed automatically or by hand (a right claim, not a wrong one).  The
    declarer's side has no trick: 3 game points, doubled: 6 to each defender."""
    actions = list(EXACTLY_66_ACTIONS)
    if not auto_claim:
        actions.append({"seat": 0, "do": "claim"})
    record = {
        "game": "dreier",
        "options": {"auto_claim": auto_claim},
        "deals": [
            {"dealer": 0, "hands": EXACTLY_66_HANDS, "talon": ["KS", "AS"], "actions": actions}
        ],
    }
    code, answer = replay_record(record)
    assert isinstance(answer, dict), answer
    assert code == 0, answer
    assert answer["deals"][0]["points"] == [6, 0, 6]
    assert "open" not in answer["deals"][0]


def _script(text: str) -> list[dict[str, Any]]:
    """ "1:trump=D 1:bid=normal 2:- 1:discard=AC,JS 1:QH 2:QC*" -> actions."""
    out: list[dict[str, Any]] = []
    for item in text.split():
        seat, what = item.split(":")
        act: dict[str, Any] = {"seat": int(seat)}
        if what == "-":
            act["do"] = "pass"
        elif what.startswith("trump="):
            act.update(do="trump", suit=what[6:])
        elif what.startswith("blind="):
            act.update(do="trump", blind=int(what[6:]))
        elif what.startswith("bid="):
            act.update(do="bid", contract=what[4:])
        elif what.startswith("discard="):
            act.update(do="discard", cards=what[8:].split(","))
        else:
            act.update(do="play", card=what.rstrip("*"))
            if what.endswith("*"):
                act["marriage"] = True
        out.append(act)
    return out


# Declarer 1 loses with exactly 33 and two tricks (trumps Diamonds; worked out by hand):
#  T1 1:QH 2:AH 0:KH -> def 18   T2 2:QC* (20, counts) 0:JC 1:AD -> decl 16
#  T3 1:TS 2:QS 0:AS -> def 42+20   T4 0:KD 1:TD 2:QD -> decl 33   T5 1:JH 2:KC 0:TH -> def 58+20
LOSER_33 = (
    [
        ["KS", "TH", "JC", "KH", "AS", "KD"],
        ["TD", "JD", "JS", "JH", "TS", "AC"],
        ["KC", "QC", "QD", "AH", "TC", "QS"],
    ],
    ["AD", "QH"],
    "1:trump=D 1:bid=normal 2:- 0:- 1:discard=AC,JS 2:- 0:- "
    "1:QH 2:AH 0:KH 2:QC* 0:JC 1:AD 1:TS 2:QS 0:AS 0:KD 1:TD 2:QD 1:JH 2:KC 0:TH",
    [1, 0, 1],
)
# Declarer 1 loses with 32 and two tricks (blind trump: QS, trumps Spades; by hand):
#  T1 1:TC 2:JC 0:KC -> decl 16   T2 1:QS 2:TD 0:AS -> def 24   T3 0:JS 1:TS 2:KH -> decl 32
#  T4 1:JH 2:AH 0:QH -> def 40   T5 2:KD 0:AD 1:AC -> def 66
LOSER_32 = (
    [
        ["AD", "JD", "QH", "AS", "KC", "JS"],
        ["QC", "KS", "TH", "TS", "QS", "JH"],
        ["KD", "QD", "JC", "TD", "AH", "KH"],
    ],
    ["AC", "TC"],
    "1:blind=4 1:bid=normal 2:- 0:- 1:discard=QC,KS 2:- 0:- "
    "1:TC 2:JC 0:KC 1:QS 2:TD 0:AS 0:JS 1:TS 2:KH 1:JH 2:AH 0:QH 2:KD 0:AD 1:AC",
    [2, 0, 2],
)
# The defenders take one trick each (59 with their 20); declarer 1 wins with 69:
#  T1 1:QS* (40, waits) 2:JS 0:TS -> def 15   T2 0:KH 1:KS 2:QH -> decl 11+40
#  T3 1:TC 2:AC 0:QD -> def 39   T4 2:QC* (20) 0:KD 1:AS -> decl 29+40 = 69; def 39+20
EACH_DEFENDER_ONE_TRICK = (
    [
        ["QD", "KH", "KD", "TD", "TS", "TH"],
        ["AD", "JH", "KS", "QS", "JD", "AH"],
        ["AC", "JC", "QC", "KC", "QH", "JS"],
    ],
    ["TC", "AS"],
    "1:trump=S 1:bid=normal 2:- 0:- 1:discard=AH,JH 2:- 0:- "
    "1:QS* 2:JS 0:TS 0:KH 1:KS 2:QH 1:TC 2:AC 0:QD 2:QC* 0:KD 1:AS",
    [0, 1, 0],
)


@pytest.mark.parametrize(
    "deal",
    [LOSER_33, LOSER_32, EACH_DEFENDER_ONE_TRICK],
    ids=["loser-33", "loser-32", "each-defender-one-trick"],
)
def test_normal_game_scale_by_the_losing_sides_points_and_tricks(
    deal: tuple[list[list[str]], list[str], str, list[int]],
) -> None:
    """RULES.md §3 Play: the side reaching 66 wins 1/2/3 by the loser's points (>= 33: 1,
    < 33: 2, no trick: 3).  A losing side with exactly 33 costs 1; the two defenders
    with 32 costs 2; the two defenders count their tricks together (one each is "a
    trick", not none)."""
    hands, talon, script, points = deal
    record = {
        "game": "dreier",
        "deals": [{"dealer": 0, "hands": hands, "talon": talon, "actions": _script(script)}],
    }
    code, answer = replay_record(record)
    assert isinstance(answer, dict), answer
    assert code == 0, answer
    assert answer["deals"][0]["points"] == points


def test_the_result_counts_each_seats_own_tricks() -> None:
    """RULES.md §3 Play: the scale asks whether a side has a trick ("no trick: 3"), so
    the result keeps each seat's own count (`DealResult.tricks`, per seat) -- the
    declarer's not swapped with a defender's.  The deal each-defender-one-trick ends
    after T4: seat 0 took T1, declarer 1 T2 and T4, seat 2 T3."""
    hands, talon, script, _ = EACH_DEFENDER_ONE_TRICK
    state, _ = _played(hands, talon, _script(script))
    result = P.result(state)
    assert result is not None
    assert (result.winners, result.reason) == ((1,), "reached_66")
    assert result.tricks == (1, 2, 1)


@pytest.mark.parametrize("dealer", [0, 1, 2])
def test_the_dealer_may_not_repeat_middlehands_bid(dealer: int) -> None:
    """RULES.md §3 Bidding: priority is forehand > middlehand > dealer -- the dealer
    may not bid middlehand's Bettler again (bid_too_low)."""
    code, answer = _replay(
        dealer,
        [
            TRUMP_H,
            ("fh", {"do": "bid", "contract": "normal"}),
            ("mh", {"do": "bid", "contract": "bettler"}),
            ("dl", {"do": "bid", "contract": "bettler"}),
        ],
    )
    assert code == 1 and answer["error"] == "bid_too_low", answer


def test_schnapser_with_exactly_66_in_the_fourth_trick_wins() -> None:
    """RULES.md §3 Schnapser: the declarer wins the moment his tricks (plus marriages)
    reach 66 within the first 4 tricks -- exactly 66 with the 4th trick is a win
    (6 points), not "4 tricks below 66".  Blind trump JS: Spades; by hand:
    T1 1:AS 2:KD 0:KS -> 19   T2 1:AD 2:TD 0:QD -> 43   T3 1:TS 2:KC 0:QC -> 60
    T4 1:JS 2:JH 0:JD -> 66."""
    hands = [
        ["AH", "QC", "JD", "KS", "QD", "TC"],
        ["AD", "KH", "QH", "TH", "AS", "JS"],
        ["KC", "TD", "JH", "JC", "AC", "KD"],
    ]
    script = (
        "1:blind=5 1:bid=schnapser 2:- 0:- 1:discard=TH,KH 2:- 0:- "
        "1:AS 2:KD 0:KS 1:AD 2:TD 0:QD 1:TS 2:KC 0:QC 1:JS 2:JH 0:JD"
    )
    record = {
        "game": "dreier",
        "deals": [{"dealer": 0, "hands": hands, "talon": ["QS", "TS"], "actions": _script(script)}],
    }
    code, answer = replay_record(record)
    assert isinstance(answer, dict), answer
    assert code == 0, answer
    assert answer["deals"][0]["points"] == [0, 6, 0]


def test_naming_a_higher_contract_with_the_discard_checks_the_cards_kept() -> None:
    """RULES.md §3 (raise_after_talon; holdings checked when the contract is named):
    the declarer who names Farbenringerl with his discard must hold the five cards
    of a suit among the 6 he *keeps*.  Middlehand's AS TS KS QS plus the talon's JS
    are five spades -- but he discards TH and JS: refused (the scenario record
    raise-to-farbenringerl-with-talon-card discards TH JH and is allowed)."""
    hands = [
        ["AC", "TC", "KC", "QC", "JC", "JD"],
        ["KH", "QH", "AD", "TD", "KD", "QD"],
        ["AS", "TS", "KS", "QS", "AH", "TH"],
    ]
    script = "1:trump=H 1:bid=normal 2:bid=gang 0:- 1:-"
    actions = [
        *_script(script),
        {"seat": 2, "do": "discard", "cards": ["TH", "JS"], "contract": "farbenringerl"},
    ]
    record = {
        "game": "dreier",
        "deals": [{"dealer": 0, "hands": hands, "talon": ["JS", "JH"], "actions": actions}],
    }
    code, answer = replay_record(record)
    assert isinstance(answer, dict), answer
    assert code == 1, answer
    assert (answer["action"], answer["error"]) == (5, "contract_not_allowed")


@pytest.mark.parametrize(("tricks", "right"), [(4, True), (3, False)])
def test_a_manual_call_is_announced_right_or_wrong(tricks: int, right: bool) -> None:
    """RULES.md §1 claims (auto_claim off): the table is told a claim and whether it
    was right (`Claimed` event).  The deal of test_defenders_with_exactly_66_win:
    seat 0 claims after trick 4 with 66 (right) or after trick 3 with 48 (wrong); the
    value is 3 game points either way (the declarer's side has no trick), doubled: 6."""
    plays = 3 * tricks
    actions = [*EXACTLY_66_ACTIONS[: 7 + plays], {"seat": 0, "do": "claim"}]
    options = dreier.options({"auto_claim": False})
    state, told = _played(EXACTLY_66_HANDS, ("KS", "AS"), actions, options)
    assert [(e.seat, e.correct, e.points) for e in told[-1] if isinstance(e, Claimed)] == [
        (0, right, 6)
    ]
    result = P.result(state)
    assert result is not None
    assert result.points == ((6, 0, 6) if right else (0, 6, 0))


@pytest.mark.parametrize("card", ["KS", "QS"])
def test_a_plain_marriage_counts_20_whichever_card_is_led(card: str) -> None:
    """RULES.md §1 marriage: K+Q of one suit, 20 ("Zwanziger"; 40 only in trumps),
    declared by leading the K or the Q.  Dealer 0; forehand seat 1 names Hearts, plays
    the normal game and keeps his cards (he lays the talon's KC QC away).  T1 1:AH
    2:JH 0:JC -> seat 1, 15; then he leads the King or the Queen of Spades declaring:
    15 + 20 = 35."""
    hands = [
        ["JS", "TS", "AS", "QD", "JD", "JC"],
        ["AH", "KS", "QS", "TH", "AC", "TC"],
        ["JH", "QH", "KH", "AD", "TD", "KD"],
    ]
    script = f"1:trump=H 1:bid=normal 2:- 0:- 1:discard=KC,QC 2:- 0:- 1:AH 2:JH 0:JC 1:{card}*"
    state, _ = _played(hands, ("KC", "QC"), _script(script))
    view = P.view(state, None)
    assert view.marriages == ((1, Suit.SPADES, 20),)
    assert view.points[1] == 35
    partner = "QS" if card == "KS" else "KS"
    assert (1, CARDS[index_of(partner)]) in view.known  # the other card is shown


def test_defenders_reaching_exactly_66_with_a_marriage_win_at_once() -> None:
    """RULES.md §1 auto-claim: a side is out "straight after a marriage is declared if
    that side already has a trick", at exactly 66 too; the led card's trick is not
    played out.  Dealer 0; seat 1 names Diamonds and plays the normal game; he leads
    KC declaring 20 without a trick (it waits: the table is told so); T1 -> seat 2
    (AD), the defenders have 26; seat 2 leads QD declaring 40: 66, out.  The declarer
    has no trick: 3 game points to each defender."""
    hands = [
        ["AC", "JD", "TC", "JS", "TH", "KH"],
        ["QS", "TD", "KC", "QH", "QC", "JH"],
        ["AS", "KD", "AH", "QD", "KS", "AD"],
    ]
    script = "1:trump=D 1:bid=normal 2:- 0:- 1:discard=TD,QS 2:- 0:- 1:KC* 2:AD 0:AC 2:QD*"
    state, told = _played(hands, ("TS", "JC"), _script(script))
    assert MarriageDeclared(1, Suit.CLUBS, 20, False, CARDS[index_of("QC")]) in told[7]
    result = P.result(state)
    assert result is not None
    assert (result.points, result.reason) == ((3, 0, 3), "reached_66")
    assert result.detail("side_points") == (0, 66)
    # per seat: the declarer's waiting 20 counts for nobody, seat 2 has 26 + 40
    assert (result.card_points, result.tricks) == ((0, 0, 66), (0, 0, 1))
    assert P.view(state, None).trick == ((2, CARDS[index_of("QD")]),)
    assert P.to_act(state) is None  # §1 "Ending a deal": nobody plays to the QD


def test_a_schnapser_reaching_exactly_66_with_a_marriage_is_won_at_once() -> None:
    """RULES.md §3 Schnapser: the declarer "wins the moment his tricks plus his
    marriages reach 66" -- exactly 66 too, and the deal is over then.  Dealer 0;
    forehand seat 1 names Hearts and plays the Schnapser (he lays the talon's QS JS
    away).  T1 1:AH 2:JH 0:TC -> 23; T2 1:TH 2:AD 0:JC -> 46; he leads KC declaring 20:
    66, won: 6 game points."""
    hands = [
        ["AC", "TC", "JC", "AS", "TS", "KS"],
        ["AH", "TH", "KH", "QH", "KC", "QC"],
        ["JH", "AD", "TD", "KD", "QD", "JD"],
    ]
    script = (
        "1:trump=H 1:bid=schnapser 2:- 0:- 1:discard=QS,JS 2:- 0:- "
        "1:AH 2:JH 0:TC 1:TH 2:AD 0:JC 1:KC*"
    )
    state, _ = _played(hands, ("QS", "JS"), _script(script))
    result = P.result(state)
    assert result is not None
    assert (result.points, result.reason) == ((0, 6, 0), "reached_66")
    assert result.detail("side_points") == (66, 0)
    assert P.to_act(state) is None


#: Forehand 1 names Hearts; middlehand 2 holds one Heart (JH) and no Club; dealer 0's
#: JC is below AC and (ace-low) below TC.
TRUMP_TEST_HANDS = [
    ["KC", "QC", "JC", "KS", "QS", "JS"],
    ["AH", "TH", "AC", "TC", "KD", "QD"],
    ["JH", "AD", "TD", "JD", "AS", "TS"],
]


@pytest.mark.parametrize(
    ("before_play", "lead", "trumps", "lost"),
    [
        ("1:bid=schnapser 2:- 0:- 1:discard=KD,QD 2:- 0:-", "AC", True, True),
        ("1:bid=bauernschnapser 2:- 0:- 1:discard=KD,QD 2:- 0:-", "AC", True, True),
        ("1:bid=bauernloch 2:- 0:- 1:discard=KD,QD 2:- 0:-", "TC", True, True),
        ("1:bid=zehnergang 2:- 0:- 1:discard=KD,QD 2:- 0:-", "TC", False, False),
        (
            "1:bid=normal 2:bid=kontrabauernschnapser 0:- 1:- 2:discard=AS,TS 1:- 0:-",
            "AC",
            True,
            False,
        ),
    ],
)
def test_the_contract_table_says_whether_trumps_take_tricks(
    before_play: str, lead: str, trumps: bool, lost: bool
) -> None:
    """RULES.md §3, the table's "trumps" column.  Forehand leads his top Club and
    middlehand, void in Clubs, plays JH.  In Schnapser, Bauernschnapser and Bauernloch
    Hearts are trumps: the JH takes the trick and forehand, who must win every trick,
    has lost; in Kontrabauernschnapser the JH wins middlehand, the declarer, his first
    trick.  Zehnergang has no trumps: the JH is only a discard and TC keeps the trick.
    The table shows the trump suit only where there is one."""
    script = f"1:trump=H {before_play} 1:{lead} 2:JH 0:JC"
    options = dreier.DreierOptions(bauernloch=True, zehnergang=True)
    state, _ = _played(TRUMP_TEST_HANDS, ["KH", "QH"], _script(script), options)
    view = P.view(state, None)
    assert view.trump == (Suit.HEARTS if trumps else None)
    assert dict(view.extra)["named_trump"] == Suit.HEARTS  # named, if not played
    assert view.last_trick_winner == (2 if trumps else 1)
    result = P.result(state)
    if lost:
        assert result is not None
        assert (result.winners, result.reason) == ((0, 2), "lost_trick")
    else:
        assert result is None


def test_herrenschnapser_is_played_with_the_trumps_the_declarer_holds() -> None:
    """RULES.md §3: Herrenschnapser ("Trumpfringerl") is played with trumps -- the
    five the declarer holds; the table shows them although no defender can trump."""
    hands = [
        ["KD", "QD", "JD", "AS", "TS", "KS"],
        ["AH", "TH", "KH", "QH", "JH", "AC"],
        ["TC", "KC", "QC", "JC", "AD", "TD"],
    ]
    script = "1:trump=H 1:bid=herrenschnapser 2:- 0:- 1:discard=QS,JS 2:- 0:-"
    state, _ = _played(hands, ["QS", "JS"], _script(script))
    assert P.to_act(state) == 1
    assert P.view(state, None).trump == Suit.HEARTS


def test_herrenschnapser_needs_all_five_trumps_not_any_full_suit() -> None:
    """RULES.md §3: Herrenschnapser needs "all 5 trumps" when named; forehand's five
    Clubs with Hearts trumps are a Farbenringerl's holding, not this one's
    (contract_not_allowed)."""
    hands = [
        ["KD", "QD", "JD", "AS", "TS", "KS"],
        ["AH", "AC", "TC", "KC", "QC", "JC"],
        ["TH", "KH", "QH", "JH", "AD", "TD"],
    ]
    script = "1:trump=H 1:bid=herrenschnapser"
    record = {
        "game": "dreier",
        "deals": [{"dealer": 0, "hands": hands, "talon": ["QS", "JS"], "actions": _script(script)}],
    }
    code, answer = replay_record(record)
    assert isinstance(answer, dict), answer
    assert code == 1 and answer["error"] == "contract_not_allowed", answer


#: Dealer 0: seat 1 (forehand) holds the Hearts and AS, seat 2 the Diamonds and TS,
#: dealer 0 the Clubs and KS; each of 1 and 2 holds a King and Queen.
KQ_HANDS = [
    ["AC", "TC", "KC", "QC", "JC", "KS"],
    ["AH", "TH", "KH", "QH", "JH", "AS"],
    ["AD", "TD", "KD", "QD", "JD", "TS"],
]


@pytest.mark.parametrize(
    ("script", "leader", "extras"),
    [
        ("1:trump=H 1:bid=normal 2:- 0:- 1:discard=QS,JS 2:- 0:-", 1, True),
        ("1:trump=H 1:bid=normal 2:bid=gang 0:- 1:- 2:discard=QS,JS 1:- 0:-", 2, False),
    ],
    ids=["normal", "gang"],
)
def test_marriages_and_claims_belong_to_the_normal_game(
    script: str, leader: int, extras: bool
) -> None:
    """docs/rules/dreier.md (after RULES.md §1, §3): marriages count only in the normal
    game and the Schnapser types, and a claim (auto_claim off) only in the normal game.
    The player on lead holding K+Q is offered the marriage and the claim in the normal
    game; the Gang's declarer, holding KD QD, is offered neither -- only his cards."""
    options = dreier.options({"auto_claim": False})
    state, _ = _played(KQ_HANDS, ["QS", "JS"], _script(script), options)
    assert P.to_act(state) == leader
    legal = P.legal_actions(state)
    offered = [a for a in legal if not (isinstance(a, PlayCard) and a == PlayCard(a.card))]
    assert bool(offered) is extras, offered
    if extras:
        assert Claim() in legal
        assert PlayCard(Card.from_id("KH"), marriage=True) in legal


@pytest.mark.parametrize(("discard", "allowed"), [("AD JS", False), ("TS JS", True)])
def test_a_raise_to_the_ass_bettler_needs_an_ace_among_the_cards_kept(
    discard: str, allowed: bool
) -> None:
    """RULES.md §3: Ass-Bettler needs an ace when named, and a raise names it with the
    discard (raise_after_talon), so the ace must be among the 6 cards kept.  Middlehand
    2 wins the bidding with a Bettler and takes TD JS: his only ace is AD.  Laying AD
    away with JS leaves no ace (refused); laying TS JS away keeps it."""
    hands = [
        ["AC", "TC", "KC", "QC", "JC", "KS"],
        ["AH", "TH", "KH", "QH", "JH", "AS"],
        ["AD", "KD", "QD", "JD", "TS", "QS"],
    ]
    script = "1:trump=H 1:bid=normal 2:bid=bettler 0:- 1:-"
    options = dreier.DreierOptions(assbettler=True)
    state, _ = _played(hands, ["TD", "JS"], _script(script), options)
    raise_to = Discard(Card.parse(discard), contract="assbettler")
    assert (raise_to in P.legal_actions(state)) is allowed


def test_the_defenders_marriages_are_added_up() -> None:
    """RULES.md §1 auto-claim: "the partners' points are added up" -- marriages too.
    Dealer 0; forehand 1 names Hearts and plays the normal game.  T1 1:TC 2:AC 0:QC ->
    defenders 24; seat 2 leads KD declaring 20 (44), seat 0 trumps with TH (T2: 60);
    seat 0 leads KS declaring 20: 40 in tricks and two 20s make 80, out at once.  The
    declarer has no trick: 3 game points to each defender."""
    hands = [
        ["KS", "QS", "AS", "TS", "QC", "TH"],
        ["JH", "JD", "TC", "QH", "JC", "KC"],
        ["KD", "QD", "AD", "TD", "AC", "AH"],
    ]
    script = (
        "1:trump=H 1:bid=normal 2:- 0:- 1:discard=JS,JC 2:- 0:- "
        "1:TC 2:AC 0:QC 2:KD* 0:TH 1:JD 0:KS*"
    )
    state, _ = _played(hands, ["KH", "JS"], _script(script))
    result = P.result(state)
    assert result is not None
    assert (result.points, result.reason) == ((3, 0, 3), "reached_66")
    assert result.detail("side_points") == (0, 80)
    assert P.view(state, None).phase == "over"
    assert P.legal_actions(state) == ()  # the led KS is not played out (§1)


def test_a_blind_ace_of_hearts_is_shown_as_the_trump_card() -> None:
    """RULES.md §3 Deal: a card turned blind is trumps and everyone has seen it -- the
    first card of the deck (AH) too.  Forehand 1 turns the 4th card he was dealt."""
    hands = [KQ_HANDS[0], ["TH", "KH", "QH", "AH", "JH", "AS"], KQ_HANDS[2]]
    state, _ = _played(hands, ["QS", "JS"], _script("1:blind=3"))
    ah = Card.from_id("AH")
    for seat in (0, 2, None):
        view = P.view(state, seat)
        assert (view.players, view.trump, view.trump_card) == (3, Suit.HEARTS, ah)
    assert (1, ah) in P.view(state, 0).known


@pytest.mark.parametrize(
    ("last", "error"),
    [
        (("fh", {"do": "bid", "contract": "normal"}), "bid_too_low"),
        (("fh", {"do": "play", "card": "AH"}), "action_not_allowed"),
        (("fh", {"do": "bid", "value": 100}), "invalid_bid"),
    ],
    ids=["normal-again", "a-card", "a-value"],
)
def test_bidding_refusals_say_why(last: tuple[str, dict[str, Any]], error: str) -> None:
    """RULES.md §6 / docs/rules/dreier.md codes: after middlehand's Bettler, forehand's
    normal game again is too low (not a contract he may not bid); a card or a bid by
    value (Thousand's form) is no bid at all."""
    code, answer = _replay(
        0,
        [
            TRUMP_H,
            ("fh", {"do": "bid", "contract": "normal"}),
            ("mh", {"do": "bid", "contract": "bettler"}),
            ("dl", {"do": "pass"}),
            last,
        ],
    )
    assert code == 1 and (answer["action"], answer["error"]) == (4, error), answer


NORMAL_KQ = "1:trump=H 1:bid=normal 2:- 0:- 1:discard=QS,JS 2:- 0:-"
GANG_KQ = "1:trump=H 1:bid=normal 2:bid=gang 0:- 1:- 2:discard=QS,JS 1:- 0:-"


@pytest.mark.parametrize(
    ("script", "auto", "seat", "action", "why"),
    [
        (NORMAL_KQ, True, 1, Claim(), ("claim_not_allowed", "automatic")),
        (f"{NORMAL_KQ} 1:AH", False, 2, Claim(), ("claim_not_allowed", "on lead")),
        (GANG_KQ, False, 2, Claim(), ("claim_not_allowed", "nothing to claim")),
        (GANG_KQ, True, 2, "KD*", ("marriage_not_allowed", "do not count")),
        (f"{NORMAL_KQ} 1:AH", True, 2, "KD*", ("marriage_not_allowed", "leading")),
    ],
    ids=["auto-claim", "not-on-lead", "gang-claim", "gang-marriage", "marriage-not-leading"],
)
def test_claim_and_marriage_refusals_say_why(
    script: str, auto: bool, seat: int, action: Action | str, why: tuple[str, str]
) -> None:
    """docs/rules/dreier.md codes, in KQ_HANDS' deals: a claim is refused when claims
    are automatic, when not on lead, and in a Gang (nothing to claim); a marriage in a
    Gang (marriages do not count there), and when not leading."""
    options = dreier.options({"auto_claim": auto})
    state, _ = _played(KQ_HANDS, ["QS", "JS"], _script(script), options)
    if isinstance(action, str):  # a card as the scripts write it
        action = action_from_json(_script(f"{seat}:{action}")[0])
    with pytest.raises(IllegalAction) as refused:
        P.apply(state, seat, action)
    assert refused.value.code == why[0]
    assert why[1] in refused.value.message
