"""Duplicate-deal matches between two AI levels, for any game the levels play.

    python bench/ai_arena.py --game zweier --a strong --b heuristic --deals 2000 --seed 1 [--jobs 2]

Each deal is dealt from a seed (the engine's SHA-256 shuffle, seeds drawn from
``--seed``) and played once per seating with the players' seats rotated (zweier: A in
seat 0 then in seat 1), so the luck of the cards cancels.  Prints one line per deal
(game points of each side over its seatings), then the summary; the last line is a JSON
object.  `a_win_rate` is the share of games A won; its 95% confidence interval comes
from the spread of the per-deal shares (a duplicate deal is the independent unit).
Points per deal are game points per game played.  Decision times are of decisions
with a real choice (two or more legal actions; forced moves return at once).
"""

from __future__ import annotations

import json
import math
import random
import statistics
import sys
import time
from multiprocessing import Pool
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import duplicate_args

from engine import protocol as P
from engine.ai import Budget, Player, player
from engine.games import game

# Per worker process: (spec, options, players by side, budget), set by `_init`.
_CTX: dict[str, Any] = {}


def seatings(players: int, teams: bool) -> list[tuple[str, ...]]:
    """Which side ("a"/"b") sits in each seat, one tuple per game of a duplicate deal.

    Two players or two teams (seats 0+2 against 1+3): the sides swap seats.  Three
    players: A takes each seat in turn against two copies of B.
    """
    if players == 2:
        return [("a", "b"), ("b", "a")]
    if teams:
        return [("a", "b", "a", "b"), ("b", "a", "b", "a")]
    return [tuple("a" if s == r else "b" for s in range(players)) for r in range(players)]


def _init(game_id: str, a: str, b: str, options: dict[str, Any], budget: Budget | None) -> None:
    spec = game(game_id)
    _CTX.update(
        spec=spec,
        opts=spec.parse_options(options),
        players={"a": player(a, game_id), "b": player(b, game_id)},
        budget=budget,
    )


def _play(dealer: int, seed: bytes, seating: tuple[str, ...], rng_tag: str) -> dict[str, Any]:
    spec = _CTX["spec"]
    players: dict[str, Player] = _CTX["players"]
    budget: Budget | None = _CTX["budget"]
    rngs = [random.Random(f"{rng_tag}:{s}") for s in range(len(seating))]
    times: dict[str, list[float]] = {"a": [], "b": []}
    state = spec.start_deal(_CTX["opts"], dealer, seed=seed)
    while (seat := P.to_act(state)) is not None:
        view = P.view(state, seat)
        side = seating[seat]
        t0 = time.perf_counter()
        action = players[side].choose(view, rngs[seat], budget)
        dt = time.perf_counter() - t0
        if len(view.legal) > 1:
            times[side].append(dt * 1000)
        state, _ = P.apply(state, seat, action)
    res = P.result(state)
    assert res is not None
    pts = {
        side: [p for p, s2 in zip(res.points, seating, strict=True) if s2 == side] for side in "ab"
    }
    return {
        "a": sum(pts["a"]) / len(pts["a"]),
        "b": sum(pts["b"]) / len(pts["b"]),
        "times": times,
    }


def play_deal(job: tuple[int, bytes, int]) -> dict[str, Any]:
    """Play deal `index` once per seating; A's and B's points and A's share of wins."""
    index, seed, run_seed = job
    spec = _CTX["spec"]
    # A rule option may change the table's size (Thousand for 2 or 4).
    players = getattr(_CTX["opts"], "players", spec.players)
    dealer = index % players
    rows = seatings(players, spec.id == "bauern")
    a_pts = b_pts = wins = 0.0
    times: dict[str, list[float]] = {"a": [], "b": []}
    for r, seating in enumerate(rows):
        g = _play(dealer, seed, seating, f"{run_seed}:{index}:{r}")
        a_pts += g["a"]
        b_pts += g["b"]
        wins += 1.0 if g["a"] > g["b"] else 0.5 if g["a"] == g["b"] else 0.0
        for side in "ab":
            times[side] += g["times"][side]
    return {
        "deal": index,
        "seed": seed.hex(),
        "a": a_pts,
        "b": b_pts,
        "a_share": wins / len(rows),
        "games": len(rows),
        "times": times,
    }


def main() -> int:
    parser = duplicate_args.parser(__doc__, "side", 200)
    parser.add_argument("--game", default="zweier")
    parser.add_argument("--quiet", action="store_true", help="no per-deal lines")
    args = parser.parse_args()
    options, budget, jobs = duplicate_args.setup(args)
    init = (args.game, args.a, args.b, options, budget)
    start = time.perf_counter()
    if args.jobs > 1:
        with Pool(args.jobs, initializer=_init, initargs=init) as pool:
            results = list(pool.imap(play_deal, jobs, chunksize=4))
    else:
        _init(*init)
        results = [play_deal(j) for j in jobs]
    elapsed = time.perf_counter() - start

    times: dict[str, list[float]] = {"a": [], "b": []}
    for r in results:
        if not args.quiet:
            print(f"deal {r['deal']:5d} seed {r['seed']}  a {r['a']:+.1f}  b {r['b']:+.1f}")
        for side in "ab":
            times[side] += r["times"][side]
    n = len(results)
    games = sum(r["games"] for r in results)
    shares = [r["a_share"] for r in results]
    rate = statistics.fmean(shares)
    half = 1.96 * statistics.stdev(shares) / math.sqrt(n) if n > 1 else 1.0
    a_ppd = sum(r["a"] for r in results) / games
    b_ppd = sum(r["b"] for r in results) / games
    summary = {
        "game": args.game,
        "a": args.a,
        "b": args.b,
        "deals": n,
        "games": games,
        "a_win_rate": round(rate, 4),
        # a share lies in [0, 1]; with few deals the normal interval overshoots
        "a_win_ci95": [round(max(0.0, rate - half), 4), round(min(1.0, rate + half), 4)],
        "a_points_per_deal": round(a_ppd, 4),
        "b_points_per_deal": round(b_ppd, 4),
        "a_decision_ms_median": round(statistics.median(times["a"]), 2) if times["a"] else 0.0,
        "a_decision_ms_p95": round(duplicate_args.percentile(times["a"], 0.95), 2),
        "a_decision_ms_max": round(max(times["a"], default=0.0), 2),
        "b_decision_ms_median": round(statistics.median(times["b"]), 2) if times["b"] else 0.0,
        "b_decision_ms_p95": round(duplicate_args.percentile(times["b"], 0.95), 2),
        "b_decision_ms_max": round(max(times["b"], default=0.0), 2),
        "decisions": {"a": len(times["a"]), "b": len(times["b"])},
        "budget": None
        if budget is None
        else {"playouts": budget.playouts, "worlds": budget.worlds, "seconds": budget.seconds},
        "options": options,
        "seed": args.seed,
        "jobs": args.jobs,
        "seconds": round(elapsed, 1),
    }
    lo, hi = summary["a_win_ci95"]
    print(
        f"{args.game}: {args.a} (A) vs {args.b} (B), {n} duplicate deals, {games} games: "
        f"A wins {rate:.1%} [{lo:.1%}, {hi:.1%}]; game points per deal A {a_ppd:.3f} B {b_ppd:.3f}"
    )
    for side, level in (("a", args.a), ("b", args.b)):
        print(
            f"{side.upper()} ({level}) decision ms: median {summary[f'{side}_decision_ms_median']}"
            f" p95 {summary[f'{side}_decision_ms_p95']} max {summary[f'{side}_decision_ms_max']}"
            f" over {len(times[side])} decisions"
        )
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
