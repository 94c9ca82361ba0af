"""Bauernschnapsen rules (RULES.md §4) pinned at their edges, found missing by a
mutation audit: each test names the rule it pins."""

from __future__ import annotations

from typing import Any

import pytest

from engine import actions as A
from engine import bauern
from engine import protocol as P
from engine.bauern import BauernOptions
from engine.cards import CARDS, DECK20, Card, Suit, index_of
from engine.errors import IllegalAction
from engine.events import Claimed, ContractSettled, Event
from engine.record import replay_record

from .props import played_through

#: The deal of the scenario records kontra-beats-bettler / error-bettler-after-kontra.
HANDS = [
    ["AH", "TH", "AD", "AC", "AS"],
    ["KH", "TD", "JD", "TC", "TS"],
    ["QH", "KD", "JC", "KC", "KS"],
    ["JH", "QD", "QS", "QC", "JS"],
]


def _replay(actions: list[dict[str, Any]], options: dict[str, Any] | None = None) -> Any:
    record: dict[str, Any] = {
        "game": "bauern",
        "deals": [{"dealer": 3, "hands": HANDS, "actions": actions}],
    }
    if options is not None:
        record["options"] = options
    return replay_record(record)


@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_seeded_split_starts_with_forehand_for_every_dealer(dealer: int) -> None:
    """RULES.md §4 / docs/rules/bauern.md: 3 cards each from forehand (the dealer's
    left) clockwise, then 2 each -- for every dealer, not only for seat 1."""
    deck = list(DECK20)
    hands = bauern.deal_from_deck(deck, dealer=dealer)
    for k in range(4):
        seat = (dealer + 1 + k) % 4
        assert hands[seat] == [*deck[3 * k : 3 * k + 3], *deck[12 + 2 * k : 14 + 2 * k]]


def test_kontra_over_a_bettler_still_lets_higher_contracts_be_bid() -> None:
    """Option bauern.kontra_beats_bettler (RULES.md §4, docs/rules/bauern.md): after a
    Kontra over a Bettler no Bettler may be bid again -- but a contract ranked above
    the Bettler family (here Gang) still may be."""
    actions = [
        {"seat": 0, "do": "trump", "suit": "H"},
        {"seat": 0, "do": "bid", "contract": "normal"},
        {"seat": 1, "do": "pass"},
        {"seat": 2, "do": "bid", "contract": "bettler"},
        {"seat": 3, "do": "double"},
        {"seat": 2, "do": "bid", "contract": "gang"},
    ]
    code, answer = _replay(actions, {"bauern.kontra_beats_bettler": True})
    assert code == 0, answer
    assert answer["deals"][0]["open"] is True


@pytest.mark.parametrize(
    ("doubling", "mult"),
    [("1:pass 3:pass", 1), ("1:double 0:pass 2:pass", 2)],
    ids=["undoubled", "kontra"],
)
def test_declare_and_go_out_leads_the_card_named(doubling: str, mult: int) -> None:
    """RULES.md §1 (auto_claim off): "forty, and I'm out" -- the marriage is declared
    by leading the K or Q named, which stays on the table while the claim ends the
    deal.  Leading the Queen shows the Queen, not the King (the deal of the scenario
    record normal-manual-marriage-claim: team 0 has 48 and claims 68).  The claim is
    told at what it wins: 3, or 6 after a Kontra (RULES.md §4)."""
    hands = [
        ["AH", "TH", "AD", "KC", "QC"],
        ["KH", "TD", "JD", "TC", "TS"],
        ["QH", "KD", "JC", "AC", "KS"],
        ["JH", "QD", "QS", "JS", "AS"],
    ]
    state: P.DealCore = bauern.start_deal(
        BauernOptions(auto_claim=False), 3, hands=[[index_of(c) for c in h] for h in hands]
    )
    script: list[tuple[int, A.Action]] = [
        (0, A.ChooseTrump(Suit.HEARTS)),
        (0, A.Bid("normal")),
        *((s, A.Pass()) for s in (1, 2, 3)),
    ]
    for text in doubling.split():
        who, said = text.split(":")
        script.append((int(who), A.Double() if said == "double" else A.Pass()))
    for text in ["0:AH", "1:KH", "2:QH", "3:JH", "0:AD", "1:TD", "2:KD", "3:QD"]:
        who, card = text.split(":")
        script.append((int(who), A.PlayCard(CARDS[index_of(card)])))
    script.append((0, A.PlayCard(CARDS[index_of("QC")], marriage=True, claim=True)))
    events: tuple[Event, ...] = ()
    for seat, action in script:
        state, events = P.apply(state, seat, action)
    result = P.result(state)
    assert result is not None and result.points == (3 * mult, 0, 3 * mult, 0)
    assert Claimed(0, True, 3 * mult) in events  # the table is told the claim was right
    assert P.view(state, None).trick == ((0, CARDS[index_of("QC")]),)


def _scripted(
    hands: list[list[str]], script: str, options: BauernOptions | None = None
) -> tuple[P.DealCore, tuple[Event, ...]]:
    """Dealer 3; forehand seat 0 names Hearts, then `script` ("0:normal 1:- 0:KD 1:KH*":
    a lower-case word is a bid, ``-`` a pass, ``kontra`` a double, ``*`` declares the
    marriage)."""
    actions: list[dict[str, Any]] = [{"seat": 0, "do": "trump", "suit": "H"}]
    for item in script.split():
        seat, what = item.split(":")
        if what == "-":
            actions.append({"seat": int(seat), "do": "pass"})
        elif what == "kontra":
            actions.append({"seat": int(seat), "do": "double"})
        elif what.islower():
            actions.append({"seat": int(seat), "do": "bid", "contract": what})
        else:
            act: dict[str, Any] = {"seat": int(seat), "do": "play", "card": what.rstrip("*")}
            if what.endswith("*"):
                act["marriage"] = True
            actions.append(act)
    state: P.DealCore = bauern.start_deal(
        options or BauernOptions(), 3, hands=[[index_of(c) for c in h] for h in hands]
    )
    state, told = played_through(state, actions)
    return state, told[-1]


