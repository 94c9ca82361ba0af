"""Dreierschnapsen deals consistent with what one seat knows (determinization).

The strong AI searches sampled "worlds": complete `DreierDeal`s that agree with the
seat's view in everything it can see, with the cards it cannot see dealt at random.
Its no-peeking guarantee rests on this module reading nothing but the `SeatView`.

What a player at the table knows, and so what every world respects (RULES.md §1, §3):
- his hand (while trumps are named: his first packet of 3, in dealing order), the
  talon while he discards it as declarer, and his own discards afterwards;
- the blind trump card (held by forehand until played), the marriage partners shown,
  the Plauderer's open hand (`view.known`), every card played;
- the auction and the doubling: a bid that needs a holding (Ass-Bettler's ace,
  Farbenringerl's suit, Herrenschnapser's trumps) proves the bidder held it;
- Stichzwang: a player who played card c to a trick held no card x that would have
  made c illegal there (he could not follow, trump, over-trump, or head the trick).
  Because legality is monotone in the hand, "c is illegal from {c, x}" is exactly the
  test, so the inference uses the engine's own `allowed_mask`, not a second copy of
  the trick rules.  Such a card lies with somebody else, or out of play.

The world is rebuilt by replaying the public actions (trump, bids, discard, Spritzen,
tricks) on the rules core itself, once per decision, so every derived number (points,
marriages, first tricks, the Plauderer's open hand) is the engine's own.  Each sample
then only deals the hidden cards into the hands, the talon and the discard pile.
Hidden cards are dealt at random among the slots that may hold them (the cards with
the fewest places first), which is close to the uniform posterior when the other
players' choices are not modelled.

The table's options come from `view.options` when the view carries them; otherwise
they are read from what the view shows (legal actions, the auction), which is exactly
enough for the sampled world to offer the same legal actions as the real deal.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from itertools import combinations

from ..actions import (
    DISCARD,
    DOUBLE,
    MARRIAGE_FLAG,
    PASS,
    TRUMP_BLIND,
    TRUMP_SUIT,
    Bid,
    Claim,
    Discard,
    Double,
    Pass,
    encode,
)
from ..cards import DECK20_MASK, cards_of
from ..dreier import DreierDeal, DreierOptions
from ..dreier import options as parse_options
from ..dreier.contracts import ACES, CONTRACT_IDS, CONTRACTS, FULL_SUIT, ROW, Holding
from ..dreier.rules import DISCARD as DISCARD_PHASE
from ..dreier.rules import PHASES
from ..tricks import allowed_mask
from ..views import SeatView
from .dreier_policy import policy, trump_choice

#: Slots the hidden cards go to: the three hands, the talon, the discard pile.
TALON, PILE = 3, 4
_RANK_KING, _RANK_QUEEN = 2, 3
#: Samples tried before a holding proven by a bid is given up (never in a legal deal).
_TRIES = 40
#: Deals tried for one whose public decisions the heuristic would have made alike.
FIT_TRIES = 5
#: Distinct worlds dealt per decision; past that, sampling draws among them again
#: (a search that has narrowed down to one or two candidates keeps asking for worlds,
#: and dealing a fitted world costs more than playing one out).
POOL = 80


def extra(view: SeatView, key: str) -> object:
    for k, v in view.extra:
        if k == key:
            return v
    return None


@dataclass(frozen=True, slots=True)
class DreierWorlds:
    """What one seat knows, as masks, and a sampler of deals consistent with it.

    `base` is the deal replayed from the public actions (hidden masks still to be
    filled); `sample` deals `hidden` into the slots by `caps`, never giving a seat a
    card of its `barred` mask, and keeps the `holdings` proven by the auction.
    """

    seat: int
    base: DreierDeal
    #: Cards this seat cannot see: other hands' unknown cards, the talon, the pile.
    hidden: int
    #: How many hidden cards each slot takes (seat 0..2, talon, discard pile).
    caps: tuple[int, int, int, int, int]
    #: Per seat: hidden cards it cannot hold (Stichzwang inferences).
    barred: tuple[int, int, int]
    #: Per seat: the cards it is known to hold (shown) and has played.
    fixed: tuple[int, int, int]
    played: tuple[int, int, int]
    #: (seat, holding) proven by a bid or a raise.
    holdings: tuple[tuple[int, Holding], ...]
    #: While trumps are named: this seat's first packet, in dealing order.
    packet: tuple[int, ...] = ()
    #: The public decisions as codes: the trump choice, the bids, the raise (0 or
    #: row + 1) and Spritzen, to check sampled hands against (`_misfits`).
    trump_code: int = -1
    bids: tuple[tuple[int, int], ...] = ()
    raised: int = 0
    spritzen: tuple[tuple[int, int], ...] = ()
    #: The worlds dealt so far for this decision (`POOL` at most, then drawn again).
    pool: list[DreierDeal] = field(default_factory=list)

    @property
    def certain(self) -> bool:
        """Nothing hidden can change play: every hidden card that is still in play
        is in one seat's hand (or none is)."""
        if self.packet:
            return False
        live = [n for n in self.caps[:4] if n]
        return len(live) == 0 or (len(live) == 1 and not self.caps[PILE])

    def sample(self, rng: random.Random) -> DreierDeal:
        """A complete deal consistent with the view; hidden cards dealt at random.

        The other seats are assumed to decide like the heuristic: of up to
        `FIT_TRIES` deals, the first in which they would have named the same trump
        and made the same bids and Spritzen is kept (else the one that fits best).
        Against other players this is a soft prior, never a refusal.
        """
        if self.packet:
            return self._sample_packet(rng)
        pool = self.pool
        if len(pool) >= POOL:
            return pool[rng.randrange(len(pool))].copy()
        world = self._fresh(rng)
        pool.append(world.copy())
        return world

    def _fresh(self, rng: random.Random) -> DreierDeal:
        hidden = cards_of(self.hidden)
        best: list[int] | None = None
        best_miss = 1 << 30
        tries = FIT_TRIES if self.trump_code >= 0 else 1
        for _ in range(tries):
            slots = _deal(rng, hidden, self.caps, self.barred)
            for _ in range(_TRIES):
                if self._holds(slots):
                    break
                slots = _deal(rng, hidden, self.caps, self.barred)
            miss = self._misfits(slots, rng) if tries > 1 else 0
            if miss < best_miss:
                best, best_miss = slots, miss
                if not miss:
                    break
        assert best is not None
        return self._world(best)

    def _world(self, slots: list[int]) -> DreierDeal:
        d = self.base.copy()
        fixed = self.fixed
        hands = [fixed[0] | slots[0], fixed[1] | slots[1], fixed[2] | slots[2]]
        d.hands = hands
        if d.phase <= DISCARD_PHASE:
            d.talon = slots[TALON]
        else:
            d.discard |= slots[PILE]
        played = self.played
        dealt = [cards_of(hands[s] | played[s]) for s in range(3)]
        if d.phase == DISCARD_PHASE:
            dealt[d.decl] = cards_of(hands[d.decl] & ~d.taken)
        d.dealt = (dealt[0], dealt[1], dealt[2], cards_of(d.talon | d.taken))
        return d

    def _misfits(self, slots: list[int], rng: random.Random) -> int:
        """How many public decisions of the other seats the heuristic would not have
        made from these hands (the trump choice, bids, Spritzen)."""
        base = self.base
        me = self.seat
        fh = base.fh
        decl = base.decl
        fixed, played = self.fixed, self.played
        orig = [fixed[s] | slots[s] | played[s] for s in range(3)]
        pile = slots[PILE] | base.discard
        if base.phase == DISCARD_PHASE:
            orig[decl] &= ~base.taken
            talon = base.taken
        elif base.discarded:
            eight = orig[decl] | pile
            keep = 1 << base.trump_card if base.trump_card >= 0 and decl == fh else 0
            pick = rng.sample(cards_of(eight & ~keep), 2)
            talon = (1 << pick[0]) | (1 << pick[1])
            orig[decl] = eight & ~talon
        elif base.phase > DISCARD_PHASE:
            talon = pile
        else:
            talon = slots[TALON]
        blind = base.trump_card
        rest = cards_of(orig[fh] & ~(1 << blind)) if blind >= 0 else cards_of(orig[fh])
        packet: tuple[int, ...] = rest[:3]
        bids = [(seat, code) for seat, code in self.bids if seat != me]
        doubles = [(seat, code) for seat, code in self.spritzen if seat != me]
        took = base.phase > DISCARD_PHASE and decl != me and base.discarded
        # the checks left, cheapest and most telling first; a miss ends the test
        left = (fh != me) + took + len(bids) + len(doubles)
        if fh != me:
            fits = [p for p in combinations(rest, 3) if trump_choice(p) == self.trump_code]
            if not fits:
                return left
            packet = fits[rng.randrange(len(fits))]
            left -= 1
        second = [c for c in rest if c not in packet]
        if blind >= 0:
            second.insert(0, blind)
        dealt = [list(cards_of(orig[s])) for s in range(3)]
        dealt[fh] = [*packet, *second]
        d = DreierDeal.start(base.opts, base.dealer, dealt, cards_of(talon))
        d.step(self.trump_code)
        asked: list[tuple[DreierDeal, int]] = []
        for seat, code in self.bids:
            if seat != me:
                asked.append((d.copy(), code))
            d.step(code)
        if d.phase == DISCARD_PHASE and base.phase > DISCARD_PHASE:
            if took:
                # the heuristic's discard from these 8 cards must be cards not seen
                # since (neither played nor shown): then those are the pile
                code = policy(d)
                raised, rest2 = divmod(code - DISCARD, 1024)
                thrown = (1 << (rest2 & 31)) | (1 << (rest2 >> 5))
                hand = (slots[decl] | slots[PILE]) & ~thrown
                known = base.discard  # the blind trump card, if he threw it
                if raised != self.raised or thrown & (fixed[decl] | played[decl]):
                    return left
                if hand & self.barred[decl] or thrown & known != known:
                    return left
                slots[decl] = hand
                slots[PILE] = thrown & ~known
                pile = thrown
                left -= 1
            lo, hi = cards_of(pile)
            d.step(DISCARD + lo + 32 * hi + 1024 * self.raised)
        for state, code in asked:
            if policy(state) != code:
                return left
            left -= 1
        for seat, code in self.spritzen:
            if seat != me:
                if policy(d) != code:
                    return left
                left -= 1
            d.step(code)
        return left

    def _holds(self, slots: list[int]) -> bool:
        for s, holding in self.holdings:
            cards = self.fixed[s] | slots[s] | self.played[s]
            if s == self.base.decl:
                cards |= slots[PILE]
            if holding is Holding.ACE:
                ok = bool(cards & ACES)
            elif holding is Holding.TRUMPS:
                m = FULL_SUIT[self.base.trump]
                ok = cards & m == m
            else:
                ok = any(cards & m == m for m in FULL_SUIT)
            if not ok:
                return False
        return True

    def _sample_packet(self, rng: random.Random) -> DreierDeal:
        """Trump phase: forehand knows only his first 3 cards; deal the other 17."""
        base = self.base
        rest = list(cards_of(self.hidden))
        rng.shuffle(rest)
        fh = base.fh
        hands: list[list[int]] = [[], [], []]
        hands[fh] = [*self.packet, *rest[:3]]
        pos = 3
        for s in range(3):
            if s != fh:
                hands[s] = rest[pos : pos + 6]
                pos += 6
        return DreierDeal.start(base.opts, base.dealer, hands, rest[pos : pos + 2])


