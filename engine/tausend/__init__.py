"""Russian Schnapsen / Thousand (RULES.md §5): 24 cards, bidding from 100, marriages set
trumps, the barrel at 880 and the win at 1000; for 3 players, or 2 or 4 by option.

The package: `rules` (options, presets, the numbers), `dealing` (who plays, how a
seed deals), `deal` (the fast rules core), `faces` (views and refusal reasons),
`match` (scores, bolts, barrel).  Our reading of the rules: docs/rules/tausend.md.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..cards import DECK24
from ..protocol import GameSpec
from ..shuffle import shuffled
from .deal import TausendDeal
from .dealing import deal_from_deck, validate_cards
from .match import TausendMatch
from .rules import BARREL_ATTEMPTS, GAME_ID, PRESETS, TausendOptions, options


def start_deal(
    opts: TausendOptions,
    dealer: int,
    *,
    seed: bytes | None = None,
    hands: Sequence[Sequence[int]] | None = None,
    talon: Sequence[int] | None = None,
    golden: bool = False,
    barrel: Sequence[int] = (),
    scores: Sequence[int] = (),
    **_context: object,
) -> TausendDeal:
    """A deal for `opts.players` seats, from a seed or from explicit cards.

    `golden`, `barrel` and `scores` are deal context from the match: the golden round
    (RULES.md §5), each seat's deals left on the barrel (0: not on it), and the match
    scores near the barrel, which the rules of the deal ignore but its worth to a seat
    does not.  A deal started on its own is an
    ordinary one with nobody on the barrel unless told.
    """
    n = opts.players
    if not 0 <= dealer < n:
        raise ValueError(f"the dealer must be a seat 0..{n - 1}, not {dealer}")
    if barrel and (len(barrel) != n or not all(0 <= k <= BARREL_ATTEMPTS for k in barrel)):
        raise ValueError(f"barrel: {n} counts of deals left, each 0..{BARREL_ATTEMPTS}")
    if scores and len(scores) != n:
        raise ValueError(f"scores: one match score for each of the {n} seats")
    if hands is None or talon is None:
        if seed is None:
            raise ValueError("a deal needs a seed or explicit hands and stock")
        hands, talon = deal_from_deck(shuffled(DECK24, seed), n, dealer)
    problem = validate_cards(n, dealer, hands, talon)
    if problem:
        raise ValueError(problem)
    return TausendDeal.start(
        opts,
        dealer,
        [list(h) for h in hands],
        list(talon),
        golden=bool(golden),
        barrel=tuple(barrel),
        scores=tuple(scores),
    )


def new_match(opts: TausendOptions, first_dealer: int = 0) -> TausendMatch:
    return TausendMatch(opts, first_dealer)


GAME = GameSpec(
    id=GAME_ID,
    name="Russian Schnapsen (Thousand)",
    players=3,
    options_type=TausendOptions,
    parse_options=options,
    start_deal=start_deal,
    new_match=new_match,
    presets=PRESETS,
)

__all__ = [
    "GAME",
    "PRESETS",
    "TausendDeal",
    "TausendMatch",
    "TausendOptions",
    "new_match",
    "start_deal",
]
