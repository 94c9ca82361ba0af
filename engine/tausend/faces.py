"""The public faces of a Thousand deal: the seat views and the reasons for refusals.

Kept out of the rules core (`engine.tausend.deal`) because neither is on the fast
path: `view` is the only door out of the engine (DESIGN.md: hidden information is
enforced here), and `explain` only says *why* an action is not among `legal()` —
it never decides legality itself (docs/engine.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import actions as A
from ..actions import Action, decode
from ..cards import CARDS, IDS, MARRIAGE_MASK, SUIT_LETTERS, Card, Rank, Suit, cards_of
from ..options import options_to_json
from ..tricks import Order, why_not_allowed
from ..views import SeatView
from .rules import (
    BIDDING,
    DISCARD,
    FREE_BID_LIMIT,
    GAME_ID,
    GIVE,
    MAX_BID,
    NINES_MASK,
    OPENING_BID,
    PHASES,
    PLAY,
    RAISE,
    holds_marriage,
    stock_value,
)

if TYPE_CHECKING:
    from .deal import TausendDeal

_KING, _QUEEN = int(Rank.KING), int(Rank.QUEEN)


# --- views ---------------------------------------------------------------------------------


def known_cards(deal: TausendDeal, seat: int | None) -> tuple[tuple[int, int], ...]:
    """(seat, card) of cards in other hands that `seat` knows are there.

    Everybody: marriage partners shown (until played), and the shown stock while it is
    all still in the declarer's hand.  The declarer also knows the cards he gave.
    After the first give nobody else can tell which stock cards the declarer kept.
    """
    out: list[tuple[int, int]] = []
    whole_stock = deal.stock_in_hand()
    for o in range(deal.players):
        if o == seat:
            continue
        k = deal.shown[o]
        if seat is not None and seat == deal.declarer:
            k |= deal.given[o]
        if whole_stock and o == deal.declarer:
            k |= deal.stock
        out.extend((o, c) for c in cards_of(k & deal.hands[o]))
    return tuple(out)


def view(deal: TausendDeal, seat: int | None) -> SeatView:
    """What `seat` may see (None: the public).  A seat that has not looked at its hand
    yet (blind bidding) sees no cards of its own."""
    n = deal.players
    over = deal.turn < 0
    hand: tuple[Card, ...] = ()
    if seat is not None and deal.looked >> seat & 1:
        hand = tuple(CARDS[c] for c in cards_of(deal.hands[seat]))
    d = deal.declarer
    trick_seats = deal.trick_seats()
    last: tuple[tuple[int, Card], ...] = ()
    if deal.history:
        last = tuple((s, CARDS[c]) for s, c in deal.history[-1])
    talon_size = (6 if n == 2 else 3) if not deal.taken else deal.pile.bit_count()
    extra: list[tuple[str, object]] = [
        ("bid", deal.high or None),
        ("bidder", deal.high_seat if deal.high_seat >= 0 else None),
        ("value", deal.value if d >= 0 else None),
        ("passed", tuple(s for s in deal.active if deal.passed >> s & 1)),
        ("golden", deal.golden),
        ("blind", deal.blind),
        ("redeal_claim", _claim_open(deal) if seat is not None and seat == deal.turn else None),
    ]
    if deal.blind_ok:
        extra.append(("looked", tuple(bool(deal.looked >> s & 1) for s in range(n))))
    if seat is not None and seat != d and deal.given[seat]:
        # the receiver saw which card was handed over, as at a real table
        extra.append(("received", CARDS[cards_of(deal.given[seat])[0]]))
    if seat is not None and seat == d and deal.laid:
        extra.append(("discarded", tuple(CARDS[c] for c in cards_of(deal.laid))))
    if n == 4 and deal.taken:
        extra.append(("stock_value", stock_value(deal.stock)))
    if deal.setup.barrel:  # public, like the scores: who is on the barrel, deals left
        extra.append(("barrel", deal.setup.barrel))
    if deal.setup.scores:  # the match scores near the barrel, public
        extra.append(("scores", deal.setup.scores))
    return SeatView(
        game=GAME_ID,
        options=tuple(options_to_json(deal.setup.opts, GAME_ID).items()),
        seat=seat,
        players=n,
        dealer=deal.dealer,
        phase=PHASES[deal.phase],
        to_act=None if over else deal.turn,
        hand=hand,
        hand_sizes=tuple(h.bit_count() for h in deal.hands),
        trump=Suit(deal.trump) if deal.trump >= 0 else None,
        talon_size=talon_size,
        talon_cards=tuple(CARDS[c] for c in deal.stock_cards) if deal.taken else (),
        contract="bid" if d >= 0 else None,
        declarer=d if d >= 0 else None,
        multiplier=deal.mult,
        bids=tuple((s, decode(c)) for s, c in deal.auction),
        trick=tuple((s, CARDS[c]) for s, c in zip(trick_seats, deal.trick, strict=False)),
        last_trick=last,
        tricks=tuple(tuple((s, CARDS[c]) for s, c in t) for t in deal.history),
        last_trick_winner=deal.last_winner if deal.last_winner >= 0 else None,
        tricks_won=tuple(deal.tricks),
        points=tuple(deal.total(s) for s in range(n)),
        marriages=tuple((s, Suit(su), v) for s, su, v in deal.marriages),
        known=tuple((s, CARDS[c]) for s, c in known_cards(deal, seat)),
        sitting_out=deal.dealer if n == 4 else None,
        legal=deal.legal_actions() if seat is not None and seat == deal.turn else (),
        result=deal.res,
        extra=tuple(extra),
    )


def _claim_open(deal: TausendDeal) -> str | None:
    """Which redeal claim the seat to act may make now, if any (for its buttons only:
    that a seat may claim tells where four 9s are)."""
    turn = deal.turn
    if turn < 0:
        return None
    if deal.nine_claim >> turn & 1:
        return "given_nine" if deal.given[turn] & NINES_MASK else "four_nines"
    if deal.phase in (GIVE, DISCARD) and deal.stock_claim:
        return "stock_nines"
    if deal.phase == BIDDING and A.REDEAL in deal.legal():
        return "four_nines"
    return None


# --- refusals --------------------------------------------------------------------------------


def explain(deal: TausendDeal, seat: int, action: Action, code: int) -> tuple[str, str]:
    """Stable error code and message for an action that is not legal now (RULES.md §6)."""
    phase = deal.phase
    if isinstance(action, A.Redeal):
        return "redeal_not_allowed", _why_no_redeal(deal, seat)
    if phase == PLAY:
        if isinstance(action, A.PlayCard):
            return _explain_play(deal, seat, action)
        return "action_not_allowed", "the cards are being played: play a card"
    if phase == BIDDING:
        return _explain_bidding(deal, seat, action, code)
    if phase == GIVE:
        if isinstance(action, A.Give):
            if not deal.hands[seat] >> action.card.index & 1:
                return "card_not_in_hand", f"{action.card} is not in your hand"
            todo = " and ".join(f"seat {s}" for s in deal.active if deal.to_give >> s & 1)
            return "give_not_allowed", f"give one card to each opponent; still to receive: {todo}"
        return "action_not_allowed", "the declarer gives one card to each opponent now (give)"
    if phase == DISCARD:
        if isinstance(action, A.Discard):
            for c in action.cards:
                if not deal.hands[seat] >> c.index & 1:
                    return "card_not_in_hand", f"{c} is not in your hand"
            return "discard_not_allowed", "lay exactly 3 different cards on the other stock"
        return "action_not_allowed", "the declarer lays 3 cards face down on the other stock now"
    if phase == RAISE:
        if isinstance(action, A.Raise):
            return _explain_raise(deal, seat, action.value, code)
        return "action_not_allowed", "the declarer states his final bid now (raise)"
    return "action_not_allowed", f"{type(action).__name__} is not an action of {GAME_ID} now"


def _explain_bidding(deal: TausendDeal, seat: int, action: Action, code: int) -> tuple[str, str]:
    looked = bool(deal.looked >> seat & 1)
    if isinstance(action, A.Look):
        if not deal.blind_ok:
            return "action_not_allowed", "this table does not bid blind (tausend.blind_bid)"
        return "action_not_allowed", "you have already looked at your hand"
    if isinstance(action, A.Pass):
        return (
            "forehand_must_bid",
            f"forehand opens the bidding with {OPENING_BID}; he may not pass",
        )
    if not isinstance(action, A.Bid):
        return "action_not_allowed", "it is the bidding: bid or pass"
    value = action.value
    if value is None or action.contract is not None:
        return (
            "invalid_bid",
            "a Thousand bid is a number of points, e.g. {'do': 'bid', 'value': 100}",
        )
    if code == A.INVALID:
        return "invalid_bid", f"bids go in steps of 5, not {value}"
    if not deal.high and value != OPENING_BID:
        return "invalid_bid", f"forehand opens with exactly {OPENING_BID}"
    if value <= deal.high:
        return "bid_too_low", f"bid more than {deal.high}"
    if value > MAX_BID:
        return "invalid_bid", f"no deal can score more than {MAX_BID}"
    if not looked:
        return (
            "bid_needs_marriage",
            f"a blind bid may not exceed {FREE_BID_LIMIT}: you have not seen your hand",
        )
    if value > FREE_BID_LIMIT and not holds_marriage(deal.hands[seat]):
        return "bid_needs_marriage", f"a bid above {FREE_BID_LIMIT} needs a marriage in hand"
    return "invalid_bid", f"{value} is not a bid you can make now"  # pragma: no cover


def _explain_raise(deal: TausendDeal, seat: int, value: int, code: int) -> tuple[str, str]:
    if code == A.INVALID:
        return "invalid_bid", f"bids go in steps of 5, not {value}"
    if value < deal.value:
        return "bid_too_low", f"your final bid is at least your bid, {deal.value}"
    if value > MAX_BID:
        return "invalid_bid", f"no deal can score more than {MAX_BID}"
    if value > FREE_BID_LIMIT and not holds_marriage(deal.hands[seat]):
        return (
            "bid_needs_marriage",
            f"raising above {FREE_BID_LIMIT} needs a marriage in hand (you may keep {deal.value})",
        )
    return "invalid_bid", f"{value} is not a final bid you can make now"  # pragma: no cover


def _explain_play(deal: TausendDeal, seat: int, action: A.PlayCard) -> tuple[str, str]:
    hand = deal.hands[seat]
    card = action.card.index
    if not hand >> card & 1:
        return "card_not_in_hand", f"{IDS[card]} is not in your hand"
    if action.marriage:
        if deal.trick:
            return "marriage_not_allowed", "a marriage is declared only when leading"
        suit = card // 6
        if card % 6 not in (_KING, _QUEEN) or hand & MARRIAGE_MASK[suit] != MARRIAGE_MASK[suit]:
            return "marriage_not_held", f"{IDS[card]} is not part of a marriage you hold"
        return (
            "marriage_needs_trick",
            f"you may declare the {SUIT_LETTERS[suit]} marriage only once you have won a trick",
        )
    return why_not_allowed(hand, deal.trick, deal.trump, card, Order.NORMAL, False)


def _why_no_redeal(deal: TausendDeal, seat: int) -> str:
    hand = deal.hands[seat]
    # a seat bidding blind has not seen its cards: the refusal must not show them
    looked = deal.looked >> seat & 1
    if deal.phase == BIDDING and looked and hand & NINES_MASK == NINES_MASK:
        return "four 9s are claimed at the bidding turn you first see your hand"
    if deal.phase in (GIVE, DISCARD) and (deal.stock & NINES_MASK).bit_count() >= 2:
        return "two 9s in the stock are claimed before the first card is given away"
    return (
        "a redeal needs four 9s in your hand (at your first look, or at your first card "
        "after receiving a 9) "
        "or, for the declarer, two 9s in the stock"
    )
