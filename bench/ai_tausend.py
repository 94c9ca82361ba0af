"""Thousand: how the strong AI bids and scores, seat by seat, against the heuristic.

    python bench/ai_tausend.py --deals 300 --seed 1 --jobs 2 [--a strong --b heuristic]

Each deal is dealt from a seed (seeds drawn from ``--seed`` as in bench/ai_arena.py, so
deal i is the arena's deal i) and played 1 + 3 times (three players): once with B in
every seat (the baseline), then with A in seat r against two B players, for r = 0, 1, 2.
A's score in seat r is compared with B's score in the same seat of the baseline: the
same cards, the same seat, only the player differs.

Reported: points per deal of A and of B in the same seats, the paired difference with
a 95% confidence interval (the deal is the unit); A's contracts (deals it declared:
made / all, and split into contracts it was held to as forehand — it opened the
mandatory 100 and nobody bid — and contracts it bid for; the held ones split again
into those it raised after the stock and those it kept at 100, and `own_value`: the
contracts whose value it chose, i.e. all but the kept ones), the same for B in the same
seats of the baseline; redeals A claimed; A's decision times by phase (decisions with
two or more legal actions), wall-clock and, as `cpu_*`, the process's CPU time (what a
decision costs when the machine is shared).  The last line is a JSON object.

With ``--oracle`` A's search is handed the real deal instead of sampled worlds: not a
player (it sees every card) but the ceiling of the same search, e.g. for how many
contracts held at the mandatory 100 can be made at all.  ``--oracle-phases give,raise``
does so only in those phases (``bidding``, ``give``, ``raise``, ``play``, ...): where
the search loses most to what it cannot see.

``--forehand`` studies the contracts forehand is held to: each deal is played once,
A in forehand (the seat that must open at 100) against two B, no baseline; that game
is the same as the full run's game with A in that seat.  ``--dump FILE`` writes
(deal, A's contract, A's points) per deal, and ``--paired FILE`` compares this run
with such a dump of the same deals (another budget or variant), deal by deal:

    python bench/ai_tausend.py --forehand --deals 900 --playouts 400 --dump base.json
    python bench/ai_tausend.py --forehand --deals 900 --paired base.json

``--ceiling`` (with ``--forehand`` and B = heuristic) asks of each contract forehand is
held to whether a declarer seeing every card could have made it against these
defenders, from the same start of play (bench/tausend_ceiling.py): the most any card
play could reach after A's bidding, gifts and final bid.

``--line-from-trick K`` (with ``--forehand`` and B = heuristic): from trick K on
(0: the first), A as declarer plays a line that makes the contract on the real deal
against these defenders whenever one exists, its own choice otherwise.  K = 0 plays the
ceiling above; a higher K says how much of the gap to it lies in the first K tricks.
"""

from __future__ import annotations

import dataclasses
import json
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
import tausend_ceiling

from engine import protocol as P
from engine.actions import Action, Bid, decode
from engine.ai import Budget, Player, player
from engine.ai.plugins import game_ai
from engine.ai.tausend_policy import policy as heuristic_policy
from engine.games import game
from engine.tausend.rules import PLAY

_CTX: dict[str, Any] = {}
#: With --oracle: the real deal, which A's worlds then return (A sees every card).
_TRUTH: dict[str, Any] = {}


class _Oracle:
    """Worlds that are the real deal: the search with perfect information."""

    certain = True

    def sample(self, rng: random.Random) -> Any:
        return _TRUTH["state"].copy()


def _init(
    a: str,
    b: str,
    options: dict[str, Any],
    budget: Budget | None,
    oracle: frozenset[str] | bool,
    ceiling: bool = False,
    line_from: int = -1,
) -> None:
    """`oracle`: the phases in which A's search sees every card (True: all)."""
    spec = game("tausend")
    players = {"a": player(a, "tausend"), "b": player(b, "tausend")}
    if oracle:
        base = game_ai("tausend")

        def worlds(view: Any) -> Any:
            return _Oracle() if oracle is True or view.phase in oracle else base.worlds(view)

        seeing = dataclasses.replace(base, worlds=worlds)
        players["a"].game_ai = lambda game: seeing  # type: ignore[method-assign]
    _CTX.update(
        spec=spec,
        opts=spec.parse_options(options),
        players=players,
        budget=budget,
        ceiling=ceiling,
        line_from=line_from,
    )


