"""The AI players: legal, reproducible, and blind to what their seat cannot see."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import zweier
from engine.actions import CLAIM, Claim, ExchangeTrump, PlayCard, encode, is_marriage_claim
from engine.ai import Budget, UnknownLevel, UnsupportedGame, player
from engine.ai.strong import StrongPlayer
from engine.ai.zweier_worlds import worlds
from engine.views import SeatView

from .ai_helpers import LEVELS, play_out_mixed, sampled_worlds

#: Small budgets keep the suite fast; the logic is the same at any size.
TINY = Budget(playouts=8, worlds=2)


def _deal(seed: bytes, dealer: int, auto_claim: bool = True) -> zweier.ZweierDeal:
    return zweier.start_deal(zweier.options({"auto_claim": auto_claim}), dealer, seed=seed)


def _advance(state: zweier.ZweierDeal, rng: random.Random, steps: int) -> zweier.ZweierDeal:
    """Random legal play for up to `steps` actions (stops before the deal ends)."""
    for _ in range(steps):
        nxt = state.copy()
        nxt.step(rng.choice(nxt.legal()))
        if nxt.turn < 0:
            break
        state = nxt
    return state


def _alternatives(state: zweier.ZweierDeal, rng: random.Random, n: int) -> list[zweier.ZweierDeal]:
    """Deals that differ from `state` only in what the seat to act cannot see.

    Two independent sources: the talon re-ordered and opponent cards swapped with
    talon cards on the real deal (kept only if the seat's view is unchanged), and
    worlds dealt by the AI's own determinizer.
    """
    seat = state.turn
    view = state.view(seat)
    out: list[zweier.ZweierDeal] = []
    opp = 1 - seat
    for _ in range(n):
        alt = state.copy()
        rest = list(alt.stock[alt.tpos :])
        rng.shuffle(rest)
        hidden = [c for c in range(24) if alt.hands[opp] >> c & 1 and not alt.shown[opp] >> c & 1]
        if rest and hidden:
            a, b = rng.choice(hidden), rng.randrange(len(rest))
            alt.hands[opp] ^= (1 << a) | (1 << rest[b])
            rest[b] = a
        alt.stock = alt.stock[: alt.tpos] + tuple(rest)
        if alt.view(seat) == view:
            out.append(alt)
    return out + sampled_worlds(worlds, view, seat, n, rng)


@given(
    deal_seed=st.binary(min_size=1, max_size=8),
    choice_seed=st.integers(0, 2**32),
    auto_claim=st.booleans(),
)
def test_every_level_plays_only_legal_actions(
    deal_seed: bytes, choice_seed: int, auto_claim: bool
) -> None:
    """A whole deal with the seat to act's level drawn at random each time."""
    rng = random.Random(choice_seed)
    play_out_mixed(_deal(deal_seed, choice_seed % 2, auto_claim), "zweier", rng, TINY)


@given(
    deal_seed=st.binary(min_size=1, max_size=8),
    choice_seed=st.integers(0, 2**32),
    steps=st.integers(0, 18),
    auto_claim=st.booleans(),
)
def test_no_peeking(deal_seed: bytes, choice_seed: int, steps: int, auto_claim: bool) -> None:
    """The choice depends on the view only: other hidden cards, same action."""
    rng = random.Random(choice_seed)
    state = _advance(_deal(deal_seed, choice_seed % 2, auto_claim), rng, steps)
    seat = state.turn
    for level in ("heuristic", "strong"):
        ai = player(level)
        expected = ai.choose(state.view(seat), random.Random(7), TINY)
        for alt in _alternatives(state, rng, 2):
            assert ai.choose(alt.view(seat), random.Random(7), TINY) == expected


@given(
    deal_seed=st.binary(min_size=1, max_size=8),
    choice_seed=st.integers(0, 2**32),
    steps=st.integers(0, 18),
)
def test_sampled_worlds_agree_with_the_view_and_the_truth(
    deal_seed: bytes, choice_seed: int, steps: int
) -> None:
    """Worlds reproduce the view exactly, and the inferences never exclude the truth."""
    rng = random.Random(choice_seed)
    state = _advance(_deal(deal_seed, choice_seed % 2), rng, steps)
    seat = state.turn
    view = state.view(seat)
    sampler = worlds(view)
    assert not state.hands[1 - seat] & sampler.barred
    for _ in range(4):
        world = sampler.sample(rng)
        assert world.view(seat) == view
        assert world.legal() == state.legal()
    if sampler.certain:
        assert sampler.sample(rng).hands == state.hands


def test_choices_repeat_for_a_seed() -> None:
    ai = player("strong")
    rng = random.Random(3)
    for n in range(12):
        state = _advance(_deal(n.to_bytes(2, "big"), n % 2), rng, n)
        view = state.view(state.turn)
        first = [ai.choose(view, random.Random(s), Budget(playouts=40, worlds=4)) for s in (1, 2)]
        again = [ai.choose(view, random.Random(s), Budget(playouts=40, worlds=4)) for s in (1, 2)]
        assert first == again


def test_registry_names_levels_and_games() -> None:
    assert {player(level).level for level in LEVELS} == set(LEVELS)
    with pytest.raises(UnknownLevel, match=r"unknown AI level 'genius'.*random, heuristic, strong"):
        player("genius")
    with pytest.raises(UnsupportedGame, match="'strong' AI does not play 'skat'"):
        player("strong", "skat")
    view = SeatView(game="skat", seat=0, players=3, dealer=2, phase="play", to_act=0)
    for level in ("heuristic", "strong"):
        with pytest.raises(UnsupportedGame):
            player(level).choose(view, random.Random(1))
    assert player("random", "skat").supports("skat")
    assert player("strong", "zweier").supports("zweier")


def test_budget_refuses_nonsense() -> None:
    with pytest.raises(ValueError):
        Budget(playouts=0)


def test_heuristic_exchanges_the_trump_jack() -> None:
    for n in range(200):
        state = _deal(n.to_bytes(2, "big"), 0)
        view = state.view(state.turn)
        if ExchangeTrump() in view.legal:
            assert player("heuristic").choose(view, random.Random(1)) == ExchangeTrump()
            return
    raise AssertionError("no deal with an exchange found")


def _claim_positions(wanted: Callable[[zweier.ZweierDeal], bool]) -> Iterator[zweier.ZweierDeal]:
    """Positions of random manual-claims deals where `wanted` holds (one a deal):
    the deals are played on at random, never claiming, until one comes up."""
    for n in range(2000):
        rng = random.Random(n)
        state = _deal(n.to_bytes(2, "big"), n % 2, auto_claim=False)
        while state.turn >= 0:
            if wanted(state):
                yield state
                break
            codes = [c for c in state.legal() if c != CLAIM and not is_marriage_claim(c)]
            state.step(rng.choice(codes))


def _reaches_66_with_a_marriage(state: zweier.ZweierDeal) -> bool:
    me = state.turn
    mine = state.points[me] + (state.mpoints[me] if state.tricks[me] else 0)
    return (
        bool(state.tricks[me])
        and mine < 66
        and any(
            isinstance(a, PlayCard)
            and a.claim
            and mine + (40 if a.card.suit == state.trump else 20) >= 66
            for a in state.view(me).legal
        )
    )


def test_claims_with_a_marriage_that_reaches_66() -> None:
    """With auto_claim off, a player on lead whose marriage takes him to 66 declares it
    and claims at once ("forty, and out") instead of playing the trick on (RULES.md §1)."""
    for found, state in enumerate(_claim_positions(_reaches_66_with_a_marriage), 1):
        me = state.turn
        view = state.view(me)
        for level in ("heuristic", "strong"):
            choice = player(level).choose(view, random.Random(1), TINY)
            assert isinstance(choice, PlayCard) and choice.claim and choice.marriage
            nxt = state.copy()
            nxt.step(encode(choice))
            res = nxt.result()
            assert res is not None and res.winners == (me,)
        if found >= 5:
            return
    raise AssertionError("too few positions with a marriage that claims")


def test_claims_66_when_auto_claim_is_off() -> None:
    """Heuristic and strong claim as soon as they are on lead with 66 (RULES.md §1)."""

    def has_66(state: zweier.ZweierDeal) -> bool:
        view = state.view(state.turn)
        return Claim() in view.legal and view.points[state.turn] >= 66

    for found, state in enumerate(_claim_positions(has_66), 1):
        view = state.view(state.turn)
        for level in ("heuristic", "strong"):
            assert player(level).choose(view, random.Random(1), TINY) == Claim()
        if found >= 5:
            return
    raise AssertionError("no position with a claim found")


def test_a_card_that_wins_the_deal_is_played() -> None:
    """Heuristic and strong finish a deal they can win on the spot: a card that
    takes the trick to 66 is played rather than one that does not."""
    checked = 0
    for n in range(2000):
        rng = random.Random(n)
        state = _deal(n.to_bytes(2, "big"), n % 2)
        while state.turn >= 0:
            seat = state.turn
            view = state.view(seat)
            if state.lead_card >= 0:
                wins_now = []
                for code in state.legal():
                    child = state.copy()
                    child.step(code)
                    res = child.result()
                    if res is not None and res.winners == (seat,):
                        wins_now.append(code)
                if wins_now and len(wins_now) < len(state.legal()):
                    for level in ("heuristic", "strong"):
                        action = player(level).choose(view, random.Random(1), TINY)
                        assert encode(action) in wins_now, (level, action)
                    checked += 1
            state.step(rng.choice(state.legal()))
        if checked >= 8:
            return
    raise AssertionError("too few positions with a winning card found")


def test_the_wall_clock_stop_holds() -> None:
    """A budget too big for the time allowed is cut at `Budget.seconds`."""
    state = _deal(b"\x05", 0)
    view = state.view(state.turn)
    huge = Budget(playouts=10**7, worlds=10**5, seconds=0.05)
    start = time.perf_counter()
    action = player("strong").choose(view, random.Random(1), huge)
    assert time.perf_counter() - start < 0.5
    assert action in view.legal


class _Counting(StrongPlayer):
    """The strong level, counting the playouts it runs."""

    def __init__(self, stop: bool) -> None:
        super().__init__()
        self.stop_when_decided = stop
        self.playouts = 0

    def _playout(self, ai: Any, world: Any, code: int, me: int, deadline: float) -> int:
        self.playouts += 1
        return super()._playout(ai, world, code, me, deadline)


@pytest.mark.usefixtures("no_deadline")
def test_a_decided_search_stops_early_and_chooses_the_same() -> None:
    """Once pruning leaves one candidate the search stops: fewer playouts, the same
    action as spending the whole budget on it."""
    budget = Budget(playouts=1600, worlds=8)
    early_stops = 0
    for n in range(16):
        state = _advance(_deal(n.to_bytes(2, "big"), n % 2), random.Random(n), 2 + n % 5)
        view = state.view(state.turn)
        if len(view.legal) < 2:
            continue
        quick, full = _Counting(stop=True), _Counting(stop=False)
        a = quick.choose(view, random.Random(1), budget)
        b = full.choose(view, random.Random(1), budget)
        assert a == b
        assert quick.playouts <= full.playouts
        early_stops += quick.playouts < full.playouts
    assert early_stops >= 3


def test_a_spread_floor_keeps_candidates_a_few_worlds_cannot_separate() -> None:
    """Eight worlds in which the leader (say a high raise) always did best: a close
    candidate trails by the same amount in each, so its measured spread is zero.
    Without a floor that looks certain and prunes it; with one (`GameAI.prune_floor`)
    it stays for more worlds to decide, while a candidate far behind still goes."""
    p = StrongPlayer()
    lead, close, far = [34] * 8, [30] * 8, [-34] * 8
    values: list[list[int] | None] = [lead, close, far]
    assert p._prune(values, [0, 1, 2]) == [0]
    assert p._prune(values, [0, 1, 2], floor=8.0) == [0, 1]
