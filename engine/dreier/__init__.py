"""Dreierschnapsen (RULES.md §3): one declarer against two, talon, contracts, Spritzen.

The package holds one thing per module: the contract table (`contracts`), the rule
options and presets (`options`), the numbers, phases and per-table bid lists
(`rules`), the rules core (`deal`) and its parts — the state they share (`state`),
the auction (`auction`), the talon (`talon`), Spritzen (`doubling`), the play and
score (`play`) — its refusals (`explain`) and views (`view`), dealing (`dealing`) and
the match (`match`).  Our readings of the rules where RULES.md is silent are in
docs/rules/dreier.md.
"""

from __future__ import annotations

from ..protocol import GameSpec
from .contracts import CONTRACT_IDS, CONTRACTS, Contract, Goal, Holding, Who
from .deal import DreierDeal
from .dealing import deal_from_deck, start_deal, validate_cards
from .match import DreierMatch, new_match
from .options import GAME_ID, PRESETS, DreierOptions, options

GAME = GameSpec(
    id=GAME_ID,
    name="Dreierschnapsen",
    players=3,
    options_type=DreierOptions,
    parse_options=options,
    start_deal=start_deal,
    new_match=new_match,
    presets=PRESETS,
)

__all__ = [
    "CONTRACTS",
    "CONTRACT_IDS",
    "GAME",
    "PRESETS",
    "Contract",
    "DreierDeal",
    "DreierMatch",
    "DreierOptions",
    "Goal",
    "Holding",
    "Who",
    "deal_from_deck",
    "new_match",
    "options",
    "start_deal",
    "validate_cards",
]
