"""Bauernschnapsen deals consistent with what one seat knows (determinization).

The strong AI searches sampled "worlds": complete `BauernDeal`s that agree with the
seat's view in everything it can see, with the cards it cannot see dealt at random.
The no-peeking guarantee rests on this module reading nothing but the `SeatView`.

What a player at the table knows, and so what every world respects (RULES.md §1, §4):
- his own hand: while trumps are named only the first packet of 3 (forehand names
  trumps before seeing his last two cards, which are as hidden to him as the others');
- the named trump and the Aufschlag card (in forehand's hand until played), the
  auction and the doubling, every completed trick, the cards of the current trick,
  the marriages declared and their shown partner cards, a hand shown on a win;
- under Stichzwang (every contract, §1), what a player *could not* hold: one who did
  not follow suit has none of it (and no trump either, if he did not trump), one who
  followed or trumped below the best card has nothing above it.  The partner's hand is
  as hidden as the opponents' (the Bettler's sitting-out partner keeps his five);
- what the rules make certain about a hand: forehand holds a trump when he named the
  suit (it was in his first packet), an Ass-Bettler's bidder holds an ace;
- what the other seats' choices suggest (a *reading*, supplied by the policy module):
  forehand named the suit he was strongest in, a bidder holds a hand that makes his
  contract likely, a player who doubled holds the strength to double.  A seat with
  such readings gets a hand drawn uniformly from the hands that pass all of them
  (enumerated once per decision, and cached), or, when none does, from those that
  pass the rules' certainties.

The world is rebuilt by replaying the public history (trump, auction, doubling, every
card played) on the rules core itself, with the known cards in the hands, so the
world's bookkeeping (points, marriages, turn, doubling queue) is the engine's own;
`sample` then adds the hidden cards.  Rule options come from `view.options` when the
view carries them, else they are inferred from what the view shows (`infer_options`).
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from .. import actions as A
from ..actions import Bid, Claim, Double, encode
from ..bauern import BauernDeal, BauernOptions, options
from ..bauern.rules import BETTLER_TOP_ROW, BIDDING, CONTRACT_IDS, CONTRACTS, PLAY, TRUMP, Holding
from ..cards import DECK20_MASK, SUIT_MASK, Card, cards_of
from ..tricks import HIGHER, NO_TRUMP, STRENGTH, Order
from ..views import SeatView

#: What a seat's choice suggests about its hand: ``reading(what, hand, trump,
#: position) -> bool`` for a hand of five, the named trump and the seat's priority
#: position (0 forehand).  `what` is ``(NAMED,)`` (forehand named this suit),
#: ``(BID, row)`` or ``(DOUBLED, row, round)`` (Kontra 1, Rekontra 2, Subkontra 3 on
#: contract `row`; round 0 is a Kontra over a Bettler said in the auction, on the
#: normal game).  Supplied by the policy: its own choices, read backwards.
Reading = Callable[[tuple[int, ...], int, int, int], bool]
NAMED, BID, DOUBLED = range(3)
#: Rule certainties: the seat holds a trump, an ace.
_HAS_TRUMP = (10,)
_HAS_ACE = (11,)

_ACES = sum(1 << (6 * s) for s in range(4))
_SUIT5 = tuple(0b11111 << (6 * s) for s in range(4))
#: Attempts at a deal that satisfies the Stichzwang inferences and the readings (they
#: always can be, in a legal deal; the fallback drops them rather than fail).
DEAL_TRIES = 32


def _extra(view: SeatView, key: str) -> object:
    for k, v in view.extra:
        if k == key:
            return v
    return None


def _lowest_bid_row(view: SeatView, seat: int, fh: int) -> int:
    """The lowest contract row `seat` could bid now, by the auction rules (§4)."""
    high = _extra(view, "high_bid")
    floor = BETTLER_TOP_ROW if _extra(view, "kontra_over_bettler") else -1
    if not isinstance(high, tuple):
        return 0
    row = CONTRACT_IDS.index(high[0])
    holder = high[1]
    lowest = row if (seat - fh) & 3 < (holder - fh) & 3 else row + 1
    return max(lowest, floor + 1)


def infer_options(view: SeatView) -> BauernOptions:
    """The table's options: from the view when it carries them, else what the view
    shows of them (a bid or claim among the legal actions or in the auction), else
    the defaults.  Enough for every world to offer the seat exactly `view.legal`."""
    if view.options:
        return options(dict(view.options))
    me = view.seat
    fh = (view.dealer + 1) & 3
    raw: dict[str, object] = {}
    legal = view.legal
    bid_ids = {a.contract for _, a in view.bids if isinstance(a, Bid)}
    legal_ids = {a.contract for a in legal if isinstance(a, Bid)}
    if any(isinstance(a, Claim) for a in legal):
        raw["auto_claim"] = False
    for cid in ("assbettler", "zehnergang"):
        if cid in bid_ids or cid in legal_ids:
            raw[f"bauern.{cid}"] = True
    if "bettler" in bid_ids or "bettler" in legal_ids:
        raw["bauern.bettler"] = True
    elif view.phase == "bidding" and me is not None and view.to_act == me:
        row = CONTRACT_IDS.index("bettler")
        if _lowest_bid_row(view, me, fh) <= row:
            raw["bauern.bettler"] = False  # any seat may bid it: absent means switched off
    in_auction = view.phase == "bidding" and any(isinstance(a, Double) for a in legal)
    if in_auction or _extra(view, "kontra_over_bettler"):
        raw["bauern.kontra_beats_bettler"] = True
    contract = view.contract
    if contract in ("bettler", "assbettler") and view.sitting_out is None:
        raw["bauern.bettler_partner_plays"] = True
    return options(raw)


def stichzwang_bars(prefix: Sequence[int], card: int, trump: int, order: Order) -> int:
    """Cards a player cannot have held when he added `card` to a trick that held
    `prefix` (led card first) under Stichzwang (RULES.md §1 rules 1-2)."""
    strength = STRENGTH[order]
    higher = HIGHER[order]
    led = prefix[0]
    suit = led // 6
    csuit = card // 6
    if csuit == suit:
        if suit != trump and trump != NO_TRUMP and any(c // 6 == trump for c in prefix):
            return 0  # a trumped trick: any card of the suit would do
        best = max((c for c in prefix if c // 6 == suit), key=lambda c: strength[c])
        return higher[best] if strength[card] < strength[best] else 0
    bars = SUIT_MASK[suit]  # he could not follow
    if trump == NO_TRUMP or suit == trump:
        return bars
    if csuit != trump:
        return bars | SUIT_MASK[trump]  # ... nor trump
    trumps = [c for c in prefix if c // 6 == trump]
    if trumps:
        best = max(trumps, key=lambda c: strength[c])
        if strength[card] < strength[best]:
            bars |= higher[best]  # he could not over-trump
    return bars


@dataclass(frozen=True, slots=True)
class BauernWorlds:
    """What one seat knows, as masks, and a sampler of deals consistent with it.

    `base` is the deal as far as it is known (hands hold only the known cards; in the
    trump phase there is no base); `sample` deals `hidden` so that seat s receives
    `need[s]` cards and none of `barred[s]`, a seat of `fixed` one of its listed hands.
    """

    seat: int
    opts: BauernOptions
    dealer: int
    base: BauernDeal | None
    #: Forehand's first packet, in the trump phase (the only cards he has seen).
    first: tuple[int, ...]
    hidden: int
    need: tuple[int, int, int, int]
    barred: tuple[int, int, int, int]
    #: Seats whose hidden cards come from a list (readings): (seat, candidate masks),
    #: the shortest list first.
    fixed: tuple[tuple[int, tuple[int, ...]], ...] = ()

    @property
    def certain(self) -> bool:
        """Nothing hidden is left to deal differently: one world is the truth."""
        return sum(1 for n in self.need if n) <= 1

    def sample(self, rng: random.Random) -> BauernDeal:
        """A complete deal consistent with the view; hidden cards dealt at random."""
        dealt = self._deal(rng)
        if self.base is None:
            return self._start(dealt)
        d = self.base.copy()
        d.hands = [d.hands[s] | dealt[s] for s in range(4)]
        d.dealt = (*(cards_of(h) for h in d.hands), ())
        if d.phase == BIDDING:
            # Holdings decide what each seat may bid: the engine's own test, on the
            # completed hands (the base's was made on the known cards only).
            d.biddable = tuple(d._biddable(s) for s in range(4))
        return d

    def _start(self, dealt: list[int]) -> BauernDeal:
        """The trump phase: a fresh deal, forehand's first packet as he sees it."""
        fh = (self.dealer + 1) & 3
        hands: list[tuple[int, ...]] = []
        for s in range(4):
            if s == fh:
                hands.append((*self.first, *cards_of(dealt[s])))
            else:
                hands.append(cards_of(dealt[s]))
        return BauernDeal.start(self.opts, self.dealer, hands)

    def _deal(self, rng: random.Random) -> list[int]:
        for _ in range(DEAL_TRIES if self.fixed else 1):
            need = list(self.need)
            taken = 0
            out = [0, 0, 0, 0]
            for s, hands in self.fixed:
                for _ in range(DEAL_TRIES):
                    m = hands[rng.randrange(len(hands))]
                    if not m & taken:
                        break
                else:
                    break
                out[s] = m
                taken |= m
                need[s] = 0
            else:
                rest = deal_hidden(self.hidden & ~taken, need, self.barred, rng)
                if rest is not None:
                    return [out[s] | rest[s] for s in range(4)]
        # Inconsistent inferences cannot happen in a legal deal; deal without them.
        dealt = deal_hidden(self.hidden, self.need, (0, 0, 0, 0), rng)
        assert dealt is not None
        return dealt