#: (hands, actions, points) of two deals won by a marriage declared on the lead: the
#: scenario records kontraschnapser-won-on-marriage (seat 1 declares the 40 with 27)
#: and normal-marriage-claim-two-points (seat 2 declares the 40 with his team's 26).
WON_ON_A_MARRIAGE = {
    "kontraschnapser": (
        [
            ["JH", "KD", "QD", "JD", "JC"],
            ["AH", "TH", "KH", "QH", "AD"],
            ["TD", "AC", "TC", "KC", "QC"],
            ["AS", "TS", "KS", "QS", "JS"],
        ],
        "0:normal 1:kontraschnapser 2:- 3:- 0:- 0:- 2:- 0:KD 1:AD 2:TD 3:JS 1:KH*",
        (0, 12, 0, 12),
    ),
    "normal": (
        [
            ["JD", "AH", "TC", "TD", "AS"],
            ["AD", "JC", "TH", "KC", "TS"],
            ["QD", "AC", "KH", "QH", "JH"],
            ["KD", "QC", "KS", "QS", "JS"],
        ],
        "0:normal 1:- 2:- 3:- 1:- 3:- 0:JD 1:AD 2:QD 3:KD 1:JC 2:AC 3:QC 0:TC 2:KH*",
        (2, 0, 2, 0),
    ),
}


@pytest.mark.parametrize("deal", list(WON_ON_A_MARRIAGE), ids=list(WON_ON_A_MARRIAGE))
def test_a_deal_won_on_a_marriage_is_over_at_once(deal: str) -> None:
    """RULES.md §1 "Ending a deal" / auto-claim and §4: a side that reaches 66 with a
    marriage declared on the lead wins at once; the led card's trick is not played
    out, nobody is to act any more and a further card is refused with deal_over."""
    hands, script, points = WON_ON_A_MARRIAGE[deal]
    state, events = _scripted(hands, script)
    result = P.result(state)
    assert result is not None and result.points == points
    assert not [e for e in events if isinstance(e, Claimed)]  # auto_claim: nobody claimed
    assert P.to_act(state) is None
    with pytest.raises(IllegalAction) as refused:
        P.apply(state, 3, A.PlayCard(CARDS[index_of("QS")]))
    assert refused.value.code == "deal_over"


#: (hands, actions, points, tricks) of deals won by a trick (no marriage declared),
#: Hearts trumps, found by random playouts and checked by hand:
WON_ON_A_TRICK = {
    # T1 0:AC -> s0 20   T2 3:AD -> s3 28   T3 0:TH -> s0 40   T4 0:QH (trumps) -> 66
    # exactly, with a trick still to play; team 1 has 28 < 33: 2 game points.
    "normal-exactly-66": (
        [
            ["QH", "TH", "AC", "AH", "KD"],
            ["KS", "KC", "QS", "TD", "AS"],
            ["QD", "JH", "JS", "JC", "TC"],
            ["JD", "QC", "KH", "TS", "AD"],
        ],
        "0:normal 1:- 2:- 3:- 1:- 3:- "
        "0:AC 1:KC 2:JC 3:QC 0:KD 1:TD 2:QD 3:AD 3:KH 0:TH 1:KS 2:JH 0:QH 1:AS 2:TC 3:JD",
        (2, 0, 2, 0),
        (3, 0, 0, 1),
    ),
    # Schnapser of seat 0: T1 25, T2 39, T3 (the last that may) 66 exactly; he holds
    # the 40 but never declares it.
    "schnapser-exactly-66": (
        [
            ["JD", "QH", "KH", "JS", "AH"],
            ["JC", "KD", "QC", "QS", "AD"],
            ["TH", "TD", "KC", "KS", "TC"],
            ["JH", "AS", "QD", "AC", "TS"],
        ],
        "0:schnapser 1:- 2:- 3:- 1:- 3:- "
        "0:AH 1:JC 2:TH 3:JH 0:KH 1:QC 2:KC 3:QD 0:QH 1:KD 2:TC 3:TS",
        (6, 0, 6, 0),
        (3, 0, 0, 0),
    ),
    # Kontraschnapser of seat 1 (team 1): T1 1:QH trumps the AC -> 27, T2 1:AH -> 60,
    # T3 1:TH -> 88: won by the third trick, for seats 1 and 3.
    "kontraschnapser-of-team-1": (
        [
            ["JH", "AC", "TC", "KC", "QC"],
            ["AH", "TH", "KH", "QH", "AD"],
            ["JC", "TD", "KD", "QD", "JD"],
            ["AS", "TS", "KS", "QS", "JS"],
        ],
        "0:normal 1:kontraschnapser 2:- 3:- 0:- 0:- 2:- "
        "0:AC 1:QH 2:JC 3:AS 1:AH 2:TD 3:TS 0:JH 1:TH 2:KD 3:KS 0:TC",
        (0, 12, 0, 12),
        (0, 3, 0, 0),
    ),
}


@pytest.mark.parametrize("deal", list(WON_ON_A_TRICK), ids=list(WON_ON_A_TRICK))
def test_a_deal_won_on_a_trick_is_over_at_once(deal: str) -> None:
    """RULES.md §1 auto-claim: "the engine claims for a side the moment its card points
    plus counting marriages reach 66: after each completed trick" -- exactly 66 too,
    and not only on the last trick (which would be worth 1); §4 Schnapser and
    Kontraschnapser: "reaching 66 before the third trick wins at once", for the
    declarer's team whichever team that is."""
    hands, script, points, tricks = WON_ON_A_TRICK[deal]
    state, _ = _scripted(hands, script)
    result = P.result(state)
    assert result is not None
    assert (result.points, result.reason) == (points, "reached_66")
    assert result.tricks == tricks
    assert P.to_act(state) is None


