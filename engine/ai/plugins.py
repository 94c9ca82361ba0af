"""What the game-independent AI needs from each game, and where to find it.

The `heuristic` and `strong` levels are written once, over the rules core's fast path
(`DealCore.copy/legal/step` with int codes).  Each game contributes a `GameAI`: how to
deal worlds consistent with a seat's view, a fast rule-based policy, when a world is
small enough to solve exactly, and what a finished deal is worth to a seat in game
points.  A game joins by adding a module here (`engine/ai/<game>.py` with ``AI``).
"""

from __future__ import annotations

import importlib
import importlib.util
import random
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from ..protocol import DealCore
from ..views import SeatView
from .base import Budget, UnsupportedGame

C = TypeVar("C", bound=DealCore)
C_co = TypeVar("C_co", bound=DealCore, covariant=True)


class Worlds(Protocol[C_co]):
    """A seat's knowledge of a running deal, able to deal consistent worlds."""

    @property
    def certain(self) -> bool:
        """One world is the truth (nothing hidden matters any more)."""
        ...

    def sample(self, rng: random.Random) -> C_co:
        """A complete deal agreeing with the view; hidden cards dealt by `rng`."""
        ...


@dataclass(frozen=True, slots=True)
class GameAI(Generic[C]):
    """One game's hooks for the AI.

    `policy` must read only what the seat to act may know (its hand, public cards,
    shown cards): it plays the heuristic level from a sampled world, so anything else
    would leak the sample into the decision.  `value` is in game points for `seat`'s
    side (winning 2 is better than winning 1, losing 3 worse than losing 2).
    `same_side(core, seat)` says whether the seat to act plays for `seat`.
    """

    game: str
    contracts: tuple[str, ...]
    worlds: Callable[[SeatView], Worlds[C]]
    policy: Callable[[C], int]
    exact: Callable[[C], bool]
    value: Callable[[C, int], int]
    same_side: Callable[[C, int], bool]
    key: Callable[[C], Hashable]
    #: The least and most `value` can be (tight bounds make alpha-beta cut early).
    bounds: tuple[int, int]
    #: Nothing is hidden from anyone any more in this world (Zweierschnapsen: the talon
    #: is gone), so solving it is no clairvoyance; None: same as `exact`.
    perfect: Callable[[C], bool] | None = None
    #: Value an action code must win by over the alternatives, given the seat's view,
    #: for actions whose estimate errs one way (Zweierschnapsen: closing the talon,
    #: judged with an opponent model that plays the open talon better than most do;
    #: Dreier and Bauern: a double, `doubling`); None: 0.
    caution: Callable[[int, SeatView], float] | None = None
    #: The strong level's default effort for this game (None: `base.DEFAULT_BUDGET`).
    budget: Budget | None = None
    #: ... or for a decision seen as this view, where the effort a decision needs
    #: depends on it (None: `budget` for every decision).
    budget_for: Callable[[SeatView], Budget] | None = None
    #: The least standard deviation the search assumes for the difference between two
    #: candidates when it prunes, for a decision seen as this view (in `value` units;
    #: None: the measured one).  After a few worlds a difference can look certain by
    #: chance — every world so far made a high bid — and without a floor a zero
    #: spread prunes every other candidate.
    prune_floor: Callable[[SeatView], float] | None = None
    #: Stop the search once every candidate left has scored exactly the same in each
    #: of at least this many worlds (0: never): nothing the worlds show tells them
    #: apart, and the tie goes to the heuristic's choice.
    tie_worlds: int = 0
    #: An action the strong level takes without searching whenever it is legal, given
    #: the seat's view and the legal codes (None: none).  For a move no sampled world
    #: can judge right: Zweierschnapsen's exchange of the trump Jack keeps the turn,
    #: and its playouts continue with the heuristic, which seldom closes, so "exchange,
    #: then close" was never seen and the search kept the Jack (audit, 2026-11-29).
    forced: Callable[[SeatView, list[int]], int | None] | None = None


#: Games with AI support, by game id: the module holding its ``AI``.
MODULES: dict[str, str] = {
    "zweier": "engine.ai.zweier",
    "dreier": "engine.ai.dreier",
    "bauern": "engine.ai.bauern",
    "tausend": "engine.ai.tausend",
}


def supported() -> frozenset[str]:
    """Game ids whose AI module is present in this build."""
    return frozenset(g for g, m in MODULES.items() if importlib.util.find_spec(m) is not None)


def game_ai(game: str) -> GameAI[Any]:
    """The `GameAI` of a game id, or `UnsupportedGame`."""
    module = MODULES.get(game)
    if module is None or importlib.util.find_spec(module) is None:
        plays = ", ".join(sorted(supported()))
        raise UnsupportedGame(f"the AI does not play {game!r} yet (it plays: {plays})")
    ai: GameAI[Any] = importlib.import_module(module).AI
    return ai
