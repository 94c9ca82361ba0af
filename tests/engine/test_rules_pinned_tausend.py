"""Thousand rules (RULES.md §5) pinned at their edges, found missing by a mutation
audit: each test names the rule it pins."""

from __future__ import annotations

from typing import Any

import pytest

from engine import actions as A
from engine import protocol as P
from engine.cards import Card, index_of
from engine.errors import IllegalAction
from engine.events import (
    BidMade,
    CardGiven,
    ContractSettled,
    DealEnded,
    Discarded,
    Event,
    HandShown,
    Passed,
    Raised,
    Redealt,
    TalonTaken,
    redact,
)
from engine.record import replay_record
from engine.tausend import start_deal
from engine.tausend.rules import TausendOptions, stock_value

from .props import played_through


def test_golden_round_contract_is_120_by_forehand() -> None:
    """RULES.md §5 option tausend.golden_round: in the first round forehand must play
    120 -- no bidding; the deal opens with forehand the declarer at exactly 120."""
    state = start_deal(TausendOptions(golden_round=True), 0, seed=b"g", golden=True)
    view = P.view(state, None)
    extra = dict(view.extra)
    assert view.declarer == 1  # forehand: the dealer's left
    assert (extra["bid"], extra["bidder"], extra["golden"]) == (120, 1, True)


#: The deal of the scenario records error-bid-above-120-needs-marriage and
#: error-raise-above-120-needs-marriage: seat 1 holds four marriages, seat 2 none.
HANDS = [
    ["JH", "9H", "JD", "9D", "JC", "9C", "TS"],
    ["KH", "QH", "KD", "QD", "KC", "QC", "KS"],
    ["AH", "TH", "AD", "TD", "AC", "TC", "AS"],
]
STOCK = ["QS", "JS", "9S"]


def _replay(
    actions: list[dict[str, Any]],
    hands: list[list[str]] = HANDS,
    stock: list[str] = STOCK,
    **options: object,
) -> tuple[int, Any]:
    """Replay `actions` on the deal of `hands` and `stock` (dealer 0) with the given
    ``tausend.<name>`` options."""
    record = {
        "game": "tausend",
        "options": {f"tausend.{k}": v for k, v in options.items()},
        "deals": [{"dealer": 0, "hands": hands, "talon": stock, "actions": actions}],
    }
    return replay_record(record)


def _run(
    actions: list[dict[str, Any]],
    hands: list[list[str]] = HANDS,
    stock: list[str] = STOCK,
    **options: Any,
) -> tuple[P.DealCore, list[Event]]:
    """`actions` (as in a record) applied through the protocol to the deal of `hands`
    and `stock` (dealer 0) with the given `TausendOptions`: the state and every
    event, in order."""
    state: P.DealCore = start_deal(
        TausendOptions(**options),
        0,
        golden=bool(options.get("golden_round")),  # the match's first deal
        hands=[[index_of(c) for c in h] for h in hands],
        talon=[index_of(c) for c in stock],
    )
    state, told = played_through(state, actions)
    return state, [e for events in told for e in events]


def _bid(seat: int, value: int | None = None) -> dict[str, Any]:
    if value is None:
        return {"seat": seat, "do": "pass"}
    return {"seat": seat, "do": "bid", "value": value}


@pytest.mark.parametrize(("value", "error"), [(120, None), (125, "bid_needs_marriage")])
def test_the_first_bid_above_120_needs_a_marriage(value: int, error: str | None) -> None:
    """RULES.md §5 Bidding: a bid above 120 needs a marriage in hand -- 120 is free,
    125 (the very next bid) is refused for seat 2, who holds no King-Queen pair."""
    code, answer = _replay([_bid(1, 100), _bid(2, value)])
    if error is None:
        assert code == 0, answer
    else:
        assert code == 1 and answer["error"] == error, answer


def test_the_table_hears_each_bid_and_pass_and_sees_the_stock_taken() -> None:
    """RULES.md §5 Bidding and Stock: bids and passes are said aloud -- each is told
    to the table as it is made, the view names the high bid and its bidder (a later
    seat's, not forehand's); when the others have passed the contract is told, and
    the stock is shown to all as the declarer takes it."""
    state, _ = _run([_bid(1, 100), _bid(2, 110)])
    extra = dict(P.view(state, 0).extra)  # seat 0's first turn: nothing blind, no claim
    assert (extra["bid"], extra["bidder"], extra["blind"], extra["redeal_claim"]) == (
        110,
        2,
        False,
        None,
    )
    state, events = _run([_bid(1, 100), _bid(2, 110), _bid(0)])
    assert events == [BidMade(1, value=100), BidMade(2, value=110), Passed(0)]
    _, events = _run([_bid(1, 100), _bid(2, 110), _bid(0), _bid(1)])
    assert events[3:] == [
        Passed(1),
        ContractSettled(2, "bid", value=110),
        TalonTaken(2, tuple(Card.from_id(c) for c in STOCK), shown=True),
    ]


