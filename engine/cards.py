"""Cards, decks and the notation of RULES.md §1.

The rules core works on small ints (a card is ``suit * 6 + rank``) and on bit masks
(bit ``i`` set = card ``i`` held), because the AI simulates tens of thousands of deals
per decision.  `Card`, `Suit` and `Rank` are the readable faces used at the edges:
actions, events, views and records.

Ranks are numbered strongest-first (A=0 ... 9=5), so within one suit a lower bit is a
stronger card in the normal order, and the King and Queen of a suit sit on adjacent
bits (a marriage is one mask test).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import IntEnum


class CardError(ValueError):
    """A card id that is not one of the 24 of RULES.md §1."""


class Suit(IntEnum):
    HEARTS = 0
    DIAMONDS = 1
    CLUBS = 2
    SPADES = 3

    @property
    def letter(self) -> str:
        return SUIT_LETTERS[self]

    @classmethod
    def parse(cls, text: str) -> Suit:
        """Read a suit letter (``H D C S``, any case)."""
        try:
            return cls(SUIT_LETTERS.index(text.strip().upper()))
        except ValueError:
            raise CardError(f"not a suit: {text!r} (expected one of H, D, C, S)") from None


class Rank(IntEnum):
    ACE = 0
    TEN = 1
    KING = 2
    QUEEN = 3
    JACK = 4
    NINE = 5

    @property
    def letter(self) -> str:
        return RANK_LETTERS[self]

    @property
    def points(self) -> int:
        return RANK_POINTS[self]


SUIT_LETTERS = "HDCS"
RANK_LETTERS = "ATKQJ9"
RANK_POINTS = (11, 10, 4, 3, 2, 0)

#: Number of card slots per suit in the int encoding (six ranks, 9 included).
SUIT_SPAN = 6
NCARDS = 24


def card_index(suit: int, rank: int) -> int:
    return suit * SUIT_SPAN + rank


#: Card points by card index.
POINTS: tuple[int, ...] = tuple(RANK_POINTS[c % SUIT_SPAN] for c in range(NCARDS))
#: Bit mask of all cards of a suit (9 included).
SUIT_MASK: tuple[int, ...] = tuple(((1 << SUIT_SPAN) - 1) << (s * SUIT_SPAN) for s in range(4))
#: Card ids by index, e.g. ``IDS[0] == "AH"``.
IDS: tuple[str, ...] = tuple(RANK_LETTERS[c % 6] + SUIT_LETTERS[c // 6] for c in range(NCARDS))
_INDEX_OF_ID = {cid: i for i, cid in enumerate(IDS)}

#: The 20-card deck (A T K Q J of four suits) in canonical order: suits H D C S, ranks
#: strongest first.  The seeded shuffle starts from this order (docs/records.md).
DECK20: tuple[int, ...] = tuple(card_index(s, r) for s in range(4) for r in range(5))
#: The 24-card deck of Thousand (9s added), canonical order as above.
DECK24: tuple[int, ...] = tuple(card_index(s, r) for s in range(4) for r in range(6))
DECK20_MASK = sum(1 << c for c in DECK20)
DECK24_MASK = sum(1 << c for c in DECK24)

#: King and Queen bits of each suit; ``hand & m == m`` means the marriage is held.
MARRIAGE_MASK: tuple[int, ...] = tuple(
    (1 << card_index(s, Rank.KING)) | (1 << card_index(s, Rank.QUEEN)) for s in range(4)
)


def index_of(card_id: str) -> int:
    """Card index of an id such as ``"AH"``; raises `CardError` with a readable reason."""
    if not isinstance(card_id, str):
        raise CardError(f"not a card id: {card_id!r} (expected a string such as 'AH')")
    i = _INDEX_OF_ID.get(card_id.strip().upper())
    if i is None:
        raise CardError(
            f"not a card id: {card_id!r} (expected rank A T K Q J 9 then suit H D C S, e.g. 'AH')"
        )
    return i


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """A card as the outside world sees it; `index` is its int in the rules core."""

    suit: Suit
    rank: Rank

    @property
    def index(self) -> int:
        return self.suit * SUIT_SPAN + self.rank

    @property
    def id(self) -> str:
        return RANK_LETTERS[self.rank] + SUIT_LETTERS[self.suit]

    @property
    def points(self) -> int:
        return RANK_POINTS[self.rank]

    def __str__(self) -> str:
        return self.id

    def __repr__(self) -> str:
        return f"Card({self.id})"

    @staticmethod
    def of(index: int) -> Card:
        return CARDS[index]

    @staticmethod
    def from_id(card_id: str) -> Card:
        return CARDS[index_of(card_id)]

    @staticmethod
    def parse(text: str) -> tuple[Card, ...]:
        """Parse space- or comma-separated ids: ``Card.parse("AH TD")``."""
        return tuple(CARDS[index_of(t)] for t in text.replace(",", " ").split())


CARDS: tuple[Card, ...] = tuple(Card(Suit(c // 6), Rank(c % 6)) for c in range(NCARDS))


# --- bit-mask helpers -------------------------------------------------------------

# Cards of every 12-bit half mask, so iterating a hand is two table lookups.
_LOW: tuple[tuple[int, ...], ...] = tuple(
    tuple(i for i in range(12) if m >> i & 1) for m in range(1 << 12)
)
_HIGH: tuple[tuple[int, ...], ...] = tuple(tuple(i + 12 for i in low) for low in _LOW)


def cards_of(mask: int) -> tuple[int, ...]:
    """Card indices in a mask, ascending (suit by suit, strongest first)."""
    return _LOW[mask & 0xFFF] + _HIGH[mask >> 12]


def mask_of(cards: Iterable[int]) -> int:
    """Mask of an iterable of card indices."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def ids(mask_or_cards: int | tuple[int, ...] | list[int]) -> list[str]:
    """Card ids of a mask or a sequence of indices, for records and messages."""
    cards = cards_of(mask_or_cards) if isinstance(mask_or_cards, int) else mask_or_cards
    return [IDS[c] for c in cards]


def points_of(mask: int) -> int:
    return sum(POINTS[c] for c in cards_of(mask))
