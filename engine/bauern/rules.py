"""Bauernschnapsen's rules as data: the options, their presets and the contract table.

RULES.md §4 is the contract.  Every contract is one frozen row of `CONTRACTS`, in the
table's ranking order (a row's index is its rank and its `BID_CONTRACT` action code,
see `engine.actions`); the deal core reads these rows and never spells a contract's
rules out in an ``if`` of its own.  Choices where RULES.md is silent are written down
in docs/rules/bauern.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import IntEnum

from ..options import parse_options
from ..tricks import Order

GAME_ID = "bauern"
#: Card points (tricks plus counting marriages) that win a normal game or a Schnapser.
TARGET = 66
#: Game points a team needs to win the match (RULES.md §4).
MATCH_TARGET = 24
#: Tricks in a deal: 5 cards each, no talon.
TRICKS = 5
#: The phases of a deal, as ints for the core and names for the views.
TRUMP, BIDDING, DOUBLING, PLAY, OVER = range(5)
PHASES = ("trump", "bidding", "doubling", "play", "over")


@dataclass(frozen=True, kw_only=True, slots=True)
class BauernOptions:
    """The table's rule options (RULES.md §4; ids are ``bauern.<field>``).

    - `auto_claim`: the engine claims 66 for a team the moment it has it (§1).
    - `bettler`: the Bettler contract is played at all (the seed: "some circles do not
      allow the Bettler contract").
    - `bettler_partner_plays`: the Bettler's partner plays instead of sitting out.
    - `bettler_points`: what a Bettler is worth, 4 or 5.
    - `kontra_beats_bettler`: an opponent of forehand may, in the auction, say Kontra
      to forehand's normal game over a Bettler of forehand's team (docs/rules/bauern.md).
    - `assbettler`, `zehnergang`: the optional contracts of the §4 table.
    """

    auto_claim: bool = True
    bettler: bool = True
    bettler_partner_plays: bool = False
    bettler_points: int = field(default=4, metadata={"choices": (4, 5)})
    kontra_beats_bettler: bool = False
    assbettler: bool = False
    zehnergang: bool = False

    def __post_init__(self) -> None:
        if self.bettler_points not in (4, 5):
            raise ValueError(f"bauern.bettler_points must be 4 or 5, got {self.bettler_points!r}")


def options(raw: Mapping[str, object] | None = None) -> BauernOptions:
    return parse_options(BauernOptions, GAME_ID, raw)


#: Named rule sets a table can pick (docs/rules/bauern.md, "Options").
PRESETS: dict[str, dict[str, object]] = {
    "standard": {},
    "manual_claims": {"auto_claim": False},
    "all_contracts": {"bauern.assbettler": True, "bauern.zehnergang": True},
    "no_bettler": {"bauern.bettler": False},
    "kontra_beats_bettler": {"bauern.kontra_beats_bettler": True},
}


class Kind(IntEnum):
    """How a contract is won or lost: the one thing the deal core switches on."""

    #: The team first to 66 (claims), else the last trick's team (1 point).
    NORMAL = 0
    #: The declarer takes no trick.
    BETTLER = 1
    #: The declarer wins every trick and reaches 66 within the first three.
    SCHNAPSER = 2
    #: The declarer wins all five tricks.
    ALL_TRICKS = 3
    #: Won on showing the hand; no doubling, no play.
    SHOWN = 4


class Holding(IntEnum):
    """What the bidder must hold for the contract (checked when it is bid)."""

    NONE = 0
    ACE = 1
    FULL_SUIT = 2
    ALL_TRUMPS = 3


# Who may bid, as a mask over priority positions: bit k = the seat k places clockwise
# from forehand (0 forehand, 1 forehand's left, 2 forehand's partner, 3 the dealer).
FOREHAND = 0b0001
FOREHAND_TEAM = 0b0101
OPPONENTS = 0b1010  # forehand's opponents
NOT_FOREHAND = 0b1110
ANY = 0b1111


@dataclass(frozen=True, slots=True)
class Contract:
    """One row of the RULES.md §4 contract table."""

    id: str
    value: int
    bidders: int
    kind: Kind
    #: Whether forehand's named trump applies (Bettler, Gang...: no trumps).
    trumps: bool
    order: Order = Order.NORMAL
    holding: Holding = Holding.NONE
    #: The `BauernOptions` field that switches the contract on, if it is optional.
    option: str | None = None
    #: The `BauernOptions` field that sets its value instead of `value`.
    value_option: str | None = None

    @property
    def marriages_count(self) -> bool:
        """RULES.md §4: marriages count only in normal, Schnapser and Kontraschnapser."""
        return self.kind in (Kind.NORMAL, Kind.SCHNAPSER)

    @property
    def partner_sits_out(self) -> bool:
        """The Bettler family's partner sits out (unless `bettler_partner_plays`)."""
        return self.kind == Kind.BETTLER


# The RULES.md §4 table, lowest rank first.
# fmt: off
CONTRACTS: tuple[Contract, ...] = (
    #        id                       value bidders        kind             trumps
    Contract("normal",                    1, FOREHAND,      Kind.NORMAL,     True),
    Contract("bettler",                   4, ANY,           Kind.BETTLER,    False,
             option="bettler", value_option="bettler_points"),
    Contract("assbettler",                5, ANY,           Kind.BETTLER,    False,
             holding=Holding.ACE, option="assbettler"),
    Contract("schnapser",                 6, FOREHAND_TEAM, Kind.SCHNAPSER,  True),
    Contract("gang",                      9, ANY,           Kind.ALL_TRICKS, False),
    Contract("zehnergang",               10, ANY,           Kind.ALL_TRICKS, False,
             order=Order.ACE_LOW, option="zehnergang"),
    Contract("kontraschnapser",          12, OPPONENTS,     Kind.SCHNAPSER,  True),
    Contract("bauernschnapser",          12, FOREHAND_TEAM, Kind.ALL_TRICKS, True),
    Contract("farbengang",               18, NOT_FOREHAND,  Kind.SHOWN,      False,
             holding=Holding.FULL_SUIT),
    Contract("kontrabauernschnapser",    24, OPPONENTS,     Kind.ALL_TRICKS, True),
    # Herrenschnapser's trumps are forehand's named suit: he holds all five of them.
    Contract("herrenschnapser",          24, FOREHAND,      Kind.SHOWN,      True,
             holding=Holding.ALL_TRUMPS),
)
# fmt: on

#: Contract ids in rank order: the game's `contracts` (bid action codes use the row).
CONTRACT_IDS: tuple[str, ...] = tuple(c.id for c in CONTRACTS)
NORMAL_ROW = 0
#: The highest Bettler-family row: after a Kontra over a Bettler bids must rank above it.
BETTLER_TOP_ROW = max(i for i, c in enumerate(CONTRACTS) if c.kind == Kind.BETTLER)
#: A Schnapser is decided within the first three tricks (RULES.md §4).
SCHNAPSER_TRICKS = 3


def enabled(contract: Contract, opts: BauernOptions) -> bool:
    return contract.option is None or bool(getattr(opts, contract.option))


def value(contract: Contract, opts: BauernOptions) -> int:
    if contract.value_option is None:
        return contract.value
    v: int = getattr(opts, contract.value_option)
    return v
