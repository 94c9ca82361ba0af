"""The card play of a Bauernschnapsen deal (RULES.md §1, §4): tricks, marriages, and
what each kind of contract needs of its tricks.
"""

from __future__ import annotations

from .. import actions as A
from ..cards import CARDS, POINTS, Suit
from ..events import CardPlayed, MarriageDeclared, TrickTaken
from ..tricks import best_in_trick
from .rules import SCHNAPSER_TRICKS, TARGET, TRICKS
from .state import K_BETTLER, K_NORMAL, K_SCHNAPSER, BauernState


class Play(BauernState):
    """Tricks and marriages of `BauernDeal`."""

    __slots__ = ()

    # --- play ----------------------------------------------------------------------------

    def _play(self, code: int) -> None:
        seat = self.turn
        card = code & 31
        self.hands[seat] &= ~(1 << card)
        trick = (*self.trick, card)
        self.trick = trick
        log = self.log
        if log is not None:
            log.append(CardPlayed(seat, CARDS[card], bool(code & A.MARRIAGE_FLAG)))
        n = len(trick)
        if n == 1:
            self.leader = seat
            if code & A.MARRIAGE_FLAG and self._marry(seat, card):
                return
        if n < self.nplay:
            self.turn = self.rota[self.leader][n]
            return
        self._trick_done(trick)

    def _marry(self, seat: int, card: int) -> bool:
        """Declare a marriage on the lead; True when it ends the deal (§1, §4)."""
        suit = card // 6
        points = 40 if suit == self.ptrump else 20
        self.mpoints[seat] += points
        partner = card ^ 1  # King and Queen sit on adjacent bits (engine.cards)
        self.shown |= 1 << partner
        self.marriages += ((seat, suit, points),)
        counted = self.team_has_trick(seat)
        if self.log is not None:
            self.log.append(MarriageDeclared(seat, Suit(suit), points, counted, CARDS[partner]))
        if not counted:
            return False
        if self.kind == K_SCHNAPSER:
            # Only the declarer marries in a Schnapser; 66 wins at once (§4).
            if self.seat_total(seat) >= TARGET:
                self._finish(seat & 1, "reached_66")
                return True
        elif self.auto and self.team_total(seat & 1) >= TARGET:
            # §1: claimed at once; the led card stays, its trick counts for nobody.
            self._win_normal(seat & 1, seat)
            return True
        return False

    def _trick_done(self, trick: tuple[int, ...]) -> None:
        leader = self.leader
        order = self.rota[leader]
        w = order[best_in_trick(trick, self.ptrump, self.strength)]
        pts = 0
        mask = 0
        for c in trick:
            pts += POINTS[c]
            mask |= 1 << c
        self.points[w] += pts
        self.tricks[w] += 1
        self.won[w] |= mask
        self.ntricks += 1
        self.played += ((leader, trick, w),)
        self.trick = ()
        self.leader = w
        self.turn = w
        if self.log is not None:
            self.log.append(
                TrickTaken(w, tuple((order[i], CARDS[c]) for i, c in enumerate(trick)), pts)
            )
        kind = self.kind
        d = self.declarer
        if kind == K_NORMAL:
            if self.ntricks == TRICKS:
                # §4: nobody claimed before the last trick: its winner's team wins 1.
                self._finish(w & 1, "last_trick", 1)
            elif self.auto and self.team_total(w & 1) >= TARGET:
                self._win_normal(w & 1, -1)
        elif kind == K_BETTLER:
            if w == d:
                self._finish(1 - (d & 1), "took_trick")
            elif self.ntricks == TRICKS:
                self._finish(d & 1, "no_trick")
        elif w != d:
            # Schnapser and all-tricks contracts: a trick taken by anyone else (the
            # partner included) loses at once (§1, §4).
            self._finish(1 - (d & 1), "lost_trick")
        elif kind == K_SCHNAPSER:
            if self.seat_total(d) >= TARGET:
                self._finish(d & 1, "reached_66")
            elif self.ntricks == SCHNAPSER_TRICKS:
                self._finish(1 - (d & 1), "under_66")
        elif self.ntricks == TRICKS:
            self._finish(d & 1, "all_tricks")
