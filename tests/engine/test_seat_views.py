"""Each seat's view against the rules, judged from the record alone.

`props.py` checks that no view shows a card the engine's own (redacted) events never
showed; it trusts the engine to say what is public, and starts every seat knowing its
whole hand.  Here the knowledge of each seat is worked out afresh from the cards as
dealt and the actions taken, by the rules (RULES.md §2-§5; docs/rules/), and every
view at every step must match it both ways: no card a seat may not know (a second
packet while trumps are named, an unlooked hand, the talon, the discards, a card given
to the other opponent), and nothing public left out (the face-up trump, a turned-up
trump card, a marriage partner shown, a Plauderer's open hand, Thousand's stock).
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass, field
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from engine import bauern, dreier, tausend, zweier
from engine import protocol as P
from engine.actions import (
    Action,
    ChooseTrump,
    Discard,
    ExchangeTrump,
    Give,
    Look,
    PlayCard,
)
from engine.cards import CARDS, Card, Rank, cards_of
from engine.protocol import DealCore, GameSpec

from .props import every_option


def _partner(card: Card) -> Card:
    """The other half of a marriage led with `card`."""
    other = Rank.QUEEN if card.rank == Rank.KING else Rank.KING
    return next(c for c in CARDS if c.suit == card.suit and c.rank == other)


@dataclass
class Knowledge:
    """What the rules let each seat (and the public) know of one deal so far."""

    game: str
    players: int
    dealt: tuple[tuple[Card, ...], ...]
    #: Cards each seat has seen (its own hand as far as it looked, the talon it took,
    #: the card it was given, and everything public).
    seen: list[set[Card]] = field(default_factory=list)
    public: set[Card] = field(default_factory=set)
    #: Cards everyone knows lie in a seat's hand (shown), while they stay there.
    shown: list[set[Card]] = field(default_factory=list)
    #: Cards one seat alone knows lie in another's hand: seen[s][o].
    told: list[list[set[Card]]] = field(default_factory=list)
    looked: set[int] = field(default_factory=set)
    gives: int = 0
    upcard: Card | None = None
    open_hand_shown: bool = False

    def __post_init__(self) -> None:
        n = self.players
        self.seen = [set() for _ in range(n)]
        self.shown = [set() for _ in range(n)]
        self.told = [[set() for _ in range(n)] for _ in range(n)]

    def share(self, cards: set[Card]) -> None:
        self.public |= cards
        for s in self.seen:
            s |= cards


def _hands(state: DealCore, n: int) -> list[set[Card]]:
    loc = state.locations()
    return [{CARDS[c] for c in cards_of(loc[f"hand{s}"])} for s in range(n)]


def _own_visible(k: Knowledge, state: DealCore, seat: int, phase: str) -> set[Card]:
    """The part of its hand a seat has seen (RULES.md: the first packet while forehand
    names trumps; Thousand's blind bidder none before he looks)."""
    hand = _hands(state, k.players)[seat]
    if k.game in ("dreier", "bauern") and phase == "trump":
        return set(k.dealt[seat][:3])
    if k.game == "tausend" and seat not in k.looked:
        return set()
    return hand


def _before(k: Knowledge, state: DealCore) -> None:
    """Knowledge a state gives before anyone acts in it (dealing, looking done by the
    end of the bidding, the stock turned up, a Plauderer's hand laid open)."""
    pv = P.view(state, None)
    n = k.players
    if k.game == "zweier" and pv.trump_card is not None:
        k.upcard = pv.trump_card if k.upcard is None else k.upcard
        k.share({k.upcard})
    if k.game == "tausend":
        opts = dict(pv.options)
        if not opts.get("tausend.blind_bid") or pv.declarer is not None:
            k.looked |= set(range(n))  # everybody sees his hand once the bidding is over
        if pv.declarer is not None:
            stock = k.dealt[n][:3]  # two players: the first stock only; the second stays down
            k.share(set(stock))
            if pv.declarer is not None and k.gives == 0 and pv.phase in ("give", "discard"):
                k.shown[pv.declarer] |= set(stock)
    plauderer = k.game == "dreier" and pv.contract == "plauderer" and len(pv.tricks) >= 1
    if plauderer and not k.open_hand_shown and pv.declarer is not None:
        hand = _hands(state, n)[pv.declarer]  # laid open after trick 1 (RULES.md §3)
        k.share(hand)
        k.shown[pv.declarer] |= hand
        k.open_hand_shown = True
    res = P.result(state)
    if k.game == "bauern" and res is not None and res.reason == "shown":
        assert pv.declarer is not None  # Farbengang, Herrenschnapser: won on showing
        k.share(_hands(state, n)[pv.declarer])
    if k.game == "dreier" and pv.phase == "discard" and pv.declarer is not None:
        k.seen[pv.declarer] |= set(k.dealt[3])  # he takes the talon unseen by the others
    for s in range(n):
        k.seen[s] |= _own_visible(k, state, s, pv.phase)


def _on_action(k: Knowledge, state: DealCore, new: DealCore, seat: int, action: Action) -> None:
    """What an action tells whom (the state is the one it was taken in)."""
    pv = P.view(state, None)
    n = k.players
    if isinstance(action, PlayCard):
        k.share({action.card})
        if action.marriage:
            k.share({_partner(action.card)})
            k.shown[seat].add(_partner(action.card))
    elif isinstance(action, ChooseTrump) and action.blind is not None:
        card = k.dealt[seat][action.blind]  # turned up for everyone (Dreier blind, Aufschlag)
        k.share({card})
        k.shown[seat].add(card)
    elif isinstance(action, ExchangeTrump):
        assert k.upcard is not None
        jack = next(c for c in CARDS if c.suit == k.upcard.suit and c.rank == Rank.JACK)
        k.shown[seat].add(k.upcard)
        k.upcard = jack
        k.share({jack})
    elif isinstance(action, Look):
        k.looked.add(seat)
    elif isinstance(action, Give):
        k.gives += 1
        k.seen[action.to].add(action.card)
        k.told[seat][action.to].add(action.card)
        if pv.declarer is not None:
            k.shown[pv.declarer] -= set(k.dealt[n][:3])
    elif isinstance(action, Discard) and k.game == "tausend":
        k.gives += 1
        if pv.declarer is not None:
            k.shown[pv.declarer] -= set(k.dealt[n][:3])
    if k.game == "zweier" and k.upcard is not None:
        hands = _hands(new, n)
        for o in range(n):
            if k.upcard in hands[o]:  # the face-up trump drawn last: all saw who took it
                k.shown[o].add(k.upcard)
                k.upcard = None


def _talon_expected(k: Knowledge, state: DealCore, seat: int | None) -> set[Card]:
    pv = P.view(state, None)
    if k.game == "dreier" and pv.phase == "discard" and seat is not None and seat == pv.declarer:
        return set(k.dealt[3])
    if k.game == "tausend" and pv.declarer is not None:
        return set(k.dealt[k.players][:3])
    return set()


def _check(k: Knowledge, state: DealCore) -> None:
    n = k.players
    hands = _hands(state, n)
    pv = P.view(state, None)
    over = P.result(state) is not None
    for seat in [None, *range(n)]:
        v = P.view(state, seat)
        where = f"{k.game} seat {seat} in {v.phase}"
        seen = k.public if seat is None else k.seen[seat]
        extra = v.cards_seen() - seen
        assert not extra, f"{where} sees {sorted(c.id for c in extra)}"
        if seat is not None:
            own = _own_visible(k, state, seat, pv.phase)
            assert set(v.hand) == own, f"{where}: hand {v.hand}, expected {sorted(own)}"
        if over:
            continue  # the deal's end may show more (a shown hand); its seed goes public
        expected = {
            (o, c)
            for o in range(n)
            if o != seat
            for c in hands[o]
            if c in k.shown[o] or (seat is not None and c in k.told[seat][o])
        }
        if pv.phase == "trump":
            expected = set()
        got = set(v.known)
        assert got == expected, (
            f"{where}: known too much {sorted((o, c.id) for o, c in got - expected)}, "
            f"too little {sorted((o, c.id) for o, c in expected - got)}"
        )
        talon = _talon_expected(k, state, seat)
        assert set(v.talon_cards) == talon, f"{where}: talon {v.talon_cards}, not {talon}"
        if k.game == "zweier":
            assert v.trump_card == k.upcard, f"{where}: face-up trump {v.trump_card}"
        if seat != v.to_act:
            assert not v.legal, f"{where} is shown the legal moves of seat {v.to_act}"


def play_and_check(
    spec: GameSpec, options: Any, dealer: int, deal_seed: bytes, choice_seed: int
) -> DealCore:
    rng = random.Random(choice_seed)
    state = spec.start_deal(options, dealer, seed=deal_seed)
    n = len(state.dealt) - 1
    dealt = tuple(tuple(CARDS[c] for c in part) for part in state.dealt)
    k = Knowledge(spec.id, n, dealt)
    for _ in range(500):
        _before(k, state)
        _check(k, state)
        seat = P.to_act(state)
        if seat is None:
            return state
        action = rng.choice(P.legal_actions(state))
        new, _ = P.apply(state, seat, action)
        _on_action(k, state, new, seat, action)
        state = new
    raise AssertionError("the deal did not end")


def _golden_first(opts: tausend.TausendOptions, dealer: int, **kw: Any) -> DealCore:
    return tausend.start_deal(opts, dealer, golden=opts.golden_round, **kw)


TAUSEND_FIRST = dataclasses.replace(tausend.GAME, start_deal=_golden_first)

GAMES: dict[str, tuple[GameSpec, Any]] = {
    "zweier": (zweier.GAME, every_option(zweier.ZweierOptions)),
    "dreier": (dreier.GAME, every_option(dreier.DreierOptions, plauderer=st.just(True))),
    "bauern": (bauern.GAME, every_option(bauern.BauernOptions)),
    "tausend": (TAUSEND_FIRST, every_option(tausend.TausendOptions)),
}


@given(
    data=st.data(),
    name=st.sampled_from(sorted(GAMES)),
    dealer=st.integers(0, 3),
    deal_seed=st.binary(min_size=1, max_size=8),
    choice_seed=st.integers(0, 2**32),
)
def test_every_view_shows_what_the_rules_make_known_and_no_more(
    data: st.DataObject, name: str, dealer: int, deal_seed: bytes, choice_seed: int
) -> None:
    spec, options_strategy = GAMES[name]
    options = data.draw(options_strategy)
    players = getattr(options, "players", spec.players)
    play_and_check(spec, options, dealer % players, deal_seed, choice_seed)


def test_the_channel_knows_the_zweier_cards_shown_into_a_hand() -> None:
    """RULES.md §2: the exchange is made face up and a marriage's partner is shown, so
    the channel's view (seat None) knows where those cards are, as each seat's does and
    as the other games' public views do."""

    def idx(text: str) -> list[int]:
        return [c.index for c in Card.parse(text)]

    state = zweier.GAME.start_deal(
        zweier.ZweierOptions(),
        0,
        hands=[idx("JH JD AD KD TD"), idx("QD TH KH QH JS")],
        talon=idx("AH TC KC QC JC TS KS QS AC AS"),
    )
    state, _ = P.apply(state, 1, ExchangeTrump())
    state, _ = P.apply(state, 1, PlayCard(Card.parse("KH")[0], marriage=True))
    shown = {(1, c) for c in Card.parse("AS QH")}
    assert set(P.view(state, 0).known) == shown
    assert set(P.view(state, None).known) == shown
