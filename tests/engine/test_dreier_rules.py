"""Dreierschnapsen rules the replay answer cannot show: views and hidden information,
events, legal action sets, options and presets, dealing from a seed, the match's
dealer rotation.  Scenario records (tests/engine/records/dreier/) cover the scoring."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine import dreier
from engine import protocol as P
from engine.actions import (
    Action,
    Bid,
    ChooseTrump,
    Discard,
    Pass,
    PlayCard,
    Redeal,
    action_from_json,
)
from engine.cards import DECK20, Card, Suit, index_of, mask_of
from engine.dreier.deal import DreierDeal
from engine.dreier.rules import enabled_rows
from engine.errors import IllegalAction, OptionError
from engine.events import (
    Discarded,
    Doubled,
    Event,
    HandShown,
    Passed,
    Raised,
    TalonTaken,
    TrumpChosen,
    redact,
)
from engine.games import available, game
from engine.options import option_ids, options_to_json
from engine.results import DealResult
from engine.selfplay import play_random_deals
from engine.shuffle import shuffled

RECORDS = Path(__file__).parent / "records" / "dreier"


def _cards(text: str) -> list[int]:
    return [index_of(c) for c in text.split()]


def _scenario(name: str) -> tuple[dreier.DreierOptions, dict[str, Any]]:
    with (RECORDS / f"{name}.json").open(encoding="utf-8") as f:
        rec = json.load(f)
    return dreier.options(rec.get("options")), rec["deals"][0]


def _start(name: str) -> tuple[DreierDeal, list[tuple[int, Action]]]:
    opts, d = _scenario(name)
    hands = [[index_of(c) for c in h] for h in d["hands"]]
    state = dreier.start_deal(opts, d["dealer"], hands=hands, talon=_cards(" ".join(d["talon"])))
    acts = [(a["seat"], action_from_json(a)) for a in d["actions"]]
    return state, acts


def _run(
    state: P.DealCore, acts: list[tuple[int, Action]]
) -> tuple[DreierDeal, list[tuple[int, Event]]]:
    """Apply actions through the protocol; events with their index."""
    events: list[tuple[int, Event]] = []
    for i, (seat, action) in enumerate(acts):
        state, evs = P.apply(state, seat, action)
        events.extend((i, e) for e in evs)
    assert isinstance(state, DreierDeal)
    return state, events


# --- dealing -------------------------------------------------------------------------


@pytest.mark.parametrize("dealer", [0, 1, 2])
def test_seeded_deal_follows_the_documented_split(dealer: int) -> None:
    """docs/rules/dreier.md: 3 each from forehand, 2 to the talon, 3 more each."""
    seed = b"dreier-split"
    d = shuffled(DECK20, seed)
    state = dreier.start_deal(dreier.DreierOptions(), dealer, seed=seed)
    fh, mh = (dealer + 1) % 3, (dealer + 2) % 3
    assert state.dealt[fh] == (*d[0:3], *d[11:14])
    assert state.dealt[mh] == (*d[3:6], *d[14:17])
    assert state.dealt[dealer] == (*d[6:9], *d[17:20])
    assert state.dealt[3] == tuple(d[9:11])


#: Six cards for each seat; with QS JS as the talon, the whole 20-card deck.
SIX_EACH = ["AH TH KH QH JH AD", "TD KD QD JD AC TC", "KC QC JC AS TS KS"]


@pytest.mark.parametrize(
    ("dealer", "hands", "talon", "why"),
    [
        (0, ["AH"], "QS JS", "three hands of 6"),
        (0, [*SIX_EACH[:2], "KC QC JC AS TS"], "KS QS JS", "three hands of 6"),
        (0, SIX_EACH, "QS", "talon has 2 cards"),
        (0, SIX_EACH, "AH JS", "exactly once"),
        (3, SIX_EACH, "QS JS", "dealer is a seat 0..2"),
        (-1, SIX_EACH, "QS JS", "dealer is a seat 0..2"),
    ],
    ids=["one-hand", "a-hand-of-5", "talon-of-1", "a-card-twice", "dealer-3", "dealer-minus-1"],
)
def test_explicit_cards_are_checked(dealer: int, hands: list[str], talon: str, why: str) -> None:
    """RULES.md §3 Deal / §6 records: three hands of 6 and a talon of 2, each card of the
    20-card deck once, dealt by a seat of the table -- anything else is no deal, and the
    refusal says which part is wrong (all 20 cards in a 6-6-5 split with a 3-card
    talon are still not a deal)."""
    with pytest.raises(ValueError, match=why):
        dreier.start_deal(
            dreier.DreierOptions(), dealer, hands=[_cards(h) for h in hands], talon=_cards(talon)
        )
    assert dreier.start_deal(
        dreier.DreierOptions(), 0, hands=[_cards(h) for h in SIX_EACH], talon=_cards("QS JS")
    )


# --- trumps and hidden information -------------------------------------------------------


def test_trump_phase_shows_only_the_first_packet() -> None:
    """Trumps are named from the first 3 cards; the second packet is unseen (RULES.md §3)."""
    state, _ = _start("trump-blind-card")
    v = P.view(state, 1)
    assert v.phase == "trump" and v.to_act == 1
    assert v.trump is None and dict(v.extra)["without_talon"] is False  # nothing bid yet
    assert v.hand == Card.parse("AH TH KH")
    assert v.hand_sizes == (3, 3, 3)
    assert P.view(state, 2).hand == Card.parse("AD TD KD")
    assert set(v.legal) == {
        ChooseTrump(suit=Suit.HEARTS),
        ChooseTrump(blind=3),
        ChooseTrump(blind=4),
        ChooseTrump(blind=5),
    }


def test_three_jacks_may_redeal() -> None:
    state, acts = _start("redeal-three-jacks")
    assert Redeal() in P.legal_actions(state)
    state, _ = _run(state, acts)
    res = P.result(state)
    assert res is not None and res.reason == "redeal" and res.points == (0, 0, 0)


def test_blind_trump_card_is_public() -> None:
    state, acts = _start("trump-blind-card")
    state, events = _run(state, acts[:1])
    ac = Card.from_id("AC")
    assert [e for _, e in events] == [TrumpChosen(1, Suit.CLUBS, ac)]
    assert P.view(state, None).trump_card == ac
    assert P.view(state, None).trump == Suit.CLUBS
    for seat in (0, 2):
        assert (1, ac) in P.view(state, seat).known  # forehand holds it, everyone saw it
    assert ac in P.view(state, 1).hand


def test_talon_is_seen_by_the_declarer_only() -> None:
    state, acts = _start("normal-won-1")
    talon = Card.parse("JC KS")
    state, events = _run(state, acts[:4])  # trump, bid, pass, pass: forehand takes the talon
    taken = [e for _, e in events if isinstance(e, TalonTaken)]
    assert len(taken) == 1 and set(taken[0].cards or ()) == set(talon)
    for seat in (0, 2, None):
        blank = redact(taken[0], seat)
        assert isinstance(blank, TalonTaken) and blank.cards is None
        assert P.view(state, seat).talon_cards == ()
    v = P.view(state, 1)
    assert v.phase == "discard" and set(v.talon_cards) == set(talon)
    assert len(v.hand) == 8
    assert "discarded" not in dict(v.extra)  # nothing laid away yet
    state, _ = _run(state, acts[4:5])  # discards JC JS
    v = P.view(state, 1)
    assert v.talon_cards == () and v.phase == "doubling"
    assert dict(v.extra)["discarded"] == Card.parse("JC JS")
    assert "discarded" not in dict(P.view(state, 2).extra)


def test_without_talon_nobody_sees_it() -> None:
    state, acts = _start("bidding-hold-and-without-talon")
    state, events = _run(state, acts[:8])
    assert not any(isinstance(e, TalonTaken) for _, e in events)
    assert P.view(state, 1).phase == "doubling"
    assert P.view(state, 1).talon_size == 0 and P.view(state, 1).talon_cards == ()
    loc = state.locations()
    assert loc["talon"] == 0 and loc["discard"] == mask_of(_cards("JD JS"))  # for nobody


def test_plauderer_hand_is_shown_after_trick_1() -> None:
    """RULES.md §3: the declarer's hand lies open for the defenders after trick 1."""
    state, acts = _start("plauderer-won")
    before, _ = _run(state, acts[:10])  # two cards of trick 1 played
    assert all(s != 0 for v in (1, 2) for s, _ in P.view(before, v).known)
    after, events = _run(state, acts[:11])
    shown = [(i, e) for i, e in events if isinstance(e, HandShown)]
    assert len(shown) == 1
    i, event = shown[0]
    assert i == 10 and event.seat == 0
    rest = set(Card.parse("QH JD QD JC QC"))
    assert set(event.cards) == rest
    for seat in (1, 2, None):
        assert {c for s, c in P.view(after, seat).known if s == 0} == rest
    assert not P.view(after, 0).known
    assert dict(P.view(after, 1).extra)["hand_shown"] is True


