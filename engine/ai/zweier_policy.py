"""Rule-based Zweierschnapsen play on the rules core: the `heuristic` level, and the
playout policy of the `strong` level (so it must be fast: plain ints and masks).

It decides for the seat to act from what that seat may know and nothing else: its own
hand, the cards in completed tricks, the card led, the face-up trump, the opponent's
shown cards (`shown & hand`, exactly `view.known`) and the public counts.  It never
reads the opponent's unknown cards or the talon order, so it plays the same in every
sampled world and in the real deal (the no-peeking tests check this).

The rules are a club player's (RULES.md §2 gives the game):
- exchange the trump Jack when allowed; declare marriages (trump first), leading the
  Queen; claim 66 when auto-claim is off;
- close the talon when the points in hand plus sure tricks reach 66;
- while the talon is open, lead and throw cheap cards, keep trumps and marriage
  halves, take led Aces and Tens with a cheap winner, take small cards with a
  vulnerable Ten or the Ace of their suit;
- under Stichzwang, cash sure winners (trumps first while the opponent may have
  trumps), head a trick with the weakest winning card, else give the cheapest card.
"""

from __future__ import annotations

from ..actions import (
    CLAIM,
    CLOSE,
    EXCHANGE,
    MARRIAGE_FLAG,
    marriage_claim_reaching,
    without_marriage_claims,
)
from ..cards import DECK20_MASK, MARRIAGE_MASK, POINTS, SUIT_MASK, cards_of
from ..tricks import HIGHER, STRENGTH, Order, best_in_trick
from ..zweier import TARGET, ZweierDeal

_STRENGTH = STRENGTH[Order.NORMAL]
_HIGHER = HIGHER[Order.NORMAL]
ACE, TEN, KING, QUEEN, JACK = range(5)

#: _WINS[(trump * 24 + led) * 24 + card]: the second card takes the trick.  Derived
#: from the engine's own trick rule (`best_in_trick`), not a second copy of it.
_WINS = bytes(
    best_in_trick((led, card), trump, _STRENGTH) == 1
    for trump in range(4)
    for led in range(24)
    for card in range(24)
)

#: With the talon open, ruff a plain lead rather than throw an Ace or a Ten of a third
#: suit under it (+0.04 game points a deal, docs/ai.md).
RUFF_RATHER_THAN_THROW = True
#: Extra reluctance to part with a trump while the talon is open, and after.
TRUMP_KEEP_OPEN = 15
TRUMP_KEEP_STRICT = 8
#: ... with half of a marriage held in hand.
MARRIAGE_KEEP = 30
#: Leading a Ten whose Ace is still out invites the Ace.
BARE_TEN_LEAD = 6
#: Card points the opponent adds, at least, to a trick he has to answer.
OPP_LOW = 2


def unseen(d: ZweierDeal, me: int) -> int:
    """Cards `me` has not seen: the opponent's hand (shown cards included) and the talon."""
    seen = d.hands[me] | d.won[0] | d.won[1]
    if d.lead_card >= 0:
        seen |= 1 << d.lead_card
    if d.upcard >= 0:
        seen |= 1 << d.upcard
    return DECK20_MASK & ~seen


def policy(d: ZweierDeal) -> int:
    """The heuristic's action code for the seat to act."""
    codes = d.legal()
    if len(codes) == 1:
        return codes[0]
    me = d.turn
    if d.lead_card >= 0:
        return _follow(d, me, codes)
    return _lead(d, me, codes)


