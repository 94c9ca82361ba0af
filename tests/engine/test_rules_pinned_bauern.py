"""Bauernschnapsen rules (RULES.md §4) pinned at their edges, found missing by a
mutation audit: each test names the rule it pins."""

from __future__ import annotations

from typing import Any

import pytest

from engine import actions as A
from engine import bauern
from engine import protocol as P
from engine.actions import action_from_json
from engine.bauern import BauernOptions
from engine.cards import CARDS, DECK20, Suit, index_of
from engine.errors import IllegalAction
from engine.record import replay_record

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


def test_declare_and_go_out_leads_the_card_named() -> None:
    """RULES.md §1 (auto_claim off): "forty, and I'm out" -- the marriage is declared
    by leading the K or Q named, which stays on the table while the claim ends the
    deal.  Leading the Queen shows the Queen, not the King (the deal of the scenario
    record normal-manual-marriage-claim: team 0 has 48 and claims 68)."""
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
        *((s, A.Pass()) for s in (1, 2, 3, 1, 3)),
    ]
    for text in ["0:AH", "1:KH", "2:QH", "3:JH", "0:AD", "1:TD", "2:KD", "3:QD"]:
        who, card = text.split(":")
        script.append((int(who), A.PlayCard(CARDS[index_of(card)])))
    script.append((0, A.PlayCard(CARDS[index_of("QC")], marriage=True, claim=True)))
    for seat, action in script:
        state, _ = P.apply(state, seat, action)
    result = P.result(state)
    assert result is not None and result.points == (3, 0, 3, 0)
    assert P.view(state, None).trick == ((0, CARDS[index_of("QC")]),)


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
        "1:kontraschnapser 2:- 3:- 0:- 0:- 2:- 0:KD 1:AD 2:TD 3:JS 1:KH*",
        (0, 12, 0, 12),
    ),
    "normal": (
        [
            ["JD", "AH", "TC", "TD", "AS"],
            ["AD", "JC", "TH", "KC", "TS"],
            ["QD", "AC", "KH", "QH", "JH"],
            ["KD", "QC", "KS", "QS", "JS"],
        ],
        "1:- 2:- 3:- 1:- 3:- 0:JD 1:AD 2:QD 3:KD 1:JC 2:AC 3:QC 0:TC 2:KH*",
        (2, 0, 2, 0),
    ),
}


@pytest.mark.parametrize("deal", list(WON_ON_A_MARRIAGE), ids=list(WON_ON_A_MARRIAGE))
def test_a_deal_won_on_a_marriage_is_over_at_once(deal: str) -> None:
    """RULES.md §1 "Ending a deal" / auto-claim and §4: a side that reaches 66 with a
    marriage declared on the lead wins at once; the led card's trick is not played
    out, nobody is to act any more and a further card is refused with deal_over."""
    hands, script, points = WON_ON_A_MARRIAGE[deal]
    actions: list[dict[str, Any]] = [
        {"seat": 0, "do": "trump", "suit": "H"},
        {"seat": 0, "do": "bid", "contract": "normal"},
    ]
    for item in script.split():
        seat, what = item.split(":")
        if what == "-":
            actions.append({"seat": int(seat), "do": "pass"})
        elif what.islower():
            actions.append({"seat": int(seat), "do": "bid", "contract": what})
        else:
            act: dict[str, Any] = {"seat": int(seat), "do": "play", "card": what.rstrip("*")}
            if what.endswith("*"):
                act["marriage"] = True
            actions.append(act)
    state: P.DealCore = bauern.start_deal(
        BauernOptions(), 3, hands=[[index_of(c) for c in h] for h in hands]
    )
    for act in actions:
        state, _ = P.apply(state, int(act["seat"]), action_from_json(act))
    result = P.result(state)
    assert result is not None and result.points == points
    assert P.to_act(state) is None
    with pytest.raises(IllegalAction) as refused:
        P.apply(state, 3, A.PlayCard(CARDS[index_of("QS")]))
    assert refused.value.code == "deal_over"


def test_the_aufschlag_card_is_public() -> None:
    """RULES.md §4 Aufschlagen: forehand picks one of his last 2 cards face down and it
    is turned up -- every other seat's view knows forehand holds it."""
    state: P.DealCore = bauern.start_deal(
        BauernOptions(), 3, hands=[[index_of(c) for c in h] for h in HANDS]
    )
    state, _ = P.apply(state, 0, A.ChooseTrump(blind=4))  # HANDS[0][4]: the AS
    for seat in (1, 2, 3):
        assert (0, CARDS[index_of("AS")]) in P.view(state, seat).known


def test_a_sitting_out_partner_in_seat_0_is_not_asked_to_redouble() -> None:
    """RULES.md §4 / §6 doubling order: the Bettler's sitting-out partner does not
    double -- also when he is seat 0.  Seat 2 plays Bettler, seat 1 says Kontra, seat 2
    passes: doubling is over and seat 2 leads (seat 0 is not asked)."""
    hands = [
        ["TH", "KH", "QH", "TD", "AC"],
        ["AH", "JH", "QD", "JD", "JC"],
        ["TC", "KC", "QC", "KD", "AD"],
        ["AS", "TS", "KS", "QS", "JS"],
    ]
    actions: list[dict[str, Any]] = [
        {"seat": 0, "do": "trump", "suit": "H"},
        {"seat": 0, "do": "bid", "contract": "normal"},
        {"seat": 1, "do": "pass"},
        {"seat": 2, "do": "bid", "contract": "bettler"},
        {"seat": 3, "do": "pass"},
        {"seat": 0, "do": "pass"},
        {"seat": 1, "do": "double"},
        {"seat": 2, "do": "pass"},
    ]
    code, answer = replay_record(
        {"game": "bauern", "deals": [{"dealer": 3, "hands": hands, "actions": actions}]}
    )
    assert isinstance(answer, dict), answer
    assert code == 0, answer
    deal = answer["deals"][0]
    assert (deal["contract"], deal["declarer"], deal["multiplier"]) == ("bettler", 2, 2)
    assert (deal["open"], deal["to_act"]) == (True, 2)
