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
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .. import actions as A
from ..cards import CARDS, POINTS, Suit, cards_of, mask_of
from ..events import (
    BidMade,
    CardPlayed,
    Claimed,
    ContractSettled,
    DealEnded,
    Doubled,
    HandShown,
    MarriageDeclared,
    Passed,
    TrickTaken,
    TrumpChosen,
)
from ..protocol import DealCore
from ..results import DealResult
from ..tricks import NO_TRUMP, STRENGTH, Order, allowed_mask, best_in_trick
from . import faces
from .rules import (
    BETTLER_TOP_ROW,
    BIDDING,
    CONTRACT_IDS,
    CONTRACTS,
    DOUBLING,
    GAME_ID,
    NORMAL_ROW,
    OVER,
    PLAY,
    SCHNAPSER_TRICKS,
    TARGET,
    TRICKS,
    TRUMP,
    BauernOptions,
    Holding,
    Kind,
    enabled,
    value,
)

if TYPE_CHECKING:
    from ..actions import Action
    from ..views import SeatView

# Bit masks of the 20-card deck: the five cards of a suit, and the four aces.
SUIT5 = tuple(0b11111 << (6 * s) for s in range(4))
ACES = sum(1 << (6 * s) for s in range(4))
# Contract kinds as plain ints, for the hot paths.
_NORMAL, _BETTLER, _SCHNAPSER = int(Kind.NORMAL), int(Kind.BETTLER), int(Kind.SCHNAPSER)
_KINDS = tuple(int(c.kind) for c in CONTRACTS)
_BETTLER_ROWS = tuple(c.kind == Kind.BETTLER for c in CONTRACTS)
# Marriage action codes by suit: (K | flag, Q | flag, mask of K and Q).
_MARRIAGE_CODES = tuple(
    (6 * s + 2 + A.MARRIAGE_FLAG, 6 * s + 3 + A.MARRIAGE_FLAG, 0b1100 << (6 * s)) for s in range(4)
)
_BID = A.BID_CONTRACT
_SEATS = range(4)


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


def _rota(sitting: int) -> tuple[tuple[int, ...], ...]:
    """Seats in playing order from each leader, skipping a seat that sits out."""
    return tuple(
        tuple(s for s in ((lead + k) & 3 for k in range(4)) if s != sitting) for lead in _SEATS
    )


_ROTA4 = _rota(-1)
_ROTA_WITHOUT = tuple(_rota(s) for s in _SEATS)


