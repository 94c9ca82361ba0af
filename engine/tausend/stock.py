"""Between the auction and the play of a Thousand deal (RULES.md §5): the declarer
gives a card to each other player (or, with two players, lays 3 cards on the other
stock), then states his final bid.
"""

from __future__ import annotations

from .. import actions as A
from ..cards import CARDS
from ..events import CardGiven, Discarded, Raised
from .rules import NINES_MASK, PLAY, RAISE
from .state import TausendState


class Stock(TausendState):
    """The gives, the two-player discard and the raise of `TausendDeal`."""

    __slots__ = ()

    # --- give, discard, raise ---------------------------------------------------------

    def _give(self, seat: int, code: int) -> None:
        to, card = divmod(code - A.GIVE, 32)
        bit = 1 << card
        self.hands[seat] &= ~bit
        self.hands[to] |= bit
        self.given[to] |= bit
        self.to_give &= ~(1 << to)
        self.stock_claim = False
        if self.log is not None:
            self.log.append(CardGiven(seat, to, CARDS[card]))
        if not self.to_give:
            self._after_gives()

    def _after_gives(self) -> None:
        """RULES.md §5: a receiver of a 9 who now holds four 9s may claim a redeal, at
        his first card (`nine_claim`); the declarer states his final bid first."""
        hands = self.hands
        for o in self.setup.active:
            if self.given[o] & NINES_MASK and hands[o] & NINES_MASK == NINES_MASK:
                self.nine_claim |= 1 << o
        self.phase = RAISE
        self.turn = self.declarer

    def _discard(self, seat: int, code: int) -> None:
        """Two players: the declarer lays 3 cards face down on the other stock."""
        rest, a = divmod(code - A.DISCARD3, 32)
        c, b = divmod(rest, 32)
        mask = (1 << a) | (1 << b) | (1 << c)
        self.hands[seat] &= ~mask
        self.pile |= mask
        self.laid = mask
        self.stock_claim = False
        self.to_give = 0
        if self.log is not None:
            self.log.append(Discarded(seat, (CARDS[a], CARDS[b], CARDS[c]), 3))
        self.phase = RAISE

    def _raise(self, seat: int, code: int) -> None:
        self.value = (code - A.RAISE) * 5
        if self.log is not None:
            self.log.append(Raised(seat, value=self.value))
        self.phase = PLAY
        self.leader = seat
        self.turn = seat  # RULES.md §5: the declarer leads first