def test_bettler_hand_stays_hidden() -> None:
    state, acts = _start("bettler-won")
    state, events = _run(state, acts[:14])
    assert not any(isinstance(e, HandShown) for _, e in events)
    assert not [c for s, c in P.view(state, 1).known if s == 0]


def test_first_trick_of_each_side_stays_visible() -> None:
    state, acts = _start("normal-won-2")
    state, _ = _run(state, acts[:13])  # trick 1 to middlehand, trick 2 to the declarer
    first = dict(dict(P.view(state, 0).extra)["first_tricks"])  # type: ignore[call-overload]
    assert first["defenders"] == (
        2,
        ((1, Card.from_id("AC")), (2, Card.from_id("JH")), (0, Card.from_id("KC"))),
    )
    assert first["declarer"][0] == 1


def test_view_lists_every_completed_trick() -> None:
    state, acts = _start("normal-won-2")
    state, _ = _run(state, acts[:14])  # two tricks and the lead of the third
    v = P.view(state, 0)
    assert v.tricks == (
        ((1, Card.from_id("AC")), (2, Card.from_id("JH")), (0, Card.from_id("KC"))),
        ((2, Card.from_id("AD")), (0, Card.from_id("JS")), (1, Card.from_id("TH"))),
    )
    assert v.last_trick == v.tricks[-1] and v.last_trick_winner == 1
    assert v.trick == ((1, Card.from_id("KH")),)


