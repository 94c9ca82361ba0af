"""Why an action is refused in Dreierschnapsen: a stable error code and a message.

This only explains.  Legality is decided by `DreierDeal.legal()` alone
(`engine.protocol.apply` refuses what it does not list, then asks here why), so the
two cannot disagree about what is allowed.  Codes are those of RULES.md §6 where it
names one, and the extra ones documented in docs/rules/dreier.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import actions as A
from ..actions import Action
from ..cards import IDS
from ..tricks import why_not_allowed
from .contracts import CONTRACT_IDS, CONTRACTS, NORMAL, ROW, Goal, Holding, Who, holds
from .rules import BIDDING, DISCARD, DOUBLING, PLAY, TRUMP, enabled_rows, may_bid_without_talon

if TYPE_CHECKING:
    from .deal import DreierDeal

_HOLDING = {
    Holding.ACE: "at least one ace",
    Holding.SUIT: "all 5 cards of one suit",
    Holding.TRUMPS: "all 5 trumps",
}


def explain(d: DreierDeal, seat: int, action: Action, code: int) -> tuple[str, str]:
    phase = d.phase
    if phase == TRUMP:
        return _trump(d, action)
    if phase == BIDDING:
        return _bidding(d, seat, action)
    if phase == DISCARD:
        return _discard(d, seat, action)
    if phase == DOUBLING:
        return "action_not_allowed", "the defenders and the declarer now say double or pass"
    if phase == PLAY:
        return _play(d, seat, action)
    return "deal_over", "the deal is over"  # pragma: no cover - protocol.apply says so first


def _trump(d: DreierDeal, action: Action) -> tuple[str, str]:
    if isinstance(action, A.ChooseTrump):
        if action.suit is not None and action.blind is None:
            first = d.first_packet(d.fh)
            held = " ".join(IDS[c] for c in first)
            return (
                "trump_not_in_first_packet",
                f"trumps are named from the first 3 cards ({held}), "
                f"and {action.suit.letter} is not among them",
            )
        if action.blind is not None and action.suit is None:
            return "invalid_blind", "the blind card is one of the second packet: 3, 4 or 5"
        return "invalid_trump", "name a suit or turn a blind card, not both"
    if isinstance(action, A.Redeal):
        return "redeal_not_allowed", "a new deal needs three Jacks in the first 3 cards"
    return "action_not_allowed", "forehand first names trumps (a suit or a blind card)"


def _contract_problem(d: DreierDeal, seat: int, contract: str) -> tuple[str, str] | None:
    """Why `seat` may not name `contract` at all (not about its rank), or None."""
    if contract not in ROW:
        known = ", ".join(CONTRACT_IDS)
        return "unknown_contract", f"no contract {contract!r} (contracts: {known})"
    row = ROW[contract]
    c = CONTRACTS[row]
    if row not in enabled_rows(d.opts):
        return (
            "contract_not_allowed",
            f"{c.name} is not played at this table (option dreier.{c.option})",
        )
    is_fh = seat == d.fh
    if c.who is Who.FOREHAND and not is_fh:
        return "contract_not_allowed", f"only forehand (seat {d.fh}) may bid {c.name}"
    if c.who is Who.NOT_FOREHAND and is_fh:
        return "contract_not_allowed", f"forehand may not bid {c.name}"
    return None


def _bidding(d: DreierDeal, seat: int, action: Action) -> tuple[str, str]:
    opening = not d.bids
    if isinstance(action, A.Pass):
        return "forehand_must_bid", "forehand opens the bidding and may not pass it"
    if not isinstance(action, A.Bid):
        return "action_not_allowed", "bid a contract or pass"
    if action.contract is None:
        return "invalid_bid", "a Dreierschnapsen bid names a contract"
    problem = _contract_problem(d, seat, action.contract)
    if problem:
        return problem
    row = ROW[action.contract]
    c = CONTRACTS[row]
    if row == NORMAL and d.opts.caller_first:
        return (
            "contract_not_allowed",
            "in the caller-first order forehand says pass to play the normal game",
        )
    if not holds(c, d.hands[seat], d.trump):
        return "contract_not_allowed", f"{c.name} needs {_HOLDING[c.holding]} in hand"
    if action.without_talon and not may_bid_without_talon(d.opts, c):
        return "without_talon_not_allowed", f"{c.name} cannot be bid without talon here"
    if opening:  # pragma: no cover - every opening bid that passes the checks is legal
        return "bid_too_low", "not a legal opening bid"
    row_hi, rest = divmod(d.high_key, 6)
    last = CONTRACTS[row_hi].name + (" without talon" if rest >= 3 else "")
    return (
        "bid_too_low",
        f"a bid must rank above {last} by seat {d.high_seat}: a higher contract, "
        "the same without talon, or the same with higher priority",
    )


def _discard(d: DreierDeal, seat: int, action: Action) -> tuple[str, str]:
    if not isinstance(action, A.Discard):
        return "action_not_allowed", "the declarer now discards 2 cards"
    cards = [card.index for card in action.cards]
    if len(cards) != 2 or cards[0] == cards[1]:
        return "invalid_discard", "discard exactly 2 different cards"
    hand = d.hands[seat]
    for x in cards:
        if not hand >> x & 1:
            return "card_not_in_hand", f"{IDS[x]} is not in your hand"
    if action.contract is None:  # pragma: no cover - a plain discard of 2 held cards is legal
        return "invalid_discard", "not a legal discard"
    if not d.raise_allowed():
        return "raise_not_allowed", "the contract cannot be raised after the talon here"
    problem = _contract_problem(d, seat, action.contract)
    if problem:
        return problem
    cur = d.contract
    assert cur is not None
    row = ROW[action.contract]
    if row <= ROW[cur.id]:
        return "bid_too_low", f"a raise must name a contract above {cur.name}"
    kept = hand & ~((1 << cards[0]) | (1 << cards[1]))
    c = CONTRACTS[row]
    need = _HOLDING.get(c.holding, "other cards")
    if not holds(c, kept, d.trump):
        return "contract_not_allowed", f"{c.name} needs {need} in the 6 cards kept"
    return (
        "contract_not_allowed",
        f"{c.name} needs {need} in the original 6 cards (dreier.carinthian)",
    )


def _play(d: DreierDeal, seat: int, action: Action) -> tuple[str, str]:
    c = d.contract
    assert c is not None
    hand = d.hands[seat]
    if isinstance(action, A.PlayCard):
        card = action.card.index
        if not hand >> card & 1:
            return "card_not_in_hand", f"{IDS[card]} is not in your hand"
        if action.claim:
            if why := A.marriage_claim_refusal(action, d.auto):
                return why
            if c.goal is not Goal.GAME:
                return "claim_not_allowed", f"there is nothing to claim in {c.name}"
        if action.marriage:
            if d.trick:
                return "marriage_not_allowed", "a marriage is declared only when leading"
            if not c.marriages:
                return "marriage_not_allowed", f"marriages do not count in {c.name}"
            if c.goal is Goal.SCHNAPSER and seat != d.decl:
                return "marriage_not_allowed", f"only the declarer's marriages count in {c.name}"
            return "marriage_not_held", f"{IDS[card]} is not part of a marriage you hold"
        return why_not_allowed(hand, d.trick, d.ptrump, card, d.order)
    if isinstance(action, A.Claim):
        if d.auto:
            return "claim_not_allowed", "claims are automatic at this table (auto_claim)"
        if c.goal is not Goal.GAME:
            return "claim_not_allowed", f"there is nothing to claim in {c.name}"
        return "claim_not_allowed", "you may claim only when you are on lead"
    return "action_not_allowed", f"play a card ({c.name})"
