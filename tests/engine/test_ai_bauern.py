"""The Bauernschnapsen AI: legal, reproducible, blind to what its seat cannot see, and
sensible where the rules leave one right answer."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import actions as A
from engine import bauern
from engine.actions import Bid, ChooseTrump, Double, Pass, PlayCard
from engine.ai import Budget, player
from engine.ai.bauern import AI, exact
from engine.ai.bauern_policy import chance, gang_losers, policy
from engine.ai.bauern_worlds import BauernWorlds, deal_hidden, stichzwang_bars, worlds
from engine.bauern import BauernDeal, BauernOptions
from engine.bauern.rules import BIDDING, CONTRACT_IDS, PLAY, TRUMP
from engine.cards import DECK20, DECK20_MASK, Card, Suit, cards_of, index_of, mask_of
from engine.tricks import NO_TRUMP, Order

from .ai_helpers import assert_solver_is_minimax, play_out_mixed, sampled_worlds, scaled
from .props import every_option

#: Small budgets keep the suite fast; the logic is the same at any size.
TINY = Budget(playouts=8, worlds=2)

OPTIONS = every_option(BauernOptions)


def _deal(opts: BauernOptions, seed: bytes, dealer: int) -> BauernDeal:
    return bauern.start_deal(opts, dealer, seed=seed)


def _advance(d: BauernDeal, rng: random.Random, steps: int) -> BauernDeal:
    """Play up to `steps` actions (stopping before the deal ends): the heuristic's or a
    random legal one, mostly the normal game so that positions deep in play come up."""
    for _ in range(steps):
        nxt = d.copy()
        codes = nxt.legal()
        if nxt.phase == BIDDING and rng.random() < 0.7:
            codes = [c for c in codes if c in (A.BID_CONTRACT, A.PASS)] or codes
        nxt.step(policy(nxt) if rng.random() < 0.5 else rng.choice(codes))
        if nxt.turn < 0:
            break
        d = nxt
    return d


def _hidden_slots(d: BauernDeal, me: int) -> list[tuple[int, int]]:
    """(seat, card) of every card `me` cannot see: the others' unshown cards, and in
    the trump phase forehand's own second packet."""
    out = []
    for s in range(4):
        for c in cards_of(d.hands[s] & ~d.shown):
            if s != me or (d.phase == TRUMP and c in d.dealt[s][3:]):
                out.append((s, c))
    return out


def _alternatives(d: BauernDeal, rng: random.Random, n: int) -> list[BauernDeal]:
    """Deals that differ from `d` only in what the seat to act cannot see: the hidden
    cards shuffled among their places on the real deal (kept when the seat's view is
    unchanged), and worlds dealt by the AI's own sampler."""
    me = d.turn
    view = d.view(me)
    out: list[BauernDeal] = []
    slots = _hidden_slots(d, me)
    for _ in range(n):
        cards = [c for _, c in slots]
        rng.shuffle(cards)
        hands = [list(h) for h in d.dealt[:4]]
        alt = d.copy()
        for (s, old), new in zip(slots, cards, strict=True):
            alt.hands[s] ^= (1 << old) | (1 << new)
            hands[s][hands[s].index(old)] = -1 - new
        alt.dealt = (*(tuple(c if c >= 0 else -1 - c for c in h) for h in hands), ())
        if d.phase == TRUMP:
            alt = BauernDeal.start(d.opts, d.dealer, alt.dealt[:4])
        if alt.view(me) == view:
            out.append(alt)
    return out + sampled_worlds(worlds, view, me, n, rng)


@settings(max_examples=scaled(40), deadline=None)
@given(
    options=OPTIONS,
    deal_seed=st.binary(min_size=1, max_size=8),
    choice_seed=st.integers(0, 2**32),
)
def test_every_level_plays_only_legal_actions(
    options: BauernOptions, deal_seed: bytes, choice_seed: int
) -> None:
    """Whole deals, the level of each decision drawn at random, every option set."""
    rng = random.Random(choice_seed)
    play_out_mixed(_deal(options, deal_seed, choice_seed % 4), "bauern", rng, TINY)


