"""Trick rules shared by every game (RULES.md §1).

Two duties: which cards a hand may play to a trick (Stichzwang: follow and head the
trick, else trump and over-trump, else anything; or Thousand's plain follow/trump/any),
and who takes a finished trick.  The card order is data (`Order`), so ace-low
contracts use the same code.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum

from .cards import NCARDS, SUIT_MASK, SUIT_SPAN

NO_TRUMP = -1


class Order(Enum):
    """Card order within a suit.  NORMAL: A T K Q J 9.  ACE_LOW: T K Q J A 9."""

    NORMAL = "normal"
    ACE_LOW = "ace_low"


# strength by rank index (A T K Q J 9); higher value = stronger card
_RANK_STRENGTH = {
    Order.NORMAL: (6, 5, 4, 3, 2, 1),
    Order.ACE_LOW: (2, 6, 5, 4, 3, 1),
}

#: Strength of each card index in each order.
STRENGTH: dict[Order, tuple[int, ...]] = {
    order: tuple(ranks[c % SUIT_SPAN] for c in range(NCARDS))
    for order, ranks in _RANK_STRENGTH.items()
}


def _higher_table(strength: tuple[int, ...]) -> tuple[int, ...]:
    table = []
    for c in range(NCARDS):
        s = c // SUIT_SPAN
        m = 0
        for d in range(s * SUIT_SPAN, (s + 1) * SUIT_SPAN):
            if strength[d] > strength[c]:
                m |= 1 << d
        table.append(m)
    return tuple(table)


#: ``HIGHER[order][c]``: mask of the cards of c's suit that beat c.
HIGHER: dict[Order, tuple[int, ...]] = {o: _higher_table(s) for o, s in STRENGTH.items()}


def best_in_trick(trick: Sequence[int], trump: int, strength: Sequence[int]) -> int:
    """Position in `trick` of the card that takes it: highest trump, else highest led."""
    best = 0
    bc = trick[0]
    for i in range(1, len(trick)):
        c = trick[i]
        if c // SUIT_SPAN == bc // SUIT_SPAN:
            if strength[c] > strength[bc]:
                best, bc = i, c
        elif c // SUIT_SPAN == trump:
            best, bc = i, c
    return best


def allowed_mask(
    hand: int,
    trick: Sequence[int],
    trump: int,
    order: Order = Order.NORMAL,
    stichzwang: bool = True,
) -> int:
    """Mask of the cards of `hand` that may be played to `trick` (cards so far, led first).

    With `stichzwang` (RULES.md §1 rules 1-3): follow suit and head the trick unless it
    already holds a trump of another suit; else trump, over-trumping a trump in the
    trick when possible; else any card.  Without it (Thousand): follow, else trump,
    else any card, with no duty to beat.
    """
    if not trick:
        return hand
    led_suit = trick[0] // SUIT_SPAN
    follow = hand & SUIT_MASK[led_suit]
    if follow:
        if not stichzwang:
            return follow
        trumped = False
        if led_suit != trump and trump >= 0:
            for c in trick:
                if c // SUIT_SPAN == trump:
                    trumped = True
                    break
        if trumped:
            return follow
        strength = STRENGTH[order]
        best = trick[0]
        for c in trick:
            if c // SUIT_SPAN == led_suit and strength[c] > strength[best]:
                best = c
        return (follow & HIGHER[order][best]) or follow
    if trump >= 0:
        trumps = hand & SUIT_MASK[trump]
        if trumps:
            if not stichzwang:
                return trumps
            strength = STRENGTH[order]
            best = -1
            for c in trick:
                if c // SUIT_SPAN == trump and (best < 0 or strength[c] > strength[best]):
                    best = c
            if best >= 0:
                return (trumps & HIGHER[order][best]) or trumps
            return trumps
    return hand


def why_not_allowed(
    hand: int,
    trick: Sequence[int],
    trump: int,
    card: int,
    order: Order = Order.NORMAL,
    stichzwang: bool = True,
) -> tuple[str, str]:
    """Stable error code and message for a card that `allowed_mask` does not allow.

    This only explains; the decision is always `allowed_mask`'s, so the two cannot
    disagree about legality.
    """
    from .cards import IDS, SUIT_LETTERS

    if not hand >> card & 1:
        return "card_not_in_hand", f"{IDS[card]} is not in your hand"
    led_suit = trick[0] // SUIT_SPAN if trick else -1
    allowed = allowed_mask(hand, trick, trump, order, stichzwang)
    suit = card // SUIT_SPAN
    if led_suit >= 0 and hand & SUIT_MASK[led_suit]:
        if suit != led_suit:
            return "must_follow_suit", f"you must follow suit ({SUIT_LETTERS[led_suit]})"
        return "must_beat", f"you must head the trick with a higher {SUIT_LETTERS[led_suit]}"
    if trump >= 0 and hand & SUIT_MASK[trump]:
        if suit != trump:
            return (
                "must_trump",
                f"you cannot follow suit, so you must play a trump ({SUIT_LETTERS[trump]})",
            )
        return "must_beat", "you must beat the trump in the trick if you can"
    if not allowed >> card & 1:  # pragma: no cover - every refusal is explained above
        return "illegal_card", f"{IDS[card]} may not be played now"
    return "illegal_card", f"{IDS[card]} may not be played now"
