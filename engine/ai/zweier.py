"""Zweierschnapsen's hooks for the AI (`GameAI`): worlds, policy, exact phase, value.

Once the talon is closed or gone, Stichzwang holds and nobody draws, so a sampled
world is a small perfect-information game that alpha-beta solves exactly; before
that, the strong level plays worlds out with the heuristic policy.
"""

from __future__ import annotations

from collections.abc import Hashable

from ..zweier import ZweierDeal
from .plugins import GameAI
from .zweier_policy import policy
from .zweier_worlds import worlds


def exact(d: ZweierDeal) -> bool:
    """Stichzwang and no more drawing: the world's remaining play is fully determined."""
    return d.closed_by >= 0 or d.upcard < 0


def value(d: ZweierDeal, seat: int) -> int:
    """Game points won minus game points lost by `seat` (RULES.md §2: 1, 2 or 3)."""
    res = d.res
    assert res is not None
    return res.points[seat] - res.points[1 - seat]


def same_side(d: ZweierDeal, seat: int) -> bool:
    return d.turn == seat


def key(d: ZweierDeal) -> Hashable:
    """Everything that decides the rest of a deal once nobody draws any more.

    Trick counts matter only as none/some (3-point wins, marriages counting); the
    trump, closer and snapshot are fixed within one world.
    """
    t = d.tricks
    return (
        d.hands[0],
        d.hands[1],
        d.lead_card,
        d.turn,
        d.points[0],
        d.points[1],
        d.mpoints[0],
        d.mpoints[1],
        t[0] > 0,
        t[1] > 0,
    )


AI: GameAI[ZweierDeal] = GameAI(
    game="zweier",
    contracts=ZweierDeal.contracts,
    worlds=worlds,
    policy=policy,
    exact=exact,
    value=value,
    same_side=same_side,
    key=key,
    bounds=(-3, 3),
)