def test_the_aufschlag_card_is_public() -> None:
    """RULES.md §4 Aufschlagen: forehand picks one of his last 2 cards face down and it
    is turned up -- every other seat's view knows forehand holds it."""
    state: P.DealCore = bauern.start_deal(
        BauernOptions(), 3, hands=[[index_of(c) for c in h] for h in HANDS]
    )
    assert P.view(state, 0).multiplier == 1  # nothing doubled before the auction
    state, _ = P.apply(state, 0, A.ChooseTrump(blind=4))  # HANDS[0][4]: the AS
    for seat in (1, 2, 3):
        assert (0, CARDS[index_of("AS")]) in P.view(state, seat).known


def test_only_an_opponent_of_forehand_may_kontra_over_his_partners_bettler() -> None:
    """Option bauern.kontra_beats_bettler (RULES.md §4, docs/rules/bauern.md): the
    Kontra over a Bettler of forehand's team is the opponents' -- seat 3 may say it,
    forehand (seat 0), whose team holds the Bettler, may not."""
    state: P.DealCore = bauern.start_deal(
        BauernOptions(kontra_beats_bettler=True),
        3,
        hands=[[index_of(c) for c in h] for h in HANDS],
    )
    moves: list[tuple[int, A.Action]] = [
        (0, A.ChooseTrump(Suit.HEARTS)),
        (0, A.Bid("normal")),
        (1, A.Pass()),
        (2, A.Bid("bettler")),
    ]
    for seat, action in moves:
        state, _ = P.apply(state, seat, action)
    assert A.Double() in P.legal_actions(state)
    state, _ = P.apply(state, 3, A.Pass())
    assert P.to_act(state) == 0
    assert A.Double() not in P.legal_actions(state)


def test_middlehand_still_in_the_auction_may_kontra_over_a_bettler_of_forehands_team() -> None:
    """Option bauern.kontra_beats_bettler (RULES.md §4): seat 1, forehand's opponent,
    bids Bettler; forehand's partner (seat 2) outbids him with an Ass-Bettler: when
    seat 1's turn comes round he may say the Kontra over it."""
    hands = [list(h) for h in HANDS]
    hands[0][4], hands[2][4] = hands[2][4], hands[0][4]  # seat 2 gets the AS it needs
    state: P.DealCore = bauern.start_deal(
        BauernOptions(kontra_beats_bettler=True, assbettler=True),
        3,
        hands=[[index_of(c) for c in h] for h in hands],
    )
    moves: list[tuple[int, A.Action]] = [
        (0, A.ChooseTrump(Suit.HEARTS)),
        (0, A.Bid("normal")),
        (1, A.Bid("bettler")),
        (2, A.Bid("assbettler")),
        (3, A.Pass()),
        (0, A.Pass()),
    ]
    for seat, action in moves:
        state, _ = P.apply(state, seat, action)
    assert P.to_act(state) == 1
    assert A.Double() in P.legal_actions(state)


#: Dealer 3: seat 2 plays Bettler, seat 1 says Kontra, seat 2 passes; seat 0, the
#: Bettler's partner, sits out.
SEAT_0_SITS_OUT: tuple[list[list[str]], list[dict[str, Any]]] = (
    [
        ["TH", "KH", "QH", "TD", "AC"],
        ["AH", "JH", "QD", "JD", "JC"],
        ["TC", "KC", "QC", "KD", "AD"],
        ["AS", "TS", "KS", "QS", "JS"],
    ],
    [
        {"seat": 0, "do": "trump", "suit": "H"},
        {"seat": 0, "do": "bid", "contract": "normal"},
        {"seat": 1, "do": "pass"},
        {"seat": 2, "do": "bid", "contract": "bettler"},
        {"seat": 3, "do": "pass"},
        {"seat": 0, "do": "pass"},
        {"seat": 1, "do": "double"},
        {"seat": 2, "do": "pass"},
    ],
)


def test_a_sitting_out_partner_in_seat_0_is_not_asked_to_redouble() -> None:
    """RULES.md §4 / §6 doubling order: the Bettler's sitting-out partner does not
    double -- also when he is seat 0.  Seat 2 plays Bettler, seat 1 says Kontra, seat 2
    passes: doubling is over and seat 2 leads (seat 0 is not asked)."""
    hands, actions = SEAT_0_SITS_OUT
    code, answer = replay_record(
        {"game": "bauern", "deals": [{"dealer": 3, "hands": hands, "actions": actions}]}
    )
    assert isinstance(answer, dict), answer
    assert code == 0, answer
    deal = answer["deals"][0]
    assert (deal["contract"], deal["declarer"], deal["multiplier"]) == ("bettler", 2, 2)
    assert (deal["open"], deal["to_act"]) == (True, 2)


def test_the_result_names_seat_0_as_sitting_out() -> None:
    """RULES.md §4: the Bettler's partner sits the deal out, and the result says who
    -- seat 0 too, not "nobody".  The deal above: seat 2's AD takes the first trick
    (seats 2, 3, 1 play) and his Bettler is lost."""
    hands, actions = SEAT_0_SITS_OUT
    state: P.DealCore = bauern.start_deal(
        BauernOptions(), 3, hands=[[index_of(c) for c in h] for h in hands]
    )
    plays = [{"seat": s, "do": "play", "card": c} for s, c in ((2, "AD"), (3, "AS"), (1, "QD"))]
    state, _ = played_through(state, [*actions, *plays])
    result = P.result(state)
    assert result is not None
    assert (result.reason, result.winners) == ("took_trick", (1, 3))
    assert result.detail("sitting_out") == 0