def test_a_seat_that_passed_is_not_asked_again() -> None:
    """RULES.md §5 Bidding: a pass is for good -- after seat 0 passes, the turn goes
    from seat 2 straight back to seat 1."""
    state, _ = _run([_bid(1, 100), _bid(2, 105), _bid(0), _bid(1, 110), _bid(2, 115)])
    assert P.to_act(state) == 1


def test_a_blind_winner_is_shown_as_blind_and_counts_double() -> None:
    """RULES.md §5 option tausend.blind_bid: "bid before looking: doubled" -- the
    table sees who has looked, then the contract marked blind and its multiplier 2 (the scenario record
    blind-bid-doubles plays such a deal out)."""
    look = [{"seat": s, "do": "look"} for s in range(3)]
    state, _ = _run([_bid(1, 100), look[2]], blind_bid=True)
    assert dict(P.view(state, 0).extra)["looked"] == (False, False, True)  # who bids blind
    state, _ = _run([_bid(1, 100), look[2], _bid(2), look[0], _bid(0)], blind_bid=True)
    view = P.view(state, 2)
    assert (dict(view.extra)["blind"], view.multiplier) == (True, 2)


@pytest.mark.parametrize(
    ("value", "error"),
    [(100, "bid_too_low"), (105, None), (120, None), (125, "bid_needs_marriage")],
)
def test_a_blind_bid_raises_by_5_up_to_120(value: int, error: str | None) -> None:
    """RULES.md §5 Bidding with tausend.blind_bid: a seat bidding before it looks
    still raises -- seat 2, blind, may not bid forehand's 100 again; 105 and 120
    are fine, 125 is not (he cannot know he holds a marriage, docs/rules/tausend.md)."""
    code, answer = _replay([_bid(1, 100), _bid(2, value)], blind_bid=True)
    if error is None:
        assert code == 0, answer
    else:
        assert code == 1 and answer["error"] == error, answer


@pytest.mark.parametrize(
    ("declarer", "final"),
    [(2, 120), (1, 400)],
    ids=["no-marriage-up-to-120", "marriage-up-to-the-maximum"],
)
def test_the_final_bid_may_go_up_to_its_limit(declarer: int, final: int) -> None:
    """RULES.md §5 Stock: the declarer states his final bid; without a marriage in
    hand it may go up to 120 itself, with one up to the most a deal can score
    (120 card points + all four marriages = 400)."""
    other = 3 - declarer
    auction = [_bid(1, 100), _bid(2, 110), _bid(0)]
    auction += [_bid(1)] if declarer == 2 else [_bid(1, 115), _bid(2)]
    gives = [
        {"seat": declarer, "do": "give", "card": "JS", "to": 0},
        {"seat": declarer, "do": "give", "card": "9S", "to": other},
    ]
    code, answer = _replay([*auction, *gives, {"seat": declarer, "do": "raise", "value": final}])
    assert code == 0, answer
    assert answer["deals"][0]["open"] is True


@pytest.mark.parametrize(("suit", "marriage"), [("H", 100), ("D", 80), ("C", 60), ("S", 40)])
def test_marriage_values_by_suit(suit: str, marriage: int) -> None:
    """RULES.md §5: marriages are worth H 100, D 80, C 60, S 40.  Seen through the
    four-player rule: the sitting-out dealer scores the stock's card points, a
    marriage in it included (K 4 + Q 3 + 9 0 + the marriage)."""
    stock = sum(1 << index_of(c + suit) for c in ("K", "Q", "9"))
    assert stock_value(stock) == 7 + marriage


#: The deal of the scenario records redeal-given-nine-makes-four / -declined: seat 1
#: declares and gives the 9S to seat 2, who then holds four 9s; seat 1 leads AH.
GIVEN_NINE_HANDS = [
    ["TC", "KC", "QC", "JC", "AS", "TS", "JS"],
    ["AH", "TH", "KH", "QH", "JH", "AD", "TD"],
    ["9H", "9D", "9C", "KD", "QD", "JD", "AC"],
]
GIVEN_NINE_STOCK = ["9S", "KS", "QS"]
GIVEN_NINE_ACTIONS: list[dict[str, Any]] = [
    _bid(1, 100),
    _bid(2),
    _bid(0),
    {"seat": 1, "do": "give", "card": "9S", "to": 2},
    {"seat": 1, "do": "give", "card": "KS", "to": 0},
    {"seat": 1, "do": "raise", "value": 100},
    {"seat": 1, "do": "play", "card": "AH"},
]


