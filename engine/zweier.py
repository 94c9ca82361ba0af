"""Zweierschnapsen (RULES.md §2): two players, 20 cards, talon and face-up trump, 66.

`ZweierDeal` is the rules core (see `engine.protocol`): ints and masks, stepped in
place by the AI and copied by `protocol.apply`.  `ZweierMatch` scores deals into a
Bummerl.  Choices where RULES.md is silent are written down in docs/rules.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from . import actions as A
from .actions import Action
from .cards import (
    CARDS,
    DECK20,
    IDS,
    MARRIAGE_MASK,
    POINTS,
    Rank,
    Suit,
    card_index,
    cards_of,
    mask_of,
)
from .events import (
    CardDrawn,
    CardPlayed,
    Claimed,
    MarriageDeclared,
    TalonClosed,
    TrickTaken,
    TrumpExchanged,
)
from .match import DealSpec, Match, check_first_dealer
from .options import options_to_json, parse_options
from .protocol import DealCore, GameSpec
from .results import DealResult
from .shuffle import shuffled
from .tricks import STRENGTH, Order, allowed_mask, why_not_allowed
from .views import SeatView

GAME_ID = "zweier"
TARGET = 66
BUMMERL_AT = 7


@dataclass(frozen=True, kw_only=True, slots=True)
class ZweierOptions:
    """Options of RULES.md §1-2.  `schneider`: a loser with 0 game points gets 2 Bummerl."""

    auto_claim: bool = True
    schneider: bool = True


def options(raw: Mapping[str, object] | None = None) -> ZweierOptions:
    return parse_options(ZweierOptions, GAME_ID, raw)


PRESETS: dict[str, dict[str, object]] = {
    "standard": {},
    "manual_claims": {"auto_claim": False},
}

# beats[(trump * 24 + led) * 24 + card]: does `card`, played second, take the trick?
_STRENGTH = STRENGTH[Order.NORMAL]


def _beats_table() -> bytes:
    out = bytearray(5 * 24 * 24)
    for t in range(5):
        trump = t if t < 4 else -1
        for led in range(24):
            for c in range(24):
                if c // 6 == led // 6:
                    win = _STRENGTH[c] > _STRENGTH[led]
                else:
                    win = c // 6 == trump
                out[(t * 24 + led) * 24 + c] = win
    return bytes(out)


_BEATS = _beats_table()
_KING_QUEEN = tuple(
    (card_index(s, Rank.KING), card_index(s, Rank.QUEEN), MARRIAGE_MASK[s]) for s in range(4)
)


class ZweierDeal(DealCore, own_lists=("hands", "points", "mpoints", "tricks", "won", "shown")):
    """One deal of Zweierschnapsen.

    talon: `stock` holds the face-down cards top first, `tpos` the next to draw, and
    `upcard` the face-up trump under it (-1 once drawn).  Marriage points are kept per
    seat and count only once that seat has a trick (`total`).
    """

    __slots__ = (
        "auto",
        "close_opp_points",
        "close_opp_tricks",
        "closed_by",
        "dealer",
        "dealt",
        "hands",
        "history",
        "last",
        "lead_card",
        "leader",
        "marriages",
        "mpoints",
        "opts",
        "points",
        "res",
        "shown",
        "stock",
        "tpos",
        "tricks",
        "trump",
        "upcard",
        "won",
    )

    game = GAME_ID
    players = 2

    opts: ZweierOptions
    dealer: int
    hands: list[int]
    stock: tuple[int, ...]
    tpos: int
    upcard: int
    trump: int
    closed_by: int
    close_opp_points: int
    close_opp_tricks: int
    leader: int
    lead_card: int
    points: list[int]
    mpoints: list[int]
    tricks: list[int]
    won: list[int]
    last: tuple[int, int, int, int]
    shown: list[int]
    marriages: tuple[tuple[int, int, int], ...]
    res: DealResult | None
    history: tuple[tuple[int, int, int], ...]
    auto: bool
    dealt: tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]

    @classmethod
    def start(
        cls, opts: ZweierOptions, dealer: int, hands: Sequence[Sequence[int]], talon: Sequence[int]
    ) -> ZweierDeal:
        """A deal from explicit cards: `talon` top first, its last card the face-up trump."""
        d = cls.__new__(cls)
        d.log = None
        d.opts = opts
        d.auto = opts.auto_claim
        d.dealer = dealer
        d.hands = [mask_of(hands[0]), mask_of(hands[1])]
        d.stock = tuple(talon[:-1])
        d.tpos = 0
        d.upcard = talon[-1]
        d.trump = talon[-1] // 6
        d.closed_by = -1
        d.close_opp_points = 0
        d.close_opp_tricks = 0
        d.leader = 1 - dealer
        d.turn = 1 - dealer
        d.lead_card = -1
        d.points = [0, 0]
        d.mpoints = [0, 0]
        d.tricks = [0, 0]
        d.won = [0, 0]
        d.last = (-1, -1, -1, -1)
        d.shown = [0, 0]
        d.marriages = ()
        d.res = None
        d.history = ()
        d.dealt = (tuple(hands[0]), tuple(hands[1]), tuple(talon))
        return d

    # --- derived facts -------------------------------------------------------------

    def talon_size(self) -> int:
        """Cards left in the talon, the face-up trump included."""
        return len(self.stock) - self.tpos + (self.upcard >= 0)

    def total(self, seat: int) -> int:
        """Card points plus marriages, which count only once the seat has a trick."""
        return self.points[seat] + (self.mpoints[seat] if self.tricks[seat] else 0)

    # --- the fast path -----------------------------------------------------------------

    def legal(self) -> list[int]:
        turn = self.turn
        if turn < 0:
            return []
        hand = self.hands[turn]
        lead = self.lead_card
        if lead >= 0:
            # Stichzwang once the talon is closed or gone (RULES.md §2).
            if self.closed_by >= 0 or self.upcard < 0:
                return list(cards_of(allowed_mask(hand, (lead,), self.trump)))
            return list(cards_of(hand))
        out = list(cards_of(hand))
        for king, queen, mm in _KING_QUEEN:
            if hand & mm == mm:
                out.append(king | 32)
                out.append(queen | 32)
        if self.closed_by < 0 and len(self.stock) - self.tpos + (self.upcard >= 0) >= 3:
            if hand >> (self.trump * 6 + 4) & 1:
                out.append(A.EXCHANGE)
            out.append(A.CLOSE)
        if not self.auto:
            out.extend(A.with_marriage_claims(out))
            out.append(A.CLAIM)
        return out

    def step(self, code: int) -> None:
        seat = self.turn
        if code < 64:
            card = code & 31
            self.hands[seat] &= ~(1 << card)
            lead = self.lead_card
            if lead < 0:
                self._lead(seat, card, code & 32)
            else:
                self._follow(seat, lead, card)
        elif code == A.EXCHANGE:
            jack = self.trump * 6 + 4
            up = self.upcard
            self.hands[seat] ^= (1 << jack) | (1 << up)
            self.shown[seat] |= 1 << up
            self.upcard = jack
            if self.log is not None:
                self.log.append(TrumpExchanged(seat, CARDS[jack], CARDS[up]))
        elif code == A.CLOSE:
            opp = 1 - seat
            self.closed_by = seat
            self.close_opp_points = self.total(opp)
            self.close_opp_tricks = self.tricks[opp]
            if self.log is not None:
                self.log.append(TalonClosed(seat))
        elif code == A.CLAIM:
            self._claim(seat)
        elif A.is_marriage_claim(code):
            self.step(code & 63)  # declare it by leading the card, then claim (§1)
            self._claim(seat)
        else:  # pragma: no cover - legal() never offers anything else
            raise ValueError(f"not a zweier action: {code}")

    def _lead(self, seat: int, card: int, marriage: int) -> None:
        self.lead_card = card
        self.leader = seat
        log = self.log
        if log is not None:
            log.append(CardPlayed(seat, CARDS[card], bool(marriage)))
        if marriage:
            suit = card // 6
            value = 40 if suit == self.trump else 20
            self.mpoints[seat] += value
            partner = card ^ 1 if card % 6 in (2, 3) else card  # K<->Q are adjacent ranks
            self.shown[seat] |= 1 << partner
            self.marriages += ((seat, suit, value),)
            if log is not None:
                log.append(
                    MarriageDeclared(seat, Suit(suit), value, self.tricks[seat] > 0, CARDS[partner])
                )
            if self.auto and self.tricks[seat] and self.total(seat) >= TARGET:
                # RULES.md §1: claimed at once; the led card's trick is not played out.
                self._win(seat, "reached_66")
                return
        self.turn = 1 - seat

    def _follow(self, seat: int, lead: int, card: int) -> None:
        leader = 1 - seat
        t = self.trump
        w = seat if _BEATS[(t * 24 + lead) * 24 + card] else leader
        pts = POINTS[lead] + POINTS[card]
        self.points[w] += pts
        self.tricks[w] += 1
        self.won[w] |= (1 << lead) | (1 << card)
        self.last = (leader, lead, card, w)
        self.history += (self.last[:3],)
        self.lead_card = -1
        self.leader = w
        self.turn = w
        log = self.log
        if log is not None:
            log.append(CardPlayed(seat, CARDS[card]))
            log.append(TrickTaken(w, ((leader, CARDS[lead]), (seat, CARDS[card])), pts))
        if self.closed_by < 0 and self.upcard >= 0:
            stock = self.stock
            pos = self.tpos
            first = stock[pos]
            pos += 1
            if pos < len(stock):
                second = stock[pos]
                pos += 1
                second_public = False
            else:
                second = self.upcard
                self.upcard = -1
                second_public = True
                # Everybody saw who took the face-up trump: it stays known until played.
                self.shown[1 - w] |= 1 << second
            self.tpos = pos
            self.hands[w] |= 1 << first
            self.hands[1 - w] |= 1 << second
            if log is not None:
                log.append(CardDrawn(w, CARDS[first]))
                log.append(CardDrawn(1 - w, CARDS[second], second_public))
        if self.auto and self.total(w) >= TARGET:
            self._win(w, "reached_66")
        elif not self.hands[w]:
            self._last_trick(w)

    def _last_trick(self, w: int) -> None:
        """All cards played.  The last trick's winner claims if he can (docs/rules.md)."""
        if self.total(w) >= TARGET:
            self._win(w, "reached_66")
        elif self.closed_by >= 0:
            self._closer_failed()
        else:
            self._finish(w, 1, "last_trick")

    def _claim(self, seat: int) -> None:
        correct = self.total(seat) >= TARGET
        if correct:
            self._win(seat, "reached_66", claimed=True)
            return
        would = self._value_of_win(seat)
        floor = 3 if self.tricks[seat] == 0 else 2
        if self.log is not None:
            self.log.append(Claimed(seat, False, max(would, floor)))
        self._finish(1 - seat, max(would, floor), "wrong_claim")

    def _value_of_win(self, w: int) -> int:
        loser = 1 - w
        cb = self.closed_by
        if cb < 0:
            if not self.tricks[loser]:
                return 3
            return 2 if self.total(loser) < 33 else 1
        if w == cb:
            if not self.close_opp_tricks:
                return 3
            return 2 if self.close_opp_points < 33 else 1
        return 3 if not self.close_opp_tricks else 2

    def _win(self, w: int, reason: str, claimed: bool = False) -> None:
        gp = self._value_of_win(w)
        if self.closed_by >= 0 and w != self.closed_by:
            reason = "closer_failed"
        if claimed and self.log is not None:
            self.log.append(Claimed(w, True, gp))
        self._finish(w, gp, reason)

    def _closer_failed(self) -> None:
        w = 1 - self.closed_by
        self._finish(w, 3 if not self.close_opp_tricks else 2, "closer_failed")

    def _finish(self, w: int, gp: int, reason: str) -> None:
        pts = [0, 0]
        pts[w] = gp
        self.res = DealResult(
            points=(pts[0], pts[1]),
            winners=(w,),
            reason=reason,
            contract="normal",
            declarer=None,
            multiplier=1,
            card_points=(self.total(0), self.total(1)),
            tricks=(self.tricks[0], self.tricks[1]),
            details=(("closed_by", None if self.closed_by < 0 else self.closed_by),),
        )
        self._over(self.res)

    # --- the public faces ----------------------------------------------------------

    def result(self) -> DealResult | None:
        return self.res

    def explain(self, seat: int, action: Action, code: int) -> tuple[str, str]:
        hand = self.hands[seat]
        if isinstance(action, A.PlayCard):
            card = action.card.index
            if not hand >> card & 1:
                return "card_not_in_hand", f"{IDS[card]} is not in your hand"
            if action.claim and (why := A.marriage_claim_refusal(action, self.auto)):
                return why
            if action.marriage:
                if self.lead_card >= 0:
                    return "marriage_not_allowed", "a marriage is declared only when leading"
                return "marriage_not_held", f"{IDS[card]} is not part of a marriage you hold"
            return why_not_allowed(hand, (self.lead_card,), self.trump, card)
        if isinstance(action, A.ExchangeTrump):
            if self.lead_card >= 0:
                return "exchange_not_allowed", "you may exchange only before leading"
            if not hand >> (self.trump * 6 + 4) & 1:
                return "exchange_not_allowed", "you do not hold the trump Jack"
            return "exchange_not_allowed", "the talon is closed or has two cards or fewer"
        if isinstance(action, A.CloseTalon):
            if self.lead_card >= 0:
                return "close_not_allowed", "you may close only before leading"
            return "close_not_allowed", "the talon is already closed or has two cards or fewer"
        if isinstance(action, A.Claim):
            if self.auto:
                return "claim_not_allowed", "claims are automatic at this table (auto_claim)"
            return "claim_not_allowed", "you may claim only when you are on lead"
        return "action_not_allowed", f"{type(action).__name__} is not an action of {GAME_ID}"

    def view(self, seat: int | None) -> SeatView:
        # Cards both players saw go into a hand (a marriage's partner, the trump taken
        # by the exchange or drawn last) are public: the channel's view lists them too.
        other_known = tuple(
            (o, CARDS[c])
            for o in (0, 1)
            if o != seat
            for c in cards_of(self.shown[o] & self.hands[o])
        )
        last: tuple[tuple[int, Any], ...] = ()
        lw = None
        if self.last[0] >= 0:
            leader, c1, c2, lw = self.last
            last = ((leader, CARDS[c1]), (1 - leader, CARDS[c2]))
        return SeatView(
            game=GAME_ID,
            seat=seat,
            players=2,
            dealer=self.dealer,
            phase="over" if self.turn < 0 else "play",
            to_act=None if self.turn < 0 else self.turn,
            hand=tuple(CARDS[c] for c in cards_of(self.hands[seat])) if seat is not None else (),
            hand_sizes=(self.hands[0].bit_count(), self.hands[1].bit_count()),
            trump=Suit(self.trump),
            trump_card=CARDS[self.upcard] if self.upcard >= 0 else None,
            talon_size=self.talon_size(),
            talon_closed=self.closed_by >= 0,
            contract="normal",
            trick=((self.leader, CARDS[self.lead_card]),) if self.lead_card >= 0 else (),
            last_trick=last,
            last_trick_winner=lw,
            tricks=tuple(((ld, CARDS[a]), (1 - ld, CARDS[b])) for ld, a, b in self.history),
            tricks_won=(self.tricks[0], self.tricks[1]),
            points=(self.total(0), self.total(1)),
            marriages=tuple((s, Suit(su), v) for s, su, v in self.marriages),
            known=other_known,
            legal=self.legal_actions() if seat is not None and seat == self.turn else (),
            result=self.res,
            options=tuple(options_to_json(self.opts, GAME_ID).items()),
            extra=(
                ("closed_by", None if self.closed_by < 0 else self.closed_by),
                # What the closer's opponent had when the talon was closed (RULES.md §2:
                # the closer's game points are counted from it); public at the table.
                (
                    "closing_snapshot",
                    None if self.closed_by < 0 else (self.close_opp_points, self.close_opp_tricks),
                ),
                (
                    "pending_marriage_points",
                    (
                        0 if self.tricks[0] else self.mpoints[0],
                        0 if self.tricks[1] else self.mpoints[1],
                    ),
                ),
            ),
        )

    def locations(self) -> dict[str, int]:
        return {
            "hand0": self.hands[0],
            "hand1": self.hands[1],
            "stock": mask_of(self.stock[self.tpos :]),
            "upcard": (1 << self.upcard) if self.upcard >= 0 else 0,
            "won0": self.won[0],
            "won1": self.won[1],
            "trick": (1 << self.lead_card) if self.lead_card >= 0 else 0,
        }


