"""Dealing a Dreierschnapsen deal: from a seed (the documented shuffle) or given cards.

RULES.md §3 deals 3 cards each clockwise from forehand, then 2 to the talon, then 3
more each.  From the seeded shuffle `d[0..19]` (engine/shuffle.py) that is: forehand
`d[0..2]`, middlehand `d[3..5]`, dealer `d[6..8]`, talon `d[9..10]`, forehand
`d[11..13]`, middlehand `d[14..16]`, dealer `d[17..19]`.  Each hand is listed in
that dealing order, so its first 3 cards are the first packet (docs/rules/dreier.md).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..cards import DECK20
from ..shuffle import shuffled
from .deal import DreierDeal
from .options import DreierOptions


def deal_from_deck(deck: Sequence[int], dealer: int) -> tuple[list[list[int]], list[int]]:
    """(hands by seat in dealing order, talon) of a shuffled 20-card deck."""
    hands: list[list[int]] = [[], [], []]
    for k in range(3):
        seat = (dealer + 1 + k) % 3
        hands[seat] = [*deck[3 * k : 3 * k + 3], *deck[11 + 3 * k : 14 + 3 * k]]
    return hands, list(deck[9:11])


def validate_cards(hands: Sequence[Sequence[int]], talon: Sequence[int]) -> str | None:
    """Why explicit cards do not make a dreier deal, or None."""
    if len(hands) != 3 or any(len(h) != 6 for h in hands):
        return "dreier needs three hands of 6 cards"
    if len(talon) != 2:
        return "the dreier talon has 2 cards"
    every = [*hands[0], *hands[1], *hands[2], *talon]
    if sorted(every) != sorted(DECK20):
        return "the hands and talon must hold each card of the 20-card deck exactly once"
    return None


def start_deal(
    opts: DreierOptions,
    dealer: int,
    *,
    seed: bytes | None = None,
    hands: Sequence[Sequence[int]] | None = None,
    talon: Sequence[int] | None = None,
    **_context: object,
) -> DreierDeal:
    """A new deal, dealt from `seed` or from explicit `hands` and `talon`."""
    if not 0 <= dealer < 3:
        raise ValueError(f"the dealer is a seat 0..2, not {dealer}")
    if hands is None or talon is None:
        if seed is None:
            raise ValueError("a deal needs a seed or explicit hands and talon")
        hands, talon = deal_from_deck(shuffled(DECK20, seed), dealer)
    problem = validate_cards(hands, talon)
    if problem:
        raise ValueError(problem)
    return DreierDeal.start(opts, dealer, hands, talon)
