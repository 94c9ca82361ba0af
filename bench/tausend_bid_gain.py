"""Thousand: fit the heuristic's bidding gain (`_BID_GAIN` in engine/ai/tausend_policy.py).

    python bench/tausend_bid_gain.py --deals 300000 --seed 1 --jobs 2

Each deal is played by three heuristics that bid by the estimate alone (`BID_BY_GAIN`
off: bid while `strength` stays `BID_MARGIN` above the bid).  At every bidding decision
where a seat may pass or bid the next step, the deal is played to its end twice from
there: the seat passing for good, and the seat bidding the next step and going on as the
heuristic does; the difference of the seat's score (RULES.md §5: a declarer's +- bid, a
defender's own points, marriages included, rounded to 5) is what bidding gained there.
Least squares over the decisions where the bid is at most `GAIN_FLOOR` above the
estimate, with the features of `_gain_features`, in the three regimes of `bid_gain` (no
marriage in hand; a marriage, the bid up to 120; above 120), gives the weights in
hundredths of a point (printed, to paste).

A check on fresh deals: the deals are split in two halves; the weights fitted on one
half decide on the other, and the mean gain per decision of the rule (the difference
when it bids, nothing when it passes) is printed next to that of bidding by the margin.
One decision changed, the rest of the auction as before: a guide, not a match;
`bench/tausend_selfplay.py --set BID_BY_GAIN=false` measures the real thing.  The last
line is a JSON object.
"""

from __future__ import annotations

import json
import sys
import time
from multiprocessing import Pool
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import duplicate_args
from equations import solve

from engine import actions as A
from engine.ai import tausend_policy as TP
from engine.games import game
from engine.tausend.rules import BIDDING, FREE_BID_LIMIT

_CTX: dict[str, Any] = {}


def _init() -> None:
    spec = game("tausend")
    _CTX.update(spec=spec, opts=spec.parse_options({}))
    TP.BID_BY_GAIN = False


def _score(d: Any, seat: int) -> int:
    while d.turn >= 0:
        d.step(TP.policy(d))
    return int(d.res.points[seat])


def decisions(job: tuple[int, bytes, int]) -> list[tuple[int, int, int]]:
    """(7 cards, bid, points gained by bidding) at each pass-or-bid decision of a deal."""
    index, seed, _ = job
    d = _CTX["spec"].start_deal(_CTX["opts"], index % 3, seed=seed)
    dealt = list(d.hands)
    out = []
    while d.turn >= 0 and d.phase == BIDDING:
        codes = d.legal()
        seat = d.turn
        want = A.BID_VALUE + d.high // 5 + 1
        if A.PASS in codes and want in codes:
            passed, bid = d.copy(), d.copy()
            passed.step(A.PASS)
            bid.step(want)
            gain = _score(bid, seat) - _score(passed, seat)
            out.append((dealt[seat], (want - A.BID_VALUE) * 5, gain))
        d.step(TP.policy(d))
    return out


def _regime(features: list[int], bid: int) -> int:
    return 2 if bid > FREE_BID_LIMIT else 1 if features[TP._MARRIAGES] else 0


def _sums(data: list[tuple[int, int, int]]) -> list[list[list[float]]]:
    """The normal equations of each regime: X'X with X'y as the last column, over the
    decisions where the bid is at most `GAIN_FLOOR` above the estimate."""
    k = len(TP._gain_features(0, 105)) + 1
    sums = [[[0.0] * (k + 1) for _ in range(k)] for _ in range(3)]
    for hand, bid, gain in data:
        if bid <= TP.strength(hand) - TP.GAIN_FLOOR:
            f = TP._gain_features(hand, bid)
            x = [*f, 1]
            m = sums[_regime(f, bid)]
            for i, xi in enumerate(x):
                if xi:
                    row = m[i]
                    for j, xj in enumerate(x):
                        row[j] += xi * xj
                    row[k] += xi * gain
    return sums


def _solve(sums: list[list[float]], ridge: float = 10.0) -> list[float]:
    """Least squares from the normal equations (a small ridge: some features are
    constant within a regime)."""
    k = len(sums)
    a = [[x + ridge * (i == j) for j, x in enumerate(row[:k])] for i, row in enumerate(sums)]
    return solve(a, [row[k] for row in sums])


def fit(*parts: list[list[list[float]]]) -> list[list[float]]:
    """The weights of each regime (the constant last) from the sums of some parts."""
    return [
        _solve(
            [[sum(vals) for vals in zip(*rows, strict=True)] for rows in zip(*mats, strict=True)]
        )
        for mats in zip(*parts, strict=True)
    ]


def _decides(w: list[list[float]], hand: int, bid: int) -> bool:
    if bid > TP.strength(hand) - TP.GAIN_FLOOR:
        return False
    f = TP._gain_features(hand, bid)
    return sum(a * b for a, b in zip([*f, 1], w[_regime(f, bid)], strict=True)) > TP.GAIN_MIN


def main() -> int:
    parser = duplicate_args.parser(__doc__, deals=300000)
    args = parser.parse_args()
    _, _, jobs = duplicate_args.setup(args)
    start = time.perf_counter()
    if args.jobs > 1:
        with Pool(args.jobs, initializer=_init) as pool:
            per_deal = list(pool.imap(decisions, jobs, chunksize=256))
    else:
        _init()
        per_deal = [decisions(j) for j in jobs]
    halves = [[x for i, r in enumerate(per_deal) if i % 2 == h for x in r] for h in (0, 1)]
    sums = [_sums(half) for half in halves]
    check = []
    for h in (0, 1):
        w = fit(sums[1 - h])
        test = halves[h]
        by_gain = sum(g for hand, bid, g in test if _decides(w, hand, bid))
        by_margin = sum(g for hand, bid, g in test if bid <= TP.strength(hand) - TP.BID_MARGIN)
        check.append(
            {
                "decisions": len(test),
                "by_margin": round(by_margin / len(test), 3),
                "by_gain": round(by_gain / len(test), 3),
            }
        )
    weights = [tuple(round(x * 100) for x in w) for w in fit(*sums)]
    for h, c in enumerate(check):
        print(
            f"half {h} ({c['decisions']} decisions): points gained a decision, bidding by "
            f"the margin {c['by_margin']:+.3f}, by the gain fitted on the other half "
            f"{c['by_gain']:+.3f}"
        )
    print("_BID_GAIN =", tuple(weights))
    summary = {
        "deals": len(jobs),
        "seed": args.seed,
        "check": check,
        "weights": weights,
        "seconds": round(time.perf_counter() - start, 1),
    }
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
