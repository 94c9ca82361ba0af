"""The command line every duplicate-deal benchmark shares (`ai_arena.py` and the
per-game ones): two levels, the deals and their seeds, the worker processes, rule
options and budget overrides, parsed the same way everywhere."""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.ai import Budget


def parser(doc: str | None, side: str = "side", deals: int = 200) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--a", default="strong", help=f"level of {side} A")
    p.add_argument("--b", default="heuristic", help=f"level of {side} B")
    p.add_argument("--deals", type=int, default=deals, help="duplicate deals")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=1, help="worker processes")
    p.add_argument("--options", default="{}", help="rule options as JSON")
    p.add_argument("--playouts", type=int, help="override the levels' playout budget")
    p.add_argument("--worlds", type=int, help="override the levels' world budget")
    p.add_argument(
        "--no-double-margin",
        action="store_true",
        help="the strong level doubles on any edge, as before engine/ai/doubling.py",
    )
    return p


def no_double_margin() -> None:
    """Doubles need no margin over passing (the behaviour before `engine.ai.doubling`),
    in this process and the workers it forks: for before-and-after measurements."""
    from engine.ai import doubling

    doubling.DOUBLE_CAUTION = (0.0, 0.0, 0.0)


def setup(
    args: argparse.Namespace,
) -> tuple[dict[str, Any], Budget | None, list[tuple[int, bytes, int]]]:
    """The rule options, the budget override (None: each level's own) and one job per
    duplicate deal: its number, its deal seed (drawn from ``--seed``) and ``--seed``."""
    options = json.loads(args.options)
    if getattr(args, "no_double_margin", False):
        no_double_margin()
    budget = None
    if args.playouts or args.worlds:
        base = Budget()
        budget = Budget(playouts=args.playouts or base.playouts, worlds=args.worlds or base.worlds)
    rng = random.Random(args.seed)
    jobs = [(i, rng.randbytes(16), args.seed) for i in range(args.deals)]
    return options, budget, jobs


def share_ci(k: int, n: int) -> tuple[float, float, list[float]]:
    """The share k/n, the half-width of its 95% interval (normal approximation) and the
    interval rounded as the benches print it in JSON."""
    share = k / n
    half = 1.96 * math.sqrt(share * (1 - share) / n)
    return share, half, [round(share - half, 4), round(share + half, 4)]


def percentile(xs: list[float], q: float) -> float:
    """The value at quantile q of xs (the sorted list's element at q x its length,
    the last one at most; 0.0 for none): the benches' p95 of decision times."""
    if not xs:
        return 0.0
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def mean_ci(xs: list[float]) -> tuple[float, float]:
    """The mean and the half-width of its 95% interval (normal approximation; the
    duplicate deal or stay is the unit)."""
    mean = statistics.fmean(xs)
    return mean, 1.96 * statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else 0.0


def parse_constants(items: list[str], module: Any) -> dict[str, Any]:
    """NAME=VALUE pairs over a policy module's upper-case constants (``--set``); a value
    is read as JSON (so 15, 0.5, true, [1, 2]) or else taken as it is."""
    out: dict[str, Any] = {}
    for item in items:
        name, sep, raw = item.partition("=")
        if not sep or not name.isupper() or not hasattr(module, name):
            known = ", ".join(n for n in dir(module) if n.isupper() and not n.startswith("_"))
            raise SystemExit(f"--set {item!r}: not NAME=VALUE of a policy constant ({known})")
        try:
            out[name] = json.loads(raw)
        except json.JSONDecodeError:
            out[name] = raw
    return out


def with_constants(module: Any, variant: dict[str, Any], decide: Callable[[], int]) -> int:
    """`decide()` with the module's constants set as `variant` says, for that one call."""
    saved = {k: getattr(module, k) for k in variant}
    for k, v in variant.items():
        setattr(module, k, v)
    try:
        return decide()
    finally:
        for k, v in saved.items():
            setattr(module, k, v)