def _deal(
    rng: random.Random,
    hidden: tuple[int, ...],
    caps: tuple[int, int, int, int, int],
    barred: tuple[int, int, int],
) -> list[int]:
    """Hidden cards into slots by capacity, no seat getting a barred card.

    Cards with fewer possible slots go first; each goes to a slot it may enter with
    probability proportional to the room left there.  A dead end (rare) starts over;
    after a few, the inferences are dropped (they cannot contradict a legal deal, but
    a sampler must never fail).
    """
    bars = barred[0] | barred[1] | barred[2]
    if not bars:
        cards = list(hidden)
        rng.shuffle(cards)
        out = [0, 0, 0, 0, 0]
        pos = 0
        for i in range(5):
            for c in cards[pos : pos + caps[i]]:
                out[i] |= 1 << c
            pos += caps[i]
        return out
    for attempt in range(8):
        if attempt == 7:
            bars = 0
        room = list(caps)
        slots = [0, 0, 0, 0, 0]
        cards = list(hidden)
        rng.shuffle(cards)
        if bars:
            cards.sort(key=lambda c: -(bars >> c & 1))
        ok = True
        for c in cards:
            total = 0
            for i in range(5):
                if room[i] and not (i < 3 and bars and barred[i] >> c & 1):
                    total += room[i]
            if not total:
                ok = False
                break
            r = rng.randrange(total)
            for i in range(5):
                if room[i] and not (i < 3 and bars and barred[i] >> c & 1):
                    r -= room[i]
                    if r < 0:
                        room[i] -= 1
                        slots[i] |= 1 << c
                        break
        if ok:
            return slots
    raise AssertionError("unreachable: without inferences every deal fits")  # pragma: no cover