def _seeing_line(state: Any) -> Action | None:
    """With --line-from-trick: the declarer's next card of a line that makes the
    contract on the real deal against the heuristic defenders, if one exists."""
    line_from: int = _CTX.get("line_from", -1)
    if line_from < 0 or state.phase != PLAY or state.turn != state.declarer:
        return None
    if len(state.history) < line_from:
        return None
    line = tausend_ceiling.winning_line(state, heuristic_policy)
    return decode(line[0]) if line else None


def _contract(state: Any, seat: int) -> dict[str, Any] | None:
    """How `seat` fared as declarer, or None if it did not declare."""
    res = P.result(state)
    assert res is not None
    if res.declarer != seat or res.reason == "redeal":
        return None
    view = P.view(state, seat)
    bids = [(s, a) for s, a in view.bids if isinstance(a, Bid)]
    details = dict(res.details)
    held = len(bids) == 1 and bids[0][0] == seat
    return {
        "made": bool(details["made"]),
        "value": details["value"],
        "held": held,
        # held and never above the compulsory opening: a value nobody chose
        "kept": held and details["value"] == bids[0][1].value,
    }


def _play(dealer: int, seed: bytes, seating: str, tag: str) -> dict[str, Any]:
    spec = _CTX["spec"]
    players: dict[str, Player] = _CTX["players"]
    budget: Budget | None = _CTX["budget"]
    rngs = [random.Random(f"{tag}:{s}") for s in range(len(seating))]
    times: dict[str, list[float]] = defaultdict(list)
    redeals = 0
    state = spec.start_deal(_CTX["opts"], dealer, seed=seed)
    play_start = None
    keep_start = bool(_CTX.get("ceiling"))  # only --ceiling reads the start of play
    while (seat := P.to_act(state)) is not None:
        if keep_start and play_start is None and state.phase == PLAY:
            play_start = state.copy()
        view = P.view(state, seat)
        side = seating[seat]
        _TRUTH["state"] = state
        t0 = time.perf_counter()
        c0 = time.process_time()
        action = (side == "a" and _seeing_line(state)) or players[side].choose(
            view, rngs[seat], budget
        )
        dt = (time.perf_counter() - t0) * 1000
        if side == "a" and len(view.legal) > 1:
            times[view.phase].append(dt)
            times["cpu"].append((time.process_time() - c0) * 1000)
        state, _ = P.apply(state, seat, action)
    res = P.result(state)
    assert res is not None
    if res.reason == "redeal" and "a" in seating:
        by: Any = dict(res.details)["redeal_by"]
        redeals = int(seating[by] == "a")
    return {
        "state": state,
        "points": res.points,
        "times": dict(times),
        "redeals": redeals,
        "play_start": play_start,
    }


def _alone(n: int, seat: int) -> str:
    """The seating with A in `seat` and B everywhere else."""
    return "".join("a" if s == seat else "b" for s in range(n))


def play_forehand(job: tuple[int, bytes, int]) -> dict[str, Any]:
    """A in forehand against B: the game of the full run with A in that seat."""
    index, seed, run_seed = job
    n = _CTX["opts"].players
    dealer = index % n
    fh = (dealer + 1) % n
    c0 = time.process_time()
    g = _play(dealer, seed, _alone(n, fh), f"{run_seed}:{index}:{fh}")
    contract = _contract(g["state"], fh)
    cpu = time.process_time() - c0
    if contract is not None and contract["held"] and _CTX.get("ceiling"):
        line = tausend_ceiling.winning_line(g["play_start"], heuristic_policy)
        contract["makeable"] = line is not None
    return {"deal": index, "contract": contract, "points": g["points"][fh], "cpu": cpu}


