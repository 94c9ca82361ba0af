"""What to show, as neutral data: adapters only turn these into platform messages.

Every view carries a ready `Message` (plain text with Unicode suits, and rows of
`Button`s whose payloads the core made) plus the structured data behind it, so
adapters can send it as it is and tests can look at the data.  Hidden information
comes only from the engine's per-seat views: the public table view is built from
``view(state, None)`` and a hand view from ``view(state, seat)``.

Buttons are laid out for the stricter platform (Discord: 5 rows of 5); longer choices
are split into pages and, for a discard, into a pick-one-card-then-the-other menu.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine import protocol as P
from engine.actions import (
    DISCARD,
    PASS,
    Action,
    Bid,
    Claim,
    Discard,
    Double,
    ExchangeTrump,
    Give,
    Look,
    PlayCard,
    Raise,
    decode,
)
from engine.bauern.rules import MATCH_TARGET as MATCH_TARGET_BAUERN
from engine.cards import CARDS, Card
from engine.dreier.match import TARGET as DREIER_TARGET
from engine.games import GAME_MODULES
from engine.games import game as game_spec
from engine.results import DealResult
from engine.tausend.rules import BARREL_ATTEMPTS, BOLT_FINE, FREE_BID_LIMIT, OPENING_BID, WIN_AT
from engine.views import SeatView
from engine.zweier import BUMMERL_AT

from . import i18n
from .i18n import (
    action_label,
    card_label,
    cards_text,
    contract_name,
    game_key,
    game_name,
    level_name,
    suit_label,
    t,
)
from .payload import game_action, table_verb
from .results import standings
from .rules_text import contract_values, without_talon_value
from .settings import ChatSettings, preset_options, setting_key, shown_value
from .table import DealLog, Status, Table

MAX_PER_ROW = 5
MAX_ROWS = 5


@dataclass(frozen=True, slots=True)
class Button:
    label: str
    payload: str


@dataclass(frozen=True, slots=True)
class Message:
    text: str
    buttons: tuple[tuple[Button, ...], ...] = ()

    def all_buttons(self) -> list[Button]:
        return [b for row in self.buttons for b in row]


@dataclass(frozen=True, slots=True)
class SeatLine:
    seat: int
    name: str
    user: str | None
    is_ai: bool
    away: bool
    team: int | None
    to_act: bool


@dataclass(frozen=True, slots=True)
class LobbyView:
    table_id: str
    game: str
    host: str
    seats: tuple[SeatLine | None, ...]
    can_start: bool
    message: Message


@dataclass(frozen=True, slots=True)
class TableView:
    table_id: str
    game: str
    status: str
    deal_no: int
    seats: tuple[SeatLine | None, ...]
    public: SeatView | None
    scores: tuple[int, ...]
    bummerl: tuple[int, ...]
    seed_sha256: str | None
    message: Message


@dataclass(frozen=True, slots=True)
class HandView:
    table_id: str
    seat: int
    user: str
    your_turn: bool
    view: SeatView | None
    message: Message


@dataclass(frozen=True, slots=True)
class ResultView:
    table_id: str
    deal_no: int
    points: tuple[int, ...]
    finished: bool
    message: Message
    seed: str | None = None
    #: The public table as the deal ended (its last trick included): adapters show it
    #: as the final state of that deal's table message; by the time they hear of the
    #: result the table has already moved on to the next deal.
    table: TableView | None = None
    #: Each person's own hand as the deal ended, in each language (user, lang,
    #: message; no buttons): the last picture of that deal's private hand message,
    #: with the cards he still held and what he had been shown.  Private: only for
    #: that user's own chat.
    hands: tuple[tuple[str, str, Message], ...] = ()
    #: After a match's end: the button that opens a lobby for the same game and rules
    #: in the same chat (`TableService.act`, verb ``re``), for adapters to show with
    #: the summary
    rematch: Button | None = None

    def shown(self) -> Message:
        """The result as the chat shows it: a match's summary with "Rematch" under it."""
        if self.rematch is None:
            return self.message
        return dataclasses.replace(self.message, buttons=((self.rematch,),))

    def hand_of(self, user: str, lang: str | None) -> Message | None:
        """`user`'s final hand in `lang` (or in any language there is)."""
        mine = [(lg, m) for u, lg, m in self.hands if u == user]
        return next((m for lg, m in mine if lg == lang), mine[0][1] if mine else None)


@dataclass(frozen=True, slots=True)
class BoardRow:
    rank: int
    player: str
    name: str
    rating: float
    games: int
    won: int
    bummerl: int


@dataclass(frozen=True, slots=True)
class Style:
    """How one reader wants things: language and card pictures."""

    lang: str = "en"
    suits: str = "french"
    #: "table" or "open" (`bot.settings.TRICKS`): how much of the played tricks shows.
    tricks: str = "table"


@dataclass
class _Layout:
    rows: list[list[Button]] = field(default_factory=list)

    def add_row(self, buttons: list[Button]) -> None:
        for i in range(0, len(buttons), MAX_PER_ROW):
            self.rows.append(buttons[i : i + MAX_PER_ROW])

    def done(self) -> tuple[tuple[Button, ...], ...]:
        return tuple(tuple(r) for r in self.rows[:MAX_ROWS])


def team_of(table: Table, seat: int) -> int | None:
    return seat % 2 + 1 if table.game == "bauern" else None


def seat_lines(table: Table) -> tuple[SeatLine | None, ...]:
    to_act = table.to_act()
    out: list[SeatLine | None] = []
    for i, s in enumerate(table.seats):
        if s is None:
            out.append(None)
            continue
        out.append(
            SeatLine(
                seat=i,
                name=s.name,
                user=s.user,
                is_ai=s.user is None,
                away=s.replaced,
                team=team_of(table, i),
                to_act=to_act == i,
            )
        )
    return tuple(out)


def names(table: Table) -> tuple[str, ...]:
    return tuple(s.name if s is not None else "—" for s in table.seats)


# --- lobby ---------------------------------------------------------------------------


def lobby_view(table: Table, style: Style, lobby_minutes: int | None = None) -> LobbyView:
    lg = style.lang
    seats = seat_lines(table)
    lines = [t(lg, "lobby.title", game=game_name(table.game, lg), table=table.id)]
    if table.rematch_of:
        lines.append(t(lg, "lobby.rematch", table=table.rematch_of))
    host = table.host_name() or "—"
    lines.append(t(lg, "lobby.host", host=host))
    for i, line in enumerate(seats):
        team = f" · {t(lg, 'lobby.team', team=team_of(table, i))}" if table.game == "bauern" else ""
        if line is None:
            who = t(lg, "lobby.seat_empty")
        elif line.is_ai:
            # which level plays: /settings may say another once an admin changed it,
            # and the table keeps the level it was opened with
            seat = table.seats[i]
            level = seat.ai if seat is not None and seat.ai else "?"
            who = t(lg, "lobby.seat_ai", name=line.name, level=level_name(level, lg))
        else:
            who = line.name
        lines.append(f"{i + 1}. {who}{team}")
    free = sum(1 for s in seats if s is None)
    closed = table.status == Status.ABORTED
    if closed:  # its last picture: no call to join or start, no closing time, no buttons
        lines.append(t(lg, "lobby.closed"))
    else:
        lines.append(t(lg, "lobby.ready") if free == 0 else t(lg, "lobby.waiting", free=free))
    rules = _rules_in_force(table, lg)
    if rules:
        lines.append(t(lg, "lobby.rules", rules=rules))
    if closed:
        return LobbyView(table.id, table.game, table.host, seats, False, Message("\n".join(lines)))
    if lobby_minutes:
        lines.append(t(lg, "lobby.expires", minutes=lobby_minutes))
    v = table.version
    lay = _Layout()
    lay.add_row(
        [
            Button(t(lg, "button.join"), table_verb(table.id, v, "j")),
            Button(t(lg, "button.leave"), table_verb(table.id, v, "l")),
            Button(t(lg, "button.add_ai"), table_verb(table.id, v, "ai")),
            Button(t(lg, "button.start"), table_verb(table.id, v, "st")),
            Button(t(lg, "button.rules"), table_verb(table.id, v, "ru")),
        ]
    )
    if table.game == "bauern":
        lay.add_row(
            [
                Button(t(lg, "button.sit", seat=i + 1), table_verb(table.id, v, "s", i))
                for i in range(table.players)
            ]
        )
    # named as the seat list names them ("Remove Computer 2" removes Computer 2), in
    # seat order; a person's only for the host (the core refuses anyone else)
    removable = [
        Button(
            t(lg, "button.remove_ai" if s.user is None else "button.remove_player", name=s.name),
            table_verb(table.id, v, "rm", i),
        )
        for i, s in enumerate(table.seats)
        if s is not None and s.user != table.host
    ]
    if removable:
        lay.add_row(removable)
    return LobbyView(
        table.id,
        table.game,
        table.host,
        seats,
        can_start=free == 0,
        message=Message("\n".join(lines), lay.done()),
    )


