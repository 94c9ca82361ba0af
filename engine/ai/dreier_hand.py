"""What a Dreierschnapsen hand is worth to the rule-based player: the cards a seat may
know of, sure tricks, the Bettler's dangers and rough chances of each contract.

The bidding, the discards and Spritzen (`dreier_policy`) and the card play
(`dreier_play`) ask the same questions of a hand, so they share these answers; all of
it reads only what the seat may know (the module docstring of `dreier_policy` says
what that is).
"""

from __future__ import annotations

from ..cards import DECK20_MASK, MARRIAGE_MASK, POINTS, SUIT_MASK, cards_of
from ..dreier.contracts import Contract, Goal, Holding
from ..dreier.deal import DreierDeal
from ..dreier.rules import TARGET
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


def higher_table(order: Order) -> tuple[int, ...]:
    return _HIGHER_AL if order is _AL else _HIGHER_N


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


def known_hand(d: DreierDeal, me: int, seat: int) -> int:
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
    higher = higher_table(order)
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


def position_dangers(hand: int, out: int, order: Order) -> list[float]:
    """`danger`, card by card (0 for a safe card), in `cards_of(hand)` order."""
    higher = higher_table(order)
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


def worst(hand: int, out: int, order: Order, n: int) -> int:
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


def chance(
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
            dangers = position_dangers(hand, out, order)
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
            pts = memo[key] = float(schnapser_points(hand, out, t))
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


def schnapser_points(hand: int, out: int, trump: int) -> int:
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
