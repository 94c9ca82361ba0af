"""The registry of games by id (RULES.md's table).  Modules load on first use."""

from __future__ import annotations

import importlib

from .protocol import GameSpec

GAME_MODULES: dict[str, str] = {
    "zweier": "engine.zweier",
    "dreier": "engine.dreier",
    "bauern": "engine.bauern",
    "tausend": "engine.tausend",
}


class UnknownGame(KeyError):
    def __str__(self) -> str:
        return str(self.args[0])


def game(game_id: str) -> GameSpec:
    """The `GameSpec` of a game id; `UnknownGame` names the known ids."""
    module = GAME_MODULES.get(game_id)
    if module is None:
        known = ", ".join(GAME_MODULES)
        raise UnknownGame(f"unknown game {game_id!r} (known games: {known})")
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name != module:
            raise
        raise UnknownGame(f"game {game_id!r} is not implemented yet") from None
    spec: GameSpec = mod.GAME
    return spec


def available() -> list[str]:
    """Ids of the games this build implements."""
    out = []
    for gid in GAME_MODULES:
        try:
            game(gid)
        except UnknownGame:
            continue
        out.append(gid)
    return out
