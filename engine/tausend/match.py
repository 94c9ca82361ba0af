"""Thousand's match scoring (RULES.md §5): scores, bolts, the barrel, the win at 1000.

Deal play (`engine.tausend.deal`) only reports each deal's own scores and bolts; this
module turns them into the running totals.  It also tells each deal what applies to
it (`DealSpec.context`): whether it is in the golden round, who sits on the barrel
with how many deals left, and near the barrel the scores (what a deal is worth to a
seat depends on them).
Choices where RULES.md is silent are in docs/rules/tausend.md ("The barrel").
"""

from __future__ import annotations

from typing import Any

from ..match import DealSpec, Match, check_first_dealer
from ..results import DealResult
from .deal import TausendDeal
from .rules import (
    BARREL_AT,
    BARREL_ATTEMPTS,
    BOLT_FINE,
    BOLTS_TO_FINE,
    FALLS_TO_RESET,
    FREE_BID_LIMIT,
    GAME_ID,
    MAX_BID,
    WIN_AT,
    TausendOptions,
    barrel_room,
)

#: The notes of `TausendMatch.notes`: what a deal did to a score beyond its points.
NOTES = (
    "bolt_fine",
    "barrel_frozen",
    "barrel_failed",
    "barrel_won",
    "barrel_climbed",
    "barrel_crowded",
    "barrel_pushed_off",
    "barrel_attempts",
    "barrel_reset",
)


