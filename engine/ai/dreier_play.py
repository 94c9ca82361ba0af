"""The rule-based Dreierschnapsen card play (RULES.md §3): the normal game, the slam
contracts and the Bettler family, for the `heuristic` level and the playouts of
`strong`.  The rules it follows are listed in `dreier_policy`'s docstring; like the
rest of the policy it reads only what the seat may know.
"""

from __future__ import annotations

from ..actions import (
    CLAIM,
    MARRIAGE_FLAG,
    marriage_claim_reaching,
    without_marriage_claims,
)
from ..cards import POINTS, SUIT_MASK
from ..dreier.contracts import Contract, Goal
from ..dreier.deal import DreierDeal
from ..dreier.rules import TARGET
from .dreier_hand import ACE, KING, QUEEN, TEN, higher_table, known_hand, unseen

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


def play_game(d: DreierDeal, me: int, codes: list[int]) -> int:
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
    higher = higher_table(d.order)
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
        smear = last or nxt != decl or _safe(bc, out & ~known_hand(d, me, decl), t, higher)
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
        rest = out & ~known_hand(d, me, nxt)
        safe = [x for x in beaters if _safe(x, rest, t, higher)]
        if safe:
            return _cheapest(safe, hand, t)
        if pts >= 10:
            return max(beaters, key=lambda x: strength[x] + (0 if x // 6 == t else 10))
    return _cheapest(codes, hand, t)


def play_slam(d: DreierDeal, me: int, codes: list[int], c: Contract) -> int:
    """All-tricks contracts and the Schnapser: the declarer must win every trick."""
    hand = d.hands[me]
    t = d.ptrump
    higher = higher_table(d.order)
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


def play_bettler(d: DreierDeal, me: int, codes: list[int]) -> int:
    """The Bettler family: the declarer ducks, the defenders make him head a trick."""
    strength = d.strength
    higher = higher_table(d.order)
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
    known = known_hand(d, me, decl)
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
