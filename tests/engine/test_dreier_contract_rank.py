"""Dreierschnapsen bids by contract row (RULES.md §3), where no scenario record shows
it: equal points rank by the table's row order whatever the seat's priority, the
forehand-only and not-forehand rows, the Carinthian holding of all five trumps, and
the caller-first forehand who announced and so may not raise."""

from __future__ import annotations

import pytest

from engine import dreier
from engine import protocol as P
from engine.actions import Action, Bid, ChooseTrump, Discard, Pass
from engine.cards import Card, Suit, index_of

#: Dealer 0, so forehand is seat 1, middlehand seat 2.  Forehand holds every heart
#: (trumps), middlehand every diamond, the dealer every club.
HANDS = ["AC TC KC QC JC KS", "AH TH KH QH JH AS", "AD TD KD QD JD TS"]
TALON = "QS JS"
FH, MH, DL = 1, 2, 0
ALL_CONTRACTS = dreier.options(dreier.PRESETS["all_contracts"])


def _deal(opts: dreier.DreierOptions, hands: list[str], talon: str) -> P.DealCore:
    return dreier.start_deal(
        opts,
        0,
        hands=[[index_of(c) for c in h.split()] for h in hands],
        talon=[index_of(c) for c in talon.split()],
    )


def _run(state: P.DealCore, *acts: tuple[int, Action]) -> P.DealCore:
    for seat, action in acts:
        state, _ = P.apply(state, seat, action)
    return state


def _bids(state: P.DealCore) -> set[tuple[str | None, bool]]:
    return {(a.contract, a.without_talon) for a in P.legal_actions(state) if isinstance(a, Bid)}


def _hearts_named() -> P.DealCore:
    return _run(_deal(ALL_CONTRACTS, HANDS, TALON), (FH, ChooseTrump(suit=Suit.HEARTS)))


def test_forehand_priority_does_not_lift_a_lower_row_over_an_equal_value() -> None:
    """Bauernloch, Bauernschnapser and Kontraschnapser are all worth 12 and rank in that
    order: after middlehand's Kontraschnapser, forehand may no longer bid either of his
    own 12-point contracts, not even without the talon."""
    state = _run(_hearts_named(), (FH, Bid("bauernschnapser")))
    assert {("kontraschnapser", False), ("kontraschnapser", True)} <= _bids(state)
    state = _run(state, (MH, Bid("kontraschnapser")), (DL, Pass()))
    bids = _bids(state)
    for low in ("bauernloch", "bauernschnapser"):
        assert (low, False) not in bids and (low, True) not in bids
    assert ("herrenschnapser", False) in bids


def test_herrenschnapser_ranks_above_the_kontrabauernschnapser() -> None:
    """Both are worth 24; the Herrenschnapser is the higher row, so forehand may bid it
    over middlehand's Kontrabauernschnapser, and middlehand may then only pass."""
    state = _run(
        _hearts_named(),
        (FH, Bid("normal")),
        (MH, Bid("kontrabauernschnapser", without_talon=True)),
        (DL, Pass()),
    )
    assert ("herrenschnapser", False) in _bids(state)
    state = _run(state, (FH, Bid("herrenschnapser")))
    assert P.legal_actions(state) == (Pass(),)


def test_rows_open_to_forehand_only_or_not_to_him() -> None:
    """Who may bid (RULES.md §3 table): normal, Schnapser, Bauernloch, Bauernschnapser and
    Herrenschnapser are forehand's; Kontraschnapser and Kontrabauernschnapser are the
    others' -- each seat sees only its own rows among its legal bids."""
    forehand_rows = {"normal", "schnapser", "bauernloch", "bauernschnapser", "herrenschnapser"}
    others_rows = {"kontraschnapser", "kontrabauernschnapser"}
    state = _hearts_named()
    opening = {c for c, _ in _bids(state)}
    assert forehand_rows <= opening and not opening & others_rows
    state = _run(state, (FH, Bid("normal")))
    middle = {c for c, _ in _bids(state)}
    assert others_rows <= middle and not middle & forehand_rows


@pytest.mark.parametrize(("carinthian", "allowed"), [(False, True), (True, False)])
def test_herrenschnapser_raise_with_a_trump_from_the_talon(carinthian: bool, allowed: bool) -> None:
    """Forehand holds four hearts; the talon brings JH.  Naming Herrenschnapser with his
    discard is checked on the 6 cards he keeps -- and, with dreier.carinthian, on the 6
    dealt to him, which lack JH (RULES.md §3 Talon)."""
    hands = ["AC TC KC QC JC KS", "AH TH KH QH AS TS", "AD TD KD QD JD QS"]
    opts = dreier.DreierOptions(carinthian=carinthian)
    state = _run(
        _deal(opts, hands, "JH JS"),
        (FH, ChooseTrump(suit=Suit.HEARTS)),
        (FH, Bid("schnapser")),
        (MH, Pass()),
        (DL, Pass()),
    )
    raise_to = Discard(Card.parse("AS TS"), contract="herrenschnapser")
    assert (raise_to in P.legal_actions(state)) is allowed


def test_caller_first_forehand_who_announced_may_not_raise() -> None:
    """dreier.caller_first with dreier.raise_after_talon off: the right to raise after
    the talon belongs to a forehand who passed and got the normal game; one who
    announced a contract plays it as announced (RULES.md §3, "after taking the talon
    forehand may only raise")."""
    opts = dreier.DreierOptions(caller_first=True, raise_after_talon=False)
    state = _run(
        _deal(opts, HANDS, TALON), (FH, ChooseTrump(suit=Suit.HEARTS)), (FH, Bid("bettler"))
    )
    discards = [a for a in P.legal_actions(state) if isinstance(a, Discard)]
    assert discards and all(a.contract is None for a in discards)