# --- the public table ----------------------------------------------------------------


def _trick_text(trick: tuple[tuple[int, Card], ...], nm: tuple[str, ...], style: Style) -> str:
    return " · ".join(f"{nm[s]} {card_label(c, style.lang, style.suits)}" for s, c in trick)


def deal_game(table: Table) -> str:
    """The game of the deal in play: the table's, except a Dreierschnapsen tie-break,
    which is a deal of Zweierschnapsen between the two tied players."""
    return table.deal_log.spec.game if table.deal_log is not None else table.game


def _tie_break_line(table: Table, lg: str, nm: tuple[str, ...]) -> str | None:
    """Who plays the tie-break deal, when this deal is one."""
    log_ = table.deal_log
    if log_ is None or log_.spec.game == table.game:
        return None
    a, b = (nm[s] for s in log_.spec.seats)
    return t(lg, "table.tie_break", a=a, b=b, game=game_name(log_.spec.game, lg))


def _rules_in_force(table: Table, lg: str) -> str:
    """The lobby's rules: the preset, and each option that differs from what the preset
    (or the standard rules) sets, from the chat's settings or the host's `name=value`;
    "" for the standard rules.  A preset's name alone would hide those."""
    preset = table.preset
    base = preset_options(table.game, preset)
    changed = [
        f"{k.removeprefix(table.game + '.')} {shown_value(v, lg)}"
        for k, v in table.options_json.items()
        if base.get(k) != v
    ]
    if not changed:
        return i18n.preset_name(preset, lg) if preset else ""
    return " + ".join([i18n.preset_name(preset or "standard", lg), ", ".join(changed)])


def _cut_line(table: Table, lg: str, nm: tuple[str, ...]) -> str | None:
    """Dreier's cut ritual (`dreier.cut_ritual`): middlehand cuts the pack or knocks
    on it before the deal.  Flavour only, as the seeded shuffle decides the cards; which
    of the two comes from the seed's published hash, so every replay shows the same."""
    log_ = table.deal_log
    if log_ is None or log_.spec.game != "dreier":
        return None
    if not getattr(table.options, "cut_ritual", False):
        return None
    who = nm[(log_.spec.dealer + 2) % len(nm)]
    knocks = int(log_.seed_sha256[-1], 16) % 2 == 1
    return t(lg, "table.knocks" if knocks else "table.cuts", name=who)


def _match_seat(table: Table, deal_seat: int | None) -> int | None:
    if deal_seat is None or table.deal_log is None:
        return deal_seat
    return table.deal_log.spec.seats[deal_seat]


def _remap(table: Table, trick: tuple[tuple[int, Card], ...]) -> tuple[tuple[int, Card], ...]:
    if table.deal_log is None:
        return trick
    seats = table.deal_log.spec.seats
    return tuple((seats[s], c) for s, c in trick)


def scores_of(table: Table) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The scores as the table shows them (Dreier's `count_down`: what each still
    needs of the 24) and the Bummerl."""
    if table.match is None:
        return (0,) * table.players, (0,) * table.players
    summary = table.match.summary()
    shown = summary.get("count_down", summary.get("scores", ()))
    return tuple(shown), tuple(summary.get("bummerl", ()))


def _deal_over(table: Table) -> bool:
    """The table's deal has ended (its last picture, drawn before the next is dealt)."""
    return table.deal is not None and P.result(table.deal) is not None


#: What ends a match, as its score line says: the Bummerl's points (Zweier), the
#: points of Dreier and of Bauern's teams, Thousand's 1000.
MATCH_TARGET = {
    "zweier": BUMMERL_AT,
    "dreier": DREIER_TARGET,
    "bauern": MATCH_TARGET_BAUERN,
    "tausend": WIN_AT,
}


def _scores_line(lg: str, table: Table, scores: str, *, in_deal: bool = False) -> str:
    down = getattr(table.options, "count_down", False)  # what `scores_of` counts down
    key = "table.scores_down" if down else "table.scores"
    if in_deal and _deal_over(table):
        # the picture of a deal that ended, under its own heading: the score counts it
        key += ".after"
    # where the match ends, or "Game over!" comes without warning (counting down
    # says it already)
    return t(lg, key, scores=scores, target=MATCH_TARGET.get(table.game, "?"))


def table_view(table: Table, style: Style) -> TableView:
    """The channel's picture of the table: public information only."""
    lg = style.lang
    nm = names(table)
    seats = seat_lines(table)
    scores, bummerl = scores_of(table)
    deal_no = len(table.deals)
    pv = P.view(table.deal, None) if table.deal is not None else None
    seed_hash = None
    lines = [f"{game_name(table.game, lg)} — {table.id}"]
    if table.deal_log is not None:
        seed_hash = table.deal_log.seed_sha256
        dealer = table.deal_log.spec.dealer
        lines.append(t(lg, "table.deal", deal=deal_no, dealer=nm[dealer]))
        for extra in (_tie_break_line(table, lg, nm), _cut_line(table, lg, nm)):
            if extra is not None:
                lines.append(extra)

    def seat_text(i: int) -> str:
        line = seats[i]
        name = t(lg, "table.seat_away", name=nm[i]) if line is not None and line.away else nm[i]
        return f"{'▶ ' if line is not None and line.to_act else ''}{name}"

    def score_of(i: int) -> int:
        return scores[i] if i < len(scores) else 0

    if table.game == "bauern":
        score_text = _team_scores(lg, seat_text, [score_of(k) for k in (0, 1)])
    else:
        score_text = " · ".join(valued(seat_text(i), score_of(i)) for i in range(len(seats)))
    lines.append(_scores_line(lg, table, score_text, in_deal=True))
    summary = table.match.summary() if table.match is not None else {}
    bolts = summary.get("bolts")
    if isinstance(bolts, list) and any(bolts):
        lines.append(
            t(lg, "table.bolts", bolts=" · ".join(valued(nm[i], b) for i, b in enumerate(bolts)))
        )
    barrel = summary.get("barrel")
    if isinstance(barrel, list):
        over = _deal_over(table)
        sitter = _match_seat(table, pv.sitting_out) if pv is not None else None

        def barrel_seat(i: int, left: int) -> str:
            # which of his three deals this is: every player counts them.  A deal he
            # sits out is not one of them, and an ended deal's picture counts it.
            if over:
                key = "table.barrel_seat.after"
            elif i == sitter:
                key = "table.barrel_seat.sitting_out"
            else:
                key = "table.barrel_seat"
            used = BARREL_ATTEMPTS - left
            return t(lg, key, name=nm[i], deal=used + 1, used=used, of=BARREL_ATTEMPTS)

        on = [
            barrel_seat(i, left)
            for i, b in enumerate(barrel)
            if isinstance(b, dict)
            and b.get("on")
            and isinstance(left := b.get("attempts_left"), int)
        ]
        if on:
            lines.append(t(lg, "table.barrel", names=", ".join(on)))
    if pv is not None:
        lines.extend(_public_lines(table, pv, nm, style))
    said = _bummerl_line(table, lg, nm, bummerl)
    if said is not None:
        lines.append(said)
    live = pv is not None and pv.to_act is not None and table.status == Status.PLAYING
    scored = table.deal is not None and P.result(table.deal) is not None
    if seed_hash and (live or scored):
        # kept on a scored deal's last picture too: the result publishes the seed, and
        # a fingerprint an edit took away could not be compared with it (a deal left
        # unplayed publishes no seed)
        lines.append(t(lg, "table.seed_hash", hash=seed_hash[:16] + "…"))
    votes = len(table.abort_votes())
    if table.votes and table.status == Status.PLAYING and not scored:
        # (a deal's last picture: the votes lapsed with the deal)
        # everyone should see that an abort is being asked for, and how to agree
        lines.append(t(lg, "table.votes", votes=votes, needed=table.votes_needed()))
    if table.status == Status.ABORTED and table.deals:
        # the deal's picture as the table was left: without this it reads as a game
        # still running (a closed lobby says the same)
        lines.append(t(lg, "lobby.closed"))
    lay = _Layout()
    if table.status == Status.PLAYING:
        lay.add_row([Button(t(lg, "button.show_hand"), table_verb(table.id, table.version, "h"))])
        if votes:
            # agreeing by a press, as the vote line asks, not by finding /abort
            label = t(lg, "button.abort_vote", votes=votes, needed=table.votes_needed())
            lay.add_row([Button(label, table_verb(table.id, table.version, "ab"))])
        if any(s is not None and s.replaced for s in table.seats):
            lay.add_row(
                [Button(t(lg, "button.take_back"), table_verb(table.id, table.version, "tb"))]
            )
    return TableView(
        table.id,
        table.game,
        str(table.status),
        deal_no,
        seats,
        pv,
        scores,
        bummerl,
        seed_hash,
        Message("\n".join(lines), lay.done()),
    )


