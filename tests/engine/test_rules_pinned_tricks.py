"""Trick rules of RULES.md §1 pinned card by card (found missing by a mutation audit).

The scenario records cover the normal order well; the ace-low order ("T K Q J A",
Zehnergang / Assenbettler) had no test telling neighbouring ranks apart.
"""

from __future__ import annotations

import pytest

from engine.cards import index_of
from engine.tricks import HIGHER, STRENGTH, Order, allowed_mask, best_in_trick, why_not_allowed


def _mask(text: str) -> int:
    m = 0
    for c in text.split():
        m |= 1 << index_of(c)
    return m


@pytest.mark.parametrize(
    ("low", "high"),
    [("AH", "JH"), ("JH", "QH"), ("QH", "KH"), ("KH", "TH"), ("9H", "AH")],
)
def test_ace_low_order_takes_tricks_t_k_q_j_a(low: str, high: str) -> None:
    """RULES.md §1: ace-low order is T K Q J A; each card beats the next lower one,
    whichever of the two is led."""
    strength = STRENGTH[Order.ACE_LOW]
    lo, hi = index_of(low), index_of(high)
    assert best_in_trick([lo, hi], -1, strength) == 1
    assert best_in_trick([hi, lo], -1, strength) == 0


@pytest.mark.parametrize(
    ("led", "hand", "must"),
    [("KH", "TH QH", "TH"), ("QH", "KH JH", "KH"), ("JH", "QH AH", "QH"), ("AH", "JH 9H", "JH")],
)
def test_ace_low_order_heading_the_trick(led: str, hand: str, must: str) -> None:
    """RULES.md §1 rule 1 under ace-low order: a follower must head the trick with the
    next higher card of the ace-low order when he holds it."""
    allowed = allowed_mask(_mask(hand), [index_of(led)], -1, Order.ACE_LOW)
    assert allowed == _mask(must)


@pytest.mark.parametrize(
    ("low", "high"),
    [("9H", "JH"), ("JH", "QH"), ("QH", "KH"), ("KH", "TH"), ("TH", "AH")],
)
def test_normal_order_takes_tricks_a_t_k_q_j(low: str, high: str) -> None:
    """RULES.md §1: the normal order is A T K Q J (9 lowest in Thousand)."""
    strength = STRENGTH[Order.NORMAL]
    lo, hi = index_of(low), index_of(high)
    assert best_in_trick([lo, hi], -1, strength) == 1
    assert best_in_trick([hi, lo], -1, strength) == 0


@pytest.mark.parametrize(
    ("trick", "trump"), [("KH AS", -1), ("KH AD", 3)], ids=["no-trumps", "trumps"]
)
def test_heading_the_trick_ignores_a_stronger_card_of_another_suit(trick: str, trump: int) -> None:
    """RULES.md §1 rule 1: head the trick with a card of the led suit higher than every
    card *of that suit* in it.  The second player threw an Ace of another suit (not a
    trump); the third, holding AH and QH over the led KH, must still play the AH."""
    led = [index_of(c) for c in trick.split()]
    assert allowed_mask(_mask("AH QH"), led, trump) == _mask("AH")


@pytest.mark.parametrize("stichzwang", [True, False], ids=["stichzwang", "tausend"])
def test_the_leader_may_lead_any_card(stichzwang: bool) -> None:
    """RULES.md §1: the trick rules bind the followers; the player on lead leads what
    he likes, trumps included, Stichzwang or not."""
    hand = _mask("AH KS QS JD TC")
    assert allowed_mask(hand, [], 0, stichzwang=stichzwang) == hand


def test_heading_means_beating_the_highest_card_of_the_led_suit_so_far() -> None:
    """RULES.md §1 rule 1: head the trick "higher than every card of that suit in the
    trick".  KS led, the second player headed it with the AS: the third player (TS QS)
    cannot beat the Ace, so either spade will do -- the TS is not forced by the King."""
    assert allowed_mask(_mask("TS QS JD"), [index_of("KS"), index_of("AS")], 0) == _mask("TS QS")


@pytest.mark.parametrize(
    ("trick", "hand", "must"),
    [
        ("AS QH", "KH JH KD", "KH"),  # over-trump the Queen with the King
        ("AS AH", "KH JH KD", "KH JH"),  # nothing beats the AH: any trump, still a trump
        ("AS AH QH", "TH KH JH KD", "TH KH JH"),  # the highest trump is the AH, not the QH
        ("AS JH KH", "TH QH KD", "TH"),  # the highest trump is the KH, not the first one
    ],
)
def test_overtrumping_with_hearts_as_trumps(trick: str, hand: str, must: str) -> None:
    """RULES.md §1 rule 2, trumps Hearts (suit 0): a follower without the led suit must
    trump, beating the highest trump in the trick if he can, else a lower trump."""
    led = [index_of(c) for c in trick.split()]
    assert allowed_mask(_mask(hand), led, 0) == _mask(must)


def test_a_trumped_trick_frees_the_third_player_from_heading_it() -> None:
    """RULES.md §1 rule 1: "unless the trick already holds a trump ... any card of the
    led suit will do" -- trumps Hearts: QS led, trumped with the JH; the third player
    follows with KS or JS as he likes."""
    led = [index_of("QS"), index_of("JH")]
    assert allowed_mask(_mask("KS JS AD"), led, 0) == _mask("KS JS")


@pytest.mark.parametrize(
    ("order", "card", "beaten_by"),
    [
        (Order.NORMAL, "KH", "AH TH"),
        (Order.NORMAL, "AS", ""),
        (Order.NORMAL, "9S", "AS TS KS QS JS"),
        (Order.ACE_LOW, "AH", "TH KH QH JH"),
        (Order.ACE_LOW, "TD", ""),
    ],
)
def test_higher_lists_only_the_stronger_cards_of_the_same_suit(
    order: Order, card: str, beaten_by: str
) -> None:
    """`HIGHER`, which the AI reads to see whether a card can still be beaten: the
    cards of the same suit (never of another) above it in the order (RULES.md §1)."""
    assert HIGHER[order][index_of(card)] == _mask(beaten_by)


@pytest.mark.parametrize(
    ("trick", "hand", "may"),
    [("KH", "AH QH JD", "AH QH"), ("AS KH", "AH QH JD", "AH QH")],
    ids=["follow", "trump"],
)
def test_tausend_follows_or_trumps_without_a_duty_to_beat(trick: str, hand: str, may: str) -> None:
    """RULES.md §1: `tausend` plays "follow suit, else trump, else any, with no duty to
    beat" -- trumps Hearts: a lower heart may go under the KH, and a player void in
    spades may under-trump the KH that already trumped the AS."""
    led = [index_of(c) for c in trick.split()]
    assert allowed_mask(_mask(hand), led, 0, stichzwang=False) == _mask(may)


def test_a_card_not_in_hand_is_refused_as_such() -> None:
    """RULES.md §6 `card_not_in_hand`: the refusal names the missing card before any
    trick rule -- here QS to a KS lead by a hand of AH and TS alone."""
    code, message = why_not_allowed(_mask("AH TS"), [index_of("KS")], 0, index_of("QS"))
    assert (code, message) == ("card_not_in_hand", "QS is not in your hand")
