"""Dreierschnapsen's numbers and phases, and what a table's options let be bid.

RULES.md §3.  Kept apart from the rules core so that the core, its refusals
(`explain`), its views and the bot's rules text read the same numbers and the same
per-table contract lists (the rows themselves are data in `contracts`).
"""

from __future__ import annotations

from .contracts import CONTRACTS, NORMAL, Contract, seat_may_bid
from .options import DreierOptions

#: Card points (tricks plus counting marriages) that win a normal game or a Schnapser.
TARGET = 66
TRICKS = 6
#: A Schnapser is lost once this many tricks pass below 66 (RULES.md §3).
SCHNAPSER_TRICKS = 4

# Phases, in the order of RULES.md §3; the view names them (PHASES[phase]).
TRUMP, BIDDING, DISCARD, DOUBLING, PLAY, OVER = range(6)
PHASES = ("trump", "bidding", "discard", "doubling", "play", "over")


def _enabled_rows(opts: DreierOptions) -> tuple[int, ...]:
    """Rows of the contracts this table plays (optional ones behind their option)."""
    return tuple(i for i, c in enumerate(CONTRACTS) if c.option is None or getattr(opts, c.option))


#: One bid table entry: (row, contract, may be bid without talon).
BidRow = tuple[int, Contract, bool]
_TABLES: dict[DreierOptions, tuple[tuple[int, ...], tuple[BidRow, ...], tuple[BidRow, ...]]] = {}


def bid_tables(
    opts: DreierOptions,
) -> tuple[tuple[int, ...], tuple[BidRow, ...], tuple[BidRow, ...]]:
    """Per table, computed once: the enabled rows, and what forehand and the others may
    bid regardless of their cards (RULES.md §3 "who may bid", the table's options)."""
    t = _TABLES.get(opts)
    if t is None:
        rows = _enabled_rows(opts)
        per_seat = []
        for is_fh in (False, True):
            per_seat.append(
                tuple(
                    (row, CONTRACTS[row], may_bid_without_talon(opts, CONTRACTS[row]))
                    for row in rows
                    if seat_may_bid(CONTRACTS[row], is_fh)
                    and not (row == NORMAL and opts.caller_first)
                )
            )
        t = _TABLES[opts] = (rows, per_seat[0], per_seat[1])
    return t


def enabled_rows(opts: DreierOptions) -> tuple[int, ...]:
    return bid_tables(opts)[0]


def has_talon(opts: DreierOptions, c: Contract) -> bool:
    """Is the talon exchanged in `c` at all?  (`dreier.carinthian`, RULES.md §3.)"""
    return not (opts.carinthian and c.carinthian_no_talon)


def may_bid_without_talon(opts: DreierOptions, c: Contract) -> bool:
    """Bidding "without talon" needs the option and a contract that would take the talon."""
    return opts.without_talon and has_talon(opts, c)