#: _BASE_KEEP[open_talon][trump * 24 + card]: card points plus the trump premium.
_BASE_KEEP = tuple(
    tuple(
        POINTS[c] + ((TRUMP_KEEP_OPEN if op else TRUMP_KEEP_STRICT) if c // 6 == t else 0)
        for t in range(4)
        for c in range(24)
    )
    for op in (False, True)
)
#: Kings and Queens, whose worth depends on their marriage partner.
_KQ = sum(1 << (s * 6 + r) for s in range(4) for r in (KING, QUEEN))


def _keep(card: int, hand: int, out: int, trump: int, open_talon: bool) -> int:
    """How much the holder would rather keep `card` (lower: cheaper to give away):
    its points, more for a trump, much more for half of a marriage in hand."""
    v = _BASE_KEEP[open_talon][trump * 24 + card]
    if _KQ >> card & 1:
        if hand >> (card ^ 1) & 1:  # King and Queen sit on adjacent bits
            v += MARRIAGE_KEEP
        elif open_talon and out >> (card ^ 1) & 1:
            v += 2
    return v


def _cheapest(cards: list[int] | tuple[int, ...], hand: int, out: int, trump: int, op: bool) -> int:
    """The card `_keep` values least (inlined: this is the playouts' inner loop)."""
    base = _BASE_KEEP[op]
    row = trump * 24
    best = cards[0]
    best_v = 1 << 30
    for c in cards:
        v = base[row + c]
        if _KQ >> c & 1:
            if hand >> (c ^ 1) & 1:
                v += MARRIAGE_KEEP
            elif op and out >> (c ^ 1) & 1:
                v += 2
        if v < best_v:
            best, best_v = c, v
    return best


def _lead(d: ZweierDeal, me: int, codes: list[int]) -> int:
    hand = d.hands[me]
    trump = d.trump
    mine = d.points[me] + (d.mpoints[me] if d.tricks[me] else 0)
    if CLAIM in codes:
        if mine >= TARGET:
            return CLAIM
        out_now = marriage_claim_reaching(codes, mine, d.tricks[me] > 0, trump)
        if out_now >= 0:
            return out_now
        codes = without_marriage_claims(codes)
    if EXCHANGE in codes:
        return EXCHANGE
    marriage = -1
    for code in codes:
        is_queen = MARRIAGE_FLAG <= code < EXCHANGE and (code & 31) % 6 == QUEEN
        if is_queen and (marriage < 0 or (code & 31) // 6 == trump):
            marriage = code
    out = unseen(d, me)
    strict = d.closed_by >= 0 or d.upcard < 0
    if not strict and CLOSE in codes and _should_close(d, me, hand, out, mine):
        return CLOSE
    if marriage >= 0:
        return marriage
    if strict:
        winner = _sure_winner(d, hand, out)
        if winner >= 0:
            return winner
        return _cheapest(cards_of(hand), hand, out, trump, False)
    best = -1
    best_v = 1 << 30
    for c in cards_of(hand):
        v = _keep(c, hand, out, trump, True)
        if c % 6 == TEN and out >> (c - 1) & 1:
            v += BARE_TEN_LEAD
        if v < best_v:
            best, best_v = c, v
    return best


def _should_close(d: ZweierDeal, me: int, hand: int, out: int, mine: int) -> bool:
    """Close when points in hand plus tricks that cannot be lost reach 66.

    A trump is sure when no stronger trump is unseen; a plain card is sure when
    nothing stronger of its suit is unseen and the opponent cannot have a trump left
    after the sure trumps are drawn (counting every unseen trump as his).
    """
    trump = d.trump
    tm = SUIT_MASK[trump]
    sure = 0
    tricks = 0
    for c in cards_of(hand & tm):
        if _HIGHER[c] & out:
            break
        sure += POINTS[c] + OPP_LOW
        tricks += 1
    if (out & tm).bit_count() <= tricks:
        for c in cards_of(hand & ~tm):
            if not _HIGHER[c] & out:
                sure += POINTS[c] + OPP_LOW
                tricks += 1
    marriages = 0
    for s in range(4):
        mm = MARRIAGE_MASK[s]
        if hand & mm == mm:
            marriages += 40 if s == trump else 20
    if not d.tricks[me] and not tricks:
        marriages = 0
        mine = d.points[me]
    return mine + marriages + sure >= TARGET


def _sure_winner(d: ZweierDeal, hand: int, out: int) -> int:
    """Under Stichzwang, a card that takes the trick whatever the opponent holds
    (trumps first while he may have trumps, to draw them), or -1."""
    trump = d.trump
    tm = SUIT_MASK[trump]
    exact = d.upcard < 0  # talon gone: the unseen cards are exactly his hand
    opp_trumps = out & tm
    best = -1
    best_v = -1
    for c in cards_of(hand):
        if _HIGHER[c] & out:
            continue
        suit = c // 6
        if suit == trump:
            v = 100 + POINTS[c] if opp_trumps else POINTS[c]
        elif not opp_trumps or (exact and out & SUIT_MASK[suit]):
            v = 50 + POINTS[c]
        else:
            continue
        if v > best_v:
            best, best_v = c, v
    return best


def _follow(d: ZweierDeal, me: int, codes: list[int]) -> int:
    hand = d.hands[me]
    trump = d.trump
    lead = d.lead_card
    row = (trump * 24 + lead) * 24
    winners = [c for c in codes if _WINS[row + c]]
    mine = d.points[me] + d.mpoints[me] + POINTS[lead]
    for c in winners:
        if mine + POINTS[c] >= TARGET:
            return c  # takes the trick and the deal
    out = unseen(d, me)
    open_talon = d.closed_by < 0 and d.upcard >= 0
    if winners:
        opp = 1 - me
        theirs = d.points[opp] + d.mpoints[opp] + POINTS[lead]
        if theirs + POINTS[_cheapest(codes, hand, out, trump, open_talon)] >= TARGET:
            return _cheapest(winners, hand, out, trump, open_talon)  # or he is out
    if not open_talon:
        if winners:  # all of the led suit, or all trumps (Stichzwang): the weakest
            weakest = winners[0]
            for c in winners:
                if _STRENGTH[c] < _STRENGTH[weakest]:
                    weakest = c
            return weakest
        return _cheapest(codes, hand, out, trump, False)
    if winners:
        led_suit = lead // 6
        if led_suit != trump:
            if POINTS[lead] >= 10:
                return _cheapest(winners, hand, out, trump, True)
            same = [c for c in winners if c // 6 == led_suit and c % 6 <= TEN]
            if same:
                return same[-1]  # the Ten if it wins, else the Ace
        elif POINTS[lead] >= 10:
            return winners[0]
    throw = _cheapest(codes, hand, out, trump, True)
    if RUFF_RATHER_THAN_THROW and POINTS[throw] >= 10 and throw // 6 not in (lead // 6, trump):
        # About to throw an Ace or a Ten of a third suit under a plain lead: a trump
        # takes the trick instead (the keep value counts a trump above any Ace).
        ruffs = [c for c in winners if c // 6 == trump]
        if ruffs and lead // 6 != trump:
            return _cheapest(ruffs, hand, out, trump, True)
    return throw
