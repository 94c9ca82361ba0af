"""Fair deals: seeds from `secrets`, the seed's SHA-256 published while the deal runs,
the seed after it, and `python -m engine verify` on the record the bot stored."""

from __future__ import annotations

import copy
import hashlib
import json
import secrets
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.service import TableUpdate
from engine.__main__ import main as engine_main

from .fakechat import Bot, open_table, play_out, users


async def _match(bot: Bot, game_id: str = "zweier") -> tuple[str, list[TableUpdate]]:
    players = [bot.player(u) for u in users(2)]
    tid = await open_table(bot, game_id, players)
    await play_out(bot.fc, tid, players)
    return tid, [u for u in bot.fc.updates if u.table_id == tid]


async def test_seeds_come_from_secrets(
    make_bot: Callable[..., Bot], monkeypatch: pytest.MonkeyPatch
) -> None:
    drawn: list[str] = []
    real = secrets.token_hex

    def spy(n: int | None = None) -> str:
        value = real(n)
        drawn.append(value)
        return value

    monkeypatch.setattr(secrets, "token_hex", spy)
    bot = await make_bot(seed_source=None).start()
    try:
        tid, _ = await _match(bot)
        record = await bot.store.game_record(tid)  # type: ignore[union-attr]
        assert record is not None
        seeds = [d["seed"] for d in record["deals"]]
        assert seeds and set(seeds) <= set(drawn)
        assert len(set(seeds)) == len(seeds)
        assert all(len(s) == 32 and int(s, 16) >= 0 for s in seeds)
    finally:
        await bot.stop()


async def test_hash_while_the_deal_runs_seed_after(bot: Bot) -> None:
    published: dict[int, set[str]] = {}  # deal number -> hashes shown while it ran
    texts: list[tuple[int, str]] = []  # public texts by deal number (while running)

    def watch(update: TableUpdate) -> None:
        if update.kind in ("started", "action"):
            tv = bot.fc.tables[update.table_id]
            if (
                tv.seed_sha256 is not None
                and tv.public is not None
                and tv.public.to_act is not None
            ):
                published.setdefault(tv.deal_no, set()).add(tv.seed_sha256)
                assert tv.seed_sha256[:16] in tv.message.text
                texts.append((tv.deal_no, tv.message.text))

    bot.fc.on_update.append(watch)
    tid, updates = await _match(bot)
    results = [u.result for u in updates if u.kind in ("deal_end", "finished")]
    assert results and all(r is not None for r in results)
    record = await bot.db.game_record(tid)
    assert record is not None
    assert len(results) == len(record["deals"])
    for r, deal in zip(results, record["deals"], strict=True):
        assert r is not None and r.seed is not None and r.seed == deal["seed"]
        digest = hashlib.sha256(bytes.fromhex(r.seed)).hexdigest()
        assert published[r.deal_no] == {digest} == {deal["seed_sha256"]}
        assert r.seed in r.message.text
        # the seed never showed while its deal ran
        assert not any(r.seed in text for k, text in texts if k == r.deal_no)
    # and no public text ever carried a running deal's seed
    for k, text in texts:
        assert record["deals"][k - 1]["seed"] not in text


async def test_verify_a_stored_record(bot: Bot, tmp_path: Path) -> None:
    tid, _ = await _match(bot)
    record = await bot.store.game_record(tid)  # type: ignore[union-attr]
    assert record is not None
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))

    # the real command line, once
    proc = subprocess.run(
        [sys.executable, "-m", "engine", "verify", str(path)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    answer = json.loads(proc.stdout)
    assert answer["ok"] is True and answer["seeded"] == len(record["deals"])
    assert all(d["hash_checked"] and d["cards_checked"] for d in answer["deals"])

    def verify(doc: Any) -> int:
        p = tmp_path / "x.json"
        p.write_text(doc if isinstance(doc, str) else json.dumps(doc))
        return engine_main(["verify", str(p)])

    # a hand that is not what the seed deals
    bad = copy.deepcopy(record)
    hands = bad["deals"][0]["hands"]
    hands[0][0], hands[1][0] = hands[1][0], hands[0][0]
    assert verify(bad) == 1
    # a published fingerprint that is not the seed's
    bad = copy.deepcopy(record)
    bad["deals"][-1]["seed_sha256"] = "0" * 64
    assert verify(bad) == 1
    # another seed under the same cards
    bad = copy.deepcopy(record)
    bad["deals"][0]["seed"] = "ab" * 16
    bad["deals"][0].pop("seed_sha256")
    assert verify(bad) == 1
    # a deal without a seed: nothing to check, so not "ok"
    bad = copy.deepcopy(record)
    for key in ("seed", "seed_sha256"):
        bad["deals"][0].pop(key, None)
    assert verify(bad) == 1
    # not a record at all
    assert verify("{not json") == 2
    assert verify({"game": "zweier"}) == 2


def test_verify_answers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    seed = "00" * 16
    digest = hashlib.sha256(bytes(16)).hexdigest()
    rec: dict[str, Any] = {
        "game": "zweier",
        "deals": [{"dealer": 0, "seed": seed, "seed_sha256": digest}],
    }
    p = tmp_path / "r.json"
    p.write_text(json.dumps(rec))
    assert engine_main(["verify", str(p)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["deals"] == [
        {
            "deal": 0,
            "seed": seed,
            "seed_sha256": digest,
            "hash_checked": True,
            "cards_checked": False,
        }
    ]
    rec["deals"][0]["seed_sha256"] = digest.upper()  # hex case does not matter
    p.write_text(json.dumps(rec))
    assert engine_main(["verify", str(p)]) == 0
    rec["deals"][0]["seed_sha256"] = digest[:-1] + "0"
    p.write_text(json.dumps(rec))
    assert engine_main(["verify", str(p)]) == 1
    out = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert out["error"] == "seed_hash_mismatch" and out["deal"] == 0
