"""Random legal Bauernschnapsen deals keep every invariant (see props.py).

The generic check deals from a seed and plays random legal actions through the public
protocol: cards are conserved, refused actions change nothing, no view shows a card
its seat has not seen (the partner's hand included; the Aufschlag card, shown marriage
partners and a hand shown for Farbengang/Herrenschnapser become public through their
events), played-out deals count 120 card points, and the deal's record replays to
the same result.
"""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from engine import bauern
from engine import protocol as P
from engine.actions import Bid, ChooseTrump, Claim, Double, Pass, PlayCard
from engine.bauern import BauernDeal, BauernOptions
from engine.cards import CARDS, POINTS, cards_of, index_of
from engine.events import HandShown, TrumpChosen
from engine.protocol import DealCore

from .props import check_random_deal, every_option

OPTIONS = every_option(BauernOptions)


@given(
    options=OPTIONS,
    dealer=st.integers(0, 3),
    deal_seed=st.binary(min_size=1, max_size=16),
    choice_seed=st.integers(0, 2**32),
)
def test_random_bauern_deals(
    options: BauernOptions, dealer: int, deal_seed: bytes, choice_seed: int
) -> None:
    check_random_deal(bauern.GAME, options, dealer, deal_seed, choice_seed)


def test_played_out_deals_count_120() -> None:
    """Deals played to the last card hold all 120 card points in the "won..." locations
    (props.py's check).  Random auctions seldom get there, so these deals play a normal
    game with claims off and never claim: every one runs all five tricks."""
    for n in range(100):
        rng = random.Random(n)
        state: DealCore = bauern.start_deal(
            BauernOptions(auto_claim=False), n % 4, seed=n.to_bytes(4, "big")
        )
        while (seat := P.to_act(state)) is not None:
            legal = [
                a
                for a in P.legal_actions(state)
                if not isinstance(a, Claim | Double) and not (isinstance(a, PlayCard) and a.claim)
            ]
            if P.view(state, None).phase == "bidding":
                legal = [a for a in legal if a in (Bid("normal"), Pass())]
            state, _ = P.apply(state, seat, rng.choice(legal))
        assert isinstance(state, BauernDeal)
        res = P.result(state)
        assert res is not None and res.reason == "last_trick" and state.ntricks == 5
        assert P.legal_actions(state) == ()  # RULES.md §1: nothing more may be done
        locations = state.locations()
        assert not any(m for k, m in locations.items() if not k.startswith("won"))
        total = sum(POINTS[c] for k, m in locations.items() for c in cards_of(m))
        assert total == 120 == sum(state.points)


# Seat 1 (forehand when seat 0 deals) gets a full suit of Hearts in a hand of its own.
SHOWN_HANDS = [
    ["TD", "KD", "QD", "JD", "AD"],  # dealer
    ["AH", "TH", "KH", "QH", "JH"],  # forehand
    ["AC", "TC", "KC", "QC", "JC"],
    ["AS", "TS", "KS", "QS", "JS"],
]


def _start(hands: list[list[str]], dealer: int = 0) -> BauernDeal:
    return bauern.start_deal(
        BauernOptions(), dealer, hands=[[index_of(c) for c in h] for h in hands]
    )


def test_herrenschnapser_shows_the_hand_to_everyone() -> None:
    state: DealCore = _start(SHOWN_HANDS)
    state, events = P.apply(state, 1, ChooseTrump(suit=CARDS[0].suit))
    assert isinstance(events[0], TrumpChosen)
    state, _ = P.apply(state, 1, Bid("herrenschnapser"))
    for other in (2, 3):
        state, _ = P.apply(state, other, Pass())
    state, events = P.apply(state, 0, Pass())
    shown = [e for e in events if isinstance(e, HandShown)]
    assert shown and shown[0].seat == 1 and len(shown[0].cards) == 5
    for seat in (0, 2, 3, None):
        known = {c for s, c in P.view(state, seat).known if s == 1}
        assert known == set(shown[0].cards)
    res = P.result(state)
    assert res is not None and res.points == (0, 24, 0, 24)


def test_aufschlag_card_is_public_and_first_packet_only_while_naming_trumps() -> None:
    state: DealCore = _start(SHOWN_HANDS, dealer=3)  # seat 0 is forehand: TD KD QD | JD AD
    v = P.view(state, 0)
    assert v.phase == "trump" and [c.id for c in v.hand] == ["TD", "KD", "QD"]
    assert ChooseTrump(blind=3) in v.legal and ChooseTrump(blind=4) in v.legal
    state, events = P.apply(state, 0, ChooseTrump(blind=4))
    assert isinstance(events[0], TrumpChosen) and events[0].shown == CARDS[index_of("AD")]
    for seat in (1, 2, 3, None):
        v = P.view(state, seat)
        assert v.trump_card == CARDS[index_of("AD")]
        assert (0, CARDS[index_of("AD")]) in v.known
        assert all(s == 0 and c.id == "AD" for s, c in v.known)
