"""The Bauernschnapsen rules core: one deal as ints and masks (RULES.md §1, §4, §6).

`BauernDeal` is stepped in place by the AI and copied by `engine.protocol.apply`.
A deal runs through five phases, one seat acting at a time:

trump    forehand names a suit from his first packet, or turns up card 3 or 4
bidding  forehand opens (no pass), then clockwise: bid higher, bid equal with higher
         priority, or pass for good; over when every player but the holder has passed
doubling Kontra / Rekontra / Subkontra in the order of RULES.md §6
play     five tricks (three players when the Bettler's partner sits out)
over     `res` holds the `DealResult`

What each contract wants is data (`rules.CONTRACTS`); the core only switches on the
contract's `Kind`.  The readable faces (views, refusals) are in `faces.py`.

The core is one object built from one part per stretch of the deal over the state
they share (`state.BauernState`: the slots, the derived facts, claims and the end):
`auction.Auction` (trumps, bidding, doubling) and `play.Play` (tricks, marriages).
This module puts them together: starting and copying a deal, and the two entry
points `legal` and `step`, which hand each phase to its part.  The legal cards in the
play are listed here, inline: `legal()` runs at every step of the AI's simulated deals.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .. import actions as A
from ..cards import cards_of, mask_of
from ..tricks import NO_TRUMP, STRENGTH, Order, allowed_mask
from . import faces
from .auction import Auction
from .play import Play
from .rules import BIDDING, DOUBLING, PLAY, TRUMP, BauernOptions
from .state import K_NORMAL, K_SCHNAPSER, ROTA4, SUIT5

if TYPE_CHECKING:
    from ..actions import Action
    from ..views import SeatView

# Marriage action codes by suit: (K | flag, Q | flag, mask of K and Q).
MARRIAGE_CODES = tuple(
    (6 * s + 2 + A.MARRIAGE_FLAG, 6 * s + 3 + A.MARRIAGE_FLAG, 0b1100 << (6 * s)) for s in range(4)
)


class BauernDeal(Auction, Play, own_lists=("hands", "points", "mpoints", "tricks", "won")):
    """One deal of Bauernschnapsen: the parts put together (`state.BauernState` says
    what each slot holds)."""

    __slots__ = ()

    @classmethod
    def start(cls, opts: BauernOptions, dealer: int, hands: Sequence[Sequence[int]]) -> BauernDeal:
        """A deal from explicit hands, each in dealing order (first packet of 3 first)."""
        d = cls.__new__(cls)
        d.log = None
        d.opts = opts
        d.auto = opts.auto_claim
        d.dealer = dealer
        d.fh = (dealer + 1) & 3
        d.dealt = (*(tuple(h) for h in hands), ())
        d.hands = [mask_of(h) for h in hands]
        d.phase = TRUMP
        d.turn = d.fh
        d.trump = -1
        d.upcard = -1
        d.history = ()
        d.auction_len = -1
        d.biddable = (0, 0, 0, 0)
        d.passed = 0
        d.high = -1
        d.holder = -1
        d.floor = -1
        d.row = -1
        d.declarer = -1
        d.kind = -1
        d.mult = 1
        d.dbl_round = 0
        d.dbl_queue = ()
        d.dbl_pos = 0
        d.sitting = -1
        d.ptrump = NO_TRUMP
        d.order = Order.NORMAL
        d.strength = STRENGTH[Order.NORMAL]
        d.rota = ROTA4
        d.nplay = 4
        d.trick = ()
        d.leader = d.fh
        d.points = [0, 0, 0, 0]
        d.mpoints = [0, 0, 0, 0]
        d.tricks = [0, 0, 0, 0]
        d.won = [0, 0, 0, 0]
        d.ntricks = 0
        d.played = ()
        d.shown = 0
        d.marriages = ()
        d.res = None
        return d

    # --- the fast path -----------------------------------------------------------------

    def legal(self) -> list[int]:
        turn = self.turn
        if turn < 0:
            return []
        phase = self.phase
        if phase == PLAY:
            hand = self.hands[turn]
            trick = self.trick
            if trick:
                return list(cards_of(allowed_mask(hand, trick, self.ptrump, self.order)))
            out = list(cards_of(hand))
            if self.kind == K_NORMAL or (self.kind == K_SCHNAPSER and turn == self.declarer):
                for king, queen, mm in MARRIAGE_CODES:
                    if hand & mm == mm:
                        out.append(king)
                        out.append(queen)
                if self.kind == K_NORMAL and not self.auto:
                    out.extend(A.with_marriage_claims(out))
                    out.append(A.CLAIM)
            return out
        if phase == DOUBLING:
            return [A.DOUBLE, A.PASS]
        if phase == BIDDING:
            return self._legal_bids(turn)
        first = self.hands[turn] & mask_of(self.dealt[turn][:3])
        out = [A.TRUMP_SUIT + s for s in range(4) if first & SUIT5[s]]
        out.append(A.TRUMP_BLIND + 3)
        out.append(A.TRUMP_BLIND + 4)
        return out

    def step(self, code: int) -> None:
        phase = self.phase
        if phase == PLAY:
            if code < 64:
                self._play(code)
            elif A.is_marriage_claim(code):
                seat = self.turn
                self._play(code & 63)  # declare it by leading the card, then claim (§1)
                if self.res is None:
                    self._claim(seat)
            else:
                self._claim(self.turn)
        elif phase == BIDDING:
            self._bid(code)
        elif phase == DOUBLING:
            self._double(code)
        else:
            self._name_trump(code)

    # --- the public faces ----------------------------------------------------------------

    def explain(self, seat: int, action: Action, code: int) -> tuple[str, str]:
        return faces.explain(self, seat, action, code)

    def view(self, seat: int | None) -> SeatView:
        return faces.view(self, seat)

    def locations(self) -> dict[str, int]:
        h = self.hands
        w = self.won
        return {
            "hand0": h[0],
            "hand1": h[1],
            "hand2": h[2],
            "hand3": h[3],
            "trick": mask_of(self.trick),
            "won0": w[0],
            "won1": w[1],
            "won2": w[2],
            "won3": w[3],
        }
