"""The rules core of one Dreierschnapsen deal (RULES.md §1, §3, §6): ints and masks.

`DreierDeal` follows `engine.protocol.DealCore`: `legal()` lists int action codes,
`step()` applies one in place (no checks), `copy()` is cheap.  The phases run in the
order of RULES.md §3 — trump, bidding, discard, doubling (Spritzen), play — and one
method per phase moves the deal on (`_settle`, `_start_doubling`, `_start_play`,
`_end`), so phase transitions live in one place each.

State for an AI that samples hidden cards: the seats' hands are the masks `hands`,
the talon `talon` (until taken or set aside), the cards out of play `discard`;
`dealt` is only read for the trump choice (first packet, blind index) and records.
Everything else is public or belongs to the declarer (`taken`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .. import actions as A
from ..actions import Action
from ..cards import CARDS, MARRIAGE_MASK, POINTS, Rank, Suit, card_index, cards_of, mask_of
from ..events import (
    BidMade,
    CardPlayed,
    Claimed,
    ContractSettled,
    DealEnded,
    Discarded,
    Doubled,
    HandShown,
    MarriageDeclared,
    Passed,
    Raised,
    Redealt,
    TalonTaken,
    TrickTaken,
    TrumpChosen,
)
from ..protocol import DealCore
from ..results import DealResult
from ..tricks import Order, allowed_mask
from .contracts import CONTRACT_IDS, CONTRACTS, NORMAL, ROW, Contract, Goal, Holding, holds
from .options import GAME_ID, DreierOptions
from .rules import (
    BIDDING,
    DISCARD,
    DOUBLING,
    OVER,
    PLAY,
    SCHNAPSER_TRICKS,
    TARGET,
    TRICKS,
    TRUMP,
    BidRow,
    bid_tables,
    has_talon,
)

if TYPE_CHECKING:
    from ..views import SeatView

_JACK = int(Rank.JACK)
_KING_QUEEN = tuple(
    (card_index(s, Rank.KING), card_index(s, Rank.QUEEN), MARRIAGE_MASK[s]) for s in range(4)
)
_BLIND = (3, 4, 5)  # RULES.md §6: `blind` indexes the hand as dealt; the second packet


class DreierDeal(DealCore):
    """One deal of Dreierschnapsen, seats 0..2 clockwise; forehand = dealer + 1.

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

    game = GAME_ID
    players = 3
    contracts = CONTRACT_IDS

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

    def copy(self) -> DreierDeal:
        d = DreierDeal.__new__(DreierDeal)
        d.log = None
        d.opts = self.opts
        d.auto = self.auto
        d.dealer = self.dealer
        d.fh = self.fh
        d.bid_rows = self.bid_rows
        d.dealt = self.dealt
        d.hands = self.hands[:]
        d.talon = self.talon
        d.taken = self.taken
        d.discard = self.discard
        d.discarded = self.discarded
        d.phase = self.phase
        d.turn = self.turn
        d.trump = self.trump
        d.trump_card = self.trump_card
        d.bids = self.bids
        d.passed = self.passed
        d.high_key = self.high_key
        d.high_seat = self.high_seat
        d.all_passed = self.all_passed
        d.contract = self.contract
        d.decl = self.decl
        d.wt = self.wt
        d.defs = self.defs
        d.mult = self.mult
        d.dbl_pos = self.dbl_pos
        d.spritzen = self.spritzen
        d.ptrump = self.ptrump
        d.strength = self.strength
        d.order = self.order
        d.leader = self.leader
        d.trick = self.trick
        d.ntricks = self.ntricks
        d.points = self.points[:]
        d.mpoints = self.mpoints[:]
        d.tricks = self.tricks[:]
        d.won = self.won[:]
        d.played = self.played
        d.first_tricks = self.first_tricks
        d.shown = self.shown[:]
        d.marriages = self.marriages
        d.hand_shown = self.hand_shown
        d.res = self.res
        return d

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

    def raise_allowed(self) -> bool:
        """RULES.md §3: `raise_after_talon`, or forehand after an all-pass in `caller_first`."""
        return self.opts.raise_after_talon or self.all_passed

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
            first = self.first_packet(self.fh)
            out = [A.TRUMP_SUIT + s for s in sorted({c // 6 for c in first})]
            out += [A.TRUMP_BLIND + i for i in _BLIND]
            if all(c % 6 == _JACK for c in first):
                out.append(A.REDEAL)
            return out
        return []

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

    def raise_candidates(self) -> tuple[list[int], list[int]]:
        """Rows the declarer may raise to with his discard, split into those without a
        holding rule and those whose holding depends on the cards he keeps (§3)."""
        c = self.contract
        assert c is not None
        cur = ROW[c.id]
        decl = self.decl
        is_fh = decl == self.fh
        plain: list[int] = []
        held: list[int] = []
        for row, r, _ in self.bid_rows[is_fh]:
            if row > cur:
                (plain if r.holding is Holding.NONE else held).append(row)
        return plain, held

    def may_raise_to(self, row: int, kept: int) -> bool:
        """The holding check of a raise: on the 6 cards kept and, with
        `dreier.carinthian`, Farbenringerl/Herrenschnapser on the original 6 as well."""
        c = CONTRACTS[row]
        if not holds(c, kept, self.trump):
            return False
        if self.opts.carinthian and c.holding in (Holding.SUIT, Holding.TRUMPS):
            return holds(c, mask_of(self.dealt[self.decl]), self.trump)
        return True

    def _legal_discards(self) -> list[int]:
        hand = self.hands[self.decl]
        cards = cards_of(hand)
        plain: list[int] = []
        held: list[int] = []
        if self.raise_allowed():
            plain, held = self.raise_candidates()
        out = []
        for i, lo in enumerate(cards):
            for hi in cards[i + 1 :]:
                base = A.DISCARD + lo + 32 * hi
                out.append(base)
                for row in plain:
                    out.append(base + 1024 * (row + 1))
                if held:
                    kept = hand & ~((1 << lo) | (1 << hi))
                    for row in held:
                        if self.may_raise_to(row, kept):
                            out.append(base + 1024 * (row + 1))
        return out

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

    # trump ---------------------------------------------------------------------------

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

    # bidding -------------------------------------------------------------------------

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

    # talon ---------------------------------------------------------------------------

    def _discard(self, seat: int, code: int) -> None:
        raised, rest = divmod(code - A.DISCARD, 1024)
        hi, lo = divmod(rest, 32)
        mask = (1 << lo) | (1 << hi)
        self.hands[seat] &= ~mask
        self.discard = mask
        self.discarded = True
        log = self.log
        if log is not None:
            log.append(Discarded(seat, (CARDS[lo], CARDS[hi])))
        if raised:
            c = CONTRACTS[raised - 1]
            self.contract = c
            if log is not None:
                log.append(Raised(seat, contract=c.id))
        self._start_doubling()

    # Spritzen ------------------------------------------------------------------------

    def _start_doubling(self) -> None:
        """RULES.md §6 doubling order: defenders from forehand, declarer, defenders."""
        self.phase = DOUBLING
        self.mult = 1
        self.dbl_pos = 0
        self.turn = self.defs[0]

    def _double(self, seat: int) -> None:
        self.mult *= 2
        self.spritzen += ((seat, A.DOUBLE),)
        if self.log is not None:
            self.log.append(Doubled(seat, self.mult))
        if self.mult == 2:
            self.turn = self.decl
        elif self.mult == 4:
            self.dbl_pos = 0
            self.turn = self.defs[0]
        else:
            self._start_play()

    def _double_pass(self, seat: int) -> None:
        self.spritzen += ((seat, A.PASS),)
        if self.log is not None:
            self.log.append(Passed(seat))
        if self.mult == 2 or self.dbl_pos == 1:
            self._start_play()
        else:
            self.dbl_pos = 1
            self.turn = self.defs[1]

    # play ----------------------------------------------------------------------------

    def _start_play(self) -> None:
        c = self.contract
        assert c is not None
        self.phase = PLAY
        self.ptrump = self.trump if c.trumps else -1
        self.strength = c.strength
        self.order = c.order
        self.leader = self.fh if c.forehand_leads else self.decl
        self.turn = self.leader

    def _play(self, seat: int, card: int, marriage: int) -> None:
        self.hands[seat] &= ~(1 << card)
        log = self.log
        trick = self.trick
        if not trick:
            self.leader = seat
            self.trick = (card,)
            if log is not None:
                log.append(CardPlayed(seat, CARDS[card], bool(marriage)))
            if marriage and self._marriage(seat, card):
                return
            self.turn = (seat + 1) % 3
            return
        if log is not None:
            log.append(CardPlayed(seat, CARDS[card]))
        trick += (card,)
        if len(trick) < 3:
            self.trick = trick
            self.turn = (seat + 1) % 3
            return
        # the trick is complete: highest trump, else highest card of the suit led
        a, b, c = trick
        strength = self.strength
        t = self.ptrump
        best, bc = 0, a
        if b // 6 == bc // 6:
            if strength[b] > strength[bc]:
                best, bc = 1, b
        elif b // 6 == t:
            best, bc = 1, b
        if c // 6 == bc // 6:
            if strength[c] > strength[bc]:
                best = 2
        elif c // 6 == t:
            best = 2
        leader = self.leader
        w = (leader + best) % 3
        pts = POINTS[a] + POINTS[b] + POINTS[c]
        self.points[w] += pts
        self.tricks[w] += 1
        self.won[w] |= (1 << a) | (1 << b) | (1 << c)
        self.ntricks += 1
        self.played += ((leader, trick, w),)
        self.trick = ()
        self.leader = w
        self.turn = w
        side = 0 if w == self.decl else 1
        if self.first_tricks[side] is None:
            ft = list(self.first_tricks)
            ft[side] = (leader, trick, w)
            self.first_tricks = tuple(ft)
        if log is not None:
            cards = tuple(((leader + i) % 3, CARDS[x]) for i, x in enumerate(trick))
            log.append(TrickTaken(w, cards, pts))
        self._after_trick(w)

    def _marriage(self, seat: int, card: int) -> bool:
        """Declare a marriage with the led card; True if that ends the deal (§1, §3)."""
        suit = card // 6
        value = 40 if suit == self.trump else 20
        self.mpoints[seat] += value
        partner = card ^ 1  # King and Queen sit on adjacent bits
        self.shown[seat] |= 1 << partner
        self.marriages += ((seat, suit, value),)
        decl_side = seat == self.decl
        counted = self.side_tricks(decl_side) > 0
        if self.log is not None:
            self.log.append(MarriageDeclared(seat, Suit(suit), value, counted, CARDS[partner]))
        if not counted:
            return False
        c = self.contract
        assert c is not None
        if c.goal is Goal.SCHNAPSER:
            if self.side_total(True) >= TARGET:
                self._result(True, "reached_66")
                return True
        elif self.auto and self.side_total(decl_side) >= TARGET:
            # RULES.md §1: claimed at once; the led card stays, the trick is not played
            self._game_won(decl_side, "reached_66")
            return True
        return False

    def _after_trick(self, w: int) -> None:
        """Has the trick just taken decided the contract?  (RULES.md §1 "Ending a deal".)"""
        c = self.contract
        assert c is not None
        goal = c.goal
        decl = self.decl
        n = self.ntricks
        if goal is Goal.GAME:
            decl_side = w == decl
            if n == TRICKS:
                self._game_won(decl_side, "last_trick", last_trick=True)
            elif self.auto and self.side_total(decl_side) >= TARGET:
                self._game_won(decl_side, "reached_66")
        elif goal is Goal.NO_TRICK:
            if w == decl:
                self._result(False, "took_trick")
            elif n == TRICKS:
                self._result(True, "no_trick")
            elif n == 1 and c.open_hand:
                self.hand_shown = True
                if self.log is not None:
                    cards = tuple(CARDS[x] for x in cards_of(self.hands[decl]))
                    self.log.append(HandShown(decl, cards))
        elif goal is Goal.ALL_TRICKS:
            if w != decl:
                self._result(False, "lost_trick")
            elif n == TRICKS:
                self._result(True, "all_tricks")
        else:  # Schnapser: every trick, 66 within the first SCHNAPSER_TRICKS
            if w != decl:
                self._result(False, "lost_trick")
            elif self.side_total(True) >= TARGET:
                self._result(True, "reached_66")
            elif n == SCHNAPSER_TRICKS:
                self._result(False, "under_66")

    def _claim(self, seat: int) -> None:
        """`claim` with auto_claim off (RULES.md §1, §3): right, or the others win."""
        decl_side = seat == self.decl
        if self.side_total(decl_side) >= TARGET:
            value = self._game_value(decl_side)
            if self.log is not None:
                self.log.append(Claimed(seat, True, (value + self.wt) * self.mult))
            self._game_won(decl_side, "reached_66")
            return
        value = self._game_value(decl_side)
        if self.log is not None:
            self.log.append(Claimed(seat, False, (value + self.wt) * self.mult))
        self._result(not decl_side, "wrong_claim", value)

    def _game_value(self, decl_side: bool) -> int:
        """1/2/3 for the side `decl_side` winning, by the other side's points (§3)."""
        if not self.side_tricks(not decl_side):
            return 3
        return 2 if self.side_total(not decl_side) < 33 else 1

    def _game_won(self, decl_side: bool, reason: str, last_trick: bool = False) -> None:
        value = 1 if last_trick else self._game_value(decl_side)
        self._result(decl_side, reason, value)

    def _result(self, made: bool, reason: str, base: int | None = None) -> None:
        """Score the deal: the declarer scores the value, or each defender does (§3)."""
        c = self.contract
        assert c is not None
        value = ((c.points if base is None else base) + self.wt) * self.mult
        decl = self.decl
        pts = [0, 0, 0]
        if made:
            pts[decl] = value
            winners: tuple[int, ...] = (decl,)
        else:
            for s in self.defs:
                pts[s] = value
            winners = tuple(sorted(self.defs))
        counted = tuple(
            self.points[s] + (self.mpoints[s] if self.side_tricks(s == decl) else 0)
            for s in range(3)
        )
        self._end(
            DealResult(
                points=(pts[0], pts[1], pts[2]),
                winners=winners,
                reason=reason,
                contract=c.id,
                declarer=decl,
                multiplier=self.mult,
                card_points=counted,
                tricks=(self.tricks[0], self.tricks[1], self.tricks[2]),
                details=(
                    ("value", value),
                    ("without_talon", self.wt),
                    ("side_points", (self.side_total(True), self.side_total(False))),
                    ("trump", Suit(self.trump).letter if c.trumps else None),
                ),
            )
        )

    def _end(self, res: DealResult) -> None:
        self.res = res
        self.phase = OVER
        self.turn = -1
        if self.log is not None:
            self.log.append(DealEnded(res))

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
