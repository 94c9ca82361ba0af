"""What every AI player is: a seat's view in, one legal action out.

A player sees exactly what a person at that seat sees (`SeatView`: own hand, public
cards, completed tricks, known cards, legal actions) and nothing of the hidden deal, so
the same player can fill an empty seat or take over for an absent one at any moment.
It is stateless between decisions: everything it knows comes from the view.

Randomness only comes from the `random.Random` the caller passes, and effort is counted
in playouts and sampled worlds (`Budget`), so a decision repeats exactly for the same
view and seed on any machine.  The wall-clock limit is only a safety stop.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..actions import Action
from ..views import SeatView

if TYPE_CHECKING:
    from .plugins import GameAI


class AIError(ValueError):
    """A player level or game the AI cannot serve."""


class UnknownLevel(AIError):
    """`engine.ai.player` was asked for a level that does not exist."""


class UnsupportedGame(AIError):
    """The level exists but does not play this game (yet)."""


@dataclass(frozen=True, slots=True)
class Budget:
    """Effort per decision, counted so that results repeat on any machine.

    `playouts`: heuristic playouts per decision while much is hidden (split over the
    candidate actions, one sampled world per round).  `worlds`: sampled worlds solved
    exactly once few cards are hidden.  `seconds`: a hard stop so a chat never waits
    more than this, whatever the counts say (hitting it is the only non-repeatable case).
    """

    playouts: int = 400
    worlds: int = 24
    seconds: float = 1.0

    def __post_init__(self) -> None:
        if self.playouts < 1 or self.worlds < 1 or self.seconds <= 0:
            raise ValueError(f"a budget needs positive counts and time, got {self}")


DEFAULT_BUDGET = Budget()


class Player(ABC):
    """One AI level.  `choose` must return one of `view.legal`."""

    #: The level's name in the registry ("random", "heuristic", "strong").
    level: str = ""
    #: Effort used when `choose` is given no budget (and the game names none).
    budget: Budget = DEFAULT_BUDGET

    @abstractmethod
    def supports(self, game: str) -> bool:
        """Whether this level plays `game` (a game id of RULES.md)."""

    def game_ai(self, game: str) -> GameAI[Any]:
        """The game's hooks this player uses (a subclass may swap in variants to
        compare them in bench/ai_arena.py)."""
        from .plugins import game_ai  # plugins imports this module

        return game_ai(game)

    @abstractmethod
    def _choose(self, view: SeatView, rng: random.Random, budget: Budget | None) -> Action:
        """`budget` is the caller's, or None for the level's own default."""

    def choose(self, view: SeatView, rng: random.Random, budget: Budget | None = None) -> Action:
        """The action this seat takes, given only its view (and `view.legal`)."""
        if not self.supports(view.game):
            raise UnsupportedGame(f"the {self.level!r} AI does not play {view.game!r} yet")
        if view.seat is None or view.to_act != view.seat or not view.legal:
            raise AIError("the AI is asked for a move only on its own turn, with its own view")
        if len(view.legal) == 1:
            return view.legal[0]
        return self._choose(view, rng, budget)