def test_a_redeal_for_a_given_nine_names_its_reason() -> None:
    """RULES.md §5 Deal: a player who receives a 9 from the declarer and so holds four
    9s may demand a redeal; the table is told that reason (`Redealt.reason`
    "given_nine", not the stock's or a dealt hand's).  The deal of the scenario record
    redeal-given-nine-makes-four."""
    actions = [*GIVEN_NINE_ACTIONS, {"seat": 2, "do": "redeal"}]
    state, events = _run(actions, GIVEN_NINE_HANDS, GIVEN_NINE_STOCK)
    nines = tuple(Card.from_id("9" + s) for s in "HDCS")
    after = events[events.index(Redealt(2, "given_nine")) :]
    assert [type(e) for e in after] == [Redealt, HandShown, DealEnded]  # no card played
    assert after[1] == HandShown(2, nines)
    result = P.result(state)  # the deal counts for nothing: no points, no tricks
    assert result is not None and result.reason == "redeal"
    assert (result.points, result.card_points, result.tricks) == ((0, 0, 0),) * 3
    assert result.detail("bolts") == (0, 0, 0) and P.view(state, 0).phase == "over"
    assert P.to_act(state) is None


def test_a_given_nine_claim_not_made_at_once_is_gone() -> None:
    """docs/rules/tausend.md "Redeal claims" (RULES.md §5 Deal): the receiver of a
    fourth 9 claims at his first card or not at all -- seat 2 plays 9H instead, and
    at his next card `redeal` is refused."""
    plays = [{"seat": s, "do": "play", "card": c} for s, c in ((2, "9H"), (0, "TC"), (1, "TH"))]
    actions = [*GIVEN_NINE_ACTIONS, *plays, {"seat": 2, "do": "redeal"}]
    code, answer = _replay(actions, GIVEN_NINE_HANDS, GIVEN_NINE_STOCK)
    assert code == 1, answer
    assert (answer["action"], answer["error"]) == (len(actions) - 1, "redeal_not_allowed")


def test_one_nine_in_the_stock_gives_the_declarer_no_redeal() -> None:
    """RULES.md §5 Deal: the bid winner may demand a redeal if *two* 9s are in the
    stock; with one (QS JS 9S) his `redeal` is refused (redeal_not_allowed,
    docs/rules/tausend.md "Redeal claims")."""
    code, answer = _replay([_bid(1, 100), _bid(2), _bid(0), {"seat": 1, "do": "redeal"}])
    assert code == 1, answer
    assert (answer["action"], answer["error"]) == (3, "redeal_not_allowed")


def test_four_dealt_nines_kept_past_the_first_look_give_no_redeal_at_the_first_card() -> None:
    """RULES.md §5 Deal: the first-card redeal belongs to a player who *receives a 9
    from the declarer* and so holds four 9s.  Seat 2 was dealt four 9s, bid instead of
    claiming, and receives the KS: at his first card `redeal` is refused."""
    hands = [
        ["AC", "TC", "KC", "QC", "JC", "AS", "TS"],
        ["AH", "TH", "KH", "QH", "JH", "AD", "TD"],
        ["9H", "9D", "9C", "9S", "KD", "QD", "JD"],
    ]
    actions: list[dict[str, Any]] = [
        _bid(1, 100),
        _bid(2, 105),
        _bid(0),
        _bid(1, 110),
        _bid(2),
        {"seat": 1, "do": "give", "card": "KS", "to": 2},
        {"seat": 1, "do": "give", "card": "QS", "to": 0},
        {"seat": 1, "do": "raise", "value": 110},
        {"seat": 1, "do": "play", "card": "AH"},
        {"seat": 2, "do": "redeal"},
    ]
    code, answer = _replay(actions, hands, ["KS", "QS", "JS"])
    assert isinstance(answer, dict), answer
    assert code == 1, answer
    assert (answer["action"], answer["error"]) == (9, "redeal_not_allowed")