def test_the_view_counts_a_marriage_once_its_side_has_a_trick() -> None:
    """RULES.md §1 marriage, docs/rules/dreier.md (views): a seat's `points` count its
    marriage only once its side has a trick -- until then it is pending; the side
    points are shown during the play only.  normal-marriage-waits-for-trick: the
    declarer (seat 1) leads KD declaring 20 before his first trick; T1 goes to
    middlehand (17), T2 to the declarer (25 + the 20)."""
    state, acts = _start("normal-marriage-waits-for-trick")
    doubling, _ = _run(state, acts[:6])
    assert P.view(doubling, None).phase == "doubling"
    assert "side_points" not in dict(P.view(doubling, None).extra)
    waiting, _ = _run(state, acts[:10])  # KD declaring 20; T1 to middlehand
    v = P.view(waiting, None)
    assert v.points == (0, 0, 17)
    assert dict(v.extra)["pending_marriage_points"] == (0, 20, 0)
    assert dict(v.extra)["side_points"] == (0, 17)
    assert v.tricks_won == (0, 0, 1)
    counted, _ = _run(state, acts[:13])
    v = P.view(counted, None)
    assert v.points == (0, 45, 17)
    assert dict(v.extra)["pending_marriage_points"] == (0, 0, 0)
    assert dict(v.extra)["side_points"] == (45, 17)
    assert v.tricks_won == (0, 1, 1)
    state, acts = _start("bettler-won")  # the dealer, seat 0, declares and leads
    state, _ = _run(state, acts[:9])
    assert dict(P.view(state, None).extra)["side_points"] == (0, 0)


