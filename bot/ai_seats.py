"""The computer at a table: pick an action for a seat from that seat's view only.

The AI levels live in `engine.ai` (they see a `SeatView`, like a person).  Until a
level exists for a game, the seat plays a random legal action so tables never stall.
Each choice is seeded from the table id and version, so a table replays identically.
"""

from __future__ import annotations

import importlib
import logging
import random

from engine.views import SeatView

log = logging.getLogger(__name__)


def choose_action(level: str, view: SeatView, legal: list[int], seed: str) -> int:
    rng = random.Random(seed)
    if level != "random":
        try:
            ai = importlib.import_module("engine.ai")
            return int(ai.choose_code(level, view, legal, rng))
        except (ImportError, AttributeError, NotImplementedError, KeyError, ValueError):
            pass
    return rng.choice(legal)