#: Nonempty seat masks inside each seat mask (for Hall's condition).
_SUBMASKS = tuple(tuple(m for m in range(1, 16) if not m & ~sub) for sub in range(16))


def _feasible(counts: list[int], need: Sequence[int], seats: int) -> bool:
    """Hall's condition for dealing cards to seats: `counts[m]` cards may go only to
    the seats of mask m; every group of seats must have room for the cards that can
    go nowhere else (and no card may go nowhere)."""
    if counts[0]:
        return False
    for sub in _SUBMASKS[seats]:
        room = 0
        for s in range(4):
            if sub >> s & 1:
                room += need[s]
        n = 0
        for m in _SUBMASKS[sub]:
            n += counts[m]
        if n > room:
            return False
    return True


def _allowed(cards: Sequence[int], need: Sequence[int], barred: Sequence[int]) -> list[int]:
    """For each card, the mask of seats that still need cards and may hold it."""
    out = []
    for c in cards:
        a = 0
        for s in range(4):
            if need[s] and not barred[s] >> c & 1:
                a |= 1 << s
        out.append(a)
    return out


def deal_hidden(
    hidden: int, need: Sequence[int], barred: Sequence[int], rng: random.Random
) -> list[int] | None:
    """Deal the `hidden` cards, `need[s]` to seat s and none of `barred[s]`; None when
    that cannot be done.  Uniform when nothing is barred; else the most constrained
    cards first, each to a seat drawn in proportion to its room left (and, should that
    run into a dead end, card by card keeping the rest dealable)."""
    cards = list(cards_of(hidden))
    rng.shuffle(cards)
    out = [0, 0, 0, 0]
    if not any(barred):
        i = 0
        for s in range(4):
            for c in cards[i : i + need[s]]:
                out[s] |= 1 << c
            i += need[s]
        return out
    allowed = _allowed(cards, need, barred)
    counts = [0] * 16
    for a in allowed:
        counts[a] += 1
    seats = sum(1 << s for s in range(4) if need[s])
    if not _feasible(counts, need, seats):
        return None
    order = sorted(range(len(cards)), key=lambda i: allowed[i].bit_count())
    for _ in range(4):
        room = list(need)
        out = [0, 0, 0, 0]
        for i in order:
            a = allowed[i]
            total = 0
            for s in range(4):
                if a >> s & 1:
                    total += room[s]
            if not total:
                break
            pick = rng.randrange(total)
            for s in range(4):
                if a >> s & 1:
                    pick -= room[s]
                    if pick < 0:
                        break
            out[s] |= 1 << cards[i]
            room[s] -= 1
        else:
            return out
    # Card by card, each to a seat that leaves the rest dealable (Hall's condition).
    room = list(need)
    out = [0, 0, 0, 0]
    for i in order:
        a = allowed[i] & seats
        counts[a] -= 1
        options: list[int] = []
        for s in range(4):
            if a >> s & 1 and room[s]:
                room[s] -= 1
                left = seats & ~(0 if room[s] else 1 << s)
                if _feasible(_restrict(counts, left), room, left):
                    options.append(s)
                room[s] += 1
        pick = rng.randrange(sum(room[s] for s in options))
        for s in options:
            pick -= room[s]
            if pick < 0:
                break
        out[s] |= 1 << cards[i]
        room[s] -= 1
        if not room[s]:
            seats &= ~(1 << s)
            counts = _restrict(counts, seats)
    return out