def _trump_lines(table: Table, pv: SeatView, nm: tuple[str, ...], style: Style) -> list[str]:
    """Trumps (with the card lying face up, or turned up, and by whom) and Zweier's
    talon: public, and what a player deciding to exchange or to close looks at, so his
    hand shows them too."""
    lg = style.lang
    game_id = deal_game(table)
    out = []
    extra = dict(pv.extra)
    if pv.trump is not None:
        trump = t(lg, "table.trump", trump=suit_label(pv.trump, lg, style.suits))
        if pv.trump_card is not None and game_id == "zweier":
            card = card_label(pv.trump_card, lg, style.suits)
            # the exchange is made in the open: the Jack now lying there says little
            # to whoever did not see it happen
            swapped = _exchanged_by(table)
            if pv.talon_closed:  # turned face down on the closed talon, but remembered
                lying = t(lg, "table.trump_card_closed", card=card)
            elif swapped is None:
                lying = t(lg, "table.trump_card", card=card)
            else:
                lying = t(lg, "table.trump_card_exchanged", card=card, name=nm[swapped])
            trump += " · " + lying
        elif pv.trump_card is not None and isinstance(forehand := extra.get("forehand"), int):
            # Dreier's blind card, Bauern's Aufschlag: turned up for all to see, and
            # trumps set by chance say something else than trumps named
            trump += " · " + t(
                lg,
                "table.trump_turned",
                card=card_label(pv.trump_card, lg, style.suits),
                name=nm[_match_seat(table, forehand) or 0],
            )
        out.append(trump)
    if game_id == "zweier":
        closer = extra.get("closed_by")  # who closed matters for the score
        out.append(
            t(lg, "table.talon_closed", name=nm[_match_seat(table, closer) or 0])
            if pv.talon_closed and isinstance(closer, int)
            else t(lg, "table.talon", n=pv.talon_size)
        )
    return out


def _public_lines(table: Table, pv: SeatView, nm: tuple[str, ...], style: Style) -> list[str]:
    lg = style.lang
    game_id = deal_game(table)
    out = _trump_lines(table, pv, nm, style)
    extra = dict(pv.extra)
    if table.game == "tausend" and _talon_shown(pv):
        stock = game_key("hand.talon", table.game)
        out.append(t(lg, stock, cards=cards_text(pv.talon_cards, lg, style.suits)))
    if table.game == "tausend" and pv.players == 2 and pv.phase == "play":
        # the other stock and the three laid away: their points are the last trick's
        out.append(t(lg, "table.face_down.tausend"))
    contract_line = _contract_line(table, pv, lg, nm, game_id)
    if contract_line is not None:
        out.append(contract_line)
    if pv.sitting_out is not None:  # his cards lie still: the others must know why
        sitter = nm[_match_seat(table, pv.sitting_out) or 0]
        out.append(t(lg, game_key("table.sitting_out", game_id), name=sitter))
    # The auction and the doubling after it are two lines: a long Kontra round must
    # not push the bid that made the contract out of sight.
    ended = extra.get("auction_length")  # Bauern: the doubling follows in the same list
    auction = list(pv.bids[:ended] if isinstance(ended, int) else pv.bids)
    doubles = _doubles(pv)
    auction = [(s, a) for s, a in auction if not isinstance(a, Double)]
    if auction:
        blind = _blind_bids(pv)
        spoken: list[str] = []
        for s, a in auction:
            if isinstance(a, Look):  # said as what he did, not as his button
                text = t(lg, "table.looked")
            elif isinstance(a, Bid) and a.value is not None:
                # a Thousand bid is its number ("Anna: 105"), not its button ("Bid
                # 105"); one made before its bidder looked is blind, and counts double
                text = str(a.value)
                if (s, a) in blind:
                    text += " " + t(lg, "table.blind")
            else:
                text = action_label(a, lg, style.suits, game=game_id)
            spoken.append(f"{nm[_match_seat(table, s) or 0]}: {text}")
        # the opening stays in sight: the rest of a long auction is its newest part
        shown = spoken if len(spoken) <= 8 else [spoken[0], "…", *spoken[-6:]]
        out.append(t(lg, "table.bids", bids=" · ".join(shown)))
    if doubles:
        # each double by its name: "Kontra: Anna · Rekontra: Ben"
        out.append(
            " · ".join(
                f"{action_label(a, lg, style.suits, game=game_id, level=i)}: "
                f"{nm[_match_seat(table, s) or 0]}"
                for i, (s, a) in enumerate(doubles, 1)
            )
        )
    # every marriage of the deal (four at most, one a suit): each was said aloud, and
    # which Kings and Queens are gone is part of the count
    for seat, suit, points in pv.marriages:
        out.append(
            t(
                lg,
                "table.marriage",
                name=nm[_match_seat(table, seat) or 0],
                points=points,
                suit=suit_label(suit, lg, style.suits),
            )
        )
    if pv.last_trick and pv.last_trick_winner is not None:
        out.append(
            t(
                lg,
                "table.last_trick",
                cards=_trick_text(_remap(table, pv.last_trick), nm, style),
                name=nm[_match_seat(table, pv.last_trick_winner) or 0],
            )
        )
    # While the deal runs, counting is the players' job (RULES.md §3): the table shows
    # each side's first trick; every trick and the points only at an open table, or
    # once the deal is over.
    over = table.deal is not None and P.result(table.deal) is not None
    open_tricks = style.tricks == "open" or over
    if pv.tricks and open_tricks:
        out.append(t(lg, "table.tricks_list", tricks=_tricks_text(table, pv, nm, style)))
    elif pv.tricks:
        firsts = _first_tricks_text(table, pv, nm, style)
        if firsts:
            out.append(t(lg, game_key("table.first_tricks", game_id), tricks=firsts))
    if pv.trick:
        out.append(t(lg, "table.trick", cards=_trick_text(_remap(table, pv.trick), nm, style)))
    if pv.tricks_won and any(pv.tricks_won):
        lines = " · ".join(  # not one who sits the deal out (Thousand's dealer of four)
            valued(nm[_match_seat(table, i) or 0], n)
            for i, n in enumerate(pv.tricks_won)
            if i != pv.sitting_out
        )
        out.append(t(lg, "table.tricks_done", lines=lines))
        if pv.points and open_tricks:
            counted: tuple[int, ...] = tuple(pv.points)
            res = P.result(table.deal) if over and table.deal is not None else None
            if res is not None and len(res.card_points) == len(counted):
                # the deal as scored, as its result says it: with four at Thousand
                # the dealer who sits out has the stock's points
                counted = res.card_points
            parts = side_points(
                deal_game(table), counted, pv.declarer, lambda i: nm[_match_seat(table, i) or 0]
            )
            out.append(t(lg, "table.points", points=" · ".join(parts)))
    if pv.to_act is not None and table.status == Status.PLAYING:
        # a match resigned or closed mid-deal leaves the deal open: nobody is to act
        who = nm[_match_seat(table, pv.to_act) or 0]
        key = game_key(f"table.phase.{pv.phase}", game_id)
        # the double to say now has its name: Kontra, then Rekontra, then Subkontra
        double = action_label(Double(), lg, game=game_id, level=1 + len(_doubles(pv)))
        out.append(
            t(lg, key, name=who, double=double)
            if key in i18n.TEXTS["en"]
            else t(lg, "table.turn", name=who)
        )
    return out


def _exchanged_by(table: Table) -> int | None:
    """Who exchanged the trump Jack for the face-up trump in this deal (a match
    seat), if anyone did; a deal has one trump Jack, so one exchange at most."""
    actions = table.deal_log.actions if table.deal_log is not None else []
    return next((s for s, a in actions if isinstance(a, ExchangeTrump)), None)


def _talon_shown(view: SeatView) -> bool:
    """Whether the talon's cards are worth a line.  Thousand's stock, turned up for
    all, stays in its view for the whole deal, but once the declarer has given its
    cards away (two players: laid three away) it is only part of his hand."""
    return bool(view.talon_cards) and (view.game != "tausend" or view.phase in _STOCK_PHASES)


#: Thousand's phases in which the declarer still deals with the stock he took.
_STOCK_PHASES = frozenset({"give", "discard"})


def _doubles(pv: SeatView) -> list[tuple[int, Action]]:
    """The doubles that stand, in order, with their doublers (deal seats): public, as
    they are said aloud.  Bauern's Kontra round follows the auction in `bids`; Dreier
    keeps its Spritzen round apart, in ``extra["spritzen"]``.  A Kontra said in
    Bauern's auction (`bauern.kontra_beats_bettler`) is wiped by a later bid: each
    standing double doubles the deal, so they are the last log2(multiplier) said, and
    the next one's name (Kontra, Rekontra, Subkontra) follows from them."""
    said = dict(pv.extra).get("spritzen")
    rounds = pv.bids + (said if isinstance(said, tuple) else ())
    every: list[tuple[int, Action]] = [(s, a) for s, a in rounds if isinstance(a, Double)]
    standing = max(pv.multiplier, 1).bit_length() - 1
    return every[len(every) - standing :] if standing else []


