"""The Dreierschnapsen match (RULES.md §3 "Score"): first to 24, Bummerl, tie-break.

A declarer who wins scores the deal's value, else each defender does.  The game ends
after the deal in which someone reaches 24; the lowest player gets a Bummerl (2 with 0
points: Schneider; 4 each for two players left at 23 by a winner who came from 0:
Retourschneider).  Two players tied for lowest play one deal of Zweierschnapsen
(RULES.md §6: a ``zweier`` deal with ``"seats": [i, j]`` in the same record); its loser
gets the Bummerl.
"""

from __future__ import annotations

from typing import Any

from .. import zweier
from ..match import DealSpec, Match
from ..protocol import DealCore
from ..results import DealResult
from .dealing import start_deal
from .options import GAME_ID, DreierOptions

TARGET = 24


class DreierMatch(Match):
    """Scores per seat; the dealer moves one seat clockwise each deal (the caller deals
    next), except after a three-Jacks redeal, which the same dealer deals again."""

    game = GAME_ID
    players = 3

    options: DreierOptions

    def __init__(self, options: DreierOptions, first_dealer: int = 0) -> None:
        super().__init__(options, first_dealer)
        self.scores = [0, 0, 0]
        self.bummerl = [0, 0, 0]
        self.dealer = first_dealer
        #: The two seats of a pending or played tie-break, and what its loser gets.
        self.tie_break: tuple[int, int] | None = None
        self.tie_bummerl = 0
        self.zweier_options = zweier.ZweierOptions(auto_claim=options.auto_claim)

    def next_deal(self) -> DealSpec | None:
        if self.finished:
            return None
        n = len(self.results)
        if self.tie_break is not None:
            return DealSpec(zweier.GAME_ID, self.tie_break, self.tie_break_dealer(), n)
        return DealSpec(GAME_ID, (0, 1, 2), self.dealer, n)

    def tie_break_dealer(self) -> int:
        """The rotation's next dealer if he plays the tie-break, else the next seat
        clockwise (docs/rules/dreier.md)."""
        assert self.tie_break is not None
        d = self.dealer
        return d if d in self.tie_break else (d + 1) % 3

    def start_deal(
        self,
        spec: DealSpec,
        *,
        seed: bytes | None = None,
        hands: list[list[int]] | None = None,
        talon: list[int] | None = None,
    ) -> DealCore:
        if spec.game == zweier.GAME_ID:
            dealer = spec.seats.index(spec.dealer)  # deal seats are 0 and 1
            return zweier.start_deal(
                self.zweier_options, dealer, seed=seed, hands=hands, talon=talon
            )
        return start_deal(self.options, spec.dealer, seed=seed, hands=hands, talon=talon)

    def add_result(self, spec: DealSpec, result: DealResult) -> tuple[int, ...]:
        self.results.append(result)
        if spec.game == zweier.GAME_ID:
            return self._tie_break_result(spec, result)
        if result.reason == "redeal":
            return (0, 0, 0)
        before = tuple(self.scores)
        for i in range(3):
            self.scores[i] += result.points[i]
        self.dealer = (self.dealer + 1) % 3
        if max(self.scores) >= TARGET:
            self._game_over(before)
        return result.points

    def _game_over(self, before: tuple[int, ...]) -> None:
        s = self.scores
        low = min(s)
        lowest = [i for i in range(3) if s[i] == low]
        for w in range(3):
            others = [i for i in range(3) if i != w]
            if (
                before[w] == 0
                and s[w] >= TARGET
                and all(before[i] == 23 and s[i] == 23 for i in others)
            ):
                for i in others:  # Retourschneider
                    self.bummerl[i] += 4
                self.finished = True
                return
        if len(lowest) == 1:
            self.bummerl[lowest[0]] += self.loss_bummerl(lowest[0])
            self.finished = True
        else:
            a, b = lowest[0], lowest[1]
            self.tie_break = (a, b)
            self.tie_bummerl = self.loss_bummerl(a)  # both at `low`

    def _tie_break_result(self, spec: DealSpec, result: DealResult) -> tuple[int, ...]:
        pts = [0, 0, 0]
        for k, seat in enumerate(spec.seats):
            pts[seat] = result.points[k]
        winner = spec.seats[result.winners[0]]
        loser = spec.seats[0] if winner == spec.seats[1] else spec.seats[1]
        self.bummerl[loser] += self.tie_bummerl
        self.finished = True
        return tuple(pts)

    def loss_bummerl(self, seat: int) -> int:
        return 2 if self.scores[seat] == 0 else 1

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "scores": list(self.scores),
            "bummerl": list(self.bummerl),
            "finished": self.finished,
        }
        if self.options.count_down:
            out["count_down"] = [max(0, TARGET - s) for s in self.scores]
        if self.tie_break is not None:
            out["tie_break"] = list(self.tie_break)
        return out


def new_match(opts: DreierOptions, first_dealer: int = 0) -> DreierMatch:
    return DreierMatch(opts, first_dealer)
