"""The auction of a Thousand deal (RULES.md §5), up to the stock shown and taken.

Forehand opens with 100; the others raise by 5s or pass for good, above 120 only
with a marriage in hand; a seat may bid blind before it looks (`blind_bid`).  The
auction ends in `_settle`: the declarer takes the stock, and the deal goes on to
the gives (`stock`).
"""

from __future__ import annotations

from .. import actions as A
from ..cards import CARDS
from ..events import BidMade, ContractSettled, Passed, TalonTaken
from .rules import DISCARD, FREE_BID_LIMIT, GIVE, MAX_BID, NINES_MASK, OPENING_BID, holds_marriage
from .state import TausendState

_BID_OPEN = A.BID_VALUE + OPENING_BID // 5
_BID_FREE = A.BID_VALUE + FREE_BID_LIMIT // 5
_BID_MAX = A.BID_VALUE + MAX_BID // 5


class Bidding(TausendState):
    """The bidding of `TausendDeal`, with the stock taken at its end."""

    __slots__ = ()

    def _legal_bidding(self, seat: int, hand: int) -> list[int]:
        """RULES.md §5: forehand opens with exactly 100; then higher by 5s or pass for
        good; above 120 only with a marriage in hand.  A seat that has not looked
        (blind bidding) may bid up to 120 blind, pass, or look."""
        high = self.high
        if not self.looked >> seat & 1:
            if not high:
                return [A.LOOK, _BID_OPEN]
            return [A.LOOK, A.PASS, *range(A.BID_VALUE + high // 5 + 1, _BID_FREE + 1)]
        if not high:
            out = [_BID_OPEN]
        else:
            cap = _BID_MAX if holds_marriage(hand) else _BID_FREE
            out = [A.PASS, *range(A.BID_VALUE + high // 5 + 1, cap + 1)]
        if not self.first_seen >> seat & 1 and hand & NINES_MASK == NINES_MASK:
            out.append(A.REDEAL)
        return out

    # --- bidding -------------------------------------------------------------------------

    def _bid(self, seat: int, code: int) -> None:
        bit = 1 << seat
        self.auction += ((seat, code),)
        if code == A.LOOK:
            self.looked |= bit
            return
        seen = bool(self.looked & bit)
        if seen:
            self.first_seen |= bit
        log = self.log
        if code == A.PASS:
            self.passed |= bit
            if log is not None:
                log.append(Passed(seat))
        else:
            value = (code - A.BID_VALUE) * 5
            self.high = value
            self.high_seat = seat
            self.high_blind = not seen
            if log is not None:
                log.append(BidMade(seat, value=value))
        left = self.setup.active_mask & ~self.passed
        if not left & (left - 1):  # RULES.md §5: bidding ends when all others have passed
            self._settle(left.bit_length() - 1)
            return
        nxt = self.setup.nxt
        s = nxt[seat]
        while self.passed >> s & 1:
            s = nxt[s]
        self.turn = s

    def _set_declarer(self, seat: int) -> None:
        self.declarer = seat
        self.value = self.high
        self.blind = self.high_blind
        self.mult = self.setup.gmult * (2 if self.high_blind else 1)
        self.opp_mask = self.setup.active_mask & ~(1 << seat)

    def _settle(self, seat: int) -> None:
        self._set_declarer(seat)
        if self.log is not None:
            self.log.append(ContractSettled(seat, "bid", value=self.value))
        self._take_stock()

    def _take_stock(self) -> None:
        """RULES.md §5: the stock is shown to all and taken by the declarer.  With two
        players he takes the first stock; the other stays face down (docs/rules)."""
        d = self.declarer
        self.hands[d] |= self.stock
        self.taken = True
        self.looked = self.setup.active_mask
        self.phase = DISCARD if self.players == 2 else GIVE
        self.to_give = self.opp_mask
        self.stock_claim = (self.stock & NINES_MASK).bit_count() >= 2
        self.turn = d
        if self.log is not None:
            self.log.append(
                TalonTaken(d, tuple(CARDS[c] for c in self.setup.stock_cards), shown=True)
            )