@settings(max_examples=scaled(40), deadline=None)
@given(
    options=OPTIONS,
    deal_seed=st.binary(min_size=1, max_size=8),
    choice_seed=st.integers(0, 2**32),
    steps=st.integers(0, 30),
)
def test_no_peeking(options: BauernOptions, deal_seed: bytes, choice_seed: int, steps: int) -> None:
    """The choice depends on the view only: other hidden cards, same seed, same action."""
    rng = random.Random(choice_seed)
    d = _advance(_deal(options, deal_seed, choice_seed % 4), rng, steps)
    me = d.turn
    for level in ("heuristic", "strong"):
        ai = player(level, "bauern")
        expected = ai.choose(d.view(me), random.Random(7), TINY)
        for alt in _alternatives(d, rng, 2):
            assert ai.choose(alt.view(me), random.Random(7), TINY) == expected


@settings(max_examples=scaled(80), deadline=None)
@given(
    options=OPTIONS,
    deal_seed=st.binary(min_size=1, max_size=8),
    choice_seed=st.integers(0, 2**32),
    steps=st.integers(0, 30),
)
def test_sampled_worlds_agree_with_the_view_and_the_truth(
    options: BauernOptions, deal_seed: bytes, choice_seed: int, steps: int
) -> None:
    """Worlds reproduce the view exactly (legal actions included, so the options were
    read right), and the Stichzwang inferences never exclude the real cards."""
    rng = random.Random(choice_seed)
    d = _advance(_deal(options, deal_seed, choice_seed % 4), rng, steps)
    me = d.turn
    view = d.view(me)
    sampler = worlds(view)
    for s in range(4):
        assert not d.hands[s] & sampler.barred[s]
    for _ in range(3):
        world = sampler.sample(rng)
        assert world.view(me) == view
        assert world.legal() == d.legal()
        if d.phase != TRUMP:
            for s in range(4):
                assert world.hands[s].bit_count() == d.hands[s].bit_count()
    if sampler.certain:
        assert sampler.sample(rng).hands == d.hands


def test_choices_repeat_for_a_seed() -> None:
    ai = player("strong", "bauern")
    rng = random.Random(3)
    budget = Budget(playouts=40, worlds=4)
    for n in range(12):
        d = _advance(_deal(BauernOptions(), n.to_bytes(2, "big"), n % 4), rng, 2 * n)
        view = d.view(d.turn)
        first = [ai.choose(view, random.Random(s), budget) for s in (1, 2)]
        again = [ai.choose(view, random.Random(s), budget) for s in (1, 2)]
        assert first == again


@settings(max_examples=scaled(60), deadline=None)
@given(
    options=OPTIONS,
    deal_seed=st.binary(min_size=1, max_size=8),
    choice_seed=st.integers(0, 2**32),
)
def test_alpha_beta_equals_minimax(
    options: BauernOptions, deal_seed: bytes, choice_seed: int
) -> None:
    """The exact search (with this game's transposition key) agrees with brute force
    on positions small enough for both, in every contract that comes up."""
    rng = random.Random(choice_seed)
    d = _deal(options, deal_seed, choice_seed % 4)
    while d.turn >= 0 and not exact(d):
        d.step(rng.choice(d.legal()))
    if d.turn < 0:
        return
    me = rng.randrange(4)
    assert_solver_is_minimax(AI, d, me)


@settings(max_examples=scaled(200), deadline=None)
@given(
    cards=st.integers(1, 9),
    split=st.lists(st.integers(0, 3), min_size=9, max_size=9),
    bars=st.lists(st.integers(0, 2**20 - 1), min_size=4, max_size=4),
    seed=st.integers(0, 2**32),
)
def test_hidden_cards_are_dealt_whenever_they_can_be(
    cards: int, split: list[int], bars: list[int], seed: int
) -> None:
    """`deal_hidden` respects every bar and need, and gives up only when no deal does
    (brute force over all deals of a few cards)."""
    deck = list(DECK20[:cards])
    hidden = mask_of(deck)
    need = [split[:cards].count(s) for s in range(4)]
    barred = [b & hidden for b in bars]

    def possible(i: int, room: list[int]) -> bool:
        if i == len(deck):
            return True
        for s in range(4):
            if room[s] and not barred[s] >> deck[i] & 1:
                room[s] -= 1
                ok = possible(i + 1, room)
                room[s] += 1
                if ok:
                    return True
        return False

    dealt = deal_hidden(hidden, need, barred, random.Random(seed))
    if dealt is None:
        assert not possible(0, list(need))
        return
    assert [m.bit_count() for m in dealt] == need
    assert dealt[0] | dealt[1] | dealt[2] | dealt[3] == hidden
    assert not any(dealt[s] & barred[s] for s in range(4))