def table_options(view: SeatView) -> DreierOptions:
    """The table's rule options: from the view, or read from what it shows.

    Without `view.options`, the defaults, corrected by what the legal actions and the
    auction prove: an optional contract bid or offered is enabled; a `claim` means
    auto-claim is off; "without talon" offered (or not) for the contracts offered;
    raises offered with the discard; forehand allowed to pass the opening (caller
    first).  That is enough for a world to offer exactly the real legal actions.
    """
    if view.options:
        return parse_options(dict(view.options))
    fh = (view.dealer + 1) % 3
    opts = DreierOptions()
    kw: dict[str, bool] = {}
    bids = [a for _, a in view.bids if isinstance(a, Bid) and a.contract is not None]
    offered = [a for a in view.legal if isinstance(a, Bid) and a.contract is not None]
    for b in bids + offered:
        c = CONTRACTS[ROW[b.contract]] if b.contract in ROW else None
        if c is not None and c.option is not None:
            kw[c.option] = True
    contract = view.contract
    if contract in ROW and CONTRACTS[ROW[contract]].option is not None:
        kw[str(CONTRACTS[ROW[contract]].option)] = True
    if any(isinstance(a, Claim) for a in view.legal):
        kw["auto_claim"] = False
    if offered:
        wt = {ROW[b.contract] for b in offered if b.without_talon and b.contract in ROW}
        rows = {ROW[b.contract] for b in offered if b.contract in ROW}
        if not wt:
            kw["without_talon"] = False
        elif any(r not in wt and CONTRACTS[r].carinthian_no_talon for r in rows):
            kw["carinthian"] = True
    if any(isinstance(a, Bid) and a.without_talon for _, a in view.bids):
        kw["without_talon"] = True
    opening = not view.bids and view.to_act == fh and view.phase == "bidding"
    if opening and any(isinstance(a, Pass) for a in view.legal):
        kw["caller_first"] = True
    if view.bids and view.bids[0][0] == fh and isinstance(view.bids[0][1], Pass):
        kw["caller_first"] = True
    if len(view.bids) == 1 and view.phase not in ("trump", "bidding"):
        kw["caller_first"] = True  # the caller announced and nobody else bid
    side_points = extra(view, "side_points")
    if isinstance(side_points, tuple) and max(side_points, default=0) >= 66:
        kw["auto_claim"] = False  # a side has 66 and play goes on: nobody claimed
    settled = next((a for _, a in reversed(view.bids) if isinstance(a, Bid)), None)
    if (
        view.declarer is not None
        and view.declarer == view.seat
        and view.phase in ("doubling", "play")
        and not (isinstance(settled, Bid) and settled.without_talon)
        and extra(view, "discarded") is None
    ):
        kw["carinthian"] = True  # the declarer did not get the talon
    discards = [a for a in view.legal if isinstance(a, Discard)]
    if discards:
        raised = [a.contract for a in discards if a.contract is not None]
        kw["raise_after_talon"] = bool(raised)
        for cid in raised:
            option = CONTRACTS[ROW[cid]].option if cid in ROW else None
            if option is not None:
                kw[option] = True
    return replace(opts, **kw)


