"""``python -m engine``: replay a record, or play random deals.

python -m engine replay FILE|-      exit 0 legal, 1 illegal action, 2 not a record
python -m engine verify FILE|-      exit 0 fair deals, 1 a deal not from its seed, 2 not a record
python -m engine selfplay --game zweier --deals N --seed S
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .errors import OptionError, RecordError
from .games import GAME_MODULES, UnknownGame
from .record import ReplayFailed, parse_record, replay_parsed, replay_text
from .selfplay import play_random_deals
from .shuffle import seed_commitment


def _read(path: str) -> str | None:
    try:
        if path == "-":
            return sys.stdin.read()
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        print(f"cannot read {path}: {e.strerror}", file=sys.stderr)
        return None
    except UnicodeDecodeError as e:  # a record is JSON, and JSON is UTF-8 text
        print(f"cannot read {path}: not UTF-8 text (byte {e.start + 1})", file=sys.stderr)
        return None


def _answer(code: int, answer: dict[str, Any] | str) -> int:
    print(answer if isinstance(answer, str) else json.dumps(answer))
    return code


def _replay(path: str) -> int:
    text = _read(path)
    if text is None:
        return 2
    return _answer(*replay_text(text))


def verify_text(text: str) -> tuple[int, dict[str, Any] | str]:
    """Check that a record's deals are fair: dealt from their seeds (docs/records.md).

    For each deal with a ``seed``: its ``hands`` and ``talon``, if given, must be what
    the seed deals (the replay's ``seed_mismatch``), and its ``seed_sha256``, if
    given (the bot publishes it while the deal runs), must be the SHA-256 of the
    seed.  Exit codes and answers are those of ``replay``; the answer lists each
    deal's seed and its checked fingerprint.
    """
    try:
        rec = parse_record(json.loads(text))
    except json.JSONDecodeError as e:
        return 2, f"not valid JSON: {e.msg} (line {e.lineno}, column {e.colno})"
    except RecordError as e:
        return 2, f"not a valid record: {e}"
    deals: list[dict[str, Any]] = []
    for i, d in enumerate(rec.deals):
        info: dict[str, Any] = {"deal": i, "seed": d.seed}
        if d.seed is not None:
            digest = seed_commitment(d.seed)
            claimed = d.extra.get("seed_sha256")
            if claimed is not None and (not isinstance(claimed, str) or claimed.lower() != digest):
                return 1, {
                    "ok": False,
                    "deal": i,
                    "action": None,
                    "error": "seed_hash_mismatch",
                    "message": "seed_sha256 is not the SHA-256 of the deal's seed",
                }
            info["seed_sha256"] = digest
            info["hash_checked"] = claimed is not None
            info["cards_checked"] = d.hands is not None or d.talon is not None
        deals.append(info)
    try:
        replay_parsed(rec)  # deals the seeds again: seed_mismatch if the cards differ
    except ReplayFailed as e:
        return 1, e.answer()
    except (RecordError, OptionError) as e:
        return 2, f"not a valid record: {e}"
    unseeded = [d["deal"] for d in deals if d["seed"] is None]
    if unseeded:
        # a valid game (that is `replay`'s answer), but nothing shows its cards were
        # shuffled fairly: a verification that checked nothing must not say ok
        return 1, {
            "ok": False,
            "deal": unseeded[0],
            "action": None,
            "error": "unseeded",
            "message": f"deal(s) {', '.join(map(str, unseeded))} have no seed: "
            "their cards cannot be checked",
        }
    return 0, {"ok": True, "seeded": len(deals), "unseeded": 0, "deals": deals}


def _verify(path: str) -> int:
    text = _read(path)
    if text is None:
        return 2
    return _answer(*verify_text(text))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m engine",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True)
    rp = sub.add_parser(
        "replay", help="replay a game record (docs/records.md) and print the result"
    )
    rp.add_argument("file", help="record file, or - for standard input")
    vp = sub.add_parser("verify", help="check that each deal of a record was dealt from its seed")
    vp.add_argument("file", help="record file, or - for standard input")
    sp = sub.add_parser("selfplay", help="play random legal deals and print their speed")
    sp.add_argument("--game", default="zweier", choices=sorted(GAME_MODULES))
    sp.add_argument("--deals", type=int, default=1000)
    sp.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.command == "replay":
        return _replay(args.file)
    if args.command == "verify":
        return _verify(args.file)
    if args.deals < 1:
        sp.error("--deals must be at least 1")
    try:
        out = play_random_deals(args.game, args.deals, args.seed)
    except UnknownGame as e:
        print(str(e), file=sys.stderr)
        return 2
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
