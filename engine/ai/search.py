"""The strong level's two estimators over one sampled world (a perfect-information
deal): a heuristic playout, and an exact alpha-beta solve.

Both drive the rules core's fast path (`copy`, `legal`, `step`), so the search uses
the same rules as the game and nothing can drift apart.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Hashable
from typing import Generic

from ..actions import CLAIM
from .plugins import C, GameAI


def playout(core: C, policy: Callable[[C], int]) -> C:
    """Play `core` to its end in place with `policy` for every seat."""
    step = core.step
    while core.turn >= 0:
        step(policy(core))
    return core


class OutOfTime(Exception):
    """The wall-clock stop of a decision passed during a search."""


#: Positions searched between two looks at the clock.
CLOCK_EVERY = 1024


class Solver(Generic[C]):
    """Alpha-beta with a transposition table over one world, for one seat.

    Values are game points (`GameAI.value`), a handful of small integers, so the window
    closes fast; the table is shared by all candidate actions of one decision in one
    world, whose subtrees overlap.  `nodes` counts the positions searched.  Past
    `deadline` (a `time.perf_counter` value) the search raises `OutOfTime`.
    """

    __slots__ = ("ai", "deadline", "hi", "lo", "me", "nodes", "tt")

    def __init__(self, ai: GameAI[C], me: int, deadline: float = math.inf) -> None:
        self.ai = ai
        self.me = me
        self.deadline = deadline
        self.lo, self.hi = ai.bounds
        self.tt: dict[Hashable, tuple[int, int, int]] = {}
        self.nodes = 0

    def value(self, core: C) -> int:
        """The exact value of `core` for `me`, both sides playing perfectly."""
        return self._search(core, self.lo, self.hi)

    def _search(self, core: C, alpha: int, beta: int) -> int:
        ai = self.ai
        if core.turn < 0:
            return ai.value(core, self.me)
        self.nodes += 1
        if not self.nodes % CLOCK_EVERY and time.perf_counter() > self.deadline:
            raise OutOfTime
        k = ai.key(core)
        entry = self.tt.get(k)
        first = -1
        if entry is not None:
            lo, hi, first = entry
            if lo >= beta or lo == hi:
                return lo
            if hi <= alpha:
                return hi
            if lo > alpha:
                alpha = lo
            if hi < beta:
                beta = hi
        else:
            lo, hi = self.lo, self.hi
        codes = core.legal()
        if first >= 0:
            codes.remove(first)
            codes.insert(0, first)
        elif CLAIM in codes:
            codes.remove(CLAIM)
            codes.insert(0, CLAIM)
        search = self._search
        best_code = codes[0]
        if ai.same_side(core, self.me):
            v = self.lo - 1
            a = alpha
            for code in codes:
                child = core.copy()
                child.step(code)
                x = search(child, a, beta)
                if x > v:
                    v = x
                    best_code = code
                    if v > a:
                        a = v
                        if a >= beta:
                            break
        else:
            v = self.hi + 1
            b = beta
            for code in codes:
                child = core.copy()
                child.step(code)
                x = search(child, alpha, b)
                if x < v:
                    v = x
                    best_code = code
                    if v < b:
                        b = v
                        if alpha >= b:
                            break
        if v <= alpha:
            hi = v
        elif v >= beta:
            lo = v
        else:
            lo = hi = v
        self.tt[k] = (lo, hi, best_code)
        return v
