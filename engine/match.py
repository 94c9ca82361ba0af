"""Match scoring, apart from deal play: who deals next, what each deal is worth over a
whole game, Bummerl and Schneider (and, in Thousand, the barrel and bolts)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from .protocol import DealCore
from .results import DealResult


@dataclass(frozen=True, slots=True)
class DealSpec:
    """The next deal a match wants: which game, between which match seats, who deals.

    `seats[i]` is the match seat that plays as deal seat i (a Dreierschnapsen
    tie-break is a `zweier` deal between two of the three).  `dealer` is a match seat.
    """

    game: str
    seats: tuple[int, ...]
    dealer: int
    deal_no: int
    context: tuple[tuple[str, Any], ...] = field(default=())


def check_first_dealer(first_dealer: int, players: int) -> None:
    """A first dealer who is no seat of the table: no match starts (a record that
    names one is no record, not a dealer out of turn)."""
    if not 0 <= first_dealer < players:
        raise ValueError(f"the first dealer must be a seat 0..{players - 1}, not {first_dealer}")


class Match(ABC):
    """A whole game: a sequence of deals and their scoring."""

    game: str
    players: int

    def __init__(self, options: Any, first_dealer: int) -> None:
        self.options = options
        self.first_dealer = first_dealer
        self.results: list[DealResult] = []
        self.finished = False

    @abstractmethod
    def next_deal(self) -> DealSpec | None:
        """The deal to play next, or None when the match is over."""

    @abstractmethod
    def start_deal(
        self,
        spec: DealSpec,
        *,
        seed: bytes | None = None,
        hands: list[list[int]] | None = None,
        talon: list[int] | None = None,
    ) -> DealCore:
        """The deal's initial state, dealt from a seed or from explicit cards."""

    @abstractmethod
    def add_result(self, spec: DealSpec, result: DealResult) -> tuple[int, ...]:
        """Score a finished deal; returns its points per *match* seat."""

    def loss_bummerl(self, seat: int) -> int:
        """The Bummerl `seat` takes for losing the match at its present score: at the
        end, and for conceding before it (a resignation, a walk-away), one rule, so
        that conceding at nil dodges no Schneider."""
        return 1

    @abstractmethod
    def summary(self) -> dict[str, Any]:
        """``scores``, ``bummerl``, ``finished`` (and game extras) for `replay`."""
