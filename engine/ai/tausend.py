"""Thousand's hooks for the AI (`GameAI`): worlds, policy, exact phase, value (RULES.md §5).

The strong level decides every choice of a deal the same way — each bid, gift, final
raise, redeal claim and card is scored over deals sampled from what the seat knows
(`tausend_worlds`), each world played out by the heuristic (`tausend_policy`) for
every seat, the seat's own later choices included.  So a bid is worth what the
auction, the stock, the gifts, the raise and the play that follow make of it.

The value of a finished deal to a seat is its score change (RULES.md §5): the
declarer's ± contract, a defender's points rounded to 5 (times the golden round's
or blind bid's multiplier), less a third of the bolt fine for a bolt taken; in units
of 5 points (every score is a multiple of 5), so the numbers stay small.  A redeal
is worth nothing to anybody.  Near the end of a match the deal knows who sits on the
barrel and the scores, and the value is what the match makes of the deal: the game
won from the barrel, points lost beyond 880, a sitter pushed off.

Over the last two tricks a world is solved exactly (alpha-beta): the defenders play
as one side against the declarer.  Earlier the three hands are too big to solve in
the time a chat can wait, so playouts go to the end.
"""

from __future__ import annotations

from collections.abc import Hashable

from ..tausend.deal import TausendDeal
from ..tausend.rules import (
    BARREL_AT,
    BOLT_FINE,
    BOLTS_TO_FINE,
    FREE_BID_LIMIT,
    MAX_BID,
    PLAY,
    barrel_room,
)
from ..views import SeatView
from .base import Budget
from .plugins import GameAI
from .tausend_policy import policy
from .tausend_worlds import worlds

#: The search's unit of points: every score of a deal is a multiple of 5.
UNIT = 5
#: What a bolt costs in the long run: a third of the fine the third one brings.
BOLT_COST = BOLT_FINE // BOLTS_TO_FINE // UNIT
#: Cards left in all hands at most for the exact search (the last two tricks of 3).
EXACT_CARDS = 6
#: What winning the game from the barrel is worth, in units (240 points): the 120
#: to 1000 and as much again for ending the game (not winning there costs the fine
#: of 120 sooner or later).  So a seat on the barrel bids above 120 when it makes
#: the contract about one time in three (125 against 240); the others lose as much.
WIN = 240 // UNIT


def exact(d: TausendDeal) -> bool:
    """Few enough cards left that alpha-beta finishes the world at once."""
    if d.phase != PLAY:
        return False
    n = 0
    for h in d.hands:
        n += h.bit_count()
    return n <= EXACT_CARDS


def value(d: TausendDeal, seat: int) -> int:
    """The deal's score change for `seat` in units of 5 points, a bolt counted at a
    third of its fine (RULES.md §5); a redeal is 0.  With somebody on the barrel or the
    scores near it, what the match makes of the deal (`_match_value`)."""
    res = d.res
    assert res is not None
    if res.reason == "redeal":
        return 0
    setup = d.setup
    if setup.barrel or setup.scores:
        v = _match_value(d, res.points, seat, setup.barrel or (0,) * d.players, setup.scores)
    else:
        v = res.points[seat] // UNIT
    if seat != d.declarer and d.opp_mask >> seat & 1 and not d.tricks[seat]:
        v -= BOLT_COST * d.setup.gmult
    return v


def _match_value(
    d: TausendDeal,
    points: tuple[int, ...],
    seat: int,
    barrel: tuple[int, ...],
    scores: tuple[int, ...],
) -> int:
    """What the match makes of a deal near or on the barrel (RULES.md §5,
    `TausendMatch.add_result`): a contract above 120 made from the barrel wins the
    game (`WIN` for the winner, `-WIN` for everybody else); failed, it costs the bid;
    nothing else a barrel seat scores counts, and its last deal there without the win
    costs the fine.  With the scores known: a seat reaching 880 climbs onto the barrel
    and keeps no point beyond it (more climbers than room all drop back by the fine),
    and a climber pushes a sitter off the full barrel, which costs the sitter the fine.
    Bolt fines are left to `value`'s bolt cost."""
    dec = d.declarer
    big = d.value > FREE_BID_LIMIT
    if big and barrel[dec] and points[dec] > 0:
        return WIN if seat == dec else -WIN
    fine = d.setup.opts.barrel_fine * d.setup.gmult
    if not barrel[seat]:
        if not scores or scores[seat] + points[seat] < BARREL_AT:
            return points[seat] // UNIT
        if len(_climbers(points, barrel, scores)) > barrel_room(d.players):
            return (BARREL_AT - fine - scores[seat]) // UNIT
        return (BARREL_AT - scores[seat]) // UNIT
    if seat == dec and big:
        return points[seat] // UNIT
    if barrel[seat] == 1 and not (d.players == 4 and seat == d.setup.dealer):
        return -fine // UNIT  # the last deal there: the fine, pushed off or not
    if scores:
        climbers = len(_climbers(points, barrel, scores))
        sitters = sum(1 for k in barrel if k) - (big and points[dec] < 0 and barrel[dec] > 0)
        if 0 < climbers <= barrel_room(d.players) < sitters + climbers:
            return -fine // UNIT  # pushed off (with room for two, either may be)
    return 0


