"""The play of a Dreierschnapsen deal and its score (RULES.md §1, §3).

Tricks of three, marriages, claims, and the moment a trick (or a marriage, or a
claim) decides the contract: `_after_trick` reads the contract's goal from its row
in `contracts`, and `_result` scores the deal.  The legal cards in the play are
listed in `DreierDeal.legal` itself, inline, for speed.
"""

from __future__ import annotations

from ..cards import CARDS, POINTS, Suit, cards_of
from ..events import CardPlayed, Claimed, HandShown, MarriageDeclared, TrickTaken
from ..results import DealResult
from .contracts import Goal
from .rules import PLAY, SCHNAPSER_TRICKS, TARGET, TRICKS
from .state import DreierState


class Play(DreierState):
    """The tricks, marriages, claims and scoring of `DreierDeal`."""

    __slots__ = ()

    def _start_play(self) -> None:
        c = self.contract
        assert c is not None
        self.phase = PLAY
        self.ptrump = self.trump if c.trumps else -1
        self.strength = c.strength
        self.order = c.order
        self.leader = self.fh if c.forehand_leads else self.decl
        self.turn = self.leader

    # --- tricks and marriages --------------------------------------------------------

    def _play(self, seat: int, card: int, marriage: int) -> None:
        self.hands[seat] &= ~(1 << card)
        log = self.log
        trick = self.trick
        if not trick:
            self.leader = seat
            self.trick = (card,)
            if log is not None:
                log.append(CardPlayed(seat, CARDS[card], bool(marriage)))
            if marriage and self._marriage(seat, card):
                return
            self.turn = (seat + 1) % 3
            return
        if log is not None:
            log.append(CardPlayed(seat, CARDS[card]))
        trick += (card,)
        if len(trick) < 3:
            self.trick = trick
            self.turn = (seat + 1) % 3
            return
        # the trick is complete: highest trump, else highest card of the suit led
        a, b, c = trick
        strength = self.strength
        t = self.ptrump
        best, bc = 0, a
        if b // 6 == bc // 6:
            if strength[b] > strength[bc]:
                best, bc = 1, b
        elif b // 6 == t:
            best, bc = 1, b
        if c // 6 == bc // 6:
            if strength[c] > strength[bc]:
                best = 2
        elif c // 6 == t:
            best = 2
        leader = self.leader
        w = (leader + best) % 3
        pts = POINTS[a] + POINTS[b] + POINTS[c]
        self.points[w] += pts
        self.tricks[w] += 1
        self.won[w] |= (1 << a) | (1 << b) | (1 << c)
        self.ntricks += 1
        self.played += ((leader, trick, w),)
        self.trick = ()
        self.leader = w
        self.turn = w
        side = 0 if w == self.decl else 1
        if self.first_tricks[side] is None:
            ft = list(self.first_tricks)
            ft[side] = (leader, trick, w)
            self.first_tricks = tuple(ft)
        if log is not None:
            cards = tuple(((leader + i) % 3, CARDS[x]) for i, x in enumerate(trick))
            log.append(TrickTaken(w, cards, pts))
        self._after_trick(w)

    def _marriage(self, seat: int, card: int) -> bool:
        """Declare a marriage with the led card; True if that ends the deal (§1, §3)."""
        suit = card // 6
        value = 40 if suit == self.trump else 20
        self.mpoints[seat] += value
        partner = card ^ 1  # King and Queen sit on adjacent bits
        self.shown[seat] |= 1 << partner
        self.marriages += ((seat, suit, value),)
        decl_side = seat == self.decl
        counted = self.side_tricks(decl_side) > 0
        if self.log is not None:
            self.log.append(MarriageDeclared(seat, Suit(suit), value, counted, CARDS[partner]))
        if not counted:
            return False
        c = self.contract
        assert c is not None
        if c.goal is Goal.SCHNAPSER:
            if self.side_total(True) >= TARGET:
                self._result(True, "reached_66")
                return True
        elif self.auto and self.side_total(decl_side) >= TARGET:
            # RULES.md §1: claimed at once; the led card stays, the trick is not played
            self._game_won(decl_side, "reached_66")
            return True
        return False

    # --- the end of the contract -----------------------------------------------------

    def _after_trick(self, w: int) -> None:
        """Has the trick just taken decided the contract?  (RULES.md §1 "Ending a deal".)"""
        c = self.contract
        assert c is not None
        goal = c.goal
        decl = self.decl
        n = self.ntricks
        if goal is Goal.GAME:
            decl_side = w == decl
            if n == TRICKS:
                self._game_won(decl_side, "last_trick", last_trick=True)
            elif self.auto and self.side_total(decl_side) >= TARGET:
                self._game_won(decl_side, "reached_66")
        elif goal is Goal.NO_TRICK:
            if w == decl:
                self._result(False, "took_trick")
            elif n == TRICKS:
                self._result(True, "no_trick")
            elif n == 1 and c.open_hand:
                self.hand_shown = True
                if self.log is not None:
                    cards = tuple(CARDS[x] for x in cards_of(self.hands[decl]))
                    self.log.append(HandShown(decl, cards))
        elif goal is Goal.ALL_TRICKS:
            if w != decl:
                self._result(False, "lost_trick")
            elif n == TRICKS:
                self._result(True, "all_tricks")
        else:  # Schnapser: every trick, 66 within the first SCHNAPSER_TRICKS
            if w != decl:
                self._result(False, "lost_trick")
            elif self.side_total(True) >= TARGET:
                self._result(True, "reached_66")
            elif n == SCHNAPSER_TRICKS:
                self._result(False, "under_66")

    def _claim(self, seat: int) -> None:
        """`claim` with auto_claim off (RULES.md §1, §3): right, or the others win."""
        decl_side = seat == self.decl
        if self.side_total(decl_side) >= TARGET:
            value = self._game_value(decl_side)
            if self.log is not None:
                self.log.append(Claimed(seat, True, (value + self.wt) * self.mult))
            self._game_won(decl_side, "reached_66")
            return
        value = self._game_value(decl_side)
        if self.log is not None:
            self.log.append(Claimed(seat, False, (value + self.wt) * self.mult))
        self._result(not decl_side, "wrong_claim", value)

    # --- scoring ---------------------------------------------------------------------

    def _game_value(self, decl_side: bool) -> int:
        """1/2/3 for the side `decl_side` winning, by the other side's points (§3)."""
        if not self.side_tricks(not decl_side):
            return 3
        return 2 if self.side_total(not decl_side) < 33 else 1

    def _game_won(self, decl_side: bool, reason: str, last_trick: bool = False) -> None:
        value = 1 if last_trick else self._game_value(decl_side)
        self._result(decl_side, reason, value)

    def _result(self, made: bool, reason: str, base: int | None = None) -> None:
        """Score the deal: the declarer scores the value, or each defender does (§3)."""
        c = self.contract
        assert c is not None
        value = ((c.points if base is None else base) + self.wt) * self.mult
        decl = self.decl
        pts = [0, 0, 0]
        if made:
            pts[decl] = value
            winners: tuple[int, ...] = (decl,)
        else:
            for s in self.defs:
                pts[s] = value
            winners = tuple(sorted(self.defs))
        counted = tuple(
            self.points[s] + (self.mpoints[s] if self.side_tricks(s == decl) else 0)
            for s in range(3)
        )
        self._end(
            DealResult(
                points=(pts[0], pts[1], pts[2]),
                winners=winners,
                reason=reason,
                contract=c.id,
                declarer=decl,
                multiplier=self.mult,
                card_points=counted,
                tricks=(self.tricks[0], self.tricks[1], self.tricks[2]),
                details=(
                    ("value", value),
                    ("without_talon", self.wt),
                    ("side_points", (self.side_total(True), self.side_total(False))),
                    ("trump", Suit(self.trump).letter if c.trumps else None),
                ),
            )
        )