#: The deal of the scenario record redeal-two-nines-in-stock (stock 9H 9D AS).
TWO_NINES_HANDS = [
    ["KC", "QC", "JC", "KS", "QS", "JS", "TS"],
    ["AH", "TH", "KH", "QH", "JH", "AD", "TD"],
    ["9C", "9S", "KD", "QD", "JD", "AC", "TC"],
]


@pytest.mark.parametrize("declarer", [1, 0])
def test_a_redeal_for_two_nines_in_the_stock_names_its_reason(declarer: int) -> None:
    """RULES.md §5 Deal: the bid winner who finds two 9s in the stock may demand a
    redeal; the table is told that reason ("stock_nines") and the result names the
    contract and its declarer -- seat 0 too.  The deal of the scenario record
    redeal-two-nines-in-stock (seat 0 outbids forehand with 105 in the second case)."""
    auction = (
        [_bid(1, 100), _bid(2), _bid(0)]
        if declarer
        else [_bid(1, 100), _bid(2), _bid(0, 105), _bid(1)]
    )
    actions = [*auction, {"seat": declarer, "do": "redeal"}]
    state, events = _run(actions, TWO_NINES_HANDS, ["9H", "9D", "AS"])
    assert [(e.seat, e.reason) for e in events if isinstance(e, Redealt)] == [
        (declarer, "stock_nines")
    ]
    result = P.result(state)
    assert result is not None and (result.contract, result.declarer) == ("bid", declarer)


def test_the_two_nines_claim_is_gone_after_the_first_give() -> None:
    """docs/rules/tausend.md "Redeal claims" (RULES.md §5 Deal): the declarer claims a
    redeal for two 9s in the stock before his first give; having given a card he
    plays the deal (redeal_not_allowed)."""
    give = {"seat": 1, "do": "give", "card": "AS", "to": 2}
    actions = [_bid(1, 100), _bid(2), _bid(0), give, {"seat": 1, "do": "redeal"}]
    code, answer = _replay(actions, TWO_NINES_HANDS, ["9H", "9D", "AS"])
    assert code == 1, answer
    assert (answer["action"], answer["error"]) == (4, "redeal_not_allowed")


def test_a_given_card_is_told_to_the_table_and_seen_by_giver_and_receiver_only() -> None:
    """RULES.md §5 Stock: the declarer gives one card to each opponent, face down --
    the table is told that he gave, the receiver (and the giver) which card."""
    _, events = _run(
        [_bid(1, 100), _bid(2), _bid(0), {"seat": 1, "do": "give", "card": "JS", "to": 2}]
    )
    assert events[-1] == CardGiven(1, 2, Card.from_id("JS"))
    assert [redact(events[-1], s) for s in (0, None)] == [CardGiven(1, 2, None)] * 2


def test_a_declarer_after_forehand_states_his_final_bid_and_leads() -> None:
    """RULES.md §5 Stock: the declarer states his final bid (told to the table) and
    leads first -- seat 2 here, not forehand: his card opens the first trick."""
    gives = [{"seat": 2, "do": "give", "card": c, "to": s} for c, s in (("QS", 0), ("JS", 1))]
    raise_ = {"seat": 2, "do": "raise", "value": 110}
    auction = [_bid(1, 100), _bid(2, 110), _bid(0), _bid(1)]
    _, events = _run([*auction, *gives, raise_])
    assert events[-1] == Raised(2, value=110)
    state, _ = _run([*auction, *gives, raise_, {"seat": 2, "do": "play", "card": "AH"}])
    assert P.view(state, None).trick == ((2, Card.from_id("AH")),)
    assert "discarded" not in dict(P.view(state, 2).extra)  # three players lay nothing away


def test_two_players_the_laid_cards_are_told_but_seen_by_the_declarer_only() -> None:
    """RULES.md §5 option tausend.players 2: the declarer lays 3 cards face down on
    the other stock -- the table is told that he laid 3, only he sees which (the
    deal of the scenario record two-players-two-stocks)."""
    hands = [
        ["9H", "KD", "QD", "JD", "9D", "AC", "TC", "JC", "9C"],
        ["AH", "KH", "QH", "JH", "AD", "TD", "KC", "QC", "QS"],
    ]
    cards = ["QS", "KS", "9S"]
    laid = {"seat": 1, "do": "discard", "cards": cards}
    stocks = ["TH", "KS", "9S", "AS", "TS", "JS"]
    _, events = _run([_bid(1, 100), _bid(0), laid], hands, stocks, players=2)
    event = events[-1]
    assert isinstance(event, Discarded) and event.count == 3
    assert set(event.cards or ()) == {Card.from_id(c) for c in cards}
    assert redact(event, 0) == Discarded(1, None, 3)