def _trick_winners(pv: SeatView) -> list[int | None]:
    """Who took each completed trick (deal seats): the winner of a trick leads the
    next one, and the last one's winner is public."""
    out: list[int | None] = []
    for i in range(len(pv.tricks)):
        if i + 1 < len(pv.tricks):
            out.append(pv.tricks[i + 1][0][0] if pv.tricks[i + 1] else None)
        else:
            out.append(pv.last_trick_winner)
    return out


def _side(table: Table, pv: SeatView, seat: int) -> int:
    """The side a deal seat plays for: Bauern's teams, Dreier's declarer against the
    other two, otherwise every player for himself."""
    game_id = deal_game(table)
    if game_id == "bauern":
        return seat % 2
    if game_id == "dreier" and pv.declarer is not None:
        return int(seat != pv.declarer)
    return seat


def _first_tricks_text(table: Table, pv: SeatView, nm: tuple[str, ...], style: Style) -> str:
    """The first trick each side took, which stays face up (RULES.md §3)."""
    seen: set[int] = set()
    parts = []
    for i, winner in enumerate(_trick_winners(pv)):
        if winner is None or _side(table, pv, winner) in seen:
            continue
        seen.add(_side(table, pv, winner))
        cards = " ".join(card_label(c, style.lang, style.suits) for _, c in pv.tricks[i])
        parts.append(f"{i + 1}. {cards} → {nm[_match_seat(table, winner) or 0]}")
    return "; ".join(parts)


def _tricks_text(table: Table, pv: SeatView, nm: tuple[str, ...], style: Style) -> str:
    """Every completed trick, compactly: its cards in playing order and who took it.

    The winner of a trick leads the next one, and the last one's winner is public.
    """
    parts = []
    for i, (trick, winner) in enumerate(zip(pv.tricks, _trick_winners(pv), strict=True)):
        cards = " ".join(card_label(c, style.lang, style.suits) for _, c in trick)
        who = f" → {nm[_match_seat(table, winner) or 0]}" if winner is not None else ""
        parts.append(f"{i + 1}. {cards}{who}")
    return "; ".join(parts)


# --- a seat's hand -------------------------------------------------------------------


def hand_view(
    table: Table, user: str, style: Style, menu: tuple[str, int] | None = None
) -> HandView | None:
    """The private message for `user`'s seat: hand, what it knows, and its buttons.

    `menu` is a hand menu the user opened (a page of choices, or the first card of a
    discard); it never changes the table.
    """
    seat = table.seat_of(user)
    if seat is None:
        return None
    lg = style.lang
    nm = names(table)
    dseat = table.deal_seat(seat)
    if table.deal is None or dseat is None:
        lines = [hand_title(table, lg)]
        if table.deal is not None:  # a Dreier tie-break between the two others
            tie = _tie_break_line(table, lg, nm)
            lines += [tie] if tie else []
            lines.append(t(lg, "hand.sitting_out"))
        return HandView(table.id, seat, user, False, None, Message("\n".join(lines)))
    sv = P.view(table.deal, dseat)
    lines = [hand_title(table, lg)]
    lines.append(t(lg, "hand.cards", cards=cards_text(sv.hand, lg, style.suits)))
    lines += _trump_lines(table, sv, nm, style)
    if _talon_shown(sv):
        talon = game_key("hand.talon", table.game)  # Thousand's is the stock
        lines.append(t(lg, talon, cards=cards_text(sv.talon_cards, lg, style.suits)))
    known: dict[int, list[Card]] = {}
    for s, c in sv.known:
        known.setdefault(s, []).append(c)
    for s, cards in known.items():
        lines.append(
            t(
                lg,
                "hand.known",
                name=nm[_match_seat(table, s) or 0],
                cards=cards_text(cards, lg, style.suits),
            )
        )
    extra = dict(sv.extra)
    received = extra.get("received")  # Thousand: the card the declarer gave
    if isinstance(received, Card) and sv.declarer is not None:
        name = nm[_match_seat(table, sv.declarer) or 0]
        lines.append(
            t(lg, "hand.received", name=name, cards=cards_text((received,), lg, style.suits))
        )
    if sv.sitting_out == dseat:  # a hand that waits for nothing this deal
        lines.append(t(lg, game_key("hand.sitting_out", deal_game(table))))
    discarded = extra.get("discarded")  # the declarer's own, Dreier and Thousand
    if isinstance(discarded, tuple) and discarded:
        lines.append(t(lg, "hand.discarded", cards=cards_text(discarded, lg, style.suits)))
    if sv.trick:
        lines.append(t(lg, "table.trick", cards=_trick_text(_remap(table, sv.trick), nm, style)))
    your_turn = sv.to_act == dseat and table.status == Status.PLAYING
    buttons: tuple[tuple[Button, ...], ...] = ()
    held = table.seats[seat]
    if table.status == Status.PLAYING and held is not None and held.ai is not None:
        # he walked away and the computer took his seat: his buttons still work, and
        # a press takes the seat back; say so, or "Your turn." reads as if nothing
        # had happened
        # (with no move of his to choose now, the button is all there is to press)
        key = "hand.computer_plays" if your_turn else "hand.computer_plays_wait"
        lines.append(t(lg, key, button=t(lg, "button.take_back")))
    if your_turn:
        lines += _bidding_lines(table, sv, lg, nm)
        lines.append(t(lg, "hand.your_turn"))
        buttons = _action_buttons(table, sv, lg, style, nm, menu, lines)
    elif table.status == Status.FINISHED:
        lines.append(t(lg, "hand.match_over"))
    elif table.status == Status.ABORTED:
        lines.append(t(lg, "hand.closed"))
    elif sv.to_act is not None:
        game_id = deal_game(table)
        if game_id in ("dreier", "bauern") and sv.phase != "bidding":
            # what the deal is played for (and doubled to) while he waits too: it is
            # in the group's table, far from his private hand on Telegram
            line = _contract_line(table, sv, lg, nm, game_id)
            lines += [line] if line is not None else []
        lines.append(t(lg, "hand.wait", name=nm[_match_seat(table, sv.to_act) or 0]))
    if not buttons and table.status == Status.PLAYING and held is not None and held.ai:
        # the line above names this button: here, not only under the table in the group
        take = Button(t(lg, "button.take_back"), table_verb(table.id, table.version, "tb"))
        buttons = ((take,),)
    return HandView(table.id, seat, user, your_turn, sv, Message("\n".join(lines), buttons))


def _contract_line(
    table: Table, pv: SeatView, lg: str, nm: tuple[str, ...], game_id: str
) -> str | None:
    """The contract as everyone heard it: its name and value, a raise or a Kontra
    that changed it, the declarer, the doubling."""
    extra = dict(pv.extra)
    declarer = _match_seat(table, pv.declarer)
    if pv.contract is None or declarer is None:
        return None
    worth = contract_values(game_id, table.options_json)
    name = _contract_text(lg, worth, pv.contract, bool(extra.get("without_talon")))
    value = extra.get("value") or extra.get("bid")
    if table.game == "tausend" and isinstance(value, int):
        name = f"{name} {value}"
    if extra.get("golden"):  # Thousand's first round: why it counts double
        name += " " + t(lg, "table.golden")
    said = [a for s, a in pv.bids if s == pv.declarer and isinstance(a, Bid)]
    if said and said[-1].contract and said[-1].contract != pv.contract:
        bid = contract_name(said[-1].contract, lg)
        if game_id == "bauern":
            # `kontra_beats_bettler`: the Kontra made his Bettler a normal game
            name += " " + t(lg, "table.fell_to_kontra", contract=bid)
        else:  # Dreier: raised when he discarded
            name += " " + t(lg, "table.raised_from", contract=bid)
    elif said and said[-1].value is not None and said[-1].value != value:
        # Thousand: raised after the gifts, above the bid the auction shows
        name += " " + t(lg, "table.raised_from", contract=said[-1].value)
    text = t(lg, "table.contract", contract=name, declarer=nm[declarer])
    if pv.multiplier > 1:
        text += t(lg, "table.multiplier", n=pv.multiplier)
    return text


def _worth(worth: dict[str, str], contract: str, without_talon: bool) -> str:
    """ " (4)": what a Dreier or Bauern contract wins (`contract_values`), as its bid
    button, the bidding and the table say it; "" for another game's."""
    value = worth.get(contract)
    if value is None:
        return ""
    return f" ({without_talon_value(value) if without_talon else value})"


