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
    CLAIM,
    DISCARD,
    DOUBLE,
    MARRIAGE_FLAG,
    PASS,
    REDEAL,
    TRUMP_BLIND,
    TRUMP_SUIT,
    marriage_claim_reaching,
    without_marriage_claims,
)
from ..cards import DECK20_MASK, MARRIAGE_MASK, POINTS, SUIT_MASK, cards_of
from ..dreier.contracts import CONTRACTS, FULL_SUIT, NORMAL, Contract, Goal, Holding
from ..dreier.deal import BIDDING, DOUBLING, PLAY, TARGET, TRUMP, DreierDeal
from ..dreier.deal import DISCARD as DISCARD_PHASE
from ..tricks import HIGHER, STRENGTH, Order

ACE, TEN, KING, QUEEN, JACK = range(5)
_N, _AL = Order.NORMAL, Order.ACE_LOW
_STRENGTH_N = STRENGTH[_N]
# Tables by card order, looked up with `is` (hashing an enum costs more than a test).
_TOP_N = (ACE, TEN, KING, QUEEN, JACK)
_TOP_AL = (TEN, KING, QUEEN, JACK, ACE)
_HIGHER_N = HIGHER[_N]
_HIGHER_AL = HIGHER[_AL]


def _top_down(order: Order) -> tuple[int, ...]:
    """Ranks of a suit from the strongest down."""
    return _TOP_AL if order is _AL else _TOP_N


def _higher(order: Order) -> tuple[int, ...]:
    return _HIGHER_AL if order is _AL else _HIGHER_N


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
            return _play_game(d, d.turn, codes)
        if goal is Goal.NO_TRICK:
            return _play_bettler(d, d.turn, codes)
        return _play_slam(d, d.turn, codes, c)
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


# --- what the seat may know ------------------------------------------------------------


def unseen(d: DreierDeal, me: int) -> int:
    """Cards `me` has not seen: other hands' unknown cards, the talon, the pile."""
    seen = d.hands[me] | d.won[0] | d.won[1] | d.won[2]
    for c in d.trick:
        seen |= 1 << c
    for s in range(3):
        if s != me:
            seen |= d.shown[s] & d.hands[s]
    if d.hand_shown and me != d.decl:
        seen |= d.hands[d.decl]
    if me == d.decl and d.discarded:
        seen |= d.discard
    return DECK20_MASK & ~seen


def _known_hand(d: DreierDeal, me: int, seat: int) -> int:
    """What `me` knows of `seat`'s hand: shown cards, or all of an open Plauderer hand."""
    if d.hand_shown and seat == d.decl and me != seat:
        return d.hands[seat]
    return d.shown[seat] & d.hands[seat]


# --- hand evaluation -------------------------------------------------------------------


def top_run(hand: int, out: int, suit: int, order: Order) -> int:
    """My cards of `suit` that win in turn from the top: counted down the suit until
    the first card somebody else may hold (`out`); cards already gone are skipped."""
    base = suit * 6
    n = 0
    for r in _top_down(order):
        bit = 1 << (base + r)
        if hand & bit:
            n += 1
        elif out & bit:
            break
    return n


def sure_tricks(hand: int, out: int, trump: int, order: Order) -> int:
    """Tricks `hand` takes for sure while keeping the lead: top runs, and with trumps,
    side top runs only once my top trumps can draw everybody else's."""
    if trump < 0:
        return sum(top_run(hand, out, s, order) for s in range(4))
    k = top_run(hand, out, trump, order)
    if k < (out & SUIT_MASK[trump]).bit_count():
        return k
    n = (hand & SUIT_MASK[trump]).bit_count()
    return n + sum(top_run(hand, out, s, order) for s in range(4) if s != trump)


def danger(hand: int, out: int, order: Order) -> float:
    """How many of `hand`'s cards a Bettler declarer may be forced to win with.

    Per suit, each of my cards needs its own card out there that heads it (one card
    can cover only one of mine): matched from my weakest card up, each taking the
    lowest free card above it, the cards left without one are my strongest, and each
    counts in full; a card covered by the only card above it counts 0.3 (that card may
    lie in the talon, or be played elsewhere first).
    """
    total = 0.0
    for s in range(4):
        mine = hand & SUIT_MASK[s]
        if mine:
            total += _suit_danger(mine, out, s, order)
    return total


