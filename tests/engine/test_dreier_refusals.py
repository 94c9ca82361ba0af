"""Dreierschnapsen refusals name the rule broken in the words the player reads
(RULES.md §6 / docs/rules/dreier.md error codes), pinned where a mutation audit of
engine/dreier/explain.py found the explanation untested: the code alone was checked,
or the same code came from another branch with the wrong reason."""

from __future__ import annotations

import pytest

from engine import actions as A
from engine import dreier
from engine import protocol as P
from engine.cards import Card
from engine.errors import IllegalAction

from .test_rules_pinned_dreier import GANG_KQ, KQ_HANDS, NORMAL_KQ, _played, _script


def _refusal(state: P.DealCore, seat: int, action: A.Action) -> tuple[str, str]:
    with pytest.raises(IllegalAction) as refused:
        P.apply(state, seat, action)
    return refused.value.code, refused.value.message


def _kq(script: str, auto_claim: bool = True) -> P.DealCore:
    options = dreier.options({"auto_claim": auto_claim})
    state, _ = _played(KQ_HANDS, ["QS", "JS"], _script(script), options)
    return state


# --- bidding -------------------------------------------------------------------------


def test_a_bid_too_low_names_the_bid_to_beat_and_its_bidder() -> None:
    """RULES.md §3 Bidding: a bid must rank above the best so far.  After forehand's
    normal game and middlehand's Gang, the dealer's Bettler is told what it must beat:
    seat 2's Gang (not any other row)."""
    state = _kq("1:trump=H 1:bid=normal 2:bid=gang")
    assert _refusal(state, 0, A.Bid("bettler")) == (
        "bid_too_low",
        "a bid must rank above Gang by seat 2: a higher contract, the same without "
        "talon, or the same with higher priority",
    )


def test_a_bid_too_low_says_when_the_bid_to_beat_was_without_talon() -> None:
    """RULES.md §3 Bidding: "without talon" ranks above the same contract with it, and
    the refusal says which one stands -- the dealer's (seat 0, lowest priority)
    Bettler without talon, which forehand's Bettler with the talon does not beat."""
    state = _kq("1:trump=H 1:bid=normal 2:-")
    state, _ = P.apply(state, 0, A.Bid("bettler", without_talon=True))
    assert _refusal(state, 1, A.Bid("bettler")) == (
        "bid_too_low",
        "a bid must rank above Bettler without talon by seat 0: a higher contract, the "
        "same without talon, or the same with higher priority",
    )


# --- the discard and a raise ----------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "why"),
    [
        ("AD", ("invalid_discard", "discard exactly 2 different cards")),
        ("AD AD", ("invalid_discard", "discard exactly 2 different cards")),
        ("AD TD JS", ("invalid_discard", "discard exactly 2 different cards")),
        ("AD KH", ("card_not_in_hand", "KH is not in your hand")),
    ],
    ids=["one-card", "a-card-twice", "three-cards", "a-card-not-held"],
)
def test_a_discard_of_other_than_two_held_cards_says_why(cards: str, why: tuple[str, str]) -> None:
    """RULES.md §3 Talon: the declarer lays exactly 2 different cards of his hand away.
    Middlehand 2, who won the bidding with the Gang and took the talon, is told which
    part he got wrong: the number of cards, or a card (KH, forehand's) he does not hold."""
    state = _kq("1:trump=H 1:bid=normal 2:bid=gang 0:- 1:-")
    assert _refusal(state, 2, A.Discard(Card.parse(cards))) == why


#: Dealer 0; forehand 1 names Hearts and bids the normal game, middlehand 2 the Bettler,
#: and both others pass: middlehand takes the talon TD JS.  His only aces are AD and AS.
TWO_ACES = (
    [
        ["AC", "TC", "KC", "QC", "JC", "KS"],
        ["AH", "TH", "KH", "QH", "JH", "QS"],
        ["AD", "KD", "QD", "JD", "TS", "AS"],
    ],
    ["TD", "JS"],
)


