"""Dreierschnapsen AI measurements the generic arena lacks.

    python bench/ai_dreier.py --a strong --b heuristic --deals 500 --seed 1 --jobs 2

The same duplicate deals as ``bench/ai_arena.py --game dreier`` with the same ``--seed``
(same deal seeds, dealers and random streams, so A's games are the arena's games):
each deal is played with A in each seat in turn against two B players, and once more
with B in every seat (the baseline).  Reported, with 95% intervals where a difference
is claimed (a duplicate deal, averaged over its three seats, is the independent unit):

- A's game points per deal against B's *in the same seat on the same deal* (the
  baseline game), raw and relative (2 x own - the other two's: the score the AI plays
  for, since the match is lost by the lowest score);
- declaring: how often A and B (same seat, same deal) declared, per contract, how
  often they made it, and the pairs where both declared the same contract;
- Spritzen by A (as defender or declarer) and how the doubled deals ended;
- bidding calibration (A = strong): at each bid A makes, the strong search's own
  estimate that the bid ends in a made contract of A's (share of the sampled
  playouts, among those where A declares: `engine.ai.dreier.estimate`, same worlds
  as the decision); for each deal A declares, (estimate at A's last bid, made) by
  decile of the estimate, and the same for the estimate at the discard;
- A's decision times (decisions with two or more legal actions).

The last line is a JSON object.
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
from equations import solve

from engine import protocol as P
from engine.actions import Bid, Discard, Double, encode
from engine.ai import Budget, Player, player
from engine.ai.dreier import AI, _contract_of, estimate, family, logit
from engine.ai.strong import StrongPlayer
from engine.games import game

_CTX: dict[str, Any] = {}


def _init(a: str, b: str, options: dict[str, Any], budget: Budget | None, calibrate: bool) -> None:
    spec = game("dreier")
    _CTX.update(
        spec=spec,
        opts=spec.parse_options(options),
        players={"a": player(a, "dreier"), "b": player(b, "dreier")},
        budget=budget,
        calibrate=calibrate and a == "strong",
    )


def _play(dealer: int, seed: bytes, seating: tuple[str, ...], tag: str) -> dict[str, Any]:
    """One game; A's decisions timed, its bids and discard scored by `estimate`."""
    players: dict[str, Player] = _CTX["players"]
    budget: Budget | None = _CTX["budget"]
    rngs = [random.Random(f"{tag}:{s}") for s in range(3)]
    times: list[tuple[str, float]] = []
    #: (raw share, calibrated chance, contract family) at A's last bid / its discard
    bid_pred: tuple[float, float | None, str] | None = None
    discard_pred: tuple[float, float | None, str] | None = None
    agree = [0, 0]
    doubled_by_a = 0
    state = _CTX["spec"].start_deal(_CTX["opts"], dealer, seed=seed)
    while (seat := P.to_act(state)) is not None:
        view = P.view(state, seat)
        side = seating[seat]
        est = None
        choice = len(view.legal) > 1
        if side == "a" and choice and _CTX["calibrate"] and view.phase in ("bidding", "discard"):
            probe = random.Random()
            probe.setstate(rngs[seat].getstate())
            strong = players["a"]
            assert isinstance(strong, StrongPlayer)
            est = estimate(view, probe, budget or strong.budget, strong)
        t0 = time.perf_counter()
        action = players[side].choose(view, rngs[seat], budget)
        dt = time.perf_counter() - t0
        if side == "a" and choice:
            times.append((view.phase, dt * 1000))
            if isinstance(action, Double):
                doubled_by_a += 1
        if est is not None:
            code = encode(action, AI.contracts)
            mine = next(e for e in est if e.code == code)
            best = max(est, key=lambda e: e.value)
            agree[0] += best.value == mine.value
            agree[1] += 1
            pred = None
            if mine.made is not None:
                contract = _contract_of(code, view.contract)
                assert contract is not None
                pred = (mine.made, mine.chance, family(contract))
            if isinstance(action, Bid):
                bid_pred = pred
            elif isinstance(action, Discard):
                discard_pred = pred
        state, _ = P.apply(state, seat, action)
    res = P.result(state)
    assert res is not None
    played = res.contract
    if played is not None and res.detail("without_talon"):
        played += " without talon"
    return {
        "points": list(res.points),
        "contract": played,
        "declarer": res.declarer,
        "made": res.declarer is not None and res.declarer in res.winners,
        "multiplier": res.multiplier,
        "times": times,
        "bid_pred": bid_pred,
        "discard_pred": discard_pred,
        "agree": agree,
        "doubled_by_a": doubled_by_a,
    }