# --- what the readings and the heuristic know ----------------------------------------


def _hand(text: str) -> int:
    return mask_of(index_of(t) for t in text.split())


def test_stichzwang_bars() -> None:
    h = Suit.HEARTS
    ah, kh, jh, ad, qs, td, jd = (index_of(x) for x in ("AH", "KH", "JH", "AD", "QS", "TD", "JD"))
    # Followed below the best card: nothing above it in the led suit.
    assert stichzwang_bars([kh], jh, int(Suit.SPADES), Order.NORMAL) == _hand("AH TH")
    # Did not follow and did not trump: void in the suit and in trumps.
    bars = stichzwang_bars([ah], qs, int(Suit.DIAMONDS), Order.NORMAL) & DECK20_MASK
    assert bars == _hand("AH TH KH QH JH AD TD KD QD JD")
    # Trumped a trumped trick low: no higher trump either.
    bars = stichzwang_bars([kh, td], jd, int(Suit.DIAMONDS), Order.NORMAL) & DECK20_MASK
    assert bars == _hand("AH TH KH QH JH AD")
    # No trumps (Bettler, Gang): not following only says void in the suit.
    assert stichzwang_bars([ah], ad, NO_TRUMP, Order.NORMAL) & DECK20_MASK == mask_of(
        6 * int(h) + r for r in range(5)
    )


def test_hand_readings() -> None:
    sure_gang = _hand("AH TH KH AS TS")
    assert gang_losers(sure_gang, Order.NORMAL) == 0
    assert chance(CONTRACT_IDS.index("gang"), sure_gang, 0, 1) == 1.0
    assert gang_losers(_hand("AH KH QH AS TS"), Order.NORMAL) == 2
    bettler = CONTRACT_IDS.index("bettler")
    assert chance(bettler, _hand("JH JD JC QS JS"), 0, 1) > 0.9
    assert chance(bettler, _hand("AH JD JC QS JS"), 0, 1) < 0.5


def _start(hands: list[str], dealer: int = 0, **opts: object) -> BauernDeal:
    return BauernDeal.start(
        bauern.options(dict(opts)),
        dealer,
        [[index_of(t) for t in h.split()] for h in hands],
    )


# Dealer 0, so forehand is seat 1.  Seat 2 holds a sure Gang (the tops of two suits).
GANG_HANDS = [
    "JH QH JD QD JC",
    "KD TD KC QC KS",
    "AH TH KH AS TS",
    "AD AC TC QS JS",
]


def _to(d: BauernDeal, seat: int, phase: int) -> BauernDeal:
    """Play the heuristic until `seat` acts in `phase`."""
    while d.turn >= 0 and not (d.turn == seat and d.phase == phase):
        d.step(policy(d))
    return d


def test_heuristic_bids_a_sure_gang_and_nobody_kontras_it() -> None:
    d = _to(_start(GANG_HANDS), 2, BIDDING)
    view = d.view(2)
    for level in ("heuristic", "strong"):
        assert player(level).choose(view, random.Random(1)) == Bid("gang")
    d.step(policy(d))
    while d.phase == BIDDING:
        d.step(policy(d))
    assert CONTRACT_IDS[d.row] == "gang" and d.declarer == 2
    # The opponents see a Gang bid: the worlds give seat 2 only sure Gangs, so the
    # strong level does not Kontra (it would lose 18 instead of 9).
    view = d.view(d.turn)
    read = AI.worlds(view)
    assert isinstance(read, BauernWorlds)
    assert read.fixed and read.fixed[0][0] == 2
    for world in (read.sample(random.Random(s)) for s in range(20)):
        assert gang_losers(world.hands[2], Order.NORMAL) == 0
    assert player("strong").choose(view, random.Random(2)) == Pass()


