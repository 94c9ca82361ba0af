"""The strong level's exact search agrees with plain minimax, and plays sound moves."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from engine import zweier
from engine.actions import CloseTalon, ExchangeTrump
from engine.ai import Budget, player
from engine.ai.search import Solver, playout
from engine.ai.zweier import AI, exact
from engine.ai.zweier_policy import policy

from .ai_helpers import assert_solver_is_minimax


def _exact_position(seed: bytes, rng: random.Random, auto_claim: bool) -> zweier.ZweierDeal:
    """Random play from a seeded deal until the talon is closed or gone (or the end)."""
    d = zweier.start_deal(zweier.options({"auto_claim": auto_claim}), 0, seed=seed)
    while d.turn >= 0 and not exact(d):
        d.step(rng.choice(d.legal()))
    return d


@given(
    deal_seed=st.binary(min_size=1, max_size=8),
    choice_seed=st.integers(0, 2**32),
    auto_claim=st.booleans(),
)
def test_alpha_beta_equals_minimax(deal_seed: bytes, choice_seed: int, auto_claim: bool) -> None:
    rng = random.Random(choice_seed)
    d = _exact_position(deal_seed, rng, auto_claim)
    while d.turn >= 0 and d.hands[0].bit_count() > 3:
        d.step(rng.choice(d.legal()))  # keep brute force small
    if d.turn < 0:
        return
    me = rng.randrange(2)
    assert_solver_is_minimax(AI, d, me)


def test_playouts_finish_deals() -> None:
    for n in range(50):
        d = zweier.start_deal(zweier.options(), n % 2, seed=n.to_bytes(2, "big"))
        assert playout(d, policy).result() is not None


def test_strong_takes_a_solved_win() -> None:
    """With the talon gone the strong level plays perfectly: it never picks a move
    whose exact value is below the position's."""
    rng = random.Random(5)
    ai = player("strong")
    checked = 0
    for n in range(60):
        d = _exact_position(n.to_bytes(2, "big"), rng, True)
        if d.turn < 0 or d.upcard >= 0 or len(d.legal()) < 2:
            continue
        me = d.turn
        best = Solver(AI, me).value(d.copy())
        view = d.view(me)
        action = ai.choose(view, random.Random(1), Budget(playouts=8, worlds=2))
        idx = view.legal.index(action)
        child = d.copy()
        child.step(d.legal()[idx])
        assert Solver(AI, me).value(child) == best
        checked += 1
    assert checked > 10


def test_strong_exchanges_the_trump_jack_whenever_it_may() -> None:
    """A club player always swaps the trump Jack for the face-up trump (and before he
    closes): the strong level's playouts could not see it pays, so it is not searched.
    Every position of random play where the exchange is legal, closing included."""
    rng = random.Random(3)
    ai = player("strong")
    checked = closable = 0
    for n in range(200):
        d = zweier.start_deal(zweier.options(), n % 2, seed=n.to_bytes(2, "big"))
        while d.turn >= 0 and d.upcard >= 0:
            view = d.view(d.turn)
            if any(isinstance(a, ExchangeTrump) for a in view.legal):
                action = ai.choose(view, random.Random(n), Budget(playouts=8, worlds=2))
                assert isinstance(action, ExchangeTrump), (view, action)
                checked += 1
                closable += any(isinstance(a, CloseTalon) for a in view.legal)
            d.step(rng.choice(d.legal()))
    assert checked > 20 and closable > 5, (checked, closable)
