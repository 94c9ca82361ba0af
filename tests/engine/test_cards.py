"""Card notation (RULES.md §1): ids parse and print, bad ids are clear errors."""

from __future__ import annotations

import pytest

from engine.cards import CARDS, DECK20, DECK24, POINTS, Card, CardError, Rank, Suit


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
