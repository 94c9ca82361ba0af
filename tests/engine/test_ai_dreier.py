"""The Dreierschnapsen AI: legal in every phase, reproducible, blind to what its seat
cannot see, exact where it solves, and sensible where the rules leave no doubt."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import dreier, games
from engine import protocol as P
from engine.actions import (
    BID_CONTRACT,
    PASS,
    Bid,
    ChooseTrump,
    Claim,
    Discard,
    PlayCard,
    Redeal,
    encode,
)
from engine.ai import Budget, player
from engine.ai.dreier import AI, calibrated, estimate, exact, value
from engine.ai.dreier_hand import danger, sure_tricks
from engine.ai.dreier_policy import policy
from engine.ai.dreier_worlds import TALON, worlds
from engine.cards import DECK20_MASK, Card, Suit, cards_of
from engine.dreier.contracts import CONTRACT_IDS, ROW
from engine.dreier.deal import DreierDeal
from engine.dreier.rules import BIDDING, DISCARD, PLAY, TRUMP
from engine.tricks import Order

from .ai_helpers import LEVELS, assert_solver_is_minimax, play_out_mixed, sampled_worlds, scaled
from .props import every_option

#: Small budgets keep the suite fast; the logic is the same at any size.
TINY = Budget(playouts=8, worlds=2)

OPTIONS = every_option(dreier.DreierOptions)


def _deal(seed: bytes, dealer: int, opts: dreier.DreierOptions | None = None) -> DreierDeal:
    return dreier.start_deal(opts or dreier.options(), dealer, seed=seed)


def _cards(text: str) -> list[int]:
    return [c.index for c in Card.parse(text)]


def _advance(state: DreierDeal, rng: random.Random, steps: int, heuristic: bool) -> DreierDeal:
    """Up to `steps` actions, random or heuristic (stops before the deal ends)."""
    for _ in range(steps):
        nxt = state.copy()
        nxt.step(policy(nxt) if heuristic else rng.choice(nxt.legal()))
        if nxt.turn < 0:
            break
        state = nxt
    return state


def _hidden_places(state: DreierDeal, seat: int) -> list[tuple[str, int]]:
    """(place, card) for every card `seat` cannot see: other hands' unknown cards, the
    talon, and the discard pile unless it is his own."""
    out = []
    for s in range(3):
        if s == seat:
            continue
        shown = state.shown[s]
        if state.hand_shown and s == state.decl:
            shown = state.hands[s]
        out += [(f"hand{s}", c) for c in cards_of(state.hands[s] & ~shown)]
    out += [("talon", c) for c in cards_of(state.talon)]
    if not (seat == state.decl and state.discarded):
        out += [("discard", c) for c in cards_of(state.discard)]
    return out


def _swap(state: DreierDeal, a: tuple[str, int], b: tuple[str, int]) -> DreierDeal:
    alt = state.copy()
    for (place, card), other in ((a, b[1]), (b, a[1])):
        bit = (1 << card) | (1 << other)
        if place.startswith("hand"):
            alt.hands[int(place[4])] ^= bit
        elif place == "talon":
            alt.talon ^= bit
        else:
            alt.discard ^= bit
    return alt


def _alternatives(state: DreierDeal, rng: random.Random, n: int) -> list[DreierDeal]:
    """Deals that differ from `state` only in what the seat to act cannot see.

    Two independent sources: hidden cards swapped between the other hands, the talon
    and the pile of the real deal (while trumps are named: the other 17 cards dealt
    anew), kept only if the seat's view is unchanged; and worlds dealt by the AI's
    own sampler.
    """
    seat = state.turn
    view = state.view(seat)
    out: list[DreierDeal] = []
    for _ in range(n):
        if state.phase == TRUMP:
            first = list(state.first_packet(seat))
            rest = [c for c in range(24) if DECK20_MASK >> c & 1 and c not in first]
            rng.shuffle(rest)
            hands: list[list[int]] = [[], [], []]
            hands[seat] = first + rest[:3]
            pos = 3
            for s in range(3):
                if s != seat:
                    hands[s] = rest[pos : pos + 6]
                    pos += 6
            alt = DreierDeal.start(state.opts, state.dealer, hands, rest[pos:])
        else:
            places = _hidden_places(state, seat)
            if len(places) < 2:
                continue
            a, b = rng.sample(places, 2)
            if a[0] == b[0]:
                continue
            alt = _swap(state, a, b)
        if alt.view(seat) == view:
            out.append(alt)
    return out + sampled_worlds(worlds, view, seat, n, rng)


@settings(max_examples=scaled(30), deadline=None)
@given(
    options=OPTIONS,
    deal_seed=st.binary(min_size=1, max_size=8),
    choice_seed=st.integers(0, 2**32),
)
def test_every_level_plays_only_legal_actions(
    options: dreier.DreierOptions, deal_seed: bytes, choice_seed: int
) -> None:
    """Whole deals under random rule options, the level of the seat to act drawn at
    random each time: every phase (trump, bidding, discard, Spritzen, play)."""
    rng = random.Random(choice_seed)
    play_out_mixed(_deal(deal_seed, choice_seed % 3, options), "dreier", rng, TINY)


@settings(max_examples=scaled(40), deadline=None)
@given(
    options=OPTIONS,
    deal_seed=st.binary(min_size=1, max_size=8),
    choice_seed=st.integers(0, 2**32),
    steps=st.integers(0, 30),
    heuristic=st.booleans(),
)
def test_no_peeking(
    options: dreier.DreierOptions, deal_seed: bytes, choice_seed: int, steps: int, heuristic: bool
) -> None:
    """Other seats' hidden cards and the talon change, the view stays: same choice.

    The policy itself is asked on the real deal and on each alternative (it must read
    only what the seat knows), and the players on the alternative's view with the
    same random seed.
    """
    rng = random.Random(choice_seed)
    state = _advance(_deal(deal_seed, choice_seed % 3, options), rng, steps, heuristic)
    seat = state.turn
    view = state.view(seat)
    expected_policy = policy(state)
    levels = {level: player(level) for level in ("heuristic", "strong")}
    expected = {name: p.choose(view, random.Random(7), TINY) for name, p in levels.items()}
    for alt in _alternatives(state, rng, 3):
        assert policy(alt) == expected_policy
        for name, p in levels.items():
            assert p.choose(alt.view(seat), random.Random(7), TINY) == expected[name]


@settings(max_examples=scaled(60), deadline=None)
@given(
    options=OPTIONS,
    deal_seed=st.binary(min_size=1, max_size=8),
    choice_seed=st.integers(0, 2**32),
    steps=st.integers(1, 30),
    heuristic=st.booleans(),
)
def test_sampled_worlds_agree_with_the_view_and_the_truth(
    options: dreier.DreierOptions, deal_seed: bytes, choice_seed: int, steps: int, heuristic: bool
) -> None:
    """Worlds reproduce the view and the legal actions exactly, and the inferences
    (Stichzwang voids, cards that could not head a trick) never exclude the truth."""
    rng = random.Random(choice_seed)
    state = _advance(_deal(deal_seed, choice_seed % 3, options), rng, steps, heuristic)
    seat = state.turn
    view = state.view(seat)
    sampler = worlds(view)
    for s in range(3):
        assert not state.hands[s] & sampler.barred[s]
    for _ in range(3):
        world = sampler.sample(rng)
        assert world.view(seat) == view
        assert world.legal() == state.legal()
        if state.phase != TRUMP:
            assert world.hands[seat] == state.hands[seat]
            assert [h.bit_count() for h in world.hands] == [h.bit_count() for h in state.hands]
    if sampler.certain:
        world = sampler.sample(rng)
        assert world.hands == state.hands


def test_choices_repeat_for_a_seed() -> None:
    ai = player("strong")
    rng = random.Random(3)
    budget = Budget(playouts=40, worlds=4)
    for n in range(8):
        state = _advance(_deal(n.to_bytes(2, "big"), n % 3), rng, 3 * n, heuristic=True)
        view = state.view(state.turn)
        first = [ai.choose(view, random.Random(s), budget) for s in (1, 2)]
        again = [ai.choose(view, random.Random(s), budget) for s in (1, 2)]
        assert first == again


def test_registry_plays_dreier() -> None:
    for level in LEVELS:
        assert player(level, "dreier").supports("dreier")


@settings(max_examples=scaled(30), deadline=None)
@given(
    deal_seed=st.binary(min_size=1, max_size=8),
    choice_seed=st.integers(0, 2**32),
    auto_claim=st.booleans(),
)
def test_alpha_beta_equals_minimax(deal_seed: bytes, choice_seed: int, auto_claim: bool) -> None:
    """The exact phase (declarer against the two defenders) solves to plain minimax."""
    rng = random.Random(choice_seed)
    d = _deal(deal_seed, choice_seed % 3, dreier.options({"auto_claim": auto_claim}))
    while d.turn >= 0 and not exact(d):
        d.step(rng.choice(d.legal()))
    while d.turn >= 0 and (d.hands[0] | d.hands[1] | d.hands[2]).bit_count() > 6:
        d.step(rng.choice(d.legal()))  # keep brute force small
    if d.turn < 0:
        return
    me = rng.randrange(3)
    assert_solver_is_minimax(AI, d, me)


def test_values_are_relative_game_points() -> None:
    """A declarer's result counts twice for him, once against each defender: the
    three seats' values add up to zero."""
    for n in range(30):
        d = _deal(n.to_bytes(2, "big"), n % 3)
        while d.turn >= 0:
            d.step(policy(d))
        values = [value(d, s) for s in range(3)]
        assert sum(values) == 0
        res = d.res
        assert res is not None
        if res.declarer is not None:
            pts = res.points
            assert values[res.declarer] == 2 * pts[res.declarer] - sum(pts) + pts[res.declarer]


