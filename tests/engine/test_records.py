"""Every scenario record under tests/engine/records/ replays to what it expects.

A scenario is a RULES.md §6 record with two extra keys the replay ignores:
``"about"`` (the rule it shows) and ``"expect"``: ``{"exit": 0|1|2, "answer": {...}}``,
where ``answer`` lists the keys of the replay's JSON answer to compare (for exit 2 the
answer is a string and ``"message_contains"`` may be given instead).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.record import replay_record

RECORDS = Path(__file__).parent / "records"
FILES = sorted(RECORDS.rglob("*.json"))


def _load(path: Path) -> dict[str, Any]:
    with path.open(encoding="utf-8") as f:
        obj: dict[str, Any] = json.load(f)
    return obj


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(RECORDS)) for p in FILES])
def test_scenario_record(path: Path) -> None:
    scenario = _load(path)
    expect = scenario["expect"]
    assert scenario.get("about"), f"{path.name}: say which rule the scenario shows"
    code, answer = replay_record(scenario)
    assert code == expect["exit"], f"{path.name}: exit {code}, answer {answer}"
    if code == 2:
        assert isinstance(answer, str)
        assert expect.get("message_contains", "") in answer
        return
    assert isinstance(answer, dict)
    for key, want in expect["answer"].items():
        assert answer.get(key) == want, f"{path.name}: {key} is {answer.get(key)!r}, want {want!r}"


def test_every_game_has_scenarios() -> None:
    from engine.games import available

    for gid in available():
        assert list((RECORDS / gid).glob("*.json")), f"no scenario records for {gid}"
