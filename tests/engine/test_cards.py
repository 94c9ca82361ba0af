"""Card notation (RULES.md §1): ids parse and print, bad ids are clear errors."""

from __future__ import annotations

import pytest

from engine.cards import (
    CARDS,
    DECK20,
    DECK20_MASK,
    DECK24,
    DECK24_MASK,
    IDS,
    POINTS,
    Card,
    CardError,
    Rank,
    Suit,
    ids,
    index_of,
    mask_of,
    points_of,
)


def test_ids_round_trip() -> None:
    for card in CARDS:
        assert Card.from_id(card.id) is card
        assert str(card) == card.id
    assert Card.parse("AH TD 9C") == (
        Card(Suit.HEARTS, Rank.ACE),
        Card(Suit.DIAMONDS, Rank.TEN),
        Card(Suit.CLUBS, Rank.NINE),
    )
    assert Card.from_id(" qs ") == Card(Suit.SPADES, Rank.QUEEN)


@pytest.mark.parametrize("bad", ["", "A", "AX", "1H", "AHH", "10H", "XX"])
def test_bad_ids_name_the_problem(bad: str) -> None:
    with pytest.raises(CardError, match="not a card id") as info:
        Card.from_id(bad)
    assert "e.g. 'AH'" in str(info.value)


def test_each_deck_holds_120_points() -> None:
    assert len(DECK20) == 20 and len(DECK24) == 24
    assert sum(POINTS[c] for c in DECK20) == 120
    assert sum(POINTS[c] for c in DECK24) == 120
    assert Card.from_id("9H").points == 0


def test_bad_suit_letter() -> None:
    with pytest.raises(CardError, match="not a suit"):
        Suit.parse("X")


def test_suit_and_rank_faces() -> None:
    """RULES.md §1 table: the letters of the ids and the card points of each rank."""
    assert [s.letter for s in Suit] == ["H", "D", "C", "S"]
    assert [r.letter for r in Rank] == ["A", "T", "K", "Q", "J", "9"]
    assert [r.points for r in Rank] == [11, 10, 4, 3, 2, 0]
    assert Suit.parse(" s ") is Suit.SPADES
    assert Card.of(index_of("QS")) is Card.from_id("QS")
    assert repr(Card.from_id("TD")) == "Card(TD)"


def test_cards_are_values_that_sort_suit_by_suit_strongest_first() -> None:
    """Cards go into sets and dicts (hashable, equal by id) and a hand sorts H D C S,
    each suit strongest first (RULES.md §1 order, the 9 last)."""
    assert len({Card.from_id("AH"), Card.parse("AH")[0]}) == 1
    assert sorted(Card.parse("9S KH TD AH JS")) == list(Card.parse("AH KH TD JS 9S"))


def test_deck_masks_hold_exactly_their_decks() -> None:
    """The 20-card deck is A T K Q J of four suits; the 24-card deck adds the 9s."""
    assert ids(DECK20_MASK) == [IDS[c] for c in DECK20]
    assert ids(DECK24_MASK) == [IDS[c] for c in DECK24]
    assert len(DECK20) == 20 and not any(c % 6 == Rank.NINE for c in DECK20)


def test_points_of_a_mask_add_the_card_points() -> None:
    """RULES.md §1: A 11, T 10, K 4, Q 3, J 2, 9 0 -- a trick's or a hand's count."""
    assert points_of(mask_of(c.index for c in Card.parse("AH TD KC QS JS 9H"))) == 30
