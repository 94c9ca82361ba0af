"""What happened, as frozen values in the past tense.

`engine.protocol.apply` returns the events an action caused.  Some carry cards that
only some seats may see (a card drawn from the talon, the talon taken by the declarer,
a card given in Thousand); `redact` blanks those for everybody else, so the bot can
send the same event list to a channel and to each seat without thinking about it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from .cards import Card, Suit

if TYPE_CHECKING:
    from .results import DealResult


@dataclass(frozen=True, slots=True)
class DealStarted:
    dealer: int
    trump_card: Card | None = None


@dataclass(frozen=True, slots=True)
class TrumpChosen:
    seat: int
    suit: Suit
    shown: Card | None = None  # a blind (turned-up) trump card everybody saw


@dataclass(frozen=True, slots=True)
class Redealt:
    seat: int
    reason: str


@dataclass(frozen=True, slots=True)
class BidMade:
    seat: int
    contract: str | None = None
    without_talon: bool = False
    value: int | None = None


@dataclass(frozen=True, slots=True)
class Passed:
    seat: int


@dataclass(frozen=True, slots=True)
class ContractSettled:
    declarer: int
    contract: str
    without_talon: bool = False
    value: int | None = None
    trump: Suit | None = None


@dataclass(frozen=True, slots=True)
class TalonTaken:
    """The declarer took the talon/stock; `cards` are blank for others unless shown."""

    seat: int
    cards: tuple[Card, ...] | None
    shown: bool = False


@dataclass(frozen=True, slots=True)
class Discarded:
    seat: int
    cards: tuple[Card, ...] | None  # seen by the discarding seat only
    count: int = 2


@dataclass(frozen=True, slots=True)
class CardGiven:
    seat: int
    to: int
    card: Card | None  # seen by giver and receiver only


@dataclass(frozen=True, slots=True)
class Raised:
    seat: int
    value: int | None = None
    contract: str | None = None


@dataclass(frozen=True, slots=True)
class Doubled:
    seat: int
    multiplier: int


@dataclass(frozen=True, slots=True)
class CardPlayed:
    seat: int
    card: Card
    marriage: bool = False


@dataclass(frozen=True, slots=True)
class MarriageDeclared:
    seat: int
    suit: Suit
    points: int
    counted: bool  # False while the side has no trick yet (the points wait)
    shown: Card | None = None  # the partner card shown from the hand


@dataclass(frozen=True, slots=True)
class TrickTaken:
    seat: int
    cards: tuple[tuple[int, Card], ...]  # (seat, card) in playing order
    points: int


@dataclass(frozen=True, slots=True)
class CardDrawn:
    seat: int
    card: Card | None  # blank for other seats unless it was the face-up trump
    public: bool = False


@dataclass(frozen=True, slots=True)
class TalonClosed:
    seat: int


@dataclass(frozen=True, slots=True)
class TrumpExchanged:
    seat: int
    jack: Card
    taken: Card


@dataclass(frozen=True, slots=True)
class HandShown:
    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Claimed:
    seat: int
    correct: bool
    points: int


@dataclass(frozen=True, slots=True)
class DealEnded:
    result: DealResult


Event = (
    DealStarted
    | TrumpChosen
    | Redealt
    | BidMade
    | Passed
    | ContractSettled
    | TalonTaken
    | Discarded
    | CardGiven
    | Raised
    | Doubled
    | CardPlayed
    | MarriageDeclared
    | TrickTaken
    | CardDrawn
    | TalonClosed
    | TrumpExchanged
    | HandShown
    | Claimed
    | DealEnded
)


def redact(event: Event, seat: int | None) -> Event:
    """The event as `seat` may see it (`None`: the public, e.g. a group channel)."""
    if isinstance(event, CardDrawn):
        if event.public or event.seat == seat:
            return event
        return replace(event, card=None)
    if isinstance(event, TalonTaken):
        if event.shown or event.seat == seat:
            return event
        return replace(event, cards=None)
    if isinstance(event, Discarded):
        return event if event.seat == seat else replace(event, cards=None)
    if isinstance(event, CardGiven):
        return event if seat in (event.seat, event.to) else replace(event, card=None)
    return event


def redact_all(events: tuple[Event, ...], seat: int | None) -> tuple[Event, ...]:
    return tuple(redact(e, seat) for e in events)
