"""What a player can do, as frozen values (the public face) and as small ints (the core).

A record action (RULES.md §6) is ``{"seat": n, "do": ..., ...}``; `action_from_json`
and `action_to_json` are the one place that reads and writes that shape.  The rules
core and the AI only see int codes, which are cheap to generate, compare and store;
`encode` and `decode` translate, given the game's contract table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .cards import CARDS, Card, CardError, Suit


class ActionFormatError(ValueError):
    """An action whose JSON is not of the record shape (exit code 2 in `replay`)."""


@dataclass(frozen=True, slots=True)
class PlayCard:
    """Play a card; leading K or Q with `marriage` declares the marriage.  With
    auto-claim off, `claim` also claims 66 straight after the declaration, as a player
    who says "forty, and I'm out" does: the led card's trick is not played out."""

    card: Card
    marriage: bool = False
    claim: bool = False


@dataclass(frozen=True, slots=True)
class ExchangeTrump:
    """Zweierschnapsen: swap the trump Jack for the face-up trump."""


@dataclass(frozen=True, slots=True)
class CloseTalon:
    """Zweierschnapsen: Zudrehen."""


@dataclass(frozen=True, slots=True)
class Claim:
    """Claim 66 ("enough") when auto-claim is off."""


@dataclass(frozen=True, slots=True)
class ChooseTrump:
    suit: Suit | None = None
    blind: int | None = None


@dataclass(frozen=True, slots=True)
class Redeal:
    pass


@dataclass(frozen=True, slots=True)
class Bid:
    contract: str | None = None
    without_talon: bool = False
    value: int | None = None


@dataclass(frozen=True, slots=True)
class Pass:
    pass


@dataclass(frozen=True, slots=True)
class Discard:
    cards: tuple[Card, ...]
    contract: str | None = None


@dataclass(frozen=True, slots=True)
class Double:
    pass


@dataclass(frozen=True, slots=True)
class Give:
    card: Card
    to: int


@dataclass(frozen=True, slots=True)
class Raise:
    value: int


@dataclass(frozen=True, slots=True)
class Look:
    """Thousand with blind bidding: look at your hand (bids made before it are blind)."""


Action = (
    PlayCard
    | ExchangeTrump
    | CloseTalon
    | Claim
    | ChooseTrump
    | Redeal
    | Bid
    | Pass
    | Discard
    | Double
    | Give
    | Raise
    | Look
)

# --- int codes ----------------------------------------------------------------------
MARRIAGE_FLAG = 32
MARRIAGE_CLAIM = 128  # + card | MARRIAGE_FLAG: declare the marriage, then claim 66
EXCHANGE = 64
CLOSE = 65
CLAIM = 66
PASS = 67
DOUBLE = 68
REDEAL = 69
LOOK = 70
TRUMP_SUIT = 72  # + suit
TRUMP_BLIND = 80  # + index in the hand as dealt
BID_CONTRACT = 256  # + 2 * contract row + without_talon
BID_VALUE = 512  # + value // 5
RAISE = 768  # + value // 5
GIVE = 1024  # + card + 32 * seat
DISCARD = 4096  # + low card + 32 * high card + 1024 * (raised contract row + 1)
DISCARD3 = 1 << 20  # + low + 32 * middle + 1024 * high card (Thousand for two: 3 cards)
INVALID = -1


def encode(action: Action, contracts: Sequence[str] = ()) -> int:
    """Int code of an action, or `INVALID` when it cannot be one of this game's actions."""
    if isinstance(action, PlayCard):
        if action.claim:
            return (
                MARRIAGE_CLAIM | MARRIAGE_FLAG | action.card.index if action.marriage else INVALID
            )
        return action.card.index + (MARRIAGE_FLAG if action.marriage else 0)
    if isinstance(action, Pass):
        return PASS
    if isinstance(action, Double):
        return DOUBLE
    if isinstance(action, Bid):
        if action.contract is not None:
            if action.contract not in contracts or action.value is not None:
                return INVALID
            return BID_CONTRACT + 2 * contracts.index(action.contract) + int(action.without_talon)
        if action.value is None or action.value % 5 or action.value < 0 or action.without_talon:
            return INVALID
        return BID_VALUE + action.value // 5
    if isinstance(action, ExchangeTrump):
        return EXCHANGE
    if isinstance(action, CloseTalon):
        return CLOSE
    if isinstance(action, Claim):
        return CLAIM
    if isinstance(action, Redeal):
        return REDEAL
    if isinstance(action, ChooseTrump):
        if (action.suit is None) == (action.blind is None):
            return INVALID
        if action.suit is not None:
            return TRUMP_SUIT + int(action.suit)
        assert action.blind is not None
        return TRUMP_BLIND + action.blind if 0 <= action.blind < 16 else INVALID
    if isinstance(action, Look):
        return LOOK
    if isinstance(action, Discard):
        if len(action.cards) == 3 and action.contract is None:
            if len(set(action.cards)) != 3:
                return INVALID
            a, b, c = sorted(x.index for x in action.cards)
            return DISCARD3 + a + 32 * b + 1024 * c
        if len(action.cards) != 2 or action.cards[0] == action.cards[1]:
            return INVALID
        lo, hi = sorted(c.index for c in action.cards)
        raised = 0
        if action.contract is not None:
            if action.contract not in contracts:
                return INVALID
            raised = contracts.index(action.contract) + 1
        return DISCARD + lo + 32 * hi + 1024 * raised
    if isinstance(action, Give):
        return GIVE + action.card.index + 32 * action.to if 0 <= action.to < 8 else INVALID
    if isinstance(action, Raise):
        return RAISE + action.value // 5 if action.value % 5 == 0 and action.value >= 0 else INVALID
    raise TypeError(f"not an action: {action!r}")


