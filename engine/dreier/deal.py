"""The rules core of one Dreierschnapsen deal (RULES.md §1, §3, §6): ints and masks.

`DreierDeal` follows `engine.protocol.DealCore`: `legal()` lists int action codes,
`step()` applies one in place (no checks), `copy()` is cheap.  The phases run in the
order of RULES.md §3 — trump, bidding, discard, doubling (Spritzen), play — and one
method per phase moves the deal on (`_settle`, `_start_doubling`, `_start_play`,
`_end`), so phase transitions live in one place each.

The core is one object built from one part per stretch of the deal, over the state
they share (`state.DreierState`: the slots and what each holds):

- `auction.Auction`: naming trumps and bidding, up to `_settle`;
- `talon.Talon`: the declarer's discard, with a raise;
- `doubling.Doubling`: Spritzen;
- `play.Play`: tricks, marriages, claims and the score.

This module puts them together: starting and copying a deal, and the two entry points
`legal` and `step`, which hand each phase to its part.  The legal cards in the play
are listed here, inline: `legal()` runs at every step of the AI's simulated deals, and
play is most of those steps, so it calls no other method there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .. import actions as A
from ..actions import Action
from ..cards import MARRIAGE_MASK, Rank, card_index, cards_of, mask_of
from ..results import DealResult
from ..tricks import Order, allowed_mask
from .auction import Auction
from .contracts import CONTRACT_IDS, CONTRACTS, NORMAL, Goal
from .doubling import Doubling
from .options import GAME_ID, DreierOptions
from .play import Play
from .rules import BIDDING, DISCARD, DOUBLING, PLAY, TRUMP, bid_tables
from .talon import Talon

if TYPE_CHECKING:
    from ..views import SeatView

_KING_QUEEN = tuple(
    (card_index(s, Rank.KING), card_index(s, Rank.QUEEN), MARRIAGE_MASK[s]) for s in range(4)
)


class DreierDeal(
    Auction,
    Talon,
    Doubling,
    Play,
    own_lists=("hands", "points", "mpoints", "tricks", "won", "shown"),
):
    """One deal of Dreierschnapsen, seats 0..2 clockwise; forehand = dealer + 1.

    Its state, and how bids are compared, is described in `state.DreierState`.
    """

    __slots__ = ()

    game = GAME_ID
    players = 3
    contracts = CONTRACT_IDS

    @classmethod
    def start(
        cls,
        opts: DreierOptions,
        dealer: int,
        hands: Sequence[Sequence[int]],
        talon: Sequence[int],
    ) -> DreierDeal:
        """A deal from explicit cards: `hands[i]` in dealing order, first packet first."""
        d = cls.__new__(cls)
        d.log = None
        d.opts = opts
        d.auto = opts.auto_claim
        d.dealer = dealer
        d.fh = (dealer + 1) % 3
        _, others, forehand = bid_tables(opts)
        d.bid_rows = (others, forehand)
        d.dealt = (tuple(hands[0]), tuple(hands[1]), tuple(hands[2]), tuple(talon))
        d.hands = [mask_of(hands[0]), mask_of(hands[1]), mask_of(hands[2])]
        d.talon = mask_of(talon)
        d.taken = 0
        d.discard = 0
        d.discarded = False
        d.phase = TRUMP
        d.turn = d.fh
        d.trump = -1
        d.trump_card = -1
        d.bids = ()
        d.passed = 0
        d.high_key = -1
        d.high_seat = -1
        d.all_passed = False
        d.contract = None
        d.decl = -1
        d.wt = False
        d.defs = (-1, -1)
        d.mult = 1
        d.dbl_pos = 0
        d.spritzen = ()
        d.ptrump = -1
        d.strength = CONTRACTS[NORMAL].strength
        d.order = Order.NORMAL
        d.leader = -1
        d.trick = ()
        d.ntricks = 0
        d.points = [0, 0, 0]
        d.mpoints = [0, 0, 0]
        d.tricks = [0, 0, 0]
        d.won = [0, 0, 0]
        d.played = ()
        d.first_tricks = (None, None)
        d.shown = [0, 0, 0]
        d.marriages = ()
        d.hand_shown = False
        d.res = None
        return d

    # --- legal actions -------------------------------------------------------------

    def legal(self) -> list[int]:
        phase = self.phase
        if phase == PLAY:
            seat = self.turn
            hand = self.hands[seat]
            trick = self.trick
            if trick:
                return list(cards_of(allowed_mask(hand, trick, self.ptrump, self.order)))
            out = list(cards_of(hand))
            c = self.contract
            assert c is not None
            if c.marriages and (c.goal is Goal.GAME or seat == self.decl):
                for king, queen, mm in _KING_QUEEN:
                    if hand & mm == mm:
                        out.append(king | A.MARRIAGE_FLAG)
                        out.append(queen | A.MARRIAGE_FLAG)
            if not self.auto and c.goal is Goal.GAME:
                out.extend(A.with_marriage_claims(out))
                out.append(A.CLAIM)
            return out
        if phase == BIDDING:
            return self._legal_bids(self.turn)
        if phase == DOUBLING:
            return [A.DOUBLE, A.PASS]
        if phase == DISCARD:
            return self._legal_discards()
        if phase == TRUMP:
            return self._legal_trumps()
        return []

    # --- applying ----------------------------------------------------------------------

    def step(self, code: int) -> None:
        seat = self.turn
        phase = self.phase
        if code < A.EXCHANGE:
            self._play(seat, code & 31, code & A.MARRIAGE_FLAG)
        elif phase == BIDDING:
            if code == A.PASS:
                self._bid_pass(seat)
            else:
                self._bid(seat, code)
        elif phase == DOUBLING:
            if code == A.DOUBLE:
                self._double(seat)
            else:
                self._double_pass(seat)
        elif phase == DISCARD:
            self._discard(seat, code)
        elif code == A.CLAIM:
            self._claim(seat)
        elif A.is_marriage_claim(code):
            self._play(seat, code & 31, A.MARRIAGE_FLAG)  # declare it, then claim (§1)
            if self.res is None:
                self._claim(seat)
        elif phase == TRUMP:
            self._choose_trump(seat, code)
        else:  # pragma: no cover - legal() never offers anything else
            raise ValueError(f"not a dreier action now: {code}")

    # --- the public faces ----------------------------------------------------------

    def result(self) -> DealResult | None:
        return self.res

    def explain(self, seat: int, action: Action, code: int) -> tuple[str, str]:
        from .explain import explain

        return explain(self, seat, action, code)

    def view(self, seat: int | None) -> SeatView:
        from .view import seat_view

        return seat_view(self, seat)

    def locations(self) -> dict[str, int]:
        trick = 0
        for c in self.trick:
            trick |= 1 << c
        return {
            "hand0": self.hands[0],
            "hand1": self.hands[1],
            "hand2": self.hands[2],
            "talon": self.talon,
            "discard": self.discard,
            "won0": self.won[0],
            "won1": self.won[1],
            "won2": self.won[2],
            "trick": trick,
        }
