"""The `strong` level: search over the deals the seat cannot tell apart.

Perfect-information Monte Carlo ("determinized sampling"): deal worlds consistent with
the view (`GameAI.worlds`), score every legal action in each world, and take the action
with the best mean value in game points.  The same worlds serve every candidate, so the
comparison between candidates is far less noisy than each estimate (common random
numbers).

- While much is hidden (Zweierschnapsen: talon open) each candidate is scored by a
  heuristic playout of the world to its end, `Budget.playouts` in all.  Every
  `PRUNE_EVERY` worlds, candidates clearly behind the leader are dropped and the rest
  of the budget separates the contenders (successive rejection); once one is left,
  the decision is made (and, where a game asks for it with `GameAI.tie_worlds`, once
  the contenders have scored alike in every world so far).
- Once the real deal is small enough for exact play (talon closed or gone), every
  candidate is solved by alpha-beta in each of `Budget.worlds` worlds; with nothing
  hidden (talon gone) one world is the truth and play is perfect.
- Playouts do not switch to alpha-beta by default (`solve_within`): measured, solving
  sampled worlds inside playouts makes closing look too good (the solver sees the
  opponent's cards: strategy fusion) and costs up to 15 times the time.

`GameAI.caution` makes final actions whose estimate leans optimistic (closing the
talon) win by a margin; ties go to the heuristic's own choice, so the search only
departs from sensible play when it sees a reason.
"""

from __future__ import annotations

import math
import random
import time
from typing import Any

from ..actions import Action, decode, encode
from ..views import SeatView
from .base import Budget, Player
from .plugins import GameAI, supported
from .search import OutOfTime, Solver

#: Rounds (worlds) between two pruning passes, and how many standard errors below the
#: leader a candidate must be to go.
PRUNE_EVERY = 8
PRUNE_Z = 2.5
#: Share of `Budget.seconds` the search may use: the rest covers reading the view,
#: finishing the world in progress and answering, so the whole decision stays inside.
DEADLINE_SHARE = 0.8


