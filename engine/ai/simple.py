"""The `random` and `heuristic` levels.

`random` picks uniformly among the legal actions (any game): the floor every other
level is measured against.  `heuristic` plays each game's rule-based policy
(`GameAI.policy`) on a world dealt from the view; the policy reads only what the seat
knows, so which world is dealt does not matter.
"""

from __future__ import annotations

import random

from ..actions import Action, decode
from ..views import SeatView
from .base import Budget, Player
from .plugins import supported


class RandomPlayer(Player):
    level = "random"

    def supports(self, game: str) -> bool:
        return True

    def _choose(self, view: SeatView, rng: random.Random, budget: Budget | None) -> Action:
        return rng.choice(view.legal)


class HeuristicPlayer(Player):
    level = "heuristic"

    def supports(self, game: str) -> bool:
        return game in supported()

    def _choose(self, view: SeatView, rng: random.Random, budget: Budget | None) -> Action:
        ai = self.game_ai(view.game)
        world = ai.worlds(view).sample(rng)
        return decode(ai.policy(world), ai.contracts)
