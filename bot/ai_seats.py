"""The computer at a table: pick an action for a seat from that seat's view only.

The AI levels live in `engine.ai` (they see a `SeatView`, like a person).  When a level
does not play a game yet, the next weaker level that does takes the seat (and random
legal play at the very least), so tables never stall.  Each choice is seeded from the
table id and version, so a table replays identically.
"""

from __future__ import annotations

import logging
import random

from engine.ai import AIError, player
from engine.views import SeatView

log = logging.getLogger(__name__)

_WEAKER = {"strong": "heuristic", "heuristic": "random"}


def choose_action(level: str, view: SeatView, legal: list[int], seed: str) -> int:
    """The int code of the action `level` picks; `legal` are the codes behind `view.legal`."""
    rng = random.Random(seed)
    current: str | None = level
    while current is not None and current != "random":
        try:
            action = player(current, view.game).choose(view, random.Random(seed))
        except AIError:
            current = _WEAKER.get(current)
            continue
        try:
            return legal[view.legal.index(action)]
        except (ValueError, IndexError):
            log.error("the %s AI chose an action that is not legal; playing at random", current)
            break
    return rng.choice(legal)
