"""Thousand: paired self-play of a variant of the heuristic against the heuristic.

    python bench/tausend_selfplay.py --set RAISE_MARGIN=15 --deals 8000 --seed 1
    python bench/tausend_selfplay.py --set CASH_BEFORE_MARRIAGE=0 --deals 8000 --seed 1
    python bench/tausend_selfplay.py --set BARREL_DENY=20 --deals 0 --match-wins 600

How the heuristic's margins and rules were tuned (docs/ai_tausend.md): each deal is
played once by three unchanged heuristics (the baseline), then once for each seat r
with the variant in seat r and the unchanged heuristic in the others: the same cards,
the same seat, only the player differs.  The variant is the heuristic with some of its
module constants (`engine/ai/tausend_policy.py`) set otherwise, and only while it
decides for its own seat.  The heuristic decides in microseconds, so thousands of
deals take seconds: enough to see a point a deal.

Printed: the variant's points per deal over the baseline in the same seats (the deal,
all seats averaged, is the unit; 95% confidence interval), and the contracts made by
the variant and by the baseline in the same seats.  ``--match-wins M`` plays whole
matches instead of counting deals (what the barrel rules are about): match i once for
each seat r with the variant in seat r, the same deal seeds each time; printed, the
variant seat's share of the matches won (a third is no change).  The last line is a
JSON object.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from multiprocessing import Pool
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import duplicate_args

from engine.ai import tausend_policy as TP
from engine.games import game

#: The variant's constants, set in each worker by `_init`.
_VARIANT: dict[str, Any] = {}
_CTX: dict[str, Any] = {}


def _variant_policy(d: Any) -> int:
    """The heuristic with the variant's constants, for this one decision."""
    return duplicate_args.with_constants(TP, _VARIANT, lambda: TP.policy(d))


def _init(variant: dict[str, Any], options: dict[str, Any]) -> None:
    spec = game("tausend")
    _VARIANT.clear()
    _VARIANT.update(variant)
    _CTX.update(spec=spec, opts=spec.parse_options(options))


def _play(dealer: int, seed: bytes, variant_seat: int) -> Any:
    d = _CTX["spec"].start_deal(_CTX["opts"], dealer, seed=seed)
    while d.turn >= 0:
        d.step((_variant_policy if d.turn == variant_seat else TP.policy)(d))
    return d.res


def _made(res: Any, seat: int) -> bool | None:
    """Whether `seat` made its contract (None: it did not declare, or a redeal)."""
    if res.reason == "redeal" or res.declarer != seat:
        return None
    return bool(dict(res.details)["made"])


def play(job: tuple[int, bytes, int]) -> dict[str, Any]:
    index, seed, _ = job
    n = _CTX["opts"].players
    dealer = index % n
    base = _play(dealer, seed, -1)
    diff = 0.0
    made: list[tuple[bool, bool | None]] = []  # (variant made, baseline same seat made)
    for r in range(n):
        res = _play(dealer, seed, r)
        diff += res.points[r] - base.points[r]
        m = _made(res, r)
        if m is not None:
            made.append((m, _made(base, r)))
    return {"diff": diff / n, "made": made, "base_made": [_made(base, r) for r in range(n)]}


def match_deals(job: tuple[int, bool]) -> int:
    """Deals a whole match of three heuristic players takes (the variant in every
    seat, or none): the barrel is won only by a bid above 120, which a timid
    heuristic rarely makes, so a setting can win deals and drag matches out."""
    index, variant = job
    spec, opts = _CTX["spec"], _CTX["opts"]
    pick = _variant_policy if variant else TP.policy
    match = spec.new_match(opts, 0)
    deals = 0
    while (deal_spec := match.next_deal()) is not None and deals < MATCH_DEALS_CAP:
        d = match.start_deal(deal_spec, seed=f"match{index}:{deals}".encode())
        while d.turn >= 0:
            d.step(pick(d))
        match.add_result(deal_spec, d.res)
        deals += 1
    return deals


#: A match stops being counted here (a heuristic that never wins from the barrel).
MATCH_DEALS_CAP = 2000


