"""Game records (RULES.md §6): read, check, replay and write them.

A record is the whole truth about a game: the bot stores it, rebuilds tables from it
after a restart, and `python -m engine replay` answers for it.  `replay_record`
returns ``(exit_code, answer)`` exactly as §6 describes:

- 0 and ``{"ok": true, "finished", "scores", "deals", "bummerl", ...}`` for a legal
  record (the last deal may be open: ``"open": true, "to_act": seat``);
- 1 and ``{"ok": false, "deal", "action", "error", "message"}`` for an illegal action;
- 2 and a one-line message for a document that is not a record.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .actions import (
    Action,
    ActionFormatError,
    Claim,
    PlayCard,
    action_from_json,
    action_to_json,
)
from .cards import CardError, ids, index_of
from .errors import IllegalAction, OptionError, RecordError
from .games import UnknownGame, game
from .match import DealSpec, Match
from .protocol import DealCore, GameSpec, apply
from .shuffle import SeedError, seed_bytes


@dataclass
class DealRecord:
    """One deal of a record, parsed (cards as indices, actions as values)."""

    dealer: int
    hands: list[list[int]] | None
    talon: list[int] | None
    seed: str | None
    actions: list[tuple[int, Action]]
    game: str | None = None
    seats: list[int] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class Record:
    game: str
    options: dict[str, Any]
    deals: list[DealRecord]


class ReplayFailed(Exception):
    """An illegal action (or deal-level mistake) at a place in the record."""

    def __init__(self, deal: int, action: int | None, code: str, message: str) -> None:
        super().__init__(f"deal {deal}, action {action}: {code}: {message}")
        self.deal = deal
        self.action = action
        self.code = code
        self.message = message

    def answer(self) -> dict[str, Any]:
        return {
            "ok": False,
            "deal": self.deal,
            "action": self.action,
            "error": self.code,
            "message": self.message,
        }


# --- reading ---------------------------------------------------------------------------


def _cards(value: object, what: str) -> list[int]:
    if not isinstance(value, list):
        raise RecordError(f"{what} must be a list of card ids")
    try:
        return [index_of(c) for c in value]
    except CardError as e:
        raise RecordError(f"{what}: {e}") from None


def _int(value: object, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise RecordError(f"{what} must be an integer, got {value!r}")
    return value


def parse_record(obj: object) -> Record:
    """Check a decoded JSON document against the §6 shape; `RecordError` says what is wrong."""
    if not isinstance(obj, Mapping):
        raise RecordError("a record must be a JSON object")
    gid = obj.get("game")
    if not isinstance(gid, str):
        raise RecordError("the record needs a 'game' id string")
    options = obj.get("options", {})
    if options is None:
        options = {}
    if not isinstance(options, Mapping):
        raise RecordError("'options' must be a JSON object")
    deals_raw = obj.get("deals")
    if not isinstance(deals_raw, list):
        raise RecordError("the record needs a 'deals' list")
    deals: list[DealRecord] = []
    for i, d in enumerate(deals_raw):
        where = f"deals[{i}]"
        if not isinstance(d, Mapping):
            raise RecordError(f"{where} must be a JSON object")
        dealer = _int(d.get("dealer"), f"{where}.dealer")
        hands = None
        if "hands" in d and d["hands"] is not None:
            if not isinstance(d["hands"], list):
                raise RecordError(f"{where}.hands must be a list of hands")
            hands = [_cards(h, f"{where}.hands[{k}]") for k, h in enumerate(d["hands"])]
        talon = None
        if "talon" in d and d["talon"] is not None:
            talon = _cards(d["talon"], f"{where}.talon")
        seed = d.get("seed")
        if seed is not None:
            if not isinstance(seed, str):
                raise RecordError(f"{where}.seed must be a hex string")
            try:
                seed_bytes(seed)
            except SeedError as e:
                raise RecordError(f"{where}.seed: {e}") from None
        if seed is None and hands is None:
            raise RecordError(f"{where} needs 'hands' or a 'seed'")
        acts_raw = d.get("actions", [])
        if not isinstance(acts_raw, list):
            raise RecordError(f"{where}.actions must be a list")
        acts: list[tuple[int, Action]] = []
        for j, a in enumerate(acts_raw):
            if not isinstance(a, Mapping):
                raise RecordError(f"{where}.actions[{j}] must be a JSON object")
            seat = _int(a.get("seat"), f"{where}.actions[{j}].seat")
            try:
                acts.append((seat, action_from_json(a)))
            except ActionFormatError as e:
                raise RecordError(f"{where}.actions[{j}]: {e}") from None
        dgame = d.get("game")
        if dgame is not None and not isinstance(dgame, str):
            raise RecordError(f"{where}.game must be a game id")
        seats = d.get("seats")
        if seats is not None and (
            not isinstance(seats, list)
            or not all(isinstance(s, int) and not isinstance(s, bool) for s in seats)
        ):
            raise RecordError(f"{where}.seats must be a list of seat numbers")
        known = {"dealer", "hands", "talon", "seed", "actions", "game", "seats"}
        extra = {k: v for k, v in d.items() if k not in known}
        deals.append(DealRecord(dealer, hands, talon, seed, acts, dgame, seats, extra))
    return Record(gid, dict(options), deals)


# --- replaying ---------------------------------------------------------------------------


@dataclass
class ReplayState:
    """Where a replay stands: the match, and the open deal if the record stops in one."""

    spec: GameSpec
    match: Match
    deal_summaries: list[dict[str, Any]]
    open_spec: DealSpec | None = None
    open_state: DealCore | None = None

    def answer(self) -> dict[str, Any]:
        summary = self.match.summary()
        deals = list(self.deal_summaries)
        if self.open_state is not None and self.open_spec is not None:
            deals.append(open_deal_summary(self.open_spec, self.open_state, self.match.players))
        out: dict[str, Any] = {
            "ok": True,
            "finished": summary.pop("finished"),
            "scores": summary.pop("scores"),
            "deals": deals,
            "bummerl": summary.pop("bummerl"),
        }
        out.update(summary)
        return out


def _to_match_seat(spec: DealSpec, seat: int | None) -> int | None:
    return None if seat is None else spec.seats[seat]


def open_deal_summary(spec: DealSpec, state: DealCore, players: int) -> dict[str, Any]:
    v = state.view(None)
    return {
        "contract": v.contract,
        "declarer": _to_match_seat(spec, v.declarer),
        "multiplier": v.multiplier,
        "points": [0] * players,
        "open": True,
        "to_act": _to_match_seat(spec, v.to_act),
    }


def start_recorded_deal(
    match: Match, spec: DealSpec, d: DealRecord, deal_no: int, record_game: str
) -> DealCore:
    """The initial state of a recorded deal, after the deal-level checks of §6."""
    if d.dealer != spec.dealer:
        raise ReplayFailed(
            deal_no,
            None,
            "wrong_dealer",
            f"seat {spec.dealer} deals this deal, not seat {d.dealer}",
        )
    dgame = d.game or record_game
    seats = list(spec.seats) if d.seats is None else d.seats
    if dgame != spec.game or seats != list(spec.seats):
        raise ReplayFailed(
            deal_no,
            None,
            "wrong_deal",
            f"this deal is a {spec.game} deal between seats {list(spec.seats)}, "
            f"not {dgame} between {seats}",
        )
    try:
        if d.seed is not None:
            state = match.start_deal(spec, seed=seed_bytes(d.seed))
            *dealt_hands, dealt_talon = state.dealt
            if (d.hands is not None and [list(h) for h in dealt_hands] != d.hands) or (
                d.talon is not None and list(dealt_talon) != d.talon
            ):
                raise ReplayFailed(
                    deal_no,
                    None,
                    "seed_mismatch",
                    "the hands and talon are not what the seed deals",
                )
        else:
            state = match.start_deal(spec, hands=d.hands, talon=d.talon)
    except ValueError as e:
        raise RecordError(f"deals[{deal_no}]: {e}") from None
    return state


def _declare_and_claim(actions: Sequence[tuple[int, Action]], j: int) -> PlayCard | None:
    """A marriage led and, as the next action, a claim by the same seat: one action.

    Our records write "forty, and I'm out" as one `play` with `claim: true`; a program
    that writes it as two actions means the same, but after the `play` it is no longer
    the leader's turn, so the engine alone would refuse the `claim` (`not_your_turn`).
    """
    seat, action = actions[j]
    if j + 1 >= len(actions) or not isinstance(action, PlayCard):
        return None
    nseat, nxt = actions[j + 1]
    if not action.marriage or action.claim or nseat != seat or not isinstance(nxt, Claim):
        return None
    return PlayCard(action.card, True, True)


def replay_parsed(rec: Record) -> ReplayState:
    """Replay a parsed record; raises `ReplayFailed`, `RecordError` or `OptionError`."""
    try:
        spec = game(rec.game)
    except UnknownGame as e:
        raise RecordError(str(e)) from None
    opts = spec.parse_options(rec.options)
    if not rec.deals:
        return ReplayState(spec, spec.new_match(opts, 0), [])
    try:
        match = spec.new_match(opts, rec.deals[0].dealer)
    except ValueError as e:  # a first dealer who is no seat of the table: no record
        raise RecordError(f"deals[0]: {e}") from None
    rs = ReplayState(spec, match, [])
    for i, d in enumerate(rec.deals):
        dspec = match.next_deal()
        if dspec is None:
            raise ReplayFailed(i, None, "match_over", "the match is already over")
        state = start_recorded_deal(match, dspec, d, i, rec.game)
        j = 0
        while j < len(d.actions):
            seat, action = d.actions[j]
            if seat not in dspec.seats:
                raise ReplayFailed(i, j, "not_your_turn", f"seat {seat} does not play in this deal")
            merged = _declare_and_claim(d.actions, j)
            if merged is not None:
                try:
                    state, _ = apply(state, dspec.seats.index(seat), merged)
                    j += 2
                    continue
                except IllegalAction:
                    pass  # replayed one by one below, so the error names the action refused
            try:
                state, _ = apply(state, dspec.seats.index(seat), action)
            except IllegalAction as e:
                if e.code == "not_your_turn" and state.turn >= 0:
                    e = IllegalAction(
                        e.code, f"it is seat {dspec.seats[state.turn]}'s turn, not seat {seat}'s"
                    )
                raise ReplayFailed(i, j, e.code, e.message) from None
            j += 1
        res = state.result()
        if res is None:
            if i != len(rec.deals) - 1:
                raise ReplayFailed(
                    i + 1, None, "deal_not_over", f"deal {i} has not ended when deal {i + 1} starts"
                )
            rs.open_spec, rs.open_state = dspec, state
            break
        points = match.add_result(dspec, res)
        rs.deal_summaries.append(
            {
                "contract": res.contract,
                "declarer": _to_match_seat(dspec, res.declarer),
                "multiplier": res.multiplier,
                "points": list(points),
            }
        )
    return rs


def replay_record(obj: object) -> tuple[int, dict[str, Any] | str]:
    """Replay a decoded record: (exit code, JSON answer or one-line message)."""
    try:
        rec = parse_record(obj)
        rs = replay_parsed(rec)
    except ReplayFailed as e:
        return 1, e.answer()
    except (RecordError, OptionError) as e:
        return 2, f"not a valid record: {e}"
    return 0, rs.answer()


def replay_text(text: str) -> tuple[int, dict[str, Any] | str]:
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as e:
        return 2, f"not valid JSON: {e.msg} (line {e.lineno}, column {e.colno})"
    return replay_record(obj)


# --- writing -----------------------------------------------------------------------------


def deal_json(
    dealer: int,
    state: DealCore | None = None,
    *,
    seed: str | None = None,
    actions: Sequence[tuple[int, Action]] = (),
    game_id: str | None = None,
    seats: Sequence[int] | None = None,
) -> dict[str, Any]:
    """One deal in record form.  The hands and talon come from the state as dealt."""
    out: dict[str, Any] = {}
    if game_id is not None:
        out["game"] = game_id
    if seats is not None:
        out["seats"] = list(seats)
    out["dealer"] = dealer
    if seed is not None:
        out["seed"] = seed
    if state is not None:
        *hands, talon = state.dealt
        out["hands"] = [ids(list(h)) for h in hands]
        if talon:
            out["talon"] = ids(list(talon))
    out["actions"] = [{"seat": s, **action_to_json(a)} for s, a in actions]
    return out
