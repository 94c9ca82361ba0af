"""Bauernschnapsen's hooks for the AI (`GameAI`): worlds, policy, exact phase, value.

A sampled world is a complete four-hand deal.  The strong level scores every option —
trump choice, bid, Kontra, card — by playing sampled worlds out with the heuristic
policy for all four seats (the auction and the doubling included, so a bid is judged
by the contract it leads to and how it is played and doubled), and finishes each
playout by exact alpha-beta once few cards are left (`exact`).
"""

from __future__ import annotations

from collections.abc import Hashable

from ..bauern import BauernDeal
from ..bauern.rules import CONTRACTS, PLAY, Kind
from ..views import SeatView
from . import bauern_worlds
from .bauern_policy import policy, reading
from .claims import NEVER, is_claim, known_wrong
from .doubling import double_margin
from .plugins import GameAI

#: Cards left in the players' hands from which a world is solved exactly, by
#: contract kind: the last two tricks (three of a Bettler whose partner sits out);
#: a Schnapser, decided within three tricks, from the second trick on.  Measured to
#: keep a decision's many playouts within the time budget.
EXACT_CARDS = {
    int(Kind.NORMAL): 8,
    int(Kind.BETTLER): 9,
    int(Kind.SCHNAPSER): 12,
    int(Kind.ALL_TRICKS): 8,
}
#: The most a deal can be worth: the highest contract, Subkontra'd.
MAX_POINTS = max(c.value for c in CONTRACTS) * 8


def worlds(view: SeatView) -> bauern_worlds.BauernWorlds:
    return bauern_worlds.worlds(view, reading)


def cards_left(d: BauernDeal) -> int:
    h = d.hands
    n = h[0].bit_count() + h[1].bit_count() + h[2].bit_count() + h[3].bit_count()
    if d.sitting >= 0:
        n -= h[d.sitting].bit_count()
    return n


def exact(d: BauernDeal) -> bool:
    """Few enough cards left that alpha-beta finishes the world within the budget."""
    if d.phase != PLAY:
        return False
    return cards_left(d) <= EXACT_CARDS[d.kind]


def value(d: BauernDeal, seat: int) -> int:
    """Game points won minus lost by `seat`'s team (both partners carry the team's)."""
    res = d.res
    assert res is not None
    return res.points[seat] - res.points[seat ^ 1]


def same_side(d: BauernDeal, seat: int) -> bool:
    return not (d.turn ^ seat) & 1


def key(d: BauernDeal) -> Hashable:
    """Everything that decides the rest of a deal in play: the hands, the trick, the
    turn, the points and marriages, and which seats have a trick (for the 3-point
    win, marriages counting, a Schnapser's declarer).  Contract and multiplier are
    fixed within a world."""
    h = d.hands
    p = d.points
    m = d.mpoints
    t = d.tricks
    return (
        h[0],
        h[1],
        h[2],
        h[3],
        d.trick,
        d.turn,
        p[0],
        p[1],
        p[2],
        p[3],
        m[0] + 256 * m[1] + 65536 * (m[2] + 256 * m[3]),
        (t[0] > 0) | (t[1] > 0) << 1 | (t[2] > 0) << 2 | (t[3] > 0) << 3,
    )


#: A contract's game points by id (the normal game's 1 to 3 counts as 1 in `caution`).
POINTS = {c.id: c.value for c in CONTRACTS}


def caution(code: int, view: SeatView) -> float:
    """Kontra, Rekontra and Subkontra must win by a share of the stake (`doubling`);
    a claim the team's points show to be wrong is never made (`claims`)."""
    if is_claim(code):
        assert view.seat is not None
        team = view.seat & 1
        totals = dict(view.extra).get("team_points", (0, 0))
        assert isinstance(totals, tuple)
        counted = view.tricks_won[team] + view.tricks_won[team + 2] > 0
        return NEVER if known_wrong(code, view, totals[team], counted) else 0.0
    return double_margin(code, view, POINTS)


AI: GameAI[BauernDeal] = GameAI(
    game="bauern",
    contracts=BauernDeal.contracts,
    worlds=worlds,
    policy=policy,
    exact=exact,
    value=value,
    same_side=same_side,
    key=key,
    bounds=(-MAX_POINTS, MAX_POINTS),
    caution=caution,
)
