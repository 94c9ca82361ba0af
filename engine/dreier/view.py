"""What one seat (or the public) may see of a Dreierschnapsen deal (DESIGN.md).

Hidden information, by RULES.md §3:
- while trumps are named everyone holds only the first packet of 3 (forehand names
  trumps from it, and a blind card is turned "without looking");
- a blind trump card is public from the moment it is turned;
- the talon is seen by the declarer only, and only while he discards (his own
  discards stay in his `extra["discarded"]`);
- marriage partners are shown when declared (in `known` while still held);
- in Plauderer the declarer's hand lies open after trick 1 (`known`, and the
  `HandShown` event);
- every card played is public; the first trick of each side stays visible
  (`extra["first_tricks"]`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..actions import decode
from ..cards import CARDS, Card, Suit, cards_of
from ..options import options_to_json
from ..views import SeatView
from .contracts import CONTRACT_IDS
from .rules import DISCARD, PHASES, PLAY, TRUMP

if TYPE_CHECKING:
    from .deal import DreierDeal

Trick = tuple[tuple[int, Card], ...]


def _trick(leader: int, cards: tuple[int, ...]) -> Trick:
    return tuple(((leader + i) % 3, CARDS[c]) for i, c in enumerate(cards))


def seat_view(d: DreierDeal, seat: int | None) -> SeatView:
    c = d.contract
    phase = d.phase
    if phase == TRUMP:
        hand: tuple[Card, ...] = (
            tuple(CARDS[x] for x in d.first_packet(seat)) if seat is not None else ()
        )
        sizes: tuple[int, ...] = (3, 3, 3)
    else:
        hand = tuple(CARDS[x] for x in cards_of(d.hands[seat])) if seat is not None else ()
        sizes = tuple(h.bit_count() for h in d.hands)

    known: list[tuple[int, Card]] = []
    if phase != TRUMP:
        for s in range(3):
            if s == seat:
                continue
            open_hand = d.hand_shown and s == d.decl
            mask = d.hands[s] if open_hand else d.shown[s] & d.hands[s]
            known.extend((s, CARDS[x]) for x in cards_of(mask))

    tricks = tuple(_trick(leader, cards) for leader, cards, _ in d.played)
    last_winner = d.played[-1][2] if d.played else None

    played = d.decl >= 0 and phase >= PLAY
    counted = tuple(
        d.points[s] + (d.mpoints[s] if played and d.side_tricks(s == d.decl) else 0)
        for s in range(3)
    )
    extra: list[tuple[str, object]] = [
        ("forehand", d.fh),
        ("named_trump", Suit(d.trump) if d.trump >= 0 else None),
        ("without_talon", d.wt),
        ("spritzen", tuple((s, decode(a)) for s, a in d.spritzen)),
        (
            "first_tricks",
            tuple(
                (side, None if ft is None else (ft[2], _trick(ft[0], ft[1])))
                for side, ft in zip(("declarer", "defenders"), d.first_tricks, strict=True)
            ),
        ),
        ("hand_shown", d.hand_shown),
    ]
    if played:
        extra.append(("side_points", (d.side_total(True), d.side_total(False))))
        extra.append(
            (
                "pending_marriage_points",
                tuple(0 if d.side_tricks(s == d.decl) else d.mpoints[s] for s in range(3)),
            )
        )
    if seat is not None and seat == d.decl and d.discarded:
        extra.append(("discarded", tuple(CARDS[x] for x in cards_of(d.discard))))

    to_act = None if d.turn < 0 else d.turn
    return SeatView(
        game="dreier",
        options=tuple(options_to_json(d.opts, "dreier").items()),
        seat=seat,
        players=3,
        dealer=d.dealer,
        phase=PHASES[phase],
        to_act=to_act,
        hand=hand,
        hand_sizes=sizes,
        trump=Suit(d.trump) if d.trump >= 0 and (c is None or c.trumps) else None,
        trump_card=CARDS[d.trump_card] if d.trump_card >= 0 else None,
        talon_size=d.talon.bit_count(),
        talon_cards=(
            tuple(CARDS[x] for x in cards_of(d.taken))
            if seat is not None and seat == d.decl and phase == DISCARD
            else ()
        ),
        contract=c.id if c is not None else None,
        declarer=d.decl if d.decl >= 0 else None,
        multiplier=d.mult,
        bids=tuple((s, decode(a, CONTRACT_IDS)) for s, a in d.bids),
        trick=_trick(d.leader, d.trick),
        last_trick=tricks[-1] if tricks else (),
        tricks=tricks,
        last_trick_winner=last_winner,
        tricks_won=(d.tricks[0], d.tricks[1], d.tricks[2]),
        points=counted,
        marriages=tuple((s, Suit(su), v) for s, su, v in d.marriages),
        known=tuple(known),
        legal=d.legal_actions() if seat is not None and seat == to_act else (),
        result=d.res,
        extra=tuple(extra),
    )
