"""The card play of a Thousand deal (RULES.md §5): tricks, marriages that set
trumps, and the score of the played-out deal.
"""

from __future__ import annotations

from .. import actions as A
from ..cards import CARDS, POINTS, Suit, cards_of
from ..events import CardPlayed, MarriageDeclared, TrickTaken
from ..results import DealResult
from ..tricks import STRENGTH, Order, best_in_trick
from .rules import MARRIAGE_VALUE, round5, stock_value
from .state import TausendState

_STRENGTH = STRENGTH[Order.NORMAL]


class Play(TausendState):
    """Tricks, marriages and the score of `TausendDeal`."""

    __slots__ = ()

    # --- play --------------------------------------------------------------------------

    def _play(self, seat: int, code: int) -> None:
        card = code & 31
        self.hands[seat] &= ~(1 << card)
        trick = self.trick
        log = self.log
        if not trick:
            self.leader = seat
            if code & A.MARRIAGE_FLAG:
                self._marriage(seat, card)
            elif log is not None:
                log.append(CardPlayed(seat, CARDS[card]))
        elif log is not None:
            log.append(CardPlayed(seat, CARDS[card]))
        trick.append(card)
        seats = self.setup.order[self.leader]
        if len(trick) < len(seats):
            self.turn = seats[len(trick)]
            return
        w = seats[best_in_trick(trick, self.trump, _STRENGTH)]
        pts = 0
        won = 0
        for c in trick:
            pts += POINTS[c]
            won |= 1 << c
        self.cpoints[w] += pts
        self.tricks[w] += 1
        self.won[w] |= won
        played = tuple(zip(seats, trick, strict=True))
        self.history += (played,)
        self.last_winner = w
        self.trick = []
        self.leader = w
        self.turn = w
        if log is not None:
            log.append(TrickTaken(w, tuple((s, CARDS[c]) for s, c in played), pts))
        if not self.hands[w]:
            self._finish(w)

    def _marriage(self, seat: int, card: int) -> None:
        """RULES.md §5: the marriage's suit becomes trumps and its value is scored."""
        suit = card // 6
        value = MARRIAGE_VALUE[suit]
        partner = card ^ 1  # King and Queen sit on adjacent bits (ranks 2 and 3)
        self.trump = suit
        self.mpoints[seat] += value
        self.shown[seat] |= 1 << partner
        self.marriages += ((seat, suit, value),)
        if self.log is not None:
            self.log.append(CardPlayed(seat, CARDS[card], True))
            self.log.append(MarriageDeclared(seat, Suit(suit), value, True, CARDS[partner]))

    # --- the end -------------------------------------------------------------------------

    def _finish(self, last: int) -> None:
        """Score the played-out deal (RULES.md §5).  The match applies bolts' fines and
        the barrel; `points` here are the deal's own scores."""
        n = self.players
        setup = self.setup
        gmult = setup.gmult
        pile = self.pile
        if pile:  # two players: the face-down stock goes to the last trick's winner
            self.won[last] |= pile
            self.cpoints[last] += sum(POINTS[c] for c in cards_of(pile))
            self.pile = 0
        d = self.declarer
        totals = [self.cpoints[s] + self.mpoints[s] for s in range(n)]
        made = totals[d] >= self.value
        pts = [0] * n
        bolts = [0] * n
        pts[d] = self.value * self.mult if made else -self.value * self.mult
        for s in setup.active:
            if s != d:
                pts[s] = round5(totals[s]) * gmult
                if not self.tricks[s]:
                    bolts[s] = gmult  # RULES.md §5: no trick, a bolt (two when golden)
        if n == 4:
            totals[setup.dealer] = stock_value(self.stock)
            pts[setup.dealer] = round5(totals[setup.dealer]) * gmult
        opponents = tuple(s for s in setup.active if s != d)
        self._end(
            DealResult(
                points=tuple(pts),
                winners=(d,) if made else opponents,
                reason="made" if made else "failed",
                contract="bid",
                declarer=d,
                multiplier=self.mult,
                card_points=tuple(totals),
                tricks=tuple(self.tricks),
                details=(
                    ("value", self.value),
                    ("made", made),
                    ("golden", setup.golden),
                    ("blind", self.blind),
                    ("bolts", tuple(bolts)),
                    ("last_trick", last),
                    # turned up for its winner to count: the 3 laid away among them
                    ("face_down_stock", tuple(CARDS[c] for c in cards_of(pile))),
                ),
            )
        )