def test_marriage_partner_is_known_until_played() -> None:
    state, acts = _start("normal-won-1")
    state, _ = _run(state, acts[:14])  # ... forehand leads KH declaring 40
    assert (1, Card.from_id("QH")) in P.view(state, 2).known
    assert P.view(state, 2).marriages == ((1, Suit.HEARTS, 40),)


# --- bidding -------------------------------------------------------------------------


def _bids(state: P.DealCore) -> set[tuple[str | None, bool]]:
    return {(a.contract, a.without_talon) for a in P.legal_actions(state) if isinstance(a, Bid)}


def test_bidding_legal_sets() -> None:
    state, acts = _start("bidding-hold-and-without-talon")
    state, _ = _run(state, acts[:1])
    legal = P.legal_actions(state)
    assert Pass() not in legal  # forehand_must_bid
    assert ("normal", False) in _bids(state) and ("kontraschnapser", False) not in _bids(state)
    assert ("herrenschnapser", False) not in _bids(state)  # forehand holds one trump
    state, _ = _run(state, acts[1:2])  # forehand: normal
    bids = _bids(state)
    assert Pass() in P.legal_actions(state)
    assert ("normal", False) not in bids and ("schnapser", False) not in bids
    assert {("bettler", False), ("bettler", True), ("kontraschnapser", True)} <= bids
    state, _ = _run(state, acts[2:4])  # middlehand bettler, dealer passes
    assert ("bettler", False) in _bids(state)  # forehand may hold it
    state, _ = _run(state, acts[4:5])
    assert ("bettler", False) not in _bids(state)  # middlehand may not hold against forehand
    assert ("bettler", True) in _bids(state)


def test_view_lists_the_auction_and_doubling() -> None:
    state, acts = _start("spritzen-x8")
    state, _ = _run(state, acts[:10])
    v = P.view(state, None)
    assert v.bids == ((1, Bid("normal")), (2, Pass()), (0, Pass()))
    assert v.multiplier == 8 and v.phase == "play" and v.contract == "normal"
    assert len(dict(v.extra)["spritzen"]) == 5  # type: ignore[arg-type]


def test_spritzen_is_told_double_by_double() -> None:
    """RULES.md §3 Spritzen / §6 doubling order: the table hears each double with the
    multiplier it makes (x2, x4, x8) and each pass, in the order they are said."""
    state, acts = _start("spritzen-x8")
    _, events = _run(state, acts[:10])
    assert [e for i, e in events if i >= 5] == [
        Passed(2),
        Doubled(0, 2),
        Doubled(1, 4),
        Passed(2),
        Doubled(0, 8),
    ]


def test_a_raise_is_told_with_the_discard_whose_cards_only_the_declarer_sees() -> None:
    """RULES.md §3 Talon (raise_after_talon): middlehand lays TS JS away and names the
    Gang with them; everyone is told that he discarded and what he now plays, but the
    two cards only he sees (they count for nobody, face down)."""
    state, acts = _start("raise-after-talon")
    state, events = _run(state, acts[:6])
    discarded, raised = [e for i, e in events if i == 5]
    assert raised == Raised(2, contract="gang")
    assert isinstance(discarded, Discarded) and discarded.seat == 2
    assert set(discarded.cards or ()) == set(Card.parse("TS JS"))
    for seat in (0, 1, None):
        assert redact(discarded, seat) == Discarded(2, None)
    assert P.view(state, None).contract == "gang"