#: Forehand (seat 1) is dealt four 9s.
GOLDEN_FOUR_NINES: tuple[list[list[str]], list[str]] = (
    [
        ["JH", "TH", "JD", "TD", "JC", "TC", "TS"],
        ["9H", "9D", "9C", "9S", "KH", "QH", "KS"],
        ["AH", "AD", "AC", "AS", "KD", "QD", "KC"],
    ],
    ["QS", "JS", "QC"],
)


def test_in_the_golden_round_a_declarer_with_four_nines_claims_at_his_first_give() -> None:
    """RULES.md §5 Deal and option tausend.golden_round: a player holding four 9s may
    demand a redeal; with no bidding, forehand -- the declarer at 120 -- claims at
    his first decision, his first give (docs/rules/tausend.md "Redeal claims")."""
    state, events = _run([{"seat": 1, "do": "redeal"}], *GOLDEN_FOUR_NINES, golden_round=True)
    assert Redealt(1, "four_nines") in events and P.to_act(state) is None


_TWO_PLAYER_HANDS = [
    ["AC", "TC", "KC", "QC", "JC", "AS", "TS", "KS", "QS"],
    ["AH", "TH", "KH", "QH", "JH", "AD", "TD", "KD", "QD"],
]


@pytest.mark.parametrize(
    ("hands", "stocks", "golden", "allowed"),
    [
        (_TWO_PLAYER_HANDS, "9H 9D JD JS 9C 9S", False, True),
        (_TWO_PLAYER_HANDS, "9H JD JS 9D 9C 9S", False, False),
        (
            [
                ["AD", "TD", "KD", "QD", "JD", "AC", "TC", "KC", "QC"],
                ["9H", "9D", "9C", "9S", "AH", "TH", "KH", "QH", "JH"],
            ],
            "JC AS TS KS QS JS",
            True,
            True,
        ),
    ],
    ids=["two-nines-in-the-stock", "one-nine-in-the-stock", "golden-four-nines-in-hand"],
)
def test_two_players_the_declarer_claims_a_redeal_at_his_discard(
    hands: list[list[str]], stocks: str, golden: bool, allowed: bool
) -> None:
    """RULES.md §5 Deal, option tausend.players 2: the declarer claims a redeal for
    two 9s in the stock he took (not for one), or -- in the golden round, with no
    bidding -- for four 9s in hand, at his first decision: the discard onto the other
    stock (docs/rules/tausend.md "Redeal claims")."""
    auction = [] if golden else [_bid(1, 100), _bid(0)]
    actions = [*auction, {"seat": 1, "do": "redeal"}]
    code, answer = _replay(actions, hands, stocks.split(), players=2, golden_round=golden)
    if allowed:
        assert code == 0 and "open" not in answer["deals"][0], answer
    else:
        assert code == 1 and answer["error"] == "redeal_not_allowed", answer


def test_a_wrong_opening_is_refused_naming_the_100() -> None:
    """RULES.md §5 Bidding: forehand "must open with exactly 100" -- the refusal of
    his 105 tells him so, with the number he must bid."""
    code, answer = _replay([_bid(1, 105)])
    assert code == 1 and answer["error"] == "invalid_bid", answer
    assert "exactly 100" in answer["message"], answer


#: Seat 0, the dealer (the last to bid), is dealt four 9s.
FOUR_NINES_AT_SEAT_0: tuple[list[list[str]], list[str]] = (
    [
        ["9H", "9D", "9C", "9S", "KH", "QH", "KS"],
        ["JH", "TH", "JD", "TD", "JC", "TC", "TS"],
        ["AH", "AD", "AC", "AS", "KD", "QD", "KC"],
    ],
    ["QS", "JS", "QC"],
)


def test_the_last_bidder_with_four_nines_claims_at_his_first_turn() -> None:
    """RULES.md §5 Deal: a player holding four 9s may demand a redeal -- at the
    bidding turn he first sees his hand, for the dealer (the last to bid) too: seat 0
    claims after forehand's 100 and seat 2's pass (docs/rules/tausend.md)."""
    state, events = _run(
        [_bid(1, 100), _bid(2), {"seat": 0, "do": "redeal"}], *FOUR_NINES_AT_SEAT_0
    )
    assert Redealt(0, "four_nines") in events and P.to_act(state) is None


