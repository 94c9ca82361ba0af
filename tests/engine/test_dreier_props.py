"""Random legal Dreierschnapsen deals keep every invariant (see props.py), with random
rule options: cards conserved, no hidden card in any view (the blind trump card is
public once turned, the talon is seen by the declarer only, a Plauderer hand reaches
the defenders as a `HandShown` event), 120 card points in a played-out deal with the
2 discarded cards counting for nobody, and the record replays to the same result."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import dreier
from engine import protocol as P
from engine.actions import Action, Bid, Claim, Discard, Pass
from engine.cards import DECK20_MASK
from engine.dreier.deal import DreierDeal

from .props import _check_locations, _check_points, check_random_deal, every_option

OPTIONS = every_option(dreier.DreierOptions)


@given(
    options=OPTIONS,
    dealer=st.integers(0, 2),
    deal_seed=st.binary(min_size=1, max_size=16),
    choice_seed=st.integers(0, 2**32),
)
def test_random_dreier_deals(
    options: dreier.DreierOptions, dealer: int, deal_seed: bytes, choice_seed: int
) -> None:
    check_random_deal(dreier.GAME, options, dealer, deal_seed, choice_seed)


def _played_out(state: DreierDeal) -> bool:
    loc = state.locations()
    return not any(loc[k] for k in ("hand0", "hand1", "hand2", "talon", "trick"))


def _normal_game_policy(legal: tuple[Action, ...], rng: random.Random) -> Action:
    """Steer random play into the normal game: bid it, pass, discard plainly, no Spritzen."""
    for a in legal:
        if isinstance(a, Bid) and a.contract == "normal" and not a.without_talon:
            return a
    if any(isinstance(a, Pass) for a in legal):
        return Pass()
    plain = [a for a in legal if not (isinstance(a, Discard) and a.contract is not None)]
    return rng.choice(plain)


@pytest.mark.parametrize("auto_claim", [True, False])
def test_played_out_normal_games_count_120(auto_claim: bool) -> None:
    """In a normal game played to the last card, tricks plus the 2 discards make 120, and
    the side points (marriages aside) are the tricks' points (props.py's check)."""
    opts = dreier.DreierOptions(auto_claim=auto_claim)
    played_out = 0
    for n in range(300):
        rng = random.Random(n)
        state: P.DealCore = dreier.start_deal(opts, n % 3, seed=n.to_bytes(4, "big"))
        deck = DECK20_MASK
        while P.to_act(state) is not None:
            seat = P.to_act(state)
            assert seat is not None
            legal = P.legal_actions(state)
            if not auto_claim:
                legal = tuple(a for a in legal if not isinstance(a, Claim)) or legal
            state, _ = P.apply(state, seat, _normal_game_policy(legal, rng))
            _check_locations(state, deck)
        assert isinstance(state, DreierDeal)
        res = P.result(state)
        assert res is not None and res.contract == "normal"
        if _played_out(state):
            played_out += 1
            assert state.discarded and state.discard.bit_count() == 2
            _check_points(state)
            assert res.reason == "last_trick" and sum(res.points) in (1, 2)
    assert played_out > 10


def test_random_deals_reach_every_contract() -> None:
    """With all contracts on, random play reaches each optional contract and most of the
    others, so the property test's random options do exercise them."""
    raw: dict[str, object] = {f"dreier.{c.option}": True for c in dreier.CONTRACTS if c.option}
    with_raise = dreier.options(raw)
    no_raise = dreier.options({**raw, "dreier.raise_after_talon": False})
    seen: set[str | None] = set()
    for n in range(600):
        opts = with_raise if n % 2 else no_raise
        state = check_random_deal(dreier.GAME, opts, n % 3, n.to_bytes(4, "big"), n)
        res = state.result()
        assert res is not None
        seen.add(res.contract)
    optional = {c.id for c in dreier.CONTRACTS if c.option}
    assert optional <= seen
    assert len(seen) >= 10
