"""The auction of a Bauernschnapsen deal (RULES.md §4, §6): naming trumps, bidding,
and Kontra / Rekontra / Subkontra.

Forehand names a suit from his first packet or turns up card 3 or 4; then forehand
opens (no pass) and the others bid higher, bid equal with higher priority, or pass
for good.  `_settle` ends the auction: a shown contract wins at once, any other goes
to the doubling rounds and then to the play (`play`).
"""

from __future__ import annotations

from .. import actions as A
from ..cards import CARDS, Suit, cards_of
from ..events import BidMade, ContractSettled, Doubled, HandShown, Passed, TrumpChosen
from ..tricks import NO_TRUMP, STRENGTH
from .rules import (
    BETTLER_TOP_ROW,
    BIDDING,
    CONTRACT_IDS,
    CONTRACTS,
    DOUBLING,
    NORMAL_ROW,
    PLAY,
    BauernOptions,
    Holding,
    Kind,
    enabled,
)
from .state import ACES, BID, KINDS, ROTA_WITHOUT, SEATS, SUIT5, BauernState

# Rows that need a holding, by holding.
_HOLDING_ROWS = {
    h: sum(1 << row for row, c in enumerate(CONTRACTS) if c.holding == h) for h in Holding
}
_ROWS_CACHE: dict[BauernOptions, tuple[int, ...]] = {}


def _rows_by_position(opts: BauernOptions) -> tuple[int, ...]:
    """For each priority position (0 = forehand), the rows it may bid under `opts`,
    before holdings are checked.  Cached: options objects are few and frozen."""
    rows = _ROWS_CACHE.get(opts)
    if rows is None:
        rows = tuple(
            sum(
                1 << row
                for row, c in enumerate(CONTRACTS)
                if c.bidders >> pos & 1 and enabled(c, opts)
            )
            for pos in range(4)
        )
        _ROWS_CACHE[opts] = rows
    return rows