def test_discard_legal_set_with_and_without_raise() -> None:
    state, acts = _start("raise-after-talon")
    state, _ = _run(state, acts[:5])
    legal = P.legal_actions(state)
    plain = [a for a in legal if isinstance(a, Discard) and a.contract is None]
    assert len(plain) == 28  # any 2 of the 8 cards
    raised = {a.contract for a in legal if isinstance(a, Discard) and a.contract}
    assert "gang" in raised and "schnapser" not in raised and "bettler" not in raised
    opts = dreier.options({"dreier.raise_after_talon": False})
    state2 = dreier.start_deal(
        opts, 0, hands=[list(h) for h in state.dealt[:3]], talon=list(state.dealt[3])
    )
    state2, _ = _run(state2, acts[:5])
    assert all(isinstance(a, Discard) and a.contract is None for a in P.legal_actions(state2))


@pytest.mark.parametrize(
    ("action", "code"),
    [
        (ChooseTrump(suit=Suit.SPADES), "trump_not_in_first_packet"),
        (ChooseTrump(blind=2), "invalid_blind"),
        (ChooseTrump(suit=Suit.HEARTS, blind=3), "invalid_trump"),
        (ChooseTrump(), "invalid_trump"),
        (Redeal(), "redeal_not_allowed"),
        (Bid("normal"), "action_not_allowed"),
    ],
)
def test_naming_trumps_refusals_say_why(action: Action, code: str) -> None:
    """docs/rules/dreier.md refusal codes before trumps are named: forehand's first
    packet is AH TH KH (no Spades, no three Jacks); a blind card is one of 3, 4, 5; a
    suit and a blind card at once is neither; bidding waits for trumps."""
    state, _ = _start("trump-blind-card")
    with pytest.raises(IllegalAction) as refused:
        P.apply(state, 1, action)
    assert refused.value.code == code


def test_while_spritzen_only_double_or_pass() -> None:
    """RULES.md §3 Spritzen comes before the first lead: a card played then is
    refused as an action of another phase (action_not_allowed)."""
    state, acts = _start("spritzen-x8")
    state, _ = _run(state, acts[:5])
    with pytest.raises(IllegalAction) as refused:
        P.apply(state, 2, PlayCard(Card.from_id("AD")))
    assert refused.value.code == "action_not_allowed"


def test_refusals_explain_why() -> None:
    state, acts = _start("raise-after-talon")
    state, _ = _run(state, acts[:5])
    three = Discard(Card.parse("TS JS AH"))
    codes = {}
    cases: list[tuple[str, Action]] = [
        ("three", three),
        ("play", PlayCard(Card.from_id("AH"))),
        ("farben", Discard(Card.parse("TS JS"), "farbenringerl")),
        ("unknown", Discard(Card.parse("TS JS"), "zehnerloch")),
    ]
    for name, action in cases:
        with pytest.raises(IllegalAction) as e:
            P.apply(state, 2, action)
        codes[name] = e.value.code
    assert codes == {
        "three": "invalid_discard",
        "play": "action_not_allowed",
        "farben": "contract_not_allowed",
        "unknown": "unknown_contract",
    }


def test_refused_action_changes_nothing_and_copy_is_independent() -> None:
    state, acts = _start("gang-won")
    state, _ = _run(state, acts[:8])
    before = (state.turn, state.locations(), P.view(state, None))
    with pytest.raises(IllegalAction):
        P.apply(state, 2, PlayCard(Card.from_id("JH")))
    twin = state.copy()
    twin.step(twin.legal()[0])
    assert (state.turn, state.locations(), P.view(state, None)) == before


# --- options, registry, match ---------------------------------------------------------------


