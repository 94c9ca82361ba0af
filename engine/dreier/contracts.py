"""The contract table of Dreierschnapsen (RULES.md §3) as data.

One row per contract, in the table's order: a contract's row is its rank in the
auction (equal points included, so Bauernloch < Bauernschnapser < Kontraschnapser).
The rules core reads everything about a contract from its row here — who may bid it,
what it needs in hand, trumps and card order, who leads, what the declarer must do,
what it is worth — so no contract is special-cased by name anywhere else.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from ..cards import SUIT_SPAN
from ..tricks import STRENGTH, Order


class Who(Enum):
    """Which seats may bid a contract, relative to forehand (the caller, "Rufer")."""

    FOREHAND = "forehand"
    ANY = "any"
    NOT_FOREHAND = "not forehand"


class Goal(Enum):
    """What the declarer must do (RULES.md §3, "objective")."""

    #: The side first to 66 (tricks + marriages), or the last trick.
    GAME = "game"
    #: Take no trick: lost the moment the declarer takes one (Bettler family).
    NO_TRICK = "no_trick"
    #: Take all 6 tricks: lost the moment anyone else takes one.
    ALL_TRICKS = "all_tricks"
    #: Win every trick played until tricks + own marriages reach 66, within 4 tricks.
    SCHNAPSER = "schnapser"


class Holding(Enum):
    """What the bidder must hold when naming the contract (RULES.md §3)."""

    NONE = "none"
    ACE = "ace"  # Ass-Bettler: at least one ace
    SUIT = "suit"  # Farbenringerl: all 5 cards of one suit
    TRUMPS = "trumps"  # Herrenschnapser: all 5 trumps


@dataclass(frozen=True, slots=True)
class Contract:
    """One row of RULES.md §3's contract table.

    `points` is the game value; 0 for the normal game, which is worth 1/2/3 by the
    loser's points.  `option` names the `DreierOptions` field that enables an optional
    contract (None: always played).  `carinthian_no_talon`: under `dreier.carinthian`
    the contract is played without the talon (RULES.md §3, "Talon").
    """

    id: str
    name: str
    points: int
    who: Who
    trumps: bool
    order: Order
    forehand_leads: bool
    goal: Goal
    holding: Holding = Holding.NONE
    option: str | None = None
    open_hand: bool = False
    carinthian_no_talon: bool = False

    @property
    def marriages(self) -> bool:
        """Marriages count only in the normal game and the (Kontra)Schnapser."""
        return self.goal is Goal.GAME or self.goal is Goal.SCHNAPSER

    @property
    def strength(self) -> tuple[int, ...]:
        return STRENGTH[self.order]


N, AL = Order.NORMAL, Order.ACE_LOW
FH, ANY, NFH = Who.FOREHAND, Who.ANY, Who.NOT_FOREHAND
GAME, NO, ALL, SCHN = Goal.GAME, Goal.NO_TRICK, Goal.ALL_TRICKS, Goal.SCHNAPSER

# fmt: off
CONTRACTS: tuple[Contract, ...] = (
    Contract("normal", "Normal game (Rufer)", 0, FH, True, N, False, GAME,
             carinthian_no_talon=True),
    Contract("bettler", "Bettler", 4, ANY, False, N, False, NO, carinthian_no_talon=True),
    Contract("assenbettler", "Assenbettler", 5, ANY, False, AL, False, NO,
             option="assenbettler"),
    Contract("assbettler", "Ass-Bettler", 5, ANY, False, N, False, NO, Holding.ACE,
             option="assbettler"),
    Contract("schnapser", "Schnapser", 6, FH, True, N, True, SCHN),
    Contract("plauderer", "Plauderer", 7, ANY, False, N, False, NO, option="plauderer",
             open_hand=True),
    Contract("gang", "Gang", 9, ANY, False, N, False, ALL),
    Contract("zehnergang", "Zehnergang", 10, ANY, False, AL, False, ALL, option="zehnergang"),
    Contract("bauernloch", "Bauernloch", 12, FH, True, AL, False, ALL, option="bauernloch"),
    Contract("bauernschnapser", "Bauernschnapser", 12, FH, True, N, True, ALL),
    Contract("kontraschnapser", "Kontraschnapser", 12, NFH, True, N, True, SCHN),
    Contract("farbenringerl", "Farbenringerl", 18, ANY, False, N, False, ALL, Holding.SUIT),
    Contract("kontrabauernschnapser", "Kontrabauernschnapser", 24, NFH, True, N, True, ALL),
    Contract("herrenschnapser", "Herrenschnapser (Trumpfringerl)", 24, FH, True, N, True, ALL,
             Holding.TRUMPS),
)
# fmt: on

#: Contract ids in row order: `DreierDeal.contracts`, which the int action codes use.
CONTRACT_IDS: tuple[str, ...] = tuple(c.id for c in CONTRACTS)
ROW: dict[str, int] = {cid: i for i, cid in enumerate(CONTRACT_IDS)}
NORMAL = ROW["normal"]

#: The five cards (A T K Q J) of each suit in the 20-card deck.
FULL_SUIT: tuple[int, ...] = tuple(0b11111 << (s * SUIT_SPAN) for s in range(4))
ACES = sum(1 << (s * SUIT_SPAN) for s in range(4))


def seat_may_bid(c: Contract, is_forehand: bool) -> bool:
    """RULES.md §3 "who may bid": forehand, anyone, or anyone but forehand."""
    if c.who is Who.ANY:
        return True
    return is_forehand == (c.who is Who.FOREHAND)


def holds(c: Contract, hand: int, trump: int) -> bool:
    """Does `hand` (a mask) hold what `c` needs?  Checked when the contract is named."""
    h = c.holding
    if h is Holding.NONE:
        return True
    if h is Holding.ACE:
        return bool(hand & ACES)
    if h is Holding.TRUMPS:
        return trump >= 0 and hand & FULL_SUIT[trump] == FULL_SUIT[trump]
    return any(hand & m == m for m in FULL_SUIT)
