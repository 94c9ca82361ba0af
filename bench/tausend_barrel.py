"""Thousand: does the AI play the barrel (RULES.md §5) as a match is won there?

    python bench/tausend_barrel.py --matches 600 --seed 1 --jobs 2
    python bench/tausend_barrel.py --stays 300 --a strong --seed 1 --jobs 2
    python bench/tausend_barrel.py --approach 300 --at 800 --hide scores --seed 1 --jobs 2

On the barrel (880) only a contract above 120 made by the seat counts: it wins the
game; a failed one up to 120 costs nothing, a failed one above costs the bid, and three
deals there without the win cost the fine.  A player who values each deal by its own
score (the AI before it was told who sits on the barrel) keeps contracts of 100 there
and drags matches out.  Near the barrel the match scores count too: points beyond 880
are lost, and a seat climbing onto the barrel pushes the one sitting there off.  An AI
is *blind* here when it decides on what it would see without that match context
(``--hide``: ``barrel``, ``scores`` or both, the default: the AI before it knew the
match); *aware* is the AI as it plays at a table.

``--matches M``: whole matches of three heuristic players, deal i of every match dealt
from the same seed.  Each match is played with all three blind (the baseline), then
once for each seat r with seat r aware and the other two blind (``--hide scores``:
blind to the scores only, so the seats differ only in that).  Printed: the aware
seat's share of the matches won (the baseline's same seat: about a third), and the
median length of a match with all three blind and with all three aware.

``--stays N``: a stay on the barrel played out, for the level of ``--a`` (strong or
heuristic): seat i mod 3 sits on the barrel at 880 with three deals left, the others
at 600 and 500, the first dealer (i // 3) mod 3; the deals go on until the seat leaves
the barrel (the win, a failed bid above 120, its three deals used up, a push).  The
other two seats are aware heuristics.  Each stay is played with A aware and with A
blind, on the same deal seeds: printed, the stays won from the barrel and A's mean
score change over the stay, aware and blind, with the paired difference.  ``--others
820,500`` sets the other two scores (a seat close behind may push A off).

``--duel M``: whole matches with A (``--a``, aware) in seat r against two aware
heuristics, M matches for each seat r, deal i of match j dealt from the same seed
whoever sits where: printed, A's share of the matches won (the heuristic in its place
wins a third: one seat in three), the median match length and A's decision times.

``--approach N``: one deal (a redeal is dealt again) with A at ``--at`` (800) and the
others at ``--others``, nobody on the barrel, the first dealer (i // 3) mod 3, played
with A aware and blind on the same seeds: printed, A's mean match-score change (as
the match counts it: nothing beyond 880) and how often A ends on the barrel.

The last line is a JSON object.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import statistics
import sys
import time
from multiprocessing import Pool
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import duplicate_args

from engine import protocol as P
from engine.ai import Player, player
from engine.ai.tausend_policy import policy
from engine.games import game
from engine.tausend.match import TausendMatch
from engine.tausend.rules import BARREL_AT

_CTX: dict[str, Any] = {}
#: A match ends here if nobody has won (a player who never wins from the barrel).
MATCH_CAP = 1000
#: Scores of the seats beside the one on the barrel, in seat order after it.
OTHERS_AT = (600, 500)


def _blind_policy(d: Any) -> int:
    """The heuristic without the match context `--hide` names."""
    hidden = {k: () for k in _CTX["hide"] if getattr(d.setup, k)}
    if not hidden:
        return policy(d)
    c = d.copy()
    c.setup = dataclasses.replace(d.setup, **hidden)
    return policy(c)


def _blind_view(view: Any) -> Any:
    """The seat's view without the match context `--hide` names."""
    hide = _CTX["hide"]
    return dataclasses.replace(view, extra=tuple(kv for kv in view.extra if kv[0] not in hide))


def _init(
    a: str,
    hide: tuple[str, ...] = ("barrel", "scores"),
    at: int = 800,
    others: tuple[int, ...] = OTHERS_AT,
) -> None:
    spec = game("tausend")
    _CTX.update(
        spec=spec,
        opts=spec.parse_options({}),
        a=player(a, "tausend"),
        hide=hide,
        at=at,
        others=others,
    )


