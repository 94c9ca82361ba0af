"""What the AI tests of every game share: playing a deal out with a level drawn at
random for each decision, and worlds drawn by a game's own sampler."""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from typing import Any

from engine import protocol as P
from engine.ai import Budget, player
from engine.ai.plugins import GameAI
from engine.ai.search import Solver
from engine.views import SeatView

LEVELS = ("random", "heuristic", "strong")


def scaled(n: int) -> int:
    """Examples for an AI property test: `n` in CI, four times as many locally (the
    AI tests set their own counts, sized to their cost, so the profile cannot)."""
    return n if os.environ.get("HYPOTHESIS_PROFILE", "dev") == "ci" else 4 * n


def play_out_mixed(state: P.DealCore, game: str, rng: random.Random, budget: Budget) -> None:
    """Play `state` to its end, each decision by a level drawn at random; every action
    must be one of the view's legal ones and the deal must end with a result."""
    players = {level: player(level, game) for level in LEVELS}
    while (seat := P.to_act(state)) is not None:
        view = P.view(state, seat)
        action = players[rng.choice(LEVELS)].choose(view, rng, budget)
        assert action in view.legal
        state, _ = P.apply(state, seat, action)
    assert P.result(state) is not None


def sampled_worlds(
    worlds: Callable[[SeatView], Any], view: SeatView, seat: int, n: int, rng: random.Random
) -> list[Any]:
    """`n` worlds of the AI's sampler for `view`, each checked to look the same to
    the seat as the real deal does."""
    sampler = worlds(view)
    out = []
    for _ in range(n):
        world = sampler.sample(rng)
        assert world.view(seat) == view, "a sampled world must look the same to the seat"
        out.append(world)
    return out


def minimax(ai: GameAI[Any], d: Any, me: int) -> int:
    """Plain minimax on the game's values and sides: the oracle for `Solver`."""
    if d.turn < 0:
        return ai.value(d, me)
    values = []
    for code in d.legal():
        child = d.copy()
        child.step(code)
        values.append(minimax(ai, child, me))
    return max(values) if ai.same_side(d, me) else min(values)


def assert_solver_is_minimax(ai: GameAI[Any], d: Any, me: int) -> None:
    """Alpha-beta equals minimax at `d` and after each legal action; one solver for
    all, so its transposition table carrying over between searches changes nothing."""
    solver = Solver(ai, me)
    assert solver.value(d.copy()) == minimax(ai, d, me)
    for code in d.legal():
        child = d.copy()
        child.step(code)
        assert solver.value(child.copy()) == minimax(ai, child, me)
