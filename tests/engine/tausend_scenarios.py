"""Builds the Thousand scenario records (tests/engine/records/tausend/*.json).

    .venv/bin/python -m tests.engine.tausend_scenarios          # rewrite the files
    .venv/bin/python -m tests.engine.tausend_scenarios --check  # only compare

Long matches (the barrel, falling off three times) take many deals, so their records
are built here from explicit stacked deals rather than typed by hand.  Every deal is
one of a few hand-made layouts (`TEMPLATES`), written by *role* — D the declarer, O1
the opponent after him, O2 the next — so it can be dealt to any seats.  For each
layout the trick-by-trick play and its card points were worked out by hand below;
every expected answer is then plain arithmetic on those numbers, written as literals
with the reasoning beside them.  Nothing here asks the engine what the result is:
`test_tausend_records.py` replays the files and compares with these expectations,
and checks the committed files are what this module builds.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

OUT = Path(__file__).parent / "records" / "tausend"

Json = dict[str, Any]


@dataclass(frozen=True)
class Template:
    """A deal by roles.  `tricks`: each trick as (role, card, marriage?) in playing order.

    `points`: card points + marriages per role when played out (worked out by hand);
    `tricks_won`: tricks per role.  Stock cards are as dealt; `gives` are (card, role).
    """

    d: tuple[str, ...]
    o1: tuple[str, ...]
    o2: tuple[str, ...]
    stock: tuple[str, ...]
    gives: tuple[tuple[str, str], ...]
    tricks: tuple[tuple[tuple[str, str, bool], ...], ...]
    points: dict[str, int]
    tricks_won: dict[str, int]


def _t(*plays: str) -> tuple[tuple[str, str, bool], ...]:
    """ "D:AH O1:9H O2:JS" -> plays; a ``*`` after a card declares its marriage."""
    out = []
    for p in plays:
        role, card = p.split(":")
        out.append((role, card.rstrip("*"), card.endswith("*")))
    return tuple(out)


# Layout A: the declarer wins 6 tricks and the Hearts marriage; each opponent one trick.
#  T1 D AH  O1 9H  O2 JS  -> D 11+0+2 = 13
#  T2 D KH* (100, trumps H)  O1 9D  O2 QS -> D 4+0+3 = 7
#  T3 D QH  O1 JD  O2 KS  -> D 3+2+4 = 9
#  T4 D TH  O1 QD  O2 TS  -> D 10+3+10 = 23
#  T5 D JH  O1 KD  O2 AS  -> D 2+4+11 = 17
#  T6 D AD  O1 TD (follows)  O2 JC (no D, no trump) -> D 11+10+2 = 23
#  T7 D 9C  O1 TC  O2 AC  -> O2 0+10+11 = 21
#  T8 O2 QC  D 9S  O1 KC  -> O1 3+0+4 = 7
#  D: 13+7+9+23+17+23 = 92 + 100 = 192; O1 7 (rounds to 5); O2 21 (rounds to 20).
A = Template(
    d=("AH", "KH", "QH", "JH", "AD", "9C", "JD"),
    o1=("9H", "TD", "KD", "QD", "9D", "KC", "TC"),
    o2=("AC", "QC", "JC", "AS", "TS", "KS", "QS"),
    stock=("TH", "9S", "JS"),
    gives=(("JD", "O1"), ("JS", "O2")),
    tricks=(
        _t("D:AH", "O1:9H", "O2:JS"),
        _t("D:KH*", "O1:9D", "O2:QS"),
        _t("D:QH", "O1:JD", "O2:KS"),
        _t("D:TH", "O1:QD", "O2:TS"),
        _t("D:JH", "O1:KD", "O2:AS"),
        _t("D:AD", "O1:TD", "O2:JC"),
        _t("D:9C", "O1:TC", "O2:AC"),
        _t("O2:QC", "D:9S", "O1:KC"),
    ),
    points={"D": 192, "O1": 7, "O2": 21},
    tricks_won={"D": 6, "O1": 1, "O2": 1},
)

# Layout B: the declarer takes every trick (both opponents get a bolt).
#  T1 D AH  O1 9S  O2 JS -> 13;  T2 D KH* (100) O1 9D O2 9C -> 4;  T3 D QH O1 JD O2 JC -> 7
#  T4 D TH  O1 QD  O2 QC -> 16;  T5 D JH O1 KD O2 QS -> 9;  T6 D 9H O1 KC O2 KS -> 8
#  T7 D AD  O1 TC (no D left)  O2 TS -> 31;  T8 D TD O1 AC O2 AS -> 32
#  D: 13+4+7+16+9+8+31+32 = 120 + 100 = 220; O1 and O2 no trick.
B = Template(
    d=("AH", "KH", "QH", "JH", "9H", "AD", "TD"),
    o1=("KD", "QD", "JD", "9D", "AC", "TC", "KC"),
    o2=("QC", "JC", "9C", "AS", "TS", "KS", "QS"),
    stock=("TH", "9S", "JS"),
    gives=(("9S", "O1"), ("JS", "O2")),
    tricks=(
        _t("D:AH", "O1:9S", "O2:JS"),
        _t("D:KH*", "O1:9D", "O2:9C"),
        _t("D:QH", "O1:JD", "O2:JC"),
        _t("D:TH", "O1:QD", "O2:QC"),
        _t("D:JH", "O1:KD", "O2:QS"),
        _t("D:9H", "O1:KC", "O2:KS"),
        _t("D:AD", "O1:TC", "O2:TS"),
        _t("D:TD", "O1:AC", "O2:AS"),
    ),
    points={"D": 220, "O1": 0, "O2": 0},
    tricks_won={"D": 8, "O1": 0, "O2": 0},
)

# Layout C: O1's only trick is 9C JC 9S, worth 2 (rounds to 0): no bolt for him.
#  T1 D AH O1 KC O2 9H -> 15;  T2 D KH* (100) O1 AC O2 QC -> 18;  T3 D QH O1 TC O2 JS -> 15
#  T4 D TH O1 9D O2 QS -> 13;  T5 D JH O1 JD O2 KS -> 8;  T6 D AD O1 KD O2 TS -> 25
#  T7 D TD O1 QD O2 AS -> 24;  T8 D 9C O1 JC O2 9S -> O1 2
#  D: 15+18+15+13+8+25+24 = 118 + 100 = 218; O1 2 (one trick); O2 no trick.
C = Template(
    d=("AH", "KH", "QH", "JH", "AD", "TD", "9S"),
    o1=("KD", "QD", "JD", "9D", "AC", "TC", "KC"),
    o2=("9H", "AS", "TS", "KS", "QS", "JS", "QC"),
    stock=("TH", "9C", "JC"),
    gives=(("JC", "O1"), ("9S", "O2")),
    tricks=(
        _t("D:AH", "O1:KC", "O2:9H"),
        _t("D:KH*", "O1:AC", "O2:QC"),
        _t("D:QH", "O1:TC", "O2:JS"),
        _t("D:TH", "O1:9D", "O2:QS"),
        _t("D:JH", "O1:JD", "O2:KS"),
        _t("D:AD", "O1:KD", "O2:TS"),
        _t("D:TD", "O1:QD", "O2:AS"),
        _t("D:9C", "O1:JC", "O2:9S"),
    ),
    points={"D": 218, "O1": 2, "O2": 0},
    tricks_won={"D": 7, "O1": 1, "O2": 0},
)

# Layout T: trumps at work.  After the Hearts marriage O1 cannot follow Clubs and must
# trump; the declarer must trump Diamonds and Spades; O2 follows Clubs low with a
# higher Club in hand (no duty to beat).
#  T1 D AS O1 9D O2 9S -> D 11;  T2 D KH* (100, trumps H) O1 9H O2 JS -> D 4+0+2 = 6
#  T3 D AC O1 JH (must trump) O2 QC -> O1 11+2+3 = 16
#  T4 O1 JD D QH (must trump) O2 QS -> D 2+3+3 = 8
#  T5 D KC O1 QD O2 JC (holds TC: no duty to beat) -> D 4+3+2 = 9
#  T6 D 9C O1 KD O2 TC -> O2 0+4+10 = 14
#  T7 O2 TS D TH (must trump) O1 TD -> D 10+10+10 = 30;  T8 D AH O1 AD O2 KS -> D 26
#  D: 11+6+8+9+30+26 = 90 + 100 = 190; O1 16 (rounds to 15); O2 14 (rounds to 15).
T = Template(
    d=("AS", "TH", "KH", "QH", "AC", "KC", "9C"),
    o1=("9H", "AD", "TD", "KD", "QD", "JD", "9D"),
    o2=("TC", "JC", "QC", "TS", "KS", "QS", "JS"),
    stock=("AH", "JH", "9S"),
    gives=(("JH", "O1"), ("9S", "O2")),
    tricks=(
        _t("D:AS", "O1:9D", "O2:9S"),
        _t("D:KH*", "O1:9H", "O2:JS"),
        _t("D:AC", "O1:JH", "O2:QC"),
        _t("O1:JD", "O2:QS", "D:QH"),
        _t("D:KC", "O1:QD", "O2:JC"),
        _t("D:9C", "O1:KD", "O2:TC"),
        _t("O2:TS", "D:TH", "O1:TD"),
        _t("D:AH", "O1:AD", "O2:KS"),
    ),
    points={"D": 190, "O1": 16, "O2": 14},
    tricks_won={"D": 6, "O1": 1, "O2": 1},
)

TEMPLATES = {"A": A, "B": B, "C": C, "T": T}


def active_seats(players: int, dealer: int) -> list[int]:
    if players == 4:
        return [(dealer + k) % 4 for k in (1, 2, 3)]
    return [(dealer + k) % players for k in range(1, players + 1)]


def roles(players: int, dealer: int, declarer: int) -> dict[str, int]:
    act = active_seats(players, dealer)
    i = act.index(declarer)
    return {"D": declarer, "O1": act[(i + 1) % 3], "O2": act[(i + 2) % 3]}


def auction(players: int, dealer: int, declarer: int) -> tuple[list[Json], int]:
    """Bids that make `declarer` win: forehand opens 100; if someone else is to win he
    says 105 at his turn; everybody else passes.  Returns (actions, winning bid)."""
    act = active_seats(players, dealer)
    out: list[Json] = [{"seat": act[0], "do": "bid", "value": 100}]
    if declarer == act[0]:
        out += [{"seat": s, "do": "pass"} for s in act[1:]]
        return out, 100
    for s in act[1:]:
        out.append(
            {"seat": s, "do": "bid", "value": 105} if s == declarer else {"seat": s, "do": "pass"}
        )
    out.append({"seat": act[0], "do": "pass"})
    return out, 105


def play_actions(t: Template, r: dict[str, int]) -> list[Json]:
    out: list[Json] = []
    for trick in t.tricks:
        for role, card, marriage in trick:
            a: Json = {"seat": r[role], "do": "play", "card": card}
            if marriage:
                a["marriage"] = True
            out.append(a)
    return out


def deal(
    template: str,
    dealer: int,
    declarer: int,
    raise_to: int,
    players: int = 3,
    golden: bool = False,
) -> Json:
    """A played-out 3-seat (or 4-seat, dealer out) deal of a layout."""
    t = TEMPLATES[template]
    r = roles(players, dealer, declarer)
    hands: list[list[str]] = [[] for _ in range(players)]
    hands[r["D"]] = list(t.d)
    hands[r["O1"]] = list(t.o1)
    hands[r["O2"]] = list(t.o2)
    if golden:
        assert declarer == active_seats(players, dealer)[0], "golden: forehand declares"
        actions: list[Json] = []
    else:
        actions, _ = auction(players, dealer, declarer)
    actions += [{"seat": declarer, "do": "give", "card": c, "to": r[who]} for c, who in t.gives]
    actions.append({"seat": declarer, "do": "raise", "value": raise_to})
    actions += play_actions(t, r)
    return {"dealer": dealer, "hands": hands, "talon": list(t.stock), "actions": actions}


def record(about: str, deals: list[Json], expect: Json, options: Json | None = None) -> Json:
    out: Json = {"about": about, "game": "tausend"}
    if options:
        out["options"] = options
    out["deals"] = deals
    out["expect"] = expect
    return out


def ok(**answer: Any) -> Json:
    return {"exit": 0, "answer": {"ok": True, **answer}}


def refused(deal_no: int, action: int, error: str) -> Json:
    return {
        "exit": 1,
        "answer": {"ok": False, "deal": deal_no, "action": action, "error": error},
    }


def off(falls: int = 0) -> Json:
    return {"on": False, "attempts_left": 0, "falls": falls}


def on(left: int, falls: int = 0) -> Json:
    return {"on": True, "attempts_left": left, "falls": falls}


def summary(contract: str | None, declarer: int | None, mult: int, points: list[int]) -> Json:
    return {"contract": contract, "declarer": declarer, "multiplier": mult, "points": points}


def bid(declarer: int, points: list[int], mult: int = 1) -> Json:
    return summary("bid", declarer, mult, points)


# --- single deals ---------------------------------------------------------------------------


def single_deals() -> dict[str, Json]:
    s: dict[str, Json] = {}

    # Dealer 0: forehand 1 declares; O1 = 2, O2 = 0.
    s["deal-made-others-rounded"] = record(
        "Forehand opens with exactly 100, the others pass for good; the stock is shown and "
        "taken, one card given to each opponent, the final bid raised to 190 with the Hearts "
        "marriage in hand; the declarer leads and scores +190 with 192 (tricks 92 + marriage "
        "100); the others score card points rounded to 5: 7 -> 5, 21 -> 20 (RULES.md §5).",
        [deal("A", 0, 1, 190)],
        ok(
            finished=False,
            scores=[20, 190, 5],
            bolts=[0, 0, 0],
            bummerl=[0, 0, 0],
            deals=[bid(1, [20, 190, 5])],
            barrel=[off(), off(), off()],
        ),
    )
    s["deal-failed"] = record(
        "A declarer who raises to 195 and makes 192 (one short) scores -195; the others "
        "still score their rounded points, 7 -> 5 and 21 -> 20 (RULES.md §5).",
        [deal("A", 0, 1, 195)],
        ok(scores=[20, -195, 5], deals=[bid(1, [20, -195, 5])], bolts=[0, 0, 0]),
    )
    s["bid-won-by-later-seat"] = record(
        "Bidding goes clockwise: forehand (1) opens 100, seat 2 passes for good, the dealer "
        "(0) bids 105, forehand passes: the dealer declares; he keeps 105 on the raise and "
        "makes it (192); 7 -> 5 and 21 -> 20 for the others (RULES.md §5).",
        [deal("A", 0, 0, 105)],
        ok(scores=[105, 5, 20], deals=[bid(0, [105, 5, 20])]),
    )
    s["trumps-follow-no-duty-to-beat"] = record(
        "Play without trumps until a marriage: after the Hearts marriage a player who cannot "
        "follow must trump (JH on AC; the declarer QH on JD and TH on TS); following suit "
        "there is no duty to beat (JC on KC while holding TC).  The declarer makes exactly "
        "his 190 (90 + 100); the others' 16 and 14 both round to 15 (RULES.md §1, §5).",
        [deal("T", 0, 1, 190)],
        ok(scores=[15, 190, 15], deals=[bid(1, [15, 190, 15])]),
    )
    s["bolts-for-opponents-without-a-trick"] = record(
        "The declarer takes every trick (120 + 100, raised to 220): each opponent without a "
        "trick scores 0 and gets a bolt (RULES.md §5).",
        [deal("B", 0, 1, 220)],
        ok(scores=[0, 220, 0], bolts=[1, 0, 1], deals=[bid(1, [0, 220, 0])]),
    )
    s["no-bolt-for-a-trick-worth-nothing"] = record(
        "An opponent whose only trick is 9C JC 9S (2 points) scores 0 after rounding but has "
        "a trick, so no bolt; the other opponent, trickless, gets one.  The declarer makes "
        "215 with 218 (RULES.md §5).",
        [deal("C", 0, 1, 215)],
        ok(scores=[0, 215, 0], bolts=[1, 0, 0], deals=[bid(1, [0, 215, 0])]),
    )

    # Errors in bidding (layout A dealt by seat 0: forehand 1, then 2, then the dealer 0).
    a = deal("A", 0, 1, 100)

    def with_actions(base: Json, actions: list[Json]) -> list[Json]:
        return [{**base, "actions": actions}]

    s["error-forehand-must-bid"] = record(
        "Forehand opens the bidding with 100 and may not pass it (RULES.md §5): forehand_must_bid.",
        with_actions(a, [{"seat": 1, "do": "pass"}]),
        refused(0, 0, "forehand_must_bid"),
    )
    s["error-opening-is-exactly-100"] = record(
        "The opening bid is exactly 100 (RULES.md §5): 105 as the opening is invalid_bid.",
        with_actions(a, [{"seat": 1, "do": "bid", "value": 105}]),
        refused(0, 0, "invalid_bid"),
    )
    s["error-bid-in-steps-of-5"] = record(
        "Bids rise by multiples of 5 (RULES.md §5): 103 is invalid_bid.",
        with_actions(
            a, [{"seat": 1, "do": "bid", "value": 100}, {"seat": 2, "do": "bid", "value": 103}]
        ),
        refused(0, 1, "invalid_bid"),
    )
    s["error-bid-not-higher"] = record(
        "Each bid must be higher than the last (RULES.md §5, §6): an equal 100 is bid_too_low.",
        with_actions(
            a, [{"seat": 1, "do": "bid", "value": 100}, {"seat": 2, "do": "bid", "value": 100}]
        ),
        refused(0, 1, "bid_too_low"),
    )
    s["error-pass-is-for-good"] = record(
        "A player who passed is out of the bidding for good: when seat 2 has passed, the "
        "dealer's 105 makes it forehand's turn again, not seat 2's (not_your_turn).",
        with_actions(
            a,
            [
                {"seat": 1, "do": "bid", "value": 100},
                {"seat": 2, "do": "pass"},
                {"seat": 0, "do": "bid", "value": 105},
                {"seat": 2, "do": "bid", "value": 110},
            ],
        ),
        refused(0, 3, "not_your_turn"),
    )

    # A hand without a marriage: seat 2 holds only Aces and Tens.
    plain = {
        "dealer": 0,
        "hands": [
            ["JH", "9H", "JD", "9D", "JC", "9C", "TS"],
            ["KH", "QH", "KD", "QD", "KC", "QC", "KS"],
            ["AH", "TH", "AD", "TD", "AC", "TC", "AS"],
        ],
        "talon": ["QS", "JS", "9S"],
    }
    s["error-bid-above-120-needs-marriage"] = record(
        "Bidding above 120 needs a marriage in hand; the engine refuses it "
        "(bid_needs_marriage) where the seeds fine it afterwards (RULES.md §5).  120 itself "
        "is free.",
        with_actions(
            plain,
            [
                {"seat": 1, "do": "bid", "value": 100},
                {"seat": 2, "do": "bid", "value": 120},
                {"seat": 0, "do": "pass"},
                {"seat": 1, "do": "bid", "value": 125},
                {"seat": 2, "do": "bid", "value": 130},
            ],
        ),
        refused(0, 4, "bid_needs_marriage"),
    )
    won_at_120 = [
        {"seat": 1, "do": "bid", "value": 100},
        {"seat": 2, "do": "bid", "value": 120},
        {"seat": 0, "do": "pass"},
        {"seat": 1, "do": "pass"},
        {"seat": 2, "do": "give", "card": "JS", "to": 0},
        {"seat": 2, "do": "give", "card": "9S", "to": 1},
    ]
    s["error-raise-above-120-needs-marriage"] = record(
        "The final bid after the stock is again refused above 120 without a marriage in hand "
        "(RULES.md §5): seat 2 won at 120, took QS JS 9S and has no King-Queen pair.",
        with_actions(plain, [*won_at_120, {"seat": 2, "do": "raise", "value": 125}]),
        refused(0, 6, "bid_needs_marriage"),
    )
    s["error-raise-below-bid"] = record(
        "The final bid is at least the winning bid (RULES.md §5: raise, the same value to "
        "keep it): 115 after winning at 120 is bid_too_low.",
        with_actions(plain, [*won_at_120, {"seat": 2, "do": "raise", "value": 115}]),
        refused(0, 6, "bid_too_low"),
    )
    s["error-give-twice-to-one-opponent"] = record(
        "The declarer gives one card to each opponent (RULES.md §5): a second card to the "
        "same opponent is give_not_allowed.",
        with_actions(plain, [*won_at_120[:5], {"seat": 2, "do": "give", "card": "9S", "to": 0}]),
        refused(0, 5, "give_not_allowed"),
    )

    # Errors in play, on layout A (dealer 0, declarer 1, O1 = 2, O2 = 0).
    head = a["actions"][:6]  # bid, pass, pass, give, give, raise 100
    s["error-marriage-needs-trick"] = record(
        "A marriage is declared only by a player who has won a trick this deal "
        "(RULES.md §5): the declarer's first lead KH as a marriage is marriage_needs_trick.",
        with_actions(a, [*head, {"seat": 1, "do": "play", "card": "KH", "marriage": True}]),
        refused(0, 6, "marriage_needs_trick"),
    )
    s["error-marriage-not-held"] = record(
        "A marriage needs both King and Queen in hand when it is led (RULES.md §5): the "
        "declarer gave QH away, won a trick, then leads KH as a marriage: marriage_not_held.",
        with_actions(
            a,
            [
                *a["actions"][:3],
                {"seat": 1, "do": "give", "card": "QH", "to": 2},
                {"seat": 1, "do": "give", "card": "JS", "to": 0},
                {"seat": 1, "do": "raise", "value": 100},
                {"seat": 1, "do": "play", "card": "AH"},
                {"seat": 2, "do": "play", "card": "9H"},
                {"seat": 0, "do": "play", "card": "JS"},
                {"seat": 1, "do": "play", "card": "KH", "marriage": True},
            ],
        ),
        refused(0, 9, "marriage_not_held"),
    )
    s["error-must-follow-suit"] = record(
        "Follow suit (RULES.md §5): holding 9H, seat 2 may not play TD to AH.",
        with_actions(
            a,
            [
                *head,
                {"seat": 1, "do": "play", "card": "AH"},
                {"seat": 2, "do": "play", "card": "TD"},
            ],
        ),
        refused(0, 7, "must_follow_suit"),
    )
    t = deal("T", 0, 1, 100)
    s["error-must-trump"] = record(
        "Unable to follow, a player must trump (RULES.md §5): after the Hearts marriage, "
        "seat 2 has no Club but holds JH, so AD on AC is must_trump.",
        with_actions(t, [*t["actions"][:13], {"seat": 2, "do": "play", "card": "AD"}]),
        refused(0, 13, "must_trump"),
    )
    return s


# --- redeals -----------------------------------------------------------------------------------


def redeal_records() -> dict[str, Json]:
    s: dict[str, Json] = {}
    four_nines = {
        "dealer": 0,
        "hands": [
            ["AC", "TC", "KC", "QC", "JC", "AS", "TS"],
            ["AH", "TH", "KH", "QH", "JH", "AD", "TD"],
            ["9H", "9D", "9C", "9S", "KD", "QD", "JD"],
        ],
        "talon": ["KS", "QS", "JS"],
    }
    again = deal("A", 0, 1, 190)  # the same dealer deals again
    s["redeal-four-nines"] = record(
        "A player holding four 9s may demand a redeal (RULES.md §5), at the bidding turn he "
        "first sees his hand: the deal counts for nothing and the same dealer deals again "
        "(the next deal's 20 / 190 / 5 are layout A's).",
        [
            {
                **four_nines,
                "actions": [{"seat": 1, "do": "bid", "value": 100}, {"seat": 2, "do": "redeal"}],
            },
            again,
        ],
        ok(
            scores=[20, 190, 5],
            deals=[summary(None, None, 1, [0, 0, 0]), bid(1, [20, 190, 5])],
        ),
    )
    s["error-redeal-four-nines-too-late"] = record(
        "The four-nines claim belongs to the bidding turn the player first sees his hand; "
        "having bid instead, he may not claim it later (redeal_not_allowed).",
        [
            {
                **four_nines,
                "actions": [
                    {"seat": 1, "do": "bid", "value": 100},
                    {"seat": 2, "do": "bid", "value": 105},
                    {"seat": 0, "do": "pass"},
                    {"seat": 1, "do": "bid", "value": 110},
                    {"seat": 2, "do": "redeal"},
                ],
            }
        ],
        refused(0, 4, "redeal_not_allowed"),
    )
    stock_nines = {
        "dealer": 0,
        "hands": [
            ["KC", "QC", "JC", "KS", "QS", "JS", "TS"],
            ["AH", "TH", "KH", "QH", "JH", "AD", "TD"],
            ["9C", "9S", "KD", "QD", "JD", "AC", "TC"],
        ],
        "talon": ["9H", "9D", "AS"],
        "actions": [
            {"seat": 1, "do": "bid", "value": 100},
            {"seat": 2, "do": "pass"},
            {"seat": 0, "do": "pass"},
            {"seat": 1, "do": "redeal"},
        ],
    }
    s["redeal-two-nines-in-stock"] = record(
        "The bid winner who finds two 9s in the stock may demand a redeal (RULES.md §5), "
        "before giving a card away: the deal counts for nothing and the same dealer deals "
        "again (the record stops at the start of that deal: forehand 1 to act).",
        [stock_nines, {**again, "actions": []}],
        ok(
            scores=[0, 0, 0],
            deals=[
                bid(1, [0, 0, 0]),
                {**summary(None, None, 1, [0, 0, 0]), "open": True, "to_act": 1},
            ],
        ),
    )
    given_nine_actions: list[Json] = [
        {"seat": 1, "do": "bid", "value": 100},
        {"seat": 2, "do": "pass"},
        {"seat": 0, "do": "pass"},
        {"seat": 1, "do": "give", "card": "9S", "to": 2},
        {"seat": 1, "do": "give", "card": "KS", "to": 0},
        {"seat": 1, "do": "raise", "value": 100},
        {"seat": 1, "do": "play", "card": "AH"},
        {"seat": 2, "do": "redeal"},
    ]
    given_nine = {
        "dealer": 0,
        "hands": [
            ["TC", "KC", "QC", "JC", "AS", "TS", "JS"],
            ["AH", "TH", "KH", "QH", "JH", "AD", "TD"],
            ["9H", "9D", "9C", "KD", "QD", "JD", "AC"],
        ],
        "talon": ["9S", "KS", "QS"],
        "actions": given_nine_actions,
    }
    s["redeal-given-nine-makes-four"] = record(
        "A player who receives a 9 from the declarer and so holds four 9s may demand a "
        "redeal (RULES.md §5), at his first card: a turn of its own would tell the table "
        "where the four 9s are.",
        [given_nine],
        ok(scores=[0, 0, 0], bolts=[0, 0, 0], deals=[bid(1, [0, 0, 0])]),
    )
    declined = dict(given_nine)
    declined["actions"] = [
        *given_nine_actions[:7],
        {"seat": 2, "do": "play", "card": "9H"},
    ]
    s["redeal-given-nine-declined"] = record(
        "The receiver of a fourth 9 may also play a card instead; then the claim is gone.",
        [declined],
        ok(
            scores=[0, 0, 0],
            deals=[{**bid(1, [0, 0, 0]), "open": True, "to_act": 0}],
        ),
    )
    return s


# --- options: golden round, blind bid, 2 and 4 players --------------------------------------


def option_records() -> dict[str, Json]:
    s: dict[str, Json] = {}
    blind = deal("A", 0, 1, 190)
    blind["actions"] = [
        {"seat": 1, "do": "bid", "value": 100},
        {"seat": 2, "do": "look"},
        {"seat": 2, "do": "pass"},
        {"seat": 0, "do": "look"},
        {"seat": 0, "do": "pass"},
        *blind["actions"][3:],
    ]
    s["blind-bid-doubles"] = record(
        "With tausend.blind_bid a player may bid before looking at his hand (the others "
        "look, then pass); the blind winner's contract counts double: 190 made is +380. "
        "The others score as usual: 5 and 20 (RULES.md §5).",
        [blind],
        ok(scores=[20, 380, 5], deals=[bid(1, [20, 380, 5], 2)]),
        {"tausend.blind_bid": True},
    )
    s["error-blind-bid-above-120"] = record(
        "A blind bid may not exceed 120: without looking a player cannot know he holds a "
        "marriage (bid_needs_marriage, docs/rules/tausend.md).",
        [
            {
                **blind,
                "actions": [
                    {"seat": 1, "do": "bid", "value": 100},
                    {"seat": 2, "do": "bid", "value": 125},
                ],
            }
        ],
        refused(0, 1, "bid_needs_marriage"),
        {"tausend.blind_bid": True},
    )

    # Golden round: deals 1-3 (dealers 0, 1, 2); forehand declares 120 without bidding.
    #  1: dealer 0, D=1 layout A raised to 120 (made): 1 +240; O1 2: 5*2 = 10; O2 0: 20*2 = 40
    #  2: dealer 1, D=2 layout B raised to 220 (made): 2 +440; O1 0, O2 1: two bolts each
    #  3: dealer 2, D=0 layout A raised to 190: 0 +380; O1 1 +10; O2 2 +40
    #  4: dealer 0, no longer golden: forehand 1 bids 100, layout A kept at 120: 1 +120;
    #     O1 2 +5; O2 0 +20
    #  5: dealer 1, forehand 2 wins the bidding, layout B raised to 220: 2 +220; seats 0
    #     and 1 get a third bolt: -120 each, bolts cleared
    #  scores 0: 40 +0 +380 +20 -120 = 320; 1: 240 +0 +10 +120 -120 = 250;
    #         2: 10 +440 +40 +5 +220 = 715
    golden = [
        deal("A", 0, 1, 120, golden=True),
        deal("B", 1, 2, 220, golden=True),
        deal("A", 2, 0, 190, golden=True),
        deal("A", 0, 1, 120),
        deal("B", 1, 2, 220),
    ]
    s["golden-round"] = record(
        "tausend.golden_round: in the first round (one deal per player) forehand plays 120 "
        "without bidding and every score is doubled, bolts too (two per trickless deal); "
        "from deal 4 on the bidding is back and scores count single.  Deal 5 gives seats 0 "
        "and 1 their third bolt: -120 each and the bolts are cleared (RULES.md §5).",
        golden,
        ok(
            scores=[320, 250, 715],
            bolts=[0, 0, 0],
            deals=[
                bid(1, [40, 240, 10], 2),
                bid(2, [0, 0, 440], 2),
                bid(0, [380, 10, 40], 2),
                bid(1, [20, 120, 5]),
                bid(2, [-120, -120, 220]),
            ],
            finished=False,
        ),
        {"tausend.golden_round": True},
    )

    golden_nines: Json = {
        "dealer": 0,
        "hands": [
            ["TC", "KC", "QC", "JC", "AS", "TS", "JS"],
            ["AH", "TH", "KH", "QH", "JH", "AD", "TD"],
            ["9H", "9D", "9C", "9S", "KD", "QD", "JD"],
        ],
        "talon": ["AC", "KS", "QS"],
        "actions": [
            {"seat": 1, "do": "give", "card": "KS", "to": 2},
            {"seat": 1, "do": "give", "card": "QS", "to": 0},
            {"seat": 1, "do": "raise", "value": 120},
            {"seat": 1, "do": "play", "card": "AH"},
            {"seat": 2, "do": "redeal"},
        ],
    }
    s["golden-round-four-nines"] = record(
        "In the golden round there is no bidding turn to claim four 9s at: the holder "
        "claims at his first decision, here his first card (RULES.md §5).  The deal counts "
        "for nothing and the same dealer deals again.",
        [golden_nines],
        ok(scores=[0, 0, 0], bolts=[0, 0, 0], deals=[bid(1, [0, 0, 0], 2)]),
        {"tausend.golden_round": True},
    )

    # Two players: dealer 0, forehand 1.  See docs/rules/tausend.md for the play.
    #  T1 1 AH  0 9H -> 1: 11;  T2 1 KH* (100, trumps H) 0 9D -> 4;  T3 1 QH 0 JD -> 5
    #  T4 1 TH 0 9C -> 10;  T5 1 JH 0 JC -> 4;  T6 1 AD 0 KD -> 15;  T7 1 TD 0 QD -> 13
    #  T8 1 KC* (60, trumps C) 0 AC -> 0: 15;  T9 0 TC 1 QC -> 0: 13, the last trick,
    #  and with it the face-down stock AS TS JS with the laid QS KS 9S: 30.
    #  Declarer 1: 62 + 100 + 60 = 222 >= 220: +220.  Seat 0: 15 + 13 + 30 = 58 -> 60.
    two = {
        "dealer": 0,
        "hands": [
            ["9H", "KD", "QD", "JD", "9D", "AC", "TC", "JC", "9C"],
            ["AH", "KH", "QH", "JH", "AD", "TD", "KC", "QC", "QS"],
        ],
        "talon": ["TH", "KS", "9S", "AS", "TS", "JS"],
        "actions": [
            {"seat": 1, "do": "bid", "value": 100},
            {"seat": 0, "do": "pass"},
            {"seat": 1, "do": "discard", "cards": ["QS", "KS", "9S"]},
            {"seat": 1, "do": "raise", "value": 220},
            *[
                {"seat": seat, "do": "play", "card": card, **({"marriage": True} if m else {})}
                for seat, card, m in [
                    (1, "AH", False),
                    (0, "9H", False),
                    (1, "KH", True),
                    (0, "9D", False),
                    (1, "QH", False),
                    (0, "JD", False),
                    (1, "TH", False),
                    (0, "9C", False),
                    (1, "JH", False),
                    (0, "JC", False),
                    (1, "AD", False),
                    (0, "KD", False),
                    (1, "TD", False),
                    (0, "QD", False),
                    (1, "KC", True),
                    (0, "AC", False),
                    (0, "TC", False),
                    (1, "QC", False),
                ]
            ],
        ],
    }
    s["two-players-two-stocks"] = record(
        "tausend.players 2: 9 cards each and two stocks of 3.  The declarer takes the first "
        "stock (shown), lays 3 cards face down on the other (one discard of 3 cards), whose "
        "30 points go to the last trick's winner; two marriages in one deal, the second "
        "replacing the trumps.  222 makes the 220; the opponent's 58 rounds to 60.",
        [two],
        ok(
            scores=[60, 220],
            bolts=[0, 0],
            deals=[bid(1, [60, 220])],
            barrel=[off(), off()],
            bummerl=[0, 0],
        ),
        {"tausend.players": 2},
    )

    # Four players: dealer 0 sits out; forehand 1 declares; O1 = 2, O2 = 3.
    #  T1 1 AH 2 9H 3 JS -> 13;  T2 1 KH* (100, trumps H) 2 9D 3 9S -> 4
    #  T3 1 QH 2 JD 3 9C -> 5;  T4 1 TH 2 QD 3 JC -> 15;  T5 1 JH 2 KD 3 QC -> 9
    #  T6 1 AD 2 TD 3 TS -> 31;  T7 1 KS* (40, trumps S) 2 TC 3 AS -> 3: 25
    #  T8 3 AC 1 QS (must trump) 2 KC -> 1: 18
    #  Declarer: 95 + 140 = 235 >= 230: +230.  Seat 2: no trick, a bolt.  Seat 3: 25.
    #  The dealer scores the stock KS QS 9S: 7 + the Spades marriage 40 = 47 -> 45.
    four = {
        "dealer": 0,
        "hands": [
            [],
            ["AH", "KH", "QH", "TH", "JH", "AD", "JD"],
            ["9H", "TD", "KD", "QD", "9D", "KC", "TC"],
            ["AC", "QC", "JC", "9C", "AS", "TS", "JS"],
        ],
        "talon": ["KS", "QS", "9S"],
        "actions": [
            {"seat": 1, "do": "bid", "value": 100},
            {"seat": 2, "do": "pass"},
            {"seat": 3, "do": "pass"},
            {"seat": 1, "do": "give", "card": "JD", "to": 2},
            {"seat": 1, "do": "give", "card": "9S", "to": 3},
            {"seat": 1, "do": "raise", "value": 230},
            *[
                {"seat": seat, "do": "play", "card": card, **({"marriage": True} if m else {})}
                for seat, card, m in [
                    (1, "AH", False),
                    (2, "9H", False),
                    (3, "JS", False),
                    (1, "KH", True),
                    (2, "9D", False),
                    (3, "9S", False),
                    (1, "QH", False),
                    (2, "JD", False),
                    (3, "9C", False),
                    (1, "TH", False),
                    (2, "QD", False),
                    (3, "JC", False),
                    (1, "JH", False),
                    (2, "KD", False),
                    (3, "QC", False),
                    (1, "AD", False),
                    (2, "TD", False),
                    (3, "TS", False),
                    (1, "KS", True),
                    (2, "TC", False),
                    (3, "AS", False),
                    (3, "AC", False),
                    (1, "QS", False),
                    (2, "KC", False),
                ]
            ],
        ],
    }
    s["four-players-dealer-scores-stock"] = record(
        "tausend.players 4: the dealer sits out and scores the stock's points, a marriage in "
        "it included (KS QS 9S: 7 + 40 = 47 -> 45); the stock still goes to the declarer. "
        "Seat 2 takes no trick: a bolt (RULES.md §5).",
        [four],
        ok(scores=[45, 230, 0, 25], bolts=[0, 0, 1, 0], deals=[bid(1, [45, 230, 0, 25])]),
        {"tausend.players": 4},
    )
    return s


# --- long matches: bolts and the barrel -----------------------------------------------------


def match_records() -> dict[str, Json]:
    s: dict[str, Json] = {}

    # Third bolt.  Dealers rotate 0, 1, 2, 0; seat 0 always declares.
    #  B: 0 +220, seats 1 and 2 a bolt;  B again: bolts 2 and 2;  A (190): 1 +5, 2 +20;
    #  B: third bolts: 1 and 2 -120 each, bolts cleared.
    #  0: 220*3 + 190 = 850;  1: 5 - 120 = -115;  2: 20 - 120 = -100.
    s["third-bolt-fine"] = record(
        "Bolts add up over deals; the third costs 120 and clears them (RULES.md §5).",
        [deal("B", 0, 0, 220), deal("B", 1, 0, 220), deal("A", 2, 0, 190), deal("B", 0, 0, 220)],
        ok(
            scores=[850, -115, -100],
            bolts=[0, 0, 0],
            deals=[
                bid(0, [220, 0, 0]),
                bid(0, [220, 0, 0]),
                bid(0, [190, 5, 20]),
                bid(0, [220, -120, -120]),
            ],
        ),
    )

    # Seat 0 climbs: deals 1-4 layout A with seat 0 declaring 190: 760; deal 5: 950 -> 880.
    # Meanwhile seat 1 (O1) +5 and seat 2 (O2) +20 a deal: 25 and 100 after five deals.
    climb = [deal("A", k % 3, 0, 190) for k in range(5)]
    climb_points = [bid(0, [190, 5, 20])] * 4 + [bid(0, [120, 5, 20])]

    s["barrel-win"] = record(
        "Reaching 880 puts a player on the barrel, fixed at 880 (950 -> 880); only a bid "
        "above 120, made, wins: seat 0 makes 190 and ends the game at 1000.  The others get "
        "a Bummerl (RULES.md §5; docs/rules/tausend.md).",
        [*climb, deal("A", 2, 0, 190)],
        ok(
            finished=True,
            scores=[1000, 30, 120],
            bummerl=[0, 1, 1],
            winner=0,
            barrel=[off(), off(), off()],
            deals=[*climb_points, bid(0, [120, 5, 20])],
        ),
    )
    s["barrel-climbing"] = record(
        "A player reaching 880 climbs onto the barrel: his score is fixed at 880 (950 -> "
        "880) and he has three deals to win (RULES.md §5).",
        climb,
        ok(
            finished=False,
            scores=[880, 25, 100],
            barrel=[on(3), off(), off()],
            deals=climb_points,
        ),
    )
    # Deals 6-8 (dealers 2, 0, 1): 6: seat 1 declares A at 190 (seat 0 is O2: nothing
    # counts on the barrel; seat 2 O1 +5); 7: seat 0 declares A but keeps 120: made, yet a
    # bid of 120 on the barrel counts nothing (1 +5, 2 +20); 8: seat 1 declares A at 190
    # again.  After three deals without a win seat 0 pays the fine: 880 - 120 = 760.
    # 1: 25 + 190 + 5 + 190 = 410; 2: 100 + 5 + 20 + 5 = 130.
    attempts = [deal("A", 2, 1, 190), deal("A", 0, 0, 120), deal("A", 1, 1, 190)]
    attempts_points = [bid(1, [0, 190, 5]), bid(0, [0, 5, 20]), bid(1, [-120, 190, 5])]
    s["barrel-three-attempts"] = record(
        "On the barrel nothing counts for the player (as opponent, or declaring only 120); "
        "three deals without winning cost the barrel fine: 880 - 120 = 760, and he is off "
        "the barrel (RULES.md §5).",
        [*climb, *attempts],
        ok(
            scores=[760, 410, 130],
            barrel=[off(1), off(), off()],
            deals=[*climb_points, *attempts_points],
        ),
    )
    s["barrel-three-attempts-fine-125"] = record(
        "tausend.barrel_fine 125 (the seeds' other figure): the failed barrel costs 125, "
        "880 - 125 = 755 (RULES.md §5).",
        [*climb, *attempts],
        ok(
            scores=[755, 410, 130],
            barrel=[off(1), off(), off()],
            deals=[*climb_points, *attempts_points[:2], bid(1, [-125, 190, 5])],
        ),
        {"tausend.barrel_fine": 125},
    )
    s["barrel-failed-bid"] = record(
        "The player on the barrel who bids above 120 and fails drops to 880 minus his bid: "
        "raised to 200 with 192 made, 880 - 200 = 680, off the barrel (RULES.md §5).",
        [*climb, deal("A", 2, 0, 200)],
        ok(
            scores=[680, 30, 120],
            barrel=[off(1), off(), off()],
            deals=[*climb_points, bid(0, [-200, 5, 20])],
        ),
    )

    # Pushed off: seats 0 and 1 alternate declaring layout A at 190 (dealers rotate).
    #  D=0: 0 +190, 1 +5, 2 +20.  D=1: 1 +190, 2 +5, 0 +20.
    #  After 4 pairs: 0 840, 1 780, 2 100.  Deal 9 (D=0): 0 1030 -> 880 on the barrel;
    #  1 785; 2 120.  Deal 10 (D=1): 1 975 reaches 880 and pushes seat 0 off:
    #  0 880 - 120 = 760 (a fall); 1 880 on the barrel; 2 125.
    push = [deal("A", k % 3, 0 if k % 2 == 0 else 1, 190) for k in range(10)]
    pair = [bid(0, [190, 5, 20]), bid(1, [20, 190, 5])]
    s["barrel-pushed-off"] = record(
        "With three players only one sits on the barrel: a second player reaching 880 "
        "pushes the first off with the fine, 880 - 120 = 760 (RULES.md §5).",
        push,
        ok(
            scores=[760, 880, 125],
            barrel=[off(1), on(3), off()],
            deals=[*pair * 4, bid(0, [40, 5, 20]), bid(1, [-120, 95, 5])],
        ),
    )

    # Two together: 4 deals D=1 (190): 1 760, 2 20, 0 80.  4 deals D=0 (190): 0 840,
    # 1 780, 2 100.  4 deals D=2 at 105 (O1 = 0 +5, O2 = 1 +20): 0 860, 1 860, 2 520.
    # Deal 13 D=1 (190): 1 1050 and 0 880 reach it together; both drop back by the fine
    # to 760 and neither is on the barrel (no fall); 2 525.
    together = (
        [deal("A", k % 3, 1, 190) for k in range(4)]
        + [deal("A", k % 3, 0, 190) for k in range(4, 8)]
        + [deal("A", k % 3, 2, 105) for k in range(8, 12)]
        + [deal("A", 12 % 3, 1, 190)]
    )
    s["barrel-two-reach-together"] = record(
        "Two players reaching 880 in the same deal both drop back by the fine, to 760 "
        "(RULES.md §5); neither sits on the barrel.",
        together,
        ok(
            scores=[760, 760, 525],
            barrel=[off(), off(), off()],
            deals=[bid(1, [20, 190, 5])] * 4
            + [bid(0, [190, 5, 20])] * 4
            + [bid(2, [5, 20, 105])] * 4
            + [bid(1, [-100, -100, 5])],
        ),
    )

    # Falling off three times.  Deals 1-4 D=0 A 190: 0 760, 1 20, 2 80.
    #  5: D=0 A kept at 120: 0 880 climbs; 1 25; 2 100.
    #  6-8: D=1 A kept at 120 (0 is O2: nothing): 1 +120 x3 = 385; 2 +5 x3 = 115;
    #       after three deals 0 falls: 760 (fall 1).
    #  9: D=0 at 120: 0 880 climbs; 1 390; 2 135.
    #  10-12: D=1 at 120: 1 750; 2 150; 0 falls: 760 (fall 2).
    #  13: D=0 at 120: 0 880; 1 755; 2 170.
    #  14-16: D=2 at 120 (O1 = 0 nothing, O2 = 1 +20): 2 530; 1 815; 0 falls a third
    #         time: reset to 0 (and the count of falls starts again).
    falls = (
        [deal("A", k % 3, 0, 190) for k in range(4)]
        + [deal("A", 4 % 3, 0, 120)]
        + [deal("A", k % 3, 1, 120) for k in range(5, 8)]
        + [deal("A", 8 % 3, 0, 120)]
        + [deal("A", k % 3, 1, 120) for k in range(9, 12)]
        + [deal("A", 12 % 3, 0, 120)]
        + [deal("A", k % 3, 2, 120) for k in range(13, 16)]
    )
    d0 = bid(1, [0, 120, 5])
    s["barrel-falls-three-times"] = record(
        "Falling off the barrel for the third time resets the player to 0 (RULES.md §5): "
        "seat 0 climbs three times and each time fails his three deals.",
        falls,
        ok(
            scores=[0, 815, 530],
            barrel=[off(0), off(), off()],
            deals=[bid(0, [190, 5, 20])] * 4
            + [bid(0, [120, 5, 20])]
            + [d0, d0, bid(1, [-120, 120, 5])]
            + [bid(0, [120, 5, 20])]
            + [d0, d0, bid(1, [-120, 120, 5])]
            + [bid(0, [120, 5, 20])]
            + [bid(2, [0, 20, 120]), bid(2, [0, 20, 120]), bid(2, [-880, 20, 120])],
        ),
    )

    # Third bolt on the barrel.  Deals 1-2: D=1 layout B at 220: 1 440; 0 and 2 two
    # bolts each.  Deals 3-6: D=0 A at 190: 0 760, 1 460, 2 80.  Deal 7: D=0 A at 120:
    # 0 880 climbs; 1 465; 2 100.  Deal 8: D=1 B at 220: 1 685; seat 0 (O2) gets his
    # third bolt on the barrel: 880 - 120 = 760, off (a fall); seat 2 (O1) too: -20.
    bolt_barrel = (
        [deal("B", 0, 1, 220), deal("B", 1, 1, 220)]
        + [deal("A", k % 3, 0, 190) for k in range(2, 6)]
        + [deal("A", 6 % 3, 0, 120), deal("B", 7 % 3, 1, 220)]
    )
    s["barrel-third-bolt"] = record(
        "A third bolt on the barrel costs 120 and throws the player off: 880 - 120 = 760 "
        "(RULES.md §5).",
        bolt_barrel,
        ok(
            scores=[760, 685, -20],
            bolts=[0, 0, 0],
            barrel=[off(1), off(), off()],
            deals=[bid(1, [0, 220, 0])] * 2
            + [bid(0, [190, 5, 20])] * 4
            + [bid(0, [120, 5, 20]), bid(1, [-120, 220, -120])],
        ),
    )

    # Four players: two may sit on the barrel.  The dealer (k % 4) sits out and scores
    # the stock TH 9S JS of layout A: 12 -> 10.  D +190, O1 +5, O2 +20.
    #  0: dealer 0, D=1 (O1 2, O2 3):  0 10, 1 190, 2 5, 3 20
    #  1: dealer 1, D=0 (O1 2, O2 3):  0 200, 1 200, 2 10, 3 40
    #  2: dealer 2, D=0 (O1 3? no: active 3,0,1 -> after 0 comes 1, then 3)
    #     0 390, 1 205, 2 20, 3 60
    #  3: dealer 3, D=1 (O1 2, O2 0):  0 410, 1 395, 2 25, 3 70
    #  4: dealer 0, D=1 (O1 2, O2 3):  0 420, 1 585, 2 30, 3 90
    #  5: dealer 1, D=0 (O1 2, O2 3):  0 610, 1 595, 2 35, 3 110
    #  6: dealer 2, D=0 (O1 1, O2 3):  0 800, 1 600, 2 45, 3 130
    #  7: dealer 3, D=1 (O1 2, O2 0):  0 820, 1 790, 2 50, 3 140
    #  8: dealer 0, D=1 (O1 2, O2 3):  1 980 -> 880 on the barrel; 0 830, 2 55, 3 160
    #  9: dealer 1 (on the barrel, sitting out: nothing counts, no attempt), D=0
    #     (O1 2, O2 3): 0 1020 -> 880 on the barrel too; 2 60; 3 180
    #  10: dealer 2, D=3 (O1 0, O2 1, both on the barrel: nothing): 3 370, 2 70;
    #      one attempt each used.
    four_barrel = [
        deal("A", k % 4, d, 190, players=4) for k, d in enumerate([1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 3])
    ]
    s["barrel-two-sitters-with-four-players"] = record(
        "With four players two may sit on the barrel at once; a player on the barrel who "
        "deals sits out and uses no attempt; the dealer scores the stock (12 -> 10) "
        "(RULES.md §5, docs/rules/tausend.md).",
        four_barrel,
        ok(
            scores=[880, 880, 70, 370],
            barrel=[on(2), on(2), off(), off()],
            deals=[
                bid(1, [10, 190, 5, 20]),
                bid(0, [190, 10, 5, 20]),
                bid(0, [190, 5, 10, 20]),
                bid(1, [20, 190, 5, 10]),
                bid(1, [10, 190, 5, 20]),
                bid(0, [190, 10, 5, 20]),
                bid(0, [190, 5, 10, 20]),
                bid(1, [20, 190, 5, 10]),
                bid(1, [10, 90, 5, 20]),
                bid(0, [50, 0, 5, 20]),
                bid(3, [0, 0, 10, 190]),
            ],
        ),
        {"tausend.players": 4},
    )
    return s


def seeded_records() -> dict[str, Json]:
    """Deals dealt from a seed: the documented split (docs/rules/tausend.md), written out
    here from the shuffled deck by the rule itself — one card at a time clockwise from
    forehand (the four-player dealer skipped), 9 each for two players, else 7; the rest
    is the stock (two stocks of 3 for two players)."""
    from engine.cards import DECK24, IDS
    from engine.shuffle import shuffled

    s: dict[str, Json] = {}
    seed = "5eed0001"
    for players, dealer in ((3, 2), (2, 1), (4, 0)):
        deck = [IDS[c] for c in shuffled(DECK24, bytes.fromhex(seed))]
        active = active_seats(players, dealer)
        size = 9 if players == 2 else 7
        hands: list[list[str]] = [[] for _ in range(players)]
        for i in range(size * len(active)):
            hands[active[i % len(active)]].append(deck[i])
        talon = deck[size * len(active) :]
        name = {2: "two", 3: "three", 4: "four"}[players]
        opts = {"tausend.players": players} if players != 3 else None
        s[f"seeded-deal-{name}-players"] = record(
            f"A deal with a seed: its hands and stock must be what the SHA-256 shuffle and "
            f"the documented split give ({players} players, dealer {dealer}); forehand "
            f"{active[0]} is to bid (RULES.md §6, docs/rules/tausend.md).",
            [{"dealer": dealer, "seed": seed, "hands": hands, "talon": talon, "actions": []}],
            ok(
                deals=[{**summary(None, None, 1, [0] * players), "open": True, "to_act": active[0]}]
            ),
            opts,
        )
        if players == 3:
            swapped = [hands[1], hands[0], hands[2]]
            s["error-seed-mismatch"] = record(
                "Hands that are not what the seed deals are refused (seed_mismatch, "
                "RULES.md §6): two seats' hands swapped.",
                [{"dealer": dealer, "seed": seed, "hands": swapped, "talon": talon, "actions": []}],
                {
                    "exit": 1,
                    "answer": {"ok": False, "deal": 0, "action": None, "error": "seed_mismatch"},
                },
            )
    s["not-a-record-dealer-not-a-seat"] = record(
        "A first dealer who is no seat of the table (seats 0..2) makes the document no "
        "record (exit 2, RULES.md §6), not a crash of the replay.",
        [{"dealer": 3, "seed": seed, "actions": []}],
        {"exit": 2, "message_contains": "the first dealer must be a seat 0..2, not 3"},
    )
    return s


def all_records() -> dict[str, Json]:
    out: dict[str, Json] = {}
    parts = (single_deals(), redeal_records(), option_records(), match_records(), seeded_records())
    for part in parts:
        assert not set(part) & set(out)
        out.update(part)
    return out


def dumps(rec: Json) -> str:
    """One deal or action per line: readable diffs, stable output."""
    lines = ["{"]
    items = list(rec.items())
    for i, (key, value) in enumerate(items):
        comma = "," if i < len(items) - 1 else ""
        if key == "deals":
            lines.append('  "deals": [')
            for j, d in enumerate(value):
                dc = "," if j < len(value) - 1 else ""
                head = {k: v for k, v in d.items() if k != "actions"}
                body = json.dumps(head, ensure_ascii=False)[:-1]
                acts = d.get("actions", [])
                if not acts:
                    lines.append(f'    {body}, "actions": []}}{dc}')
                    continue
                lines.append(f'    {body}, "actions": [')
                for k, a in enumerate(acts):
                    ac = "," if k < len(acts) - 1 else ""
                    lines.append(f"      {json.dumps(a, ensure_ascii=False)}{ac}")
                lines.append(f"    ]}}{dc}")
            lines.append(f"  ]{comma}")
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    recs = all_records()
    if not check:
        OUT.mkdir(parents=True, exist_ok=True)
    for name, rec in recs.items():
        path = OUT / f"{name}.json"
        text = dumps(rec)
        if check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(path.name)
        else:
            path.write_text(text, encoding="utf-8")
    known = {f"{n}.json" for n in recs}
    extra = sorted(p.name for p in OUT.glob("*.json") if p.name not in known)
    if check and (stale or extra):
        print("stale:", stale, "not generated:", extra)
        return 1
    print(f"{len(recs)} records {'checked' if check else 'written'} in {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
