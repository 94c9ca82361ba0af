"""Trick rules of RULES.md §1 pinned card by card (found missing by a mutation audit).

The scenario records cover the normal order well; the ace-low order ("T K Q J A",
Zehnergang / Assenbettler) had no test telling neighbouring ranks apart.
"""

from __future__ import annotations

import pytest

from engine.cards import index_of
from engine.tricks import STRENGTH, Order, allowed_mask, best_in_trick


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