def _suit_danger(mine: int, out: int, s: int, order: Order) -> float:
    """`danger` of my cards `mine` of suit `s`."""
    higher = _higher(order)
    al = order is _AL
    base = s * 6
    taken = 0
    total = 0.0
    for r in _UP_AL if al else _UP_N:
        c = base + r
        if not mine >> c & 1:
            continue
        above = higher[c] & out
        free = above & ~taken
        if not free:
            total += 1.0
            continue
        # the weakest free card above it covers it
        if al and free >> base & 1:
            taken |= 1 << base
        else:
            taken |= 1 << (free.bit_length() - 1)
        if above & (above - 1) == 0:
            total += 0.3
    return total


#: Ranks of a suit from the weakest up, by card order.
_UP_N = tuple(reversed(_TOP_N))
_UP_AL = tuple(reversed(_TOP_AL))


def _dangers(hand: int, out: int, order: Order) -> list[float]:
    """`danger`, card by card (0 for a safe card), in `cards_of(hand)` order."""
    higher = _higher(order)
    top = _top_down(order)
    by_card: dict[int, float] = {}
    for s in range(4):
        mine = hand & SUIT_MASK[s]
        if not mine:
            continue
        taken = 0
        for r in reversed(top):  # weakest first
            c = s * 6 + r
            if not mine >> c & 1:
                continue
            above = higher[c] & out
            free = above & ~taken
            if not free:
                by_card[c] = 1.0
                continue
            low = -1
            for r2 in reversed(top):
                c2 = s * 6 + r2
                if free >> c2 & 1:
                    low = c2
                    break
            taken |= 1 << low
            by_card[c] = 0.3 if above.bit_count() == 1 else 0.0
    return [by_card[c] for c in cards_of(hand)]


#: How much a void lowers a Bettler hand's danger (he throws his worst card on it).
VOID = 0.4


def _worst(hand: int, out: int, order: Order, n: int) -> int:
    """The `n` cards a Bettler declarer throws: greedily, the one whose loss lowers the
    danger most, voids counting `VOID` each (the strongest among equals)."""
    strength = STRENGTH[order]
    per_suit = [
        _suit_danger(hand & m, out, s, order) if hand & m else 0.0 for s, m in enumerate(SUIT_MASK)
    ]
    picked = 0
    for _ in range(n):
        best, best_v = -1, 1e9
        rest = hand & ~picked
        for c in cards_of(rest):
            s = c // 6
            left = rest & SUIT_MASK[s] & ~(1 << c)
            v = (_suit_danger(left, out, s, order) if left else -VOID) - per_suit[s]
            v -= 0.001 * strength[c]
            if v < best_v:
                best, best_v = c, v
        picked |= 1 << best
        s = best // 6
        left = hand & ~picked & SUIT_MASK[s]
        per_suit[s] = _suit_danger(left, out, s, order) if left else -VOID
    return picked


def _chance(
    c: Contract,
    hand: int,
    out: int,
    trump: int,
    is_fh: bool,
    talon: bool,
    memo: dict[tuple[int, ...], float] | None = None,
) -> float:
    """A rough chance of making `c` with `hand` (plus the talon, if `talon`).

    `memo` shares the hand's counts between the contracts of one decision.
    """
    if memo is None:
        memo = {}
    goal = c.goal
    order = c.order
    al = order is _AL
    t = trump if c.trumps else -1
    if goal is Goal.NO_TRICK:
        key: tuple[int, ...] = (0, int(al), int(talon))
        p: float | None = memo.get(key)
        if p is None:
            dangers = _dangers(hand, out, order)
            dg = sum(dangers)
            if dg >= 3:
                memo[key] = 0.0
                return 0.0
            if talon:
                dg -= sum(sorted(dangers)[-2:]) - 0.25  # throw the two worst
            p = memo[key] = 0.9 * 0.4**dg
        return p
    if goal is Goal.GAME:
        return _normal_chance(hand, out, trump)
    key = (1, int(al), t)
    s = memo.get(key)
    if s is None:
        s = memo[key] = float(sure_tricks(hand, out, t, order))
    if c.holding is Holding.SUIT and s < 6:
        s = min(s, 5.0)
    if talon and s < 6:
        s += 0.4
    if goal is Goal.ALL_TRICKS:
        p = 0.93 * 0.25 ** (6 - s)
    else:  # Schnapser: every trick until 66 within 4 tricks
        key = (2, t)
        pts = memo.get(key)
        if pts is None:
            pts = memo[key] = float(_schnapser_points(hand, out, t))
        p = 0.9 * 0.3 ** max(0.0, 4 - s) * (1.0 if pts >= TARGET else 0.25)
    if not c.forehand_leads or is_fh:
        return p
    # Kontra contracts: forehand (a defender) leads first: every suit must be covered.
    for su in range(4):
        if (su != t and not hand & SUIT_MASK[su] and not (t >= 0 and hand & SUIT_MASK[t])) or (
            hand & SUIT_MASK[su] and not top_run(hand, out, su, order)
        ):
            p *= 0.5
    return p


