"""`DealCore.copy`, which the AI calls for every playout: a copy stepped to the end of the
deal must leave the original exactly as it was, in every game and at every point of a
deal, or a search would play its sampled futures into the real game."""

from __future__ import annotations

import random

import pytest

from engine.games import available, game
from engine.protocol import DealCore


def _seen(state: DealCore) -> tuple[object, ...]:
    """Everything the original shows: each seat's view, the public one, what is legal."""
    seats = range(len(state.dealt) - 1)
    return (state.turn, tuple(state.legal()), state.view(None), *(state.view(s) for s in seats))


@pytest.mark.parametrize("game_id", available())
def test_a_copy_played_out_leaves_the_original_as_it_was(game_id: str) -> None:
    spec = game(game_id)
    opts = spec.parse_options({})
    rng = random.Random(7)
    for n in range(12):
        state = spec.start_deal(opts, n % spec.players, seed=rng.randbytes(16))
        while state.turn >= 0:
            before = _seen(state)
            twin = state.copy()
            assert type(twin) is type(state)
            assert _seen(twin) == before
            while twin.turn >= 0:
                twin.step(rng.choice(twin.legal()))
            assert twin.result() is not None
            assert _seen(state) == before
            state.step(rng.choice(state.legal()))


def test_a_core_must_name_real_slots_as_its_own_lists() -> None:
    with pytest.raises(TypeError, match="own_lists names no slot: handz"):

        class Misspelt(DealCore, own_lists=("handz",)):
            __slots__ = ("hands",)
