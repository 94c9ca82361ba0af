"""Bauernschnapsen (RULES.md §4): four players in two teams, 20 cards, no talon.

- `rules`: the options, presets and the contract table, as data;
- `deal`: `BauernDeal`, the fast rules core (ints and masks, stepped in place);
- `faces`: its views and the reasons for refusing an action;
- `match`: dealing from a seed and the team match to 24 with Bummerl.

Choices where RULES.md is silent are written down in docs/rules/bauern.md.
"""

from __future__ import annotations

from ..protocol import GameSpec
from .deal import BauernDeal
from .match import BauernMatch, deal_from_deck, new_match, start_deal
from .rules import CONTRACTS, PRESETS, BauernOptions, Contract, Kind, options

GAME = GameSpec(
    id="bauern",
    name="Bauernschnapsen",
    players=4,
    options_type=BauernOptions,
    parse_options=options,
    start_deal=start_deal,
    new_match=new_match,
    presets=PRESETS,
)

__all__ = [
    "CONTRACTS",
    "GAME",
    "PRESETS",
    "BauernDeal",
    "BauernMatch",
    "BauernOptions",
    "Contract",
    "Kind",
    "deal_from_deck",
    "options",
    "start_deal",
]
