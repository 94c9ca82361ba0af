"""The rules core of one Thousand deal (RULES.md §5, §6): ints and masks, stepped in place.

`TausendDeal` follows `engine.protocol.DealCore`: `legal()` lists int action codes,
`step()` applies one without checks, `copy()` is cheap.  The phases run in the order
of RULES.md §5 — bidding, stock shown and taken, give (or, with two players, discard
onto the other stock), raise, play — and one method per step moves the deal on
(`_settle`, `_take_stock`, `_after_gives`, `_raise`, `_finish`, `_redeal`); the phase
numbers are in `engine.tausend.rules`.

The core is one object built from one part per stretch of the deal, over the state
they share (`state.TausendState`: the slots, the facts, the end and the redeal claims):

- `bidding.Bidding`: the auction, up to the stock taken;
- `stock.Stock`: the gives (or the two-player discard) and the raise;
- `play.Play`: tricks, marriages and the score.

This module puts them together: starting and copying a deal, and the two entry points
`legal` and `step`, which hand each phase to its part.  The legal cards in the play
are listed here, inline: `legal()` runs at every step of the AI's simulated deals, and
play is most of those steps, so it calls no other method there.
"""

from __future__ import annotations

from itertools import combinations
from typing import TYPE_CHECKING

from .. import actions as A
from ..actions import Action
from ..cards import MARRIAGE_MASK, Rank, card_index, cards_of
from ..tricks import Order, allowed_mask
from . import faces
from .bidding import Bidding
from .play import Play
from .rules import (
    BIDDING,
    DISCARD,
    FREE_BID_LIMIT,
    GIVE,
    GOLDEN_BID,
    MAX_BID,
    NINES_MASK,
    PLAY,
    RAISE,
    TausendOptions,
    holds_marriage,
)
from .state import Setup
from .stock import Stock

if TYPE_CHECKING:
    from ..views import SeatView

_KING_QUEEN = tuple(
    (card_index(s, Rank.KING), card_index(s, Rank.QUEEN), MARRIAGE_MASK[s]) for s in range(4)
)
_RAISE_FREE = A.RAISE + FREE_BID_LIMIT // 5
_RAISE_MAX = A.RAISE + MAX_BID // 5


