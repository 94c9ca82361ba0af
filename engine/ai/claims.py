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

from ..actions import CLAIM, is_marriage_claim
from ..views import SeatView

#: Margin (in value units) that keeps a known-wrong claim below every other action.
NEVER = 1.0e6
TARGET = 66


def known_wrong(code: int, view: SeatView, total: int, counted: bool) -> bool:
    """Whether `code` claims 66 for a side with `total` points (its marriages count
    once it has a trick: `counted`) that does not have them, even with the marriage
    a declare-and-claim adds (40 in trumps, else 20)."""
    if code == CLAIM:
        return total < TARGET
    if is_marriage_claim(code):
        trump = int(view.trump) if view.trump is not None else -1
        added = 40 if (code & 31) // 6 == trump else 20
        return not counted or total + added < TARGET
    return False
