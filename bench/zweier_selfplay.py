"""Zweierschnapsen: paired self-play of a variant of the heuristic against the heuristic.

    python bench/zweier_selfplay.py --set RUFF_RATHER_THAN_THROW=false --deals 20000 --seed 1

Each deal is played twice with the same cards: the variant in seat 0 against the
unchanged heuristic, then in seat 1.  The variant is the heuristic with some of its
module constants (`engine/ai/zweier_policy.py`) set otherwise, only while it decides
for its own seat.  A deal takes about a quarter of a millisecond, so tens of thousands
show a few hundredths of a game point.

Printed: the variant's game points per deal less the heuristic's over the pair (95%
confidence interval, the deal is the unit), and as the last line a JSON object.
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import duplicate_args

from engine.ai import zweier_policy as ZP
from engine.games import game


def pair(spec: Any, opts: Any, dealer: int, seed: bytes, variant: dict[str, Any]) -> float:
    """The variant's game points less the heuristic's, over the deal played from
    both seats."""
    total = 0
    for seat in (0, 1):
        d = spec.start_deal(opts, dealer, seed=seed)
        while d.turn >= 0:
            if d.turn == seat:
                d.step(duplicate_args.with_constants(ZP, variant, functools.partial(ZP.policy, d)))
            else:
                d.step(ZP.policy(d))
        res = d.result()
        total += res.points[seat] - res.points[1 - seat]
    return total / 2


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--deals", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if args.deals < 2:
        raise SystemExit("--deals: at least 2")
    variant = duplicate_args.parse_constants(args.set, ZP)
    spec = game("zweier")
    opts = spec.parse_options({})
    rng = random.Random(args.seed)
    start = time.perf_counter()
    diffs = [pair(spec, opts, k % 2, rng.randbytes(16), variant) for k in range(args.deals)]
    mean, half = duplicate_args.mean_ci(diffs)
    print(
        f"zweier self-play, {args.deals} deals, variant {variant}: {mean:+.4f} game points a"
        f" deal (95% CI {mean - half:+.4f} to {mean + half:+.4f}) over the heuristic"
    )
    out = {
        "variant": variant,
        "deals": args.deals,
        "seed": args.seed,
        "game_points_per_deal_diff": round(mean, 4),
        "game_points_per_deal_diff_ci95": round(half, 4),
        "seconds": round(time.perf_counter() - start, 1),
    }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