def _normal_game(
    hands: list[list[str]],
    dealer: int,
    trump: str,
    plays: str,
    auto_claim: bool = True,
    kontra: bool = False,
) -> P.DealCore:
    """Forehand names `trump` and plays the normal game, nobody bids, nobody doubles
    (or, with `kontra`, forehand's left doubles and forehand's team lets it stand),
    then the cards of `plays` ("2:QD* 3:AH ... 2:claim"; ``*`` declares the marriage)."""
    fh = (dealer + 1) % 4
    state: P.DealCore = bauern.start_deal(
        BauernOptions(auto_claim=auto_claim),
        dealer,
        hands=[[index_of(c) for c in h] for h in hands],
    )
    script: list[tuple[int, A.Action]] = [
        (fh, A.ChooseTrump(Suit.parse(trump))),
        (fh, A.Bid("normal")),
        *(((fh + k) % 4, A.Pass()) for k in (1, 2, 3)),
    ]
    if kontra:
        script += [((fh + 1) % 4, A.Double()), (fh, A.Pass()), ((fh + 2) % 4, A.Pass())]
    else:
        script += [((fh + k) % 4, A.Pass()) for k in (1, 3)]  # no Kontra from either
    for item in plays.split():
        who, card = item.split(":")
        if card == "claim":
            script.append((int(who), A.Claim()))
        else:
            script.append((int(who), A.PlayCard(CARDS[index_of(card[:2])], card.endswith("*"))))
    for seat, action in script:
        state, _ = P.apply(state, seat, action)
    return state


def test_the_king_of_spades_declares_the_spades_marriage() -> None:
    """RULES.md §1 marriage: the trump marriage is 40 ("Vierziger") -- also when it is
    the King of Spades that is led (it must not be read as a Club).  Forehand seat 0
    names Spades and leads the KS declaring: 40, waiting for his team's first trick."""
    hands = [
        ["KS", "QS", "AH", "AD", "AC"],
        ["TH", "TD", "TC", "TS", "AS"],
        ["KH", "KD", "KC", "QH", "QD"],
        ["QC", "JH", "JD", "JC", "JS"],
    ]
    state = _normal_game(hands, 3, "S", "0:KS*")
    view = P.view(state, None)
    assert view.marriages == ((0, Suit.SPADES, 40),)
    assert dict(view.extra)["pending_marriage_points"] == (40, 0, 0, 0)
    assert (0, CARDS[index_of("QS")]) in view.known


def test_partners_points_and_a_marriage_made_good_by_the_partner_add_up() -> None:
    """RULES.md §1: "In dreier and bauern the partners' points are added up", and a
    marriage counts "once that side has won at least one trick" -- the partner's trick
    too.  Dealer 1; forehand seat 2 names Hearts and leads QD declaring 20 (it waits);
    T1 -> seat 3 (AH).  T2 3:QS* (20, counts) -> seat 0 (KH): now seat 2's 20 counts
    though seat 2 never takes a trick.  T3 -> seat 1 (QH): team 1 has 22 + 46 = 68,
    out; team 0 has 19 + 20 = 39 >= 33, so 1 game point (2 if the 20 were lost)."""
    hands = [
        ["KH", "TD", "AC", "AD", "KC"],
        ["JC", "JH", "TC", "QH", "JD"],
        ["TS", "TH", "KD", "QD", "QC"],
        ["JS", "AS", "KS", "AH", "QS"],
    ]
    plays = "2:QD* 3:AH 0:TD 1:JD 3:QS* 0:KH 1:JH 2:TS 0:AD 1:QH 2:KD 3:KS"
    after_t2 = " ".join(plays.split()[:8])
    view = P.view(_normal_game(hands, 1, "H", after_t2), None)
    assert (view.tricks_won, view.points) == ((1, 0, 0, 1), (19, 0, 20, 46))
    assert dict(view.extra)["pending_marriage_points"] == (0, 0, 0, 0)
    # each marriage's other card was shown: seat 2 led the QD (KD), seat 3 the QS (KS)
    assert {(2, CARDS[index_of("KD")]), (3, CARDS[index_of("KS")])} <= set(view.known)
    state = _normal_game(hands, 1, "H", plays)
    result = P.result(state)
    assert result is not None
    assert (result.points, result.reason) == ((0, 1, 0, 1), "reached_66")
    assert result.winners == (1, 3)
    assert result.card_points == (19, 22, 20, 46)
    assert result.detail("team_points") == (39, 68)


def test_a_marriage_waits_while_only_the_other_team_has_a_trick() -> None:
    """RULES.md §1 marriage: the points count once *that side* has a trick -- an
    opponent's trick does not make them count.  Dealer 1; forehand seat 2 names
    Diamonds and leads KD declaring 40; seat 1 takes T1 with the AD: seat 2's 40 still
    waits."""
    hands = [
        ["KC", "TD", "TH", "JH", "AH"],
        ["TC", "AS", "JC", "AD", "KS"],
        ["KD", "QS", "JS", "TS", "QD"],
        ["JD", "QC", "QH", "KH", "AC"],
    ]
    state = _normal_game(hands, 1, "D", "2:KD* 3:JD 0:TD 1:AD")
    view = P.view(state, None)
    assert view.tricks_won == (0, 1, 0, 0)
    assert view.points == (0, 27, 0, 0)
    assert dict(view.extra)["pending_marriage_points"] == (0, 0, 40, 0)


def test_a_claim_with_exactly_66_is_right() -> None:
    """RULES.md §4 "Claim 'enough' as in zweier" and §1: a team at exactly 66 claims
    rightly.  Dealer 3; forehand seat 0 names Diamonds, leads KD declaring 40 (it
    waits); seat 2 takes T1 with the TD: 26 + the 40 = 66; seat 2 claims: right, and
    the other team has no trick: 3 game points."""
    hands = [
        ["KD", "QS", "QD", "AS", "KC"],
        ["QH", "TS", "JS", "AH", "JD"],
        ["AD", "JC", "QC", "TD", "AC"],
        ["TC", "KS", "TH", "JH", "KH"],
    ]
    state = _normal_game(hands, 3, "D", "0:KD* 1:JD 2:TD 3:TC 2:claim", auto_claim=False)
    result = P.result(state)
    assert result is not None
    assert (result.points, result.reason) == ((3, 0, 3, 0), "reached_66")
    assert result.detail("team_points") == (66, 0)
    assert P.view(state, None).phase == "over"