def _contract_text(lg: str, worth: dict[str, str], contract: str, without_talon: bool) -> str:
    """A contract as bid: "Gang without the talon (10)"."""
    name = contract_name(contract, lg)
    if without_talon:
        name += " " + t(lg, "table.without_talon")
    return name + _worth(worth, contract, without_talon)


def _bidding_lines(table: Table, sv: SeatView, lg: str, nm: tuple[str, ...]) -> list[str]:
    """What a seat decides against, in its own hand (on Telegram the table is in
    another chat): Thousand's bid to beat, and why no higher one is offered (a bid or
    final bid above 120 needs a marriage in hand, RULES.md §5, and a lone "Pass"
    button would not say so); Dreier's and Bauern's highest bid, then the contract
    (what a Kontra or Spritzen doubles, what the play is for)."""
    game_id = deal_game(table)
    if game_id == "dreier" and sv.phase == "trump":
        # "Turn up card 4 unseen" beside "Trumps: ♥ Hearts" needs its rule said
        return [t(lg, "hand.name_trumps")]
    if game_id in ("dreier", "bauern"):
        if sv.phase == "bidding":
            bids = [(s, a) for s, a in sv.bids if isinstance(a, Bid) and a.contract]
            first = not sv.bids and sv.seat == sv.to_act
            options = dict(sv.options)
            if first and options.get("dreier.caller_first"):
                # forehand's "Pass" is no dropping out: it keeps the normal game
                # (whose talon is set aside unseen in the Carinthian rules)
                carinthian = options.get("dreier.carinthian")
                return [t(lg, "hand.caller_first_pass" + ("_carinthian" if carinthian else ""))]
            if not bids:
                return []
            seat, bid = bids[-1]
            assert bid.contract is not None
            worth = contract_values(game_id, table.options_json)
            value = _contract_text(lg, worth, bid.contract, bid.without_talon)
            if any(isinstance(a, Double) for _, a in sv.bids[sv.bids.index((seat, bid)) :]):
                # `bauern.kontra_beats_bettler`: the Kontra made the Bettler void, and
                # forehand holds the normal game again, doubled: that is what stands
                fell = t(lg, "table.fell_to_kontra", contract=contract_name(bid.contract, lg))
                value = f"{_contract_text(lg, worth, 'normal', False)} ×2 {fell}"
                seat = (sv.dealer + 1) % sv.players
            out = [t(lg, "hand.high_bid", value=value, name=nm[_match_seat(table, seat) or 0])]
            outbid = any(isinstance(a, Bid) and a.contract for a in sv.legal)
            if bid.without_talon and sv.to_act == sv.seat and outbid:
                # "Kontraschnapser (12)" offered over "… without the talon (13)" reads
                # as a lower bid: say how bids rank (not beside a lone Pass)
                out.append(t(lg, "hand.bid_rank"))
            return out
        line = _contract_line(table, sv, lg, nm, game_id)
        return [line] if line is not None else []
    if game_id != "tausend":
        return []
    out = []
    if sv.phase != "bidding" and sv.multiplier > 1:
        # a blind bid or the golden round doubles what he plays for: the table says
        # so in the group, the hand in the private chat too
        line = _contract_line(table, sv, lg, nm, game_id)
        out += [line] if line is not None else []
    if sv.phase == "give" and any(isinstance(a, Give) for a in sv.legal):
        out.append(t(lg, "hand.give_each"))  # the buttons say "to whom", not "how many"
    if sv.phase not in ("bidding", "raise"):
        return out
    bids = [(s, a) for s, a in sv.bids if isinstance(a, Bid) and a.value is not None]
    if sv.phase == "bidding" and not bids and _only_opening(sv):
        # a lone "Bid 100" and no Pass: the rule, not a glitch
        out.append(t(lg, "hand.must_open", value=OPENING_BID))
    if sv.phase == "bidding" and bids:
        seat, bid = bids[-1]
        value = str(bid.value)
        if (seat, bid) in _blind_bids(sv):
            value += " " + t(lg, "table.blind")
        out.append(t(lg, "hand.high_bid", value=value, name=nm[_match_seat(table, seat) or 0]))
    offered = [a.value for a in sv.legal if isinstance(a, (Bid, Raise)) and a.value is not None]
    top = (bids[-1][1].value or 0) if bids else 0
    limit = FREE_BID_LIMIT
    blind = any(isinstance(a, Look) for a in sv.legal)  # blind bids stop at 120 anyway
    if blind:
        out.append(t(lg, "hand.bid_blind", limit=limit))
    elif max(offered, default=top) == limit or (top >= limit and not offered):
        out.append(t(lg, "hand.needs_marriage", limit=limit))
    return out


def _only_opening(sv: SeatView) -> bool:
    """Thousand's forehand, who must open with 100 (he may not pass it)."""
    values = [a.value for a in sv.legal if isinstance(a, Bid)]
    return values == [OPENING_BID]


def _blind_bids(sv: SeatView) -> list[tuple[int, Action]]:
    """Thousand's bids made before their bidder looked at his cards (with blind
    bidding): they count double."""
    if "looked" not in dict(sv.extra):
        return []
    looked: set[int] = set()
    blind: list[tuple[int, Action]] = []
    for seat, action in sv.bids:
        if isinstance(action, Look):
            looked.add(seat)
        elif isinstance(action, Bid) and action.value is not None and seat not in looked:
            blind.append((seat, action))
    return blind


def hand_title(table: Table, lang: str | None) -> str:
    """The first line of every hand message: which table and game it belongs to (a
    player may sit at tables in several chats, and his private chat holds them all)."""
    game = game_name(table.game, lang)
    if table.place:
        return t(lang, "hand.title_in", table=table.id, place=table.place, game=game)
    return t(lang, "hand.title", table=table.id, game=game)


