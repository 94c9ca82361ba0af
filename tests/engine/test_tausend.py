"""Thousand: views, refusals, options, dealing and the match's scoring invariants.

The rules themselves are shown by the scenario records (records/tausend/, built by
tausend_scenarios.py and replayed by test_records.py); random deals by
test_tausend_props.py.  This file covers what records cannot show: what each seat
sees, and the match's bookkeeping over arbitrary sequences of deals.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import protocol as P
from engine.actions import Action, Bid, Discard, Give, Look, Pass, PlayCard, Raise, Redeal
from engine.ai.tausend_worlds import worlds
from engine.cards import CARDS, DECK24, Card, Rank, index_of
from engine.errors import IllegalAction, OptionError
from engine.games import game
from engine.match import DealSpec
from engine.results import DealResult
from engine.shuffle import shuffled
from engine.tausend import GAME, TausendDeal, TausendMatch, TausendOptions, start_deal
from engine.tausend.match import NOTES

from . import tausend_scenarios


def _cards(text: str) -> list[int]:
    return [index_of(c) for c in text.split()]


def _deal(players: int = 3, **opts: object) -> TausendDeal:
    """Layout A dealt by seat 0: forehand 1 is to declare, seats 2 and 0 oppose."""
    return start_deal(
        TausendOptions(players=players, **opts),  # type: ignore[arg-type]
        0,
        hands=[
            _cards("AC QC JC AS TS KS QS"),
            _cards("AH KH QH JH AD 9C JD"),
            _cards("9H TD KD QD 9D KC TC"),
        ],
        talon=_cards("TH 9S JS"),
    )


def _act(state: TausendDeal, *moves: tuple[int, Action]) -> TausendDeal:
    for seat, action in moves:
        new, _ = P.apply(state, seat, action)
        assert isinstance(new, TausendDeal)
        state = new
    return state


def test_generated_records_are_current() -> None:
    """The committed records are exactly what tausend_scenarios.py builds."""
    assert tausend_scenarios.main(["--check"]) == 0


def test_registry_and_presets() -> None:
    spec = game("tausend")
    assert spec is GAME and spec.players == 3
    for preset in spec.presets.values():
        spec.parse_options(preset)
    assert spec.parse_options({"tausend.players": 4}).players == 4
    for bad in ({"tausend.players": 5}, {"tausend.barrel_fine": 130}, {"auto_claim": True}):
        with pytest.raises(OptionError):
            spec.parse_options(bad)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_seeded_split_is_the_documented_one(players: int) -> None:
    """docs/rules/tausend.md: one card at a time clockwise from forehand, then the stock."""
    seed = b"split"
    deck = shuffled(DECK24, seed)
    dealer = 1
    state = start_deal(TausendOptions(players=players), dealer, seed=seed)
    active = [(dealer + k) % players for k in range(1, 4 if players == 4 else players + 1)]
    size = 9 if players == 2 else 7
    for i, seat in enumerate(active):
        assert list(state.dealt[seat]) == deck[i : size * len(active) : len(active)]
    assert list(state.dealt[-1]) == deck[size * len(active) :]
    if players == 4:
        assert state.dealt[dealer] == ()


def test_views_hide_hands_and_the_stock_until_shown() -> None:
    s = _deal()
    for seat in range(3):
        v = P.view(s, seat)
        assert len(v.hand) == 7 and v.talon_cards == () and v.talon_size == 3
        assert v.phase == "bidding" and v.known == ()
    assert P.view(s, None).hand == ()
    s = _act(s, (1, Bid(value=100)), (2, Pass()), (0, Pass()))
    stock = Card.parse("TH 9S JS")
    for viewer in (None, 0, 1, 2):
        v = P.view(s, viewer)
        assert v.talon_cards == stock and v.phase == "give" and v.declarer == 1
        if viewer != 1:  # the whole stock is known to be in the declarer's hand
            assert {c for s_, c in v.known if s_ == 1} == set(stock)
    s = _act(s, (1, Give(Card.from_id("JD"), 2)))
    assert (2, Card.from_id("JD")) in P.view(s, 1).known  # the giver knows
    assert P.view(s, 0).known == ()  # the other opponent cannot tell what 1 kept
    assert Card.from_id("JD") in P.view(s, 2).hand
    # the receiver saw the card handed over; the other opponent and the public did not
    assert dict(P.view(s, 2).extra)["received"] == Card.from_id("JD")
    assert "received" not in dict(P.view(s, 0).extra)
    assert "received" not in dict(P.view(s, None).extra)
    assert "received" not in dict(P.view(s, 1).extra)  # the giver has it in `known`
    s = _act(s, (1, Give(Card.from_id("9S"), 0)))
    assert dict(P.view(s, 0).extra)["received"] == Card.from_id("9S")
    assert dict(P.view(s, 2).extra)["received"] == Card.from_id("JD")


def test_declarer_must_lead_and_marriage_partner_is_shown() -> None:
    s = _act(
        _deal(),
        (1, Bid(value=100)),
        (2, Pass()),
        (0, Pass()),
        (1, Give(Card.from_id("JD"), 2)),
        (1, Give(Card.from_id("JS"), 0)),
        (1, Raise(190)),
    )
    assert P.to_act(s) == 1 and P.view(s, 1).phase == "play"
    s = _act(s, (1, PlayCard(Card.from_id("AH"))), (2, PlayCard(Card.from_id("9H"))))
    s = _act(s, (0, PlayCard(Card.from_id("JS"))))
    s = _act(s, (1, PlayCard(Card.from_id("KH"), True)))
    v = P.view(s, 0)
    assert v.trump is not None and v.trump.letter == "H"
    assert (1, Card.from_id("QH")) in v.known
    assert v.marriages[0][2] == 100 and v.points[1] == 13 + 100


def test_blind_seat_sees_no_cards_until_it_looks() -> None:
    s = _deal(blind_bid=True)
    assert P.view(s, 1).hand == ()
    assert set(P.legal_actions(s)) == {Look(), Bid(value=100)}
    s = _act(s, (1, Bid(value=100)))  # blind
    with pytest.raises(IllegalAction) as e:
        P.apply(s, 2, Bid(value=125))
    assert e.value.code == "bid_needs_marriage"
    s = _act(s, (2, Look()))
    assert len(P.view(s, 2).hand) == 7
    assert P.view(s, 0).hand == ()
    s = _act(s, (2, Pass()), (0, Pass()))
    assert P.view(s, 0).hand != () and P.view(s, 1).multiplier == 2


def test_a_seat_that_has_not_looked_is_refused_without_a_word_about_its_cards() -> None:
    """A forged press from a seat bidding blind (a modified client) is refused in words
    that are the same whatever it holds: the refusal of a four-9s redeal told a seat
    that had not looked whether it held them, before it chose to bid blind."""
    refusals: dict[Action, set[tuple[str, str]]] = {}
    nines = [c for c in DECK24 if CARDS[c].rank == Rank.NINE]
    for n in range(40):
        rng = random.Random(n)
        # forehand (seat 1) holds the four 9s in every other deal
        rest = [c for c in DECK24 if n % 2 == 0 or c not in nines]
        rng.shuffle(rest)
        order = rest if n % 2 == 0 else [*rest[:7], *nines, *rest[7:]]
        s = start_deal(
            TausendOptions(blind_bid=True),
            0,
            hands=[order[i : i + 7] for i in (0, 7, 14)],
            talon=order[21:],
        )
        seat = P.to_act(s)
        assert seat == 1 and P.view(s, seat).hand == ()
        attempts: list[Action] = [
            Redeal(),
            Pass(),
            Bid(value=105),
            Bid(value=125),
            Raise(value=120),
            Discard(cards=tuple(CARDS[:3])),
        ]
        attempts += [PlayCard(CARDS[c]) for c in DECK24]
        attempts += [Give(CARDS[c], 2) for c in DECK24]
        for action in attempts:
            with pytest.raises(IllegalAction) as e:
                P.apply(s, seat, action)
            refusals.setdefault(action, set()).add((e.value.code, str(e.value)))
    differ = {a: r for a, r in refusals.items() if len(r) > 1}
    assert not differ, differ


def test_refusals_name_a_stable_reason() -> None:
    s = _deal()
    cases: list[tuple[int, Action, str]] = [
        (1, Look(), "action_not_allowed"),
        (1, PlayCard(Card.from_id("AH")), "action_not_allowed"),
        (1, Redeal(), "redeal_not_allowed"),
        (1, Bid(contract="normal"), "invalid_bid"),
        (1, Bid(value=1000), "invalid_bid"),
    ]
    for seat, action, code in cases:
        with pytest.raises(IllegalAction) as e:
            P.apply(s, seat, action)
        assert e.value.code == code, action
    s = _act(
        s,
        (1, Bid(value=100)),
        (2, Pass()),
        (0, Pass()),
        (1, Give(Card.from_id("JD"), 2)),
        (1, Give(Card.from_id("JS"), 0)),
        (1, Raise(190)),
        (1, PlayCard(Card.from_id("AH"))),
    )
    with pytest.raises(IllegalAction) as e:
        P.apply(s, 2, PlayCard(Card.from_id("9H"), True))
    assert e.value.code == "marriage_not_allowed"
    with pytest.raises(IllegalAction) as e:
        P.apply(s, 2, Give(Card.from_id("9H"), 0))
    assert e.value.code == "action_not_allowed"


def test_four_players_dealer_sits_out() -> None:
    s = start_deal(TausendOptions(players=4), 2, seed=b"four")
    v = P.view(s, None)
    assert v.sitting_out == 2 and v.hand_sizes[2] == 0 and P.to_act(s) == 3
    with pytest.raises(IllegalAction) as e:
        P.apply(s, 2, Pass())
    assert e.value.code == "not_your_turn"


def test_two_players_face_down_stock_stays_hidden() -> None:
    s = start_deal(TausendOptions(players=2), 0, seed=b"two")
    assert P.view(s, None).talon_size == 6
    s = _act(s, (1, Bid(value=100)), (0, Pass()))
    taken, hidden = s.dealt[-1][:3], s.dealt[-1][3:]
    for seat in (None, 0, 1):
        v = P.view(s, seat)
        assert [c.index for c in v.talon_cards] == list(taken) and v.talon_size == 3
        assert not v.cards_seen() & {Card.of(c) for c in hidden}
    assert P.view(s, 1).phase == "discard"


def test_two_players_declarer_remembers_what_he_laid_away() -> None:
    """The declarer's view names the 3 cards he laid on the face-down stock; the
    other player's view and the public one do not; the AI's worlds put them there."""
    s = start_deal(TausendOptions(players=2), 0, seed=b"two")
    s = _act(s, (1, Bid(value=100)), (0, Pass()))
    discard = next(a for a in P.legal_actions(s) if isinstance(a, Discard))
    laid = set(discard.cards)
    s = _act(s, (1, discard))
    assert set(dict(P.view(s, 1).extra)["discarded"]) == laid  # type: ignore[call-overload]
    for seat in (None, 0):
        v = P.view(s, seat)
        shown = set(v.talon_cards)  # the stock was shown to all before he took it
        assert "discarded" not in dict(v.extra) and not v.cards_seen() & (laid - shown)
    s = _act(s, (1, P.legal_actions(s)[0]))  # the final bid: play begins
    view = P.view(s, 1)
    sampler = worlds(view)
    rng = random.Random(3)
    for _ in range(20):
        world = sampler.sample(rng)
        assert world.view(1) == view
        assert all(world.pile >> c.index & 1 for c in laid), "laid cards lie in the pile"


def test_match_honours_players_golden_round_and_redeals() -> None:
    opts = TausendOptions(players=4, golden_round=True)
    m = GAME.new_match(opts, 3)
    assert isinstance(m, TausendMatch) and m.players == 4
    spec = m.next_deal()
    assert spec is not None and spec.dealer == 3 and dict(spec.context) == {"golden": True}
    state = m.start_deal(spec, seed=b"g")
    assert P.view(state, None).declarer == 0 or P.view(state, None).phase == "redeal"
    redeal = DealResult(points=(0, 0, 0, 0), winners=(), reason="redeal")
    assert m.add_result(spec, redeal) == (0, 0, 0, 0)
    again = m.next_deal()
    assert again is not None and again.dealer == 3  # the same dealer deals again


def test_a_deal_on_the_barrel_shows_it_to_every_seat() -> None:
    """What a deal is worth to a seat depends on the barrel: the match passes it to the
    deal, every view shows it (public, like the scores), and the rules stay the same."""
    m = TausendMatch(TausendOptions(), 0)
    m.scores = [880, 300, 200]
    m.on_barrel[0] = True
    m.climbed.append(0)
    m.attempts[0] = 1
    spec = m.next_deal()
    assert spec is not None and dict(spec.context)["barrel"] == (2, 0, 0)
    state = m.start_deal(spec, seed=b"b")
    plain = start_deal(TausendOptions(), spec.dealer, seed=b"b")
    for seat in (None, 0, 1, 2):
        assert dict(P.view(state, seat).extra)["barrel"] == (2, 0, 0)
        assert "barrel" not in dict(P.view(plain, seat).extra)
    assert P.legal_actions(state) == P.legal_actions(plain)
    with pytest.raises(ValueError, match="barrel"):
        start_deal(TausendOptions(), 0, seed=b"b", barrel=(4, 0, 0))


def test_near_the_barrel_the_deal_knows_the_scores() -> None:
    """Points beyond 880 are lost and a climber pushes a sitter off, so from the time a
    seat could reach the barrel in one deal (480: a bid can be worth 400) the match
    gives the deal its scores; every view shows them, as the table does."""
    m = TausendMatch(TausendOptions(), 0)
    m.scores = [475, 300, -120]
    spec = m.next_deal()
    assert spec is not None and "scores" not in dict(spec.context)
    m.scores = [480, 300, -120]
    spec = m.next_deal()
    assert spec is not None and dict(spec.context)["scores"] == (480, 300, -120)
    state = m.start_deal(spec, seed=b"s")
    for seat in (None, 0, 1, 2):
        assert dict(P.view(state, seat).extra)["scores"] == (480, 300, -120)
    assert P.legal_actions(state) == P.legal_actions(start_deal(TausendOptions(), 0, seed=b"s"))
    # Somebody on the barrel: the scores too, whatever the others have.
    m.scores = [880, 0, 0]
    m.on_barrel[0] = True
    m.climbed.append(0)
    spec = m.next_deal()
    assert spec is not None and dict(spec.context)["scores"] == (880, 0, 0)
    with pytest.raises(ValueError, match="scores"):
        start_deal(TausendOptions(), 0, seed=b"s", scores=(0, 0))


@pytest.mark.parametrize(("before", "left"), [(1, 0), (2, 1)])
def test_a_golden_round_bolt_counts_twice_and_the_third_is_fined(before: int, left: int) -> None:
    """RULES.md §5: bolts and fines are doubled in the golden round; the third bolt costs
    the fine and clears the count, so two more on top of two leave one."""
    m = TausendMatch(TausendOptions(golden_round=True), 0)
    m.bolts = [before, 0, 0]
    spec = m.next_deal()
    assert spec is not None
    res = DealResult(
        points=(0, 240, 40),
        winners=(1,),
        reason="made",
        contract="bid",
        declarer=1,
        details=(("value", 120), ("made", True), ("golden", True), ("bolts", (2, 0, 0))),
    )
    m.add_result(spec, res)
    assert m.scores[0] == -240 and m.bolts[0] == left
    assert (0, "bolt_fine") in m.notes


# --- the match's scoring invariants over arbitrary deal results -----------------------------

_RESULT = st.tuples(
    st.integers(0, 3),  # declarer slot
    st.sampled_from((100, 120, 125, 150, 200, 250)),
    st.booleans(),  # made
    st.lists(st.integers(0, 80).map(lambda p: p // 5 * 5), min_size=4, max_size=4),
    st.lists(st.integers(0, 2), min_size=4, max_size=4),  # bolts (0 for the declarer)
    st.booleans(),  # redeal
)


@given(
    players=st.sampled_from((2, 3, 4)),
    fine=st.sampled_from((120, 125)),
    results=st.lists(_RESULT, min_size=1, max_size=80),
)
def test_match_scoring_invariants(
    players: int, fine: int, results: list[tuple[int, int, bool, list[int], list[int], bool]]
) -> None:
    m = TausendMatch(TausendOptions(players=players, barrel_fine=fine), 0)
    total = [0] * players
    for slot, value, made, others, bolts, redeal in results:
        spec = m.next_deal()
        if spec is None:
            break
        assert isinstance(spec, DealSpec)
        # the deal is told who sits on the barrel, with the deals left there
        left = tuple(3 - m.attempts[s] if m.on_barrel[s] else 0 for s in range(players))
        assert dict(spec.context).get("barrel", (0,) * players) == left
        # ... and, near the barrel, the scores
        near = any(m.on_barrel) or max(m.scores) >= 480
        assert dict(spec.context).get("scores") == (tuple(m.scores) if near else None)
        active = [(spec.dealer + k) % players for k in range(1, 4 if players == 4 else players + 1)]
        d = active[slot % len(active)]
        pts = [others[s] if s != d else (value if made else -value) for s in range(players)]
        bolt = [bolts[s] if s in active and s != d else 0 for s in range(players)]
        res = DealResult(
            points=tuple(pts),
            winners=(d,),
            reason="redeal" if redeal else ("made" if made else "failed"),
            contract="bid",
            declarer=d,
            details=(("value", value), ("made", made), ("golden", False), ("bolts", tuple(bolt))),
        )
        change = m.add_result(spec, res)
        total = [t + c for t, c in zip(total, change, strict=True)]
        assert total == m.scores  # the deals' points add up to the scores
        # every change the deal's own points do not explain is explained by a note
        noted = {s for s, _ in m.notes}
        assert all(w in NOTES for _, w in m.notes)
        for s in range(players):
            if not redeal and change[s] != pts[s]:
                assert s in noted, (s, pts[s], change[s], m.notes)
        sitters = [s for s in range(players) if m.on_barrel[s]]
        assert len(sitters) <= (2 if players == 4 else 1)
        assert sorted(m.climbed) == sitters
        for s in range(players):
            assert 0 <= m.bolts[s] < 3 and 0 <= m.falls[s] < 3
            if m.on_barrel[s]:
                assert m.scores[s] == 880 and 1 <= 3 - m.attempts[s] <= 3
            elif s != m.winner:  # a loser reaching 880 in the last deal stays at 880
                assert m.scores[s] < 880 or (m.finished and m.scores[s] == 880)
    if m.finished:
        assert m.winner is not None and m.scores[m.winner] == 1000
        assert m.bummerl == [0 if s == m.winner else 1 for s in range(players)]