def _climbers(
    points: tuple[int, ...], barrel: tuple[int, ...], scores: tuple[int, ...]
) -> list[int]:
    """The seats off the barrel this deal brings to 880."""
    return [
        s
        for s, (p, k, sc) in enumerate(zip(points, barrel, scores, strict=True))
        if not k and sc + p >= BARREL_AT
    ]


def same_side(d: TausendDeal, seat: int) -> bool:
    """The seat to act plays for `seat`: itself, or both defenders together."""
    turn = d.turn
    if turn == seat:
        return True
    dec = d.declarer
    return dec >= 0 and seat != dec and turn != dec


def key(d: TausendDeal) -> Hashable:
    """Everything that decides the rest of a deal in play: the hands, the trick, who
    is to act, the trumps, each seat's points and whether it has a trick (marriages
    need one, and a bolt is the lack of one).  The contract is fixed in one world."""
    t = d.tricks
    cp = d.cpoints
    mp = d.mpoints
    return (
        tuple(d.hands),
        tuple(d.trick),
        d.turn,
        d.trump,
        tuple(cp[s] + mp[s] for s in range(d.players)),
        tuple(x > 0 for x in t),
    )


#: The pruning floor (`GameAI.prune_floor`, in units) before the play.  Bids and raises
#: have up to 61 candidates whose differences look certain after the first 8 worlds
#: (every one made the high raise); a floor of 40 points keeps the close ones: held
#: contracts made +1.6 points (±1.1) on 900 deals, points a deal unchanged, raises no
#: longer erratic (docs/ai_tausend.md).
AUCTION_FLOOR = 8.0
#: ... and for a card, which has a few rivals whose differences the worlds measure.
PLAY_FLOOR = 0.0


def prune_floor(view: SeatView) -> float:
    """The floor for this decision: `AUCTION_FLOOR` until the play, then `PLAY_FLOOR`."""
    return PLAY_FLOOR if view.phase == "play" else AUCTION_FLOOR


#: Measured on 900 held contracts (the forehand's mandatory 100): 400 -> 1,600
#: playouts makes 2 points more of them and +3.8 points a deal (docs/ai_tausend.md).
PLAY_BUDGET = Budget(playouts=1600, worlds=24)
#: Bids, gifts, the raise and redeal claims: each playout plays the whole deal, and
#: these decisions have the most candidates (up to 61 bids), so they are the slowest.
AUCTION_BUDGET = Budget(playouts=1000, worlds=24)


def budget_for(view: SeatView) -> Budget:
    """`PLAY_BUDGET` for a card, `AUCTION_BUDGET` before the play."""
    return PLAY_BUDGET if view.phase == "play" else AUCTION_BUDGET


#: Stop a decision whose candidates have scored alike in every one of this many worlds
#: (`GameAI.tie_worlds`).  Many Thousand decisions are ties: two low cards of a suit,
#: bids up to 120 on the barrel, any card of a seat whose score there cannot change.
TIE_WORLDS = 16


#: Game points per deal at most, either way (400 doubled), in the search's unit.
BOUND = 2 * MAX_BID // UNIT

AI: GameAI[TausendDeal] = GameAI(
    game="tausend",
    contracts=TausendDeal.contracts,
    worlds=worlds,
    policy=policy,
    exact=exact,
    value=value,
    same_side=same_side,
    key=key,
    bounds=(-BOUND - 2 * BOLT_COST, BOUND),
    budget_for=budget_for,
    prune_floor=prune_floor,
    tie_worlds=TIE_WORLDS,
)