def worlds(view: SeatView) -> DreierWorlds:
    """Read a seat's view of a running deal into a `DreierWorlds` sampler."""
    me = view.seat
    if me is None or view.to_act is None:
        raise ValueError("worlds are built from a seat's view of a running deal")
    opts = table_options(view)
    dealer = view.dealer
    hand = 0
    for card in view.hand:
        hand |= 1 << card.index
    if view.phase == "trump":
        packet = tuple(c.index for c in view.hand)
        base = DreierDeal.start(opts, dealer, [[0] * 6] * 3, [0, 0])
        z = (0, 0, 0)
        return DreierWorlds(me, base, DECK20_MASK & ~hand, (0, 0, 0, 0, 0), z, z, z, (), packet)

    first: DreierWorlds | None = None
    for o in _variants(opts, bool(view.options)):
        try:
            w = _build(view, o, me, hand)
        except ValueError:
            continue
        if w.sample(random.Random(0)).view(me) == view:
            return w
        first = first or w
    if first is None:
        raise ValueError("the view's history does not replay to the same position")
    return first


def _variants(opts: DreierOptions, given: bool) -> list[DreierOptions]:
    """The options read from the view first, then (unless the view named them) the
    same with the flags a view cannot always show flipped, fewest flips first: the
    first whose world replays the history and offers the real legal actions wins."""
    if given:
        return [opts]
    flags = ("auto_claim", "carinthian", "caller_first", "without_talon", "raise_after_talon")
    out = []
    for n in range(len(flags) + 1):
        for names in combinations(flags, n):
            out.append(replace(opts, **{f: not getattr(opts, f) for f in names}))
    return out