def test_forehand_names_a_strong_suit_else_turns_a_card_up() -> None:
    d = _start(["JH QH JD QD JC", "AS TS KS QC KC", "AH TH KH QS JS", "AD AC TC KD TD"])
    assert d.phase == TRUMP and d.turn == 1
    assert player("heuristic").choose(d.view(1), random.Random(1)) == ChooseTrump(suit=Suit.SPADES)
    d = _start(["JH QH JD QD JC", "JS QC TD AS KC", "AH TH KH QS TS", "AD AC TC KD KS"])
    assert player("heuristic").choose(d.view(1), random.Random(1)) == ChooseTrump(blind=3)


def test_herrenschnapser_and_farbengang_are_bid_on_sight() -> None:
    d = _start(["JH QH JD QD JC", "AS TS KS QS JS", "AH TH KH QC KD", "AD AC TC TD KC"])
    d.step(policy(d))  # forehand names spades: he holds all five
    for level in ("heuristic", "strong"):
        assert player(level).choose(d.view(1), random.Random(1)) == Bid("herrenschnapser")
    d = _start(["JH QH JD QD JC", "AH TH KH QC KD", "AS TS KS QS JS", "AD AC TC TD KC"])
    d.step(policy(d))
    d.step(policy(d))  # forehand opens
    assert d.turn == 2
    for level in ("heuristic", "strong"):
        assert player(level).choose(d.view(2), random.Random(1)) == Bid("farbengang")


def test_marriages_are_declared_in_the_normal_game() -> None:
    d = _start(["JH QH AC TC JC", "KS QS AS KC AD", "AH TH KH QC TS", "TD JD QD KD JS"])
    d.step(A.TRUMP_SUIT + int(Suit.SPADES))  # forehand names spades
    d.step(A.BID_CONTRACT)  # and opens the normal game; everybody passes
    while d.phase != PLAY:
        d.step(A.PASS)
    assert d.turn == 1
    queen = Card.parse("QS")[0]
    assert player("heuristic").choose(d.view(1), random.Random(1)) == PlayCard(queen, True)


def test_strong_kontras_only_with_reason() -> None:
    """Seat 2 opposes forehand's normal game with every trump that matters: Kontra."""
    d = _start(["JH QH JD QD JC", "KH KD QS TD KC", "AS TS KS AH AD", "TH AC TC QC JS"])
    d.step(A.TRUMP_SUIT + int(Suit.SPADES))  # forehand names spades (his Queen)
    d.step(A.BID_CONTRACT)  # and opens the normal game; the others pass
    while d.phase == BIDDING:
        d.step(A.PASS)
    assert d.turn == 2 and CONTRACT_IDS[d.row] == "normal"
    for level in ("heuristic", "strong"):
        assert player(level).choose(d.view(2), random.Random(1)) == Double()


def test_strong_never_claims_enough_without_66() -> None:
    """With manual claims a wrong claim costs only what it would have won (no
    minimum): once the other team has 33, a false "enough" costs 1 where losing
    costs 2, and the search used it to resign (10 of these 107 positions).  A claim
    the team's own points show to be wrong is never the strong level's move."""
    strong = player("strong")
    budget = Budget(playouts=100, worlds=8, seconds=5)
    positions = 0
    for n in range(150):
        d = bauern.start_deal(BauernOptions(auto_claim=False), n % 4, seed=n.to_bytes(4, "big"))
        while d.turn >= 0:
            me = d.turn
            # where giving up looked cheap: short of 66, the other team at 33
            cheap = d.team_total(me & 1) < 66 and d.team_total(1 - (me & 1)) >= 33
            if A.CLAIM in d.legal() and cheap:
                positions += 1
                choice = strong.choose(d.view(me), random.Random(n), budget)
                code = A.encode(choice, d.contracts)
                if code == A.CLAIM or A.is_marriage_claim(code):
                    after = d.copy()
                    after.step(code)
                    assert after.res is not None and after.res.reason != "wrong_claim"
            d.step(policy(d))
    assert positions > 50
