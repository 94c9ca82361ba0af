"""How often a table of one level doubles, and whether its doubles are right.

    python bench/ai_doubling.py --game dreier --level strong --deals 120 --seed 1 --jobs 2

Every seat plays `--level` (a table of computers, or what a human meets at a table of
them).  Each deal is dealt from a seed drawn from ``--seed`` and played once, the
dealer rotating.  Reported: how many deals ended with 0, 1, 2 or 3 doubles (Spritzen,
Kontra and their answers), and for each count how often the declarer's side won the
deal: a double is right when the side that said it wins.  Between two sides that
both overrate their chances nearly every contract goes to ×8 and a match to 24 ends
in one deal.  The last line is a JSON object.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from multiprocessing import Pool
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import duplicate_args

from engine import protocol as P
from engine.actions import Double
from engine.ai import player
from engine.games import game

_CTX: dict[str, Any] = {}


def _init(game_id: str, level: str, options: dict[str, Any]) -> None:
    spec = game(game_id)
    _CTX.update(spec=spec, opts=spec.parse_options(options), player=player(level, game_id))


def play(job: tuple[int, bytes]) -> dict[str, Any]:
    """One deal: the doubles said, the contract, and whether its side won."""
    index, seed = job
    spec = _CTX["spec"]
    state = spec.start_deal(_CTX["opts"], index % spec.players, seed=seed)
    rngs = [random.Random(f"{index}:{s}") for s in range(spec.players)]
    doubles = 0
    while (seat := P.to_act(state)) is not None:
        action = _CTX["player"].choose(P.view(state, seat), rngs[seat], None)
        doubles += isinstance(action, Double)
        state, _ = P.apply(state, seat, action)
    res = P.result(state)
    assert res is not None
    return {
        "doubles": doubles,
        "contract": res.contract,
        "declarer_won": res.declarer is not None and res.declarer in res.winners,
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--game", default="dreier", choices=("dreier", "bauern"))
    p.add_argument("--level", default="strong")
    p.add_argument("--deals", type=int, default=120)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--options", default="{}", help="rule options as JSON")
    p.add_argument(
        "--no-double-margin",
        action="store_true",
        help="doubles need no margin over passing (as before engine/ai/doubling.py)",
    )
    args = p.parse_args()
    if args.no_double_margin:
        duplicate_args.no_double_margin()
    rng = random.Random(args.seed)
    jobs = [(i, rng.randbytes(16)) for i in range(args.deals)]
    init = (args.game, args.level, json.loads(args.options))
    start = time.perf_counter()
    if args.jobs > 1:
        with Pool(args.jobs, initializer=_init, initargs=init) as pool:
            rows = pool.map(play, jobs, chunksize=2)
    else:
        _init(*init)
        rows = [play(j) for j in jobs]
    by: dict[int, list[dict[str, Any]]] = {}
    for r in rows:
        by.setdefault(r["doubles"], []).append(r)
    summary: dict[str, Any] = {
        "game": args.game,
        "level": args.level,
        "deals": args.deals,
        "seed": args.seed,
        "by_doubles": {},
        "seconds": round(time.perf_counter() - start, 1),
    }
    print(f"{args.game}, every seat {args.level}, {args.deals} deals:")
    for n in sorted(by):
        group = by[n]
        won = sum(r["declarer_won"] for r in group)
        top = Counter(r["contract"] for r in group).most_common(3)
        print(f"  {n} doubles: {len(group):4} deals, declarer's side won {won}; most: {top}")
        summary["by_doubles"][str(n)] = {"deals": len(group), "declarer_won": won}
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