def _action_buttons(
    table: Table,
    sv: SeatView,
    lg: str,
    style: Style,
    nm: tuple[str, ...],
    menu: tuple[str, int] | None,
    lines: list[str],
) -> tuple[tuple[Button, ...], ...]:
    assert table.deal is not None and table.deal_log is not None
    contracts = table.deal.contracts
    codes = table.deal.legal()
    v = table.version
    deal_names = tuple(nm[s] for s in table.deal_log.spec.seats)

    # A double is named by its level: the one after a Kontra is a Rekontra (the
    # doubles are public: the seat's own view has them all).
    level = 1 + len(_doubles(sv))

    worth = contract_values(deal_game(table), table.options_json)

    def button(code: int) -> Button:
        action = decode(code, contracts)
        label = action_label(
            action, lg, style.suits, deal_names, deal_game(table), level, trump=sv.trump
        )
        if isinstance(action, Bid) and action.contract:
            # what it wins: a bid is chosen by its value, which else only /rules says
            label += _worth(worth, action.contract, action.without_talon)
        return Button(label, game_action(table.id, v, code))

    discards = [c for c in codes if c >= DISCARD]
    if discards:
        return _discard_menu(table, lg, style, codes, discards, menu, lines, button)
    gifts = _gifts(codes, contracts)
    if gifts:
        return _gift_menu(table, lg, style, codes, gifts, menu, lines, button)
    # Every legal value gets a button (Thousand: any multiple of 5, RULES.md §5); the
    # pages keep the first 24 — the values people bid — on the first page.
    lay = _Layout()
    # cards (with their marriages) first; a claim, even one with a marriage, goes with
    # the other choices, on rows of their own where they fit: a mis-tap on "Claim 66"
    # beside a card costs game points
    plays = [c for c in codes if isinstance(a := decode(c, contracts), PlayCard) and not a.claim]
    others = _pass_first([c for c in codes if c not in plays])
    rows = -(-len(plays) // MAX_PER_ROW) + -(-len(others) // MAX_PER_ROW)
    if plays and others and rows <= MAX_ROWS:
        lay.add_row([button(c) for c in plays])
        lay.add_row([button(c) for c in others])
        return lay.done()
    buttons = [button(c) for c in plays] + [button(c) for c in others]
    page = menu[1] if menu is not None and menu[0] == "pg" else 0
    if len(buttons) > MAX_ROWS * MAX_PER_ROW:
        # Pass leads every page, not the first only (`_pass_first`): pressed by habit
        # on the page of high bids, the first choice must not be a bid of 220
        coded = list(zip(plays + others, buttons, strict=True))
        pinned = [b for c, b in coded if c == PASS]
        rest = [b for c, b in coded if c != PASS]
        starts = _page_starts(codes)
        page = min(page, len(starts) - 1)
        end = starts[page + 1] if page + 1 < len(starts) else len(rest)
        chunk = pinned + rest[starts[page] : end]
        if page > 0:
            chunk.append(Button(t(lg, "hand.back"), table_verb(table.id, v, "pg", page - 1)))
        if page + 1 < len(starts):
            chunk.append(Button(t(lg, "hand.more"), table_verb(table.id, v, "pg", page + 1)))
        buttons = chunk
    lay.add_row(buttons)
    return lay.done()


def _page_starts(codes: Sequence[int]) -> list[int]:
    """Where each page of a long menu starts among its choices other than Pass.

    A page is the 25 buttons Discord allows: Pass (on every page), the choices, and
    "More…" (all but the last page) and "Back" (all but the first), so a player on a
    middle page of Thousand's bids can step either way.
    """
    slots = MAX_ROWS * MAX_PER_ROW - (PASS in codes)
    n = len(codes) - (PASS in codes)
    starts = [0]
    start = slots - 1
    while start < n:
        starts.append(start)
        start += slots - 1 if n - start <= slots - 1 else slots - 2
    return starts


def _pass_first(codes: list[int]) -> list[int]:
    """Pass leads every prompt where one may pass (bidding, doubling, a redeal claim):
    a player who presses the first choice by habit must not bid or double by mistake."""
    return sorted(codes, key=lambda c: c != PASS)


def menu_valid(table: Table, seat: int, menu: tuple[str, int]) -> bool:
    """Whether a hand menu (a page, the cards of a discard picked so far) is one the
    seat's buttons can lead to now; a forged number is not."""
    if table.deal is None or table.to_act() != seat:
        return False
    verb, arg = menu
    contracts = table.deal.contracts
    codes = table.deal.legal()
    discards = [c for c in codes if c >= DISCARD]
    if verb == "dp":
        for c in discards:
            a = decode(c, contracts)
            if isinstance(a, Discard):
                mask = sum(1 << x.index for x in a.cards)
                if mask & arg == arg:  # 0: start the pick again
                    return True
        return False
    gifts = _gifts(codes, contracts)
    if verb == "gv":
        return bool(gifts) and (arg == 0 or any(a.card.index == arg - 1 for a in gifts.values()))
    if verb == "pg":
        return not discards and not gifts and 0 <= arg < len(_page_starts(codes))
    return False


def _gifts(codes: Sequence[int], contracts: Any) -> dict[int, Give]:
    """Thousand's gifts, by code, when they go to more than one player: the first of
    the declarer's two (the second has one player left to get it, and its buttons
    are the cards alone)."""
    gifts = {c: a for c in codes if isinstance(a := decode(c, contracts), Give)}
    return gifts if len({a.to for a in gifts.values()}) > 1 else {}


def _gift_menu(
    table: Table,
    lg: str,
    style: Style,
    codes: list[int],
    gifts: dict[int, Give],
    menu: tuple[str, int] | None,
    lines: list[str],
    button: Any,
) -> tuple[tuple[Button, ...], ...]:
    """A gift as a card, then who gets it: ten cards and two players would be twenty
    buttons, each long ("Give A♥ to Berti"), for a choice people make in two steps.

    The menu state (payload verb ``gv``) is the card picked, its index plus one (0:
    none picked yet).
    """
    assert table.deal is not None and table.deal_log is not None
    v = table.version
    picked = menu[1] if menu is not None and menu[0] == "gv" else 0
    lay = _Layout()
    # the others in the order they sit after him
    giver, n = P.to_act(table.deal) or 0, len(table.deal_log.spec.seats)
    to_whom = sorted(
        (c for c, a in gifts.items() if a.card.index == picked - 1),
        key=lambda c: (gifts[c].to - giver) % n,
    )
    if to_whom:
        card = CARDS[picked - 1]
        lines.append(t(lg, "hand.give_to", card=card_label(card, lg, style.suits)))
        lay.add_row([button(c) for c in to_whom])
        lay.add_row([Button(t(lg, "act.discard_again"), table_verb(table.id, v, "gv", 0))])
        return lay.done()
    cards = sorted({a.card for a in gifts.values()}, key=lambda c: c.index)
    lay.add_row(
        [
            Button(
                t(lg, "act.give_pick", card=card_label(c, lg, style.suits)),
                table_verb(table.id, v, "gv", c.index + 1),
            )
            for c in cards
        ]
    )
    rest = _pass_first([c for c in codes if c not in gifts])
    if rest:
        lay.add_row([button(c) for c in rest])
    return lay.done()


def _discard_menu(
    table: Table,
    lg: str,
    style: Style,
    codes: list[int],
    discards: list[int],
    menu: tuple[str, int] | None,
    lines: list[str],
    button: Any,
) -> tuple[tuple[Button, ...], ...]:
    """Discarding cards (and maybe raising) one card at a time, then the contract.

    The menu state is the mask of the cards picked so far (payload verb ``dp``); once
    the picked cards make a whole discard, the choices are that discard's actions
    (keep the contract, or raise).
    """
    assert table.deal is not None
    contracts = table.deal.contracts
    v = table.version
    options: list[tuple[int, int]] = []  # (code, mask of its cards)
    for c in discards:
        a = decode(c, contracts)
        if isinstance(a, Discard):
            options.append((c, sum(1 << x.index for x in a.cards)))
    picked = menu[1] if menu is not None and menu[0] == "dp" else 0
    lay = _Layout()
    complete = [c for c, m in options if m == picked]
    # a mis-tap is not a discard: once a card is picked, the pick can start again
    again = Button(t(lg, "act.discard_again"), table_verb(table.id, v, "dp", 0))
    if picked and complete:
        cards = [CARDS[i] for i in range(24) if picked >> i & 1]
        # "or raise" only where a raise is among the choices (not in Thousand, whose
        # raise comes later, nor with `dreier.raise_after_talon` off)
        key = "hand.pick_contract" if len(complete) > 1 else "hand.pick_confirm"
        lines.append(t(lg, key, cards=cards_text(cards, lg, style.suits)))
        lay.add_row([button(c) for c in complete][:24])
        lay.add_row([again])
        return lay.done()
    next_cards = sorted(
        {i for _, m in options if m & picked == picked for i in range(24) if (m & ~picked) >> i & 1}
    )
    if picked:
        cards = [CARDS[i] for i in range(24) if picked >> i & 1]
        lines.append(t(lg, "hand.pick_second", card=cards_text(cards, lg, style.suits)))
    lay.add_row(
        [
            Button(
                t(lg, "act.discard_pick", card=card_label(CARDS[c], lg, style.suits)),
                table_verb(table.id, v, "dp", picked | 1 << c),
            )
            for c in next_cards
        ]
    )
    rest = _pass_first([c for c in codes if c < DISCARD])
    if rest and not picked:
        lay.add_row([button(c) for c in rest])
    if picked:
        lay.add_row([again])
    return lay.done()


# --- results -------------------------------------------------------------------------


def rematch_button(table: Table, lg: str) -> Button | None:
    """ "Rematch" under a finished match's summary (None before the end)."""
    if table.status != Status.FINISHED:
        return None
    return Button(t(lg, "button.rematch"), table_verb(table.id, table.version, "re"))


def deal_result_view(table: Table, style: Style) -> ResultView | None:
    """The message after a deal: what it scored and the seed that made it."""
    if not table.deals:
        return None
    lg = style.lang
    nm = names(table)
    if len(table.deal_points) < len(table.deals):
        if table.status != Status.FINISHED:
            return None  # the deal still runs: its seed stays secret
        # A resignation ended the match in the middle of a deal: the deal scores
        # nothing, and its seed is published like that of any deal that ended.
        k = len(table.deals)
        seed = table.deals[-1].seed
        text = "\n".join(
            [
                t(lg, "result.deal_unfinished", deal=k),
                t(lg, "table.seed", deal=k, seed=seed),
                match_summary_text(table, style),
            ]
        )
        return ResultView(
            table.id,
            k,
            (0,) * table.players,
            True,
            Message(text),
            seed=seed,
            table=table_view(table, style),
            rematch=rematch_button(table, lg),
        )
    k = len(table.deal_points)
    log_ = table.deals[k - 1]
    points = tuple(table.deal_points[-1])
    res = P.result(table.deal) if table.deal is not None and log_ is table.deal_log else None
    if log_.spec.game != table.game:
        # a tie-break: its game points decide the Bummerl only, they are not the
        # match's ("+3" beside an unchanged score would not add up); its two players
        seats = log_.spec.seats
        parts = [t(lg, "result.game_points", name=nm[i], points=points[i]) for i in seats]
        text = t(lg, "result.tie_break_deal", deal=k, lines=" · ".join(parts))
    elif table.game == "bauern":
        # partners share what the deal gave: each team once ("+3 · +3" read as 6)
        parts = [
            t(lg, "result.points_line", name=team_name(lg, lambda s: nm[s], k), points=points[k])
            for k in (0, 1)
        ]
        text = t(lg, "result.deal", deal=k, lines=" · ".join(parts))
    else:
        parts = [t(lg, "result.points_line", name=nm[i], points=p) for i, p in enumerate(points)]
        text = t(lg, "result.deal", deal=k, lines=" · ".join(parts))
    if res is not None:
        key = f"result.reason.{res.reason}"
        if key in i18n.TEXTS["en"]:
            said = t(lg, key)
            margin = _margin(res, log_.spec.game)
            if margin:  # a closed deal counts the loser as he was at the closing
                closed = isinstance(res.detail("closed_by"), int)
                said += ", " + t(lg, f"result.margin.{margin}{'.closed' if closed else ''}")
            text += f" ({said})"
        claimer = _wrong_claimer(res, log_)
        if claimer is not None:
            # who said "enough" too soon: the numbers are his opponents' win
            text += " — " + t(lg, "result.wrong_claim_by", name=nm[log_.spec.seats[claimer]])
        claimed = res.detail("redeal_by")
        if res.reason == "redeal" and isinstance(claimed, int):
            # Thousand: who claimed it and for which nines, not a bid without a value
            why = t(lg, f"result.redeal.{res.detail('redeal_reason')}")
            name = nm[log_.spec.seats[claimed]]
            text += " — " + t(lg, "result.redeal_by", name=name, why=why)
        elif res.contract and log_.spec.game != "zweier":
            contract = contract_name(res.contract, lg)
            value = res.detail("value")
            if table.game == "tausend" and isinstance(value, int):
                contract += f" {value}"
            if res.detail("without_talon"):  # its extra game point is in the numbers
                contract += " " + t(lg, "table.without_talon")
            if res.declarer is not None:  # whose contract it was: the result is read alone
                name = nm[log_.spec.seats[res.declarer]]
                contract = t(lg, "result.contract", contract=contract, declarer=name)
            if res.multiplier > 1:  # Spritzen, Kontra, a blind bid: why "+72" for a Gang
                contract += t(lg, "table.multiplier", n=res.multiplier)
            text += f" — {contract}"
        # a wrong claim, not the closing, decided a closed deal that ended with one
        closing = _closing_text(table, res, log_.spec.seats, nm, lg) if claimer is None else None
        if closing:
            text += "\n" + closing
        # Thousand: fines and the barrel change scores beyond the deal's points
        notes = getattr(table.match, "notes", ())
        counted = _card_points_text(table, res, log_.spec.seats, nm, style)
        if counted:
            text += "\n" + counted
            frozen = {seat for seat, what in notes if what == "barrel_frozen"}  # score 0
            if log_.spec.game == "tausend" and any(
                p % 5
                for seat, p in enumerate(res.card_points)
                if seat != res.declarer and log_.spec.seats[seat] not in frozen
            ):
                # "39 points" scored "+40": the others' points are rounded (RULES.md §5)
                text += "\n" + t(lg, "result.rounded")
        pile = res.detail("face_down_stock")  # two at Thousand: its points are in the totals
        last = res.detail("last_trick")
        if isinstance(pile, tuple) and pile and isinstance(last, int):
            cards = cards_text(pile, lg, style.suits)
            points = sum(c.points for c in pile)
            name = nm[log_.spec.seats[last]]
            text += "\n" + t(lg, "result.face_down_stock", cards=cards, points=points, name=name)
        bolts = res.detail("bolts")  # Thousand: a bolt now, a fine at the third
        if isinstance(bolts, tuple):
            for seat, n in enumerate(bolts):
                if n:
                    text += "\n" + t(lg, "result.bolt", name=nm[log_.spec.seats[seat]], n=n)
        fine = BOLT_FINE * (2 if res.detail("golden") else 1)  # the golden round doubles it
        for seat, what in notes:
            text += "\n" + t(lg, f"result.note.{what}", name=nm[seat], fine=fine)
        if log_.spec.game != table.game and res.winners:
            # a tie-break: its loser takes the Bummerl, and that is the news
            winner = log_.spec.seats[res.winners[0]]
            loser = next(s for s in log_.spec.seats if s != winner)
            text += "\n" + t(lg, "result.tie_break", winner=nm[winner], loser=nm[loser])
    text += "\n" + t(lg, "table.seed", deal=k, seed=log_.seed)
    finished = table.status == Status.FINISHED
    if finished:
        text += "\n" + match_summary_text(table, style)
    return ResultView(
        table.id,
        k,
        points,
        finished,
        Message(text),
        seed=log_.seed,
        table=table_view(table, style),
        rematch=rematch_button(table, lg),
    )


def _wrong_claimer(res: DealResult, log_: DealLog) -> int | None:
    """The deal seat whose claim of 66 proved wrong (the deal's last move), or None."""
    if res.reason != "wrong_claim" or not log_.actions:
        return None
    seat, action = log_.actions[-1]
    claim = isinstance(action, Claim) or (isinstance(action, PlayCard) and action.claim)
    return seat if claim else None


def _margin(res: DealResult, game_id: str) -> int | None:
    """2 (Schneider: the losers under 33) or 3 (Schwarz: without a trick) for a game
    won by 66, where "+2" or "+6" beside "66 reached" would otherwise look like a
    miscount; None when the game is worth 1, or is no such game."""
    if res.reason != "reached_66" or res.contract != "normal" or not res.winners:
        return None
    gained = res.points[res.winners[0]]
    if game_id == "dreier":
        value, extra = res.detail("value"), res.detail("without_talon")
        if not isinstance(value, int):
            return None
        gained = value // res.multiplier - (1 if extra else 0)
    elif game_id == "bauern":
        gained //= res.multiplier
    return gained if gained in (2, 3) else None


def _closing_text(
    table: Table, res: DealResult, seats: tuple[int, ...], nm: tuple[str, ...], lg: str
) -> str | None:
    """Zweierschnapsen: who closed the talon, and what his opponent had then.

    A closed deal is scored from that moment (RULES.md §2), not from the final
    points: without it "+3" next to an opponent with tricks cannot be checked.
    """
    closer = res.detail("closed_by")
    if not isinstance(closer, int) or table.deal is None:
        return None
    snapshot = dict(P.view(table.deal, None).extra).get("closing_snapshot")
    if not isinstance(snapshot, tuple):
        return None
    points, tricks = snapshot
    name, other = nm[seats[closer]], nm[seats[1 - closer]]
    if not tricks:
        return t(lg, "result.closed_no_trick", name=name, other=other)
    return t(lg, "result.closed", name=name, other=other, points=points)


#: Reasons a deal ends for its card points, so the points say why it ended.
_POINT_RACE = frozenset({"reached_66", "last_trick", "closer_failed", "under_66", "wrong_claim"})


def _card_points_text(
    table: Table, res: DealResult, seats: tuple[int, ...], nm: tuple[str, ...], style: Style
) -> str | None:
    """Each side's points (cards and marriages) after a deal decided by points.

    The table message shows them too, but far up the chat; without them "66 reached"
    cannot be checked by anyone who did not count every trick.  Thousand is always a
    point race: the declarer's total against his bid.
    """
    game_id = table.deal_log.spec.game if table.deal_log is not None else table.game
    if res.reason not in _POINT_RACE and (game_id != "tausend" or res.reason == "redeal"):
        return None
    if not res.card_points:
        return None
    parts = side_points(game_id, res.card_points, res.declarer, lambda s: nm[seats[s]])
    return t(style.lang, "table.points", points=" · ".join(parts))


def side_points(
    game_id: str, counted: Sequence[int], declarer: int | None, name: Callable[[int], str]
) -> list[str]:
    """A deal's points (cards and counting marriages, per seat of the deal) as the
    sides that score them: Bauern's two teams, Dreier's declarer against the two
    others once there is one, otherwise each player.  Partners add up, so "Anna: 40 ·
    Cilli: 30" would leave the reader to add what decides the deal."""
    if game_id == "bauern" and len(counted) == 4:
        return [valued(f"{name(k)} & {name(k + 2)}", counted[k] + counted[k + 2]) for k in (0, 1)]
    if game_id == "dreier" and declarer is not None and len(counted) == 3:
        others = [s for s in range(3) if s != declarer]
        return [
            valued(name(declarer), counted[declarer]),
            valued(" & ".join(name(s) for s in others), sum(counted[s] for s in others)),
        ]
    return [valued(name(s), p) for s, p in enumerate(counted)]


def settings_text(
    settings: ChatSettings,
    lang: str | None,
    *,
    turn_timeout: float,
    ai_level: str,
    key: str | None = None,
    servers: bool = False,
    example: str = "/settings dreier",
    chat_lang: str | None = None,
) -> str:
    """What `/settings` shows: every setting of the chat, the one named by `key`, or
    with a game's id as `key` that game's preset and rule options (Discord calls its
    chats `servers`; `example` is the platform's command for that, in `lang`).

    A setting never changed reads "default" with the value that means (the bot's own
    turn timeout and computer level, the game's rules), so an admin need not look
    them up.
    """
    lg = i18n.norm_lang(lang)
    title = t(lang, "settings.title.server" if servers else "settings.title")

    def line(k: str, v: str) -> str:
        return t(lang, "settings.line", key=k, value=v)

    def about(k: str) -> str | None:
        """What a chat-wide setting does (a rule option's meaning is in /rules)."""
        return t(lang, f"settings.about.{k}") if f"settings.about.{k}" in i18n.TEXTS["en"] else None

    if key is None:
        shown = _settings_shown(settings, lang, turn_timeout, ai_level, chat_lang)
        hint = t(lang, "settings.games", example=example)
        lines = [line(k, v) + (f" — {a}" if (a := about(k)) else "") for k, v in shown]
        return "\n".join([title, *lines, hint])
    want = setting_key(key)
    gid = i18n.game_named(want, tuple(GAME_MODULES))
    if gid is not None:
        rules = [
            (k, t(lang, "settings.default", value=shown_value(v, lg)) if d else shown_value(v, lg))
            for k, v, d in settings.game_lines(gid)
        ]
        # the presets to choose from, which the preset's line names only one of
        presets = ", ".join(i18n.preset_name(p, lg) for p in game_spec(gid).presets)
        hints = [t(lang, "settings.presets", game=gid, presets=presets)] if presets else []
        return "\n".join([title, *(line(k, v) for k, v in rules), *hints])
    found = setting_line(
        settings, lang, want, turn_timeout=turn_timeout, ai_level=ai_level, chat_lang=chat_lang
    )
    if found is not None:
        said = about(found[0])
        return "\n".join([title, line(*found), *([said] if said else [])])
    options = settings.options_named(want)
    if options:  # `/settings auto_claim`: an option, named without its game
        return t(lang, "settings.unknown_option", key=i18n.typed(key), keys=", ".join(options))
    # a typo ("turn_timout") gets the one it misses; anything else the names there are
    names = [k for k, _ in _settings_shown(settings, lang, turn_timeout, ai_level, chat_lang)]
    preset_keys = [f"preset.{g}" for g in GAME_MODULES]
    prefix = i18n.game_named(want.partition(".")[0], tuple(GAME_MODULES)) if "." in want else None
    if prefix is not None:  # "dreier.nonsense": that game's are the ones meant
        names = settings.option_names(prefix)  # its preset's line first
    close = difflib.get_close_matches(want, [*names, *preset_keys], n=1, cutoff=0.75)
    if close:
        return t(lang, "settings.unknown_close", key=i18n.typed(key), guess=close[0])
    if prefix is not None:
        return t(
            lang,
            "settings.unknown_in_game",
            key=i18n.typed(key),
            game=prefix,
            keys=", ".join(names),
        )
    return t(lang, "settings.unknown", key=i18n.typed(key), keys=", ".join(names))


def setting_line(
    settings: ChatSettings,
    lang: str | None,
    key: str,
    *,
    turn_timeout: float,
    ai_level: str,
    chat_lang: str | None = None,
) -> tuple[str, str] | None:
    """One setting as `/settings KEY` shows it, name and value (a preset or rule option
    never set as "default (…)" with what that means); None for no such setting.  The
    answer to a change says the same ("Saved: turn_timeout = 90 s")."""
    want = setting_key(key)
    for name, value in _settings_shown(settings, lang, turn_timeout, ai_level, chat_lang):
        if name == want:
            return name, value
    unset = settings.unset(want)
    if unset is None:
        return None
    name, value = unset
    return name, t(lang, "settings.default", value=shown_value(value, i18n.norm_lang(lang)))


def _settings_shown(
    settings: ChatSettings,
    lang: str | None,
    turn_timeout: float,
    ai_level: str,
    chat_lang: str | None = None,
) -> list[tuple[str, str]]:
    """The chat's settings (`ChatSettings.lines`) as `/settings` lists them: the bot's
    own timeout and computer level where the chat left them, a time with its unit
    ("turn_timeout = 4" could be minutes), switches in the chat's words."""
    lg = i18n.norm_lang(lang)
    defaults = {
        "turn_timeout": f"{turn_timeout:g} s",
        "ai_level": ai_level,
        # the chat's own (a Discord server's locale), else English
        "language": i18n.norm_lang(chat_lang),
    }
    out = []
    for name, value in settings.lines():
        if name in defaults and value == "default":
            value = t(lang, "settings.default", value=defaults[name])
        elif name == "turn_timeout":
            value = f"{value} s"
        elif name not in defaults:
            value = shown_value(value, lg)
        out.append((name, value))
    return out


def started_lobby_text(lobby_text: str, lang: str | None, lobby_expiry: float) -> str:
    """The lobby's last words once its match started: who sat down, and that the
    game is on, not "the host can start" or when the lobby would close."""
    minutes = int(lobby_expiry // 60)
    stale = {t(lang, "lobby.ready"), t(lang, "lobby.expires", minutes=minutes)}
    lines = [line for line in lobby_text.splitlines() if line not in stale]
    return "\n".join([*lines, t(lang, "refuse.not_in_lobby")])


def valued(name: str, value: object) -> str:
    """A name and its number in a line of several ("Anna: 3 · Computer 2: 0"): with
    only a space, "Computer 2 0" would not say which number is the score."""
    return f"{name}: {value}"


def _team_scores(lg: str, name: Callable[[int], str], scores: Sequence[int]) -> str:
    """Bauern's partners sit opposite and share a score: the two teams, not four."""
    return " · ".join(valued(team_name(lg, name, k), scores[k]) for k in (0, 1))


def team_name(lg: str, name: Callable[[int], str], k: int) -> str:
    """Bauern's team `k` (0 or 1) as every line names it: "Team 1 (Anna & Bert)"."""
    return f"{t(lg, 'lobby.team', team=k + 1)} ({name(k)} & {name(k + 2)})"


def _bummerl_line(table: Table, lg: str, nm: tuple[str, ...], bummerl: Sequence[int]) -> str | None:
    """Who has Bummerl, as the results count them: once the match is over, after a
    resignation or with one who walked away, the losers have one at least whatever
    the scores (`standings`).  Bauern's teams have theirs once each, named as the
    table names them; a loser without a point is Schneider, two instead of one
    (Dreier's Retourschneider: four): the number alone would look like several
    matches.  The table's last picture and the match summary say the same."""
    if table.game == "tausend":
        return None
    if table.status == Status.FINISHED:
        bummerl = tuple(s.bummerl for s in standings(table))
    who = [f"{nm[k]} & {nm[k + 2]}" for k in (0, 1)] if table.game == "bauern" else list(nm)
    named = {2: t(lg, "table.schneider"), 4: t(lg, "table.retourschneider")}
    losers = [
        valued(who[i], b) + (f" ({named[b]})" if b in named else "")
        for i, b in enumerate(bummerl[: len(who)])
        if b
    ]
    return t(lg, "table.bummerl", bummerl=" · ".join(losers)) if losers else None


def match_summary_text(table: Table, style: Style) -> str:
    lg = style.lang
    nm = names(table)
    scores, bummerl = scores_of(table)
    if table.game == "bauern":  # a team's score, once, named as the table names the teams
        score_text = _team_scores(lg, lambda s: nm[s], scores)
    else:
        score_text = " · ".join(valued(nm[i], s) for i, s in enumerate(scores))
    lines = [_scores_line(lg, table, score_text)]
    if table.resigned is not None:
        lines.append(t(lg, "result.resigned", name=nm[table.resigned]))
    if table.ended == "walked_away":
        lines.append(t(lg, "result.ended_walked_away"))
    walked = [i for i, s in enumerate(table.seats) if s is not None and s.user is not None and s.ai]
    if len(walked) == len(table.humans()):
        walked = []  # nobody left playing: the scores decide (`standings`)
    if table.status == Status.FINISHED and walked:
        # the results count it as a resignation (`standings`): the scores alone would
        # not say why his side lost
        lines.append(t(lg, "result.walked_away", names=", ".join(nm[i] for i in walked)))
    winner = table.match.summary().get("winner") if table.match is not None else None
    if table.game == "tausend":
        # no Bummerl in Thousand: one player reaches 1000 and wins
        if isinstance(winner, int):
            # the computer got there in the seat of one who walked away: no win of his
            key = "result.reached_1000.away" if winner in walked else "result.reached_1000"
            lines.append(t(lg, key, name=nm[winner]))
    else:
        said = _bummerl_line(table, lg, nm, bummerl)
        if said is not None:
            lines.append(said)
    if table.status == Status.FINISHED:
        # who won, as the leaderboard counts it: after a resignation the scores alone
        # ("Anna 0 · Bert 0") would not say.  Said already when the one who reached
        # 1000 is the winner; not when he had walked away and the computer got there.
        won = [s.seat for s in standings(table) if s.won]
        if won and won != [winner]:
            lines.append(t(lg, "result.winner", names=", ".join(nm[i] for i in won)))
    return t(lg, "result.match", lines="\n".join(lines))
