"""``python -m engine``: replay a record, or play random deals.

python -m engine replay FILE|-      exit 0 legal, 1 illegal action, 2 not a record
python -m engine selfplay --game zweier --deals N --seed S
"""

from __future__ import annotations

import argparse
import json
import sys

from .games import GAME_MODULES, UnknownGame
from .record import replay_text
from .selfplay import play_random_deals


def _replay(path: str) -> int:
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8") as f:
                text = f.read()
    except OSError as e:
        print(f"cannot read {path}: {e.strerror}", file=sys.stderr)
        return 2
    code, answer = replay_text(text)
    if isinstance(answer, str):
        print(answer)
    else:
        print(json.dumps(answer))
    return code


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m engine",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True)
    rp = sub.add_parser("replay", help="replay a game record (RULES.md §6) and print the result")
    rp.add_argument("file", help="record file, or - for standard input")
    sp = sub.add_parser("selfplay", help="play random legal deals and print their speed")
    sp.add_argument("--game", default="zweier", choices=sorted(GAME_MODULES))
    sp.add_argument("--deals", type=int, default=1000)
    sp.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.command == "replay":
        return _replay(args.file)
    if args.deals < 1:
        parser.error("--deals must be at least 1")
    try:
        out = play_random_deals(args.game, args.deals, args.seed)
    except UnknownGame as e:
        print(str(e), file=sys.stderr)
        return 2
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
