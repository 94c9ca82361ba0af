"""Bauernschnapsen rules of RULES.md §4 and §6 that the scenario records left unproven:
the whole "who may bid" and "first lead" columns of the contract table, the whole
priority order of the auction, the doubling order when seat order and order from
forehand differ, and heading the partner's card.  Each test plays hand-built deals
through the public protocol and names the RULES.md line it checks."""

from __future__ import annotations

import pytest

from engine import bauern
from engine import protocol as P
from engine.actions import Action, Bid, ChooseTrump, Double, Pass, PlayCard
from engine.bauern import BauernOptions
from engine.cards import Card, Suit, index_of
from engine.errors import IllegalAction

#: Every option of RULES.md §4 that adds a contract, on.
ALL = BauernOptions(assbettler=True, zehnergang=True)

#: Each seat holds one whole suit, so every holding of the table (an ace, a full suit,
#: all five trumps for forehand) is met and only the seat decides what it may bid.
#: Seat 1 deals, so seat 2 is forehand (hearts, his suit, are trumps), seat 3 his
#: left, seat 0 his partner and seat 1 the dealer.
WHOLE_SUITS = [
    ["AC", "TC", "KC", "QC", "JC"],
    ["AS", "TS", "KS", "QS", "JS"],
    ["AH", "TH", "KH", "QH", "JH"],
    ["AD", "TD", "KD", "QD", "JD"],
]
DEALER = 1
FOREHAND = 2


def _seat(position: int) -> int:
    """The seat `position` places clockwise from forehand (0 forehand ... 3 dealer)."""
    return (FOREHAND + position) % 4


def _start(hands: list[list[str]], opts: BauernOptions = ALL, dealer: int = DEALER) -> P.DealCore:
    return bauern.start_deal(opts, dealer, hands=[[index_of(c) for c in h] for h in hands])


def _run(state: P.DealCore, *moves: tuple[int, Action]) -> P.DealCore:
    for seat, action in moves:
        state, _ = P.apply(state, seat, action)
    return state


def _bids(state: P.DealCore) -> set[str]:
    return {a.contract for a in P.legal_actions(state) if isinstance(a, Bid) and a.contract}


#: RULES.md §4, the "who may bid" column, by priority position (0 forehand, 1 his left,
#: 2 his partner, 3 the dealer).
WHO_MAY_BID = {
    "normal": {0},
    "bettler": {0, 1, 2, 3},
    "assbettler": {0, 1, 2, 3},
    "schnapser": {0, 2},
    "gang": {0, 1, 2, 3},
    "zehnergang": {0, 1, 2, 3},
    "kontraschnapser": {1, 3},
    "bauernschnapser": {0, 2},
    "farbengang": {1, 2, 3},
    "kontrabauernschnapser": {1, 3},
    "herrenschnapser": {0},
}


def test_who_may_bid_each_contract_is_the_contract_tables_column() -> None:
    """RULES.md §4 table, "who may bid": with every holding met, each seat is offered
    exactly the contracts its place at the table allows.  Forehand opens with any of
    his (the normal game included); the others are asked in turn over his normal game,
    which only he may bid."""
    state = _run(_start(WHOLE_SUITS), (FOREHAND, ChooseTrump(suit=Suit.HEARTS)))
    offered = {0: _bids(state)}
    state = _run(state, (FOREHAND, Bid("normal")))
    for position in (1, 2, 3):
        assert P.to_act(state) == _seat(position)
        offered[position] = _bids(state)
        state = _run(state, (_seat(position), Pass()))
    want = {p: {c for c, who in WHO_MAY_BID.items() if p in who} for p in range(4)}
    want = {p: cs - {"normal"} if p else cs for p, cs in want.items()}
    assert offered == want


#: For a Gang held at each priority position, the moves before it (position, bid;
#: None is a pass) that keep the others in the auction.
BEFORE_THE_GANG = {
    0: [],
    1: [(0, "normal")],
    2: [(0, "normal"), (1, "bettler")],
    3: [(0, "normal"), (1, "bettler"), (2, "schnapser")],
}


@pytest.mark.parametrize("holder", [0, 1, 2, 3])
def test_the_same_contract_may_be_bid_only_with_higher_priority(holder: int) -> None:
    """RULES.md §4: priority is forehand, forehand's left, forehand's partner, dealer;
    "a player may bid the same contract as the last bidder only if he has higher
    priority, else higher or pass".  After a Gang at `holder`'s place, every other
    player still in the auction is asked in turn: the Gang is offered to exactly those
    before `holder` in that order."""
    state = _run(_start(WHOLE_SUITS), (FOREHAND, ChooseTrump(suit=Suit.HEARTS)))
    for position, contract in [*BEFORE_THE_GANG[holder], (holder, "gang")]:
        state = _run(state, (_seat(position), Bid(contract)))
    asked = {}
    while P.view(state, None).phase == "bidding":
        seat = P.to_act(state)
        assert seat is not None
        asked[(seat - FOREHAND) % 4] = "gang" in _bids(state)
        state = _run(state, (seat, Pass()))
    assert asked == {p: p < holder for p in range(4) if p != holder}
    assert (P.view(state, None).contract, P.view(state, None).declarer) == ("gang", _seat(holder))


#: (contract, priority position of its declarer, who leads trick 1, trumps): RULES.md
#: §4 table, "first lead" and "trumps" columns.
FIRST_LEAD = [
    ("normal", 0, 0, Suit.HEARTS),
    ("bettler", 1, 1, None),
    ("assbettler", 3, 3, None),
    ("schnapser", 2, 0, Suit.HEARTS),
    ("gang", 2, 2, None),
    ("zehnergang", 1, 1, None),
    ("kontraschnapser", 3, 0, Suit.HEARTS),
    ("bauernschnapser", 2, 0, Suit.HEARTS),
    ("kontrabauernschnapser", 1, 0, Suit.HEARTS),
]