@pytest.mark.parametrize("mult", [1, 2], ids=["undoubled", "kontra"])
def test_a_wrong_claim_by_the_second_team_scores_for_the_first(mult: int) -> None:
    """RULES.md §4 claims: "wrong claim: opponents win the value" -- for a claim by
    team 1 (seats 1 and 3) too.  Dealer 3, Hearts trumps; T1 -> seat 2 (JH), T2 ->
    seat 1 (KH); seat 1 claims with his team's 22: wrong.  The claim would have won 2
    (team 0 has 19, under 33), so seats 0 and 2 score 2 -- 4 after a Kontra -- and
    the table is told the claim was wrong and what it cost."""
    hands = [
        ["QS", "QH", "QD", "AH", "JD"],
        ["KC", "KH", "KD", "JC", "TD"],
        ["TS", "JH", "KS", "TC", "QC"],
        ["AS", "TH", "AD", "JS", "AC"],
    ]
    plays = "0:JD 1:KD 2:JH 3:AD 2:KS 3:AS 0:QS 1:KH"
    state = _normal_game(hands, 3, "H", plays, auto_claim=False, kontra=mult == 2)
    state, events = P.apply(state, 1, A.Claim())
    assert Claimed(1, False, 2 * mult) in events
    result = P.result(state)
    assert result is not None
    assert (result.points, result.reason) == ((2 * mult, 0, 2 * mult, 0), "wrong_claim")
    assert result.winners == (0, 2)


def test_a_schnapser_reaching_exactly_66_with_a_marriage_is_won_at_once() -> None:
    """RULES.md §4 Schnapser: "reaching 66 before the third trick wins at once" --
    exactly 66 on a marriage too, for a declarer of team 0.  Dealer 3; forehand seat 0
    names Hearts and plays the Schnapser; T1 0:AH 1:JH 2:AD 3:QD -> 27; T2 0:TH 1:QH
    2:JD 3:KD -> 46; he leads KC declaring 20: 66, won: 6 to seats 0 and 2."""
    hands = [
        ["AH", "TH", "KH", "KC", "QC"],
        ["JH", "QH", "AC", "TC", "JC"],
        ["AD", "JD", "TD", "AS", "TS"],
        ["QD", "KD", "KS", "QS", "JS"],
    ]
    state: P.DealCore = bauern.start_deal(
        BauernOptions(), 3, hands=[[index_of(c) for c in h] for h in hands]
    )
    script: list[tuple[int, A.Action]] = [
        (0, A.ChooseTrump(Suit.HEARTS)),
        (0, A.Bid("schnapser")),
        *((s, A.Pass()) for s in (1, 2, 3, 1, 3)),
    ]
    for item in ["0:AH", "1:JH", "2:AD", "3:QD", "0:TH", "1:QH", "2:JD", "3:KD"]:
        who, card = item.split(":")
        script.append((int(who), A.PlayCard(CARDS[index_of(card)])))
    script.append((0, A.PlayCard(CARDS[index_of("KC")], marriage=True)))
    for seat, action in script:
        state, _ = P.apply(state, seat, action)
    result = P.result(state)
    assert result is not None
    assert (result.points, result.reason) == ((6, 0, 6, 0), "reached_66")
    assert P.to_act(state) is None


def _refusal(hands: list[list[str]], trump: str, plays: str) -> tuple[int, Any]:
    """Replay forehand's normal game (dealer 3, nobody bids or doubles) and `plays`."""
    actions: list[dict[str, Any]] = [
        {"seat": 0, "do": "trump", "suit": trump},
        {"seat": 0, "do": "bid", "contract": "normal"},
        *({"seat": s, "do": "pass"} for s in (1, 2, 3, 1, 3)),
    ]
    for item in plays.split():
        who, card = item.split(":")
        actions.append({"seat": int(who), "do": "play", "card": card})
    return replay_record(
        {"game": "bauern", "deals": [{"dealer": 3, "hands": hands, "actions": actions}]}
    )


def test_the_third_card_must_head_the_highest_card_of_the_suit_so_far() -> None:
    """RULES.md §1 rule 1: head the trick "higher than every card of that suit in the
    trick" -- not only the card led.  Spades trumps; 0:JD 1:KD: seat 2 (QD TD ...) must
    beat the King with the TD; the QD, which beats only the led Jack, is refused."""
    hands = [
        ["JD", "AS", "TS", "KS", "QS"],
        ["KD", "AH", "TH", "KH", "QH"],
        ["QD", "TD", "AC", "TC", "KC"],
        ["AD", "JH", "QC", "JC", "JS"],
    ]
    code, answer = _refusal(hands, "S", "0:JD 1:KD 2:QD")
    assert code == 1 and answer["error"] == "must_beat", answer


def test_the_fourth_card_must_beat_the_trump_even_after_a_higher_card_of_the_suit_led() -> None:
    """RULES.md §1 rule 2: "if the trick already holds a trump, beat the highest trump if
    you can" -- whatever card of the led suit came after it.  The deal of the scenario
    record error-must-overtrump, Hearts trumps: 0:KC 1:QH (trumps) 2:AC (any Club will
    do once the trick holds a trump); seat 3, void in Clubs, must beat the QH: his JH
    is refused."""
    hands = [
        ["KH", "KC", "JC", "AS", "TS"],
        ["QH", "AD", "TD", "KD", "QD"],
        ["AC", "QC", "TC", "KS", "QS"],
        ["JH", "TH", "AH", "JD", "JS"],
    ]
    code, answer = _refusal(hands, "H", "0:KC 1:QH 2:AC 3:JH")
    assert code == 1 and answer["error"] == "must_beat", answer


