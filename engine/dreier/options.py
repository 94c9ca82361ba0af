"""Dreierschnapsen's rule options (RULES.md §3) as one frozen object, with presets.

Ids are ``auto_claim`` and ``dreier.<field>`` (`engine.options.parse_options`);
docs/rules/dreier.md has the table.  The five optional contracts of RULES.md §3 are
enabled by options named like the contracts themselves (``dreier.assenbettler``...).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..options import parse_options

GAME_ID = "dreier"


@dataclass(frozen=True, kw_only=True, slots=True)
class DreierOptions:
    """Every rule choice a Dreierschnapsen table can make; defaults are RULES.md's.

    - `auto_claim`: the engine claims 66 for a side the moment it has it (§1).
    - `without_talon`: bidding "without talon" (+1 game point, precedence on equal bids).
    - `raise_after_talon`: the declarer may name a higher contract with his discard.
    - `caller_first`: the regional order — forehand announces or passes before the
      others bid; after an all-pass he takes the talon and may only raise.
    - `carinthian`: no talon in the normal game and Bettler; Farbenringerl and
      Herrenschnapser must be held in the original 6 cards.
    - `count_down`: show match scores counting down from 24 (display only).
    - `cut_ritual`: middlehand cuts or knocks before the deal (flavour for the bot; the
      seeded shuffle decides the cards either way).
    - `assenbettler`, `assbettler`, `plauderer`, `zehnergang`, `bauernloch`: the
      optional contracts of the §3 table.
    """

    auto_claim: bool = True
    without_talon: bool = True
    raise_after_talon: bool = True
    caller_first: bool = False
    carinthian: bool = False
    count_down: bool = False
    cut_ritual: bool = False
    assenbettler: bool = False
    assbettler: bool = False
    plauderer: bool = False
    zehnergang: bool = False
    bauernloch: bool = False


def options(raw: Mapping[str, object] | None = None) -> DreierOptions:
    """Options from their ids; unknown ids and bad values raise `OptionError`."""
    return parse_options(DreierOptions, GAME_ID, raw)


ALL_CONTRACTS: dict[str, object] = {
    "dreier.assenbettler": True,
    "dreier.assbettler": True,
    "dreier.plauderer": True,
    "dreier.zehnergang": True,
    "dreier.bauernloch": True,
}

PRESETS: dict[str, dict[str, object]] = {
    "standard": {},
    "all_contracts": dict(ALL_CONTRACTS),
    "carinthian": {"dreier.carinthian": True},
    "caller_first": {"dreier.caller_first": True},
    "manual_claims": {"auto_claim": False},
    "count_down": {"dreier.count_down": True},
}