def play_deal(job: tuple[int, bytes, int]) -> dict[str, Any]:
    """Deal `index`: the baseline (B everywhere) and A in each seat."""
    index, seed, run_seed = job
    dealer = index % 3
    base = _play(dealer, seed, ("b", "b", "b"), f"{run_seed}:{index}:base")
    games = []
    for r in range(3):
        seating = tuple("a" if s == r else "b" for s in range(3))
        games.append(_play(dealer, seed, seating, f"{run_seed}:{index}:{r}"))
    return {"deal": index, "seed": seed.hex(), "base": base, "games": games}


def _rel(points: list[int], seat: int) -> int:
    return 2 * points[seat] - points[(seat + 1) % 3] - points[(seat + 2) % 3]


def _mean_ci(xs: list[float]) -> tuple[float, float, float]:
    m = statistics.fmean(xs) if xs else 0.0
    h = 1.96 * statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else math.inf
    return m, m - h, m + h


def _deciles(pairs: list[tuple[float, bool]]) -> list[dict[str, Any]]:
    rows = []
    for k in range(10):
        lo, hi = k / 10, (k + 1) / 10
        sel = [(p, m) for p, m in pairs if lo <= p < hi or (k == 9 and p == 1.0)]
        if not sel:
            continue
        n = len(sel)
        pred = statistics.fmean(p for p, _ in sel)
        made = sum(m for _, m in sel) / n
        half = 1.96 * math.sqrt(max(made * (1 - made), 1e-9) / n)
        rows.append(
            {
                "decile": f"{lo:.1f}-{hi:.1f}",
                "n": n,
                "predicted": round(pred, 3),
                "made": round(made, 3),
                "diff": round(made - pred, 3),
                "made_ci95": [round(made - half, 3), round(made + half, 3)],
            }
        )
    return rows


def fit_calibration(rows: list[tuple[float, str, bool]]) -> dict[str, list[float]] | None:
    """Logistic recalibration of the raw shares: logit(chance) = a[family] + b logit(share),
    maximum likelihood by Newton's method (one intercept per contract family, one
    slope), in the form of `engine.ai.dreier.CALIBRATION`."""
    fams = sorted({f for _, f, _ in rows})
    if len(rows) < 20:
        return None
    k = len(fams) + 1
    xs = [[1.0 if f == g else 0.0 for g in fams] + [logit(r)] for r, f, _ in rows]
    ys = [1.0 if m else 0.0 for _, _, m in rows]
    w = [0.0] * (k - 1) + [1.0]
    for _ in range(50):
        grad = [0.0] * k
        hess = [[1e-6 if i == j else 0.0 for j in range(k)] for i in range(k)]
        for x, y in zip(xs, ys, strict=True):
            z = sum(wi * xi for wi, xi in zip(w, x, strict=True))
            p = 1 / (1 + math.exp(-z))
            for i in range(k):
                grad[i] += (y - p) * x[i]
                for j in range(k):
                    hess[i][j] += p * (1 - p) * x[i] * x[j]
        step = solve(hess, grad)
        w = [wi + si for wi, si in zip(w, step, strict=True)]
        if max(abs(si) for si in step) < 1e-9:
            break
    return {f: [round(w[i], 3), round(w[-1], 3)] for i, f in enumerate(fams)}


