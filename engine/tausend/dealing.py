"""Who plays, and how a shuffled 24-card deck becomes hands and stocks (RULES.md §5, §6).

The split is part of the record format (a record with a seed must get exactly these
hands), so it is written down in docs/rules/tausend.md and must not change.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..cards import DECK24


def active_seats(players: int, dealer: int) -> tuple[int, ...]:
    """The seats that play a deal, clockwise from forehand (the seat after the dealer).

    With four players the dealer sits out (RULES.md §5); otherwise everyone plays and
    the dealer is last.
    """
    if players == 4:
        return tuple((dealer + k) % 4 for k in (1, 2, 3))
    return tuple((dealer + k) % players for k in range(1, players + 1))


def hand_size(players: int) -> int:
    """Cards per playing seat as dealt: 9 with two players, else 7 (RULES.md §5)."""
    return 9 if players == 2 else 7


def deal_from_deck(
    deck: Sequence[int], players: int, dealer: int
) -> tuple[list[list[int]], list[int]]:
    """Deal a shuffled deck: one card at a time clockwise from forehand to each playing
    seat until each has its hand, then the rest is the stock.

    Returns (hands by seat, stock).  With two players the stock is the two stocks of 3,
    the one the declarer takes first; with four the dealer's hand is empty.
    """
    act = active_seats(players, dealer)
    k = len(act)
    dealt = hand_size(players) * k
    hands: list[list[int]] = [[] for _ in range(players)]
    for i in range(dealt):
        hands[act[i % k]].append(deck[i])
    return hands, list(deck[dealt:])


def validate_cards(
    players: int, dealer: int, hands: Sequence[Sequence[int]], talon: Sequence[int]
) -> str | None:
    """Why explicit cards do not make a deal of this size, or None (`dealer`, a seat
    of the table, sits out with four players; `start_deal` has checked it is one)."""
    if len(hands) != players:
        return f"tausend for {players} needs {players} hands"
    size = hand_size(players)
    for seat, h in enumerate(hands):
        want = 0 if players == 4 and seat == dealer else size
        if len(h) != want:
            why = " (the sitting-out dealer holds no cards)" if want == 0 else ""
            return f"hand {seat} must have {want} cards{why}"
    stock = 6 if players == 2 else 3
    if len(talon) != stock:
        return f"the stock has {stock} cards" + (" (two stocks of 3)" if players == 2 else "")
    if sorted([*(c for h in hands for c in h), *talon]) != sorted(DECK24):
        return "the hands and stock must hold each card of the 24-card deck exactly once"
    return None