def _play_a(state: Any, me: int, aware: bool, rng: random.Random, times: list[Any]) -> Any:
    """Play a deal to its end: A (aware or blind) in seat `me`, aware heuristics beside."""
    a: Player = _CTX["a"]
    while (seat := P.to_act(state)) is not None:
        if seat == me:
            view = P.view(state, seat)
            t0 = time.perf_counter()
            action = a.choose(view if aware else _blind_view(view), rng)
            if len(view.legal) > 1:
                times.append((view.phase, (time.perf_counter() - t0) * 1000))
            state, _ = P.apply(state, seat, action)
        else:
            state.step(policy(state))
    return state


def match(job: tuple[int, bytes, int]) -> tuple[int | None, int]:
    """Play one whole match of heuristics; `aware` is a seat (3: every seat, -1: none).
    Returns the winner (None: capped) and the deals played."""
    index, seed, aware = job
    m = TausendMatch(_CTX["opts"], index % 3)
    k = 0
    while (spec := m.next_deal()) is not None and k < MATCH_CAP:
        d = m.start_deal(spec, seed=seed + k.to_bytes(4, "big"))
        while d.turn >= 0:
            smart = aware == 3 or d.turn == aware
            d.step(policy(d) if smart else _blind_policy(d))
        assert d.res is not None
        m.add_result(spec, d.res)
        k += 1
    return (m.winner if m.finished else None), k


def duel(job: tuple[int, bytes, int]) -> dict[str, Any]:
    """One whole match with A (aware) in `seat` and aware heuristics in the others."""
    index, seed, seat = job
    m = TausendMatch(_CTX["opts"], index % 3)
    rng = random.Random(f"{index}:{seat}")
    times: list[tuple[str, float]] = []
    k = 0
    while (spec := m.next_deal()) is not None and k < MATCH_CAP:
        state = m.start_deal(spec, seed=seed + k.to_bytes(4, "big"))
        res = P.result(_play_a(state, seat, True, rng, times))
        assert res is not None
        m.add_result(spec, res)
        k += 1
    return {"won": m.finished and m.winner == seat, "deals": k, "times": times}


def stay(job: tuple[int, bytes, bool]) -> dict[str, Any]:
    """One stay on the barrel with A (aware or blind) in the barrel seat."""
    index, seed, aware = job
    me = index % 3
    m = _seated(index, BARREL_AT)
    m.on_barrel[me] = True
    m.climbed.append(me)
    rng = random.Random(f"{index}:{aware}")
    times: list[tuple[str, float]] = []  # (phase, ms) of A's decisions with a choice
    deals = declared_big = 0
    while m.on_barrel[me] and not m.finished:
        spec = m.next_deal()
        assert spec is not None
        state = m.start_deal(spec, seed=seed + deals.to_bytes(4, "big"))
        res = P.result(_play_a(state, me, aware, rng, times))
        assert res is not None
        if res.declarer == me and isinstance(v := res.detail("value"), int) and v > 120:
            declared_big += 1
        m.add_result(spec, res)
        deals += 1
    return {
        "won": m.winner == me,
        "change": m.scores[me] - BARREL_AT,
        "deals": deals,
        "big": declared_big,
        "times": times,
    }


