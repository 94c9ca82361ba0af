"""Random legal Thousand deals keep every invariant (see props.py), for 2, 3 and 4 players.

The 24 cards stay where they belong, views show no card a seat may not know (hands,
the stock until it is shown, the cards given and laid away), a refused action
changes nothing, played-out deals count 120 card points (with two players the
face-down stock goes to the last trick's winner) and every deal replays from its
record to the same result.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from engine import tausend
from engine.protocol import DealCore, GameSpec
from engine.tausend import TausendOptions

from .props import check_random_deal, every_option

OPTIONS = every_option(TausendOptions)


def _first_deal(opts: TausendOptions, dealer: int, **kw: Any) -> DealCore:
    """A match's first deal: golden when the table plays the golden round."""
    return tausend.start_deal(opts, dealer, golden=opts.golden_round, **kw)


#: The spec as a match's first deal sees it (the record replay starts a match too).
FIRST_DEAL = dataclasses.replace(tausend.GAME, start_deal=_first_deal)


def _shown_at_start(state: DealCore) -> tuple[int, ...]:
    """A golden deal with no redeal claim starts with the stock shown (RULES.md §5)."""
    return tuple(c.index for c in state.view(None).talon_cards)


def _played_out(state: DealCore) -> bool:
    loc = state.locations()
    return not any(m for k, m in loc.items() if not k.startswith(("won", "discard")))


@given(
    options=OPTIONS,
    dealer=st.integers(0, 3),
    deal_seed=st.binary(min_size=1, max_size=16),
    choice_seed=st.integers(0, 2**32),
)
def test_random_tausend_deals(
    options: TausendOptions, dealer: int, deal_seed: bytes, choice_seed: int
) -> None:
    check_random_deal(
        FIRST_DEAL, options, dealer % options.players, deal_seed, choice_seed, _shown_at_start
    )


def test_played_out_deals_count_120_for_every_table_size() -> None:
    """Enough random deals run to the last card that the 120 check bites for 2, 3, 4."""
    for players in (2, 3, 4):
        opts = TausendOptions(players=players)
        played_out = 0
        for n in range(60):
            state = check_random_deal(tausend.GAME, opts, n % players, n.to_bytes(4, "big"), n)
            played_out += _played_out(state)
        assert played_out > 30, players


def test_blind_and_golden_deals_play_out() -> None:
    for n in range(40):
        opts = TausendOptions(players=2 + n % 3, blind_bid=True, golden_round=bool(n % 2))
        check_random_deal(
            FIRST_DEAL, opts, n % opts.players, n.to_bytes(4, "big"), n, _shown_at_start
        )


def _spec_players(spec: GameSpec, opts: TausendOptions) -> int:
    return len(spec.start_deal(opts, 0, seed=b"x").dealt) - 1


def test_the_option_sets_the_number_of_seats() -> None:
    for players in (2, 3, 4):
        opts = tausend.GAME.parse_options({"tausend.players": players})
        assert _spec_players(tausend.GAME, opts) == players
        assert tausend.GAME.new_match(opts, 0).players == players
