"""Thousand: could the declarer have made the contract at all, seeing every card?

The ceiling of card play for a contract, against the heuristic defenders the bench
seats: from the first trick on, the declarer's moves are searched exhaustively (every
legal card, marriages included) while the defenders play `tausend_policy.policy`,
which is exactly what the heuristic level plays (it reads only the seat's own hand
and public facts, and draws no random numbers). A contract no line makes against
them is lost whatever the declarer knows; one some line makes is a contract a
declarer who saw every card would make. So the fraction of makeable contracts bounds
what any card play could reach from the same start (the same bidding, gifts and
final bid); it is an upper bound, since a real declarer does not see the cards.

Small: the declarer has at most 8 cards and the search stops at the first line that
reaches the bid, or as soon as the points still in play cannot reach it (about 1,500
positions a contract, 12,000 at most over 677 contracts).
"""

from __future__ import annotations

from collections.abc import Callable

from engine.cards import MARRIAGE_MASK, POINTS, cards_of
from engine.tausend.deal import TausendDeal
from engine.tausend.rules import MARRIAGE_VALUE, OVER

Policy = Callable[[TausendDeal], int]


def _still_possible(d: TausendDeal, dec: int) -> int:
    """The most the declarer could still add: every card point in play, and the
    marriages he holds both halves of."""
    pts = sum(POINTS[c] for h in d.hands for c in cards_of(h)) + sum(POINTS[c] for c in d.trick)
    hand = d.hands[dec]
    return pts + sum(
        v for s, v in enumerate(MARRIAGE_VALUE) if hand & MARRIAGE_MASK[s] == MARRIAGE_MASK[s]
    )


def winning_line(d: TausendDeal, defenders: Policy) -> list[int] | None:
    """The declarer's moves (action codes, in order) of a line that reaches his bid
    against `defenders`, or None when there is none.  `d` is in the play phase and
    is not changed."""
    dec = d.declarer
    goal = d.value

    def search(d: TausendDeal) -> list[int] | None:
        while True:
            if d.total(dec) >= goal:
                return []
            if d.phase == OVER or d.total(dec) + _still_possible(d, dec) < goal:
                return None
            if d.turn == dec:
                break
            d = d.copy()
            d.step(defenders(d))
        for code in d.legal():
            e = d.copy()
            e.step(code)
            rest = search(e)
            if rest is not None:
                return [code, *rest]
        return None

    return search(d)


def play_line(d: TausendDeal, line: list[int], defenders: Policy) -> TausendDeal:
    """Play `line` for the declarer against `defenders` from `d`; the defenders and,
    once the line is used up, the declarer play the policy to the end."""
    d = d.copy()
    todo = list(line)
    while d.phase != OVER:
        d.step(todo.pop(0) if d.turn == d.declarer and todo else defenders(d))
    return d
