"""What a Dreierschnapsen deal holds: `DreierState`, the slots every part of the core shares.

`DreierDeal` (in `deal`) is built from one part per stretch of the deal — `Auction`,
`Talon`, `Doubling`, `Play` — over this state.  `DreierState` declares it once: the
slots (ints, masks and tuples, for speed), what each holds, the facts derived from it
that several parts and the views read, and the end of the deal.  Every part subclasses
it, so `mypy --strict` checks each part against one declaration; the calls one part
makes into another are declared here as stubs that exist only for the type checker.

State for an AI that samples hidden cards: the seats' hands are the masks `hands`,
the talon `talon` (until taken or set aside), the cards out of play `discard`;
`dealt` is only read for the trump choice (first packet, blind index) and records.
Everything else is public or belongs to the declarer (`taken`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..protocol import DealCore
from ..results import DealResult
from ..tricks import Order
from .contracts import Contract
from .options import DreierOptions
from .rules import OVER, BidRow


class DreierState(DealCore):
    """The state of one deal of Dreierschnapsen, seats 0..2 clockwise; forehand = dealer + 1.

    Bidding keeps the best bid as one int `high_key` = row * 6 + without_talon * 3 +
    (2 - priority), so "higher" in RULES.md §3 (row, then without talon, then seat
    priority forehand > middlehand > dealer) is one comparison.
    """

    __slots__ = (
        "all_passed",
        "auto",
        "bid_rows",
        "bids",
        "contract",
        "dbl_pos",
        "dealer",
        "dealt",
        "decl",
        "defs",
        "discard",
        "discarded",
        "fh",
        "first_tricks",
        "hand_shown",
        "hands",
        "high_key",
        "high_seat",
        "leader",
        "marriages",
        "mpoints",
        "mult",
        "ntricks",
        "opts",
        "order",
        "passed",
        "phase",
        "played",
        "points",
        "ptrump",
        "res",
        "shown",
        "spritzen",
        "strength",
        "taken",
        "talon",
        "trick",
        "tricks",
        "trump",
        "trump_card",
        "won",
        "wt",
    )

    opts: DreierOptions
    auto: bool
    dealer: int
    fh: int
    #: What forehand (index 1) and the others (index 0) may bid at this table.
    bid_rows: tuple[tuple[BidRow, ...], tuple[BidRow, ...]]
    dealt: tuple[tuple[int, ...], ...]
    hands: list[int]
    talon: int
    taken: int
    discard: int
    discarded: bool
    phase: int
    trump: int
    trump_card: int
    bids: tuple[tuple[int, int], ...]
    passed: int
    high_key: int
    high_seat: int
    all_passed: bool
    contract: Contract | None
    decl: int
    wt: bool
    defs: tuple[int, int]
    mult: int
    dbl_pos: int
    spritzen: tuple[tuple[int, int], ...]
    ptrump: int
    strength: tuple[int, ...]
    order: Order
    leader: int
    trick: tuple[int, ...]
    ntricks: int
    points: list[int]
    mpoints: list[int]
    tricks: list[int]
    won: list[int]
    #: Every completed trick: (leader, cards in playing order, winner).
    played: tuple[tuple[int, tuple[int, ...], int], ...]
    first_tricks: tuple[tuple[int, tuple[int, ...], int] | None, ...]
    shown: list[int]
    marriages: tuple[tuple[int, int, int], ...]
    hand_shown: bool
    res: DealResult | None

    if TYPE_CHECKING:  # one part calls these on another; never defined at run time
        # doubling (`Doubling`)
        def _start_doubling(self) -> None: ...

        # play (`Play`)
        def _start_play(self) -> None: ...

    # --- derived facts -------------------------------------------------------------

    def priority(self, seat: int) -> int:
        """0 forehand, 1 middlehand, 2 dealer (RULES.md §3: forehand > middlehand > dealer)."""
        return (seat - self.dealer - 1) % 3

    def first_packet(self, seat: int) -> tuple[int, ...]:
        return self.dealt[seat][:3]

    def side_total(self, declarer_side: bool) -> int:
        """A side's card points plus its marriages, which count once the side has a trick."""
        if declarer_side:
            d = self.decl
            return self.points[d] + (self.mpoints[d] if self.tricks[d] else 0)
        a, b = self.defs
        total = self.points[a] + self.points[b]
        if self.tricks[a] or self.tricks[b]:
            total += self.mpoints[a] + self.mpoints[b]
        return total

    def side_tricks(self, declarer_side: bool) -> int:
        if declarer_side:
            return self.tricks[self.decl]
        a, b = self.defs
        return self.tricks[a] + self.tricks[b]

    # --- the end -------------------------------------------------------------------

    def _end(self, res: DealResult) -> None:
        """The deal is over (a redeal, or a contract decided): the one way to OVER."""
        self.res = res
        self.phase = OVER
        self._over(res)