# --- dealing ---------------------------------------------------------------------------


def deal_from_deck(deck: Sequence[int], dealer: int) -> tuple[list[list[int]], list[int]]:
    """Split a shuffled deck as at the table: 3 to forehand, 3 to the dealer, the trump
    card turned, 2 to forehand, 2 to the dealer, the rest the talon (top first).

    Returns (hands by seat, talon top first with the face-up trump last).
    """
    fh = 1 - dealer
    hands: list[list[int]] = [[], []]
    hands[fh] = [deck[0], deck[1], deck[2], deck[7], deck[8]]
    hands[dealer] = [deck[3], deck[4], deck[5], deck[9], deck[10]]
    talon = list(deck[11:20]) + [deck[6]]
    return hands, talon


def validate_cards(hands: Sequence[Sequence[int]], talon: Sequence[int]) -> str | None:
    """Why explicit cards do not make a zweier deal, or None."""
    if len(hands) != 2 or any(len(h) != 5 for h in hands):
        return "zweier needs two hands of 5 cards"
    if len(talon) != 10:
        return "the zweier talon has 10 cards, the face-up trump last"
    allc = [*hands[0], *hands[1], *talon]
    if sorted(allc) != sorted(DECK20):
        return "the hands and talon must hold each card of the 20-card deck exactly once"
    return None


