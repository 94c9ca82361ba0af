"""Random full deals per second on one core, for every implemented game.

    python bench/engine.py [--deals N] [--seed S] [--game G]

Plays random legal deals on the rules core's fast path (legal-move generation, the
seeded SHA-256 deal and scoring included) and prints one JSON line per game; the last
line is a JSON object with every game's figures (and zweier's at the top level, as
``python -m engine selfplay`` prints them).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.games import available
from engine.selfplay import play_random_deals


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--deals", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--game", action="append", help="only this game (repeatable)")
    args = parser.parse_args()
    if args.deals < 1:
        parser.error("--deals: at least 1")
    unknown = sorted(set(args.game or ()) - set(available()))
    if unknown:
        parser.error(f"--game: unknown {', '.join(unknown)} (games: {', '.join(available())})")
    games = args.game or available()
    results = {}
    for gid in games:
        play_random_deals(gid, min(500, args.deals), args.seed)  # warm up
        r = play_random_deals(gid, args.deals, args.seed)
        results[gid] = r
        print(json.dumps(r))
    last = dict(results.get("zweier", next(iter(results.values()))))
    last["games"] = {g: r["deals_per_s"] for g, r in results.items()}
    print(json.dumps(last))
    return 0


if __name__ == "__main__":
    sys.exit(main())
