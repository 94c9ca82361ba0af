"""Bauernschnapsen AI measurements the generic arena lacks: the points share.

    python bench/ai_bauern.py --a strong --b heuristic --deals 500 --seed 1 --jobs 2

Plays duplicate deals like bench/ai_arena.py (the same seeds for the same ``--seed``:
each deal dealt from a seed and played twice, the teams swapping seats 0+2 and 1+3,
so the cards' luck cancels) and reports what the target is stated in: A's share of
all game points won, with a 95% interval (a duplicate deal is the independent unit;
ratio estimator, delta method).  Also per side: which contracts it declared, how
often they were made and what they brought in, Kontra/Rekontra/Subkontra counts and
their outcome, and decision times (decisions with two or more legal actions), both
wall-clock and the deciding process's CPU time (which does not grow when other work
shares the cores).  The last line is a JSON object.
"""

from __future__ import annotations

import json
import math
import random
import statistics
import sys
import time
from collections import defaultdict
from multiprocessing import Pool
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import duplicate_args

from engine import protocol as P
from engine.actions import Double
from engine.ai import Budget, Player, player
from engine.games import game

_CTX: dict[str, Any] = {}
SEATINGS = (("a", "b", "a", "b"), ("b", "a", "b", "a"))


def _init(a: str, b: str, options: dict[str, Any], budget: Budget | None) -> None:
    spec = game("bauern")
    _CTX.update(
        spec=spec,
        opts=spec.parse_options(options),
        players={"a": player(a, "bauern"), "b": player(b, "bauern")},
        budget=budget,
    )


def _play(dealer: int, seed: bytes, seating: tuple[str, ...], tag: str) -> dict[str, Any]:
    spec = _CTX["spec"]
    players: dict[str, Player] = _CTX["players"]
    budget: Budget | None = _CTX["budget"]
    rngs = [random.Random(f"{tag}:{s}") for s in range(4)]
    times: dict[str, list[float]] = {"a": [], "b": []}
    cpu: dict[str, list[float]] = {"a": [], "b": []}
    doubles: list[str] = []
    state = spec.start_deal(_CTX["opts"], dealer, seed=seed)
    while (seat := P.to_act(state)) is not None:
        view = P.view(state, seat)
        side = seating[seat]
        t0 = time.perf_counter()
        c0 = time.process_time()
        action = players[side].choose(view, rngs[seat], budget)
        dc = time.process_time() - c0
        dt = time.perf_counter() - t0
        if len(view.legal) > 1:
            times[side].append(dt * 1000)
            cpu[side].append(dc * 1000)
        if isinstance(action, Double):
            doubles.append(side)
        state, _ = P.apply(state, seat, action)
    res = P.result(state)
    assert res is not None
    a_seat = seating.index("a")
    return {
        "a": res.points[a_seat],
        "b": res.points[1 - a_seat],
        "contract": res.contract,
        "declarer": seating[res.declarer] if res.declarer is not None else "-",
        "multiplier": res.multiplier,
        "winner": seating[res.winners[0]],
        "doubles": doubles,
        "times": times,
        "cpu": cpu,
    }


def play_deal(job: tuple[int, bytes, int]) -> dict[str, Any]:
    """Deal `index` once per seating (the same tags as bench/ai_arena.py)."""
    index, seed, run_seed = job
    games = [
        _play(index % 4, seed, seating, f"{run_seed}:{index}:{r}")
        for r, seating in enumerate(SEATINGS)
    ]
    return {"deal": index, "seed": seed.hex(), "games": games}