@pytest.mark.parametrize(
    ("hands", "stock", "why"),
    [
        ([[*HANDS[0], HANDS[1][0]], HANDS[1][1:], HANDS[2]], STOCK, "hand 0 must have 7 cards"),
        ([HANDS[0], HANDS[1] + HANDS[2]], STOCK, "tausend for 3 needs 3 hands"),
        (
            [[*HANDS[0][:6], "9S"], HANDS[1], HANDS[2]],
            STOCK,
            "the hands and stock must hold each card of the 24-card deck exactly once",
        ),
        (HANDS, STOCK[:2], "the stock has 3 cards"),
    ],
    ids=["uneven-hands", "two-hands", "a-card-twice", "a-short-stock"],
)
def test_a_record_dealing_other_than_7_cards_to_each_of_3_is_refused(
    hands: list[list[str]], stock: list[str], why: str
) -> None:
    """RULES.md §5 Deal: 7 cards each, 3 to the stock (§6: a record that is not such a
    deal exits 2) -- 8 and 6 cards are refused though all 24 cards are there, and so
    are two hands for three players, a 9S dealt twice and a stock of 2, each saying
    what is wrong, once."""
    code, answer = _replay([], hands, stock)
    assert (code, answer) == (2, f"not a valid record: deals[0]: {why}")


@pytest.mark.parametrize(
    ("players", "hands", "stock", "why"),
    [
        (
            2,
            [HANDS[0] + HANDS[2][:2], HANDS[1] + HANDS[2][2:4]],
            STOCK,
            "the stock has 6 cards (two stocks of 3)",
        ),
        (
            4,
            [*HANDS, []],
            STOCK,
            "hand 0 must have 0 cards (the sitting-out dealer holds no cards)",
        ),
    ],
    ids=["two-players-one-stock", "four-players-the-dealer-dealt-in"],
)
def test_a_record_dealing_other_than_the_table_size_s_deal_is_refused(
    players: int, hands: list[list[str]], stock: list[str], why: str
) -> None:
    """RULES.md §5 Deal: two players get 9 cards each and two stocks of 3; with four
    the dealer (seat 0 here) sits out with no cards.  A record with one stock of 3 for
    two, or the four-player dealer dealt 7, is refused saying so."""
    code, answer = _replay([], hands, stock, players=players)
    assert (code, answer) == (2, f"not a valid record: deals[0]: {why}")


#: HANDS' deal to the play: seat 1 wins the bidding at 100, gives JS and 9S, keeps 100.
AUCTION = [_bid(1, 100), _bid(2), _bid(0)]
GIVES = [
    {"seat": 1, "do": "give", "card": "JS", "to": 2},
    {"seat": 1, "do": "give", "card": "9S", "to": 0},
]
KEPT = [{"seat": 1, "do": "raise", "value": 100}]
#: Two players: seat 1 wins at 100 and takes the stock 9H 9D JD, to lay 3 away.
TWO_PLAYERS: tuple[list[list[str]], list[str]] = (
    _TWO_PLAYER_HANDS,
    ["9H", "9D", "JD", "JS", "9C", "9S"],
)
#: Seat 2 is dealt four 9s.
FOUR_NINES: tuple[list[list[str]], list[str]] = (
    [
        ["JH", "TH", "JD", "TD", "JC", "TC", "TS"],
        ["KH", "QH", "KD", "QD", "KC", "QC", "KS"],
        ["9H", "9D", "9C", "9S", "AD", "AC", "AS"],
    ],
    ["AH", "QS", "JS"],
)
_C = Card.from_id