def test_estimate_matches_the_strong_choice() -> None:
    """The calibration estimate runs the strong level's own search: same choice."""
    ai = player("strong")
    budget = Budget(playouts=60)
    for n in range(6):
        state = _deal(n.to_bytes(2, "big"), n % 3)
        while state.phase != BIDDING:
            state.step(policy(state))
        view = state.view(state.turn)
        chosen = ai.choose(view, random.Random(5), budget)
        rows = estimate(view, random.Random(5), budget)
        assert [r.code for r in rows] == [encode(a, CONTRACT_IDS) for a in view.legal]
        best = max(r.value for r in rows)
        mine = next(r for r in rows if r.code == encode(chosen, CONTRACT_IDS))
        assert mine.value == best
        for r in rows:
            assert 0.0 <= r.declared <= 1.0
            assert r.made is None or 0.0 <= r.made <= 1.0
            if r.code == PASS:
                assert r.chance is None  # no contract of his own
            elif r.made is not None:
                assert r.chance is not None and 0.0 < r.chance < 1.0


def test_calibration_is_monotone_per_family() -> None:
    for fam in ("game", "no_trick", "slam"):
        chances = [calibrated(k / 20, fam) for k in range(21)]
        assert chances == sorted(chances)
        assert chances[0] > 0.0 and chances[-1] < 1.0