def _build(view: SeatView, opts: DreierOptions, me: int, hand: int) -> DreierWorlds:
    d, history = _replay(view, opts, me)

    fixed = [0, 0, 0]
    fixed[me] = hand
    for s, card in view.known:
        fixed[s] |= 1 << card.index
    played = [0, 0, 0]
    for trick in view.tricks:
        for s, card in trick:
            played[s] |= 1 << card.index
    for s, card in view.trick:
        played[s] |= 1 << card.index

    pile_known = 0
    if me == d.decl and d.discarded:
        for x in _cards(extra(view, "discarded")):
            pile_known |= 1 << x
    taken = 0
    if d.phase == DISCARD_PHASE:
        for card in view.talon_cards:
            taken |= 1 << card.index
    seen = fixed[0] | fixed[1] | fixed[2] | played[0] | played[1] | played[2] | pile_known
    if view.trump_card is not None and not seen >> view.trump_card.index & 1:
        # the blind trump card, public, neither held nor played: the declarer threw it
        pile_known |= 1 << view.trump_card.index
        seen |= pile_known
    hidden = DECK20_MASK & ~seen
    caps = [0, 0, 0, 0, 0]
    for s in range(3):
        if s != me:
            caps[s] = view.hand_sizes[s] - fixed[s].bit_count()
    caps[TALON] = view.talon_size
    caps[PILE] = hidden.bit_count() - sum(caps)
    if caps[PILE] + pile_known.bit_count() not in (0, 2) or min(caps) < 0:
        raise ValueError("the view's card counts do not add up")

    barred = _stichzwang_bars(view, d, hidden, me)
    holdings = _holdings(view, d, me)

    d.hands = [fixed[0], fixed[1], fixed[2]]
    d.talon = 0
    d.taken = taken
    d.discard = pile_known
    return DreierWorlds(
        me,
        d,
        hidden,
        (caps[0], caps[1], caps[2], caps[3], caps[4]),
        barred,
        (fixed[0], fixed[1], fixed[2]),
        (played[0], played[1], played[2]),
        holdings,
        (),
        history.trump,
        history.bids,
        history.raised,
        history.spritzen,
    )


def _cards(obj: object) -> list[int]:
    if not isinstance(obj, tuple):
        return []
    return [c.index for c in obj if hasattr(c, "index")]


