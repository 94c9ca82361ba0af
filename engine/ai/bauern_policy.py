"""Rule-based Bauernschnapsen on the rules core: the `heuristic` level, and the playout
policy of the `strong` level (so it must be fast: plain ints and masks).

It decides for the seat to act from what that seat may know and nothing else: its own
hand (forehand naming trumps: only his first packet), the cards in completed tricks and
in the current trick, the named trump and the Aufschlag card, shown cards (`shown`),
the auction and the public counts.  It never reads another seat's hidden cards — the
partner's included — so it plays the same in every sampled world and in the real deal
(the no-peeking tests check this).

The rules are a club player's (RULES.md §4 gives the game):
- trumps: the suit of the first packet with the most weight (count, high cards, a
  marriage), else Aufschlagen;
- the auction: each contract open to the seat gets a rough chance of success from the
  hand alone (`chance`: sure tricks, losers, Bettler risk); the seat bids the best
  contract it would make three times in four, forehand else opens the normal game;
- doubling: Kontra / Rekontra / Subkontra on a normal game by hand strength, and a
  Rekontra on a contract the hand makes for sure; never a Kontra on a contract;
- the normal game: declare marriages (trumps first, leading the Queen), claim 66 when
  claims are manual, draw trumps with the top trump, cash top cards, else lead cheap;
  give points to a trick the partner holds for sure, take tricks with the cheapest
  sure winner, else throw the cheapest card;
- Bettler: the declarer leads the card most likely to be headed and sheds his highest
  card under a trick he cannot take; the defenders lead low and never overtake him;
- Schnapser and all-tricks contracts: the declarer draws trumps and cashes top cards
  (a Schnapser declares a marriage that takes him to 66); his partner ducks; the
  defenders take any trick they can, else give the fewest points.
"""

from __future__ import annotations

from .. import actions as A
from ..bauern import BauernDeal
from ..bauern.rules import (
    BIDDING,
    CONTRACTS,
    DOUBLING,
    PLAY,
    SCHNAPSER_TRICKS,
    TARGET,
    Kind,
)
from ..cards import DECK20_MASK, POINTS, cards_of, mask_of
from ..tricks import HIGHER, STRENGTH, Order, best_in_trick
from .bauern_worlds import BID, NAMED

_NORMAL, _BETTLER, _SCHNAPSER, _ALL, _SHOWN = (int(k) for k in Kind)
ACE, TEN, KING, QUEEN, JACK = range(5)
SUIT5 = tuple(0b11111 << (6 * s) for s in range(4))
ACES = sum(1 << (6 * s) for s in range(4))
_HIGHER_N = HIGHER[Order.NORMAL]
#: The five cards of each suit strongest first, per card order.
_RUNS = {
    order: tuple(
        tuple(sorted((6 * s + r for r in range(5)), key=lambda c: -STRENGTH[order][c]))
        for s in range(4)
    )
    for order in Order
}

# --- tuning -----------------------------------------------------------------------------
#: A contract is bid when its chance of success is at least this.
BID_CHANCE = 0.75
#: An opponent's bid makes a sampled hand plausible from this chance on (bauern_worlds).
PLAUSIBLE_CHANCE = 0.6
#: A contract this likely is a sure thing: Rekontra it.
SURE_CHANCE = 0.95
#: Hand strength (`normal_strength`) for a Kontra over a Bettler in the auction
#: (`bauern.kontra_beats_bettler`), and for Kontra, Rekontra and Subkontra on a
#: normal game (by doubling round).
DOUBLE_BARS = (9.0, 11.0, 12.0, 13.0)
#: How much weaker than the bar a sampled hand of a player who doubled may be.
DOUBLE_SLACK = 1.5
#: Trump naming: the best first-packet suit must weigh this much, else Aufschlagen.
NAME_TRUMP = 4.0
#: Extra reluctance to give away a trump, a marriage half, a top card.
TRUMP_KEEP = 8
MARRIAGE_KEEP = 15
TOP_KEEP = 4
#: Leading a Ten whose Ace is out invites the Ace (Stichzwang makes its holder head).
BARE_TEN_LEAD = 6