def test_options_ids_defaults_and_errors() -> None:
    ids = set(option_ids(dreier.DreierOptions, "dreier"))
    assert {
        "auto_claim",
        "dreier.without_talon",
        "dreier.raise_after_talon",
        "dreier.caller_first",
        "dreier.carinthian",
        "dreier.count_down",
        "dreier.cut_ritual",
        "dreier.assenbettler",
        "dreier.assbettler",
        "dreier.plauderer",
        "dreier.zehnergang",
        "dreier.bauernloch",
    } == ids
    # RULES.md §3: auto-claim, without talon and the raise are on by default; every
    # *option* (the five optional contracts, the regional orders, the display ones) off
    on = {k for k, v in options_to_json(dreier.options(), "dreier").items() if v}
    assert on == {"auto_claim", "dreier.without_talon", "dreier.raise_after_talon"}
    with pytest.raises(OptionError, match=r"unknown option 'dreier\.gangl'"):
        dreier.options({"dreier.gangl": True})
    with pytest.raises(OptionError, match="true or false") as refused:
        dreier.options({"dreier.carinthian": 1})
    # what a program needs to word the refusal itself, in its user's language
    assert refused.value.code == "bool"
    assert refused.value.values == {"key": "dreier.carinthian", "value": "1"}
    with pytest.raises(OptionError) as unknown:
        dreier.options({"dreier.gangl": True})
    assert unknown.value.code == "unknown"
    assert unknown.value.values["key"] == "dreier.gangl"
    assert "dreier.carinthian" in unknown.value.values["known"]
    for contract in dreier.CONTRACTS:
        if contract.option is not None:
            assert f"dreier.{contract.option}" in ids


@pytest.mark.parametrize("preset", sorted(dreier.PRESETS))
def test_presets_are_valid_option_sets(preset: str) -> None:
    dreier.options(dreier.PRESETS[preset])


def test_each_preset_plays_what_it_is_named_for() -> None:
    """docs/rules/dreier.md presets: each one is a different table; all_contracts
    enables every row of RULES.md §3's contract table, and the others turn on (or, for
    manual_claims, off) the option they are named after."""
    tables = {name: dreier.options(raw) for name, raw in dreier.PRESETS.items()}
    assert len(set(tables.values())) == len(tables)
    assert enabled_rows(tables["all_contracts"]) == tuple(range(len(dreier.CONTRACTS)))
    assert tables["standard"] == dreier.DreierOptions()
    assert not tables["manual_claims"].auto_claim
    for name in ("carinthian", "caller_first", "count_down"):
        assert getattr(tables[name], name) is True


def test_registry_and_selfplay() -> None:
    assert "dreier" in available() and game("dreier") is dreier.GAME
    out = play_random_deals("dreier", 50, 3, {"dreier.plauderer": True})
    assert out["deals"] == 50 and out["actions"] > 50


def _result(points: tuple[int, int, int], reason: str = "made") -> DealResult:
    return DealResult(points=points, winners=(), reason=reason)


def test_match_rotation_redeal_and_tie_break_dealer() -> None:
    m = dreier.new_match(dreier.DreierOptions(), first_dealer=2)
    spec = m.next_deal()
    assert spec is not None and spec.dealer == 2 and spec.game == "dreier"
    m.add_result(spec, _result((0, 0, 0), "redeal"))
    spec = m.next_deal()
    assert spec is not None and spec.dealer == 2  # the same dealer deals again
    m.add_result(spec, _result((9, 0, 9)))
    spec = m.next_deal()
    assert spec is not None and spec.dealer == 0
    m.add_result(spec, _result((18, 0, 0)))  # 27, 0, 9: seat 1 lowest, Schneider
    assert m.finished and m.bummerl == [0, 2, 0] and m.next_deal() is None

    m = dreier.new_match(dreier.DreierOptions(), first_dealer=0)
    spec = m.next_deal()
    assert spec is not None
    m.add_result(spec, _result((24, 0, 0)))
    spec = m.next_deal()
    # seats 1 and 2 tie at 0; the rotation's next dealer is seat 1, who plays
    assert spec is not None and spec.game == "zweier" and spec.seats == (1, 2)
    assert spec.dealer == 1
    m = dreier.new_match(dreier.DreierOptions(), first_dealer=2)
    spec = m.next_deal()
    assert spec is not None
    m.add_result(spec, _result((0, 24, 0)))  # seats 0 and 2 tie; rotation says seat 0
    spec = m.next_deal()
    assert spec is not None and spec.seats == (0, 2) and spec.dealer == 0