def _two_trumps(second: str, third: str, fourth: list[str]) -> list[list[str]]:
    """Hands for a second trick 0:JC (Hearts trumps) that seats 1, 2 and 3, all void in
    Clubs after T1 0:AC 1:TC 2:KC 3:QC, must trump: seat 1 with `second`, seat 2 with
    `third`; seat 3 holds the trumps `fourth`; seat 0 holds the JH."""
    return [
        ["JH", "AC", "JC", "AD", "AS"],
        [second, "TC", "TD", "KD", "QD"],
        [third, "KC", "JD", "TS", "KS"],
        [*fourth, "QC", "QS", "JS"],
    ]


@pytest.mark.parametrize(("second", "third"), [("TH", "QH"), ("QH", "TH")])
def test_the_fourth_card_must_beat_the_higher_of_two_trumps(second: str, third: str) -> None:
    """RULES.md §1 rule 2: "if the trick already holds a trump, beat the highest trump
    if you can" -- with two trumps in the trick, the Ten, whether it came first (the
    Queen under it) or second (over-trumping the Queen).  T2 0:JC, seats 1 and 2 trump
    with the TH and QH: seat 3 (AH KH) must beat the TH: the KH, which beats only the
    QH, is refused; the AH is taken."""
    hands = _two_trumps(second, third, ["AH", "KH"])
    trick = f"0:AC 1:TC 2:KC 3:QC 0:JC 1:{second} 2:{third}"
    code, answer = _refusal(hands, "H", f"{trick} 3:KH")
    assert code == 1 and answer["error"] == "must_beat", answer
    state = _normal_game(hands, 3, "H", f"{trick} 3:AH")
    assert P.view(state, None).tricks_won == (1, 0, 0, 1)


def test_after_the_trump_ace_any_lower_trump_will_do() -> None:
    """RULES.md §1 rule 2: "beat the highest trump if you can, else still play a (lower)
    trump"; "a trick goes to the highest trump in it".  T2 0:JC 1:AH 2:KH: nobody can
    beat the AH, so seat 3 may play his QH as well as his TH, and the AH takes the
    trick (not the KH played after it)."""
    hands = _two_trumps("AH", "KH", ["TH", "QH"])
    state = _normal_game(hands, 3, "H", "0:AC 1:TC 2:KC 3:QC 0:JC 1:AH 2:KH")
    offered = {a.card.id for a in P.legal_actions(state) if isinstance(a, A.PlayCard)}
    assert offered == {"TH", "QH"}
    state, _ = P.apply(state, 3, A.PlayCard(CARDS[index_of("QH")]))
    view = P.view(state, None)
    assert view.tricks_won == (1, 1, 0, 0)
    assert view.points == (28, 20, 0, 0)


@pytest.mark.parametrize("worth", [4, 5])
@pytest.mark.parametrize(
    ("first", "team", "reason"), [("JH", 0, "no_trick"), ("AH", 1, "took_trick")]
)
def test_a_bettler_of_forehands_team_is_scored_for_the_right_team(
    first: str, team: int, reason: str, worth: int
) -> None:
    """RULES.md §4 Bettler: the declarer must lose all tricks (4 points, or 5 with
    option bauern.bettler_points: a table may choose either); his team wins or the
    other does -- here a declarer of team 0.  Forehand seat 0 bids Bettler with JH JD
    JC JS QS: no card of his can take a trick, whatever is played, and his team
    scores; with the AH instead of the JH he leads it, takes the trick and team 1
    scores."""
    hands = [
        [first, "JD", "JC", "JS", "QS"],
        ["AH" if first == "JH" else "JH", "TH", "KH", "QH", "AD"],
        ["TD", "KD", "QD", "AC", "TC"],
        ["KC", "QC", "AS", "TS", "KS"],
    ]
    opts = bauern.options({"bauern.bettler_points": worth})
    state: P.DealCore = bauern.start_deal(opts, 3, hands=[[index_of(c) for c in h] for h in hands])
    script: list[tuple[int, A.Action]] = [
        (0, A.ChooseTrump(Suit.HEARTS)),
        (0, A.Bid("bettler")),
        *((s, A.Pass()) for s in (1, 2, 3, 1, 3)),
    ]
    for seat, action in script:
        state, _ = P.apply(state, seat, action)
    while P.result(state) is None:  # the first legal card each turn
        to_act = P.to_act(state)
        assert to_act is not None
        state, _ = P.apply(state, to_act, P.legal_actions(state)[0])
    result = P.result(state)
    assert result is not None
    assert (result.contract, result.declarer) == ("bettler", 0)
    points = tuple(worth if s % 2 == team else 0 for s in range(4))
    assert (result.points, result.reason) == (points, reason)


def test_each_preset_sets_the_options_it_names() -> None:
    """docs/rules/bauern.md "Options": a table picks a rule set by name, and each
    named set turns on (or off) what its name says and nothing else."""
    assert {name: bauern.options(raw) for name, raw in bauern.PRESETS.items()} == {
        "standard": BauernOptions(),
        "manual_claims": BauernOptions(auto_claim=False),
        "all_contracts": BauernOptions(assbettler=True, zehnergang=True),
        "no_bettler": BauernOptions(bettler=False),
        "kontra_beats_bettler": BauernOptions(kontra_beats_bettler=True),
    }


@pytest.mark.parametrize(
    ("hands", "script", "trump"),
    [
        (
            [
                ["AH", "TH", "KH", "AD", "TD"],
                ["QH", "JH", "KD", "QD", "JD"],
                ["AC", "TC", "KC", "QC", "JC"],
                ["AS", "TS", "KS", "QS", "JS"],
            ],
            "0:normal 1:- 2:farbengang 3:- 0:-",
            None,
        ),
        (
            [
                ["AH", "TH", "KH", "QH", "JH"],
                ["AD", "TD", "KD", "QD", "JD"],
                ["AC", "TC", "KC", "QC", "JC"],
                ["AS", "TS", "KS", "QS", "JS"],
            ],
            "0:herrenschnapser 1:- 2:- 3:-",
            Suit.HEARTS,
        ),
    ],
    ids=["farbengang", "herrenschnapser"],
)
def test_a_contract_won_on_showing_names_trumps_only_if_it_has_them(
    hands: list[list[str]], script: str, trump: Suit | None
) -> None:
    """RULES.md §4 table: a Farbengang has no trumps (its column is "—"), while a
    Herrenschnapser is forehand's five trumps -- the table is told the contract with
    (or without) trumps, and the result keeps it (the deals of the scenario records
    farbengang-shown and herrenschnapser-aufschlagen-schneider; forehand named H)."""
    state, events = _scripted(hands, script)
    settled = [e for e in events if isinstance(e, ContractSettled)]
    assert [e.trump for e in settled] == [trump]
    result = P.result(state)
    assert result is not None
    assert result.detail("trump") == (None if trump is None else trump.letter)