def match_won(job: tuple[int, int, int]) -> bool:
    """Whether the variant in seat `seat` wins whole match `index`."""
    index, seat, seed = job
    spec, opts = _CTX["spec"], _CTX["opts"]
    match = spec.new_match(opts, index % opts.players)
    deals = 0
    while (deal_spec := match.next_deal()) is not None and deals < MATCH_DEALS_CAP:
        d = match.start_deal(deal_spec, seed=f"win{seed}:{index}:{deals}".encode())
        while d.turn >= 0:
            d.step((_variant_policy if d.turn == seat else TP.policy)(d))
        match.add_result(deal_spec, d.res)
        deals += 1
    return bool(match.finished and match.winner == seat)


def _rate(xs: list[bool]) -> dict[str, Any]:
    return {"made": sum(xs), "of": len(xs), "rate": round(sum(xs) / len(xs), 4) if xs else None}


def main() -> int:
    parser = duplicate_args.parser(__doc__, deals=8000)
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a constant of engine/ai/tausend_policy.py for the variant (repeatable)",
    )
    parser.add_argument(
        "--matches",
        type=int,
        default=0,
        help="also play this many whole matches, variant and current, and count deals",
    )
    parser.add_argument(
        "--match-wins",
        type=int,
        default=0,
        help="play this many whole matches per seat with the variant in it; count its wins",
    )
    args = parser.parse_args()
    variant = duplicate_args.parse_constants(args.set, TP)
    if not variant:
        parser.error("name at least one --set NAME=VALUE: the variant to measure")
    options, _, jobs = duplicate_args.setup(args)
    matches = [(i, v) for v in (True, False) for i in range(args.matches)]
    n_seats = options.get("tausend.players", 3)
    contests = [(i, r, args.seed) for i in range(args.match_wins) for r in range(n_seats)]
    start = time.perf_counter()
    if args.jobs > 1:
        with Pool(args.jobs, initializer=_init, initargs=(variant, options)) as pool:
            results = list(pool.imap(play, jobs, chunksize=64))
            lengths = list(pool.imap(match_deals, matches))
            wins = list(pool.imap(match_won, contests, chunksize=8))
    else:
        _init(variant, options)
        results = [play(j) for j in jobs]
        lengths = [match_deals(m) for m in matches]
        wins = [match_won(c) for c in contests]
    elapsed = time.perf_counter() - start
    diffs = [r["diff"] for r in results]
    n = len(diffs)
    mean, half = duplicate_args.mean_ci(diffs) if diffs else (0.0, 0.0)
    variant_made = [m for r in results for m, _ in r["made"]]
    base_made = [m for r in results for m in r["base_made"] if m is not None]
    summary = {
        "variant": variant,
        "deals": n,
        "seed": args.seed,
        "points_per_deal_diff": round(mean, 2),
        "points_per_deal_diff_ci95": round(half, 2),
        "variant_contracts": _rate(variant_made),
        "baseline_contracts": _rate(base_made),
        "seconds": round(elapsed, 1),
    }
    if args.matches:
        half_n = args.matches
        summary["match_deals_median"] = {
            "variant": statistics.median(lengths[:half_n]),
            "current": statistics.median(lengths[half_n:]),
        }
    print(
        f"tausend self-play, {n} deals, variant {variant}: {mean:+.2f} points a deal "
        f"(95% CI {mean - half:+.2f} to {mean + half:+.2f}) over the heuristic in the same "
        f"seats; contracts made {summary['variant_contracts']} against "
        f"{summary['baseline_contracts']}"
    )
    if args.matches:
        print(f"whole matches ({args.matches} each): median deals {summary['match_deals_median']}")
    if contests:
        share, w_half, ci = duplicate_args.share_ci(sum(wins), len(wins))
        summary["match_wins"] = {
            "matches": len(wins),
            "variant_won": round(share, 4),
            "variant_won_ci95": ci,
        }
        print(
            f"whole matches, the variant in each seat in turn: won {sum(wins)}/{len(wins)} = "
            f"{share:.1%} (95% CI {share - w_half:.1%}-{share + w_half:.1%}; no change: "
            f"{1 / n_seats:.1%})"
        )
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
