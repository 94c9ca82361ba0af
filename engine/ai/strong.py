"""The `strong` level: search over the deals the seat cannot tell apart.

Perfect-information Monte Carlo ("determinized sampling"): deal worlds consistent with
the view (`GameAI.worlds`), score every legal action in each world, and take the action
with the best mean value in game points.  The same worlds serve every candidate, so the
comparison between candidates is far less noisy than each estimate (common random
numbers).

- While much is hidden (Zweierschnapsen: talon open) each candidate is scored by a
  heuristic playout of the world to its end (`Budget.playouts` in all).  Once the world
  would be small enough for exact play (talon closed or gone) the playout stops and
  alpha-beta finishes it: closing the talon, and the last tricks before it runs out,
  are judged by exact play rather than by the heuristic's.
- Once the real deal is in that phase, every candidate is solved exactly in each of
  `Budget.worlds` worlds; with nothing hidden (talon gone) one world is the truth.

Ties go to the heuristic's own choice, so the search only departs from sensible play
when it sees a reason.
"""

from __future__ import annotations

import random
import time
from typing import Any

from ..actions import Action, decode, encode
from ..views import SeatView
from .base import Budget, Player
from .plugins import GameAI, supported
from .search import OutOfTime, Solver


class StrongPlayer(Player):
    level = "strong"

    def __init__(
        self, *, budget: Budget | None = None, solve_within: int = -1, solve_hidden: bool = True
    ) -> None:
        if budget is not None:
            self.budget = budget
        #: Solve the exact phase over sampled worlds even while cards are hidden
        #: (talon closed); otherwise only when nothing is hidden.
        self.solve_hidden = solve_hidden
        #: Finish a playout by alpha-beta when its world reaches the exact phase within
        #: this many actions after the candidate (0: only a candidate that gets there
        #: itself, such as closing the talon).
        self.solve_within = solve_within

    def supports(self, game: str) -> bool:
        return game in supported()

    def _choose(self, view: SeatView, rng: random.Random, budget: Budget) -> Action:
        ai = self.game_ai(view.game)
        codes = [encode(a, ai.contracts) for a in view.legal]
        assert view.seat is not None
        scores, hint = self.scores(ai, view, codes, rng, budget)
        best = max(range(len(codes)), key=lambda i: (scores[i], codes[i] == hint, -i))
        return decode(codes[best], ai.contracts)

    def scores(
        self,
        ai: GameAI[Any],
        view: SeatView,
        codes: list[int],
        rng: random.Random,
        budget: Budget,
    ) -> tuple[list[float], int]:
        """Mean value of each candidate code over the sampled worlds, and the
        heuristic's choice (the tie-break)."""
        assert view.seat is not None
        me = view.seat
        deadline = time.perf_counter() + budget.seconds
        knowledge = ai.worlds(view)
        world = knowledge.sample(rng)
        hint = ai.policy(world)
        totals = [0.0] * len(codes)
        n = 0
        solve = ai.exact(world) and (knowledge.certain or self.solve_hidden)
        if solve:
            rounds = 1 if knowledge.certain else budget.worlds
        else:
            rounds = max(2, budget.playouts // len(codes))
        while True:
            try:
                values = self._evaluate(ai, world, codes, me, deadline, solve)
            except OutOfTime:
                break  # the round in progress is dropped: every candidate saw n worlds
            for i, v in enumerate(values):
                totals[i] += v
            n += 1
            if n >= rounds or time.perf_counter() > deadline:
                break
            world = knowledge.sample(rng)
        if not n:
            return [0.0] * len(codes), hint
        return [t / n for t in totals], hint

    def _evaluate(
        self, ai: GameAI[Any], world: Any, codes: list[int], me: int, deadline: float, solve: bool
    ) -> list[int]:
        """Each candidate's value in one world: exact, or by playout."""
        if solve:
            solver = Solver(ai, me, deadline)
            out = []
            for code in codes:
                child = world.copy()
                child.step(code)
                out.append(solver.value(child))
            return out
        return [self._playout(ai, world, code, me, deadline) for code in codes]

    def _playout(self, ai: GameAI[Any], world: Any, code: int, me: int, deadline: float) -> int:
        core = world.copy()
        core.step(code)
        policy = ai.policy
        exact = ai.exact
        plies = 0
        within = self.solve_within
        while core.turn >= 0:
            if plies <= within and exact(core):
                return Solver(ai, me, deadline).value(core)
            core.step(policy(core))
            plies += 1
        value: int = ai.value(core, me)
        return value
