"""What one Bauernschnapsen deal holds (RULES.md §1, §4, §6): the slots the parts
of the deal share, the facts derived from them, the claims and the end.

A deal ends in one place, `_finish`: a contract won on showing the hand (the
auction), by a claim or by the tricks (the play).
"""

from __future__ import annotations

from .. import actions as A
from ..cards import Suit
from ..events import Claimed
from ..protocol import DealCore
from ..results import DealResult
from ..tricks import Order
from .rules import CONTRACT_IDS, CONTRACTS, GAME_ID, OVER, TARGET, BauernOptions, Kind, value

# Bit masks of the 20-card deck: the five cards of a suit, and the four aces.
SUIT5 = tuple(0b11111 << (6 * s) for s in range(4))
ACES = sum(1 << (6 * s) for s in range(4))
# Contract kinds as plain ints, for the hot paths.
K_NORMAL, K_BETTLER, K_SCHNAPSER = int(Kind.NORMAL), int(Kind.BETTLER), int(Kind.SCHNAPSER)
KINDS = tuple(int(c.kind) for c in CONTRACTS)
BETTLER_ROWS = tuple(c.kind == Kind.BETTLER for c in CONTRACTS)
BID = A.BID_CONTRACT
SEATS = range(4)


def rota_of(sitting: int) -> tuple[tuple[int, ...], ...]:
    """Seats in playing order from each leader, skipping a seat that sits out."""
    return tuple(
        tuple(s for s in ((lead + k) & 3 for k in range(4)) if s != sitting) for lead in SEATS
    )


ROTA4 = rota_of(-1)
ROTA_WITHOUT = tuple(rota_of(s) for s in SEATS)


class BauernState(DealCore):
    """One deal of Bauernschnapsen.  Seats 0+2 are team 0, seats 1+3 team 1.

    Hands are masks.  `shown` is the mask of cards everyone has seen that may still be
    in a hand: the Aufschlag card, a declared marriage's partner card, a shown hand.
    `history` is the auction and the doubling as (seat, action code).  Marriage points
    are kept per seat and count once the seat's team has a trick.
    """

    __slots__ = (
        "auction_len",
        "auto",
        "biddable",
        "dbl_pos",
        "dbl_queue",
        "dbl_round",
        "dealer",
        "dealt",
        "declarer",
        "fh",
        "floor",
        "hands",
        "high",
        "history",
        "holder",
        "kind",
        "leader",
        "marriages",
        "mpoints",
        "mult",
        "nplay",
        "ntricks",
        "opts",
        "order",
        "passed",
        "phase",
        "played",
        "points",
        "ptrump",
        "res",
        "rota",
        "row",
        "shown",
        "sitting",
        "strength",
        "trick",
        "tricks",
        "trump",
        "upcard",
        "won",
    )

    game = GAME_ID
    contracts = CONTRACT_IDS
    players = 4

    opts: BauernOptions
    auto: bool
    dealer: int
    fh: int
    dealt: tuple[tuple[int, ...], ...]
    hands: list[int]
    phase: int
    trump: int
    upcard: int
    history: tuple[tuple[int, int], ...]
    #: Entries of `history` that are the auction (-1 while it runs); the rest is doubling.
    auction_len: int
    biddable: tuple[int, ...]
    passed: int
    high: int
    holder: int
    floor: int
    row: int
    declarer: int
    kind: int
    mult: int
    dbl_round: int
    dbl_queue: tuple[int, ...]
    dbl_pos: int
    sitting: int
    ptrump: int
    order: Order
    strength: tuple[int, ...]
    rota: tuple[tuple[int, ...], ...]
    nplay: int
    trick: tuple[int, ...]
    leader: int
    points: list[int]
    mpoints: list[int]
    tricks: list[int]
    won: list[int]
    ntricks: int
    #: Completed tricks in order: (leader, cards in playing order, winner).
    played: tuple[tuple[int, tuple[int, ...], int], ...]
    shown: int
    marriages: tuple[tuple[int, int, int], ...]
    res: DealResult | None

    # --- derived facts ---------------------------------------------------------------

    def team_has_trick(self, seat: int) -> bool:
        return bool(self.tricks[seat] or self.tricks[seat ^ 2])

    def seat_total(self, seat: int) -> int:
        """A seat's card points plus its marriages once its team has a trick (§1)."""
        if self.tricks[seat] or self.tricks[seat ^ 2]:
            return self.points[seat] + self.mpoints[seat]
        return self.points[seat]

    def team_total(self, team: int) -> int:
        """A team's card points plus its counting marriages: partners add up (§1)."""
        return self.seat_total(team) + self.seat_total(team + 2)

    def may_marry(self, seat: int) -> bool:
        """Whether `seat`'s marriages can count in this contract (§4)."""
        kind = self.kind
        return kind == K_NORMAL or (kind == K_SCHNAPSER and seat == self.declarer)

    def may_double_in_auction(self, seat: int) -> bool:
        """`bauern.kontra_beats_bettler`: an opponent of forehand may Kontra forehand's
        normal game while a Bettler of forehand's team is the highest bid (once)."""
        return (
            self.opts.kontra_beats_bettler
            and self.floor < 0
            and self.high >= 0
            and BETTLER_ROWS[self.high]
            and not (self.holder - self.fh) & 1
            and bool((seat - self.fh) & 1)
        )

    # --- claims and the end of the deal --------------------------------------------------

    def normal_value(self, winner_team: int) -> int:
        """1 / 2 / 3 game points by the losing team's points and tricks (§2, §4)."""
        loser = 1 - winner_team
        if not (self.tricks[loser] or self.tricks[loser + 2]):
            return 3
        return 2 if self.team_total(loser) < 33 else 1

    def _win_normal(self, team: int, claimer: int) -> None:
        gp = self.normal_value(team)
        if claimer >= 0 and not self.auto and self.log is not None:
            self.log.append(Claimed(claimer, True, gp * self.mult))
        self._finish(team, "reached_66", gp)

    def _claim(self, seat: int) -> None:
        """'Enough' (auto_claim off): right, the team wins; wrong, the other team wins
        what the claim would have won (§4)."""
        team = seat & 1
        if self.team_total(team) >= TARGET:
            self._win_normal(team, seat)
            return
        gp = self.normal_value(team)
        if self.log is not None:
            self.log.append(Claimed(seat, False, gp * self.mult))
        self._finish(1 - team, "wrong_claim", gp)

    def _finish(self, team: int, reason: str, base: int = 0) -> None:
        """End the deal: `team` wins `base` game points (the contract's value when 0)
        times the multiplier; both partners get them in their seat entries."""
        c = CONTRACTS[self.row]
        mult = self.mult
        gp = (base or value(c, self.opts)) * mult
        pts = [0, 0, 0, 0]
        pts[team] = pts[team + 2] = gp
        t0, t1 = self.team_total(0), self.team_total(1)
        self.res = DealResult(
            points=(pts[0], pts[1], pts[2], pts[3]),
            winners=(team, team + 2),
            reason=reason,
            contract=c.id,
            declarer=self.declarer,
            multiplier=mult,
            card_points=tuple(self.seat_total(s) for s in SEATS),
            tricks=tuple(self.tricks),
            details=(
                ("team_points", (t0, t1)),
                ("trump", Suit(self.trump).letter if c.trumps else None),
                ("sitting_out", self.sitting if self.sitting >= 0 else None),
            ),
        )
        self.phase = OVER
        self._over(self.res)

    def result(self) -> DealResult | None:
        return self.res