def _schnapser_points(hand: int, out: int, trump: int) -> int:
    """Card points of the sure tricks, two cheap cards per trick from the others,
    and the marriages in hand."""
    pts = 0
    n = 0
    for s in range(4):
        base = s * 6
        for r in _TOP_N:
            bit = 1 << (base + r)
            if hand & bit:
                pts += POINTS[base + r] + 5
                n += 1
            elif out & bit:
                break
    for s in range(4):
        if hand & MARRIAGE_MASK[s] == MARRIAGE_MASK[s]:
            pts += 40 if s == trump else 20
    return pts


def _normal_chance(hand: int, out: int, trump: int) -> float:
    """The normal game's chance for the declarer from trumps, Aces and marriages."""
    tm = SUIT_MASK[trump]
    trumps = (hand & tm).bit_count()
    score = 6.0 * trumps + 4.0 * top_run(hand, out, trump, _N)
    for s in range(4):
        if s != trump:
            score += 5.0 * top_run(hand, out, s, _N)
        if hand & MARRIAGE_MASK[s] == MARRIAGE_MASK[s]:
            score += 14.0 if s == trump else 7.0
    p = (score - 10.0) / 40.0
    return 0.05 if p < 0.05 else 0.95 if p > 0.95 else p


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
        # talon), six sure tricks, or four sure tricks with trumps (see `_chance`).
        dangers = _dangers(hand, out, _N)
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
            p = chances[key] = _chance(c, hand, out, d.trump, is_fh, not wt, memo)
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
        return _worst(hand, out, c.order, 2)
    if goal is Goal.GAME or goal is Goal.SCHNAPSER:
        t = trump if c.trumps else -1
        ranked = sorted(cards_of(hand), key=lambda x: _keep_game(x, hand, out, t))
    else:
        t = trump if c.trumps else -1
        strength = c.strength
        higher = _higher(c.order)

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
        p = _chance(k, kept, out, d.trump, is_fh, False)
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
        return DOUBLE if s >= 4 and _schnapser_points(hand, out, t) >= TARGET else PASS
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


# --- card play -------------------------------------------------------------------------


def _best(trick: tuple[int, ...], trump: int, strength: tuple[int, ...]) -> tuple[int, int]:
    """(position, card) of the card taking the trick so far."""
    pos, bc = 0, trick[0]
    for i in range(1, len(trick)):
        x = trick[i]
        if x // 6 == bc // 6:
            if strength[x] > strength[bc]:
                pos, bc = i, x
        elif x // 6 == trump:
            pos, bc = i, x
    return pos, bc


def _beats(x: int, bc: int, trump: int, strength: tuple[int, ...]) -> bool:
    if x // 6 == bc // 6:
        return strength[x] > strength[bc]
    return x // 6 == trump


def _safe(x: int, out: int, trump: int, higher: tuple[int, ...]) -> bool:
    """Nothing unseen can beat `x` once it leads the trick (a trump, or a suit the
    others still hold enough of that nobody trumps it... approximated by no unseen
    trump)."""
    if higher[x] & out:
        return False
    if trump < 0 or x // 6 == trump:
        return True
    return not out & SUIT_MASK[trump]


def _keep(x: int, hand: int, trump: int) -> float:
    """Reluctance to give away `x` in a point game."""
    v = float(POINTS[x])
    r = x % 6
    if x // 6 == trump:
        v += 10.0 + (5 - r)
    if r in (KING, QUEEN) and hand >> (x ^ 1) & 1:
        v += 25.0
    return v


def _cheapest(cards: list[int], hand: int, trump: int) -> int:
    best, best_v = cards[0], 1e9
    for x in cards:
        v = _keep(x, hand, trump)
        if v < best_v:
            best, best_v = x, v
    return best