#: The deal of the scenario records error-equal-bid-without-priority and
#: error-bid-too-low: each seat holds five cards of one suit or so, Gang for all.
GANG_HANDS = [
    ["AH", "TH", "KH", "AD", "TD"],
    ["QH", "JH", "KD", "QD", "JD"],
    ["AC", "TC", "KC", "QC", "JC"],
    ["AS", "TS", "KS", "QS", "JS"],
]
#: Forehand (seat 0) plays the normal game (with GANG_HANDS: a Gang), nobody bids or
#: doubles: seat 0 leads.
NORMAL = "0:normal 1:- 2:- 3:- 1:- 3:-"
GANG = "0:gang 1:- 2:- 3:- 1:- 3:-"


@pytest.mark.parametrize(
    ("hands", "script", "options", "seat", "action", "why"),
    [
        (HANDS, None, {}, 0, A.Bid("normal"), "forehand names trumps first"),
        (HANDS, "", {}, 0, A.ChooseTrump(Suit.SPADES), "trumps are named once, before the auction"),
        (
            HANDS,
            "",
            {},
            0,
            A.Bid(value=100),
            "Bauernschnapsen bids name a contract (there is no talon)",
        ),
        (
            HANDS,
            "",
            {},
            0,
            A.Bid("normal", without_talon=True),
            "Bauernschnapsen bids name a contract (there is no talon)",
        ),
        (HANDS, "", {}, 0, A.Bid("bogus"), "there is no contract 'bogus'"),
        (HANDS, "", {}, 0, A.Claim(), "only a normal game is claimed"),
        (HANDS, "0:normal 1:- 2:bettler", {}, 3, A.Double(), "Kontra comes after the auction"),
        (
            HANDS,
            "",
            {"kontra_beats_bettler": True},
            0,
            A.Double(),
            "in the auction, only forehand's opponents Kontra, over a Bettler of his team",
        ),
        (
            HANDS,
            "0:normal 1:- 2:bettler 3:kontra",
            {"kontra_beats_bettler": True},
            2,
            A.Bid("bettler"),
            "after a Kontra over a Bettler no Bettler may be bid",
        ),
        (
            GANG_HANDS,
            "0:normal 1:- 2:- 3:gang 0:gang",
            {},
            3,
            A.Bid("gang"),
            "the Gang was bid by a player with higher priority",
        ),
        (GANG_HANDS, "0:gang", {}, 1, A.Bid("bettler"), "bid higher than the Gang, or pass"),
        (HANDS, NORMAL, {}, 0, A.Bid("gang"), "the auction is over"),
        (HANDS, NORMAL, {}, 0, A.Pass(), "passing is for the auction and the doubling"),
        (HANDS, NORMAL, {}, 0, A.Double(), "doubling is over once the play starts"),
        (HANDS, NORMAL, {}, 0, A.Claim(), "claims are automatic at this table (auto_claim)"),
        (
            HANDS,
            f"{NORMAL} 0:AH",
            {"auto_claim": False},
            1,
            A.Claim(),
            "you may claim only when you are on lead",
        ),
        (GANG_HANDS, GANG, {"auto_claim": False}, 0, A.Claim(), "only a normal game is claimed"),
        (
            GANG_HANDS,
            GANG,
            {"auto_claim": False},
            0,
            A.PlayCard(Card.from_id("AH"), True, claim=True),
            "only a normal game is claimed",
        ),
        (
            HANDS,
            f"{NORMAL} 0:AH",
            {},
            1,
            A.PlayCard(Card.from_id("KH"), marriage=True),
            "a marriage is declared only when leading",
        ),
        (
            [
                ["JH", "KD", "QD", "JD", "JC"],
                ["AH", "TH", "KH", "QH", "AD"],
                ["TD", "AC", "TC", "KC", "QC"],
                ["AS", "TS", "KS", "QS", "JS"],
            ],
            "0:normal 1:kontraschnapser 2:- 3:- 0:- 0:- 2:-",
            {},
            0,
            A.PlayCard(Card.from_id("KD"), marriage=True),
            "only the declarer's marriages count here",
        ),
        (
            GANG_HANDS,
            GANG,
            {},
            0,
            A.PlayCard(Card.from_id("KH"), marriage=True),
            "marriages count only in normal games and Schnapser",
        ),
        (
            HANDS,
            NORMAL,
            {},
            0,
            A.PlayCard(Card.from_id("KH"), marriage=True),
            "KH is not in your hand",
        ),
        (
            HANDS,
            NORMAL,
            {},
            0,
            A.PlayCard(Card.from_id("AH"), True, claim=True),
            "claims are automatic at this table (auto_claim)",
        ),
        (
            HANDS,
            NORMAL,
            {"auto_claim": False},
            0,
            A.PlayCard(Card.from_id("AH"), claim=True),
            "a card goes with a claim only to declare a marriage",
        ),
    ],
)
def test_refusals_say_why(
    hands: list[list[str]],
    script: str | None,
    options: dict[str, bool],
    seat: int,
    action: A.Action,
    why: str,
) -> None:
    """RULES.md §6 / docs/rules/bauern.md codes, in the words a player pressing a stale
    or forged button reads: out of turn of the phases (a bid before trumps, trumps named
    twice, a bid, a pass or a Kontra in the play), malformed bids, bids too low after a
    Kontra over a Bettler, against a bid of higher priority and below the bid, claims
    where there is nothing to claim or claims are automatic, a card not held, and
    marriages out of turn: not leading, by a Kontraschnapser's defender, in a Gang."""
    opts = BauernOptions(**options)
    if script is None:
        state: P.DealCore = bauern.start_deal(
            opts, 3, hands=[[index_of(c) for c in h] for h in hands]
        )
    else:
        state, _ = _scripted(hands, script, opts)
    assert P.to_act(state) == seat
    with pytest.raises(IllegalAction) as refused:
        P.apply(state, seat, action)
    assert refused.value.message == why


