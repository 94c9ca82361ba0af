"""The benchmark scripts the notes quote must keep running and keep their promised
last line: small runs, checked for the keys and for figures that add up (not timed)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _last_json(*args: str) -> dict[str, object]:
    out = subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def test_engine_bench_reports_every_game() -> None:
    res = _last_json("bench/engine.py", "--deals", "20", "--seed", "3")
    assert {"deals", "seconds", "deals_per_s"} <= res.keys()
    assert res["deals"] == 20


@pytest.mark.parametrize("game", ["zweier", "dreier", "bauern", "tausend"])
def test_arena_prints_its_summary(game: str) -> None:
    res = _last_json(
        "bench/ai_arena.py", "--game", game, "--a", "heuristic", "--b", "random",
        "--deals", "3", "--seed", "2", "--quiet",
    )  # fmt: skip
    keys = {
        "game", "a", "b", "deals", "a_win_rate", "a_win_ci95", "a_points_per_deal",
        "b_points_per_deal", "a_decision_ms_median", "a_decision_ms_p95", "a_decision_ms_max",
    }  # fmt: skip
    assert keys <= res.keys()
    assert (res["game"], res["a"], res["b"], res["deals"]) == (game, "heuristic", "random", 3)
    rate = res["a_win_rate"]
    lo, hi = res["a_win_ci95"]  # type: ignore[misc]
    assert isinstance(rate, float | int) and 0 <= lo <= rate <= hi <= 1