def forehand_report(results: list[dict[str, Any]], args: Any) -> dict[str, Any]:
    """Forehand's contracts and points; with --paired, the differences deal by deal."""
    cs = [r["contract"] for r in results if r["contract"] is not None]
    summary: dict[str, Any] = {
        "a": args.a,
        "b": args.b,
        "deals": len(results),
        "forehand_points_per_deal": round(statistics.fmean(r["points"] for r in results), 2),
        "contracts": _contracts([{"a_contract": c} for c in cs], "a"),
        "cpu_seconds": round(sum(r["cpu"] for r in results), 1),
    }
    print(
        f"tausend forehand: {args.a} vs {args.b}, {len(results)} deals: held contracts made "
        f"{summary['contracts']['held']}, points per deal {summary['forehand_points_per_deal']}"
    )
    if args.ceiling:
        held = [c for c in cs if c["held"]]
        summary["ceiling"] = {
            "held": _rate([{"made": c["makeable"]} for c in held]),
            "held_kept": _rate([{"made": c["makeable"]} for c in held if c["kept"]]),
            "made_but_not_makeable": sum(c["made"] and not c["makeable"] for c in held),
        }
        print(
            f"seeing every card, against {args.b}: {summary['ceiling']['held']} of the held "
            f"contracts could be made; kept at 100: {summary['ceiling']['held_kept']}"
        )
    if args.paired:
        before = {r[0]: r for r in json.loads(Path(args.paired).read_text())}
        both = [r for r in results if r["deal"] in before]
        pts, pts_ci = duplicate_args.mean_ci([r["points"] - before[r["deal"]][2] for r in both])
        held = [
            int(r["contract"]["made"]) - int(before[r["deal"]][1]["made"])
            for r in both
            if r["contract"]
            and r["contract"]["held"]
            and before[r["deal"]][1]
            and before[r["deal"]][1]["held"]
        ]
        made, made_ci = duplicate_args.mean_ci([float(x) for x in held]) if held else (0.0, 0.0)
        summary["paired"] = {
            "against": args.paired,
            "deals": len(both),
            "points_diff": round(pts, 2),
            "points_diff_ci95": round(pts_ci, 2),
            "held_both": len(held),
            "held_made_diff_pct": round(100 * made, 1),
            "held_made_diff_ci95_pct": round(100 * made_ci, 1),
        }
        print(
            f"paired with {args.paired} over {len(both)} deals: points {pts:+.2f} ±{pts_ci:.2f}, "
            f"held contracts made {100 * made:+.1f} ±{100 * made_ci:.1f} points of "
            f"{len(held)} held in both"
        )
    if args.dump:
        rows = [[r["deal"], r["contract"], r["points"]] for r in results]
        Path(args.dump).write_text(json.dumps(rows))
    return summary


def play_deal(job: tuple[int, bytes, int]) -> dict[str, Any]:
    index, seed, run_seed = job
    n = _CTX["opts"].players
    dealer = index % n
    base = _play(dealer, seed, "b" * n, f"{run_seed}:{index}:base")
    rows = []
    times: dict[str, list[float]] = defaultdict(list)
    redeals = 0
    for r in range(n):
        g = _play(dealer, seed, _alone(n, r), f"{run_seed}:{index}:{r}")
        for k, v in g["times"].items():
            times[k] += v
        redeals += g["redeals"]
        rows.append(
            {
                "seat": r,
                "a": g["points"][r],
                "b": base["points"][r],
                "a_contract": _contract(g["state"], r),
                "b_contract": _contract(base["state"], r),
            }
        )
    return {
        "deal": index,
        "seed": seed.hex(),
        "rows": rows,
        "times": dict(times),
        "redeals": redeals,
    }


def _rate(cs: list[dict[str, Any]]) -> dict[str, Any]:
    made = sum(c["made"] for c in cs)
    return {"made": made, "of": len(cs), "rate": round(made / len(cs), 4) if cs else None}


def _contracts(rows: list[dict[str, Any]], side: str) -> dict[str, Any]:
    cs = [r[f"{side}_contract"] for r in rows if r[f"{side}_contract"] is not None]
    return {
        "all": _rate(cs),
        "bid": _rate([c for c in cs if not c["held"]]),
        "held": _rate([c for c in cs if c["held"]]),
        "held_raised": _rate([c for c in cs if c["held"] and not c["kept"]]),
        "held_kept": _rate([c for c in cs if c["kept"]]),
        "own_value": _rate([c for c in cs if not c["kept"]]),
        "mean_value": round(statistics.fmean(c["value"] for c in cs), 1) if cs else None,
    }