def summarize(results: list[dict[str, Any]]) -> dict[str, Any]:
    a_tot = [sum(g["a"] for g in r["games"]) for r in results]
    b_tot = [sum(g["b"] for g in r["games"]) for r in results]
    total = sum(a_tot) + sum(b_tot)
    share = sum(a_tot) / total if total else 0.5
    z = [a - share * (a + b) for a, b in zip(a_tot, b_tot, strict=True)]
    half = 1.96 * math.sqrt(sum(x * x for x in z)) / total if total else 0.0
    contracts: dict[str, dict[str, list[float]]] = {"a": defaultdict(list), "b": defaultdict(list)}
    doubling: dict[str, dict[str, int]] = {"a": defaultdict(int), "b": defaultdict(int)}
    times: dict[str, list[float]] = {"a": [], "b": []}
    cpu: dict[str, list[float]] = {"a": [], "b": []}
    games = [g for r in results for g in r["games"]]
    for g in games:
        side = g["declarer"]
        if side in contracts:
            made = g["winner"] == side
            gain = float(g[side] - g["b" if side == "a" else "a"])
            contracts[side][g["contract"]].append(gain)
            contracts[side][g["contract"] + ":made"].append(1.0 if made else 0.0)
        for i, who in enumerate(g["doubles"]):
            name = ("kontra", "rekontra", "subkontra")[min(i, 2)]
            doubling[who][name] += 1
            doubling[who][name + "_won"] += g["winner"] == who
        for side in "ab":
            times[side] += g["times"][side]
            cpu[side] += g["cpu"][side]
    table: dict[str, dict[str, dict[str, float]]] = {}
    for side in "ab":
        rows: dict[str, dict[str, float]] = {}
        for cid, gains in contracts[side].items():
            if cid.endswith(":made"):
                continue
            made = contracts[side][cid + ":made"]
            rows[cid] = {
                "n": len(gains),
                "made": round(statistics.fmean(made), 3),
                "net_per_game": round(statistics.fmean(gains), 2),
            }
        table[side] = rows
    return {
        "deals": len(results),
        "games": len(games),
        "a_points": sum(a_tot),
        "b_points": sum(b_tot),
        "a_points_share": round(share, 4),
        "a_points_share_ci95": [round(share - half, 4), round(share + half, 4)],
        "a_net_per_game": round((sum(a_tot) - sum(b_tot)) / len(games), 3),
        "contracts": table,
        "doubling": {side: dict(v) for side, v in doubling.items()},
        "decision_ms": {
            side: {
                "n": len(t),
                "median": round(statistics.median(t), 2) if t else 0.0,
                "p95": round(duplicate_args.percentile(t, 0.95), 2),
                "max": round(max(t, default=0.0), 2),
                "over_1s": sum(1 for x in t if x > 1000),
            }
            for side, t in times.items()
        },
        # CPU time of the deciding process: what the decision costs, whatever else
        # the machine is running (wall-clock above includes waiting for a core).
        "decision_cpu_ms": {
            side: {
                "median": round(statistics.median(t), 2) if t else 0.0,
                "p95": round(duplicate_args.percentile(t, 0.95), 2),
                "max": round(max(t, default=0.0), 2),
            }
            for side, t in cpu.items()
        },
    }


def main() -> int:
    parser = duplicate_args.parser(__doc__, "team", 200)
    args = parser.parse_args()
    options, budget, jobs = duplicate_args.setup(args)
    init = (args.a, args.b, options, budget)
    start = time.perf_counter()
    if args.jobs > 1:
        with Pool(args.jobs, initializer=_init, initargs=init) as pool:
            results = list(pool.imap(play_deal, jobs, chunksize=4))
    else:
        _init(*init)
        results = [play_deal(j) for j in jobs]
    out = summarize(results)
    out.update(
        a=args.a,
        b=args.b,
        seed=args.seed,
        options=options,
        budget=None if budget is None else {"playouts": budget.playouts, "worlds": budget.worlds},
        seconds=round(time.perf_counter() - start, 1),
    )
    lo, hi = out["a_points_share_ci95"]
    print(
        f"bauern: {args.a} (A) vs {args.b} (B), {out['deals']} duplicate deals, {out['games']} "
        f"games: A takes {out['a_points_share']:.1%} [{lo:.1%}, {hi:.1%}] of the game points "
        f"({out['a_points']} to {out['b_points']})"
    )
    for side in "ab":
        t = out["decision_ms"][side]
        c = out["decision_cpu_ms"][side]
        print(
            f"{side.upper()} decision ms: median {t['median']} p95 {t['p95']} max {t['max']} "
            f"over {t['n']} decisions ({t['over_1s']} over 1 s); CPU ms median {c['median']} "
            f"p95 {c['p95']} max {c['max']}"
        )
        for cid, row in sorted(out["contracts"][side].items(), key=lambda kv: -kv[1]["n"]):
            print(f"  {side.upper()} declares {cid:22s} {row}")
        print(f"  {side.upper()} doubling {out['doubling'][side]}")
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