# --- the heuristic where the answer is clear --------------------------------------------


def _explicit(hands: list[str], talon: str, dealer: int = 2, **opts: object) -> DreierDeal:
    return DreierDeal.start(
        dreier.options(dict(opts)), dealer, [_cards(h) for h in hands], _cards(talon)
    )


def test_redeals_three_jacks_and_names_a_strong_suit() -> None:
    # dealer 2: forehand is seat 0; his first packet is his first 3 cards
    d = _explicit(["JH JD JC AH TH KH", "AD TD KD QD AC TC", "KC QC AS TS KS QS"], "QH JS")
    assert policy(d) == encode(Redeal())
    d = _explicit(["AH TH KH JD JC QH", "AD TD KD QD AC TC", "KC QC AS TS KS QS"], "JH JS")
    assert policy(d) == encode(ChooseTrump(suit=Suit.HEARTS))
    d = _explicit(["JD QC JS AH TH KH", "AD TD KD QD AC TC", "KC JC AS TS KS QS"], "QH JH")
    assert policy(d) == encode(ChooseTrump(blind=3))


def test_bids_a_sure_herrenschnapser_without_talon() -> None:
    """All five trumps and an Ace: 24 points, and +1 without the talon."""
    d = _explicit(["AH TH KH QH JH AS", "AD TD KD QD AC TC", "KC QC JC TS KS QS"], "JD JS")
    d.step(policy(d))  # hearts
    assert d.phase == BIDDING
    assert policy(d) == encode(Bid("herrenschnapser", without_talon=True), CONTRACT_IDS)


