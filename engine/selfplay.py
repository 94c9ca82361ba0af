"""Random legal play on the rules core's fast path: the engine's speed and a smoke test.

Used by ``python -m engine selfplay`` and `bench/engine.py`.  Each deal is dealt from
a seed drawn from one seeded RNG, so a run repeats exactly for the same ``--seed``.
"""

from __future__ import annotations

import random
import time
from typing import Any

from .games import game


def play_random_deals(
    game_id: str, deals: int, seed: int, options: dict[str, Any] | None = None
) -> dict[str, Any]:
    spec = game(game_id)
    opts = spec.parse_options(options or {})
    rng = random.Random(seed)
    choice = rng.choice
    actions = 0
    players = getattr(opts, "players", None) or spec.players
    points = [0] * players
    start = time.perf_counter()
    for n in range(deals):
        state = spec.start_deal(opts, n % players, seed=rng.randbytes(16))
        legal = state.legal
        step = state.step
        while state.turn >= 0:
            step(choice(legal()))
            actions += 1
        res = state.result()
        if res is not None:
            for i, p in enumerate(res.points):
                points[i] += p
    seconds = time.perf_counter() - start
    return {
        "game": game_id,
        "deals": deals,
        "actions": actions,
        "seconds": round(seconds, 4),
        "deals_per_s": round(deals / seconds, 1) if seconds > 0 else None,
        "actions_per_s": round(actions / seconds, 1) if seconds > 0 else None,
        "points": points,
    }
