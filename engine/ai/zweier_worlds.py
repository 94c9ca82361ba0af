"""Zweierschnapsen deals consistent with what one seat knows (determinization).

The strong AI searches sampled "worlds": complete `ZweierDeal`s that agree with the
seat's view in everything it can see, with the cards it cannot see (the opponent's
unknown cards and the talon, in a random order) dealt at random.  Its no-peeking
guarantee rests on this module reading nothing but the `SeatView`.

What a player at the table knows, and so what every world respects (RULES.md §1-2):
- his hand, the face-up trump (while in the talon), every completed trick, the card
  led to the current trick, the marriages declared and their shown partner cards, the
  trump taken by an exchange or drawn as the last talon card (`view.known`);
- the talon size, whether and by whom it was closed and the closing snapshot;
- under Stichzwang (talon closed or gone), what the opponent *could not* hold: a
  player who did not follow suit has none of that suit (and none of trumps, if he did
  not trump either), and one who followed below the led card has nothing above it.
  Such cards can only lie in the (closed, dead) talon.

Hidden cards are dealt uniformly among all assignments that satisfy this, which is
the exact posterior for a random shuffle when the opponent's play is not modelled.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..cards import DECK20_MASK, MARRIAGE_MASK, POINTS, SUIT_MASK, cards_of
from ..tricks import HIGHER, STRENGTH, Order, best_in_trick
from ..views import SeatView
from ..zweier import ZweierDeal, options

_STRENGTH = STRENGTH[Order.NORMAL]
_HIGHER = HIGHER[Order.NORMAL]
#: Cards in a fresh talon (nine face down and the face-up trump): two go per open trick.
_FULL_TALON = 10


def _extra(view: SeatView, key: str) -> object:
    for k, v in view.extra:
        if k == key:
            return v
    return None


@dataclass(frozen=True, slots=True)
class ZweierWorlds:
    """What one seat knows, as masks, and a sampler of deals consistent with it.

    `base` is the deal as far as it is known: the opponent's hand holds only his known
    cards and the talon is empty; `sample` fills in `hidden` cards.
    """

    seat: int
    base: ZweierDeal
    #: Cards nobody has shown this seat: the opponent's unknown cards and the talon.
    hidden: int
    #: Hidden cards the opponent cannot hold (Stichzwang inferences): talon only.
    barred: int
    #: How many unknown cards the opponent holds; the rest of `hidden` is the talon.
    opp_unknown: int

    @property
    def certain(self) -> bool:
        """Nothing hidden is left that could change play: one world is the truth.

        So when every hidden card is in the opponent's hand (talon gone), or the
        opponent's hand is fully known and the talon is closed (its cards are dead).
        """
        n = self.hidden.bit_count()
        if n == self.opp_unknown:
            return True
        return self.opp_unknown == 0 and (self.base.closed_by >= 0 or n <= 1)

    def sample(self, rng: random.Random) -> ZweierDeal:
        """A complete deal consistent with the view; hidden cards dealt at random."""
        d = self.base.copy()
        hidden = cards_of(self.hidden)
        opp = 1 - self.seat
        if self.opp_unknown:
            free = cards_of(self.hidden & ~self.barred)
            chosen = rng.sample(free, self.opp_unknown)
            mask = 0
            for c in chosen:
                mask |= 1 << c
            d.hands[opp] |= mask
            stock = [c for c in hidden if not mask >> c & 1]
        else:
            stock = list(hidden)
        rng.shuffle(stock)
        d.stock = tuple(stock)
        d.tpos = 0
        d.dealt = (tuple(cards_of(d.hands[0])), tuple(cards_of(d.hands[1])), (*stock, d.upcard))
        return d


def worlds(view: SeatView) -> ZweierWorlds:
    """Read a seat's view of a running deal into a `ZweierWorlds` sampler."""
    me = view.seat
    if me is None or view.trump is None or view.to_act is None:
        raise ValueError("worlds are built from a seat's view of a running deal")
    opp = 1 - me
    trump = int(view.trump)
    hand = 0
    for card in view.hand:
        hand |= 1 << card.index
    up = view.trump_card.index if view.trump_card is not None else -1

    won = [0, 0]
    points = [0, 0]
    tricks = [0, 0]
    history: list[tuple[int, int, int]] = []
    barred = 0
    strict_from = (_FULL_TALON - view.talon_size) // 2
    last: tuple[int, int, int, int] = (-1, -1, -1, -1)
    for i, trick in enumerate(view.tricks):
        (leader, c1), (_, c2) = trick
        a, b = c1.index, c2.index
        w = leader if best_in_trick((a, b), trump, _STRENGTH) == 0 else 1 - leader
        won[w] |= (1 << a) | (1 << b)
        points[w] += POINTS[a] + POINTS[b]
        tricks[w] += 1
        history.append((leader, a, b))
        last = (leader, a, b, w)
        if i >= strict_from and leader == me:
            barred |= _stichzwang_bars(a, b, trump)

    mpoints = [0, 0]
    marriages: list[tuple[int, int, int]] = []
    for s, suit, value in view.marriages:
        mpoints[s] += value
        marriages.append((s, int(suit), value))

    opp_known = 0
    for s, card in view.known:
        if s == opp:
            opp_known |= 1 << card.index
    # Our own shown cards: a declared marriage's partner still in hand.
    my_shown = 0
    for s, msuit, _ in marriages:
        if s == me:
            my_shown |= hand & MARRIAGE_MASK[msuit]

    lead = -1
    leader = view.to_act
    if view.trick:
        leader, first = view.trick[0]
        lead = first.index

    closed_by = _extra(view, "closed_by")
    snapshot = _extra(view, "closing_snapshot")
    d = ZweierDeal.__new__(ZweierDeal)
    d.log = None
    d.opts = options(dict(view.options))
    d.auto = d.opts.auto_claim
    d.dealer = view.dealer
    d.hands = [0, 0]
    d.hands[me] = hand
    d.hands[opp] = opp_known
    d.stock = ()
    d.tpos = 0
    d.upcard = up
    d.trump = trump
    d.closed_by = closed_by if isinstance(closed_by, int) else -1
    if isinstance(snapshot, tuple):
        d.close_opp_points, d.close_opp_tricks = snapshot
    else:
        d.close_opp_points = d.close_opp_tricks = 0
    d.leader = leader
    d.turn = view.to_act
    d.lead_card = lead
    d.points = points
    d.mpoints = mpoints
    d.tricks = tricks
    d.won = won
    d.last = last
    d.shown = [0, 0]
    d.shown[me] = my_shown
    d.shown[opp] = opp_known
    d.marriages = tuple(marriages)
    d.res = None
    d.history = tuple(history)
    d.dealt = ((), (), ())

    seen = hand | won[0] | won[1] | opp_known
    if lead >= 0:
        seen |= 1 << lead
    if up >= 0:
        seen |= 1 << up
    hidden = DECK20_MASK & ~seen
    opp_unknown = view.hand_sizes[opp] - opp_known.bit_count()
    stock_size = view.talon_size - (up >= 0)
    if hidden.bit_count() != opp_unknown + stock_size:
        raise ValueError("the view's card counts do not add up")
    barred &= hidden
    if (hidden & ~barred).bit_count() < opp_unknown:
        barred = 0  # inconsistent inferences (cannot happen in a legal deal): ignore them
    return ZweierWorlds(me, d, hidden, barred, opp_unknown)


def _stichzwang_bars(led: int, answer: int, trump: int) -> int:
    """Cards the follower cannot have held when he answered `led` with `answer` under
    Stichzwang (RULES.md §1 rules 1-2); he holds none of them later either."""
    suit = led // 6
    if answer // 6 == suit:
        if _STRENGTH[answer] < _STRENGTH[led]:
            return _HIGHER[led]  # he could not head the trick
        return 0
    bars = SUIT_MASK[suit]  # he could not follow
    if answer // 6 != trump:
        bars |= SUIT_MASK[trump]  # ... nor trump
    return bars
