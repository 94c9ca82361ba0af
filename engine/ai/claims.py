"""No false "enough": the strong level never makes a claim its own view shows wrong.

With `auto_claim` off, Dreier and Bauern score a wrong claim by what it would have
won, with no minimum (RULES.md §3, §4): once the other side has 33, a false claim
costs 1 where playing on to lose costs 2, and the search found that out.  It then
claimed "enough" with 12 points to resign deals, some still winnable (about 2 in a
hundred Bauern deals); no player at a table would, and one who sees it stops trusting
the computer.  Counting is a seat's own knowledge (card points taken are public), so
a claim it knows is wrong is simply not a move it makes.
"""

from __future__ import annotations

from ..actions import CLAIM, claim_is_right, is_marriage_claim
from ..views import SeatView

#: Margin (in value units) that keeps a known-wrong claim below every other action.
NEVER = 1.0e6


def is_claim(code: int) -> bool:
    return code == CLAIM or is_marriage_claim(code)


def known_wrong(code: int, view: SeatView, total: int, counted: bool) -> bool:
    """Whether the claim `code` (plain, or with the marriage it declares; see
    `is_claim`) is one a side with `total` points does not make right."""
    trump = int(view.trump) if view.trump is not None else -1
    return not claim_is_right(code, total, counted, trump)
