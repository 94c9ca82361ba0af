"""Bauernschnapsen pieces the scenario records do not show: options and presets, the
contract table, the seeded split, and what the views show phase by phase."""

from __future__ import annotations

import random

import pytest

from engine import bauern
from engine import protocol as P
from engine.actions import Action, Bid, ChooseTrump, Double, Pass, PlayCard
from engine.bauern import CONTRACTS, PRESETS, BauernDeal, BauernOptions, Kind
from engine.cards import DECK20, Card, Suit, index_of
from engine.errors import IllegalAction, OptionError
from engine.games import available, game
from engine.protocol import DealCore
from engine.selfplay import play_random_deals

G = [
    ["AH", "TH", "KH", "AD", "TD"],
    ["QH", "JH", "KD", "QD", "JD"],
    ["AC", "TC", "KC", "QC", "JC"],
    ["AS", "TS", "KS", "QS", "JS"],
]


def _start(
    hands: list[list[str]], opts: BauernOptions | None = None, dealer: int = 3
) -> BauernDeal:
    return bauern.start_deal(
        opts or BauernOptions(), dealer, hands=[[index_of(c) for c in h] for h in hands]
    )


def _run(state: DealCore, *moves: tuple[int, Action]) -> DealCore:
    for seat, action in moves:
        state, _ = P.apply(state, seat, action)
    return state


def test_registered_and_presets_parse() -> None:
    assert "bauern" in available()
    spec = game("bauern")
    assert spec.players == 4
    for name, preset in PRESETS.items():
        assert isinstance(spec.parse_options(preset), BauernOptions), name


def test_options_are_validated() -> None:
    assert bauern.options({"bauern.bettler_points": 5}).bettler_points == 5
    with pytest.raises(OptionError):
        bauern.options({"bauern.bettler_points": 6})
    with pytest.raises(OptionError):
        bauern.options({"bauern.carinthian": True})
    with pytest.raises(ValueError):
        BauernOptions(bettler_points=3)


def test_contract_table_is_rules_md_order() -> None:
    """RULES.md §4 ranks the contracts in its table's row order."""
    assert [c.id for c in CONTRACTS] == [
        "normal",
        "bettler",
        "assbettler",
        "schnapser",
        "gang",
        "zehnergang",
        "kontraschnapser",
        "bauernschnapser",
        "farbengang",
        "kontrabauernschnapser",
        "herrenschnapser",
    ]
    assert [c.value for c in CONTRACTS] == [1, 4, 5, 6, 9, 10, 12, 12, 18, 24, 24]
    assert [c.id for c in CONTRACTS if c.marriages_count] == [
        "normal",
        "schnapser",
        "kontraschnapser",
    ]
    assert {c.id for c in CONTRACTS if c.kind == Kind.SHOWN} == {"farbengang", "herrenschnapser"}


def test_seeded_split_follows_the_docs() -> None:
    """docs/rules/bauern.md: 3 each from forehand clockwise, then 2 each."""
    deck = list(DECK20)
    hands = bauern.deal_from_deck(deck, dealer=1)  # forehand is seat 2
    assert hands[2] == [deck[0], deck[1], deck[2], deck[12], deck[13]]
    assert hands[3] == [deck[3], deck[4], deck[5], deck[14], deck[15]]
    assert hands[0] == [deck[6], deck[7], deck[8], deck[16], deck[17]]
    assert hands[1] == [deck[9], deck[10], deck[11], deck[18], deck[19]]
    state = bauern.start_deal(BauernOptions(), 1, seed=b"x")
    assert len(state.dealt) == 5 and state.dealt[4] == ()


def test_bettler_can_be_switched_off() -> None:
    state: DealCore = _start(G, BauernOptions(bettler=False))
    state = _run(state, (0, ChooseTrump(suit=Suit.HEARTS)))
    assert Bid("bettler") not in P.legal_actions(state)
    with pytest.raises(IllegalAction) as e:
        P.apply(state, 0, Bid("bettler"))
    assert e.value.code == "contract_not_allowed"


