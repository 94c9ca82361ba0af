"""The public table message, for the whole chat: what everyone may see, no more.

It is built from the engine's ``view(state, None)`` only, so no hidden card can reach
it.  Its trump and trick lines are shown in a hand too (`hand`): a player deciding
looks at them, and on Telegram the table is in another chat.
"""

from __future__ import annotations

from engine import protocol as P
from engine.actions import Bid, Double, ExchangeTrump, Look
from engine.cards import Card
from engine.tausend.rules import BARREL_ATTEMPTS
from engine.views import SeatView

from .. import i18n
from ..i18n import action_label, card_label, cards_text, game_key, game_name, suit_label, t
from ..payload import table_verb
from ..table import Status, Table
from .auction import _blind_bids, _contract_line, _doubles
from .faces import Button, Message, Style, TableView, _Layout
from .scores import _bummerl_line, _scores_line, _team_scores, scores_of, side_points, valued
from .seats import _deal_over, _match_seat, _remap, deal_game, names, seat_lines


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


def _trick_text(trick: tuple[tuple[int, Card], ...], nm: tuple[str, ...], style: Style) -> str:
    return " · ".join(f"{nm[s]} {card_label(c, style.lang, style.suits)}" for s, c in trick)


def _tie_break_line(table: Table, lg: str, nm: tuple[str, ...]) -> str | None:
    """Who plays the tie-break deal, when this deal is one."""
    log_ = table.deal_log
    if log_ is None or log_.spec.game == table.game:
        return None
    a, b = (nm[s] for s in log_.spec.seats)
    return t(lg, "table.tie_break", a=a, b=b, game=game_name(log_.spec.game, lg))


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


def _exchanged_by(table: Table) -> int | None:
    """Who exchanged the trump Jack for the face-up trump in this deal (a match
    seat), if anyone did; a deal has one trump Jack, so one exchange at most."""
    actions = table.deal_log.actions if table.deal_log is not None else []
    return next((s for s, a in actions if isinstance(a, ExchangeTrump)), None)


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


def _talon_shown(view: SeatView) -> bool:
    """Whether the talon's cards are worth a line.  Thousand's stock, turned up for
    all, stays in its view for the whole deal, but once the declarer has given its
    cards away (two players: laid three away) it is only part of his hand."""
    return bool(view.talon_cards) and (view.game != "tausend" or view.phase in _STOCK_PHASES)


#: Thousand's phases in which the declarer still deals with the stock he took.
_STOCK_PHASES = frozenset({"give", "discard"})


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
