"""Test players' choices: random for most games, a match-ending one for Thousand.

Random play never ends a match of Thousand (nobody reaches 1000: declarers who bid
at random fail, and the barrel needs a made bid above 120).  `finisher` plays a
cooperative game that ends within a few dozen deals: everybody passes unless on the
barrel, where one bids just above 120; the declarer plays high, defenders play low.
It is a test driver, not an AI: it may look at the match (who is on the barrel).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from bot.service import TableService
from bot.table import Table
from engine.actions import Bid, Give, Pass, PlayCard, Raise, decode, encode
from engine.ai import player
from engine.tausend import TausendMatch, TausendOptions
from engine.views import SeatView


def finisher(table: Table, seat: int, codes: list[int], rng: random.Random) -> int:
    """Choose among `codes` (match seat `seat` of a Thousand table) to end the match."""
    assert table.deal is not None and table.match is not None
    dseat = table.deal_seat(seat)
    view = table.deal.view(dseat)
    return _choose(view, codes, table.deal.contracts, list(getattr(table.match, "on_barrel", [])))


def _choose(
    view: SeatView, codes: list[int], contracts: tuple[str, ...], barrel: list[bool]
) -> int:
    acts = [(c, decode(c, contracts)) for c in codes]
    valued = sorted(
        (a.value, c) for c, a in acts if isinstance(a, Bid | Raise) and a.value is not None
    )
    passes = [c for c, a in acts if isinstance(a, Pass)]
    on_barrel = view.seat is not None and view.seat < len(barrel) and barrel[view.seat]
    if valued or passes:
        if on_barrel:
            high = [c for v, c in valued if v > 120]
            if high:
                return high[0]
        if passes:
            return passes[0]
        return valued[0][1]
    plays = [(c, a) for c, a in acts if isinstance(a, PlayCard)]
    if plays:
        declarer = view.declarer == view.seat

        def strength(ca: tuple[int, Any]) -> tuple[bool, int, int]:
            a = ca[1]
            return (a.marriage, a.card.points, -int(a.card.rank))

        return (max if declarer else min)(plays, key=strength)[0]
    gives = [(c, a) for c, a in acts if isinstance(a, Give)]
    if gives:
        return min(gives, key=lambda ca: ca[1].card.points)[0]
    return min(codes)


def heuristic(table: Table, seat: int, codes: list[int], rng: random.Random) -> int | None:
    """Play as the engine's rule-based AI would: contracts are made and matches end
    the way people's do (random declarers always fail), e.g. in a tie-break.  A bid or
    raise on another page of buttons is None: the player turns the page to it, as a
    person would (a random value instead made a match of Thousand last hundreds of
    deals)."""
    assert table.deal is not None
    dseat = table.deal_seat(seat)
    view = table.deal.view(dseat)
    code = encode(player("heuristic", view.game).choose(view, rng, None), table.deal.contracts)
    return code if code in codes else None


def policy_for(game: str) -> Callable[[Table, int, list[int], random.Random], int]:
    if game == "tausend":
        return finisher
    return lambda table, seat, codes, rng: rng.choice(codes)


def ai_for(
    game: str, service: TableService
) -> Callable[[str, SeatView, list[int], str], int] | None:
    """A stand-in for `bot.ai_seats.choose_action` where random play cannot end a
    match (Thousand); None where the real one will do."""
    if game != "tausend":
        return None

    def choose(level: str, view: SeatView, legal: list[int], seed: str) -> int:
        table_id = seed.rsplit(":", 1)[0]
        table = service.tables[table_id]
        assert table.deal is not None and table.match is not None
        barrel = list(getattr(table.match, "on_barrel", []))
        return _choose(view, legal, table.deal.contracts, barrel)

    return choose


#: Where `near_the_barrel` starts every seat: one made 100 from the barrel (880).
NEAR_THE_BARREL = 800


def near_the_barrel(monkeypatch: pytest.MonkeyPatch, start: int = NEAR_THE_BARREL) -> None:
    """Thousand matches start at `start` points a seat (replays of their logs too),
    for a test of what a whole match shows rather than of the climb: from 0, `finisher`
    plays some fifty deals (over a hundred at worst) to the end, from 800 some ten,
    and the barrel, the win and its telling are all still played."""
    init = TausendMatch.__init__

    def started(self: TausendMatch, options: TausendOptions, first_dealer: int = 0) -> None:
        init(self, options, first_dealer)
        self.scores = [start] * self.players

    monkeypatch.setattr(TausendMatch, "__init__", started)