class TausendDeal(
    Bidding,
    Stock,
    Play,
    own_lists=("hands", "given", "trick", "won", "tricks", "cpoints", "mpoints", "shown"),
):
    """One deal of Thousand for 2, 3 or 4 players (the fourth, the dealer, sits out):
    the parts put together (`state.TausendState` says what each slot holds)."""

    __slots__ = ()

    @classmethod
    def start(
        cls,
        opts: TausendOptions,
        dealer: int,
        hands: list[list[int]] | tuple[tuple[int, ...], ...],
        talon: list[int] | tuple[int, ...],
        golden: bool = False,
        barrel: tuple[int, ...] = (),
        scores: tuple[int, ...] = (),
    ) -> TausendDeal:
        """A deal from checked cards (`engine.tausend.start_deal` checks them).

        `golden`: the match says this deal is in the golden round (RULES.md §5):
        forehand plays 120 without bidding and every score counts double.  `barrel`:
        each seat's deals left on the barrel (`Setup.barrel`); `scores`: the match
        scores (`Setup.scores`).
        """
        d = cls.__new__(cls)
        n = opts.players
        d.log = None
        setup = d.setup = Setup.of(opts, dealer, golden, tuple(talon[:3]), barrel, scores)
        act = setup.active
        d.players = n
        d.hands = [sum(1 << c for c in h) for h in hands]
        d.stock = sum(1 << c for c in talon[:3])
        d.pile = sum(1 << c for c in talon[3:])
        d.laid = 0
        d.taken = False
        d.high = 0
        d.high_seat = -1
        d.high_blind = False
        d.passed = 0
        d.first_seen = 0
        d.looked = 0 if setup.blind_ok else setup.active_mask
        d.auction = ()
        d.declarer = -1
        d.value = 0
        d.mult = setup.gmult
        d.blind = False
        d.opp_mask = 0
        d.given = [0] * n
        d.to_give = 0
        d.stock_claim = False
        d.nine_claim = 0
        d.trump = -1
        d.trick = []
        d.leader = act[0]
        d.won = [0] * n
        d.tricks = [0] * n
        d.cpoints = [0] * n
        d.mpoints = [0] * n
        d.marriages = ()
        d.shown = [0] * n
        d.history = ()
        d.last_winner = -1
        d.res = None
        d.dealt = (*(tuple(h) for h in hands), tuple(talon))
        d.phase = BIDDING
        d.turn = act[0]
        if golden:
            # RULES.md §5: no bidding; forehand is the declarer at 120.  Four 9s may still
            # be claimed, by the holder at his first decision.
            d.high, d.high_seat = GOLDEN_BID, act[0]
            d._set_declarer(act[0])
            d.nine_claim = sum(1 << s for s in act if d.hands[s] & NINES_MASK == NINES_MASK)
            d._take_stock()
        return d

    # --- the fast path -----------------------------------------------------------------

    def legal(self) -> list[int]:
        turn = self.turn
        if turn < 0:
            return []
        phase = self.phase
        hand = self.hands[turn]
        if phase == PLAY:
            trick = self.trick
            if trick:
                # RULES.md §5: follow suit, else trump, else any; no duty to beat.
                out = list(cards_of(allowed_mask(hand, trick, self.trump, Order.NORMAL, False)))
            else:
                out = list(cards_of(hand))
                if self.tricks[turn]:
                    for king, queen, mm in _KING_QUEEN:
                        if hand & mm == mm:
                            out.append(king | A.MARRIAGE_FLAG)
                            out.append(queen | A.MARRIAGE_FLAG)
            if self.nine_claim >> turn & 1:
                out.append(A.REDEAL)
            return out
        if phase == BIDDING:
            return self._legal_bidding(turn, hand)
        if phase == GIVE:
            out = []
            cards = cards_of(hand)
            for o in self.setup.active:
                if self.to_give >> o & 1:
                    base = A.GIVE + 32 * o
                    out.extend(base + c for c in cards)
            if self.stock_claim or self.nine_claim >> turn & 1:
                out.append(A.REDEAL)
            return out
        if phase == RAISE:
            cap = _RAISE_MAX if holds_marriage(hand) else _RAISE_FREE
            keep = A.RAISE + self.value // 5
            return [keep, *range(keep + 1, cap + 1)]
        if phase == DISCARD:
            out = [
                A.DISCARD3 + a + 32 * b + 1024 * c for a, b, c in combinations(cards_of(hand), 3)
            ]
            if self.stock_claim or self.nine_claim >> turn & 1:
                out.append(A.REDEAL)
            return out
        return []  # pragma: no cover - OVER has turn -1

    def step(self, code: int) -> None:
        seat = self.turn
        phase = self.phase
        if self.nine_claim:
            if code == A.REDEAL:
                self._redeal(seat)
                return
            self.nine_claim &= ~(1 << seat)  # a four-9s claim is made at once or not at all
        if phase == PLAY:
            self._play(seat, code)
        elif code == A.REDEAL:
            self._redeal(seat)
        elif phase == BIDDING:
            self._bid(seat, code)
        elif phase == GIVE:
            self._give(seat, code)
        elif phase == RAISE:
            self._raise(seat, code)
        elif phase == DISCARD:
            self._discard(seat, code)
        else:  # pragma: no cover - legal() never offers anything else
            raise ValueError(f"not a tausend action now: {code}")

    # --- the public faces (engine.tausend.faces) ---------------------------------------

    def explain(self, seat: int, action: Action, code: int) -> tuple[str, str]:
        return faces.explain(self, seat, action, code)

    def view(self, seat: int | None) -> SeatView:
        return faces.view(self, seat)

    def locations(self) -> dict[str, int]:
        out = {f"hand{s}": self.hands[s] for s in range(self.players)}
        out["stock"] = 0 if self.taken else self.stock
        if self.players == 2:
            out["stock2"] = self.pile  # the face-down stock (and the 3 laid cards)
        out["trick"] = sum(1 << c for c in self.trick)
        for s in range(self.players):
            out[f"won{s}"] = self.won[s]
        return out