class TausendMatch(Match):
    """Deals until a player on the barrel makes a bid above 120 (he wins at 1000).

    The dealer moves one seat clockwise after every deal that was played; a redeal is
    dealt again by the same dealer and counts for nothing (no score, no barrel
    attempt, not part of the golden round's count).
    """

    game = GAME_ID

    def __init__(self, options: TausendOptions, first_dealer: int = 0) -> None:
        n = options.players
        check_first_dealer(first_dealer, n)
        super().__init__(options, first_dealer)
        self.options: TausendOptions = options
        self.players = n
        self.scores = [0] * n
        self.bolts = [0] * n
        self.on_barrel = [False] * n
        #: Deals played on the barrel so far (RULES.md §5: three attempts).
        self.attempts = [0] * n
        #: Falls off the barrel since the last reset (the third resets the score to 0).
        self.falls = [0] * n
        #: Seats on the barrel, earliest first (the earliest is pushed off first).
        self.climbed: list[int] = []
        self.played = 0
        self.winner: int | None = None
        self.bummerl = [0] * n
        #: What the last deal did to the scores beyond its own points, as (seat, what):
        #: a table explains a score change the deal's points do not (RULES.md §5).
        #: `what` is one of NOTES.
        self.notes: list[tuple[int, str]] = []

    @property
    def capacity(self) -> int:
        """Players who may sit on the barrel at once (`rules.barrel_room`)."""
        return barrel_room(self.players)

    def next_deal(self) -> DealSpec | None:
        if self.finished:
            return None
        n = self.players
        golden = self.options.golden_round and self.played < n  # the first round
        context: tuple[tuple[str, Any], ...] = (("golden", golden),)
        if any(self.on_barrel):
            left = tuple(
                BARREL_ATTEMPTS - self.attempts[s] if self.on_barrel[s] else 0 for s in range(n)
            )
            context += (("barrel", left),)
        if any(self.on_barrel) or max(self.scores) + MAX_BID >= BARREL_AT:
            # From here a deal can end on the barrel: points beyond 880 are lost and a
            # climber pushes a sitter off, so what the deal is worth depends on them.
            context += (("scores", tuple(self.scores)),)
        return DealSpec(
            GAME_ID,
            tuple(range(n)),
            (self.first_dealer + self.played) % n,
            len(self.results),
            context,
        )

    def start_deal(
        self,
        spec: DealSpec,
        *,
        seed: bytes | None = None,
        hands: list[list[int]] | None = None,
        talon: list[int] | None = None,
    ) -> TausendDeal:
        from . import start_deal

        return start_deal(
            self.options, spec.dealer, seed=seed, hands=hands, talon=talon, **dict(spec.context)
        )

    def add_result(self, spec: DealSpec, result: DealResult) -> tuple[int, ...]:
        """Apply a deal to the scores; returns each seat's change of score.

        Order (docs/rules/tausend.md): the deal's scores (nothing counts for a player
        on the barrel unless he declared above 120), bolts and their fines, barrel
        attempts, then who climbs onto the barrel and who is pushed off.
        """
        self.results.append(result)
        n = self.players
        self.notes = []
        note = self.notes.append
        if result.reason == "redeal":
            return (0,) * n
        self.played += 1
        before = self.scores[:]
        mult = 2 if result.detail("golden") else 1  # golden round: fines double too
        fine = self.options.barrel_fine * mult
        declarer = result.declarer
        value = result.detail("value", 0)
        assert isinstance(value, int)
        sitting_out = spec.dealer if n == 4 else None
        sitters = [s for s in range(n) if self.on_barrel[s]]

        for s in range(n):
            pts = result.points[s]
            if not self.on_barrel[s]:
                self.scores[s] += pts
            elif s == declarer and value > FREE_BID_LIMIT:
                if result.detail("made"):
                    self.scores[s] = WIN_AT  # the game is won; he leaves the barrel
                    self.winner = s
                    self.on_barrel[s] = False
                    self.climbed.remove(s)
                    note((s, "barrel_won"))
                else:
                    self.scores[s] = BARREL_AT + pts  # 880 − bid (doubled if golden/blind)
                    note((s, "barrel_failed"))
                    self._fall(s)
            elif pts:
                note((s, "barrel_frozen"))

        bolts = result.detail("bolts", ())
        assert isinstance(bolts, tuple)
        for s, count in enumerate(bolts):
            for _ in range(count):
                self.bolts[s] += 1
                if self.bolts[s] == BOLTS_TO_FINE:
                    self.bolts[s] = 0
                    self.scores[s] -= BOLT_FINE * mult
                    note((s, "bolt_fine"))
                    if self.on_barrel[s]:
                        self._fall(s)

        if self.winner is not None:
            self.finished = True
            self.bummerl = [0 if s == self.winner else 1 for s in range(n)]
            # A loser reaching 880 in the winning deal is fixed there too (RULES.md §5):
            # the final scores rank the losers.  Nobody climbs, so nobody is crowded or
            # pushed off: the barrel's room is for attempts that will not be played.
            for s in range(n):
                if s != self.winner and not self.on_barrel[s] and self.scores[s] >= BARREL_AT:
                    self.scores[s] = BARREL_AT
                    note((s, "barrel_climbed"))
        else:
            for s in sitters:
                if self.on_barrel[s] and s != sitting_out:
                    self.attempts[s] += 1
                    if self.attempts[s] >= BARREL_ATTEMPTS:
                        self.scores[s] = BARREL_AT - fine
                        self.notes.append((s, "barrel_attempts"))
                        self._fall(s)
            self._climb(fine)
        return tuple(self.scores[s] - before[s] for s in range(n))

    def _climb(self, fine: int) -> None:
        """Players reaching 880 climb onto the barrel and are fixed at 880; more of them
        at once than there is room for all drop back by the fine; a climber pushes the
        earliest sitter off when the barrel is full (RULES.md §5)."""
        new = [
            s for s in range(self.players) if not self.on_barrel[s] and self.scores[s] >= BARREL_AT
        ]
        if not new:
            return
        if len(new) > self.capacity:
            for s in new:
                self.scores[s] = BARREL_AT - fine
                self.notes.append((s, "barrel_crowded"))
            return
        for s in new:
            self.scores[s] = BARREL_AT
            self.on_barrel[s] = True
            self.attempts[s] = 0
            self.climbed.append(s)
            self.notes.append((s, "barrel_climbed"))
        while len(self.climbed) > self.capacity:
            s = self.climbed[0]
            self.scores[s] = BARREL_AT - fine
            self.notes.append((s, "barrel_pushed_off"))
            self._fall(s)

    def _fall(self, s: int) -> None:
        """Off the barrel; the third fall resets the score to 0 (RULES.md §5)."""
        self.on_barrel[s] = False
        self.attempts[s] = 0
        self.climbed.remove(s)
        self.falls[s] += 1
        if self.falls[s] == FALLS_TO_RESET:
            self.falls[s] = 0
            self.scores[s] = 0
            self.notes.append((s, "barrel_reset"))

    def summary(self) -> dict[str, Any]:
        """The replay's answer (docs/rules/tausend.md, "Replay answer")."""
        return {
            "scores": list(self.scores),
            "bummerl": list(self.bummerl),
            "finished": self.finished,
            "bolts": list(self.bolts),
            "barrel": [
                {
                    "on": self.on_barrel[s],
                    "attempts_left": BARREL_ATTEMPTS - self.attempts[s] if self.on_barrel[s] else 0,
                    "falls": self.falls[s],
                }
                for s in range(self.players)
            ],
            "winner": self.winner,
        }