def policy(d: BauernDeal) -> int:
    """The heuristic's action code for the seat to act."""
    codes = d.legal()
    if len(codes) == 1:
        return codes[0]
    phase = d.phase
    if phase == PLAY:
        kind = d.kind
        if kind == _NORMAL:
            return _normal(d, codes)
        if kind == _BETTLER:
            return _bettler(d, codes)
        return _all_tricks(d, codes)
    if phase == BIDDING:
        return _bid(d, codes)
    if phase == DOUBLING:
        return _double(d, codes)
    return _trump(d, codes)


# --- trumps -----------------------------------------------------------------------------

_TRUMP_WEIGHT = (4.0, 3.0, 2.0, 1.5, 1.0)


def first_packet(d: BauernDeal) -> int:
    """Forehand's first three cards: all he has seen while naming trumps."""
    fh = d.fh
    return d.hands[fh] & mask_of(d.dealt[fh][:3])


def trump_weight(cards: int) -> float:
    """How good a trump suit the cards of one suit make: count, high cards, marriage."""
    if not cards:
        return 0.0
    w = 2.0 * (cards.bit_count() - 1)
    for c in cards_of(cards):
        w += _TRUMP_WEIGHT[c % 6]
    if cards >> (cards_of(cards)[0] // 6 * 6 + KING) & 3 == 3:
        w += 2.0
    return w


def _trump(d: BauernDeal, codes: list[int]) -> int:
    first = first_packet(d)
    best, best_w = -1, 0.0
    for s in range(4):
        w = trump_weight(first & SUIT5[s])
        if w > best_w:
            best, best_w = s, w
    if best_w >= NAME_TRUMP and A.TRUMP_SUIT + best in codes:
        return A.TRUMP_SUIT + best
    return A.TRUMP_BLIND + 3


# --- hand evaluation (the auction, doubling, and the worlds' bid tests) -----------------


def top_run(cards: int, suit: int, order: Order) -> int:
    """How many of the suit's strongest cards, from the top down, `cards` holds."""
    n = 0
    for c in _RUNS[order][suit]:
        if not cards >> c & 1:
            break
        n += 1
    return n


def gang_losers(hand: int, order: Order) -> int:
    """Cards that are not sure winners when the holder leads every trick, no trumps:
    a card wins for sure only when every stronger card of its suit is his own."""
    losers = 0
    for s in range(4):
        mine = hand & SUIT5[s]
        if mine:
            losers += mine.bit_count() - top_run(mine, s, order)
    return losers


def bettler_risk(hand: int) -> int:
    """How exposed a hand is in a Bettler: each card counts the lower cards of its suit
    the others hold (a lead of one forces it to head), an ace three more."""
    risk = 0
    for c in cards_of(hand):
        lower = SUIT5[c // 6] & ~((1 << (c + 1)) - 1) & ~hand
        risk += lower.bit_count()
        if c % 6 == ACE:
            risk += 3
    return risk


def _marriages(hand: int, trump: int) -> int:
    pts = 0
    for s in range(4):
        if hand >> (6 * s + KING) & 3 == 3:
            pts += 40 if s == trump else 20
    return pts


def _sure_with_trumps(hand: int, trump: int) -> bool:
    """Leading every trick with trumps: enough top trumps to draw all the others in the
    worst split, and every other card the top of its suit."""
    tm = SUIT5[trump]
    n = (hand & tm).bit_count()
    if not n:
        return False
    return top_run(hand, trump, Order.NORMAL) >= 5 - n and not gang_losers(hand & ~tm, Order.NORMAL)


def _schnapser_points(hand: int, trump: int) -> tuple[int, int]:
    """(sure tricks, points) of a Schnapser plan: top trumps, then aces once the trumps
    are drawn, each trick bringing about four points a card from the others, and the
    marriages once a trick is in."""
    tm = SUIT5[trump]
    k = top_run(hand, trump, Order.NORMAL)
    out_trumps = 5 - (hand & tm).bit_count()
    tricks = min(k, SCHNAPSER_TRICKS)
    pts = 0
    for c in _RUNS[Order.NORMAL][trump][:tricks]:
        pts += POINTS[c] + 12
    if k >= out_trumps:
        for s in range(4):
            if s != trump and tricks < SCHNAPSER_TRICKS and hand >> (6 * s) & 1:
                tricks += 1
                pts += 11 + 12
    if tricks:
        pts += _marriages(hand, trump)
    return tricks, pts


def chance(row: int, hand: int, trump: int, position: int) -> float:
    """Rough chance that `hand` (five cards) makes contract `row`: a heuristic, not a
    computation.  `position` is the seat's priority position (0 forehand, who leads
    the first trick of every trump contract)."""
    c = CONTRACTS[row]
    kind = c.kind
    if kind == Kind.SHOWN:
        return 1.0
    if kind == Kind.NORMAL:
        return 0.5
    if kind == Kind.BETTLER:
        risk = bettler_risk(hand)
        return (0.95, 0.85, 0.7, 0.55, 0.4, 0.3)[risk] if risk < 6 else 0.15
    if kind == Kind.ALL_TRICKS and not c.trumps:
        losers = gang_losers(hand, c.order)
        return 1.0 if not losers else 0.3 if losers == 1 else 0.02
    leads = position == 0
    if kind == Kind.ALL_TRICKS:
        if _sure_with_trumps(hand, trump):
            return 0.97 if leads else 0.7
        return 0.05
    tricks, pts = _schnapser_points(hand, trump)
    if pts < TARGET or not tricks:
        return 0.1 if pts >= TARGET - 12 and tricks else 0.02
    base = 0.8 if tricks >= 2 else 0.65
    return base if leads else base - 0.2


def reading(what: tuple[int, ...], hand: int, trump: int, position: int) -> bool:
    """Whether a seat with `hand` (five cards) might have made the choice `what` (see
    `bauern_worlds.Reading`): this policy's own choices read backwards, a little
    looser, so that a sampled world gives a bidder a hand that fits his bid."""
    if what[0] == NAMED:
        return trump_weight(hand & SUIT5[trump]) >= NAME_TRUMP
    if what[0] == BID:
        return chance(what[1], hand, trump, position) >= PLAUSIBLE_CHANCE
    row, rnd = what[1], what[2]
    if CONTRACTS[row].kind == Kind.NORMAL:
        return normal_strength(hand, trump) >= DOUBLE_BARS[rnd] - DOUBLE_SLACK
    if rnd == 2:
        return chance(row, hand, trump, position) >= SURE_CHANCE - 0.1
    return True


def normal_strength(hand: int, trump: int) -> float:
    """A normal-game hand's weight: trumps, aces, guarded tens, marriages."""
    tm = SUIT5[trump]
    w = 0.0
    trumps = hand & tm
    for c in cards_of(trumps):
        w += _TRUMP_WEIGHT[c % 6]
    n = trumps.bit_count()
    if n > 2:
        w += n - 2
    for s in range(4):
        if s == trump:
            continue
        if hand >> (6 * s) & 1:
            w += 2.0
            if hand >> (6 * s + TEN) & 1:
                w += 1.5
        elif hand >> (6 * s + TEN) & 1:
            w += 0.5
    m = _marriages(hand, trump)
    return w + m / 10


def _bid(d: BauernDeal, codes: list[int]) -> int:
    me = d.turn
    hand = d.hands[me]
    pos = (me - d.fh) & 3
    best, best_ev = -1, 0.0
    for code in codes:
        if code == A.DOUBLE:
            if normal_strength(hand, d.trump) >= DOUBLE_BARS[0]:
                return code
            continue
        if code == A.PASS:
            continue
        row = (code - A.BID_CONTRACT) >> 1
        p = chance(row, hand, d.trump, pos)
        if p >= BID_CHANCE:
            ev = (2 * p - 1) * _value(d, row)
            if ev > best_ev:
                best, best_ev = code, ev
    if best >= 0:
        return best
    if A.PASS in codes:
        return A.PASS
    return codes[0]  # forehand's opening: the lowest contract open to him (normal)


def _value(d: BauernDeal, row: int) -> int:
    c = CONTRACTS[row]
    return int(getattr(d.opts, c.value_option)) if c.value_option else c.value


def _double(d: BauernDeal, codes: list[int]) -> int:
    me = d.turn
    hand = d.hands[me]
    if d.kind == _NORMAL:
        bar = DOUBLE_BARS[d.dbl_round]
        return A.DOUBLE if normal_strength(hand, d.trump) >= bar else A.PASS
    if me == d.declarer and d.dbl_round == 2:
        pos = (me - d.fh) & 3
        if chance(d.row, hand, d.trump, pos) >= SURE_CHANCE:
            return A.DOUBLE
    return A.PASS


# --- card play ----------------------------------------------------------------------------


def _gone(d: BauernDeal) -> int:
    w = d.won
    m = w[0] | w[1] | w[2] | w[3]
    for c in d.trick:
        m |= 1 << c
    return m


def _beats(c: int, best: int, trump: int, strength: tuple[int, ...]) -> bool:
    if c // 6 == best // 6:
        return strength[c] > strength[best]
    return c // 6 == trump


def _holds(c: int, out: int, trump: int, after: int, higher: tuple[int, ...]) -> bool:
    """Whether `c`, at the head of the trick, likely stays there with `after` players
    still to play: no stronger card of its suit is out, and either no trump is out or
    enough of its suit is out for the others to follow."""
    if not after:
        return True
    if higher[c] & out:
        return False
    suit = c // 6
    if suit == trump or trump < 0 or not out & SUIT5[trump]:
        return True
    return (out & SUIT5[suit]).bit_count() >= 2 * after


def _keep(c: int, hand: int, out: int, trump: int, marry: bool, higher: tuple[int, ...]) -> int:
    """How much the seat would rather keep `c` (lower: cheaper to give away)."""
    v = POINTS[c]
    if c // 6 == trump:
        v += TRUMP_KEEP
    r = c % 6
    if marry and r in (KING, QUEEN):
        if hand >> (c ^ 1) & 1:
            v += MARRIAGE_KEEP
        elif out >> (c ^ 1) & 1:
            v += 2
    if not higher[c] & out:
        v += TOP_KEEP
    return v


def _cheapest(
    codes: list[int], hand: int, out: int, trump: int, marry: bool, higher: tuple[int, ...]
) -> int:
    best, best_v = codes[0], 1000
    for c in codes:
        v = _keep(c, hand, out, trump, marry, higher)
        if v < best_v:
            best, best_v = c, v
    return best


def _trick_state(d: BauernDeal) -> tuple[int, int, int]:
    """(best card, the seat playing it, players still to play after the seat to act)."""
    trick = d.trick
    i = best_in_trick(trick, d.ptrump, d.strength)
    return trick[i], d.rota[d.leader][i], d.nplay - len(trick) - 1


def _normal(d: BauernDeal, codes: list[int]) -> int:
    me = d.turn
    hand = d.hands[me]
    trump = d.ptrump
    out = DECK20_MASK & ~hand & ~_gone(d)
    higher = _HIGHER_N
    if not d.trick:
        return _normal_lead(d, codes, me, hand, out, trump)
    strength = d.strength
    best, holder, after = _trick_state(d)
    winners = [c for c in codes if _beats(c, best, trump, strength)]
    if (holder ^ me) & 1 == 0:
        # The partner holds the trick: if it stays his, give him points (schmieren).
        if _holds(best, out, trump, after, higher):
            top, top_v = codes[0], -1000
            for c in codes:
                v = 2 * POINTS[c] - _keep(c, hand, out, trump, True, higher)
                if v > top_v:
                    top, top_v = c, v
            return top
        sure = [c for c in winners if _holds(c, out, trump, after, higher)]
        if sure:
            return _cheapest(sure, hand, out, trump, True, higher)
        return _cheapest(codes, hand, out, trump, True, higher)
    if winners:
        if not after:
            top, top_v = winners[0], -1000
            for c in winners:
                v = 2 * POINTS[c] - _keep(c, hand, out, trump, True, higher)
                if v > top_v:
                    top, top_v = c, v
            return top
        sure = [c for c in winners if _holds(c, out, trump, after, higher)]
        if sure:
            return _cheapest(sure, hand, out, trump, True, higher)
        losers = [c for c in codes if c not in winners]
        if losers:
            return _cheapest(losers, hand, out, trump, True, higher)
        weakest = winners[0]
        for c in winners:
            if strength[c] < strength[weakest] or (
                strength[c] == strength[weakest] and c // 6 != trump
            ):
                weakest = c
        return weakest
    return _cheapest(codes, hand, out, trump, True, higher)


def _normal_lead(d: BauernDeal, codes: list[int], me: int, hand: int, out: int, trump: int) -> int:
    if A.CLAIM in codes:
        total = d.team_total(me & 1)
        if total >= TARGET:
            return A.CLAIM
        out_now = A.marriage_claim_reaching(codes, total, d.team_has_trick(me), trump)
        if out_now >= 0:
            return out_now
        codes = A.without_marriage_claims(codes)
    marriage = -1
    for code in codes:
        queen = A.MARRIAGE_FLAG <= code < A.EXCHANGE and (code & 31) % 6 == QUEEN
        if queen and (marriage < 0 or (code & 31) // 6 == trump):
            marriage = code
    if marriage >= 0:
        return marriage
    higher = _HIGHER_N
    tm = SUIT5[trump]
    mine = hand & tm
    if mine and out & tm and mine.bit_count() >= 2:
        top = cards_of(mine)[0]  # strongest trump held
        if not higher[top] & out:
            return top
    best, best_v = -1, -1
    for c in cards_of(hand & ~tm):
        if higher[c] & out:
            continue
        left = (out & SUIT5[c // 6]).bit_count()
        if out & tm and left < 2:
            continue
        if POINTS[c] > best_v:
            best, best_v = c, POINTS[c]
    if best >= 0:
        return best
    best, best_v = codes[0], 1000
    for c in cards_of(hand):
        v = _keep(c, hand, out, trump, True, higher)
        if c % 6 == TEN and out >> (c - 1) & 1:
            v += BARE_TEN_LEAD
        if v < best_v:
            best, best_v = c, v
    return best


def _bettler(d: BauernDeal, codes: list[int]) -> int:
    me = d.turn
    hand = d.hands[me]
    decl = d.declarer
    strength = d.strength
    higher = HIGHER[d.order]
    out = DECK20_MASK & ~hand & ~_gone(d)
    if me == decl:
        if not d.trick:
            # Lead the card most likely to be headed: most stronger cards still out.
            best, best_k = codes[0], (-1, 0)
            for c in codes:
                k = ((higher[c] & out).bit_count(), -strength[c])
                if k > best_k:
                    best, best_k = c, k
            return best
        top, _, _ = _trick_state(d)
        under = [c for c in codes if not _beats(c, top, -1, strength)]
        if under:
            return max(under, key=lambda c: strength[c])  # shed the highest safe card
        return min(codes, key=lambda c: strength[c])  # forced over: hope to be headed
    partner = me == decl ^ 2
    if not d.trick:
        # Lead low: whoever holds the suit must head it, the declarer included.
        return min(codes, key=lambda c: (strength[c], -(out & SUIT5[c // 6]).bit_count()))
    top, holder, _ = _trick_state(d)
    if partner:
        # bettler_partner_plays: the declarer's partner takes tricks off him.
        if holder == decl:
            win = [c for c in codes if _beats(c, top, -1, strength)]
            if win:
                return max(win, key=lambda c: strength[c])
        return min(codes, key=lambda c: strength[c])
    played = decl in d.rota[d.leader][: len(d.trick)]
    if played:
        if holder == decl:
            under = [c for c in codes if not _beats(c, top, -1, strength)]
            if under:
                return max(under, key=lambda c: strength[c])
            return min(codes, key=lambda c: strength[c])
        return max(codes, key=lambda c: strength[c])  # the trick is safe: shed a high card
    return min(codes, key=lambda c: strength[c])


def _all_tricks(d: BauernDeal, codes: list[int]) -> int:
    """Schnapser and all-tricks contracts (Gang, Bauernschnapser...)."""
    me = d.turn
    hand = d.hands[me]
    decl = d.declarer
    trump = d.ptrump
    strength = d.strength
    higher = HIGHER[d.order]
    out = DECK20_MASK & ~hand & ~_gone(d)
    if me == decl:
        if not d.trick:
            return _declarer_lead(d, codes, me, hand, out, trump, higher)
        top, _, after = _trick_state(d)
        win = [c for c in codes if _beats(c, top, trump, strength)]
        if not win:
            return min(codes, key=lambda c: POINTS[c])
        sure = [c for c in win if _holds(c, out, trump, after, higher)]
        if sure:
            return min(sure, key=lambda c: (c // 6 == trump, strength[c]))
        return max(win, key=lambda c: (c // 6 == trump, strength[c]))
    if me == decl ^ 2:
        # The declarer's partner must not take a trick: duck, or give him a low lead.
        if not d.trick:
            return min(codes, key=lambda c: (strength[c], c // 6 == trump))
        top, holder, _ = _trick_state(d)
        under = [c for c in codes if not _beats(c, top, trump, strength)]
        if under:
            if holder == decl:
                return max(under, key=lambda c: POINTS[c])
            return min(under, key=lambda c: strength[c])
        return min(codes, key=lambda c: strength[c])
    # A defender: one trick is enough.
    if not d.trick:
        return max(codes, key=lambda c: (c // 6 != trump, strength[c]))
    top, holder, after = _trick_state(d)
    win = [c for c in codes if _beats(c, top, trump, strength)]
    if holder != decl and (holder ^ me) & 1 == 0 and _holds(top, out, trump, after, higher):
        return min(codes, key=lambda c: (c // 6 == trump, strength[c]))  # it is ours
    if win:
        sure = [c for c in win if _holds(c, out, trump, after, higher)]
        if sure:
            return min(sure, key=lambda c: strength[c])
        return max(win, key=lambda c: strength[c])
    return min(codes, key=lambda c: (POINTS[c], strength[c]))


def _declarer_lead(
    d: BauernDeal,
    codes: list[int],
    me: int,
    hand: int,
    out: int,
    trump: int,
    higher: tuple[int, ...],
) -> int:
    if d.kind == _SCHNAPSER:
        for code in codes:
            if A.MARRIAGE_FLAG <= code < A.EXCHANGE and (code & 31) % 6 == QUEEN:
                suit = (code & 31) // 6
                gain = 40 if suit == trump else 20
                if d.tricks[me] and d.seat_total(me) + gain >= TARGET:
                    return code
    tm = SUIT5[trump] if trump >= 0 else 0
    mine = hand & tm
    if mine and out & tm:
        top = cards_of(mine)[0]
        if not higher[top] & out:
            return top
    best, best_v = -1, -1
    for c in cards_of(hand):
        if higher[c] & out:
            continue
        if c // 6 != trump and out & tm:
            continue
        v = POINTS[c]
        if v > best_v:
            best, best_v = c, v
    if best >= 0:
        # A marriage half that is the top of its suit: declare it as it is led.
        if (best | A.MARRIAGE_FLAG) in codes:
            return best | A.MARRIAGE_FLAG
        return best
    strength = d.strength
    return max((c for c in codes if c < A.MARRIAGE_FLAG), key=lambda c: strength[c])