class Auction(BauernState):
    """Trumps, the bidding and the doubling of `BauernDeal`."""

    __slots__ = ()

    def _legal_bids(self, seat: int) -> list[int]:
        high = self.high
        out: list[int] = []
        if high < 0:
            lowest = 0
        else:
            # RULES.md §4: the same contract only with higher priority than its holder.
            fh = self.fh
            lowest = high if (seat - fh) & 3 < (self.holder - fh) & 3 else high + 1
            if lowest <= self.floor:
                lowest = self.floor + 1
        rows = self.biddable[seat] >> lowest
        row = lowest
        while rows:
            if rows & 1:
                out.append(BID + 2 * row)
            rows >>= 1
            row += 1
        if high >= 0:
            out.append(A.PASS)
            if self.may_double_in_auction(seat):
                out.append(A.DOUBLE)
        return out

    # --- trump and auction -------------------------------------------------------------

    def _name_trump(self, code: int) -> None:
        """RULES.md §4: a suit of the first packet, or Aufschlagen (card 3 or 4, shown)."""
        fh = self.fh
        shown_card = None
        if code >= A.TRUMP_BLIND:
            card = self.dealt[fh][code - A.TRUMP_BLIND]
            self.upcard = card
            self.shown |= 1 << card
            self.trump = card // 6
            shown_card = CARDS[card]
        else:
            self.trump = code - A.TRUMP_SUIT
        if self.log is not None:
            self.log.append(TrumpChosen(fh, Suit(self.trump), shown_card))
        self.biddable = tuple(self._biddable(s) for s in SEATS)
        self.phase = BIDDING
        self.turn = fh

    def _biddable(self, seat: int) -> int:
        """Mask of the contract rows `seat` may bid at all: options, seat, holding (§4)."""
        rows = _rows_by_position(self.opts)[(seat - self.fh) & 3]
        hand = self.hands[seat]
        if not hand & ACES:
            rows &= ~_HOLDING_ROWS[Holding.ACE]
        if not any(hand & m == m for m in SUIT5):
            rows &= ~_HOLDING_ROWS[Holding.FULL_SUIT]
        if hand & SUIT5[self.trump] != SUIT5[self.trump]:
            rows &= ~_HOLDING_ROWS[Holding.ALL_TRUMPS]
        return rows

    def _bid(self, code: int) -> None:
        seat = self.turn
        log = self.log
        self.history += ((seat, code),)
        if code == A.PASS:
            self.passed |= 1 << seat
            if log is not None:
                log.append(Passed(seat))
        elif code == A.DOUBLE:
            # Kontra over a Bettler: forehand's normal game stands, doubled, and no
            # Bettler may be bid again (docs/rules/bauern.md).
            self.high = NORMAL_ROW
            self.holder = self.fh
            self.passed &= ~(1 << self.fh)
            self.mult = 2
            self.floor = BETTLER_TOP_ROW
            if log is not None:
                log.append(Doubled(seat, 2))
        else:
            self.high = (code - BID) >> 1
            self.holder = seat
            self.mult = 1
            if log is not None:
                log.append(BidMade(seat, CONTRACT_IDS[self.high]))
        holder = self.holder
        if self.passed | (1 << holder) == 0b1111:
            self._settle()
            return
        nxt = (seat + 1) & 3
        while self.passed >> nxt & 1 or nxt == holder:
            nxt = (nxt + 1) & 3
        self.turn = nxt

    def _settle(self) -> None:
        """The auction is over: the holder declares his bid (§4)."""
        row = self.high
        c = CONTRACTS[row]
        d = self.holder
        self.row = row
        self.declarer = d
        self.kind = KINDS[row]
        log = self.log
        if log is not None:
            log.append(ContractSettled(d, c.id, trump=Suit(self.trump) if c.trumps else None))
        if c.kind == Kind.SHOWN:
            # Farbengang / Herrenschnapser win on showing the hand: no doubling, no play.
            self.shown |= self.hands[d]
            if log is not None:
                log.append(HandShown(d, tuple(CARDS[x] for x in cards_of(self.hands[d]))))
            self._finish(d & 1, "shown")
            return
        if c.trumps:
            self.ptrump = self.trump
            self.leader = self.fh
        else:
            self.ptrump = NO_TRUMP
            self.leader = d
        self.order = c.order
        self.strength = STRENGTH[c.order]
        if c.partner_sits_out and not self.opts.bettler_partner_plays:
            self.sitting = d ^ 2
            self.rota = ROTA_WITHOUT[d ^ 2]
            self.nplay = 3
        self.phase = DOUBLING
        self.auction_len = len(self.history)  # what follows in `history` is doubling
        # A Kontra said in the auction (kontra_beats_bettler) opens with the Rekontra.
        self._doubling_round(2 if self.mult == 2 else 1)

    def _doubling_round(self, rnd: int) -> None:
        """RULES.md §6: (1) the opponents from forehand on, (2) the declarer, then his
        partner unless he sits out, (3) the opponents again."""
        d = self.declarer
        fh = self.fh
        if rnd == 2:
            queue: tuple[int, ...] = (d,) if self.sitting >= 0 else (d, d ^ 2)
        else:
            a, b = (d + 1) & 3, (d + 3) & 3
            queue = (a, b) if (a - fh) & 3 < (b - fh) & 3 else (b, a)
        self.dbl_round = rnd
        self.dbl_queue = queue
        self.dbl_pos = 0
        self.turn = queue[0]

    def _double(self, code: int) -> None:
        seat = self.turn
        self.history += ((seat, code),)
        log = self.log
        if code == A.DOUBLE:
            self.mult *= 2
            if log is not None:
                log.append(Doubled(seat, self.mult))
            if self.dbl_round < 3:
                self._doubling_round(self.dbl_round + 1)
                return
        else:
            if log is not None:
                log.append(Passed(seat))
            self.dbl_pos += 1
            if self.dbl_pos < len(self.dbl_queue):
                self.turn = self.dbl_queue[self.dbl_pos]
                return
        self.phase = PLAY
        self.turn = self.leader
