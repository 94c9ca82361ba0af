"""Rule-based Dreierschnapsen on the rules core: the `heuristic` level, and the playout
policy of the `strong` level (so it must be fast: plain ints and masks).

It decides for the seat to act from what that seat may know and nothing else: its own
hand (with the talon while it discards), the cards played, the other seats' shown
cards (`shown & hand`, exactly `view.known`; the Plauderer's whole hand once it is
open), its own discards, and the public auction and scores.  It never reads another
seat's unknown cards, the talon or the discard pile, so it plays the same in every
sampled world and in the real deal (the no-peeking tests check this).

The rules, by phase (RULES.md §3 gives the game):
- trumps: the suit of the first packet with the most honours, else a blind card;
  redeal three Jacks;
- bidding and the raise with the discard: each contract the seat may bid is given a
  rough chance from sure tricks (top-sequence cards; trumps drawn first), a Bettler
  "danger" count (cards no unseen card can head, per position in the suit), or a
  Schnapser point count; the seat bids the best expected value, "without talon" only
  when the hand is already sure.  Forehand opens the normal game otherwise;
- discards: keep trumps, Aces, guarded Tens and marriages in the point games, make a
  void; throw the most dangerous cards in a Bettler, the non-winners in a slam;
- Spritzen: only on near-certain hands (the strong level decides by search);
- play: in the normal game cash sure winners (drawing trumps first), declare
  marriages, take points cheaply, and as a defender smear points onto a partner's
  sure trick; in the slam contracts take every trick / try to take one; in the
  Bettler family duck with the highest card that stays under, and as a defender make
  the declarer head the trick (Stichzwang), reading the Plauderer's open hand.
"""

from __future__ import annotations

from ..actions import (
    BID_CONTRACT,
    DISCARD,
    DOUBLE,
    PASS,
    REDEAL,
    TRUMP_BLIND,
    TRUMP_SUIT,
)
from ..cards import POINTS, SUIT_MASK, cards_of
from ..dreier.contracts import CONTRACTS, FULL_SUIT, NORMAL, Contract, Goal, Holding
from ..dreier.deal import DreierDeal
from ..dreier.rules import BIDDING, DOUBLING, PLAY, TARGET, TRUMP
from ..dreier.rules import DISCARD as DISCARD_PHASE
from ..tricks import Order
from .dreier_hand import (
    ACE,
    KING,
    QUEEN,
    TEN,
    chance,
    danger,
    higher_table,
    position_dangers,
    schnapser_points,
    sure_tricks,
    top_run,
    unseen,
    worst,
)
from .dreier_play import play_bettler, play_game, play_slam

_N, _AL = Order.NORMAL, Order.ACE_LOW


#: Expected value (game points, declarer's view: made +v, failed -v) a bid must beat.
BID_MARGIN = 0.6
#: Chance of making a contract the heuristic treats as sure (bids without talon,
#: redoubles).
SURE = 0.85


#: The bidding and discard rules are pure functions of what the seat knows and cost
#: tens of microseconds; playouts and the samplers ask them the same questions again
#: and again (the same world played out for each candidate), so answers are kept.
CACHE_SIZE = 100_000
_BIDS: dict[tuple[object, ...], int] = {}
_DISCARDS: dict[tuple[object, ...], int] = {}


def policy(d: DreierDeal) -> int:
    """The heuristic's action code for the seat to act."""
    phase = d.phase
    if phase == DISCARD_PHASE:
        me = d.turn
        key = (
            me,
            d.hands[me],
            d.taken,  # the talon: under `carinthian` a raise's holding is checked without it
            unseen(d, me),
            d.contract,
            d.trump,
            d.fh,
            d.all_passed,
            d.opts,
        )
        code = _DISCARDS.get(key)
        if code is None:
            if len(_DISCARDS) > CACHE_SIZE:
                _DISCARDS.clear()
            code = _DISCARDS[key] = _discard(d, me)
        return code
    codes = d.legal()
    if len(codes) == 1:
        return codes[0]
    if phase == PLAY:
        c = d.contract
        assert c is not None
        goal = c.goal
        if goal is Goal.GAME:
            return play_game(d, d.turn, codes)
        if goal is Goal.NO_TRICK:
            return play_bettler(d, d.turn, codes)
        return play_slam(d, d.turn, codes, c)
    if phase == BIDDING:
        me = d.turn
        key2 = (d.hands[me], unseen(d, me), d.trump, me == d.fh, tuple(codes))
        code = _BIDS.get(key2)
        if code is None:
            if len(_BIDS) > CACHE_SIZE:
                _BIDS.clear()
            code = _BIDS[key2] = _bid(d, me, codes)
        return code
    if phase == DOUBLING:
        return _double(d, d.turn)
    if phase == TRUMP:
        return _trump(d, codes)
    return codes[0]  # pragma: no cover - no other phase has actions