def test_weak_hands_pass_and_forehand_opens() -> None:
    d = _explicit(["AH TH KH QD JC QS", "AD TD KD QH AC TC", "KC QC JH JD KS AS"], "JS TS")
    d.step(policy(d))
    assert policy(d) == BID_CONTRACT + 2 * ROW["normal"]
    d.step(policy(d))
    assert policy(d) == PASS  # middlehand: Aces and Tens, no Bettler, no slam


def test_raises_to_farbenringerl_with_the_talon() -> None:
    """Forehand finds the fifth heart in the talon: all tricks, 18 points."""
    d = _explicit(["AH TH KH AS QS JS", "AD TD KD QD AC TC", "KC QC JC TS KS JD"], "QH JH")
    d.step(encode(ChooseTrump(suit=Suit.SPADES)))
    d.step(BID_CONTRACT + 2 * ROW["normal"])
    d.step(PASS)
    d.step(PASS)
    assert d.phase == DISCARD
    action = d.legal_actions()[0].__class__
    assert action is Discard
    code = policy(d)
    assert code in d.legal()
    raised = (code - 4096) // 1024
    assert raised and CONTRACT_IDS[raised - 1] == "farbenringerl"
    kept = d.hands[0] & ~((1 << (code & 31)) | (1 << ((code >> 5) & 31)))
    assert kept == sum(1 << c for c in _cards("AH TH KH QH JH AS"))


def _to_play(d: DreierDeal, contract: str) -> DreierDeal:
    """Name trumps, have forehand bid `contract`, the others pass, plain discard."""
    d.step(policy(d) if d.phase == TRUMP else d.legal()[0])
    d.step(BID_CONTRACT + 2 * ROW[contract])
    d.step(PASS)
    d.step(PASS)
    if d.phase == DISCARD:
        talon = cards_of(d.taken)
        d.step(4096 + talon[0] + 32 * talon[1])
    while d.phase != PLAY:
        d.step(PASS)
    return d


def test_bettler_declarer_ducks_with_his_highest_safe_card() -> None:
    # forehand (seat 0) plays a Bettler; seat 1 leads... after forehand's lead
    d = _explicit(["JH QD JC KS QS JS", "AH TH AD TD AC TC", "KH QH KD KC QC AS"], "JD TS")
    d = _to_play(d, "bettler")
    assert d.turn == 0
    lead = policy(d)
    assert lead in d.legal()
    d.step(lead)
    # whatever he leads, he never takes a trick he can avoid: play it out
    while d.turn >= 0 and d.tricks[0] == 0:
        d.step(policy(d))
    res = d.res
    assert res is not None
    assert res.contract == "bettler"


def test_defender_smears_a_ten_on_the_partners_sure_trick() -> None:
    """Seat 2 leads the Ace of clubs, the declarer follows: seat 1 (his partner) must
    follow clubs and gives the Ten, not the Queen."""
    d = _explicit(["AD TD KD QD JD JC", "TC QC AH KS QS JS", "AC KC AS TS TH KH"], "QH JH")
    d = _to_play(d, "normal")
    d.leader = d.turn = 2  # put seat 2 on lead
    d.step(_cards("AC")[0])
    d.step(_cards("JC")[0])
    assert d.turn == 1
    assert policy(d) == _cards("TC")[0]


