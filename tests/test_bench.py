"""The benchmark scripts the notes quote must keep running and keep their promised
last line: small runs, checked for the keys and for figures that add up (not timed)."""

from __future__ import annotations

import importlib.util
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.ai.tausend_policy import policy
from engine.games import game
from engine.tausend.deal import TausendDeal
from engine.tausend.rules import OVER, PLAY

ROOT = Path(__file__).resolve().parent.parent


def _last_json(*args: str) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
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
    lo, hi = res["a_win_ci95"]
    assert isinstance(rate, float | int) and 0 <= lo <= rate <= hi <= 1


def test_tausend_forehand_runs_pair_with_their_dump(tmp_path: Path) -> None:
    """The same deals played again with the same players are the same games, so a run
    paired with its own dump differs by nothing (and the dump says what it played)."""
    dump = tmp_path / "fh.json"
    common = ["bench/ai_tausend.py", "--forehand", "--a", "heuristic", "--b", "heuristic"]
    first = _last_json(*common, "--deals", "8", "--seed", "4", "--dump", str(dump))
    rows = json.loads(dump.read_text())
    assert [r[0] for r in rows] == list(range(8))
    contracts = first["contracts"]
    assert isinstance(contracts, dict)
    held = [r[1] for r in rows if r[1] is not None and r[1]["held"]]
    assert held, "forehand is held to 100 in most of these deals"
    assert contracts["held"]["of"] == len(held)
    assert contracts["held"]["made"] == sum(c["made"] for c in held)
    # held ones split into raised and kept at the opening 100; the kept ones are 100
    kept = [c for c in held if c["kept"]]
    assert 0 < len(kept) < len(held), "both kinds occur in these deals"
    assert all(c["value"] == 100 for c in kept)
    assert all(c["value"] > 100 for c in held if not c["kept"])
    assert contracts["held_kept"]["of"] == len(kept)
    assert contracts["held_raised"]["of"] + len(kept) == len(held)
    assert contracts["own_value"]["of"] == contracts["all"]["of"] - len(kept)
    assert (
        contracts["own_value"]["made"]
        == contracts["bid"]["made"] + (contracts["held_raised"]["made"])
    )
    again = _last_json(*common, "--deals", "8", "--seed", "4", "--paired", str(dump))
    paired = again["paired"]
    assert isinstance(paired, dict)
    assert (paired["deals"], paired["held_both"]) == (8, len(held))
    assert paired["points_diff"] == 0 and paired["held_made_diff_pct"] == 0


@pytest.mark.parametrize("players", [2, 4])
def test_arena_seats_the_table_size_the_options_ask_for(players: int) -> None:
    """Thousand for 2 or 4: the arena rotates A through that many seats."""
    res = _last_json(
        "bench/ai_arena.py", "--game", "tausend", "--a", "heuristic", "--b", "random",
        "--deals", "2", "--seed", "2", "--quiet",
        "--options", json.dumps({"tausend.players": players}),
    )  # fmt: skip
    assert res["games"] == 2 * players


