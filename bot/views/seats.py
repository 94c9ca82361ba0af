"""Who sits where, as every message names them: seat lines, names, Bauern's teams.

A deal's seats are not always the match's (a Dreier tie-break is a deal of two), so
the helpers that turn one into the other live here too, beside what the deal in play
is (its game, whether it has ended).
"""

from __future__ import annotations

from engine import protocol as P
from engine.cards import Card

from ..table import Table
from .faces import SeatLine


def team_of(table: Table, seat: int) -> int | None:
    return seat % 2 + 1 if table.game == "bauern" else None


def seat_lines(table: Table) -> tuple[SeatLine | None, ...]:
    to_act = table.to_act()
    out: list[SeatLine | None] = []
    for i, s in enumerate(table.seats):
        if s is None:
            out.append(None)
            continue
        out.append(
            SeatLine(
                seat=i,
                name=s.name,
                user=s.user,
                is_ai=s.user is None,
                away=s.replaced,
                team=team_of(table, i),
                to_act=to_act == i,
            )
        )
    return tuple(out)


def names(table: Table) -> tuple[str, ...]:
    return tuple(s.name if s is not None else "—" for s in table.seats)


def deal_game(table: Table) -> str:
    """The game of the deal in play: the table's, except a Dreierschnapsen tie-break,
    which is a deal of Zweierschnapsen between the two tied players."""
    return table.deal_log.spec.game if table.deal_log is not None else table.game


def _match_seat(table: Table, deal_seat: int | None) -> int | None:
    if deal_seat is None or table.deal_log is None:
        return deal_seat
    return table.deal_log.spec.seats[deal_seat]


def _remap(table: Table, trick: tuple[tuple[int, Card], ...]) -> tuple[tuple[int, Card], ...]:
    if table.deal_log is None:
        return trick
    seats = table.deal_log.spec.seats
    return tuple((seats[s], c) for s, c in trick)


def _deal_over(table: Table) -> bool:
    """The table's deal has ended (its last picture, drawn before the next is dealt)."""
    return table.deal is not None and P.result(table.deal) is not None