def test_claims_when_the_side_has_66() -> None:
    d = _explicit(
        ["AH TH KH QH AD TD", "AS TS KS QS JS JH", "AC TC KC QC JC KD"],
        "QD JD",
        auto_claim=False,
    )
    d = _to_play(d, "normal")
    d.points[0] = 70
    d.tricks[0] = 1
    assert d.turn == 0
    assert Claim() in d.legal_actions()
    assert policy(d) == encode(Claim())


def test_hand_counts() -> None:
    hand = sum(1 << c for c in _cards("AH TH KH AS TS JD"))
    out = DECK20_MASK & ~hand
    assert sure_tricks(hand, out, -1, Order.NORMAL) == 5
    assert sure_tricks(hand, out, 0, Order.NORMAL) == 5
    low = sum(1 << c for c in _cards("JH QH JD QD JC JS"))
    assert danger(low, DECK20_MASK & ~low, Order.NORMAL) == 0
    high = sum(1 << c for c in _cards("AH AD AC AS TH TD"))
    assert danger(high, DECK20_MASK & ~high, Order.NORMAL) >= 4


def test_world_slots_hold_the_hidden_cards() -> None:
    state = _deal(b"slots", 0)
    state.step(policy(state))
    view = state.view(state.turn)
    sampler = worlds(view)
    assert sampler.caps[TALON] == 2
    assert sum(sampler.caps) == sampler.hidden.bit_count() == 12 + 2
    first = PlayCard(Card.from_id("AH"))
    assert encode(first) == 0


def test_strong_players_do_not_double_every_contract_to_eight() -> None:
    """Between strong players (a table of computers), each sees the others' play as
    the heuristic's, so each side thought itself the favourite: most contracts went
    Spritzen, Retour, Re (×8), and a match to 24 ended in one deal.  A double must now
    win by a share of the stake, the third by all of it.  The doubles all come before
    the first card (RULES.md §6), so each deal is played to there: its multiplier is
    the deal's (the play after it took the strong search half the test's time)."""
    strong = player("strong", "dreier")
    spec = games.game("dreier")
    opts = spec.parse_options({})
    doubled = tripled = 0
    for i in range(16):
        d = spec.start_deal(opts, i % 3, seed=f"x{i}".encode())
        rng = random.Random(i)
        while (seat := P.to_act(d)) is not None and P.view(d, None).phase != "play":
            d, _ = P.apply(d, seat, strong.choose(P.view(d, seat), rng, None))
        res = P.result(d)  # a deal all passed is dealt again, undoubled
        multiplier = res.multiplier if res is not None else P.view(d, None).multiplier
        doubled += multiplier > 1
        tripled += multiplier == 8
    assert doubled >= 2, "a strong player still doubles where the cards say so"
    assert tripled <= 1, f"{tripled} of 16 deals doubled three times"


def test_a_claim_the_side_s_points_show_wrong_is_never_made() -> None:
    """Dreier scores a wrong claim without a minimum, as Bauern does: the strong level
    keeps any claim the side's own points (and a declared marriage) do not make right
    out of its choices (`caution`), and leaves a right one alone."""
    from engine.actions import CLAIM, is_marriage_claim
    from engine.ai.claims import NEVER
    from engine.ai.dreier import caution

    wrong = right = 0
    for n in range(300):
        d = dreier.start_deal(
            dreier.options({"auto_claim": False}), n % 3, seed=n.to_bytes(4, "big")
        )
        while d.turn >= 0:
            me = d.turn
            view = d.view(me)
            for code in d.legal():
                if code == CLAIM or is_marriage_claim(code):
                    after = d.copy()
                    after.step(code)
                    assert after.res is not None
                    is_wrong = after.res.reason == "wrong_claim"
                    assert caution(code, view) == (NEVER if is_wrong else 0.0), (n, code)
                    wrong += is_wrong
                    right += not is_wrong
            d.step(policy(d))
    assert wrong > 20 and right > 5, (wrong, right)