class StrongPlayer(Player):
    level = "strong"
    prune_z = PRUNE_Z
    #: Stop as soon as pruning leaves one candidate that needs no margin (the choice
    #: cannot change then; a third of the median decision time), or the contenders
    #: tie (`GameAI.tie_worlds`).  Estimates that need the full budget's
    #: precision for the chosen action (the Dreier calibration) turn it off.
    stop_when_decided = True

    def __init__(
        self,
        *,
        budget: Budget | None = None,
        solve_within: int = -1,
        solve_hidden: bool = True,
        solve_perfect_only: bool = True,
    ) -> None:
        #: Playouts switch to alpha-beta only in worlds where nothing is hidden from
        #: either side (`GameAI.perfect`), never in merely exact ones.
        self.solve_perfect_only = solve_perfect_only
        #: A budget given at construction beats the game's (`GameAI.budget`).
        self.own_budget = budget
        #: Solve the exact phase over sampled worlds even while cards are hidden
        #: (talon closed); otherwise only when nothing is hidden.
        self.solve_hidden = solve_hidden
        #: Finish a playout by alpha-beta when its world reaches the exact phase within
        #: this many actions after the candidate (0: only a candidate that gets there
        #: itself, such as closing the talon).
        self.solve_within = solve_within

    def supports(self, game: str) -> bool:
        return game in supported()

    def _choose(self, view: SeatView, rng: random.Random, budget: Budget | None) -> Action:
        ai = self.game_ai(view.game)
        codes = [encode(a, ai.contracts) for a in view.legal]
        assert view.seat is not None
        if ai.forced is not None and (code := ai.forced(view, codes)) is not None:
            return decode(code, ai.contracts)
        game_budget = ai.budget_for(view) if ai.budget_for is not None else ai.budget
        budget = budget or self.own_budget or game_budget or self.budget
        scores, hint = self.scores(ai, view, codes, rng, budget)
        if ai.caution is not None:
            scores = [v - ai.caution(c, view) for v, c in zip(scores, codes, strict=True)]
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
        deadline = time.perf_counter() + budget.seconds * DEADLINE_SHARE
        knowledge = ai.worlds(view)
        world = knowledge.sample(rng)
        hint = ai.policy(world)
        solve = ai.exact(world) and (knowledge.certain or self.solve_hidden)
        if solve:
            limit = 1 if knowledge.certain else budget.worlds
            cost = 1  # a world's solves count as one
        else:
            limit = max(2 * len(codes), budget.playouts)
            cost = 0  # one per candidate played out
        #: Per candidate, its value in each world so far (None once dropped).
        values: list[list[int] | None] = [[] for _ in codes]
        floor = ai.prune_floor(view) if ai.prune_floor is not None else 0.0
        active = list(range(len(codes)))
        spent = rounds = 0
        while True:
            try:
                got = self._evaluate(ai, world, [codes[i] for i in active], me, deadline, solve)
            except OutOfTime:
                break  # the world in progress is dropped: every candidate saw `rounds`
            for i, v in zip(active, got, strict=True):
                vals = values[i]
                assert vals is not None
                vals.append(v)
            rounds += 1
            spent += cost or len(active)
            if spent >= limit or time.perf_counter() > deadline:
                break
            if not solve and rounds % PRUNE_EVERY == 0 and len(active) > 1:
                active = self._prune(values, active, floor)
                if len(active) == 1 and self.stop_when_decided:
                    last = codes[active[0]]
                    # The choice is made unless a margin (`GameAI.caution`) still has
                    # to be earned: then more worlds decide whether it is.
                    if ai.caution is None or not ai.caution(last, view):
                        break
                elif (
                    self.stop_when_decided
                    and ai.tie_worlds
                    and rounds >= ai.tie_worlds
                    and _all_same(values, active)
                ):
                    break  # nothing the worlds show tells the contenders apart
            world = knowledge.sample(rng)
        means = [sum(v) / len(v) if v else 0.0 for v in values]
        # Dropped candidates keep their (clearly worse) means from fewer worlds.
        best_active = max(means[i] for i in active)
        return [m if i in active else min(m, best_active - 1e-9) for i, m in enumerate(means)], hint

    def _prune(
        self, values: list[list[int] | None], active: list[int], floor: float = 0.0
    ) -> list[int]:
        """Drop candidates clearly worse than the leader over the same worlds, so the
        rest of the budget separates the contenders (successive rejection).  A
        candidate goes when its mean difference to the leader stays below zero by
        `PRUNE_Z` standard errors (the differences are paired: same worlds)."""
        lead = max(active, key=lambda i: sum(values[i] or ()))
        lead_vals = values[lead]
        assert lead_vals is not None
        n = len(lead_vals)
        keep = []
        for i in active:
            vals = values[i]
            assert vals is not None
            if i == lead:
                keep.append(i)
                continue
            diffs = [a - b for a, b in zip(vals, lead_vals, strict=True)]
            mean = sum(diffs) / n
            var = max(sum((d - mean) ** 2 for d in diffs) / (n - 1), floor * floor)
            if mean + self.prune_z * math.sqrt(var / n) >= 0:
                keep.append(i)
        return keep

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
        exact = ai.perfect if self.solve_perfect_only and ai.perfect else ai.exact
        plies = 0
        within = self.solve_within
        while core.turn >= 0:
            if plies <= within and exact(core):
                return Solver(ai, me, deadline).value(core)
            core.step(policy(core))
            plies += 1
        value: int = ai.value(core, me)
        return value


def _all_same(values: list[list[int] | None], active: list[int]) -> bool:
    """Every active candidate scored exactly as the first in each world so far (the
    worlds are shared, so equal lists mean nothing seen tells them apart)."""
    first = values[active[0]]
    return all(values[i] == first for i in active[1:])
