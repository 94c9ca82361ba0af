"""A table in a chat, rebuilt from its log of entries.

A table's whole history is an append-only list of small JSON entries (``{"k": kind,
...}``) kept in the store.  `Table.apply` is the one reducer that turns an entry into a
state change, used both live and when the bot restarts and replays the log, so a
rebuilt table is exactly the table that was running.  Entries are decided (and
checked) by `bot.service`; the reducer trusts them.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from engine import protocol as P
from engine.actions import Action, PlayCard, decode
from engine.errors import IllegalAction
from engine.events import Event
from engine.games import game as game_spec
from engine.match import DealSpec, Match
from engine.options import options_to_json
from engine.protocol import DealCore, GameSpec
from engine.record import deal_json

Entry = dict[str, Any]


class Status(StrEnum):
    LOBBY = "lobby"
    PLAYING = "playing"
    FINISHED = "finished"
    ABORTED = "aborted"


@dataclass
class Seat:
    """One seat.  `user` is the human who sits (or sat) there, None for an AI seat;
    `ai` is the AI level playing it now (an AI seat, or a human replaced by the AI)."""

    user: str | None
    name: str
    ai: str | None = None
    missed: int = 0
    # the table version of the computer's last move for him when his time ran out: a
    # button of his older than that is "too late", a newer one merely out of date
    timed_out_at: int = 0
    # a person who deleted his data (/forgetme) in the middle of the match: his seat
    # plays on as a computer's, but the match is his to have left, not the computer's
    # to win for him (`results.standings`)
    forgot: bool = False

    @property
    def human_playing(self) -> bool:
        return self.user is not None and self.ai is None

    @property
    def is_computer(self) -> bool:
        """A seat nobody ever sat at: the computer's own, not a person's it plays."""
        return self.user is None and not self.forgot

    @property
    def replaced(self) -> bool:
        """A person's seat the computer plays for now (his time ran out, or he left)."""
        return self.user is not None and self.ai is not None


@dataclass
class DealLog:
    """One deal as the record keeps it."""

    spec: DealSpec
    seed: str
    state0: DealCore
    actions: list[tuple[int, Action]] = field(default_factory=list)

    @property
    def seed_sha256(self) -> str:
        """The seed's SHA-256, published while the deal runs (the seed after it)."""
        return hashlib.sha256(bytes.fromhex(self.seed)).hexdigest()

    def to_json(self, record_game: str) -> dict[str, Any]:
        spec = self.spec
        tie_break = spec.game != record_game
        d = deal_json(
            spec.dealer,
            self.state0,
            seed=self.seed,
            actions=self.actions,
            game_id=spec.game if tie_break else None,
            seats=spec.seats if tie_break else None,
        )
        d["seed_sha256"] = self.seed_sha256
        return d


def seat_count(spec: GameSpec, options: Any) -> int:
    """Seats at a table: the game's players, or the Thousand `players` option."""
    n = getattr(options, "players", None)
    return n if isinstance(n, int) and n > 0 else spec.players


#: What makes a turn (`Table.turn`): a deal, an action, the seat to act, who plays it.
Turn = tuple[int, int, int | None, bool]