def start_deal(
    opts: ZweierOptions,
    dealer: int,
    *,
    seed: bytes | None = None,
    hands: Sequence[Sequence[int]] | None = None,
    talon: Sequence[int] | None = None,
    **_context: object,
) -> ZweierDeal:
    if hands is None or talon is None:
        if seed is None:
            raise ValueError("a deal needs a seed or explicit hands and talon")
        hands, talon = deal_from_deck(shuffled(DECK20, seed), dealer)
    problem = validate_cards(hands, talon)
    if problem:
        raise ValueError(problem)
    return ZweierDeal.start(opts, dealer, hands, talon)


# --- the match ---------------------------------------------------------------------------


class ZweierMatch(Match):
    """First to 7 game points; the loser gets a Bummerl (2 with Schneider).  The dealer
    alternates every deal."""

    game = GAME_ID
    players = 2

    def __init__(self, options: ZweierOptions, first_dealer: int = 0) -> None:
        check_first_dealer(first_dealer, self.players)
        super().__init__(options, first_dealer)
        self.scores = [0, 0]
        self.bummerl = [0, 0]

    def next_deal(self) -> DealSpec | None:
        if self.finished:
            return None
        n = len(self.results)
        return DealSpec(GAME_ID, (0, 1), (self.first_dealer + n) % 2, n)

    def start_deal(
        self,
        spec: DealSpec,
        *,
        seed: bytes | None = None,
        hands: list[list[int]] | None = None,
        talon: list[int] | None = None,
    ) -> ZweierDeal:
        return start_deal(self.options, spec.dealer, seed=seed, hands=hands, talon=talon)

    def add_result(self, spec: DealSpec, result: DealResult) -> tuple[int, ...]:
        self.results.append(result)
        for i in range(2):
            self.scores[i] += result.points[i]
        for i in range(2):
            if self.scores[i] >= BUMMERL_AT:
                loser = 1 - i
                self.bummerl[loser] += self.loss_bummerl(loser)
                self.finished = True
        return result.points

    def loss_bummerl(self, seat: int) -> int:
        return 2 if self.options.schneider and self.scores[seat] == 0 else 1

    def summary(self) -> dict[str, Any]:
        return {
            "scores": list(self.scores),
            "bummerl": list(self.bummerl),
            "finished": self.finished,
        }


def new_match(opts: ZweierOptions, first_dealer: int = 0) -> ZweierMatch:
    return ZweierMatch(opts, first_dealer)


GAME = GameSpec(
    id=GAME_ID,
    name="Zweierschnapsen",
    players=2,
    options_type=ZweierOptions,
    parse_options=options,
    start_deal=start_deal,
    new_match=new_match,
    presets=PRESETS,
)

__all__ = ["GAME", "PRESETS", "ZweierDeal", "ZweierMatch", "ZweierOptions", "start_deal"]
