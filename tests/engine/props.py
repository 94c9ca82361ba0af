"""One random-playout property check for every game (STYLE.md: OpenSpiel's generic test).

`check_random_deal` deals from a seed, plays random legal actions through the public
protocol (`engine.protocol.apply`) and checks, after every action:
- nothing crashes, and a random *illegal* action is refused without changing the state;
- every card is in exactly one place (the core's `locations`);
- no seat's view (nor the public view) shows a card that seat has not legitimately
  seen: its own hand as dealt, the public cards the game names, and the cards in the
  events as redacted for that seat;
and at the end: the finished deal offers no action to anyone and refuses every one as
`deal_over`; the card points in tricks (plus discards) come to 120 when all cards were
played, and replaying the deal's record gives the same result.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Iterable
from typing import Any

from hypothesis import strategies as st

from engine import protocol as P
from engine.actions import Action, PlayCard, action_from_json
from engine.cards import CARDS, POINTS, Card, cards_of
from engine.errors import IllegalAction
from engine.events import Event, redact
from engine.protocol import DealCore, GameSpec
from engine.record import deal_json, replay_record


def played_through(
    state: DealCore, actions: Iterable[dict[str, Any]]
) -> tuple[DealCore, list[tuple[Event, ...]]]:
    """`actions`, as a record writes them ({"seat": 1, "do": "bid", ...}), applied in
    turn through the public protocol: the state after, and each action's events."""
    told: list[tuple[Event, ...]] = []
    for act in actions:
        state, events = P.apply(state, int(act["seat"]), action_from_json(act))
        told.append(events)
    return state, told


def cards_in(obj: object) -> Iterable[Card]:
    """Every Card inside an event (fields, tuples, (seat, card) pairs)."""
    if isinstance(obj, Card):
        yield obj
    elif isinstance(obj, tuple | list):
        for x in obj:
            yield from cards_in(x)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            yield from cards_in(getattr(obj, f.name))


def _fingerprint(state: DealCore) -> tuple[Any, ...]:
    return (state.turn, tuple(sorted(state.locations().items())), state.view(None))


def check_random_deal(
    spec: GameSpec,
    options: Any,
    dealer: int,
    deal_seed: bytes,
    choice_seed: int,
    public_at_start: Callable[[DealCore], Iterable[int]] = lambda s: (),
    max_actions: int = 500,
) -> DealCore:
    rng = random.Random(choice_seed)
    state = spec.start_deal(options, dealer, seed=deal_seed)
    players = len(state.dealt) - 1
    deck = 0
    for part in state.dealt:
        for c in part:
            deck |= 1 << c
    public = {CARDS[c] for c in public_at_start(state)}
    known: list[set[Card]] = [{CARDS[c] for c in state.dealt[s]} | public for s in range(players)]
    actions: list[tuple[int, Action]] = []
    for _ in range(max_actions):
        _check_locations(state, deck)
        _check_views(state, known, public, players)
        seat = P.to_act(state)
        if seat is None:
            break
        legal = P.legal_actions(state)
        assert legal, "a seat to act must have a legal action"
        _check_refusal(state, seat, legal, rng)
        action = rng.choice(legal)
        new, events = P.apply(state, seat, action)
        actions.append((seat, action))
        for s in range(players):
            for e in events:
                known[s].update(cards_in(redact(e, s)))
        for e in events:
            public.update(cards_in(redact(e, None)))
        state = new
    else:
        raise AssertionError("the deal did not end")
    res = P.result(state)
    assert res is not None
    _check_deal_over(state, [a for _, a in actions])
    _check_points(state)
    _check_replay(spec, options, dealer, state, deal_seed, actions, res)
    return state


def _check_locations(state: DealCore, deck: int) -> None:
    seen = 0
    for name, mask in state.locations().items():
        assert not seen & mask, f"a card is in two places ({name})"
        seen |= mask
    assert seen == deck, "cards went missing or appeared"


