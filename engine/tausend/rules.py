"""Thousand's rule data (RULES.md §5): options, presets, marriage values, bid limits.

Kept apart from the deal core and the match so both read the same numbers, and so the
numbers are data rather than conditions spread through the code (DESIGN.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ..cards import MARRIAGE_MASK, POINTS, Rank, card_index, cards_of
from ..options import parse_options

GAME_ID = "tausend"

#: Marriage values by suit index (H D C S), RULES.md §5.
MARRIAGE_VALUE: tuple[int, ...] = (100, 80, 60, 40)
#: The opening bid, which forehand must make (RULES.md §5).
OPENING_BID = 100
#: Bids above this need a marriage in hand (RULES.md §5).
FREE_BID_LIMIT = 120
#: No deal can score more: 120 card points plus all four marriages (100+80+60+40).
MAX_BID = 120 + sum(MARRIAGE_VALUE)
#: Bids go in steps of 5 (RULES.md §5).
BID_STEP = 5
#: The golden round's fixed contract (RULES.md §5).
GOLDEN_BID = 120

#: The barrel (RULES.md §5).
BARREL_AT = 880
WIN_AT = 1000
BARREL_ATTEMPTS = 3
FALLS_TO_RESET = 3
#: The third bolt's fine (RULES.md §5: "the third bolt: −120").
BOLT_FINE = 120
BOLTS_TO_FINE = 3


def barrel_room(players: int) -> int:
    """Players who may sit on the barrel at once: two with four players, else one."""
    return 2 if players == 4 else 1


#: The phases of a deal, in the order of RULES.md §5 (the view names them: PHASES[phase]).
#: DISCARD is the two-player declarer laying 3 cards on the other stock.  A redeal
#: claim has no phase of its own: it is offered with a decision the seat has anyway.
BIDDING, GIVE, DISCARD, RAISE, PLAY, OVER = range(6)
PHASES = ("bidding", "give", "discard", "raise", "play", "over")

#: The four 9s as a mask (a hand holding all of them may demand a redeal).
NINES_MASK = sum(1 << card_index(s, Rank.NINE) for s in range(4))


@dataclass(frozen=True, kw_only=True, slots=True)
class TausendOptions:
    """The options of RULES.md §5, by id ``tausend.<field>``.

    `players`: 3 (default), 2 (two stocks) or 4 (the dealer sits out).
    `golden_round`: the first round is played at a fixed 120 by forehand, all doubled.
    `blind_bid`: a player may bid before looking at his hand; a blind winner's contract
    counts double.  `barrel_fine`: the barrel's fine, 120 or 125 (the seeds disagree).
    """

    players: int = field(default=3, metadata={"choices": (2, 3, 4)})
    golden_round: bool = False
    blind_bid: bool = False
    barrel_fine: int = field(default=120, metadata={"choices": (120, 125)})

    def __post_init__(self) -> None:
        if self.players not in (2, 3, 4):
            raise ValueError(f"tausend is played by 2, 3 or 4 players, not {self.players}")
        if self.barrel_fine not in (120, 125):
            raise ValueError(f"the barrel fine is 120 or 125, not {self.barrel_fine}")


def options(raw: Mapping[str, object] | None = None) -> TausendOptions:
    return parse_options(TausendOptions, GAME_ID, raw)


PRESETS: dict[str, dict[str, object]] = {
    "standard": {},
    "golden": {"tausend.golden_round": True},
    "blind": {"tausend.blind_bid": True},
    "fine_125": {"tausend.barrel_fine": 125},
    "two_players": {"tausend.players": 2},
    "four_players": {"tausend.players": 4},
}


def round5(points: int) -> int:
    """Nearest multiple of 5 (RULES.md §5: 62 → 60, 63 → 65); points are never negative."""
    return (points + 2) // 5 * 5


#: The Kings' bits; a Queen sits one bit above her King.
_KINGS = sum(1 << card_index(s, Rank.KING) for s in range(4))


def holds_marriage(hand: int) -> bool:
    """Does the hand hold a King and Queen of one suit (one mask test)?"""
    return bool(hand & (hand >> 1) & _KINGS)


def stock_value(stock: int) -> int:
    """Card points of a stock plus any marriage in it: the sitting-out dealer's score
    with four players (RULES.md §5)."""
    value = sum(POINTS[c] for c in cards_of(stock))
    for suit, m in enumerate(MARRIAGE_MASK):
        if stock & m == m:
            value += MARRIAGE_VALUE[suit]
    return value
