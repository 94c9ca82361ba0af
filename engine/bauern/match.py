"""Dealing Bauernschnapsen from a seed, and scoring a match of deals (RULES.md §4).

The match is played by two teams, seats 0+2 against 1+3, to 24 game points.  Scores
and Bummerl are kept per team and reported per seat, both partners carrying their
team's figure (docs/rules/bauern.md, "Scores").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..cards import DECK20
from ..match import DealSpec, Match, check_first_dealer
from ..results import DealResult
from ..shuffle import shuffled
from .deal import BauernDeal
from .rules import GAME_ID, MATCH_TARGET, BauernOptions


def deal_from_deck(deck: Sequence[int], dealer: int) -> list[list[int]]:
    """Split a shuffled deck as at the table: 3 cards to each seat starting with
    forehand and going clockwise, then 2 to each.  Hands by seat, in dealing order."""
    hands: list[list[int]] = [[], [], [], []]
    fh = (dealer + 1) & 3
    for k in range(4):
        seat = (fh + k) & 3
        hands[seat] = [*deck[3 * k : 3 * k + 3], *deck[12 + 2 * k : 14 + 2 * k]]
    return hands


def validate_cards(hands: Sequence[Sequence[int]], talon: Sequence[int] | None) -> str | None:
    """Why explicit cards do not make a bauern deal, or None."""
    if len(hands) != 4 or any(len(h) != 5 for h in hands):
        return "bauern needs four hands of 5 cards"
    if talon:
        return "bauern has no talon"
    if sorted(c for h in hands for c in h) != sorted(DECK20):
        return "the hands must hold each card of the 20-card deck exactly once"
    return None


def start_deal(
    opts: BauernOptions,
    dealer: int,
    *,
    seed: bytes | None = None,
    hands: Sequence[Sequence[int]] | None = None,
    talon: Sequence[int] | None = None,
    **_context: object,
) -> BauernDeal:
    if hands is None:
        if seed is None:
            raise ValueError("a deal needs a seed or explicit hands")
        hands = deal_from_deck(shuffled(DECK20, seed), dealer)
    problem = validate_cards(hands, talon)
    if problem:
        raise ValueError(problem)
    return BauernDeal.start(opts, dealer, hands)


class BauernMatch(Match):
    """First team to 24 wins; the losers get a Bummerl, two with no game point at all
    (Schneider).  The dealer moves one seat clockwise each deal."""

    game = GAME_ID
    players = 4

    def __init__(self, options: BauernOptions, first_dealer: int = 0) -> None:
        check_first_dealer(first_dealer, self.players)
        super().__init__(options, first_dealer)
        self.team_scores = [0, 0]
        self.team_bummerl = [0, 0]

    def next_deal(self) -> DealSpec | None:
        if self.finished:
            return None
        n = len(self.results)
        return DealSpec(GAME_ID, (0, 1, 2, 3), (self.first_dealer + n) % 4, n)

    def start_deal(
        self,
        spec: DealSpec,
        *,
        seed: bytes | None = None,
        hands: list[list[int]] | None = None,
        talon: list[int] | None = None,
    ) -> BauernDeal:
        return start_deal(self.options, spec.dealer, seed=seed, hands=hands, talon=talon)

    def add_result(self, spec: DealSpec, result: DealResult) -> tuple[int, ...]:
        self.results.append(result)
        for team in (0, 1):
            self.team_scores[team] += result.points[team]
        for team in (0, 1):
            if self.team_scores[team] >= MATCH_TARGET:
                loser = 1 - team
                self.team_bummerl[loser] += self.loss_bummerl(loser)  # seat `loser` is in it
                self.finished = True
        return result.points

    def loss_bummerl(self, seat: int) -> int:
        return 2 if self.team_scores[seat % 2] == 0 else 1

    def summary(self) -> dict[str, Any]:
        s, b = self.team_scores, self.team_bummerl
        return {
            "scores": [s[0], s[1], s[0], s[1]],
            "bummerl": [b[0], b[1], b[0], b[1]],
            "finished": self.finished,
        }


def new_match(opts: BauernOptions, first_dealer: int = 0) -> BauernMatch:
    return BauernMatch(opts, first_dealer)