class BauernDeal(DealCore):
    """One deal of Bauernschnapsen.  Seats 0+2 are team 0, seats 1+3 team 1.

    Hands are masks.  `shown` is the mask of cards everyone has seen that may still be
    in a hand: the Aufschlag card, a declared marriage's partner card, a shown hand.
    `history` is the auction and the doubling as (seat, action code).  Marriage points
    are kept per seat and count once the seat's team has a trick.
    """

    __slots__ = (
        "auction_len",
        "auto",
        "biddable",
        "dbl_pos",
        "dbl_queue",
        "dbl_round",
        "dealer",
        "dealt",
        "declarer",
        "fh",
        "floor",
        "hands",
        "high",
        "history",
        "holder",
        "kind",
        "leader",
        "marriages",
        "mpoints",
        "mult",
        "nplay",
        "ntricks",
        "opts",
        "order",
        "passed",
        "phase",
        "played",
        "points",
        "ptrump",
        "res",
        "rota",
        "row",
        "shown",
        "sitting",
        "strength",
        "trick",
        "tricks",
        "trump",
        "upcard",
        "won",
    )

    game = GAME_ID
    contracts = CONTRACT_IDS
    players = 4

    opts: BauernOptions
    auto: bool
    dealer: int
    fh: int
    dealt: tuple[tuple[int, ...], ...]
    hands: list[int]
    phase: int
    trump: int
    upcard: int
    history: tuple[tuple[int, int], ...]
    #: Entries of `history` that are the auction (-1 while it runs); the rest is doubling.
    auction_len: int
    biddable: tuple[int, ...]
    passed: int
    high: int
    holder: int
    floor: int
    row: int
    declarer: int
    kind: int
    mult: int
    dbl_round: int
    dbl_queue: tuple[int, ...]
    dbl_pos: int
    sitting: int
    ptrump: int
    order: Order
    strength: tuple[int, ...]
    rota: tuple[tuple[int, ...], ...]
    nplay: int
    trick: tuple[int, ...]
    leader: int
    points: list[int]
    mpoints: list[int]
    tricks: list[int]
    won: list[int]
    ntricks: int
    #: Completed tricks in order: (leader, cards in playing order, winner).
    played: tuple[tuple[int, tuple[int, ...], int], ...]
    shown: int
    marriages: tuple[tuple[int, int, int], ...]
    res: DealResult | None

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
        d.rota = _ROTA4
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

    def copy(self) -> BauernDeal:
        d = BauernDeal.__new__(BauernDeal)
        d.log = None
        d.turn = self.turn
        d.opts = self.opts
        d.auto = self.auto
        d.dealer = self.dealer
        d.fh = self.fh
        d.dealt = self.dealt
        d.hands = self.hands[:]
        d.phase = self.phase
        d.trump = self.trump
        d.upcard = self.upcard
        d.history = self.history
        d.auction_len = self.auction_len
        d.biddable = self.biddable
        d.passed = self.passed
        d.high = self.high
        d.holder = self.holder
        d.floor = self.floor
        d.row = self.row
        d.declarer = self.declarer
        d.kind = self.kind
        d.mult = self.mult
        d.dbl_round = self.dbl_round
        d.dbl_queue = self.dbl_queue
        d.dbl_pos = self.dbl_pos
        d.sitting = self.sitting
        d.ptrump = self.ptrump
        d.order = self.order
        d.strength = self.strength
        d.rota = self.rota
        d.nplay = self.nplay
        d.trick = self.trick
        d.leader = self.leader
        d.points = self.points[:]
        d.mpoints = self.mpoints[:]
        d.tricks = self.tricks[:]
        d.won = self.won[:]
        d.ntricks = self.ntricks
        d.played = self.played
        d.shown = self.shown
        d.marriages = self.marriages
        d.res = self.res
        return d

    # --- derived facts ---------------------------------------------------------------

    def team_has_trick(self, seat: int) -> bool:
        return bool(self.tricks[seat] or self.tricks[seat ^ 2])

    def seat_total(self, seat: int) -> int:
        """A seat's card points plus its marriages once its team has a trick (§1)."""
        if self.tricks[seat] or self.tricks[seat ^ 2]:
            return self.points[seat] + self.mpoints[seat]
        return self.points[seat]

    def team_total(self, team: int) -> int:
        """A team's card points plus its counting marriages: partners add up (§1)."""
        return self.seat_total(team) + self.seat_total(team + 2)

    def may_marry(self, seat: int) -> bool:
        """Whether `seat`'s marriages can count in this contract (§4)."""
        kind = self.kind
        return kind == _NORMAL or (kind == _SCHNAPSER and seat == self.declarer)

    def may_double_in_auction(self, seat: int) -> bool:
        """`bauern.kontra_beats_bettler`: an opponent of forehand may Kontra forehand's
        normal game while a Bettler of forehand's team is the highest bid (once)."""
        return (
            self.opts.kontra_beats_bettler
            and self.floor < 0
            and self.high >= 0
            and _BETTLER_ROWS[self.high]
            and not (self.holder - self.fh) & 1
            and bool((seat - self.fh) & 1)
        )

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
            if self.kind == _NORMAL or (self.kind == _SCHNAPSER and turn == self.declarer):
                for king, queen, mm in _MARRIAGE_CODES:
                    if hand & mm == mm:
                        out.append(king)
                        out.append(queen)
                if self.kind == _NORMAL and not self.auto:
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
                out.append(_BID + 2 * row)
            rows >>= 1
            row += 1
        if high >= 0:
            out.append(A.PASS)
            if self.may_double_in_auction(seat):
                out.append(A.DOUBLE)
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
        self.biddable = tuple(self._biddable(s) for s in _SEATS)
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
            self.high = (code - _BID) >> 1
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
        self.kind = _KINDS[row]
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
            self.rota = _ROTA_WITHOUT[d ^ 2]
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

    # --- play ----------------------------------------------------------------------------

    def _play(self, code: int) -> None:
        seat = self.turn
        card = code & 31
        self.hands[seat] &= ~(1 << card)
        trick = (*self.trick, card)
        self.trick = trick
        log = self.log
        if log is not None:
            log.append(CardPlayed(seat, CARDS[card], bool(code & A.MARRIAGE_FLAG)))
        n = len(trick)
        if n == 1:
            self.leader = seat
            if code & A.MARRIAGE_FLAG and self._marry(seat, card):
                return
        if n < self.nplay:
            self.turn = self.rota[self.leader][n]
            return
        self._trick_done(trick)

    def _marry(self, seat: int, card: int) -> bool:
        """Declare a marriage on the lead; True when it ends the deal (§1, §4)."""
        suit = card // 6
        points = 40 if suit == self.ptrump else 20
        self.mpoints[seat] += points
        partner = card ^ 1  # King and Queen sit on adjacent bits (engine.cards)
        self.shown |= 1 << partner
        self.marriages += ((seat, suit, points),)
        counted = self.team_has_trick(seat)
        if self.log is not None:
            self.log.append(MarriageDeclared(seat, Suit(suit), points, counted, CARDS[partner]))
        if not counted:
            return False
        if self.kind == _SCHNAPSER:
            # Only the declarer marries in a Schnapser; 66 wins at once (§4).
            if self.seat_total(seat) >= TARGET:
                self._finish(seat & 1, "reached_66")
                return True
        elif self.auto and self.team_total(seat & 1) >= TARGET:
            # §1: claimed at once; the led card stays, its trick counts for nobody.
            self._win_normal(seat & 1, seat)
            return True
        return False

    def _trick_done(self, trick: tuple[int, ...]) -> None:
        leader = self.leader
        order = self.rota[leader]
        w = order[best_in_trick(trick, self.ptrump, self.strength)]
        pts = 0
        mask = 0
        for c in trick:
            pts += POINTS[c]
            mask |= 1 << c
        self.points[w] += pts
        self.tricks[w] += 1
        self.won[w] |= mask
        self.ntricks += 1
        self.played += ((leader, trick, w),)
        self.trick = ()
        self.leader = w
        self.turn = w
        if self.log is not None:
            self.log.append(
                TrickTaken(w, tuple((order[i], CARDS[c]) for i, c in enumerate(trick)), pts)
            )
        kind = self.kind
        d = self.declarer
        if kind == _NORMAL:
            if self.ntricks == TRICKS:
                # §4: nobody claimed before the last trick: its winner's team wins 1.
                self._finish(w & 1, "last_trick", 1)
            elif self.auto and self.team_total(w & 1) >= TARGET:
                self._win_normal(w & 1, -1)
        elif kind == _BETTLER:
            if w == d:
                self._finish(1 - (d & 1), "took_trick")
            elif self.ntricks == TRICKS:
                self._finish(d & 1, "no_trick")
        elif w != d:
            # Schnapser and all-tricks contracts: a trick taken by anyone else (the
            # partner included) loses at once (§1, §4).
            self._finish(1 - (d & 1), "lost_trick")
        elif kind == _SCHNAPSER:
            if self.seat_total(d) >= TARGET:
                self._finish(d & 1, "reached_66")
            elif self.ntricks == SCHNAPSER_TRICKS:
                self._finish(1 - (d & 1), "under_66")
        elif self.ntricks == TRICKS:
            self._finish(d & 1, "all_tricks")

    # --- claims and the end of the deal --------------------------------------------------

    def normal_value(self, winner_team: int) -> int:
        """1 / 2 / 3 game points by the losing team's points and tricks (§2, §4)."""
        loser = 1 - winner_team
        if not (self.tricks[loser] or self.tricks[loser + 2]):
            return 3
        return 2 if self.team_total(loser) < 33 else 1

    def _win_normal(self, team: int, claimer: int) -> None:
        gp = self.normal_value(team)
        if claimer >= 0 and not self.auto and self.log is not None:
            self.log.append(Claimed(claimer, True, gp * self.mult))
        self._finish(team, "reached_66", gp)

    def _claim(self, seat: int) -> None:
        """'Enough' (auto_claim off): right, the team wins; wrong, the other team wins
        what the claim would have won (§4)."""
        team = seat & 1
        if self.team_total(team) >= TARGET:
            self._win_normal(team, seat)
            return
        gp = self.normal_value(team)
        if self.log is not None:
            self.log.append(Claimed(seat, False, gp * self.mult))
        self._finish(1 - team, "wrong_claim", gp)

    def _finish(self, team: int, reason: str, base: int = 0) -> None:
        """End the deal: `team` wins `base` game points (the contract's value when 0)
        times the multiplier; both partners get them in their seat entries."""
        c = CONTRACTS[self.row]
        mult = self.mult
        gp = (base or value(c, self.opts)) * mult
        pts = [0, 0, 0, 0]
        pts[team] = pts[team + 2] = gp
        t0, t1 = self.team_total(0), self.team_total(1)
        self.res = DealResult(
            points=(pts[0], pts[1], pts[2], pts[3]),
            winners=(team, team + 2),
            reason=reason,
            contract=c.id,
            declarer=self.declarer,
            multiplier=mult,
            card_points=tuple(self.seat_total(s) for s in _SEATS),
            tricks=tuple(self.tricks),
            details=(
                ("team_points", (t0, t1)),
                ("trump", Suit(self.trump).letter if c.trumps else None),
                ("sitting_out", self.sitting if self.sitting >= 0 else None),
            ),
        )
        self.turn = -1
        self.phase = OVER
        if self.log is not None:
            self.log.append(DealEnded(self.res))

    # --- the public faces ----------------------------------------------------------------

    def result(self) -> DealResult | None:
        return self.res

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