# --- trumps, bidding, discards, Spritzen ---------------------------------------------


def _trump(d: DreierDeal, codes: list[int]) -> int:
    if REDEAL in codes:
        return REDEAL
    return trump_choice(d.first_packet(d.fh))


def trump_choice(first: tuple[int, ...]) -> int:
    """Name the suit of the first packet with the most honours, else turn a blind card
    (three Jacks are redealt before this is asked)."""
    mask = (1 << first[0]) | (1 << first[1]) | (1 << first[2])
    code = _TRUMP_CHOICE.get(mask)
    if code is None:
        code = _TRUMP_CHOICE[mask] = _trump_choice(first)
    return code


_TRUMP_CHOICE: dict[int, int] = {}


def _trump_choice(first: tuple[int, ...]) -> int:
    value = (4.0, 3.0, 2.0, 2.0, 1.0, 0.0)
    best, best_v = TRUMP_BLIND + 3, 3.5
    for s in range(4):
        mine = [c for c in first if c // 6 == s]
        if not mine:
            continue
        v = sum(value[c % 6] for c in mine) + 1.5 * (len(mine) - 1)
        if len(mine) == 2 and {c % 6 for c in mine} == {KING, QUEEN}:
            v += 2.0
        if v > best_v:
            best, best_v = TRUMP_SUIT + s, v
    return best


def _bid(d: DreierDeal, me: int, codes: list[int]) -> int:
    """The bid with the best rough expected value, or pass."""
    hand = d.hands[me]
    out = unseen(d, me)
    is_fh = me == d.fh
    best = PASS if PASS in codes else -1
    best_v = BID_MARGIN
    normal = -1
    if not any(
        code != PASS and CONTRACTS[(code - BID_CONTRACT) >> 1].order is _AL for code in codes
    ):
        # A quick no: every bid needs a Bettler hand (danger below ~0.56 even after the
        # talon), six sure tricks, or four sure tricks with trumps (see `chance`).
        dangers = position_dangers(hand, out, _N)
        dg = sum(dangers) - sum(sorted(dangers)[-2:]) + 0.25
        if (
            dg >= 0.56
            and sure_tricks(hand, out, -1, _N) < 6
            and sure_tricks(hand, out, d.trump, _N) < 4
        ):
            if best >= 0:
                return best
            return next((x for x in codes if x == BID_CONTRACT + 2 * NORMAL), codes[0])
    chances: dict[int, float] = {}
    memo: dict[tuple[int, ...], float] = {}
    for code in codes:
        if code == PASS:
            continue
        row, wt = divmod(code - BID_CONTRACT, 2)
        c = CONTRACTS[row]
        if row == NORMAL:
            if not wt:
                normal = code
            continue
        key = 2 * row + wt
        p = chances.get(key, -1.0)
        if p < 0:
            p = chances[key] = chance(c, hand, out, d.trump, is_fh, not wt, memo)
        if wt and p < SURE:
            continue
        v = (c.points + wt) * (2 * p - 1)
        if v > best_v:
            best, best_v = code, v
    if best < 0:  # forehand opens: the normal game unless something is better
        best = normal if normal >= 0 else codes[0]
    return best


def _keep_game(card: int, hand: int, out: int, trump: int) -> float:
    """How much a declarer of a point game would rather keep `card`."""
    s = card // 6
    r = card % 6
    v = float(POINTS[card])
    if s == trump:
        v += 12.0 + 2 * (5 - r)
    elif r == ACE:
        v += 8.0
    elif r == TEN:
        v += 5.0 if hand >> (card - 1) & 1 or not out >> (card - 1) & 1 else -6.0
    if r in (KING, QUEEN) and hand >> (card ^ 1) & 1:
        v += 20.0
    if s != trump and (hand & SUIT_MASK[s]).bit_count() == 1 and r != ACE:
        v -= 3.0  # discarding it makes a void
    return v


def _discard_for(c: Contract, hand: int, out: int, trump: int) -> int:
    """The two cards a declarer of `c` throws from `hand`, as a mask."""
    goal = c.goal
    if goal is Goal.NO_TRICK:
        return worst(hand, out, c.order, 2)
    if goal is Goal.GAME or goal is Goal.SCHNAPSER:
        t = trump if c.trumps else -1
        ranked = sorted(cards_of(hand), key=lambda x: _keep_game(x, hand, out, t))
    else:
        t = trump if c.trumps else -1
        strength = c.strength
        higher = higher_table(c.order)

        def keep(x: int) -> float:
            if x // 6 == t:
                return 100.0 + strength[x]
            if not higher[x] & out:
                return 50.0 + strength[x]
            return strength[x] - 2.0 * (higher[x] & out).bit_count()

        ranked = sorted(cards_of(hand), key=keep)
        if c.holding is Holding.SUIT:
            full = [m for m in FULL_SUIT if hand & m == m]
            if full:
                ranked = [x for x in ranked if not full[0] >> x & 1] + [
                    x for x in ranked if full[0] >> x & 1
                ]
    return (1 << ranked[0]) | (1 << ranked[1])


def _discard(d: DreierDeal, me: int) -> int:
    """Discard for the contract played, or raise when another contract looks better.

    Any two cards may be thrown; a raise is legal by the rules core's own tests
    (`raise_candidates`, `may_raise_to`), so the ~30-200 legal codes are never listed.
    """
    hand = d.hands[me]
    out = unseen(d, me)
    c = d.contract
    assert c is not None
    is_fh = me == d.fh
    options: dict[int, Contract] = {0: c}
    if d.raise_allowed():
        plain, held = d.raise_candidates()
        for row in plain + held:
            options[row + 1] = CONTRACTS[row]
    best, best_v = -1, -1e9
    sure8: dict[tuple[bool, int], int] = {}
    for raised, k in options.items():
        if raised and k.goal is not Goal.NO_TRICK:
            # a cheap upper bound first: the 6 kept cards have no more sure tricks
            t = d.trump if k.trumps else -1
            key = (k.order is _AL, t)
            s8 = sure8.get(key)
            if s8 is None:
                s8 = sure8[key] = sure_tricks(hand, out, t, k.order)
            s8 = min(s8, 6)
            if k.goal is Goal.ALL_TRICKS:
                p_max = 0.93 * 0.25 ** (6 - s8)
            else:
                p_max = 0.9 * 0.3 ** max(0, 4 - s8)
            if k.points * (2 * p_max - 1) - BID_MARGIN <= best_v:
                continue
        mask = _discard_for(k, hand, out, d.trump)
        kept = hand & ~mask
        if raised and k.holding is not Holding.NONE and not d.may_raise_to(raised - 1, kept):
            continue
        lo, hi = cards_of(mask)
        code = DISCARD + lo + 32 * hi + 1024 * raised
        p = chance(k, kept, out, d.trump, is_fh, False)
        if k.goal is Goal.GAME:
            v = 1.5 * (2 * p - 1)
        else:
            v = k.points * (2 * p - 1)
        if raised:
            v -= BID_MARGIN
        if v > best_v:
            best, best_v = code, v
    return best


def _double(d: DreierDeal, me: int) -> int:
    """Spritzen, only on (near) certainties, since each double doubles the stakes:
    the declarer redoubles a sure contract (six sure tricks, a Bettler with no danger,
    a Schnapser with four sure tricks and the points); a defender doubles the normal
    game holding the trump Ace and two more trumps with another Ace or the trump Ten,
    and a trump slam holding its top trump (it takes a trick whenever trumps are led
    or he is void)."""
    c = d.contract
    assert c is not None
    hand = d.hands[me]
    out = unseen(d, me)
    t = d.trump if c.trumps else -1
    goal = c.goal
    if me == d.decl:
        if goal is Goal.GAME:
            return PASS
        if goal is Goal.NO_TRICK:
            return DOUBLE if danger(hand, out, c.order) == 0 else PASS
        s = sure_tricks(hand, out, t, c.order)
        if goal is Goal.ALL_TRICKS:
            return DOUBLE if s >= 6 else PASS
        return DOUBLE if s >= 4 and schnapser_points(hand, out, t) >= TARGET else PASS
    if goal is Goal.GAME:
        trumps = hand & SUIT_MASK[t]
        ace = hand >> (t * 6 + ACE) & 1
        more = hand >> (t * 6 + TEN) & 1 or any(
            hand >> (s * 6 + ACE) & 1 for s in range(4) if s != t
        )
        return DOUBLE if ace and trumps.bit_count() >= 3 and more else PASS
    if goal is Goal.NO_TRICK or t < 0:
        return PASS
    return DOUBLE if top_run(hand, out, t, c.order) else PASS
