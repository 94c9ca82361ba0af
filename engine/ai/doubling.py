"""How much a double must win by: the strong level's Spritzen and Kontra.

Every playout answers with the heuristic, which declares and defends worse than the
strong level does.  So against the strong level both sides see their own chances too
bright: a defender's playouts have the declarer misplay, the declarer's have the
defenders misplay.  Between strong players nearly every contract was doubled, redoubled
and doubled again (Dreier: 70 of 120 deals went to ×8), and matches to 24 ended in a deal.

A double adds (2p − 1) × stake to passing, p the seat's chance to win the deal and the
stake what the seat wins or loses at the present multiplier.  Asking the double to win
by a share c of the stake doubles only when the estimate clears p = (1 + c) / 2, which
the strong level's overconfidence still reaches when the cards say so.  The third
double answers a redouble, which says the other side is sure: it needs more.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..actions import DOUBLE
from ..views import SeatView

#: The share of the stake a double must win by over passing: the first, the second
#: and the third double of a deal (measured in docs/ai_dreier.md, "Spritzen").
DOUBLE_CAUTION = (0.5, 0.5, 1.0)


def double_margin(
    code: int,
    view: SeatView,
    points: Mapping[str, int],
    declarer_weight: int = 1,
    weight: int = 1,
) -> float:
    """The margin a `DOUBLE` needs, in the game's value units; 0 for anything else.

    `points`: a contract's game points by id (at least 1 is counted, e.g. for a
    normal game worth 1 to 3); `declarer_weight` and `weight`: what one game point is
    worth in the value to the declarer and to anybody else.
    """
    if code != DOUBLE or view.contract is None:
        return 0.0
    extra = dict(view.extra)
    base = max(1, points.get(view.contract, 1)) + (1 if extra.get("without_talon") else 0)
    per_point = declarer_weight if view.seat == view.declarer else weight
    done = view.multiplier.bit_length() - 1  # doubles so far: the multiplier is 2 ** done
    share = DOUBLE_CAUTION[min(done, len(DOUBLE_CAUTION) - 1)]
    return share * base * view.multiplier * per_point