def _restrict(counts: list[int], seats: int) -> list[int]:
    """Counts by allowed-seat mask once only `seats` may still take cards."""
    out = [0] * 16
    for m in range(16):
        if counts[m]:
            out[m & seats] += counts[m]
    return out


def _mask(cards: Sequence[Card]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c.index
    return m


def worlds(view: SeatView, reading: Reading | None = None) -> BauernWorlds:
    """Read a seat's view of a running deal into a `BauernWorlds` sampler; `reading`
    (see `Reading`) says what the other seats' choices suggest about their hands."""
    me = view.seat
    if me is None or view.to_act is None:
        raise ValueError("worlds are built from a seat's view of a running deal")
    opts = infer_options(view)
    dealer = view.dealer
    fh = (dealer + 1) & 3
    hand = _mask(view.hand)
    named = _extra(view, "named_trump")
    trump = int(named) if isinstance(named, int) else -1

    if view.phase == "trump":
        first = tuple(c.index for c in view.hand)
        need4 = [5, 5, 5, 5]
        need4[me] = 5 - len(first)
        return BauernWorlds(
            me,
            opts,
            dealer,
            None,
            first,
            DECK20_MASK & ~hand,
            (need4[0], need4[1], need4[2], need4[3]),
            (0, 0, 0, 0),
        )

    # Every card played, by seat and in order, with the marriage leads flagged.
    plays: list[tuple[int, int]] = []
    for trick in (*view.tricks, view.trick):
        for s, card in trick:
            plays.append((s, card.index))
    marriages = [(s, int(suit)) for s, suit, _ in view.marriages]
    codes: list[tuple[int, int]] = []
    lead_positions = set()
    pos = 0
    for trick in (*view.tricks, view.trick):
        lead_positions.add(pos)
        pos += len(trick)
    for i, (s, x) in enumerate(plays):
        code = x
        if i in lead_positions and x % 6 in (2, 3) and (s, x // 6) in marriages:
            # A seat declares a suit's marriage once, leading its King or Queen: the
            # first such lead of his is the declaration.
            marriages.remove((s, x // 6))
            code |= A.MARRIAGE_FLAG
        codes.append((s, code))

    played = [0, 0, 0, 0]
    for s, x in plays:
        played[s] |= 1 << x
    known = [0, 0, 0, 0]
    known[me] = hand
    for s, card in view.known:
        known[s] |= 1 << card.index
    up = view.trump_card.index if view.trump_card is not None else -1

    hands = [known[s] | played[s] for s in range(4)]
    rebuilt = _rebuild(view, opts, hands, up, trump, codes)
    if rebuilt is None and opts.auto_claim:
        # A team passed 66 and nobody claimed: claims are manual at this table.
        opts = dataclasses.replace(opts, auto_claim=False)
        rebuilt = _rebuild(view, opts, hands, up, trump, codes)
    if rebuilt is None:
        raise ValueError("the view's history does not replay")
    d, said = rebuilt

    seen = hand | known[0] | known[1] | known[2] | known[3]
    for m in played:
        seen |= m
    hidden = DECK20_MASK & ~seen
    need = [0, 0, 0, 0]
    for s in range(4):
        if s != me:
            need[s] = view.hand_sizes[s] - known[s].bit_count()
    if sum(need) != hidden.bit_count():
        raise ValueError("the view's card counts do not add up")

    barred = [0, 0, 0, 0]
    if d.row >= 0:
        for trick in (*view.tricks, view.trick):
            cards = [c.index for _, c in trick]
            for i in range(1, len(cards)):
                s = trick[i][0]
                barred[s] |= stichzwang_bars(cards[:i], cards[i], d.ptrump, d.order)
    for s in range(4):
        barred[s] &= hidden
        if (hidden & ~barred[s]).bit_count() < need[s]:
            barred[s] = 0  # cannot happen in a legal deal: drop the inference

    # What the rules make certain, and what the choices suggest, seat by seat.
    hard: list[list[tuple[int, ...]]] = [[], [], [], []]
    soft: list[list[tuple[int, ...]]] = [[], [], [], []]
    if up < 0:
        hard[fh].append(_HAS_TRUMP)
        soft[fh].append((NAMED,))
    for s, what in said:
        if what[0] == BID and CONTRACTS[what[1]].holding == Holding.ACE:
            hard[s].append(_HAS_ACE)
        soft[s].append(what)
    fixed: list[tuple[int, tuple[int, ...]]] = []
    for s in range(4):
        if s == me or not need[s] or not (hard[s] or soft[s]):
            continue
        choices = _hands(
            s,
            hidden,
            (need[0], need[1], need[2], need[3]),
            (barred[0], barred[1], barred[2], barred[3]),
            hands[s],
            tuple(hard[s]),
            tuple(dict.fromkeys(soft[s])) if reading is not None else (),
            trump,
            (s - fh) & 3,
            reading,
        )
        if choices:
            fixed.append((s, choices))
    fixed.sort(key=lambda sc: len(sc[1]))
    return BauernWorlds(
        me,
        opts,
        dealer,
        d,
        (),
        hidden,
        (need[0], need[1], need[2], need[3]),
        (barred[0], barred[1], barred[2], barred[3]),
        tuple(fixed),
    )


@lru_cache(maxsize=64)  # an entry holds up to 3003 hands: keep the cache small
def _hands(
    seat: int,
    hidden: int,
    need: tuple[int, int, int, int],
    barred: tuple[int, int, int, int],
    held: int,
    hard: tuple[tuple[int, ...], ...],
    soft: tuple[tuple[int, ...], ...],
    trump: int,
    position: int,
    reading: Reading | None,
) -> tuple[int, ...]:
    """The ways to deal `seat` its `need[seat]` hidden cards (added to `held`) that pass
    every certainty and reading and leave the other seats' cards dealable; else those
    passing the certainties; () when nothing narrows the hand."""
    k = need[seat]
    rest = list(need)
    rest[seat] = 0
    seats = sum(1 << s for s in range(4) if rest[s])
    cards = cards_of(hidden)
    allowed = dict(zip(cards, _allowed(cards, rest, barred), strict=True))
    counts = [0] * 16
    for a in allowed.values():
        counts[a] += 1
    # With nothing barred elsewhere, the others can take any rest.
    check = any(barred[t] for t in range(4) if rest[t])
    strict: list[int] = []
    loose: list[int] = []
    for combo in itertools.combinations(cards_of(hidden & ~barred[seat]), k):
        m = 0
        for c in combo:
            m |= 1 << c
        full = held | m
        if not all(_certain(what, full, trump) for what in hard):
            continue
        if check:
            left = counts[:]
            for c in combo:
                left[allowed[c]] -= 1
            if not _feasible(left, rest, seats):
                continue
        loose.append(m)
        if reading is not None and all(reading(what, full, trump, position) for what in soft):
            strict.append(m)
    if strict:
        return tuple(strict)
    return tuple(loose) if hard and loose else ()


def _certain(what: tuple[int, ...], hand: int, trump: int) -> bool:
    if what == _HAS_TRUMP:
        return bool(hand & _SUIT5[trump])
    return bool(hand & _ACES)


def _rebuild(
    view: SeatView,
    opts: BauernOptions,
    hands: list[int],
    up: int,
    trump: int,
    plays: list[tuple[int, int]],
) -> tuple[BauernDeal, list[tuple[int, tuple[int, ...]]]] | None:
    """The view's deal replayed on the rules core with the known cards in the hands
    (each seat's known cards plus those it played), and what each seat said in the
    auction and the doubling (`Reading` keys); None if the view does not replay."""
    fh = (view.dealer + 1) & 3
    d = BauernDeal.start(opts, view.dealer, [[], [], [], []])
    d.hands = list(hands)
    # Aufschlagen turns up card 3 of forehand's hand as dealt: put the known card there.
    d.dealt = (*(((up,) * 5 if up >= 0 and s == fh else ()) for s in range(4)), ())
    d.step(A.TRUMP_BLIND + 3 if up >= 0 else A.TRUMP_SUIT + trump)
    said: list[tuple[int, tuple[int, ...]]] = []
    for seat, action in view.bids:
        code = encode(action, CONTRACT_IDS)
        if d.turn != seat or d.phase == TRUMP or code == A.INVALID:
            return None
        if code == A.DOUBLE:
            if d.phase == BIDDING:  # a Kontra over a Bettler: on the normal game
                said.append((seat, (DOUBLED, 0, 0)))
            else:
                said.append((seat, (DOUBLED, d.row, d.dbl_round)))
        elif code != A.PASS and not (code == A.BID_CONTRACT and seat == fh):
            said.append((seat, (BID, (code - A.BID_CONTRACT) >> 1)))
        d.step(code)
    for seat, code in plays:
        if d.turn != seat or d.phase != PLAY:
            return None
        d.step(code)
    return (d, said) if d.turn == view.to_act else None
