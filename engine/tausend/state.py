"""What one Thousand deal holds (RULES.md §5): the setup every copy shares, the slots
the parts of the deal share, the facts the faces and the AI read, and the end.

A deal ends in one place, `_end`: played out (`play.Play._finish`) or at a redeal
claim (`_redeal`, at whichever decision it is made).  One seat acts at a time, so the
three redeal claims of §5 are offered as a `redeal` action to the one seat that may
make them, at a decision it has anyway (docs/rules/tausend.md): a seat holding four
9s at the bidding turn it first sees its hand; the declarer with two 9s in the stock
before his first give; a receiver of a 9 who then holds four 9s, and in the golden
round (no bidding) a holder of four 9s, at its next decision.  A turn of its own
would tell the table who holds the four 9s.

What an AI sampling hidden cards needs: `hands` (masks), `stock` (the stock as dealt,
public once `taken`), `pile` (two players: the face-down stock, later with the
declarer's 3 laid cards), `given` (which card the declarer gave to whom: the giver and
the receiver know it).  The rest is public.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..cards import CARDS, cards_of
from ..events import HandShown, Redealt
from ..protocol import DealCore
from ..results import DealResult
from .dealing import active_seats
from .rules import DISCARD, GAME_ID, GIVE, NINES_MASK, OVER, TausendOptions

#: Why a redeal was claimed (DealResult detail ``redeal_reason``, event `Redealt`).
FOUR_NINES = "four_nines"
STOCK_NINES = "stock_nines"
GIVEN_NINE = "given_nine"


@dataclass(frozen=True, slots=True)
class Setup:
    """What does not change during a deal, shared by every copy of it (cheap `copy`).

    `active`: the playing seats clockwise from forehand; `nxt[seat]`: the next playing
    seat; `order[leader]`: the seats of a trick led by `leader`, in playing order;
    `gmult`: 2 in the golden round; `blind_ok`: blind bidding is open.
    `barrel[seat]`: the deals that seat has left on the barrel, this one included (0:
    not on it).  `scores`: the match scores before the deal, given from the time a seat
    could reach the barrel in one deal (else empty).  Both are match context, public:
    nothing in a deal's rules depends on them, but what a deal is worth to a seat does
    (points beyond 880 are lost, a climber pushes a sitter off; the AI reads them).
    """

    opts: TausendOptions
    dealer: int
    active: tuple[int, ...]
    active_mask: int
    nxt: tuple[int, ...]
    order: tuple[tuple[int, ...], ...]
    golden: bool
    gmult: int
    blind_ok: bool
    stock_cards: tuple[int, ...]
    barrel: tuple[int, ...] = ()
    scores: tuple[int, ...] = ()

    @classmethod
    def of(
        cls,
        opts: TausendOptions,
        dealer: int,
        golden: bool,
        stock_cards: tuple[int, ...],
        barrel: tuple[int, ...] = (),
        scores: tuple[int, ...] = (),
    ) -> Setup:
        n = opts.players
        act = active_seats(n, dealer)
        k = len(act)
        nxt = [-1] * n
        order: list[tuple[int, ...]] = [()] * n
        for i, s in enumerate(act):
            nxt[s] = act[(i + 1) % k]
            order[s] = tuple(act[(i + j) % k] for j in range(k))
        return cls(
            opts=opts,
            dealer=dealer,
            active=act,
            active_mask=sum(1 << s for s in act),
            nxt=tuple(nxt),
            order=tuple(order),
            golden=golden,
            gmult=2 if golden else 1,
            blind_ok=opts.blind_bid and not golden,
            stock_cards=stock_cards,
            barrel=barrel if any(barrel) else (),
            scores=scores,
        )


class TausendState(DealCore):
    """One deal of Thousand for 2, 3 or 4 players (the fourth, the dealer, sits out).

    Card points (`cpoints`) and marriage points (`mpoints`) are kept per seat; a
    marriage can only be declared by a seat with a trick, so both always count.
    `value` is the contract (the winning bid, then the final raise); `mult` doubles
    the declarer's result in the golden round and for a blind bid, `gmult` everybody's
    in the golden round.

    The slots and what each holds, shared by the parts of the deal
    (`bidding.Bidding`, `stock.Stock`, `play.Play`) that `deal.TausendDeal` puts
    together.
    """

    __slots__ = (
        "auction",
        "blind",
        "cpoints",
        "dealt",
        "declarer",
        "first_seen",
        "given",
        "hands",
        "high",
        "high_blind",
        "high_seat",
        "history",
        "laid",
        "last_winner",
        "leader",
        "looked",
        "marriages",
        "mpoints",
        "mult",
        "nine_claim",
        "opp_mask",
        "passed",
        "phase",
        "pile",
        "players",
        "res",
        "setup",
        "shown",
        "stock",
        "stock_claim",
        "taken",
        "to_give",
        "trick",
        "tricks",
        "trump",
        "value",
        "won",
    )

    game = GAME_ID

    setup: Setup
    players: int
    phase: int
    hands: list[int]
    stock: int
    taken: bool
    pile: int
    #: Two players: the 3 cards the declarer laid on the face-down stock (he knows them).
    laid: int
    high: int
    high_seat: int
    high_blind: bool
    passed: int
    first_seen: int
    looked: int
    auction: tuple[tuple[int, int], ...]
    declarer: int
    value: int
    mult: int
    blind: bool
    opp_mask: int
    given: list[int]
    to_give: int
    stock_claim: bool
    #: Seats that may claim a redeal for four 9s at their next decision (a receiver of
    #: a fourth 9; in the golden round, a holder of four 9s), as a mask.
    nine_claim: int
    trump: int
    trick: list[int]
    leader: int
    won: list[int]
    tricks: list[int]
    cpoints: list[int]
    mpoints: list[int]
    marriages: tuple[tuple[int, int, int], ...]
    shown: list[int]
    history: tuple[tuple[tuple[int, int], ...], ...]
    last_winner: int
    res: DealResult | None
    dealt: tuple[tuple[int, ...], ...]

    # --- facts for the faces -----------------------------------------------------------

    @property
    def opts(self) -> TausendOptions:
        return self.setup.opts

    @property
    def dealer(self) -> int:
        return self.setup.dealer

    @property
    def active(self) -> tuple[int, ...]:
        return self.setup.active

    @property
    def golden(self) -> bool:
        return self.setup.golden

    @property
    def blind_ok(self) -> bool:
        return self.setup.blind_ok

    @property
    def stock_cards(self) -> tuple[int, ...]:
        """The stock as dealt (with two players: the first stock, the one taken)."""
        return self.setup.stock_cards

    def trick_seats(self) -> tuple[int, ...]:
        """The seats of the cards on the table, in playing order."""
        return self.setup.order[self.leader][: len(self.trick)]

    def total(self, seat: int) -> int:
        """Card points plus declared marriages so far."""
        return self.cpoints[seat] + self.mpoints[seat]

    def stock_in_hand(self) -> bool:
        """Is the whole shown stock still in the declarer's hand (before any give or
        discard)?  Then everybody knows where those cards are."""
        return self.phase in (GIVE, DISCARD) and self.to_give == self.opp_mask

    def result(self) -> DealResult | None:
        return self.res

    # --- the end -------------------------------------------------------------------------

    def _redeal(self, seat: int) -> None:
        """A redeal claim (RULES.md §5): the deal ends and counts for nothing; the same
        dealer deals again (the match sees reason ``"redeal"``)."""
        if self.nine_claim >> seat & 1:
            reason = GIVEN_NINE if self.given[seat] & NINES_MASK else FOUR_NINES
        elif self.phase in (GIVE, DISCARD):
            reason = STOCK_NINES
        else:
            reason = FOUR_NINES
        log = self.log
        if log is not None:
            log.append(Redealt(seat, reason))
            if reason != STOCK_NINES:
                log.append(HandShown(seat, tuple(CARDS[c] for c in cards_of(NINES_MASK))))
        d = self.declarer
        n = self.players
        self._end(
            DealResult(
                points=(0,) * n,
                winners=(),
                reason="redeal",
                contract="bid" if d >= 0 else None,
                declarer=d if d >= 0 else None,
                multiplier=self.mult,
                card_points=(0,) * n,
                tricks=(0,) * n,
                details=(
                    ("redeal_by", seat),
                    ("redeal_reason", reason),
                    ("golden", self.setup.golden),
                    ("bolts", (0,) * n),
                ),
            )
        )

    def _end(self, res: DealResult) -> None:
        """The deal is over (played out, or a redeal claimed): the one way to OVER."""
        self.res = res
        self.phase = OVER
        self._over(res)