def _play_game(d: DreierDeal, me: int, codes: list[int]) -> int:
    """The normal game: points, marriages, sure winners, smearing onto a partner."""
    decl = d.decl
    is_decl = me == decl
    if CLAIM in codes:
        total = d.side_total(is_decl)
        if total >= TARGET:
            return CLAIM
        out_now = marriage_claim_reaching(codes, total, d.side_tricks(is_decl) > 0, d.trump)
        if out_now >= 0:
            return out_now
        codes = [x for x in without_marriage_claims(codes) if x != CLAIM]
    hand = d.hands[me]
    t = d.ptrump
    higher = _higher(d.order)
    strength = d.strength
    out = unseen(d, me)
    trick = d.trick
    if not trick:
        marriage = -1
        for x in codes:
            queen = x & MARRIAGE_FLAG and (x & 31) % 6 == QUEEN
            if queen and (marriage < 0 or (x & 31) // 6 == t):
                marriage = x
        if marriage >= 0 and d.side_tricks(is_decl):
            return marriage  # it counts at once
        cards = [x for x in codes if not x & MARRIAGE_FLAG]
        tm = SUIT_MASK[t]
        if is_decl and out & tm:
            for x in cards:
                if x // 6 == t and not higher[x] & out:
                    return x  # draw trumps with a top trump
        best, best_v = -1, -1.0
        for x in cards:
            s = x // 6
            if s == t or higher[x] & out:
                continue
            left = (out & SUIT_MASK[s]).bit_count()
            if left >= 2 or not out & tm:
                v = float(POINTS[x] + left)
                if v > best_v:
                    best, best_v = x, v
        if best >= 0:
            return best
        mine = hand & tm
        if is_decl and out & tm and mine.bit_count() >= 2:
            # flush the trumps out with the lowest one that is not half a marriage
            low = [
                x
                for x in cards
                if x // 6 == t and not (hand >> (x ^ 1) & 1 and x % 6 in (KING, QUEEN))
            ]
            if low:
                return min(low, key=lambda x: strength[x])
        if marriage >= 0:
            return marriage
        best, best_v = cards[0], 1e9
        for x in cards:
            v = _keep(x, hand, t)
            if x % 6 == TEN and out >> (x - 1) & 1:
                v += 8.0  # a Ten led into the Ace
            if v < best_v:
                best, best_v = x, v
        return best

    pos, bc = _best(trick, t, strength)
    winner = (d.leader + pos) % 3
    last = len(trick) == 2
    nxt = (me + 1) % 3
    pts = 0
    for x in trick:
        pts += POINTS[x]
    beaters = [x for x in codes if _beats(x, bc, t, strength)]
    if not is_decl and winner != decl:
        # partner holds the trick: smear if it is safe, else keep it cheap
        smear = last or nxt != decl or _safe(bc, out & ~_known_hand(d, me, decl), t, higher)
        if smear:
            best, best_v = codes[0], -1e9
            for x in codes:
                v = POINTS[x] - (30.0 if x // 6 == t else 0.0)
                if x % 6 in (KING, QUEEN) and hand >> (x ^ 1) & 1:
                    v -= 25.0
                if x % 6 == ACE and x // 6 != t:
                    v -= 4.0
                if v > best_v:
                    best, best_v = x, v
            return best
        return _cheapest(codes, hand, t)
    if beaters:
        if last or (not is_decl and nxt != decl):
            # nobody against me plays after: take it cheaply if it is worth it
            w = _cheapest(beaters, hand, t)
            if pts + POINTS[w] >= 4 or w // 6 != t or is_decl:
                return w
            return _cheapest(codes, hand, t)
        rest = out & ~_known_hand(d, me, nxt)
        safe = [x for x in beaters if _safe(x, rest, t, higher)]
        if safe:
            return _cheapest(safe, hand, t)
        if pts >= 10:
            return max(beaters, key=lambda x: strength[x] + (0 if x // 6 == t else 10))
    return _cheapest(codes, hand, t)


def _play_slam(d: DreierDeal, me: int, codes: list[int], c: Contract) -> int:
    """All-tricks contracts and the Schnapser: the declarer must win every trick."""
    hand = d.hands[me]
    t = d.ptrump
    higher = _higher(d.order)
    strength = d.strength
    out = unseen(d, me)
    trick = d.trick
    decl = d.decl
    schnapser = c.goal is Goal.SCHNAPSER
    if me == decl:
        if not trick:
            if schnapser and d.tricks[decl]:
                trump_marriage = any(y & MARRIAGE_FLAG and (y & 31) // 6 == t for y in codes)
                for x in codes:
                    sure = x & MARRIAGE_FLAG and _safe(x & 31, out, t, higher)
                    if sure and ((x & 31) // 6 == t or not trump_marriage):
                        return x
            cards = [x for x in codes if not x & MARRIAGE_FLAG]
            if t >= 0 and out & SUIT_MASK[t]:
                trumps = [x for x in cards if x // 6 == t]
                if trumps:
                    return max(trumps, key=lambda x: strength[x])
            best, best_v = cards[0], -1e9
            for x in cards:
                v = (
                    20.0 * _safe(x, out, t, higher)
                    + strength[x]
                    - 3 * (higher[x] & out).bit_count()
                )
                if schnapser:
                    v += POINTS[x] * 0.5
                if v > best_v:
                    best, best_v = x, v
            return best
        pos, bc = _best(trick, t, strength)
        beaters = [x for x in codes if _beats(x, bc, t, strength)]
        if not beaters:
            return min(codes, key=lambda x: strength[x])
        if len(trick) == 2:
            return min(beaters, key=lambda x: strength[x] + (20 if x // 6 == t else 0))
        safe = [x for x in beaters if _safe(x, out, t, higher)]
        pool = safe or beaters
        if safe:
            return min(pool, key=lambda x: strength[x] + (20 if x // 6 == t else 0))
        return max(pool, key=lambda x: strength[x] + (20 if x // 6 == t else 0))
    # a defender: one trick breaks the contract
    if not trick:
        return max(codes, key=lambda x: strength[x] - 3 * (higher[x & 31] & out).bit_count())
    pos, bc = _best(trick, t, strength)
    winner = (d.leader + pos) % 3
    beaters = [x for x in codes if _beats(x, bc, t, strength)]
    if winner == decl and beaters:
        if len(trick) == 2 or (me + 1) % 3 != decl:
            return min(beaters, key=lambda x: strength[x])
        return max(beaters, key=lambda x: strength[x])
    if winner != decl and (len(trick) == 2 or (me + 1) % 3 != decl):
        return _shed(codes, hand, out, t, higher, strength, schnapser)
    return _shed(codes, hand, out, t, higher, strength, schnapser)


def _shed(
    codes: list[int],
    hand: int,
    out: int,
    t: int,
    higher: tuple[int, ...],
    strength: tuple[int, ...],
    points: bool,
) -> int:
    """A slam defender's throw: keep the cards that may still take a trick (top
    cards and their guards, trumps), throw the most hopeless one."""
    best, best_v = codes[0], 1e9
    for x in codes:
        s = x // 6
        hi = (higher[x] & out).bit_count()
        v = strength[x] * 2.0 - 3.0 * hi
        if s == t:
            v += 30.0
        if not hi:
            v += 20.0
        if (hand & SUIT_MASK[s]).bit_count() >= 2 and hi <= 1:
            v += 5.0
        if points:
            v += POINTS[x] * 0.7
        if v < best_v:
            best, best_v = x, v
    return best


def _play_bettler(d: DreierDeal, me: int, codes: list[int]) -> int:
    """The Bettler family: the declarer ducks, the defenders make him head a trick."""
    strength = d.strength
    higher = _higher(d.order)
    out = unseen(d, me)
    trick = d.trick
    decl = d.decl
    if me == decl:
        if not trick:
            # Lead while the card is still covered: first a card only one unseen card
            # heads (it is naked once that card goes), then a singleton (a void lets
            # him throw his dangerous cards later), the strongest first.
            hand = d.hands[me]
            best, best_v = codes[0], -1e9
            for x in codes:
                hi = (higher[x] & out).bit_count()
                if not hi:
                    v = -10.0 + strength[x] * 0.1
                else:
                    v = 0.15 * strength[x] + (3.0 if hi == 1 else 0.0)
                    if (hand & SUIT_MASK[x // 6]).bit_count() == 1:
                        v += 1.5
                if v > best_v:
                    best, best_v = x, v
            return best
        pos, bc = _best(trick, -1, strength)
        unders = [x for x in codes if not _beats(x, bc, -1, strength)]
        if unders:
            return max(unders, key=lambda x: strength[x] - 2 * (higher[x] & out).bit_count())
        if len(trick) == 2:
            return codes[0]
        return min(codes, key=lambda x: strength[x])
    known = _known_hand(d, me, decl)
    if not trick:
        if known:
            best, best_v = -1, -1e9
            for x in codes:
                mine = known & SUIT_MASK[x // 6]
                above = mine & higher[x]
                if not above:
                    continue
                # he must head: how many of his cards in the suit are all above mine
                v = 10.0 * (mine == above) - strength[x]
                if v > best_v:
                    best, best_v = x, v
            if best >= 0:
                return best
        return min(codes, key=lambda x: strength[x] * 4 - (out & SUIT_MASK[x // 6]).bit_count())
    pos, bc = _best(trick, -1, strength)
    winner = (d.leader + pos) % 3
    unders = [x for x in codes if not _beats(x, bc, -1, strength)]
    if winner == decl:
        if unders:
            return max(unders, key=lambda x: strength[x])
        return min(codes, key=lambda x: strength[x])
    declarer_played = any((d.leader + i) % 3 == decl for i in range(len(trick)))
    if declarer_played:
        return max(codes, key=lambda x: strength[x])  # he ducked: shed a high card
    return min(codes, key=lambda x: strength[x])