def _replay(view: SeatView, opts: DreierOptions, me: int) -> tuple[DreierDeal, History]:
    """The deal's public history replayed on the rules core (hidden masks are dummies).

    `step` applies codes without checks and derives everything public (points,
    marriages, first tricks, phase, turn) from the actions alone; the masks are
    replaced per sample.
    """
    dealer = view.dealer
    fh = (dealer + 1) % 3
    dummy = [[0] * 6 for _ in range(3)]
    if view.trump_card is not None:
        dummy[fh][3] = view.trump_card.index
    d = DreierDeal.start(opts, dealer, dummy, [0, 0])
    named = extra(view, "named_trump")
    if view.trump_card is not None:
        trump_code = TRUMP_BLIND + 3
    elif isinstance(named, int):
        trump_code = TRUMP_SUIT + named
    else:
        raise ValueError("a dreier view past the trump phase names a trump")
    d.step(trump_code)
    bids = []
    for seat, action in view.bids:
        _check_turn(d, seat)
        code = encode(action, CONTRACT_IDS)
        bids.append((seat, code))
        d.step(code)
    raised = 0
    if d.phase == DISCARD_PHASE and view.phase != "discard":
        lo, hi = 0, 1
        if me == d.decl:
            mine = sorted(_cards(extra(view, "discarded")))
            if len(mine) == 2:
                lo, hi = mine
        c = d.contract
        if view.contract is not None and c is not None and view.contract != c.id:
            raised = ROW[view.contract] + 1
        d.step(DISCARD + lo + 32 * hi + 1024 * raised)
    spritzen = extra(view, "spritzen")
    doubles = []
    for seat, action in spritzen if isinstance(spritzen, tuple) else ():
        _check_turn(d, seat)
        code = DOUBLE if isinstance(action, Double) else PASS
        doubles.append((seat, code))
        d.step(code)
    married = {(s, int(suit)) for s, suit, _ in view.marriages}
    for trick in (*view.tricks, view.trick):
        for i, (seat, card) in enumerate(trick):
            _check_turn(d, seat)
            code = card.index
            if i == 0 and card.rank in (_RANK_KING, _RANK_QUEEN):
                key = (seat, int(card.suit))
                if key in married:
                    married.discard(key)  # the first K/Q led of that suit declared it
                    code |= MARRIAGE_FLAG
            d.step(code)
    if d.turn != view.to_act or PHASES[d.phase] != view.phase:
        raise ValueError("the view's history does not replay to the same position")
    return d, History(trump_code, tuple(bids), raised, tuple(doubles))


@dataclass(frozen=True, slots=True)
class History:
    """The public decisions before the play, as codes."""

    trump: int
    bids: tuple[tuple[int, int], ...]
    raised: int
    spritzen: tuple[tuple[int, int], ...]


def _check_turn(d: DreierDeal, seat: int) -> None:
    if d.turn != seat:
        raise ValueError("the view's history does not replay (turn order)")


def _stichzwang_bars(view: SeatView, d: DreierDeal, hidden: int, me: int) -> tuple[int, int, int]:
    """Per seat, the hidden cards it cannot hold, from its answers under Stichzwang."""
    c = d.contract
    if c is None:
        return (0, 0, 0)
    trump = d.trump if c.trumps else -1
    order = c.order
    bars = [0, 0, 0]
    cands = cards_of(hidden)
    for trick in (*view.tricks, view.trick):
        before: list[int] = []
        for seat, card in trick:
            x = card.index
            if before and seat != me:
                one = 1 << x
                for h in cands:
                    if (
                        not bars[seat] >> h & 1
                        and not allowed_mask(one | 1 << h, before, trump, order) & one
                    ):
                        bars[seat] |= 1 << h
            before.append(x)
    return (bars[0] & hidden, bars[1] & hidden, bars[2] & hidden)


def _holdings(view: SeatView, d: DreierDeal, me: int) -> tuple[tuple[int, Holding], ...]:
    """Holdings proven by bids (and by a raise with the discard) of other seats."""
    out: list[tuple[int, Holding]] = []
    for seat, action in view.bids:
        if seat != me and isinstance(action, Bid) and action.contract in ROW:
            h = CONTRACTS[ROW[action.contract]].holding
            if h is not Holding.NONE:
                out.append((seat, h))
    if view.contract in ROW and d.decl >= 0 and d.decl != me:
        h = CONTRACTS[ROW[view.contract]].holding
        if h is not Holding.NONE:
            out.append((d.decl, h))
    return tuple(dict.fromkeys(out))