@pytest.mark.parametrize(
    ("contract", "declarer", "leader", "trump"), FIRST_LEAD, ids=[c for c, *_ in FIRST_LEAD]
)
def test_first_lead_and_trumps_follow_the_contract_table(
    contract: str, declarer: int, leader: int, trump: Suit | None
) -> None:
    """RULES.md §4 table: forehand leads the contracts played in his trumps, whoever
    declared them (his partner's Schnapser and Bauernschnapser, the opponents' Kontra
    contracts); the declarer leads the no-trump ones (Bettler, Ass-Bettler, Gang,
    Zehnergang)."""
    state = _run(_start(WHOLE_SUITS), (FOREHAND, ChooseTrump(suit=Suit.HEARTS)))
    if declarer == 0:
        state = _run(state, (FOREHAND, Bid(contract)), *((_seat(p), Pass()) for p in (1, 2, 3)))
    else:
        state = _run(state, (FOREHAND, Bid("normal")))
        for position in (1, 2, 3):
            move: Action = Bid(contract) if position == declarer else Pass()
            state = _run(state, (_seat(position), move))
        state = _run(state, (FOREHAND, Pass()))
    while P.view(state, None).phase == "doubling":
        seat = P.to_act(state)
        assert seat is not None
        state = _run(state, (seat, Pass()))
    view = P.view(state, None)
    assert (view.phase, view.contract, view.declarer) == ("play", contract, _seat(declarer))
    assert view.to_act == _seat(leader)
    assert view.trump == trump


#: Seat 0 deals, so seat 1 is forehand and seat 3 his partner.
DOUBLING_HANDS = [
    ["AH", "KH", "QH", "AD", "TD"],
    ["TH", "JH", "KD", "QD", "JD"],
    ["AC", "TC", "KC", "QC", "JC"],
    ["AS", "TS", "KS", "QS", "JS"],
]


def test_doubling_asks_the_opponents_in_order_from_forehand_not_by_seat_number() -> None:
    """RULES.md §6 doubling order: (1) each opponent of the declarer "in seat order from
    forehand", (2) the declarer then his partner, (3) the opponents again as in (1).
    Seat 0 deals and forehand's partner (seat 3) plays a Gang: his opponents are seats 2
    and 0, and from forehand (seat 1) seat 2 comes first, although 0 < 2."""
    state = _run(
        _start(DOUBLING_HANDS, BauernOptions(), dealer=0),
        (1, ChooseTrump(suit=Suit.HEARTS)),
        (1, Bid("normal")),
        (2, Pass()),
        (3, Bid("gang")),
        (0, Pass()),
        (1, Pass()),
    )
    assert P.to_act(state) == 2
    with pytest.raises(IllegalAction) as refused:
        P.apply(state, 0, Double())
    assert refused.value.code == "not_your_turn"
    state = _run(state, (2, Pass()))
    assert P.to_act(state) == 0
    state = _run(state, (0, Double()), (3, Pass()), (1, Double()))  # Kontra, Rekontra
    assert P.to_act(state) == 2  # the Subkontra round starts again from forehand's side
    state = _run(state, (2, Pass()), (0, Pass()))
    view = P.view(state, None)
    assert (view.phase, view.multiplier, view.to_act) == ("play", 4, 3)


def test_the_bettlers_partner_who_plays_may_rekontra() -> None:
    """RULES.md §4: only the *sitting-out* partner of a Bettler does not double; with
    bauern.bettler_partner_plays he plays and, as the declarer's side, is asked for the
    Rekontra after the declarer (§6 round 2), then the opponents for the Subkontra."""
    state = _run(
        _start(DOUBLING_HANDS, BauernOptions(bettler_partner_plays=True), dealer=3),
        (0, ChooseTrump(suit=Suit.HEARTS)),
        (0, Bid("normal")),
        (1, Bid("bettler")),
        (2, Pass()),
        (3, Pass()),
        (0, Pass()),
        (0, Double()),
        (1, Pass()),
    )
    assert P.to_act(state) == 3
    state = _run(state, (3, Double()))
    assert P.to_act(state) == 0 and P.view(state, None).multiplier == 4
    state = _run(state, (0, Pass()), (2, Pass()))
    view = P.view(state, None)
    assert (view.phase, view.to_act, view.sitting_out) == ("play", 1, None)


def test_a_follower_must_head_his_partners_card_too() -> None:
    """RULES.md §1 rule 1: follow suit and play higher than every card of the led suit
    in the trick -- the seed adds "even when this means beating a high card played by
    their partner".  Forehand leads the King of spades; his partner, holding the Ace
    and Queen of spades, may play only the Ace."""
    hands = [
        ["KS", "AH", "TH", "AD", "TD"],
        ["JS", "KH", "KD", "QD", "JD"],
        ["AS", "QS", "AC", "TC", "KC"],
        ["TS", "QH", "JH", "QC", "JC"],
    ]
    state = _run(
        _start(hands, BauernOptions(), dealer=3),
        (0, ChooseTrump(suit=Suit.HEARTS)),
        (0, Bid("normal")),
        *((s, Pass()) for s in (1, 2, 3, 1, 3)),
        (0, PlayCard(Card.from_id("KS"))),
        (1, PlayCard(Card.from_id("JS"))),
    )
    assert P.legal_actions(state) == (PlayCard(Card.from_id("AS")),)
    with pytest.raises(IllegalAction) as refused:
        P.apply(state, 2, PlayCard(Card.from_id("QS")))
    assert refused.value.code == "must_beat"