def summarize(results: list[dict[str, Any]]) -> dict[str, Any]:
    raw: list[float] = []
    rel: list[float] = []
    a_raw: list[float] = []
    b_raw: list[float] = []
    decl: dict[str, dict[str, list[int]]] = {
        "a": defaultdict(lambda: [0, 0]),
        "b": defaultdict(lambda: [0, 0]),
    }
    same: list[tuple[bool, bool]] = []
    same_by: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    times: list[tuple[str, float]] = []
    bid_pairs: list[tuple[float, bool]] = []
    discard_pairs: list[tuple[float, bool]] = []
    chance_pairs: list[tuple[float, bool]] = []
    fit_rows: list[tuple[float, str, bool]] = []
    #: (raw share, family, made, contract) of each declared contract, for --dump
    dump: list[list[Any]] = []
    agree = [0, 0]
    #: deals where A said `double`, by its role: [deals, contract made]
    doubled = {"as_defender": [0, 0], "as_declarer": [0, 0]}
    for r in results:
        base = r["base"]
        d_raw = d_rel = 0.0
        for seat, g in enumerate(r["games"]):
            d_raw += g["points"][seat] - base["points"][seat]
            d_rel += _rel(g["points"], seat) - _rel(base["points"], seat)
            a_raw.append(g["points"][seat])
            b_raw.append(base["points"][seat])
            times += g["times"]
            agree[0] += g["agree"][0]
            agree[1] += g["agree"][1]
            if g["doubled_by_a"]:
                role = "as_declarer" if g["declarer"] == seat else "as_defender"
                doubled[role][0] += 1
                doubled[role][1] += g["made"]
            a_decl = g["declarer"] == seat
            b_decl = base["declarer"] == seat
            if a_decl:
                row = decl["a"][g["contract"]]
                row[0] += 1
                row[1] += g["made"]
                if g["bid_pred"] is not None:
                    share, chance, fam = g["bid_pred"]
                    bid_pairs.append((share, g["made"]))
                    fit_rows.append((share, fam, g["made"]))
                    dump.append([share, fam, g["made"], g["contract"]])
                    if chance is not None:
                        chance_pairs.append((chance, g["made"]))
                if g["discard_pred"] is not None:
                    discard_pairs.append((g["discard_pred"][0], g["made"]))
            if b_decl:
                row = decl["b"][base["contract"]]
                row[0] += 1
                row[1] += base["made"]
            if a_decl and b_decl and g["contract"] == base["contract"]:
                same.append((g["made"], base["made"]))
                row = same_by[g["contract"]]
                row[0] += 1
                row[1] += g["made"]
                row[2] += base["made"]
        raw.append(d_raw / 3)
        rel.append(d_rel / 3)
    m, lo, hi = _mean_ci(raw)
    mr, lor, hir = _mean_ci(rel)
    same_diff = [float(a) - float(b) for a, b in same]
    _, slo, shi = _mean_ci(same_diff)

    def table(side: str) -> dict[str, Any]:
        rows = decl[side]
        n = sum(v[0] for v in rows.values())
        k = sum(v[1] for v in rows.values())
        return {
            "declared": n,
            "made": k,
            "made_rate": round(k / n, 4) if n else None,
            "by_contract": {c: {"n": v[0], "made": v[1]} for c, v in sorted(rows.items())},
        }

    def calib(pairs: list[tuple[float, bool]]) -> dict[str, Any]:
        rows = _deciles(pairs)
        return {
            "pairs": len(pairs),
            "mean_predicted": round(statistics.fmean(p for p, _ in pairs), 4) if pairs else None,
            "mean_made": round(sum(m for _, m in pairs) / len(pairs), 4) if pairs else None,
            "deciles": rows,
            "max_abs_diff": max((abs(x["diff"]) for x in rows), default=None),
        }

    ms = [t for _, t in times]
    phases: dict[str, list[float]] = defaultdict(list)
    for phase, t in times:
        phases[phase].append(t)
    by_phase = {
        p: {
            "n": len(v),
            "median": round(statistics.median(v), 1),
            "p95": round(duplicate_args.percentile(v, 0.95), 1),
            "max": round(max(v), 1),
        }
        for p, v in sorted(phases.items())
    }
    return {
        "deals": len(results),
        "a_points_per_deal": round(statistics.fmean(a_raw), 4),
        "b_same_seat_points_per_deal": round(statistics.fmean(b_raw), 4),
        "points_diff": round(m, 4),
        "points_diff_ci95": [round(lo, 4), round(hi, 4)],
        "relative_diff": round(mr, 4),
        "relative_diff_ci95": [round(lor, 4), round(hir, 4)],
        "a_declarer": table("a"),
        "b_declarer": table("b"),
        "same_contract_pairs": len(same),
        "same_contract_made": {
            "a": round(sum(a for a, _ in same) / len(same), 4) if same else None,
            "b": round(sum(b for _, b in same) / len(same), 4) if same else None,
            "diff_ci95": [round(slo, 4), round(shi, 4)] if same else None,
            "by_contract": {
                c: {"n": v[0], "a": v[1], "b": v[2]} for c, v in sorted(same_by.items())
            },
        },
        "a_doubled_deals": doubled,
        "calibration_bid": calib(chance_pairs),
        "calibration_bid_raw_share": calib(bid_pairs),
        "calibration_discard_raw_share": calib(discard_pairs),
        "calibration_fit": fit_calibration(fit_rows),
        "_rows": dump,
        "estimate_agrees_with_choice": agree,
        "a_decision_ms_median": round(statistics.median(ms), 2) if ms else 0.0,
        "a_decision_ms_p95": round(duplicate_args.percentile(ms, 0.95), 2),
        "a_decision_ms_max": round(max(ms, default=0.0), 2),
        "a_decisions": len(ms),
        "a_over_1s": sum(t > 1000 for t in ms),
        "a_decision_ms_by_phase": by_phase,
    }


