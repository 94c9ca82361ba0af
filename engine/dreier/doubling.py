"""Spritzen in a Dreierschnapsen deal (RULES.md §3, §6): doubling before the first card.

The defenders in seat order from forehand say double or pass (the first double ends
their round); after a double the declarer may redouble, after a redouble the
defenders may double once more, as in their first round.  Then the play starts
(`play`).  docs/rules/dreier.md, "The deal, phase by phase", spells the order out.
"""

from __future__ import annotations

from .. import actions as A
from ..events import Doubled, Passed
from .rules import DOUBLING
from .state import DreierState


class Doubling(DreierState):
    """The doubling (Spritzen) of `DreierDeal`."""

    __slots__ = ()

    def _start_doubling(self) -> None:
        """RULES.md §6 doubling order: defenders from forehand, declarer, defenders."""
        self.phase = DOUBLING
        self.mult = 1
        self.dbl_pos = 0
        self.turn = self.defs[0]

    def _double(self, seat: int) -> None:
        self.mult *= 2
        self.spritzen += ((seat, A.DOUBLE),)
        if self.log is not None:
            self.log.append(Doubled(seat, self.mult))
        if self.mult == 2:
            self.turn = self.decl
        elif self.mult == 4:
            self.dbl_pos = 0
            self.turn = self.defs[0]
        else:
            self._start_play()

    def _double_pass(self, seat: int) -> None:
        self.spritzen += ((seat, A.PASS),)
        if self.log is not None:
            self.log.append(Passed(seat))
        if self.mult == 2 or self.dbl_pos == 1:
            self._start_play()
        else:
            self.dbl_pos = 1
            self.turn = self.defs[1]