#: Forehand (seat 0) names Hearts and leads AC; seat 2 holds no Club but two Hearts.
VOID_IN_CLUBS = [
    ["AH", "AD", "AC", "AS", "TD"],
    ["JH", "QH", "KC", "QD", "JD"],
    ["KH", "TH", "QS", "JS", "KD"],
    ["TC", "QC", "JC", "TS", "KS"],
]


@pytest.mark.parametrize(
    ("script", "may_play", "winner"),
    [(NORMAL, "KH TH", 2), (GANG, "KH TH QS JS KD", 0)],
    ids=["normal-game-hearts-trump", "gang-no-trumps"],
)
def test_in_a_no_trump_contract_the_named_suit_neither_must_be_played_nor_wins(
    script: str, may_play: str, winner: int
) -> None:
    """RULES.md §4 table, "trumps" column (engine.tricks.NO_TRUMP): in the normal game
    the suit forehand named is trumps -- seat 2, void in the Clubs led, must trump and
    his KH takes the trick; in a Gang there are no trumps -- he may play any card, and
    the KH he plays is a discard: the AC, the highest card of the suit led, wins."""
    state, _ = _scripted(VOID_IN_CLUBS, f"{script} 0:AC 1:KC")
    assert P.to_act(state) == 2
    assert set(P.legal_actions(state)) == {A.PlayCard(Card.from_id(c)) for c in may_play.split()}
    state, _ = _scripted(VOID_IN_CLUBS, f"{script} 0:AC 1:KC 2:KH 3:TC")
    view = P.view(state, None)
    assert (view.last_trick_winner, view.to_act) == (winner, winner)


def test_while_trumps_are_named_each_seat_holds_its_first_packet_of_three() -> None:
    """RULES.md §4: only the first packet of 3 is dealt while forehand names trumps --
    every view says four hands of 3 at a table of 4; a blind AH (the deck's first card)
    turned up as trumps is shown to all."""
    hands = [["TH", "AD", "AC", "AS", "AH"], *HANDS[1:]]
    state: P.DealCore = bauern.start_deal(
        BauernOptions(), 3, hands=[[index_of(c) for c in h] for h in hands]
    )
    view = P.view(state, 0)
    assert (view.players, view.hand_sizes) == (4, (3, 3, 3, 3))
    assert view.hand == tuple(Card.from_id(c) for c in ("TH", "AD", "AC"))
    state, _ = P.apply(state, 0, A.ChooseTrump(blind=4))
    assert P.view(state, None).trump_card == Card.from_id("AH")


def test_the_auction_s_high_bid_and_a_kontra_over_a_bettler_are_shown_until_settled() -> None:
    """RULES.md §4 (option bauern.kontra_beats_bettler): the table sees the bid to beat
    and its holder while the auction runs, and that a Kontra over a Bettler was said;
    once the contract is settled there is no bid to beat any more."""
    state, _ = _scripted(HANDS, "0:normal 1:- 2:bettler", BauernOptions(kontra_beats_bettler=True))
    extra = dict(P.view(state, None).extra)
    assert (extra["high_bid"], extra["kontra_over_bettler"]) == (("bettler", 2), False)
    state, _ = P.apply(state, 3, A.Double())
    assert dict(P.view(state, None).extra)["kontra_over_bettler"] is True
    state, _ = _scripted(HANDS, NORMAL)
    assert dict(P.view(state, None).extra)["high_bid"] is None


def test_the_view_names_seat_0_as_sitting_out() -> None:
    """RULES.md §4: the Bettler's partner sits the deal out, and every view says who
    -- seat 0 too (SEAT_0_SITS_OUT's deal)."""
    hands, actions = SEAT_0_SITS_OUT
    state: P.DealCore = bauern.start_deal(
        BauernOptions(), 3, hands=[[index_of(c) for c in h] for h in hands]
    )
    state, _ = played_through(state, actions)
    assert P.view(state, None).sitting_out == 0


def test_the_doubling_round_is_shown_during_the_doubling_only() -> None:
    """RULES.md §6 doubling order: the table sees which round of the doubling it is in
    while it runs (the first, after forehand's normal game), and none once play starts."""
    state, _ = _scripted(HANDS, "0:normal 1:- 2:- 3:-")
    assert dict(P.view(state, None).extra)["doubling_round"] == 1
    state, _ = _scripted(HANDS, NORMAL)
    assert dict(P.view(state, None).extra)["doubling_round"] is None


def test_the_view_shows_who_passed_and_each_team_s_points() -> None:
    """RULES.md §4 auction, §1 partners' points added up: the table sees who has passed
    (seats 1 and 3, with forehand's normal game and seat 2's Bettler standing), and in
    the play each team's points -- forehand's AH takes KH QH JH: 20 for his team."""
    state, _ = _scripted(HANDS, "0:normal 1:- 2:bettler 3:-")
    assert dict(P.view(state, None).extra)["passed"] == (1, 3)
    state, _ = _scripted(HANDS, f"{NORMAL} 0:AH 1:KH 2:QH 3:JH")
    extra = dict(P.view(state, None).extra)
    assert (extra["passed"], extra["team_points"]) == ((1, 2, 3), (20, 0))
