"""AI players that fill empty seats and take over for absent players (DESIGN.md).

    from engine.ai import player, Budget
    ai = player("strong")                      # "random", "heuristic" or "strong"
    action = ai.choose(view, random.Random(seed), Budget(playouts=400))

A player sees only its seat's `SeatView`, like a person, and returns one of
`view.legal`.  See docs/ai.md for the design, the levels and their measured strength.
"""

from __future__ import annotations

from collections.abc import Callable

from .base import AIError, Budget, Player, UnknownLevel, UnsupportedGame
from .simple import HeuristicPlayer, RandomPlayer
from .strong import StrongPlayer

LEVELS: dict[str, Callable[[], Player]] = {
    "random": RandomPlayer,
    "heuristic": HeuristicPlayer,
    "strong": StrongPlayer,
}


def player(level: str, game: str | None = None) -> Player:
    """The player of a level; with `game`, also check that the level plays it."""
    make = LEVELS.get(level)
    if make is None:
        raise UnknownLevel(f"unknown AI level {level!r} (levels: {', '.join(LEVELS)})")
    p = make()
    if game is not None and not p.supports(game):
        raise UnsupportedGame(f"the {level!r} AI does not play {game!r} yet")
    return p


__all__ = [
    "LEVELS",
    "AIError",
    "Budget",
    "Player",
    "UnknownLevel",
    "UnsupportedGame",
    "player",
]