@pytest.mark.parametrize("discard", ["AD AS", "AS AD"])
def test_a_raise_without_its_holding_among_the_cards_kept_says_so(discard: str) -> None:
    """RULES.md §3 (raise_after_talon; holdings checked when the contract is named):
    middlehand laying both his aces away may not name the Ass-Bettler, which needs an
    ace among the 6 cards he keeps -- and he is told that, not a rule of another table
    (dreier.carinthian's original 6 cards).  Either card may be named first."""
    hands, talon = TWO_ACES
    script = "1:trump=H 1:bid=normal 2:bid=bettler 0:- 1:-"
    options = dreier.DreierOptions(assbettler=True)
    state, _ = _played(hands, talon, _script(script), options)
    assert _refusal(state, 2, A.Discard(Card.parse(discard), "assbettler")) == (
        "contract_not_allowed",
        "Ass-Bettler needs at least one ace in the 6 cards kept",
    )


def test_a_carinthian_raise_without_the_suit_dealt_says_so() -> None:
    """RULES.md §3 Talon (dreier.carinthian): Farbenringerl must be held in the 6 cards
    dealt.  Middlehand's fifth Spade came from the talon (the scenario record
    carinthian-farbenringerl-original-six): he keeps five Spades, and is told that
    the original 6 cards are what falls short."""
    hands = [
        ["AC", "TC", "KC", "QC", "JC", "JD"],
        ["KH", "QH", "AD", "TD", "KD", "QD"],
        ["AS", "TS", "KS", "QS", "AH", "TH"],
    ]
    script = "1:trump=H 1:bid=normal 2:bid=gang 0:- 1:-"
    options = dreier.DreierOptions(carinthian=True)
    state, _ = _played(hands, ["JS", "JH"], _script(script), options)
    assert _refusal(state, 2, A.Discard(Card.parse("TH JH"), "farbenringerl")) == (
        "contract_not_allowed",
        "Farbenringerl needs all 5 cards of one suit in the original 6 cards (dreier.carinthian)",
    )


# --- the play ------------------------------------------------------------------------


@pytest.mark.parametrize("marriage", [False, True], ids=["plain", "declaring"])
def test_a_card_not_held_is_card_not_in_hand(marriage: bool) -> None:
    """RULES.md §6 `card_not_in_hand`: forehand 1, on lead in the normal game, leads
    the KD (middlehand's), plainly or declaring a marriage -- the reason is that he
    has no KD, not a marriage he lacks the partner of."""
    state = _kq(NORMAL_KQ)
    kd = Card.from_id("KD")
    assert _refusal(state, 1, A.PlayCard(kd, marriage=marriage)) == (
        "card_not_in_hand",
        "KD is not in your hand",
    )


@pytest.mark.parametrize(
    ("script", "auto", "seat", "card", "marriage", "why"),
    [
        (NORMAL_KQ, True, 1, "KH", True, "claims are automatic at this table (auto_claim)"),
        (NORMAL_KQ, False, 1, "AH", False, "a card goes with a claim only to declare a marriage"),
        (GANG_KQ, False, 2, "KD", True, "there is nothing to claim in Gang"),
    ],
    ids=["auto-claim", "no-marriage", "gang"],
)
def test_a_card_played_with_a_claim_says_why_the_claim_is_refused(
    script: str, auto: bool, seat: int, card: str, marriage: bool, why: str
) -> None:
    """RULES.md §1 claims, docs/rules/dreier.md: a card goes with a claim only to
    declare a marriage and claim at once -- not when claims are automatic, not with a
    plain card, and not in a Gang, where there is nothing to claim (nor any marriage).
    The player on lead holds the K+Q, so the claim is the reason, not the marriage."""
    state = _kq(script, auto_claim=auto)
    action = A.PlayCard(Card.from_id(card), marriage=marriage, claim=True)
    assert _refusal(state, seat, action) == ("claim_not_allowed", why)


def test_a_pass_in_the_play_is_told_to_play_a_card() -> None:
    """RULES.md §6 `action_not_allowed`: once the play has begun, a bid's pass (a stale
    button) is refused, and the player is told to play a card in the Gang."""
    assert _refusal(_kq(GANG_KQ), 2, A.Pass()) == ("action_not_allowed", "play a card (Gang)")
