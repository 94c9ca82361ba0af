"""Thousand deals consistent with what one seat knows (determinization, RULES.md §5).

The strong AI searches sampled "worlds": complete `TausendDeal`s that agree with the
seat's view in everything it can see, with the cards it cannot see dealt at random.
Its no-peeking guarantee rests on this module reading nothing but the `SeatView`.

What a player at the table knows, and so what every world respects:
- his hand (none while he has not looked, with blind bidding: then it is dealt too),
  the stock once shown (`talon_cards`), the cards he gave (the declarer: `known`),
  every completed trick and the cards of the current one, the marriages declared and
  their shown partner cards (`known`), the auction, the contract;
- where the shown stock can be: before any gift all of it is in the declarer's hand;
  after the gifts each opponent holds at most one card that came from the declarer,
  so the other opponent holds at most one stock card over the whole deal (none more
  once he has played or shown one);
- suits a player showed out of: a player who did not follow suit has none of it, and
  one who neither followed nor trumped has no trumps either (trumps as they were at
  that trick: each marriage declared changes them) — for the rest of the deal, since
  nobody receives cards during the play;
- a bid above 120 needs a marriage in hand (RULES.md §5): a bidder's cards (held and
  played since) hold a King and Queen of one suit; so do the declarer's after he
  raised above 120 (keeping his bid needs nothing);
- what the auction says of the hands, read as the heuristic bids (a model of the other
  players, with slack): a voluntary bid means a hand worth it, a pass one that is not;
  the declarer's final bid, what his cards were worth after the gifts.

Two shapes of hidden information, each dealt exactly as uniformly as it is simple:
- *open deal* (the stock not yet shown: bidding, or the golden round's claims): no
  card has been played, so every hidden card may be anywhere; a shuffle and a split;
- *two places* (the stock taken): the hidden cards lie in exactly two places, the two
  other players (or, with two players, the opponent and the face-down stock).  Cards
  one place cannot hold go to the other; the other defender's stock card is chosen
  with the weight of its completions; the rest are split uniformly.
The marriage conditions and the reads of the auction are soft: of a few draws, the one
that disagrees least is kept.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from math import comb

from ..actions import LOOK, PASS, Bid, encode
from ..cards import DECK24_MASK, MARRIAGE_MASK, POINTS, SUIT_MASK, Card, cards_of
from ..options import parse_options
from ..tausend.deal import TausendDeal
from ..tausend.rules import (
    BIDDING,
    DISCARD,
    FREE_BID_LIMIT,
    GIVE,
    NINES_MASK,
    PHASES,
    PLAY,
    TausendOptions,
    holds_marriage,
)
from ..tausend.state import Setup
from ..tricks import STRENGTH, Order, best_in_trick
from ..views import SeatView
from .tausend_policy import BID_MARGIN, RAISE_MARGIN, strength

_STRENGTH = STRENGTH[Order.NORMAL]
_KING, _QUEEN = 2, 3
#: A location that is not a seat: the face-down stock of two players (and laid cards).
PILE = -2
#: Draws tried for the marriage conditions and the bidding reads; the draw that
#: disagrees least is kept.
TRIES = 24
#: How far a hand may stray from what the heuristic would have bid or raised with
#: it: the reads are a model of the other players, not a rule they must follow.
SLACK = 10
#: ... for a hand read back from the cards a player has held and played.
SLACK_LATER = 15
_NO_LIMIT = 1 << 20


def _mask(cards: tuple[Card, ...] | list[Card]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c.index
    return m


@dataclass(frozen=True, slots=True)
class TausendWorlds:
    """What one seat knows, as masks, and a sampler of deals consistent with it.

    `base` is the deal as far as it is known (hidden cards missing).  With `open_deal`
    the hidden cards fill `slots` (seat or -1 for the stock, PILE for the second
    stock; count) in order.  Otherwise they go to place `a` or `b` (a seat, or PILE):
    `only_a`/`only_b` cannot go to the other place, `free` may go to either, and of
    `stock` (3 players, the shown stock seen by a defender) place `b` takes at most
    `stock_max` (0 or 1), only cards of `stock_b`; `cap_b` hidden cards go to `b`.
    `needs`: (seat, mask) pairs whose cards plus mask must hold a marriage.
    `reads`: what the auction and the raise say of a hand, as (seat, plus, minus,
    before_stock, low, high): the heuristic's `strength` of (cards | plus) & ~minus
    lies in [low, high) (see `_reads`).
    """

    seat: int
    base: TausendDeal
    opts: TausendOptions
    hidden: int
    open_deal: bool
    slots: tuple[tuple[int, int], ...]
    a: int
    b: int
    cap_b: int
    only_a: int
    only_b: int
    free: int
    stock: int
    stock_b: int
    stock_max: int
    needs: tuple[tuple[int, int], ...]
    reads: tuple[tuple[int, int, int, bool, int, int], ...] = ()

    @property
    def certain(self) -> bool:
        """Only one world agrees with the view (nothing hidden is left to deal)."""
        if self.open_deal:
            return sum(1 for _, k in self.slots if k) <= 1
        n_b = self.cap_b
        n_a = self.hidden.bit_count() - n_b
        if not n_a or not n_b:
            return True
        return not self.free and not (self.stock_max and self.stock_b)

    def sample(self, rng: random.Random) -> TausendDeal:
        """A complete deal consistent with the view; hidden cards dealt by `rng`."""
        draw = self._deal_open if self.open_deal else self._deal_two
        d = draw(rng)
        if not self.needs and not self.reads:
            return d
        best = d
        best_miss = self._misses(d)
        tries = 1
        while best_miss and tries < TRIES:
            d = draw(rng)
            tries += 1
            miss = self._misses(d)
            if miss < best_miss:
                best, best_miss = d, miss
        return best

    def _misses(self, d: TausendDeal) -> int:
        """How badly a draw disagrees with the soft evidence: a missing marriage
        counts 3, each hand out of the range its bids or raise suggest counts 1."""
        hands = d.hands
        miss = 0
        for s, m in self.needs:
            if not holds_marriage(hands[s] | m):
                miss += 3
        for s, plus, minus, before, lo, hi in self.reads:
            x = strength((hands[s] | plus) & ~minus, before)
            if not lo <= x < hi:
                miss += 1
        return miss

    def _deal_open(self, rng: random.Random) -> TausendDeal:
        d = self.base.copy()
        cards = list(cards_of(self.hidden))
        rng.shuffle(cards)
        i = 0
        stock: list[int] = []
        for where, k in self.slots:
            part = cards[i : i + k]
            i += k
            m = 0
            for c in part:
                m |= 1 << c
            if where >= 0:
                d.hands[where] |= m
            elif where == PILE:
                d.pile |= m
            else:
                stock = part
                d.stock = m
        if stock:
            d.setup = Setup.of(
                self.opts,
                d.setup.dealer,
                d.setup.golden,
                tuple(stock),
                d.setup.barrel,
                d.setup.scores,
            )
        return d

    def _deal_two(self, rng: random.Random) -> TausendDeal:
        d = self.base.copy()
        to_b = self.only_b
        need = self.cap_b - self.only_b.bit_count()
        free = list(cards_of(self.free))
        stock_b = list(cards_of(self.stock_b))
        if self.stock_max and stock_b:
            # Does place b hold one of the shown stock cards?  Weighted by completions.
            w0 = comb(len(free), need) if 0 <= need <= len(free) else 0
            w1 = len(stock_b) * comb(len(free), need - 1) if 1 <= need <= len(free) + 1 else 0
            if w0 + w1 and rng.randrange(w0 + w1) >= w0:
                to_b |= 1 << rng.choice(stock_b)
                need -= 1
        if 0 <= need <= len(free):
            for c in rng.sample(free, need):
                to_b |= 1 << c
        to_a = self.hidden & ~to_b
        for where, m in ((self.a, to_a), (self.b, to_b)):
            if where >= 0:
                d.hands[where] |= m
            else:
                d.pile |= m
        return d


def _extra(view: SeatView) -> dict[str, object]:
    return dict(view.extra)


def worlds(view: SeatView) -> TausendWorlds:
    """Read a seat's view of a running Thousand deal into a `TausendWorlds` sampler."""
    me = view.seat
    if me is None or view.to_act is None:
        raise ValueError("worlds are built from a seat's view of a running deal")
    n = view.players
    extra = _extra(view)
    golden = bool(extra.get("golden"))
    looked_flags = extra.get("looked")
    if view.options:  # the table's rules, as the view states them
        opts = parse_options(TausendOptions, "tausend", dict(view.options))
    else:  # older views: read the rules from what the view shows
        opts = TausendOptions(players=n, blind_bid=looked_flags is not None, golden_round=golden)
    taken = bool(view.talon_cards)
    stock_cards = tuple(c.index for c in view.talon_cards)
    stock_mask = _mask(list(view.talon_cards))
    barrel = extra.get("barrel", ())
    scores = extra.get("scores", ())
    assert isinstance(barrel, tuple) and isinstance(scores, tuple)
    setup = Setup.of(opts, view.dealer, golden, stock_cards, barrel, scores)
    act = setup.active
    phase = PHASES.index(view.phase)

    d = TausendDeal.__new__(TausendDeal)
    d.log = None
    d.setup = setup
    d.players = n
    d.phase = phase
    d.turn = view.to_act

    # --- the auction and the contract ------------------------------------------------
    if isinstance(looked_flags, tuple):
        looked = sum(1 << s for s, f in enumerate(looked_flags) if f)
    else:
        looked = setup.active_mask
    start_looked = 0 if setup.blind_ok else setup.active_mask
    first_seen = 0
    high_blind = False
    auction: list[tuple[int, int]] = []
    big_bidders = 0
    seen_now = start_looked
    # What each seat's bidding says of its hand: the heuristic bids the next step
    # while it stays BID_MARGIN below its strength, else passes (`_bid`).
    lows = [0] * n
    highs = [_NO_LIMIT] * n
    level = 0
    for s, action in view.bids:
        code = encode(action)
        auction.append((s, code))
        bit = 1 << s
        if code == LOOK:
            seen_now |= bit
            continue
        seen = bool(seen_now & bit)
        if seen:
            first_seen |= bit
        if code != PASS:
            high_blind = not seen
            bid_value = (action.value or 0) if isinstance(action, Bid) else 0
            if bid_value > FREE_BID_LIMIT:
                big_bidders |= bit
            if level and seen:
                lows[s] = max(lows[s], bid_value + BID_MARGIN)
            level = bid_value
        elif seen and 0 < level < FREE_BID_LIMIT:
            # (Above 120 a pass may only mean no marriage: it says nothing of strength.)
            highs[s] = min(highs[s], level + 5 + BID_MARGIN)
    d.looked = looked
    d.first_seen = first_seen
    d.auction = tuple(auction)
    bid = extra.get("bid")
    bidder = extra.get("bidder")
    d.high = bid if isinstance(bid, int) else 0
    d.high_seat = bidder if isinstance(bidder, int) else -1
    d.high_blind = high_blind
    passed = extra.get("passed")
    d.passed = sum(1 << s for s in passed) if isinstance(passed, tuple) else 0
    dec = view.declarer if view.declarer is not None else -1
    d.declarer = dec
    value = extra.get("value")
    d.value = value if isinstance(value, int) and dec >= 0 else 0
    d.mult = view.multiplier
    d.blind = bool(extra.get("blind"))
    d.opp_mask = setup.active_mask & ~(1 << dec) if dec >= 0 else 0

    # --- what is known of the hands ----------------------------------------------------
    hand = _mask(list(view.hand))
    known = [0] * n
    for s, card in view.known:
        known[s] |= 1 << card.index

    # --- the tricks: winners, points, trumps as they were, suits shown out of ----------
    open_marriages = {(s, int(suit)) for s, suit, _ in view.marriages}
    trump = -1
    won = [0] * n
    cpoints = [0] * n
    shown = [0] * n
    void = [0] * n
    played_by = [0] * n
    history: list[tuple[tuple[int, int], ...]] = []

    def read_trick(trick: tuple[tuple[int, Card], ...]) -> list[int]:
        nonlocal trump
        leader, first = trick[0]
        lead = first.index
        suit = lead // 6
        if lead % 6 in (_KING, _QUEEN) and (leader, suit) in open_marriages:
            # The first K or Q of a suit its declarer leads is the declaration: he holds
            # both then, and cannot declare that suit once either has gone.
            open_marriages.discard((leader, suit))
            trump = suit
            shown[leader] |= MARRIAGE_MASK[suit] & ~(1 << lead)
        cards = []
        for s, card in trick:
            c = card.index
            cards.append(c)
            played_by[s] |= 1 << c
            if c // 6 != suit:
                void[s] |= SUIT_MASK[suit]
                if trump >= 0 and c // 6 != trump:
                    void[s] |= SUIT_MASK[trump]
        return cards

    for trick in view.tricks:
        cards = read_trick(trick)
        seats = [s for s, _ in trick]
        w = seats[best_in_trick(cards, trump, _STRENGTH)]
        for c in cards:
            won[w] |= 1 << c
        cpoints[w] += sum(POINTS[c] for c in cards)
        history.append(tuple(zip(seats, cards, strict=True)))
    trick_now: list[int] = read_trick(view.trick) if view.trick else []
    d.trump = int(view.trump) if view.trump is not None else -1
    d.trick = trick_now
    d.leader = view.trick[0][0] if view.trick else (view.to_act if phase == PLAY else act[0])
    d.won = won
    d.tricks = list(view.tricks_won)
    d.cpoints = cpoints
    mpoints = [0] * n
    for s, _, v in view.marriages:
        mpoints[s] += v
    d.mpoints = mpoints
    d.marriages = tuple((s, int(suit), v) for s, suit, v in view.marriages)
    d.shown = shown
    d.history = tuple(history)
    d.last_winner = view.last_trick_winner if view.last_trick_winner is not None else -1
    d.res = None
    d.dealt = ()

    # --- gifts and claims -----------------------------------------------------------------
    given = [0] * n
    if me == dec:
        for o in range(n):
            if o != me:
                given[o] = known[o] & ~shown[o]
    else:
        got = extra.get("received")
        if isinstance(got, Card):
            given[me] = _mask([got])
    d.given = given
    size = 9 if n == 2 else 7
    if phase == GIVE:
        d.to_give = sum(1 << o for o in act if o != dec and view.hand_sizes[o] == size)
    elif phase == DISCARD:
        d.to_give = d.opp_mask
    else:
        d.to_give = 0
    d.taken = taken
    d.stock = stock_mask
    d.stock_claim = (
        phase in (GIVE, DISCARD)
        and d.to_give == d.opp_mask
        and (stock_mask & NINES_MASK).bit_count() >= 2
    )
    # a four-9s claim open to me now (my view says so; nobody else's claims are known)
    claim = extra.get("redeal_claim")
    d.nine_claim = (
        1 << me
        if claim in ("given_nine", "four_nines") and phase != BIDDING and view.to_act == me
        else 0
    )
    d.pile = 0
    # two players: the declarer knows the cards he laid away (his view says which)
    laid_cards = extra.get("discarded")
    d.laid = _mask(list(laid_cards)) if isinstance(laid_cards, tuple) else 0

    # --- the hidden cards and where they may lie -----------------------------------------
    played = 0
    for m in played_by:
        played |= m
    hands = [0] * n
    for s in range(n):
        hands[s] = known[s]
    looked_me = bool(looked >> me & 1)
    if looked_me:
        hands[me] = hand
    d.hands = hands
    placed = played
    for m in hands:
        placed |= m
    hidden = DECK24_MASK & ~placed
    others = [s for s in act if s != me]
    unknown = {s: view.hand_sizes[s] - known[s].bit_count() for s in act}
    if not looked_me:
        unknown[me] = view.hand_sizes[me]

    needs: list[tuple[int, int]] = []
    for s in others:
        if big_bidders >> s & 1 and s != dec:
            needs.append((s, played_by[s]))
    if dec >= 0 and dec != me and phase == PLAY and d.high < d.value > FREE_BID_LIMIT:
        # A raise above 120 (keeping the bid needs nothing): a marriage at that moment.
        needs.append((dec, played_by[dec]))

    reads: list[tuple[int, int, int, bool, int, int]] = []
    for s in others:
        lo, hi = lows[s], highs[s]
        if not taken:
            if lo or hi < _NO_LIMIT:
                reads.append((s, 0, 0, True, lo - SLACK, hi + SLACK))
        elif s != dec:
            # A defender's cards as dealt: those held and played, less a stock card
            # (one came from the declarer).
            if lo or hi < _NO_LIMIT:
                reads.append(
                    (s, played_by[s], stock_mask, True, lo - SLACK_LATER, hi + SLACK_LATER)
                )
        elif phase == PLAY:
            # The declarer's final bid says what his 8 cards were worth to him then.
            plus = played_by[s]
            if d.value > d.high:
                reads.append((s, plus, 0, False, d.value + RAISE_MARGIN - SLACK, _NO_LIMIT))
            else:
                reads.append((s, plus, 0, False, -_NO_LIMIT, d.value + 5 + RAISE_MARGIN + SLACK))

    if not taken:
        slots: list[tuple[int, int]] = [(s, unknown[s]) for s in act if s != me or not looked_me]
        slots.append((-1, 3))
        if n == 2:
            slots.append((PILE, 3))
        if sum(k for _, k in slots) != hidden.bit_count():
            raise ValueError("the view's card counts do not add up")
        return TausendWorlds(
            me,
            d,
            opts,
            hidden,
            True,
            tuple(slots),
            -1,
            -1,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            tuple(needs),
            tuple(reads),
        )

    if n == 2:
        a, b = others[0], PILE
        cap_b = view.talon_size
        # the cards I laid away (none before I have: the shown stock is in my hand)
        only_b = hidden & d.laid if me == dec else 0
    else:
        if me == dec:
            a, b = others
        else:
            a, b = dec, next(s for s in others if s != dec)
        cap_b = unknown[b]
        only_b = 0
    if cap_b + unknown[a] != hidden.bit_count():
        raise ValueError("the view's card counts do not add up")
    bar_a = void[a]
    bar_b = void[b] if b >= 0 else 0
    stock = 0
    stock_b = 0
    stock_max = 0
    if n != 2 and me != dec:
        # The other defender got one card from the declarer: at most one stock card.
        stock = hidden & stock_mask
        if not (played_by[b] | known[b]) & stock_mask:
            stock_max = 1
            stock_b = stock & ~bar_b
    forced = stock & bar_a  # stock cards the declarer cannot hold: the other's one
    if forced and stock_max and forced.bit_count() == 1 and forced & stock_b:
        only_b |= forced
        stock_b = stock_max = 0
    rest = hidden & ~stock & ~only_b
    only_b |= rest & bar_a & ~bar_b
    only_a = (rest & bar_b & ~bar_a) | (stock & ~only_b & ~(stock_b if stock_max else 0))
    free = rest & ~only_a & ~only_b
    need = cap_b - only_b.bit_count()
    nfree = free.bit_count()
    ok = 0 <= need <= nfree or (stock_max and stock_b and 1 <= need <= nfree + 1)
    if not ok or (stock & bar_a & ~only_b) or (rest & bar_a & bar_b):
        # The inferences contradict each other (a view this module misreads): deal the
        # hidden cards by the counts alone rather than fail.
        only_a = only_b = stock = stock_b = 0
        stock_max = 0
        free = hidden
    return TausendWorlds(
        me,
        d,
        opts,
        hidden,
        False,
        (),
        a,
        b,
        cap_b,
        only_a,
        only_b,
        free,
        stock,
        stock_b,
        stock_max,
        tuple(needs),
        tuple(reads),
    )