def _seated(index: int, at: int) -> TausendMatch:
    """A match with A (seat index mod 3) at `at` and the others at `--others`."""
    me = index % 3
    m = TausendMatch(_CTX["opts"], (index // 3) % 3)
    m.scores[me] = at
    for k, s in enumerate(((me + 1) % 3, (me + 2) % 3)):
        m.scores[s] = _CTX["others"][k]
    return m


def approach(job: tuple[int, bytes, bool]) -> dict[str, Any]:
    """One deal with A (aware or blind) at `--at`, nobody on the barrel."""
    index, seed, aware = job
    me = index % 3
    at = _CTX["at"]
    m = _seated(index, at)
    rng = random.Random(f"{index}:{aware}")
    times: list[tuple[str, float]] = []
    k = 0
    while not m.results or m.results[-1].reason == "redeal":
        spec = m.next_deal()
        assert spec is not None
        state = m.start_deal(spec, seed=seed + k.to_bytes(4, "big"))
        res = P.result(_play_a(state, me, aware, rng, times))
        assert res is not None
        m.add_result(spec, res)
        k += 1
    res = m.results[-1]
    return {
        "change": m.scores[me] - at,
        "climbed": m.on_barrel[me],
        "declared": res.declarer == me,
        "made": res.declarer == me and res.reason == "made",
        "times": times,
    }


def _ms_summary(times: list[float]) -> dict[str, float]:
    """Median, p95 and max of decision times in ms (at least one)."""
    times = sorted(times)
    return {
        "median": round(statistics.median(times), 1),
        "p95": round(times[int(0.95 * (len(times) - 1))], 1),
        "max": round(times[-1], 1),
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--matches", type=int, default=0, help="whole heuristic matches")
    p.add_argument("--stays", type=int, default=0, help="stays on the barrel")
    p.add_argument("--approach", type=int, default=0, help="single deals near the barrel")
    p.add_argument("--duel", type=int, default=0, help="whole matches of A against two")
    p.add_argument("--at", type=int, default=800, help="A's score for --approach")
    p.add_argument("--others", default="600,500", help="the other two scores (--stays, --approach)")
    p.add_argument("--hide", default="barrel,scores", help="match context the blind AI lacks")
    p.add_argument("--a", default="strong", help="level of A for --stays and --approach")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=1)
    args = p.parse_args()
    if not (args.matches or args.stays or args.approach or args.duel):
        p.error("ask for --matches, --stays, --approach and/or --duel")
    hide = tuple(args.hide.split(","))
    if not set(hide) <= {"barrel", "scores"}:
        p.error("--hide takes barrel, scores or barrel,scores")
    try:
        others = tuple(int(x) for x in args.others.split(","))
    except ValueError:
        others = ()
    if len(others) != 2 or any(x >= BARREL_AT for x in others) or args.at >= BARREL_AT:
        p.error(f"--others takes two scores below {BARREL_AT}, and --at one below it")
    rng = random.Random(args.seed)
    summary: dict[str, Any] = {"seed": args.seed}
    start = time.perf_counter()
    with Pool(args.jobs, initializer=_init, initargs=(args.a, hide, args.at, others)) as pool:
        if args.matches:
            seeds = [rng.randbytes(12) for _ in range(args.matches)]
            base = pool.map(match, [(i, s, -1) for i, s in enumerate(seeds)])
            wins = base_wins = capped = 0
            for r in range(3):
                got = pool.map(match, [(i, s, r) for i, s in enumerate(seeds)])
                wins += sum(w == r for w, _ in got)
                base_wins += sum(w == r for w, _ in base)
                capped += sum(w is None for w, _ in got)
            blind_len = [k for _, k in base]
            aware_len = [k for _, k in pool.map(match, [(i, s, 3) for i, s in enumerate(seeds)])]
            n = 3 * args.matches
            share, half, ci = duplicate_args.share_ci(wins, n)
            summary["matches"] = {
                "played": args.matches,
                "aware_seat_won": round(share, 4),
                "aware_seat_won_ci95": ci,
                "blind_same_seat_won": round(base_wins / n, 4),
                "capped": capped,
                "deals_median_blind": statistics.median(blind_len),
                "deals_median_aware": statistics.median(aware_len),
            }
            print(
                f"{args.matches} matches x 3 seats: one aware heuristic against two blind "
                f"won {wins}/{n} = {share:.1%} (95% CI {share - half:.1%}-{share + half:.1%}); "
                f"the blind heuristic in the same seats {base_wins}/{n} = {base_wins / n:.1%}"
            )
            print(
                f"match length, median deals: all blind {statistics.median(blind_len)}, "
                f"all aware {statistics.median(aware_len)}"
            )
        if args.stays:
            seeds = [rng.randbytes(12) for _ in range(args.stays)]
            out = {}
            for aware in (True, False):
                out[aware] = pool.map(stay, [(i, s, aware) for i, s in enumerate(seeds)])
            diff, half = duplicate_args.mean_ci(
                [x["change"] - y["change"] for x, y in zip(out[True], out[False], strict=True)]
            )
            times = [ms for x in out[True] for _, ms in x["times"]]
            phases: dict[str, list[float]] = {}
            for x in out[True]:
                for phase, ms in x["times"]:
                    phases.setdefault(phase, []).append(ms)
            row: dict[str, Any] = {"level": args.a, "stays": args.stays}
            for aware, name in ((True, "aware"), (False, "blind")):
                rs = out[aware]
                row[name] = {
                    "won": sum(x["won"] for x in rs),
                    "mean_change": round(statistics.mean(x["change"] for x in rs), 2),
                    "deals": sum(x["deals"] for x in rs),
                    "declared_above_120": sum(x["big"] for x in rs),
                }
            row["change_diff"] = round(diff, 2)
            row["change_diff_ci95"] = round(half, 2)
            if times:
                row["aware_decision_ms"] = {
                    **_ms_summary(times),
                    "by_phase": {
                        k: {"n": len(v), "median": round(statistics.median(v), 1)}
                        for k, v in sorted(phases.items())
                    },
                }
            summary["stays"] = row
            for name in ("aware", "blind"):
                r = row[name]
                print(
                    f"{args.a} {name}: won from the barrel {r['won']}/{args.stays}, "
                    f"contracts above 120 {r['declared_above_120']} in {r['deals']} deals, "
                    f"score change over the stay {r['mean_change']:+.1f}"
                )
            print(f"aware - blind, paired: {diff:+.1f} points a stay (95% CI ±{half:.1f})")
        if args.duel:
            seeds = [rng.randbytes(12) for _ in range(args.duel)]
            jobs = [(i, s, r) for r in range(3) for i, s in enumerate(seeds)]
            duels = pool.map(duel, jobs, chunksize=1)
            n = len(duels)
            won = sum(x["won"] for x in duels)
            share, half, ci = duplicate_args.share_ci(won, n)
            times = [ms for x in duels for _, ms in x["times"]]
            summary["duel"] = {
                "level": args.a,
                "matches": n,
                "a_won": round(share, 4),
                "a_won_ci95": ci,
                "deals_median": statistics.median(x["deals"] for x in duels),
                "a_decision_ms": _ms_summary(times) if times else None,
            }
            print(
                f"{args.a} against two heuristics, {n} whole matches: won {won}/{n} = "
                f"{share:.1%} (95% CI {share - half:.1%}-{share + half:.1%}; "
                f"a heuristic in its place: 33.3%); median {summary['duel']['deals_median']} deals"
            )
        if args.approach:
            seeds = [rng.randbytes(12) for _ in range(args.approach)]
            by_aware = {
                aware: pool.map(approach, [(i, s, aware) for i, s in enumerate(seeds)])
                for aware in (True, False)
            }
            diff, half = duplicate_args.mean_ci(
                [
                    x["change"] - y["change"]
                    for x, y in zip(by_aware[True], by_aware[False], strict=True)
                ]
            )
            row = {"level": args.a, "deals": args.approach, "at": args.at, "others": others}
            for aware, name in ((True, "aware"), (False, "blind")):
                rs = by_aware[aware]
                row[name] = {
                    "mean_change": round(statistics.mean(x["change"] for x in rs), 2),
                    "climbed": sum(x["climbed"] for x in rs),
                    "declared": sum(x["declared"] for x in rs),
                    "made": sum(x["made"] for x in rs),
                }
                r = row[name]
                print(
                    f"{args.a} {name} at {args.at}: score change {r['mean_change']:+.1f}, "
                    f"on the barrel after {r['climbed']}/{args.approach}, "
                    f"contracts made {r['made']}/{r['declared']}"
                )
            row["change_diff"] = round(diff, 2)
            row["change_diff_ci95"] = round(half, 2)
            print(f"aware - blind, paired: {diff:+.1f} points a deal (95% CI ±{half:.1f})")
            summary["approach"] = row
    summary["seconds"] = round(time.perf_counter() - start, 1)
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