def main() -> int:
    parser = duplicate_args.parser(__doc__, "side", 100)
    parser.add_argument(
        "--oracle",
        action="store_true",
        help="A's search sees every card (an upper bound of the search, not a player)",
    )
    parser.add_argument(
        "--oracle-phases",
        default="",
        help="comma-separated phases in which A's search sees every card (e.g. give,raise)",
    )
    parser.add_argument(
        "--forehand",
        action="store_true",
        help="play A in forehand only, no baseline: the contracts it is held to",
    )
    parser.add_argument("--dump", help="with --forehand: write (deal, contract, points) here")
    parser.add_argument("--paired", help="with --forehand: compare deal by deal with this dump")
    parser.add_argument(
        "--ceiling",
        action="store_true",
        help="with --forehand: could each held contract be made seeing every card",
    )
    parser.add_argument(
        "--line-from-trick",
        type=int,
        default=-1,
        metavar="K",
        help="with --forehand: from trick K on A plays a making line on the real deal",
    )
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args()
    if (args.dump or args.paired or args.ceiling) and not args.forehand:
        parser.error("--dump, --paired and --ceiling go with --forehand")
    if (args.ceiling or args.line_from_trick >= 0) and args.b != "heuristic":
        parser.error("--ceiling models the defenders as the heuristic: use --b heuristic")
    if args.line_from_trick >= 0 and not args.forehand:
        parser.error("--line-from-trick goes with --forehand")
    options, budget, jobs = duplicate_args.setup(args)
    phases = frozenset(p for p in args.oracle_phases.split(",") if p)
    init = (
        args.a,
        args.b,
        options,
        budget,
        args.oracle or phases,
        args.ceiling,
        args.line_from_trick,
    )
    work = play_forehand if args.forehand else play_deal
    start = time.perf_counter()
    if args.jobs > 1:
        with Pool(args.jobs, initializer=_init, initargs=init) as pool:
            results = list(pool.imap(work, jobs, chunksize=2))
    else:
        _init(*init)
        results = [work(j) for j in jobs]
    elapsed = time.perf_counter() - start
    budget_info = (
        None
        if budget is None
        else {"playouts": budget.playouts, "worlds": budget.worlds, "seconds": budget.seconds}
    )
    if args.forehand:
        summary = forehand_report(results, args)
        summary.update(
            oracle=args.oracle,
            oracle_phases=sorted(phases),
            line_from_trick=args.line_from_trick,
            seed=args.seed,
            seconds=round(elapsed, 1),
            budget=budget_info,
        )
        print(json.dumps(summary))
        return 0

    rows = [row for r in results for row in r["rows"]]
    diffs = [statistics.fmean(x["a"] - x["b"] for x in r["rows"]) for r in results]
    times: dict[str, list[float]] = defaultdict(list)
    for r in results:
        for k, v in r["times"].items():
            times[k] += v
        if not args.quiet:
            pts = " ".join(f"{x['a']:+5d}/{x['b']:+5d}" for x in r["rows"])
            print(f"deal {r['deal']:4d} seed {r['seed']}  a/b by seat {pts}")
    cpu = times.pop("cpu", [])
    every = [t for v in times.values() for t in v]
    mean_diff, half = duplicate_args.mean_ci(diffs)
    summary = {
        "a": args.a,
        "b": args.b,
        "deals": len(results),
        "games": len(rows),
        "a_points_per_deal": round(statistics.fmean(x["a"] for x in rows), 2),
        "b_points_same_seat": round(statistics.fmean(x["b"] for x in rows), 2),
        "diff_per_deal": round(mean_diff, 2),
        "diff_ci95": [round(mean_diff - half, 2), round(mean_diff + half, 2)],
        "a_contracts": _contracts(rows, "a"),
        "b_contracts_same_seat": _contracts(rows, "b"),
        "a_redeals_claimed": sum(r["redeals"] for r in results),
        "a_decision_ms": {
            "median": round(statistics.median(every), 2) if every else 0.0,
            "p95": round(duplicate_args.percentile(every, 0.95), 2),
            "max": round(max(every, default=0.0), 2),
            "decisions": len(every),
            "cpu_median": round(statistics.median(cpu), 2) if cpu else 0.0,
            "cpu_p95": round(duplicate_args.percentile(cpu, 0.95), 2),
            "cpu_max": round(max(cpu, default=0.0), 2),
            "by_phase": {
                k: {
                    "median": round(statistics.median(v), 2),
                    "p95": round(duplicate_args.percentile(v, 0.95), 2),
                    "n": len(v),
                }
                for k, v in sorted(times.items())
            },
        },
        "budget": budget_info,
        "options": options,
        "oracle": args.oracle,
        "seed": args.seed,
        "jobs": args.jobs,
        "seconds": round(elapsed, 1),
    }
    a, b = summary["a_contracts"]["all"], summary["b_contracts_same_seat"]["all"]
    print(
        f"tausend: {args.a} vs {args.b}, {len(results)} deals, {len(rows)} games: points per deal "
        f"{args.a} {summary['a_points_per_deal']} vs {args.b} in the same seat "
        f"{summary['b_points_same_seat']} (diff {mean_diff:+.2f}, 95% CI "
        f"{summary['diff_ci95']}); contracts made {args.a} {a['made']}/{a['of']}, "
        f"{args.b} {b['made']}/{b['of']}"
    )
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
