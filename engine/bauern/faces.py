"""The readable faces of a Bauernschnapsen deal: seat views and refusals.

`view` is the only door out of the deal (DESIGN.md): a seat sees its own hand (only
the first packet while trumps are being named, as at the table), the public cards
(tricks, the Aufschlag card, shown marriage partners, a shown hand) and nothing else,
not even its partner's hand.  `explain` only says *why* an action is refused; whether
it is legal is always the core's `legal()` (engine.protocol).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import actions as A
from ..actions import Action, decode
from ..cards import CARDS, IDS, Card, Suit, cards_of, mask_of
from ..options import options_to_json
from ..tricks import why_not_allowed
from ..views import SeatView
from .rules import (
    BIDDING,
    CONTRACT_IDS,
    CONTRACTS,
    DOUBLING,
    FOREHAND,
    FOREHAND_TEAM,
    GAME_ID,
    NOT_FOREHAND,
    OPPONENTS,
    PHASES,
    PLAY,
    TRUMP,
    Holding,
    Kind,
    enabled,
)

if TYPE_CHECKING:
    from .deal import BauernDeal


_WHO = {
    FOREHAND: "forehand only",
    FOREHAND_TEAM: "forehand or his partner only",
    OPPONENTS: "forehand's opponents only",
    NOT_FOREHAND: "anyone but forehand",
}
_NAMES = {
    "normal": "normal game",
    "bettler": "Bettler",
    "assbettler": "Ass-Bettler",
    "schnapser": "Schnapser",
    "gang": "Gang",
    "zehnergang": "Zehnergang",
    "kontraschnapser": "Kontraschnapser",
    "bauernschnapser": "Bauernschnapser",
    "farbengang": "Farbengang",
    "kontrabauernschnapser": "Kontrabauernschnapser",
    "herrenschnapser": "Herrenschnapser",
}
_HOLDING = {
    Holding.ACE: "an ace",
    Holding.FULL_SUIT: "all five cards of one suit",
    Holding.ALL_TRUMPS: "all five trumps",
}


def _cards(mask: int) -> tuple[Card, ...]:
    return tuple(CARDS[c] for c in cards_of(mask))


def view(d: BauernDeal, seat: int | None) -> SeatView:
    phase = d.phase
    if phase == TRUMP:
        # Only the first packet is dealt while forehand names trumps (RULES.md §4).
        hand = _cards(mask_of(d.dealt[seat][:3])) if seat is not None else ()
        sizes: tuple[int, ...] = (3, 3, 3, 3)
    else:
        hand = _cards(d.hands[seat]) if seat is not None else ()
        sizes = tuple(h.bit_count() for h in d.hands)
    known = tuple(
        (o, CARDS[c]) for o in range(4) if o != seat for c in cards_of(d.shown & d.hands[o])
    )
    settled = d.row >= 0
    contract = CONTRACTS[d.row] if settled else None
    if contract is None:
        trump = Suit(d.trump) if d.trump >= 0 else None
    else:
        trump = Suit(d.trump) if contract.trumps else None
    rota = d.rota
    played = tuple(
        tuple((rota[ld][i], CARDS[c]) for i, c in enumerate(cs)) for ld, cs, _ in d.played
    )
    last_winner = d.played[-1][2] if d.played else None
    pending = tuple(0 if d.team_has_trick(s) else d.mpoints[s] for s in range(4))
    high = (CONTRACT_IDS[d.high], d.holder) if d.high >= 0 and not settled else None
    return SeatView(
        game=GAME_ID,
        options=tuple(options_to_json(d.opts, GAME_ID).items()),
        seat=seat,
        players=4,
        dealer=d.dealer,
        phase=PHASES[phase],
        to_act=None if d.turn < 0 else d.turn,
        hand=hand,
        hand_sizes=sizes,
        trump=trump,
        trump_card=CARDS[d.upcard] if d.upcard >= 0 else None,
        contract=contract.id if contract is not None else None,
        declarer=d.declarer if settled else None,
        multiplier=d.mult,
        bids=tuple((s, decode(code, CONTRACT_IDS)) for s, code in d.history),
        trick=tuple((rota[d.leader][i], CARDS[c]) for i, c in enumerate(d.trick)),
        last_trick=played[-1] if played else (),
        tricks=played,
        last_trick_winner=last_winner,
        tricks_won=tuple(d.tricks),
        points=tuple(d.seat_total(s) for s in range(4)),
        marriages=tuple((s, Suit(su), v) for s, su, v in d.marriages),
        known=known,
        sitting_out=d.sitting if d.sitting >= 0 else None,
        legal=d.legal_actions() if seat is not None and seat == d.turn else (),
        result=d.res,
        extra=(
            ("forehand", d.fh),
            ("named_trump", Suit(d.trump) if d.trump >= 0 else None),
            ("high_bid", high),
            ("passed", tuple(s for s in range(4) if d.passed >> s & 1)),
            ("kontra_over_bettler", d.floor >= 0),
            ("doubling_round", d.dbl_round if phase == DOUBLING else None),
            ("auction_length", d.auction_len if d.auction_len >= 0 else None),
            ("team_points", (d.team_total(0), d.team_total(1))),
            ("pending_marriage_points", pending),
        ),
    )


# --- refusals ---------------------------------------------------------------------------


def explain(d: BauernDeal, seat: int, action: Action, code: int) -> tuple[str, str]:
    phase = d.phase
    if isinstance(action, A.ChooseTrump):
        if phase != TRUMP:
            return "action_not_allowed", "trumps are named once, before the auction"
        if action.blind is not None:
            return "invalid_blind", "Aufschlagen turns up card 3 or 4 of the hand as dealt"
        return (
            "trump_not_in_first_packet",
            "trumps must be a suit of your first three cards (or Aufschlagen)",
        )
    if phase == TRUMP:
        return "action_not_allowed", "forehand names trumps first"
    if isinstance(action, A.Bid):
        return _explain_bid(d, seat, action)
    if isinstance(action, A.Pass):
        if phase == BIDDING:
            return "forehand_must_bid", "forehand opens the auction and may not pass"
        return "action_not_allowed", "passing is for the auction and the doubling"
    if isinstance(action, A.Double):
        return "double_not_allowed", _why_no_double(d, seat)
    if isinstance(action, A.PlayCard):
        return _explain_card(d, seat, action)
    if isinstance(action, A.Claim):
        if phase != PLAY or d.kind != Kind.NORMAL:
            return "claim_not_allowed", "only a normal game is claimed"
        if d.auto:
            return "claim_not_allowed", "claims are automatic at this table (auto_claim)"
        return "claim_not_allowed", "you may claim only when you are on lead"
    return "action_not_allowed", f"{type(action).__name__} is not an action of {GAME_ID} now"


def _explain_bid(d: BauernDeal, seat: int, action: A.Bid) -> tuple[str, str]:
    if d.phase != BIDDING:
        return "action_not_allowed", "the auction is over"
    if action.value is not None or action.without_talon:
        return "invalid_bid", "Bauernschnapsen bids name a contract (there is no talon)"
    if action.contract not in CONTRACT_IDS:
        return "contract_not_allowed", f"there is no contract {action.contract!r}"
    row = CONTRACT_IDS.index(action.contract)
    c = CONTRACTS[row]
    if not enabled(c, d.opts):
        return "contract_not_allowed", f"{_NAMES[c.id]} is not played at this table"
    if not c.bidders >> ((seat - d.fh) & 3) & 1:
        return "contract_not_allowed", f"{_NAMES[c.id]} may be bid by {_WHO[c.bidders]}"
    if not d.biddable[seat] >> row & 1:
        return "contract_not_allowed", f"{_NAMES[c.id]} needs {_HOLDING[c.holding]} in your hand"
    if row <= d.floor:
        return "bid_too_low", "after a Kontra over a Bettler no Bettler may be bid"
    holder = _NAMES[CONTRACT_IDS[d.high]]
    if row == d.high:
        return "bid_too_low", f"the {holder} was bid by a player with higher priority"
    return "bid_too_low", f"bid higher than the {holder}, or pass"


def _why_no_double(d: BauernDeal, seat: int) -> str:
    if d.phase == BIDDING:
        if not d.opts.kontra_beats_bettler:
            return "Kontra comes after the auction"
        return "in the auction, only forehand's opponents Kontra, over a Bettler of his team"
    if d.phase == DOUBLING:  # pragma: no cover - a double is always legal here
        return "you may not double now"
    return "doubling is over once the play starts"


def _explain_card(d: BauernDeal, seat: int, action: A.PlayCard) -> tuple[str, str]:
    if d.phase != PLAY:
        return "action_not_allowed", "the play has not started"
    card = action.card.index
    hand = d.hands[seat]
    if not hand >> card & 1:
        return "card_not_in_hand", f"{IDS[card]} is not in your hand"
    if action.claim:
        if why := A.marriage_claim_refusal(action, d.auto):
            return why
        if d.kind != Kind.NORMAL:
            return "claim_not_allowed", "only a normal game is claimed"
    if action.marriage:
        if d.trick:
            return "marriage_not_allowed", "a marriage is declared only when leading"
        if not d.may_marry(seat):
            if d.kind == Kind.SCHNAPSER:
                return "marriage_not_allowed", "only the declarer's marriages count here"
            return "marriage_not_allowed", "marriages count only in normal games and Schnapser"
        return "marriage_not_held", f"{IDS[card]} is not part of a marriage you hold"
    return why_not_allowed(hand, d.trick, d.ptrump, card, d.order)