def main() -> int:
    parser = duplicate_args.parser(__doc__, "side", 200)
    parser.add_argument("--no-calibration", action="store_true", help="skip the estimates")
    parser.add_argument(
        "--dump", help="write (raw share, family, made, contract) per contract as JSON here"
    )
    args = parser.parse_args()
    options, budget, jobs = duplicate_args.setup(args)
    init = (args.a, args.b, options, budget, not args.no_calibration)
    start = time.perf_counter()
    if args.jobs > 1:
        with Pool(args.jobs, initializer=_init, initargs=init) as pool:
            results = list(pool.imap(play_deal, jobs, chunksize=4))
    else:
        _init(*init)
        results = [play_deal(j) for j in jobs]
    s = summarize(results)
    rows = s.pop("_rows")
    if args.dump:
        Path(args.dump).write_text(json.dumps(rows))
    s.update(a=args.a, b=args.b, seed=args.seed, options=options, jobs=args.jobs)
    s["budget"] = None if budget is None else {"playouts": budget.playouts, "worlds": budget.worlds}
    s["seconds"] = round(time.perf_counter() - start, 1)

    lo, hi = s["points_diff_ci95"]
    print(
        f"dreier: {args.a} (A) in each seat vs two {args.b}, {s['deals']} duplicate deals: "
        f"A {s['a_points_per_deal']:.3f} game points per deal, {args.b} in the same seat "
        f"{s['b_same_seat_points_per_deal']:.3f}; difference {s['points_diff']:+.3f} "
        f"[{lo:+.3f}, {hi:+.3f}]"
    )
    lo, hi = s["relative_diff_ci95"]
    print(
        f"relative (2 x own - others) difference {s['relative_diff']:+.3f} [{lo:+.3f}, {hi:+.3f}]"
    )
    for side, level in (("a", args.a), ("b", args.b)):
        t = s[f"{side}_declarer"]
        print(
            f"{level} ({side.upper()}) declared {t['declared']}, made {t['made']} ({t['made_rate']})"
        )
        for c, v in t["by_contract"].items():
            print(f"    {c:32s} {v['n']:5d} made {v['made']:5d}")
    sc = s["same_contract_made"]
    print(
        f"same seat, same deal, same contract: {s['same_contract_pairs']} pairs, made "
        f"A {sc['a']} B {sc['b']} (A - B 95% CI {sc['diff_ci95']})"
    )
    for c, v in sc["by_contract"].items():
        print(f"    {c:32s} {v['n']:5d} made A {v['a']:5d} B {v['b']:5d}")
    for name in ("calibration_bid", "calibration_bid_raw_share", "calibration_discard_raw_share"):
        c = s[name]
        if not c["pairs"]:
            continue
        print(
            f"{name}: {c['pairs']} contracts, mean predicted {c['mean_predicted']} "
            f"made {c['mean_made']}"
        )
        print("    decile      n  predicted  made   diff  made 95% CI")
        for row in c["deciles"]:
            print(
                f"    {row['decile']}  {row['n']:5d}  {row['predicted']:.3f}  {row['made']:.3f}"
                f"  {row['diff']:+.3f}  {row['made_ci95']}"
            )
    dd = s["a_doubled_deals"]
    print(
        f"A doubled as defender in {dd['as_defender'][0]} deals (declarer made "
        f"{dd['as_defender'][1]}), redoubled as declarer in {dd['as_declarer'][0]} (made "
        f"{dd['as_declarer'][1]})"
    )
    if s["calibration_fit"]:
        print(
            f"calibration fitted on these deals (logit a + b logit share): {s['calibration_fit']}"
        )
    print(
        f"A decision ms: median {s['a_decision_ms_median']} p95 {s['a_decision_ms_p95']} "
        f"max {s['a_decision_ms_max']} over {s['a_decisions']} decisions ({s['a_over_1s']} over 1 s)"
    )
    for phase, row in s["a_decision_ms_by_phase"].items():
        print(
            f"    {phase:9s} {row['n']:6d} median {row['median']} p95 {row['p95']} max {row['max']}"
        )
    print(json.dumps(s))
    return 0


if __name__ == "__main__":
    sys.exit(main())