@pytest.mark.parametrize(
    ("actions", "deal", "options", "seat", "action", "why"),
    [
        ([], None, {}, 1, A.Look(), "this table does not bid blind (tausend.blind_bid)"),
        (
            [{"seat": 1, "do": "look"}],
            None,
            {"blind_bid": True},
            1,
            A.Look(),
            "you have already looked at your hand",
        ),
        (
            [],
            None,
            {},
            1,
            A.Bid(),
            "a Thousand bid is a number of points, e.g. {'do': 'bid', 'value': 100}",
        ),
        (
            [],
            None,
            {},
            1,
            A.Bid("normal"),
            "a Thousand bid is a number of points, e.g. {'do': 'bid', 'value': 100}",
        ),
        ([], None, {}, 1, A.Bid(value=103), "bids go in steps of 5, not 103"),
        ([_bid(1, 100)], None, {}, 2, A.Bid(value=405), "no deal can score more than 400"),
        (AUCTION, None, {}, 1, A.Pass(), "the declarer gives one card to each opponent now (give)"),
        (AUCTION, None, {}, 1, A.Give(_C("AH"), 2), "AH is not in your hand"),
        (
            AUCTION,
            None,
            {},
            1,
            A.Give(_C("9S"), 1),
            "give one card to each opponent; still to receive: seat 2 and seat 0",
        ),
        (
            [*AUCTION, GIVES[0]],
            None,
            {},
            1,
            A.Give(_C("9S"), 2),
            "give one card to each opponent; still to receive: seat 0",
        ),
        (
            [_bid(1, 100)],
            None,
            {"blind_bid": True},
            2,
            A.Bid(value=125),
            "a blind bid may not exceed 120: you have not seen your hand",
        ),
        (
            [*AUCTION, *GIVES, *KEPT],
            None,
            {},
            1,
            A.PlayCard(_C("KS"), marriage=True),
            "you may declare the S marriage only once you have won a trick",
        ),
        (
            [_bid(1, 100), {"seat": 2, "do": "look"}],
            None,
            {"blind_bid": True},
            2,
            A.Bid(value=125),
            "a bid above 120 needs a marriage in hand",
        ),
        ([*AUCTION, *GIVES], None, {}, 1, A.Raise(103), "bids go in steps of 5, not 103"),
        ([*AUCTION, *GIVES], None, {}, 1, A.Raise(405), "no deal can score more than 400"),
        (
            [*AUCTION, *GIVES],
            None,
            {},
            1,
            A.Pass(),
            "the declarer states his final bid now (raise)",
        ),
        (
            [_bid(1, 100), _bid(0)],
            TWO_PLAYERS,
            {"players": 2},
            1,
            A.Pass(),
            "the declarer lays 3 cards face down on the other stock now",
        ),
        (
            [_bid(1, 100), _bid(0)],
            TWO_PLAYERS,
            {"players": 2},
            1,
            A.Discard((_C("AC"), _C("AH"), _C("TH"))),
            "AC is not in your hand",
        ),
        (
            [_bid(1, 100), _bid(0)],
            TWO_PLAYERS,
            {"players": 2},
            1,
            A.Discard((_C("9D"), _C("AH"))),
            "lay exactly 3 different cards on the other stock",
        ),
        (
            [*AUCTION, *GIVES, *KEPT],
            None,
            {},
            1,
            A.Pass(),
            "the cards are being played: play a card",
        ),
        (
            [*AUCTION, *GIVES, *KEPT],
            None,
            {},
            1,
            A.PlayCard(_C("AH"), marriage=True),
            "AH is not in your hand",
        ),
        (
            [_bid(1, 100), _bid(2, 105), _bid(0), _bid(1, 110)],
            FOUR_NINES,
            {},
            2,
            A.Redeal(),
            "four 9s are claimed at the bidding turn you first see your hand",
        ),
        (
            [*AUCTION, {"seat": 1, "do": "give", "card": "AS", "to": 2}],
            (TWO_NINES_HANDS, ["9H", "9D", "AS"]),
            {},
            1,
            A.Redeal(),
            "two 9s in the stock are claimed before the first card is given away",
        ),
        *(
            (
                before,
                None,
                {},
                1,
                A.Redeal(),
                "a redeal needs four 9s in your hand (at your first look, or at your first card "
                "after receiving a 9) or, for the declarer, two 9s in the stock",
            )
            for before in ([], AUCTION)
        ),
    ],
    ids=[
        "look-not-blind",
        "look-twice",
        "bid-nothing",
        "bid-a-contract",
        "bid-103",
        "bid-405",
        "pass-at-the-give",
        "give-a-card-not-held",
        "give-to-himself",
        "give-twice-to-one",
        "blind-bid-125",
        "marriage-before-a-trick",
        "looked-bid-125-without-a-marriage",
        "raise-103",
        "raise-405",
        "pass-at-the-raise",
        "pass-at-the-discard",
        "discard-a-card-not-held",
        "discard-2-cards",
        "pass-in-the-play",
        "marriage-of-a-card-not-held",
        "four-nines-past-the-first-look",
        "two-nines-after-a-give",
        "no-nines",
        "one-nine-in-the-stock",
    ],
)
def test_refusals_say_why(
    actions: list[dict[str, Any]],
    deal: tuple[list[list[str]], list[str]] | None,
    options: dict[str, Any],
    seat: int,
    action: A.Action,
    why: str,
) -> None:
    """RULES.md §5 / docs/rules/tausend.md codes, in the words a player pressing a stale
    or forged button reads: an action of another phase (a look at a table that does
    not bid blind or by a seat that has looked, a pass at the give, the final bid, the
    discard or in the play), malformed bids and final bids (no number, off the steps
    of 5, above the 400 a deal can score, a blind one above 120), a give or a discard
    of a card not held, a give to himself or twice to one opponent, a discard of 2
    cards, a marriage of a card not held or before a trick is won, and a redeal whose
    moment is gone or that has no 9s to claim (none at the bidding, one in the stock)."""
    hands, stock = deal or (HANDS, STOCK)
    state, _ = _run(actions, hands, stock, **options)
    assert P.to_act(state) == seat
    with pytest.raises(IllegalAction) as refused:
        P.apply(state, seat, action)
    assert refused.value.message == why


