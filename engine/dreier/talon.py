"""The talon of a Dreierschnapsen deal (RULES.md §3): the declarer's discard and raise.

A declarer who took the talon lays two cards away, and with them may name a higher
contract (`dreier.raise_after_talon`, or forehand after an all-pass with
`dreier.caller_first`), held in the six cards he keeps.  Then comes Spritzen
(`doubling`).
"""

from __future__ import annotations

from .. import actions as A
from ..cards import CARDS, cards_of, mask_of
from ..events import Discarded, Raised
from .contracts import CONTRACTS, ROW, Holding, holds
from .state import DreierState


class Talon(DreierState):
    """The discard (with a raise) of `DreierDeal`."""

    __slots__ = ()

    def raise_allowed(self) -> bool:
        """RULES.md §3: `raise_after_talon`, or forehand after an all-pass in `caller_first`."""
        return self.opts.raise_after_talon or self.all_passed

    def raise_candidates(self) -> tuple[list[int], list[int]]:
        """Rows the declarer may raise to with his discard, split into those without a
        holding rule and those whose holding depends on the cards he keeps (§3)."""
        c = self.contract
        assert c is not None
        cur = ROW[c.id]
        decl = self.decl
        is_fh = decl == self.fh
        plain: list[int] = []
        held: list[int] = []
        for row, r, _ in self.bid_rows[is_fh]:
            if row > cur:
                (plain if r.holding is Holding.NONE else held).append(row)
        return plain, held

    def may_raise_to(self, row: int, kept: int) -> bool:
        """The holding check of a raise: on the 6 cards kept and, with
        `dreier.carinthian`, Farbenringerl/Herrenschnapser on the original 6 as well."""
        c = CONTRACTS[row]
        if not holds(c, kept, self.trump):
            return False
        if self.opts.carinthian and c.holding in (Holding.SUIT, Holding.TRUMPS):
            return holds(c, mask_of(self.dealt[self.decl]), self.trump)
        return True

    def _legal_discards(self) -> list[int]:
        hand = self.hands[self.decl]
        cards = cards_of(hand)
        plain: list[int] = []
        held: list[int] = []
        if self.raise_allowed():
            plain, held = self.raise_candidates()
        out = []
        for i, lo in enumerate(cards):
            for hi in cards[i + 1 :]:
                base = A.DISCARD + lo + 32 * hi
                out.append(base)
                for row in plain:
                    out.append(base + 1024 * (row + 1))
                if held:
                    kept = hand & ~((1 << lo) | (1 << hi))
                    for row in held:
                        if self.may_raise_to(row, kept):
                            out.append(base + 1024 * (row + 1))
        return out

    def _discard(self, seat: int, code: int) -> None:
        raised, rest = divmod(code - A.DISCARD, 1024)
        hi, lo = divmod(rest, 32)
        mask = (1 << lo) | (1 << hi)
        self.hands[seat] &= ~mask
        self.discard = mask
        self.discarded = True
        log = self.log
        if log is not None:
            log.append(Discarded(seat, (CARDS[lo], CARDS[hi])))
        if raised:
            c = CONTRACTS[raised - 1]
            self.contract = c
            if log is not None:
                log.append(Raised(seat, contract=c.id))
        self._start_doubling()