def test_views_through_a_bettler() -> None:
    state: DealCore = _start(G)
    assert P.view(state, 1).phase == "trump" and len(P.view(state, 1).hand) == 3
    state = _run(state, (0, ChooseTrump(suit=Suit.HEARTS)), (0, Bid("normal")))
    v = P.view(state, None)
    assert v.phase == "bidding" and v.trump == Suit.HEARTS and v.contract is None
    assert dict(v.extra)["high_bid"] == ("normal", 0)
    state = _run(state, (1, Bid("bettler")), (2, Pass()), (3, Pass()), (0, Pass()))
    v = P.view(state, 3)
    assert v.phase == "doubling" and v.contract == "bettler" and v.declarer == 1
    assert v.sitting_out == 3 and v.trump is None and v.to_act == 0
    assert dict(v.extra)["named_trump"] == Suit.HEARTS
    assert [a for _, a in v.bids] == [
        Bid("normal"),
        Bid("bettler"),
        Pass(),
        Pass(),
        Pass(),
    ]
    state = _run(state, (0, Double()), (1, Pass()))
    v = P.view(state, 1)
    assert v.phase == "play" and v.multiplier == 2 and v.to_act == 1
    assert v.known == ()  # nobody's cards, not even the partner's
    state = _run(state, (1, PlayCard(Card.from_id("JH"))), (2, PlayCard(Card.from_id("JC"))))
    assert P.to_act(state) == 0  # seat 3 sits out and is skipped
    state = _run(state, (0, PlayCard(Card.from_id("KH"))))
    v = P.view(state, None)
    assert v.tricks_won == (1, 0, 0, 0) and len(v.last_trick) == 3 and v.last_trick_winner == 0


def test_marriage_partner_is_shown_until_played() -> None:
    hands = [
        ["KH", "QH", "QS", "AD", "JC"],
        ["AS", "QC", "QD", "JH", "TS"],
        ["JS", "KC", "KD", "AH", "TD"],
        ["KS", "AC", "JD", "TH", "TC"],
    ]
    state: DealCore = _run(
        _start(hands),
        (0, ChooseTrump(suit=Suit.HEARTS)),
        (0, Bid("normal")),
        (1, Pass()),
        (2, Pass()),
        (3, Pass()),
        (1, Pass()),
        (3, Pass()),
        (0, PlayCard(Card.from_id("KH"), marriage=True)),
    )
    queen = Card.from_id("QH")
    for seat in (1, 2, 3, None):
        assert (0, queen) in P.view(state, seat).known
    v = P.view(state, 0)
    assert v.marriages == ((0, Suit.HEARTS, 40),)
    assert dict(v.extra)["pending_marriage_points"] == (40, 0, 0, 0)  # no trick yet


def test_selfplay_smoke() -> None:
    out = play_random_deals("bauern", 50, 7)
    assert out["deals"] == 50 and out["actions"] > 50
    # Both partners always carry the same points.
    assert out["points"][0] == out["points"][2] and out["points"][1] == out["points"][3]


def test_the_view_tells_the_auction_from_the_doubling() -> None:
    """`bids` holds the auction and then the Kontra round; `auction_length` says
    where one ends, so a table can show the bids without the doubling's passes."""
    seen_doubling = 0
    for i in range(60):
        rng = random.Random(i)
        state: DealCore = bauern.start_deal(BauernOptions(), i % 4, seed=f"a{i}".encode())
        doubling_moves = 0
        while (seat := P.to_act(state)) is not None:
            view = P.view(state, None)
            if view.phase == "doubling":
                doubling_moves += 1
            state, _ = P.apply(state, seat, rng.choice(P.view(state, seat).legal))
            after = P.view(state, None)
            n = dict(after.extra)["auction_length"]
            if after.phase in ("doubling", "play") or doubling_moves:
                assert isinstance(n, int)
                assert len(after.bids) - n == doubling_moves
                assert not any(isinstance(a, Double) for _, a in after.bids[:n])
        seen_doubling += doubling_moves > 0
    assert seen_doubling > 5