def _check_views(state: DealCore, known: list[set[Card]], public: set[Card], players: int) -> None:
    for s in range(players):
        leaked = state.view(s).cards_seen() - known[s]
        assert not leaked, f"seat {s} sees cards it may not know: {sorted(map(str, leaked))}"
    leaked = state.view(None).cards_seen() - public
    assert not leaked, f"the public view shows hidden cards: {sorted(map(str, leaked))}"


def _check_refusal(
    state: DealCore, seat: int, legal: tuple[Action, ...], rng: random.Random
) -> None:
    """An illegal action (another card, or another seat) changes nothing."""
    before = _fingerprint(state)
    others = [s for s in range(len(state.dealt) - 1) if s != seat]
    try:
        P.apply(state, rng.choice(others), legal[0])
    except IllegalAction as e:
        assert e.code == "not_your_turn"
    else:
        raise AssertionError("a seat acted out of turn")
    for c in CARDS:
        a = PlayCard(c)
        if a not in legal:
            try:
                P.apply(state, seat, a)
            except IllegalAction as e:
                assert e.code and e.message
            else:
                raise AssertionError(f"illegal {a} accepted")
            break
    assert _fingerprint(state) == before, "a refused action changed the state"


def _check_deal_over(state: DealCore, tried: Iterable[Action]) -> None:
    """A finished deal offers no action: nobody is to act, no action is legal (to the
    protocol, the core or any seat's view), and each action tried, by every seat, is
    refused with the reason `deal_over` (an `IllegalAction` a chat can say, nothing
    raised from deeper), leaving the deal as it was.  `tried`: the actions played in
    the deal, each legal once, and every card is tried too."""
    before = _fingerprint(state)
    players = len(state.dealt) - 1
    assert P.to_act(state) is None
    assert P.legal_actions(state) == () and state.legal() == []
    for seat in range(players):
        assert P.view(state, seat).legal == ()
        assert P.view(state, seat).to_act is None
        for action in dict.fromkeys([*tried, *(PlayCard(c) for c in CARDS)]):
            try:
                P.apply(state, seat, action)
            except IllegalAction as e:
                assert (e.code, e.message) == ("deal_over", "the deal is over"), action
            else:
                raise AssertionError(f"seat {seat}'s {action} accepted after the deal ended")
    assert _fingerprint(state) == before, "a refused action changed the finished deal"


def _check_points(state: DealCore) -> None:
    loc = state.locations()
    in_play = sum(m for k, m in loc.items() if not k.startswith(("won", "discard")))
    if in_play == 0:
        total = sum(POINTS[c] for k, m in loc.items() for c in cards_of(m))
        assert total == 120, f"card points come to {total}, not 120"


def _check_replay(
    spec: GameSpec,
    options: Any,
    dealer: int,
    state: DealCore,
    deal_seed: bytes,
    actions: list[tuple[int, Action]],
    res: Any,
) -> None:
    from engine.options import options_to_json

    record = {
        "game": spec.id,
        "options": options_to_json(options, spec.id),
        "deals": [deal_json(dealer, state, seed=deal_seed.hex(), actions=actions)],
    }
    code, answer = replay_record(record)
    assert code == 0, answer
    assert isinstance(answer, dict)
    if res.reason != "redeal":
        assert answer["deals"][0]["points"] == list(res.points)


def option_values(f: dataclasses.Field[Any]) -> tuple[Any, ...]:
    """Every value a rule option may take: a switch off and on, a narrowed one each
    of its ``choices`` (engine.options reads the same metadata)."""
    choices = f.metadata.get("choices")
    if choices:
        return tuple(choices)
    assert f.type in ("bool", bool), f"option {f.name}: which values?"
    return (False, True)


def every_option(cls: type[Any], **fixed: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """A game's rule options with every field drawn from its values (a switch on or
    off, a choice among its ``choices``), so an option added to the game later is
    played by the property tests without anyone listing it; `fixed` draws a field
    otherwise."""
    draw: dict[str, st.SearchStrategy[Any]] = {}
    for f in dataclasses.fields(cls):
        values = option_values(f)
        draw[f.name] = st.booleans() if values == (False, True) else st.sampled_from(values)
    return st.builds(cls, **(draw | fixed))
