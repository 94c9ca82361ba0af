"""Dreierschnapsen's hooks for the AI (`GameAI`): worlds, policy, exact phase, value.

The whole deal is one search problem: trumps, bids, the discard (with its raise) and
Spritzen are actions like the cards, so the strong level scores each of them by
playing sampled worlds to the end with the heuristic policy, and once few cards are
left in the hands, alpha-beta finishes the play exactly (the declarer against the two
defenders is a two-sided game, so plain alpha-beta applies).

Values are relative game points, `2 * mine - the other two's`: the match is lost by
the lowest score, so a point the others win hurts as a point I win helps.  A declarer
who makes v gets +2v and fails with -2v; a defender gets +v / -v.  The sum over the
three seats is 0, so both defenders want the same thing.

`estimate` runs the strong level's search for a decision and also reports, per
candidate, how often the seat ended as declarer and made its contract: the bidding
calibration of bench/ai_dreier.py.
"""

from __future__ import annotations

import math
import random
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from ..actions import BID_CONTRACT, BID_VALUE, DISCARD, DISCARD3, encode
from ..dreier import DreierDeal
from ..dreier.contracts import CONTRACTS, ROW, Contract, Goal
from ..dreier.rules import PLAY
from ..views import SeatView
from .base import Budget
from .claims import NEVER, is_claim, known_wrong
from .doubling import double_margin
from .dreier_policy import policy
from .dreier_worlds import worlds
from .plugins import GameAI
from .strong import StrongPlayer

#: The play is solved exactly once the hands hold this many cards in all (4 each: the
#: last three tricks to choose in).
EXACT_CARDS = 12
#: The most a deal is worth: Herrenschnapser (24) without talon, times 8.
MAX_VALUE = (24 + 1) * 8


def exact(d: DreierDeal) -> bool:
    """Few cards left in play: alpha-beta finishes the world."""
    h = d.hands
    return d.phase == PLAY and (h[0] | h[1] | h[2]).bit_count() <= EXACT_CARDS


def value(d: DreierDeal, seat: int) -> int:
    """`seat`'s game points minus the other two's, counted twice for the seat."""
    res = d.res
    assert res is not None
    p = res.points
    return 2 * p[seat] - p[(seat + 1) % 3] - p[(seat + 2) % 3]


def same_side(d: DreierDeal, seat: int) -> bool:
    """The declarer plays alone; the two defenders are one side."""
    decl = d.decl
    return (d.turn == decl) == (seat == decl)


def key(d: DreierDeal) -> Hashable:
    """Everything that decides the rest of a world's play (contract, trump, declarer
    and multiplier are fixed within one search): the hands, the trick so far and who
    is to play, each side's points and marriages, and whether each side has a trick
    (marriages count from then on; no trick is the 3-point win)."""
    a, b = d.defs
    decl = d.decl
    t = d.tricks
    return (
        d.hands[0],
        d.hands[1],
        d.hands[2],
        d.trick,
        d.turn,
        d.points[decl],
        d.points[a] + d.points[b],
        d.mpoints[decl],
        d.mpoints[a] + d.mpoints[b],
        t[decl] > 0,
        t[a] + t[b] > 0,
    )


#: A contract's game points by id (the normal game's 0 counts as 1 in `caution`).
POINTS = {c.id: c.points for c in CONTRACTS}


def caution(code: int, view: SeatView) -> float:
    """Spritzen must win by a share of the stake (`doubling`); in `value`'s units a
    game point counts 2 for the declarer, 1 for a defender.  A claim the side's points
    show to be wrong is never made (`claims`)."""
    if is_claim(code):
        decl = view.seat == view.declarer
        totals = dict(view.extra).get("side_points", (0, 0))
        assert isinstance(totals, tuple)
        side = [s for s in range(3) if (s == view.declarer) == decl]
        counted = sum(view.tricks_won[s] for s in side) > 0
        return NEVER if known_wrong(code, view, totals[0 if decl else 1], counted) else 0.0
    return double_margin(code, view, POINTS, declarer_weight=2)


AI: GameAI[DreierDeal] = GameAI(
    game="dreier",
    contracts=DreierDeal.contracts,
    worlds=worlds,
    policy=policy,
    exact=exact,
    value=value,
    same_side=same_side,
    key=key,
    bounds=(-2 * MAX_VALUE, 2 * MAX_VALUE),
    caution=caution,
)


