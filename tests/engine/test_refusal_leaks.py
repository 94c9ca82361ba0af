"""A refusal tells a seat nothing its view does not show.

A forged or stale press (a modified client, an old button) reaches the rules with any
action code, and the refusal's words go back to the presser.  If they depended on a
card the seat cannot see, one forged press would peek at it: in Thousand with blind
bidding the refusal of a redeal said whether a seat that had not looked held four 9s.

So for random positions of every game, the seat to act is refused every action code it
could send in exactly the same words in the real deal and in other deals that look the
same to it (the AI's sampled worlds: the hidden cards, and an unlooked hand, dealt anew).
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from hypothesis import example, given
from hypothesis import strategies as st

from engine import actions as A
from engine import protocol as P
from engine.ai.plugins import game_ai
from engine.errors import IllegalAction
from engine.games import game

#: The rule options tried per game: the default, the presets and the variants that
#: change what is hidden (blind bidding, two and four players, the golden round).
VARIANTS: dict[str, list[dict[str, object]]] = {
    name: [{}, *(dict(p) for p in game(name).presets.values())]
    for name in ("zweier", "dreier", "bauern", "tausend")
}
VARIANTS["tausend"] += [
    {"tausend.blind_bid": True},
    {"tausend.blind_bid": True, "tausend.players": 2},
    {"tausend.blind_bid": True, "tausend.players": 4},
    {"tausend.golden_round": True},
]


def _codes(state: P.DealCore) -> Iterator[int]:
    """Action codes a client could send: every card (with a marriage, a claim), the
    simple actions, bids, raises, gifts and some discards."""
    cards = range(24)
    yield from cards
    yield from (c | A.MARRIAGE_FLAG for c in cards)
    yield from (A.MARRIAGE_CLAIM + (c | A.MARRIAGE_FLAG) for c in cards)
    yield from (A.EXCHANGE, A.CLOSE, A.CLAIM, A.PASS, A.DOUBLE, A.REDEAL, A.LOOK)
    yield from (A.TRUMP_SUIT + s for s in range(4))
    yield from (A.TRUMP_BLIND + i for i in range(8))
    yield from (A.BID_CONTRACT + i for i in range(2 * len(state.contracts) + 2))
    yield from (A.BID_VALUE + v // 5 for v in range(100, 305, 5))
    yield from (A.RAISE + v // 5 for v in range(100, 305, 5))
    yield from (A.GIVE + c + 32 * s for c in cards for s in range(4))
    yield from (A.DISCARD + lo + 32 * hi for lo, hi in ((0, 1), (2, 9), (5, 17), (12, 23)))


def _refusals(state: P.DealCore, seat: int) -> dict[int, tuple[str, str]]:
    said: dict[int, tuple[str, str]] = {}
    for code in _codes(state):
        try:
            action = A.decode(code, state.contracts)
        except (ValueError, IndexError):
            continue
        try:
            P.apply(state, seat, action)
        except IllegalAction as e:
            said[code] = (e.code, e.message)
    return said


@given(
    name=st.sampled_from(sorted(VARIANTS)),
    variant=st.integers(0, 20),
    deal_seed=st.binary(min_size=1, max_size=8),
    choice_seed=st.integers(0, 2**32),
    steps=st.integers(0, 40),
)
@example(  # forehand holds the four 9s, bidding blind: the refusal of a redeal told him
    name="tausend",
    variant=VARIANTS["tausend"].index({"tausend.blind_bid": True}),
    deal_seed=b"\x00\x001",
    choice_seed=5,
    steps=0,
)
def test_a_refusal_says_nothing_the_seat_does_not_see(
    name: str, variant: int, deal_seed: bytes, choice_seed: int, steps: int
) -> None:
    spec = game(name)
    options = spec.parse_options(VARIANTS[name][variant % len(VARIANTS[name])])
    rng = random.Random(choice_seed)
    players = getattr(options, "players", spec.players)  # Thousand: 2, 3 or 4
    state = spec.start_deal(options, rng.randrange(players), seed=deal_seed)
    for _ in range(steps):
        seat = P.to_act(state)
        if seat is None:
            break
        state, _ = P.apply(state, seat, rng.choice(P.legal_actions(state)))
    seat = P.to_act(state)
    if seat is None:
        return
    view = P.view(state, seat)
    expected = _refusals(state, seat)
    sampler = game_ai(name).worlds(view)
    for _ in range(3):
        world = sampler.sample(rng)
        assert P.view(world, seat) == view
        said = _refusals(world, seat)
        differ = {c: (expected.get(c), said.get(c)) for c in expected.keys() | said.keys()}
        differ = {c: pair for c, pair in differ.items() if pair[0] != pair[1]}
        assert not differ, differ
