"""Random legal Zweierschnapsen deals keep every invariant (see props.py)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from engine import zweier
from engine.protocol import DealCore

from .props import check_random_deal, every_option

OPTIONS = every_option(zweier.ZweierOptions)


def _upcard(state: DealCore) -> tuple[int, ...]:
    return (state.dealt[-1][-1],)  # the face-up trump is public from the start


@given(
    options=OPTIONS,
    dealer=st.integers(0, 1),
    deal_seed=st.binary(min_size=1, max_size=16),
    choice_seed=st.integers(0, 2**32),
)
def test_random_zweier_deals(
    options: zweier.ZweierOptions, dealer: int, deal_seed: bytes, choice_seed: int
) -> None:
    check_random_deal(zweier.GAME, options, dealer, deal_seed, choice_seed, _upcard)


def test_played_out_deals_count_120() -> None:
    """Deals that run to the last card are common enough that the 120 check bites."""
    played_out = 0
    for n in range(300):
        state = check_random_deal(
            zweier.GAME, zweier.ZweierOptions(), n % 2, n.to_bytes(4, "big"), n, _upcard
        )
        if not any(state.locations()[k] for k in ("hand0", "hand1", "trick")):
            played_out += 1
    assert played_out > 10
