"""The auction of a Dreierschnapsen deal (RULES.md §3): naming trumps, then bidding.

Forehand names trumps from his first packet (or turns a blind card of the second),
then the seats bid contracts from the table in `contracts`, or pass.  The auction
ends in `_settle`: the declarer takes the talon (`talon`) or, without it, the
deal goes straight to Spritzen (`doubling`).
"""

from __future__ import annotations

from .. import actions as A
from ..cards import CARDS, Rank, Suit, cards_of
from ..events import BidMade, ContractSettled, Passed, Redealt, TalonTaken, TrumpChosen
from ..results import DealResult
from .contracts import CONTRACT_IDS, CONTRACTS, NORMAL, Holding, holds
from .rules import BIDDING, DISCARD, has_talon
from .state import DreierState

_JACK = int(Rank.JACK)
_BLIND = (3, 4, 5)  # RULES.md §6: `blind` indexes the hand as dealt; the second packet


class Auction(DreierState):
    """The trump choice and the bidding of `DreierDeal`."""

    __slots__ = ()

    # --- legal actions ---------------------------------------------------------------

    def _legal_trumps(self) -> list[int]:
        first = self.first_packet(self.fh)
        out = [A.TRUMP_SUIT + s for s in sorted({c // 6 for c in first})]
        out += [A.TRUMP_BLIND + i for i in _BLIND]
        if all(c % 6 == _JACK for c in first):
            out.append(A.REDEAL)
        return out

    def _legal_bids(self, seat: int) -> list[int]:
        opening = not self.bids
        out: list[int] = []
        if not (opening and not self.opts.caller_first):
            out.append(A.PASS)  # forehand may not pass the opening (forehand_must_bid)
        hand = self.hands[seat]
        trump = self.trump
        bonus = 2 - self.priority(seat)
        hk = self.high_key
        for row, c, wt_ok in self.bid_rows[seat == self.fh]:
            key = row * 6 + bonus
            if key + 3 <= hk:
                continue
            if c.holding is not Holding.NONE and not holds(c, hand, trump):
                continue
            if key > hk:
                out.append(A.BID_CONTRACT + 2 * row)
            if wt_ok:
                out.append(A.BID_CONTRACT + 2 * row + 1)
        return out

    # --- trump -----------------------------------------------------------------------

    def _choose_trump(self, seat: int, code: int) -> None:
        log = self.log
        if code == A.REDEAL:
            if log is not None:
                log.append(Redealt(seat, "three_jacks"))
            self._end(
                DealResult(points=(0, 0, 0), winners=(), reason="redeal", multiplier=1),
            )
            return
        if code >= A.TRUMP_BLIND:
            card = self.dealt[seat][code - A.TRUMP_BLIND]
            self.trump = card // 6
            self.trump_card = card
            self.shown[seat] |= 1 << card
            if log is not None:
                log.append(TrumpChosen(seat, Suit(self.trump), CARDS[card]))
        else:
            self.trump = code - A.TRUMP_SUIT
            if log is not None:
                log.append(TrumpChosen(seat, Suit(self.trump)))
        self.phase = BIDDING
        self.turn = self.fh

    # --- bidding ---------------------------------------------------------------------

    def _bid(self, seat: int, code: int) -> None:
        row, wt = divmod(code - A.BID_CONTRACT, 2)
        self.high_key = row * 6 + wt * 3 + 2 - self.priority(seat)
        self.high_seat = seat
        opening = not self.bids
        self.bids += ((seat, code),)
        if self.log is not None:
            self.log.append(BidMade(seat, CONTRACT_IDS[row], bool(wt)))
        if opening and self.opts.caller_first:
            self._settle(seat)  # the caller announced: the others do not bid (§3)
        else:
            self._next_bidder(seat)

    def _bid_pass(self, seat: int) -> None:
        self.passed |= 1 << seat
        self.bids += ((seat, A.PASS),)
        if self.log is not None:
            self.log.append(Passed(seat))
        self._next_bidder(seat)

    def _next_bidder(self, seat: int) -> None:
        """Bidding ends when two have passed and the third holds the best bid; an
        all-pass (possible only with `caller_first`) gives forehand the normal game."""
        passed = self.passed
        if passed == 7:
            self.all_passed = True
            self.high_key = NORMAL * 6 + 2
            self.high_seat = self.fh
            self._settle(self.fh)
            return
        nxt = (seat + 1) % 3
        while passed >> nxt & 1:
            nxt = (nxt + 1) % 3
        if passed.bit_count() == 2 and nxt == self.high_seat:
            self._settle(nxt)
            return
        self.turn = nxt

    def _settle(self, decl: int) -> None:
        """The auction is over: `decl` plays his best bid; he takes the talon or not."""
        row, rest = divmod(self.high_key, 6)
        wt = rest >= 3
        c = CONTRACTS[row]
        self.contract = c
        self.decl = decl
        self.wt = wt
        fh = self.fh
        order = (fh, (fh + 1) % 3, (fh + 2) % 3)
        a, b = (s for s in order if s != decl)
        self.defs = (a, b)
        log = self.log
        if log is not None:
            trump = Suit(self.trump) if c.trumps else None
            log.append(ContractSettled(decl, c.id, wt, trump=trump))
        if wt or not has_talon(self.opts, c):
            self.discard = self.talon  # set aside unseen: its points count for nobody
            self.talon = 0
            self._start_doubling()
            return
        talon = self.talon
        self.hands[decl] |= talon
        self.taken = talon
        self.talon = 0
        if log is not None:
            log.append(TalonTaken(decl, tuple(CARDS[x] for x in cards_of(talon))))
        self.phase = DISCARD
        self.turn = decl