def test_the_table_sees_the_last_trick_and_with_four_the_stock_s_value() -> None:
    """RULES.md §5: the table sees the final bid and the trick just taken (seat 2's AH
    over KH and JH); with four players the sitting-out dealer scores the stock, so
    once it is taken every view shows what it is worth (QS JS 9S: 5 card points, no
    marriage)."""
    plays = [{"seat": s, "do": "play", "card": c} for s, c in ((1, "KH"), (2, "AH"), (0, "JH"))]
    state, _ = _run([*AUCTION, *GIVES, *KEPT, *plays])
    view = P.view(state, None)
    trick = tuple((s, Card.from_id(c)) for s, c in ((1, "KH"), (2, "AH"), (0, "JH")))
    assert (view.last_trick, view.last_trick_winner) == (trick, 2)
    assert "stock_value" not in dict(view.extra)  # three players: the stock is the declarer's
    assert dict(view.extra)["value"] == 100  # the final bid, kept
    state, _ = _run([_bid(1, 100), _bid(2), _bid(3)], [[], *HANDS], STOCK, players=4)
    assert P.view(state, None).declarer == 1
    assert dict(P.view(state, 1).extra)["stock_value"] == 5


@pytest.mark.parametrize(
    ("actions", "deal", "golden", "claim"),
    [
        (GIVEN_NINE_ACTIONS, (GIVEN_NINE_HANDS, GIVEN_NINE_STOCK), False, "given_nine"),
        (AUCTION, (TWO_NINES_HANDS, ["9H", "9D", "AS"]), False, "stock_nines"),
        ([_bid(1, 100), _bid(2)], FOUR_NINES_AT_SEAT_0, False, "four_nines"),
        ([], GOLDEN_FOUR_NINES, True, "four_nines"),
        ([], (HANDS, STOCK), False, None),
        (AUCTION, (HANDS, STOCK), False, None),
    ],
    ids=[
        "given-nine",
        "stock-nines",
        "four-nines",
        "golden-four-nines",
        "none",
        "none-at-the-give",
    ],
)
def test_the_seat_to_act_is_offered_the_redeal_it_may_claim(
    actions: list[dict[str, Any]],
    deal: tuple[list[list[str]], list[str]],
    golden: bool,
    claim: str | None,
) -> None:
    """docs/rules/tausend.md "Redeal claims": the seat to act -- and only he, since
    that he may claim tells where 9s are -- sees which redeal he may claim now: the
    receiver of a fourth 9 at his first card, the declarer with two 9s in the stock at
    the give, the dealer holding four 9s at his first bid, the golden round's declarer
    holding four 9s at his first give; nobody in an ordinary deal."""
    state, _ = _run(actions, *deal, golden_round=golden)
    seat = P.to_act(state)
    assert seat is not None
    for s in (*range(3), None):
        assert dict(P.view(state, s).extra)["redeal_claim"] == (claim if s == seat else None)


def test_seat_0_winning_the_bidding_is_shown_as_bidder_and_declarer() -> None:
    """RULES.md §5 Bidding: seat 0 outbids forehand's 100 with 105 and seats 1 and 2
    have passed -- every view names him as the high bidder and the declarer of a bid
    worth 105 (seat 0 is a seat like any other, not "nobody"), and only his own view
    lists what he may do now (give a card)."""
    state, _ = _run([_bid(1, 100), _bid(2), _bid(0, 105), _bid(1)])
    view = P.view(state, None)
    extra = dict(view.extra)
    assert (view.contract, view.declarer) == ("bid", 0)
    assert (extra["bid"], extra["bidder"], extra["value"], extra["passed"]) == (105, 0, 105, (1, 2))
    assert P.view(state, 0).legal == P.legal_actions(state) != ()
    assert P.view(state, 1).legal == P.view(state, None).legal == ()
