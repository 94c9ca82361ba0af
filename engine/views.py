"""What one seat (or the public) may see of a deal: the only door out of the engine.

A `SeatView` is built by the rules core from its own state and never holds a card the
seat may not know (RULES.md and DESIGN.md: hidden information is enforced here, not in
the adapters).  ``seat=None`` is the public view a group channel shows.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .actions import Action
from .cards import Card, Suit
from .results import DealResult


@dataclass(frozen=True, slots=True)
class SeatView:
    game: str
    seat: int | None
    players: int
    dealer: int
    #: One of "trump", "bidding", "discard", "doubling", "give", "raise", "play", "over"
    #: (games use the ones they have).
    phase: str
    to_act: int | None
    hand: tuple[Card, ...] = ()
    hand_sizes: tuple[int, ...] = ()
    trump: Suit | None = None
    trump_card: Card | None = None
    talon_size: int = 0
    talon_closed: bool = False
    talon_cards: tuple[Card, ...] = ()
    contract: str | None = None
    declarer: int | None = None
    multiplier: int = 1
    #: The auction so far, in order: (seat, Bid/Pass/Double/... action).
    bids: tuple[tuple[int, Action], ...] = ()
    trick: tuple[tuple[int, Card], ...] = ()
    last_trick: tuple[tuple[int, Card], ...] = ()
    #: Every completed trick of the deal in order, as (seat, card) in playing order:
    #: public knowledge a player at the table remembers (and the AI's memory).
    tricks: tuple[tuple[tuple[int, Card], ...], ...] = ()
    last_trick_winner: int | None = None
    tricks_won: tuple[int, ...] = ()
    points: tuple[int, ...] = ()
    marriages: tuple[tuple[int, Suit, int], ...] = ()
    known: tuple[tuple[int, Card], ...] = ()
    sitting_out: int | None = None
    legal: tuple[Action, ...] = ()
    result: DealResult | None = None
    #: The table's rule options by id (RULES.md option ids, e.g. ``("auto_claim", True)``):
    #: public, and a player (or the AI) needs them to know what is legal later.
    options: tuple[tuple[str, object], ...] = ()
    extra: tuple[tuple[str, object], ...] = field(default=())

    def cards_seen(self) -> frozenset[Card]:
        """Every card this view reveals (used by the hidden-information tests)."""
        seen: set[Card] = set(self.hand) | set(self.talon_cards)
        seen.update(c for _, c in self.trick)
        seen.update(c for _, c in self.last_trick)
        seen.update(c for _, c in self.known)
        if self.trump_card is not None:
            seen.add(self.trump_card)
        for _, value in self.extra:  # a game's own facts may name cards too
            if isinstance(value, Card):
                seen.add(value)
            elif isinstance(value, tuple):
                seen.update(c for c in value if isinstance(c, Card))
        for a in self.legal:
            card = getattr(a, "card", None)
            if isinstance(card, Card):
                seen.add(card)
            for c in getattr(a, "cards", ()):
                seen.add(c)
        return frozenset(seen)