class Table:
    """The in-memory state of one table; see the module docstring."""

    @classmethod
    def from_log(cls, table_id: str, entries: list[Entry]) -> Table:
        """The table its stored log makes (a restart, or a finished table read back)."""
        table = cls(table_id, entries[0])
        for e in entries[1:]:
            table.apply(e)
        return table

    def __init__(self, table_id: str, create: Entry) -> None:
        self.id = table_id
        self.chat: str = create["chat"]
        self.platform: str = create["platform"]
        self.game: str = create["game"]
        self.spec: GameSpec = game_spec(self.game)
        self.options = self.spec.parse_options(create.get("options") or {})
        self.options_json: dict[str, Any] = options_to_json(self.options, self.game)
        self.preset: str | None = create.get("preset")
        self.host: str = create["host"]
        self.settings: dict[str, Any] = dict(create.get("settings") or {})
        self.created_at: float = create.get("at", 0.0)
        self.place: str = create.get("place") or ""
        #: The finished match this lobby is the rematch of (its "Rematch" button)
        self.rematch_of: str | None = create.get("rematch")
        self.seats: list[Seat | None] = [None] * seat_count(self.spec, self.options)
        self.status = Status.LOBBY
        self.version = 1
        self.match: Match | None = None
        self.deal: DealCore | None = None
        self.deal_log: DealLog | None = None
        self.deals: list[DealLog] = []
        self.deal_points: list[list[int]] = []
        self.votes: set[str] = set()
        #: The version the running deal began at: a vote's button drawn before it
        #: belongs to a vote that lapsed with the deal before
        self.deal_from = 0
        self.resigned: int | None = None
        #: Why a match was ended before its end and counted (`end`): "walked_away"
        self.ended: str | None = None
        self.abort_reason: str | None = None
        #: The seat whose timed-out turn the computer is still playing: its move for him
        #: kept the turn (a trump exchange, a closed talon, Thousand's gifts), and a
        #: turn that ran out is played until it passes, not given a new clock and
        #: counted missed again for every step of it
        self.playing_out: int | None = None
        self.deadline: float | None = None
        #: Changed in memory, not yet stored (the service's `_commit` between applying
        #: and the write): nothing is drawn from it then, or a move the database does
        #: not take could be shown, a hidden card with it, and then be undone.
        self.unsaved = False

    def reset_to(self, stored: Table) -> None:
        """Become `stored` (the table read back from its log after a change that could
        not be saved).  In place, not a new object: a press or a command waiting for
        the table's lock holds this one, and must find the table as stored, not
        take a replaced object for a closed table."""
        vars(self).clear()
        vars(self).update(vars(stored))

    # --- queries ---------------------------------------------------------------------

    @property
    def players(self) -> int:
        return len(self.seats)

    def seat_of(self, user: str) -> int | None:
        for i, s in enumerate(self.seats):
            if s is not None and s.user == user:
                return i
        return None

    def humans(self) -> list[str]:
        return [s.user for s in self.seats if s is not None and s.user is not None]

    def host_name(self) -> str | None:
        """The name the host sits under (None: he has no seat any more)."""
        return next((s.name for s in self.seats if s is not None and s.user == self.host), None)

    def present(self) -> list[str]:
        """The people still playing: not one whose seat the computer took over after
        his missed turns (he walked away until he takes it back)."""
        return [s.user for s in self.seats if s is not None and s.user is not None and s.ai is None]

    def abort_votes(self) -> set[str]:
        """The abort votes that count: those of the people still playing."""
        return self.votes & set(self.present())

    def votes_needed(self) -> int:
        """Abort votes that close a running table: a majority of the people still
        playing, so one who walked away cannot keep the others at the table."""
        return len(self.present()) // 2 + 1

    def abort_carried(self) -> bool:
        """The abort votes that count are the majority `votes_needed` asks for."""
        return len(self.abort_votes()) >= self.votes_needed()

    def side(self, seat: int) -> int:
        """The side a seat wins or loses the match with: Bauern's pairs, otherwise
        every player for himself."""
        return seat % 2 if self.game == "bauern" else seat

    def walked_out(self) -> bool:
        """Whether closing the running match now counts it (`end`): somebody walked
        away (the computer took his seat, or he deleted his data) and nobody still
        playing sits on a side with one who did.  The walkers lose then, as at the
        match's end; a plain abort would wipe the loss of one who walked out of a
        match he was losing, once the others tired of playing his computer."""
        if self.status != Status.PLAYING:
            return False
        away = {
            self.side(i)
            for i, s in enumerate(self.seats)
            if s is not None and (s.forgot or s.replaced)
        }
        here = {self.side(i) for i, s in enumerate(self.seats) if s is not None and s.human_playing}
        return bool(away) and bool(here) and not away & here

    def abandoned(self) -> str | None:
        """Why a running match must close now that people walked away (the abort's
        reason), or None.  The last person gone: computers would play the match out
        in the chat, for nobody, and its result count for people who were not there
        ("walked_away").  One gone no longer counts, so the votes cast may now be the
        majority of those still playing ("vote")."""
        if self.status != Status.PLAYING:
            return None
        if self.humans() and not self.present():
            return "walked_away"
        if self.votes and self.abort_carried():
            return "vote"
        return None

    def is_full(self) -> bool:
        return all(s is not None for s in self.seats)

    def to_act(self) -> int | None:
        """The *match* seat to act now, or None."""
        if self.status != Status.PLAYING or self.deal is None or self.deal_log is None:
            return None
        turn = P.to_act(self.deal)
        return None if turn is None else self.deal_log.spec.seats[turn]

    def computer_move(self, seat: int) -> str | None:
        """Whether the computer makes this seat's moves now, after `ai_delay` and on no
        clock: "ai" for a seat it holds, "out" for the rest of a person's turn that ran
        out (`playing_out`); None for a person's own turn, on his clock (or no seat).
        The clocks time the turn by it, and a press of the seat's owner takes it back."""
        s = self.seats[seat]
        if s is None:
            return None
        if not s.human_playing:
            return "ai"
        return "out" if self.playing_out == seat else None

    def turn(self) -> Turn:
        """What makes a new turn (with a deadline of its own): a deal, an action, the
        seat to act, who plays it."""
        seat = self.to_act()
        s = self.seats[seat] if seat is not None else None
        actions = len(self.deal_log.actions) if self.deal_log is not None else -1
        return (len(self.deals), actions, seat, s is not None and s.human_playing)

    def deal_seat(self, match_seat: int) -> int | None:
        if self.deal_log is None:
            return None
        seats = self.deal_log.spec.seats
        return seats.index(match_seat) if match_seat in seats else None

    def legal_codes(self) -> list[int]:
        return self.deal.legal() if self.deal is not None else []

    def record(self, deals: int | None = None) -> dict[str, Any]:
        """The game record (RULES.md §6) of everything played so far, or of the first
        `deals` deals (a match closed mid-deal: the deal it left has secret cards)."""
        return {
            "game": self.game,
            "options": self.options_json,
            "deals": [d.to_json(self.game) for d in self.deals[:deals]],
        }

    # --- the reducer -----------------------------------------------------------------

    def apply(self, entry: Entry) -> tuple[Event, ...]:
        """Apply one logged entry; returns the engine events it caused (for `act`)."""
        self.version += 1
        kind = entry["k"]
        handler = getattr(self, f"_on_{kind}", None)
        if handler is None:
            raise ValueError(f"unknown table log entry {kind!r}")
        events: tuple[Event, ...] = handler(entry) or ()
        return events

    def _on_lang(self, e: Entry) -> None:
        self.settings["lang"] = e["lang"]

    def _on_join(self, e: Entry) -> None:
        self.seats[e["seat"]] = Seat(e["user"], e["name"])
        self.votes.clear()

    def _on_leave(self, e: Entry) -> None:
        seat = self.seats[e["seat"]]
        self.seats[e["seat"]] = None
        if seat is not None and seat.user is not None:
            self.votes.discard(seat.user)

    def _on_ai(self, e: Entry) -> None:
        self.seats[e["seat"]] = Seat(None, e["name"], ai=e["level"])

    def _on_sit(self, e: Entry) -> None:
        self.seats[e["to"]], self.seats[e["from"]] = self.seats[e["from"]], None

    def _on_host(self, e: Entry) -> None:
        self.host = e["user"]

    def _on_start(self, e: Entry) -> None:
        self.status = Status.PLAYING
        self.votes.clear()  # the match's own (a log may hold a lobby's, from before)
        self.match = self.spec.new_match(self.options, e["dealer"])

    def _on_deal(self, e: Entry) -> None:
        assert self.match is not None
        spec = self.match.next_deal()
        if spec is None:  # pragma: no cover - the service never deals after the end
            raise ValueError("the match is over")
        state = self.match.start_deal(spec, seed=bytes.fromhex(e["seed"]))
        # a vote to close lasts the deal it was cast in: one cast at 0:0 must not be
        # picked up by the other side deals later, when the score has turned
        self.votes.clear()
        self.deal_from = self.version
        self.playing_out = None
        self.deal = state
        self.deal_log = DealLog(spec, e["seed"], state)
        self.deals.append(self.deal_log)

    def _on_act(self, e: Entry) -> tuple[Event, ...]:
        assert self.deal is not None and self.deal_log is not None and self.match is not None
        if self.status != Status.PLAYING:
            # resigned, closed or ended while the move was on its way: the service's
            # checks drop such a move; should one slip through, the finished match's
            # record must not grow a move after its end (the engine's "deal_over")
            raise IllegalAction("deal_over", "the match is over")
        spec = self.deal_log.spec
        seat = spec.seats.index(e["seat"])
        action = decode(e["code"], self.deal.contracts)
        self.deal, events = P.apply(self.deal, seat, action)
        self.deal_log.actions.append((e["seat"], action))
        s = self.seats[e["seat"]]
        by = e.get("by")
        if s is not None:
            if by == "t":
                s.missed += 1
            elif by == "p":
                s.missed = 0
            if by in ("t", "o"):  # "o": the rest of a timed-out turn, not missed again
                s.timed_out_at = self.version
        # a card played ends the turn, even when its trick makes him lead the next
        going_on = by in ("t", "o") and not isinstance(action, PlayCard)
        going_on = going_on and P.to_act(self.deal) == seat
        self.playing_out = e["seat"] if going_on else None
        res = P.result(self.deal)
        if res is not None:
            self.deal_points.append(list(self.match.add_result(spec, res)))
            if self.match.finished:
                self.status = Status.FINISHED
        return events

    def _on_replace(self, e: Entry) -> None:
        s = self.seats[e["seat"]]
        if s is not None:
            s.ai = e["level"]

    def _on_back(self, e: Entry) -> None:
        s = self.seats[e["seat"]]
        if s is not None:
            s.ai = None
            s.missed = 0
        if self.playing_out == e["seat"]:
            self.playing_out = None  # back at the table: the rest of the turn is his

    def _on_vote(self, e: Entry) -> None:
        self.votes.add(e["user"])

    def _on_abort(self, e: Entry) -> None:
        self.status = Status.ABORTED
        self.abort_reason = e.get("reason")

    def _on_end(self, e: Entry) -> None:
        self.ended = e.get("reason") or "walked_away"
        self.status = Status.FINISHED

    def _on_resign(self, e: Entry) -> None:
        self.resigned = e["seat"]
        self.status = Status.FINISHED

    def _on_forget(self, e: Entry) -> None:
        """A player deleted their data: the seat keeps playing under a neutral name.

        The entry names the seat: once the log is scrubbed, every forgotten player's
        key reads the same (``"deleted"``), and only the seat tells them apart."""
        self.votes.discard(e["user"])
        seat = e.get("seat")
        for i, s in enumerate(self.seats):
            if s is not None and s.user == e["user"] and seat in (None, i):
                s.user = None
                s.name = e["name"]
                s.ai = s.ai or e["level"]
                s.forgot = self.status == Status.PLAYING
