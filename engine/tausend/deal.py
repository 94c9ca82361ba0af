"""The rules core of one Thousand deal (RULES.md §5, §6): ints and masks, stepped in place.

`TausendDeal` follows `engine.protocol.DealCore`: `legal()` lists int action codes,
`step()` applies one without checks, `copy()` is cheap.  The phases run in the order
of RULES.md §5 — bidding, stock shown and taken, give (or, with two players, discard
onto the other stock), raise, play — and one method per step moves the deal on
(`_settle`, `_take_stock`, `_after_gives`, `_raise`, `_finish`, `_redeal`); the phase
numbers are in `engine.tausend.rules`.

One seat acts at a time, so the three redeal claims of §5 are offered as a `redeal`
action to the one seat that may make them, at a decision it has anyway
(docs/rules/tausend.md): a seat holding four 9s at the bidding turn it first sees its
hand; the declarer with two 9s in the stock before his first give; a receiver of a 9
who then holds four 9s, and in the golden round (no bidding) a holder of four 9s, at
its next decision.  A turn of its own would tell the table who holds the four 9s.

What an AI sampling hidden cards needs: `hands` (masks), `stock` (the stock as dealt,
public once `taken`), `pile` (two players: the face-down stock, later with the
declarer's 3 laid cards), `given` (which card the declarer gave to whom: the giver and
the receiver know it).  The rest is public.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import TYPE_CHECKING

from .. import actions as A
from ..actions import Action
from ..cards import CARDS, MARRIAGE_MASK, POINTS, Rank, Suit, card_index, cards_of
from ..events import (
    BidMade,
    CardGiven,
    CardPlayed,
    ContractSettled,
    DealEnded,
    Discarded,
    HandShown,
    MarriageDeclared,
    Passed,
    Raised,
    Redealt,
    TalonTaken,
    TrickTaken,
)
from ..protocol import DealCore
from ..results import DealResult
from ..tricks import STRENGTH, Order, allowed_mask, best_in_trick
from . import faces
from .dealing import active_seats
from .rules import (
    BIDDING,
    DISCARD,
    FREE_BID_LIMIT,
    GAME_ID,
    GIVE,
    GOLDEN_BID,
    MARRIAGE_VALUE,
    MAX_BID,
    NINES_MASK,
    OPENING_BID,
    OVER,
    PLAY,
    RAISE,
    TausendOptions,
    holds_marriage,
    round5,
    stock_value,
)

if TYPE_CHECKING:
    from ..views import SeatView

_STRENGTH = STRENGTH[Order.NORMAL]
_KING_QUEEN = tuple(
    (card_index(s, Rank.KING), card_index(s, Rank.QUEEN), MARRIAGE_MASK[s]) for s in range(4)
)
_BID_OPEN = A.BID_VALUE + OPENING_BID // 5
_BID_FREE = A.BID_VALUE + FREE_BID_LIMIT // 5
_BID_MAX = A.BID_VALUE + MAX_BID // 5
_RAISE_FREE = A.RAISE + FREE_BID_LIMIT // 5
_RAISE_MAX = A.RAISE + MAX_BID // 5

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


class TausendDeal(DealCore):
    """One deal of Thousand for 2, 3 or 4 players (the fourth, the dealer, sits out).

    Card points (`cpoints`) and marriage points (`mpoints`) are kept per seat; a
    marriage can only be declared by a seat with a trick, so both always count.
    `value` is the contract (the winning bid, then the final raise); `mult` doubles
    the declarer's result in the golden round and for a blind bid, `gmult` everybody's
    in the golden round.
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

    def copy(self) -> TausendDeal:
        d = TausendDeal.__new__(TausendDeal)
        d.log = None
        d.turn = self.turn
        d.setup = self.setup
        d.players = self.players
        d.phase = self.phase
        d.hands = self.hands[:]
        d.stock = self.stock
        d.taken = self.taken
        d.pile = self.pile
        d.laid = self.laid
        d.high = self.high
        d.high_seat = self.high_seat
        d.high_blind = self.high_blind
        d.passed = self.passed
        d.first_seen = self.first_seen
        d.looked = self.looked
        d.auction = self.auction
        d.declarer = self.declarer
        d.value = self.value
        d.mult = self.mult
        d.blind = self.blind
        d.opp_mask = self.opp_mask
        d.given = self.given[:]
        d.to_give = self.to_give
        d.stock_claim = self.stock_claim
        d.nine_claim = self.nine_claim
        d.trump = self.trump
        d.trick = self.trick[:]
        d.leader = self.leader
        d.won = self.won[:]
        d.tricks = self.tricks[:]
        d.cpoints = self.cpoints[:]
        d.mpoints = self.mpoints[:]
        d.marriages = self.marriages
        d.shown = self.shown[:]
        d.history = self.history
        d.last_winner = self.last_winner
        d.res = self.res
        d.dealt = self.dealt
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
        self.res = res
        self.phase = OVER
        self.turn = -1
        if self.log is not None:
            self.log.append(DealEnded(res))

    # --- the public faces (engine.tausend.faces) ---------------------------------------

    def result(self) -> DealResult | None:
        return self.res

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