@dataclass(frozen=True, slots=True)
class Estimate:
    """One candidate's score over the sampled worlds.

    `value` is the strong level's mean; `declared` the share of its playouts in which
    the seat ended as declarer; `made` the share of those in which it made its
    contract (None when it never declared).
    """

    code: int
    value: float
    declared: float
    made: float | None
    #: `made` recalibrated for the contract family (`CALIBRATION`); None without one.
    chance: float | None = None


class _Recorder(StrongPlayer):
    """The strong level, noting for each candidate how its playouts ended for the seat.

    Values (and so the search, its pruning and its choice) are the strong level's own:
    `_playout` asks the base class for the value, then replays the same deterministic
    playout to see who declared and whether he made it.
    """

    #: The estimate wants the chosen action's share of made contracts over the whole
    #: budget (the calibration was fitted so), not only until the choice is clear.
    stop_when_decided = False

    def __init__(self, like: StrongPlayer) -> None:
        super().__init__()
        vars(self).update(vars(like))  # the same settings, whatever they are
        self.ends: dict[int, list[tuple[bool, bool]]] = {}

    def _playout(self, ai: Any, world: Any, code: int, me: int, deadline: float) -> int:
        v = super()._playout(ai, world, code, me, deadline)
        core = world.copy()
        core.step(code)
        plies = 0
        while core.turn >= 0:
            if plies <= self.solve_within and exact(core):
                mine = core.decl == me  # solved exactly: the sign says who won
                self.ends.setdefault(code, []).append((mine, mine and v > 0))
                return v
            core.step(policy(core))
            plies += 1
        res = core.res
        assert res is not None
        mine = res.declarer == me
        self.ends.setdefault(code, []).append((mine, mine and me in res.winners))
        return v


def estimate(
    view: SeatView, rng: random.Random, budget: Budget, like: StrongPlayer | None = None
) -> list[Estimate]:
    """The strong level's scores for each legal action of `view` (the same search, so
    the same worlds and choice for the same `rng` state), with how often each ended in
    a contract of this seat's, and how often that was made: the strong level's
    estimated chance of making the contract it bids (bench/ai_dreier.py's calibration).
    """
    rec = _Recorder(like or StrongPlayer())
    codes = [encode(a, AI.contracts) for a in view.legal]
    scores, _ = rec.scores(AI, view, codes, rng, budget)
    out = []
    for code, score in zip(codes, scores, strict=True):
        ends = rec.ends.get(code, [])
        n = len(ends)
        declared = sum(1 for mine, _ in ends if mine)
        made = made_share = sum(1 for _, ok in ends if ok) / declared if declared else None
        contract = _contract_of(code, view.contract)
        chance = None
        if made_share is not None and contract is not None:
            chance = calibrated(made_share, family(contract))
        out.append(Estimate(code, score, declared / n if n else 0.0, made, chance))
    return out


def _contract_of(code: int, current: str | None) -> Contract | None:
    """The contract a bid names, or a discard plays (its raise, else the current one)."""
    if BID_CONTRACT <= code < BID_VALUE:
        return CONTRACTS[(code - BID_CONTRACT) // 2]
    if DISCARD <= code < DISCARD3:
        raised = (code - DISCARD) // 1024
        if raised:
            return CONTRACTS[raised - 1]
        return CONTRACTS[ROW[current]] if current in ROW else None
    return None


def family(c: Contract) -> str:
    """Contracts whose estimates are recalibrated alike: the normal game, the Bettler
    family, and the slams (all tricks, Schnapser)."""
    if c.goal is Goal.GAME:
        return "game"
    if c.goal is Goal.NO_TRICK:
        return "no_trick"
    return "slam"


#: Recalibration of the share of playouts won at a bid, per contract family:
#: logit(chance) = a + b * logit(share), the share clipped to [0.02, 0.98].  The raw
#: share is biased low because the playouts continue with the heuristic, and the
#: strong level, which plays the contract, makes more of it.  Fitted by maximum
#: likelihood on deals disjoint from the benchmark's (700 duplicate deals of
#: ``bench/ai_dreier.py --seed 21``, which prints the fit of the deals it plays as
#: "calibration fitted on these deals"; the strong level's declared contracts).
CALIBRATION: dict[str, tuple[float, float]] = {
    "game": (0.794, 0.776),
    "no_trick": (0.47, 0.776),
    "slam": (0.822, 0.776),
}


def logit(p: float) -> float:
    p = min(max(p, 0.02), 0.98)
    return math.log(p / (1 - p))


def calibrated(share: float, fam: str) -> float:
    a, b = CALIBRATION[fam]
    return 1 / (1 + math.exp(-(a + b * logit(share))))