def is_marriage_claim(code: int) -> bool:
    """Is this the code of a marriage declared and claimed at once?"""
    return MARRIAGE_CLAIM | MARRIAGE_FLAG <= code < MARRIAGE_CLAIM + 2 * MARRIAGE_FLAG


def with_marriage_claims(codes: Sequence[int]) -> list[int]:
    """The declare-and-claim codes for the marriages among `codes` (auto-claim off)."""
    return [c | MARRIAGE_CLAIM for c in codes if MARRIAGE_FLAG <= c < EXCHANGE]


def claim_is_right(code: int, total: int, counted: bool, trump: int) -> bool:
    """Whether a `CLAIM`, or a declare-and-claim with its marriage (40 in trumps, else
    20), reaches 66 for a side with `total` points; a side's marriages count only once
    it has a trick (`counted`)."""
    if code == CLAIM:
        return total >= 66
    return counted and total + (40 if (code & 31) // 6 == trump else 20) >= 66


def marriage_claim_reaching(codes: Sequence[int], total: int, counted: bool, trump: int) -> int:
    """The declare-and-claim code among `codes` that is right (`claim_is_right`), or -1."""
    return next(
        (c for c in codes if is_marriage_claim(c) and claim_is_right(c, total, counted, trump)),
        -1,
    )


def without_marriage_claims(codes: list[int]) -> list[int]:
    return [c for c in codes if not is_marriage_claim(c)]


def marriage_claim_refusal(action: PlayCard, auto: bool) -> tuple[str, str] | None:
    """Why a declare-and-claim is refused before the marriage itself is looked at."""
    if auto:
        return "claim_not_allowed", "claims are automatic at this table (auto_claim)"
    if not action.marriage:
        return "claim_not_allowed", "a card goes with a claim only to declare a marriage"
    return None


def decode(code: int, contracts: Sequence[str] = ()) -> Action:
    """The action behind an int code (inverse of `encode`)."""
    if code < EXCHANGE:
        return PlayCard(CARDS[code & 31], bool(code & MARRIAGE_FLAG))
    if is_marriage_claim(code):
        return PlayCard(CARDS[code & 31], True, True)
    if code == PASS:
        return Pass()
    if code == DOUBLE:
        return Double()
    if code == EXCHANGE:
        return ExchangeTrump()
    if code == CLOSE:
        return CloseTalon()
    if code == CLAIM:
        return Claim()
    if code == REDEAL:
        return Redeal()
    if code == LOOK:
        return Look()
    if TRUMP_SUIT <= code < TRUMP_SUIT + 4:
        return ChooseTrump(suit=Suit(code - TRUMP_SUIT))
    if TRUMP_BLIND <= code < TRUMP_BLIND + 16:
        return ChooseTrump(blind=code - TRUMP_BLIND)
    if BID_CONTRACT <= code < BID_VALUE:
        row, wt = divmod(code - BID_CONTRACT, 2)
        return Bid(contract=contracts[row], without_talon=bool(wt))
    if BID_VALUE <= code < RAISE:
        return Bid(value=(code - BID_VALUE) * 5)
    if RAISE <= code < GIVE:
        return Raise((code - RAISE) * 5)
    if GIVE <= code < DISCARD:
        to, card = divmod(code - GIVE, 32)
        return Give(CARDS[card], to)
    if code >= DISCARD3:
        rest, a = divmod(code - DISCARD3, 32)
        c, b = divmod(rest, 32)
        return Discard((CARDS[a], CARDS[b], CARDS[c]))
    if code >= DISCARD:
        raised, rest = divmod(code - DISCARD, 1024)
        hi, lo = divmod(rest, 32)
        return Discard((CARDS[lo], CARDS[hi]), contracts[raised - 1] if raised else None)
    raise ValueError(f"not an action code: {code}")


# --- JSON (records) ---------------------------------------------------------------


def action_to_json(action: Action) -> dict[str, Any]:
    """The record form of an action, without its seat."""
    if isinstance(action, PlayCard):
        out: dict[str, Any] = {"do": "play", "card": action.card.id}
        if action.marriage:
            out["marriage"] = True
        if action.claim:
            out["claim"] = True
        return out
    if isinstance(action, Bid):
        if action.value is not None:
            return {"do": "bid", "value": action.value}
        out = {"do": "bid", "contract": action.contract}
        if action.without_talon:
            out["without_talon"] = True
        return out
    if isinstance(action, ChooseTrump):
        if action.suit is not None:
            return {"do": "trump", "suit": action.suit.letter}
        return {"do": "trump", "blind": action.blind}
    if isinstance(action, Discard):
        out = {"do": "discard", "cards": [c.id for c in action.cards]}
        if action.contract is not None:
            out["contract"] = action.contract
        return out
    if isinstance(action, Give):
        return {"do": "give", "card": action.card.id, "to": action.to}
    if isinstance(action, Raise):
        return {"do": "raise", "value": action.value}
    return {"do": _SIMPLE_NAMES[type(action)]}


_SIMPLE: dict[str, type] = {
    "pass": Pass,
    "double": Double,
    "exchange": ExchangeTrump,
    "close": CloseTalon,
    "claim": Claim,
    "redeal": Redeal,
    "look": Look,
}
_SIMPLE_NAMES = {cls: name for name, cls in _SIMPLE.items()}


def _card(obj: Mapping[str, Any], key: str) -> Card:
    if key not in obj:
        raise ActionFormatError(f"action {obj.get('do')!r} needs {key!r}")
    try:
        return Card.from_id(obj[key])
    except CardError as e:
        raise ActionFormatError(str(e)) from None


def _int(obj: Mapping[str, Any], key: str) -> int:
    v = obj.get(key)
    if not isinstance(v, int) or isinstance(v, bool):
        raise ActionFormatError(f"action {obj.get('do')!r} needs an integer {key!r}, got {v!r}")
    return v


def _bool(obj: Mapping[str, Any], key: str) -> bool:
    v = obj.get(key, False)
    if not isinstance(v, bool):
        raise ActionFormatError(f"{key!r} must be true or false, got {v!r}")
    return v


def action_from_json(obj: object) -> Action:
    """Read one record action (its ``seat`` is read by the caller)."""
    if not isinstance(obj, Mapping):
        raise ActionFormatError(f"an action must be a JSON object, got {obj!r}")
    do = obj.get("do")
    if do in _SIMPLE:
        return _SIMPLE[do]()  # type: ignore[no-any-return]
    if do == "play":
        return PlayCard(_card(obj, "card"), _bool(obj, "marriage"), _bool(obj, "claim"))
    if do == "bid":
        if "value" in obj:
            return Bid(value=_int(obj, "value"))
        contract = obj.get("contract")
        if not isinstance(contract, str):
            raise ActionFormatError("a bid needs a 'contract' (or a 'value' in tausend)")
        return Bid(contract=contract, without_talon=_bool(obj, "without_talon"))
    if do == "trump":
        if "suit" in obj:
            try:
                return ChooseTrump(suit=Suit.parse(obj["suit"]))
            except (CardError, AttributeError):
                raise ActionFormatError(f"not a suit: {obj['suit']!r}") from None
        if "blind" in obj:
            return ChooseTrump(blind=_int(obj, "blind"))
        raise ActionFormatError("a trump action needs 'suit' or 'blind'")
    if do == "discard":
        cards = obj.get("cards")
        if not isinstance(cards, list):
            raise ActionFormatError("a discard needs a list 'cards'")
        try:
            parsed = tuple(Card.from_id(c) for c in cards)
        except CardError as e:
            raise ActionFormatError(str(e)) from None
        contract = obj.get("contract")
        if contract is not None and not isinstance(contract, str):
            raise ActionFormatError("a discard's 'contract' must be a contract id")
        return Discard(parsed, contract)
    if do == "give":
        return Give(_card(obj, "card"), _int(obj, "to"))
    if do == "raise":
        return Raise(_int(obj, "value"))
    raise ActionFormatError(f"unknown action {do!r}")