def _bench_module(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_thousand_ceiling_finds_real_lines_and_misses_none() -> None:
    """`tausend_ceiling.winning_line` on contracts forehand is held to (heuristic
    bidding and gifts): every line it returns makes the contract when played against
    the defenders, and every contract the heuristic's own play makes has a line."""
    ceiling = _bench_module("tausend_ceiling")
    spec = game("tausend")
    opts = spec.parse_options({})
    rng = random.Random(11)
    found = missed_by_policy = none = 0
    for i in range(150):
        d = spec.start_deal(opts, i % 3, seed=rng.randbytes(16))
        assert isinstance(d, TausendDeal)
        while d.phase not in (PLAY, OVER):
            d.step(policy(d))
        if d.phase != PLAY:
            continue
        line = ceiling.winning_line(d, policy)
        own = ceiling.play_line(d, [], policy)  # the heuristic's own play
        if own.total(d.declarer) >= d.value:
            assert line is not None
        if line is None:
            none += 1
            continue
        found += 1
        end = ceiling.play_line(d, line, policy)
        assert end.total(d.declarer) >= d.value
        missed_by_policy += own.total(d.declarer) < d.value
    assert found and none and missed_by_policy  # all three kinds occur


def test_tausend_forehand_ceiling_is_above_what_was_made() -> None:
    out = _last_json(
        "bench/ai_tausend.py", "--forehand", "--a", "heuristic", "--deals", "30", "--ceiling"
    )
    ceiling = out["ceiling"]
    contracts = out["contracts"]
    assert isinstance(ceiling, dict) and isinstance(contracts, dict)
    assert ceiling["made_but_not_makeable"] == 0
    assert ceiling["held"]["of"] == contracts["held"]["of"]
    assert ceiling["held"]["made"] > contracts["held"]["made"]


def test_tausend_line_from_the_first_trick_makes_every_makeable_contract() -> None:
    """`--line-from-trick 0` plays the ceiling: exactly the held contracts a line
    makes are made (those the ceiling finds), where the heuristic alone makes fewer."""
    out = _last_json(
        "bench/ai_tausend.py", "--forehand", "--a", "heuristic", "--deals", "30",
        "--ceiling", "--line-from-trick", "0",
    )  # fmt: skip
    ceiling = out["ceiling"]
    contracts = out["contracts"]
    assert isinstance(ceiling, dict) and isinstance(contracts, dict)
    assert contracts["held"]["made"] == ceiling["held"]["made"]
    alone = _last_json("bench/ai_tausend.py", "--forehand", "--a", "heuristic", "--deals", "30")
    assert isinstance(alone["contracts"], dict)
    assert alone["contracts"]["held"]["made"] < contracts["held"]["made"]


@pytest.mark.parametrize("game_id", ["dreier", "bauern"])
def test_doubling_bench_accounts_for_every_deal(game_id: str) -> None:
    res = _last_json(
        "bench/ai_doubling.py", "--game", game_id, "--level", "heuristic", "--deals", "6",
        "--seed", "2",
    )  # fmt: skip
    groups = res["by_doubles"]
    assert isinstance(groups, dict) and set(groups) <= {"0", "1", "2", "3"}
    assert sum(g["deals"] for g in groups.values()) == 6
    assert all(0 <= g["declarer_won"] <= g["deals"] for g in groups.values())


def test_tausend_selfplay_measures_only_the_variant() -> None:
    """A "variant" equal to the heuristic changes nothing, deal by deal; a real one
    plays other games; a name that is no constant of the policy is refused."""
    from engine.ai import tausend_policy

    same = _last_json(
        "bench/tausend_selfplay.py", "--deals", "40", "--seed", "5",
        "--set", f"BID_MARGIN={tausend_policy.BID_MARGIN}",
    )  # fmt: skip
    assert same["points_per_deal_diff"] == 0
    assert same["variant_contracts"] == same["baseline_contracts"]
    bold = _last_json(
        "bench/tausend_selfplay.py", "--deals", "40", "--seed", "5", "--set", "GAIN_MIN=-40",
        "--matches", "1",
    )  # fmt: skip
    assert bold["variant"] == {"GAIN_MIN": -40}
    lengths = bold["match_deals_median"]
    assert isinstance(lengths, dict) and all(n > 0 for n in lengths.values())
    assert bold["variant_contracts"] != bold["baseline_contracts"]
    out = subprocess.run(
        [sys.executable, "bench/tausend_selfplay.py", "--set", "NO_SUCH=1"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert out.returncode != 0 and "NO_SUCH" in out.stderr and "BID_MARGIN" in out.stderr


def test_bid_gain_fit_prints_weights_the_policy_can_use() -> None:
    """`bench/tausend_bid_gain.py` fits one set of weights per regime of `bid_gain`,
    as many as the policy's, and checks them on the other half of the deals."""
    from engine.ai import tausend_policy

    res = _last_json("bench/tausend_bid_gain.py", "--deals", "300", "--seed", "5")
    weights = res["weights"]
    assert isinstance(weights, list) and len(weights) == len(tausend_policy._BID_GAIN) == 3
    assert all(len(w) == len(tausend_policy._BID_GAIN[0]) for w in weights)
    check = res["check"]
    assert isinstance(check, list) and len(check) == 2
    assert all(c["decisions"] > 0 for c in check)


def test_zweier_selfplay_measures_only_the_variant() -> None:
    """The heuristic against itself is no difference, deal by deal; a variant that
    throws Aces rather than ruff plays other games; an unknown name is refused."""
    same = _last_json(
        "bench/zweier_selfplay.py", "--deals", "200", "--seed", "5",
        "--set", "RUFF_RATHER_THAN_THROW=true",
    )  # fmt: skip
    assert same["game_points_per_deal_diff"] == 0 and same["game_points_per_deal_diff_ci95"] == 0
    off = _last_json(
        "bench/zweier_selfplay.py", "--deals", "200", "--seed", "5",
        "--set", "RUFF_RATHER_THAN_THROW=false",
    )  # fmt: skip
    assert off["variant"] == {"RUFF_RATHER_THAN_THROW": False}
    assert off["game_points_per_deal_diff_ci95"] > 0
    out = subprocess.run(
        [sys.executable, "bench/zweier_selfplay.py", "--set", "NO_SUCH=1"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert out.returncode != 0 and "NO_SUCH" in out.stderr and "TRUMP_KEEP_OPEN" in out.stderr


def test_barrel_bench_counts_every_match_and_stay() -> None:
    """Each all-blind match is won by one seat, so the blind seats' share is a third;
    every stay is played aware and blind, on the barrel for one deal at least."""
    res = _last_json(
        "bench/tausend_barrel.py", "--matches", "4", "--stays", "3", "--a", "heuristic",
        "--seed", "3",
    )  # fmt: skip
    matches = res["matches"]
    assert isinstance(matches, dict) and matches["played"] == 4 and matches["capped"] == 0
    assert matches["blind_same_seat_won"] == round(1 / 3, 4)
    lo, hi = matches["aware_seat_won_ci95"]
    assert 0 <= lo <= matches["aware_seat_won"] <= hi <= 1
    assert matches["deals_median_aware"] > 0 and matches["deals_median_blind"] > 0
    stays = res["stays"]
    assert isinstance(stays, dict) and stays["stays"] == 3 and stays["level"] == "heuristic"
    for side in ("aware", "blind"):
        row = stays[side]
        assert 0 <= row["won"] <= 3 and 3 <= row["deals"] <= 9
        assert row["declared_above_120"] <= row["deals"]


def test_barrel_bench_plays_single_deals_near_the_barrel() -> None:
    """Every deal of --approach is played aware and blind from the same score; a
    contract made from 800 takes the seat onto the barrel (the others, at 600 and 300,
    cannot crowd it) and no further."""
    res = _last_json(
        "bench/tausend_barrel.py", "--approach", "6", "--at", "800", "--others", "600,300",
        "--hide", "scores", "--a", "heuristic", "--seed", "2",
    )  # fmt: skip
    row = res["approach"]
    assert isinstance(row, dict) and row["deals"] == 6 and row["others"] == [600, 300]
    for side in ("aware", "blind"):
        r = row[side]
        assert 0 <= r["made"] <= r["declared"] <= 6 and r["made"] <= r["climbed"] <= 6
        assert r["mean_change"] <= 80
    out = subprocess.run(
        [sys.executable, "bench/tausend_barrel.py", "--approach", "1", "--others", "900,0"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert out.returncode == 2 and "--others" in out.stderr


def test_selfplay_counts_whole_matches_won() -> None:
    """A variant equal to the heuristic plays every match exactly as the heuristic
    does, whichever seat it takes: it wins each match in one seat of three."""
    from engine.ai.tausend_policy import BARREL_DENY

    res = _last_json(
        "bench/tausend_selfplay.py", "--set", f"BARREL_DENY={BARREL_DENY}", "--deals", "0",
        "--match-wins", "3", "--seed", "4",
    )  # fmt: skip
    wins = res["match_wins"]
    assert isinstance(wins, dict) and wins["matches"] == 9
    assert wins["variant_won"] == round(1 / 3, 4)


def test_barrel_bench_duels_whole_matches() -> None:
    """The heuristic in A's place plays each match as the other seats do: it wins one
    match in three, whatever seat it takes."""
    res = _last_json(
        "bench/tausend_barrel.py", "--duel", "2", "--a", "heuristic", "--seed", "5",
    )  # fmt: skip
    duel = res["duel"]
    assert isinstance(duel, dict) and duel["matches"] == 6 and duel["a_won"] == round(1 / 3, 4)
    assert duel["deals_median"] > 0
