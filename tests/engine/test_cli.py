"""``python -m engine``: replay's exit codes and answers (RULES.md §6), and selfplay."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

RECORDS = Path(__file__).parent / "records" / "zweier"


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_replay_a_legal_record_from_a_file() -> None:
    p = run("replay", str(RECORDS / "marriage-out-two-points.json"))
    assert p.returncode == 0, p.stderr
    answer = json.loads(p.stdout)
    assert answer["ok"] is True
    assert answer["scores"] == [0, 2]


def test_replay_an_illegal_action_from_stdin() -> None:
    record = (RECORDS / "error-must-beat.json").read_text()
    p = run("replay", "-", stdin=record)
    assert p.returncode == 1
    answer = json.loads(p.stdout)
    assert answer["ok"] is False
    assert answer["error"] == "must_beat"
    assert (answer["deal"], answer["action"]) == (0, 2)
    assert answer["message"]


def test_replay_not_json_exits_2_with_one_line() -> None:
    p = run("replay", "-", stdin="{not json")
    assert p.returncode == 2
    assert len(p.stdout.strip().splitlines()) == 1
    assert "not valid JSON" in p.stdout


def test_replay_wrong_shape_exits_2() -> None:
    p = run("replay", "-", stdin=json.dumps({"game": "zweier", "deals": [{"dealer": "x"}]}))
    assert p.returncode == 2
    assert "dealer must be an integer" in p.stdout
    p = run("replay", "-", stdin=json.dumps({"game": "skat", "deals": []}))
    assert p.returncode == 2
    assert "unknown game 'skat'" in p.stdout


def test_replay_missing_file_exits_2() -> None:
    p = run("replay", "/nonexistent/record.json")
    assert p.returncode == 2
    assert "cannot read" in p.stderr


def test_a_file_that_is_not_utf8_exits_2_with_one_line(tmp_path: Path) -> None:
    """Exit 1 means an illegal action: a file that is no text at all is exit 2, as any
    record that is not JSON (it was a traceback and exit 1)."""
    path = tmp_path / "binary.json"
    path.write_bytes(b"\xff\xfe{}")
    for command in ("replay", "verify"):
        p = run(command, str(path))
        assert p.returncode == 2, (command, p.stderr)
        assert p.stderr.strip().splitlines() == [f"cannot read {path}: not UTF-8 text (byte 1)"]


def test_selfplay_prints_speed_as_last_json_line() -> None:
    p = run("selfplay", "--game", "zweier", "--deals", "200", "--seed", "7")
    assert p.returncode == 0, p.stderr
    last = json.loads(p.stdout.strip().splitlines()[-1])
    assert last["deals"] == 200
    assert last["seconds"] > 0 and last["deals_per_s"] > 0
    again = json.loads(run("selfplay", "--game", "zweier", "--deals", "200", "--seed", "7").stdout)
    assert again["points"] == last["points"], "the same seed plays the same deals"
